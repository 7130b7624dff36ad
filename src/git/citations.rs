//! What happened to some paths since some days (SPEC §17). The commits that count for a day
//! are those reachable from HEAD and not from the day's *base*: the last commit of HEAD's
//! first-parent chain made on or before that day (its end, UTC). A commit a merge brings in
//! counts whatever its own date; one made on the day, before the base, does not.
//!
//! One walk for all the paths, newest commit first, each commit painted with the oldest base
//! that reaches it; it ends when no commit left can count and every path not at HEAD has been
//! seen (or at a cap). Each commit is compared with its parent only along the paths asked about
//! (a subtree both sides share is never read); a merge, where it differs from every parent (a
//! resolution of its own). A path no longer at HEAD is followed through git's rename detection
//! ([`super::renames`]) and checked on at its new place.

use std::collections::HashMap;

use git2::{Commit, Oid};

use super::Repo;
use super::asks::{Ask, MAX_TOUCHES, PathHistory, Touch};
use super::walk::Node;

/// One day: a rename is looked for from the start of the entry's day on.
const DAY: i64 = 86_400;

/// Where a day ends on HEAD's first-parent chain.
#[derive(Debug, Clone, Copy)]
enum Base {
    /// This commit (the chain's last of the day or before, `steps` from HEAD): it and what it
    /// reaches do not count.
    At { oid: Oid, time: i64, steps: usize },
    /// The whole chain is after the day: every commit counts.
    Before,
    /// Not found within the cap, or a shallow clone's edge came first.
    Unknown,
}

impl Repo {
    /// The history of each of `asks` after its day, in their order; at most `cap` commits
    /// walked; the touching commits named only when `touches` (they cost a read each). Empty
    /// when HEAD has no commit.
    pub fn path_histories(&self, asks: &[Ask], cap: usize, touches: bool) -> Vec<PathHistory> {
        match self.head_commit() {
            Some(head) => self.path_histories_at(&head, asks, cap, touches),
            None => Vec::new(),
        }
    }

    pub(super) fn commit_of(&self, id: &str) -> Option<Commit<'_>> {
        Oid::from_str(id)
            .ok()
            .and_then(|o| self.repo.find_commit(o).ok())
    }

    /// [`Repo::path_histories`] from the commit `head` (what HEAD was when the caller looked:
    /// the answers are kept under it).
    pub fn path_histories_at(
        &self,
        head: &str,
        asks: &[Ask],
        cap: usize,
        touches: bool,
    ) -> Vec<PathHistory> {
        crate::failpoint::log("citations-walk");
        let Some(head) = self.commit_of(head) else {
            return Vec::new();
        };
        let Ok(head_tree) = head.tree() else {
            return Vec::new();
        };
        // Distinct paths, each compared once per commit whatever number of asks name it.
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut paths: Vec<&str> = Vec::new();
        let mut trie = Node::default();
        for a in asks {
            let path = a.path.trim_matches('/');
            if !ids.contains_key(path) {
                ids.insert(path, paths.len());
                trie.insert(path, paths.len());
                paths.push(path);
            }
        }
        let at_head: Vec<bool> = paths
            .iter()
            .map(|p| head_tree.get_path(std::path::Path::new(p)).is_ok())
            .collect();

        // Each day's base, and the distinct bases oldest first (their index is a level).
        let mut sinces: Vec<i64> = asks.iter().map(|a| a.since).collect();
        sinces.sort_unstable();
        sinces.dedup();
        let found = self.bases(&head, &sinces, cap);
        let mut bases: Vec<(usize, Oid, i64)> = found
            .iter()
            .filter_map(|b| match *b {
                Base::At { oid, time, steps } => Some((steps, oid, time)),
                _ => None,
            })
            .collect();
        bases.sort_by_key(|b| std::cmp::Reverse(b.0));
        bases.dedup_by_key(|b| b.1);
        // Per day: its base's level (`None`: every commit counts), and whether it is unknown.
        let day: HashMap<i64, (Option<usize>, bool)> = sinces
            .iter()
            .zip(&found)
            .map(|(&s, b)| {
                let level = match b {
                    Base::At { oid, .. } => bases.iter().position(|x| x.1 == *oid),
                    _ => None,
                };
                (s, (level, matches!(b, Base::Unknown)))
            })
            .collect();
        let floor = day
            .values()
            .map(|d| d.0)
            .try_fold(usize::MAX, |lo, l| l.map(|l| lo.min(l)));
        let bases: Vec<(Oid, i64)> = bases.iter().map(|b| (b.1, b.2)).collect();
        let unresolved: Vec<bool> = at_head.iter().map(|h| !h).collect();
        let walked = self.walk(&head, &bases, floor, &trie, unresolved, cap);

        let mut renamed: HashMap<(usize, i64), Option<(String, usize)>> = HashMap::new();
        let mut out: Vec<PathHistory> = Vec::with_capacity(asks.len());
        // (answer, new path, index of the commit that moved it there, base)
        let mut moved: Vec<(usize, String, usize, Option<usize>)> = Vec::new();
        for a in asks {
            let id = ids.get(a.path.trim_matches('/')).copied().unwrap_or(0);
            let here = at_head.get(id).copied().unwrap_or(false);
            let (base, unknown) = day.get(&a.since).copied().unwrap_or((None, true));
            let all = walked.touched(id);
            let counted: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&i| walked.counts(i, base))
                .collect();
            let existed = here || !all.is_empty();
            let new_path = if here || !existed {
                None
            } else {
                renamed
                    .entry((id, a.since))
                    .or_insert_with(|| {
                        // From the start of the entry's day on, and whatever counts.
                        let from: Vec<usize> = all
                            .iter()
                            .copied()
                            .filter(|&i| {
                                walked.counts(i, base)
                                    || walked
                                        .commits
                                        .get(i)
                                        .is_some_and(|c| c.1 >= a.since.saturating_sub(DAY))
                            })
                            .collect();
                        self.follow_renames(
                            paths.get(id).copied().unwrap_or(""),
                            &walked.commits,
                            &from,
                            &head_tree,
                        )
                    })
                    .clone()
            };
            if let Some((to, at)) = &new_path {
                moved.push((out.len(), to.clone(), *at, base));
            }
            out.push(PathHistory {
                at_head: here,
                existed,
                count: counted.len(),
                touches: if touches {
                    self.touches(&walked.commits, &counted)
                } else {
                    Vec::new()
                },
                new_path: new_path.map(|(p, _)| p),
                moved_count: 0,
                capped: unknown || walked.cut(base) || (!existed && walked.cut(None)),
            });
        }
        // A moved path checked on at its new place: the commits after the move that changed it.
        if !moved.is_empty() {
            let mut trie = Node::default();
            for (i, (_, to, _, _)) in moved.iter().enumerate() {
                trie.insert(to, i);
            }
            let upto = moved.iter().map(|m| m.2).max().unwrap_or(0);
            let after = self.touched_in(
                walked.commits.get(..upto).unwrap_or(&[]),
                &trie,
                moved.len(),
            );
            for (i, (o, _, at, base)) in moved.into_iter().enumerate() {
                let since_move: Vec<usize> = after
                    .get(i)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|&c| c < at && walked.counts(c, base))
                    .collect();
                if let Some(h) = out.get_mut(o) {
                    h.moved_count = since_move.len();
                    if touches && !since_move.is_empty() {
                        h.touches = self.touches(&walked.commits, &since_move);
                    }
                }
            }
        }
        out
    }

    /// Where each of `sinces` (distinct) ends on `head`'s first-parent chain: the first commit
    /// of the chain older than it. At most `cap` commits read.
    fn bases(&self, head: &Commit<'_>, sinces: &[i64], cap: usize) -> Vec<Base> {
        let mut order: Vec<usize> = (0..sinces.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sinces.get(i).copied().unwrap_or(0)));
        let mut out = vec![Base::Unknown; sinces.len()];
        let mut next = 0;
        let mut at = head.clone();
        let mut steps = 0;
        loop {
            let time = at.committer().when().seconds();
            while let Some(&i) = order.get(next)
                && sinces.get(i).is_some_and(|&s| s > time)
            {
                if let Some(b) = out.get_mut(i) {
                    *b = Base::At {
                        oid: at.id(),
                        time,
                        steps,
                    };
                }
                next += 1;
            }
            if next == order.len() {
                break;
            }
            steps += 1;
            if steps >= cap {
                break;
            }
            match at.parent(0) {
                Ok(p) => at = p,
                Err(_) => {
                    // The first commit: the rest of the days are before it — unless the
                    // history is cut here (a shallow clone).
                    if at.parent_count() == 0 && !self.is_shallow() {
                        for &i in order.get(next..).unwrap_or(&[]) {
                            if let Some(b) = out.get_mut(i) {
                                *b = Base::Before;
                            }
                        }
                    }
                    break;
                }
            }
        }
        out
    }

    /// The commits `indices` of `commits` named, at most [`MAX_TOUCHES`].
    pub(super) fn touches(&self, commits: &[(Oid, i64)], indices: &[usize]) -> Vec<Touch> {
        indices
            .iter()
            .take(MAX_TOUCHES)
            .filter_map(|&i| commits.get(i))
            .map(|(oid, time)| {
                let summary = self
                    .repo
                    .find_commit(*oid)
                    .ok()
                    .and_then(|c| c.summary().ok().flatten().map(str::to_string))
                    .unwrap_or_default();
                Touch {
                    commit: oid.to_string(),
                    time: *time,
                    summary,
                }
            })
            .collect()
    }
}
