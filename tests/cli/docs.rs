//! The markdown megg installs for Claude Code cannot drift from the CLI: every `megg …`
//! command in it (code-block lines and inline code) runs against a fixture project, with its
//! placeholders filled in, and exits as the markdown says (0 unless a `# exit N` comment says
//! otherwise).

use std::path::{Path, PathBuf};

use crate::{Git, Project, epoch};

const PLAN: &str = "docs/plans/2026-01-15-feat-user-auth-plan.md";

fn doc_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = ["plan", "work", "review", "compound"]
        .iter()
        .map(|n| root.join(format!("commands/workflows/{n}.md")))
        .collect();
    files.push(root.join("skills/megg-state/SKILL.md"));
    files
}

/// Every megg command in a markdown text: lines of fenced code blocks and inline code spans
/// that start with `megg `.
fn commands_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            if trimmed.starts_with("megg ") {
                out.push(trimmed.to_string());
            }
            continue;
        }
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("megg ") {
                out.push(span.to_string());
            }
        }
    }
    out
}

fn fill(command: &str) -> String {
    [
        ("<PLAN_FILE>", PLAN),
        ("<SLUG>", "user-auth"),
        ("<BRANCH>", "feat/user-auth"),
        ("<NEW_PATH>", "docs/plans/moved-plan.md"),
        ("<TITLE>", "Sessions live in httpOnly cookies"),
        ("<TYPE>", "decision"),
        ("<TOPICS>", "auth, security"),
        ("<STATE_FILE>", "handoff.md"),
        ("<ENTRY_FILE>", "entry.md"),
    ]
    .iter()
    .fold(command.to_string(), |c, (k, v)| c.replace(k, v))
}

/// A git project with a domain, the plan, a moved copy, a feature branch and a checkpoint.
fn fixture() -> Project {
    let p = Project::new();
    p.domain("", "Shop");
    let git = Git::init(p.root(), "main");
    git.commit("main", epoch("2026-11-22T10:00:00Z"), "init");
    git.commit("feat/user-auth", epoch("2026-11-22T10:30:00Z"), "branch");
    p.write(PLAN, "# User auth\n");
    p.write("docs/plans/moved-plan.md", "# User auth (moved)\n");
    p.ok("", &["checkpoint", "save", PLAN]);
    p.ok("", &["state", "write", "--content", "## Working On\nx\n"]);
    // The files the skill and compound.md have the agent write with its file-writing tool.
    p.write(
        "handoff.md",
        "## Working On\nAuth\n\n## Next\n- `$(touch pwned)` stays text\n",
    );
    p.write(
        "entry.md",
        "## Sessions live in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\nWhy: `$(touch pwned)` is text.\n",
    );
    p
}

fn expected_exit(command: &str) -> (String, i32) {
    match command.split_once(" # exit ") {
        Some((cmd, code)) => (cmd.trim().to_string(), code.trim().parse().unwrap()),
        None => (command.to_string(), 0),
    }
}

#[test]
fn every_megg_command_in_the_markdown_runs_as_documented() {
    let bin_dir = assert_cmd::cargo::cargo_bin("megg")
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut seen = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let commands = commands_in(&text);
        assert!(
            !commands.is_empty(),
            "{} has no megg commands",
            file.display()
        );
        for raw in commands {
            let (command, code) = expected_exit(&raw);
            let p = fixture();
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(fill(&command))
                .current_dir(p.root())
                .env("PATH", &path)
                .env("MEGG_NOW", crate::NOW)
                .env("MEGG_CACHE_DIR", "")
                .env("HOME", p.root())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env_remove("MEGG_CEILING_DIRS")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "{}: `{}` exited {:?}\nstdout: {}\nstderr: {}",
                file.display(),
                fill(&command),
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            seen += 1;
        }
    }
    assert!(seen >= 20, "only {seen} commands found");
}

/// SPEC §7 "Agent text never becomes shell syntax": no megg command in the markdown carries
/// the agent's own words (a placeholder for content, a title, topics) as a quoted argument or a
/// heredoc, where backticks and `$(…)` run.
#[test]
fn agent_text_never_becomes_shell_syntax() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = doc_files();
    for dir in ["templates", "commands"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "md") && !files.contains(&path) {
                files.push(path);
            }
        }
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("<<"), "{}: a heredoc", file.display());
        for command in commands_in(&text) {
            let agent_text = ["<CONTENT>", "<TITLE>", "<TOPICS>", "<SUMMARY>", "--content"];
            assert!(
                !agent_text.iter().any(|p| command.contains(p)),
                "{}: `{command}` puts agent text on the command line",
                file.display()
            );
        }
    }
}

#[test]
fn the_files_an_agent_writes_are_stored_verbatim_and_nothing_runs() {
    let p = fixture();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("megg state write --file handoff.md && megg learn --file entry.md --json")
        .current_dir(p.root())
        .env(
            "PATH",
            format!(
                "{}:{}",
                assert_cmd::cargo::cargo_bin("megg")
                    .parent()
                    .unwrap()
                    .display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("MEGG_NOW", crate::NOW)
        .env("MEGG_CACHE_DIR", "")
        .env("HOME", p.root())
        .env_remove("MEGG_CEILING_DIRS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!p.path("pwned").exists(), "agent text ran as a command");
    assert!(
        p.read(".megg/state.md")
            .contains("`$(touch pwned)` stays text")
    );
    let knowledge = p.read(".megg/knowledge.md");
    assert!(knowledge.contains("## 2026-11-22 - Sessions live in httpOnly cookies"));
    assert!(knowledge.contains("**Topics:** auth, security"));
    assert!(knowledge.contains("Why: `$(touch pwned)` is text."));
}

fn frontmatter_keys(text: &str) -> Vec<String> {
    let yaml = text
        .strip_prefix("---\n")
        .and_then(|r| r.split_once("\n---\n"))
        .map(|(y, _)| y)
        .expect("frontmatter");
    let map: serde_json::Map<String, serde_json::Value> = serde_saphyr::from_str(yaml).unwrap();
    map.keys().cloned().collect()
}

#[test]
fn command_files_are_valid_claude_code_commands() {
    for file in &doc_files()[..4] {
        let text = std::fs::read_to_string(file).unwrap();
        let keys = frontmatter_keys(&text);
        for k in ["name", "description", "argument-hint"] {
            assert!(keys.iter().any(|x| x == k), "{} lacks {k}", file.display());
        }
    }
    let skill = std::fs::read_to_string(&doc_files()[4]).unwrap();
    let keys = frontmatter_keys(&skill);
    assert!(keys.contains(&"name".to_string()) && keys.contains(&"description".to_string()));
    for section in [
        "## Working On",
        "## Progress",
        "## Next",
        "## Context",
        "/megg-state clear",
        "/megg-state show",
    ] {
        assert!(skill.contains(section), "SKILL.md lacks {section}");
    }
}

#[test]
fn plan_ends_with_the_checkpoint_and_work_discovers_before_phase_1() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plan = std::fs::read_to_string(root.join("commands/workflows/plan.md")).unwrap();
    let last_heading = plan.lines().rev().find(|l| l.starts_with('#')).unwrap();
    assert_eq!(last_heading, "### State Checkpoint");
    let work = std::fs::read_to_string(root.join("commands/workflows/work.md")).unwrap();
    let discovery = work.find("### State Discovery").unwrap();
    assert!(discovery < work.find("## Phase 1").unwrap());
    // Every resume option and status the CLI can return is handled.
    for case in [
        "`resume`",
        "`fresh`",
        "`view`",
        "`new-path`",
        "status: \"none\"",
        "status: \"multiple\"",
        "status: \"found\"",
        "AskUserQuestion",
        "Plan file not found",
        "corrupt",
    ] {
        assert!(work.contains(case), "work.md does not handle {case}");
    }
    let compound = std::fs::read_to_string(root.join("commands/workflows/compound.md")).unwrap();
    assert!(compound.contains("megg checkpoint finish <SLUG>"));
    assert!(compound.contains("megg learn"));
}

#[test]
fn plugin_manifest_and_hooks_are_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".claude-plugin/plugin.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(plugin["name"], "megg");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    let hooks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("hooks/hooks.json")).unwrap())
            .unwrap();
    let entry = &hooks["hooks"]["SessionStart"][0];
    assert_eq!(entry["matcher"], "startup|resume|clear|compact");
    let command = entry["hooks"][0]["command"].as_str().unwrap();
    assert!(command.contains("exec megg context --json"), "{command}");
    // The capture hooks (SPEC §10): every PreCompact, SessionEnd and Stop, no matcher.
    for event in ["PreCompact", "SessionEnd", "Stop"] {
        assert_eq!(
            hooks["hooks"][event],
            serde_json::json!([{"hooks": [{
                "type": "command",
                "command": "command -v megg >/dev/null 2>&1 || exit 0; exec megg capture"
            }]}]),
            "{event}"
        );
    }
    // The plugin brings the MCP server too (SPEC §7).
    assert_eq!(plugin["mcpServers"]["megg"]["command"], "megg");
    assert_eq!(
        plugin["mcpServers"]["megg"]["args"],
        serde_json::json!(["mcp"])
    );
    // The repository is its own marketplace, listing the plugin at its root.
    let market: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".claude-plugin/marketplace.json")).unwrap(),
    )
    .unwrap();
    assert!(market["owner"]["name"].is_string());
    assert_eq!(market["plugins"][0]["name"], "megg");
    assert_eq!(market["plugins"][0]["source"], "./");
}

/// The plugin's hook, with and without megg on PATH: megg's hook document, or a valid one whose
/// systemMessage says how to install megg — never a shell error in the session.
#[test]
fn plugin_hook_prints_a_valid_document_with_or_without_megg() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hooks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("hooks/hooks.json")).unwrap())
            .unwrap();
    let command = hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let p = crate::Project::new();
    p.domain("", "Plugin Project");
    let bin_dir = assert_cmd::cargo::cargo_bin("megg")
        .parent()
        .unwrap()
        .to_path_buf();
    let run = |path: &str| {
        let out = std::process::Command::new("sh")
            .args(["-c", &command])
            .current_dir(p.root())
            .env_clear()
            .env("PATH", path)
            .env("HOME", p.root())
            .env("MEGG_NOW", crate::NOW)
            .env("MEGG_CACHE_DIR", "")
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v
    };
    let with = run(&format!("{}:/usr/bin:/bin", bin_dir.display()));
    assert!(
        with["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Plugin Project"),
        "{with}"
    );
    let without = run("/usr/bin:/bin");
    assert!(
        without["systemMessage"]
            .as_str()
            .unwrap()
            .contains("cargo install megg"),
        "{without}"
    );
}

/// The plugin's capture hooks (SPEC §10): with megg on PATH they hand Claude Code's hook input
/// on stdin to `megg capture`; without it they do nothing — exit 0, nothing printed.
#[test]
fn plugin_capture_hooks_run_megg_capture_or_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hooks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("hooks/hooks.json")).unwrap())
            .unwrap();
    // A stand-in megg that records how it was run.
    let bin = tempfile::tempdir().unwrap();
    let record = bin.path().join("record");
    let fake = bin.path().join("megg");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" > '{0}'\ncat >> '{0}'\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for event in ["PreCompact", "SessionEnd", "Stop"] {
        let command = hooks["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("no {event} hook"));
        let input = format!("{{\"hook_event_name\": \"{event}\"}}");
        let run = |path: &str| {
            let mut child = std::process::Command::new("sh")
                .args(["-c", command])
                .env_clear()
                .env("PATH", path)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            // Without megg nothing reads stdin: the write may find the pipe closed.
            let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes());
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{event}: {out:?}");
            assert!(
                out.stdout.is_empty() && out.stderr.is_empty(),
                "{event}: {out:?}"
            );
        };
        run("/usr/bin:/bin");
        assert!(!record.exists(), "{event}: nothing ran without megg");
        run(&format!("{}:/usr/bin:/bin", bin.path().display()));
        assert_eq!(
            std::fs::read_to_string(&record).unwrap(),
            format!("capture\n{input}"),
            "{event}"
        );
        std::fs::remove_file(&record).unwrap();
    }
}
