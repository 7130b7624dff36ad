//! The project a command runs in (SPEC §2.4): the top of the git work tree containing the
//! starting directory (outside git, the starting directory), the roots checkpoints are found
//! in (plus the main worktree's, from a linked one), and the repository.

use std::path::{Path, PathBuf};

use crate::git::Repo;
use crate::{Env, Result, fsx};

/// Where checkpoints live: the project root and, from a linked worktree, the main one's.
pub struct Project {
    pub root: PathBuf,
    pub roots: Vec<PathBuf>,
    pub repo: Option<Repo>,
}

impl Project {
    pub fn of(env: &Env) -> Self {
        let repo = env.repo(&env.cwd);
        let root = repo
            .as_ref()
            .and_then(Repo::workdir)
            .map(|w| same_dir_as_walked(&env.cwd, w))
            .unwrap_or_else(|| env.cwd.clone());
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
                let root = std::fs::canonicalize(&self.root).ok()?;
                let canonical = std::fs::canonicalize(path).ok().or_else(|| {
                    let parent = std::fs::canonicalize(path.parent()?).ok()?;
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

    pub fn lock(&self, file: &Path) -> Result<fsx::Lock> {
        fsx::Lock::acquire(&crate::megg::lock_path(self.repo.as_ref(), file))
    }
}

/// The work tree top as the user walked to it: if the starting directory lies under the same
/// directory reached through symlinks, keep that spelling.
fn same_dir_as_walked(cwd: &Path, workdir: PathBuf) -> PathBuf {
    cwd.ancestors()
        .find(|a| same_file(a, &workdir))
        .map(Path::to_path_buf)
        .unwrap_or(workdir)
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
