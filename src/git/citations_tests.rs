//! The tests of what happened to cited paths (SPEC §17), on repositories built with git2.

#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs

use std::path::Path;

use git2::{Oid, Repository, Signature, Time};

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

/// Second reader's findings on SPEC §17's walk: a rename on a branch merged after an edit of
/// the old name on main is still `moved` (the newest touch is not the one that took the path
/// away); a shallow clone's edge is not read as every file added.
#[test]
fn a_merged_rename_is_found_and_a_shallow_edge_is_a_cap() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    repo.set_head("refs/heads/main").unwrap();
    let w = dir.path();
    let body = |p: &str| {
        (0..40)
            .map(|i| format!("{p} line {i}\n"))
            .collect::<String>()
    };
    let tree_of = |files: &[(&str, String)]| {
        let mut b = repo.treebuilder(None).unwrap();
        for (p, s) in files {
            b.insert(p, repo.blob(s.as_bytes()).unwrap(), 0o100644)
                .unwrap();
        }
        repo.find_tree(b.write().unwrap()).unwrap()
    };
    let sig = |t: i64| Signature::new("T", "t@example.com", &Time::new(t, 0)).unwrap();
    let mk = |t: i64, msg: &str, tree: &git2::Tree<'_>, parents: &[Oid]| {
        let ps: Vec<_> = parents
            .iter()
            .map(|p| repo.find_commit(*p).unwrap())
            .collect();
        let refs: Vec<_> = ps.iter().collect();
        repo.commit(None, &sig(t), &sig(t), msg, tree, &refs)
            .unwrap()
    };
    let start = mk(
        1_000,
        "start",
        &tree_of(&[("a.rs", body("a")), ("k.rs", body("k"))]),
        &[],
    );
    let since = 5_000;
    // The branch renames a.rs to b.rs; main edits a.rs later; main merges the branch.
    let renamed = mk(
        since + 10,
        "mv a b",
        &tree_of(&[("b.rs", body("a")), ("k.rs", body("k"))]),
        &[start],
    );
    let mut edited_a = body("a");
    edited_a.push_str("edit\n");
    let edit = mk(
        since + 20,
        "edit a",
        &tree_of(&[("a.rs", edited_a), ("k.rs", body("k"))]),
        &[start],
    );
    let merge = mk(
        since + 30,
        "merge",
        &tree_of(&[("b.rs", body("a")), ("k.rs", body("k"))]),
        &[edit, renamed],
    );
    repo.reference("refs/heads/main", merge, true, "t").unwrap();
    let r = Repo::discover(w, &[]).unwrap();
    let ask = |p: &str| Ask {
        path: p.into(),
        since,
    };
    let h = r.path_histories(&[ask("a.rs")], 1_000, false);
    assert_eq!(h[0].new_path.as_deref(), Some("b.rs"), "{h:?}");

    // Shallow at `edit`: git sees it without a parent.
    let mut k2 = body("k");
    k2.push_str("more\n");
    let tip = mk(
        since + 40,
        "edit k",
        &tree_of(&[("b.rs", body("a")), ("k.rs", k2)]),
        &[merge],
    );
    repo.reference("refs/heads/main", tip, true, "t").unwrap();
    std::fs::write(w.join(".git/shallow"), format!("{merge}\n")).unwrap();
    let r = Repo::discover(w, &[]).unwrap();
    assert!(r.is_shallow());
    let h = r.path_histories(&[ask("k.rs"), ask("b.rs")], 1_000, false);
    assert_eq!((h[0].count, h[0].capped), (1, true), "{h:?}");
    assert_eq!(
        (h[1].count, h[1].capped),
        (0, true),
        "not 'added' by the edge: {h:?}"
    );
}

/// SPEC §17 (2026-11-29): the commits that count are those reachable from HEAD and not from
/// the last first-parent commit of the day — a branch's commits older than the day count when
/// merged after it, a commit of the day itself does not; a merge that takes a parent's side
/// is not a change of its own; a path renamed and then edited is checked at its new place.
#[test]
fn merged_commits_count_and_a_moved_path_is_checked_on() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    repo.set_head("refs/heads/main").unwrap();
    let body = |p: &str| {
        (0..40)
            .map(|i| format!("{p} line {i}\n"))
            .collect::<String>()
    };
    let tree_of = |files: &[(&str, String)]| {
        let mut b = repo.treebuilder(None).unwrap();
        for (p, s) in files {
            b.insert(p, repo.blob(s.as_bytes()).unwrap(), 0o100644)
                .unwrap();
        }
        repo.find_tree(b.write().unwrap()).unwrap()
    };
    let sig = |t: i64| Signature::new("T", "t@example.com", &Time::new(t, 0)).unwrap();
    let mk = |t: i64, msg: &str, files: &[(&str, String)], parents: &[Oid]| {
        let ps: Vec<_> = parents
            .iter()
            .map(|p| repo.find_commit(*p).unwrap())
            .collect();
        let refs: Vec<_> = ps.iter().collect();
        repo.commit(None, &sig(t), &sig(t), msg, &tree_of(files), &refs)
            .unwrap()
    };
    let edited = |p: &str, n: usize| format!("{}edit {n}\n", body(p));
    let since = 100_000;
    let start = mk(
        1_000,
        "start",
        &[
            ("x.rs", body("x")),
            ("y.rs", body("y")),
            ("m.rs", body("m")),
        ],
        &[],
    );
    // The branch, before the day: y edited.
    let side = mk(
        2_000,
        "side: y",
        &[
            ("x.rs", body("x")),
            ("y.rs", edited("y", 1)),
            ("m.rs", body("m")),
        ],
        &[start],
    );
    // main, on the day (before its end): x edited — does not count.
    let day = mk(
        since - 10,
        "day: x",
        &[
            ("x.rs", edited("x", 1)),
            ("y.rs", body("y")),
            ("m.rs", body("m")),
        ],
        &[start],
    );
    // After the day: the branch merged (y as the branch has it), m moved to n, n edited twice.
    let merge = mk(
        since + 10,
        "merge",
        &[
            ("x.rs", edited("x", 1)),
            ("y.rs", edited("y", 1)),
            ("m.rs", body("m")),
        ],
        &[day, side],
    );
    let moved = mk(
        since + 20,
        "mv m n",
        &[
            ("x.rs", edited("x", 1)),
            ("y.rs", edited("y", 1)),
            ("n.rs", body("m")),
        ],
        &[merge],
    );
    let mut tip = moved;
    for n in 1..=2 {
        tip = mk(
            since + 30 + n as i64,
            "edit n",
            &[
                ("x.rs", edited("x", 1)),
                ("y.rs", edited("y", 1)),
                ("n.rs", edited("m", n)),
            ],
            &[tip],
        );
    }
    repo.reference("refs/heads/main", tip, true, "t").unwrap();
    let r = Repo::discover(dir.path(), &[]).unwrap();
    let ask = |p: &str| Ask {
        path: p.into(),
        since,
    };
    let h = r.path_histories(&[ask("x.rs"), ask("y.rs"), ask("m.rs")], 1_000, true);
    let got: Vec<_> = h
        .iter()
        .map(|h| (h.count, h.new_path.as_deref(), h.moved_count))
        .collect();
    assert_eq!(
        got,
        [(0, None, 0), (1, None, 0), (1, Some("n.rs"), 2)],
        "{h:?}"
    );
    assert_eq!(h[1].touches[0].summary, "side: y");
    assert_eq!(h[2].touches.len(), 2, "the commits after the move: {h:?}");
    // The day before: the branch's commit and the day's own count.
    let earlier = Ask {
        path: "x.rs".into(),
        since: since - 86_400,
    };
    assert_eq!(r.path_histories(&[earlier], 1_000, false)[0].count, 1);
    // Kept at the move, brought up to the tip by its two commits: the same.
    let before = r.path_histories_at(&moved.to_string(), &[ask("m.rs")], 1_000, false);
    assert_eq!(before[0].moved_count, 0);
    let after = r
        .path_histories_after(
            &[ask("m.rs")],
            &before,
            &moved.to_string(),
            &tip.to_string(),
            1_000,
        )
        .unwrap();
    let whole = r.path_histories(&[ask("m.rs")], 1_000, false);
    assert_eq!(after, vec![Some(whole[0].clone())]);
}

/// A bare file name names the one path of that name: the name itself at the top or in the
/// domain first, else at HEAD, else in the history; several paths, none.
#[test]
fn a_bare_name_names_the_one_path_that_has_it() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    repo.set_head("refs/heads/main").unwrap();
    let w = dir.path();
    let mut index = repo.index().unwrap();
    let put = |index: &mut git2::Index, p: &str| {
        let f = w.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, p).unwrap();
        index.add_path(Path::new(p)).unwrap();
        index.write().unwrap();
    };
    for p in [
        "Cargo.toml",
        "crates/a/Cargo.toml",
        "src/db/pool.ts",
        "a/migrate.ts",
        "b/migrate.ts",
        "svc/main.rs",
        "old/gone.ts",
    ] {
        put(&mut index, p);
    }
    commit(&repo, "main", 1_000, "start");
    std::fs::remove_file(w.join("old/gone.ts")).unwrap();
    index.remove_path(Path::new("old/gone.ts")).unwrap();
    index.write().unwrap();
    commit(&repo, "main", 2_000, "rm");
    let r = Repo::discover(w, &[]).unwrap();
    let ask = |name: &str, domain: &str| NameAsk {
        name: name.into(),
        domain: domain.into(),
    };
    let asks = [
        ask("Cargo.toml", ""),
        ask("pool.ts", ""),
        ask("migrate.ts", ""),
        ask("main.rs", "svc"),
        ask("gone.ts", ""),
        ask("never.ts", ""),
    ];
    let named = r.paths_named(&r.head_commit().unwrap(), &asks, 1_000);
    let got: Vec<_> = named
        .iter()
        .map(|n| (n.path.as_deref(), n.several, n.capped))
        .collect();
    assert_eq!(
        got,
        [
            (Some("Cargo.toml"), false, false),
            (Some("src/db/pool.ts"), false, false),
            (None, true, false),
            (Some("svc/main.rs"), false, false),
            (Some("old/gone.ts"), false, false),
            (None, false, false),
        ]
    );
    // A cap shorter than the history: not settled.
    let named = r.paths_named(&r.head_commit().unwrap(), &asks[5..], 1);
    assert!(named[0].capped, "{named:?}");
}
