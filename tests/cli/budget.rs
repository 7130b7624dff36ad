//! The SessionStart budget of SPEC §3.3 keeps the handoff: the state is cut last, at a line
//! boundary, and never vanishes while anything else can still shrink (issue 19).

use crate::{Project, join};

/// `info.md` with a title and `lines` body lines, like a long project description.
fn info_file(title: &str, lines: usize) -> String {
    let mut s = format!(
        "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n---\n\n# {title}\n\n"
    );
    for i in 0..lines {
        s.push_str(&format!(
            "- Line {i} of the project description: services, owners and conventions.\n"
        ));
    }
    s
}

fn knowledge_with(entries: usize) -> String {
    let mut s = String::from(
        "---\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-01-17T10:30:00Z\ntype: knowledge\n---\n# Knowledge\n",
    );
    let kinds = ["decision", "pattern", "gotcha", "rule", "process"];
    for i in 0..entries {
        s.push_str(&format!(
            "\n---\n\n## 2026-01-{:02} - Entry {i}\n**Type:** {}\n**Topics:** topic{}, misc\n\nWhy entry {i} matters and what it changes for later work on the project.\n",
            i % 28 + 1,
            kinds[i % kinds.len()],
            i % 9
        ));
    }
    s
}

/// The first line of every state: what a resumed session needs most.
const STATE_FIRST: &str = "## Working On";

fn state_with(lines: usize) -> String {
    let mut s = format!(
        "---\nupdated: 2026-11-22T10:00:00Z\nstatus: active\n---\n\n{STATE_FIRST}\nShip the billing export"
    );
    for i in 1..lines {
        s.push_str(&format!("\n- step {i}: done and verified"));
    }
    s.push('\n');
    s
}

/// A domain directory below the temp root whose absolute path is at least `len` characters.
fn padded_dir(p: &Project, len: usize) -> String {
    let base = p.root().display().to_string().len();
    if len <= base + 1 {
        return String::new();
    }
    let mut rel = String::new();
    while base + 1 + rel.len() < len {
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str("developer-company-project");
    }
    rel
}

/// Issue 19's sweep: path length × info.md × knowledge × state. Before the fix, 10 of these
/// 108 combinations lost the whole state while keeping thousands of characters of info.md.
#[test]
fn the_hook_never_drops_the_state_while_info_can_shrink() {
    let mut lost = Vec::new();
    for path_len in [5, 60, 120] {
        for info_lines in [0, 40, 200, 600] {
            for entries in [0, 30, 120] {
                for state_lines in [1, 10, 150] {
                    let p = Project::new();
                    let rel = padded_dir(&p, path_len);
                    p.write(
                        &join(&rel, ".megg/info.md"),
                        info_file("Billing", info_lines),
                    );
                    if entries > 0 {
                        p.write(&join(&rel, ".megg/knowledge.md"), knowledge_with(entries));
                    }
                    p.write(&join(&rel, ".megg/state.md"), state_with(state_lines));
                    let hook = p.json(&rel, &["context", "--json"]);
                    let ctx = hook["hookSpecificOutput"]["additionalContext"]
                        .as_str()
                        .unwrap();
                    let case = format!(
                        "path {path_len}, info {info_lines}, knowledge {entries}, state {state_lines}"
                    );
                    assert!(ctx.encode_utf16().count() <= 9_500, "{case}: over budget");
                    if !ctx.contains(&format!("{STATE_FIRST}\nShip the billing export")) {
                        lost.push(case);
                        continue;
                    }
                    let msg = hook["systemMessage"].as_str().unwrap();
                    if ctx.contains("[… info.md cut here") {
                        assert!(msg.contains("info.md cut short"), "{case}: {msg}");
                    }
                    if ctx.contains("[… state cut here") {
                        assert!(msg.contains("session state cut short"), "{case}: {msg}");
                        // The state is cut only once info.md is down to its title.
                        assert!(ctx.contains("# Billing\n\n[… info.md cut here"), "{case}");
                    }
                    assert!(!ctx.contains("cut to fit the context limit"), "{case}");
                }
            }
        }
    }
    assert!(lost.is_empty(), "the state vanished in: {lost:#?}");
}

/// When the state is cut, it keeps its first lines and says where the rest is.
#[test]
fn a_long_state_is_cut_at_a_line_with_its_marker() {
    let p = Project::new();
    p.write(".megg/info.md", info_file("Billing", 300));
    p.write(".megg/state.md", state_with(400));
    let out = p.ok("", &["context", "--max-chars", "3000"]);
    assert!(out.trim_end().encode_utf16().count() <= 3000, "{out}");
    assert!(
        out.contains("# Billing\n\n[… info.md cut here: 301 more lines"),
        "{out}"
    );
    assert!(out.contains(&format!("{STATE_FIRST}\nShip the billing export\n")));
    assert!(out.contains("[… state cut here: "), "{out}");
    let state_path = p.path(".megg/state.md").display().to_string();
    assert!(
        out.contains(&format!("more lines in {state_path}]")),
        "{out}"
    );
}

/// Without a budget nothing is trimmed: a warning is not "left out" of an unbudgeted render.
#[test]
fn an_unbudgeted_render_says_nothing_was_trimmed() {
    let p = Project::new();
    p.write(".megg/info.md", info_file("Billing", 3));
    p.write(".megg/knowledge.md", b"# Knowledge\n\xff\xfe not UTF-8\n");
    let out = p.run("", &["context"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid UTF-8"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Context trimmed"), "{text}");
}

/// A title too long for the budget goes before the handoff does.
#[test]
fn a_huge_title_never_costs_the_state() {
    let p = Project::new();
    let title = "Billing ".repeat(400);
    p.write(".megg/info.md", info_file(&title, 50));
    p.write(".megg/state.md", state_with(20));
    let hook = p.json("", &["context", "--json", "--max-chars", "2000"]);
    let ctx = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.encode_utf16().count() <= 2000);
    assert!(
        ctx.contains(&format!("{STATE_FIRST}\nShip the billing export")),
        "{ctx}"
    );
    assert!(!ctx.contains("cut to fit the context limit"), "{ctx}");
}
