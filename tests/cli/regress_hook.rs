//! Regression tests for the hook budget, the systemMessage bound, setup's uninstall and the
//! templates' handling of agent text, each named after the defect it pins.

use serde_json::Value;

use crate::Project;

fn hook_doc(p: &Project, rel: &str, max: &str) -> Value {
    let out = p
        .megg(rel)
        .args(["context", "--json", "--max-chars", max])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn utf16(s: &str) -> usize {
    s.encode_utf16().count()
}

#[test]
fn hook_budget_cuts_lists_and_ancestors_before_the_state() {
    let p = Project::new();
    let mut rel = String::new();
    for level in 0..8 {
        rel = if rel.is_empty() {
            format!("l{level}")
        } else {
            format!("{rel}/l{level}")
        };
        p.domain(
            &rel,
            &format!("Level {level} {}", "with a long title ".repeat(3)),
        );
        p.write(
            &format!("{rel}/.megg/info.md"),
            format!(
                "# Level {level}\n\n{}\n",
                "An excerpt that goes on. ".repeat(10)
            ),
        );
    }
    for i in 0..150 {
        p.write(&format!("{rel}/.megg/notes-{i:03}.md"), "x");
    }
    for c in 0..30 {
        p.domain(&format!("{rel}/child-{c:02}"), "Child");
    }
    let state = format!(
        "## Working On\nThe thing\n\n## Progress\n{}\n## Next\n- finish\n",
        "- a step that was done\n".repeat(40)
    );
    p.megg(&rel)
        .args(["state", "write", "--content", &state])
        .assert()
        .success();
    let v = hook_doc(&p, &rel, "3000");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(utf16(ctx) <= 3000, "{} > 3000", utf16(ctx));
    assert!(
        ctx.contains(state.trim_end()),
        "the state is cut last; lists and ancestors go first:\n{ctx}"
    );
    assert!(
        ctx.contains("Also in .megg (not loaded): 150 files"),
        "{ctx}"
    );
    assert!(ctx.contains("ancestor domain(s)"), "{ctx}");
}

#[test]
fn system_message_is_at_most_2000_characters_whatever_the_repository_holds() {
    let p = Project::new();
    p.domain("", "P");
    for i in 0..5_000 {
        std::fs::write(p.path(&format!(".megg/note-{i:04}.md")), "x").unwrap();
    }
    let v = hook_doc(&p, "", "9500");
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        utf16(msg) <= 2000,
        "systemMessage is {} characters",
        utf16(msg)
    );
    assert!(msg.contains("… and "), "{msg}");
    assert!(msg.contains("more"), "{msg}");
    assert!(
        msg.ends_with("saving it with `megg learn`."),
        "the reminder survives"
    );
}

#[test]
fn knowledge_blocked_by_its_size_is_not_reported_as_an_exact_count() {
    let p = Project::new();
    p.domain("", "P");
    let entry = "---\n\n## 2026-01-01 - E\n**Type:** fact\n**Topics:** t\n\n";
    let mut text = String::from("# Knowledge\n\n");
    while text.len() <= 2_100_000 {
        text.push_str(entry);
        text.push_str(&"word ".repeat(400));
        text.push('\n');
    }
    p.write(".megg/knowledge.md", &text);
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["knowledge"]["mode"], "blocked");
    assert_eq!(v["knowledge"]["tokens_exact"], false, "{}", v["knowledge"]);
    let hook = hook_doc(&p, "", "9500");
    let msg = hook["systemMessage"].as_str().unwrap();
    assert!(msg.contains("(blocked, over 16000 tokens)"), "{msg}");
}

#[test]
fn setup_uninstall_keeps_a_gitignore_block_that_was_there_before_setup() {
    let p = Project::new();
    crate::Git::init(p.root(), "main");
    let before = "target/\n# megg: per-developer session state (not shared)\n.*.local.md\n**/.megg/state.md\n";
    p.write(".gitignore", before);
    let run = |args: &[&str]| {
        p.megg("")
            .env("HOME", p.path("home"))
            .args(args)
            .assert()
            .success();
    };
    run(&["setup"]);
    run(&["setup", "--uninstall"]);
    assert_eq!(
        p.read(".gitignore"),
        before,
        "a block setup did not add stays"
    );

    // Half of it there before: uninstall takes away only the line setup added.
    let half = "target/\n.*.local.md\n";
    p.write(".gitignore", half);
    run(&["setup"]);
    assert!(p.read(".gitignore").contains("**/.megg/state.md"));
    run(&["setup", "--uninstall"]);
    assert_eq!(p.read(".gitignore"), half);
}
