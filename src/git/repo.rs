//! The repository: discovery, identity (work tree, git directories, worktrees, HEAD, branch)
//! and ignore rules.

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

    /// This worktree's admin name (its directory under `<common dir>/worktrees/`); `None` in
    /// the main worktree (or a bare repository).
    pub fn worktree_name(&self) -> Option<String> {
        if !self.repo.is_worktree() {
            return None;
        }
        // Its git directory is `<common dir>/worktrees/<name>`.
        let dir = trimmed(self.repo.path());
        dir.file_name().map(|n| n.to_string_lossy().into_owned())
    }

    /// This linked worktree as [`Repo::linked_worktrees`] lists it; `None` in the main one.
    pub fn this_worktree(&self) -> Option<Linked> {
        let name = self.worktree_name()?;
        Some(self.linked(&name))
    }

    /// Every linked worktree git keeps an admin directory for (`<common dir>/worktrees/*/`),
    /// by name: those whose work tree is gone included, marked [`Linked::prunable`]. Reads
    /// only git's admin files, never a work tree.
    pub fn linked_worktrees(&self) -> Vec<Linked> {
        let Ok(names) = self.repo.worktrees() else {
            return Vec::new();
        };
        let mut out: Vec<Linked> = names
            .iter()
            .filter_map(|name| name.ok().flatten())
            .map(|name| self.linked(name))
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// Linked worktree `name` as git's admin files tell it.
    fn linked(&self, name: &str) -> Linked {
        let wt = self.repo.find_worktree(name).ok();
        let path = wt.as_ref().map(|w| trimmed(w.path()));
        // Not locked and its `gitdir` names a directory that is gone (`git worktree prune`
        // would remove it); a worktree git cannot read is gone as well.
        let prunable = wt
            .as_ref()
            .is_none_or(|w| w.is_prunable(None).unwrap_or(false));
        Linked {
            name: name.to_string(),
            admin: self.common_dir().join("worktrees").join(name),
            path,
            prunable,
        }
    }

    /// Whether the repository's common directory is bare (`core.bare`): its worktrees are all
    /// linked ones, none of them the main one.
    pub fn common_is_bare(&self) -> bool {
        self.repo
            .config()
            .and_then(|c| c.get_bool("core.bare"))
            .unwrap_or(false)
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

/// A linked worktree of a repository ([`Repo::linked_worktrees`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linked {
    /// Its admin name: its directory's name under `<common dir>/worktrees/`.
    pub name: String,
    /// That directory, its own git directory.
    pub admin: PathBuf,
    /// Its work tree's top, as the admin directory's `gitdir` file names it: where it was
    /// created, or moved to with `git worktree move`. `None` when git cannot read it.
    pub path: Option<PathBuf>,
    /// Git would prune it: not locked, and its work tree is gone (deleted without `git
    /// worktree remove`).
    pub prunable: bool,
}

/// The key megg files the main worktree's sessions under (SPEC §18.2): a linked worktree's
/// key always holds an `@` ([`worktree_key`]), so none is ever this.
pub const MAIN_WORKTREE: &str = "main";

/// The key of linked worktree `name` at `path` (SPEC §18.2): its admin name, `@`, and 8 hex
/// digits of a hash of the path, so a name git gives again to a worktree elsewhere is another
/// key. Never [`MAIN_WORKTREE`].
pub fn worktree_key(name: &str, path: &Path) -> String {
    let hash = xxhash_rust::xxh3::xxh3_64(path.as_os_str().as_encoded_bytes());
    format!("{name}@{:08x}", hash >> 32)
}

/// `p` without the trailing `/` git2 may leave on a directory (its components again).
fn trimmed(p: &Path) -> PathBuf {
    p.components().collect()
}
