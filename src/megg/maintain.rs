//! `megg maintain` (SPEC §6): what is wrong with a domain's knowledge, what to do about it,
//! and how old entries move into `.megg/archive/`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::{Duration, NaiveDate};

use super::knowledge::{self, Entry, KnowledgeType};

/// Entries older than this are reported as stale.
pub const STALE_AFTER_DAYS: i64 = 90;
/// A topic with this many entries is a consolidation candidate.
pub const CONSOLIDATE_AT: usize = 3;
/// How deep below PATH maintain looks for domains.
pub const MAX_DEPTH: usize = 10;

#[derive(Debug, Clone, Default)]
pub struct DomainReport {
    pub dir: PathBuf,
    pub knowledge: Option<PathBuf>,
    pub tokens: usize,
    pub entries: usize,
    pub bloated: bool,
    pub stale: Vec<Stale>,
    pub topics: BTreeMap<String, usize>,
    pub unknown_types: Vec<String>,
    pub problems: Vec<String>,
    /// `state.md` is present but expired.
    pub expired_state: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    pub title: String,
    pub date: String,
}

/// Fills in the knowledge findings of `report` from the file's text.
pub fn analyse(report: &mut DomainReport, text: &str, tokens: usize, today: NaiveDate) {
    let split = crate::frontmatter::split(text);
    if let Some(yaml) = split.yaml
        && let Err(e) = crate::frontmatter::parse(yaml)
    {
        report.problems.push(format!("invalid frontmatter: {e}"));
    }
    let hunks = super::conflict::count(text);
    if hunks > 0 {
        report.problems.push(format!(
            "{hunks} unresolved merge conflict(s): run megg resolve"
        ));
    }
    let entries = knowledge::parse(split.body);
    report.tokens = tokens;
    report.entries = entries.len();
    report.bloated = knowledge::bloated(tokens);
    let cutoff = today - Duration::days(STALE_AFTER_DAYS);
    for e in &entries {
        if let Some(d) = e
            .date
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
            && d < cutoff
        {
            report.stale.push(Stale {
                title: e.title.to_string(),
                date: d.to_string(),
            });
        }
        match e.kind {
            None => report
                .problems
                .push(format!("entry '{}' has no **Type:** line", e.title)),
            Some(k) if KnowledgeType::parse(k).is_none() => {
                if !report.unknown_types.iter().any(|u| u == k) {
                    report.unknown_types.push(k.to_string());
                }
            }
            Some(_) => {}
        }
        if e.topics.is_empty() {
            report
                .problems
                .push(format!("entry '{}' has no topics", e.title));
        }
    }
    report.topics = knowledge::topic_counts(&entries)
        .into_iter()
        .filter(|(_, n)| *n >= CONSOLIDATE_AT)
        .collect();
}

/// One thing to do about a domain's findings; the renderer (`render::maintain::advice`) words it,
/// with the command that does it where there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advice {
    /// Knowledge is over the full-load limit: archive entries older than `before`.
    Archive {
        dir: PathBuf,
        tokens: usize,
        before: NaiveDate,
    },
    /// `count` entries are older than [`STALE_AFTER_DAYS`]: review or archive them.
    Review {
        dir: PathBuf,
        count: usize,
        before: NaiveDate,
    },
    /// `count` entries share `topic`: merge them.
    Consolidate {
        dir: PathBuf,
        topic: String,
        count: usize,
    },
    /// Entries with types megg does not know.
    UnknownTypes { dir: PathBuf, types: Vec<String> },
    /// Entries that do not parse cleanly.
    FixProblems { dir: PathBuf, count: usize },
    /// An expired `state.md` is still there.
    ClearState { dir: PathBuf },
}

/// What to do about the findings, in order, per domain.
pub fn actions(reports: &[DomainReport], today: NaiveDate) -> Vec<Advice> {
    let before = today - Duration::days(STALE_AFTER_DAYS);
    let mut out = Vec::new();
    for r in reports {
        let dir = r.dir.clone();
        if r.bloated {
            out.push(Advice::Archive {
                dir: dir.clone(),
                tokens: r.tokens,
                before,
            });
        } else if !r.stale.is_empty() {
            out.push(Advice::Review {
                dir: dir.clone(),
                count: r.stale.len(),
                before,
            });
        }
        for (topic, n) in &r.topics {
            out.push(Advice::Consolidate {
                dir: dir.clone(),
                topic: topic.clone(),
                count: *n,
            });
        }
        if !r.unknown_types.is_empty() {
            out.push(Advice::UnknownTypes {
                dir: dir.clone(),
                types: r.unknown_types.clone(),
            });
        }
        if !r.problems.is_empty() {
            out.push(Advice::FixProblems {
                dir: dir.clone(),
                count: r.problems.len(),
            });
        }
        if r.expired_state {
            out.push(Advice::ClearState { dir });
        }
    }
    out
}

/// The live file split for archiving: entries dated before `before`, grouped by year, and
/// the live text without them (frontmatter and preamble kept, remaining entries byte for byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivePlan<'a> {
    pub by_year: BTreeMap<i32, Vec<Entry<'a>>>,
    pub remaining_body: String,
}

pub fn plan_archive(body: &str, before: NaiveDate) -> ArchivePlan<'_> {
    let entries = knowledge::parse(body);
    let mut by_year: BTreeMap<i32, Vec<Entry<'_>>> = BTreeMap::new();
    for e in entries {
        match e
            .date
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
        {
            Some(d) if d < before => by_year
                .entry(chrono::Datelike::year(&d))
                .or_default()
                .push(e),
            _ => {}
        }
    }
    let moved: Vec<&str> = by_year.values().flatten().map(|e| e.raw).collect();
    let remaining_body = without(body, &moved);
    ArchivePlan {
        by_year,
        remaining_body,
    }
}

/// `body` without the entries `gone` (slices of it), each with the `---` line before it:
/// every other byte — a preamble with or without a header, text between entries, an entry at
/// the very top with no `---` above it — stays exactly as it was.
fn without(body: &str, gone: &[&str]) -> String {
    let base = body.as_ptr() as usize;
    let mut ranges: Vec<(usize, usize)> = gone
        .iter()
        .map(|raw| {
            let start = raw.as_ptr() as usize - base;
            (start, start + raw.len())
        })
        .collect();
    ranges.sort_unstable();
    let mut out = String::with_capacity(body.len());
    let mut pos = 0;
    // Every offset is where an entry's slice of `body` starts or ends, or a line's: a char
    // boundary, so `piece` gives the text between them (and never panics).
    let piece = |from: usize, to: usize| body.get(from..to).unwrap_or_default();
    for (start, end) in ranges {
        // Take the separator line above the entry with it, when only blank lines lie between.
        let before = piece(0, start).trim_end_matches(['\n', '\r', ' ', '\t']);
        let (line_start, last_line) = before
            .rsplit_once('\n')
            .map_or((0, before), |(head, line)| (head.len() + 1, line));
        let cut_from = if last_line.trim() == "---" {
            line_start
        } else {
            start
        };
        out.push_str(piece(pos, cut_from.max(pos)));
        // And the end of its last line and the blank lines after it, so the entries around it
        // keep the spacing they had.
        let mut end = end;
        for line in piece(end, body.len()).split_inclusive('\n') {
            if !line.trim().is_empty() {
                break;
            }
            end += line.len();
        }
        pos = end;
    }
    out.push_str(piece(pos, body.len()));
    out
}

/// An archive file's text with `entries` appended, skipping any whose exact text is already
/// there (so a re-run after an interruption never duplicates an entry).
pub fn append_to_archive(
    existing: Option<&str>,
    year: i32,
    entries: &[Entry<'_>],
    now: &str,
) -> (String, usize) {
    let mut out = match existing {
        Some(t) if !t.trim().is_empty() => t.to_string(),
        _ => crate::templates::fill(
            crate::templates::KNOWLEDGE_ARCHIVE,
            &[("now", now), ("year", &year.to_string())],
        ),
    };
    let already: Vec<&str> =
        knowledge::parse(crate::frontmatter::split(existing.unwrap_or("")).body)
            .iter()
            .map(|e| e.raw)
            .collect();
    let mut added = 0;
    for e in entries {
        if already.contains(&e.raw) {
            continue;
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\n---\n\n");
        out.push_str(e.raw);
        out.push('\n');
        added += 1;
    }
    (out, added)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    const BODY: &str = "\n# Knowledge\n\n\n---\n\n## 2025-01-10 - Old one\n**Type:** decision\n**Topics:** auth\n\nold text\n\n---\n\n## 2026-11-01 - New one\n**Type:** idea\n**Topics:** auth\n\nnew text\n\n---\n\n## Undated\n**Topics:** auth\n\nx\n";

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn analysis_finds_every_kind_of_problem() {
        let mut r = DomainReport::default();
        analyse(
            &mut r,
            &format!("---\ntype: knowledge\n---\n{BODY}"),
            9000,
            day("2026-11-22"),
        );
        assert_eq!(r.entries, 3);
        assert!(r.bloated);
        assert_eq!(
            r.stale,
            [Stale {
                title: "Old one".into(),
                date: "2025-01-10".into()
            }]
        );
        assert_eq!(r.unknown_types, ["idea"]);
        assert_eq!(r.topics.get("auth"), Some(&3));
        assert_eq!(r.problems, ["entry 'Undated' has no **Type:** line"]);
        let dir = r.dir.clone();
        let acts = actions(&[r], day("2026-11-22"));
        assert_eq!(
            acts[0],
            Advice::Archive {
                dir: dir.clone(),
                tokens: 9000,
                before: day("2026-08-24")
            }
        );
        assert!(acts.contains(&Advice::Consolidate {
            dir: dir.clone(),
            topic: "auth".into(),
            count: 3
        }));
        assert!(acts.contains(&Advice::UnknownTypes {
            dir,
            types: vec!["idea".into()]
        }));
    }

    #[test]
    fn archive_plan_moves_only_dated_old_entries() {
        let plan = plan_archive(BODY, day("2026-01-01"));
        assert_eq!(plan.by_year.len(), 1);
        assert_eq!(plan.by_year[&2025][0].title, "Old one");
        assert!(
            plan.remaining_body
                .starts_with("\n# Knowledge\n\n\n---\n\n## 2026-11-01 - New one"),
            "every byte not moved stays: {:?}",
            plan.remaining_body
        );
        assert!(!plan.remaining_body.contains("Old one"));
        assert!(
            plan.remaining_body
                .contains("## Undated\n**Topics:** auth\n\nx\n")
        );
    }

    #[test]
    fn maintain_archive_keeps_a_headerless_preamble_and_never_duplicates_a_top_entry() {
        // Text before the first entry that is not an entry: kept byte for byte.
        let body = "Notes for the team, no header.\n\n---\n\nMore intro, still no header.\n\n---\n\n## 2020-01-01 - Old\n**Type:** fact\n**Topics:** a\n\nold\n\n---\n\n## 2026-01-01 - New\n**Type:** fact\n**Topics:** a\n\nnew\n";
        let plan = plan_archive(body, day("2021-01-01"));
        assert_eq!(plan.by_year[&2020].len(), 1);
        assert_eq!(
            plan.remaining_body,
            "Notes for the team, no header.\n\n---\n\nMore intro, still no header.\n\n---\n\n## 2026-01-01 - New\n**Type:** fact\n**Topics:** a\n\nnew\n"
        );
        // An entry at the very top, no `---` above it: moved once, kept once.
        let top = "## 2020-01-01 - Old\n**Type:** fact\n**Topics:** a\n\nold\n\n---\n\n## 2026-01-01 - New\n**Type:** fact\n**Topics:** a\n\nnew\n";
        let plan = plan_archive(top, day("2021-01-01"));
        assert!(!plan.remaining_body.contains("## 2020-01-01 - Old"));
        assert_eq!(
            plan.remaining_body.matches("## 2026-01-01 - New").count(),
            1
        );
        let plan = plan_archive(top, day("2019-01-01"));
        assert!(plan.by_year.is_empty());
        assert_eq!(plan.remaining_body, top, "nothing to move changes no byte");
    }

    #[test]
    fn archiving_twice_never_duplicates() {
        let plan = plan_archive(BODY, day("2026-01-01"));
        let (first, n) =
            append_to_archive(None, 2025, &plan.by_year[&2025], "2026-11-22T00:00:00Z");
        assert_eq!(n, 1);
        let (second, n) = append_to_archive(
            Some(&first),
            2025,
            &plan.by_year[&2025],
            "2026-11-22T00:00:00Z",
        );
        assert_eq!(n, 0);
        assert_eq!(first, second);
        assert!(first.contains(
            "## 2025-01-10 - Old one\n**Type:** decision\n**Topics:** auth\n\nold text\n"
        ));
    }
}
