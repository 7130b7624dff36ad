//! Words for `megg maintain`'s findings.

use crate::megg::knowledge::{self, KnowledgeType, entries_count};
use crate::megg::maintain::{Advice, STALE_AFTER_DAYS};
use crate::shell::shell_quote;
use crate::wire::knowledge::Maintained;

use chrono::NaiveDate;
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
                "{dir}: knowledge is {tokens} tokens, too many to load in full ({}): archive old entries with `megg maintain {dir} --archive-before {before}` or consolidate topics",
                knowledge::thresholds()
            )
        }
        Advice::Review { dir, count, before } => {
            let dir = quoted(dir);
            format!(
                "{dir}: {} {} older than {STALE_AFTER_DAYS} days: review {}, or archive with `megg maintain {dir} --archive-before {before}`",
                entries_count(*count),
                if *count == 1 { "is" } else { "are" },
                if *count == 1 { "it" } else { "them" }
            )
        }
        Advice::Consolidate { dir, topic, count } => {
            let dir = quoted(dir);
            format!(
                "{dir}: consolidate the {} on '{topic}' (`megg context {dir} --topic {}`)",
                entries_count(*count),
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
        Advice::LiveSuperseded { dir, entry } => live_superseded(&quoted(dir), entry),
    }
}

/// An entry a merge left both live and superseded (SPEC §17): which, where each copy is, and
/// the two ways out.
fn live_superseded(dir: &str, e: &crate::megg::maintain::LiveSuperseded) -> String {
    format!(
        "{dir}: '{}' ({}) is both live and superseded: live at {}:{}, superseded by '{}' in {} (a merge kept both): supersede it again with `megg -C {dir} learn --supersedes {} …`, or delete the live copy",
        e.title,
        e.id,
        e.live.display(),
        e.line,
        e.successor,
        e.archive.display(),
        e.id
    )
}

/// `maintain`'s report for people, run on `path` (`None`: the current domain's directory),
/// ending with how many entries cite code that changed since they were written (the session
/// start's check), and where to see them.
pub fn text(r: &Maintained, path: Option<&Path>) -> String {
    let mut out = report(r, None);
    if r.domains.iter().any(|d| d.entries > 0) {
        let path = path.map_or_else(String::new, |p| {
            format!(" {}", shell_quote(&p.display().to_string()))
        });
        let check = format!("`megg maintain{path} --check`");
        match &r.cited_code {
            Some(c) if c.changed > 0 => {
                let stale = if c.stale > 0 {
                    format!(" ({} stale?)", c.stale)
                } else {
                    String::new()
                };
                let capped = if c.capped {
                    format!(
                        " (checked the last {} commits: the history is longer, and the check walks further)",
                        c.bound
                    )
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "\n{} {} code that changed since {} written{stale}{capped}: {check} lists them.",
                    entries_count(c.changed),
                    if c.changed == 1 { "cites" } else { "cite" },
                    if c.changed == 1 {
                        "it was"
                    } else {
                        "they were"
                    },
                );
            }
            Some(c) if c.capped => {
                let _ = writeln!(
                    out,
                    "\nNo entry cites code that changed in the last {} commits, but the history is longer: {check} walks further and lists the entries whose cited files changed, moved or are gone since they were written.",
                    c.bound
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "\nAge says nothing of the code an entry cites: {check} lists the entries whose cited files changed, moved or are gone since they were written."
                );
            }
        }
    }
    out
}

/// `maintain --archive-before DATE`'s report: the usual one with a summary line per domain
/// after the archived entries; with `quiet`, the summary alone (a large file archives
/// thousands of entries, one line each).
pub fn archived_text(r: &Maintained, before: NaiveDate, quiet: bool) -> String {
    let summary = archive_summary(r, before);
    if quiet {
        summary
    } else {
        report(r, Some(&summary))
    }
}

/// One line per domain that archived something: how many entries, to which files, and what
/// its knowledge keeps; one line saying so when nothing moved.
fn archive_summary(r: &Maintained, before: NaiveDate) -> String {
    // The archive files of one domain share a directory, `.megg/archive`.
    let mut by_dir: Vec<(&Path, Vec<&Path>, usize)> = Vec::new();
    for a in &r.archived {
        let to = Path::new(&a.to);
        let dir = to.parent().unwrap_or(Path::new(""));
        match by_dir.iter_mut().find(|(d, _, _)| *d == dir) {
            Some((_, files, n)) => {
                if !files.contains(&to) {
                    files.push(to);
                }
                *n += 1;
            }
            None => by_dir.push((dir, vec![to], 1)),
        }
    }
    if by_dir.is_empty() {
        return if r.domains.is_empty() {
            "Archived nothing: no .megg directories found\n".into()
        } else {
            format!("Archived nothing: no entry is dated before {before}\n")
        };
    }
    let mut out = String::new();
    for (dir, mut files, n) in by_dir {
        files.sort();
        let _ = write!(out, "Archived {} {} to ", grouped(n), entry_noun(n));
        for (i, f) in files.iter().enumerate() {
            let name = if i == 0 {
                f.display().to_string()
            } else {
                f.file_name()
                    .map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().into())
            };
            let sep = match i {
                0 => "",
                i if i + 1 == files.len() => " and ",
                _ => ", ",
            };
            let _ = write!(out, "{sep}{name}");
        }
        let live = r.domains.iter().find_map(|d| {
            let k = d.knowledge.as_deref()?;
            (k.parent().map(|m| m.join("archive")).as_deref() == Some(dir)).then_some((k, d))
        });
        if let Some((k, d)) = live {
            let _ = write!(
                out,
                "; {} tokens remain in {} ({} {})",
                grouped(d.tokens),
                k.display(),
                grouped(d.entries),
                entry_noun(d.entries)
            );
        }
        out.push('\n');
    }
    out
}

fn entry_noun(n: usize) -> &'static str {
    if n == 1 { "entry" } else { "entries" }
}

/// `7535` as `7,535`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn report(r: &Maintained, archive_summary: Option<&str>) -> String {
    let mut out = String::new();
    if r.domains.is_empty() {
        out.push_str("No .megg directories found\n");
    }
    for d in &r.domains {
        let _ = write!(out, "{}: ", d.dir.display());
        match &d.knowledge {
            Some(_) => {
                let _ = write!(out, "{}, {} tokens", entries_count(d.entries), d.tokens);
                if d.bloated {
                    out.push_str(" (bloated)");
                }
            }
            None => out.push_str("no knowledge.md"),
        }
        // "Stale" is SPEC §17's word for an entry whose cited code changed, never for its age.
        if !d.stale.is_empty() {
            let _ = write!(
                out,
                ", {} older than {STALE_AFTER_DAYS} days",
                d.stale.len()
            );
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
    if let Some(summary) = archive_summary {
        out.push_str(summary);
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

/// `maintain --check`: each entry whose cited code changed, what happened to each path and the
/// commits that did it; or that none did.
pub fn checked_text(c: &crate::wire::recall::Checked) -> String {
    use crate::megg::freshness::describe;
    let capped = if c.capped {
        format!(
            "The history is longer than the walk: checked the last {} commits.\n",
            c.bound
        )
    } else {
        String::new()
    };
    if c.entries.is_empty() {
        return format!(
            "No entry cites code that changed since it was written ({} entr{} and {} citation{} checked).\n{capped}",
            c.checked,
            if c.checked == 1 { "y" } else { "ies" },
            c.citations,
            if c.citations == 1 { "" } else { "s" }
        );
    }
    // By path: each path's commits once, then the entries citing it (SPEC §17).
    let mut out = String::new();
    for g in &c.by_path {
        out.push_str(&describe(
            &g.path,
            g.status,
            g.commits,
            g.new_path.as_deref(),
        ));
        out.push('\n');
        for t in &g.touched_by {
            let short: String = t.commit.chars().take(8).collect();
            out.push_str(&format!("    {short} {} {}\n", t.date, t.summary));
        }
        if g.commits > g.touched_by.len() {
            out.push_str(&format!(
                "    … and {} more\n",
                g.commits - g.touched_by.len()
            ));
        }
        for e in c.entries.iter().filter(|e| g.entries.contains(&e.id)) {
            // An entry written later saw fewer of the path's commits: its own count.
            let own = e
                .paths
                .iter()
                .find(|p| p.path == g.path)
                .filter(|p| p.commits != g.commits)
                .map(|p| format!("  ({} since it)", p.commits))
                .unwrap_or_default();
            out.push_str(&format!(
                "  {}  {}  {}{}{own}  {}:{}\n",
                e.id,
                e.date.as_deref().unwrap_or("undated"),
                e.title,
                if e.stale { "  stale?" } else { "" },
                e.path.display(),
                e.line
            ));
        }
        out.push('\n');
    }
    let n = c.entries.len();
    out.push_str(&format!(
        "{n} of {} entr{} cite{} code that changed since written: update each, or replace it with `megg learn --supersedes ID …`.\n",
        c.checked,
        if c.checked == 1 { "y" } else { "ies" },
        if n == 1 { "s" } else { "" }
    ));
    out.push_str(&capped);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn counts_are_grouped_by_thousands() {
        let cases = [(0, "0"), (999, "999"), (1_000, "1,000"), (7_535, "7,535")];
        for (n, text) in cases {
            assert_eq!(grouped(n), text);
        }
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

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
            "'/p/my shop': knowledge is 9000 tokens, too many to load in full (`megg context` loads knowledge in full below 8000 tokens, only a summary from 8000 to 16000, and none of it over 16000; `megg maintain` calls it bloated over 8000, and `megg learn` says maintenance is due past 12000): archive old entries with `megg maintain '/p/my shop' --archive-before 2026-08-24` or consolidate topics"
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
