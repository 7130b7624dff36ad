//! The work tree's changed files as a session found them (SPEC §12): hosts that edit through
//! their shell (Codex's `exec_command`) leave no edit tool call to read paths from, so a
//! capture claims the files whose content changed since the session began — never the
//! work tree's earlier uncommitted edits.

use std::collections::HashMap;
use std::path::Path;

use crate::fsx::{self, Boundary};
use crate::git::Repo;

/// Most changed files a snapshot holds; past it, the rest are not claimed.
pub const MAX_FILES: usize = 1_000;
/// Longest path recorded (a start record stays small).
const MAX_PATH_BYTES: usize = 1_000;
/// Most bytes of one file fingerprinted; a larger one is fingerprinted by its size alone.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The work tree's changed files, each with a fingerprint of its content: `absent` for a
/// deleted file, else a hash of its bytes. Paths are relative to the work tree.
pub fn take(repo: &Repo) -> Vec<(String, String)> {
    let Some(work) = repo.workdir() else {
        return Vec::new();
    };
    let b = Boundary::new(&work, "the work tree");
    repo.dirty_paths(MAX_FILES)
        .into_iter()
        .filter(|p| p.len() <= MAX_PATH_BYTES && !p.contains(['\n', '\r', '\t']))
        .map(|p| {
            let print = fingerprint(&b, &work.join(&p));
            (p, print)
        })
        .collect()
}

fn fingerprint(b: &Boundary, path: &Path) -> String {
    match fsx::read_bytes(b, path, MAX_FILE_BYTES) {
        Ok(None) => "absent".into(),
        Ok(Some(bytes)) => format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes)),
        // Too large, a link, a special file: the same at both ends is not a change.
        Err(_) => "unreadable".into(),
    }
}

/// The files changed since `before`: changed now, and then either clean or different.
pub fn changed_since(before: &[(String, String)], now: &[(String, String)]) -> Vec<String> {
    let before: HashMap<&str, &str> = before
        .iter()
        .map(|(p, f)| (p.as_str(), f.as_str()))
        .collect();
    now.iter()
        .filter(|(p, f)| before.get(p.as_str()) != Some(&f.as_str()))
        .map(|(p, _)| p.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(p, f)| (p.to_string(), f.to_string()))
            .collect()
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
}
