//! The git module's tests, on repositories built with git2.

#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs

use std::path::Path;

use chrono::{DateTime, Utc};
use git2::{Oid, Repository};

use super::history::count_capped;
use super::*;
use git2::{Signature, Time};

pub(super) fn commit(repo: &Repository, branch: &str, secs: i64, msg: &str) -> Oid {
    let sig = Signature::new("T", "t@example.com", &Time::new(secs, 0)).unwrap();
    let tree_id = repo.index().unwrap().write_tree().unwrap();
    let tree = repo.find_tree(tree_id).unwrap();
    let refname = format!("refs/heads/{branch}");
    let parent = repo
        .find_reference(&refname)
        .ok()
        .and_then(|r| r.peel_to_commit().ok());
    let parents: Vec<_> = parent.iter().collect();
    repo.commit(Some(&refname), &sig, &sig, msg, &tree, &parents)
        .unwrap()
}

fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap()
}

#[test]
fn branch_head_and_unborn() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    repo.set_head("refs/heads/main").unwrap();
    let r = Repo::discover(dir.path(), &[]).unwrap();
    assert_eq!(r.current_branch().as_deref(), Some("main"));
    assert_eq!(r.head_commit(), None);
    let c = commit(&repo, "main", 1000, "one");
    assert_eq!(r.head_commit(), Some(c.to_string()));
    assert_eq!(r.branch_tip("main"), Some(c.to_string()));
    assert_eq!(r.branch_tip("nope"), None);
    repo.set_head_detached(c).unwrap();
    assert_eq!(r.current_branch(), None);
}

#[test]
fn ceilings_stop_discovery() {
    let dir = tempfile::tempdir().unwrap();
    Repository::init(dir.path()).unwrap();
    let sub = dir.path().join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    assert!(Repo::discover(&sub, &[]).is_some());
    assert!(Repo::discover(&sub, &[dir.path().join("a")]).is_none());
}

#[test]
fn divergence_exact_time_rewritten_and_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    let base = commit(&repo, "feat", 1000, "base");
    commit(&repo, "feat", 2000, "a");
    commit(&repo, "feat", 3000, "b");
    let r = Repo::discover(dir.path(), &[]).unwrap();

    let d = r
        .divergence("feat", Some(&base.to_string()), at(0), WALK_CAP)
        .unwrap();
    assert_eq!(
        (d.commits, d.basis, d.rewritten),
        (2, Basis::Head, Some(false))
    );

    let d = r.divergence("feat", None, at(1500), WALK_CAP).unwrap();
    assert_eq!((d.commits, d.basis), (2, Basis::Time));
    // Exactly at a commit's time is not after it.
    let d = r.divergence("feat", None, at(2000), WALK_CAP).unwrap();
    assert_eq!(d.commits, 1);

    // A recorded commit this clone does not have: megg cannot know it was rewritten.
    let unknown = "1111111111111111111111111111111111111111";
    let d = r
        .divergence("feat", Some(unknown), at(2500), WALK_CAP)
        .unwrap();
    assert_eq!(d.rewritten, None);
    assert_eq!((d.commits, d.basis), (1, Basis::Time));

    // A commit that exists but is not an ancestor: rewritten, known for sure.
    let other = commit(&repo, "other", 500, "elsewhere");
    let d = r
        .divergence("feat", Some(&other.to_string()), at(2500), WALK_CAP)
        .unwrap();
    assert_eq!(d.rewritten, Some(true));
    // Past the walk limit the answer is unknown, never a wrong "rewritten".
    let d = r
        .divergence("feat", Some(&other.to_string()), at(2500), 2)
        .unwrap();
    assert_eq!(d.rewritten, None);

    // Without a recorded head a missing branch may never have existed here.
    let d = r.divergence("gone", None, at(0), WALK_CAP).unwrap();
    assert_eq!(d.branch_exists, None);
    let d = r.divergence("gone", Some(&base.to_string()), at(0), WALK_CAP);
    assert_eq!(d.unwrap().branch_exists, Some(false));
    assert!(r.divergence("", None, at(0), WALK_CAP).is_none());
}

#[test]
fn linked_worktrees_know_the_main_root() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    let repo = Repository::init(&main).unwrap();
    commit(&repo, "master", 1000, "one");
    repo.set_head("refs/heads/master").unwrap();
    let wt_path = dir.path().join("wt");
    repo.worktree("wt", &wt_path, None).unwrap();
    let r = Repo::discover(&wt_path, &[]).unwrap();
    let got = r.main_worktree_root().unwrap();
    assert_eq!(
        std::fs::canonicalize(got).unwrap(),
        std::fs::canonicalize(&main).unwrap()
    );
    assert!(
        Repo::discover(&main, &[])
            .unwrap()
            .main_worktree_root()
            .is_none()
    );
}

/// SPEC §18.2: the linked worktrees are listed from git's admin directories — one whose work
/// tree was deleted is prunable, one `git worktree prune` removed is not listed — and a name
/// given again at another path is another key.
#[test]
fn linked_worktrees_are_listed_with_what_git_would_prune() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    let repo = Repository::init(&main).unwrap();
    commit(&repo, "master", 1000, "one");
    repo.set_head("refs/heads/master").unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    repo.worktree("a", &a, None).unwrap();
    repo.worktree("b", &b, None).unwrap();
    let r = Repo::discover(&main, &[]).unwrap();
    assert_eq!(r.worktree_name(), None);
    assert_eq!(r.this_worktree(), None);
    let listed = r.linked_worktrees();
    let names: Vec<_> = listed
        .iter()
        .map(|w| (w.name.as_str(), w.prunable))
        .collect();
    assert_eq!(names, [("a", false), ("b", false)]);
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap();
    assert_eq!(canon(listed[0].path.as_ref().unwrap()), canon(&a));
    assert_eq!(
        canon(&listed[0].admin),
        canon(&main.join(".git/worktrees/a"))
    );
    let in_a = Repo::discover(&a, &[]).unwrap();
    assert_eq!(in_a.worktree_name().as_deref(), Some("a"));
    assert_eq!(in_a.this_worktree().unwrap().name, "a");

    std::fs::remove_dir_all(&b).unwrap();
    let names: Vec<_> = r
        .linked_worktrees()
        .into_iter()
        .map(|w| (w.name, w.prunable))
        .collect();
    assert_eq!(names, [("a".to_string(), false), ("b".to_string(), true)]);
    std::fs::remove_dir_all(main.join(".git/worktrees/a")).unwrap();
    assert_eq!(r.linked_worktrees().len(), 1);

    let key = worktree_key("a", &a);
    assert!(key.starts_with("a@") && key.len() == 10, "{key}");
    assert_eq!(key, worktree_key("a", &a));
    assert_ne!(key, worktree_key("a", &b));
    assert_ne!(key, MAIN_WORKTREE);
}

#[test]
fn ignore_rules() {
    let dir = tempfile::tempdir().unwrap();
    Repository::init(dir.path()).unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".*.local.md\n").unwrap();
    let r = Repo::discover(dir.path(), &[]).unwrap();
    assert!(r.is_ignored(Path::new(".x.local.md")));
    assert!(!r.is_ignored(Path::new("x.md")));
}

#[test]
fn config_keys_are_set_replaced_and_removed_in_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gitconfig");
    let keys = ["merge.megg.name", "merge.megg.driver"];
    assert_eq!(config_file_values(&path, &keys).unwrap(), [None, None]);
    // A key set twice by hand (a multivar) is replaced by one value.
    std::fs::write(&path, "[merge \"megg\"]\n\tdriver = a\n\tdriver = b\n").unwrap();
    config_file_set(
        &path,
        &[("merge.megg.name", "n"), ("merge.megg.driver", "d")],
    )
    .unwrap();
    let values = config_file_values(&path, &keys).unwrap();
    assert_eq!(values, [Some("n".to_string()), Some("d".to_string())]);
    assert_eq!(
        std::fs::read_to_string(&path)
            .unwrap()
            .matches("driver")
            .count(),
        1
    );
    assert!(config_file_remove(&path, &keys).unwrap());
    assert!(!config_file_remove(&path, &keys).unwrap());
    assert_eq!(config_file_values(&path, &keys).unwrap(), [None, None]);
}

#[test]
fn config_values_say_where_they_come_from_and_attributes_every_source() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    let global = dir.path().join("global");
    std::fs::write(&global, "[merge \"megg\"]\n\tname = user\n").unwrap();
    repo.config()
        .unwrap()
        .set_str("merge.megg.driver", "local")
        .unwrap();
    let r = Repo::discover(dir.path(), &[]).unwrap();
    let value = |key| r.config_value(key, Some(&global));
    assert_eq!(
        value("merge.megg.name"),
        Some(ConfigValue {
            value: "user".into(),
            level: ConfigLevel::User
        })
    );
    assert_eq!(
        value("merge.megg.driver").unwrap().level,
        ConfigLevel::Repository
    );
    assert_eq!(value("merge.megg.nothing"), None);

    let rel = Path::new(".megg/knowledge.md");
    assert_eq!(r.attribute(rel, "merge"), Attr::Unspecified);
    std::fs::create_dir_all(dir.path().join(".git/info")).unwrap();
    std::fs::write(
        dir.path().join(".git/info/attributes"),
        "**/.megg/knowledge.md merge=megg -diff\n",
    )
    .unwrap();
    let r = Repo::discover(dir.path(), &[]).unwrap();
    assert_eq!(r.attribute(rel, "merge"), Attr::Value("megg".into()));
    assert_eq!(r.attribute(rel, "diff"), Attr::Unset);
}

#[test]
fn walk_cap() {
    assert_eq!(count_capped(0..5, WALK_CAP), (5, false));
    assert_eq!(count_capped(0..WALK_CAP, WALK_CAP), (WALK_CAP, false));
    assert_eq!(count_capped(0..WALK_CAP + 7, WALK_CAP), (WALK_CAP, true));
    assert_eq!(
        count_capped(0..HOOK_WALK_CAP + 1, HOOK_WALK_CAP),
        (HOOK_WALK_CAP, true)
    );
}
