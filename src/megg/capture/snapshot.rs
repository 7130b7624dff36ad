//! The work tree's changed files as a session found them (SPEC §12): hosts that edit through
//! their shell (Codex's `exec_command`) leave no edit tool call to read paths from, so a
//! capture claims the files whose content changed since the session began — never the
//! work tree's earlier uncommitted edits.

use std::collections::HashMap;
use std::path::Path;

use crate::fsx::{self, Boundary};
use crate::git::Repo;

/// Most changed files a snapshot holds; past it, the snapshot says it is partial.
pub const MAX_FILES: usize = 1_000;
/// Longest path recorded (a start record stays small).
const MAX_PATH_BYTES: usize = 1_000;
/// Most bytes of one file hashed; a larger one is fingerprinted by its size.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Most bytes one snapshot hashes in all (a hook's budget); past it, files are fingerprinted
/// by their size.
const MAX_TOTAL_BYTES: u64 = 32 * 1024 * 1024;

/// The work tree's changed files, each with a fingerprint of its content, as git lists them
/// (sorted by path).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// (path relative to the work tree, fingerprint): `absent` for a deleted file, `size:N`
    /// for a large one, else a hash of its bytes.
    pub files: Vec<(String, String)>,
    /// Whether it holds every changed file (not cut at [`MAX_FILES`]).
    pub complete: bool,
}

/// The work tree's changed files now.
pub fn take(repo: &Repo) -> Snapshot {
    let Some(work) = repo.workdir() else {
        return Snapshot::default();
    };
    let b = Boundary::new(&work, "the work tree");
    let paths = repo.dirty_paths(MAX_FILES + 1);
    let complete = paths.len() <= MAX_FILES;
    let mut budget = MAX_TOTAL_BYTES;
    let files = paths
        .into_iter()
        .take(MAX_FILES)
        .filter(|p| p.len() <= MAX_PATH_BYTES && !p.contains(['\n', '\r', '\t']))
        .map(|p| {
            let print = fingerprint(&b, &work.join(&p), &mut budget);
            (p, print)
        })
        .collect();
    Snapshot { files, complete }
}

/// A file's content as a short text: a hash of its bytes, read in one bounded streaming pass
/// within what is left of `budget`; its size alone past that.
fn fingerprint(b: &Boundary, path: &Path, budget: &mut u64) -> String {
    use std::io::Read;
    let stream = match fsx::open_stream(b, path) {
        Ok(Some(s)) => s,
        Ok(None) => return "absent".into(),
        // A link, a special file: the same at both ends is not a change.
        Err(_) => return "unreadable".into(),
    };
    if stream.len > MAX_FILE_BYTES || stream.len > *budget {
        return format!("size:{}", stream.len);
    }
    *budget -= stream.len;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = [0u8; 64 * 1024];
    let mut reader = stream.file.take(MAX_FILE_BYTES);
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return "unreadable".into(),
        }
    }
    format!("{:032x}", hasher.digest128())
}

/// The files changed since `before`: changed now, and then either clean or different. When
/// `before` was cut short, a path it does not hold counts only if it sorts within it (git lists
/// paths in order): past its end, the path may have been dirty all along.
pub fn changed_since(before: &Snapshot, now: &Snapshot) -> Vec<String> {
    let then: HashMap<&str, &str> = before
        .files
        .iter()
        .map(|(p, f)| (p.as_str(), f.as_str()))
        .collect();
    let last = before.files.last().map(|(p, _)| p.as_str());
    now.files
        .iter()
        .filter(|(p, f)| match then.get(p.as_str()) {
            Some(print) => print != f,
            None => before.complete || last.is_some_and(|l| p.as_str() < l),
        })
        .map(|(p, _)| p.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Snapshot {
        Snapshot {
            files: list
                .iter()
                .map(|(p, f)| (p.to_string(), f.to_string()))
                .collect(),
            complete: true,
        }
    }

    #[test]
    fn only_what_changed_during_the_session_is_claimed() {
        let before = files(&[("old.rs", "a"), ("gone.rs", "b"), ("same.txt", "c")]);
        let now = files(&[
            ("old.rs", "a2"),         // edited again: claimed
            ("same.txt", "c"),        // earlier edit, untouched: not claimed
            ("new.txt", "d"),         // new: claimed
            ("deleted.rs", "absent"), // deleted during the session: claimed
        ]);
        assert_eq!(
            changed_since(&before, &now),
            vec!["old.rs", "new.txt", "deleted.rs"]
        );
        assert!(changed_since(&now, &now).is_empty());
    }

    #[test]
    fn a_partial_snapshot_claims_nothing_past_its_end() {
        let mut before = files(&[("a", "1"), ("m", "2")]);
        before.complete = false;
        let now = files(&[("a", "1b"), ("c", "3"), ("z", "4")]);
        // "z" sorts past the snapshot's end: it may have been dirty all along.
        assert_eq!(changed_since(&before, &now), vec!["a", "c"]);
    }
}
