//! What `megg checkpoint prune` and `megg checkpoint quarantine` print for people.

use std::fmt::Write as _;

use crate::megg::checkpoint::Described;
use crate::megg::checkpoint::tidy::Quarantined;

pub fn pruned_text(pruned: &[Described], dry_run: bool, rule: &str) -> String {
    if pruned.is_empty() {
        return format!("No checkpoints {rule}; nothing to prune\n");
    }
    let mut out = format!(
        "{} {} checkpoint{} {rule}:\n",
        if dry_run { "Would delete" } else { "Deleted" },
        pruned.len(),
        if pruned.len() == 1 { "" } else { "s" }
    );
    for d in pruned {
        let age = d.age.map_or("no valid date".to_string(), |a| {
            format!("{} days old", a.num_days())
        });
        let _ = writeln!(
            out,
            "  {}  '{}', phase {}, {}/{} done, {age}",
            d.file,
            d.checkpoint.feature,
            d.checkpoint.phase.as_deref().unwrap_or("(none)"),
            d.done(),
            d.checkpoint.items.len()
        );
    }
    if dry_run {
        out.push_str("Run again without --dry-run to delete them.\n");
    }
    out
}

pub fn quarantine_text(all: &[Quarantined], restored: Option<&Quarantined>) -> String {
    let mut out = String::new();
    if let Some(q) = restored {
        let _ = writeln!(out, "Restored {} to {}", q.name, q.origin.display());
        return out;
    }
    if all.is_empty() {
        return "Nothing in quarantine\n".into();
    }
    for q in all {
        let _ = writeln!(out, "{}", q.path.display());
        let _ = writeln!(out, "  came from {}", q.origin.display());
        match &q.still_corrupt {
            Some(why) => {
                let _ = writeln!(
                    out,
                    "  still corrupt: {why}\n  fix it in place, then: megg checkpoint quarantine --restore {}",
                    crate::shell::shell_quote(&q.name)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  readable again: megg checkpoint quarantine --restore {}",
                    crate::shell::shell_quote(&q.name)
                );
            }
        }
    }
    out
}
