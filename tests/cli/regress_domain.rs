//! Regression tests for defects in the domain's pure functions (knowledge, state, frontmatter,
//! maintain, init), each named after the defect it pins.

use crate::Project;

#[test]
fn learn_with_a_newline_in_topics_does_not_split_its_entry() {
    let p = Project::new();
    p.domain("", "P");
    for topics in ["auth\n---\n## Injected\n**Type:** rule", "auth\nsecurity"] {
        let out = p.run("", &["learn", "Title", "fact", topics, "body"]);
        assert_eq!(out.status.code(), Some(1), "{topics:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("topics must be on one line"));
    }
    assert!(!p.path(".megg/knowledge.md").exists(), "nothing written");
}

#[test]
fn learn_file_checks_its_entry_like_the_arguments() {
    let p = Project::new();
    p.domain("", "P");
    p.write("bad.md", "no header\n**Type:** fact\n");
    let out = p.run("", &["learn", "--file", "bad.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`## Title`"));
    p.write("e.md", "## T\n**Type:** nonsense\n**Topics:** a\n\nx\n");
    let out = p.run("", &["learn", "--file", "e.md"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown type 'nonsense'"));
    // --file and the positional form exclude each other (a usage error).
    let out = p.run("", &["learn", "--file", "e.md", "T", "fact", "a", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!p.path(".megg/knowledge.md").exists());
}

#[test]
fn checkpoint_update_on_quoted_keys_writes_a_file_that_still_parses() {
    let p = Project::new();
    crate::Git::init(p.root(), "main");
    p.write("docs/plans/2026-01-15-feat-auth-plan.md", "# plan\n");
    p.write(
        ".auth.local.md",
        "---\n\"feature\": auth\n'plan_file': docs/plans/2026-01-15-feat-auth-plan.md\n\"phase\": work\n\"updated\" : 2026-11-22T10:00:00Z\n---\n## Progress\n- [x] Plan created\n- [ ] Tests passing\n",
    );
    p.ok(
        "",
        &[
            "checkpoint",
            "update",
            "auth",
            "--phase",
            "review",
            "--check",
            "Tests",
        ],
    );
    let text = p.read(".auth.local.md");
    assert_eq!(text.matches("phase").count(), 1, "one phase key:\n{text}");
    assert_eq!(
        text.matches("updated").count(),
        1,
        "one updated key:\n{text}"
    );
    let v = p.json("", &["checkpoint", "list", "--json"]);
    assert_eq!(v["corrupt"], serde_json::json!([]), "{v}");
    assert_eq!(v["checkpoints"][0]["phase"], "review");
    assert_eq!(v["checkpoints"][0]["progress"]["done"], 2);
}

#[test]
fn a_state_dated_more_than_an_hour_ahead_expires_with_a_warning_naming_the_date() {
    let p = Project::new();
    p.domain("", "P");
    let state = |updated: &str| {
        format!("---\nupdated: {updated}\nstatus: active\n---\n\n## Working On\nx\n")
    };
    // Now is 2026-11-22T12:00:00Z: exactly one hour ahead is still active.
    p.write(".megg/state.md", state("2026-11-22T13:00:00Z"));
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["state"]["status"], "active", "{v}");
    p.write(".megg/state.md", state("2026-11-22T13:00:01Z"));
    let v = p.json("", &["context", "--format", "json"]);
    assert!(v["state"].is_null(), "one second more is expired: {v}");
    assert!(
        v["warnings"].to_string().contains("2026-11-22T13:00:01Z"),
        "{}",
        v["warnings"]
    );
    let v = p.json("", &["state", "--json"]);
    assert_eq!(v["state"]["expired"], true);
    p.write(".megg/state.md", state("2099-01-01T00:00:00Z"));
    assert!(p.ok("", &["state"]).contains("in the future"));
}

#[test]
fn state_write_truncation_keeps_most_of_a_huge_single_line() {
    let p = Project::new();
    p.domain("", "P");
    let content = format!("## Working On\nx\n\n{}\n", "word ".repeat(5_200));
    let v = p.json("", &["state", "write", "--content", &content, "--json"]);
    assert_eq!(v["truncated"], true);
    let tokens = v["tokens"].as_u64().unwrap();
    assert!(
        (1_500..=2_000).contains(&tokens),
        "kept {tokens} tokens of a 5,000-token line"
    );
    // A line boundary that keeps enough is still preferred.
    let lines = "a short line of text\n".repeat(700);
    let v = p.json("", &["state", "write", "--content", &lines, "--json"]);
    let kept = p.read(".megg/state.md");
    assert!(
        kept.trim_end().ends_with("a short line of text"),
        "cut at a line"
    );
    assert!(v["tokens"].as_u64().unwrap() >= 1_500);
}

#[test]
fn init_records_no_private_token_from_the_remote_url() {
    let p = Project::new();
    let git = crate::Git::init(p.root(), "main");
    git.repo
        .remote(
            "origin",
            "https://oauth2:glpat-userinfo@gitlab.example.com/team/app.git?private_token=glpat-query",
        )
        .unwrap();
    p.ok("", &["init"]);
    let info = p.read(".megg/info.md");
    assert!(info.contains("gitlab.example.com/team/app.git"), "{info}");
    assert!(
        !info.contains("glpat"),
        "a credential was recorded:\n{info}"
    );
}

/// `megg trust shared` (a relative DIR) resolved the path twice: the positional argument
/// shared its clap id with the global `-C DIR`, so `-C` became `shared` too and the trusted
/// directory `shared/shared`.
#[test]
fn trust_with_a_relative_dir_trusts_that_dir_from_where_megg_runs() {
    let p = Project::new();
    p.mkdir("work/shared");
    let config = tempfile::tempdir().unwrap();
    let out = p
        .megg("work")
        .env("XDG_CONFIG_HOME", config.path())
        .args(["trust", "shared", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = p
        .megg("")
        .env("XDG_CONFIG_HOME", config.path())
        .args(["trust", "--list", "--json"])
        .output()
        .unwrap();
    let want = std::fs::canonicalize(p.path("work/shared")).unwrap();
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains(want.to_str().unwrap()),
        "{}",
        String::from_utf8_lossy(&listed.stdout)
    );
    // And from a subdirectory with -C, relative to it.
    p.mkdir("work/sub/inner");
    let out = p
        .megg("")
        .env("XDG_CONFIG_HOME", config.path())
        .args(["-C", "work/sub", "trust", "inner"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
