//! Issue 14, "the workflow from a newcomer's chair": each failure a new user hit, as a test
//! named after it. Each failed on the code as it was when the issue was taken up.

use serde_json::Value;

use crate::{Git, NOW, Project, epoch};

const PLAN: &str = "docs/plans/2026-01-15-feat-user-auth-plan.md";

fn repo() -> (Project, Git) {
    let p = Project::new();
    let git = Git::init(p.root(), "main");
    git.commit("main", epoch(NOW) - 7200, "init");
    p.write(PLAN, "# User auth\n");
    (p, git)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn resume_choice_fresh_with_several_checkpoints_and_no_target_is_an_error_naming_them() {
    let (p, _) = repo();
    p.write("docs/plans/2026-01-16-feat-billing-plan.md", "# Billing\n");
    p.ok("", &["checkpoint", "save", PLAN]);
    p.ok(
        "",
        &[
            "checkpoint",
            "save",
            "docs/plans/2026-01-16-feat-billing-plan.md",
        ],
    );
    let out = p.run(
        "",
        &["checkpoint", "resume", "--for", "work", "--choice", "fresh"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "it used to do nothing and exit 0"
    );
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("error: --choice fresh needs one checkpoint, and there are 2: "),
        "{err}"
    );
    assert!(
        err.contains("user-auth") && err.contains("billing"),
        "{err}"
    );
    assert!(err.contains("--for work --choice fresh"), "{err}");
    // Nothing was deleted.
    assert_eq!(
        p.json("", &["checkpoint", "list", "--json"])["checkpoints"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn printed_follow_up_commands_keep_the_callers_for() {
    let (p, _) = repo();
    p.ok("", &["checkpoint", "save", PLAN]);
    let text = p.ok("", &["checkpoint", "resume", "--for", "work"]);
    assert!(
        text.contains("megg checkpoint resume user-auth --for work --choice resume"),
        "{text}"
    );
    p.write("docs/plans/2026-01-16-feat-billing-plan.md", "# Billing\n");
    p.ok(
        "",
        &[
            "checkpoint",
            "save",
            "docs/plans/2026-01-16-feat-billing-plan.md",
        ],
    );
    let v = p.json("", &["checkpoint", "resume", "--for", "review", "--json"]);
    assert_eq!(v["status"], "multiple");
    let text = p.ok("", &["checkpoint", "resume", "--for", "review"]);
    assert!(
        text.contains("`megg checkpoint resume <slug> --for review`"),
        "{text}"
    );
}

#[test]
fn save_from_a_subdirectory_names_the_plan_path_that_works() {
    let (p, _) = repo();
    p.mkdir("src/api");
    let out = p.run("src/api", &["checkpoint", "save", PLAN]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains(&format!("hint: plan paths are relative to where megg runs; it exists relative to the project root: use ../../{PLAN}")), "{err}");
    // …and that path works.
    p.ok("src/api", &["checkpoint", "save", &format!("../../{PLAN}")]);
}

#[test]
fn outside_git_save_never_advises_a_gitignore_that_cannot_help() {
    let p = Project::new();
    p.write(PLAN, "# User auth\n");
    let first = p.ok("", &["checkpoint", "save", PLAN]);
    assert_eq!(
        first,
        "Progress saved to .user-auth.local.md (not in a git repository)\n"
    );
    p.ok("", &["gitignore"]);
    assert_eq!(p.ok("", &["checkpoint", "save", PLAN]), first);
    assert_eq!(
        p.json("", &["checkpoint", "save", PLAN, "--json"])["gitignored"],
        false
    );
}

#[test]
fn outside_git_without_a_cache_directory_no_lock_file_is_left_in_the_project() {
    let p = Project::new();
    p.write(PLAN, "# User auth\n");
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = p
            .megg("")
            .env("MEGG_CACHE_DIR", "")
            .env("TMPDIR", tmp.path())
            .env_remove("XDG_RUNTIME_DIR")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    run(&["checkpoint", "save", PLAN]);
    run(&["gitignore"]);
    run(&[
        "checkpoint",
        "update",
        "user-auth",
        "--check",
        "Plan created",
    ]);
    let mut names: Vec<String> = std::fs::read_dir(p.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".gitignore", ".user-auth.local.md", "docs"]);
}

#[test]
fn doctor_calls_a_project_without_megg_unhealthy_and_says_megg_init() {
    let (p, _) = repo();
    let out = p.run("", &["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = crate::doctor_check(&v, "domain");
    assert_eq!(c["ok"], false);
    assert_eq!(c["fix"], "megg init");
    p.ok("", &["init"]);
    let v: Value = serde_json::from_slice(&p.run("", &["doctor", "--json"]).stdout).unwrap();
    assert_eq!(crate::doctor_check(&v, "domain")["ok"], true);
}

#[test]
fn doctor_after_user_scope_setup_suggests_the_user_scope_mcp_fix() {
    let (p, _) = repo();
    // HOME outside the project, as it is for everyone.
    let home = tempfile::tempdir().unwrap();
    let setup = p
        .megg("")
        .env("HOME", home.path())
        .env("PATH", "/usr/bin:/bin")
        .args(["setup", "--scope", "user"])
        .output()
        .unwrap();
    assert!(setup.status.success(), "{}", stderr(&setup));
    let out = p
        .megg("")
        .env("HOME", home.path())
        .env("PATH", "/usr/bin:/bin")
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mcp = crate::doctor_check(&v, "mcp");
    assert_eq!(mcp["ok"], false);
    let fix = mcp["fix"].as_str().unwrap();
    assert!(
        fix.starts_with("claude mcp add --scope user megg -- /") && fix.ends_with(" mcp"),
        "{fix}"
    );
}

#[test]
fn one_new_commit_is_one_new_commit() {
    let (p, git) = repo();
    p.ok("", &["checkpoint", "save", PLAN, "--branch", "main"]);
    git.commit("main", epoch(NOW) - 60, "one more");
    let v = p.json("", &["checkpoint", "resume", PLAN, "--json"]);
    let w: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        w.contains(&"Branch 'main' has 1 new commit since state was saved."),
        "{w:?}"
    );
}

#[test]
fn a_branch_that_never_existed_is_not_reported_as_one_that_no_longer_exists() {
    let (p, _) = repo();
    p.ok("", &["checkpoint", "save", PLAN, "--branch", "feat/typo"]);
    let v = p.json("", &["checkpoint", "resume", PLAN, "--json"]);
    let w = v["warnings"].to_string();
    assert!(w.contains("Branch 'feat/typo' not found"), "{w}");
    assert!(!w.contains("no longer exists"), "{w}");
    assert_eq!(v["checkpoint"]["divergence"]["branch_exists"], Value::Null);
}

#[test]
fn context_json_help_says_it_is_the_hook_document_and_points_to_format_json() {
    let p = Project::new();
    let help = p.ok("", &["context", "--help"]);
    let after: String = help
        .split("--json")
        .nth(2)
        .unwrap_or_default()
        .chars()
        .take(200)
        .collect();
    assert!(
        after.contains("SessionStart hook document") && after.contains("use --format json"),
        "{help}"
    );
}

#[test]
fn completions_load_in_a_real_bash_and_name_every_command() {
    let p = Project::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = p.ok("", &["completions", shell]);
        assert!(
            script.contains("checkpoint") && script.contains("capture"),
            "{shell}"
        );
    }
    let script = p.path("megg.bash");
    std::fs::write(&script, p.ok("", &["completions", "bash"])).unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {}; complete -p megg; COMP_WORDS=(megg chec); COMP_CWORD=1; _megg megg chec megg; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("-F _megg megg") && stdout.lines().any(|l| l == "checkpoint"),
        "{stdout}{}",
        stderr(&out)
    );
}

#[test]
fn the_man_page_documents_every_command() {
    let p = Project::new();
    let man = p.ok("", &["man"]);
    assert!(
        man.starts_with(".ie") && man.contains(".TH megg 1"),
        "{man}"
    );
    for command in [
        "context",
        "state",
        "checkpoint",
        "gitignore",
        "learn",
        "init",
        "maintain",
        "setup",
        "doctor",
        "trust",
        "capture",
        "completions",
        "mcp",
    ] {
        assert!(
            man.contains(&format!("megg\\-{command}")) || man.contains(command),
            "{command}"
        );
    }
}

fn save_at(p: &Project, plan: &str, now: &str) {
    p.write(plan, "# Plan\n");
    let out = p
        .megg("")
        .env("MEGG_NOW", now)
        .args(["checkpoint", "save", plan])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn prune_lists_then_deletes_abandoned_checkpoints_and_never_corrupt_or_foreign_files() {
    let (p, _) = repo();
    save_at(&p, "docs/plans/old.md", "2026-10-01T12:00:00Z"); // 52 days before NOW
    save_at(&p, "docs/plans/mid.md", "2026-11-12T12:00:00Z"); // 10 days
    save_at(&p, "docs/plans/new.md", "2026-11-22T11:00:00Z");
    p.write(
        ".broken.local.md",
        "---\nfeature: broken\nplan_file: [oops\n---\n",
    );
    p.write(
        ".other.local.md",
        "---\nsomething: else\n---\nanother plugin's file\n",
    );
    let v = p.json("", &["checkpoint", "prune", "--dry-run", "--json"]);
    let files: Vec<&str> = v["pruned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, [".old.local.md"]);
    assert_eq!(v["dry_run"], true);
    assert!(
        p.path(".old.local.md").exists(),
        "a dry run deletes nothing"
    );
    let text = p.ok("", &["checkpoint", "prune"]);
    assert!(
        text.starts_with(
            "Deleted 1 checkpoint abandoned (over 30 days old):\n  .old.local.md  'old'"
        ),
        "{text}"
    );
    assert!(!p.path(".old.local.md").exists());
    p.ok("", &["checkpoint", "prune", "--older-than", "5"]);
    assert!(!p.path(".mid.local.md").exists());
    assert!(p.path(".new.local.md").exists());
    assert!(p.path(".broken.local.md").exists() && p.path(".other.local.md").exists());
    assert_eq!(
        p.ok("", &["checkpoint", "prune"]),
        "No checkpoints abandoned (over 30 days old); nothing to prune\n"
    );
}

#[test]
fn quarantine_lists_where_files_came_from_and_restores_only_a_fixed_one() {
    let (p, _) = repo();
    p.write(
        ".broken.local.md",
        "---\nfeature: broken\nplan_file: [oops\n---\n",
    );
    p.json("", &["checkpoint", "resume", "--json"]); // discovery quarantines it
    assert!(!p.path(".broken.local.md").exists());
    let v = p.json("", &["checkpoint", "quarantine", "--json"]);
    let q = &v["quarantined"][0];
    let name = q["name"].as_str().unwrap().to_string();
    assert!(name.starts_with(".broken.local.md."), "{name}");
    assert_eq!(
        q["origin"],
        p.path(".broken.local.md").display().to_string()
    );
    assert!(
        q["still_corrupt"]
            .as_str()
            .unwrap()
            .contains("invalid YAML")
    );
    let text = p.ok("", &["checkpoint", "quarantine"]);
    assert!(
        text.contains(&format!(
            "fix it in place, then: megg checkpoint quarantine --restore {name}"
        )),
        "{text}"
    );
    // Still corrupt: never silently restored.
    let out = p.run("", &["checkpoint", "quarantine", "--restore", &name]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is still not a readable checkpoint"),
        "{}",
        stderr(&out)
    );
    assert!(!p.path(".broken.local.md").exists());
    // Fixed: restored where it came from, never over a file that is there now.
    let path = q["path"].as_str().unwrap();
    std::fs::write(
        path,
        "---\nfeature: broken\nplan_file: docs/plans/b.md\n---\n",
    )
    .unwrap();
    p.write(".broken.local.md", "new one");
    let out = p.run("", &["checkpoint", "quarantine", "--restore", &name]);
    assert!(
        stderr(&out).contains("exists; nothing restored"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(p.path(".broken.local.md")).unwrap();
    assert_eq!(
        p.ok("", &["checkpoint", "quarantine", "--restore", &name]),
        format!(
            "Restored {name} to {}\n",
            p.path(".broken.local.md").display()
        )
    );
    assert!(
        p.read(".broken.local.md")
            .contains("plan_file: docs/plans/b.md")
    );
    assert_eq!(
        p.ok("", &["checkpoint", "quarantine"]),
        "Nothing in quarantine\n"
    );
    // A name that is not in quarantine: a clear error, nothing moved.
    let out = p.run(
        "",
        &[
            "checkpoint",
            "quarantine",
            "--restore",
            "../.broken.local.md",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("error: nothing named '../.broken.local.md' is in quarantine")
            && err.contains("hint: run `megg checkpoint quarantine` to list what is"),
        "{err}"
    );
    assert!(p.path(".broken.local.md").exists());
}

// ------------------------------------------------------------------------------------------
// Issue 38: knowledge commands from a newcomer's chair (items 3, 5, 6 and 7's learn parts).

/// A git project with a domain at its root (its `info.md` committed nowhere).
fn knowledge_repo() -> Project {
    let p = Project::new();
    Git::init(p.root(), "main");
    p.domain("", "Shop");
    p
}

fn headings(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("## ")).count()
}

#[test]
fn learn_file_with_two_entries_writes_each_as_its_own_entry() {
    let p = knowledge_repo();
    p.write(
        "two.md",
        "## 2026-01-17 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\nTokens never reach JavaScript.\n\n## 2026-01-18 - Retry flaky uploads\n**Type:** gotcha\n**Topics:** uploads\n\nThe CDN drops one upload in fifty.\n",
    );
    let text = p.ok("", &["learn", "--file", "two.md"]);
    assert!(
        text.contains("Use JWT in httpOnly cookies") && text.contains("Retry flaky uploads"),
        "{text}"
    );
    let file = p.read(".megg/knowledge.md");
    let v = p.json("", &["maintain", "--json"]);
    assert_eq!(
        v["domains"][0]["entries"],
        headings(&file),
        "it glued the second entry onto the first: {file}"
    );
    assert_eq!(v["domains"][0]["entries"], 2, "{file}");
    // Each keeps its own type and topics, dated today like any learned entry.
    assert!(
        file.contains(
            "## 2026-11-22 - Retry flaky uploads\n**Type:** gotcha\n**Topics:** uploads\n"
        ),
        "{file}"
    );
    assert!(
        file.contains("**Topics:** auth, security\n\nTokens never reach JavaScript.\n\n---\n"),
        "{file}"
    );
    // `--json` lists every entry written (`entry` stays the first, as SPEC §6 has it).
    p.write(
        "two-more.md",
        "## Cache invoices\n**Type:** pattern\n**Topics:** billing\n\nA.\n\n## Cache refunds\n**Type:** pattern\n**Topics:** billing\n\nB.\n",
    );
    let v = p.json("", &["learn", "--file", "two-more.md", "--json"]);
    assert_eq!(v["entry"]["title"], "Cache invoices", "{v}");
    let titles: Vec<&str> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Cache invoices", "Cache refunds"], "{v}");
}

#[test]
fn learn_file_with_two_entries_writes_nothing_when_one_is_incomplete() {
    let p = knowledge_repo();
    p.write(
        "two.md",
        "## 2026-01-17 - Use JWT\n**Type:** decision\n**Topics:** auth\n\nWhy.\n\n## 2026-01-18 - Retry uploads\n**Topics:** uploads\n\nNo type here.\n",
    );
    let out = p.run("", &["learn", "--file", "two.md"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error:") && err.contains("Retry uploads") && err.contains("hint:"),
        "{err}"
    );
    assert!(!p.path(".megg/knowledge.md").exists());
}

#[test]
fn learn_a_title_already_known_warns_naming_the_entry_and_still_writes() {
    let p = knowledge_repo();
    p.write(
        ".megg/knowledge.md",
        "---\ntype: knowledge\n---\n# Knowledge\n\n---\n\n## 2026-01-17 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth\n\nWhy.\n",
    );
    let out = p.run(
        "",
        &[
            "learn",
            "  use JWT in   HTTPONLY cookies ",
            "fact",
            "auth",
            "Again.",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains("warning:")
            && err.contains("2026-01-17")
            && err.contains("Use JWT in httpOnly cookies"),
        "no word about the entry it repeats: {err}"
    );
    assert_eq!(headings(&p.read(".megg/knowledge.md")), 2);
    // The JSON document carries it too.
    let v = p.json(
        "",
        &[
            "learn",
            "Use JWT in httpOnly cookies",
            "fact",
            "auth",
            "Thrice.",
            "--json",
        ],
    );
    assert!(v["warnings"].to_string().contains("2026-01-17"), "{v}");
}

#[test]
fn learn_says_the_entrys_tokens_and_labels_the_files_total() {
    let p = knowledge_repo();
    p.write(".megg/knowledge.md", crate::knowledge_file(3_000));
    let text = p.ok("", &["learn", "Small", "fact", "x", "One line."]);
    let total = crate::reference_tokens(&p.read(".megg/knowledge.md"));
    assert!(
        !text.contains(&format!("({total} tokens)")),
        "the file's size reads as the entry's: {text}"
    );
    assert!(
        text.contains(&format!("{total} tokens in all")),
        "the file's total, labelled: {text}"
    );
    let entry = text
        .split("(fact, ")
        .nth(1)
        .and_then(|r| r.split(" tokens)").next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no entry token count: {text}"));
    assert!((5..60).contains(&entry), "{text}");
}

#[test]
fn learn_and_maintain_state_the_context_thresholds_alike() {
    let p = knowledge_repo();
    p.write(".megg/knowledge.md", crate::knowledge_file(13_000));
    let out = p.run("", &["learn", "One more", "fact", "x", "c"]);
    let learn = stderr(&out);
    let maintain = p.ok("", &["maintain"]);
    for said in [&learn, &maintain] {
        assert!(
            said.contains("8000")
                && said.contains("summary")
                && said.contains("16000")
                && said.contains("maintenance is due past 12000"),
            "learn and maintain must name the same thresholds, with what they do:\nlearn: {learn}\nmaintain: {maintain}"
        );
    }
}

#[test]
fn maintain_says_1_entry() {
    let p = knowledge_repo();
    p.ok("", &["learn", "Only", "fact", "x", "One."]);
    let text = p.ok("", &["maintain"]);
    assert!(text.contains(": 1 entry, "), "{text}");
}

#[test]
fn init_force_keeps_a_backup_of_the_info_it_replaces() {
    let p = knowledge_repo();
    p.write(
        ".megg/info.md",
        "# Shop\n\nHand-written notes nobody else has.\n",
    );
    let text = p.ok("", &["init", "--force"]);
    let backup = p.path(".git/megg/backups/.megg__info.md.20261122T120000Z");
    assert!(
        backup.exists(),
        "no backup like setup's (.git/megg/backups/<path>.<time>): {text}"
    );
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        "# Shop\n\nHand-written notes nobody else has.\n"
    );
    assert!(text.contains(backup.to_str().unwrap()), "say where: {text}");
    let v = p.json("", &["init", "--force", "--json"]);
    assert_eq!(v["created"], false);
}

#[test]
fn show_of_only_unknown_ids_is_an_error_with_a_hint() {
    let p = knowledge_repo();
    let out = p.run("", &["show", "kzzzzzzz"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.starts_with("error: ") && err.contains("kzzzzzzz"),
        "only a warning: {err}"
    );
    assert!(
        err.contains("hint: ") && err.contains("megg search"),
        "{err}"
    );
}

#[test]
fn search_for_nothing_is_an_error_with_a_hint() {
    let p = knowledge_repo();
    for query in ["", "   "] {
        let out = p.run("", &["search", query]);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains("hint: megg search"), "no hint: {err}");
    }
}

#[test]
fn capture_dry_run_of_input_that_is_not_hook_json_says_so() {
    let p = knowledge_repo();
    let out = p
        .megg("")
        .args(["capture", "--dry-run"])
        .write_stdin("garbage\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("no hook input on stdin"),
        "there was input: {text}"
    );
    assert!(
        text.contains("not") && text.contains("JSON") && text.contains("session_id"),
        "say what was expected: {text}"
    );
    assert!(text.contains("hint: "), "{text}");
}

/// Runs `args` in `p` as a user the file permissions apply to: this one, or `nobody` (through
/// `setpriv`, the tree handed to it) when the tests run as root. `None`: no such user here.
fn run_unprivileged(p: &Project, args: &[&str]) -> Option<std::process::Output> {
    if !rustix::process::geteuid().is_root() {
        return Some(p.run("", args));
    }
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|s| std::path::Path::new(s).exists())?;
    fn chown_all(dir: &std::path::Path) {
        std::os::unix::fs::lchown(dir, Some(65534), Some(65534)).unwrap();
        if dir.is_dir() && !dir.is_symlink() {
            for e in std::fs::read_dir(dir).unwrap() {
                chown_all(&e.unwrap().path());
            }
        }
    }
    chown_all(p.root());
    chown_all(p.cache.path());
    let megg = assert_cmd::cargo::cargo_bin("megg");
    // `Project::megg`'s environment, for megg started through setpriv.
    let out = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&megg)
        .args(args)
        .current_dir(p.root())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("MEGG_NOW", NOW)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("MEGG_CACHE_DIR", p.cache.path())
        .env("HOME", p.cache.path())
        .env("MEGG_CEILING_DIRS", p.root().parent().unwrap())
        .output()
        .unwrap();
    Some(out)
}

#[test]
#[allow(clippy::print_stderr)] // a skipped test says why
fn learn_in_a_read_only_checkout_says_the_directory_is_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let p = knowledge_repo();
    // The whole checkout read-only, .git included: where the lock would be made.
    fn read_only(dir: &std::path::Path) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                read_only(&path);
            }
        }
        let mode = std::fs::metadata(dir).unwrap().permissions().mode();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & !0o222)).unwrap();
    }
    read_only(p.root());
    let out = run_unprivileged(&p, &["learn", "T", "fact", "x", "Body."]);
    // Let the temp directory go.
    let _ = std::process::Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(p.root())
        .status();
    let Some(out) = out else {
        eprintln!("skipped: running as root without setpriv");
        return;
    };
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        !err.contains("locks") && !err.contains(".lock"),
        "it names a lock file: {err}"
    );
    assert!(
        err.contains(&format!("error: {} is read-only", p.root().display())),
        "{err}"
    );
    assert!(err.contains("hint: "), "{err}");
}

#[test]
fn man_lists_only_pages_it_can_print() {
    let p = Project::new();
    let man = p.ok("", &["man"]);
    let out = p.run("", &["man", "context"]);
    let printable =
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("megg\\-context");
    assert!(
        printable || !man.contains("megg\\-context(1)"),
        "`megg man` names megg-context(1), which `megg man context` cannot print: {}",
        stderr(&out)
    );
}
