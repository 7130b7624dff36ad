//! The files a session changed in the work tree (SPEC §12, §14): hosts that edit through their
//! shell (Codex's `exec_command`) leave no edit tool call to read paths from, so a capture
//! claims the changed files whose change time is not before the session's start — the session
//! holds only the file system's time ([`crate::fsx::clock`]): nothing walks the work tree then —
//! except those whose content is still what it was at the start, by the note a background
//! `megg` took of it ([`super::snapshot`]): a `git stash` and `git stash pop`, a `touch` or a
//! `chmod` moves change times, not content.
//!
//! A time equal to the start counts as the session's: a file system that dates changes to the
//! whole second dates most of the session's first edits at its start; an earlier edit in that
//! same second is left out only by the note's hash when its content is unchanged.
//!
//! A capture costs one read of the index, one walk of the work tree's directories with the
//! change time of each name in them ([`walk`], in two threads in a large work tree), git's
//! status of the paths that changed since the start only, and a hash of those the note knew
//! the content of. When the index was written since the start (staging writes it, and so does
//! a `git status`), HEAD is compared with the index's entries staged since then and with the
//! directories that changed since, not with all of it ([`Repo::staged_since`]).

use std::path::Path;

use super::snapshot::{self, Found, Hashed, Snapshot};
use super::walk;
use crate::fsx::{Boundary, ChangeTime, ChangeTimes};
use crate::git::{Changed, Repo};

/// The paths (relative to the work tree, `/`-separated) the session changed since `since`;
/// `note` reads the note of the work tree at the start, when one was taken (only when a path
/// needs it).
pub fn since(
    repo: &Repo,
    since: ChangeTime,
    note: impl FnOnce() -> Option<Snapshot>,
) -> Vec<String> {
    let Some(work) = repo.workdir() else {
        return Vec::new();
    };
    let git = Boundary::new(repo.git_dir(), "the git directory");
    let staged = ChangeTimes::new(&git)
        .of(Path::new("index"))
        .is_none_or(|t| t >= since);
    let b = Boundary::new(&work, "the work tree");
    let mut times = ChangeTimes::new(&b);
    // The paths git is asked about: those that may have changed since the start (one walk of
    // the work tree's directories); all of it when they cannot be told.
    let mut changed = match walk::candidates(repo, &work, since) {
        Some(paths) => repo.changed_among(&paths),
        None => repo.changed_paths(false),
    };
    if staged {
        let at_or_after = |t: Option<ChangeTime>| t.is_some_and(|t| t >= since);
        let index = repo.staged_since(since, |dir| at_or_after(times.of(dir)));
        changed = merged(changed, index);
    }
    let mut note = Some(note);
    let mut read: Option<Snapshot> = None;
    let mut budget = snapshot::MAX_TOTAL_BYTES;
    let as_found = |rel: &Path, present: bool| {
        let note = read.get_or_insert_with(|| {
            note.take()
                .and_then(|n| n())
                .filter(|n| n.since == Some(since))
                .unwrap_or_default()
        });
        match note.found(&rel.to_string_lossy()) {
            Found::Content(h) if present => {
                matches!(snapshot::hash(&b, rel, &mut budget), Hashed::File(now, _) if now == h)
            }
            Found::Absent => !present,
            _ => false,
        }
    };
    claimed(since, &changed, |rel| times.of(rel), as_found)
}

/// The work tree's changed paths and the index's (each path once, in git's order): new when
/// either says it is.
fn merged(work: Vec<Changed>, index: Vec<Changed>) -> Vec<Changed> {
    let mut all: Vec<Changed> = work.into_iter().chain(index).collect();
    all.sort_by(|a, b| a.path.cmp(&b.path));
    all.dedup_by(|later, kept| {
        let same = later.path == kept.path;
        if same {
            kept.tracked &= later.tracked;
        }
        same
    });
    all
}

/// The paths among `changed` (git's status, in its order) the session changed since `since`:
/// a file there whose change time is not before it; a file gone that went during the session
/// ([`gone_during`]) — unless `as_found` says the path is as the session found it (`true` when
/// it is there, `false` when it is gone). Tracked files first, then new ones, each in git's
/// order. `time` reads a path's change time relative to the work tree (`""` for the work tree
/// itself), `None` when nothing is there.
pub fn claimed(
    since: ChangeTime,
    changed: &[Changed],
    mut time: impl FnMut(&Path) -> Option<ChangeTime>,
    mut as_found: impl FnMut(&Path, bool) -> bool,
) -> Vec<String> {
    let (mut tracked, mut new) = (Vec::new(), Vec::new());
    for c in changed {
        let rel = Path::new(&c.path);
        let claim = match time(rel) {
            Some(t) => t >= since && !as_found(rel, true),
            None => gone_during(rel, since, &mut time) && !as_found(rel, false),
        };
        if claim {
            if c.tracked { &mut tracked } else { &mut new }.push(c.path.clone());
        }
    }
    tracked.extend(new);
    tracked
}

/// Whether a file that is gone went during the session: the nearest directory above it that is
/// still there changed at or after the start (removing a name changes its directory).
pub fn gone_during(
    rel: &Path,
    since: ChangeTime,
    mut time: impl FnMut(&Path) -> Option<ChangeTime>,
) -> bool {
    rel.ancestors()
        .skip(1)
        .find_map(&mut time)
        .is_some_and(|t| t >= since)
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

    /// Nothing noted at the start: every path is as a capture without a note sees it.
    fn no_note(_: &Path, _: bool) -> bool {
        false
    }

    #[test]
    fn only_what_changed_after_the_start_is_claimed() {
        let since = t(100);
        let times: HashMap<&str, ChangeTime> = [
            ("", t(10)),
            ("new.txt", t(150)), // created during the session
            ("old.rs", t(120)),  // dirty before, edited again
            ("same.txt", t(50)), // dirty before, untouched
            ("src", t(130)),     // a name in it changed
            ("docs", t(40)),     // unchanged since before
        ]
        .into();
        let list = changed(&[
            ("docs/gone-before.md", true),
            ("lib/old.rs", true), // `lib` gone too; the top did not change
            ("new.txt", false),
            ("old.rs", true),
            ("same.txt", true),
            ("src/deleted.rs", true),
            ("src/sub/deep.rs", true), // `src/sub` removed during the session
        ]);
        let claims = claimed(
            since,
            &list,
            |p| times.get(p.to_str().unwrap()).copied(),
            no_note,
        );
        assert_eq!(
            claims,
            vec!["old.rs", "src/deleted.rs", "src/sub/deep.rs", "new.txt"]
        );
    }

    /// A file system that dates changes to the whole second dates the session's first edits
    /// at its start: a change dated at the start is the session's.
    #[test]
    fn a_change_dated_at_the_start_is_the_session_s() {
        let since = t(100);
        let times: HashMap<&str, ChangeTime> =
            [("", t(10)), ("at.txt", t(100)), ("d", t(100)), ("e", t(99))].into();
        let list = changed(&[
            ("at.txt", true),
            ("d/deleted.txt", true),
            ("e/before.txt", true),
        ]);
        let claims = claimed(
            since,
            &list,
            |p| times.get(p.to_str().unwrap()).copied(),
            no_note,
        );
        assert_eq!(claims, vec!["at.txt", "d/deleted.txt"]);
    }

    /// What the note of the start found as it still is — content rewritten unchanged by `git
    /// stash pop`, a deletion brought back and made again — is not claimed; the rest is.
    #[test]
    fn what_is_as_the_session_found_it_is_not_claimed() {
        let since = t(100);
        let times: HashMap<&str, ChangeTime> = [
            ("", t(10)),
            ("mine.txt", t(120)),
            ("restored.txt", t(120)),
            ("d", t(120)),
        ]
        .into();
        let list = changed(&[
            ("d/deleted-before.txt", true),
            ("d/deleted-now.txt", true),
            ("mine.txt", true),
            ("restored.txt", true),
        ]);
        let as_found = |p: &Path, present: bool| match p.to_str().unwrap() {
            "restored.txt" => present,
            "d/deleted-before.txt" => !present,
            _ => false,
        };
        let claims = claimed(
            since,
            &list,
            |p| times.get(p.to_str().unwrap()).copied(),
            as_found,
        );
        assert_eq!(claims, vec!["d/deleted-now.txt", "mine.txt"]);
    }

    #[test]
    fn a_path_nothing_can_be_read_of_is_not_claimed() {
        let list = changed(&[("a/b.txt", true)]);
        assert!(claimed(t(1), &list, |_| None, no_note).is_empty());
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod walk_tests {
    use std::fs;

    use git2::{IndexAddOption, Repository, Signature, Time};

    use super::*;
    use crate::fsx::{Boundary, ChangeTime, ChangeTimes};
    use std::path::Path;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// One tick of the file system's clock: what was written before is dated before `since`.
    fn tick(root: &Path) -> ChangeTime {
        let b = Boundary::new(root, "test");
        let first = crate::fsx::clock(&b, &root.join(".git/clock")).unwrap();
        loop {
            let now = crate::fsx::clock(&b, &root.join(".git/clock")).unwrap();
            if now > first {
                return now;
            }
        }
    }

    /// What a capture claims from the paths the walk ([`walk::candidates`]) names is what it claims from git's whole
    /// status, in every way a path can change: edited, touched, deleted (a whole directory
    /// too), a file become a directory and a directory a file, new files at the top, in the
    /// index's directories and deep in new ones, an earlier new file edited in place, links,
    /// another repository inside; and never an ignored directory's files.
    #[test]
    fn the_walk_claims_what_the_whole_status_claims() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = Repository::init(root).unwrap();
        for f in [
            "README",
            "src/a.rs",
            "src/b.rs",
            "src/touched.rs",
            "src/deep/c.rs",
            "src/deep/d.rs",
            "gone/x.txt",
            "gone/sub/y.txt",
            "file_to_dir",
            "dir_to_file/z.txt",
            "same.txt",
        ] {
            write(root, f, &format!("{f}\n"));
        }
        write(root, ".gitignore", "target/\n*.o\n");
        let mut index = repo.index().unwrap();
        index.add_all(["*"], IndexAddOption::DEFAULT, None).unwrap();
        index.write().unwrap();
        let sig = Signature::new("T", "t@example.com", &Time::new(1000, 0)).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
            .unwrap();
        // Before the session: an edit, a new file and a new directory's files.
        write(root, "src/b.rs", "an earlier edit\n");
        write(root, "scratch/old.txt", "new before\n");
        write(root, "scratch/kept.txt", "new before\n");
        write(root, "early.txt", "new before\n");
        let since = tick(root);
        write(root, "src/a.rs", "edited\n");
        write(root, "src/deep/c.rs", "edited\n");
        write(root, "src/touched.rs", "src/touched.rs\n");
        fs::remove_file(root.join("src/deep/d.rs")).unwrap();
        fs::remove_dir_all(root.join("gone")).unwrap();
        fs::remove_file(root.join("file_to_dir")).unwrap();
        write(root, "file_to_dir/inner.txt", "now a directory\n");
        fs::remove_dir_all(root.join("dir_to_file")).unwrap();
        write(root, "dir_to_file", "now a file\n");
        write(root, "NEW", "new\n");
        write(root, "src/new.rs", "new\n");
        write(root, "fresh/a/b/c.txt", "new\n");
        write(root, "scratch/old.txt", "edited in place\n");
        // A symlink is a change too (Windows needs a privilege to make one: Unix only).
        #[cfg(unix)]
        std::os::unix::fs::symlink("README", root.join("link")).unwrap();
        write(root, "target/debug/app", "ignored\n");
        write(root, "src/obj.o", "ignored\n");
        Repository::init(root.join("inner")).unwrap();
        write(root, "inner/f.txt", "another repository's\n");

        let r = crate::megg::repos::Repos::new(&[]).get(root).unwrap();
        let work = r.workdir().unwrap();
        let b = Boundary::new(&work, "the work tree");
        let claims = |changed: &[crate::git::Changed]| {
            let mut times = ChangeTimes::new(&b);
            claimed(since, changed, |p| times.of(p), |_, _| false)
        };
        let whole = claims(&r.changed_paths(false));
        let named = walk::candidates(&r, &work, since).expect("the walk");
        let walked = claims(&r.changed_among(&named));
        assert_eq!(walked, whole, "named: {named:?}");
        for path in [
            "src/a.rs",
            "src/deep/c.rs",
            "src/deep/d.rs",
            "gone/x.txt",
            "gone/sub/y.txt",
            "NEW",
            "src/new.rs",
            "fresh/a/b/c.txt",
            "scratch/old.txt",
            "link",
        ] {
            if path == "link" && !cfg!(unix) {
                continue;
            }
            assert!(whole.iter().any(|c| c == path), "{path}: {whole:?}");
        }
        for path in [
            "src/b.rs",
            "src/touched.rs",
            "scratch/kept.txt",
            "early.txt",
        ] {
            assert!(!whole.iter().any(|c| c == path), "{path}: {whole:?}");
        }
        assert!(!named.iter().any(|p| p.starts_with("target")), "{named:?}");
        // Split between threads, the same.
        let (files, modules) = r.index_files().unwrap();
        let tree = walk::Tree::of(&files, &modules);
        let halves: Vec<String> = tree
            .dirs
            .chunks(2)
            .flat_map(|dirs| tree.read(&b, dirs, since).unwrap().candidates)
            .collect();
        let mut one = tree.read(&b, &tree.dirs, since).unwrap().candidates;
        let mut halves = halves;
        one.sort();
        halves.sort();
        assert_eq!(halves, one);
    }
}
