//! The path histories brought up to a new HEAD by its new commits alone (SPEC §17's cache).

use git2::Oid;

use super::Repo;
use super::asks::{Ask, PathHistory};
use super::walk::Node;

impl Repo {
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
}
