//! The files a session changed in the work tree (SPEC §12, §14): hosts that edit through their
//! shell (Codex's `exec_command`) leave no edit tool call to read paths from, so a capture
//! claims the changed files whose change time is past the session's start — never the work
//! tree's earlier uncommitted edits, however many there are — and the session's start holds
//! only the file system's time ([`crate::fsx::clock`]): nothing walks the work tree then.
//!
//! A capture costs one status walk (git's, through git2) and the change times of the paths it
//! lists. HEAD is compared with the index only when the index was written since the start
//! (staging writes it).

use std::path::Path;

use crate::fsx::{Boundary, ChangeTime, ChangeTimes};
use crate::git::{Changed, Repo};

/// The paths (relative to the work tree, `/`-separated) the session changed since `since`.
pub fn since(repo: &Repo, since: ChangeTime) -> Vec<String> {
    let Some(work) = repo.workdir() else {
        return Vec::new();
    };
    let git = Boundary::new(repo.git_dir(), "the git directory");
    let staged = ChangeTimes::new(&git)
        .of(Path::new("index"))
        .is_none_or(|t| t > since);
    let b = Boundary::new(&work, "the work tree");
    let mut times = ChangeTimes::new(&b);
    claimed(since, &repo.changed_paths(staged), |rel| times.of(rel))
}

/// The paths among `changed` (git's status, in its order) the session changed since `since`:
/// a file there whose change time is past it; a file gone that went during the session
/// ([`gone_during`]). Tracked files first, then new ones, each in git's order. `time` reads a
/// path's change time relative to the work tree (`""` for the work tree itself), `None` when
/// nothing is there.
pub fn claimed(
    since: ChangeTime,
    changed: &[Changed],
    mut time: impl FnMut(&Path) -> Option<ChangeTime>,
) -> Vec<String> {
    let (mut tracked, mut new) = (Vec::new(), Vec::new());
    for c in changed {
        let rel = Path::new(&c.path);
        let claim = match time(rel) {
            Some(t) => t > since,
            None => gone_during(rel, since, &mut time),
        };
        if claim {
            if c.tracked { &mut tracked } else { &mut new }.push(c.path.clone());
        }
    }
    tracked.extend(new);
    tracked
}

/// Whether a file that is gone went during the session: the nearest directory above it that is
/// still there changed after the start (removing a name changes its directory).
pub fn gone_during(
    rel: &Path,
    since: ChangeTime,
    mut time: impl FnMut(&Path) -> Option<ChangeTime>,
) -> bool {
    rel.ancestors()
        .skip(1)
        .find_map(&mut time)
        .is_some_and(|t| t > since)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn t(s: i64) -> ChangeTime {
        ChangeTime::from_parts(s, 0)
    }

    fn changed(list: &[(&str, bool)]) -> Vec<Changed> {
        list.iter()
            .map(|&(path, tracked)| Changed {
                path: path.into(),
                tracked,
            })
            .collect()
    }

    #[test]
    fn only_what_changed_after_the_start_is_claimed() {
        let since = t(100);
        let times: HashMap<&str, ChangeTime> = [
            ("", t(10)),
            ("new.txt", t(150)), // created during the session
            ("old.rs", t(120)),  // dirty before, edited again
            ("same.txt", t(50)), // dirty before, untouched
            ("at.txt", t(100)),  // changed at the very start: before
            ("src", t(130)),     // a name in it changed
            ("docs", t(40)),     // unchanged since before
        ]
        .into();
        let list = changed(&[
            ("at.txt", true),
            ("docs/gone-before.md", true),
            ("lib/old.rs", true), // `lib` gone too; the top did not change
            ("new.txt", false),
            ("old.rs", true),
            ("same.txt", true),
            ("src/deleted.rs", true),
            ("src/sub/deep.rs", true), // `src/sub` removed during the session
        ]);
        let claims = claimed(since, &list, |p| times.get(p.to_str().unwrap()).copied());
        assert_eq!(
            claims,
            vec!["old.rs", "src/deleted.rs", "src/sub/deep.rs", "new.txt"]
        );
    }

    #[test]
    fn a_path_nothing_can_be_read_of_is_not_claimed() {
        let list = changed(&[("a/b.txt", true)]);
        assert!(claimed(t(1), &list, |_| None).is_empty());
    }
}
