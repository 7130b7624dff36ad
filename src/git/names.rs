//! Which path a bare file name names (SPEC §17: `pool.ts` as people write it): the name itself
//! from the top of the work tree, or from the entry's domain, when HEAD has it; else the one
//! path of HEAD's tree with that file name; else the one path of the history (the commits
//! walked from HEAD) that had it. A name several paths have names none of them.

use std::collections::{HashMap, HashSet};

use git2::{Commit, Oid, TreeWalkMode, TreeWalkResult};

use super::Repo;

/// A bare name written in an entry of the domain `domain` (from the top of the work tree; `""`
/// at the top).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NameAsk {
    pub name: String,
    pub domain: String,
}

/// What a bare name names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Named {
    /// The one path it names, from the top of the work tree.
    pub path: Option<String>,
    /// Several paths have that name: it names none.
    pub several: bool,
    /// The history was looked through only to the cap, and did not settle it.
    pub capped: bool,
    /// When it names several: two of them, to show.
    pub candidates: Vec<String>,
}

/// Paths kept per name: two are enough to know it names several.
const ENOUGH: usize = 2;

impl Repo {
    /// What each of `asks` names at the commit `head` (and in its history, at most `cap`
    /// commits walked, for the names HEAD has no path of).
    pub fn paths_named(&self, head: &str, asks: &[NameAsk], cap: usize) -> Vec<Named> {
        crate::failpoint::log("citations-names");
        let Some(head) = Oid::from_str(head)
            .ok()
            .and_then(|o| self.repo.find_commit(o).ok())
        else {
            return vec![Named::default(); asks.len()];
        };
        let Ok(tree) = head.tree() else {
            return vec![Named::default(); asks.len()];
        };
        let has = |p: &str| tree.get_path(std::path::Path::new(p)).is_ok();
        let direct: Vec<Option<String>> = asks
            .iter()
            .map(|a| {
                if has(&a.name) {
                    return Some(a.name.clone());
                }
                let local = format!("{}/{}", a.domain, a.name);
                (!a.domain.is_empty() && has(&local)).then_some(local)
            })
            .collect();
        let wanted: HashSet<&str> = asks
            .iter()
            .zip(&direct)
            .filter(|(_, d)| d.is_none())
            .map(|(a, _)| a.name.as_str())
            .collect();
        let mut found: HashMap<String, Vec<String>> = HashMap::new();
        if !wanted.is_empty() {
            let _ = tree.walk(TreeWalkMode::PreOrder, |root, entry| {
                if let Ok(name) = entry.name()
                    && wanted.contains(name)
                {
                    let list = found.entry(name.to_string()).or_default();
                    if list.len() < ENOUGH {
                        list.push(format!("{root}{name}"));
                    }
                }
                TreeWalkResult::Ok
            });
        }
        let missing: HashSet<&str> = wanted
            .iter()
            .copied()
            .filter(|n| !found.contains_key(*n))
            .collect();
        let capped = !missing.is_empty() && self.names_in_history(&head, &missing, cap, &mut found);
        asks.iter()
            .zip(direct)
            .map(|(a, d)| {
                if d.is_some() {
                    return Named {
                        path: d,
                        ..Named::default()
                    };
                }
                let list = found.get(&a.name).map_or(&[][..], Vec::as_slice);
                Named {
                    path: match list {
                        [one] => Some(one.clone()),
                        _ => None,
                    },
                    several: list.len() >= ENOUGH,
                    capped: capped && missing.contains(a.name.as_str()) && list.len() < ENOUGH,
                    candidates: if list.len() >= ENOUGH {
                        list.to_vec()
                    } else {
                        Vec::new()
                    },
                }
            })
            .collect()
    }

    /// Adds to `found` the paths whose file name is one of `names` that the commits from
    /// `head` changed, at most `cap` commits walked; whether it stopped before the history's
    /// start without settling every name.
    fn names_in_history(
        &self,
        head: &Commit<'_>,
        names: &HashSet<&str>,
        cap: usize,
        found: &mut HashMap<String, Vec<String>>,
    ) -> bool {
        let Ok(mut walk) = self.repo.revwalk() else {
            return true;
        };
        if walk.push(head.id()).is_err() {
            return true;
        }
        for (n, oid) in walk.enumerate() {
            let settled = |found: &HashMap<String, Vec<String>>| {
                names
                    .iter()
                    .all(|name| found.get(*name).is_some_and(|l| l.len() >= ENOUGH))
            };
            if settled(found) {
                return false;
            }
            if n >= cap {
                return true;
            }
            let Ok(commit) = oid.and_then(|o| self.repo.find_commit(o)) else {
                return true;
            };
            if commit.parent_count() > 1 {
                continue;
            }
            for path in self.paths_changed_by(&commit) {
                let name = path.rsplit('/').next().unwrap_or(&path);
                if names.contains(name) {
                    let list = found.entry(name.to_string()).or_default();
                    if list.len() < ENOUGH && !list.contains(&path) {
                        list.push(path);
                    }
                }
            }
        }
        // A shallow clone's history is cut: what is beyond is not known.
        self.is_shallow()
    }

    /// The paths `commit` changed from its first parent (from nothing for a first commit), by
    /// their old and new names.
    fn paths_changed_by(&self, commit: &Commit<'_>) -> Vec<String> {
        let Ok(tree) = commit.tree() else {
            return Vec::new();
        };
        let parent = commit.parent(0).ok().and_then(|p| p.tree().ok());
        let Ok(diff) = self
            .repo
            .diff_tree_to_tree(parent.as_ref(), Some(&tree), None)
        else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for d in diff.deltas() {
            for p in [d.old_file().path(), d.new_file().path()]
                .into_iter()
                .flatten()
            {
                if let Some(p) = p.to_str()
                    && !out.iter().any(|o| o == p)
                {
                    out.push(p.to_string());
                }
            }
        }
        out
    }

    /// For each of `names`, whether a commit made since `old` (reachable from `head`, not from
    /// `old`) changed a path of that file name. `None` when `old` is not an ancestor of `head`
    /// or the commits since are more than `cap`.
    pub fn names_touched_after(
        &self,
        names: &[&str],
        old: &str,
        head: &str,
        cap: usize,
    ) -> Option<Vec<bool>> {
        let old = Oid::from_str(old).ok()?;
        let head = Oid::from_str(head).ok()?;
        let mut out = vec![false; names.len()];
        if head == old {
            return Some(out);
        }
        let mut walk = self.repo.revwalk().ok()?;
        walk.push(head).ok()?;
        walk.hide(old).ok()?;
        let mut reaches_old = false;
        for (n, oid) in walk.enumerate() {
            if n >= cap {
                return None;
            }
            let commit = self.repo.find_commit(oid.ok()?).ok()?;
            reaches_old |= commit.parent_ids().any(|p| p == old);
            if commit.parent_count() > 1 {
                continue;
            }
            for path in self.paths_changed_by(&commit) {
                let file = path.rsplit('/').next().unwrap_or(&path);
                for (i, name) in names.iter().enumerate() {
                    if *name == file
                        && let Some(o) = out.get_mut(i)
                    {
                        *o = true;
                    }
                }
            }
        }
        reaches_old.then_some(out)
    }
}
