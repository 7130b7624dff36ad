//! The repositories one run opens (SPEC §14): each discovered and opened once, then shared
//! by every piece of the run that asks — the project, the context chain's domains, capture's
//! place and the "no writing up" check.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::fsx;
use crate::git::Repo;

/// The repositories one run has discovered and opened, so that each is opened once (SPEC §14;
/// the uv `Workspace` pattern): a hook or a command asks here, never [`Repo::discover`].
/// A directory inside a work tree already open (as walked, with no nested `.git` and no
/// ceiling between) gets that repository back without touching git.
#[derive(Debug, Default)]
pub struct Repos {
    ceilings: Vec<PathBuf>,
    /// Each discovery: where it started, the work tree's top as walked (none when nothing was
    /// found, or for a bare repository), and the repository.
    open: RefCell<Vec<Opened>>,
}

#[derive(Debug)]
struct Opened {
    start: PathBuf,
    top: Option<PathBuf>,
    repo: Option<Repo>,
}

impl Repos {
    /// Discovery that stops at `ceilings` (`MEGG_CEILING_DIRS`, SPEC §2.1).
    pub fn new(ceilings: &[PathBuf]) -> Self {
        Self {
            ceilings: ceilings.to_vec(),
            open: RefCell::new(Vec::new()),
        }
    }

    /// The project root for `at`: the top of its git work tree as walked, else `at` itself.
    pub fn top(&self, at: &Path) -> PathBuf {
        top_of(self.get(at).as_ref(), at)
    }

    /// The git repository containing `at`, if any.
    pub fn get(&self, at: &Path) -> Option<Repo> {
        if let Some(known) = self.known(at) {
            return known;
        }
        let repo = Repo::discover(at, &self.ceilings);
        let top = repo
            .as_ref()
            .and_then(Repo::workdir)
            .map(|w| same_dir_as_walked(at, w));
        self.open.borrow_mut().push(Opened {
            start: at.to_path_buf(),
            top,
            repo: repo.clone(),
        });
        repo
    }

    /// The answer of an earlier discovery that holds for `at`: the same start, or a directory
    /// in a work tree already open that discovery from `at` would find too.
    fn known(&self, at: &Path) -> Option<Option<Repo>> {
        let open = self.open.borrow();
        if let Some(o) = open.iter().find(|o| o.start == at) {
            return Some(o.repo.clone());
        }
        open.iter().find_map(|o| {
            let top = o.top.as_deref()?;
            self.inside(at, top).then(|| o.repo.clone())
        })
    }

    /// Whether discovery from `at` ends in the work tree whose top is `top`: `at` lies under
    /// it, no directory on the way up holds a `.git` of its own (a nested repository or a
    /// submodule) and no ceiling stops the walk before it.
    fn inside(&self, at: &Path, top: &Path) -> bool {
        if !at.starts_with(top) {
            return false;
        }
        let ceiling = self
            .ceilings
            .iter()
            .any(|c| at.starts_with(c) && c.starts_with(top));
        !ceiling
            && !at
                .ancestors()
                .take_while(|a| *a != top)
                .any(|a| fsx::lstat_kind(&a.join(".git")).is_some())
    }
}

/// [`Repos::top`] for a repository already discovered from `at` (or none).
pub fn top_of(repo: Option<&Repo>, at: &Path) -> PathBuf {
    repo.and_then(Repo::workdir)
        .map(|w| same_dir_as_walked(at, w))
        .unwrap_or_else(|| at.to_path_buf())
}

/// The work tree top as the user walked to it: if the starting directory lies under the same
/// directory reached through symlinks, keep that spelling.
fn same_dir_as_walked(cwd: &Path, workdir: PathBuf) -> PathBuf {
    cwd.ancestors()
        .find(|a| same_file(a, &workdir))
        .map(Path::to_path_buf)
        .unwrap_or(workdir)
}

pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    fsx::identity(a).is_some_and(|id| fsx::identity(b) == Some(id))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // fixtures are built with std::fs

    use super::*;

    fn init(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        git2::Repository::init(dir).unwrap();
    }

    fn git_dir(repo: Option<Repo>) -> Option<PathBuf> {
        repo.map(|r| fsx::canonical(&r.git_dir()).unwrap())
    }

    /// A directory in an open work tree gets that repository back; a nested repository, a
    /// ceiling on the way, or a directory outside gets its own discovery — the answer is
    /// always the one git's own discovery gives.
    #[test]
    fn repos_answer_as_discovery_does() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fsx::canonical(tmp.path()).unwrap().join("repo");
        init(&root);
        let nested = root.join("vendor/lib");
        init(&nested);
        let deep = root.join("src/a/b");
        let in_nested = nested.join("src");
        let ceiling = root.join("fenced");
        let behind = ceiling.join("in");
        let outside = root.parent().unwrap().join("elsewhere");
        for d in [&deep, &in_nested, &behind, &outside] {
            std::fs::create_dir_all(d).unwrap();
        }
        let ceilings = vec![ceiling.clone()];
        let repos = Repos::new(&ceilings);
        let here = repos.get(&root).expect("the repository");
        for at in [
            &root, &deep, &in_nested, &nested, &behind, &outside, &ceiling,
        ] {
            assert_eq!(
                git_dir(repos.get(at)),
                git_dir(Repo::discover(at, &ceilings)),
                "{}",
                at.display()
            );
        }
        // Shared, not reopened.
        let again = repos.get(&deep).unwrap();
        assert!(std::rc::Rc::ptr_eq(&here.shared(), &again.shared()));
        assert!(repos.get(&outside).is_none());
    }
}
