//! The repository: discovery, identity (work tree, git directories, HEAD, branch) and
//! ignore rules.

use std::path::{Path, PathBuf};

use git2::{Repository, RepositoryOpenFlags};

/// One open repository. Cloning shares it: a run opens each repository once
/// ([`crate::megg::repos::Repos`]).
#[derive(Clone)]
pub struct Repo {
    pub(super) repo: std::rc::Rc<Repository>,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("git_dir", &self.repo.path())
            .finish()
    }
}

impl Repo {
    /// The repository containing `start`, stopping the upward search at `ceilings`.
    pub fn discover(start: &Path, ceilings: &[PathBuf]) -> Option<Self> {
        crate::failpoint::log("git-open");
        Repository::open_ext(start, RepositoryOpenFlags::empty(), ceilings)
            .ok()
            .map(|repo| Self {
                repo: std::rc::Rc::new(repo),
            })
    }

    /// The one open repository behind this handle (tests compare handles).
    #[cfg(test)]
    pub(crate) fn shared(&self) -> std::rc::Rc<Repository> {
        std::rc::Rc::clone(&self.repo)
    }

    /// Top of the work tree; `None` for a bare repository.
    pub fn workdir(&self) -> Option<PathBuf> {
        self.repo.workdir().map(|p| {
            let s = p.to_string_lossy();
            PathBuf::from(s.trim_end_matches('/'))
        })
    }

    /// This work tree's git directory (`.git`, or `.git/worktrees/<name>` in a linked one).
    pub fn git_dir(&self) -> PathBuf {
        self.repo.path().to_path_buf()
    }

    /// The git directory shared by all work trees.
    pub fn common_dir(&self) -> PathBuf {
        self.repo.commondir().to_path_buf()
    }

    /// In a linked worktree, the main worktree's top directory; `None` otherwise.
    pub fn main_worktree_root(&self) -> Option<PathBuf> {
        if !self.repo.is_worktree() {
            return None;
        }
        let common = self.repo.commondir();
        let common = common.to_string_lossy();
        let common = Path::new(common.trim_end_matches('/'));
        (common.file_name()? == ".git").then(|| common.parent().map(Path::to_path_buf))?
    }

    /// Whether git ignores `rel` (relative to the work tree), by any rule it applies:
    /// `.gitignore` files, `.git/info/exclude` and the global excludes file.
    pub fn is_ignored(&self, rel: &Path) -> bool {
        self.repo.is_path_ignored(rel).unwrap_or(false)
    }

    /// The URL of remote `name`, as configured (may hold credentials: callers strip them).
    pub fn remote_url(&self, name: &str) -> Option<String> {
        self.repo
            .find_remote(name)
            .ok()?
            .url()
            .ok()
            .map(str::to_string)
    }

    /// The checked-out branch's short name, also when it has no commits yet; `None` when HEAD
    /// is detached.
    pub fn current_branch(&self) -> Option<String> {
        let head = self.repo.find_reference("HEAD").ok()?;
        let target = head.symbolic_target().ok().flatten()?;
        Some(
            target
                .strip_prefix("refs/heads/")
                .unwrap_or(target)
                .to_string(),
        )
    }

    /// The commit HEAD points at.
    pub fn head_commit(&self) -> Option<String> {
        self.repo
            .head()
            .ok()?
            .peel_to_commit()
            .ok()
            .map(|c| c.id().to_string())
    }

    /// Whether this is a shallow clone (its history is cut).
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow()
    }
}
