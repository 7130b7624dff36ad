//! `megg checkpoint list` (SPEC §4.2): only reads; corrupt files are reported, not moved.

use crate::env::Env;
use crate::megg::checkpoint::ops;
use crate::megg::project::Project;
use crate::output::Output;
use crate::render::checkpoint as render;
use crate::wire::checkpoint as wire;

pub(super) fn run(env: &Env, project: &Project, json: bool) -> Output {
    let listing = ops::list(project, env.clock.now());
    Output::pick(
        json,
        &wire::ListDocument::from(&listing),
        render::listed_text(&listing),
        listing.warnings.clone(),
    )
}
