//! The domain: what `.megg` directories, knowledge, state and context are, as pure functions
//! over data plus the reads they need. Commands orchestrate these; renderers format them.

pub mod block;
pub mod capture;
pub mod checkpoint;
pub mod conflict;
pub mod context;
pub mod discovery;
pub mod doctor;
pub mod doctor_hosts;
pub mod doctor_team;
pub mod freshness;
pub mod gitignore;
pub mod init;
pub mod knowledge;
pub mod maintain;
pub mod merge;
pub mod project;
pub mod recall;
pub mod repos;
pub mod resolve;
pub mod secrets;
pub mod setup;
pub mod slug;
pub mod state;
pub mod walks;
pub mod worktrees;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::Error;
use crate::error::Result;
use crate::fsx::{self, Boundary, Lock};
use crate::git::Repo;
use crate::tokens::Counter;

/// What the domain takes from outside itself, and nothing more: the time, the token counter,
/// where discovery stops (`MEGG_CEILING_DIRS`, SPEC §2.1) and what the user trusts (SPEC §9).
/// Commands build it from their `Env` with `Env::deps`; the domain never reads
/// the process environment, prints or prompts.
#[derive(Debug, Clone, Copy)]
pub struct Deps<'a> {
    pub now: DateTime<Utc>,
    pub tokens: &'a Counter,
    pub ceilings: &'a [PathBuf],
    pub trusted: &'a [PathBuf],
    /// The repositories this run has opened (each once).
    pub repos: &'a repos::Repos,
}

impl<'a> Deps<'a> {
    /// The git repository containing `at`, if any.
    pub fn repo(&self, at: &Path) -> Option<Repo> {
        self.repos.get(at)
    }

    /// The project top for `at`: its git work tree's top as walked, else `at` itself.
    pub fn top(&self, at: &Path) -> PathBuf {
        self.repos.top(at)
    }

    /// The walk up from a directory in the project whose top is `top` (SPEC §2.1, §9).
    pub fn walk(&self, top: &'a Path) -> discovery::Walk<'a> {
        discovery::Walk {
            ceilings: self.ceilings,
            trusted: self.trusted,
            top,
        }
    }
}

/// Takes the lock for a read-modify-write of `file` (inside `b`). The lock is keyed by the
/// identity of the file's directory plus its name, so two agents reaching one file through
/// different spellings of its path (a symlinked directory) share one lock. It lives under the
/// git directory inside a repository (never in `git status`), else in megg's cache directory,
/// else in a directory of the user's own ([`fsx::user_lock_dir`]), and only when even that cannot be
/// had, beside the file.
pub fn lock(repo: Option<&Repo>, b: &Boundary, file: &Path) -> Result<Lock> {
    let (lock_b, path) = lock_place(repo, b, file)?;
    Lock::acquire(&lock_b, &path)
}

/// Where [`lock`] takes the lock for `file`: the boundary and the lock file's path.
pub fn lock_place(repo: Option<&Repo>, b: &Boundary, file: &Path) -> Result<(Boundary, PathBuf)> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "megg".into());
    let dir = file.parent().unwrap_or(Path::new("/"));
    let (dev, ino) = fsx::identity(dir).ok_or_else(|| {
        Error::user(format!(
            "cannot lock {}: its directory is missing",
            file.display()
        ))
    })?;
    let key = format!("{dev:x}-{ino:x}-{name}.lock");
    if let Some(r) = repo {
        let common = r.common_dir();
        return Ok((
            Boundary::new(&common, "the git directory"),
            common.join("megg/locks").join(key),
        ));
    }
    if let Some(cache) = fsx::user_cache_dir() {
        return Ok((
            Boundary::new(&cache, "megg's cache directory"),
            cache.join("locks").join(key),
        ));
    }
    // No cache directory: still never a lock file in the user's project (SPEC §1).
    if let Some(dir) = fsx::user_lock_dir() {
        return Ok((Boundary::new(&dir, "megg's lock directory"), dir.join(key)));
    }
    Ok((b.clone(), file.with_file_name(format!(".{name}.lock"))))
}
