//! `megg trust DIR | --list | --remove DIR` (SPEC §9): the directories the user allows megg to
//! read through a link or from another user's ancestor, kept in the user's config file.

use std::path::PathBuf;

use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::output::Output;
use crate::wire::misc::Trusted;
use crate::{config, fsx};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The directory to trust (or, with --remove, to stop trusting)
    // Its own id: `dir` is the global `-C DIR`, and sharing it made a relative DIR resolve twice.
    #[arg(id = "target", value_name = "DIR", required_unless_present = "list")]
    pub dir: Option<PathBuf>,

    /// List the trusted directories
    #[arg(long, conflicts_with_all = ["target", "remove"])]
    pub list: bool,

    /// Stop trusting DIR
    #[arg(long)]
    pub remove: bool,

    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let target = match &args.dir {
        None => None,
        Some(d) => {
            let abs = env.resolve(d);
            // Trust is recorded for the real directory: a link's spelling can be re-pointed.
            let real = fsx::canonical(&abs)
                .filter(|p| fsx::is_dir(p))
                .ok_or_else(|| {
                    Error::user(format!("{} is not a directory", abs.display()))
                        .with_hint("pass an existing directory")
                })?;
            Some(real)
        }
    };
    let (file, dirs, changed) = config::edit_list(|dirs| match &target {
        None => false,
        Some(t) if args.remove => {
            let before = dirs.len();
            dirs.retain(|d| fsx::canonical(d).as_ref().unwrap_or(d) != t);
            dirs.len() != before
        }
        Some(t) => {
            if dirs
                .iter()
                .any(|d| fsx::canonical(d).as_ref().unwrap_or(d) == t)
            {
                false
            } else {
                dirs.push(t.clone());
                true
            }
        }
    })?;
    if args.remove
        && !changed
        && let Some(t) = &target
    {
        return Err(Error::user(format!("{} is not trusted", t.display()))
            .with_hint("megg trust --list shows the trusted directories"));
    }
    let text = match (&target, args.remove, changed) {
        (None, ..) if dirs.is_empty() => format!("No trusted directories ({})\n", file.display()),
        (None, ..) => dirs.iter().map(|d| format!("{}\n", d.display())).collect(),
        (Some(t), true, _) => format!("No longer trusted: {}\n", t.display()),
        (Some(t), false, true) => format!("Trusted: {} (in {})\n", t.display(), file.display()),
        (Some(t), false, false) => format!("Already trusted: {}\n", t.display()),
    };
    let report = Trusted {
        config: file,
        trusted_dirs: dirs,
        changed,
    };
    Ok(Output::pick(args.json, &report, text, Vec::new()))
}
