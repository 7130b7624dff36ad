//! Computing what `megg context` delivers (SPEC §3.1): the chain, the current domain's info,
//! knowledge in the mode its size allows, the active state, files, siblings and children.
//! Rendering lives in `render::context`.

use std::path::{Path, PathBuf};

use super::Deps;
use super::conflict;
use super::discovery::{self, Domain, Neighbour};
use super::knowledge::{self, BLOCKED_ABOVE, FULL_BELOW};
use super::state::{self, MAX_STATE_BYTES, StateDoc};
use crate::clock::format_timestamp;
use crate::fsx;

pub use super::discovery::{MAX_INFO_BYTES, MAX_KNOWLEDGE_BYTES};
/// Files above this many bytes are blocked without tokenizing (a token is at most 128 bytes).
const BLOCKED_BYTES: u64 = BLOCKED_ABOVE as u64 * crate::tokens::MAX_TOKEN_BYTES;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Absolute target directory.
    pub path: PathBuf,
    pub topic: Option<String>,
    /// Also compute the fallbacks a size budget may need (the digest of full knowledge).
    pub with_fallbacks: bool,
    /// A session resuming after `compact` or `resume`: its own capture, when it has one, is
    /// the state (SPEC §10).
    pub own_capture: Option<super::capture::SessionId>,
}

#[derive(Debug, Clone)]
pub struct Context {
    pub path: PathBuf,
    pub chain: Vec<ChainLink>,
    pub domain: Option<Domain>,
    pub info: Option<String>,
    pub knowledge: Option<Knowledge>,
    pub state: Option<StateView>,
    /// The domain's `state.md` when it expired by age or date rather than by being marked
    /// done: not loaded, yet said in one line with how to read it (a Friday handoff on Monday
    /// is still worth a look).
    pub expired_state: Option<StateView>,
    /// Other sessions' captures newer than the state shown: parallel sessions whose handoff
    /// stayed in their own file (SPEC §10).
    pub newer_captures: Vec<super::capture::Newer>,
    pub files: Vec<FileEntry>,
    pub siblings: Vec<Neighbour>,
    pub children: Vec<Neighbour>,
    /// The walk down stopped at its bound (SPEC §14): deeper domains were not looked for.
    pub children_cut: bool,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ChainLink {
    pub name: String,
    pub dir: PathBuf,
    pub info: PathBuf,
    pub title: String,
    /// A short excerpt of the body after the title.
    pub excerpt: String,
}

/// How knowledge loads, by its token count (SPEC §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Under [`FULL_BELOW`] tokens: the whole file.
    Full,
    /// Up to [`BLOCKED_ABOVE`] tokens: the summary digest.
    Summary,
    /// Over [`BLOCKED_ABOVE`] tokens: nothing but a message saying how to fix it.
    Blocked,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Summary => "summary",
            Mode::Blocked => "blocked",
        }
    }

    /// The mode knowledge of `tokens` tokens loads in (SPEC §3.1).
    pub fn for_tokens(tokens: usize) -> Self {
        if tokens < FULL_BELOW {
            Mode::Full
        } else if tokens <= BLOCKED_ABOVE {
            Mode::Summary
        } else {
            Mode::Blocked
        }
    }
}

#[derive(Debug, Clone)]
pub struct Knowledge {
    pub path: PathBuf,
    pub mode: Mode,
    pub tokens: usize,
    /// `tokens` was counted; when false it is the bound the byte size proves (SPEC §3.1).
    pub tokens_exact: bool,
    pub entries: usize,
    pub topic: Option<String>,
    pub content: String,
    pub warning: Option<String>,
    /// Every topic with its entry count, most used first.
    pub topics: Vec<(String, usize)>,
    /// The summary digest when `content` is the full file and a budget may need it.
    pub digest: Option<String>,
    /// The file holds merge conflicts (markers, or unmerged in the index): only OURS' side is
    /// loaded, and every render says so whatever its budget (SPEC §11).
    pub conflicted: bool,
    /// The session-start index in summary and blocked mode (SPEC §13.5), most relevant first:
    /// every render shows it in place of `content` (the seed's digest or blocked message), and
    /// a budget may cut it line by line.
    pub index: Option<super::recall::index::Index>,
}

/// What `context` and the hook say about a knowledge file with merge conflicts (SPEC §11).
pub const CONFLICT_WARNING: &str = "knowledge.md has unresolved merge conflicts: run megg resolve";

#[derive(Debug, Clone)]
pub struct StateView {
    pub path: PathBuf,
    pub status: String,
    pub updated: Option<String>,
    pub tokens: usize,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// Captured automatically from a session's transcript (SPEC §2.3), not written by hand.
    pub auto: bool,
    /// The session it was captured from.
    pub session: Option<String>,
    pub commits_since: Option<usize>,
    pub expired: bool,
    pub content: String,
    /// Why it is expired, for people.
    pub expired_reason: Option<String>,
    /// Its recall id (SPEC §13.2): `megg show <id>` reads it, expired or not.
    pub id: String,
    pub age_seconds: Option<i64>,
    /// `updated` as a time, for comparisons.
    pub updated_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Clone)]
pub struct FileEntry {
    pub name: String,
    pub path: PathBuf,
    pub loaded: bool,
}

/// Builds the context for `req.path`. Fails only when the target is not a directory; every
/// other problem becomes a warning.
pub fn build(deps: &Deps<'_>, req: &Request) -> Result<Context, crate::error::Error> {
    let path = &req.path;
    if !fsx::is_dir(path) {
        return Err(
            crate::error::Error::user(format!("{} is not a directory", path.display()))
                .with_hint("pass an existing directory"),
        );
    }
    // The walk down for children costs its directories' system calls (up to 128 of them at
    // the top of a monorepo): it runs beside the rest, on a thread of its own when one can
    // be had, so the hook waits for the longer of the two, not for both.
    let trusted = deps.trusted;
    std::thread::scope(|scope| {
        let walk = || discovery::children(path, trusted);
        let children = std::thread::Builder::new()
            .name("children".into())
            .spawn_scoped(scope, move || {
                crate::failpoint::panic_at("children-thread");
                walk()
            })
            .ok();
        let mut context = gather(deps, req)?;
        let found = match children.map(|t| t.join()) {
            Some(Ok(found)) => found,
            // No thread (or it failed): walked here.
            _ => {
                crate::failpoint::log("children-walked-in-place");
                walk()
            }
        };
        context.warnings.extend(found.warnings);
        context.children = found.domains;
        context.children_cut = found.cut;
        Ok(context)
    })
}

/// Everything [`build`] finds but the children.
fn gather(deps: &Deps<'_>, req: &Request) -> Result<Context, crate::error::Error> {
    let path = &req.path;
    let mut warnings = Vec::new();
    let top = deps.top(path);
    let (domain, chain_domains) = deps.walk(&top).chain(path, &mut warnings);

    let mut chain = Vec::with_capacity(chain_domains.len());
    let mut info = None;
    for d in &chain_domains {
        let file = d.info_path();
        let link = part("info", &file, &mut warnings, |warnings| {
            let text =
                read_or_warn(&d.boundary, &file, MAX_INFO_BYTES, warnings).unwrap_or_default();
            let body = body_of(&text);
            let (title, excerpt) = title_and_excerpt(body, &d.name);
            (body.to_string(), title, excerpt)
        });
        // A link whose info.md failed still names its domain: the chain keeps its shape.
        let (body, title, excerpt) =
            link.unwrap_or_else(|| (String::new(), d.name.clone(), String::new()));
        if domain.as_ref().is_some_and(|cur| cur.dir == d.dir) {
            info = Some(body);
        }
        chain.push(ChainLink {
            name: d.name.clone(),
            dir: d.dir.clone(),
            info: file,
            title,
            excerpt,
        });
    }

    let (mut knowledge, mut state, mut files, mut siblings) = (None, None, Vec::new(), Vec::new());
    let (mut newer_captures, mut expired_state) = (Vec::new(), None);
    if let Some(d) = &domain {
        let repo = deps.repo(path);
        // The handoff first: whatever fails after it, it is already here (SPEC §16).
        let on_disk = part("state", &d.state_path(), &mut warnings, |w| {
            load_state(deps, d, w)
        })
        .flatten();
        let own = req.own_capture.as_ref().and_then(|id| {
            part("capture", &d.state_path(), &mut warnings, |w| {
                own_capture(deps, d, path, id, w)
            })
            .flatten()
        });
        if on_disk.is_some() {
            newer_captures = part("captures", &d.megg, &mut warnings, |_| {
                let Some(sessions) = super::capture::sessions_for(repo.as_ref(), &top, Some(d))
                else {
                    return Vec::new();
                };
                let exclude: Vec<&str> = on_disk
                    .as_ref()
                    .and_then(|s| s.session.as_deref())
                    .into_iter()
                    .chain(req.own_capture.as_ref().map(|id| id.as_str()))
                    .collect();
                super::capture::newer_captures(
                    deps,
                    &sessions,
                    d,
                    on_disk.as_ref().and_then(|s| s.updated_at),
                    &exclude,
                )
            })
            .unwrap_or_default();
        }
        expired_state = on_disk
            .as_ref()
            .filter(|s| s.expired && s.status != "done")
            .cloned();
        let own = own.filter(|s| !s.expired);
        // An expired handoff is not loaded, yet still says what the last session was about:
        // the index ranks by it (issue 38 item 1).
        let last_handoff = own.as_ref().or(on_disk.as_ref()).map(|s| s.content.clone());
        state = own.or(on_disk).filter(|s| !s.expired);
        let file = d.knowledge_path();
        knowledge = part("knowledge", &file, &mut warnings, |w| {
            load_knowledge(deps, repo.as_ref(), d, req, w)
        })
        .flatten();
        if let Some(k) = knowledge.as_mut().filter(|k| k.topic.is_none()) {
            // Without its index, knowledge in summary or blocked mode still shows the seed's
            // digest or blocked message.
            // (`with_index` sets the index last: a failure leaves none.)
            part("index", &file, &mut warnings, |_| {
                with_index(k, (deps, d, &chain_domains), || {
                    super::recall::session::items(last_handoff.as_deref(), &top, repo.as_ref())
                });
            });
        }
        files = part("files", &d.megg, &mut warnings, |warnings| {
            let (listed, total) = discovery::megg_files(d);
            if total > listed.len() {
                warnings.push(format!(
                    "{} holds {total} .md files; listing the first {}",
                    d.megg.display(),
                    listed.len()
                ));
            }
            listed
                .into_iter()
                .map(|p| {
                    let name = discovery::dir_name(&p);
                    let loaded = match name.as_str() {
                        "info.md" | "knowledge.md" => true,
                        "state.md" => state.is_some(),
                        _ => false,
                    };
                    FileEntry {
                        name,
                        path: p,
                        loaded,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
        siblings = part("siblings", &d.dir, &mut warnings, |warnings| {
            let found = discovery::siblings(&d.dir, deps.trusted);
            warnings.extend(found.warnings);
            found.domains
        })
        .unwrap_or_default();
    }
    Ok(Context {
        path: path.clone(),
        chain,
        domain,
        info,
        knowledge,
        state,
        expired_state,
        newer_captures,
        files,
        siblings,
        children: Vec::new(),
        children_cut: false,
        warnings,
    })
}

/// Builds one part of the context (SPEC §16): its warnings join the others; a failure inside
/// megg while building it (a panic, whatever the input) becomes one warning naming `file` and
/// `megg doctor`, and the other parts still load. `name` is the part's failure point in tests
/// (`MEGG_FAILPOINTS=panic=<name>`).
fn part<T>(
    name: &str,
    file: &Path,
    warnings: &mut Vec<String>,
    build: impl FnOnce(&mut Vec<String>) -> T,
) -> Option<T> {
    let mut own = Vec::new();
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::failpoint::panic_at(name);
        build(&mut own)
    }));
    warnings.append(&mut own);
    match built {
        Ok(value) => Some(value),
        Err(panic) => {
            warnings.push(failed_part(file, &crate::error::panic_message(&*panic)));
            None
        }
    }
}

/// The one line a part that failed inside megg becomes.
pub fn failed_part(file: &Path, why: &str) -> String {
    format!(
        "{} was not loaded: megg failed on it ({why}); run `megg doctor`, and please report it",
        file.display()
    )
}

/// The body of a markdown file without its frontmatter and leading blank lines.
pub fn body_of(text: &str) -> &str {
    crate::frontmatter::split(text)
        .body
        .trim_start_matches(['\n', '\r'])
}

/// Reads a domain file for loading; every problem is a warning, never an error. A file over
/// `limit` is cut at its last whole line with a marker saying so.
fn read_or_warn(
    b: &fsx::Boundary,
    path: &Path,
    limit: u64,
    warnings: &mut Vec<String>,
) -> Option<String> {
    match fsx::read_text(b, path, limit) {
        Ok(Some(mut t)) => {
            if t.lossy {
                warnings.push(format!(
                    "{} is not valid UTF-8; invalid bytes shown as U+FFFD",
                    path.display()
                ));
            }
            if t.truncated {
                warnings.push(format!(
                    "{} is over {limit} bytes; read only its first {limit}",
                    path.display()
                ));
                let keep = t.text.rfind('\n').map_or(0, |i| i + 1);
                t.text.truncate(keep);
                t.text
                    .push_str(&format!("\n[… cut: the file is over {limit} bytes]\n"));
            }
            Some(t.text)
        }
        Ok(None) => None,
        Err(e) => {
            warnings.push(e.message);
            None
        }
    }
}

/// The first `# ` heading (else the domain name) and the first lines of prose after it.
fn title_and_excerpt(body: &str, name: &str) -> (String, String) {
    let mut title = None;
    let mut excerpt = String::new();
    for line in body.lines() {
        let line = line.trim();
        if title.is_none()
            && let Some(t) = line.strip_prefix("# ")
        {
            title = Some(t.trim().to_string());
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            if !excerpt.is_empty() && line.starts_with('#') {
                break;
            }
            continue;
        }
        if !excerpt.is_empty() {
            excerpt.push(' ');
        }
        excerpt.push_str(line);
        if excerpt.chars().count() >= 160 {
            break;
        }
    }
    if excerpt.chars().count() > 160 {
        excerpt = excerpt.chars().take(159).collect::<String>() + "…";
    }
    let mut title = title.unwrap_or_else(|| name.to_string());
    if title.chars().count() > MAX_TITLE_CHARS {
        title = title.chars().take(MAX_TITLE_CHARS - 1).collect::<String>() + "…";
    }
    (title, excerpt)
}

/// Most characters of a domain's title in the chain: a title is a name, not a description.
const MAX_TITLE_CHARS: usize = 120;

fn load_knowledge(
    deps: &Deps<'_>,
    repo: Option<&crate::git::Repo>,
    d: &Domain,
    req: &Request,
    warnings: &mut Vec<String>,
) -> Option<Knowledge> {
    let path = d.knowledge_path();
    let shown = path.display().to_string();
    let read = match fsx::read_text(&d.boundary, &path, MAX_KNOWLEDGE_BYTES) {
        Ok(t) => t?,
        Err(e) => {
            warnings.push(e.message);
            return None;
        }
    };
    if read.lossy {
        warnings.push(format!(
            "{shown} is not valid UTF-8; invalid bytes shown as U+FFFD"
        ));
    }
    let too_big = read.truncated || read.len > BLOCKED_BYTES;
    if too_big && (req.topic.is_none() || read.truncated) {
        // Blocked by size alone: no tokenizer, and the count shown is the bound the size
        // proves, never an exact number. Topics come from the headers when the file is small
        // enough to read.
        let (lower, _) = crate::tokens::bounds(read.len);
        let lower = lower.max(BLOCKED_ABOVE as u64 + 1) as usize;
        let entries = if read.truncated {
            Vec::new()
        } else {
            knowledge::parse(body_of(&read.text))
        };
        let mut content = knowledge::blocked_message(&entries, lower, &shown, false);
        if read.truncated {
            // Said apart from the content too: the session-start index replaces it.
            warnings.push(format!(
                "{shown} is over {MAX_KNOWLEDGE_BYTES} bytes; read only its first {MAX_KNOWLEDGE_BYTES}"
            ));
            content.push_str(&format!(
                "\nThe file is over {MAX_KNOWLEDGE_BYTES} bytes: too large to summarise its topics.\n"
            ));
        }
        return Some(Knowledge {
            mode: Mode::Blocked,
            tokens: lower,
            tokens_exact: false,
            entries: entries.len(),
            topic: req.topic.clone(),
            content,
            warning: Some(format!(
                "knowledge is over {BLOCKED_ABOVE} tokens: loading blocked; run `megg maintain`"
            )),
            topics: knowledge::topic_counts(&entries),
            digest: None,
            conflicted: false,
            index: None,
            path,
        });
    }
    // OURS' side: git's stage 2 while the file is unmerged, else the text outside markers.
    let (text, conflicted) = match repo.and_then(|r| unmerged(r, &path)) {
        Some(Some(ours)) => (ours, true),
        Some(None) => (conflict::ours(&read.text), true),
        None if conflict::count(&read.text) > 0 => (conflict::ours(&read.text), true),
        None => (read.text, false),
    };
    if conflicted {
        warnings.push(format!(
            "{CONFLICT_WARNING} (only our side of {shown} is loaded)"
        ));
    }
    let tokens = deps.tokens.count(&text);
    let body = body_of(&text);
    let entries = knowledge::parse(body);
    let topics = knowledge::topic_counts(&entries);
    if let Some(topic) = &req.topic {
        let picked = knowledge::filter(&entries, topic);
        let content = if picked.is_empty() {
            format!("No entries found for topic: {topic}")
        } else {
            knowledge::join(&picked)
        };
        return Some(Knowledge {
            path,
            mode: Mode::Full,
            tokens,
            tokens_exact: true,
            entries: picked.len(),
            topic: Some(topic.clone()),
            content,
            warning: conflicted.then(|| CONFLICT_WARNING.to_string()),
            topics,
            digest: None,
            conflicted,
            index: None,
        });
    }
    let mode = Mode::for_tokens(tokens);
    let (content, warning, digest) = match mode {
        Mode::Full => {
            let digest = (req.with_fallbacks && body.len() > 2_000)
                .then(|| knowledge::summary(&entries, tokens, deps.tokens));
            (body.trim_end().to_string(), None, digest)
        }
        Mode::Summary => (
            knowledge::summary(&entries, tokens, deps.tokens),
            Some(format!(
                "knowledge is {tokens} tokens ({FULL_BELOW}-{BLOCKED_ABOVE}): showing a summary; load a topic in full with `megg context --topic <topic>`"
            )),
            None,
        ),
        Mode::Blocked => (
            knowledge::blocked_message(&entries, tokens, &shown, true),
            Some(format!(
                "knowledge is {tokens} tokens (over {BLOCKED_ABOVE}): loading blocked; run `megg maintain`"
            )),
            None,
        ),
    };
    Some(Knowledge {
        path,
        mode,
        tokens,
        tokens_exact: true,
        entries: entries.len(),
        topic: None,
        content,
        warning: if conflicted {
            Some(CONFLICT_WARNING.to_string())
        } else {
            warning
        },
        topics,
        digest,
        conflicted,
        index: None,
    })
}

/// In summary and blocked mode, the index (SPEC §13.5) replaces the digest; in full mode, a
/// line names the archived entries when there are any.
fn with_index(
    k: &mut Knowledge,
    (deps, d, chain): (&Deps<'_>, &Domain, &[Domain]),
    session: impl FnOnce() -> Vec<String>,
) {
    use super::recall::{self, index};
    if k.mode == Mode::Full {
        let archived = recall::archived_entries(d);
        // Counted within a bound (SPEC §14): past it, a lower bound and the number of files.
        let named = match archived {
            recall::Archived {
                entries: 0,
                complete: true,
                ..
            } => None,
            recall::Archived {
                entries,
                complete: true,
                ..
            } => Some(if entries == 1 {
                "1 archived entry is".to_string()
            } else {
                format!("{entries} archived entries are")
            }),
            recall::Archived { entries, files, .. } => Some(format!(
                "{entries}+ archived entries, in {files} archive files, are"
            )),
        };
        if let Some(named) = named {
            k.content.push_str(&format!(
                "\n\n({named} not loaded: `megg search <words> --in archive`, then `megg show <id>`.)"
            ));
        }
        if let Some(note) = cited_code_changed(deps, d, &k.content) {
            k.content.push_str(&note);
        }
        return;
    }
    let cache = crate::fsx::user_cache_dir();
    let (corpus, postings) = recall::domain_index(deps, d, chain, cache.as_deref());
    let archived = corpus
        .docs
        .iter()
        .filter(|doc| doc.kind == recall::Kind::Archive)
        .count();
    k.index = Some(index::Index {
        lines: index::rank(&corpus.docs, &postings, &session(), &|docs| {
            // The domain's other entries are walked for with them when a walk is needed: an
            // entry the index lists next time then finds its answer kept (SPEC §14).
            let all: Vec<&recall::Doc> = corpus.docs.iter().collect();
            super::freshness::of_docs_with(deps, docs, &all, super::freshness::SHOWN)
        }),
        live: corpus.docs.len() - archived,
        archived,
        blocked: k.mode == Mode::Blocked,
    });
}

/// Most entries full mode names whose cited code changed; `maintain --check` lists them all.
const MAX_CHANGED_NAMED: usize = 10;

/// Full mode (SPEC §17): the entries loaded whole whose cited code changed since their date,
/// one line each — what happened to which path — so the agent checks before relying on them.
fn cited_code_changed(deps: &Deps<'_>, d: &Domain, content: &str) -> Option<String> {
    use super::freshness::{self, Check, Cited};
    let repo = deps.repo(&d.dir)?;
    let file = d.knowledge_path();
    let doc = knowledge::document(content);
    let cited: Vec<Cited<'_>> = doc
        .entries
        .iter()
        .map(|e| Cited {
            date: e.date,
            text: e.raw,
            file: &file,
        })
        .collect();
    let how = Check {
        cap: freshness::WALK_CAP,
        touches: false,
    };
    let cache = crate::fsx::user_cache_dir();
    let top = deps.top(&d.dir);
    let checked = freshness::check(&repo, &top, &cited, &[], how, cache.as_deref());
    let changed: Vec<String> = doc
        .entries
        .iter()
        .zip(&checked)
        .filter_map(|(e, f)| {
            let what: Vec<String> = f
                .changed()
                .map(freshness::PathFreshness::describe)
                .collect();
            (!what.is_empty()).then(|| {
                format!(
                    "- {}: {}{}",
                    e.title,
                    if f.stale() { "stale? " } else { "" },
                    what.join("; ")
                )
            })
        })
        .collect();
    if changed.is_empty() {
        return None;
    }
    let mut note = String::from(
        "\n\n(Code these entries cite changed after they were written; check it before relying on them:\n",
    );
    for line in changed.iter().take(MAX_CHANGED_NAMED) {
        note.push_str(line);
        note.push('\n');
    }
    if changed.len() > MAX_CHANGED_NAMED {
        note.push_str(&format!(
            "- and {} more: `megg maintain --check`\n",
            changed.len() - MAX_CHANGED_NAMED
        ));
    }
    note.push(')');
    Some(note)
}

/// `Some` when git has `path` unmerged, with OURS' version (stage 2) when git has one within
/// the bound. Only looked up while a merge, rebase, cherry-pick or revert is under way, so the
/// hook never reads a large index for nothing (markers in the file are found either way).
fn unmerged(repo: &crate::git::Repo, path: &Path) -> Option<Option<String>> {
    let rel = path.strip_prefix(repo.workdir()?).ok()?.to_path_buf();
    if !repo.is_operation_in_progress() || !repo.is_unmerged(&rel) {
        return None;
    }
    Some(match repo.ours_stage(&rel, MAX_KNOWLEDGE_BYTES) {
        Some(crate::git::Stage::Blob(b)) => Some(String::from_utf8_lossy(&b).into_owned()),
        _ => None,
    })
}

/// The domain's `state.md`, active or expired, with git facts when inside a repository.
pub fn load_state(deps: &Deps<'_>, d: &Domain, warnings: &mut Vec<String>) -> Option<StateView> {
    let path = d.state_path();
    let text = read_or_warn(&d.boundary, &path, MAX_STATE_BYTES, warnings)?;
    let doc = state::parse(&text, &path.display().to_string());
    warnings.extend(doc.warnings.iter().cloned());
    let expiry = state::expiry_within(&doc, deps.now, d.state_lifetime(warnings));
    if let state::Expiry::Future(_) = expiry
        && let Some(why) = expiry.reason()
    {
        warnings.push(format!("{} is treated as expired: {why}", path.display()));
    }
    let mut view = state_view(deps, path, &doc);
    view.expired = !expiry.is_active();
    view.expired_reason = expiry.reason();
    if expiry.is_active() {
        git_notes(deps, d, &doc, &mut view, warnings);
    }
    Some(view)
}

/// The session's own capture as its state (after `compact` or `resume`, SPEC §10), with the
/// same expiry and git notes as `state.md`.
fn own_capture(
    deps: &Deps<'_>,
    d: &Domain,
    path: &std::path::Path,
    id: &super::capture::SessionId,
    warnings: &mut Vec<String>,
) -> Option<StateView> {
    let (file, text) = super::capture::own_capture(deps, path, id)?;
    let doc = state::parse(&text, &file.display().to_string());
    let expiry = state::expiry_within(&doc, deps.now, d.state_lifetime(warnings));
    let mut view = state_view(deps, file, &doc);
    view.expired = !expiry.is_active();
    view.expired_reason = expiry.reason();
    if expiry.is_active() {
        git_notes(deps, d, &doc, &mut view, warnings);
    }
    Some(view)
}

fn state_view(deps: &Deps<'_>, path: PathBuf, doc: &StateDoc) -> StateView {
    StateView {
        path,
        status: doc.status.clone().unwrap_or_else(|| "active".into()),
        updated: doc.updated.map(format_timestamp),
        tokens: deps.tokens.count(&doc.content),
        branch: doc.branch.clone(),
        head: doc.head.clone(),
        auto: doc.source.as_deref() == Some("auto"),
        session: doc.session.clone(),
        commits_since: None,
        expired: false,
        content: doc.content.clone(),
        expired_reason: None,
        id: super::recall::ids::base_id(super::recall::Kind::Handoff, &doc.recall_key()),
        age_seconds: doc.updated.map(|u| (deps.now - u).num_seconds()),
        updated_at: doc.updated,
    }
}

/// `commits_since` on the saved branch, and a warning when another branch is checked out.
fn git_notes(
    deps: &Deps<'_>,
    d: &Domain,
    doc: &StateDoc,
    view: &mut StateView,
    warnings: &mut Vec<String>,
) {
    let Some(branch) = &doc.branch else { return };
    let Some(repo) = deps.repo(&d.dir) else {
        return;
    };
    let div = doc.updated.and_then(|updated| {
        super::walks::divergence(
            &repo,
            branch,
            doc.head.as_deref(),
            updated,
            crate::git::HOOK_WALK_CAP,
        )
    });
    if let Some(div) = div {
        match div.branch_exists {
            Some(true) if div.capped => warnings.push(format!(
                "commits since the state was saved are unknown: the walk stopped at {} commits or a shallow clone's edge",
                crate::git::HOOK_WALK_CAP
            )),
            Some(true) => view.commits_since = Some(div.commits),
            Some(false) => warnings.push(format!(
                "state was saved on branch '{branch}', which no longer exists"
            )),
            None => warnings.push(format!(
                "state was saved on branch '{branch}', which is not here (it may exist only on a remote)"
            )),
        }
        match div.rewritten {
            Some(true) => warnings.push(format!(
                "Branch '{branch}' was rewritten since state was saved"
            )),
            None if div.branch_exists == Some(true) => warnings.push(format!(
                "cannot tell whether branch '{branch}' was rewritten: the saved head is not within reach (shallow clone, missing objects or over {} commits)",
                crate::git::HOOK_WALK_CAP
            )),
            _ => {}
        }
    }
    if let Some(current) = repo.current_branch()
        && &current != branch
    {
        warnings.push(format!(
            "state was saved on branch '{branch}' but '{current}' is checked out"
        ));
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn mode_boundaries_are_exact() {
        assert_eq!(Mode::for_tokens(0), Mode::Full);
        assert_eq!(Mode::for_tokens(7_999), Mode::Full);
        assert_eq!(Mode::for_tokens(8_000), Mode::Summary);
        assert_eq!(Mode::for_tokens(16_000), Mode::Summary);
        assert_eq!(Mode::for_tokens(16_001), Mode::Blocked);
    }

    #[test]
    fn titles_and_excerpts() {
        let (t, e) = title_and_excerpt(
            "# Acme\n\n## Context\nCompany-wide rules.\nMore.\n## Rules\n1. x",
            "acme",
        );
        assert_eq!(t, "Acme");
        assert_eq!(e, "Company-wide rules. More.");
        let (t, e) = title_and_excerpt("no heading here", "dir");
        assert_eq!((t.as_str(), e.as_str()), ("dir", "no heading here"));
        let (_, e) = title_and_excerpt(&format!("# T\n{}", "word ".repeat(100)), "d");
        assert!(e.chars().count() <= 160 && e.ends_with('…'));
    }

    #[test]
    fn body_of_skips_frontmatter_and_blank_lines() {
        assert_eq!(body_of("---\na: 1\n---\n\n# T\n"), "# T\n");
        assert_eq!(body_of("# T\n"), "# T\n");
    }
}
