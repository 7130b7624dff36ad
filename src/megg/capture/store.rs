//! Where captures live (SPEC §10): one directory of session files — inside git
//! `<common git dir>/megg/sessions/<worktree>/` (SPEC §18.2, [`worktree_key`]), outside git the
//! user's cache directory keyed by the domain — holding, per session — Claude Code's in the
//! directory itself, where megg always put them, every other host's in `<host>/` below it
//! (SPEC §12) — its capture (`<id>.md`), its start record (`<id>.start`), the hash of
//! what it last promoted (`<id>.promoted`) and where its transcript reading stopped
//! (`<id>.scan`), and for a host that edits through its shell the note of the work tree's
//! dirty files at its start (`<id>.snapshot`, [`super::snapshot`]), and the claims that let
//! only the first of two hooks running the same event answer it (`<id>.<run>.<n>.once`,
//! [`Sessions::claim`]); plus one bounded log of every capture and, for a linked worktree, the
//! record of which it is (`worktree`: its name and top).
//!
//! Inside git, every worktree's directory is under the repository's common git directory, so
//! `git worktree remove` deletes none of them. An older megg kept them in each worktree's own
//! git directory (`.git/worktrees/<name>/megg/`, and for the main worktree `.git/megg/sessions/`
//! itself): [`migrate`] moves them at the next run in any worktree.

use std::path::{Path, PathBuf};

use super::snapshot::Snapshot;
use crate::fsx::{self, Boundary, ChangeTime};
use crate::git::{Linked, MAIN_WORKTREE, Repo};
use crate::host::Agent;

/// Session captures kept (the newest by modification time).
pub const KEEP_CAPTURES: usize = 20;
/// Start records kept: sessions that never captured leave only these.
const KEEP_STARTS: usize = 50;
/// Lines kept in the capture log.
pub const LOG_LINES: usize = 200;
/// Lines the log is cut to when it grows past [`LOG_LINES`].
const LOG_KEEP: usize = 150;
/// Most characters of one log line.
const LOG_LINE_CHARS: usize = 400;
/// Most bytes of the log read: more lines than it may hold, at their longest.
const LOG_MAX_BYTES: u64 = ((LOG_LINES + 1) * (LOG_LINE_CHARS * 4 + 1)) as u64;
/// Most bytes read of the small files here.
const MAX_SMALL: u64 = 64 * 1024;
/// Most bytes of a start record read (one written before megg 1.2 held a work-tree snapshot
/// of up to 1,000 paths; one now holds a few short lines).
const MAX_START_BYTES: u64 = 4 * 1024 * 1024;
/// Sessions whose start one background `megg` notes at most (the newest first): the one that
/// just started, and any that started meanwhile.
const NOTE_AT_MOST: usize = 4;
/// Most bytes of a scan cache.
pub const MAX_SCAN_BYTES: u64 = 1024 * 1024;
const LOG: &str = "capture.log";
/// Claims kept ([`Sessions::claim`]): a session start's stay (a capture's is released).
const KEEP_CLAIMS: usize = 50;
/// How long a claim answers for its run: two hook entries that run megg for one event (the
/// user's and a project's, SPEC §7) start together — at once, or one right after the other
/// (megg's hook answers in milliseconds); a run as like it as this that starts later is
/// another run (a quick second `resume` of an unchanged session must get its context), and a
/// claim this old that was never released is a dead capture's.
pub const CLAIM_WINDOW_SECS: i64 = 15;

/// A session of one host, by the id its hook input gives: it names files megg writes, so an
/// id outside `[A-Za-z0-9._-]{1,128}` (or `.`/`..`) is replaced by a hash of it (SPEC §12).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionId {
    host: Agent,
    id: String,
}

impl SessionId {
    /// A Claude Code session (`None` for an empty id).
    pub fn parse(s: &str) -> Option<Self> {
        Self::of(Agent::Claude, s)
    }

    /// `host`'s session `raw` (`None` for an empty id).
    pub fn of(host: Agent, raw: &str) -> Option<Self> {
        if raw.is_empty() {
            return None;
        }
        let plain = raw.len() <= 128
            && raw != "."
            && raw != ".."
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        let id = if plain {
            raw.to_string()
        } else {
            format!("id-{:032x}", xxhash_rust::xxh3::xxh3_128(raw.as_bytes()))
        };
        Some(Self { host, id })
    }

    pub fn as_str(&self) -> &str {
        &self.id
    }

    pub fn host(&self) -> Agent {
        self.host
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.id)
    }
}

/// One run of a hook event for a session, as its input tells it from the next run of the same
/// event: two hook entries that run megg for one event get the same input at the same moment
/// (SPEC §7 "one megg per session"), so the same `Run`. A capture's run is its input only: the
/// transcript may grow between the twins (the host writes the turn's last message while its
/// `Stop` hooks run), so its size would tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run(u64);

impl Run {
    /// The run of `event` (`SessionStart`, `Stop`…) whose input carries `fields` (its source,
    /// last message, prompt…) and names `transcript`.
    pub fn of(event: &str, fields: &[Option<&str>], transcript: Option<&Path>) -> Self {
        let mut key = format!("{event}\0");
        for f in fields {
            key.push_str(f.unwrap_or("\u{1}"));
            key.push('\0');
        }
        if let Some(t) = transcript {
            key.push_str(&t.display().to_string());
        }
        Self(xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
    }

    /// The run, told apart by the transcript as it is now too (its size and identity), for a
    /// session start: the host writes nothing to it while its SessionStart hooks run, and a
    /// start of the same session with the same source after more of the session (a second
    /// `resume`) is another run.
    pub fn as_transcript_is(self, transcript: Option<&Path>) -> Self {
        let Some(t) = transcript else { return self };
        let b = Boundary::user(t.parent().unwrap_or(Path::new("/")), "the transcript");
        match fsx::open_stream(&b, t) {
            Ok(Some(s)) => {
                let key = format!("{:016x}\0{}\0{}:{}", self.0, s.len, s.id.0, s.id.1);
                Self(xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
            }
            _ => self,
        }
    }
}

/// A run claimed by [`Sessions::claim`].
#[derive(Debug)]
pub struct Claim {
    /// No other hook invocation answers this run: this one does.
    pub first: bool,
    /// The claim file this process created.
    path: Option<PathBuf>,
}

/// What `state.md` held, as evidence of who wrote it: its absence, or a hash of its bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Evidence {
    #[default]
    Absent,
    Hash(String),
    /// Present but not readable as a state (too large, a special file, a link out): never
    /// matches anything, so it is never replaced.
    Unreadable,
}

impl Evidence {
    pub fn of_bytes(bytes: &[u8]) -> Self {
        Evidence::Hash(format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes)))
    }

    fn as_text(&self) -> &str {
        match self {
            Evidence::Absent => "absent",
            Evidence::Hash(h) => h,
            Evidence::Unreadable => "unreadable",
        }
    }

    fn parse(text: &str) -> Self {
        match text.trim() {
            "absent" => Evidence::Absent,
            h if h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Evidence::Hash(h.to_string())
            }
            _ => Evidence::Unreadable,
        }
    }
}

/// What the SessionStart hook recorded when a session began.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Start {
    /// `state.md` as the session found it.
    pub state: Evidence,
    /// The commit HEAD pointed at.
    pub head: Option<String>,
    /// The file system's time when the session began (hosts that edit through their shell,
    /// SPEC §12, §14): a capture claims only the files changed after it. `None`: not taken
    /// (Claude Code, whose edit tools name their files; a record from before megg 1.2).
    pub since: Option<ChangeTime>,
    /// The user's first and latest prompt as the host's hooks handed them (Copilot, whose
    /// transcript lags its hooks), redacted and cut.
    pub first_prompt: Option<String>,
    pub latest_prompt: Option<String>,
    /// An acknowledgement the hooks handed over after `latest_prompt` (SPEC §18.2: it never
    /// replaces the request before it).
    pub ack: Option<String>,
}

impl Start {
    fn render(&self) -> String {
        let mut text = format!(
            "state: {}\nhead: {}\n",
            self.state.as_text(),
            self.head.as_deref().unwrap_or("")
        );
        if let Some(since) = self.since {
            text.push_str(&format!("since: {}\n", since.render()));
        }
        for (key, prompt) in [
            ("prompt", &self.first_prompt),
            ("latest", &self.latest_prompt),
            ("ack", &self.ack),
        ] {
            if let Some(p) = prompt {
                text.push_str(&format!("{key}: {p}\n"));
            }
        }
        text
    }

    fn parse(text: &str) -> Option<Self> {
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().to_string())
        };
        Some(Self {
            state: Evidence::parse(&field("state:")?),
            head: field("head:").filter(|h| !h.is_empty()),
            since: field("since:").and_then(|t| ChangeTime::parse(&t)),
            first_prompt: field("prompt:").filter(|p| !p.is_empty()),
            latest_prompt: field("latest:").filter(|p| !p.is_empty()),
            ack: field("ack:").filter(|p| !p.is_empty()),
        })
    }
}

/// The directory of session files for one worktree of a repository (or, outside git, one
/// domain).
#[derive(Debug, Clone)]
pub struct Sessions {
    pub dir: PathBuf,
    boundary: Boundary,
    /// What the directory's `worktree` record says, written with its first file (a linked
    /// worktree's).
    about: Option<String>,
    /// The worktree's key, recorded with its first file ([`WorktreeKey::pin`]).
    key: Option<WorktreeKey>,
}

/// Below the common git directory: every worktree's session directories, and the older main
/// worktree's files themselves (until [`migrate`]).
pub const SESSIONS: &str = "megg/sessions";
/// Below a git directory: the kept handoffs (the common one's: every worktree's).
pub const HANDOFFS: &str = "megg/handoffs";
/// The record, in a linked worktree's own git directory, of the key its files are kept under:
/// the key as megg first saw the worktree, so a `git worktree move` keeps it.
const KEY_RECORD: &str = "megg/worktree";
/// Below the common git directory: present once the files an older megg kept in each
/// worktree's own git directory have been moved ([`migrate`]).
const MOVED: &str = "megg/worktrees-moved";
/// The record, in a worktree's session directory, of the worktree's name and top.
const ABOUT: &str = "worktree";

impl Sessions {
    /// Inside git, `<common git dir>/megg/sessions/<worktree key>` ([`worktree_key`]), after
    /// moving what an older megg kept elsewhere ([`migrate`]); outside,
    /// `<cache>/sessions/<hash of key>` where `key` is the domain's directory. `None` outside
    /// git without a cache directory.
    pub fn locate(repo: Option<&Repo>, key: &Path, cache: Option<&Path>) -> Option<Self> {
        if let Some(r) = repo {
            migrate(r);
            let worktree = worktree_key(r);
            let mut s = Self::of_worktree(r, &worktree.key);
            s.key = Some(worktree);
            // A linked worktree's directory says which it was, for when it is gone.
            s.about = r.worktree_name().map(|name| {
                let top = r.workdir().unwrap_or_else(|| r.git_dir());
                format!("name: {name}\npath: {}\n", top.display())
            });
            return Some(s);
        }
        let cache = cache?;
        let hash = xxhash_rust::xxh3::xxh3_64(key.as_os_str().as_encoded_bytes());
        Some(Self {
            dir: cache.join("sessions").join(format!("{hash:016x}")),
            boundary: Boundary::new(cache, "megg's cache directory"),
            about: None,
            key: None,
        })
    }

    /// The session directory of the worktree keyed `worktree` in `repo`, whether or not that
    /// worktree still exists.
    pub fn of_worktree(repo: &Repo, worktree: &str) -> Self {
        let common = repo.common_dir();
        Self {
            dir: common.join(SESSIONS).join(worktree),
            boundary: Boundary::new(&common, "the git directory"),
            about: None,
            key: None,
        }
    }

    /// The session directories of every worktree of `repo` — the ones removed included — by
    /// key, the main worktree's first; after [`migrate`]. Lists one directory.
    pub fn every_worktree(repo: &Repo) -> Vec<(String, Self)> {
        migrate(repo);
        let common = repo.common_dir();
        let b = Boundary::new(&common, "the git directory");
        let mut keys: Vec<String> = fsx::list(&b, &common.join(SESSIONS))
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, k)| *k == fsx::Kind::Dir)
            .filter_map(|(n, _)| n.into_string().ok())
            .filter(|n| is_key(n))
            .collect();
        keys.sort_by(|a, b| {
            (b == MAIN_WORKTREE)
                .cmp(&(a == MAIN_WORKTREE))
                .then(a.cmp(b))
        });
        keys.into_iter()
            .map(|k| {
                let s = Self::of_worktree(repo, &k);
                (k, s)
            })
            .collect()
    }

    pub fn boundary(&self) -> &Boundary {
        &self.boundary
    }

    /// The worktree's name and top as its directory's record says ([`ABOUT`]): `None` when
    /// not recorded.
    pub fn recorded_worktree(&self) -> Option<(String, PathBuf)> {
        let text = self.read(&self.dir.join(ABOUT), MAX_SMALL)?;
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().to_string())
        };
        Some((field("name:")?, PathBuf::from(field("path:")?)))
    }

    /// Creates `dir` (this directory or a host's below it) and, the first time, the record of
    /// the worktree it is for.
    fn make_dir(&self, dir: &Path) -> crate::error::Result<()> {
        fsx::create_dir_all(&self.boundary, dir)?;
        if let Some(key) = &self.key {
            key.pin(&self.boundary);
        }
        if let Some(about) = &self.about {
            let path = self.dir.join(ABOUT);
            if fsx::kind(&self.boundary, &path).is_none() {
                let _ = fsx::create_new(&self.boundary, &path, about.as_bytes());
            }
        }
        Ok(())
    }

    /// Where a host's session files are: Claude Code's where megg always put them (the
    /// directory itself), every other host's in `<host>/` below it.
    fn host_dir(&self, host: Agent) -> PathBuf {
        match host {
            Agent::Claude => self.dir.clone(),
            other => self.dir.join(other.as_str()),
        }
    }

    pub fn capture_path(&self, id: &SessionId) -> PathBuf {
        self.path(id, "md")
    }

    fn path(&self, id: &SessionId, ext: &str) -> PathBuf {
        self.host_dir(id.host()).join(format!("{id}.{ext}"))
    }

    fn read(&self, path: &Path, limit: u64) -> Option<String> {
        match fsx::read_text(&self.boundary, path, limit) {
            Ok(Some(t)) if !t.truncated && !t.lossy => Some(t.text),
            _ => None,
        }
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> crate::error::Result<()> {
        self.make_dir(path.parent().unwrap_or(&self.dir))?;
        fsx::write_atomic(&self.boundary, path, bytes)
    }

    /// The session's capture, as written.
    pub fn read_capture(&self, id: &SessionId) -> Option<String> {
        self.read(&self.capture_path(id), crate::megg::state::MAX_STATE_BYTES)
    }

    pub fn write_capture(&self, id: &SessionId, text: &str) -> crate::error::Result<()> {
        self.write(&self.capture_path(id), text.as_bytes())
    }

    /// "Now" as the file system dates a change (SPEC §14): a session's start, without a walk.
    pub fn clock(&self) -> crate::error::Result<ChangeTime> {
        fsx::clock(&self.boundary, &self.dir)
    }

    pub fn read_start(&self, id: &SessionId) -> Option<Start> {
        Start::parse(&self.read(&self.path(id, "start"), MAX_START_BYTES)?)
    }

    /// Records a session's start unless it was recorded already (a `compact` or `resume`
    /// SessionStart is the same session: what it found first is the evidence).
    pub fn record_start(&self, id: &SessionId, start: &Start) -> crate::error::Result<bool> {
        let path = self.path(id, "start");
        if fsx::kind(&self.boundary, &path).is_some() {
            return Ok(false);
        }
        self.make_dir(&self.host_dir(id.host()))?;
        let created = fsx::create_new(&self.boundary, &path, start.render().as_bytes())?;
        if created {
            self.prune_ext("start", KEEP_STARTS);
        }
        Ok(created)
    }

    /// Changes a session's start record under its lock: `change` gets the record (`None` when
    /// the session's start was never recorded) and returns what to keep.
    pub fn update_start(
        &self,
        id: &SessionId,
        change: impl FnOnce(Option<Start>) -> Start,
    ) -> crate::error::Result<()> {
        let path = self.path(id, "start");
        self.make_dir(&self.host_dir(id.host()))?;
        // One lock for the host's start records (a lock file per session would pile up).
        let _lock = crate::megg::lock(
            None,
            &self.boundary,
            &self.host_dir(id.host()).join("starts"),
        )?;
        let start = change(self.read_start(id));
        fsx::write_atomic(&self.boundary, &path, start.render().as_bytes())
    }

    /// Claims `run` of session `id` for this process: [`Claim::first`] is `false` when another
    /// hook invocation claimed the same run less than [`CLAIM_WINDOW_SECS`] before `now` (SPEC
    /// §7 "one megg per session") and has not [released](Sessions::release) it. The claim is a
    /// file created exclusively, so of two hooks that start at the same instant exactly one is
    /// first; a claim older than the window is an earlier run's, and the next file in line is
    /// tried. Whatever fails here, the claim is first: a context given twice costs less than
    /// none.
    pub fn claim(&self, id: &SessionId, run: Run, now: chrono::DateTime<chrono::Utc>) -> Claim {
        let first = Claim {
            first: true,
            path: None,
        };
        let dir = self.host_dir(id.host());
        if self.make_dir(&dir).is_err() {
            return first;
        }
        let stamp = now.timestamp();
        for n in 0..8 {
            let path = dir.join(format!("{id}.{:016x}.{n}.once", run.0));
            let created = if crate::failpoint::off("no-exclusive-claim") {
                // The mechanism switched off (tests): look, then write — two hooks that look
                // at once both find nothing.
                let free = fsx::kind(&self.boundary, &path).is_none();
                if free {
                    crate::failpoint::hold(&dir.join(format!("{id}.once")));
                    let _ = fsx::write_atomic(&self.boundary, &path, stamp.to_string().as_bytes());
                }
                Ok(free)
            } else {
                let created = fsx::create_new(&self.boundary, &path, stamp.to_string().as_bytes());
                if matches!(created, Ok(true)) {
                    crate::failpoint::hold(&dir.join(format!("{id}.once")));
                }
                created
            };
            match created {
                Ok(true) => {
                    self.prune_ext("once", KEEP_CLAIMS);
                    return Claim {
                        first: true,
                        path: Some(path),
                    };
                }
                Ok(false) => {}
                Err(_) => return first,
            }
            // Taken: by a twin of this run (its time not written yet, or recent), or by an
            // earlier run as like this one (older than the window): then the next in line.
            let at = self
                .read(&path, MAX_SMALL)
                .and_then(|t| t.trim().parse::<i64>().ok());
            match at {
                Some(at) if stamp.saturating_sub(at) >= CLAIM_WINDOW_SECS => continue,
                _ => {
                    return Claim {
                        first: false,
                        path: None,
                    };
                }
            }
        }
        first
    }

    /// Ends a claim: a run as like it as a twin that starts from now on is run again (a
    /// capture repeated with nothing new finds its handoff unchanged and writes nothing).
    pub fn release(&self, claim: Claim) {
        if let Some(path) = claim.path {
            let _ = fsx::remove_file(&self.boundary, &path);
        }
    }

    /// The note of the work tree at the session's start, when one was taken.
    pub fn read_snapshot(&self, id: &SessionId) -> Option<Snapshot> {
        Snapshot::parse(&self.read(&self.path(id, "snapshot"), super::snapshot::MAX_NOTE_BYTES)?)
    }

    pub fn write_snapshot(&self, id: &SessionId, note: &Snapshot) -> crate::error::Result<()> {
        self.write(&self.path(id, "snapshot"), note.render().as_bytes())?;
        self.prune_ext("snapshot", KEEP_STARTS);
        Ok(())
    }

    /// The sessions of `host` whose start is a time and not noted yet, newest first: the ones a
    /// background `megg` notes ([`NOTE_AT_MOST`]).
    pub fn to_note(&self, host: Agent) -> Vec<(SessionId, ChangeTime)> {
        let dir = self.host_dir(host);
        let mut starts: Vec<_> = fsx::list_files_modified(&self.boundary, &dir)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(name, at)| {
                let id = name.to_str()?.strip_suffix(".start")?;
                let id = SessionId::of(host, id).filter(|s| s.as_str() == id)?;
                Some((at, id))
            })
            .collect();
        starts.sort_by_key(|s| std::cmp::Reverse(s.0));
        starts
            .into_iter()
            .take(NOTE_AT_MOST)
            .filter(|(_, id)| fsx::kind(&self.boundary, &self.path(id, "snapshot")).is_none())
            .filter_map(|(_, id)| {
                let since = self.read_start(&id)?.since?;
                Some((id, since))
            })
            .collect()
    }

    pub fn read_promoted(&self, id: &SessionId) -> Option<Evidence> {
        self.read(&self.path(id, "promoted"), MAX_SMALL)
            .map(|t| Evidence::parse(&t))
    }

    pub fn write_promoted(&self, id: &SessionId, e: &Evidence) -> crate::error::Result<()> {
        self.write(
            &self.path(id, "promoted"),
            format!("{}\n", e.as_text()).as_bytes(),
        )
    }

    pub fn read_scan(&self, id: &SessionId) -> Option<String> {
        self.read(&self.path(id, "scan"), MAX_SCAN_BYTES)
    }

    pub fn write_scan(&self, id: &SessionId, json: &str) -> crate::error::Result<()> {
        self.write(&self.path(id, "scan"), json.as_bytes())
    }

    /// The host's compaction summary kept for a session (SPEC §18.1, [`super::summary`]).
    pub fn summary_path(&self, id: &SessionId) -> PathBuf {
        self.path(id, "summary")
    }

    pub fn read_summary(&self, id: &SessionId) -> Option<String> {
        self.read(&self.summary_path(id), MAX_SMALL)
    }

    pub fn write_summary(&self, id: &SessionId, json: &str) -> crate::error::Result<()> {
        self.write(&self.summary_path(id), json.as_bytes())
    }

    /// Appends one line to the capture log. Past [`LOG_LINES`] lines the log is cut to its
    /// newest [`LOG_KEEP`], so it never holds more than [`LOG_LINES`] and is rewritten only
    /// once every so many captures.
    pub fn log(&self, line: &str) -> crate::error::Result<()> {
        let path = self.dir.join(LOG);
        self.make_dir(&self.dir)?;
        let _lock = crate::megg::lock(None, &self.boundary, &path)?;
        let line = crate::megg::capture::transcript::cut_chars(
            &line.replace(['\n', '\r'], " "),
            LOG_LINE_CHARS,
        );
        fsx::append(&self.boundary, &path, format!("{line}\n").as_bytes())?;
        let text = match fsx::read_text(&self.boundary, &path, LOG_MAX_BYTES)? {
            Some(t) if !t.truncated => t.text,
            // Longer than any log megg writes: someone else's bytes; start it over.
            _ => return fsx::write_atomic(&self.boundary, &path, format!("{line}\n").as_bytes()),
        };
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() > LOG_LINES {
            let newest = lines.len().saturating_sub(LOG_KEEP);
            let mut kept = lines.get(newest..).unwrap_or_default().join("\n");
            kept.push('\n');
            fsx::write_atomic(&self.boundary, &path, kept.as_bytes())?;
        }
        Ok(())
    }

    /// The newest line of the capture log.
    pub fn last_log(&self) -> Option<String> {
        let text = self.read(&self.dir.join(LOG), LOG_MAX_BYTES)?;
        text.lines().last().map(str::to_string)
    }

    /// Every session's capture here, of every host: (session id, path), newest first.
    pub fn captures(&self) -> Vec<(SessionId, PathBuf)> {
        let mut found: Vec<_> = crate::host::all()
            .flat_map(|h| {
                fsx::list_files_modified(&self.boundary, &self.host_dir(h.agent))
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|(name, at)| {
                        let name = name.to_str()?;
                        let id = SessionId::of(h.agent, name.strip_suffix(".md")?)?;
                        // A name that is not an id as written (hashed when parsed) is not a
                        // session file megg wrote.
                        (id.as_str() == name.trim_end_matches(".md")).then_some((at, id))
                    })
            })
            .collect();
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        found
            .into_iter()
            .map(|(_, id)| {
                let p = self.capture_path(&id);
                (id, p)
            })
            .collect()
    }

    /// Keeps the newest [`KEEP_CAPTURES`] captures across hosts (never `current`'s); an older
    /// session's files all go. Scan progress of sessions that never captured is bounded like
    /// starts.
    pub fn prune(&self, current: &SessionId) {
        for (id, _) in self.captures().into_iter().skip(KEEP_CAPTURES) {
            if id == *current {
                continue;
            }
            for ext in ["md", "start", "promoted", "scan", "snapshot", "summary"] {
                let _ = fsx::remove_file(&self.boundary, &self.path(&id, ext));
            }
        }
    }

    /// Bounds the scan progress files (sessions with nothing to hand off leave only these).
    pub fn prune_scans(&self) {
        self.prune_ext("scan", KEEP_STARTS);
    }

    /// Keeps the newest `keep` files ending in `.ext` of each host.
    fn prune_ext(&self, ext: &str, keep: usize) {
        for host in crate::host::all() {
            let dir = self.host_dir(host.agent);
            let mut found: Vec<_> = fsx::list_files_modified(&self.boundary, &dir)
                .unwrap_or_default()
                .into_iter()
                .filter(|(n, _)| Path::new(n).extension().is_some_and(|e| e == ext))
                .collect();
            found.sort_by_key(|f| std::cmp::Reverse(f.1));
            for (name, _) in found.into_iter().skip(keep) {
                let _ = fsx::remove_file(&self.boundary, &dir.join(name));
            }
        }
    }
}

/// The key a worktree's files are kept under (SPEC §18.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeKey {
    pub key: String,
    /// For a linked worktree whose key is not recorded yet: the record to write
    /// ([`WorktreeKey::pin`]), in its own git directory.
    unrecorded: Option<PathBuf>,
}

impl WorktreeKey {
    /// Records a linked worktree's key in its own git directory unless it is recorded: from
    /// now on it is the worktree's key wherever the worktree moves. Called as megg first writes
    /// a file for the worktree, never merely because megg ran in it.
    pub fn pin(&self, common: &Boundary) {
        let Some(record) = &self.unrecorded else {
            return;
        };
        if fsx::kind(common, record).is_some() {
            return;
        }
        // Its admin directory first: a worktree git has forgotten gets none back.
        let Some(dir) = record.parent() else { return };
        if dir
            .parent()
            .is_some_and(|admin| fsx::kind(common, admin) == Some(fsx::Kind::Dir))
            && fsx::create_dir_all(common, dir).is_ok()
        {
            let _ = fsx::create_new(common, record, format!("{}\n", self.key).as_bytes());
        }
    }
}

/// The key this worktree's files are kept under: [`MAIN_WORKTREE`] for the main worktree, for
/// a linked one [`key_of`] it.
pub fn worktree_key(repo: &Repo) -> WorktreeKey {
    match repo.this_worktree() {
        None => WorktreeKey {
            key: MAIN_WORKTREE.to_string(),
            unrecorded: None,
        },
        Some(l) => key_of(repo, &l),
    }
}

/// The key linked worktree `l`'s files are kept under: the one recorded in its own git
/// directory ([`KEY_RECORD`]), else its admin name and a hash of the path git names for it
/// ([`crate::git::worktree_key`]), to be recorded as megg first writes for it
/// ([`WorktreeKey::pin`]) — so a name reused later, at another path, is another worktree, and
/// a worktree moved keeps its files. Reads one small file; writes nothing.
pub fn key_of(repo: &Repo, l: &Linked) -> WorktreeKey {
    let b = Boundary::new(repo.common_dir(), "the git directory");
    let record = l.admin.join(KEY_RECORD);
    if let Ok(Some(t)) = fsx::read_text(&b, &record, MAX_SMALL) {
        let key = t.text.trim();
        if is_key(key) && key != MAIN_WORKTREE {
            return WorktreeKey {
                key: key.to_string(),
                unrecorded: None,
            };
        }
    }
    WorktreeKey {
        key: crate::git::worktree_key(&l.name, l.path.as_deref().unwrap_or(&l.admin)),
        unrecorded: Some(record),
    }
}

/// Whether `name` can be a worktree's key (and so its directory's name): [`MAIN_WORKTREE`], or
/// a linked worktree's, which holds an `@`.
fn is_key(name: &str) -> bool {
    (name == MAIN_WORKTREE || name.contains('@'))
        && name.len() <= 255
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0', '\n'])
}

/// Moves the session files and kept handoffs an older megg wrote in each worktree's own git
/// directory under the common one (SPEC §18.2): the main worktree's session files from
/// `megg/sessions/` into `megg/sessions/main/`, a linked worktree's from its
/// `worktrees/<name>/megg/sessions/` into `megg/sessions/<key>/` and its kept handoffs into
/// `megg/handoffs/`, named with its key. Under a lock, never replacing a file (a name taken
/// gets a suffix), and once: a marker says it is done, so every later run costs one look at
/// it. In a repository megg never wrote in, it writes nothing. Whatever fails is left where
/// it is, and tried again at the next run.
pub fn migrate(repo: &Repo) {
    let common = repo.common_dir();
    let b = Boundary::new(&common, "the git directory");
    let marker = common.join(MOVED);
    if fsx::kind(&b, &marker).is_some() {
        return;
    }
    let is_dir = |p: &Path| fsx::kind(&b, p) == Some(fsx::Kind::Dir);
    let linked: Vec<Linked> = repo
        .linked_worktrees()
        .into_iter()
        .filter(|l| is_dir(&l.admin.join("megg")))
        .collect();
    if !is_dir(&common.join("megg")) && linked.is_empty() {
        return;
    }
    if fsx::create_dir_all(&b, &common.join("megg")).is_err() {
        return;
    }
    let Ok(_lock) = crate::megg::lock(Some(repo), &b, &marker) else {
        return;
    };
    if fsx::kind(&b, &marker).is_some() {
        return;
    }
    let sessions = common.join(SESSIONS);
    let mut moved = move_sessions(&b, &sessions, &sessions.join(MAIN_WORKTREE));
    for l in &linked {
        let worktree = key_of(repo, l);
        worktree.pin(&b);
        let key = worktree.key;
        let own = l.admin.join("megg");
        moved &= move_sessions(&b, &own.join("sessions"), &sessions.join(&key));
        moved &= move_handoffs(&b, &own.join("handoffs"), &common.join(HANDOFFS), &key);
    }
    if moved {
        let _ = fsx::create_new(&b, &marker, b"session files and kept handoffs are here\n");
    }
}

/// Moves the files of an older session directory `from` — Claude Code's in it, every other
/// host's in `<host>/` below it — to the same places below `to`; `false` when one stayed.
fn move_sessions(b: &Boundary, from: &Path, to: &Path) -> bool {
    let mut all = true;
    let hosts = std::iter::once(None).chain(
        crate::host::all()
            .filter(|h| h.agent != Agent::Claude)
            .map(|h| Some(h.agent.as_str())),
    );
    for host in hosts {
        let (src, dst) = match host {
            None => (from.to_path_buf(), to.to_path_buf()),
            Some(h) => (from.join(h), to.join(h)),
        };
        all &= move_files(b, &src, &dst, |name| name.to_string());
        if host.is_some() {
            fsx::remove_empty_dir(b, &src);
        }
    }
    // A linked worktree's old directory, now empty (the main one's holds the new ones).
    fsx::remove_empty_dir(b, from);
    all
}

/// Moves the handoffs an older megg kept for linked worktree `key` (`<time>.md`, `<time>.md.2`)
/// into the common `to`, as `<time>.<key>.md`.
fn move_handoffs(b: &Boundary, from: &Path, to: &Path, key: &str) -> bool {
    let all = move_files(b, from, to, |name| {
        let stem = name.split_once(".md").map_or(name, |(s, _)| s);
        format!("{stem}.{key}.md")
    });
    fsx::remove_empty_dir(b, from);
    all
}

/// Moves every file directly in `from` into `to`, named by `rename`; `false` when one stayed.
fn move_files(b: &Boundary, from: &Path, to: &Path, rename: impl Fn(&str) -> String) -> bool {
    if fsx::kind(b, from) != Some(fsx::Kind::Dir) {
        return true;
    }
    let Ok(mut entries) = fsx::list(b, from) else {
        return false;
    };
    // `x.md` before `x.md.2` before `x.md.10`: each keeps its place among its namesakes.
    entries.sort_by(|a, b| (a.0.len(), &a.0).cmp(&(b.0.len(), &b.0)));
    let mut all = true;
    for (name, kind) in entries {
        if kind != fsx::Kind::File {
            continue;
        }
        // megg names its files in ASCII: a name that is not UTF-8 is not megg's, and is not
        // a reason to try again at every run.
        let Some(text) = name.to_str() else {
            continue;
        };
        all &= fsx::move_unique(b, &from.join(text), b, to, &rename(text)).is_ok();
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_outside_the_file_name_set_are_hashed() {
        let plain = SessionId::of(Agent::Codex, "01a2-b_c.d").unwrap();
        assert_eq!(plain.as_str(), "01a2-b_c.d");
        assert_eq!(plain.host(), Agent::Codex);
        for hostile in ["..", ".", "../../x", "a/b", "é", &"a".repeat(129)] {
            let id = SessionId::of(Agent::Gemini, hostile).unwrap();
            assert!(id.as_str().starts_with("id-"), "{hostile}: {id}");
            assert_eq!(id.as_str().len(), 35);
            // The same raw id is always the same file.
            assert_eq!(id, SessionId::of(Agent::Gemini, hostile).unwrap());
        }
        assert_eq!(SessionId::of(Agent::Claude, ""), None);
        // Hosts apart: the same id is another session.
        assert_ne!(
            SessionId::of(Agent::Claude, "s"),
            SessionId::of(Agent::Copilot, "s")
        );
    }

    #[test]
    fn a_start_record_reads_back_as_written() {
        let start = Start {
            state: Evidence::of_bytes(b"x"),
            head: Some("abc".into()),
            since: Some(ChangeTime::from_parts(1_732_512_345, 7)),
            first_prompt: Some("write the notes".into()),
            latest_prompt: Some("and test them".into()),
            ack: Some("ok go ahead".into()),
        };
        assert_eq!(Start::parse(&start.render()), Some(start));
        // Records written before hosts had a start time: none taken.
        let old = Start::parse("state: absent\nhead: \n").unwrap();
        assert_eq!(old.since, None);
        assert_eq!(old.head, None);
        // A record from megg 1.1 with a work-tree snapshot: read, the snapshot ignored.
        let old = Start::parse("state: absent\nhead: \nsnapshot: complete\ndirty: 00ff\tn.txt\n");
        assert_eq!(old.unwrap().since, None);
    }
}
