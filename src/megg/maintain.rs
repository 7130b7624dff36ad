//! `megg maintain` (SPEC §6): what is wrong with a domain's knowledge, what to do about it,
//! and how old entries move into `.megg/archive/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{Duration, NaiveDate};

use super::discovery::{Domain, MAX_KNOWLEDGE_BYTES};
use super::freshness::{self, Status};
use super::knowledge::{self, Entry, KnowledgeType};
use super::recall;
use crate::fsx;

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
    /// Entries an older merge left both live and superseded (SPEC §17).
    pub live_superseded: Vec<LiveSuperseded>,
}

/// An entry both live and superseded (SPEC §17): in `knowledge.md`, while an archive file holds
/// an entry of the same date and title marked `**Superseded-by:**` — what a merge that kept an
/// edit against a supersede left (issue 45).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSuperseded {
    /// The live entry's id, as `search` and `show` give it.
    pub id: String,
    pub title: String,
    /// Where it is live: `knowledge.md`, and the 1-based line of its heading.
    pub live: PathBuf,
    pub line: usize,
    /// The archive file holding it superseded, and the successor its line names.
    pub archive: PathBuf,
    pub successor: String,
}

/// The entries of `docs` (one domain's knowledge and archive entries, with their ids: recall's)
/// that are both live and superseded: a knowledge entry whose date and title an archived entry
/// with a `**Superseded-by:**` line has. Each once, in the order of `knowledge.md`.
pub fn live_superseded(docs: &[recall::Doc]) -> Vec<LiveSuperseded> {
    let archived: Vec<(&recall::Doc, &str)> = docs
        .iter()
        .filter(|d| d.kind == recall::Kind::Archive)
        .filter_map(|d| knowledge::superseded_by(&d.text).map(|s| (d, s)))
        .collect();
    docs.iter()
        .filter(|d| d.kind == recall::Kind::Knowledge)
        .filter_map(|live| {
            let date = live.date.as_ref().map(recall::Shared::as_str);
            let (old, successor) = archived.iter().find(|(a, _)| {
                let heading = match &a.date {
                    Some(d) => format!("{d} - {}", a.title),
                    None => a.title.to_string(),
                };
                knowledge::supersede::names(&heading, date, &live.title)
            })?;
            Some(LiveSuperseded {
                id: live.id.to_string(),
                title: live.title.to_string(),
                live: live.path.to_path_buf(),
                line: live.line,
                archive: old.path.to_path_buf(),
                successor: (*successor).to_string(),
            })
        })
        .collect()
}

/// [`live_superseded`] of domain `d`: its `knowledge.md` and `.megg/archive/*.md` read (within
/// its boundary, as recall reads them), their entries named as ids name them — `place` is the
/// domain as [`recall::place`] gives it.
pub fn find_live_superseded(d: &Domain, place: &str) -> Vec<LiveSuperseded> {
    let read = |path: &Path, kind: recall::Kind| {
        let t = fsx::read_text(&d.boundary, path, MAX_KNOWLEDGE_BYTES).ok()??;
        Some(recall::doc::Source {
            kind,
            path: Arc::from(path),
            domain: d.name.clone(),
            place: place.to_string(),
            text: Arc::new(t.text),
        })
    };
    let Some(live) = read(&d.knowledge_path(), recall::Kind::Knowledge) else {
        return Vec::new();
    };
    let dir = d.megg.join("archive");
    let mut archives: Vec<PathBuf> = fsx::list(&d.boundary, &dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(name, kind)| {
            *kind == fsx::Kind::File && Path::new(name).extension().is_some_and(|e| e == "md")
        })
        .map(|(name, _)| dir.join(name))
        .collect();
    if archives.is_empty() {
        return Vec::new();
    }
    archives.sort();
    let sources: Vec<recall::doc::Source> = std::iter::once(live)
        .chain(
            archives
                .iter()
                .filter_map(|f| read(f, recall::Kind::Archive)),
        )
        .collect();
    live_superseded(&recall::parse(&sources))
}

/// Fills in `report`'s entries both live and superseded for domain `d` (SPEC §17), their ids
/// as `search` gives them from the domain.
pub fn supersession(deps: &super::Deps<'_>, d: &Domain, report: &mut DomainReport) {
    let top = deps.top(&d.dir);
    let mut chain = deps.walk(&top).domains(&d.dir, &mut Vec::new());
    chain.reverse();
    report.live_superseded = find_live_superseded(d, &recall::place(deps, d, &chain));
}

/// What the session start's check of cited code (SPEC §17) says of the knowledge entries at or
/// below a directory: how many cite code that changed since they were written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CitedCode {
    /// Entries checked.
    pub checked: usize,
    /// Those whose citations changed, moved or are gone (what `maintain --check` lists).
    pub changed: usize,
    /// Those of them that are stale (a path gone, or changed in 5 commits or more).
    pub stale: usize,
    /// The walk stopped at its bound for one: the counts are lower bounds.
    pub capped: bool,
    /// The walk's bound.
    pub bound: usize,
}

/// [`CitedCode`] of the knowledge entries at or below `root`, from the session start's walk
/// (its answers kept in megg's cache: warm, no walk; cold, the session start's bound — never
/// `maintain --check`'s deeper one); `None` outside git.
pub fn cited_code(deps: &super::Deps<'_>, root: &Path, cache: Option<&Path>) -> Option<CitedCode> {
    deps.repo(root)?;
    let scope = recall::Scope {
        path: root,
        below: true,
        cache,
    };
    let corpus = recall::collect(deps, &scope);
    let entries: Vec<&recall::Doc> = corpus
        .docs
        .iter()
        .filter(|d| d.kind == recall::Kind::Knowledge && d.path.starts_with(root))
        .collect();
    let mut out = CitedCode {
        checked: entries.len(),
        ..CitedCode::default()
    };
    for f in freshness::of_docs(deps, &entries).iter().flatten() {
        if !matches!(f.status(), Status::Fresh | Status::Uncited) {
            out.changed += 1;
            out.stale += usize::from(f.stale());
        }
        out.capped |= f.capped && !f.paths.is_empty();
        out.bound = out.bound.max(f.bound);
    }
    Some(out)
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
    /// An entry an older merge left both live and superseded: supersede it again, or delete the
    /// live copy.
    LiveSuperseded { dir: PathBuf, entry: LiveSuperseded },
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
        for entry in &r.live_superseded {
            out.push(Advice::LiveSuperseded {
                dir: dir.clone(),
                entry: entry.clone(),
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

    /// Issue 45's leftover: an entry live in knowledge.md while an archive holds it (same date
    /// and title, as ids compare them) marked superseded. An archived entry not marked, or
    /// marked but of another day, is not one.
    #[test]
    fn an_entry_live_and_archived_as_superseded_is_named_with_its_id() {
        let source = |kind, path: &str, text: &str| recall::doc::Source {
            kind,
            path: Arc::from(Path::new(path)),
            domain: "P".into(),
            place: String::new(),
            text: Arc::new(text.to_string()),
        };
        let live = "# Knowledge\n\n---\n\n## 2025-03-01 - Use REST\n**Type:** decision\n**Topics:** api\n\nedited\n\n---\n\n## 2025-04-01 - Kept\n**Type:** rule\n**Topics:** a\n\nk\n\n---\n\n## 2025-05-01 - Moved\n**Type:** rule\n**Topics:** a\n\nm\n";
        let archive = "# Archive\n\n---\n\n## 2025-03-01 - use  rest\n**Type:** decision\n**Topics:** api\n**Superseded-by:** 2026-11-20 - Use gRPC\n\nold\n\n---\n\n## 2025-04-01 - Kept\n**Type:** rule\n**Topics:** a\n\nk\n\n---\n\n## 2025-05-02 - Moved\n**Type:** rule\n**Topics:** a\n**Superseded-by:** 2026-11-21 - Other\n\nm\n";
        let docs = recall::parse(&[
            source(recall::Kind::Knowledge, "/p/.megg/knowledge.md", live),
            source(
                recall::Kind::Archive,
                "/p/.megg/archive/knowledge-2025.md",
                archive,
            ),
        ]);
        let found = live_superseded(&docs);
        let id = docs
            .iter()
            .find(|d| d.kind == recall::Kind::Knowledge && d.title == "Use REST")
            .map(|d| d.id.to_string())
            .unwrap();
        assert_eq!(
            found,
            [LiveSuperseded {
                id,
                title: "Use REST".into(),
                live: "/p/.megg/knowledge.md".into(),
                line: 5,
                archive: "/p/.megg/archive/knowledge-2025.md".into(),
                successor: "2026-11-20 - Use gRPC".into(),
            }]
        );
        // Its advice says so, in the order of the domain's others.
        let report = DomainReport {
            live_superseded: found,
            ..DomainReport::default()
        };
        assert!(matches!(
            actions(&[report], day("2026-11-22")).as_slice(),
            [Advice::LiveSuperseded { .. }]
        ));
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
