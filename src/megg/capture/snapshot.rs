//! The work tree's dirty files as a shell session found them (SPEC §12, §14): what tells a
//! file the session changed from one that `git stash`, `git checkout -m`, `touch` or `chmod`
//! merely rewrote — its change time moved, its content did not.
//!
//! The SessionStart hook never walks the work tree: it starts `megg capture --snapshot` in the
//! background ([`start_in_background`]) and returns. That `megg` lists the work tree's changed
//! files once, as `git status` does, and notes for each session whose start it has not noted
//! yet the content of every file that still has its content from before the start: a hash of
//! its bytes, or that nothing was there. A capture leaves out a file whose change time moved
//! when its content is still the noted one.
//!
//! A note is valid whenever it is taken: a file whose change time is not before the start may
//! be the session's and is noted as such (no hash: the session got there first), so a late
//! note leaves out less, never more. It only ever leaves paths out: the claims are the change
//! times' ([`super::changes`]), and no count of dirty paths cuts them short.

use std::collections::HashMap;
use std::path::Path;

use crate::fsx::{self, Boundary, ChangeTime, ChangeTimes};
use crate::git::Changed;
use crate::host::Agent;

/// Most bytes of one file hashed; a larger one is noted as unknown.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Most bytes one note (or one capture's comparison) hashes in all; past it, files are noted as
/// unknown.
pub const MAX_TOTAL_BYTES: u64 = 32 * 1024 * 1024;
/// Most bytes of a note: past it, paths are left out of it (nothing known of them).
pub const MAX_NOTE_BYTES: u64 = 8 * 1024 * 1024;
/// The first line of a note.
const HEADER: &str = "megg snapshot 1";

/// What a note knows of one path at the session's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A file with this content (a hash of its bytes).
    Content(u128),
    /// Nothing: it was deleted before the session began.
    Absent,
    /// Nothing known: changed at or after the start, too large, unreadable, or not noted.
    Unknown,
}

/// One path as the background `megg` read it, before it is dated against a session's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// A file: a hash of its bytes, and its change time once they were read.
    File(u128, ChangeTime),
    /// No file: when the nearest directory above it that is there last changed.
    Gone(Option<ChangeTime>),
    /// Too large, past the budget, or not a regular file.
    Unread,
}

impl Seen {
    /// What it tells of the path at `since`: content whose change time is before the start
    /// is the content the session found; a deletion whose directory has not changed since
    /// before the start was there when it began.
    fn at(self, since: ChangeTime) -> Found {
        match self {
            Seen::File(hash, changed) if changed < since => Found::Content(hash),
            Seen::Gone(Some(dir)) if dir < since => Found::Absent,
            _ => Found::Unknown,
        }
    }
}

/// The note of one session's start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The session's start, as its start record holds it.
    pub since: Option<ChangeTime>,
    files: HashMap<String, Found>,
}

impl Snapshot {
    /// The note of `seen` (git's changed paths, as read) for a session that began at `since`.
    pub fn of(since: ChangeTime, seen: &[(String, Seen)]) -> Self {
        Self {
            since: Some(since),
            files: seen
                .iter()
                .map(|(path, s)| (path.clone(), s.at(since)))
                .collect(),
        }
    }

    /// What the note knows of `path`.
    pub fn found(&self, path: &str) -> Found {
        self.files.get(path).copied().unwrap_or(Found::Unknown)
    }

    /// The note as a file: a header, the start, then one line per path — a hash, `absent`, or
    /// `unknown` — in path order; cut (its last paths left out) at [`MAX_NOTE_BYTES`].
    pub fn render(&self) -> String {
        let mut text = format!(
            "{HEADER}\nsince: {}\n",
            self.since.map(ChangeTime::render).unwrap_or_default()
        );
        let mut paths: Vec<_> = self.files.iter().collect();
        paths.sort_by_key(|(path, _)| *path);
        for (path, found) in paths {
            if path.contains(['\n', '\r', '\t']) {
                continue;
            }
            let what = match found {
                Found::Content(hash) => format!("{hash:032x}"),
                Found::Absent => "absent".into(),
                Found::Unknown => "unknown".into(),
            };
            let line = format!("{what}\t{path}\n");
            if (text.len() + line.len()) as u64 > MAX_NOTE_BYTES {
                break;
            }
            text.push_str(&line);
        }
        text
    }

    /// The inverse of [`Snapshot::render`]; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let since = ChangeTime::parse(lines.next()?.strip_prefix("since: ")?)?;
        let files = lines
            .filter_map(|l| {
                let (what, path) = l.split_once('\t')?;
                let found = match what {
                    "absent" => Found::Absent,
                    h if h.len() == 32 => Found::Content(u128::from_str_radix(h, 16).ok()?),
                    _ => Found::Unknown,
                };
                Some((path.to_string(), found))
            })
            .collect();
        Some(Self {
            since: Some(since),
            files,
        })
    }
}

/// Reads each of `changed` (git's changed paths) in the work tree `b`: the hash of a file's
/// bytes, each file at most [`MAX_FILE_BYTES`] and all together [`MAX_TOTAL_BYTES`].
pub fn read(b: &Boundary, changed: &[Changed]) -> Vec<(String, Seen)> {
    let mut times = ChangeTimes::new(b);
    let mut budget = MAX_TOTAL_BYTES;
    changed
        .iter()
        .map(|c| {
            let rel = Path::new(&c.path);
            let seen = match hash(b, rel, &mut budget) {
                Hashed::File(h, t) => Seen::File(h, t),
                Hashed::Missing => Seen::Gone(rel.ancestors().skip(1).find_map(|a| times.of(a))),
                Hashed::Unread => Seen::Unread,
            };
            (c.path.clone(), seen)
        })
        .collect()
}

/// A file's content as [`hash`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hashed {
    /// A hash of its bytes, and its change time once they were read.
    File(u128, ChangeTime),
    Missing,
    /// Too large, past the budget, not a regular file, or a read failed.
    Unread,
}

/// Hashes `rel` (relative to the work tree `b`) in one bounded streaming pass, within what is
/// left of `budget`.
pub fn hash(b: &Boundary, rel: &Path, budget: &mut u64) -> Hashed {
    use std::io::Read;
    let stream = match fsx::open_stream(b, &b.root().join(rel)) {
        Ok(Some(s)) => s,
        Ok(None) => return Hashed::Missing,
        Err(_) => return Hashed::Unread,
    };
    if stream.len > MAX_FILE_BYTES || stream.len > *budget {
        return Hashed::Unread;
    }
    *budget -= stream.len;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut reader = (&stream.file).take(MAX_FILE_BYTES + 1);
    let mut read = 0;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(buf.get(..n).unwrap_or(&buf));
                read += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Hashed::Unread,
        }
    }
    // Dated after reading: a change while it was read moves it past the start.
    match ChangeTime::of_file(&stream.file) {
        Some(t) if read <= MAX_FILE_BYTES => Hashed::File(hasher.digest128(), t),
        _ => Hashed::Unread,
    }
}

/// Starts `megg capture --agent AGENT --snapshot` in the work tree `work`, detached: its own
/// process group, no input, its output nowhere a host reads, never waited for. Its arguments
/// are fixed words: it finds the sessions to note from their start records.
pub fn start_in_background(agent: Agent, work: &Path) {
    use std::process::{Command, Stdio};
    let Ok(megg) = std::env::current_exe() else {
        return;
    };
    let mut command = Command::new(megg);
    command
        .args(["capture", "--agent", agent.as_str(), "--snapshot"])
        .current_dir(work)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    detach(&mut command);
    let _ = command.spawn();
}

/// Its own process group: the host ending the hook's group does not end it.
#[cfg(unix)]
fn detach(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

/// No console and its own process group (`DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP`): the
/// host closing the hook's console or sending it Ctrl+C does not end it, and no window opens.
#[cfg(windows)]
fn detach(command: &mut std::process::Command) {
    use std::os::windows::process::CommandExt;
    const DETACHED_PROCESS: u32 = 0x0000_0008;
    const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
    command.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> ChangeTime {
        ChangeTime::from_parts(s, 0)
    }

    #[test]
    fn a_note_knows_only_what_is_older_than_the_start() {
        let seen = vec![
            ("dirty.txt".to_string(), Seen::File(7, t(50))),
            ("edited.txt".to_string(), Seen::File(8, t(100))), // at the start: the session's
            ("gone.txt".to_string(), Seen::Gone(Some(t(40)))),
            ("went.txt".to_string(), Seen::Gone(Some(t(120)))),
            ("nowhere.txt".to_string(), Seen::Gone(None)),
            ("big.bin".to_string(), Seen::Unread),
        ];
        let note = Snapshot::of(t(100), &seen);
        assert_eq!(note.found("dirty.txt"), Found::Content(7));
        assert_eq!(note.found("gone.txt"), Found::Absent);
        for unknown in ["edited.txt", "went.txt", "nowhere.txt", "big.bin", "other"] {
            assert_eq!(note.found(unknown), Found::Unknown, "{unknown}");
        }
        assert_eq!(Snapshot::parse(&note.render()), Some(note));
        assert_eq!(Snapshot::parse("since: 1.000000000\n"), None);
    }

    #[test]
    fn a_note_over_its_bound_leaves_its_last_paths_out() {
        let long = "p".repeat(1000);
        let seen: Vec<_> = (0..10_000)
            .map(|i| (format!("{long}{i:05}"), Seen::File(i, t(1))))
            .collect();
        let text = Snapshot::of(t(2), &seen).render();
        assert!(text.len() as u64 <= MAX_NOTE_BYTES);
        let note = Snapshot::parse(&text).unwrap();
        assert_eq!(note.found(&format!("{long}00000")), Found::Content(0));
        assert_eq!(note.found(&format!("{long}09999")), Found::Unknown);
    }
}
