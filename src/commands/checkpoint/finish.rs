//! `megg checkpoint finish SLUG|PLAN_FILE` (SPEC §4.3): the lifecycle is complete.

use crate::error::Result;
use crate::megg::checkpoint::{Target, ops};
use crate::megg::project::Project;
use crate::output::Output;
use crate::render::checkpoint as render;
use crate::wire::checkpoint as wire;

pub(super) fn run(project: &Project, target: &Target, json: bool) -> Result<Output> {
    let finished = ops::finish(project, target)?;
    Ok(Output::pick(
        json,
        &wire::FinishDocument::from(&finished),
        render::finished_text(&finished.file, &finished.feature),
        finished.warnings.clone(),
    ))
}
