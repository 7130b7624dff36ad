//! `megg learn --json` (SPEC §6, §17) and `megg maintain --json`, and the MCP `learn` and
//! `maintain` tools' structured results.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::megg::knowledge::{KnowledgeType, NewEntry};
use crate::megg::maintain::{CitedCode, DomainReport, Stale};

/// `learn`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Learned {
    pub path: String,
    /// The first entry written (SPEC §6).
    pub entry: EntryDoc,
    /// Every entry written, in order: more than one when `--file` held several.
    pub entries: Vec<EntryDoc>,
    pub tokens: usize,
    /// The entry the new one superseded, moved to the archive (SPEC §17); null without
    /// `--supersedes`.
    pub superseded: Option<Superseded>,
    pub warnings: Vec<String>,
}

/// The entry `learn --supersedes` moved to the archive.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Superseded {
    pub id: String,
    /// `YYYY-MM-DD`; null for an undated entry.
    pub date: Option<String>,
    pub title: String,
    /// The archive file it is in now.
    pub archive: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct EntryDoc {
    pub date: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: KnowledgeType,
    pub topics: Vec<String>,
}

/// `maintain`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Maintained {
    pub domains: Vec<DomainReportDoc>,
    pub actions: Vec<String>,
    pub archived: Vec<Archived>,
    /// The knowledge entries whose cited code changed since they were written, from the
    /// session start's walk (SPEC §17; `maintain --check` lists them); absent outside git and
    /// with `--archive-before`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cited_code: Option<CitedCodeDoc>,
    pub warnings: Vec<String>,
    /// How many domains there are in all (MCP, paged with `limit`/`offset`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// `domains` is one page of them (MCP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DomainReportDoc {
    pub dir: PathBuf,
    pub knowledge: Option<PathBuf>,
    pub tokens: usize,
    pub entries: usize,
    pub bloated: bool,
    pub stale: Vec<StaleDoc>,
    pub topics: BTreeMap<String, usize>,
    pub unknown_types: Vec<String>,
    pub problems: Vec<String>,
    pub expired_state: bool,
}

/// `maintain`'s count of the entries whose cited code changed.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CitedCodeDoc {
    /// Knowledge entries checked.
    pub checked: usize,
    /// Those whose citations changed, moved or are gone.
    pub changed: usize,
    /// Those of them that are stale.
    pub stale: usize,
    /// The history is longer than the walk: only the last `bound` commits were checked.
    pub capped: bool,
    pub bound: usize,
}

impl From<&CitedCode> for CitedCodeDoc {
    fn from(c: &CitedCode) -> Self {
        Self {
            checked: c.checked,
            changed: c.changed,
            stale: c.stale,
            capped: c.capped,
            bound: c.bound,
        }
    }
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StaleDoc {
    pub title: String,
    pub date: String,
}

/// One entry `maintain --archive-before` moved.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Archived {
    pub title: String,
    pub date: String,
    pub to: String,
}

impl From<&NewEntry> for EntryDoc {
    fn from(e: &NewEntry) -> Self {
        Self {
            date: e.date.clone(),
            title: e.title.clone(),
            kind: e.kind,
            topics: e.topics.clone(),
        }
    }
}

impl From<&DomainReport> for DomainReportDoc {
    fn from(r: &DomainReport) -> Self {
        Self {
            dir: r.dir.clone(),
            knowledge: r.knowledge.clone(),
            tokens: r.tokens,
            entries: r.entries,
            bloated: r.bloated,
            stale: r.stale.iter().map(Into::into).collect(),
            topics: r.topics.clone(),
            unknown_types: r.unknown_types.clone(),
            problems: r.problems.clone(),
            expired_state: r.expired_state,
        }
    }
}

impl From<&Stale> for StaleDoc {
    fn from(s: &Stale) -> Self {
        Self {
            title: s.title.clone(),
            date: s.date.clone(),
        }
    }
}

/// `megg resolve --json` (SPEC §11).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Resolved {
    /// Merged by entry and staged.
    pub resolved: Vec<String>,
    /// Still conflicted: written with markers around these entries, left unstaged.
    pub conflicts: Vec<ResolveConflict>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ResolveConflict {
    pub path: String,
    pub entries: Vec<String>,
}

impl From<&crate::megg::resolve::Report> for Resolved {
    fn from(r: &crate::megg::resolve::Report) -> Self {
        Self {
            resolved: r.resolved.clone(),
            conflicts: r
                .conflicts
                .iter()
                .map(|c| ResolveConflict {
                    path: c.path.clone(),
                    entries: c.entries.clone(),
                })
                .collect(),
            warnings: r.warnings.clone(),
        }
    }
}
