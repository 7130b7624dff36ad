//! What a session is told beside the handoff so it knows what the last one decided (SPEC
//! §18): the host's compaction summary of the session whose handoff is injected, and a
//! workflow still in progress.

use std::path::Path;

use super::StateView;
use crate::megg::Deps;
use crate::megg::capture::kept_summary::{self as summary, Kept};
use crate::megg::capture::{SessionId, Sessions};
use crate::megg::checkpoint::lifecycle::Phase;
use crate::megg::checkpoint::store::Found;
use crate::megg::recall::hidden::{self, Hidden};

/// The summary to inject with `state` (SPEC §18.1 "Injected"): the one its own session's host
/// wrote, when the handoff was captured by that session, and only where the host has not seen
/// it — a new session, or a resume or compaction of another session. Each secret in it
/// `[redacted]` and noted in `hidden` (SPEC §12: one kept by an older megg may hold one).
pub fn host_summary(
    sessions: Option<&Sessions>,
    (state, resuming): (Option<&StateView>, Option<&SessionId>),
    hidden: &mut Vec<Hidden>,
) -> Option<Kept> {
    let state = state.filter(|s| s.auto)?;
    let session = state.session.as_deref()?;
    if !summary::belongs_in_context(session, resuming) {
        return None;
    }
    let mut kept = summary::of_session(sessions?, session)?;
    kept.found.text = hidden::redact_value(&kept.path, &kept.found.text, hidden);
    Some(kept)
}

/// A workflow in progress, as the context names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workflow {
    /// The checkpoint's file, as the resume commands take it.
    pub file: String,
    pub feature: String,
    /// The saved phase as written.
    pub phase: Option<String>,
    pub done: usize,
    pub items: usize,
    /// The command that resumes it: `/workflows:<command>`.
    pub command: String,
}

/// The newest workflow checkpoint of the project `cwd` is in — in a linked worktree, the main
/// one's too: the one scan a context makes of them (its index ranks by it as well).
pub fn newest_checkpoint(deps: &Deps<'_>, cwd: &Path) -> Option<Found> {
    let project = crate::megg::project::Project::at(cwd, deps.repos);
    let scan = crate::megg::checkpoint::store::scan(&project.roots);
    scan.checkpoints.into_iter().next()
}

impl Workflow {
    /// A checkpoint as the workflow in progress (SPEC §18.2 "A workflow in progress is
    /// named"): one exists until `finish`, so each one found is in progress. What it shows of
    /// the file has each secret `[redacted]`, noted in `hidden` (SPEC §12).
    pub fn of(found: &Found, hidden: &mut Vec<Hidden>) -> Self {
        let cp = &found.checkpoint;
        let command = cp
            .known_phase()
            .map_or(Phase::Work.command(), Phase::command)
            .as_str();
        Self {
            file: found.file.clone(),
            feature: hidden::redact_value(&found.path, &cp.feature, hidden),
            done: cp.items.iter().filter(|i| i.done).count(),
            items: cp.items.len(),
            phase: cp
                .phase
                .as_deref()
                .map(|p| hidden::redact_value(&found.path, p, hidden)),
            command: format!("/workflows:{command}"),
        }
    }
}
