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

use std::collections::{BTreeMap, BinaryHeap, HashMap};

use git2::{Commit, ObjectType, Oid, Tree};

use super::Repo;

/// One path asked about: `path` relative to the top of the work tree (`/`-separated, a file or
/// a directory), and the first second after the entry's day (UTC).
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
    /// It is at HEAD, or a commit walked changed it: it exists or existed in the history.
    pub existed: bool,
    /// The commits after the day that changed it, newest first (at most [`MAX_TOUCHES`], and
    /// only when asked for; `count` has them all) — for a path moved and then changed, those
    /// after the move at its new path (`moved_count`).
    pub touches: Vec<Touch>,
    /// How many commits after the day changed it (its move included).
    pub count: usize,
    /// Not at HEAD, and renamed (possibly more than once), from the entry's day on, to this
    /// path, which is.
    pub new_path: Option<String>,
    /// With `new_path`: how many commits after the day and after the move changed the new path.
    pub moved_count: usize,
    /// The walk stopped at its cap before it had seen every commit that counts (or, for a path
    /// not at HEAD and never seen, the whole history): the counts are lower bounds.
    pub capped: bool,
}

impl PathHistory {
    /// Whether the path is a citation at all: it exists or existed. A path no commit in reach
    /// ever had is not one.
    pub fn is_citation(&self) -> bool {
        self.at_head || self.existed
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
/// How far a commit's time may be behind one of its descendants' and still be walked after the
/// last commit that counts (so that a base reaching it says so)…
const CLOCK_SKEW: i64 = 86_400;
/// …and how many such commits at most (git's own walks allow 5).
const SLOP: usize = 32;
/// One day: a rename is looked for from the start of the entry's day on.
const DAY: i64 = 86_400;
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
    fn counts(&self, i: usize, base: Option<usize>) -> bool {
        self.levels
            .get(i)
            .is_some_and(|&l| base.is_none_or(|b| l > b))
    }

    /// Whether commits that count for `base` may be left unwalked.
    fn cut(&self, base: Option<usize>) -> bool {
        self.capped && self.open.is_some_and(|o| base.is_none_or(|b| o > b))
    }

    fn touched(&self, id: usize) -> &[usize] {
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
    /// The history of each of `asks` after its day, in their order; at most `cap` commits
    /// walked; the touching commits named only when `touches` (they cost a read each). Empty
    /// when HEAD has no commit.
    pub fn path_histories(&self, asks: &[Ask], cap: usize, touches: bool) -> Vec<PathHistory> {
        match self.head_commit() {
            Some(head) => self.path_histories_at(&head, asks, cap, touches),
            None => Vec::new(),
        }
    }

    fn commit_of(&self, id: &str) -> Option<Commit<'_>> {
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

    /// `known` (the histories of `asks` when HEAD was `old`) brought up to the current HEAD by
    /// walking only the commits since `old`, at most `cap`: what a new commit costs a session
    /// start. `None` when that cannot be done — `old` is not on HEAD's first-parent chain (a
    /// rebase, another branch) or the commits since are more than `cap` — and the histories
    /// are computed whole instead; one ask's `None` when its own cannot be: a new commit of
    /// the first-parent chain is of its day (its base moved), or its path came back and left
    /// again.
    pub fn path_histories_after(
        &self,
        asks: &[Ask],
        known: &[PathHistory],
        old: &str,
        head: &str,
        cap: usize,
    ) -> Option<Vec<Option<PathHistory>>> {
        crate::failpoint::log("citations-new-commits");
        let old = Oid::from_str(old).ok()?;
        let head = self.commit_of(head)?;
        let head_tree = head.tree().ok()?;
        // `old` on HEAD's first-parent chain; the oldest time of the chain's new commits.
        let mut chain_oldest = i64::MAX;
        let mut at = head.clone();
        let mut steps = 0;
        while at.id() != old {
            chain_oldest = chain_oldest.min(at.committer().when().seconds());
            steps += 1;
            if steps > cap {
                return None;
            }
            at = at.parent(0).ok()?;
        }
        let old_time = at.committer().when().seconds();
        let mut trie = Node::default();
        for (i, a) in asks.iter().enumerate() {
            trie.insert(a.path.trim_matches('/'), i);
        }
        let n = asks.len();
        for (i, k) in known.iter().enumerate() {
            if let Some(p) = &k.new_path {
                trie.insert(p, n + i);
            }
        }
        let walked = self.walk(
            &head,
            &[(old, old_time)],
            Some(0),
            &trie,
            vec![false; 2 * n],
            cap,
        );
        if walked.cut(Some(0)) {
            return None;
        }
        let new = |id: usize| -> Vec<usize> {
            walked
                .touched(id)
                .iter()
                .copied()
                .filter(|&i| walked.counts(i, Some(0)))
                .collect()
        };
        let has = |p: &str| head_tree.get_path(std::path::Path::new(p)).is_ok();
        let out = asks
            .iter()
            .zip(known)
            .enumerate()
            .map(|(i, (a, k))| {
                if a.since > chain_oldest {
                    return None;
                }
                let path = a.path.trim_matches('/');
                let touched = new(i);
                let at_head = has(path);
                let mut h = PathHistory {
                    at_head,
                    existed: k.existed || at_head || !touched.is_empty(),
                    touches: Vec::new(),
                    count: k.count + touched.len(),
                    new_path: None,
                    moved_count: 0,
                    capped: k.capped,
                };
                if at_head {
                    return Some(h);
                }
                if touched.is_empty() {
                    // Untouched since: where it went before is where it is, if still there,
                    // and checked on there.
                    match &k.new_path {
                        Some(p) if has(p) => {
                            h.new_path = Some(p.clone());
                            h.moved_count = k.moved_count + new(n + i).len();
                        }
                        Some(_) => return None,
                        None => {}
                    }
                    return Some(h);
                }
                if !k.at_head {
                    return None;
                }
                // It left HEAD in a new commit: renamed there, or deleted.
                if let Some((to, at)) =
                    self.follow_renames(path, &walked.commits, &touched, &head_tree)
                {
                    let mut one = Node::default();
                    one.insert(&to, 0);
                    let after = self.touched_in(walked.commits.get(..at).unwrap_or(&[]), &one, 1);
                    h.moved_count = after.first().map_or(0, Vec::len);
                    h.new_path = Some(to);
                }
                Some(h)
            })
            .collect();
        Some(out)
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

    /// Walks the commits reachable from `head` newest first (a heap on committer time, so the
    /// walk ends without preparing the whole history), at most `cap`, painting each with the
    /// oldest of `bases` (oldest first) that reaches it, and recording for each path of `trie`
    /// the commits that changed it. Commits above level `floor` may count; the walk goes on
    /// while one is queued, or while a path of `unresolved` has not been seen changed (then
    /// every commit is compared, to the first one).
    fn walk(
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

    /// The commits `indices` of `commits` named, at most [`MAX_TOUCHES`].
    fn touches(&self, commits: &[(Oid, i64)], indices: &[usize]) -> Vec<Touch> {
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
