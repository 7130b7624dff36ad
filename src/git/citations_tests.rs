//! The tests of what happened to cited paths (SPEC §17), on repositories built with git2.

#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs

use std::path::Path;

use git2::{Repository, Signature, Time};

use super::tests::commit;
use super::*;

/// SPEC §17: per path, the commits since a time that touched it, and where a renamed one went.
#[test]
fn path_histories_count_follow_renames_and_see_deletions() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    repo.set_head("refs/heads/main").unwrap();
    let w = dir.path();
    let write = |p: &str, s: &str| {
        let f = w.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, s).unwrap();
    };
    let mut index = repo.index().unwrap();
    let big: String = (0..40)
        .map(|i| format!("line {i} of the tax rules\n"))
        .collect();
    for p in [
        "src/keep.rs",
        "src/edit.rs",
        "src/old.rs",
        "src/del.rs",
        "lib/inner/x.rs",
        "src/twice.rs",
    ] {
        write(p, &big.replace("tax", p));
        index.add_path(Path::new(p)).unwrap();
    }
    index.write().unwrap();
    commit(&repo, "main", 1_000, "start");
    let day = 86_400;
    // Before `since`: does not count.
    write("src/edit.rs", "early");
    index.add_path(Path::new("src/edit.rs")).unwrap();
    index.write().unwrap();
    commit(&repo, "main", 2 * day, "early edit");
    let since = 3 * day;
    for i in 0..3 {
        write("src/edit.rs", &format!("edit {i}"));
        write("lib/inner/x.rs", &format!("x {i}"));
        index.add_path(Path::new("src/edit.rs")).unwrap();
        index.add_path(Path::new("lib/inner/x.rs")).unwrap();
        index.write().unwrap();
        commit(&repo, "main", since + i * 100, "edit");
    }
    // `git mv src/old.rs src/new.rs`, then `src/twice.rs` → `a/b.rs` → `c/d.rs`.
    let mv = |index: &mut git2::Index, from: &str, to: &str| {
        write(to, &std::fs::read_to_string(w.join(from)).unwrap());
        std::fs::remove_file(w.join(from)).unwrap();
        index.remove_path(Path::new(from)).unwrap();
        index.add_path(Path::new(to)).unwrap();
        index.write().unwrap();
    };
    mv(&mut index, "src/old.rs", "src/new.rs");
    commit(&repo, "main", since + 1_000, "rename");
    mv(&mut index, "src/twice.rs", "a/b.rs");
    commit(&repo, "main", since + 1_100, "rename once");
    mv(&mut index, "a/b.rs", "c/d.rs");
    commit(&repo, "main", since + 1_200, "rename twice");
    std::fs::remove_file(w.join("src/del.rs")).unwrap();
    index.remove_path(Path::new("src/del.rs")).unwrap();
    index.write().unwrap();
    commit(&repo, "main", since + 2_000, "delete");

    let r = Repo::discover(w, &[]).unwrap();
    let ask = |p: &str| Ask {
        path: p.into(),
        since,
    };
    let asks: Vec<Ask> = [
        "src/keep.rs",
        "src/edit.rs",
        "src/old.rs",
        "src/del.rs",
        "lib/inner",
        "src/twice.rs",
        "never/was.rs",
    ]
    .map(ask)
    .to_vec();
    let h = r.path_histories(&asks, 1_000, true);
    let got: Vec<_> = h
        .iter()
        .map(|h| (h.at_head, h.count, h.new_path.as_deref(), h.is_citation()))
        .collect();
    assert_eq!(
        got,
        [
            (true, 0, None, true),
            (true, 3, None, true),
            (false, 1, Some("src/new.rs"), true),
            (false, 1, None, true),
            (true, 3, None, true),
            (false, 1, Some("c/d.rs"), true),
            (false, 0, None, false),
        ]
    );
    assert_eq!(h[1].touches.len(), 3);
    assert_eq!(h[1].touches[0].summary, "edit");
    // A cap smaller than the history: what was walked, marked as a lower bound.
    let capped = r.path_histories(&asks[1..2], 2, false);
    assert!(capped[0].capped && capped[0].count < 3, "{capped:?}");
}

/// SPEC §17's cache: answers kept at one HEAD, brought up to a later one by its new commits
/// alone, are what a whole walk at the later HEAD gives; from a HEAD that is not an ancestor
/// (a rebase), there is no such shortcut.
#[test]
fn path_histories_after_new_commits_equal_a_whole_walk() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    repo.set_head("refs/heads/main").unwrap();
    let w = dir.path();
    let mut index = repo.index().unwrap();
    let put = |index: &mut git2::Index, p: &str, s: &str| {
        let f = w.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, s).unwrap();
        index.add_path(Path::new(p)).unwrap();
        index.write().unwrap();
    };
    let body = |p: &str| {
        (0..40)
            .map(|i| format!("{p} line {i}\n"))
            .collect::<String>()
    };
    for p in ["a.rs", "b.rs", "c.rs", "d/e.rs"] {
        put(&mut index, p, &body(p));
    }
    commit(&repo, "main", 1_000, "start");
    let since = 5_000;
    put(&mut index, "a.rs", "one");
    let first = commit(&repo, "main", since + 10, "a once");
    let r = Repo::discover(w, &[]).unwrap();
    let asks: Vec<Ask> = ["a.rs", "b.rs", "c.rs", "d", "new.rs"]
        .map(|p| Ask {
            path: p.into(),
            since,
        })
        .to_vec();
    let before = r.path_histories(&asks, 1_000, false);
    // New commits: an edit, a rename, a deletion, a file created.
    put(&mut index, "a.rs", "two");
    commit(&repo, "main", since + 20, "a twice");
    std::fs::rename(w.join("b.rs"), w.join("moved.rs")).unwrap();
    index.remove_path(Path::new("b.rs")).unwrap();
    index.add_path(Path::new("moved.rs")).unwrap();
    index.write().unwrap();
    commit(&repo, "main", since + 30, "mv b");
    std::fs::remove_file(w.join("d/e.rs")).unwrap();
    index.remove_path(Path::new("d/e.rs")).unwrap();
    index.write().unwrap();
    put(&mut index, "new.rs", "fresh");
    commit(&repo, "main", since + 40, "rm d, add new");
    let whole = r.path_histories(&asks, 1_000, false);
    let after: Vec<PathHistory> = r
        .path_histories_after(
            &asks,
            &before,
            &first.to_string(),
            &r.head_commit().unwrap(),
            1_000,
        )
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect();
    assert_eq!(after, whole);
    assert_eq!(after[0].count, 2);
    assert_eq!(after[1].new_path.as_deref(), Some("moved.rs"));
    assert!(!after[3].at_head && after[4].at_head);
    // A HEAD whose history does not hold the old one: computed whole instead.
    let sig = Signature::new("T", "t@example.com", &Time::new(since + 50, 0)).unwrap();
    let tree = repo.find_commit(first).unwrap().tree().unwrap();
    let root = repo
        .commit(None, &sig, &sig, "other root", &tree, &[])
        .unwrap();
    repo.reference("refs/heads/main", root, true, "rewrite")
        .unwrap();
    assert_eq!(
        r.path_histories_after(
            &asks,
            &before,
            &first.to_string(),
            &r.head_commit().unwrap(),
            1_000
        ),
        None
    );
}
