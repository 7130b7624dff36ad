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
    /// newest first): what the session's branch has been about.
    pub fn recent_paths(&self, commits: usize, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        let Ok(head) = self.repo.head().and_then(|h| h.peel_to_commit()) else {
            return out;
        };
        let mut commit = Some(head);
        for _ in 0..commits {
            let Some(c) = commit.take() else { break };
            // A root commit's "changes" are the whole tree: nothing a session is about.
            let Ok(parent) = c.parent(0) else { break };
            let (Ok(tree), Ok(parent_tree)) = (c.tree(), parent.tree()) else {
                break;
            };
            if let Ok(diff) = self
                .repo
                .diff_tree_to_tree(Some(&parent_tree), Some(&tree), None)
            {
                for delta in diff.deltas() {
                    if let Some(p) = delta.new_file().path().and_then(|p| p.to_str())
                        && !out.iter().any(|o| o == p)
                    {
                        out.push(p.to_string());
                        if out.len() >= max {
                            return out;
                        }
                    }
                }
            }
            commit = Some(parent);
        }
        out
    }
}
