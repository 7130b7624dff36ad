//! The documents of `megg search --json` and `megg show --json` (SPEC §13.3, §13.4).

use std::path::PathBuf;

use serde::Serialize;

use crate::megg::freshness::{self, Status};
use crate::megg::recall::{Doc, Kind, search::Found};

/// An entry's citations checked against git (SPEC §17): on knowledge and archive entries only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Freshness {
    /// The worst of its paths' (gone > changed > moved > fresh); `uncited` without citations
    /// (nothing was checked).
    pub status: Status,
    /// A path is gone, or changed in 5 commits or more.
    pub stale: bool,
    /// The history is longer than the walk's bound: only the last `bound` commits were
    /// checked, and the counts are lower bounds.
    pub capped: bool,
    pub paths: Vec<CitedPath>,
    /// The walk's bound (the text's "checked the last N commits").
    #[serde(skip)]
    pub bound: usize,
}

/// One citation: a path the entry names in backticks that is, or was, in the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CitedPath {
    pub path: String,
    pub status: Status,
    /// How many commits after the entry's date touched it.
    pub commits: usize,
    /// Where a moved path is now (also when it then changed: `changed`, `commits` counting
    /// the commits after the move); else null.
    pub new_path: Option<String>,
}

impl From<&freshness::Freshness> for Freshness {
    fn from(f: &freshness::Freshness) -> Self {
        Self {
            status: f.status(),
            stale: f.stale(),
            capped: f.capped,
            bound: f.bound,
            paths: f
                .paths
                .iter()
                .map(|p| CitedPath {
                    path: p.path.clone(),
                    status: p.status,
                    commits: p.commits,
                    new_path: p.new_path.clone(),
                })
                .collect(),
        }
    }
}

/// `search --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Searched {
    pub query: String,
    /// How many documents matched (`results` holds at most `--limit` of them).
    pub total: usize,
    pub results: Vec<Result>,
    /// The nearest topics when nothing matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    pub warnings: Vec<String>,
    /// MCP only: the `cursor` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One hit.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Result {
    pub id: String,
    pub kind: Kind,
    pub path: PathBuf,
    pub line: usize,
    pub date: Option<String>,
    #[serde(rename = "type")]
    pub entry_type: Option<String>,
    pub title: String,
    pub topics: Vec<String>,
    pub score: f64,
    pub snippet: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
    /// An archived entry `learn --supersedes` replaced: its successor's date and title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// And the successor's id, for `megg show` ([`crate::megg::recall::successor_id`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by_id: Option<String>,
}

impl Searched {
    /// `fresh` holds each hit's freshness, in order (`None` for a handoff or an info section).
    pub fn new(
        query: &str,
        found: &Found<'_>,
        fresh: &[Option<freshness::Freshness>],
        warnings: Vec<String>,
    ) -> Self {
        Self {
            query: query.to_string(),
            total: found.total,
            results: found
                .hits
                .iter()
                .enumerate()
                .map(|(i, h)| Result {
                    id: h.doc.id.to_string(),
                    kind: h.doc.kind,
                    path: h.doc.path.to_path_buf(),
                    line: h.doc.line,
                    date: h.doc.date.as_deref().map(str::to_string),
                    entry_type: h.doc.entry_type.as_deref().map(str::to_string),
                    title: h.doc.title.to_string(),
                    topics: h.doc.topics.iter().map(|t| t.to_string()).collect(),
                    score: h.score,
                    snippet: h.snippet.clone(),
                    freshness: fresh.get(i).and_then(Option::as_ref).map(Into::into),
                    superseded_by: successor(h.doc),
                    superseded_by_id: None,
                })
                .collect(),
            suggestions: found.suggestions.clone(),
            warnings,
            next_cursor: None,
        }
    }
}

/// `show --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Shown {
    pub documents: Vec<ShownDoc>,
    /// Ids that resolve to nothing.
    pub missing: Vec<String>,
    pub warnings: Vec<String>,
    /// MCP only: the `cursor` of the next call, when documents are left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One document, whole (or cut at `--max-chars`, which `warnings` says).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ShownDoc {
    pub id: String,
    pub kind: Kind,
    pub path: PathBuf,
    pub line: usize,
    pub text: String,
    /// The entry's date (knowledge and archive entries), since when its citations are checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
    /// An archived entry `learn --supersedes` replaced: its successor's date and title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// And the successor's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by_id: Option<String>,
}

/// The successor named by an archived entry's `**Superseded-by:**` line.
fn successor(doc: &Doc) -> Option<String> {
    (doc.kind == Kind::Archive)
        .then(|| crate::megg::knowledge::superseded_by(&doc.text))
        .flatten()
        .map(str::to_string)
}

impl ShownDoc {
    pub fn of(doc: &Doc, text: String, fresh: Option<&freshness::Freshness>) -> Self {
        Self {
            id: doc.id.to_string(),
            kind: doc.kind,
            path: doc.path.to_path_buf(),
            line: doc.line,
            text,
            date: fresh.and(doc.date.as_deref().map(str::to_string)),
            freshness: fresh.map(Into::into),
            superseded_by: successor(doc),
            superseded_by_id: None,
        }
    }
}

/// `maintain --check --json` (SPEC §17): the entries whose cited code changed, moved or is gone.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Checked {
    pub entries: Vec<CheckedEntry>,
    /// The same, by cited path: each path's commits once, then the ids of the entries citing
    /// it (SPEC §17).
    pub by_path: Vec<CheckedGroup>,
    /// How many entries were checked, and how many citations they have.
    pub checked: usize,
    pub citations: usize,
    /// The history is longer than the walk's bound for some entry: only the last `bound`
    /// commits were checked.
    pub capped: bool,
    pub warnings: Vec<String>,
    /// The walk's bound.
    #[serde(skip)]
    pub bound: usize,
}

/// One cited path that changed, moved or is gone, and the entries citing it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckedGroup {
    pub path: String,
    /// As seen from the entry citing it that saw the most commits (the oldest, usually).
    pub status: Status,
    pub commits: usize,
    pub new_path: Option<String>,
    pub touched_by: Vec<TouchedBy>,
    /// The ids of the entries citing it, in their order.
    pub entries: Vec<String>,
}

/// `entries` by cited path, in path order.
fn groups(entries: &[CheckedEntry]) -> Vec<CheckedGroup> {
    let mut by: std::collections::BTreeMap<&str, CheckedGroup> = std::collections::BTreeMap::new();
    for e in entries {
        for p in &e.paths {
            let g = by.entry(p.path.as_str()).or_insert_with(|| CheckedGroup {
                path: p.path.clone(),
                status: p.status,
                commits: p.commits,
                new_path: p.new_path.clone(),
                touched_by: p.touched_by.clone(),
                entries: Vec::new(),
            });
            if p.commits > g.commits {
                g.status = p.status;
                g.commits = p.commits;
                g.new_path = p.new_path.clone();
                g.touched_by = p.touched_by.clone();
            }
            if !g.entries.contains(&e.id) {
                g.entries.push(e.id.clone());
            }
        }
    }
    by.into_values().collect()
}

/// One entry whose citations are not all fresh.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckedEntry {
    pub id: String,
    pub title: String,
    pub date: Option<String>,
    /// Its knowledge file, and the line it starts on.
    pub path: PathBuf,
    pub line: usize,
    pub status: Status,
    pub stale: bool,
    /// Its commits were more than the walk's bound: the counts are lower bounds.
    pub capped: bool,
    pub paths: Vec<CheckedPath>,
}

/// One citation, with the commits that touched it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckedPath {
    pub path: String,
    pub status: Status,
    pub commits: usize,
    pub new_path: Option<String>,
    /// Newest first, at most 20 (`commits` counts them all).
    pub touched_by: Vec<TouchedBy>,
}

/// A commit that touched a cited path.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TouchedBy {
    pub commit: String,
    /// `YYYY-MM-DD`, the commit's (UTC).
    pub date: String,
    pub summary: String,
}

impl Checked {
    pub fn new(
        docs: &[&Doc],
        checked: &[Option<freshness::Freshness>],
        warnings: Vec<String>,
    ) -> Self {
        let entries: Vec<CheckedEntry> = docs
            .iter()
            .zip(checked)
            .filter_map(|(d, f)| Some((d, f.as_ref()?)))
            .filter(|(_, f)| !matches!(f.status(), Status::Fresh | Status::Uncited))
            .map(|(d, f)| CheckedEntry {
                id: d.id.to_string(),
                title: d.title.to_string(),
                date: d.date.as_deref().map(str::to_string),
                path: d.path.to_path_buf(),
                line: d.line,
                status: f.status(),
                stale: f.stale(),
                capped: f.capped,
                paths: f
                    .changed()
                    .map(|p| CheckedPath {
                        path: p.path.clone(),
                        status: p.status,
                        commits: p.commits,
                        new_path: p.new_path.clone(),
                        touched_by: p
                            .touches
                            .iter()
                            .map(|t| TouchedBy {
                                commit: t.commit.chars().take(12).collect(),
                                date: chrono::DateTime::from_timestamp(t.time, 0)
                                    .map(|d| d.format("%Y-%m-%d").to_string())
                                    .unwrap_or_default(),
                                summary: t.summary.clone(),
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Self {
            by_path: groups(&entries),
            entries,
            checked: docs.len(),
            citations: checked.iter().flatten().map(|f| f.paths.len()).sum(),
            capped: checked.iter().flatten().any(|f| f.capped),
            warnings,
            bound: checked.iter().flatten().map(|f| f.bound).max().unwrap_or(0),
        }
    }

    /// Only the stale entries (`maintain --check --stale`).
    pub fn only_stale(&mut self) {
        self.entries.retain(|e| e.stale);
        self.by_path = groups(&self.entries);
    }
}
