//! The one walk behind the path histories (SPEC §17): newest commit first, each commit painted
//! with the oldest base that reaches it, each compared with its parent only along the paths
//! asked about (a subtree both sides share is never read); a merge, where it differs from every
//! parent (a resolution of its own).

use std::collections::{BTreeMap, BinaryHeap, HashMap};

use git2::{Commit, ObjectType, Oid, Tree};

use super::Repo;

/// How far a commit's time may be behind one of its descendants' and still be walked after the
/// last commit that counts (so that a base reaching it says so)…
const CLOCK_SKEW: i64 = 86_400;
/// …and how many such commits at most (git's own walks allow 5).
const SLOP: usize = 32;
/// Deepest path compared.
const MAX_DEPTH: usize = 64;

/// The paths asked about as a tree of names, so one descent compares all of them.
#[derive(Default)]
pub(super) struct Node {
    children: BTreeMap<String, Node>,
    /// Indices of the distinct paths that end here.
    ends: Vec<usize>,
}

impl Node {
    pub(super) fn insert(&mut self, path: &str, id: usize) {
        let mut node = self;
        for part in path.split('/').filter(|p| !p.is_empty()).take(MAX_DEPTH) {
            node = node.children.entry(part.to_string()).or_default();
        }
        node.ends.push(id);
    }
}

/// The commits one walk looked at and which paths each changed.
pub(super) struct Walked {
    /// (commit, committer time), in the order walked (newest first).
    pub(super) commits: Vec<(Oid, i64)>,
    /// Per commit of `commits`: the index of the oldest base that reaches it (the number of
    /// bases for none).
    levels: Vec<usize>,
    /// Per distinct path, indices into `commits` of the ones that changed it.
    touched: Vec<Vec<usize>>,
    capped: bool,
    /// When capped: the highest level of a commit left unwalked.
    open: Option<usize>,
}

impl Walked {
    /// Whether commit `i` counts for an ask whose base has index `base` (`None`: all count).
    pub(super) fn counts(&self, i: usize, base: Option<usize>) -> bool {
        self.levels
            .get(i)
            .is_some_and(|&l| base.is_none_or(|b| l > b))
    }

    /// Whether commits that count for `base` may be left unwalked.
    pub(super) fn cut(&self, base: Option<usize>) -> bool {
        self.capped && self.open.is_some_and(|o| base.is_none_or(|b| o > b))
    }

    pub(super) fn touched(&self, id: usize) -> &[usize] {
        self.touched.get(id).map_or(&[][..], Vec::as_slice)
    }
}

/// A walk's state of one commit.
struct Seen {
    level: usize,
    time: i64,
    /// Its index in [`Walked::commits`], once walked.
    index: Option<usize>,
    queued: bool,
}

/// The commits to walk, newest first, each with the oldest base known to reach it.
struct Queue {
    seen: HashMap<Oid, Seen>,
    heap: BinaryHeap<(i64, Oid)>,
    /// How many queued commits may count.
    open: usize,
    /// Commits above this level may count (`None`: all may).
    floor: Option<usize>,
}

impl Queue {
    fn counts(floor: Option<usize>, level: usize) -> bool {
        floor.is_none_or(|f| level > f)
    }

    /// `oid` (made at `time`) is reached at `level`: queued, or its level lowered — and passed
    /// on again to its parents when it was walked already (committer clocks disagree).
    fn reach(&mut self, oid: Oid, time: i64, level: usize) {
        let floor = self.floor;
        match self.seen.get_mut(&oid) {
            None => {
                self.seen.insert(
                    oid,
                    Seen {
                        level,
                        time,
                        index: None,
                        queued: true,
                    },
                );
                self.heap.push((time, oid));
                if Self::counts(floor, level) {
                    self.open += 1;
                }
            }
            Some(s) if level < s.level => {
                let counted = Self::counts(floor, s.level);
                s.level = level;
                if s.queued {
                    if counted && !Self::counts(floor, level) {
                        self.open = self.open.saturating_sub(1);
                    }
                } else {
                    s.queued = true;
                    self.heap.push((s.time, oid));
                    if Self::counts(floor, level) {
                        self.open += 1;
                    }
                }
            }
            Some(_) => {}
        }
    }

    /// The newest queued commit, off the queue: (commit, time, level, index if walked before).
    fn pop(&mut self) -> Option<(Oid, i64, usize, Option<usize>)> {
        while let Some((time, oid)) = self.heap.pop() {
            let Some(s) = self.seen.get_mut(&oid) else {
                continue;
            };
            if !s.queued {
                continue;
            }
            s.queued = false;
            if Self::counts(self.floor, s.level) {
                self.open = self.open.saturating_sub(1);
            }
            return Some((oid, time, s.level, s.index));
        }
        None
    }

    /// Puts back a commit just popped (the walk stops before it).
    fn unpop(&mut self, oid: Oid) {
        if let Some(s) = self.seen.get_mut(&oid) {
            s.queued = true;
        }
    }

    fn highest_open(&self) -> Option<usize> {
        self.seen
            .values()
            .filter(|s| s.queued)
            .map(|s| s.level)
            .max()
    }
}

impl Repo {
    /// Walks the commits reachable from `head` newest first (a heap on committer time, so the
    /// walk ends without preparing the whole history), at most `cap`, painting each with the
    /// oldest of `bases` (oldest first) that reaches it, and recording for each path of `trie`
    /// the commits that changed it. Commits above level `floor` may count; the walk goes on
    /// while one is queued, or while a path of `unresolved` has not been seen changed (then
    /// every commit is compared, to the first one).
    pub(super) fn walk(
        &self,
        head: &Commit<'_>,
        bases: &[(Oid, i64)],
        floor: Option<usize>,
        trie: &Node,
        mut unresolved: Vec<bool>,
        cap: usize,
    ) -> Walked {
        let mut out = Walked {
            commits: Vec::new(),
            levels: Vec::new(),
            touched: vec![Vec::new(); unresolved.len()],
            capped: false,
            open: None,
        };
        let mut q = Queue {
            seen: HashMap::new(),
            heap: BinaryHeap::new(),
            open: 0,
            floor,
        };
        q.reach(head.id(), head.committer().when().seconds(), bases.len());
        for (level, &(oid, time)) in bases.iter().enumerate() {
            q.reach(oid, time, level);
        }
        let mut left = unresolved.iter().filter(|u| **u).count();
        let mut oldest_counted = i64::MAX;
        let mut grace = 0;
        let mut hit = Vec::new();
        loop {
            if q.open == 0 && left == 0 {
                // A little grace after the oldest commit that counted, for clocks that disagree.
                grace += 1;
                match q.heap.peek() {
                    Some(&(t, _))
                        if grace <= SLOP && t >= oldest_counted.saturating_sub(CLOCK_SKEW) => {}
                    _ => break,
                }
            }
            let Some((oid, time, level, walked)) = q.pop() else {
                break;
            };
            let Ok(commit) = self.repo.find_commit(oid) else {
                continue;
            };
            if walked.is_none() {
                if out.commits.len() >= cap {
                    q.unpop(oid);
                    out.capped = true;
                    break;
                }
                let index = out.commits.len();
                out.commits.push((oid, time));
                if let Some(s) = q.seen.get_mut(&oid) {
                    s.index = Some(index);
                }
                let counts = Queue::counts(floor, level);
                if counts {
                    oldest_counted = oldest_counted.min(time);
                }
                // A shallow clone's edge has no parent here: what it changed is not known,
                // and the history beyond it is not walked — as a cap.
                if commit.parent_count() == 0 && self.is_shallow() {
                    q.unpop(oid);
                    out.capped = true;
                    break;
                }
                if counts || left > 0 {
                    hit.clear();
                    self.changes(&commit, trie, &mut hit);
                    for &id in &hit {
                        if let Some(t) = out.touched.get_mut(id) {
                            t.push(index);
                        }
                        if let Some(u) = unresolved.get_mut(id)
                            && *u
                        {
                            *u = false;
                            left -= 1;
                        }
                    }
                }
            }
            for parent in commit.parents() {
                q.reach(parent.id(), parent.committer().when().seconds(), level);
            }
        }
        out.levels = out
            .commits
            .iter()
            .map(|(oid, _)| q.seen.get(oid).map_or(usize::MAX, |s| s.level))
            .collect();
        if out.capped {
            out.open = q.highest_open();
        }
        out
    }

    /// Per path of `trie` (`n` of them), the indices of `commits` that changed it.
    pub(super) fn touched_in(
        &self,
        commits: &[(Oid, i64)],
        trie: &Node,
        n: usize,
    ) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); n];
        let mut hit = Vec::new();
        for (i, (oid, _)) in commits.iter().enumerate() {
            let Ok(commit) = self.repo.find_commit(*oid) else {
                continue;
            };
            hit.clear();
            self.changes(&commit, trie, &mut hit);
            for &id in &hit {
                if let Some(t) = out.get_mut(id) {
                    t.push(i);
                }
            }
        }
        out
    }

    /// Pushes to `hit` the paths of `trie` that `commit` changed: from its parent (from nothing
    /// for a first commit); for a merge, those that differ from every parent.
    fn changes(&self, commit: &Commit<'_>, trie: &Node, hit: &mut Vec<usize>) {
        let Ok(tree) = commit.tree() else { return };
        if commit.parent_count() <= 1 {
            let parent = commit.parent(0).ok();
            if parent
                .as_ref()
                .is_some_and(|p| p.tree_id() == commit.tree_id())
            {
                return;
            }
            let parent_tree = parent.and_then(|p| p.tree().ok());
            self.compare(Some(&tree), parent_tree.as_ref(), trie, 0, hit);
            return;
        }
        let mut common: Option<Vec<usize>> = None;
        for parent in commit.parents() {
            if parent.tree_id() == commit.tree_id() {
                return;
            }
            let mut here = Vec::new();
            let parent_tree = parent.tree().ok();
            self.compare(Some(&tree), parent_tree.as_ref(), trie, 0, &mut here);
            let both: Vec<usize> = match common {
                None => here,
                Some(c) => c.into_iter().filter(|x| here.contains(x)).collect(),
            };
            if both.is_empty() {
                return;
            }
            common = Some(both);
        }
        hit.extend(common.unwrap_or_default());
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
