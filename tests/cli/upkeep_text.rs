//! What megg says about the files it keeps: a file checked out with CRLF (Git for Windows) is
//! read as LF, so no `\r` reaches a context, a hook or a search (SPEC §15.1 "CRLF
//! everywhere"); `state write` says when the handoff is not gitignored, as `checkpoint save`
//! does (SPEC §4.6); plain `maintain` calls old entries old, never "stale" — §17's word for
//! entries whose cited code changed — and names `maintain --check` for those (SPEC §6, §17).

use serde_json::Value;

use crate::{Git, Project, epoch};

/// `text` with LF line ends as CRLF.
fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

/// Every string in `v` (keys included), to look for a `\r` in any of them.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Value::Object(o) => o.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings(v, out);
        }),
        _ => {}
    }
}

/// No `\r` in what megg printed (nor the U+FFFD a terminal-safe render makes of one).
fn assert_no_cr(what: &str, text: &str) {
    assert!(
        !text.contains('\r') && !text.contains('\u{FFFD}'),
        "{what} carries a CR:\n{text:?}"
    );
}

fn assert_no_cr_json(what: &str, v: &Value) {
    let mut all = Vec::new();
    strings(v, &mut all);
    for s in all {
        assert_no_cr(what, &s);
    }
}

/// A repository whose `.megg` files (and a checkpoint, and an archive) are CRLF throughout.
fn crlf_project() -> Project {
    let p = Project::new();
    Git::init(p.root(), "main");
    // A lone CR (old Mac line ends) ends a line too.
    p.write(
        ".megg/info.md",
        "# Loja\r\n\r\nA loja online.\rSince 2019.\r\n",
    );
    p.write(
        ".megg/knowledge.md",
        crlf(
            "---\ntype: knowledge\n---\n\n# Knowledge\n\n---\n\n## 2026-11-01 - Prices are kept in cents\n**Type:** decision\n**Topics:** prices, money\n\nEvery price is an integer of cents.\nNever a float.\n",
        ),
    );
    p.write(
        ".megg/archive/knowledge-2025.md",
        crlf(
            "---\ntype: knowledge-archive\n---\n\n# Knowledge archive 2025\n\n---\n\n## 2025-02-01 - Prices were floats\n**Type:** decision\n**Topics:** prices\n\nThe old shop kept floats.\nIt rounded badly.\n",
        ),
    );
    p.write(
        ".megg/state.md",
        crlf(
            "---\nupdated: 2026-11-22T10:00:00Z\nstatus: active\n---\n\n## Working On\nShip the export\n\n## Next\n- the CSV header\n",
        ),
    );
    p.write("plan.md", "# Plan\n\n- [ ] step\n");
    p.ok("", &["checkpoint", "save", "plan.md"]);
    let checkpoint = p.read(".plan.local.md");
    assert!(!checkpoint.contains('\r'));
    p.write(".plan.local.md", crlf(&checkpoint));
    p
}

#[test]
fn crlf_files_reach_no_context_hook_or_search_with_a_cr() {
    let p = crlf_project();

    let text = p.ok("", &["context"]);
    assert_no_cr("context", &text);
    assert!(
        text.contains("# Loja\n\nA loja online.\nSince 2019.\n"),
        "{text}"
    );
    assert!(text.contains("Every price is an integer of cents.\nNever a float."));
    assert!(text.contains("## Working On\nShip the export"), "{text}");
    assert!(text.contains("Workflow in progress"), "{text}");

    let doc = p.json("", &["context", "--format", "json"]);
    assert_no_cr_json("context --format json", &doc);

    // Claude Code's hook runs `megg context --json`, with its SessionStart input on stdin.
    let out = p
        .megg("")
        .args(["context", "--json"])
        .write_stdin(
            r#"{"session_id":"crlf-1","hook_event_name":"SessionStart","source":"startup","cwd":"."}"#,
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let hook = crate::stdout_json(&out);
    let context = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.contains("# Loja\n\nA loja online."), "{context:?}");
    assert!(hook["systemMessage"].as_str().is_some(), "{hook}");
    assert_no_cr_json("the Claude Code hook", &hook);
    for agent in ["claude", "codex", "gemini", "copilot"] {
        let v = p.json("", &["context", "--format", "hook", "--agent", agent]);
        assert_no_cr_json(agent, &v);
    }

    let found = p.json("", &["search", "prices", "--json"]);
    assert_no_cr_json("search --json", &found);
    let text = p.ok("", &["search", "prices"]);
    assert_no_cr("search", &text);
    let archived = p.json("", &["search", "floats", "--in", "archive", "--json"]);
    assert_no_cr_json("search --in archive --json", &archived);
    let results = archived["results"].as_array().unwrap();
    assert!(!results.is_empty(), "{archived}");
    for id in [
        found["results"][0]["id"].as_str().unwrap(),
        results[0]["id"].as_str().unwrap(),
    ] {
        let shown = p.ok("", &["show", id]);
        assert_no_cr("show", &shown);
        assert!(shown.contains(".\nNever a float.") || shown.contains(".\nIt rounded badly."));
        assert_no_cr_json("show --json", &p.json("", &["show", id, "--json"]));
    }

    let shown = p.ok("", &["checkpoint", "show", "plan"]);
    assert_no_cr("checkpoint show", &shown);
    assert_no_cr("state", &p.ok("", &["state"]));
    assert_no_cr_json("state --json", &p.json("", &["state", "--json"]));
}

/// Reading is all that changes: a file megg edits keeps its CRLF.
#[test]
fn a_crlf_file_megg_edits_stays_crlf() {
    let p = crlf_project();
    p.ok("", &["checkpoint", "update", "plan", "--phase", "work"]);
    let checkpoint = p.read(".plan.local.md");
    assert!(checkpoint.contains("---\r\n"), "{checkpoint:?}");
}

/// An entry found (as LF) in a CRLF file can still be superseded: the edit finds it there.
#[test]
fn a_crlf_entry_is_superseded_in_place() {
    let p = crlf_project();
    let found = p.json("", &["search", "cents", "--json"]);
    let id = found["results"][0]["id"].as_str().unwrap();
    p.ok(
        "",
        &[
            "learn",
            "Prices are kept in minor units",
            "decision",
            "prices",
            "Every price is an integer of the currency's minor unit.",
            "--supersedes",
            id,
        ],
    );
    let live = p.read(".megg/knowledge.md");
    // Gone but for the successor's line naming it (SPEC §17).
    assert!(
        !live.contains("## 2026-11-01 - Prices are kept in cents"),
        "{live:?}"
    );
    assert!(!live.contains("integer of cents"), "{live:?}");
    // New lines take the file's own ending (SPEC §15.1).
    assert!(
        live.contains("**Supersedes:** 2026-11-01 - Prices are kept in cents\r\n"),
        "{live:?}"
    );
    assert_eq!(
        live.replace("\r\n", "").matches('\n').count(),
        0,
        "{live:?}"
    );
    assert!(live.starts_with("---\r\ntype: knowledge\r\n"), "{live:?}");
    let archive = p.read(".megg/archive/knowledge-2026.md");
    assert!(archive.contains("Prices are kept in cents"), "{archive:?}");
}

const HANDOFF: &str = "## Working On\nShip the export\n";

fn not_ignored(stderr: &str) -> bool {
    stderr.contains("warning:")
        && stderr.contains("not gitignored")
        && stderr.contains("megg gitignore")
}

#[test]
fn state_write_says_when_the_handoff_is_not_gitignored() {
    let p = Project::new();
    Git::init(p.root(), "main").commit("main", epoch("2026-11-01T00:00:00Z"), "init");
    p.domain("", "Shop");
    let out = p.run("", &["state", "write", "--content", HANDOFF]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(not_ignored(&stderr), "no word about .gitignore: {stderr:?}");
    let v = p.json("", &["state", "write", "--content", HANDOFF, "--json"]);
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("megg gitignore"), "{v}");

    // With megg's block in .gitignore: nothing to say.
    p.ok("", &["gitignore"]);
    let out = p.run("", &["state", "write", "--content", HANDOFF]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = p.json("", &["state", "write", "--content", HANDOFF, "--json"]);
    assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
}

#[test]
fn state_write_outside_git_says_nothing_about_gitignore() {
    let p = Project::new();
    p.domain("", "Shop");
    let out = p.run("", &["state", "write", "--content", HANDOFF]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two entries older than 90 days (NOW is 2026-11-22), one recent.
fn aged_project() -> Project {
    let p = Project::new();
    p.domain("shop", "Shop");
    p.write(
        "shop/.megg/knowledge.md",
        "---\ntype: knowledge\n---\n\n# Knowledge\n\n---\n\n## 2026-01-10 - Old one\n**Type:** fact\n**Topics:** a\n\nOld.\n\n---\n\n## 2026-02-10 - Old two\n**Type:** fact\n**Topics:** b\n\nOld too.\n\n---\n\n## 2026-11-20 - New\n**Type:** fact\n**Topics:** c\n\nNew.\n",
    );
    p
}

#[test]
fn plain_maintain_calls_old_entries_old_and_names_the_check() {
    let p = aged_project();
    let text = p.ok("shop", &["maintain"]);
    assert!(
        text.contains(": 3 entries, ") && text.contains(", 2 older than 90 days"),
        "{text}"
    );
    assert!(
        !text.contains("stale"),
        "age is not staleness (§17):\n{text}"
    );
    let check: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("megg maintain --check"))
        .collect();
    assert_eq!(check.len(), 1, "one line names `maintain --check`:\n{text}");
    assert!(check[0].contains("cite"), "{text}");

    // Run on a path, the line names it too: `--check` alone would check another directory.
    let text = p.ok("", &["maintain", "shop"]);
    assert!(text.contains("megg maintain shop --check"), "{text}");
    // The JSON keeps its key.
    let v = p.json("shop", &["maintain", "--json"]);
    assert_eq!(v["domains"][0]["stale"].as_array().unwrap().len(), 2, "{v}");
}
