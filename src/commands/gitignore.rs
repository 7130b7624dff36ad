//! `megg gitignore [--check]` (SPEC §4.6): keep checkpoints and the per-developer state out of
//! git.

use std::path::Path;

use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::megg::gitignore;
use crate::megg::project::Project;
use crate::output::Output;
use crate::wire::misc::Gitignored;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Change nothing; exit 1 when a checkpoint file would not be ignored
    #[arg(long)]
    pub check: bool,

    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

/// A checkpoint name used to ask git whether checkpoints are ignored.
const PROBE: &str = ".megg-example.local.md";

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    let path = project.root.join(".gitignore");
    let b = project.boundary();
    let text = read_gitignore(&b, &path)?;
    let (_, added) = gitignore::ensure(&text);
    let changed = !args.check && !added.is_empty();
    if changed {
        let _lock = project.lock(&path)?;
        // Re-read under the lock so a concurrent edit is not lost.
        let current = read_gitignore(&b, &path)?;
        let (merged, _) = gitignore::ensure(&current);
        fsx::write_atomic(&b, &path, merged.as_bytes())?;
    }
    let ignored = ignored_by_git(project);
    let report = Gitignored {
        path: path.display().to_string(),
        changed,
        added: if args.check {
            Vec::new()
        } else {
            added.clone()
        },
        ignored,
    };
    let code = u8::from(args.check && !ignored);
    let text = text_of(&report, args.check, &added);
    let mut out = Output::pick(args.json, &report, text, Vec::new());
    out.code = code;
    Ok(out)
}

/// Most bytes of a `.gitignore` megg reads (SPEC §9).
const MAX_GITIGNORE_BYTES: u64 = 1024 * 1024;

fn read_gitignore(b: &fsx::Boundary, path: &Path) -> Result<String> {
    fsx::read_for_edit(b, path, MAX_GITIGNORE_BYTES)
        .map(Option::unwrap_or_default)
        .map_err(|e| Error::user(format!("{}; not touching it", e.message)))
}

fn ignored_by_git(project: &Project) -> bool {
    match &project.repo {
        // Asks git itself: every rule it applies counts, global excludes included.
        Some(repo) => repo.is_ignored(Path::new(PROBE)),
        None => false,
    }
}

fn text_of(r: &Gitignored, check: bool, missing: &[&str]) -> String {
    if check {
        return if r.ignored {
            "Checkpoint files are ignored by git\n".into()
        } else {
            format!(
                "Checkpoint files are NOT ignored by git (missing: {}); run: megg gitignore\n",
                missing.join(", ")
            )
        };
    }
    if r.changed {
        let mut s = format!("Updated {}: added\n", r.path);
        for line in &r.added {
            s.push_str(&format!("  {line}\n"));
        }
        s
    } else {
        format!(
            "{} already ignores megg's per-developer files; nothing changed\n",
            r.path
        )
    }
}
