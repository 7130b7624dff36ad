//! Keeping the project root tidy (issue 14): `prune` deletes abandoned checkpoints, and
//! `quarantine` lists the corrupt files discovery moved aside and puts one back once it is
//! fixed. Neither ever touches a corrupt file in place or another plugin's `.local.md`.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::format::{self, Kind};
use super::policy::Staleness;
use super::store::{self, Described};
use crate::error::{Error, Result};
use crate::fsx::{self, Boundary};
use crate::megg::project::Project;

/// Most bytes of a quarantined file read to tell whether it is still corrupt.
const MAX_QUARANTINED_BYTES: u64 = 1024 * 1024;

/// Which checkpoints `prune` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Age {
    /// The `abandoned` tier: older than 30 days, or with no valid `updated`.
    Abandoned,
    /// Older than this many days (a checkpoint with no valid `updated` counts as old).
    OlderThan(u64),
}

impl Age {
    fn takes(self, d: &Described) -> bool {
        match self {
            Age::Abandoned => d.staleness == Staleness::Abandoned,
            Age::OlderThan(days) => d
                .age
                .is_none_or(|age| age.num_seconds() > (days as i64).saturating_mul(86_400)),
        }
    }
}

/// The checkpoints `prune` would delete (or did), oldest first. Corrupt and foreign files are
/// never among them: only files that read as checkpoints are considered.
pub fn prunable(project: &Project, now: DateTime<Utc>, age: Age) -> Vec<Described> {
    let scan = store::scan(&project.roots);
    let mut out: Vec<Described> = scan
        .checkpoints
        .iter()
        .map(|f| store::describe(f, now, project.repo.as_ref()))
        .filter(|d| age.takes(d))
        .collect();
    out.reverse();
    out
}

/// Deletes the checkpoints [`prunable`] named, each under its lock; returns those deleted.
pub fn prune(project: &Project, now: DateTime<Utc>, age: Age) -> Result<Vec<Described>> {
    let scan = store::scan(&project.roots);
    let mut deleted = Vec::new();
    for d in prunable(project, now, age) {
        // Re-found in a fresh scan: only a file that is still a checkpoint is deleted.
        if let Some(found) = scan.checkpoints.iter().find(|f| f.path == d.path) {
            store::remove(project, found)?;
            deleted.push(d);
        }
    }
    Ok(deleted)
}

/// A corrupt checkpoint discovery moved aside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantined {
    /// Its name in quarantine.
    pub name: String,
    pub path: PathBuf,
    /// Where it came from, and where `restore` puts it back.
    pub origin: PathBuf,
    /// Why it still cannot be read as a checkpoint; `None` once it is fixed.
    pub still_corrupt: Option<String>,
}

/// Where quarantined files are: `.git/megg/quarantine/` inside git, the root outside.
fn place(project: &Project) -> (Boundary, PathBuf) {
    match &project.repo {
        Some(r) => {
            let common = r.common_dir();
            (
                Boundary::new(&common, "the git directory"),
                common.join("megg/quarantine"),
            )
        }
        None => (project.boundary(), project.root.clone()),
    }
}

/// The original name of a quarantined file: `<name>.<YYYYmmddTHHMMSSZ>[.N]` inside git,
/// `<name>.corrupt[.N]` outside.
fn original_name(name: &str, in_git: bool) -> Option<&str> {
    let mut rest = name;
    if let Some((head, n)) = rest.rsplit_once('.')
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        rest = head;
    }
    let (head, tail) = rest.rsplit_once('.')?;
    let stamp = tail.len() == 16
        && tail.ends_with('Z')
        && tail.as_bytes().get(8) == Some(&b'T')
        && tail.bytes().filter(u8::is_ascii_digit).count() == 14;
    let ok = if in_git { stamp } else { tail == "corrupt" };
    let plain = head.starts_with('.') && head.ends_with(".local.md") && !head.contains('/');
    (ok && plain).then_some(head)
}

/// Every quarantined checkpoint, sorted by name, with whether it is still corrupt.
pub fn quarantined(project: &Project) -> Vec<Quarantined> {
    let (b, dir) = place(project);
    let in_git = project.repo.is_some();
    let mut out: Vec<Quarantined> = fsx::list(&b, &dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, k)| *k == fsx::Kind::File)
        .filter_map(|(name, _)| {
            let name = name.to_str()?.to_string();
            let origin = project.root.join(original_name(&name, in_git)?);
            let path = dir.join(&name);
            let still_corrupt = match fsx::read_text(&b, &path, MAX_QUARANTINED_BYTES) {
                Ok(Some(t)) if !t.truncated => match format::classify(&t.text) {
                    Kind::Checkpoint(_) => None,
                    Kind::Corrupt(why) => Some(why),
                    Kind::NotOurs => Some("it no longer reads as a checkpoint".into()),
                },
                Ok(_) => Some("it is too large to be a checkpoint".into()),
                Err(e) => Some(e.message),
            };
            Some(Quarantined {
                name,
                path,
                origin,
                still_corrupt,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Puts a quarantined file back where it came from — only once it reads as a checkpoint,
/// and never over a file that is there now.
pub fn restore(project: &Project, name: &str) -> Result<Quarantined> {
    let all = quarantined(project);
    let Some(q) = all.into_iter().find(|q| q.name == name) else {
        return Err(
            Error::user(format!("nothing named '{name}' is in quarantine"))
                .with_hint("run `megg checkpoint quarantine` to list what is"),
        );
    };
    if let Some(why) = &q.still_corrupt {
        return Err(Error::user(format!(
            "{} is still not a readable checkpoint ({why}); nothing restored",
            q.path.display()
        ))
        .with_hint(format!(
            "fix its frontmatter in {}, then run this again",
            q.path.display()
        )));
    }
    let root = project.boundary();
    if fsx::kind(&root, &q.origin).is_some() {
        return Err(Error::user(format!(
            "{} exists; nothing restored (it is never replaced)",
            q.origin.display()
        ))
        .with_hint("finish or move the current checkpoint first"));
    }
    let (b, _) = place(project);
    let base = q
        .origin
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let to = fsx::move_unique(&b, &q.path, &root, &project.root, &base)?;
    if to != q.origin {
        return Err(Error::internal(format!(
            "restored to {} instead of {}",
            to.display(),
            q.origin.display()
        )));
    }
    Ok(q)
}

/// Where a file is, relative to the project root when inside it.
pub fn shown(project: &Project, path: &Path) -> String {
    project
        .relative(path)
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn original_names_of_quarantined_files() {
        assert_eq!(
            original_name(".a.local.md.20261122T120000Z", true),
            Some(".a.local.md")
        );
        assert_eq!(
            original_name(".a.local.md.20261122T120000Z.2", true),
            Some(".a.local.md")
        );
        assert_eq!(
            original_name(".a.local.md.corrupt", false),
            Some(".a.local.md")
        );
        assert_eq!(
            original_name(".a.local.md.corrupt.3", false),
            Some(".a.local.md")
        );
        assert_eq!(original_name(".a.local.md.corrupt", true), None);
        assert_eq!(original_name("notes.txt", true), None);
        assert_eq!(original_name("../x.local.md.20261122T120000Z", true), None);
    }
}
