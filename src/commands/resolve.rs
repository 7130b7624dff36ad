//! `megg resolve [PATH]... [--json]` (SPEC §11): finish a merge of megg's knowledge files by
//! entry, from the index's stages or from committed markers.

use std::path::PathBuf;

use crate::env::Env;
use crate::error::{Error, Result};
use crate::megg::resolve::{self, Places, Request};
use crate::output::Output;
use crate::render::resolve as render;
use crate::wire::knowledge::Resolved;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The files to resolve (default: every unmerged or conflicted .megg/knowledge.md and
    /// .megg/archive/*.md)
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    let Some(repo) = project.repo.as_ref() else {
        return Err(Error::user("megg resolve works inside a git repository")
            .with_hint("run it in the repository whose merge stopped"));
    };
    let places = Places::of(repo)?;
    let mut paths = Vec::with_capacity(args.paths.len());
    for p in &args.paths {
        // Folded lexically (`sub/../x` is `x`): the file may be deleted in the work tree.
        let abs = env.resolve(p);
        let rel = project
            .relative(&abs)
            .ok_or_else(|| Error::usage(format!("{} is outside the repository", p.display())))?;
        paths.push(rel);
    }
    let stamp = crate::clock::format_timestamp(env.clock.now()).replace(':', "");
    let report = resolve::resolve(&places, &Request { paths, stamp })?;
    let doc = Resolved::from(&report);
    let mut out = Output::pick(
        args.json,
        &doc,
        render::resolved(&report),
        report.warnings.clone(),
    );
    out.code = u8::from(!report.conflicts.is_empty());
    Ok(out)
}
