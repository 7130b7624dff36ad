//! Checkpoint files on disk, all through the file gate: finding them in the project roots,
//! moving corrupt ones aside, matching a SLUG|PLAN_FILE argument, describing one at a moment,
//! and the locked read-modify-write every change goes through.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};

use super::error::CheckpointError;
use super::format::{self, Changes, Checkpoint, Kind};
use super::policy::{self, Staleness};
use super::shown;
use crate::error::Result;
use crate::fsx::{self, Boundary};
use crate::git::{Divergence, Repo};
use crate::megg::project::Project;
use crate::megg::recall::hidden::Hidden;
use crate::megg::slug;

/// Most bytes of a checkpoint read (SPEC §9).
pub const MAX_CHECKPOINT_BYTES: u64 = 1024 * 1024;
/// Most `.*.local.md` files read from one root: a listing stays bounded whatever the
/// repository holds.
pub const MAX_SCANNED: usize = 1_000;

/// A checkpoint file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub root: PathBuf,
    pub file: String,
    pub path: PathBuf,
    pub checkpoint: Checkpoint,
}

/// Everything a scan of the roots found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    pub checkpoints: Vec<Found>,
    /// (path, error)
    pub corrupt: Vec<(PathBuf, String)>,
    pub ignored: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// Scans each root for `.*.local.md` (not recursive). Newest `updated` first. Only reads.
pub fn scan(roots: &[PathBuf]) -> Scan {
    let mut scan = Scan::default();
    for root in roots {
        let b = Boundary::new(root, "the project");
        let Ok(entries) = fsx::list(&b, root) else {
            scan.warnings
                .push(format!("cannot read {}", root.display()));
            continue;
        };
        let mut names: Vec<String> = entries
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .filter(|n| {
                n.starts_with('.') && n.ends_with(".local.md") && n.len() > ".local.md".len() + 1
            })
            .collect();
        names.sort();
        if names.len() > MAX_SCANNED {
            scan.warnings.push(format!(
                "{} holds {} .*.local.md files; read only the first {MAX_SCANNED}",
                root.display(),
                names.len()
            ));
            names.truncate(MAX_SCANNED);
        }
        for name in names {
            let path = root.join(&name);
            let text = match fsx::read_text(&b, &path, MAX_CHECKPOINT_BYTES) {
                Ok(Some(t)) if t.truncated => {
                    scan.warnings.push(format!(
                        "skipped {}: over the {MAX_CHECKPOINT_BYTES}-byte limit",
                        path.display()
                    ));
                    continue;
                }
                Ok(Some(t)) => t.text,
                Ok(None) => continue,
                Err(e) => {
                    scan.warnings.push(e.message);
                    continue;
                }
            };
            match format::classify(&text) {
                Kind::Checkpoint(checkpoint) => scan.checkpoints.push(Found {
                    root: root.clone(),
                    file: name,
                    path,
                    checkpoint,
                }),
                Kind::NotOurs => scan.ignored.push(path),
                Kind::Corrupt(e) => scan.corrupt.push((path, e)),
            }
        }
    }
    scan.checkpoints.sort_by(|a, b| {
        b.checkpoint
            .updated
            .cmp(&a.checkpoint.updated)
            .then(a.file.cmp(&b.file))
    });
    scan
}

/// Moves a corrupt checkpoint out of discovery, keeping its bytes: under
/// `.git/megg/quarantine/` inside git, else renamed `<name>.corrupt`. Returns where it went.
pub fn quarantine(path: &Path, repo: Option<&Repo>, now: DateTime<Utc>) -> Result<PathBuf> {
    let name = file_name(path);
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let dir = path.parent().unwrap_or(Path::new("/"));
    let from = Boundary::new(dir, "the project");
    match repo {
        Some(r) => {
            let common = r.common_dir();
            let git = Boundary::new(&common, "the git directory");
            let to = common.join("megg/quarantine");
            fsx::move_unique(&from, path, &git, &to, &format!("{name}.{stamp}"))
        }
        None => fsx::move_unique(&from, path, &from, dir, &format!("{name}.corrupt")),
    }
}

/// A corrupt file moved aside by [`quarantine_corrupt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantined {
    /// The file's name where it was found.
    pub file: String,
    /// Why it is corrupt.
    pub error: String,
}

/// What [`quarantine_corrupt`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quarantine {
    pub moved: Vec<Quarantined>,
    /// One per corrupt file: where it went, or why it could not be moved.
    pub warnings: Vec<String>,
}

/// Takes the corrupt files out of `scan` and moves each aside (SPEC §4.4 step 1).
pub fn quarantine_corrupt(scan: &mut Scan, repo: Option<&Repo>, now: DateTime<Utc>) -> Quarantine {
    let mut out = Quarantine::default();
    for (path, error) in std::mem::take(&mut scan.corrupt) {
        let name = file_name(&path);
        match quarantine(&path, repo, now) {
            Ok(to) => {
                out.warnings.push(format!(
                    "Checkpoint '{name}' is corrupt (invalid YAML) — moved to {}; starting fresh",
                    to.display()
                ));
                out.moved.push(Quarantined { file: name, error });
            }
            Err(e) => out.warnings.push(format!(
                "Checkpoint '{name}' is corrupt and could not be moved: {}",
                e.message
            )),
        }
    }
    out
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A SLUG|PLAN_FILE argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// As given.
    pub given: String,
    /// The argument read as a path, relative to the project root, when it lies inside it.
    pub as_plan: Option<String>,
}

impl Target {
    /// The checkpoint this target names: by file name, feature, stored plan path, or the slug
    /// of a plan file name.
    pub fn find<'s>(&self, scan: &'s Scan) -> Option<&'s Found> {
        let target = self.given.trim();
        let as_slug = slug::slug(target);
        scan.checkpoints.iter().find(|f| {
            let c = &f.checkpoint;
            f.file == slug::file_name(target)
                || c.feature == target
                || normalize(&c.plan_file) == normalize(target)
                || self
                    .as_plan
                    .as_deref()
                    .is_some_and(|p| normalize(&c.plan_file) == p)
                || (target.ends_with(".md")
                    && as_slug.is_some()
                    && slug::slug(&c.plan_file) == as_slug)
        })
    }

    /// The checkpoint this target names, or the error that lists the known ones.
    pub fn require<'s>(&self, scan: &'s Scan) -> Result<&'s Found, CheckpointError> {
        self.find(scan).ok_or_else(|| CheckpointError::NotFound {
            target: self.given.clone(),
            known: scan.checkpoints.iter().map(|f| f.file.clone()).collect(),
        })
    }
}

/// A stored `plan_file` with `./` and `\` noise removed.
pub fn normalize(plan: &str) -> String {
    let p = plan.replace('\\', "/");
    p.trim_start_matches("./").to_string()
}

/// A found checkpoint described at a moment: the `<checkpoint>` of SPEC §4.2, plus the
/// warnings it earns — as megg shows it (each secret `[redacted]`, SPEC §12).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    pub file: String,
    pub path: PathBuf,
    /// The project root the file lives in (the main worktree's, when found from a linked one).
    pub root: PathBuf,
    /// As shown: each secret in its values `[redacted]`.
    pub checkpoint: Checkpoint,
    pub plan_exists: bool,
    pub age: Option<Duration>,
    pub staleness: Staleness,
    pub divergence: Option<Divergence>,
    /// Age, unknown phase and branch warnings, then one per secret in `hidden`.
    pub warnings: Vec<String>,
    /// The secrets of the file, shown `[redacted]` wherever megg prints it.
    pub hidden: Vec<Hidden>,
}

impl Described {
    pub fn done(&self) -> usize {
        self.checkpoint.items.iter().filter(|i| i.done).count()
    }

    /// The warnings naming the file's secrets (also in `warnings`).
    pub fn secret_warnings(&self) -> impl Iterator<Item = String> + '_ {
        self.hidden.iter().map(Hidden::warning)
    }
}

/// Describes a found checkpoint at `now`, with its divergence when `repo` is given; its file
/// is read again for where its secrets are.
pub fn describe(found: &Found, now: DateTime<Utc>, repo: Option<&Repo>) -> Described {
    let text = read_text(found).ok();
    describe_read(found, text.as_deref(), now, repo)
}

/// [`describe`], the file having read `text` (`None`: it could not be read again).
pub fn describe_read(
    found: &Found,
    text: Option<&str>,
    now: DateTime<Utc>,
    repo: Option<&Repo>,
) -> Described {
    // What git and the file system are asked uses the values as written; what is printed,
    // the warnings included, uses them as shown.
    let cp = &found.checkpoint;
    let (shown, hidden) = shown::checkpoint(&found.path, cp, text);
    let divergence = match (&cp.branch, repo) {
        (Some(b), Some(r)) => r.divergence(
            b,
            cp.head.as_deref(),
            cp.updated.unwrap_or(now),
            crate::git::WALK_CAP,
        ),
        _ => None,
    };
    let assessment = policy::assess(&found.file, &shown, now, divergence.as_ref());
    let plan_path = found.root.join(&cp.plan_file);
    let mut warnings = assessment.warnings;
    warnings.extend(hidden.iter().map(Hidden::warning));
    Described {
        file: found.file.clone(),
        path: found.path.clone(),
        root: found.root.clone(),
        checkpoint: shown,
        // A plan_file naming something outside the project is never looked at.
        plan_exists: fsx::is_file(&Boundary::new(&found.root, "the project"), &plan_path),
        age: assessment.age,
        staleness: assessment.staleness,
        divergence,
        warnings,
        hidden,
    }
}

/// A plan file argument as stored: it must exist and lie inside the project root. `given` is
/// the argument, `abs` the same made absolute against the starting directory.
pub fn plan_relative(project: &Project, given: &Path, abs: &Path) -> Result<String> {
    let not_found = || CheckpointError::PlanNotFound {
        given: given.to_path_buf(),
        from_here: from_root_instead(project, given, abs),
    };
    let Some(rel) = project.relative(abs) else {
        if !fsx::is_dir(abs.parent().unwrap_or(Path::new("/"))) {
            return Err(not_found().into());
        }
        return Err(CheckpointError::PlanOutside {
            plan: abs.to_path_buf(),
            root: project.root.clone(),
        }
        .into());
    };
    // Looked at only inside the project: a plan path that leads out is never opened.
    if !fsx::is_file(&project.boundary(), &project.root.join(&rel)) {
        return Err(not_found().into());
    }
    Ok(rel)
}

/// When `given` (relative, missing from the starting directory) names a file relative to the
/// project root, the spelling that works from the starting directory (SPEC §4.1).
fn from_root_instead(project: &Project, given: &Path, abs: &Path) -> Option<String> {
    if given.is_absolute() {
        return None;
    }
    let at_root = project.root.join(given);
    let rel = project.relative(&at_root)?;
    if !fsx::is_file(&project.boundary(), &project.root.join(&rel)) {
        return None;
    }
    let cwd = abs.ancestors().nth(given.components().count())?;
    let depth = cwd.strip_prefix(&project.root).ok()?.components().count();
    Some(format!("{}{rel}", "../".repeat(depth)))
}

/// `head` for a checkpoint on `branch`: the branch's tip (empty when it has none yet);
/// `None` (key untouched) without a branch.
pub fn tip_of(repo: Option<&Repo>, branch: Option<&str>) -> Option<String> {
    branch.map(|b| repo.and_then(|r| r.branch_tip(b)).unwrap_or_default())
}

/// The read-modify-write every change to an existing checkpoint goes through: under the
/// file's lock, re-read it (another agent may have changed it since the scan), apply the
/// changes `make` computes from the current content plus `updated` = now, write atomically,
/// and describe the result.
pub fn edit_under_lock(
    project: &Project,
    found: &Found,
    now: DateTime<Utc>,
    make: impl FnOnce(&Checkpoint) -> Result<Changes>,
) -> Result<Described> {
    let bytes = {
        let _lock = project.lock(&found.path)?;
        let fb = Project::boundary_of(&found.root);
        let text = fsx::read_for_edit(&fb, &found.path, MAX_CHECKPOINT_BYTES)?
            .ok_or_else(|| CheckpointError::Disappeared(found.file.clone()))?;
        let Kind::Checkpoint(current) = format::classify(&text) else {
            return Err(CheckpointError::NoLongerCheckpoint(found.file.clone()).into());
        };
        let changes = Changes {
            updated: Some(now),
            ..make(&current)?
        };
        let bytes = format::edit(&text, &changes);
        fsx::write_atomic(&fb, &found.path, bytes.as_bytes())?;
        bytes
    };
    let Kind::Checkpoint(checkpoint) = format::classify(&bytes) else {
        return Err(CheckpointError::EditedUnreadable(found.file.clone()).into());
    };
    let found = Found {
        checkpoint,
        ..found.clone()
    };
    Ok(describe_read(
        &found,
        Some(&bytes),
        now,
        project.repo.as_ref(),
    ))
}

/// A checkpoint's text as written: what megg edits. People read [`read_shown`].
pub fn read_text(found: &Found) -> Result<String> {
    let fb = Project::boundary_of(&found.root);
    Ok(fsx::read_text(&fb, &found.path, MAX_CHECKPOINT_BYTES)?
        .map(|t| t.text)
        .unwrap_or_default())
}

/// A checkpoint's text for people to read: each secret `[redacted]` (SPEC §12), named where
/// the checkpoint is described.
pub fn read_shown(found: &Found) -> Result<String> {
    Ok(shown::text(&found.path, read_text(found)?))
}

/// Deletes a checkpoint under its lock.
pub fn remove(project: &Project, found: &Found) -> Result<()> {
    let _lock = project.lock(&found.path)?;
    fsx::remove_file(&Project::boundary_of(&found.root), &found.path).map(|_| ())
}
