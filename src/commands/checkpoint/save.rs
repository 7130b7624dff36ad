//! `megg checkpoint save PLAN_FILE` (SPEC §4.1).

use std::path::Path;

use crate::env::Env;
use crate::error::Result;
use crate::megg::checkpoint::{Phase, SaveRequest, ops};
use crate::megg::project::Project;
use crate::output::Output;
use crate::render::checkpoint as render;
use crate::wire::checkpoint as wire;

pub(super) fn run(
    env: &Env,
    project: &Project,
    plan_file: &Path,
    phase: Option<Phase>,
    branch: Option<String>,
    force: bool,
    json: bool,
) -> Result<Output> {
    let req = SaveRequest {
        plan: plan_file.to_path_buf(),
        plan_abs: env.resolve(plan_file),
        phase,
        branch,
        force,
    };
    let saved = ops::save(project, &req, env.clock.now())?;
    Ok(Output::pick(
        json,
        &wire::SaveDocument::from(&saved),
        render::saved_text(&saved),
        saved.warnings.clone(),
    ))
}
