//! `megg context`: every scenario of seed 003, in SPEC §3's terms, plus the TypeScript
//! fixtures.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::{Git, NOW, Project, knowledge_file};

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn seed003_multi_level_hierarchy() {
    let p = Project::new();
    p.domain("projects", "Projects");
    p.domain("projects/client", "Client");
    p.mkdir("projects/client/feature");
    let v = p.json("projects/client/feature", &["context", "--format", "json"]);
    assert_eq!(names(&v["chain"]), ["projects", "client"]);
    assert_eq!(v["chain"][0]["title"], "Projects");
    assert_eq!(v["domain"]["name"], "client");
    assert!(v["info"].as_str().unwrap().starts_with("# Client"));
    assert_eq!(
        v["path"].as_str().unwrap(),
        p.path("projects/client/feature").to_str().unwrap()
    );
}

#[test]
fn seed003_no_megg_found() {
    let p = Project::new();
    p.mkdir("a/b");
    let v = p.json("a/b", &["context", "--format", "json"]);
    assert_eq!(v["chain"], serde_json::json!([]));
    for key in ["domain", "knowledge", "state", "info"] {
        assert!(v[key].is_null(), "{key}");
    }
    let md = p.ok("a/b", &["context"]);
    assert!(md.contains("No .megg found"), "{md}");
}

#[test]
fn path_argument_and_c_resolve_like_git() {
    let p = Project::new();
    p.domain("x", "X");
    p.mkdir("x/y");
    let v = p.json("", &["-C", "x", "context", "y", "--format", "json"]);
    assert_eq!(v["path"].as_str().unwrap(), p.path("x/y").to_str().unwrap());
    assert_eq!(names(&v["chain"]), ["x"]);
    let out = p.run("", &["context", "does-not-exist"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

fn knowledge_at(tokens: usize) -> (Project, Value) {
    let p = Project::new();
    p.domain("", "P");
    p.write(".megg/knowledge.md", knowledge_file(tokens));
    let v = p.json("", &["context", "--format", "json"]);
    (p, v)
}

#[test]
fn seed003_full_load_under_8k_boundary_7999() {
    let (p, v) = knowledge_at(7_999);
    let k = &v["knowledge"];
    assert_eq!(k["mode"], "full");
    assert_eq!(k["tokens"], 7_999);
    assert!(k["warning"].is_null());
    let file = p.read(".megg/knowledge.md");
    assert!(file.contains(k["content"].as_str().unwrap().trim_end()));
}

#[test]
fn seed003_summary_load_at_8000() {
    let (_p, v) = knowledge_at(8_000);
    let k = &v["knowledge"];
    assert_eq!(k["mode"], "summary");
    assert_eq!(k["tokens"], 8_000);
    assert!(k["warning"].as_str().unwrap().contains("--topic"));
    let content = k["content"].as_str().unwrap();
    assert!(content.contains("8000 tokens"), "{content}");
    assert!(crate::reference_tokens(content) <= 2_000);
}

#[test]
fn seed003_summary_load_at_16000() {
    let (_p, v) = knowledge_at(16_000);
    assert_eq!(v["knowledge"]["mode"], "summary");
    assert_eq!(v["knowledge"]["tokens"], 16_000);
}

#[test]
fn seed003_blocked_load_over_16k_boundary_16001() {
    let (_p, v) = knowledge_at(16_001);
    let k = &v["knowledge"];
    assert_eq!(k["mode"], "blocked");
    let content = k["content"].as_str().unwrap();
    assert!(content.contains("megg maintain"), "{content}");
    assert!(content.contains("auth ("), "topics with counts: {content}");
    assert!(k["warning"].as_str().unwrap().contains("maintain"));
}

#[test]
fn huge_knowledge_is_blocked_without_reading_it_all_into_the_tokenizer() {
    let p = Project::new();
    p.domain("", "P");
    let entry = "\n---\n\n## 2026-01-01 - Big\n**Type:** fact\n**Topics:** bulk\n\n".to_string()
        + &"filler text ".repeat(1000);
    let mut text = String::from("# Knowledge\n");
    while text.len() <= 2_100_000 {
        text.push_str(&entry);
    }
    p.write(".megg/knowledge.md", &text);
    let start = std::time::Instant::now();
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["knowledge"]["mode"], "blocked");
    assert!(
        v["knowledge"]["content"]
            .as_str()
            .unwrap()
            .contains("at least")
    );
    assert!(
        v["knowledge"]["content"]
            .as_str()
            .unwrap()
            .contains("bulk (")
    );
    // Not a timing test of speed, only a guard against tokenizing megabytes in debug builds.
    assert!(start.elapsed().as_secs() < 30);
}

#[test]
fn seed003_filter_by_topic_is_full_regardless_of_size() {
    let (p, _) = knowledge_at(16_001);
    let v = p.json("", &["context", "--topic", "auth", "--format", "json"]);
    let k = &v["knowledge"];
    assert_eq!(k["mode"], "full");
    assert_eq!(k["topic"], "auth");
    assert_eq!(k["tokens"], 16_001, "tokens stay the whole file's");
    let content = k["content"].as_str().unwrap();
    // `auth` and `auth-flow` entries, never `oauth` ones.
    assert!(content.contains("**Topics:** auth, misc"));
    assert!(content.contains("**Topics:** auth-flow, misc"));
    assert!(!content.contains("oauth"));
    let entries = content.matches("\n**Topics:**").count();
    assert_eq!(k["entries"].as_u64().unwrap() as usize, entries);
}

#[test]
fn seed003_filter_by_topic_returns_entries_verbatim() {
    let p = Project::new();
    p.domain("", "P");
    let entry = "## 2026-01-17 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** Auth, security\n\nWhy:\n\n- reason one\n  created: not a key\n\n```\ntype: also not a key\n```";
    p.write(
        ".megg/knowledge.md",
        format!("---\ntype: knowledge\n---\n# Knowledge\n\n---\n\n{entry}\n\n---\n\n## Other\n**Type:** fact\n**Topics:** db\n\nx\n"),
    );
    let v = p.json("", &["context", "--topic", "auth", "--format", "json"]);
    assert_eq!(v["knowledge"]["content"], entry);
    assert_eq!(v["knowledge"]["entries"], 1);
}

#[test]
fn seed003_no_matching_entries() {
    let (p, _) = knowledge_at(2_000);
    let v = p.json(
        "",
        &["context", "--topic", "nonexistent", "--format", "json"],
    );
    assert_eq!(
        v["knowledge"]["content"],
        "No entries found for topic: nonexistent"
    );
    assert_eq!(v["knowledge"]["entries"], 0);
    let md = p.ok("", &["context", "--topic", "nonexistent"]);
    assert!(md.contains("No entries found for topic: nonexistent"));
}

#[test]
fn seed003_discover_siblings_and_children() {
    let p = Project::new();
    p.domain("acme", "Acme");
    p.domain("acme/shop", "Shop");
    p.domain("acme/billing", "Billing");
    p.domain("acme/zeta", "Zeta");
    p.domain("acme/shop/checkout", "Checkout");
    p.domain("acme/shop/deep/a/b", "Three levels down");
    p.domain("acme/shop/deep/a/b/c", "Four levels down");
    p.domain("acme/shop/node_modules/pkg", "Heavy");
    p.domain("acme/shop/.cache/x", "Hidden");
    std::os::unix::fs::symlink(p.path("acme"), p.path("acme/shop/link-up")).unwrap();
    let v = p.json("acme/shop", &["context", "--format", "json"]);
    assert_eq!(names(&v["siblings"]), ["billing", "zeta"]);
    assert_eq!(
        names(&v["children"]),
        ["checkout", "b"],
        "parents before children, by name"
    );
    assert_eq!(v["warnings"], serde_json::json!([]));
}

/// SPEC §15: macOS lists directories through `readdir`, Linux through `getdents64`. The same
/// tree gives the same siblings, children (links, hidden and heavy directories skipped, deep
/// ones found) and hook output by the portable listing, run here on Linux by its switch.
#[test]
fn the_portable_listing_finds_what_the_linux_one_finds() {
    let p = Project::new();
    p.domain("acme", "Acme");
    p.domain("acme/shop", "Shop");
    p.domain("acme/billing", "Billing");
    p.domain("acme/shop/checkout", "Checkout");
    p.domain("acme/shop/deep/a/b", "Three levels down");
    p.domain("acme/shop/node_modules/pkg", "Heavy");
    p.domain("acme/shop/.cache/x", "Hidden");
    for i in 0..3_000 {
        fs::write(p.path(&format!("acme/shop/file-{i:05}.txt")), "x").unwrap();
    }
    std::os::unix::fs::symlink(p.path("acme"), p.path("acme/shop/link-up")).unwrap();
    let log = p.cache.path().join("failpoints.log");
    for args in [&["context", "--json"][..], &["context", "--format", "json"]] {
        let linux = p.run("acme/shop", args);
        let portable = p
            .megg("acme/shop")
            .args(args)
            .env(
                "MEGG_FAILPOINTS",
                format!("no-raw-listing,log={}", log.display()),
            )
            .output()
            .unwrap();
        assert!(portable.status.success(), "{portable:?}");
        assert_eq!(
            String::from_utf8_lossy(&portable.stdout),
            String::from_utf8_lossy(&linux.stdout)
        );
    }
    let events = fs::read_to_string(&log).unwrap_or_default();
    assert!(
        events.lines().any(|l| l == "listing portable"),
        "the portable listing ran: {events:?}"
    );
    let v = p.json("acme/shop", &["context", "--format", "json"]);
    assert_eq!(names(&v["siblings"]), ["billing"]);
    assert_eq!(names(&v["children"]), ["checkout", "b"]);
}

/// The walk down runs beside the rest of the context on a thread of its own; when that thread
/// fails, the walk is made again in place: the children, the hook's JSON and its exit code are
/// the same.
#[test]
fn children_are_found_when_the_walk_s_thread_fails() {
    let p = Project::new();
    p.domain("acme", "Acme");
    p.domain("acme/shop", "Shop");
    p.domain("acme/shop/checkout", "Checkout");
    p.domain("acme/shop/deep/a/b", "Three levels down");
    let args = ["context", "--json"];
    let normal = p.run("acme/shop", &args);
    let log = p.cache.path().join("failpoints.log");
    let failed = p
        .megg("acme/shop")
        .args(args)
        .env(
            "MEGG_FAILPOINTS",
            format!("panic=children-thread,log={}", log.display()),
        )
        .output()
        .unwrap();
    assert!(failed.status.success(), "{failed:?}");
    let events = fs::read_to_string(&log).unwrap_or_default();
    assert!(
        events.lines().any(|l| l == "children-walked-in-place"),
        "the thread did fail and the walk was made in place: {events}"
    );
    assert_eq!(failed.stdout, normal.stdout);
    let v: Value = serde_json::from_slice(&failed.stdout).unwrap();
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("- checkout") && context.contains("- b (deep/a/b)"),
        "{context}"
    );
}

#[test]
fn seed003_list_available_files() {
    let p = Project::new();
    p.domain("", "P");
    p.write(".megg/knowledge.md", "# Knowledge\n");
    p.write(".megg/custom.md", "# Custom\n");
    p.write(".megg/notes.txt", "not markdown");
    let v = p.json("", &["context", "--format", "json"]);
    let files: Vec<(String, bool)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().into(),
                f["loaded"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        files,
        [
            ("custom.md".into(), false),
            ("info.md".into(), true),
            ("knowledge.md".into(), true)
        ]
    );
    let hook = p.json("", &["context", "--json"]);
    let msg = hook["systemMessage"].as_str().unwrap();
    assert!(msg.contains("Available (not loaded)"), "{msg}");
    assert!(msg.contains(&p.path(".megg/custom.md").display().to_string()));
}

fn state_file(updated: &str, status: &str) -> String {
    format!("---\nupdated: {updated}\nstatus: {status}\n---\n\n## Working On\nThe task\n")
}

#[test]
fn seed003_load_active_state() {
    let p = Project::new();
    p.domain("", "P");
    p.write(
        ".megg/state.md",
        state_file("2026-11-22T10:00:00Z", "active"),
    );
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["state"]["status"], "active");
    assert_eq!(v["state"]["content"], "## Working On\nThe task\n");
    assert_eq!(v["state"]["updated"], "2026-11-22T10:00:00Z");
    assert!(v["state"]["tokens"].as_u64().unwrap() > 0);
    let state_entry = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "state.md")
        .unwrap();
    assert_eq!(state_entry["loaded"], true);
}

#[test]
fn seed003_skip_expired_state() {
    for (updated, status) in [
        ("2026-11-20T11:59:59Z", "active"), // 48 h + 1 s
        ("2026-11-22T11:00:00Z", "done"),
    ] {
        let p = Project::new();
        p.domain("", "P");
        p.write(".megg/state.md", state_file(updated, status));
        let v = p.json("", &["context", "--format", "json"]);
        assert!(v["state"].is_null(), "{updated} {status}");
        let state_entry = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "state.md")
            .unwrap();
        assert_eq!(state_entry["loaded"], false);
        let hook = p.json("", &["context", "--json"]);
        assert!(!hook["systemMessage"].as_str().unwrap().contains("(state,"));
    }
}

#[test]
fn state_exactly_48_hours_old_is_loaded() {
    let p = Project::new();
    p.domain("", "P");
    p.write(
        ".megg/state.md",
        state_file("2026-11-20T12:00:00Z", "active"),
    );
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["state"]["status"], "active");
}

#[test]
fn seed003_no_state_file() {
    let p = Project::new();
    p.domain("", "P");
    let v = p.json("", &["context", "--format", "json"]);
    assert!(v["state"].is_null());
    assert!(v["knowledge"].is_null());
}

#[test]
fn state_in_git_counts_commits_since_and_warns_about_branch() {
    let p = Project::new();
    p.domain("", "P");
    let git = Git::init(p.root(), "feat/auth");
    let head = git.commit("feat/auth", crate::epoch("2026-11-22T09:00:00Z"), "one");
    git.commit("feat/auth", crate::epoch("2026-11-22T10:30:00Z"), "two");
    git.commit("feat/auth", crate::epoch("2026-11-22T11:00:00Z"), "three");
    p.write(
        ".megg/state.md",
        format!("---\nupdated: 2026-11-22T10:00:00Z\nstatus: active\nbranch: feat/auth\nhead: {head}\n---\n\nx\n"),
    );
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["state"]["commits_since"], 2);
    assert_eq!(v["state"]["branch"], "feat/auth");
    assert_eq!(v["warnings"], serde_json::json!([]));

    // Without a recorded head, commits after `updated` count.
    p.write(
        ".megg/state.md",
        "---\nupdated: 2026-11-22T10:45:00Z\nstatus: active\nbranch: feat/auth\n---\n\nx\n",
    );
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["state"]["commits_since"], 1);

    git.commit("main", crate::epoch("2026-11-22T11:10:00Z"), "main");
    git.checkout("main");
    let v = p.json("", &["context", "--format", "json"]);
    let w = v["warnings"][0].as_str().unwrap();
    assert!(w.contains("feat/auth") && w.contains("main"), "{w}");
    let hook = p.json("", &["context", "--json"]);
    assert!(
        hook["systemMessage"]
            .as_str()
            .unwrap()
            .contains("'main' is checked out")
    );
}

#[test]
fn seed003_json_output_for_hook() {
    let p = Project::new();
    p.domain("", "P");
    p.write(
        ".megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-01-01 - A\n**Type:** fact\n**Topics:** t\n\nbody\n",
    );
    p.write(
        ".megg/state.md",
        state_file("2026-11-22T10:00:00Z", "active"),
    );
    let out = p.run("", &["context", "--json"]);
    assert!(out.status.success());
    assert!(out.stderr.is_empty());
    let v = crate::stdout_json(&out);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.contains("## Knowledge (full,"));
    assert!(ctx.contains("## Session State"));
    let msg = v["systemMessage"].as_str().unwrap();
    let root = p.root().display().to_string();
    assert!(msg.contains(&format!("{root}/.megg/info.md")), "{msg}");
    assert!(
        msg.contains(&format!("{root}/.megg/knowledge.md (full, ")),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("{root}/.megg/state.md (state, ")),
        "{msg}"
    );
    assert!(
        msg.contains("asks before saving"),
        "collaborative learning reminder: {msg}"
    );
    // --format hook is the same document.
    let same = p.ok("", &["context", "--format", "hook"]);
    assert_eq!(
        crate::stdout_json(&out),
        serde_json::from_str::<Value>(&same).unwrap()
    );
}

/// Copies the TypeScript megg's fixture tree into a temp dir.
fn ts_fixture() -> Project {
    let p = Project::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ts-megg-v1.1/acme");
    copy_tree(&src, &p.path("acme"));
    p
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn typescript_fixture_loads_the_same_context() {
    let p = ts_fixture();
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/ts-megg-v1.1/context-hook-output.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let ts_ctx = expected["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();

    let v = p.json("acme/shop", &["context", "--format", "json"]);
    assert_eq!(names(&v["chain"]), ["acme", "shop"]);
    assert_eq!(v["chain"][1]["title"], "Shop");
    assert_eq!(names(&v["siblings"]), ["billing"]);
    assert_eq!(names(&v["children"]), ["checkout"]);
    assert_eq!(v["knowledge"]["mode"], "full");
    assert_eq!(v["knowledge"]["entries"], 4);
    assert_eq!(v["state"]["status"], "active");
    assert_eq!(v["state"]["updated"], "2026-11-22T09:43:11Z");

    // Every entry and the state body the TypeScript megg delivered are delivered here too.
    let hook = p.json("acme/shop", &["context", "--json"]);
    let ours = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    for needle in [
        "## 2026-11-22 - Use JWT in httpOnly cookies",
        "Stripe retries webhooks for 3 days; handlers must be idempotent.",
        "All SQL lives in repositories under api/src/repo.",
        "## Working On\nCheckout redesign",
        "Files: api/src/cart.rs",
        "- billing",
        "- checkout",
    ] {
        assert!(ts_ctx.contains(needle), "fixture lacks {needle}");
        assert!(ours.contains(needle), "we lack {needle}:\n{ours}");
    }
    // The state expires 48 h after it was written.
    let out = p
        .megg("acme/shop")
        .env("MEGG_NOW", "2026-11-24T09:43:12Z")
        .args(["context", "--format", "json"])
        .output()
        .unwrap();
    assert!(crate::stdout_json(&out)["state"].is_null());
    let _ = NOW;
}

#[test]
fn markdown_respects_max_chars_when_given() {
    let p = Project::new();
    p.domain("", "P");
    p.write(".megg/knowledge.md", knowledge_file(7_000));
    let full = p.ok("", &["context"]);
    assert!(full.encode_utf16().count() > 20_000);
    let cut = p.ok("", &["context", "--max-chars", "4000"]);
    assert!(cut.trim_end().encode_utf16().count() <= 4000);
    let out = p.run("", &["context", "--max-chars", "100"]);
    assert_eq!(out.status.code(), Some(2));
}

fn handoff(updated: &str, status: &str) -> String {
    format!(
        "---\nupdated: {updated}\nstatus: {status}\n---\n\n## Working On\nRefund webhook: duplicate deliveries\n\n## Next\n- dedupe by event id\n"
    )
}

fn context_at(p: &Project, now: &str, args: &[&str]) -> std::process::Output {
    p.megg("").env("MEGG_NOW", now).args(args).output().unwrap()
}

/// Issue 38 item 1: a Friday handoff on Monday vanished without a word. The context says in
/// one line that it expired, how old it is, what it was about and how to read it; the id it
/// names opens it; a handoff marked done is not mentioned.
#[test]
fn an_expired_handoff_is_said_in_one_line_with_how_to_read_it() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(".megg/state.md", handoff("2026-11-20T17:00:00Z", "active"));
    let monday = "2026-11-23T08:00:00Z";
    let md = String::from_utf8(context_at(&p, monday, &["context"]).stdout).unwrap();
    let line = md
        .lines()
        .find(|l| l.contains("The last handoff expired"))
        .unwrap_or_else(|| panic!("no line about the expired handoff:\n{md}"));
    assert!(
        line.contains("63 h old; states expire after 48 h"),
        "{line}"
    );
    assert!(
        line.contains("Refund webhook: duplicate deliveries"),
        "{line}"
    );
    assert!(!md.contains("## Session State"), "{md}");
    let v: Value =
        serde_json::from_slice(&context_at(&p, monday, &["context", "--format", "json"]).stdout)
            .unwrap();
    assert!(v["state"].is_null());
    let id = v["expired_state"]["id"].as_str().unwrap().to_string();
    assert!(line.contains(&format!("`megg show {id}`")), "{line}");
    assert_eq!(
        v["expired_state"]["reason"],
        "63 h old; states expire after 48 h"
    );
    let shown = String::from_utf8(context_at(&p, monday, &["show", &id]).stdout).unwrap();
    assert!(shown.contains("dedupe by event id"), "{shown}");
    // The hook carries the same line to the model, and the user sees why it was not loaded.
    let hook: Value =
        serde_json::from_slice(&context_at(&p, monday, &["context", "--json"]).stdout).unwrap();
    let ctx = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.contains(&format!("`megg show {id}`")), "{ctx}");
    let msg = hook["systemMessage"].as_str().unwrap();
    assert!(msg.contains("state.md (expired handoff: 63 h old"), "{msg}");
    // `megg state` says how to read it too.
    let state = String::from_utf8(context_at(&p, monday, &["state"]).stdout).unwrap();
    assert!(state.contains(&format!("megg show {id}")), "{state}");

    // Marked done: finished on purpose, not worth a line.
    p.write(".megg/state.md", handoff("2026-11-20T17:00:00Z", "done"));
    let v: Value =
        serde_json::from_slice(&context_at(&p, monday, &["context", "--format", "json"]).stdout)
            .unwrap();
    assert!(v.get("expired_state").is_none(), "{v}");
}

/// Issue 38 item 1: a project sets how long its handoffs live, in its info.md frontmatter
/// (`state_expires_after`); 48 h stays the default, and a value megg does not accept is a
/// warning, not a silent default.
#[test]
fn a_domain_sets_how_long_its_handoffs_live() {
    let p = Project::new();
    p.domain("", "Shop");
    let info = p.read(".megg/info.md");
    let with =
        |value: &str| info.replacen("---\n", &format!("---\nstate_expires_after: {value}\n"), 1);
    p.write(".megg/state.md", handoff("2026-11-20T17:00:00Z", "active"));
    p.write(".megg/info.md", with("7d"));
    let state_at = |now: &str| -> Value {
        serde_json::from_slice(&context_at(&p, now, &["context", "--format", "json"]).stdout)
            .unwrap()
    };
    // Monday, 63 h later: still active under a 7-day lifetime.
    let v = state_at("2026-11-23T08:00:00Z");
    assert_eq!(v["state"]["expired"], false, "{v}");
    // maintain and doctor go by the same rule: no advice to clear a live handoff.
    let monday = "2026-11-23T08:00:00Z";
    let m: Value =
        serde_json::from_slice(&context_at(&p, monday, &["maintain", "--json"]).stdout).unwrap();
    assert_eq!(m["domains"][0]["expired_state"], false, "{m}");
    let doctor = String::from_utf8(context_at(&p, monday, &["doctor"]).stdout).unwrap();
    assert!(doctor.contains("no expired state"), "{doctor}");
    // Exactly 7 days: active; a second later: expired, and said so with the project's rule.
    assert_eq!(state_at("2026-11-27T17:00:00Z")["state"]["expired"], false);
    let v = state_at("2026-11-27T17:00:01Z");
    assert!(v["state"].is_null(), "{v}");
    assert_eq!(
        v["expired_state"]["reason"],
        "168 h old; states expire after 7 days"
    );
    // Hours work too; `megg state` follows the same rule.
    p.write(".megg/info.md", with("12h"));
    let out = context_at(&p, "2026-11-21T05:00:01Z", &["state", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["state"]["expired"], true, "{v}");
    // Not a lifetime: a warning naming the file and what is accepted, and the 48 h default.
    for bad in ["forever", "0h", "91d", "2w"] {
        p.write(".megg/info.md", with(bad));
        let v = state_at("2026-11-22T08:00:00Z");
        assert_eq!(v["state"]["expired"], false, "{bad}: {v}");
        let warnings = v["warnings"].to_string();
        assert!(
            warnings.contains("state_expires_after") && warnings.contains("like 72h or 7d"),
            "{bad}: {warnings}"
        );
    }
}
