//! The state part of the context: the domain's `state.md` or the session's own capture (SPEC
//! §10), with its expiry and what git says since it was saved.

use std::path::PathBuf;

use super::read::read_or_warn;
use crate::clock::format_timestamp;
use crate::megg::Deps;
use crate::megg::discovery::Domain;
use crate::megg::recall::hidden::{self, Hidden};
use crate::megg::state::{self, MAX_STATE_BYTES, StateDoc};

#[derive(Debug, Clone)]
pub struct StateView {
    pub path: PathBuf,
    pub status: String,
    pub updated: Option<String>,
    pub tokens: usize,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// Captured automatically from a session's transcript (SPEC §2.3), not written by hand.
    pub auto: bool,
    /// The session it was captured from.
    pub session: Option<String>,
    pub commits_since: Option<usize>,
    pub expired: bool,
    pub content: String,
    /// Why it is expired, for people.
    pub expired_reason: Option<String>,
    /// Its recall id (SPEC §13.2): `megg show <id>` reads it, expired or not.
    pub id: String,
    pub age_seconds: Option<i64>,
    /// `updated` as a time, for comparisons.
    pub updated_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// The domain's `state.md`, active or expired, with git facts when inside a repository; as
/// megg shows it, each secret `[redacted]` and noted in `hidden` (SPEC §12).
pub fn load_state(
    deps: &Deps<'_>,
    d: &Domain,
    warnings: &mut Vec<String>,
    hidden: &mut Vec<Hidden>,
) -> Option<StateView> {
    let path = d.state_path();
    let text = read_or_warn(&d.boundary, &path, MAX_STATE_BYTES, (warnings, hidden))?;
    let doc = state::parse(&text, &path.display().to_string());
    warnings.extend(doc.warnings.iter().cloned());
    let expiry = state::expiry_within(&doc, deps.now, d.state_lifetime(warnings));
    if let state::Expiry::Future(_) = expiry
        && let Some(why) = expiry.reason()
    {
        warnings.push(format!("{} is treated as expired: {why}", path.display()));
    }
    let mut view = state_view(deps, path, &doc);
    view.expired = !expiry.is_active();
    view.expired_reason = expiry.reason();
    if expiry.is_active() {
        git_notes(deps, d, &doc, &mut view, warnings);
    }
    Some(view)
}

/// The session's own capture as its state (after `compact` or `resume`, SPEC §10), with the
/// same expiry, git notes and secrets `[redacted]` as `state.md`.
pub(super) fn own_capture(
    deps: &Deps<'_>,
    d: &Domain,
    path: &std::path::Path,
    id: &crate::megg::capture::SessionId,
    (warnings, hidden): (&mut Vec<String>, &mut Vec<Hidden>),
) -> Option<StateView> {
    let (file, text) = crate::megg::capture::own_capture(deps, path, id)?;
    let text = hidden::redact(&file, text, hidden);
    let doc = state::parse(&text, &file.display().to_string());
    let expiry = state::expiry_within(&doc, deps.now, d.state_lifetime(warnings));
    let mut view = state_view(deps, file, &doc);
    view.expired = !expiry.is_active();
    view.expired_reason = expiry.reason();
    if expiry.is_active() {
        git_notes(deps, d, &doc, &mut view, warnings);
    }
    Some(view)
}

fn state_view(deps: &Deps<'_>, path: PathBuf, doc: &StateDoc) -> StateView {
    StateView {
        path,
        status: doc.status.clone().unwrap_or_else(|| "active".into()),
        updated: doc.updated.map(format_timestamp),
        tokens: deps.tokens.count(&doc.content),
        branch: doc.branch.clone(),
        head: doc.head.clone(),
        auto: doc.source.as_deref() == Some("auto"),
        session: doc.session.clone(),
        commits_since: None,
        expired: false,
        content: doc.content.clone(),
        expired_reason: None,
        id: crate::megg::recall::ids::base_id(
            crate::megg::recall::Kind::Handoff,
            &doc.recall_key(),
        ),
        age_seconds: doc.updated.map(|u| (deps.now - u).num_seconds()),
        updated_at: doc.updated,
    }
}

/// `commits_since` on the saved branch, and a warning when another branch is checked out.
fn git_notes(
    deps: &Deps<'_>,
    d: &Domain,
    doc: &StateDoc,
    view: &mut StateView,
    warnings: &mut Vec<String>,
) {
    let Some(branch) = &doc.branch else { return };
    let Some(repo) = deps.repo(&d.dir) else {
        return;
    };
    let div = doc.updated.and_then(|updated| {
        crate::megg::walks::divergence(
            &repo,
            branch,
            doc.head.as_deref(),
            updated,
            crate::git::HOOK_WALK_CAP,
        )
    });
    if let Some(div) = div {
        match div.branch_exists {
            Some(true) if div.capped => warnings.push(format!(
                "commits since the state was saved are unknown: the walk stopped at {} commits or a shallow clone's edge",
                crate::git::HOOK_WALK_CAP
            )),
            Some(true) => view.commits_since = Some(div.commits),
            Some(false) => warnings.push(format!(
                "state was saved on branch '{branch}', which no longer exists"
            )),
            None => warnings.push(format!(
                "state was saved on branch '{branch}', which is not here (it may exist only on a remote)"
            )),
        }
        match div.rewritten {
            Some(true) => warnings.push(format!(
                "Branch '{branch}' was rewritten since state was saved"
            )),
            None if div.branch_exists == Some(true) => warnings.push(format!(
                "cannot tell whether branch '{branch}' was rewritten: the saved head is not within reach (shallow clone, missing objects or over {} commits)",
                crate::git::HOOK_WALK_CAP
            )),
            _ => {}
        }
    }
    if let Some(current) = repo.current_branch()
        && &current != branch
    {
        warnings.push(format!(
            "state was saved on branch '{branch}' but '{current}' is checked out"
        ));
    }
}
