//! `megg checkpoint prune` and `megg checkpoint quarantine` (issue 14): delete abandoned
//! checkpoints; list quarantined corrupt files and put a fixed one back.

use crate::env::Env;
use crate::error::Result;
use crate::megg::checkpoint::tidy::{self, Age};
use crate::megg::project::Project;
use crate::output::Output;
use crate::render::tidy as render;
use crate::wire::checkpoint as wire;

pub(super) fn prune(
    env: &Env,
    project: &Project,
    older_than: Option<u64>,
    dry_run: bool,
    json: bool,
) -> Result<Output> {
    let now = env.clock.now();
    let age = older_than.map_or(Age::Abandoned, Age::OlderThan);
    let pruned = if dry_run {
        tidy::prunable(project, now, age)
    } else {
        tidy::prune(project, now, age)?
    };
    let rule = match age {
        Age::Abandoned => "abandoned (over 30 days old)".to_string(),
        Age::OlderThan(days) => format!("older than {days} days"),
    };
    // Their features are printed: the secrets of each are named.
    let named: Vec<String> = pruned.iter().flat_map(|d| d.secret_warnings()).collect();
    let doc = wire::PruneDocument {
        pruned: pruned.iter().map(Into::into).collect(),
        dry_run,
        warnings: named.clone(),
    };
    Ok(Output::pick(
        json,
        &doc,
        render::pruned_text(&pruned, dry_run, &rule),
        named,
    ))
}

pub(super) fn quarantine(project: &Project, restore: Option<&str>, json: bool) -> Result<Output> {
    let restored = restore
        .map(|name| tidy::restore(project, name))
        .transpose()?;
    let all = tidy::quarantined(project);
    let doc = wire::QuarantineDocument {
        quarantined: all.iter().map(Into::into).collect(),
        restored: restored.as_ref().map(Into::into),
    };
    Ok(Output::pick(
        json,
        &doc,
        render::quarantine_text(&all, restored.as_ref()),
        Vec::new(),
    ))
}
