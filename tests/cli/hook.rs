//! The hook format (`context --json`): the budget of SPEC §3.3 and "never fails".

use std::os::unix::fs::PermissionsExt;
use std::process::Output;

use serde_json::Value;

use crate::{Project, knowledge_file};

fn utf16(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Exit 0, nothing on stderr, exactly one JSON document on stdout.
fn assert_hook_ok(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = crate::stdout_json(out);
    assert!(v["systemMessage"].is_string());
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(v["hookSpecificOutput"]["additionalContext"].is_string());
    v
}

fn context_of(v: &Value) -> &str {
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
}

/// A chain whose full content is about 40,000 characters: a long ancestor, many siblings and
/// children, full knowledge near 8k tokens, a long info.md and an active state.
fn big_chain() -> Project {
    let p = Project::new();
    let long = |word: &str, lines: usize| {
        (0..lines)
            .map(|i| format!("{word} line {i}: details that matter to somebody, some day.\n"))
            .collect::<String>()
    };
    p.write("org/.megg/info.md", format!("# Org\n\n{}", long("org", 40)));
    p.write(
        "org/app/.megg/info.md",
        format!(
            "---\ntype: context\n---\n\n# The App\n\n## Context\n{}",
            long("app", 170)
        ),
    );
    for i in 0..30 {
        p.domain(&format!("org/sibling-{i:02}"), "S");
        p.domain(&format!("org/app/child-{i:02}"), "C");
    }
    p.write("org/app/.megg/knowledge.md", knowledge_file(6_000));
    p.write(
        "org/app/.megg/state.md",
        format!(
            "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nMigrating the billing job\n\n## Next\n{}",
            long("next", 10)
        ),
    );
    p
}

#[test]
fn budget_keeps_a_40k_chain_within_9500_characters() {
    let p = big_chain();
    let full = p.ok("org/app", &["context"]);
    assert!(utf16(&full) >= 40_000, "fixture is {} chars", utf16(&full));

    let v = assert_hook_ok(&p.run("org/app", &["context", "--json"]));
    let ctx = context_of(&v);
    assert!(utf16(ctx) <= 9_500, "{} chars", utf16(ctx));
    // Still there: the state, the current info title, what was cut and how to get it.
    assert!(ctx.contains("Migrating the billing job"), "{ctx}");
    assert!(ctx.contains("# The App"));
    assert!(ctx.contains("Context trimmed to fit"));
    assert!(ctx.contains("megg context"), "a command to get the rest");
    let knowledge = p.path("org/app/.megg/knowledge.md").display().to_string();
    assert!(ctx.contains(&knowledge), "the knowledge path");
    // The mode actually delivered, in both places.
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains(&format!("{knowledge} (summary, "))
            || msg.contains(&format!("{knowledge} (topics, ")),
        "{msg}"
    );
    assert!(msg.contains("Trimmed to fit"), "{msg}");
}

#[test]
fn budget_degrades_in_order() {
    let p = big_chain();
    // Eight ancestors with long descriptions: dropping their excerpts alone saves enough.
    let deep = Project::new();
    let mut rel = String::new();
    for level in 0..8 {
        rel = crate::join(&rel, &format!("l{level}"));
        deep.write(
            &crate::join(&rel, ".megg/info.md"),
            format!(
                "# Level {level}\n\n{}\n",
                "A long description of this level. ".repeat(8)
            ),
        );
    }
    deep.write(
        &crate::join(&rel, ".megg/info.md"),
        format!(
            "# Current\n\n{}",
            "A line of the current domain's own context.\n".repeat(80)
        ),
    );
    for i in 0..10 {
        deep.domain(&crate::join(&rel, &format!("child-{i}")), "C");
    }
    let full = utf16(&deep.ok(&rel, &["context"]));
    let budget = (full - 300).to_string();
    let v = assert_hook_ok(&deep.run(&rel, &["context", "--json", "--max-chars", &budget]));
    let ctx = context_of(&v);
    assert!(utf16(ctx) <= full - 300);
    assert!(
        !ctx.contains("A long description"),
        "ancestor excerpts went first"
    );
    assert!(ctx.contains("- child-9"), "lists kept");
    assert!(!ctx.contains("info.md cut"), "info kept whole");

    let v = assert_hook_ok(&p.run("org/app", &["context", "--json", "--max-chars", "30000"]));
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("over Claude Code's 10000")
    );
    // Tighter: lists become counts before knowledge is summarized.
    let v = assert_hook_ok(&p.run("org/app", &["context", "--json", "--max-chars", "30000"]));
    let ctx = context_of(&v);
    assert!(ctx.contains("## Subdomains: 30"), "lists became counts");
    assert!(ctx.contains("## Knowledge (summary,"), "{ctx}");
    assert!(ctx.contains("app line 169"), "info.md still whole");

    // The smallest budget keeps the state's first lines and the info title.
    let v = assert_hook_ok(&p.run("org/app", &["context", "--json", "--max-chars", "2000"]));
    let ctx = context_of(&v);
    assert!(utf16(ctx) <= 2_000, "{}", utf16(ctx));
    assert!(ctx.contains("# The App"), "{ctx}");
}

#[test]
fn budget_from_env_and_invalid_env() {
    let p = big_chain();
    let out = p
        .megg("org/app")
        .env("MEGG_HOOK_MAX_CHARS", "5000")
        .args(["context", "--json"])
        .output()
        .unwrap();
    assert!(utf16(context_of(&assert_hook_ok(&out))) <= 5_000);
    let out = p
        .megg("org/app")
        .env("MEGG_HOOK_MAX_CHARS", "lots")
        .args(["context", "--json"])
        .output()
        .unwrap();
    let v = assert_hook_ok(&out);
    assert!(utf16(context_of(&v)) <= 9_500);
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("MEGG_HOOK_MAX_CHARS")
    );
}

#[test]
fn small_context_is_untouched() {
    let p = Project::new();
    p.domain("", "P");
    let v = assert_hook_ok(&p.run("", &["context", "--json"]));
    assert!(!context_of(&v).contains("trimmed"));
    assert!(!v["systemMessage"].as_str().unwrap().contains("Trimmed"));
}

#[test]
fn hook_with_corrupt_frontmatter() {
    let p = Project::new();
    p.write(".megg/info.md", "---\ncreated: [unclosed\n---\n# Title\n");
    p.write(
        ".megg/state.md",
        "---\nupdated: [broken\nstatus: active\n---\n\nx\n",
    );
    p.write(".megg/knowledge.md", "---\n: : :\n---\n## no type\n");
    let v = assert_hook_ok(&p.run("", &["context", "--json"]));
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("invalid frontmatter")
    );
    // The corrupt state is reported, not loaded, and left as it was.
    assert!(p.read(".megg/state.md").contains("[broken"));
}

#[test]
fn hook_with_non_utf8_bytes() {
    let p = Project::new();
    p.write(".megg/info.md", b"# Caf\xe9\n\xff\xfe body\n");
    p.write(
        ".megg/knowledge.md",
        b"## 2026-01-01 - \xc3\x28 bad\n**Type:** fact\n**Topics:** x\n",
    );
    let v = assert_hook_ok(&p.run("", &["context", "--json"]));
    assert!(context_of(&v).contains('\u{FFFD}'));
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8")
    );
}

/// Runs megg as an unprivileged user when the tests run as root (root reads everything, so
/// a 0o000 directory would not be unreadable to it).
fn run_unprivileged(p: &Project, rel: &str, args: &[&str]) -> Output {
    use std::os::unix::fs::MetadataExt;
    let is_root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !is_root {
        return p.run(rel, args);
    }
    std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("megg"))
        .args(args)
        .current_dir(p.path(rel))
        .env_clear()
        .env("MEGG_NOW", crate::NOW)
        .env("MEGG_CACHE_DIR", "")
        .env("NO_COLOR", "1")
        .env("MEGG_CEILING_DIRS", p.root().parent().unwrap())
        .output()
        .unwrap()
}

#[test]
fn hook_with_an_unreadable_directory() {
    let p = Project::new();
    p.domain("", "P");
    p.domain("locked/inner", "Hidden away");
    std::fs::set_permissions(p.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(p.path("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let out = run_unprivileged(&p, "", &["context", "--json"]);
    std::fs::set_permissions(p.path("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let v = assert_hook_ok(&out);
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(msg.contains("unreadable directory"), "{msg}");
    // The text format reports the same as a warning on stderr and still succeeds.
    std::fs::set_permissions(p.path("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let out = run_unprivileged(&p, "", &["context"]);
    std::fs::set_permissions(p.path("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("warning: skipped unreadable directory")
    );
}

#[test]
fn hook_with_a_symlink_loop() {
    let p = Project::new();
    p.domain("", "P");
    p.mkdir("a");
    std::os::unix::fs::symlink(p.path("a/loop2"), p.path("a/loop1")).unwrap();
    std::os::unix::fs::symlink(p.path("a/loop1"), p.path("a/loop2")).unwrap();
    std::os::unix::fs::symlink(p.root(), p.path("a/up")).unwrap();
    std::os::unix::fs::symlink(p.path(".megg/self.md"), p.path(".megg/self.md")).unwrap_or(());
    let v = assert_hook_ok(&p.run("", &["context", "--json"]));
    assert!(context_of(&v).contains("# P"));
}

#[test]
fn hook_with_no_megg_anywhere() {
    let p = Project::new();
    p.mkdir("empty");
    let v = assert_hook_ok(&p.run("empty", &["context", "--json"]));
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("no .megg found")
    );
}

#[test]
fn hook_with_bad_arguments_environment_and_missing_dir() {
    let p = Project::new();
    p.domain("", "P");
    assert_hook_ok(&p.run("", &["context", "--json", "--bogus-flag"]));
    assert_hook_ok(&p.run("", &["context", "--json", "--max-chars", "many"]));
    assert_hook_ok(&p.run("", &["-C", "does/not/exist", "context", "--json"]));
    assert_hook_ok(&p.run("", &["context", "missing-path", "--json"]));
    let out = p
        .megg("")
        .env("MEGG_NOW", "not a time")
        .args(["context", "--json"])
        .output()
        .unwrap();
    let v = assert_hook_ok(&out);
    assert!(v["systemMessage"].as_str().unwrap().contains("MEGG_NOW"));
    assert!(context_of(&v).contains("# P"), "context still loads");
}

#[test]
fn hook_survives_a_panic() {
    let p = Project::new();
    p.domain("", "P");
    let out = p
        .megg("")
        .env("MEGG_FAILPOINTS", "panic=hook")
        .args(["context", "--json"])
        .output()
        .unwrap();
    let v = assert_hook_ok(&out);
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("internal error")
    );
}

#[test]
fn hook_with_a_huge_info_file() {
    let p = Project::new();
    p.write(
        ".megg/info.md",
        "# Huge\n".to_string() + &"x".repeat(5_000_000),
    );
    let v = assert_hook_ok(&p.run("", &["context", "--json"]));
    assert!(utf16(context_of(&v)) <= 9_500);
    assert!(context_of(&v).contains("# Huge"));
}
