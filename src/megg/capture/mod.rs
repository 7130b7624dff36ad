//! Never start cold (SPEC §10): a handoff captured from the session itself — its transcript,
//! its task list, the repository — written to the session's own file and promoted to the
//! domain's `state.md` only while nobody else wrote it during the session.
//!
//! Who wrote `state.md` is decided by content, not clocks or tool names: the SessionStart hook
//! records the hash of `state.md` as the session found it ([`record_start`]), each promotion
//! records the hash of what it wrote, and `state.md` may be replaced only while its hash is
//! the one this session last promoted (or, before its first promotion, the one it found).

pub mod acknowledgement;
pub mod calls;
pub mod carry;
pub mod changes;
pub mod failures;
pub mod format;
pub mod handoff;
pub mod kept;
pub mod kept_summary;
pub mod read;
pub mod snapshot;
pub mod store;
pub mod summary;
pub mod transcript;
pub mod walk;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::Deps;
use super::discovery::Domain;
use super::state;
use crate::clock::format_timestamp;
use crate::fsx;
use crate::git::Repo;
use crate::host::Agent;
use handoff::Facts;
pub use store::{Evidence, SessionId, Sessions, Start};

/// Most commits a capture walks for "commits since the session began", and how many it lists.
const COMMIT_WALK: usize = 1_000;
const COMMITS_SHOWN: usize = 10;

/// One capture, as the hook input and the environment describe it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The host whose session it is: its transcript format and its session files.
    pub agent: Agent,
    pub session: SessionId,
    /// The hook event that ran it (`PreCompact`, `SessionEnd`, `Stop`), for the log.
    pub event: String,
    /// The session's working directory.
    pub cwd: PathBuf,
    pub transcript: Option<PathBuf>,
    /// Claude Code's task list directory for this session, when it has one.
    pub tasks_dir: Option<PathBuf>,
    /// The turn's last assistant message as the hook input gives it (newer than the
    /// transcript when `Stop` runs).
    pub last_message: Option<String>,
    /// Report, write nothing.
    pub dry_run: bool,
    /// Keep the host's compaction summary the transcript holds (SPEC §18.1; off with
    /// `MEGG_HOST_SUMMARY=off`).
    pub host_summary: bool,
}

/// What a capture did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No tasks and no edits: nothing to hand off, nothing written.
    Nothing,
    /// The same handoff as the session's last capture: nothing written.
    Unchanged,
    /// Written to the session file and promoted to `state.md`.
    Promoted,
    /// Written to the session file only, for this reason.
    Kept(Why),
}

/// Why a capture stayed in the session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// `state.md` changed during the session: a hand-written handoff, a clear, or another
    /// session's capture.
    WrittenByOthers,
    /// No `.megg` domain at or above the session's directory.
    NoDomain,
    /// The nearest domain is above the repository (SPEC §9 "No writing up").
    AboveRepository(PathBuf),
    /// Git would not ignore `state.md` (SPEC §9: a capture never creates a tracked state).
    NotIgnored(PathBuf),
    /// Writing failed.
    Failed(String),
}

impl Verdict {
    /// The log's word for it.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Nothing => "nothing",
            Verdict::Unchanged => "unchanged",
            Verdict::Promoted => "promoted",
            Verdict::Kept(_) => "written",
        }
    }

    /// Why, for people.
    pub fn explain(&self) -> String {
        match self {
            Verdict::Nothing => "nothing to hand off (no tasks, no edits)".into(),
            Verdict::Unchanged => "same handoff as the last capture".into(),
            Verdict::Promoted => "promoted to state.md".into(),
            Verdict::Kept(why) => match why {
                Why::WrittenByOthers => "state.md was written during this session by someone else (a hand-written handoff, a clear, or another session): kept".into(),
                Why::NoDomain => "no .megg here to promote to (run `megg init`)".into(),
                Why::AboveRepository(d) => format!(
                    "the nearest .megg ({}) is above this repository; captures never write up (run `megg init` here)",
                    d.display()
                ),
                Why::NotIgnored(p) => format!(
                    "git does not ignore {}; a capture never creates a state git would commit (run `megg gitignore`)",
                    p.display()
                ),
                Why::Failed(e) => format!("could not write: {e}"),
            },
        }
    }
}

/// What a capture did, and with what.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The session file (written, or that would be).
    pub session_file: Option<PathBuf>,
    /// The `state.md` promoted to (or that would be).
    pub state: Option<PathBuf>,
    /// The handoff's content.
    pub handoff: Option<String>,
}

/// The decision of SPEC §10: `state.md` (now `current`) may be replaced only while it holds
/// what this session last promoted — or, before its first promotion, what the session found
/// when it started; without a start record, only an absent `state.md` may be created.
pub fn may_promote(
    current: &Evidence,
    start: Option<&Evidence>,
    promoted: Option<&Evidence>,
) -> bool {
    if *current == Evidence::Unreadable {
        return false;
    }
    match (promoted, start) {
        (Some(p), _) => current == p,
        (None, Some(s)) => current == s,
        (None, None) => *current == Evidence::Absent,
    }
}

/// `state.md` as evidence: absent, its hash, or unreadable.
pub fn evidence(d: &Domain) -> Evidence {
    match fsx::read_bytes(&d.boundary, &d.state_path(), state::MAX_STATE_BYTES) {
        Ok(None) => Evidence::Absent,
        Ok(Some(bytes)) => Evidence::of_bytes(&bytes),
        Err(_) => Evidence::Unreadable,
    }
}

/// `state.md`'s text and the domain's handoff lifetime, when this session's promotion may
/// replace it: the handoff whose open items a capture carries over (SPEC §18.2).
fn replaceable(
    d: &Domain,
    sessions: &Sessions,
    session: &SessionId,
    start: Option<&Start>,
) -> Option<(String, state::Lifetime)> {
    let bytes = fsx::read_bytes(&d.boundary, &d.state_path(), state::MAX_STATE_BYTES).ok()??;
    let (found, promoted) = (start.map(|s| &s.state), sessions.read_promoted(session));
    if !may_promote(&Evidence::of_bytes(&bytes), found, promoted.as_ref()) {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Some((text, d.state_lifetime(&mut Vec::new())))
}

/// Where a session works: its repository, project top, the domain it hands off to, and its
/// session files.
pub struct Place {
    pub repo: Option<Repo>,
    pub top: PathBuf,
    pub domain: Option<Domain>,
    pub sessions: Option<Sessions>,
}

/// The [`Place`] of a session working in `cwd` (one repository discovery).
pub fn place(deps: &Deps<'_>, cwd: &Path) -> Place {
    let repo = deps.repo(cwd);
    let top = super::repos::top_of(repo.as_ref(), cwd);
    let domain = deps.walk(&top).current_domain(cwd, &mut Vec::new());
    let sessions = sessions_for(repo.as_ref(), &top, domain.as_ref());
    Place {
        repo,
        top,
        domain,
        sessions,
    }
}

/// The session files for a project (inside git) or a domain (outside).
pub fn sessions_for(repo: Option<&Repo>, top: &Path, domain: Option<&Domain>) -> Option<Sessions> {
    let key = domain.map_or(top, |d| d.dir.as_path());
    Sessions::locate(repo, key, fsx::user_cache_dir().as_deref())
}

/// The SessionStart hook's record of what the session found (SPEC §3.3, §10), with the
/// prompt the host handed it (Copilot's `initialPrompt`). Recorded once per session; errors
/// are ignored (the hook never fails).
pub fn record_start(deps: &Deps<'_>, cwd: &Path, session: &SessionId, prompt: Option<&str>) {
    // No `.megg` here: nothing to hand off to, so nothing is written into a repository the
    // user merely opened.
    let Place {
        repo,
        domain: Some(domain),
        sessions: Some(sessions),
        ..
    } = place(deps, cwd)
    else {
        return;
    };
    let mut start = found(session, repo.as_ref(), &domain, &sessions);
    // Only the first: later prompts are the transcript's, or `userPromptSubmitted`'s.
    start.first_prompt = prompt.and_then(prompt_text);
    if let Ok(true) = sessions.record_start(session, &start) {
        note_in_background(session, repo.as_ref(), &start);
    }
}

/// For a start that is a time (a host that edits through its shell), starts the `megg` that
/// notes the work tree's dirty files ([`snapshot`]): the hook only spawns it (SPEC §14).
fn note_in_background(session: &SessionId, repo: Option<&Repo>, start: &Start) {
    if start.since.is_some()
        && let Some(work) = repo.and_then(Repo::workdir)
    {
        snapshot::start_in_background(session.host(), &work);
    }
}

/// What the background `megg` of [`note_in_background`] does, in the work tree `cwd`: one
/// status walk, then for each of `host`'s sessions whose start is not noted yet, the note of
/// the files dirty then. Writes nothing but the notes; never fails.
pub fn take_snapshots(deps: &Deps<'_>, cwd: &Path, host: Agent) {
    let Some(repo) = deps.repo(cwd) else {
        return;
    };
    let (Some(work), Some(sessions)) = (repo.workdir(), Sessions::locate(Some(&repo), cwd, None))
    else {
        return;
    };
    let pending = sessions.to_note(host);
    if pending.is_empty() {
        return;
    }
    let b = fsx::Boundary::new(&work, "the work tree");
    let seen = snapshot::read(&b, &repo.changed_paths_at_start());
    for (id, since) in pending {
        let _ = sessions.write_snapshot(&id, &snapshot::Snapshot::of(since, &seen));
    }
}

/// What a session finds as it starts: `state.md`, HEAD and — for a host that edits through
/// its shell — the file system's time, so a capture can tell what changed since. Nothing here
/// walks the work tree (SPEC §14).
fn found(session: &SessionId, repo: Option<&Repo>, domain: &Domain, sessions: &Sessions) -> Start {
    Start {
        state: evidence(domain),
        head: repo.and_then(Repo::head_commit),
        since: match (session.host(), repo) {
            (Agent::Claude, _) | (_, None) => None,
            (_, Some(_)) => sessions.clock().ok(),
        },
        ..Start::default()
    }
}

/// A prompt as a start record keeps it: redacted, on one line, cut; `None` when empty.
fn prompt_text(prompt: &str) -> Option<String> {
    let text = transcript::one_line_cut(prompt, transcript::MAX_REQUEST_CHARS);
    (!text.is_empty()).then_some(text)
}

/// Keeps a prompt the user submitted (Copilot's `userPromptSubmitted`: its transcript may not
/// hold it yet when the session stops, SPEC §12) in the session's start record — recording
/// the start now if the SessionStart hook did not.
pub fn record_prompt(deps: &Deps<'_>, cwd: &Path, session: &SessionId, prompt: &str) {
    let Some(text) = prompt_text(prompt) else {
        return;
    };
    let Place {
        repo,
        domain: Some(domain),
        sessions: Some(sessions),
        ..
    } = place(deps, cwd)
    else {
        return;
    };
    let mut recorded = None;
    let _ = sessions.update_start(session, |start| {
        let first = start.is_none();
        let mut start = start.unwrap_or_else(|| Start {
            // The session's start went unrecorded: what `state.md` held then is unknown, so it
            // is recorded as absent — only an absent `state.md` may be created, as without a
            // start record (SPEC §10); a handoff written meanwhile is never replaced.
            state: Evidence::Absent,
            ..found(session, repo.as_ref(), &domain, &sessions)
        });
        start.first_prompt.get_or_insert_with(|| text.clone());
        // An acknowledgement after a request keeps the request (SPEC §18.2).
        let substantive = start
            .latest_prompt
            .as_deref()
            .is_some_and(|p| !acknowledgement::is_acknowledgement(p));
        if acknowledgement::is_acknowledgement(&text) && substantive {
            start.ack = Some(text);
        } else {
            start.latest_prompt = Some(text);
            start.ack = None;
        }
        if first {
            recorded = Some(start.clone());
        }
        start
    });
    if let Some(start) = recorded {
        note_in_background(session, repo.as_ref(), &start);
    }
}

/// A session's own capture (its path and text), for the SessionStart hook after `compact` or
/// `resume` (SPEC §10).
pub fn own_capture(deps: &Deps<'_>, cwd: &Path, session: &SessionId) -> Option<(PathBuf, String)> {
    let sessions = place(deps, cwd).sessions?;
    let text = sessions.read_capture(session)?;
    Some((sessions.capture_path(session), text))
}

/// Another session's capture newer than the state being shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Newer {
    pub session: String,
    pub path: PathBuf,
    pub updated: DateTime<Utc>,
}

/// Captures by other sessions newer than `than` (the state `context` shows), active, newest
/// first: the parallel sessions whose handoff did not reach `state.md` (SPEC §10).
pub fn newer_captures(
    deps: &Deps<'_>,
    sessions: &Sessions,
    domain: &Domain,
    than: Option<DateTime<Utc>>,
    exclude: &[&str],
) -> Vec<Newer> {
    let mut out = Vec::new();
    let lifetime = domain.state_lifetime(&mut Vec::new());
    for (id, path) in sessions.captures().into_iter().take(store::KEEP_CAPTURES) {
        if exclude.contains(&id.as_str()) {
            continue;
        }
        let Some(text) = sessions.read_capture(&id) else {
            continue;
        };
        let doc = state::parse(&text, "");
        let Some(updated) = doc.updated else { continue };
        // Sessions share one directory per repository: only this domain's captures count.
        if doc
            .domain
            .as_deref()
            .is_some_and(|dir| Path::new(dir) != domain.dir)
        {
            continue;
        }
        if !state::expiry_within(&doc, deps.now, lifetime).is_active()
            || than.is_some_and(|t| updated < t)
        {
            continue;
        }
        out.push(Newer {
            session: id.to_string(),
            path,
            updated,
        });
    }
    out.sort_by_key(|n| std::cmp::Reverse(n.updated));
    out
}

/// Captures the session's handoff (SPEC §10). Never fails: what goes wrong is the verdict.
pub fn capture(deps: &Deps<'_>, req: &Request) -> Outcome {
    let Place {
        repo,
        top,
        domain,
        sessions,
    } = place(deps, &req.cwd);
    let mut outcome = Outcome {
        verdict: Verdict::Nothing,
        session_file: None,
        state: domain.as_ref().map(Domain::state_path),
        handoff: None,
    };
    if domain.is_none() {
        // Nothing to hand off to: nothing is written, not even a log line, in a repository
        // without a `.megg` (doctor says `megg init`).
        outcome.verdict = Verdict::Kept(Why::NoDomain);
        return outcome;
    }
    let Some(sessions) = sessions else {
        outcome.verdict = Verdict::Kept(Why::Failed(
            "no place for session files: not in git and no cache directory".into(),
        ));
        return outcome;
    };
    outcome.session_file = Some(sessions.capture_path(&req.session));

    let previous = sessions
        .read_scan(&req.session)
        .and_then(|t| serde_json::from_str::<read::Progress>(&t).ok());
    let files = match (req.agent, req.transcript.as_deref()) {
        (_, None) => Vec::new(),
        (Agent::Claude, Some(t)) => read::transcripts(t),
        (_, Some(t)) => vec![(t.to_path_buf(), transcript::Origin::Main)],
    };
    let (mut progress, mut changed) = read::update(previous, &files, req.agent);
    if req.host_summary {
        kept_summary::keep_found(
            &sessions,
            &req.session,
            progress.scan.summary.as_ref(),
            deps.now,
            req.dry_run,
        );
    }
    let start = sessions.read_start(&req.session);
    // The files a shell changed since the session began (hosts that edit through it): looked
    // at again only when the transcript moved on, so a capture with nothing new stays cheap.
    if let (Some(since), Some(r)) = (start.as_ref().and_then(|s| s.since), &repo)
        && (changed || progress.shell_edits.is_none())
    {
        let edits = shell_edits(r, since, || sessions.read_snapshot(&req.session));
        changed |= progress.shell_edits.as_ref() != Some(&edits);
        progress.shell_edits = Some(edits);
    }
    let facts = facts(
        deps,
        req,
        &top,
        (
            &progress.scan,
            progress.shell_edits.as_deref().unwrap_or_default(),
        ),
        repo.as_ref(),
        start.as_ref(),
    );

    let verdict = if facts.is_empty() {
        Verdict::Nothing
    } else {
        // SPEC §18.2: the open items of a handoff this capture replaces are carried over.
        let replaced = domain
            .as_ref()
            .and_then(|d| replaceable(d, &sessions, &req.session, start.as_ref()));
        let previous = sessions.read_capture(&req.session);
        let content = carry::into_handoff(
            handoff::render(&facts),
            &carry::Sources {
                session: req.session.as_str(),
                replaced: replaced.as_ref().map(|(t, l)| (t.as_str(), *l)),
                previous: previous.as_deref(),
                tasks: &facts.tasks,
                now: deps.now,
            },
            |t| t.len() <= state::MAX_TOKENS || deps.tokens.count(t) <= state::MAX_TOKENS,
        );
        outcome.handoff = Some(content.clone());
        let last = previous.map(|t| state::parse(&t, "").content);
        // The file holds the content as written: cut to 2,000 tokens when it was longer, so a
        // longer handoff is unchanged when it still starts with what was written.
        let same = last.as_deref().is_some_and(|last| {
            last == content
                || (content.len() > state::MAX_TOKENS
                    && !last.is_empty()
                    && content.starts_with(last))
        });
        // Unchanged, unless an earlier promotion did not happen and now could (the state was
        // not ignored then, or writing failed): then promote it now.
        let retry = same
            && domain.as_ref().is_some_and(|d| {
                let current = evidence(d);
                let promoted = sessions.read_promoted(&req.session);
                promoted.as_ref() != Some(&current)
                    && may_promote(
                        &current,
                        start.as_ref().map(|s| &s.state),
                        promoted.as_ref(),
                    )
            });
        if same && !retry {
            Verdict::Unchanged
        } else {
            write(
                deps,
                req,
                &top,
                &sessions,
                domain.as_ref(),
                repo.as_ref(),
                &facts,
                &content,
                start.as_ref(),
            )
        }
    };
    outcome.verdict = verdict;
    if !req.dry_run {
        if changed && let Ok(json) = serde_json::to_string(&progress) {
            let _ = sessions.write_scan(&req.session, &json);
            sessions.prune_scans();
        }
        let _ = sessions.log(&format!(
            "{}\t{}\t{}\t{}\t{}",
            format_timestamp(deps.now),
            req.session,
            transcript::one_line_cut(&req.event, 40),
            outcome.verdict.word(),
            outcome.verdict.explain()
        ));
    }
    outcome
}

/// The files changed since `since` (absolute), leaving out those as `note` found them.
fn shell_edits(
    repo: &Repo,
    since: fsx::ChangeTime,
    note: impl FnOnce() -> Option<snapshot::Snapshot>,
) -> Vec<String> {
    let Some(work) = repo.workdir() else {
        return Vec::new();
    };
    changes::since(repo, since, note)
        .into_iter()
        .map(|rel| work.join(rel).display().to_string())
        .collect()
}

/// The facts of the handoff.
fn facts(
    deps: &Deps<'_>,
    req: &Request,
    top: &Path,
    (scan, shell_edits): (&transcript::Scan, &[String]),
    repo: Option<&Repo>,
    start: Option<&Start>,
) -> Facts {
    let tasks = req
        .tasks_dir
        .as_deref()
        .and_then(read::task_files)
        .unwrap_or_else(|| scan.task_list().to_vec());
    // The files its edit tools name, then those its shell changed.
    let mut files: Vec<String> = Vec::new();
    for f in scan.files.iter().rev().chain(shell_edits) {
        let p = Path::new(f);
        let shown = match p.strip_prefix(top) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => f.clone(),
        };
        if !files.contains(&shown) && files.len() < handoff::MAX_FILES {
            files.push(shown);
        }
    }
    let commits = match (repo, start.and_then(|s| s.head.as_deref())) {
        (Some(r), Some(head)) => r.commits_since(head, COMMITS_SHOWN, COMMIT_WALK),
        _ => None,
    };
    let checkpoint = scan
        .checkpoint
        .as_ref()
        .map(|target| checkpoint_phase(deps, &req.cwd, target));
    // The prompts a host's hooks handed megg come first: its transcript may lag (Copilot).
    let first_prompt = start.and_then(|s| s.first_prompt.as_deref());
    // An acknowledgement the hooks handed over does not replace the request before it either.
    let (latest_request, mut latest_ack) = acknowledgement::latest(
        (scan.latest_request.as_deref(), scan.ack.as_deref()),
        start.and_then(|s| s.latest_prompt.as_deref()),
        first_prompt,
    );
    if let Some(s) = start.filter(|s| s.ack.is_some() && s.latest_prompt == latest_request) {
        latest_ack.clone_from(&s.ack);
    }
    Facts {
        first_request: first_prompt
            .map(str::to_string)
            .or_else(|| scan.first_request.clone()),
        latest_request,
        latest_ack,
        tasks,
        files,
        commits,
        branch: repo.and_then(Repo::current_branch),
        head: repo.and_then(Repo::head_commit),
        checkpoint,
        last_message: req
            .last_message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(|m| transcript::cut_chars(m, transcript::MAX_MESSAGE_CHARS))
            .or_else(|| scan.last_message.clone()),
        failing: scan.failing.clone(),
        transcript: req.transcript.as_ref().map(|t| t.display().to_string()),
    }
}

/// The checkpoint a target names, by its file, with its phase when it still exists: the
/// handoff's workflow line, redacted (SPEC §12: the phase is whatever its file says).
fn checkpoint_phase(deps: &Deps<'_>, cwd: &Path, target: &str) -> (String, Option<String>) {
    let project = super::project::Project::at(cwd, deps.repos);
    let scan = super::checkpoint::store::scan(&project.roots);
    let t = super::checkpoint::store::Target {
        given: target.to_string(),
        as_plan: project.relative(&super::discovery::absolute(cwd, Path::new(target))),
    };
    let (file, phase) = match t.find(&scan) {
        Some(found) => (found.file.as_str(), found.checkpoint.phase.as_deref()),
        None => (target, None),
    };
    let line = |text: &str| transcript::one_line_cut(text, transcript::MAX_REQUEST_CHARS);
    (line(file), phase.map(line))
}

/// Writes the session file and, when SPEC §10 allows, promotes it to `state.md`.
#[allow(clippy::too_many_arguments)]
fn write(
    deps: &Deps<'_>,
    req: &Request,
    top: &Path,
    sessions: &Sessions,
    domain: Option<&Domain>,
    repo: Option<&Repo>,
    facts: &Facts,
    content: &str,
    start: Option<&Start>,
) -> Verdict {
    // A token is at least one byte: short content needs no tokenizer.
    let content = if content.len() <= state::MAX_TOKENS {
        content
    } else {
        deps.tokens.truncate(content, state::MAX_TOKENS).text
    };
    let bytes = state::render_from(
        content,
        deps.now,
        facts.branch.as_deref(),
        facts.head.as_deref(),
        Some((
            req.session.as_str(),
            domain.map_or(top, |d| d.dir.as_path()),
        )),
    );
    if !req.dry_run {
        if let Err(e) = sessions.write_capture(&req.session, &bytes) {
            return Verdict::Kept(Why::Failed(e.message));
        }
        sessions.prune(&req.session);
    }
    let Some(d) = domain else {
        return Verdict::Kept(Why::NoDomain);
    };
    if super::project::refuse_writing_up(&req.cwd, deps.repos, d).is_err() {
        return Verdict::Kept(Why::AboveRepository(d.megg.clone()));
    }
    let path = d.state_path();
    if let Some(r) = repo
        && let Some(work) = r.workdir()
    {
        let rel = fsx::canonical(&path)
            .or_else(|| fsx::canonical(&d.megg).map(|m| m.join("state.md")))
            .and_then(|p| {
                let work = fsx::canonical(&work).unwrap_or(work);
                p.strip_prefix(&work).ok().map(Path::to_path_buf)
            });
        // Ignored and not already tracked: an ignore rule added after a commit does not stop
        // git from showing (and committing) the file.
        if !rel.is_some_and(|rel| r.is_ignored(&rel) && !r.is_tracked(&rel)) {
            return Verdict::Kept(Why::NotIgnored(path));
        }
    }
    let start_state = start.map(|s| &s.state);
    if req.dry_run {
        let current = evidence(d);
        let promoted = sessions.read_promoted(&req.session);
        return if may_promote(&current, start_state, promoted.as_ref()) {
            Verdict::Promoted
        } else {
            Verdict::Kept(Why::WrittenByOthers)
        };
    }
    let result = (|| -> crate::error::Result<bool> {
        let _lock = super::lock(repo, &d.boundary, &path)?;
        // Read under the lock: another capture of this session may just have promoted.
        let promoted = sessions.read_promoted(&req.session);
        let current = evidence(d);
        if !may_promote(&current, start_state, promoted.as_ref()) {
            return Ok(false);
        }
        super::recall::history::keep_current(
            repo,
            d,
            fsx::user_cache_dir().as_deref(),
            Some(bytes.as_bytes()),
            deps.now,
        );
        fsx::write_atomic(&d.boundary, &path, bytes.as_bytes())?;
        sessions.write_promoted(&req.session, &Evidence::of_bytes(bytes.as_bytes()))?;
        Ok(true)
    })();
    match result {
        Ok(true) => Verdict::Promoted,
        Ok(false) => Verdict::Kept(Why::WrittenByOthers),
        Err(e) => Verdict::Kept(Why::Failed(e.message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Evidence {
        Evidence::of_bytes(s.as_bytes())
    }

    #[test]
    fn promotion_follows_the_content_evidence() {
        use Evidence::Absent;
        // Found absent, still absent: create it.
        assert!(may_promote(&Absent, Some(&Absent), None));
        // Found a state, still the same: replace it.
        assert!(may_promote(&h("old"), Some(&h("old")), None));
        // Someone wrote it during the session: keep theirs.
        assert!(!may_promote(&h("mine by hand"), Some(&h("old")), None));
        assert!(!may_promote(&h("other session"), Some(&Absent), None));
        // Cleared during the session: respected.
        assert!(!may_promote(&Absent, Some(&h("old")), None));
        // After a promotion only that promotion may be replaced — a clear afterwards stays
        // cleared even though the session found no state.
        assert!(may_promote(&h("p1"), Some(&Absent), Some(&h("p1"))));
        assert!(!may_promote(&Absent, Some(&Absent), Some(&h("p1"))));
        assert!(!may_promote(&h("manual"), Some(&Absent), Some(&h("p1"))));
        // No start record: only an absent state may be created.
        assert!(may_promote(&Absent, None, None));
        assert!(!may_promote(&h("x"), None, None));
        // Unreadable never matches.
        assert!(!may_promote(
            &Evidence::Unreadable,
            Some(&Evidence::Unreadable),
            None
        ));
    }
}
