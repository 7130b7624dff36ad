//! What a session is told beside the handoff so it knows what the last one decided (SPEC
//! §18): the host's compaction summary of the session whose handoff is injected, and a
//! workflow still in progress.

use std::path::Path;

use super::StateView;
use crate::megg::Deps;
use crate::megg::capture::kept_summary::{self as summary, Kept};
use crate::megg::capture::{SessionId, Sessions};
use crate::megg::checkpoint::lifecycle::Phase;

/// The summary to inject with `state` (SPEC §18.1 "Injected"): the one its own session's host
/// wrote, when the handoff was captured by that session, and only where the host has not seen
/// it — a new session, or a resume or compaction of another session.
pub fn host_summary(
    sessions: Option<&Sessions>,
    state: Option<&StateView>,
    resuming: Option<&SessionId>,
) -> Option<Kept> {
    let state = state.filter(|s| s.auto)?;
    let session = state.session.as_deref()?;
    if !summary::belongs_in_context(session, resuming) {
        return None;
    }
    summary::of_session(sessions?, session)
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

/// The newest workflow checkpoint of the project `cwd` is in (SPEC §18.2 "A workflow in
/// progress is named"): a checkpoint exists until `finish`, so each one found is in progress.
pub fn workflow(deps: &Deps<'_>, cwd: &Path) -> Option<Workflow> {
    let project = crate::megg::project::Project::at(cwd, deps.repos);
    let scan = crate::megg::checkpoint::store::scan(&project.roots);
    let found = scan.checkpoints.into_iter().next()?;
    let cp = found.checkpoint;
    let command = cp
        .known_phase()
        .map_or(Phase::Work.command(), Phase::command)
        .as_str();
    Some(Workflow {
        file: found.file,
        feature: cp.feature,
        done: cp.items.iter().filter(|i| i.done).count(),
        items: cp.items.len(),
        phase: cp.phase,
        command: format!("/workflows:{command}"),
    })
}
