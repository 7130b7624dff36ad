//! `megg resolve` (SPEC §11): finishes a merge of megg's shared files that git could not —
//! a clone without the driver, a driver that could not run, a web editor that committed the
//! markers. Merges by entry from the index's stages, or from the two sides of committed
//! markers, backs the work-tree file up first, and stages what is clean.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fsx::{self, Boundary};
use crate::git::{Repo, Stage, Unmerged};
use crate::megg::conflict;
use crate::megg::merge::{self, Conflict, DEFAULT_MARKER_SIZE, MAX_INPUT_BYTES};

/// What to resolve.
pub struct Request {
    /// Paths relative to the work tree's top, `/`-separated; empty: every megg file.
    pub paths: Vec<String>,
    /// The time, for backup names.
    pub stamp: String,
}

/// What `megg resolve` did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// Merged cleanly and staged.
    pub resolved: Vec<String>,
    /// Written with markers around what both sides changed, left unstaged.
    pub conflicts: Vec<Remaining>,
    pub warnings: Vec<String>,
}

/// A file that still holds conflicts after `megg resolve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remaining {
    pub path: String,
    /// The headings of the entries both sides edited (or `preamble`, or why the whole file
    /// could not be merged by entry).
    pub entries: Vec<String>,
}

/// The work tree and where backups go.
pub struct Places<'a> {
    pub repo: &'a Repo,
    pub top: PathBuf,
    pub work: Boundary,
    pub backups: (Boundary, PathBuf),
}

impl<'a> Places<'a> {
    pub fn of(repo: &'a Repo) -> Result<Self> {
        let top = repo.workdir().ok_or_else(|| {
            Error::user("megg resolve needs a work tree (this repository is bare)")
        })?;
        let common = repo.common_dir();
        Ok(Self {
            repo,
            work: Boundary::new(&top, "the work tree"),
            backups: (
                Boundary::new(&common, "the git directory"),
                common.join("megg/backups"),
            ),
            top,
        })
    }
}

pub fn resolve(places: &Places<'_>, req: &Request) -> Result<Report> {
    let wanted = |p: &str| req.paths.is_empty() || req.paths.iter().any(|w| w == p);
    let mut report = Report::default();
    let unmerged = places.repo.unmerged(
        |p| merge::is_knowledge_path(p) && wanted(p),
        MAX_INPUT_BYTES as u64,
    );
    for u in &unmerged {
        from_stages(places, req, u, &mut report)?;
    }
    // Committed markers: files git has no stages for.
    let staged: Vec<&str> = unmerged.iter().map(|u| u.path.as_str()).collect();
    let candidates: Vec<String> = if req.paths.is_empty() {
        places.repo.index_paths(merge::is_knowledge_path)
    } else {
        req.paths.clone()
    };
    for path in candidates.iter().filter(|p| !staged.contains(&p.as_str())) {
        if !merge::is_knowledge_path(path) {
            report.warnings.push(format!(
                "{path} is not a megg knowledge file (.megg/knowledge.md or .megg/archive/*.md); left alone"
            ));
            continue;
        }
        from_markers(places, req, path, &mut report)?;
    }
    Ok(report)
}

fn from_stages(
    places: &Places<'_>,
    req: &Request,
    u: &Unmerged,
    report: &mut Report,
) -> Result<()> {
    let blob = |s: &Option<Stage>, side: &str| -> std::result::Result<Option<Vec<u8>>, String> {
        match s {
            None => Ok(None),
            Some(Stage::Blob(b)) => Ok(Some(b.clone())),
            Some(Stage::TooLarge(n)) => Err(format!(
                "{}: {side}'s version is {n} bytes, over megg's {MAX_INPUT_BYTES}; left as git left it",
                u.path
            )),
        }
    };
    let sides = (|| {
        Ok((
            blob(&u.base, "the base")?,
            blob(&u.ours, "our")?,
            blob(&u.theirs, "their")?,
        ))
    })();
    let (base, ours, theirs) = match sides {
        Ok(s) => s,
        Err(w) => {
            report.warnings.push(w);
            return Ok(());
        }
    };
    let (Some(ours), Some(theirs)) = (ours, theirs) else {
        let gone = if u.ours.is_none() { "our" } else { "their" };
        report.warnings.push(format!(
            "{}: deleted on {gone} side and changed on the other; left as git left it (keep it with `git add {}`, or delete it with `git rm {}`)",
            u.path, u.path, u.path
        ));
        return Ok(());
    };
    let merged = merge::merge_knowledge(
        base.as_deref(),
        &ours,
        &theirs,
        &u.path,
        DEFAULT_MARKER_SIZE,
    );
    settle(places, req, &u.path, merged, report)
}

fn from_markers(places: &Places<'_>, req: &Request, path: &str, report: &mut Report) -> Result<()> {
    let file = places.top.join(path);
    let Some(text) = fsx::read_for_edit(&places.work, &file, MAX_INPUT_BYTES as u64)? else {
        if !req.paths.is_empty() {
            report
                .warnings
                .push(format!("{path} does not exist; nothing to resolve"));
        }
        return Ok(());
    };
    let Some((ours, theirs)) = conflict::both(&text) else {
        if !req.paths.is_empty() {
            report
                .warnings
                .push(format!("{path} has no conflicts; nothing to resolve"));
        }
        return Ok(());
    };
    // No base: nothing is deleted, the entries of both sides are kept.
    let merged = merge::merge_knowledge(
        None,
        ours.as_bytes(),
        theirs.as_bytes(),
        path,
        DEFAULT_MARKER_SIZE,
    );
    settle(places, req, path, merged, report)
}

/// Backs the work-tree file up, writes the merge, and stages it when it is clean.
fn settle(
    places: &Places<'_>,
    req: &Request,
    path: &str,
    merged: merge::Merged,
    report: &mut Report,
) -> Result<()> {
    let file = places.top.join(path);
    let _lock = crate::megg::lock(Some(places.repo), &places.work, &file)?;
    if let Some(current) = fsx::read_bytes(&places.work, &file, MAX_INPUT_BYTES as u64)? {
        let (bb, dir) = &places.backups;
        fsx::create_dir_all(bb, dir)?;
        let base = path.replace('/', "__");
        fsx::create_unique(bb, dir, &format!("{base}.{}", req.stamp), &current)?;
    } else if let Some(parent) = file.parent() {
        fsx::create_dir_all(&places.work, parent)?;
    }
    fsx::write_atomic(&places.work, &file, &merged.bytes)?;
    report
        .warnings
        .extend(merged.warnings.iter().map(|w| format!("{path}: {w}")));
    if merged.is_clean() {
        places.repo.mark_resolved(Path::new(path)).map_err(|e| {
            Error::user(format!("{path} is merged but could not be staged: {e}"))
                .with_hint(format!("stage it yourself: git add {path}"))
        })?;
        report.resolved.push(path.to_string());
    } else {
        report.conflicts.push(Remaining {
            path: path.to_string(),
            entries: merged
                .conflicts
                .iter()
                .map(|c| match c {
                    Conflict::Entry(h) => h.clone(),
                    Conflict::Preamble => "preamble".to_string(),
                    Conflict::Whole(why) => format!("the whole file ({why})"),
                })
                .collect(),
        });
    }
    Ok(())
}
