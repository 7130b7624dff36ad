//! `megg setup` and `megg doctor` against real project and home directories.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::{Git, Project};

const SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]
  }
}"#;

/// Every file under `dir` with a hash of its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().display().to_string(),
                    xxhash_rust::xxh3::xxh3_64(&std::fs::read(&p).unwrap()),
                );
            }
        }
    }
    out
}

fn project() -> Project {
    let p = Project::new();
    Git::init(p.root(), "main");
    p.mkdir("home");
    p
}

fn setup(p: &Project, args: &[&str]) -> std::process::Output {
    p.megg("")
        .env("HOME", p.path("home"))
        .env("PATH", "/usr/bin:/bin")
        .args(args)
        .output()
        .unwrap()
}

/// The events megg's capture hooks are registered for (SPEC §10).
const CAPTURE_EVENTS: [&str; 4] = ["PreCompact", "PostCompact", "SessionEnd", "Stop"];

/// The project-scope capture command: a silent no-op without megg, like the SessionStart one.
const PROJECT_CAPTURE: &str = "command -v megg >/dev/null 2>&1 || exit 0; exec megg capture";

/// The entry setup adds for each capture event at project scope.
fn capture_entry() -> Value {
    json!({"hooks": [{"type": "command", "command": PROJECT_CAPTURE}]})
}

/// The entries of `event` in a settings value whose command runs megg.
fn megg_entries(settings: &Value, event: &str) -> Vec<Value> {
    settings["hooks"][event]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter(|e| e.to_string().contains("megg"))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::stdout_json(out)
}

#[test]
fn setup_merges_is_idempotent_and_uninstall_is_the_inverse() {
    let p = project();
    p.write(".claude/settings.json", SETTINGS);
    p.write(".gitignore", "target/\n");
    let original: Value = serde_json::from_str(SETTINGS).unwrap();

    let v = json_of(&setup(&p, &["setup", "--json"]));
    let actions: Vec<(String, String)> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                c["action"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        actions.contains(&("settings.json".into(), "update".into())),
        "{actions:?}"
    );
    assert!(actions.contains(&("SKILL.md".into(), "create".into())));
    assert!(actions.contains(&(".mcp.json".into(), "create".into())));

    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["model"], "opus");
    assert_eq!(settings["permissions"], original["permissions"]);
    assert_eq!(
        settings["hooks"]["Stop"][0], original["hooks"]["Stop"][0],
        "the user's Stop hook survives"
    );
    let starts = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(
        starts[0], original["hooks"]["SessionStart"][0],
        "the user's hook survives"
    );
    assert_eq!(starts[1]["matcher"], "startup|resume|clear|compact");
    assert_eq!(
        starts[1]["hooks"][0]["command"],
        "command -v megg >/dev/null 2>&1 || exit 0; exec megg context --json"
    );
    // The backup lives under .git/megg/backups/, never in the work tree (SPEC §7).
    let backup: Value =
        serde_json::from_str(&p.read(".git/megg/backups/.claude__settings.json.20261122T120000Z"))
            .unwrap();
    assert_eq!(backup, original, "a backup of the file before the change");
    assert!(!p.path(".claude/settings.json.megg-backup").exists());
    let mcp: Value = serde_json::from_str(&p.read(".mcp.json")).unwrap();
    assert_eq!(
        mcp,
        json!({"mcpServers": {"megg": {"command": "megg", "args": ["mcp"]}}})
    );
    assert!(
        p.read(".claude/commands/workflows/work.md")
            .contains("### State Discovery")
    );
    assert!(p.read(".gitignore").starts_with("target/\n# megg:"));

    // A second run changes no byte.
    let before = snapshot(p.root());
    let v = json_of(&setup(&p, &["setup", "--json"]));
    assert!(
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["action"] == "unchanged")
    );
    assert_eq!(snapshot(p.root()), before);

    // Uninstall: the settings are the original JSON value again; megg's own files are gone.
    json_of(&setup(&p, &["setup", "--uninstall", "--json"]));
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert_eq!(settings, original);
    assert!(!p.path(".mcp.json").exists());
    assert!(!p.path(".claude/skills").exists());
    assert!(!p.path(".claude/commands").exists());
    assert_eq!(p.read(".gitignore"), "target/\n");
}

#[test]
fn dry_run_writes_nothing() {
    let p = project();
    p.write(".claude/settings.json", SETTINGS);
    let before = snapshot(p.root());
    let out = setup(&p, &["setup", "--dry-run"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("would update"));
    assert_eq!(snapshot(p.root()), before);
}

#[test]
fn invalid_json_is_refused_untouched() {
    let p = project();
    p.write(".claude/settings.json", "{\"model\": \"opus\",, }");
    let before = snapshot(p.root());
    let out = setup(&p, &["setup"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not valid JSON") && err.contains("hint:"),
        "{err}"
    );
    assert_eq!(snapshot(p.root()), before, "nothing written anywhere");
}

#[test]
fn user_edited_files_are_never_clobbered() {
    let p = project();
    setup(&p, &["setup"]);
    let skill = ".claude/skills/megg-state/SKILL.md";
    let edited = p.read(skill).replace("/megg-state", "/my-state");
    p.write(skill, &edited);
    p.write(
        ".claude/commands/workflows/plan.md",
        "my own plan command\n",
    );
    let out = setup(&p, &["setup"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("edited after megg installed it"), "{err}");
    assert!(err.contains("not installed by megg"), "{err}");
    assert_eq!(p.read(skill), edited);
    setup(&p, &["setup", "--uninstall"]);
    assert_eq!(p.read(skill), edited, "uninstall leaves it too");
    assert_eq!(
        p.read(".claude/commands/workflows/plan.md"),
        "my own plan command\n"
    );
    assert!(!p.path(".claude/commands/workflows/work.md").exists());
}

#[test]
fn user_scope_touches_nothing_outside_home() {
    let p = project();
    p.write("src/main.rs", "fn main() {}\n");
    let project_before: BTreeMap<String, u64> = snapshot(p.root())
        .into_iter()
        .filter(|(k, _)| !k.starts_with("home/"))
        .collect();
    let v = json_of(&setup(&p, &["setup", "--scope", "user", "--json"]));
    let after: BTreeMap<String, u64> = snapshot(p.root())
        .into_iter()
        .filter(|(k, _)| !k.starts_with("home/"))
        .collect();
    assert_eq!(after, project_before, "nothing in the project");
    let home = p.path("home");
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap())
            .unwrap();
    let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("megg");
    assert_eq!(
        command,
        format!("{} context --json", bin.display()),
        "the absolute path"
    );
    for event in CAPTURE_EVENTS {
        assert_eq!(
            megg_entries(&settings, event),
            [
                json!({"hooks": [{"type": "command", "command": format!("{} capture", bin.display())}]})
            ],
            "{event}: the absolute path"
        );
    }
    assert!(home.join(".claude/skills/megg-state/SKILL.md").is_file());
    assert!(
        home.join(".claude/commands/workflows/compound.md")
            .is_file()
    );
    assert!(
        !home.join(".claude.json").exists(),
        "megg never edits ~/.claude.json"
    );
    // `claude` is not on this PATH: the exact command is printed instead.
    assert_eq!(
        v["mcp_command"],
        format!("claude mcp add --scope user megg -- {} mcp", bin.display())
    );
    json_of(&setup(
        &p,
        &["setup", "--scope", "user", "--uninstall", "--json"],
    ));
    assert!(
        !home.join(".claude/settings.json").exists(),
        "megg created it; nothing else was in it"
    );
    // Only the backups of the files setup changed remain (SPEC §7: ~/.claude/.megg-backups/).
    let left: Vec<_> = std::fs::read_dir(home.join(".claude"))
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.iter().all(|n| n == ".megg-backups"), "{left:?}");
}

fn doctor(p: &Project) -> (i32, Value) {
    doctor_with(p, &[])
}

fn doctor_with(p: &Project, env: &[(&str, &str)]) -> (i32, Value) {
    let bin_dir = assert_cmd::cargo::cargo_bin("megg")
        .parent()
        .unwrap()
        .to_path_buf();
    let out = p
        .megg("")
        .env("HOME", p.path("home"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .envs(env.iter().copied())
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    (out.status.code().unwrap(), crate::stdout_json(&out))
}

#[test]
fn doctor_passes_a_healthy_setup() {
    let p = project();
    p.domain("", "P");
    setup(&p, &["setup"]);
    let (code, v) = doctor(&p);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true);
    for name in [
        "settings",
        "hook",
        "capture",
        "skill",
        "commands",
        "mcp",
        "gitignore",
        "checkpoints",
        "state",
        "knowledge",
        // Needs `megg merge-driver` (SPEC §11): doctor runs the driver setup registered.
        "merge",
    ] {
        assert_eq!(crate::doctor_check(&v, name)["ok"], true, "{name}: {v}");
        assert!(crate::doctor_check(&v, name)["fix"].is_null());
    }
}

#[test]
fn doctor_reports_a_broken_setup_with_fixes() {
    let p = project();
    p.domain("", "P");
    let (code, v) = doctor(&p);
    assert_eq!(code, 1);
    assert_eq!(crate::doctor_check(&v, "hook")["fix"], "megg setup");
    assert_eq!(
        crate::doctor_check(&v, "gitignore")["fix"],
        "megg gitignore"
    );

    setup(&p, &["setup"]);
    p.write(".claude/settings.local.json", "{ not json");
    p.write(".broken.local.md", "---\nfeature: x\nplan_file: [\n---\n");
    p.write(
        ".megg/state.md",
        "---\nupdated: 2026-01-01T00:00:00Z\nstatus: active\n---\nold\n",
    );
    let (code, v) = doctor(&p);
    assert_eq!(code, 1);
    assert_eq!(crate::doctor_check(&v, "settings")["ok"], false);
    assert!(
        crate::doctor_check(&v, "settings")["detail"]
            .as_str()
            .unwrap()
            .contains("settings.local.json")
    );
    assert_eq!(crate::doctor_check(&v, "checkpoints")["ok"], false);
    assert_eq!(
        crate::doctor_check(&v, "checkpoints")["fix"],
        "megg checkpoint resume"
    );
    assert_eq!(crate::doctor_check(&v, "state")["fix"], "megg state clear");
    // Text mode says the same, with the fixes.
    let out = p
        .megg("")
        .env("HOME", p.path("home"))
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL") && text.contains("fix: megg state clear"),
        "{text}"
    );
}

/// Issue 38 item 4: a `state.md` whose frontmatter does not parse is not "expired": doctor names
/// the parse error and a fix that keeps the text; an expired one says why (its age, done).
#[test]
fn doctor_names_why_the_state_is_not_loaded() {
    let p = project();
    p.domain("", "P");
    setup(&p, &["setup"]);
    p.write(
        ".megg/state.md",
        "---\nupdated: [2026-11-20\nstatus: active\n---\n## Working On\nthe refund webhook\n",
    );
    let (_, v) = doctor(&p);
    let state = crate::doctor_check(&v, "state");
    assert_eq!(state["ok"], false, "{v}");
    let detail = state["detail"].as_str().unwrap();
    assert!(
        detail.contains("invalid frontmatter") && !detail.contains("expired"),
        "{detail}"
    );
    assert!(
        state["fix"].as_str().unwrap().contains("frontmatter"),
        "{state}"
    );

    p.write(
        ".megg/state.md",
        "---\nupdated: 2026-11-19T12:00:00Z\nstatus: active\n---\nold\n",
    );
    let (_, v) = doctor(&p);
    let detail = crate::doctor_check(&v, "state")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        detail.contains("h old; states expire after 48 h"),
        "the age, not a guess between done and old: {detail}"
    );
    assert_eq!(crate::doctor_check(&v, "state")["fix"], "megg state clear");
}

#[test]
fn doctor_flags_a_hook_whose_binary_is_missing() {
    let p = project();
    p.write(".claude/settings.json", r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/nowhere/megg context --json"}]}]}}"#);
    let (_, v) = doctor(&p);
    let hook = crate::doctor_check(&v, "hook");
    assert_eq!(hook["ok"], false);
    assert!(hook["detail"].as_str().unwrap().contains("/nowhere/megg"));
    assert_eq!(hook["fix"], "megg setup --scope user");
}

/// SPEC §7 "backups never dirty the project": `setup` then `setup --uninstall` in a clean
/// repository leaves `git status --porcelain --untracked-files=all` empty (setup's backups
/// once sat beside the files as `*.megg-backup`).
#[test]
fn setup_then_uninstall_leaves_git_status_clean() {
    let p = Project::new();
    let git = Git::init(p.root(), "main");
    p.write("README.md", "# project\n");
    // A committed .gitignore: setup changes it (keeping a backup) and uninstall restores it.
    p.write(".gitignore", "target/\n");
    {
        let mut index = git.repo.index().unwrap();
        index.add_path(Path::new("README.md")).unwrap();
        index.add_path(Path::new(".gitignore")).unwrap();
        index.write().unwrap();
    }
    git.commit("main", 1_000_000, "init");
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = p
            .megg("")
            .env("HOME", home.path())
            .env("PATH", "/usr/bin:/bin")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let dirty = || -> Vec<String> {
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        git.repo
            .statuses(Some(&mut opts))
            .unwrap()
            .iter()
            .map(|s| s.path().unwrap_or("?").to_string())
            .collect()
    };
    run(&["setup"]);
    assert!(!dirty().is_empty(), "setup wrote files");
    // A second run (updates, backups) and the uninstall.
    run(&["setup"]);
    run(&["setup", "--uninstall"]);
    assert_eq!(dirty(), Vec::<String>::new());
}

/// SPEC §7: setup and doctor honour `CLAUDE_CONFIG_DIR` for Claude Code's user files.
#[test]
fn user_scope_honours_claude_config_dir() {
    let p = project();
    let config = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        p.megg("")
            .env("HOME", p.path("home"))
            .env("PATH", "/usr/bin:/bin")
            .env("CLAUDE_CONFIG_DIR", config.path())
            .args(args)
            .output()
            .unwrap()
    };
    json_of(&run(&["setup", "--scope", "user", "--json"]));
    assert!(config.path().join("settings.json").is_file());
    assert!(config.path().join("skills/megg-state/SKILL.md").is_file());
    assert!(
        !p.path("home/.claude").exists(),
        "nothing in ~/.claude when CLAUDE_CONFIG_DIR is set"
    );
    // doctor finds the hook and the skill there.
    let out = run(&["doctor", "--json"]);
    let v = crate::stdout_json(&out);
    assert_eq!(crate::doctor_check(&v, "hook")["ok"], true, "{v}");
    assert_eq!(crate::doctor_check(&v, "skill")["ok"], true, "{v}");
}

/// SPEC §7 "one megg per session", each scope judged on its own files (issue 38 item 2): the
/// megg plugin enabled in the project's own settings brings its hooks and server, so project
/// setup adds neither and says so (`--force` adds them); enabled at user scope, project setup
/// still writes the project's hooks (both run, megg answers each session once) but no second
/// server (the plugin's has its own name: its tools would be there twice).
#[test]
fn setup_adds_no_second_megg_when_the_plugin_is_enabled() {
    let p = project();
    p.write(
        ".claude/settings.local.json",
        r#"{"enabledPlugins": {"megg@megg": true}}"#,
    );
    let v = json_of(&setup(&p, &["setup", "--json"]));
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("already active from the megg plugin"),
        "{v}"
    );
    assert!(!p.path(".claude/settings.json").exists(), "no second hook");
    assert!(!p.path(".mcp.json").exists(), "no second server");
    assert!(p.path(".claude/skills/megg-state/SKILL.md").is_file());
    json_of(&setup(&p, &["setup", "--force", "--json"]));
    assert!(
        p.read(".claude/settings.json")
            .contains("megg context --json")
    );
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    for event in CAPTURE_EVENTS {
        assert_eq!(megg_entries(&settings, event), [capture_entry()], "{event}");
    }
    assert!(p.read(".mcp.json").contains("\"megg\""));

    let p = project();
    p.write(
        "home/.claude/settings.json",
        r#"{"enabledPlugins": {"megg@megg": true}}"#,
    );
    let v = json_of(&setup(&p, &["setup", "--json"]));
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("also active from the megg plugin"), "{v}");
    assert!(
        p.read(".claude/settings.json")
            .contains("megg context --json"),
        "the project's own hooks"
    );
    assert!(!p.path(".mcp.json").exists(), "no second server: {v}");
}

/// Both scopes installed: doctor warns (`ok`, both places named, the fix), it does not fail —
/// both hooks run and megg answers each session once.
#[test]
fn doctor_warns_when_the_hook_runs_twice() {
    let p = project();
    json_of(&setup(&p, &["setup", "--json"]));
    json_of(&setup(&p, &["setup", "--scope", "user", "--json"]));
    let (_, v) = doctor(&p);
    let hook = crate::doctor_check(&v, "hook");
    assert_eq!(hook["ok"], true, "{v}");
    let detail = hook["detail"].as_str().unwrap();
    assert!(detail.contains("registered 2 times"), "{detail}");
    assert!(detail.contains(".claude/settings.json"), "{detail}");
    assert!(detail.contains("home/.claude/settings.json"), "{detail}");
    assert!(hook["fix"].as_str().unwrap().contains("keep one"), "{v}");
}

/// Setup's backups are pruned to the newest 5 per file (SPEC §7).
#[test]
fn backups_are_pruned_to_the_newest_five_per_file() {
    let p = project();
    p.write(".gitignore", "target/\n");
    for day in 1..=8 {
        for args in [&["setup"][..], &["setup", "--uninstall"][..]] {
            let out = p
                .megg("")
                .env("HOME", p.path("home"))
                .env("PATH", "/usr/bin:/bin")
                .env("MEGG_NOW", format!("2026-11-{day:02}T10:00:00Z"))
                .args(args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let mut names: Vec<String> = std::fs::read_dir(p.path(".git/megg/backups"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".gitignore."))
        .collect();
    names.sort();
    assert_eq!(names.len(), 5, "{names:?}");
    // Two backups a day (setup, then uninstall): the newest five are days 6 to 8.
    assert!(names.last().unwrap().contains("20261108"), "{names:?}");
    assert!(
        names.iter().all(|n| !n.contains("2026110")
            || n.contains("20261106")
            || n.contains("20261107")
            || n.contains("20261108")),
        "{names:?}"
    );
}

/// SPEC §7 "teammates without megg": the project hook lives in a committed file, so without
/// megg on PATH it is a silent no-op (exit 0, no output), and with megg it prints the hook
/// document. (The unguarded `megg context --json` was "command not found" in every session.)
#[test]
fn the_project_hook_is_silent_for_a_teammate_without_megg() {
    let p = project();
    p.domain("", "Team Project");
    json_of(&setup(&p, &["setup", "--json"]));
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let run = |path: &str| {
        std::process::Command::new("sh")
            .args(["-c", &command])
            .current_dir(p.root())
            .env_clear()
            .env("PATH", path)
            .env("HOME", p.path("home"))
            .env("MEGG_NOW", crate::NOW)
            .env("MEGG_CACHE_DIR", "")
            .output()
            .unwrap()
    };
    let without = run("/usr/bin:/bin");
    assert!(without.status.success());
    assert!(
        without.stdout.is_empty() && without.stderr.is_empty(),
        "{without:?}"
    );
    let bin = assert_cmd::cargo::cargo_bin("megg");
    let with = run(&format!(
        "{}:/usr/bin:/bin",
        bin.parent().unwrap().display()
    ));
    let v: Value = serde_json::from_slice(&with.stdout).unwrap();
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Team Project")
    );
}

/// The plugin brings the MCP server (SPEC §7), so doctor counts an enabled plugin as the
/// server being registered.
#[test]
fn doctor_counts_the_plugin_as_the_mcp_server() {
    let p = project();
    p.write(
        "home/.claude/settings.json",
        r#"{"enabledPlugins": {"megg@megg": true}}"#,
    );
    let (_, v) = doctor(&p);
    let mcp = crate::doctor_check(&v, "mcp");
    assert_eq!(mcp["ok"], true, "{v}");
    assert_eq!(mcp["detail"], "provided by the megg plugin");
}

/// SPEC §7, §10: project setup registers `megg capture` for PreCompact, SessionEnd and Stop
/// beside the SessionStart hook, keeps the user's own hooks for those events, changes nothing
/// the second time, and `--uninstall` gives back the file byte for byte.
#[test]
fn setup_installs_the_capture_hooks_and_uninstall_gives_the_file_back() {
    let p = project();
    let own = json!({
        "model": "opus",
        "hooks": {
            "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "echo compacting"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]
        }
    });
    let own_text = serde_json::to_string_pretty(&own).unwrap() + "\n";
    p.write(".claude/settings.json", &own_text);

    json_of(&setup(&p, &["setup", "--json"]));
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "command -v megg >/dev/null 2>&1 || exit 0; exec megg context --json"
    );
    for event in CAPTURE_EVENTS {
        assert_eq!(megg_entries(&settings, event), [capture_entry()], "{event}");
    }
    // The user's own PreCompact and Stop hooks come first, untouched.
    assert_eq!(
        settings["hooks"]["PreCompact"][0],
        own["hooks"]["PreCompact"][0]
    );
    assert_eq!(settings["hooks"]["Stop"][0], own["hooks"]["Stop"][0]);
    assert_eq!(settings["hooks"]["PreCompact"].as_array().unwrap().len(), 2);
    assert_eq!(settings["hooks"]["SessionEnd"].as_array().unwrap().len(), 1);

    // A second run changes nothing.
    let before = snapshot(p.root());
    let v = json_of(&setup(&p, &["setup", "--json"]));
    assert!(
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["action"] == "unchanged"),
        "{v}"
    );
    assert_eq!(snapshot(p.root()), before);

    json_of(&setup(&p, &["setup", "--uninstall", "--json"]));
    assert_eq!(p.read(".claude/settings.json"), own_text, "byte for byte");

    // Keys setup created go again, the `hooks` object included.
    let plain = "{\n  \"model\": \"opus\"\n}\n";
    p.write(".claude/settings.json", plain);
    json_of(&setup(&p, &["setup", "--json"]));
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    for event in CAPTURE_EVENTS {
        assert_eq!(
            settings["hooks"][event],
            json!([capture_entry()]),
            "{event}"
        );
    }
    json_of(&setup(&p, &["setup", "--uninstall", "--json"]));
    assert_eq!(p.read(".claude/settings.json"), plain);
}

/// The project-scope capture command lives in a committed file: without megg on PATH it is a
/// silent no-op (exit 0, nothing printed), never a hook error in a teammate's session.
#[test]
fn the_project_capture_hook_is_silent_for_a_teammate_without_megg() {
    let p = project();
    json_of(&setup(&p, &["setup", "--json"]));
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    for event in CAPTURE_EVENTS {
        let command = settings["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        let out = std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(p.root())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{event}: {out:?}");
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "{event}: {out:?}"
        );
    }
}

/// SPEC §10 `setup --no-capture`: everything but the capture hooks; hooks a previous setup
/// installed are removed (and the report says so); the user's own Stop hook stays.
#[test]
fn no_capture_leaves_the_capture_hooks_out_and_removes_installed_ones() {
    let p = project();
    p.write(".claude/settings.json", SETTINGS);
    let original: Value = serde_json::from_str(SETTINGS).unwrap();
    json_of(&setup(&p, &["setup", "--no-capture", "--json"]));
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert!(
        p.read(".claude/settings.json")
            .contains("exec megg context --json")
    );
    for event in CAPTURE_EVENTS {
        assert_eq!(
            megg_entries(&settings, event),
            Vec::<Value>::new(),
            "{event}"
        );
    }
    assert_eq!(settings["hooks"]["Stop"], original["hooks"]["Stop"]);
    assert!(settings["hooks"].get("PreCompact").is_none());
    assert!(settings["hooks"].get("SessionEnd").is_none());
    assert!(p.path(".mcp.json").is_file());
    assert!(p.path(".claude/skills/megg-state/SKILL.md").is_file());

    // Capture on, then off again: the hooks go, and the report says so.
    json_of(&setup(&p, &["setup", "--json"]));
    assert!(
        p.read(".claude/settings.json")
            .contains("exec megg capture")
    );
    let out = setup(&p, &["setup", "--no-capture"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("capture hooks removed"), "{text}");
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["hooks"]["Stop"], original["hooks"]["Stop"]);
    assert!(settings["hooks"].get("PreCompact").is_none());
    assert!(settings["hooks"].get("SessionEnd").is_none());
    assert!(
        p.read(".claude/settings.json")
            .contains("exec megg context --json")
    );
    // And again: nothing to change.
    let before = snapshot(p.root());
    let v = json_of(&setup(&p, &["setup", "--no-capture", "--json"]));
    assert!(
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["action"] == "unchanged"),
        "{v}"
    );
    assert_eq!(snapshot(p.root()), before);
}

/// Each scope on its own file for the capture hooks too (issue 38 item 2): capture hooks in the
/// project's settings do not keep user setup from adding the user's (every other repository
/// needs them); it notes that both run, and megg captures each event once.
#[test]
fn user_setup_adds_its_capture_hooks_beside_a_projects() {
    let p = project();
    let hooks: serde_json::Map<String, Value> = CAPTURE_EVENTS
        .iter()
        .map(|e| (e.to_string(), json!([capture_entry()])))
        .collect();
    p.write(".claude/settings.json", json!({"hooks": hooks}).to_string());
    let v = json_of(&setup(&p, &["setup", "--scope", "user", "--json"]));
    assert!(
        v["warnings"].as_array().unwrap().iter().any(|w| {
            let w = w.as_str().unwrap();
            w.contains("capture hooks are also active from") && w.contains(".claude/settings.json")
        }),
        "{v}"
    );
    let user: Value = serde_json::from_str(&p.read("home/.claude/settings.json")).unwrap();
    assert!(user["hooks"]["SessionStart"].is_array(), "{user}");
    for event in CAPTURE_EVENTS {
        assert_eq!(megg_entries(&user, event).len(), 1, "{event}: {user}");
    }
}

/// SPEC §7 doctor, §10: the capture hooks registered once are fine and doctor says where; not
/// registered is fine too (capture is optional) but doctor says what is missed and how to get
/// it; `MEGG_CAPTURE=off` is said as such.
#[test]
fn doctor_reports_the_capture_hooks() {
    let p = project();
    let (_, v) = doctor(&p);
    let capture = crate::doctor_check(&v, "capture");
    assert_eq!(capture["ok"], true, "{v}");
    assert_eq!(
        capture["detail"],
        "capture hooks not installed: the next session starts from the last hand-written state only"
    );
    assert_eq!(capture["fix"], "megg setup");

    json_of(&setup(&p, &["setup", "--json"]));
    let (_, v) = doctor(&p);
    let capture = crate::doctor_check(&v, "capture");
    assert_eq!(capture["ok"], true, "{v}");
    assert!(capture["fix"].is_null(), "{v}");
    let detail = capture["detail"].as_str().unwrap();
    assert!(
        detail.contains(&p.path(".claude/settings.json").display().to_string()),
        "{detail}"
    );

    let (_, v) = doctor_with(&p, &[("MEGG_CAPTURE", "off")]);
    assert_eq!(crate::doctor_check(&v, "capture")["ok"], true, "{v}");
    assert_eq!(
        crate::doctor_check(&v, "capture")["detail"],
        "capture is off (MEGG_CAPTURE=off)"
    );

    // Not once each: an event taken out by hand is named.
    let mut settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    settings["hooks"].as_object_mut().unwrap().remove("Stop");
    p.write(".claude/settings.json", settings.to_string());
    let (code, v) = doctor(&p);
    assert_eq!(code, 1, "{v}");
    let capture = crate::doctor_check(&v, "capture");
    assert_eq!(capture["ok"], false, "{v}");
    assert!(
        capture["detail"]
            .as_str()
            .unwrap()
            .ends_with(": Stop missing"),
        "{v}"
    );
    assert_eq!(capture["fix"], "megg setup");

    // The plugin provides them.
    let p = project();
    p.write(
        "home/.claude/settings.json",
        r#"{"enabledPlugins": {"megg@megg": true}}"#,
    );
    let (_, v) = doctor(&p);
    assert_eq!(crate::doctor_check(&v, "capture")["ok"], true, "{v}");
    assert_eq!(
        crate::doctor_check(&v, "capture")["detail"],
        "provided by the megg plugin"
    );
}

/// The capture hooks registered twice (the project's and the plugin's): both run and megg
/// captures each event once, so doctor warns, naming both places, with the fix.
#[test]
fn doctor_warns_when_the_capture_hooks_run_twice() {
    let p = project();
    json_of(&setup(&p, &["setup", "--json"]));
    p.write(
        "home/.claude/settings.json",
        r#"{"enabledPlugins": {"megg@megg": true}}"#,
    );
    let (_, v) = doctor(&p);
    let capture = crate::doctor_check(&v, "capture");
    assert_eq!(capture["ok"], true, "{v}");
    let detail = capture["detail"].as_str().unwrap();
    assert!(detail.contains("2 times"), "{detail}");
    assert!(
        detail.contains(&p.path(".claude/settings.json").display().to_string()),
        "{detail}"
    );
    assert!(detail.contains("the megg plugin"), "{detail}");
    assert!(
        capture["fix"].as_str().unwrap().contains("--no-capture"),
        "{v}"
    );
}

/// Issue 38 item 7: a `plan.md` of the user's own at the command's path is left alone by setup,
/// and doctor said `ok commands installed`. It says the file is not megg's, names it, and how
/// to get megg's.
#[test]
fn doctor_names_a_command_file_that_is_not_meggs() {
    let p = project();
    let mine = p.write(
        ".claude/commands/workflows/plan.md",
        "# My own planning command\n",
    );
    let v = json_of(&setup(&p, &["setup", "--json"]));
    assert!(
        v["warnings"].to_string().contains("not installed by megg"),
        "{v}"
    );
    let (_, v) = doctor(&p);
    let commands = crate::doctor_check(&v, "commands");
    assert_eq!(commands["ok"], true, "{v}");
    let detail = commands["detail"].as_str().unwrap();
    assert!(detail.contains(&mine.display().to_string()), "{detail}");
    assert!(
        !detail.starts_with("installed") || detail.contains("not install"),
        "{detail}"
    );
    let fix = commands["fix"].as_str().unwrap();
    assert!(fix.contains("move") && fix.contains("plan.md"), "{fix}");
    // The skill, all megg's: no fix.
    assert!(crate::doctor_check(&v, "skill")["fix"].is_null(), "{v}");
}
