//! What `megg checkpoint` prints: its `--json` wire structs and their text form.

use std::fmt::Write as _;

use serde::Serialize;

use crate::clock::human_age;
use crate::megg::checkpoint::{Opt, View};

#[derive(Debug, Clone, Serialize)]
pub struct Saved {
    pub checkpoint: View,
    pub created: bool,
    pub gitignored: bool,
    pub announcement: String,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CorruptFile {
    pub file: String,
    pub error: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    pub checkpoints: Vec<View>,
    pub corrupt: Vec<CorruptFile>,
    pub ignored: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    pub checkpoint: View,
    pub text: String,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Updated {
    pub checkpoint: View,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Resumed {
    /// `found`, `none` or `multiple`.
    pub status: &'static str,
    pub checkpoint: Option<View>,
    pub candidates: Vec<View>,
    pub question: Option<String>,
    pub options: Vec<Opt>,
    pub warnings: Vec<String>,
    pub corrupt: Vec<CorruptFile>,
    /// `resumed`, `started-fresh` or `viewed` once a choice was carried out.
    pub action: Option<&'static str>,
    /// What a person reads: the outcome, or the file for `view`.
    pub message: Option<String>,
}

fn age(v: &View) -> String {
    v.age_seconds
        .map_or_else(|| "unknown age".into(), human_age)
}

/// One line per checkpoint.
fn line(v: &View) -> String {
    format!(
        "{}  {}  {}/{}  {} ({})  {}",
        v.file,
        v.phase.as_deref().unwrap_or("-"),
        v.progress.done,
        v.progress.total,
        age(v),
        v.staleness.as_str(),
        v.branch.as_deref().unwrap_or("(no branch)")
    )
}

pub fn listed_text(l: &Listed) -> String {
    let mut out = String::new();
    if l.checkpoints.is_empty() {
        out.push_str("No checkpoints\n");
    }
    for v in &l.checkpoints {
        let _ = writeln!(out, "{}", line(v));
    }
    for c in &l.corrupt {
        let _ = writeln!(out, "corrupt: {} ({})", c.file, c.error);
    }
    for i in &l.ignored {
        let _ = writeln!(out, "ignored (not a checkpoint): {i}");
    }
    out
}

pub fn updated_text(v: &View) -> String {
    format!("Updated {}\n{}\n", v.file, line(v))
}

/// What `resume` prints after resuming: where to pick up.
pub fn resumed_text(v: &View) -> String {
    let mut out = format!(
        "Resumed '{}' (phase {})\nPlan: {}\n",
        v.feature,
        v.phase.as_deref().unwrap_or("-"),
        v.plan_file
    );
    if let Some(b) = &v.branch {
        let _ = writeln!(out, "Branch: {b}");
    }
    let open: Vec<_> = v
        .progress
        .items
        .iter()
        .filter(|i| !i.done)
        .take(3)
        .collect();
    if !open.is_empty() {
        out.push_str("Next:\n");
        for i in open {
            let _ = writeln!(out, "- [ ] {}", i.text);
        }
    }
    out
}

/// The report shown before the question (and printed off a terminal).
pub fn report_text(r: &Resumed) -> String {
    let mut out = String::new();
    if let Some(m) = &r.message
        && r.checkpoint.is_none()
    {
        let _ = writeln!(out, "{m}");
    }
    for v in &r.candidates {
        let _ = writeln!(out, "  {}", line(v));
    }
    if let (Some(v), Some(q)) = (&r.checkpoint, &r.question) {
        let _ = writeln!(out, "{q}");
        let _ = writeln!(out, "  file:     {}", v.path.display());
        let _ = writeln!(out, "  phase:    {}", v.phase.as_deref().unwrap_or("-"));
        let _ = writeln!(out, "  progress: {}/{}", v.progress.done, v.progress.total);
        let _ = writeln!(out, "  age:      {} ({})", age(v), v.staleness.as_str());
        let _ = writeln!(
            out,
            "  branch:   {}",
            v.branch.as_deref().unwrap_or("(none)")
        );
        out.push_str("Options:\n");
        for o in &r.options {
            let rec = if o.recommended { " (recommended)" } else { "" };
            let _ = writeln!(
                out,
                "  {}{rec} — {}: megg checkpoint resume {} --choice {}",
                o.label,
                o.description,
                v.feature,
                if o.id == "new-path" {
                    "resume --plan-file NEW"
                } else {
                    o.id
                }
            );
        }
    }
    out
}
