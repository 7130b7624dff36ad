//! The markdown megg installs for Claude Code cannot drift from the CLI: every `megg …`
//! command in it (code-block lines and inline code) runs against a fixture project, with its
//! placeholders filled in, and exits as the markdown says (0 unless a `# exit N` comment says
//! otherwise).

use std::path::{Path, PathBuf};

use crate::{Git, Project, epoch};

pub(crate) const PLAN: &str = "docs/plans/2026-01-15-feat-user-auth-plan.md";

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
pub(crate) fn commands_in(text: &str) -> Vec<String> {
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
        ("<STATE_FILE>", "handoff.md"),
        ("<ENTRY_FILE>", "entry.md"),
        ("<QUERY_FILE>", "query.txt"),
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
    p.write("query.txt", "sessions `$(touch pwned)` cookies\n");
    p
}

fn expected_exit(command: &str) -> (String, i32) {
    match command.split_once(" # exit ") {
        Some((cmd, code)) => (cmd.trim().to_string(), code.trim().parse().unwrap()),
        None => (command.to_string(), 0),
    }
}

/// Runs every megg command of `text` (a command file, named `name` in messages) in a fresh
/// fixture with its placeholders filled in, and checks it exits as the text says. Returns how
/// many ran.
pub(crate) fn run_every_megg_command(name: &str, text: &str) -> usize {
    let bin_dir = assert_cmd::cargo::cargo_bin("megg")
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let commands = commands_in(text);
    assert!(!commands.is_empty(), "{name} has no megg commands");
    for raw in &commands {
        let (command, code) = expected_exit(raw);
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
            "{name}: `{}` exited {:?}\nstdout: {}\nstderr: {}",
            fill(&command),
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    commands.len()
}

#[test]
fn every_megg_command_in_the_markdown_runs_as_documented() {
    let mut seen = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        seen += run_every_megg_command(&file.display().to_string(), &text);
    }
    assert!(seen >= 20, "only {seen} commands found");
}

/// The placeholders a megg command in the markdown may have: names and paths that come from
/// megg's JSON, git or a file the agent wrote — never the agent's own words.
const NAME_PLACEHOLDERS: [&str; 7] = [
    "PLAN_FILE",
    "SLUG",
    "BRANCH",
    "NEW_PATH",
    "STATE_FILE",
    "ENTRY_FILE",
    "QUERY_FILE",
];

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
        assert_agent_text_stays_off_the_command_line(&file.display().to_string(), &text);
    }
}

/// SPEC §7 "Agent text never becomes shell syntax" for one command file's text (named `file`
/// in messages).
pub(crate) fn assert_agent_text_stays_off_the_command_line(file: &str, text: &str) {
    assert!(!text.contains("<<"), "{file}: a heredoc");
    assert!(!text.contains("| megg"), "{file}: text piped into megg");
    for command in commands_in(text) {
        let agent_text = ["<CONTENT>", "<TITLE>", "<TOPICS>", "<SUMMARY>", "--content"];
        assert!(
            !agent_text.iter().any(|p| command.contains(p)),
            "{file}: `{command}` puts agent text on the command line"
        );
        // Only names and paths fill a placeholder, never in quotes; the agent's words go in a
        // file (`--file`) or through the MCP tool.
        for (i, part) in command.split('<').enumerate().skip(1) {
            let name = part.split_once('>').map_or(part, |(n, _)| n);
            assert!(
                NAME_PLACEHOLDERS.contains(&name),
                "{file}: `{command}` fills <{name}>, which is not a name or a path"
            );
            let before = command.split('<').take(i).collect::<Vec<_>>().join("<");
            assert!(
                !before.ends_with(['"', '\'']),
                "{file}: `{command}` quotes <{name}>"
            );
        }
        assert!(
            !command.contains("$(") && !command.contains('`'),
            "{file}: `{command}` has shell substitution"
        );
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
    // The capture hooks (SPEC §10, §18.1): every PreCompact, PostCompact, SessionEnd and Stop, no matcher.
    for event in ["PreCompact", "PostCompact", "SessionEnd", "Stop"] {
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
    let message = without["systemMessage"].as_str().unwrap();
    // SPEC §15: install commands that work, never `cargo install megg` (no registry served it).
    for way in [
        "npm i -g megg",
        "/releases/latest/download/install.sh | sh",
        "brew install megg-dev/tap/megg",
        "cargo binstall megg",
    ] {
        assert!(message.contains(way), "{way}: {without}");
    }
    assert!(!message.contains("cargo install megg"), "{without}");
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
    for event in ["PreCompact", "PostCompact", "SessionEnd", "Stop"] {
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

// Every workflow command says what to do for every outcome of discovery (issue 14). ----------

pub(crate) const WORKFLOWS: [&str; 4] = ["plan", "work", "review", "compound"];

pub(crate) fn workflow(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(format!("commands/workflows/{name}.md"))).unwrap()
}

/// The text under the heading that ends with `title`, up to the next heading of the same or a
/// higher level.
pub(crate) fn section<'t>(text: &'t str, title: &str) -> &'t str {
    let mut start = None;
    let mut level = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes > 0 && line[hashes..].starts_with(' ') {
            match start {
                None if line.trim_end().ends_with(title) => {
                    start = Some(offset);
                    level = hashes;
                }
                Some(s) if hashes <= level => return &text[s..offset],
                _ => {}
            }
        }
        offset += line.len();
    }
    let s = start.unwrap_or_else(|| panic!("no heading '{title}'"));
    &text[s..]
}

/// The bullet of `text` that starts with `head` (at any indent), with its continuation lines
/// and nested bullets, up to the next bullet at the same indent or less.
pub(crate) fn bullet<'t>(text: &'t str, head: &str) -> &'t str {
    let mut start = None;
    let mut indent = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let this_indent = line.len() - trimmed.len();
        match start {
            None if trimmed.starts_with(&format!("- {head}")) => {
                start = Some(offset);
                indent = this_indent;
            }
            Some(s)
                if !trimmed.is_empty()
                    && this_indent <= indent
                    && (trimmed.starts_with("- ") || trimmed.starts_with('#')) =>
            {
                return &text[s..offset];
            }
            _ => {}
        }
        offset += line.len();
    }
    let s = start.unwrap_or_else(|| panic!("no bullet '- {head}'"));
    &text[s..]
}

/// Whether `text` matches `template`, where each `<…>` in the template stands for any text.
pub(crate) fn matches_template(text: &str, template: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('<') {
        literals.push(&rest[..open]);
        let close = rest[open..].find('>').expect("unclosed placeholder") + open;
        rest = &rest[close + 1..];
    }
    literals.push(rest);
    let (first, last) = (literals[0], literals[literals.len() - 1]);
    if literals.len() == 1 {
        return text == first;
    }
    if !text.starts_with(first) {
        return false;
    }
    let mut at = first.len();
    for lit in &literals[1..literals.len() - 1] {
        match text[at..].find(lit) {
            Some(i) => at += i + lit.len(),
            None => return false,
        }
    }
    text.len() - at >= last.len() && text.ends_with(last)
}

#[test]
fn a_template_matches_what_it_stands_for() {
    let t = "Checkpoint shows phase '<phase>'. You may want /workflows:<cmd>";
    assert!(matches_template(
        "Checkpoint shows phase 'work'. You may want /workflows:work",
        t
    ));
    assert!(!matches_template("Checkpoint shows phase 'work'.", t));
    assert!(matches_template(
        "Plan file not found: a.md",
        "Plan file not found: <path>"
    ));
    assert!(!matches_template(
        "x Plan file not found: a.md",
        "Plan file not found: <path>"
    ));
}

/// Seed 004: "user runs /workflows:plan but the state says work: warn and suggest the right
/// command" — which only happens if plan.md looks before it writes a plan.
#[test]
fn plan_runs_discovery_for_plan_before_writing_a_plan_and_handles_a_phase_mismatch() {
    let plan = workflow("plan");
    let discovery = plan
        .find("### State Discovery")
        .expect("plan.md has a State Discovery");
    let command = plan
        .find("megg checkpoint resume --for plan --json")
        .expect("plan.md runs `megg checkpoint resume --for plan --json`");
    let first_phase = plan.find("\n## Phase 1").expect("plan.md has a Phase 1");
    let save = plan.find("megg checkpoint save").unwrap();
    assert!(
        discovery < command && command < first_phase && command < save,
        "discovery comes first, before any plan is written"
    );
    let found = bullet(section(&plan, "State Discovery"), "**`status: \"found\"`**");
    for phrase in [
        "Checkpoint shows phase '<phase>'. You may want /workflows:<cmd>",
        "`Use /workflows:<cmd>`",
        "write no plan",
        "`/workflows:<cmd> <checkpoint.plan_file>`",
    ] {
        assert!(
            found.contains(phrase),
            "plan.md's `found` case lacks {phrase:?}:\n{found}"
        );
    }
}

#[test]
fn every_workflow_command_handles_found_none_multiple_and_errors() {
    for name in WORKFLOWS {
        let text = workflow(name);
        let discovery = section(&text, "### State Discovery");
        let errors = bullet(discovery, "**megg exits non-zero**");
        for phrase in ["`error:", "`hint:", "command not found"] {
            assert!(errors.contains(phrase), "{name}.md errors lack {phrase:?}");
        }
        let none = bullet(discovery, "**`status: \"none\"`**");
        assert!(
            [
                "Phase 1",
                "megg checkpoint save",
                "\"Record the learnings\""
            ]
            .iter()
            .any(|next| none.contains(next)),
            "{name}.md: `none` says where to go on:\n{none}"
        );
        let multiple = bullet(discovery, "**`status: \"multiple\"`**");
        for phrase in [
            "`candidates`",
            "AskUserQuestion",
            &format!("megg checkpoint resume <SLUG> --for {name} --json"),
        ] {
            assert!(
                multiple.contains(phrase),
                "{name}.md `multiple` lacks {phrase:?}"
            );
        }
        let found = bullet(discovery, "**`status: \"found\"`**");
        for phrase in [
            "AskUserQuestion",
            "`question`",
            "`options`",
            "`Use /workflows:<cmd>`",
            "Checkpoint shows phase '<phase>'. You may want /workflows:<cmd>",
            &format!("megg checkpoint resume <SLUG> --for {name} --choice fresh --json"),
            &format!("megg checkpoint resume <SLUG> --for {name} --choice view"),
            "dismisses",
        ] {
            assert!(found.contains(phrase), "{name}.md `found` lacks {phrase:?}");
        }
        if name != "plan" {
            for phrase in [
                &format!("megg checkpoint resume <SLUG> --for {name} --choice resume --json"),
                &format!(
                    "megg checkpoint resume <SLUG> --for {name} --choice resume --plan-file <NEW_PATH> --json"
                ),
            ] {
                assert!(found.contains(phrase), "{name}.md `found` lacks {phrase:?}");
            }
        }
        let corrupt = bullet(discovery, "**`corrupt`**");
        assert!(
            corrupt.contains(
                "Checkpoint '<name>' is corrupt (invalid YAML) — moved to <where>; starting fresh"
            ),
            "{name}.md: corrupt"
        );
        // Follow-up commands keep the caller's `--for` (SPEC §4.4).
        for command in commands_in(&text) {
            if command.starts_with("megg checkpoint resume") {
                assert!(
                    command.contains(&format!("--for {name}")),
                    "{name}.md: `{command}` drops --for {name}"
                );
            }
        }
    }
}

#[test]
fn work_covers_every_staleness_tier_a_missing_plan_and_corrupt_files() {
    let work = workflow("work");
    let discovery = section(&work, "### State Discovery");
    for (tier, phrase) in [
        ("fresh", "`resume` first and recommended"),
        ("recent", "none recommended"),
        ("stale", "This state is <N> days old and may be outdated"),
        ("abandoned", "`Resume anyway`"),
    ] {
        let row = discovery
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("| `{tier}`")))
            .unwrap_or_else(|| panic!("work.md has no row for the {tier} tier"));
        assert!(row.contains(phrase), "work.md {tier}: {row}");
    }
    let gone = bullet(discovery, "`Plan file not found: <path>`");
    for phrase in ["`new-path`", "`fresh`"] {
        assert!(gone.contains(phrase), "work.md plan gone lacks {phrase}");
    }
    let new_path = bullet(discovery, "`new-path`");
    assert!(new_path.contains("--plan-file <NEW_PATH>"));
    let corrupt = bullet(discovery, "**`corrupt`**");
    assert!(corrupt.contains("kept"), "work.md says the bytes are kept");
}

/// A git project with a plan, and megg at a chosen moment.
pub(crate) struct Fixture {
    pub(crate) p: Project,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        git.commit("main", epoch("2026-11-01T00:00:00Z"), "init");
        p.write(PLAN, "# User auth\n");
        Self { p }
    }

    pub(crate) fn run(&self, now: &str, args: &[&str]) -> std::process::Output {
        self.p
            .megg("")
            .env("MEGG_NOW", now)
            .args(args)
            .output()
            .unwrap()
    }

    pub(crate) fn save(&self, plan: &str, phase: &str) {
        let out = self.run(
            crate::NOW,
            &["checkpoint", "save", plan, "--phase", phase, "--json"],
        );
        assert!(out.status.success(), "{out:?}");
    }

    /// Discovery as `command` runs it (with the plan file for every command but plan).
    pub(crate) fn discover(&self, command: &str, now: &str) -> serde_json::Value {
        let mut args = vec!["checkpoint", "resume"];
        if command != "plan" {
            args.push(PLAN);
        }
        args.extend(["--for", command, "--json"]);
        let out = self.run(now, &args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(out.stderr.is_empty(), "JSON mode warns in `warnings` only");
        crate::stdout_json(&out)
    }
}

pub(crate) fn warnings_of(v: &serde_json::Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

/// The one warning of `v` that `template` (as a command file quotes it) stands for.
fn warning_like(v: &serde_json::Value, template: &str) -> String {
    warnings_of(v)
        .into_iter()
        .find(|w| matches_template(w, template))
        .unwrap_or_else(|| panic!("no warning like {template:?} in {v}"))
}

/// The command files and the CLI agree: for each outcome megg can return, built with the real
/// binary, the JSON has the `status`, warnings (word for word as the files quote them) and
/// options the files tell the agent to look for, and every option id megg offers is one the
/// file handles.
#[test]
fn the_json_megg_returns_is_what_the_command_files_tell_the_agent_to_read() {
    let docs: Vec<(&str, String)> = WORKFLOWS.iter().map(|n| (*n, workflow(n))).collect();
    let handles_options = |name: &str, text: &str, v: &serde_json::Value| {
        for o in v["options"].as_array().unwrap() {
            let id = o["id"].as_str().unwrap();
            assert!(
                text.contains(&format!("`{id}`")),
                "{name}.md does not say what `{id}` does"
            );
            let label = o["label"].as_str().unwrap();
            assert!((1..=4).contains(&label.split_whitespace().count()));
        }
        assert!(
            (2..=3).contains(&v["options"].as_array().unwrap().len()),
            "room for the `Use /workflows:<cmd>` option within AskUserQuestion's 4"
        );
    };

    // found, in every tier (saved at NOW, asked later), for every command.
    let f = Fixture::new();
    f.save(PLAN, "work");
    let work = &docs[1].1;
    for (now, tier, recommended) in [
        ("2026-11-22T13:00:00Z", "fresh", Some("resume")),
        ("2026-11-25T12:00:00Z", "recent", None),
        ("2026-12-02T12:00:00Z", "stale", None),
        ("2027-01-30T12:00:00Z", "abandoned", Some("fresh")),
    ] {
        let v = f.discover("work", now);
        assert_eq!(v["status"], "found");
        assert_eq!(v["checkpoint"]["staleness"], tier);
        assert!(matches_template(
            v["question"].as_str().unwrap(),
            "Found previous session for '<feature>'"
        ));
        assert!(work.contains("`Found previous session for '<feature>'`"));
        let rec: Vec<&str> = v["options"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["recommended"] == true)
            .map(|o| o["id"].as_str().unwrap())
            .collect();
        assert_eq!(rec.first().copied(), recommended, "{tier}");
        if let Some(id) = recommended {
            assert_eq!(v["options"][0]["id"], id, "{tier}: recommended first");
        }
        if matches!(tier, "stale" | "abandoned") {
            warning_like(&v, "This state is <N> days old and may be outdated");
        }
        if tier == "abandoned" {
            assert_eq!(v["options"][1]["label"], "Resume anyway");
        }
        for (name, text) in &docs {
            let v = f.discover(name, now);
            assert_eq!(v["status"], "found", "{name}");
            handles_options(name, text, &v);
        }
    }

    // Phase mismatch: every saved phase, asked by every command. The warning is the one the
    // files quote, it names another, existing command — and for plan it always comes.
    let phases = [
        ("plan-complete", "work"),
        ("work", "work"),
        ("work-complete", "review"),
        ("review", "review"),
        ("review-complete", "compound"),
        ("compound", "compound"),
    ];
    let template = "Checkpoint shows phase '<phase>'. You may want /workflows:<cmd>";
    for (phase, owner) in phases {
        let f = Fixture::new();
        f.save(PLAN, phase);
        for (name, text) in &docs {
            assert!(text.contains(template), "{name}.md quotes the warning");
            let v = f.discover(name, crate::NOW);
            let mismatch: Vec<String> = warnings_of(&v)
                .into_iter()
                .filter(|w| w.contains("You may want"))
                .collect();
            if *name == owner {
                assert!(mismatch.is_empty(), "{phase} belongs to {name}: {v}");
            } else {
                let w = warning_like(&v, template);
                assert_eq!(
                    w,
                    format!("Checkpoint shows phase '{phase}'. You may want /workflows:{owner}")
                );
            }
        }
    }

    // none: nothing saved, with and without a target.
    let f = Fixture::new();
    for (name, _) in &docs {
        let v = f.discover(name, crate::NOW);
        assert_eq!(v["status"], "none", "{name}");
        assert!(v["checkpoint"].is_null());
        assert_eq!(v["options"], serde_json::json!([]));
    }

    // multiple: two saved sessions and no target; candidates carry what the files show.
    let f = Fixture::new();
    f.save(PLAN, "work");
    f.p.write("docs/plans/2026-01-16-feat-billing-plan.md", "# Billing\n");
    f.save("docs/plans/2026-01-16-feat-billing-plan.md", "review");
    for (name, text) in &docs {
        let out = f.run(
            crate::NOW,
            &["checkpoint", "resume", "--for", name, "--json"],
        );
        let v = crate::stdout_json(&out);
        assert_eq!(v["status"], "multiple", "{name}");
        let multiple = bullet(
            section(text, "### State Discovery"),
            "**`status: \"multiple\"`**",
        );
        for c in v["candidates"].as_array().unwrap() {
            for field in ["feature", "phase", "age_days"] {
                assert!(!c[field].is_null(), "{field}");
                assert!(
                    multiple.contains(&format!("`{field}`")),
                    "{name}.md: {field}"
                );
            }
            assert!(c["progress"]["done"].is_u64() && c["progress"]["total"].is_u64());
            assert!(multiple.contains("`progress.done`/`progress.total`"));
        }
        // The follow-up the files give works with a candidate's feature.
        let slug = v["candidates"][0]["feature"].as_str().unwrap();
        let out = f.run(
            crate::NOW,
            &["checkpoint", "resume", slug, "--for", name, "--json"],
        );
        assert_eq!(crate::stdout_json(&out)["status"], "found");
    }

    // Plan file gone: the warning as work.md quotes it, and `new-path` among the options.
    let f = Fixture::new();
    f.save(PLAN, "work");
    std::fs::remove_file(f.p.path(PLAN)).unwrap();
    for (name, text) in &docs {
        let v = f.discover(name, crate::NOW);
        assert_eq!(v["status"], "found");
        if *name == "work" {
            assert!(text.contains("`Plan file not found: <path>`"));
            assert_eq!(
                warning_like(&v, "Plan file not found: <path>"),
                format!("Plan file not found: {PLAN}")
            );
        }
        let ids: Vec<&str> = v["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["fresh", "new-path", "view"]);
        handles_options(name, text, &v);
    }

    // Corrupt: quarantined, in `corrupt` and in `warnings` as the files quote it.
    for (name, _) in &docs {
        let f = Fixture::new();
        f.p.write(
            ".x.local.md",
            "---\nfeature: x\nplan_file: [unclosed\n---\n",
        );
        let v = f.discover(name, crate::NOW);
        assert_eq!(v["status"], "none");
        assert_eq!(v["corrupt"][0]["file"], ".x.local.md");
        warning_like(
            &v,
            "Checkpoint '<name>' is corrupt (invalid YAML) — moved to <where>; starting fresh",
        );
        assert!(!f.p.path(".x.local.md").exists());
    }

    // Errors: exit 1, nothing on stdout, `error:` and `hint:` on stderr — what the files say
    // to show the user.
    let f = Fixture::new();
    f.save(PLAN, "work");
    f.p.write("docs/plans/2026-01-16-feat-billing-plan.md", "# Billing\n");
    f.save("docs/plans/2026-01-16-feat-billing-plan.md", "review");
    for (name, _) in &docs {
        for args in [
            vec![
                "checkpoint",
                "resume",
                "--for",
                name,
                "--choice",
                "resume",
                "--json",
            ],
            vec![
                "checkpoint",
                "update",
                "nope",
                "--phase",
                "review",
                "--json",
            ],
        ] {
            let out = f.run(crate::NOW, &args);
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            assert!(out.stdout.is_empty());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.starts_with("error: ") && err.contains("\nhint: "),
                "{err}"
            );
        }
    }
}

/// Issue 28, item 6: every workflow command and the `/megg-state` skill, for Claude Code and as
/// Gemini commands, tell the agent to search what megg kept before it decides (or proposes an
/// entry), and how — through MCP or with the words in a file, never on a command line.
#[test]
fn every_workflow_and_the_skill_say_to_search_before_deciding_or_learning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = doc_files();
    for n in ["plan", "work", "review", "compound"] {
        files.push(root.join(format!("templates/gemini/commands/workflows/{n}.toml")));
    }
    files.push(root.join("templates/gemini/commands/megg-state.toml"));
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.display();
        assert!(text.contains("`search` tool"), "{name}: no MCP search");
        assert!(
            text.contains("--query-file <QUERY_FILE>"),
            "{name}: no megg search --query-file"
        );
        assert!(text.contains("`show` tool"), "{name}: no MCP show");
    }
    let skill = std::fs::read_to_string(root.join("skills/megg-state/SKILL.md")).unwrap();
    assert!(
        skill.contains("before you save a lesson with learn"),
        "the skill says to search before learn"
    );
}

/// SPEC §15: the release repository is named once, in Cargo.toml; install.sh's default download
/// base and the plugin's missing-binary message name the same one.
#[test]
fn install_urls_follow_cargo_toml_s_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let repository = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = "))
        .unwrap()
        .trim_matches('"');
    let install = std::fs::read_to_string(root.join("install.sh")).unwrap();
    assert!(
        install.contains(&format!("MEGG_REPO_URL=\"{repository}\"")),
        "install.sh's default release is not {repository}"
    );
    let hooks = std::fs::read_to_string(root.join("hooks/hooks.json")).unwrap();
    assert!(
        hooks.contains(&format!("{repository}/releases/latest/download/install.sh")),
        "hooks.json"
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains(&format!("{repository}/releases/latest/download/install.sh")));
}
