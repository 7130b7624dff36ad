//! The work tree and the index: what is tracked and changed, unmerged paths and their
//! stages, marking a path resolved.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use git2::Oid;

use super::Repo;
use crate::fsx::ChangeTime;

impl Repo {
    /// Whether `rel` is in the index (tracked): an ignore rule does not untrack a file git
    /// already tracks. Unknown (no index) counts as tracked.
    pub fn is_tracked(&self, rel: &Path) -> bool {
        match self.repo.index() {
            Ok(index) => index.get_path(rel, 0).is_some(),
            Err(_) => true,
        }
    }

    /// The work tree's changed paths, relative to it, in git's order — modified, deleted,
    /// renamed, untracked, and with `staged`, what the index holds that HEAD does not; never
    /// ignored ones, nor submodules. As many as git lists: one walk of the work tree, as
    /// `git status` makes. Without `staged` HEAD's trees are not compared with the index (a
    /// seventh of the cost in a 100,000-file repository): a caller that knows the index was
    /// not written since a time it cares about has nothing to find there.
    pub fn changed_paths(&self, staged: bool) -> Vec<Changed> {
        crate::failpoint::log("work-tree-walk");
        self.status(staged)
    }

    /// [`Repo::changed_paths`] with what is staged, for the note of the work tree at a
    /// session's start, taken in the background (SPEC §14) — apart from a capture's walk.
    pub fn changed_paths_at_start(&self) -> Vec<Changed> {
        crate::failpoint::log("snapshot-walk");
        self.status(true)
    }

    /// The paths among `paths` (literal, relative to the work tree; a directory stands for
    /// everything in it) that differ between the work tree and the index, or are new and not
    /// ignored — [`Repo::changed_paths`] without `staged`, for those paths only: git walks no
    /// directory none of them is in. Nothing for no paths.
    pub fn changed_among(&self, paths: &[String]) -> Vec<Changed> {
        if paths.is_empty() {
            return Vec::new();
        }
        self.status_of(false, paths)
    }

    /// The work tree's files as the index holds them (each once, in its order) and its
    /// submodules' directories; `None` without an index.
    pub fn index_files(&self) -> Option<(Vec<String>, Vec<String>)> {
        let index = self.repo.index().ok()?;
        let (mut files, mut modules) = (Vec::new(), Vec::new());
        for e in index.iter() {
            let submodule = e.mode == GITLINK;
            let Ok(path) = String::from_utf8(e.path) else {
                continue;
            };
            let list = if submodule { &mut modules } else { &mut files };
            // The stages of a conflict come together.
            if list.last() != Some(&path) {
                list.push(path);
            }
        }
        Some((files, modules))
    }

    fn status(&self, staged: bool) -> Vec<Changed> {
        self.status_of(staged, &[])
    }

    fn status_of(&self, staged: bool, paths: &[String]) -> Vec<Changed> {
        let mut opts = git2::StatusOptions::new();
        if !staged {
            opts.show(git2::StatusShow::Workdir);
        }
        if !paths.is_empty() {
            opts.disable_pathspec_match(true);
            for p in paths {
                opts.pathspec(p);
            }
        }
        opts.include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(false)
            .exclude_submodules(true);
        let Ok(statuses) = self.repo.statuses(Some(&mut opts)) else {
            return Vec::new();
        };
        statuses
            .iter()
            .filter(|e| !e.status().is_empty() && !e.status().is_ignored())
            .filter_map(|e| {
                let new = e
                    .status()
                    .intersects(git2::Status::WT_NEW | git2::Status::INDEX_NEW);
                Some(Changed {
                    path: e.path().ok()?.to_string(),
                    tracked: !new,
                })
            })
            .collect()
    }
}

impl Repo {
    /// What the index holds that HEAD does not, found without comparing all of HEAD with the
    /// index (SPEC §14): among the index's entries staged at or after `since` (an entry keeps
    /// the change time its file had when it was staged) or in a directory that `changed`
    /// (relative to the work tree, `""` its top) says changed at or after it (a `git mv` keeps
    /// the entry's time but adds a name to its directory), those that differ from HEAD; and
    /// HEAD's files the index no longer has in those directories (removing a file changes its
    /// directory). Beside a walk of the work tree against the index, that is every path a
    /// status with HEAD lists that a session could have changed since `since`; the entries in
    /// index order, then the removed files.
    pub fn staged_since(
        &self,
        since: ChangeTime,
        mut changed: impl FnMut(&Path) -> bool,
    ) -> Vec<Changed> {
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        // Every directory that holds an index entry, with those above it ("" the top): the
        // entries of one directory come together.
        let mut dirs: BTreeSet<Vec<u8>> = BTreeSet::from([Vec::new()]);
        let mut last: Option<Vec<u8>> = None;
        let entries: Vec<git2::IndexEntry> = index
            .iter()
            .inspect(|e| {
                let dir = parent(&e.path);
                if last.as_deref() == Some(dir) {
                    return;
                }
                last = Some(dir.to_vec());
                let mut d = dir;
                while !dirs.contains(d) {
                    dirs.insert(d.to_vec());
                    d = parent(d);
                }
            })
            .collect();
        let changed_dirs: HashSet<&[u8]> = dirs
            .iter()
            .filter(|d| std::str::from_utf8(d).is_ok_and(|d| changed(Path::new(d))))
            .map(Vec::as_slice)
            .collect();
        let head = self.repo.head().ok().and_then(|h| h.peel_to_tree().ok());
        let mut out = Vec::new();
        for e in entries {
            let staged = ChangeTime::recorded(e.ctime.seconds() as u32, e.ctime.nanoseconds());
            let in_changed = || changed_dirs.contains(parent(&e.path));
            if e.mode == GITLINK || (staged < since && (changed_dirs.is_empty() || !in_changed())) {
                continue;
            }
            let Ok(path) = String::from_utf8(e.path) else {
                continue;
            };
            let was = head
                .as_ref()
                .and_then(|tree| tree.get_path(Path::new(&path)).ok())
                .map(|entry| entry.id());
            if was != Some(e.id) {
                out.push(Changed {
                    path,
                    tracked: was.is_some(),
                });
            }
        }
        let Some(head) = head else {
            return out;
        };
        for dir in changed_dirs {
            let Ok(rel) = std::str::from_utf8(dir) else {
                continue;
            };
            let tree = if rel.is_empty() {
                Some(head.clone())
            } else {
                head.get_path(Path::new(rel))
                    .ok()
                    .and_then(|e| self.repo.find_tree(e.id()).ok())
            };
            if let Some(tree) = tree {
                self.removed_from(&index, &dirs, &tree, rel, &mut out);
            }
        }
        out
    }

    /// HEAD's files in `tree` (the directory `dir`) that the index no longer has: each file
    /// it lacks, and every file below a directory it holds nothing of.
    fn removed_from(
        &self,
        index: &git2::Index,
        dirs: &BTreeSet<Vec<u8>>,
        tree: &git2::Tree<'_>,
        dir: &str,
        out: &mut Vec<Changed>,
    ) {
        let join = |name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        for entry in tree.iter() {
            let Ok(name) = entry.name() else { continue };
            let path = join(name);
            match entry.kind() {
                Some(git2::ObjectType::Blob) => {
                    let kept =
                        (0..=3).any(|stage| index.get_path(Path::new(&path), stage).is_some());
                    if !kept {
                        out.push(Changed {
                            path,
                            tracked: true,
                        });
                    }
                }
                Some(git2::ObjectType::Tree) if !dirs.contains(path.as_bytes()) => {
                    let Ok(sub) = self.repo.find_tree(entry.id()) else {
                        continue;
                    };
                    let _ = sub.walk(git2::TreeWalkMode::PreOrder, |parent, e| {
                        if e.kind() == Some(git2::ObjectType::Blob)
                            && let Ok(name) = e.name()
                        {
                            out.push(Changed {
                                path: format!("{path}/{parent}{name}"),
                                tracked: true,
                            });
                        }
                        git2::TreeWalkResult::Ok
                    });
                }
                _ => {}
            }
        }
    }
}

/// The directory a `/`-separated path is in (`""` the top).
fn parent(path: &[u8]) -> &[u8] {
    path.iter()
        .rposition(|&c| c == b'/')
        .and_then(|slash| path.get(..slash))
        .unwrap_or_default()
}

/// An index entry's mode for a submodule (a commit, not a file).
const GITLINK: u32 = 0o160_000;

/// A path `git status` lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Relative to the work tree, `/`-separated.
    pub path: String,
    /// Whether HEAD has it (modified or deleted), not new.
    pub tracked: bool,
}

/// An unmerged path in the index (a merge, rebase or cherry-pick stopped on it): the
/// contents of its stages, each `None` when the stage is absent (no common ancestor, or
/// deleted on that side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmerged {
    /// Relative to the work tree's top, `/`-separated as git stores it.
    pub path: String,
    pub base: Option<Stage>,
    pub ours: Option<Stage>,
    pub theirs: Option<Stage>,
}

/// One stage's blob, read only when it is within the caller's bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    Blob(Vec<u8>),
    /// Over the bound: its size, never read.
    TooLarge(u64),
}

impl Repo {
    /// Every unmerged path whose name satisfies `wanted`, with its stages' contents (each at
    /// most `max_bytes`). An unreadable index is no conflict.
    pub fn unmerged(&self, wanted: impl Fn(&str) -> bool, max_bytes: u64) -> Vec<Unmerged> {
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        let Ok(conflicts) = index.conflicts() else {
            return Vec::new();
        };
        let stage = |entry: Option<git2::IndexEntry>| self.stage_blob(&entry?, max_bytes);
        conflicts
            .filter_map(Result::ok)
            .filter_map(|c| {
                let any = c
                    .our
                    .as_ref()
                    .or(c.their.as_ref())
                    .or(c.ancestor.as_ref())?;
                let path = String::from_utf8_lossy(&any.path).into_owned();
                wanted(&path).then(|| Unmerged {
                    path,
                    base: stage(c.ancestor),
                    ours: stage(c.our),
                    theirs: stage(c.their),
                })
            })
            .collect()
    }

    /// Whether a merge, rebase, cherry-pick or revert is under way (and may have left paths
    /// unmerged).
    pub fn is_operation_in_progress(&self) -> bool {
        self.repo.state() != git2::RepositoryState::Clean
    }

    /// A stage's content; over `max_bytes` only its size, read from the object's header
    /// without inflating it.
    fn stage_blob(&self, entry: &git2::IndexEntry, max_bytes: u64) -> Option<Stage> {
        let (size, _) = self.repo.odb().ok()?.read_header(entry.id).ok()?;
        let size = size as u64;
        if size > max_bytes {
            return Some(Stage::TooLarge(size));
        }
        let blob = self.repo.find_blob(entry.id).ok()?;
        Some(Stage::Blob(blob.content().to_vec()))
    }

    /// OURS' version (stage 2) of an unmerged `rel`; `None` when `rel` is not unmerged or has
    /// no stage 2.
    pub fn ours_stage(&self, rel: &Path, max_bytes: u64) -> Option<Stage> {
        let index = self.repo.index().ok()?;
        self.stage_blob(&index.get_path(rel, 2)?, max_bytes)
    }

    /// Whether `rel` (relative to the work tree) is unmerged in the index.
    pub fn is_unmerged(&self, rel: &Path) -> bool {
        self.repo.index().is_ok_and(|index| {
            index.get_path(rel, 1).is_some()
                || index.get_path(rel, 2).is_some()
                || index.get_path(rel, 3).is_some()
        })
    }

    /// Stages `bytes` as the resolved `path` (`/`-separated, as git stores it): its conflict
    /// stages give way to a regular file of exactly those bytes. Staged from the buffer, so
    /// git never reads the work tree (megg wrote it through the file gate).
    pub fn mark_resolved(&self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let msg = |e: git2::Error| e.message().to_string();
        let mut index = self.repo.index().map_err(msg)?;
        let entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: 0o100_644,
            uid: 0,
            gid: 0,
            file_size: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
            id: Oid::ZERO_SHA1,
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        };
        index.add_frombuffer(&entry, bytes).map_err(msg)?;
        // Older libgit2 keeps the conflict beside the new entry; none may stay.
        let _ = index.conflict_remove(Path::new(path));
        index.write().map_err(msg)
    }
}

impl Repo {
    /// The paths in the index (any stage, each once) that `keep` accepts, `/`-separated.
    pub fn index_paths(&self, keep: impl Fn(&str) -> bool) -> Vec<String> {
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        let mut paths: Vec<String> = index
            .iter()
            .filter_map(|e| String::from_utf8(e.path).ok())
            .filter(|p| keep(p))
            .collect();
        paths.dedup();
        paths
    }
}
