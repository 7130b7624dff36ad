//! The tests of the walk through merges and shallow edges (SPEC §17), on repositories built
//! with git2.

#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs

use git2::{Oid, Repository, Signature, Time};

use super::*;

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
