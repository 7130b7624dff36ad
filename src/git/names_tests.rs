//! The tests of which path a bare file name names, on repositories built with git2.

#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs

use std::path::Path;

use git2::Repository;

use super::tests::commit;
use super::*;

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
