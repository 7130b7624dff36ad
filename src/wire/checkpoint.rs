//! The `--json` documents of `megg checkpoint` (SPEC §4.1–4.4): wire types apart from the
//! domain's, each built from its result with `From`. Field names and order are the format.

use std::path::PathBuf;

use serde::Serialize;

use crate::clock::format_timestamp;
use crate::git::Divergence;
use crate::megg::checkpoint::{
    Described, Finished, Item, Listing, OptionId, Quarantined, ResumeAction, ResumeOption,
    ResumeReport, ResumeStatus, Saved, Shown, Staleness,
};

/// A `<checkpoint>` object (SPEC §4.2).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckpointDocument {
    pub file: String,
    pub path: PathBuf,
    pub root: PathBuf,
    pub feature: String,
    pub plan_file: String,
    pub plan_exists: bool,
    pub phase: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub started: Option<String>,
    pub updated: Option<String>,
    pub age_seconds: Option<i64>,
    pub age_days: Option<i64>,
    pub staleness: Staleness,
    pub progress: Progress,
    pub divergence: Option<Divergence>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub items: Vec<ProgressItem>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProgressItem {
    pub text: String,
    pub done: bool,
}

impl From<&Item> for ProgressItem {
    fn from(i: &Item) -> Self {
        Self {
            text: i.text.clone(),
            done: i.done,
        }
    }
}

impl From<&Described> for CheckpointDocument {
    fn from(d: &Described) -> Self {
        let cp = &d.checkpoint;
        Self {
            file: d.file.clone(),
            path: d.path.clone(),
            root: d.root.clone(),
            feature: cp.feature.clone(),
            plan_file: cp.plan_file.clone(),
            plan_exists: d.plan_exists,
            phase: cp.phase.clone(),
            branch: cp.branch.clone(),
            head: cp.head.clone(),
            started: cp.started.map(format_timestamp),
            updated: cp.updated.map(format_timestamp),
            age_seconds: d.age.map(|a| a.num_seconds()),
            age_days: d.age.map(|a| a.num_days()),
            staleness: d.staleness,
            progress: Progress {
                done: d.done(),
                total: cp.items.len(),
                items: cp.items.iter().map(ProgressItem::from).collect(),
            },
            divergence: d.divergence,
        }
    }
}

/// `save --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SaveDocument {
    pub checkpoint: CheckpointDocument,
    pub created: bool,
    pub gitignored: bool,
    pub announcement: String,
    pub warnings: Vec<String>,
}

impl From<&Saved> for SaveDocument {
    fn from(s: &Saved) -> Self {
        Self {
            checkpoint: CheckpointDocument::from(&s.checkpoint),
            created: s.created,
            gitignored: s.gitignored,
            announcement: s.announcement.clone(),
            warnings: s.warnings.clone(),
        }
    }
}

/// A corrupt file: its path in `list`, its name in `resume` (where it was moved aside).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CorruptFile {
    pub file: String,
    pub error: String,
}

impl From<&Quarantined> for CorruptFile {
    fn from(q: &Quarantined) -> Self {
        Self {
            file: q.file.clone(),
            error: q.error.clone(),
        }
    }
}

/// `list --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ListDocument {
    pub checkpoints: Vec<CheckpointDocument>,
    pub corrupt: Vec<CorruptFile>,
    pub ignored: Vec<String>,
    pub warnings: Vec<String>,
    /// How many checkpoints there are in all (MCP, paged with `limit`/`offset`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// `checkpoints` is one page of them (MCP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
}

impl From<&Listing> for ListDocument {
    fn from(l: &Listing) -> Self {
        Self {
            checkpoints: l.checkpoints.iter().map(CheckpointDocument::from).collect(),
            corrupt: l
                .corrupt
                .iter()
                .map(|(p, e)| CorruptFile {
                    file: p.display().to_string(),
                    error: e.clone(),
                })
                .collect(),
            ignored: l.ignored.iter().map(|p| p.display().to_string()).collect(),
            warnings: l.warnings.clone(),
            total: None,
            truncated: None,
        }
    }
}

/// `show --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ShowDocument {
    pub checkpoint: CheckpointDocument,
    pub text: String,
    pub warnings: Vec<String>,
}

impl From<&Shown> for ShowDocument {
    fn from(s: &Shown) -> Self {
        Self {
            checkpoint: CheckpointDocument::from(&s.checkpoint),
            text: s.text.clone(),
            warnings: s.checkpoint.warnings.clone(),
        }
    }
}

/// `update --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct UpdateDocument {
    pub checkpoint: CheckpointDocument,
    pub warnings: Vec<String>,
}

impl From<&Described> for UpdateDocument {
    fn from(d: &Described) -> Self {
        Self {
            checkpoint: CheckpointDocument::from(d),
            warnings: d.warnings.clone(),
        }
    }
}

/// `finish --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FinishDocument {
    pub finished: String,
}

impl From<&Finished> for FinishDocument {
    fn from(f: &Finished) -> Self {
        Self {
            finished: f.file.clone(),
        }
    }
}

/// One resume option, shaped for AskUserQuestion.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ResumeOptionDocument {
    pub id: OptionId,
    pub label: &'static str,
    pub description: &'static str,
    pub recommended: bool,
}

impl From<&ResumeOption> for ResumeOptionDocument {
    fn from(o: &ResumeOption) -> Self {
        Self {
            id: o.id,
            label: o.label,
            description: o.description,
            recommended: o.recommended,
        }
    }
}

/// `resume --json`, whatever it found or did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ResumeDocument {
    pub status: ResumeStatus,
    pub checkpoint: Option<CheckpointDocument>,
    pub candidates: Vec<CheckpointDocument>,
    pub question: Option<String>,
    pub options: Vec<ResumeOptionDocument>,
    pub warnings: Vec<String>,
    pub corrupt: Vec<CorruptFile>,
    pub action: Option<ResumeAction>,
    pub message: Option<String>,
}

impl From<&ResumeReport> for ResumeDocument {
    fn from(r: &ResumeReport) -> Self {
        Self {
            status: r.status,
            checkpoint: r.checkpoint.as_ref().map(CheckpointDocument::from),
            candidates: r.candidates.iter().map(CheckpointDocument::from).collect(),
            question: r.question.clone(),
            options: r.options.iter().map(ResumeOptionDocument::from).collect(),
            warnings: r.warnings.clone(),
            corrupt: r.corrupt.iter().map(CorruptFile::from).collect(),
            action: r.action,
            message: r.message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_keep_their_field_order() {
        let report = ResumeReport::new(Vec::new(), Vec::new()).nothing(None);
        let json = serde_json::to_string(&ResumeDocument::from(&report)).unwrap();
        assert_eq!(
            json,
            r#"{"status":"none","checkpoint":null,"candidates":[],"question":null,"options":[],"warnings":[],"corrupt":[],"action":null,"message":"No saved checkpoint; starting fresh"}"#
        );
        let listing = Listing {
            checkpoints: Vec::new(),
            corrupt: vec![(PathBuf::from("/p/.x.local.md"), "invalid YAML".into())],
            ignored: vec![PathBuf::from("/p/.y.local.md")],
            warnings: Vec::new(),
        };
        let json = serde_json::to_string(&ListDocument::from(&listing)).unwrap();
        assert_eq!(
            json,
            r#"{"checkpoints":[],"corrupt":[{"file":"/p/.x.local.md","error":"invalid YAML"}],"ignored":["/p/.y.local.md"],"warnings":[]}"#
        );
    }
}

/// `megg checkpoint prune --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PruneDocument {
    /// The checkpoints deleted (or, with `dry_run`, that would be), oldest first.
    pub pruned: Vec<CheckpointDocument>,
    pub dry_run: bool,
    /// The secrets their features held, each named by file and line (SPEC §12).
    pub warnings: Vec<String>,
}

/// One quarantined file in `megg checkpoint quarantine --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct QuarantinedDocument {
    pub name: String,
    pub path: PathBuf,
    /// Where it came from, and where `--restore` puts it back.
    pub origin: PathBuf,
    /// Why it still cannot be read as a checkpoint; `null` once fixed (then it can be restored).
    pub still_corrupt: Option<String>,
}

/// `megg checkpoint quarantine --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct QuarantineDocument {
    pub quarantined: Vec<QuarantinedDocument>,
    /// With `--restore`: the file put back.
    pub restored: Option<QuarantinedDocument>,
}

impl From<&crate::megg::checkpoint::tidy::Quarantined> for QuarantinedDocument {
    fn from(q: &crate::megg::checkpoint::tidy::Quarantined) -> Self {
        Self {
            name: q.name.clone(),
            path: q.path.clone(),
            origin: q.origin.clone(),
            still_corrupt: q.still_corrupt.clone(),
        }
    }
}
