//! SPEC §12 and §13.1: a handoff megg replaces is kept "unchanged but for §12's redaction" — a
//! hand-written `state.md` (or an older megg's) holding a secret is kept, searched and shown
//! with `[redacted]` in its place. Before: the kept copy was the file's bytes, secret included.

use std::path::Path;

use crate::{Git, Project};

const SECRET: &str = "glpat-R7tKq2mXw9LpZ4vNc8Yb";

/// Every file under `dir`, with its text.
fn files(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if let Ok(t) = std::fs::read_to_string(&p) {
            out.push((p.display().to_string(), t));
        }
    }
}

#[test]
fn a_replaced_hand_written_handoff_is_kept_redacted() {
    let p = Project::new();
    Git::init(p.root(), "main");
    p.domain("", "Shop");
    p.write(
        ".megg/state.md",
        format!(
            "---\nupdated: 2026-11-29T09:00:00Z\nstatus: active\n---\n\n## Working On\nGitLab deploy token {SECRET} for the release job\n"
        ),
    );
    let out = p
        .megg("")
        .args([
            "state",
            "write",
            "--content",
            "## Working On\nThe release job\n",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut all = Vec::new();
    files(&p.path(".git"), &mut all);
    let kept: Vec<&(String, String)> = all
        .iter()
        .filter(|(path, _)| path.contains("handoffs"))
        .collect();
    assert!(
        !kept.is_empty(),
        "no handoff kept: {:?}",
        all.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (path, text) in &kept {
        assert!(!text.contains(SECRET), "{path} keeps the secret:\n{text}");
        assert!(
            text.contains("GitLab deploy token [redacted]"),
            "{path}:\n{text}"
        );
    }
    let found = p.ok("", &["search", "deploy token", "--in", "handoff"]);
    assert!(!found.contains(SECRET), "{found}");
}
