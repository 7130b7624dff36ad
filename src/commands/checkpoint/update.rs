//! `megg checkpoint update SLUG|PLAN_FILE` (SPEC §4.3): phase, branch and checklist items,
//! under the file's lock.

use crate::env::Env;
use crate::error::Result;
use crate::megg::checkpoint::{Target, UpdateRequest, ops};
use crate::megg::project::Project;
use crate::output::Output;
use crate::render::checkpoint as render;
use crate::wire::checkpoint as wire;

pub(super) fn run(
    env: &Env,
    project: &Project,
    target: &Target,
    req: UpdateRequest,
    json: bool,
) -> Result<Output> {
    let updated = ops::update(project, target, &req, env.clock.now())?;
    Ok(Output::pick(
        json,
        &wire::UpdateDocument::from(&updated),
        render::updated_text(&updated),
        updated.warnings.clone(),
    ))
}
