//! `megg checkpoint` and `megg gitignore`: seed 004's manual tests 5.1–5.8 automated, the
//! staleness tiers at their boundaries, and every edge case of SPEC §4.

use std::process::Stdio;

use serde_json::Value;

use crate::{Git, NOW, Project, epoch};

const PLAN: &str = "docs/plans/2026-01-15-feat-user-authentication-flow-plan.md";
const FILE: &str = ".user-authentication-flow.local.md";

/// A git project on branch main with one commit and the plan file written.
fn repo() -> (Project, Git) {
    let p = Project::new();
    let git = Git::init(p.root(), "main");
    git.commit("main", epoch("2026-11-01T00:00:00Z"), "init");
    p.write(PLAN, "# User authentication flow\n");
    (p, git)
}

fn at(p: &Project, now: &str, args: &[&str]) -> std::process::Output {
    p.megg("").env("MEGG_NOW", now).args(args).output().unwrap()
}

fn json_at(p: &Project, now: &str, args: &[&str]) -> Value {
    let out = at(p, now, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::stdout_json(&out)
}

fn resume_json(p: &Project, now: &str) -> Value {
    json_at(
        p,
        now,
        &["checkpoint", "resume", PLAN, "--for", "work", "--json"],
    )
}

fn warnings(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

fn option_ids(v: &Value) -> Vec<(String, bool)> {
    v["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["id"].as_str().unwrap().to_string(),
                o["recommended"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn seed004_5_1_save_announces_and_writes_the_frontmatter() {
    let (p, _git) = repo();
    p.ok("", &["gitignore"]);
    let out = p.ok("", &["checkpoint", "save", PLAN]);
    assert_eq!(out, format!("Progress saved to {FILE} (gitignored)\n"));
    assert_eq!(
        p.read(FILE),
        format!(
            "---\nfeature: user-authentication-flow\nplan_file: {PLAN}\nphase: plan-complete\nbranch: \"\"\nhead: \"\"\nstarted: {NOW}\nupdated: {NOW}\n---\n## Progress\n- [x] Plan created: {PLAN}\n- [ ] Branch created\n- [ ] Implementation\n- [ ] Tests passing\n- [ ] Review complete\n- [ ] Compound documented\n"
        )
    );
    let v = p.json("", &["checkpoint", "save", PLAN, "--json"]);
    assert_eq!(v["created"], false);
    assert_eq!(v["gitignored"], true);
    assert_eq!(
        v["announcement"],
        format!("Progress saved to {FILE} (gitignored)")
    );
    assert_eq!(v["checkpoint"]["feature"], "user-authentication-flow");
    assert_eq!(v["checkpoint"]["progress"]["done"], 1);
    assert_eq!(v["checkpoint"]["progress"]["total"], 6);
}

#[test]
fn save_says_when_git_would_not_ignore_it() {
    let (p, _git) = repo();
    let out = p.ok("", &["checkpoint", "save", PLAN]);
    assert_eq!(
        out,
        format!("Progress saved to {FILE} (NOT gitignored — run: megg gitignore)\n")
    );
}

#[test]
fn seed004_5_2_discovery_offers_to_resume() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    // Without arguments (the /workflows:work default) and by plan file.
    for args in [
        &["checkpoint", "resume", "--for", "work", "--json"][..],
        &["checkpoint", "resume", PLAN, "--for", "work", "--json"][..],
    ] {
        let v = json_at(&p, "2026-11-22T13:00:00Z", args);
        assert_eq!(v["status"], "found");
        assert_eq!(
            v["question"],
            "Found previous session for 'user-authentication-flow'"
        );
        assert_eq!(
            option_ids(&v),
            [
                ("resume".into(), true),
                ("fresh".into(), false),
                ("view".into(), false)
            ]
        );
        assert_eq!(v["checkpoint"]["file"], FILE);
        assert_eq!(v["checkpoint"]["phase"], "plan-complete");
        assert_eq!(v["checkpoint"]["age_seconds"], 3600);
        assert!(v["action"].is_null());
    }
    // Off a terminal nothing changes.
    assert!(p.read(FILE).contains(&format!("updated: {NOW}")));
    let text = String::from_utf8(at(&p, NOW, &["checkpoint", "resume"]).stdout).unwrap();
    assert!(text.contains("Found previous session for 'user-authentication-flow'"));
    assert!(text.contains("progress: 1/6"));
    assert!(text.contains("Resume (recommended)"));
}

#[test]
fn seed004_5_3_resume_loads_the_plan_path_and_advances_the_phase() {
    let (p, git) = repo();
    p.ok("", &["checkpoint", "save", PLAN, "--branch", "main"]);
    let later = "2026-11-22T15:00:00Z";
    let tip = git.commit("main", epoch("2026-11-22T14:00:00Z"), "work");
    let v = json_at(
        &p,
        later,
        &[
            "checkpoint",
            "resume",
            PLAN,
            "--for",
            "work",
            "--choice",
            "resume",
            "--json",
        ],
    );
    assert_eq!(v["action"], "resumed");
    assert_eq!(v["checkpoint"]["phase"], "work");
    assert_eq!(v["checkpoint"]["plan_file"], PLAN);
    assert_eq!(v["checkpoint"]["updated"], later);
    assert_eq!(
        v["checkpoint"]["head"],
        tip.as_str(),
        "divergence acknowledged"
    );
    let text = p.read(FILE);
    assert!(text.contains("phase: work\n") && text.contains(&format!("updated: {later}\n")));
    assert!(text.contains(&format!("started: {NOW}\n")), "started kept");
    let out = String::from_utf8(
        at(
            &p,
            later,
            &["checkpoint", "resume", PLAN, "--choice", "resume"],
        )
        .stdout,
    )
    .unwrap();
    assert!(out.contains(&format!("Plan: {PLAN}")));
    assert!(out.contains("Branch: main"));
    assert!(out.contains("- [ ] Branch created"));
}

#[test]
fn seed004_5_4_start_fresh_deletes_the_state() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let v = json_at(
        &p,
        NOW,
        &["checkpoint", "resume", PLAN, "--choice", "fresh", "--json"],
    );
    assert_eq!(v["action"], "started-fresh");
    assert!(!p.path(FILE).exists());
    let v = resume_json(&p, NOW);
    assert_eq!(v["status"], "none");
}

#[test]
fn view_prints_the_file_and_changes_nothing() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let before = p.read(FILE);
    let out =
        String::from_utf8(at(&p, NOW, &["checkpoint", "resume", PLAN, "--choice", "view"]).stdout)
            .unwrap();
    assert_eq!(out, before);
    assert_eq!(p.read(FILE), before);
}

#[test]
fn seed004_5_5_an_eight_day_old_state_warns() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let v = resume_json(&p, "2026-11-30T12:00:00Z");
    assert_eq!(v["checkpoint"]["staleness"], "stale");
    assert_eq!(v["checkpoint"]["age_days"], 8);
    assert!(warnings(&v).contains(&"This state is 8 days old and may be outdated".to_string()));
    assert!(
        option_ids(&v).iter().all(|(_, rec)| !rec),
        "none recommended"
    );
    let out = at(&p, "2026-11-30T12:00:00Z", &["checkpoint", "resume", PLAN]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("warning: This state is 8 days old and may be outdated")
    );
}

#[test]
fn tiers_at_and_around_every_boundary() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]); // updated = 2026-11-22T12:00:00Z
    for (now, tier, recommended, warns) in [
        ("2026-11-23T11:59:59Z", "fresh", Some("resume"), false),
        ("2026-11-23T12:00:00Z", "recent", None, false),
        ("2026-11-29T12:00:00Z", "recent", None, false),
        ("2026-11-29T12:00:01Z", "stale", None, true),
        ("2026-12-22T12:00:00Z", "stale", None, true),
        ("2026-12-22T12:00:01Z", "abandoned", Some("fresh"), true),
    ] {
        let v = resume_json(&p, now);
        assert_eq!(v["checkpoint"]["staleness"], tier, "{now}");
        let rec: Vec<String> = option_ids(&v)
            .into_iter()
            .filter(|(_, r)| *r)
            .map(|(id, _)| id)
            .collect();
        assert_eq!(rec.first().map(String::as_str), recommended, "{now}");
        assert_eq!(
            v["options"][0]["id"],
            recommended.unwrap_or("resume"),
            "{now}: recommended first"
        );
        let warned = warnings(&v).iter().any(|w| w.contains("may be outdated"));
        assert_eq!(warned, warns, "{now}");
    }
    let v = resume_json(&p, "2026-12-22T12:00:01Z");
    assert_eq!(v["options"][1]["label"], "Resume anyway");
}

#[test]
fn missing_or_future_updated() {
    let (p, _git) = repo();
    p.write(
        FILE,
        format!("---\nfeature: f\nplan_file: {PLAN}\nphase: work\n---\n- [ ] x\n"),
    );
    let v = resume_json(&p, NOW);
    assert_eq!(v["checkpoint"]["staleness"], "abandoned");
    assert_eq!(v["options"][0]["id"], "fresh");
    p.write(
        FILE,
        format!(
            "---\nfeature: f\nplan_file: {PLAN}\nphase: work\nupdated: 2026-12-01T00:00:00Z\n---\n"
        ),
    );
    let v = resume_json(&p, NOW);
    assert_eq!(v["checkpoint"]["age_seconds"], 0);
    assert_eq!(v["checkpoint"]["staleness"], "fresh");
    assert!(warnings(&v).iter().any(|w| w.contains("in the future")));
}

#[test]
fn seed004_5_6_finish_deletes_the_checkpoint() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let v = p.json(
        "",
        &["checkpoint", "finish", "user-authentication-flow", "--json"],
    );
    assert_eq!(v["finished"], FILE);
    assert!(!p.path(FILE).exists());
    let out = p.run("", &["checkpoint", "finish", "user-authentication-flow"]);
    assert_eq!(out.status.code(), Some(1), "an unknown target is an error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("hint:"));
}

#[test]
fn seed004_5_7_new_commits_on_the_branch_warn() {
    let (p, git) = repo();
    p.ok("", &["checkpoint", "save", PLAN, "--branch", "main"]);
    git.commit("main", epoch("2026-11-22T12:30:00Z"), "a");
    git.commit("main", epoch("2026-11-22T12:40:00Z"), "b");
    git.commit("main", epoch("2026-11-22T12:50:00Z"), "c");
    let v = resume_json(&p, "2026-11-22T13:00:00Z");
    let d = &v["checkpoint"]["divergence"];
    assert_eq!(
        (d["commits"].as_u64(), d["basis"].as_str()),
        (Some(3), Some("head"))
    );
    assert!(
        warnings(&v)
            .contains(&"Branch 'main' has 3 new commits since state was saved.".to_string())
    );

    // Without a recorded head: commits after `updated` (what `git log --since` counts).
    let text = p
        .read(FILE)
        .replace(&format!("head: {}", d_head(&p)), "head: \"\"");
    p.write(FILE, text);
    let v = resume_json(&p, "2026-11-22T13:00:00Z");
    assert_eq!(v["checkpoint"]["divergence"]["basis"], "time");
    assert_eq!(v["checkpoint"]["divergence"]["commits"], 3);
}

fn d_head(p: &Project) -> String {
    let text = p.read(FILE);
    text.lines()
        .find_map(|l| l.strip_prefix("head: "))
        .unwrap()
        .to_string()
}

#[test]
fn rewritten_and_deleted_branches_warn() {
    let (p, git) = repo();
    git.commit("feat/x", epoch("2026-11-21T00:00:00Z"), "x");
    p.ok("", &["checkpoint", "save", PLAN, "--branch", "feat/x"]);
    let saved = p.read(FILE);
    let head = d_head(&p);
    // The recorded head exists but is not on the branch any more: rewritten, for sure.
    let elsewhere = git.commit("other", epoch("2026-11-20T00:00:00Z"), "other");
    p.write(FILE, saved.replace(&head, &elsewhere));
    let v = resume_json(&p, NOW);
    assert_eq!(v["checkpoint"]["divergence"]["rewritten"], true);
    assert!(
        warnings(&v)
            .contains(&"Branch 'feat/x' was rewritten since the checkpoint was saved".to_string())
    );
    // A recorded head this clone does not have (shallow clone, missing objects): unknown,
    // never a wrong "rewritten" (SPEC §9).
    p.write(
        FILE,
        saved.replace(&head, "1111111111111111111111111111111111111111"),
    );
    let v = resume_json(&p, NOW);
    assert_eq!(v["checkpoint"]["divergence"]["rewritten"], Value::Null);
    assert!(
        warnings(&v)
            .iter()
            .any(|w| w.starts_with("cannot tell whether branch 'feat/x' was rewritten")),
        "{v}"
    );
    p.write(FILE, saved.replace(&head, &elsewhere));

    git.repo
        .find_branch("feat/x", git2::BranchType::Local)
        .unwrap()
        .delete()
        .unwrap();
    let v = resume_json(&p, NOW);
    assert_eq!(v["checkpoint"]["divergence"]["branch_exists"], false);
    assert!(warnings(&v).contains(&"Branch 'feat/x' no longer exists".to_string()));
}

#[test]
fn seed004_5_8_the_checkpoint_is_not_in_git_status_after_gitignore() {
    let (p, git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let dirty = |git: &Git| {
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true).include_ignored(false);
        git.repo
            .statuses(Some(&mut opts))
            .unwrap()
            .iter()
            .any(|s| s.path().ok() == Some(FILE))
    };
    assert!(dirty(&git), "shows before");
    let out = p.run("", &["gitignore", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    p.ok("", &["gitignore"]);
    assert!(!dirty(&git), "gone after megg gitignore");
    p.ok("", &["gitignore", "--check"]);
    // Locks live under .git, so they never show either.
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let shown: Vec<String> = git
        .repo
        .statuses(Some(&mut opts))
        .unwrap()
        .iter()
        .filter_map(|s| s.path().ok().map(String::from))
        .collect();
    assert!(shown.iter().all(|s| !s.contains("lock")), "{shown:?}");
}

#[test]
fn gitignore_twice_leaves_one_block_and_every_other_byte() {
    let (p, _git) = repo();
    let original = "target/\r\n# mine\n*.log"; // mixed endings, no final newline
    p.write(".gitignore", original);
    let v = p.json("", &["gitignore", "--json"]);
    assert_eq!(v["changed"], true);
    assert_eq!(v["ignored"], true);
    assert_eq!(v["added"].as_array().unwrap().len(), 3);
    let once = p.read(".gitignore");
    assert!(once.starts_with(original));
    let v = p.json("", &["gitignore", "--json"]);
    assert_eq!(v["changed"], false);
    assert_eq!(v["added"], serde_json::json!([]));
    assert_eq!(p.read(".gitignore"), once);
    assert_eq!(once.matches("# megg:").count(), 1);
    assert!(p.ok("", &["gitignore"]).contains("nothing changed"));
}

#[test]
fn gitignore_check_honours_global_excludes() {
    let (p, _git) = repo();
    let home = p.mkdir("home");
    std::fs::write(home.join(".gitignore_global"), ".*.local.md\n").unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        format!(
            "[core]\n\texcludesFile = {}\n",
            home.join(".gitignore_global").display()
        ),
    )
    .unwrap();
    let out = p
        .megg("")
        .env("HOME", &home)
        .args(["gitignore", "--check", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(crate::stdout_json(&out)["ignored"], true);
    assert!(!p.path(".gitignore").exists(), "--check changes nothing");
}

#[test]
fn save_same_plan_updates_in_place() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let text = p
        .read(FILE)
        .replace("phase: plan-complete\n", "phase: review\nowner: me\n")
        .replace("- [ ] Branch created", "- [x] Branch created");
    p.write(FILE, text);
    let v = json_at(
        &p,
        "2026-11-23T00:00:00Z",
        &["checkpoint", "save", PLAN, "--json"],
    );
    assert_eq!(v["created"], false);
    assert!(warnings(&v).iter().any(|w| w.contains("backwards")), "{v}");
    let after = p.read(FILE);
    assert!(after.contains(&format!("started: {NOW}\n")));
    assert!(after.contains("updated: 2026-11-23T00:00:00Z\n"));
    assert!(after.contains("owner: me\n"));
    assert!(after.contains("- [x] Branch created"));
    assert!(after.contains("phase: plan-complete\n"));
}

#[test]
fn save_refuses_a_different_plan_with_the_same_slug_unless_forced() {
    let (p, git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let other = "notes/user-authentication-flow.md";
    p.write(other, "# other\n");
    let before = p.read(FILE);
    let out = p.run("", &["checkpoint", "save", other]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(p.read(FILE), before, "nothing written");
    p.ok("", &["checkpoint", "save", other, "--force"]);
    assert!(p.read(FILE).contains(&format!("plan_file: {other}")));
    // The replaced file's bytes are kept in quarantine.
    let q = git.repo.path().join("megg/quarantine");
    let kept: Vec<_> = std::fs::read_dir(q)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(kept, [before]);
}

#[test]
fn save_rejects_missing_and_outside_plans_and_writes_nothing() {
    let (p, _git) = repo();
    let out = p.run("", &["checkpoint", "save", "docs/plans/nope.md"]);
    assert_eq!(out.status.code(), Some(1));
    let outside = tempfile::tempdir().unwrap();
    let plan = outside.path().join("2026-01-01-feat-escape-plan.md");
    std::fs::write(&plan, "x").unwrap();
    let out = p.run("", &["checkpoint", "save", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the project root"));
    let out = p.run("", &["checkpoint", "save", "../../etc/hostname"]);
    assert_eq!(out.status.code(), Some(1));
    let local: Vec<_> = std::fs::read_dir(p.root())
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.ends_with(".local.md").then_some(n)
        })
        .collect();
    assert!(local.is_empty(), "{local:?}");
    assert!(!outside.path().join(".escape.local.md").exists());
}

#[test]
fn the_slug_table_names_the_files() {
    let (p, _git) = repo();
    for (plan, file) in [
        (
            "docs/plans/2026-03-08-001-fix-login-redirect-plan.md",
            ".login-redirect.local.md",
        ),
        (
            "plans/2026-08-13-1405-refactor-db-layer-plan.md",
            ".db-layer.local.md",
        ),
        (
            "docs/plans/2026-01-15-feat-search-plan-2.md",
            ".search-2.local.md",
        ),
        ("notes/My Big_Idea.md", ".my-big-idea.local.md"),
    ] {
        p.write(plan, "x");
        let v = p.json("", &["checkpoint", "save", plan, "--json"]);
        assert_eq!(v["checkpoint"]["file"], file);
        assert!(p.path(file).exists());
    }
}

#[test]
fn corrupt_files_are_quarantined_with_their_bytes() {
    let (p, git) = repo();
    let bad = "---\nfeature: broken\nplan_file: [unclosed\n---\n## Progress\n";
    p.write(".broken.local.md", bad);
    // list only reads.
    let v = p.json("", &["checkpoint", "list", "--json"]);
    assert_eq!(
        v["corrupt"][0]["file"],
        p.path(".broken.local.md").display().to_string()
    );
    assert!(p.path(".broken.local.md").exists());
    let v = resume_json(&p, NOW);
    let w = warnings(&v);
    assert!(
        w[0].starts_with("Checkpoint '.broken.local.md' is corrupt (invalid YAML) — moved to "),
        "{w:?}"
    );
    assert!(w[0].ends_with("; starting fresh"));
    assert_eq!(v["corrupt"][0]["file"], ".broken.local.md");
    assert!(!p.path(".broken.local.md").exists());
    let q = git.repo.path().join("megg/quarantine");
    let kept: Vec<_> = std::fs::read_dir(q)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(kept, [bad]);
}

#[test]
fn corrupt_files_outside_git_are_renamed_corrupt() {
    let p = Project::new();
    p.write(PLAN, "x");
    let bad = "---\nplan_file: \"unterminated\n---\n";
    p.write(".x.local.md", bad);
    let v = resume_json(&p, NOW);
    assert_eq!(v["corrupt"][0]["file"], ".x.local.md");
    assert_eq!(p.read(".x.local.md.corrupt"), bad);
    assert!(!p.path(".megg").exists(), "never into a .megg");
}

#[test]
fn other_plugins_files_are_left_alone() {
    let (p, _git) = repo();
    let theirs = "---\nenabled: true\n---\nsettings of another plugin\n";
    p.write(".other-plugin.local.md", theirs);
    p.write(".plain.local.md", "no frontmatter");
    let v = p.json("", &["checkpoint", "list", "--json"]);
    assert_eq!(v["checkpoints"], serde_json::json!([]));
    assert_eq!(v["ignored"].as_array().unwrap().len(), 2);
    let v = resume_json(&p, NOW);
    assert_eq!(v["status"], "none");
    assert_eq!(p.read(".other-plugin.local.md"), theirs);
    assert_eq!(p.read(".plain.local.md"), "no frontmatter");
}

#[test]
fn multiple_checkpoints_newest_first() {
    let (p, _git) = repo();
    let plans = [
        "plans/2026-01-01-feat-a-plan.md",
        "plans/2026-01-02-feat-b-plan.md",
        "plans/2026-01-03-feat-c-plan.md",
    ];
    for (i, plan) in plans.iter().enumerate() {
        p.write(plan, "x");
        let now = format!("2026-11-2{}T00:00:00Z", [1, 3, 2][i]);
        json_at(&p, &now, &["checkpoint", "save", plan, "--json"]);
    }
    let v = json_at(&p, NOW, &["checkpoint", "resume", "--json"]);
    assert_eq!(v["status"], "multiple");
    let order: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["feature"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["b", "c", "a"]);
    let v = p.json("", &["checkpoint", "list", "--json"]);
    let order: Vec<&str> = v["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["feature"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["b", "c", "a"]);
    let v = json_at(&p, NOW, &["checkpoint", "resume", "c", "--json"]);
    assert_eq!(v["status"], "found");
}

#[test]
fn no_saved_checkpoint_for_a_plan() {
    let (p, _git) = repo();
    let v = resume_json(&p, NOW);
    assert_eq!(v["status"], "none");
    assert!(v["checkpoint"].is_null());
    assert_eq!(
        v["message"],
        format!("No saved checkpoint for {PLAN}; starting fresh")
    );
    let out = p.ok("", &["checkpoint", "resume", PLAN]);
    assert!(out.starts_with("No saved checkpoint for"));
}

#[test]
fn plan_file_gone_offers_a_new_path() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    std::fs::remove_file(p.path(PLAN)).unwrap();
    let v = resume_json(&p, NOW);
    assert_eq!(v["checkpoint"]["plan_exists"], false);
    assert!(warnings(&v).contains(&format!("Plan file not found: {PLAN}")));
    assert_eq!(
        option_ids(&v),
        [
            ("fresh".into(), true),
            ("new-path".into(), false),
            ("view".into(), false)
        ]
    );
    let moved = "docs/plans/moved-plan.md";
    p.write(moved, "x");
    let v = json_at(
        &p,
        NOW,
        &[
            "checkpoint",
            "resume",
            "user-authentication-flow",
            "--choice",
            "resume",
            "--plan-file",
            moved,
            "--json",
        ],
    );
    assert_eq!(v["action"], "resumed");
    assert_eq!(v["checkpoint"]["plan_file"], moved);
    assert!(p.read(FILE).contains(&format!("plan_file: {moved}\n")));
}

#[test]
fn phase_mismatch_warns_but_never_blocks() {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN, "--phase", "review"]);
    let v = json_at(
        &p,
        NOW,
        &["checkpoint", "resume", PLAN, "--for", "work", "--json"],
    );
    assert!(
        warnings(&v).contains(
            &"Checkpoint shows phase 'review'. You may want /workflows:review".to_string()
        )
    );
    assert_eq!(v["status"], "found");
    let v = json_at(
        &p,
        NOW,
        &["checkpoint", "resume", PLAN, "--for", "review", "--json"],
    );
    assert!(!warnings(&v).iter().any(|w| w.contains("You may want")));
}

#[test]
fn update_changes_phase_branch_and_items() {
    let (p, git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let tip = git.commit("feat/auth", epoch("2026-11-22T11:00:00Z"), "branch");
    let v = json_at(
        &p,
        "2026-11-22T12:30:00Z",
        &[
            "checkpoint",
            "update",
            "user-authentication-flow",
            "--phase",
            "work",
            "--branch",
            "feat/auth",
            "--check",
            "branch",
            "--check",
            "IMPL",
            "--json",
        ],
    );
    let c = &v["checkpoint"];
    assert_eq!(c["phase"], "work");
    assert_eq!(c["branch"], "feat/auth");
    assert_eq!(c["head"], tip.as_str());
    assert_eq!(c["progress"]["done"], 3);
    assert_eq!(c["updated"], "2026-11-22T12:30:00Z");
    let out = p.run(
        "",
        &[
            "checkpoint",
            "update",
            "user-authentication-flow",
            "--check",
            "deploy",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'Tests passing'"), "lists the items: {err}");
    let v = p.json(
        "",
        &[
            "checkpoint",
            "update",
            PLAN,
            "--uncheck",
            "implementation",
            "--json",
        ],
    );
    assert_eq!(v["checkpoint"]["progress"]["done"], 2);
    let v = p.json(
        "",
        &["checkpoint", "show", "user-authentication-flow", "--json"],
    );
    assert_eq!(v["text"], p.read(FILE));
}

/// Two agents checking different items at once: both always land. The first update is held
/// between reading the checkpoint and putting its new text in place (the `hold=` failure
/// point) until the second has asked for the lock; [`concurrent_updates_lose_an_item_without_the_lock`]
/// runs the same with the lock switched off and sees an item lost. Then rounds of two free
/// updates at once.
#[test]
fn concurrent_updates_never_lose_an_item() {
    let (lost, waited) = overlapping_updates(true);
    assert_eq!(lost, None);
    assert!(
        waited,
        "the second update never waited for the first one's lock"
    );
    assert_eq!(concurrent_updates(8), Ok(()));
}

/// The test above can fail: with `no-lock`, both updates read the same file and the second
/// write drops the first one's item.
#[test]
fn concurrent_updates_lose_an_item_without_the_lock() {
    let (lost, waited) = overlapping_updates(false);
    assert!(!waited);
    assert!(lost.is_some_and(|l| l.contains("lost")));
}

/// `megg checkpoint update --check ITEM` as a process.
fn update(p: &Project, item: &str, failpoints: &str) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("megg"))
        .args([
            "checkpoint",
            "update",
            "user-authentication-flow",
            "--check",
            item,
        ])
        .current_dir(p.root())
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", "")
        .env("MEGG_FAILPOINTS", failpoints)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// An item the checkpoint lost, if any.
fn lost_item(p: &Project) -> Option<String> {
    let text = p.read(FILE);
    ["- [x] Tests passing", "- [x] Review complete"]
        .into_iter()
        .find(|item| !text.contains(item))
        .map(|item| format!("lost {item:?}:\n{text}"))
}

/// Two updates, the first held inside its read-modify-write until the second has waited for
/// the lock (or, without one, ended); an item lost, and whether the second waited.
fn overlapping_updates(lock: bool) -> (Option<String>, bool) {
    let (p, _git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let hold = crate::capture::Hold::new();
    let off = if lock { "" } else { ",no-lock" };
    let mut first = update(&p, "Tests passing", &format!("{}{off}", hold.at(FILE)));
    let first_done = std::thread::spawn(move || first.wait().unwrap());
    hold.wait_held(&first_done);
    let mut second = update(&p, "Review complete", &format!("{}{off}", hold.log()));
    let second_done = std::thread::spawn(move || second.wait().unwrap());
    let waited = hold.wait_second(&second_done, FILE);
    hold.release();
    assert!(first_done.join().unwrap().success());
    assert!(second_done.join().unwrap().success());
    (lost_item(&p), waited)
}

/// `rounds` of two concurrent `checkpoint update --check`; `Err` names a lost item.
fn concurrent_updates(rounds: usize) -> Result<(), String> {
    let (p, _git) = repo();
    for round in 0..rounds {
        std::fs::remove_file(p.path(FILE)).ok();
        p.ok("", &["checkpoint", "save", PLAN]);
        let (mut a, mut b) = (
            update(&p, "Tests passing", ""),
            update(&p, "Review complete", ""),
        );
        assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
        if let Some(lost) = lost_item(&p) {
            return Err(format!("round {round}: {lost}"));
        }
    }
    Ok(())
}

#[test]
fn linked_worktrees_find_the_main_checkpoints() {
    let (p, git) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let wt = p.path("wt");
    git.repo.worktree("wt", &wt, None).unwrap();
    let out = p
        .megg("wt")
        .args(["checkpoint", "list", "--json"])
        .output()
        .unwrap();
    let v = crate::stdout_json(&out);
    assert_eq!(v["checkpoints"][0]["file"], FILE);
    let root = std::fs::canonicalize(v["checkpoints"][0]["root"].as_str().unwrap()).unwrap();
    assert_eq!(root, std::fs::canonicalize(p.root()).unwrap());
}

#[test]
fn outside_git_the_project_root_is_the_starting_directory() {
    let p = Project::new();
    p.write("plan.md", "x");
    let out = p.ok("", &["checkpoint", "save", "plan.md"]);
    assert!(out.contains("(not in a git repository)"), "{out}");
    assert!(p.path(".plan.local.md").exists());
}

/// Issue 38 item 7: what megg says about a workflow checkpoint called it "state", next to
/// `state.md`, which is another file. Every message of its own says "checkpoint"; only the two
/// seed 004 prescribes word for word keep "state" ("This state is N days old and may be
/// outdated", "Branch 'B' has N new commits since state was saved.").
#[test]
fn checkpoint_messages_say_checkpoint_not_state() {
    let (p, git) = repo();
    let said = |v: &Value| -> Vec<String> {
        let mut all = warnings(v);
        all.extend(v["message"].as_str().map(str::to_string));
        for o in v["options"].as_array().into_iter().flatten() {
            all.push(o["description"].as_str().unwrap().to_string());
        }
        all
    };
    let seed_prescribed = |m: &str| {
        m.starts_with("This state is ") && m.ends_with(" days old and may be outdated")
            || m.contains(" since state was saved.")
    };
    let mut messages = Vec::new();
    // Nothing saved, with and without a target.
    messages.extend(said(&resume_json(&p, NOW)));
    messages.extend(said(&json_at(&p, NOW, &["checkpoint", "resume", "--json"])));
    let out = at(&p, NOW, &["checkpoint", "resume", PLAN]);
    messages.push(String::from_utf8_lossy(&out.stdout).into_owned());
    // A corrupt one.
    p.write(".broken.local.md", "---\nfeature: b\nplan_file: [x\n---\n");
    messages.extend(said(&resume_json(&p, NOW)));
    // Saved on a rewritten branch, asked by another command, its plan gone, no `updated`.
    git.commit("feat/x", epoch("2026-11-21T00:00:00Z"), "x");
    p.ok(
        "",
        &[
            "checkpoint",
            "save",
            PLAN,
            "--branch",
            "feat/x",
            "--phase",
            "review",
        ],
    );
    let head = d_head(&p);
    let elsewhere = git.commit("other", epoch("2026-11-20T00:00:00Z"), "other");
    let text = p.read(FILE).replace(&head, &elsewhere);
    p.write(FILE, &text);
    messages.extend(said(&resume_json(&p, NOW)));
    std::fs::remove_file(p.path(PLAN)).unwrap();
    let no_updated: String = text
        .lines()
        .filter(|l| !l.starts_with("updated:"))
        .map(|l| format!("{l}\n"))
        .collect();
    p.write(FILE, no_updated);
    let v = resume_json(&p, NOW);
    messages.extend(said(&v));
    let out = at(&p, NOW, &["checkpoint", "resume", PLAN, "--for", "work"]);
    messages.push(String::from_utf8_lossy(&out.stdout).into_owned());
    messages.push(String::from_utf8_lossy(&out.stderr).into_owned());

    let all = messages.join("\n");
    for needed in [
        "No saved checkpoint; starting fresh",
        &format!("No saved checkpoint for {PLAN}; starting fresh"),
        "Checkpoint '.broken.local.md' is corrupt (invalid YAML) — moved to ",
        "Branch 'feat/x' was rewritten since the checkpoint was saved",
        "Checkpoint shows phase 'review'. You may want /workflows:review",
        &format!("This checkpoint has no valid `updated` time ('{FILE}') and may be outdated"),
        "View the checkpoint before deciding",
        "Point the checkpoint at the plan's new location",
    ] {
        assert!(all.contains(needed), "{needed:?} in:\n{all}");
    }
    for line in all.lines() {
        let words = line.to_lowercase();
        let state_word = words
            .split(|c: char| !c.is_alphanumeric() && c != '.' && c != '_')
            .any(|w| w == "state");
        assert!(
            !state_word || seed_prescribed(line.trim_start_matches("warning: ")),
            "says 'state' about a checkpoint: {line:?}"
        );
    }
}

/// Issue 38 item 7: `megg context` warns when `state.md` was saved on another branch, but
/// resuming a checkpoint saved on another branch said nothing.
#[test]
fn resuming_a_checkpoint_saved_on_another_branch_warns() {
    let (p, git) = repo();
    git.commit("feat/auth", epoch("2026-11-21T00:00:00Z"), "auth");
    p.ok("", &["checkpoint", "save", PLAN, "--branch", "feat/auth"]);
    let expected =
        "Checkpoint was saved on branch 'feat/auth' but 'main' is checked out".to_string();
    // JSON, when only asked.
    let v = resume_json(&p, NOW);
    assert!(warnings(&v).contains(&expected), "{:?}", warnings(&v));
    // Text: on stderr, as every warning.
    let out = at(&p, NOW, &["checkpoint", "resume", PLAN, "--for", "work"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("warning: {expected}\n")), "{err}");
    // Resuming anyway still says so, once.
    let v = json_at(
        &p,
        NOW,
        &["checkpoint", "resume", PLAN, "--choice", "resume", "--json"],
    );
    assert_eq!(v["action"], "resumed");
    assert_eq!(
        warnings(&v).iter().filter(|w| **w == expected).count(),
        1,
        "{v}"
    );
    // On its own branch: no such warning.
    git.checkout("feat/auth");
    let v = resume_json(&p, NOW);
    assert!(
        !warnings(&v).iter().any(|w| w.contains("is checked out")),
        "{:?}",
        warnings(&v)
    );
    // A detached HEAD is on no branch at all.
    let tip = git
        .repo
        .find_reference("refs/heads/feat/auth")
        .unwrap()
        .target()
        .unwrap();
    git.repo.set_head_detached(tip).unwrap();
    let v = resume_json(&p, NOW);
    assert!(
        warnings(&v).contains(
            &"Checkpoint was saved on branch 'feat/auth' but no branch is checked out (detached HEAD)"
                .to_string()
        ),
        "{:?}",
        warnings(&v)
    );
    // A checkpoint without a branch names none to compare.
    git.checkout("main");
    p.ok("", &["checkpoint", "save", PLAN, "--branch", ""]);
    let v = resume_json(&p, NOW);
    assert!(
        !warnings(&v)
            .iter()
            .any(|w| w.contains("was saved on branch")),
        "{:?}",
        warnings(&v)
    );
}
