//! Words for `megg maintain`'s findings.

use crate::megg::knowledge::{FULL_BELOW, KnowledgeType};
use crate::megg::maintain::{Advice, STALE_AFTER_DAYS};
use crate::shell::shell_quote;
use crate::wire::knowledge::Maintained;

use std::fmt::Write as _;
use std::path::Path;

/// One line of advice, naming the domain and the command that acts on it.
pub fn advice(a: &Advice) -> String {
    let quoted = |dir: &std::path::Path| shell_quote(&dir.display().to_string());
    match a {
        Advice::Archive {
            dir,
            tokens,
            before,
        } => {
            let dir = quoted(dir);
            format!(
                "{dir}: knowledge is {tokens} tokens (over {FULL_BELOW}): archive old entries with `megg maintain {dir} --archive-before {before}` or consolidate topics"
            )
        }
        Advice::Review { dir, count, before } => {
            let dir = quoted(dir);
            format!(
                "{dir}: {count} entries are older than {STALE_AFTER_DAYS} days: review them, or archive with `megg maintain {dir} --archive-before {before}`"
            )
        }
        Advice::Consolidate { dir, topic, count } => {
            let dir = quoted(dir);
            format!(
                "{dir}: consolidate the {count} entries on '{topic}' (`megg context {dir} --topic {}`)",
                shell_quote(topic)
            )
        }
        Advice::UnknownTypes { dir, types } => format!(
            "{}: unknown types {} (valid: {})",
            quoted(dir),
            types.join(", "),
            KnowledgeType::list()
        ),
        Advice::FixProblems { dir, count } => format!(
            "{}: fix {count} parse problem(s) in knowledge.md",
            quoted(dir)
        ),
        Advice::ClearState { dir } => {
            let dir = quoted(dir);
            format!("{dir}: remove the expired state with `megg -C {dir} state clear`")
        }
    }
}

/// `maintain`'s report for people.
pub fn text(r: &Maintained) -> String {
    let mut out = String::new();
    if r.domains.is_empty() {
        out.push_str("No .megg directories found\n");
    }
    for d in &r.domains {
        let _ = write!(out, "{}: ", d.dir.display());
        match &d.knowledge {
            Some(_) => {
                let _ = write!(out, "{} entries, {} tokens", d.entries, d.tokens);
                if d.bloated {
                    out.push_str(" (bloated)");
                }
            }
            None => out.push_str("no knowledge.md"),
        }
        if !d.stale.is_empty() {
            let _ = write!(out, ", {} stale", d.stale.len());
        }
        if d.expired_state {
            out.push_str(", expired state.md");
        }
        out.push('\n');
        for p in &d.problems {
            let _ = writeln!(out, "  problem: {p}");
        }
    }
    for a in &r.archived {
        let _ = writeln!(
            out,
            "archived: {} {} → {}",
            a.date,
            a.title,
            Path::new(&a.to).display()
        );
    }
    if !r.archived.is_empty() {
        out.push_str(
            "archived entries stay searchable: megg search WORDS --in archive, then megg show ID\n",
        );
    }
    if !r.actions.is_empty() {
        out.push_str("\nSuggested actions:\n");
        for a in &r.actions {
            let _ = writeln!(out, "- {a}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn advice_names_the_command_that_acts_on_it() {
        let before = chrono::NaiveDate::from_ymd_opt(2026, 8, 24).unwrap();
        let dir = PathBuf::from("/p/my shop");
        assert_eq!(
            advice(&Advice::Archive {
                dir: dir.clone(),
                tokens: 9000,
                before
            }),
            "'/p/my shop': knowledge is 9000 tokens (over 8000): archive old entries with `megg maintain '/p/my shop' --archive-before 2026-08-24` or consolidate topics"
        );
        assert_eq!(
            advice(&Advice::Consolidate {
                dir,
                topic: "auth".into(),
                count: 3
            }),
            "'/p/my shop': consolidate the 3 entries on 'auth' (`megg context '/p/my shop' --topic auth`)"
        );
    }
}
