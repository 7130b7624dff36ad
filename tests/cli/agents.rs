//! The SessionStart hook document for every host (SPEC §12): each host injects megg's context
//! from a different place, and Codex previews anything over about 10,000 bytes.

use serde_json::Value;

use crate::Project;

fn hook(p: &Project, agent: &str, extra: &[&str]) -> Value {
    let mut args = vec!["context", "--format", "hook", "--agent", agent];
    args.extend_from_slice(extra);
    let out = p.run("", &args);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::stdout_json(&out)
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn project() -> Project {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(
        ".megg/state.md",
        "---\nupdated: 2026-11-22T10:00:00Z\nstatus: active\n---\n\n## Working On\nShip the export\n",
    );
    p
}

#[test]
fn copilot_gets_a_top_level_additional_context() {
    let p = project();
    let v = hook(&p, "copilot", &[]);
    assert_eq!(keys(&v), ["additionalContext"], "{v}");
    let ctx = v["additionalContext"].as_str().unwrap();
    assert!(ctx.contains("## Working On\nShip the export"), "{ctx}");
}

#[test]
fn codex_and_gemini_get_only_hook_specific_output() {
    let p = project();
    for agent in ["codex", "gemini"] {
        let v = hook(&p, agent, &[]);
        assert_eq!(keys(&v), ["hookSpecificOutput"], "{agent}: {v}");
        let inner = &v["hookSpecificOutput"];
        assert_eq!(keys(inner).len(), 2, "{agent}: {v}");
        assert_eq!(inner["hookEventName"], "SessionStart");
        assert!(
            inner["additionalContext"]
                .as_str()
                .unwrap()
                .contains("Ship the export"),
            "{agent}"
        );
    }
    // Claude Code's document is unchanged.
    let v = hook(&p, "claude", &[]);
    assert_eq!(keys(&v), ["systemMessage", "hookSpecificOutput"]);
}

/// 9,500 characters of non-ASCII text are 15–28 KB: Codex would keep only its head and tail.
#[test]
fn codex_context_stays_under_its_preview_in_bytes_and_keeps_the_state() {
    let p = project();
    let mut info = String::from("---\ntype: context\n---\n\n# Shop\n\n");
    for i in 0..400 {
        info.push_str(&format!("- 第{i}行：店舗の説明、担当者、規約 😀\n"));
    }
    p.write(".megg/info.md", info);
    let v = hook(&p, "codex", &[]);
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.len() <= 9_500, "{} bytes", ctx.len());
    assert!(ctx.contains("## Working On\nShip the export"), "{ctx}");
    assert!(ctx.contains("[… info.md cut here"), "{ctx}");
    // Claude Code counts UTF-16 units, so it keeps more of the same text.
    let claude = hook(&p, "claude", &[]);
    let c = claude["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(c.len() > 9_500 && c.encode_utf16().count() <= 9_500);
}

/// Whatever fails, the host still gets a document it reads.
#[test]
fn a_failing_hook_answers_in_the_hosts_shape() {
    let p = Project::new();
    let v = hook(&p, "copilot", &["-C", "/nonexistent/dir"]);
    assert_eq!(keys(&v), ["additionalContext"], "{v}");
    assert!(
        v["additionalContext"]
            .as_str()
            .unwrap()
            .contains("could not load")
    );
    let v = hook(&p, "codex", &["--no-such-flag"]);
    assert_eq!(keys(&v), ["hookSpecificOutput"], "{v}");
}

/// Runs `megg ARGS` in `p` with `input` on stdin and HOME inside the test's cache directory.
fn with_input(p: &Project, args: &[&str], input: &str) -> std::process::Output {
    p.megg("")
        .env("PATH", "/usr/bin:/bin")
        .env_remove("COPILOT_HOME")
        .args(args)
        .write_stdin(input.to_string())
        .output()
        .unwrap()
}

/// What Copilot CLI hands a Claude-format SessionStart hook from `.claude/settings.json`.
fn copilot_input(p: &Project) -> String {
    serde_json::json!({
        "sessionId": "0f4c2a8e-1111-2222-3333-444455556666",
        "cwd": p.root(),
        "source": "new",
        "initialPrompt": "fix the export",
        "timestamp": 1_763_900_000_000_u64,
    })
    .to_string()
}

/// "Copilot also runs the Claude-format hooks in `.claude/settings.json` of a trusted folder:
/// a project set up for Claude Code and Copilot must not give either model megg's context
/// twice." Claude Code's own hook, called by Copilot, answers in Copilot's shape when no
/// Copilot hook of megg's is registered, and does nothing when one is.
#[test]
fn a_claude_format_call_from_copilot_gives_the_context_once() {
    let p = project();
    crate::Git::init(p.root(), "main");
    let claude = r#"{"session_id": "abc", "cwd": "/x", "hook_event_name": "SessionStart", "source": "startup"}"#;
    let out = with_input(&p, &["context", "--json"], claude);
    let v = crate::stdout_json(&out);
    assert_eq!(keys(&v), ["systemMessage", "hookSpecificOutput"], "{v}");

    // Copilot without its own megg hook: Copilot reads only a top-level additionalContext.
    let out = with_input(&p, &["context", "--json"], &copilot_input(&p));
    let v = crate::stdout_json(&out);
    assert_eq!(keys(&v), ["additionalContext"], "{v}");
    assert!(
        v["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Ship the export")
    );

    // Copilot with megg's own Copilot hook (either scope): the Claude-format call is silent.
    let setup = p.run("", &["setup", "--agent", "copilot"]);
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let out = with_input(&p, &["context", "--json"], &copilot_input(&p));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(crate::stdout_json(&out), serde_json::json!({}));
    // ...and Copilot's own hook still answers (a new session: the call above, before setup,
    // already answered this one, and megg answers each start of a session once).
    let own = with_input(
        &p,
        &["context", "--format", "hook", "--agent", "copilot"],
        &copilot_input(&p).replace("0f4c2a8e-1111", "0f4c2a8e-9999"),
    );
    assert_eq!(keys(&crate::stdout_json(&own)), ["additionalContext"]);

    // At user scope (COPILOT_HOME) just the same.
    let q = project();
    crate::Git::init(q.root(), "main");
    let home = tempfile::tempdir().unwrap();
    let setup = q
        .megg("")
        .env("COPILOT_HOME", home.path())
        .args(["setup", "--agent", "copilot", "--scope", "user"])
        .output()
        .unwrap();
    assert!(
        setup.status.success(),
        "{}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let out = q
        .megg("")
        .env("COPILOT_HOME", home.path())
        .args(["context", "--json"])
        .write_stdin(copilot_input(&q))
        .output()
        .unwrap();
    assert_eq!(crate::stdout_json(&out), serde_json::json!({}));
}
