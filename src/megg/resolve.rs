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
    /// Where the work-tree files were kept before they were rewritten.
    pub backups: Vec<String>,
    /// Other files git still has unmerged (not megg's to resolve).
    pub others: Vec<String>,
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
    let named = !req.paths.is_empty();
    let wanted = |p: &str| !named || req.paths.iter().any(|w| w == p);
    let mut report = Report::default();
    let unmerged = places.repo.unmerged(
        |p| merge::is_knowledge_path(p) && wanted(p),
        MAX_INPUT_BYTES as u64,
    );
    for u in &unmerged {
        let done = from_stages(places, req, u, &mut report);
        settle_error(done, named, &u.path, &mut report)?;
    }
    // Committed markers: files git has no stages for.
    let staged: Vec<&str> = unmerged.iter().map(|u| u.path.as_str()).collect();
    let candidates: Vec<String> = if named {
        req.paths.clone()
    } else {
        places.repo.index_paths(merge::is_knowledge_path)
    };
    for path in candidates.iter().filter(|p| !staged.contains(&p.as_str())) {
        if !merge::is_knowledge_path(path) {
            report.warnings.push(format!(
                "{path} is not a megg knowledge file (.megg/knowledge.md or .megg/archive/*.md); left alone"
            ));
            continue;
        }
        let done = from_markers(places, req, path, &mut report);
        settle_error(done, named, path, &mut report)?;
    }
    report.others = places
        .repo
        .unmerged(|p| !merge::is_knowledge_path(p), 0)
        .into_iter()
        .map(|u| u.path)
        .collect();
    Ok(report)
}

/// A file that cannot be read or written stops the run only when the user named it; in the
/// default scan it is reported as left unresolved and the others are still resolved.
fn settle_error(done: Result<()>, named: bool, path: &str, report: &mut Report) -> Result<()> {
    match done {
        Err(e) if !named => {
            left(report, path, format!("{}; left alone", e.message));
            Ok(())
        }
        other => other,
    }
}

/// A file megg leaves for the user, counted as a remaining conflict (exit 1).
fn left(report: &mut Report, path: &str, why: String) {
    report.conflicts.push(Remaining {
        path: path.to_string(),
        entries: vec![why],
    });
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
                "{side} version is {n} bytes, over megg's {MAX_INPUT_BYTES}: merge it by hand"
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
        Err(why) => {
            left(report, &u.path, why);
            return Ok(());
        }
    };
    let (Some(ours), Some(theirs)) = (ours, theirs) else {
        let gone = if u.ours.is_none() { "our" } else { "their" };
        left(
            report,
            &u.path,
            format!(
                "deleted on {gone} side, changed on the other: keep it with `git add {}` or delete it with `git rm {}`",
                u.path, u.path
            ),
        );
        return Ok(());
    };
    let file = places.top.join(&u.path);
    let _lock = lock(places, &file)?;
    // A file edited since the merge stopped (no markers, and not OURS as git left it) is the
    // user's work: merged again only when named.
    if req.paths.is_empty()
        && let Some(current) = read_file(places, &file)?
        && current != ours
        && conflict::count(&String::from_utf8_lossy(&current)) == 0
    {
        report.warnings.push(format!(
            "{}: edited since the merge stopped and holds no markers; `git add {}` when it is right, or name it (`megg resolve {}`) to merge it again",
            u.path, u.path, u.path
        ));
        left(
            report,
            &u.path,
            "edited by hand, not yet staged".to_string(),
        );
        return Ok(());
    }
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
    if fsx::lstat_kind(&file).is_none() {
        if !req.paths.is_empty() {
            report
                .warnings
                .push(format!("{path} does not exist; nothing to resolve"));
        }
        return Ok(());
    }
    let _lock = lock(places, &file)?;
    let Some(text) = fsx::read_for_edit(&places.work, &file, MAX_INPUT_BYTES as u64)? else {
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

/// The lock for `file`'s read-modify-write; its directory is made first (a merge may have
/// left the file, or the whole `.megg`, deleted in the work tree).
fn lock(places: &Places<'_>, file: &Path) -> Result<fsx::Lock> {
    if let Some(parent) = file.parent() {
        fsx::create_dir_all(&places.work, parent)?;
    }
    crate::megg::lock(Some(places.repo), &places.work, file)
}

/// The work-tree file's bytes; a link is refused (megg never writes through one, nor stages
/// one in place of a knowledge file).
fn read_file(places: &Places<'_>, file: &Path) -> Result<Option<Vec<u8>>> {
    if fsx::lstat_kind(file) == Some(fsx::Kind::Link) {
        return Err(Error::user(format!(
            "{} is a symbolic link; megg resolve writes only regular files",
            file.display()
        )));
    }
    fsx::read_bytes(&places.work, file, MAX_INPUT_BYTES as u64)
}

/// Backs the work-tree file up, writes the merge, and stages it when it is clean. The caller
/// holds the file's lock.
fn settle(
    places: &Places<'_>,
    req: &Request,
    path: &str,
    merged: merge::Merged,
    report: &mut Report,
) -> Result<()> {
    let file = places.top.join(path);
    if let Some(current) = read_file(places, &file)? {
        let (bb, dir) = &places.backups;
        fsx::create_dir_all(bb, dir)?;
        let base = path.replace('/', "__");
        let kept = fsx::create_unique(bb, dir, &format!("{base}.{}", req.stamp), &current)?;
        report.backups.push(kept.display().to_string());
    }
    fsx::write_atomic(&places.work, &file, &merged.bytes)?;
    report
        .warnings
        .extend(merged.warnings.iter().map(|w| format!("{path}: {w}")));
    // The safety net: a result that still holds a marker run is never called clean.
    let clean = merged.is_clean() && conflict::count(&String::from_utf8_lossy(&merged.bytes)) == 0;
    if clean {
        places
            .repo
            .mark_resolved(path, &merged.bytes)
            .map_err(|e| {
                Error::user(format!("{path} is merged but could not be staged: {e}"))
                    .with_hint(format!("stage it yourself: git add {path}"))
            })?;
        report.resolved.push(path.to_string());
    } else {
        let mut entries: Vec<String> = merged
            .conflicts
            .iter()
            .map(|c| match c {
                Conflict::Entry(h) => h.clone(),
                Conflict::Preamble => "preamble".to_string(),
                Conflict::Whole(why) => format!("the whole file ({why})"),
            })
            .collect();
        if entries.is_empty() {
            entries.push("conflict markers kept from the merged text".to_string());
        }
        report.conflicts.push(Remaining {
            path: path.to_string(),
            entries,
        });
    }
    Ok(())
}
