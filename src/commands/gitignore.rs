//! `megg gitignore [--check]` (SPEC §4.6): keep checkpoints and the per-developer state out of
//! git.

use std::path::Path;

use serde::Serialize;

use crate::megg::gitignore;
use crate::megg::project::Project;
use crate::{Env, Error, Output, Result, fsx};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Change nothing; exit 1 when a checkpoint file would not be ignored
    #[arg(long)]
    pub check: bool,

    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Serialize)]
struct Report {
    path: String,
    changed: bool,
    added: Vec<&'static str>,
    ignored: bool,
}

/// A checkpoint name used to ask git whether checkpoints are ignored.
const PROBE: &str = ".megg-example.local.md";

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = Project::of(env);
    let path = project.root.join(".gitignore");
    let existing = fsx::read_text(&path)?;
    if existing.as_ref().is_some_and(|t| t.lossy) {
        return Err(Error::failure(format!(
            "{} is not valid UTF-8; not touching it",
            path.display()
        )));
    }
    let text = existing.map(|t| t.text).unwrap_or_default();
    let (_, added) = gitignore::ensure(&text);
    let changed = !args.check && !added.is_empty();
    if changed {
        let _lock = fsx::Lock::acquire(&crate::megg::lock_path(project.repo.as_ref(), &path))?;
        // Re-read under the lock so a concurrent edit is not lost.
        let current = fsx::read_text(&path)?.map(|t| t.text).unwrap_or_default();
        let (merged, _) = gitignore::ensure(&current);
        fsx::write_atomic(&path, merged.as_bytes())?;
    }
    let ignored = ignored_by_git(&project);
    let report = Report {
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

fn ignored_by_git(project: &Project) -> bool {
    match &project.repo {
        // Asks git itself: every rule it applies counts, global excludes included.
        Some(repo) => repo.is_ignored(Path::new(PROBE)),
        None => false,
    }
}

fn text_of(r: &Report, check: bool, missing: &[&str]) -> String {
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
