//! `megg checkpoint finish SLUG|PLAN_FILE` (SPEC §4.3): the lifecycle is complete.

use crate::env::Env;
use crate::error::Result;
use crate::megg::checkpoint::ops;
use crate::megg::project::Project;
use crate::output::Output;
use crate::render::checkpoint as render;
use crate::wire::checkpoint as wire;

pub(super) fn run(env: &Env, project: &Project, target: &str, json: bool) -> Result<Output> {
    let target = super::target(env, project, target);
    let finished = ops::finish(project, &target)?;
    Ok(Output::pick(
        json,
        &wire::FinishDocument::from(&finished),
        render::finished_text(&finished.file, &finished.feature),
        Vec::new(),
    ))
}
