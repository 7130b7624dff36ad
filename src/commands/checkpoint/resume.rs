//! `megg checkpoint resume [SLUG|PLAN_FILE]` (SPEC §4.4): runs the resume flow
//! ([`crate::flow::resume`]) — on a terminal it asks, unless `--choice` or `--json` says not
//! to — and prints its report.

use crate::env::Env;
use crate::error::Result;
use crate::flow::resume::{self as flow, Request};
use crate::megg::project::Project;
use crate::output::Output;
use crate::prompt::Terminal;
use crate::render::checkpoint as render;
use crate::wire::checkpoint as wire;

pub(super) fn run(env: &Env, project: &Project, req: &Request, json: bool) -> Result<Output> {
    let now = env.clock.now();
    let outcome = if env.interactive && req.choice.is_none() && !json {
        flow::resume(project, &env.cwd, now, req, Some(&mut Terminal::new()))
    } else {
        flow::resume(project, &env.cwd, now, req, None)
    }?;
    Ok(Output::pick(
        json,
        &wire::ResumeDocument::from(&outcome.report),
        render::resume_text(&outcome.report),
        outcome.unshown().to_vec(),
    ))
}
