//! The workflow commands and `/megg-state` as Gemini CLI custom commands (SPEC §12): TOML that
//! Gemini CLI 0.61's FileCommandLoader accepts (`prompt` required, `description` optional, both
//! strings), worded for Gemini's tools, with the same megg commands — each run against the real
//! binary — and the same cases as the Claude Code files they mirror.

use megg::templates::{CLAUDE_FILES, GEMINI_FILES};

use crate::docs::{
    Fixture, PLAN, WORKFLOWS, assert_agent_text_stays_off_the_command_line, bullet, commands_in,
    matches_template, run_every_megg_command, section, warnings_of,
};

/// A Gemini command file: its path under `.gemini/`, the command name Gemini derives from it,
/// its `description` and `prompt`, and the text of the Claude Code file it mirrors.
struct Command {
    path: &'static str,
    name: String,
    description: String,
    prompt: String,
    claude: &'static str,
}

/// The name Gemini CLI gives a command file: its path under `commands/`, without `.toml`, each
/// segment with characters outside `[A-Za-z0-9_.-]` replaced by `_`, joined with `:`.
fn gemini_name(path: &str) -> String {
    path.strip_prefix("commands/")
        .and_then(|p| p.strip_suffix(".toml"))
        .unwrap_or_else(|| panic!("{path} is not a .toml under commands/"))
        .split('/')
        .map(|s| {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// `description` and `prompt` of a command file, as Gemini reads them; panics on anything its
/// loader would skip.
fn parse(path: &str, text: &str) -> (String, String) {
    let doc: toml_edit::DocumentMut = text
        .parse()
        .unwrap_or_else(|e| panic!("{path} is not TOML: {e}"));
    let keys: Vec<&str> = doc.as_table().iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["description", "prompt"], "{path}: keys");
    let field = |k: &str| {
        doc[k]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: `{k}` is not a string"))
            .to_string()
    };
    (field("description"), field("prompt"))
}

fn commands() -> Vec<Command> {
    GEMINI_FILES
        .iter()
        .map(|(path, text)| {
            let name = gemini_name(path);
            let (description, prompt) = parse(path, text);
            let claude_path = match name.as_str() {
                "megg-state" => "skills/megg-state/SKILL.md".to_string(),
                n => format!("commands/{}.md", n.replace(':', "/")),
            };
            let claude = CLAUDE_FILES
                .iter()
                .find(|(p, _)| *p == claude_path)
                .unwrap_or_else(|| panic!("{path}: no Claude file {claude_path}"))
                .1;
            Command {
                path,
                name,
                description,
                prompt,
                claude,
            }
        })
        .collect()
}

fn workflow(name: &str) -> Command {
    commands()
        .into_iter()
        .find(|c| c.name == format!("workflows:{name}"))
        .unwrap()
}

/// The `!{…}` / `@{…}` injections of a prompt, parsed as Gemini's `extractInjections` does
/// (braces counted from the trigger on); `Err` where Gemini would refuse to run the command.
fn injections(prompt: &str, trigger: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = prompt;
    while let Some(start) = rest.find(trigger) {
        let body = &rest[start + trigger.len()..];
        let mut depth = 1;
        let end = body.char_indices().find_map(|(i, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        });
        let Some(end) = end else {
            return Err(format!("unclosed {trigger} at {start}"));
        };
        out.push(body[..end].trim().to_string());
        rest = &body[end + 1..];
    }
    Ok(out)
}

/// The inline code spans of a markdown text, outside fenced code blocks.
fn code_spans(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            for (i, span) in line.split('`').enumerate() {
                if i % 2 == 1 && !out.iter().any(|s| s == span) {
                    out.push(span.to_string());
                }
            }
        }
    }
    out
}

#[test]
fn gemini_files_are_every_template_and_mirror_the_claude_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/gemini");
    let mut on_disk = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let rel = path.strip_prefix(&root).unwrap().to_str().unwrap();
                on_disk.push(rel.to_string());
            }
        }
    }
    on_disk.sort();
    let mut listed: Vec<String> = GEMINI_FILES.iter().map(|(p, _)| p.to_string()).collect();
    listed.sort();
    assert_eq!(listed, on_disk, "GEMINI_FILES lists every template");
    let mut names: Vec<String> = commands().into_iter().map(|c| c.name).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "megg-state",
            "workflows:compound",
            "workflows:plan",
            "workflows:review",
            "workflows:work"
        ]
    );
    // The same names as the Claude Code commands and skill.
    for c in commands() {
        let claude_name = c
            .claude
            .lines()
            .find_map(|l| l.strip_prefix("name: "))
            .unwrap();
        assert_eq!(claude_name, c.name, "{}", c.path);
    }
}

#[test]
fn every_gemini_command_is_one_gemini_cli_loads() {
    for c in commands() {
        let path = c.path;
        assert!(!c.description.trim().is_empty(), "{path}: description");
        // Gemini shows one line, cut at 100 characters.
        assert!(
            !c.description.contains('\n') && c.description.chars().count() <= 100,
            "{path}: description longer than Gemini shows: {:?}",
            c.description
        );
        assert!(
            c.prompt.trim().len() > 500,
            "{path}: prompt is empty or a stub"
        );
        // The user's words arrive through `{{args}}` in the prompt text only: a `!{…}` shell
        // injection never carries them, and nothing is injected from a file.
        assert!(c.prompt.contains("{{args}}"), "{path}: no {{{{args}}}}");
        for shell in injections(&c.prompt, "!{").unwrap_or_else(|e| panic!("{path}: {e}")) {
            assert!(
                !shell.contains("{{args}}"),
                "{path}: `!{{{shell}}}` runs the user's words"
            );
        }
        let files = injections(&c.prompt, "@{").unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(files.is_empty(), "{path}: injects {files:?}");
        // setup marks an installed file with a last `#` comment line; the command stays the
        // same (an HTML comment, as on markdown, would make Gemini skip the file).
        let text = GEMINI_FILES.iter().find(|(p, _)| *p == path).unwrap().1;
        let marked = format!("{text}\n# installed by megg setup; megg-hash: 0123456789abcdef\n");
        assert_eq!(
            parse(path, &marked),
            (c.description.clone(), c.prompt.clone())
        );
        let html = format!("{text}\n<!-- installed by megg setup -->\n");
        assert!(html.parse::<toml_edit::DocumentMut>().is_err());
    }
}

#[test]
fn gemini_commands_name_no_claude_only_tool() {
    for c in commands() {
        for claude_only in [
            "AskUserQuestion",
            "TodoWrite",
            "TaskCreate",
            "Bash(",
            "$ARGUMENTS",
            "(Write)",
            "/tmp/",
        ] {
            assert!(
                !c.prompt.contains(claude_only) && !c.description.contains(claude_only),
                "{}: mentions {claude_only:?}",
                c.path
            );
        }
        // Gemini's own tools (SPEC §12: `write_file`, `replace`, `write_todos`; the shell tool
        // `run_shell_command`).
        assert!(c.prompt.contains("`run_shell_command`"), "{}", c.path);
        if c.prompt.contains("megg learn --file") || c.prompt.contains("megg state write") {
            assert!(c.prompt.contains("`write_file`"), "{}", c.path);
            let words = c.prompt.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                words.contains("project's temporary directory"),
                "{}: write_file writes only in the workspace and Gemini's temp directory",
                c.path
            );
        }
    }
}

#[test]
fn every_megg_command_in_the_gemini_prompts_runs_as_documented() {
    let mut seen = 0;
    for c in commands() {
        seen += run_every_megg_command(c.path, &c.prompt);
    }
    assert!(seen >= 20, "only {seen} commands found");
}

#[test]
fn agent_text_never_becomes_shell_syntax_in_the_gemini_prompts() {
    for c in commands() {
        assert_agent_text_stays_off_the_command_line(c.path, &c.prompt);
    }
}

/// The Gemini files run exactly the megg commands of the Claude files and quote every name,
/// field, status, option, warning and message the Claude files quote — all but the Claude
/// file's example temp path, which Gemini's `write_file` could not write.
#[test]
fn gemini_commands_keep_every_command_and_case_of_the_claude_files() {
    for c in commands() {
        let mut theirs = commands_in(c.claude);
        let mut ours = commands_in(&c.prompt);
        theirs.sort();
        theirs.dedup();
        ours.sort();
        ours.dedup();
        assert_eq!(ours, theirs, "{}: megg commands", c.path);
        for span in code_spans(c.claude) {
            if span.starts_with("/tmp/") {
                continue;
            }
            assert!(
                c.prompt.contains(&format!("`{span}`")),
                "{}: does not quote `{span}` as {} does",
                c.path,
                c.name
            );
        }
    }
}

/// docs.rs's checks of every outcome of discovery, for the Gemini prompts: where the Claude
/// files ask with AskUserQuestion, these ask the user (with `ask_user` or in plain text) and
/// wait.
#[test]
fn every_gemini_workflow_handles_found_none_multiple_corrupt_and_errors() {
    for name in WORKFLOWS {
        let c = workflow(name);
        let text = &c.prompt;
        let asking = section(text, "## How to run megg and ask the user");
        for phrase in [
            "`ask_user`",
            "plain text",
            "wait for the user's reply",
            "dismisses",
        ] {
            assert!(
                asking.contains(phrase),
                "{name}.toml: asking lacks {phrase:?}"
            );
        }
        let discovery = section(text, "### State Discovery");
        assert!(discovery.contains(&format!("--for {name} --json")));
        let errors = bullet(discovery, "**megg exits non-zero**");
        for phrase in ["`error:", "`hint:", "command not found"] {
            assert!(
                errors.contains(phrase),
                "{name}.toml errors lack {phrase:?}"
            );
        }
        assert!(bullet(discovery, "**`warnings`**").contains("word for word"));
        let none = bullet(discovery, "**`status: \"none\"`**");
        assert!(
            [
                "Phase 1",
                "megg checkpoint save",
                "\"Record the learnings\""
            ]
            .iter()
            .any(|next| none.contains(next)),
            "{name}.toml: `none` says where to go on:\n{none}"
        );
        let multiple = bullet(discovery, "**`status: \"multiple\"`**");
        for phrase in [
            "`candidates`",
            "Ask the user",
            &format!("megg checkpoint resume <SLUG> --for {name} --json"),
        ] {
            assert!(
                multiple.contains(phrase),
                "{name}.toml `multiple` lacks {phrase:?}"
            );
        }
        let found = bullet(discovery, "**`status: \"found\"`**");
        for phrase in [
            "ask the user",
            "`question`",
            "`options`",
            "`Use /workflows:<cmd>`",
            "Checkpoint shows phase '<phase>'. You may want /workflows:<cmd>",
            &format!("megg checkpoint resume <SLUG> --for {name} --choice fresh --json"),
            &format!("megg checkpoint resume <SLUG> --for {name} --choice view"),
            "dismisses",
        ] {
            assert!(
                found.to_lowercase().contains(&phrase.to_lowercase()),
                "{name}.toml `found` lacks {phrase:?}"
            );
        }
        if name != "plan" {
            for phrase in [
                &format!("megg checkpoint resume <SLUG> --for {name} --choice resume --json"),
                &format!(
                    "megg checkpoint resume <SLUG> --for {name} --choice resume --plan-file <NEW_PATH> --json"
                ),
            ] {
                assert!(
                    found.contains(phrase),
                    "{name}.toml `found` lacks {phrase:?}"
                );
            }
        }
        let corrupt = bullet(discovery, "**`corrupt`**");
        assert!(
            corrupt.contains(
                "Checkpoint '<name>' is corrupt (invalid YAML) — moved to <where>; starting fresh"
            ),
            "{name}.toml: corrupt"
        );
        for command in commands_in(text) {
            if command.starts_with("megg checkpoint resume") {
                assert!(
                    command.contains(&format!("--for {name}")),
                    "{name}.toml: `{command}` drops --for {name}"
                );
            }
        }
    }
    // plan looks before it writes a plan, and ends with the checkpoint.
    let plan = workflow("plan").prompt;
    let discovery = plan
        .find("megg checkpoint resume --for plan --json")
        .unwrap();
    assert!(discovery < plan.find("\n## Phase 1").unwrap());
    assert!(discovery < plan.find("megg checkpoint save").unwrap());
    let found = bullet(section(&plan, "State Discovery"), "**`status: \"found\"`**");
    assert!(found.contains("write no plan") && found.contains("`Plan new feature`"));
    let last_heading = plan.lines().rev().find(|l| l.starts_with('#')).unwrap();
    assert_eq!(last_heading, "### State Checkpoint");
    // work: every staleness tier, a missing plan, discovery before Phase 1.
    let work = workflow("work").prompt;
    let discovery = section(&work, "### State Discovery");
    assert!(work.find("### State Discovery").unwrap() < work.find("## Phase 1").unwrap());
    for (tier, phrase) in [
        ("fresh", "`resume` first and recommended"),
        ("recent", "none recommended"),
        ("stale", "This state is <N> days old and may be outdated"),
        ("abandoned", "`Resume anyway`"),
    ] {
        let row = discovery
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("| `{tier}`")))
            .unwrap_or_else(|| panic!("work.toml has no row for the {tier} tier"));
        assert!(row.contains(phrase), "work.toml {tier}: {row}");
    }
    let gone = bullet(discovery, "`Plan file not found: <path>`");
    assert!(gone.contains("`new-path`") && gone.contains("`fresh`"));
    assert!(bullet(discovery, "`new-path`").contains("--plan-file <NEW_PATH>"));
    let compound = workflow("compound").prompt;
    assert!(compound.contains("megg checkpoint finish <SLUG>"));
    assert!(compound.contains("megg learn --file <ENTRY_FILE>"));
}

#[test]
fn megg_state_saves_shows_and_clears_by_its_argument() {
    let c = commands()
        .into_iter()
        .find(|c| c.name == "megg-state")
        .unwrap();
    let p = &c.prompt;
    for phrase in [
        "## Working On",
        "## Progress",
        "## Next",
        "## Context",
        "## `/megg-state` — capture",
        "## `/megg-state show` — display",
        "## `/megg-state clear` — the task is done",
        "If that is `show`",
        "if it is `clear`",
        "`mcp_megg_state`",
        "megg state write --file <STATE_FILE>",
    ] {
        assert!(p.contains(phrase), "megg-state.toml lacks {phrase:?}");
    }
    // The argument is read before the sections that depend on it.
    assert!(p.find("{{args}}").unwrap() < p.find("## `/megg-state` — capture").unwrap());
}

/// The statuses, option ids and warnings megg returns, built with the real binary, are the ones
/// the Gemini prompts tell the agent to look for.
#[test]
fn the_json_megg_returns_is_what_the_gemini_prompts_tell_the_agent_to_read() {
    let prompts: Vec<(&str, String)> = WORKFLOWS.iter().map(|n| (*n, workflow(n).prompt)).collect();
    let quoted = [
        "This state is <N> days old and may be outdated",
        "Plan file not found: <path>",
        "Checkpoint shows phase '<phase>'. You may want /workflows:<cmd>",
        "Checkpoint '<name>' is corrupt (invalid YAML) — moved to <where>; starting fresh",
    ];
    let check = |name: &str, text: &str, v: &serde_json::Value| {
        let discovery = section(text, "### State Discovery");
        let status = v["status"].as_str().unwrap();
        assert!(
            discovery.contains(&format!("**`status: \"{status}\"`**")),
            "{name}.toml: status {status}"
        );
        for o in v["options"].as_array().into_iter().flatten() {
            let id = o["id"].as_str().unwrap();
            assert!(
                discovery.contains(&format!("`{id}`")),
                "{name}.toml does not say what `{id}` does"
            );
        }
        for w in warnings_of(v) {
            let template = quoted
                .iter()
                .find(|t| matches_template(&w, t))
                .unwrap_or_else(|| panic!("unexpected warning {w:?}"));
            // plan leaves a moved plan to the command the phase names; work quotes them all.
            if name == "work" || template.starts_with("Checkpoint ") {
                assert!(text.contains(template), "{name}.toml: {template}");
            }
        }
    };

    // found, fresh and abandoned, with a phase mismatch for every command but work.
    let f = Fixture::new();
    f.save(PLAN, "work");
    for now in ["2026-11-22T13:00:00Z", "2027-01-30T12:00:00Z"] {
        for (name, text) in &prompts {
            let v = f.discover(name, now);
            assert_eq!(v["status"], "found");
            check(name, text, &v);
        }
    }
    // The plan file gone: `new-path` among the options.
    std::fs::remove_file(f.p.path(PLAN)).unwrap();
    for (name, text) in &prompts {
        let v = f.discover(name, crate::NOW);
        check(name, text, &v);
    }
    // none, and a corrupt checkpoint moved aside.
    for (name, text) in &prompts {
        let f = Fixture::new();
        f.p.write(
            ".x.local.md",
            "---\nfeature: x\nplan_file: [unclosed\n---\n",
        );
        let v = f.discover(name, crate::NOW);
        assert_eq!(v["status"], "none");
        assert_eq!(v["corrupt"][0]["file"], ".x.local.md");
        check(name, text, &v);
    }
    // multiple: two saved sessions and no target.
    let f = Fixture::new();
    f.save(PLAN, "work");
    f.p.write("docs/plans/2026-01-16-feat-billing-plan.md", "# Billing\n");
    f.save("docs/plans/2026-01-16-feat-billing-plan.md", "review");
    for (name, text) in &prompts {
        let out = f.run(
            crate::NOW,
            &["checkpoint", "resume", "--for", name, "--json"],
        );
        let v = crate::stdout_json(&out);
        assert_eq!(v["status"], "multiple");
        check(name, text, &v);
        let multiple = bullet(
            section(text, "### State Discovery"),
            "**`status: \"multiple\"`**",
        );
        for field in [
            "`feature`",
            "`phase`",
            "`age_days`",
            "`progress.done`/`progress.total`",
        ] {
            assert!(multiple.contains(field), "{name}.toml: {field}");
        }
    }
}
