//! The handoff a capture writes (SPEC §10): Working On / Progress / Next / Context, built from
//! what the transcript and the repository say — deterministic, no model.

use std::fmt::Write;

use super::failures::FailingRun;
use super::transcript::{Task, TaskStatus, cut_chars, one_line_cut};
use crate::git::Commits;

/// Files listed under Progress.
pub const MAX_FILES: usize = 30;
/// Completed tasks listed.
const MAX_DONE: usize = 20;
/// Open tasks listed.
const MAX_OPEN: usize = 30;
/// Characters of a task's description shown (its first line).
const DESCRIPTION_CHARS: usize = 160;

/// Everything a handoff says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub first_request: Option<String>,
    /// The latest substantive request (an acknowledgement never replaces it, SPEC §18.2).
    pub latest_request: Option<String>,
    /// The acknowledgement the user sent after the latest request ("ok go ahead").
    pub latest_ack: Option<String>,
    pub tasks: Vec<Task>,
    /// Project-relative (or absolute when outside the project), newest first, each once.
    pub files: Vec<String>,
    pub commits: Option<Commits>,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// The checkpoint's file and its phase.
    pub checkpoint: Option<(String, Option<String>)>,
    pub last_message: Option<String>,
    /// The session's last failing test or build run (SPEC §18.2).
    pub failing: Option<FailingRun>,
    pub transcript: Option<String>,
}

impl Facts {
    /// A session with no tasks and no edits has nothing to hand off (SPEC §10).
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty() && self.files.is_empty()
    }
}

/// The handoff's markdown: the content of a `state.md`.
pub fn render(f: &Facts) -> String {
    let mut out = String::from("## Working On\n");
    // An acknowledgement follows the request it acknowledges.
    let then = f
        .latest_ack
        .as_ref()
        .map(|ack| format!(" (then: \"{ack}\")"))
        .unwrap_or_default();
    match (&f.first_request, &f.latest_request) {
        (Some(first), Some(latest)) if first != latest => {
            let _ = writeln!(out, "{first}\n\nLatest request: {latest}{then}");
        }
        (Some(one), Some(_)) | (None, Some(one)) => {
            let _ = writeln!(out, "{one}{then}");
        }
        (Some(one), None) => {
            let _ = writeln!(out, "{one}");
        }
        (None, None) => out.push_str("(no request recorded)\n"),
    }

    out.push_str("\n## Progress\n");
    let done: Vec<&Task> = f
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Completed)
        .collect();
    // The most recently created, which are the most relevant, in their order.
    more(&mut out, done.len(), MAX_DONE, "earlier completed tasks");
    for t in done.iter().skip(done.len().saturating_sub(MAX_DONE)) {
        let _ = writeln!(out, "- [x] {}", t.subject);
    }
    if !f.files.is_empty() {
        let _ = writeln!(out, "- Files changed (newest first):");
        for file in f.files.iter().take(MAX_FILES) {
            let _ = writeln!(out, "  - {file}");
        }
    }
    if let Some(c) = &f.commits
        && c.count > 0
    {
        let n = if c.capped {
            format!("{}+", c.count)
        } else {
            c.count.to_string()
        };
        let _ = writeln!(
            out,
            "- {n} commit{} since the session began:",
            if c.count == 1 { "" } else { "s" }
        );
        for (id, summary) in &c.shown {
            let _ = writeln!(out, "  - {id} {}", one_line_cut(summary, 120));
        }
    }
    if done.is_empty() && f.files.is_empty() && f.commits.as_ref().is_none_or(|c| c.count == 0) {
        out.push_str("- (nothing completed yet)\n");
    }

    out.push_str("\n## Next\n");
    let open: Vec<&Task> = f
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::InProgress)
        .chain(f.tasks.iter().filter(|t| t.status == TaskStatus::Pending))
        .collect();
    for t in open.iter().take(MAX_OPEN) {
        let mark = if t.status == TaskStatus::InProgress {
            " (in progress)"
        } else {
            ""
        };
        let _ = write!(out, "- [ ] {}{mark}", t.subject);
        let first = t.description.lines().find(|l| !l.trim().is_empty());
        if let Some(d) = first {
            let d = cut_chars(d.trim(), DESCRIPTION_CHARS);
            if d != t.subject {
                let _ = write!(out, " — {d}");
            }
        }
        out.push('\n');
    }
    more(&mut out, open.len(), MAX_OPEN, "open tasks");
    if open.is_empty() {
        out.push_str("- (no open tasks recorded)\n");
    }

    out.push_str("\n## Context\n");
    match (&f.branch, &f.head) {
        (Some(b), Some(h)) => {
            let _ = writeln!(out, "- Branch: {b} at {}", short(h));
        }
        (Some(b), None) => {
            let _ = writeln!(out, "- Branch: {b}");
        }
        (None, Some(h)) => {
            let _ = writeln!(out, "- Detached HEAD at {}", short(h));
        }
        (None, None) => {}
    }
    if let Some((file, phase)) = &f.checkpoint {
        let _ = match phase {
            Some(p) => writeln!(out, "- Workflow checkpoint: {file} (phase: {p})"),
            None => writeln!(out, "- Workflow checkpoint: {file}"),
        };
    }
    if let Some(run) = &f.failing {
        failing_run(&mut out, run);
    }
    if let Some(m) = &f.last_message {
        let quoted = m.lines().collect::<Vec<_>>().join("\n  > ");
        let _ = writeln!(out, "- Last message from the assistant:\n  > {quoted}");
    }
    if let Some(t) = &f.transcript {
        let _ = writeln!(out, "- Full transcript: {t}");
    }
    out
}

/// `- Last failing run: `cargo test -p core` — 2 failed: a, b; first error: …`.
fn failing_run(out: &mut String, run: &FailingRun) {
    let longest = run
        .command
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if longest > 0 { " " } else { "" };
    let _ = write!(
        out,
        "- Last failing run: {fence}{pad}{}{pad}{fence} — ",
        run.command
    );
    if run.names.is_empty() {
        out.push_str("failed");
    } else {
        let _ = write!(out, "{} failed: {}", run.failed, run.names.join(", "));
        if run.failed > run.names.len() {
            let _ = write!(out, " and {} more", run.failed - run.names.len());
        }
    }
    if let Some(e) = &run.first_error {
        let _ = write!(out, "; first error: {e}");
    }
    out.push('\n');
}

/// A commit id as the handoff shows it: its first 12 hex digits (all of a shorter one).
fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

fn more(out: &mut String, total: usize, shown: usize, what: &str) {
    if total > shown {
        let _ = writeln!(out, "- … and {} more {what}", total - shown);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(subject: &str, status: TaskStatus) -> Task {
        Task {
            id: None,
            subject: subject.into(),
            description: "First line\nsecond".into(),
            status,
        }
    }

    #[test]
    fn sections_in_order_with_open_tasks_in_progress_first() {
        let f = Facts {
            first_request: Some("Build the parser".into()),
            latest_request: Some("/workflows:work docs/plans/p.md".into()),
            tasks: vec![
                task("Pending one", TaskStatus::Pending),
                task("Done one", TaskStatus::Completed),
                task("Doing one", TaskStatus::InProgress),
            ],
            files: vec!["src/a.rs".into()],
            branch: Some("main".into()),
            head: Some("0123456789abcdef".into()),
            last_message: Some("All good.\nTests remain.".into()),
            ..Facts::default()
        };
        let text = render(&f);
        assert_eq!(
            text,
            "## Working On\nBuild the parser\n\nLatest request: /workflows:work docs/plans/p.md\n\n\
             ## Progress\n- [x] Done one\n- Files changed (newest first):\n  - src/a.rs\n\n\
             ## Next\n- [ ] Doing one (in progress) — First line\n- [ ] Pending one — First line\n\n\
             ## Context\n- Branch: main at 0123456789ab\n- Last message from the assistant:\n  > All good.\n  > Tests remain.\n"
        );
    }

    #[test]
    fn an_acknowledgement_follows_the_request_and_a_failing_run_is_context() {
        let run = FailingRun {
            command: "cargo test -p core".into(),
            runner: "cargo test".into(),
            scope: "-p core".into(),
            names: vec!["parser::tests::empty".into(), "parser::tests::crlf".into()],
            failed: 2,
            first_error: Some(
                "thread 'parser::tests::empty' panicked at src/parser.rs:42:9: boom".into(),
            ),
        };
        let f = Facts {
            first_request: Some("Build the session store".into()),
            latest_request: Some("no — use Postgres, not SQLite".into()),
            latest_ack: Some("ok go ahead".into()),
            files: vec!["src/a.rs".into()],
            failing: Some(run.clone()),
            ..Facts::default()
        };
        let text = render(&f);
        assert!(text.starts_with(
            "## Working On\nBuild the session store\n\n\
             Latest request: no — use Postgres, not SQLite (then: \"ok go ahead\")\n"
        ));
        assert!(text.ends_with(
            "## Context\n- Last failing run: `cargo test -p core` — 2 failed: \
             parser::tests::empty, parser::tests::crlf; first error: \
             thread 'parser::tests::empty' panicked at src/parser.rs:42:9: boom\n"
        ));
        // One request, acknowledged; a run with more failures than names, one without any.
        let f = Facts {
            latest_request: Some("Fix the parser".into()),
            latest_ack: Some("ok".into()),
            failing: Some(FailingRun {
                failed: 12,
                first_error: None,
                ..run.clone()
            }),
            ..Facts::default()
        };
        let text = render(&f);
        assert!(text.starts_with("## Working On\nFix the parser (then: \"ok\")\n"));
        assert!(
            text.contains("— 12 failed: parser::tests::empty, parser::tests::crlf and 10 more\n")
        );
        let f = Facts {
            failing: Some(FailingRun {
                command: "echo `date` && make".into(),
                names: Vec::new(),
                failed: 0,
                ..run
            }),
            ..Facts::default()
        };
        assert!(
            render(&f)
                .contains("- Last failing run: `` echo `date` && make `` — failed; first error:")
        );
    }

    /// The host's summary is kept beside the handoff, never in it (SPEC §18.1).
    #[test]
    fn a_summary_sets_no_field_of_the_handoff() {
        use crate::megg::capture::transcript::{Origin, Scan};
        let lines = [
            r#"{"type":"user","message":{"role":"user","content":"Build the parser"}}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"w","name":"Write","input":{"file_path":"/p/src/parser.rs"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"w","content":"ok"}]}}"#,
        ];
        let summary = r#"{"type":"user","isCompactSummary":true,"timestamp":"2026-11-29T03:07:58.900Z","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n## Working On\nfake goal\n\n## Progress\n- [x] fake done\n\n## Next\n- fake\n\n## Context\n- Branch: fake"}}"#;
        let facts = |with: bool| {
            let mut s = Scan::default();
            for l in lines {
                s.feed(l, Origin::Main);
            }
            if with {
                s.feed(summary, Origin::Main);
            }
            assert_eq!(s.summary.is_some(), with);
            render(&Facts {
                first_request: s.first_request.clone(),
                latest_request: s.latest_request.clone(),
                latest_ack: s.ack.clone(),
                tasks: s.task_list().to_vec(),
                files: s.files.iter().rev().cloned().collect(),
                last_message: s.last_message.clone(),
                failing: s.failing.clone(),
                ..Facts::default()
            })
        };
        let with = facts(true);
        assert!(!with.contains("fake"), "{with}");
        assert_eq!(with, facts(false));
    }

    #[test]
    fn nothing_to_hand_off_without_tasks_or_edits() {
        let mut f = Facts {
            first_request: Some("What is 2+2?".into()),
            last_message: Some("4".into()),
            ..Facts::default()
        };
        assert!(f.is_empty());
        f.files.push("a".into());
        assert!(!f.is_empty());
    }
}
