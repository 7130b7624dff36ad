//! The project a command runs in (SPEC §2.4): the top of the git work tree containing the
//! starting directory (outside git, the starting directory), the roots checkpoints are found
//! in (plus the main worktree's, from a linked one), and the repository.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::fsx;
use crate::fsx::Boundary;
use crate::git::Repo;
use crate::megg::repos::{Repos, same_file, top_of};

/// Where checkpoints live: the project root and, from a linked worktree, the main one's.
#[derive(Debug)]
pub struct Project {
    pub root: PathBuf,
    pub roots: Vec<PathBuf>,
    pub repo: Option<Repo>,
}

impl Project {
    /// The project a command started in `cwd` runs in.
    pub fn at(cwd: &Path, repos: &Repos) -> Self {
        let repo = repos.get(cwd);
        let root = top_of(repo.as_ref(), cwd);
        let mut roots = vec![root.clone()];
        if let Some(main) = repo.as_ref().and_then(Repo::main_worktree_root)
            && !same_file(&main, &root)
        {
            roots.push(main);
        }
        Self { root, roots, repo }
    }

    /// `path` relative to the root, `/`-separated; `None` when it is outside the root.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let rel = path
            .strip_prefix(&self.root)
            .ok()
            .map(Path::to_path_buf)
            .or_else(|| {
                let root = fsx::canonical(&self.root)?;
                let canonical = fsx::canonical(path).or_else(|| {
                    let parent = fsx::canonical(path.parent()?)?;
                    Some(parent.join(path.file_name()?))
                })?;
                canonical.strip_prefix(root).ok().map(Path::to_path_buf)
            })?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        (!parts.is_empty()).then(|| parts.join("/"))
    }

    pub fn is_ignored(&self, file: &Path) -> bool {
        match (&self.repo, self.relative(file)) {
            (Some(repo), Some(rel)) => repo.is_ignored(Path::new(&rel)),
            _ => false,
        }
    }

    /// The boundary of files in the project root (SPEC §9): its work tree.
    pub fn boundary(&self) -> Boundary {
        Boundary::new(&self.root, "the project")
    }

    /// The boundary of one of the roots checkpoints are found in.
    pub fn boundary_of(root: &Path) -> Boundary {
        Boundary::new(root, "the project")
    }

    /// The lock for a read-modify-write of `file`, a file in the project root.
    pub fn lock(&self, file: &Path) -> Result<fsx::Lock> {
        crate::megg::lock(self.repo.as_ref(), &self.boundary(), file)
    }
}

/// SPEC §9 "No writing up": inside a git repository, `learn`, `state write` and capture write
/// only to a domain at or below the work tree's top level, so a stranger's repository cannot
/// get its text into the user's own company-level knowledge.
pub fn refuse_writing_up(
    cwd: &Path,
    repos: &Repos,
    d: &crate::megg::discovery::Domain,
) -> Result<()> {
    let Some(repo) = repos.get(cwd) else {
        return Ok(());
    };
    if repo.workdir().is_none() {
        return Ok(());
    }
    let top = top_of(Some(&repo), cwd);
    if d.dir.starts_with(&top) || fsx::canonical(&d.dir).is_some_and(|r| r.starts_with(&top)) {
        return Ok(());
    }
    Err(crate::error::Error::user(format!(
        "refusing to write to {}: that domain is above this repository ({})",
        d.megg.display(),
        top.display()
    ))
    .with_hint(format!(
        "run `megg init` here to give this repository its own .megg, or `megg -C {} …` to write there on purpose",
        d.dir.display()
    )))
}
