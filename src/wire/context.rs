//! `megg context --format json` (SPEC §3.1) and the MCP `context` tool's structured result.

use std::path::PathBuf;

use serde::Serialize;

use crate::megg::context::{ChainLink, Context, FileEntry, Knowledge, StateView};
use crate::megg::discovery::{Domain, Neighbour};

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ContextDoc {
    pub path: PathBuf,
    pub chain: Vec<ChainLinkDoc>,
    pub domain: Option<DomainDoc>,
    pub info: Option<String>,
    pub knowledge: Option<KnowledgeDoc>,
    pub state: Option<StateDoc>,
    /// Present only when `state` is null and the domain's `state.md` expired by age or date
    /// (not marked done): where it is, why, and the id `megg show` reads it by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired_state: Option<ExpiredStateDoc>,
    /// Other sessions' captures newer than `state`, newest first.
    pub newer_captures: Vec<NewerCaptureDoc>,
    /// Present only when the context carries the host's compaction summary of `state`'s
    /// session (SPEC §18.1): model-written reference data, never part of the handoff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_summary: Option<HostSummaryDoc>,
    /// Present only when the project has a workflow in progress (SPEC §18.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow: Option<WorkflowDoc>,
    /// In the main worktree: one line per removed worktree whose last handoff is unexpired.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_worktrees: Vec<String>,
    pub files: Vec<FileDoc>,
    pub siblings: Vec<NeighbourDoc>,
    pub children: Vec<NeighbourDoc>,
    /// Present (and true) only when the walk for `children` stopped at its bound of
    /// directories (SPEC §14): deeper domains were not looked for; `megg context DIR` finds them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub children_cut: bool,
    pub warnings: Vec<String>,
}

/// The host's compaction summary a context carries (SPEC §18.1).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HostSummaryDoc {
    /// The session whose handoff it belongs to.
    pub session: String,
    pub source: crate::megg::capture::summary::Source,
    pub at: Option<String>,
    pub path: PathBuf,
    /// As kept (redacted, at most 8 KiB), with host-structure tags taken out and heading lines
    /// indented, as the context shows it.
    pub text: String,
    pub older_than_latest_request: bool,
}

/// A workflow in progress (SPEC §18.2).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WorkflowDoc {
    pub file: String,
    pub feature: String,
    pub phase: Option<String>,
    pub done: usize,
    pub items: usize,
    /// The command that resumes it.
    pub command: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ChainLinkDoc {
    pub name: String,
    pub dir: PathBuf,
    pub info: PathBuf,
    pub title: String,
    pub excerpt: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DomainDoc {
    pub name: String,
    pub dir: PathBuf,
    pub megg: PathBuf,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct KnowledgeDoc {
    pub path: PathBuf,
    /// `full`, `summary` or `blocked`.
    pub mode: &'static str,
    pub tokens: usize,
    pub tokens_exact: bool,
    pub entries: usize,
    pub topic: Option<String>,
    pub content: String,
    pub warning: Option<String>,
    /// Summary and blocked mode: the session-start index (SPEC §13.5), most relevant first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub index: Vec<IndexEntry>,
}

/// One entry of the session-start index.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct IndexEntry {
    pub id: String,
    pub date: Option<String>,
    #[serde(rename = "type")]
    pub entry_type: Option<String>,
    pub title: String,
    pub topics: Vec<String>,
    /// `session`, `gotcha` or `recent`.
    pub why: crate::megg::recall::index::Why,
    pub archived: bool,
    /// Its citations checked against git (SPEC §17); `stale` ones end their line with `stale?`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<crate::wire::recall::Freshness>,
}

/// A `state.md` as `context` and `state show` report it (SPEC §3.1, §5).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StateDoc {
    pub path: PathBuf,
    pub status: String,
    pub updated: Option<String>,
    pub tokens: usize,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// `manual` (written by `state write`, the skill or the MCP tool) or `auto` (captured
    /// from a session's transcript, SPEC §10).
    pub source: &'static str,
    /// The session an `auto` state was captured from.
    pub session: Option<String>,
    pub commits_since: Option<usize>,
    pub expired: bool,
    pub content: String,
}

/// A handoff that expired by age or date: not loaded, said.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ExpiredStateDoc {
    pub path: PathBuf,
    pub updated: Option<String>,
    /// Why it is not loaded (`63 h old; states expire after 48 h`).
    pub reason: String,
    /// Its recall id: `megg show <id>` reads it.
    pub id: String,
}

/// Another session's capture, newer than the state shown (SPEC §10: parallel sessions).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NewerCaptureDoc {
    pub session: String,
    pub path: PathBuf,
    pub updated: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FileDoc {
    pub name: String,
    pub path: PathBuf,
    pub loaded: bool,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NeighbourDoc {
    pub name: String,
    pub dir: PathBuf,
}

impl From<&Context> for ContextDoc {
    fn from(c: &Context) -> Self {
        Self {
            path: c.path.clone(),
            chain: c.chain.iter().map(Into::into).collect(),
            domain: c.domain.as_ref().map(Into::into),
            info: c.info.clone(),
            knowledge: c.knowledge.as_ref().map(Into::into),
            state: c.state.as_ref().map(Into::into),
            expired_state: c
                .expired_state
                .as_ref()
                .filter(|_| c.state.is_none())
                .map(|s| ExpiredStateDoc {
                    path: s.path.clone(),
                    updated: s.updated.clone(),
                    reason: s.expired_reason.clone().unwrap_or_default(),
                    id: s.id.clone(),
                }),
            newer_captures: c
                .newer_captures
                .iter()
                .map(|n| NewerCaptureDoc {
                    session: n.session.clone(),
                    path: n.path.clone(),
                    updated: crate::clock::format_timestamp(n.updated),
                })
                .collect(),
            host_summary: c.host_summary.as_ref().map(|k| HostSummaryDoc {
                session: k.session.clone(),
                source: k.found.source,
                at: k.found.at.clone(),
                path: k.path.clone(),
                // As the context shows it: no host tag, no heading of its own.
                text: crate::megg::capture::summary::sanitise(&k.found.text),
                older_than_latest_request: k.found.requests_after > 0,
            }),
            workflow: c.workflow.as_ref().map(|w| WorkflowDoc {
                file: w.file.clone(),
                feature: w.feature.clone(),
                phase: w.phase.clone(),
                done: w.done,
                items: w.items,
                command: w.command.clone(),
            }),
            removed_worktrees: c.removed_worktrees.clone(),
            files: c.files.iter().map(Into::into).collect(),
            siblings: c.siblings.iter().map(Into::into).collect(),
            children: c.children.iter().map(Into::into).collect(),
            children_cut: c.children_cut,
            warnings: c.warnings.clone(),
        }
    }
}

impl From<&ChainLink> for ChainLinkDoc {
    fn from(l: &ChainLink) -> Self {
        Self {
            name: l.name.clone(),
            dir: l.dir.clone(),
            info: l.info.clone(),
            title: l.title.clone(),
            excerpt: l.excerpt.clone(),
        }
    }
}

impl From<&Domain> for DomainDoc {
    fn from(d: &Domain) -> Self {
        Self {
            name: d.name.clone(),
            dir: d.dir.clone(),
            megg: d.megg.clone(),
        }
    }
}

impl From<&Knowledge> for KnowledgeDoc {
    fn from(k: &Knowledge) -> Self {
        Self {
            path: k.path.clone(),
            mode: k.mode.as_str(),
            tokens: k.tokens,
            tokens_exact: k.tokens_exact,
            entries: k.entries,
            topic: k.topic.clone(),
            // In summary and blocked mode the index stands in for the seed's text, whole.
            content: match &k.index {
                Some(index) => crate::render::context::index_text(k, index, usize::MAX, true),
                None => k.content.clone(),
            },
            warning: k.warning.clone(),
            index: k
                .index
                .iter()
                .flat_map(|i| &i.lines)
                .map(|l| IndexEntry {
                    id: l.id.clone(),
                    date: l.date.clone(),
                    entry_type: l.entry_type.clone(),
                    title: l.title.clone(),
                    topics: l.topics.clone(),
                    why: l.why,
                    archived: l.archived,
                    freshness: l.freshness.as_ref().map(Into::into),
                })
                .collect(),
        }
    }
}

impl From<&StateView> for StateDoc {
    fn from(s: &StateView) -> Self {
        Self {
            path: s.path.clone(),
            status: s.status.clone(),
            updated: s.updated.clone(),
            tokens: s.tokens,
            branch: s.branch.clone(),
            head: s.head.clone(),
            source: if s.auto { "auto" } else { "manual" },
            session: s.session.clone(),
            commits_since: s.commits_since,
            expired: s.expired,
            content: s.content.clone(),
        }
    }
}

impl From<&FileEntry> for FileDoc {
    fn from(f: &FileEntry) -> Self {
        Self {
            name: f.name.clone(),
            path: f.path.clone(),
            loaded: f.loaded,
        }
    }
}

impl From<&Neighbour> for NeighbourDoc {
    fn from(n: &Neighbour) -> Self {
        Self {
            name: n.name.clone(),
            dir: n.dir.clone(),
        }
    }
}
