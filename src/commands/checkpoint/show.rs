//! `megg checkpoint show SLUG|PLAN_FILE` (SPEC §4.2): prints the file.

use crate::env::Env;
use crate::error::Result;
use crate::megg::checkpoint::{Target, ops};
use crate::megg::project::Project;
use crate::output::Output;
use crate::wire::checkpoint as wire;

pub(super) fn run(env: &Env, project: &Project, target: &Target, json: bool) -> Result<Output> {
    let shown = ops::show(project, target, env.clock.now())?;
    Ok(Output::pick(
        json,
        &wire::ShowDocument::from(&shown),
        shown.text.clone(),
        shown.checkpoint.warnings.clone(),
    ))
}
