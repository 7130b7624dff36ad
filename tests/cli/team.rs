//! Conflicts nobody can miss, and `megg resolve` (SPEC §11): a clone without the driver, a
//! driver whose binary is gone, diff3 markers, markers committed by a web editor. The hook and
//! `context` load OURS' side and say so; `maintain` reports it; `megg resolve` settles it.

use serde_json::Value;

use crate::merge::{Team, sorted, ten_each, ts_entries};

/// The phrase the hook and `context` use (SPEC §11).
const WARNING: &str = "knowledge.md has unresolved merge conflicts: run megg resolve";

/// alice's ten learnings merged into bob's ten with whatever driver `t` has: git stops.
fn stopped_merge(t: &Team) -> Vec<String> {
    let (base, alice, bob) = ten_each(t);
    let out = t.run_git(&["merge", "--no-edit", "alice"]);
    assert!(!out.status.success(), "the merge did not stop");
    assert_eq!(
        t.git(&["diff", "--name-only", "--diff-filter=U"]),
        ".megg/knowledge.md\n"
    );
    // Every entry once after resolve: the base, both sides' ten (the shared heading twice, as
    // two different entries).
    sorted(base.into_iter().chain(alice).chain(bob).collect())
}

fn hook(t: &Team) -> (String, String) {
    let v: Value = t.p.json("", &["context", "--json"]);
    (
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string(),
        v["systemMessage"].as_str().unwrap().to_string(),
    )
}

/// The hook names the conflict inside the context and to the user, and the model never sees
/// a marker.
fn assert_seen(t: &Team) {
    let (ctx, msg) = hook(t);
    assert!(ctx.contains(WARNING), "{ctx}");
    assert!(msg.contains(WARNING), "{msg}");
    for marker in ["<<<<<<<", "=======", ">>>>>>>", "|||||||"] {
        assert!(!ctx.contains(marker), "{marker} reached the model:\n{ctx}");
    }
    // Even when the budget cuts everything it can, the warning stays.
    let v = t.p.json("", &["context", "--json", "--max-chars", "2000"]);
    let small = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(small.contains(WARNING), "{small}");
    let json = t.p.json("", &["context", "--format", "json"]);
    assert_eq!(json["knowledge"]["warning"], WARNING);
    let doctor = t.p.run("", &["doctor"]);
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        text.contains("unresolved merge conflicts in .megg/knowledge.md")
            && text.contains("megg resolve"),
        "{text}"
    );
    assert_eq!(doctor.status.code(), Some(1));
}

fn resolve(t: &Team, args: &[&str]) -> (Value, i32) {
    let mut argv = vec!["resolve", "--json"];
    argv.extend_from_slice(args);
    let out = t.p.run("", &argv);
    let v = crate::stdout_json(&out);
    (v, out.status.code().unwrap())
}

/// Resolved, staged, every entry once, and the merge finishes.
fn assert_settled(t: &Team, expected: &[String]) {
    let (v, code) = resolve(t, &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["resolved"], serde_json::json!([".megg/knowledge.md"]));
    assert_eq!(v["conflicts"], serde_json::json!([]));
    assert_eq!(t.git(&["diff", "--name-only", "--diff-filter=U"]), "");
    assert_eq!(sorted(ts_entries(&t.knowledge())), expected);
    let backups = t.root().join(".git/megg/backups");
    assert_eq!(std::fs::read_dir(&backups).unwrap().count(), 1);
    let (ctx, _) = hook(t);
    assert!(!ctx.contains(WARNING));
    let doctor = String::from_utf8_lossy(&t.p.run("", &["doctor"]).stdout).into_owned();
    assert!(!doctor.contains("unresolved merge conflicts"), "{doctor}");
    t.git(&["commit", "-q", "--no-edit"]);
    assert_eq!(t.git(&["status", "--porcelain"]), "");
}

#[test]
fn a_clone_without_the_driver_conflicts_visibly_and_resolve_settles_it() {
    let t = Team::new(false);
    let expected = stopped_merge(&t);
    assert!(t.knowledge().contains("<<<<<<<"));
    assert_seen(&t);
    // maintain names it and will not archive around the markers.
    let m = t.p.ok("", &["maintain", "--json"]);
    assert!(m.contains("unresolved merge conflict"), "{m}");
    let out = t.p.run("", &["maintain", "--archive-before", "2026-12-01"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("megg resolve"));
    assert!(
        t.knowledge().contains("<<<<<<<"),
        "archive touched the file"
    );
    assert_settled(&t, &expected);
}

#[test]
fn a_driver_whose_binary_is_gone_leaves_no_markers_but_is_still_seen() {
    let t = Team::new(true);
    t.git(&[
        "config",
        "merge.megg.driver",
        "'/nonexistent/megg' merge-driver --marker-size %L %O %A %B %P",
    ]);
    let expected = stopped_merge(&t);
    assert!(!t.knowledge().contains("<<<<<<<"), "git wrote markers");
    assert_seen(&t);
    assert_settled(&t, &expected);
}

#[test]
fn diff3_markers_are_recognised() {
    let t = Team::new(false);
    t.git(&["config", "merge.conflictStyle", "diff3"]);
    let expected = stopped_merge(&t);
    assert!(t.knowledge().contains("|||||||"));
    assert_seen(&t);
    assert_settled(&t, &expected);
}

#[test]
fn committed_markers_keep_both_sides_entries() {
    let t = Team::new(false);
    let expected = stopped_merge(&t);
    // A hasty `git add`: the markers are committed and git has no stages left.
    t.commit("merge with markers");
    assert_seen(&t);
    let (v, code) = resolve(&t, &[".megg/knowledge.md"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["resolved"], serde_json::json!([".megg/knowledge.md"]));
    assert_eq!(sorted(ts_entries(&t.knowledge())), expected);
    assert!(!t.knowledge().contains("<<<<<<<"));
}

/// One entry edited differently on main and on alice (who also learns something new), and
/// git's merge of alice stopped on it.
fn edited_on_both_sides() -> Team {
    let t = Team::new(false);
    t.learn(
        "2026-11-01T09:00:00Z",
        "Deploys",
        "process",
        "ops",
        "Deploy on Fridays.",
    );
    t.git(&["checkout", "-q", "-b", "alice"]);
    let k = t
        .knowledge()
        .replace("Deploy on Fridays.", "Deploy on Mondays.");
    t.p.write(".megg/knowledge.md", k);
    t.commit("alice edits");
    t.learn(
        "2026-11-02T09:00:00Z",
        "Alice's note",
        "fact",
        "ops",
        "From alice.",
    );
    t.git(&["checkout", "-q", "main"]);
    let k = t
        .knowledge()
        .replace("Deploy on Fridays.", "Never deploy on Fridays.");
    t.p.write(".megg/knowledge.md", k);
    t.commit("main edits");
    assert!(!t.run_git(&["merge", "--no-edit", "alice"]).status.success());
    t
}

#[test]
fn an_entry_edited_on_both_sides_stays_marked_and_named() {
    let t = edited_on_both_sides();
    let (v, code) = resolve(&t, &[]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["resolved"], serde_json::json!([]));
    assert_eq!(v["conflicts"][0]["path"], ".megg/knowledge.md");
    assert_eq!(
        v["conflicts"][0]["entries"],
        serde_json::json!(["## 2026-11-01 - Deploys"])
    );
    let k = t.knowledge();
    assert_eq!(k.matches("<<<<<<< ours").count(), 1, "{k}");
    // Everything else merged: alice's new entry is in, outside the markers.
    let after = &k[k.find(">>>>>>> theirs").unwrap()..];
    assert!(after.contains("Alice's note"), "{k}");
    // Still unmerged in git: the user edits, then adds.
    assert_eq!(
        t.git(&["diff", "--name-only", "--diff-filter=U"]),
        ".megg/knowledge.md\n"
    );
    // Text mode names it too.
    let out = t.p.run("", &["resolve"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("conflict: .megg/knowledge.md"), "{text}");
}

#[test]
fn resolve_outside_git_and_with_nothing_to_do() {
    let t = Team::new(false);
    let (v, code) = resolve(&t, &[]);
    assert_eq!(code, 0);
    assert_eq!(v["resolved"], serde_json::json!([]));
    // A path outside the repository is a usage error that touches nothing.
    let out = t.p.run("", &["resolve", "/etc/hosts"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the repository"));
    let p = crate::Project::new();
    let out = p.run("", &["resolve"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("git repository"));
}

/// The whole path a team takes: `megg setup` registers the driver, and ten learnings on each
/// of two branches merge — and rebase — with no conflict, every entry once.
#[test]
fn after_megg_setup_ten_learnings_a_side_merge_and_rebase_cleanly() {
    let t = Team::new(false);
    t.p.ok("", &["setup"]);
    t.commit("megg setup");
    let (base, alice, bob) = ten_each(&t);
    let expected = sorted(base.into_iter().chain(alice).chain(bob).collect());
    t.git(&["checkout", "-q", "-b", "bob-rebased", "bob"]);
    t.git(&["merge", "--no-edit", "alice"]);
    assert_eq!(sorted(ts_entries(&t.knowledge())), expected);
    t.git(&["checkout", "-q", "bob"]);
    t.git(&["rebase", "-q", "alice"]);
    assert_eq!(sorted(ts_entries(&t.knowledge())), expected);
    let (ctx, _) = hook(&t);
    assert!(!ctx.contains(WARNING));
}

/// git splits a conflict around the lines both sides share; a shared fence line leaves a hunk
/// inside a code block. It is still a conflict: never shown to the model, never staged as clean.
#[test]
fn a_conflict_inside_a_shared_code_fence_is_still_a_conflict() {
    let t = Team::new(false);
    t.learn("2026-11-01T09:00:00Z", "Base", "rule", "ci", "Base rule.");
    t.git(&["checkout", "-q", "-b", "other"]);
    t.learn(
        "2026-11-02T09:00:00Z",
        "Theirs tests",
        "process",
        "ci",
        "Use this:\n\n```sh\ncargo test --all\n```",
    );
    t.git(&["checkout", "-q", "main"]);
    t.learn(
        "2026-11-02T09:00:00Z",
        "Ours lint",
        "process",
        "ci",
        "Use this:\n\n```sh\nnpm run lint\n```",
    );
    assert!(!t.run_git(&["merge", "--no-edit", "other"]).status.success());
    assert_seen(&t);
    // Committed as it is: no stages left, only the markers tell.
    t.commit("hasty merge");
    assert_seen(&t);
    let (v, code) = resolve(&t, &[]);
    assert_eq!(code, 0, "{v}");
    let k = t.knowledge();
    assert!(!k.contains("<<<<<<<") && !k.contains(">>>>>>>"), "{k}");
    let entries = ts_entries(&k);
    assert_eq!(entries.len(), 3, "{k}");
    assert!(k.contains("npm run lint") && k.contains("cargo test --all"));
}

/// A second `megg resolve` never overwrites the hand-made fix of an entry both sides edited.
#[test]
fn resolve_keeps_a_hand_edit_made_after_it() {
    let t = edited_on_both_sides();
    assert_eq!(resolve(&t, &[]).1, 1);
    // The user settles the entry by hand, without markers, and runs resolve again.
    let fixed = t.knowledge();
    let start = fixed.find("<<<<<<< ours").unwrap();
    let end = fixed.find(">>>>>>> theirs\n").unwrap() + ">>>>>>> theirs\n".len();
    let by_hand = format!(
        "{}## 2026-11-01 - Deploys\n**Type:** process\n**Topics:** ops\n\nDeploy on Mondays, never on Fridays.\n{}",
        &fixed[..start],
        &fixed[end..]
    );
    t.p.write(".megg/knowledge.md", &by_hand);
    let (v, code) = resolve(&t, &[]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(t.knowledge(), by_hand, "the hand edit was overwritten");
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("edited since the merge"),
        "{v}"
    );
    t.git(&["add", ".megg/knowledge.md"]);
    t.git(&["commit", "-q", "--no-edit"]);
}

/// Deleted on one side and changed on the other: reported as left to the user (exit 1),
/// never "nothing to resolve".
#[test]
fn a_file_deleted_on_one_side_is_left_and_named() {
    let t = Team::new(false);
    t.learn("2026-11-01T09:00:00Z", "Base", "rule", "ci", "Base rule.");
    t.git(&["checkout", "-q", "-b", "other"]);
    t.git(&["rm", "-q", ".megg/knowledge.md"]);
    t.commit("drop knowledge");
    t.git(&["checkout", "-q", "main"]);
    t.learn("2026-11-02T09:00:00Z", "More", "rule", "ci", "More rule.");
    assert!(!t.run_git(&["merge", "--no-edit", "other"]).status.success());
    let (v, code) = resolve(&t, &[]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["conflicts"][0]["path"], ".megg/knowledge.md");
    assert!(
        v["conflicts"][0]["entries"][0]
            .as_str()
            .unwrap()
            .contains("deleted on their side")
    );
    assert_eq!(
        t.git(&["diff", "--name-only", "--diff-filter=U"]),
        ".megg/knowledge.md\n"
    );
}

/// Paths are taken as the shell gives them, `..` included, relative to where megg runs.
#[test]
fn resolve_takes_paths_relative_to_a_subdirectory() {
    let t = Team::new(false);
    let expected = stopped_merge(&t);
    t.p.mkdir("sub");
    let out =
        t.p.run("sub", &["resolve", "--json", "../.megg/knowledge.md"]);
    let v = crate::stdout_json(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["resolved"], serde_json::json!([".megg/knowledge.md"]));
    assert_eq!(sorted(ts_entries(&t.knowledge())), expected);
}

/// A knowledge file replaced by a link during the merge is never written through, nor staged
/// as a link.
#[test]
fn resolve_refuses_a_linked_knowledge_file() {
    let t = Team::new(false);
    stopped_merge(&t);
    t.p.write("docs/k.md", "elsewhere\n");
    let k = t.root().join(".megg/knowledge.md");
    std::fs::remove_file(&k).unwrap();
    std::os::unix::fs::symlink("../docs/k.md", &k).unwrap();
    let (v, code) = resolve(&t, &[]);
    assert_eq!(code, 1, "{v}");
    assert!(
        v["conflicts"][0]["entries"][0]
            .as_str()
            .unwrap()
            .contains("symbolic link"),
        "{v}"
    );
    assert_eq!(t.p.read("docs/k.md"), "elsewhere\n");
    assert_eq!(
        t.git(&["diff", "--name-only", "--diff-filter=U"]),
        ".megg/knowledge.md\n"
    );
}
