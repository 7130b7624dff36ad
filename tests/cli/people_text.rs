//! Whatever people write, megg keeps working (SPEC §16): a knowledge line that starts with a
//! bold non-ASCII word (`**Café**`, `**注意**`, `**⚠️ Important**`, `**Ñandú**`) once made the
//! entry parser slice inside a character, so every host got "internal error" instead of its
//! context (the handoff included), `search`/`show`/`learn`/`maintain` exited 101, and the merge
//! driver left a file holding only one side. Each command here runs on each of those lines.

use serde_json::Value;

use crate::Project;
use crate::merge::{Team, markers};

/// The bold openings that broke the parser, and a word of each to search for.
const BOLD: [(&str, &str); 4] = [
    ("**Café** is spelled with an accent.", "café"),
    ("**注意** 本番では使わない。", "注意"),
    ("**⚠️ Important** never force-push main.", "important"),
    ("**Ñandú** is the bird's name.", "ñandú"),
];

const STATE: &str =
    "---\nupdated: 2026-11-22T10:00:00Z\nstatus: active\n---\n\n## Working On\nShip the export\n";

fn knowledge(line: &str) -> String {
    format!(
        "---\ntype: knowledge\n---\n\n# Knowledge\n\n---\n\n## 2026-11-20 - Spelling rule\n**Type:** rule\n**Topics:** naming\n\n{line}\n"
    )
}

/// A domain with an active handoff and one knowledge entry holding `line`.
fn project(line: &str) -> Project {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(".megg/state.md", STATE);
    p.write(".megg/knowledge.md", knowledge(line));
    p
}

fn hook_context(p: &Project, agent: &str) -> String {
    let out = p.run("", &["context", "--format", "hook", "--agent", agent]);
    assert_eq!(out.status.code(), Some(0), "{agent}");
    let v = crate::stdout_json(&out);
    let ctx: &Value = match agent {
        "copilot" => &v["additionalContext"],
        _ => &v["hookSpecificOutput"]["additionalContext"],
    };
    ctx.as_str()
        .unwrap_or_else(|| panic!("{agent}: no context in {v}"))
        .to_string()
}

#[test]
fn every_host_gets_the_handoff_and_the_entry() {
    for (line, _) in BOLD {
        let p = project(line);
        for agent in ["claude", "codex", "gemini", "copilot"] {
            let ctx = hook_context(&p, agent);
            assert!(!ctx.contains("internal error"), "{agent} / {line}: {ctx}");
            assert!(
                ctx.contains("## Working On\nShip the export"),
                "{agent} / {line}: the handoff is missing:\n{ctx}"
            );
            assert!(
                ctx.contains(line),
                "{agent} / {line}: the entry is missing:\n{ctx}"
            );
        }
        let v = p.json("", &["context", "--json"]);
        let msg = v["systemMessage"].as_str().unwrap();
        assert!(!msg.contains("internal error"), "{line}: {msg}");
    }
}

#[test]
fn search_show_and_maintain_read_the_entry() {
    for (line, word) in BOLD {
        let p = project(line);
        let v = p.json("", &["search", word, "--json"]);
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "{line}: {v}");
        let id = results[0]["id"].as_str().unwrap();
        let shown = p.ok("", &["show", id]);
        assert!(shown.contains(line), "{line}: {shown}");
        let v = p.json("", &["show", id, "--json"]);
        assert!(v.to_string().contains("Spelling rule"), "{v}");
        let out = p.run("", &["maintain"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn learn_writes_beside_it_and_from_a_file() {
    for (line, _) in BOLD {
        let p = project(line);
        p.ok("", &["learn", "Second", "fact", "x", line]);
        let entry = format!("## Accented entry\n**Type:** fact\n**Topics:** x\n\n{line}\n");
        let file = p.write("entry.md", &entry);
        p.ok("", &["learn", "--file", file.to_str().unwrap()]);
        let text = p.read(".megg/knowledge.md");
        assert_eq!(text.matches(line).count(), 3, "{text}");
        let v = p.json("", &["maintain", "--json"]);
        assert!(v.to_string().contains("\"entries\":3"), "{v}");
    }
}

/// git runs the driver on two branches that each learned an entry written this way: the merge
/// is clean and holds both sides.
#[test]
fn the_merge_driver_keeps_both_sides() {
    for (line, _) in BOLD {
        let t = Team::new(true);
        t.learn("2026-11-20T10:00:00Z", "Base", "fact", "x", line);
        t.git(&["checkout", "-q", "-b", "alice"]);
        t.learn("2026-11-21T10:00:00Z", "Alice's", "rule", "x", line);
        t.git(&["checkout", "-q", "main"]);
        t.learn("2026-11-21T11:00:00Z", "Bob's", "rule", "x", line);
        let out = t.run_git(&["merge", "--no-edit", "alice"]);
        assert!(
            out.status.success(),
            "{line}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = t.knowledge();
        for title in ["Base", "Alice's", "Bob's"] {
            assert!(text.contains(&format!("- {title}\n")), "{line}: {text}");
        }
        assert_eq!(markers(&text), 0, "{text}");
    }
}

/// The driver run directly on the three files git hands it.
#[test]
fn the_merge_driver_run_directly_keeps_both_sides() {
    for (line, _) in BOLD {
        let p = Project::new();
        let head = "---\ntype: knowledge\n---\n\n# Knowledge\n";
        let e = |t: &str| format!("\n---\n\n## {t}\n**Type:** fact\n**Topics:** x\n\n{line}\n");
        p.write(".merge_file_O", format!("{head}{}", e("A")));
        p.write(".merge_file_A", format!("{head}{}{}", e("A"), e("B")));
        p.write(".merge_file_B", format!("{head}{}{}", e("A"), e("C")));
        let out = p.run(
            "",
            &[
                "merge-driver",
                "--marker-size",
                "7",
                ".merge_file_O",
                ".merge_file_A",
                ".merge_file_B",
                ".megg/knowledge.md",
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            p.read(".merge_file_A"),
            format!("{head}{}{}{}", e("A"), e("B"), e("C"))
        );
    }
}

/// People write their first entry right under `# Knowledge`, without a `---` line: it is an
/// entry like the others (search, maintain, the index).
#[test]
fn the_first_entry_under_the_title_is_an_entry() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(
        ".megg/knowledge.md",
        "# Knowledge\n\n## 2026-01-05 - Tabs not spaces\n**Type:** rule\n**Topics:** style\n\nIndent with tabs.\n\n---\n\n## 2026-01-06 - Squash merges\n**Type:** process\n**Topics:** git\n\nSquash before merging.\n",
    );
    let v = p.json("", &["search", "tabs", "--json"]);
    assert_eq!(v["results"].as_array().unwrap().len(), 1, "{v}");
    let v = p.json("", &["maintain", "--json"]);
    assert!(v.to_string().contains("\"entries\":2"), "{v}");
}

/// Runs the hook of `agent` with the failure point `panic=<part>` switched on; returns the
/// context the model gets and the message the user sees.
fn hook_with_panic(p: &Project, agent: &str, part: &str) -> (String, String) {
    let out = p
        .megg("")
        .env("MEGG_FAILPOINTS", format!("panic={part}"))
        .args(["context", "--format", "hook", "--agent", agent])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{agent}/{part}");
    assert!(
        out.stderr.is_empty(),
        "{agent}/{part}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = crate::stdout_json(&out);
    let ctx = match agent {
        "copilot" => &v["additionalContext"],
        _ => &v["hookSpecificOutput"]["additionalContext"],
    };
    let msg = v["systemMessage"].as_str().unwrap_or_default().to_string();
    (ctx.as_str().unwrap().to_string(), msg)
}

/// A part that fails inside megg becomes one line naming its file and `megg doctor`; every
/// other part, the handoff first, still arrives — in every host's format (SPEC §16).
#[test]
fn a_part_that_fails_is_one_line_and_the_rest_arrives() {
    let p = project("Plain text.");
    p.domain("api", "API");
    p.domain("web", "Web");
    // (part, the file its line names, what must still arrive besides the handoff)
    let cases = [
        ("knowledge", ".megg/knowledge.md", "# Shop"),
        ("render-knowledge", ".megg/knowledge.md", "# Shop"),
        ("info", ".megg/info.md", "Spelling rule"),
        ("siblings", "", "Spelling rule"),
        ("files", ".megg", "Spelling rule"),
    ];
    for (part, file, other) in cases {
        for agent in ["claude", "codex", "gemini", "copilot"] {
            let (ctx, msg) = hook_with_panic(&p, agent, part);
            assert!(
                ctx.contains("## Working On\nShip the export"),
                "{agent}/{part}: the handoff is missing:\n{ctx}"
            );
            assert!(
                ctx.contains(other),
                "{agent}/{part}: {other} is missing:\n{ctx}"
            );
            let line = ctx
                .lines()
                .find(|l| l.contains("was not loaded: megg failed on it"))
                .unwrap_or_else(|| panic!("{agent}/{part}: no failure line:\n{ctx}"));
            let named = p.path(file).display().to_string();
            assert!(
                line.contains(named.trim_end_matches('/')),
                "{agent}/{part}: {line}"
            );
            assert!(line.contains("megg doctor"), "{line}");
            assert!(!msg.contains("no context loaded"), "{agent}/{part}: {msg}");
        }
    }
    // The handoff's own failure takes only the handoff.
    let (ctx, _) = hook_with_panic(&p, "claude", "state");
    assert!(
        ctx.contains("Spelling rule") && ctx.contains("# Shop"),
        "{ctx}"
    );
    assert!(!ctx.contains("Ship the export"), "{ctx}");
    assert!(
        ctx.contains(&format!(
            "{} was not loaded",
            p.path(".megg/state.md").display()
        )),
        "{ctx}"
    );
}

/// In summary mode the index is a part of its own: without it the seed's digest still shows.
#[test]
fn a_failing_index_leaves_the_digest() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(".megg/state.md", STATE);
    p.write(".megg/knowledge.md", crate::knowledge_file(10_000));
    let (ctx, _) = hook_with_panic(&p, "claude", "index");
    assert!(ctx.contains("Ship the export"), "{ctx}");
    assert!(ctx.contains("## Knowledge (summary"), "{ctx}");
    assert!(!ctx.contains("Knowledge index:"), "{ctx}");
    assert!(ctx.contains("knowledge.md was not loaded"), "{ctx}");
}

/// A command that fails inside megg says so as an error with a hint and exits 1, never with
/// Rust's panic text and 101.
#[test]
fn a_bug_is_an_error_not_a_panic() {
    let p = project("Plain text.");
    let out = p
        .megg("")
        .env("MEGG_FAILPOINTS", "panic=render-knowledge")
        .arg("context")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: internal error: "), "{stderr}");
    assert!(stderr.contains("\nhint: this is a bug in megg"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The merge driver, failing inside megg, leaves git's own line merge — both sides, with
/// conflict markers — and exits 1: git stops, and nothing is lost.
#[test]
fn a_failing_merge_driver_leaves_both_sides() {
    let t = Team::new(true);
    t.learn("2026-11-20T10:00:00Z", "Base", "fact", "x", "base");
    t.git(&["checkout", "-q", "-b", "alice"]);
    t.learn("2026-11-21T10:00:00Z", "Alice's", "rule", "x", "from alice");
    t.git(&["checkout", "-q", "main"]);
    t.learn("2026-11-21T11:00:00Z", "Bob's", "rule", "x", "from bob");
    let out = crate::git_cli(t.root(), t.p.cache.path())
        .env("MEGG_FAILPOINTS", "panic=merge-driver")
        .args(["merge", "--no-edit", "alice"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "git must stop at the conflict");
    let text = t.knowledge();
    for side in ["from alice", "from bob", "base"] {
        assert!(text.contains(side), "{side} is missing:\n{text}");
    }
    assert!(markers(&text) > 0, "{text}");
    // git's line merge: what both sides share is there once (not two whole versions).
    assert_eq!(text.matches("## 2026-11-20 - Base").count(), 1, "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not merged by entry (megg failed inside"),
        "{err}"
    );
}

/// `learn` and `maintain` refuse to rewrite a file whose frontmatter they cannot parse, and
/// leave it byte for byte.
#[test]
fn learn_and_maintain_refuse_a_file_they_cannot_parse() {
    let p = Project::new();
    p.domain("", "Shop");
    let broken = "---\ntype: [knowledge\nupdated: x\n---\n\n# Knowledge\n\n---\n\n## 2020-01-05 - Old\n**Type:** fact\n**Topics:** x\n\nOld.\n";
    p.write(".megg/knowledge.md", broken);
    let out = p.run("", &["learn", "T", "fact", "x", "c"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid frontmatter") && err.contains("\nhint: "),
        "{err}"
    );
    let out = p.run("", &["maintain", "--archive-before", "2025-01-01"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(p.read(".megg/knowledge.md"), broken);
    assert!(!p.path(".megg/archive").exists());
}
