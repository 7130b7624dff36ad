//! History: branch tips, how far a branch moved since a save (SPEC §4.5), commits since a
//! recorded head — every walk capped.

use std::collections::{BinaryHeap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use git2::{BranchType, Oid};

use super::Repo;

/// Most commits one divergence count will walk (SPEC §4.5).
pub const WALK_CAP: usize = 100_000;
/// Most commits the SessionStart hook walks for `commits_since` (SPEC §9): it runs at every
/// session start, in any repository.
pub const HOOK_WALK_CAP: usize = 10_000;

/// Commits counted on a branch since a checkpoint or state was saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Divergence {
    pub commits: usize,
    pub basis: Basis,
    /// `None` when megg cannot know: no head was recorded (the branch may never have existed
    /// here), the branch exists only as a remote-tracking branch, or the clone is shallow.
    pub branch_exists: Option<bool>,
    /// The recorded head is no longer an ancestor of the branch tip; `None` when megg cannot
    /// know (the recorded commit is not in this clone, the clone is shallow, or the ancestry
    /// check hit its walk limit) — never a wrong "rewritten".
    pub rewritten: Option<bool>,
    /// The walk stopped at its limit (or a shallow clone's edge); `commits` is a lower bound.
    pub capped: bool,
}

/// Commits made since a recorded head (`Repo::commits_since`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commits {
    /// The newest ones: (short id, summary).
    pub shown: Vec<(String, String)>,
    pub count: usize,
    /// The walk stopped at its limit: `count` is a lower bound.
    pub capped: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    Head,
    Time,
}

impl Repo {
    /// The tip commit of local branch `name`.
    pub fn branch_tip(&self, name: &str) -> Option<String> {
        self.tip_oid(name).map(|o| o.to_string())
    }

    fn tip_oid(&self, name: &str) -> Option<Oid> {
        let branch = self.repo.find_branch(name, BranchType::Local).ok()?;
        branch.get().peel_to_commit().ok().map(|c| c.id())
    }

    /// How far `branch` moved since a save that recorded `head` (exact) at time `since`
    /// (fallback), walking at most `cap` commits. `None` when the branch name is empty.
    pub fn divergence(
        &self,
        branch: &str,
        head: Option<&str>,
        since: DateTime<Utc>,
        cap: usize,
    ) -> Option<Divergence> {
        if branch.is_empty() {
            return None;
        }
        let shallow = self.repo.is_shallow();
        let Some(tip) = self.tip_oid(branch) else {
            let remote_only =
                self.repo
                    .branches(Some(BranchType::Remote))
                    .ok()
                    .into_iter()
                    .flatten()
                    .filter_map(Result::ok)
                    .any(|(b, _)| {
                        b.name().ok().flatten().is_some_and(|n| {
                            n.split_once('/').is_some_and(|(_, rest)| rest == branch)
                        })
                    });
            let known_gone = head.is_some() && !shallow && !remote_only;
            return Some(Divergence {
                commits: 0,
                basis: if head.is_some() {
                    Basis::Head
                } else {
                    Basis::Time
                },
                branch_exists: if known_gone { Some(false) } else { None },
                rewritten: Some(false),
                capped: false,
            });
        };
        let mut rewritten = Some(false);
        if let Some(saved) = head.and_then(|h| Oid::from_str(h).ok()) {
            match self.reaches(tip, saved, cap) {
                Reach::Yes => {
                    let (commits, capped) = self.count_range(tip, saved, cap);
                    return Some(Divergence {
                        commits,
                        basis: Basis::Head,
                        branch_exists: Some(true),
                        rewritten: Some(false),
                        capped,
                    });
                }
                Reach::No if !shallow => rewritten = Some(true),
                // Not found within the limit, the commit is missing, or the history is cut
                // (shallow): megg cannot tell.
                Reach::No | Reach::Unknown => rewritten = None,
            }
        }
        let (commits, capped) = self.count_since(tip, since, cap);
        Some(Divergence {
            commits,
            basis: Basis::Time,
            branch_exists: Some(true),
            rewritten,
            // When the recorded head could not be placed, the time-based count is only a lower
            // bound of what happened since.
            capped: capped || shallow || rewritten.is_none(),
        })
    }

    /// Whether `target` is reachable from `tip`, looking at no more than `cap` commits (git2's
    /// `graph_descendant_of` has no limit and walks a 300k-commit history to say "no").
    fn reaches(&self, tip: Oid, target: Oid, cap: usize) -> Reach {
        if tip == target {
            return Reach::Yes;
        }
        if self.repo.find_commit(target).is_err() {
            return Reach::Unknown;
        }
        let Ok(mut walk) = self.repo.revwalk() else {
            return Reach::Unknown;
        };
        if walk.push(tip).is_err() {
            return Reach::Unknown;
        }
        let mut seen = 0;
        for oid in walk {
            let Ok(oid) = oid else {
                return Reach::Unknown;
            };
            if oid == target {
                return Reach::Yes;
            }
            seen += 1;
            if seen >= cap {
                return Reach::Unknown;
            }
        }
        Reach::No
    }

    /// The commits on HEAD since `from` (`from..HEAD`), newest first: the first `show` as
    /// (short id, summary), and how many there are, at most `cap` (`true` when capped).
    /// `None` when `from` is not a commit here or HEAD has none.
    pub fn commits_since(&self, from: &str, show: usize, cap: usize) -> Option<Commits> {
        let from = Oid::from_str(from).ok()?;
        self.repo.find_commit(from).ok()?;
        let head = self.repo.head().ok()?.peel_to_commit().ok()?.id();
        let mut walk = self.repo.revwalk().ok()?;
        walk.push(head).ok()?;
        walk.hide(from).ok()?;
        let mut shown = Vec::new();
        let mut count = 0;
        for oid in walk.filter_map(Result::ok) {
            if count == cap {
                return Some(Commits {
                    shown,
                    count,
                    capped: true,
                });
            }
            count += 1;
            if shown.len() < show
                && let Ok(c) = self.repo.find_commit(oid)
            {
                let id = oid.to_string();
                shown.push((
                    id.get(..7).unwrap_or(&id).to_string(),
                    c.summary().ok().flatten().unwrap_or("").to_string(),
                ));
            }
        }
        Some(Commits {
            shown,
            count,
            capped: false,
        })
    }

    /// Commits in `hide..tip`, at most `cap`.
    fn count_range(&self, tip: Oid, hide: Oid, cap: usize) -> (usize, bool) {
        let Ok(mut walk) = self.repo.revwalk() else {
            return (0, false);
        };
        if walk.push(tip).is_err() || walk.hide(hide).is_err() {
            return (0, false);
        }
        count_capped(walk.filter_map(Result::ok), cap)
    }

    /// Commits reachable from `tip` whose committer time is after `since` (what
    /// `git log --since` counts), at most [`WALK_CAP`]. Newest first through a heap, so the
    /// walk ends at the first commit that is not newer: work is proportional to the answer,
    /// not to the history (libgit2's time-sorted revwalk prepares the whole history first).
    fn count_since(&self, tip: Oid, since: DateTime<Utc>, cap: usize) -> (usize, bool) {
        let since = since.timestamp();
        let time_of = |oid: Oid| {
            self.repo.find_commit(oid).ok().map(|c| {
                let time = c.committer().when().seconds();
                (time, c)
            })
        };
        let mut heap = BinaryHeap::new();
        let mut seen = HashSet::new();
        let mut commits = HashMap::new();
        if let Some((t, c)) = time_of(tip) {
            heap.push((t, tip));
            commits.insert(tip, c);
            seen.insert(tip);
        }
        let mut count = 0;
        while let Some((time, oid)) = heap.pop() {
            if time <= since {
                break;
            }
            count += 1;
            if count > cap {
                return (cap, true);
            }
            let Some(commit) = commits.remove(&oid) else {
                continue;
            };
            for parent in commit.parent_ids() {
                if seen.insert(parent)
                    && let Some((t, c)) = time_of(parent)
                {
                    heap.push((t, parent));
                    commits.insert(parent, c);
                }
            }
        }
        (count, false)
    }
}

/// Whether one commit reaches another, within a walk limit.
enum Reach {
    Yes,
    No,
    Unknown,
}

pub(super) fn count_capped<T>(items: impl Iterator<Item = T>, cap: usize) -> (usize, bool) {
    let n = items.take(cap + 1).count();
    if n > cap { (cap, true) } else { (n, false) }
}

impl Repo {
    /// The paths the last `commits` commits on HEAD changed (first parents; at most `max`,
    /// newest first): what the session's branch has been about. Bounded whatever the commits
    /// hold (SPEC §14): the trees are compared level by level, a subtree both sides share
    /// skipped unread, and at most [`TREE_ENTRIES`] entries looked at across all of them — a
    /// commit that added 100,000 files costs what one of a few files does, and names the first
    /// of them.
    pub fn recent_paths(&self, commits: usize, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let Ok(head) = self.repo.head().and_then(|h| h.peel_to_commit()) else {
            return out;
        };
        let mut budget = TREE_ENTRIES;
        let mut commit = Some(head);
        for _ in 0..commits {
            let Some(c) = commit.take() else { break };
            // A root commit's "changes" are the whole tree: nothing a session is about.
            let Ok(parent) = c.parent(0) else { break };
            let (Ok(tree), Ok(parent_tree)) = (c.tree(), parent.tree()) else {
                break;
            };
            let mut walk = TreeWalk {
                repo: &self.repo,
                out: &mut out,
                max,
                budget: &mut budget,
            };
            walk.changed(Some(&parent_tree), &tree, "");
            if out.len() >= max || budget == 0 {
                break;
            }
            commit = Some(parent);
        }
        out
    }
}

/// Most tree entries [`Repo::recent_paths`] looks at, over all the commits it compares.
pub const TREE_ENTRIES: usize = 4_096;
/// Deepest directory [`TreeWalk`] goes into.
const MAX_TREE_DEPTH: usize = 64;

/// Two trees compared level by level, within a budget of entries.
struct TreeWalk<'r, 'o> {
    repo: &'r git2::Repository,
    out: &'o mut Vec<String>,
    max: usize,
    budget: &'o mut usize,
}

impl TreeWalk<'_, '_> {
    /// Appends to `out` the paths (under `prefix`) of the files `new` has that `old` has not,
    /// or has otherwise; a file only `old` has (deleted) is not named.
    fn changed(&mut self, old: Option<&git2::Tree<'_>>, new: &git2::Tree<'_>, prefix: &str) {
        // A path nested deeper than any work tree has is a hostile repository's: not followed,
        // so the walk's stack stays small on every thread it runs on.
        if prefix.matches('/').count() >= MAX_TREE_DEPTH {
            return;
        }
        for entry in new.iter() {
            if self.out.len() >= self.max || *self.budget == 0 {
                return;
            }
            *self.budget -= 1;
            let Ok(name) = std::str::from_utf8(entry.name_bytes()) else {
                continue;
            };
            let before = old.and_then(|o| o.get_name(name));
            if before.as_ref().is_some_and(|b| b.id() == entry.id()) {
                continue;
            }
            let path = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}/{name}")
            };
            if entry.kind() == Some(git2::ObjectType::Tree) {
                let Ok(sub) = self.repo.find_tree(entry.id()) else {
                    continue;
                };
                let old_sub = before
                    .filter(|b| b.kind() == Some(git2::ObjectType::Tree))
                    .and_then(|b| self.repo.find_tree(b.id()).ok());
                self.changed(old_sub.as_ref(), &sub, &path);
            } else if !self.out.contains(&path) {
                self.out.push(path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 38 item 10: the paths of the last commits came from whole-tree diffs — a commit of
    /// 5,000 files was read whole at every session start. At most TREE_ENTRIES are looked at.
    #[test]
    fn recent_paths_look_at_a_bounded_part_of_a_huge_commit() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(tmp.path()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let empty = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let root = repo
            .commit(Some("HEAD"), &sig, &sig, "root", &empty, &[])
            .unwrap();
        let mut top = repo.treebuilder(None).unwrap();
        for d in 0..50 {
            let mut sub = repo.treebuilder(None).unwrap();
            for f in 0..100 {
                let blob = repo.blob(format!("{d} {f}").as_bytes()).unwrap();
                sub.insert(format!("f{f}.rs"), blob, 0o100644).unwrap();
            }
            top.insert(format!("d{d:02}"), sub.write().unwrap(), 0o040000)
                .unwrap();
        }
        let tree = repo.find_tree(top.write().unwrap()).unwrap();
        let parent = repo.find_commit(root).unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "big", &tree, &[&parent])
            .unwrap();
        let r = Repo::discover(tmp.path(), &[]).unwrap();
        assert_eq!(
            r.recent_paths(3, 50).first().map(String::as_str),
            Some("d00/f0.rs")
        );
        let all = r.recent_paths(3, usize::MAX);
        assert!(
            all.len() < TREE_ENTRIES && all.len() > 3_000,
            "{}",
            all.len()
        );
    }
}
