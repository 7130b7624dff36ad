//! `megg capture --dry-run`: what a capture would write, where, and why it would or would not
//! promote it.

use std::fmt::Write;

use crate::megg::capture::summary::Found;
use crate::megg::capture::{Outcome, Verdict};

/// A dry run's one-line explanation; nothing at all for a real (hook) run.
pub fn note(dry_run: bool, why: &str) -> String {
    if dry_run {
        format!("megg capture: nothing captured: {why}\n")
    } else {
        String::new()
    }
}

pub fn dry_run(o: &Outcome) -> String {
    let mut out = String::new();
    match &o.verdict {
        Verdict::Nothing | Verdict::Unchanged => {
            let _ = writeln!(
                out,
                "megg capture: nothing to write: {}",
                o.verdict.explain()
            );
        }
        v => {
            if let Some(f) = &o.session_file {
                let _ = writeln!(out, "would write {}", f.display());
            }
            match (v, &o.state) {
                (Verdict::Promoted, Some(s)) => {
                    let _ = writeln!(out, "would promote it to {}", s.display());
                }
                _ => {
                    let _ = writeln!(out, "would not promote it: {}", v.explain());
                }
            }
        }
    }
    if let Some(h) = &o.handoff
        && !matches!(o.verdict, Verdict::Nothing)
    {
        let _ = write!(out, "\n{h}");
    }
    out
}

/// What `megg capture --dry-run` says of a `PostCompact` input's summary (SPEC §18.1).
pub fn summary_dry_run(path: &std::path::Path, found: &Found) -> String {
    format!(
        "megg capture: would keep the host's compaction summary ({} characters, redacted) in {}\n",
        found.text.chars().count(),
        path.display()
    )
}
