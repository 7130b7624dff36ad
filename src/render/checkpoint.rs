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

/// What `resume` prints after starting fresh.
pub fn fresh_text(file: &str) -> String {
    format!("Started fresh: removed {file}")
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

/// A checkpoint as a line of the terminal picker: `user-auth — work, 2/6 done, 3 days old`.
pub fn candidate_item(d: &Described) -> String {
    format!(
        "{} — {}, {}/{} done, {}",
        d.checkpoint.feature,
        d.checkpoint.phase.as_deref().unwrap_or("no phase"),
        d.done(),
        d.checkpoint.items.len(),
        age_in_words(d).map_or_else(|| "age unknown".into(), |a| format!("{a} old"))
    )
}

/// The report above the terminal prompt (SPEC §4.4): what was saved. The prompt itself asks
/// the question and offers the options, so neither is here, nor the follow-up commands an
/// agent would run.
pub fn prompt_report_text(r: &ResumeReport) -> String {
    let Some(d) = &r.checkpoint else {
        return String::new();
    };
    let mut out = String::from("Saved session:\n");
    let _ = writeln!(out, "  file:     {}", d.path.display());
    let _ = writeln!(out, "  feature:  {}", d.checkpoint.feature);
    let _ = writeln!(
        out,
        "  phase:    {}",
        d.checkpoint.phase.as_deref().unwrap_or("(none)")
    );
    let _ = writeln!(
        out,
        "  progress: {}/{} done",
        d.done(),
        d.checkpoint.items.len()
    );
    let _ = writeln!(
        out,
        "  age:      {} ({})",
        age_in_words(d).unwrap_or_else(|| "unknown".into()),
        d.staleness
    );
    let _ = write!(
        out,
        "  branch:   {}",
        d.checkpoint.branch.as_deref().unwrap_or("(none)")
    );
    out
}

/// `3 days`, `5 hours`, `1 minute`: an age for a person choosing; `None` when unknown.
fn age_in_words(d: &Described) -> Option<String> {
    let s = d.age?.num_seconds().max(0);
    let (n, unit) = match s {
        0..60 => return Some("under a minute".into()),
        60..3600 => (s / 60, "minute"),
        3600..86_400 => (s / 3600, "hour"),
        _ => (s / 86_400, "day"),
    };
    Some(format!("{n} {unit}{}", if n == 1 { "" } else { "s" }))
}
