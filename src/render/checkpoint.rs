//! What `megg checkpoint` prints: the text form of each result here, the `--json` documents
//! in [`wire`].

use std::fmt::Write as _;

use crate::clock::human_age;
use crate::megg::checkpoint::{Described, Listing, OptionId, ResumeReport, Saved};

fn age(d: &Described) -> String {
    d.age
        .map(|a| a.num_seconds())
        .map_or_else(|| "unknown age".into(), human_age)
}

fn phase(d: &Described) -> &str {
    d.checkpoint.phase.as_deref().unwrap_or("-")
}

/// One line per checkpoint.
fn line(d: &Described) -> String {
    format!(
        "{}  {}  {}/{}  {} ({})  {}",
        d.file,
        phase(d),
        d.done(),
        d.checkpoint.items.len(),
        age(d),
        d.staleness,
        d.checkpoint.branch.as_deref().unwrap_or("(no branch)")
    )
}

pub fn saved_text(s: &Saved) -> String {
    format!("{}\n", s.announcement)
}

pub fn listed_text(l: &Listing) -> String {
    let mut out = String::new();
    if l.checkpoints.is_empty() {
        out.push_str("No checkpoints\n");
    }
    for d in &l.checkpoints {
        let _ = writeln!(out, "{}", line(d));
    }
    for (path, error) in &l.corrupt {
        let _ = writeln!(out, "corrupt: {} ({error})", path.display());
    }
    for i in &l.ignored {
        let _ = writeln!(out, "ignored (not a checkpoint): {}", i.display());
    }
    out
}

pub fn updated_text(d: &Described) -> String {
    format!("Updated {}\n{}\n", d.file, line(d))
}

pub fn finished_text(file: &str, feature: &str) -> String {
    format!("Workflow complete: removed {file} ('{feature}')\n")
}

/// What `resume` prints after resuming: where to pick up.
pub fn resumed_text(d: &Described) -> String {
    let mut out = format!(
        "Resumed '{}' (phase {})\nPlan: {}\n",
        d.checkpoint.feature,
        phase(d),
        d.checkpoint.plan_file
    );
    if let Some(b) = &d.checkpoint.branch {
        let _ = writeln!(out, "Branch: {b}");
    }
    let open: Vec<_> = d
        .checkpoint
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
pub fn report_text(r: &ResumeReport) -> String {
    let mut out = String::new();
    if let Some(m) = &r.message
        && r.checkpoint.is_none()
    {
        let _ = writeln!(out, "{m}");
    }
    for d in &r.candidates {
        let _ = writeln!(out, "  {}", line(d));
    }
    if let (Some(d), Some(q)) = (&r.checkpoint, &r.question) {
        let _ = writeln!(out, "{q}");
        let _ = writeln!(out, "  file:     {}", d.path.display());
        let _ = writeln!(out, "  phase:    {}", phase(d));
        let _ = writeln!(out, "  progress: {}/{}", d.done(), d.checkpoint.items.len());
        let _ = writeln!(out, "  age:      {} ({})", age(d), d.staleness);
        let _ = writeln!(
            out,
            "  branch:   {}",
            d.checkpoint.branch.as_deref().unwrap_or("(none)")
        );
        out.push_str("Options:\n");
        for o in &r.options {
            let rec = if o.recommended { " (recommended)" } else { "" };
            let choice = match o.id {
                OptionId::NewPath => "resume --plan-file NEW",
                id => id.as_str(),
            };
            let _ = writeln!(
                out,
                "  {}{rec} — {}: megg checkpoint resume {}{} --choice {choice}",
                o.label,
                o.description,
                d.checkpoint.feature,
                crate::megg::checkpoint::ops::for_flag(r.asking),
            );
        }
    }
    out
}

/// Everything `resume` prints: the outcome once a choice was carried out, else the report;
/// always newline-terminated.
pub fn resume_text(r: &ResumeReport) -> String {
    let mut text = match r.action {
        Some(_) => r.message.clone().unwrap_or_default(),
        None => report_text(r),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// A resume option as a line of the terminal picker.
pub fn option_item(label: &str, description: &str, recommended: bool) -> String {
    if recommended {
        format!("{label} (recommended) — {description}")
    } else {
        format!("{label} — {description}")
    }
}

/// A checkpoint as a line of the terminal picker.
pub fn candidate_item(feature: &str, file: &str) -> String {
    format!("{feature} ({file})")
}
