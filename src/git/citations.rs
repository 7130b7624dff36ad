//! What happened to some paths since some times (SPEC §17): which commits touched each, and,
//! for one no longer at HEAD, whether git's rename detection finds it under another name. One
//! walk for all the paths, newest commit first, ending at the oldest time asked about or at a
//! cap; each commit compared with its parent only along the paths asked about (a subtree both
//! sides share is never read).

use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};

use git2::{ObjectType, Oid, Tree};

use super::Repo;

/// One path asked about: `path` relative to the top of the work tree (`/`-separated, a file or
/// a directory), and the first second whose commits count.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ask {
    pub path: String,
    pub since: i64,
}

/// What git says about one [`Ask`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathHistory {
    /// The path is in HEAD's tree.
    pub at_head: bool,
    /// The commits at or after `since` that changed it, newest first (at most
    /// [`MAX_TOUCHES`] kept; `count` has them all).
    pub touches: Vec<Touch>,
    pub count: usize,
    /// Not at HEAD, and renamed (possibly more than once) to this path, which is.
    pub new_path: Option<String>,
    /// The walk stopped at its cap before reaching `since`: `count` is a lower bound.
    pub capped: bool,
}

impl PathHistory {
    /// Whether the path is a citation at all: at HEAD, or changed (created, edited, deleted,
    /// renamed) since. A path no commit in reach ever had is not one.
    pub fn is_citation(&self) -> bool {
        self.at_head || self.count > 0
    }
}

/// One commit that touched a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    pub commit: String,
    pub time: i64,
    pub summary: String,
}

/// Most touching commits kept per path (what `maintain --check` lists).
pub const MAX_TOUCHES: usize = 20;
/// How far a commit's time may be behind one of its descendants' and still be walked.
const CLOCK_SKEW: i64 = 86_400;
/// Deepest path compared.
const MAX_DEPTH: usize = 64;

/// The paths asked about as a tree of names, so one descent compares all of them.
#[derive(Default)]
struct Node {
    children: BTreeMap<String, Node>,
    /// Indices of the distinct paths that end here.
    ends: Vec<usize>,
}

impl Node {
    fn insert(&mut self, path: &str, id: usize) {
        let mut node = self;
        for part in path.split('/').filter(|p| !p.is_empty()).take(MAX_DEPTH) {
            node = node.children.entry(part.to_string()).or_default();
        }
        node.ends.push(id);
    }
}

impl Repo {
    /// The history of each of `asks` since its time, in their order; at most `cap` commits
    /// walked; the touching commits named only when `touches` (they cost a read each). Empty
    /// when HEAD has no commit.
    pub fn path_histories(&self, asks: &[Ask], cap: usize, touches: bool) -> Vec<PathHistory> {
        match self.head_commit() {
            Some(head) => self.path_histories_at(&head, asks, cap, touches),
            None => Vec::new(),
        }
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
        let Some(head) = Oid::from_str(head)
            .ok()
            .and_then(|o| self.repo.find_commit(o).ok())
        else {
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
        let oldest = asks.iter().map(|a| a.since).min().unwrap_or(i64::MAX);
        let walked = self.walk_touches(head.id(), &trie, paths.len(), oldest, cap);
        let at_head: Vec<bool> = paths
            .iter()
            .map(|p| head_tree.get_path(std::path::Path::new(p)).is_ok())
            .collect();
        let mut renamed: HashMap<usize, Option<String>> = HashMap::new();
        asks.iter()
            .map(|a| {
                let id = ids.get(a.path.trim_matches('/')).copied().unwrap_or(0);
                let here = at_head.get(id).copied().unwrap_or(false);
                let all = walked.touched.get(id).map_or(&[][..], Vec::as_slice);
                let since: Vec<usize> = all
                    .iter()
                    .copied()
                    .filter(|&i| walked.commits.get(i).is_some_and(|c| c.1 >= a.since))
                    .collect();
                let new_path = if here || since.is_empty() {
                    None
                } else {
                    renamed
                        .entry(id)
                        .or_insert_with(|| {
                            self.follow_renames(
                                paths.get(id).copied().unwrap_or(""),
                                &walked.commits,
                                all,
                                &head_tree,
                            )
                        })
                        .clone()
                };
                PathHistory {
                    at_head: here,
                    count: since.len(),
                    touches: since
                        .iter()
                        .take(if touches { MAX_TOUCHES } else { 0 })
                        .filter_map(|&i| walked.commits.get(i))
                        .map(|(oid, time)| self.touch(*oid, *time))
                        .collect(),
                    new_path,
                    capped: walked.capped && walked.reached > a.since,
                }
            })
            .collect()
    }

    /// `known` (the histories of `asks` when HEAD was `old`) brought up to the current HEAD by
    /// walking only the commits since `old`, at most `cap`: what a new commit costs a session
    /// start. `None` when that cannot be done exactly — `old` is not an ancestor of HEAD (a
    /// rebase, another branch), the commits since are more than `cap`, or a path that left
    /// HEAD needs its rename found again from further back — and the histories are computed
    /// whole instead.
    pub fn path_histories_after(
        &self,
        asks: &[Ask],
        known: &[PathHistory],
        old: &str,
        head: &str,
        cap: usize,
    ) -> Option<Vec<PathHistory>> {
        crate::failpoint::log("citations-new-commits");
        let old = Oid::from_str(old).ok()?;
        let head = self.repo.find_commit(Oid::from_str(head).ok()?).ok()?;
        let head_tree = head.tree().ok()?;
        let mut walk = self.repo.revwalk().ok()?;
        walk.push(head.id()).ok()?;
        walk.hide(old).ok()?;
        let mut trie = Node::default();
        for (i, a) in asks.iter().enumerate() {
            trie.insert(a.path.trim_matches('/'), i);
        }
        let mut commits: Vec<(Oid, i64)> = Vec::new();
        let mut touched: Vec<Vec<usize>> = vec![Vec::new(); asks.len()];
        let mut reaches_old = head.id() == old;
        let mut hit = Vec::new();
        for oid in walk {
            let commit = self.repo.find_commit(oid.ok()?).ok()?;
            if commits.len() == cap {
                return None;
            }
            reaches_old |= commit.parent_ids().any(|p| p == old);
            let index = commits.len();
            commits.push((commit.id(), commit.committer().when().seconds()));
            if commit.parent_count() > 1 {
                continue;
            }
            // A shallow clone's edge has no parent here: its changes are unknown.
            if commit.parent_count() == 0 && self.is_shallow() {
                return None;
            }
            let parent_tree = commit.parent(0).ok().and_then(|p| p.tree().ok());
            let tree = commit.tree().ok()?;
            hit.clear();
            self.compare(Some(&tree), parent_tree.as_ref(), &trie, 0, &mut hit);
            for &i in &hit {
                touched.get_mut(i)?.push(index);
            }
        }
        if !reaches_old {
            return None;
        }
        asks.iter()
            .zip(known)
            .zip(&touched)
            .map(|((a, k), t)| {
                let new: Vec<usize> = t
                    .iter()
                    .copied()
                    .filter(|&i| commits.get(i).is_some_and(|c| c.1 >= a.since))
                    .collect();
                let at_head = head_tree
                    .get_path(std::path::Path::new(a.path.trim_matches('/')))
                    .is_ok();
                let new_path = if at_head {
                    None
                } else if new.is_empty() {
                    // Untouched since: where it went before is where it is, if still there.
                    match &k.new_path {
                        Some(p) if head_tree.get_path(std::path::Path::new(p)).is_ok() => {
                            Some(p.clone())
                        }
                        Some(_) => return None,
                        None => None,
                    }
                } else {
                    self.follow_renames(a.path.trim_matches('/'), &commits, &new, &head_tree)
                };
                Some(PathHistory {
                    at_head,
                    touches: Vec::new(),
                    count: k.count + new.len(),
                    new_path,
                    capped: k.capped,
                })
            })
            .collect()
    }

    fn touch(&self, oid: Oid, time: i64) -> Touch {
        let summary = self
            .repo
            .find_commit(oid)
            .ok()
            .and_then(|c| c.summary().ok().flatten().map(str::to_string))
            .unwrap_or_default();
        Touch {
            commit: oid.to_string(),
            time,
            summary,
        }
    }

    /// Walks the commits reachable from `head` newest first (a heap on committer time, so the
    /// walk ends at the first commit older than `oldest` without preparing the whole history),
    /// at most `cap`, recording for each of `n` paths the commits that changed it. A merge is
    /// not compared: the commits it brings in are walked themselves.
    fn walk_touches(&self, head: Oid, trie: &Node, n: usize, oldest: i64, cap: usize) -> Walked {
        let mut out = Walked {
            commits: Vec::new(),
            touched: vec![Vec::new(); n],
            capped: false,
            reached: i64::MAX,
        };
        let mut heap = BinaryHeap::new();
        let mut seen = HashSet::new();
        let time_of = |oid: Oid| {
            self.repo
                .find_commit(oid)
                .ok()
                .map(|c| c.committer().when().seconds())
        };
        if let Some(t) = time_of(head) {
            heap.push((t, head));
            seen.insert(head);
        }
        let mut hit = Vec::new();
        while let Some((time, oid)) = heap.pop() {
            // Committer clocks disagree a little: a day's grace before the walk ends (a
            // commit older than an entry's day is still not counted for it).
            if time < oldest.saturating_sub(CLOCK_SKEW) {
                break;
            }
            if out.commits.len() == cap {
                out.capped = true;
                break;
            }
            out.reached = time;
            let Ok(commit) = self.repo.find_commit(oid) else {
                continue;
            };
            for parent in commit.parent_ids() {
                if seen.insert(parent)
                    && let Some(t) = time_of(parent)
                {
                    heap.push((t, parent));
                }
            }
            let index = out.commits.len();
            out.commits.push((oid, time));
            if commit.parent_count() > 1 {
                continue;
            }
            // A shallow clone's edge has no parent here: what it changed is not known, and
            // the history beyond it is not walked — as a cap.
            if commit.parent_count() == 0 && self.is_shallow() {
                out.capped = true;
                break;
            }
            let parent = commit.parent(0).ok();
            if parent
                .as_ref()
                .is_some_and(|p| p.tree_id() == commit.tree_id())
            {
                continue;
            }
            let parent_tree = parent.and_then(|p| p.tree().ok());
            let Ok(tree) = commit.tree() else { continue };
            hit.clear();
            self.compare(Some(&tree), parent_tree.as_ref(), trie, 0, &mut hit);
            for &id in &hit {
                if let Some(t) = out.touched.get_mut(id) {
                    t.push(index);
                }
            }
        }
        out
    }

    /// Pushes to `hit` the paths under `node` whose entry differs between `new` and `old`.
    fn compare(
        &self,
        new: Option<&Tree<'_>>,
        old: Option<&Tree<'_>>,
        node: &Node,
        depth: usize,
        hit: &mut Vec<usize>,
    ) {
        if depth >= MAX_DEPTH {
            return;
        }
        for (name, child) in &node.children {
            let a = new.and_then(|t| t.get_name(name));
            let b = old.and_then(|t| t.get_name(name));
            let same = match (&a, &b) {
                (None, None) => true,
                (Some(a), Some(b)) => a.id() == b.id() && a.filemode() == b.filemode(),
                _ => false,
            };
            if same {
                continue;
            }
            hit.extend(&child.ends);
            if !child.children.is_empty() {
                let sub = |e: &Option<git2::TreeEntry<'_>>| {
                    e.as_ref()
                        .filter(|e| e.kind() == Some(ObjectType::Tree))
                        .and_then(|e| self.repo.find_tree(e.id()).ok())
                };
                let (na, nb) = (sub(&a), sub(&b));
                self.compare(na.as_ref(), nb.as_ref(), child, depth + 1, hit);
            }
        }
    }
}

/// The commits one walk looked at and which paths each changed.
struct Walked {
    /// (commit, committer time), newest first.
    commits: Vec<(Oid, i64)>,
    /// Per distinct path, indices into `commits` of the ones that changed it.
    touched: Vec<Vec<usize>>,
    capped: bool,
    /// The time of the oldest commit walked.
    reached: i64,
}
