//! `megg init [PATH] [--info TEXT] [--force]` (SPEC §6): create a domain's `.megg/info.md`.

use std::path::PathBuf;

use crate::clock::format_timestamp;
use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::fsx::Boundary;
use crate::megg::discovery::{self, Megg, dir_name};
use crate::megg::init::{self, Detected};
use crate::megg::project::Project;
use crate::megg::setup::merge;
use crate::output::Output;
use crate::wire::misc::Initialized;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The directory to make a domain [default: the current directory]
    pub path: Option<PathBuf>,
    /// The info.md text instead of the template
    #[arg(long, allow_hyphen_values = true)]
    pub info: Option<String>,
    /// Replace an existing info.md
    #[arg(long)]
    pub force: bool,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let dir = args
        .path
        .as_deref()
        .map_or_else(|| env.cwd.clone(), |p| env.resolve(p));
    if !fsx::is_dir(&dir) {
        return Err(Error::user(format!("{} is not a directory", dir.display())));
    }
    let megg = dir.join(".megg");
    let path = megg.join("info.md");
    let b = match discovery::megg_at(&dir, &env.trusted) {
        Megg::Domain(d) => d.boundary,
        Megg::Refused(why) => return Err(Error::user(why)),
        Megg::Absent => Boundary::new(&megg, ".megg"),
    };
    let existed = fsx::kind(&b, &path).is_some();
    if existed && !args.force {
        return Err(Error::user(format!(
            "{} already exists; not overwriting it",
            path.display()
        ))
        .with_hint("pass --force to replace it"));
    }
    // The repository, found once: the remote init records and the merge hint below.
    let project = Project::at(&dir, &env.repos);
    let detected = detect(project.repo.as_ref(), &dir);
    let body = init::body(&dir_name(&dir), args.info.as_deref(), &detected);
    // What --force replaces is kept first, as `megg setup` keeps what it changes.
    let stamp = env.clock.now().format("%Y%m%dT%H%M%SZ").to_string();
    let backup = if existed {
        init::backup(&project, &b, &path, &stamp)?
    } else {
        None
    };
    fsx::create_dir_all(&Boundary::new(&dir, "the directory"), &megg)?;
    fsx::write_atomic(
        &b,
        &path,
        init::render(&format_timestamp(env.clock.now()), &body).as_bytes(),
    )?;
    let result = Initialized {
        path: path.display().to_string(),
        created: !existed,
    };
    let verb = if existed { "Replaced" } else { "Created" };
    let mut text = format!("{verb} {}\n", result.path);
    if let Some(kept) = &backup {
        text.push_str(&format!("The previous one is kept in {}\n", kept.display()));
    }
    // init registers nothing (SPEC §11); inside git it says what would.
    let knowledge = megg.join("knowledge.md");
    let global = crate::git::global_config_path();
    if merge::in_effect(&project, &knowledge, global.as_deref()) == Some(false) {
        text.push_str(MERGE_HINT);
    }
    Ok(Output::pick(args.json, &result, text, Vec::new()))
}

/// What init says inside a repository where git would merge knowledge line by line.
const MERGE_HINT: &str = "hint: run `megg setup` so git merges knowledge entry by entry (megg's merge driver is not in effect here)\n";

/// Most bytes of a manifest read for its name and description.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// Name and description from the first manifest found, and the origin remote.
fn detect(repo: Option<&crate::git::Repo>, dir: &std::path::Path) -> Detected {
    let mut d = Detected::default();
    for file in ["Cargo.toml", "package.json", "pyproject.toml"] {
        let b = Boundary::new(dir, "the project");
        let Ok(Some(t)) = fsx::read_text(&b, &dir.join(file), MAX_MANIFEST_BYTES) else {
            continue;
        };
        if let Some((name, description)) = init::from_manifest(file, &t.text) {
            d.name = name;
            d.description = description;
            d.source = Some(file);
            break;
        }
    }
    d.remote = repo
        .and_then(|r| r.remote_url("origin"))
        .map(|u| init::strip_credentials(&u));
    d
}
