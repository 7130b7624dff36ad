//! The work tree's paths that may have changed at or after a time (SPEC §14): what a capture
//! asks git's status about, so that git walks only the directories they are in.
//!
//! One read of each directory the index holds a file in, and one `fstatat` per name in it,
//! relative to the directory — split between two threads in a large work tree, as `git status`
//! stats files in parallel; new directories are read below, unless git ignores them. A path is
//! a candidate when its change time is not before the time, when it is in the index and gone,
//! or when it is no longer the kind of file the index says. What git's status then lists of
//! the candidates is exactly what it lists of the whole work tree with such a change time.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::fsx::{Boundary, ChangeTime, ChangeTimes, Kind};
use crate::git::Repo;

/// Files in the index from which the directories are read by two threads: below it a thread
/// costs more than it saves.
const TWO_THREADS_FROM: usize = 20_000;
/// Most candidates asked about by name: past it, git's status walks the whole work tree.
const MAX_CANDIDATES: usize = 10_000;

/// The paths of the work tree `work` (relative to it) that may have changed at or after
/// `since`, sorted; `None` when the work tree cannot be read this way (no index, a directory
/// that cannot be read) or there are more than [`MAX_CANDIDATES`]: then git's status walks it all.
pub fn candidates(repo: &Repo, work: &Path, since: ChangeTime) -> Option<Vec<String>> {
    crate::failpoint::log("work-tree-walk");
    let (files, modules) = repo.index_files()?;
    let tree = Tree::of(&files, &modules);
    let b = Boundary::new(work, "the work tree");
    let threads = if files.len() >= TWO_THREADS_FROM {
        2
    } else {
        1
    };
    let share = tree.dirs.len().div_ceil(threads).max(1);
    let found: Vec<Option<Found>> = std::thread::scope(|scope| {
        let mut shares = tree.dirs.chunks(share);
        let first = shares.next().unwrap_or_default();
        let others: Vec<_> = shares
            .map(|dirs| scope.spawn(|| tree.read(&b, dirs, since)))
            .collect();
        let mut found = vec![tree.read(&b, first, since)];
        found.extend(others.into_iter().map(|t| t.join().ok().flatten()));
        found
    });
    let mut candidates = Vec::new();
    let mut new_dirs = Vec::new();
    for f in found {
        let f = f?;
        candidates.extend(f.candidates);
        new_dirs.extend(f.new_dirs);
    }
    // Directories the index holds nothing of: read below unless ignored (one thread: git's
    // ignore rules are read through the one repository handle).
    let times = ChangeTimes::new(&b);
    while let Some(dir) = new_dirs.pop() {
        if candidates.len() > MAX_CANDIDATES {
            return None;
        }
        if repo.is_ignored(Path::new(&format!("{dir}/"))) {
            continue;
        }
        let entries = times.list(&dir)?;
        // Another repository inside (not a submodule): git lists it, not what is in it.
        if entries.iter().any(|e| e.name == ".git") {
            candidates.push(dir);
            continue;
        }
        for e in entries {
            let Some(name) = e.name.to_str() else {
                continue;
            };
            let path = format!("{dir}/{name}");
            if e.kind == Kind::Dir {
                new_dirs.push(path);
            } else if e.time.is_some_and(|t| t >= since) {
                candidates.push(path);
            }
        }
    }
    if candidates.len() > MAX_CANDIDATES {
        return None;
    }
    candidates.sort();
    Some(candidates)
}

/// The work tree as the index holds it.
pub(super) struct Tree<'a> {
    /// Every directory a file is in, with those above it (`""` the top), sorted.
    pub(super) dirs: Vec<&'a str>,
    /// The same, to look up.
    is_dir: HashSet<&'a str>,
    /// The names of the index's files in each directory.
    files: HashMap<&'a str, HashSet<&'a str>>,
    modules: HashSet<&'a str>,
}

/// What reading some directories found.
pub(super) struct Found {
    pub(super) candidates: Vec<String>,
    /// Directories the index holds nothing of.
    new_dirs: Vec<String>,
}

impl<'a> Tree<'a> {
    pub(super) fn of(files: &'a [String], modules: &'a [String]) -> Self {
        let mut tree = Tree {
            dirs: vec![""],
            is_dir: HashSet::from([""]),
            files: HashMap::new(),
            modules: modules.iter().map(String::as_str).collect(),
        };
        for path in files {
            let (dir, name) = split(path);
            tree.files.entry(dir).or_default().insert(name);
            let mut d = dir;
            while tree.is_dir.insert(d) {
                tree.dirs.push(d);
                d = split(d).0;
            }
        }
        tree.dirs.sort_unstable();
        tree
    }

    /// Reads `dirs`; `None` when the top cannot be read.
    pub(super) fn read(&self, b: &Boundary, dirs: &[&str], since: ChangeTime) -> Option<Found> {
        let times = ChangeTimes::new(b);
        let mut found = Found {
            candidates: Vec::new(),
            new_dirs: Vec::new(),
        };
        let none = HashSet::new();
        for &dir in dirs {
            let files = self.files.get(dir).unwrap_or(&none);
            let join = |name: &str| {
                if dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{dir}/{name}")
                }
            };
            let Some(entries) = times.list(dir) else {
                // Gone, or no longer a directory: every file the index holds there is a
                // candidate (git's status decides).
                if dir.is_empty() {
                    return None;
                }
                found.candidates.extend(files.iter().map(|name| join(name)));
                continue;
            };
            let mut present = Vec::new();
            for e in entries {
                let Some(name) = e.name.to_str() else {
                    continue;
                };
                if name == ".git" {
                    continue;
                }
                let late = e.time.is_none_or(|t| t >= since);
                if let Some(&name) = files.get(name) {
                    present.push(name);
                    if late || e.kind == Kind::Dir {
                        found.candidates.push(join(name));
                    }
                    continue;
                }
                let path = join(name);
                if self.is_dir.contains(path.as_str()) {
                    // Read on its own; no longer a directory: a candidate, and all in it.
                    if e.kind != Kind::Dir {
                        found.candidates.push(path);
                    }
                } else if self.modules.contains(path.as_str()) {
                    // A submodule: never looked into.
                } else if e.kind == Kind::Dir {
                    found.new_dirs.push(path);
                } else if late {
                    found.candidates.push(path);
                }
            }
            if present.len() < files.len() {
                // Files the index holds that are gone.
                let present: HashSet<&str> = present.into_iter().collect();
                found.candidates.extend(
                    files
                        .iter()
                        .filter(|name| !present.contains(*name))
                        .map(|name| join(name)),
                );
            }
        }
        Some(found)
    }
}

/// A `/`-separated path's directory (`""` the top) and name.
fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}
