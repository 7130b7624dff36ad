//! The path histories brought up to a new HEAD by its new commits alone (SPEC §17's cache).

use git2::Oid;

use super::Repo;
use super::asks::{Ask, MAX_TOUCHES, PathHistory, Touch};
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
        self.path_histories_after_with(asks, known, old, head, cap, false)
    }

    /// [`Repo::path_histories_after`], and with `touches` the commits that touched each path
    /// named as a whole walk names them (`known`'s own named the same way): the new ones
    /// first. One whose commits cannot be told so (a path moved and changed, then back at
    /// HEAD) is `None`.
    pub fn path_histories_after_with(
        &self,
        asks: &[Ask],
        known: &[PathHistory],
        old: &str,
        head: &str,
        cap: usize,
        touches: bool,
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
        // The commits `new` (indices of the walk) named, newest first, before `old`'s.
        let named = |new: &[usize], old: &[Touch]| -> Vec<Touch> {
            if !touches {
                return Vec::new();
            }
            let mut out = self.touches(&walked.commits, new);
            out.extend(
                old.iter()
                    .take(MAX_TOUCHES.saturating_sub(out.len()))
                    .cloned(),
            );
            out
        };
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
                // `known`'s commits are its path's, unless it moved and changed at its new place.
                let own = if k.new_path.is_some() && k.moved_count > 0 {
                    &[][..]
                } else {
                    &k.touches[..]
                };
                let mut h = PathHistory {
                    at_head,
                    existed: k.existed || at_head || !touched.is_empty(),
                    touches: named(&touched, own),
                    count: k.count + touched.len(),
                    new_path: None,
                    moved_count: 0,
                    capped: k.capped,
                };
                if at_head {
                    return (own.len() == k.touches.len()).then_some(h);
                }
                if touched.is_empty() {
                    // Untouched since: where it went before is where it is, if still there,
                    // and checked on there.
                    match &k.new_path {
                        Some(p) if has(p) => {
                            let at_new = new(n + i);
                            h.new_path = Some(p.clone());
                            h.moved_count = k.moved_count + at_new.len();
                            if h.moved_count > 0 {
                                // Then its commits are those of the new place after the move.
                                let before = if k.moved_count > 0 {
                                    &k.touches[..]
                                } else {
                                    &[]
                                };
                                h.touches = named(&at_new, before);
                            } else {
                                h.touches = named(&[], &k.touches);
                            }
                        }
                        Some(_) => return None,
                        None => h.touches = named(&[], &k.touches),
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
                    let after = after.first().map_or(&[][..], Vec::as_slice);
                    h.moved_count = after.len();
                    h.new_path = Some(to);
                    if !after.is_empty() {
                        h.touches = named(after, &[]);
                    }
                }
                Some(h)
            })
            .collect();
        Some(out)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use std::path::Path;

    use git2::Repository;

    use crate::git::tests::commit;
    use crate::git::{Ask, Repo};

    /// `maintain --check`'s kept answers name the commits: brought up to a later HEAD by its
    /// new commits alone, they are what a whole walk there gives — commits included — for a
    /// path edited, one moved before and changed after, one moved and changed in the new
    /// commits, one untouched, a directory emptied.
    #[test]
    fn the_commits_named_are_brought_up_as_a_whole_walk_names_them() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        repo.set_head("refs/heads/main").unwrap();
        let w = dir.path();
        let mut index = repo.index().unwrap();
        let put = |index: &mut git2::Index, p: &str, s: &str| {
            let f = w.join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, s).unwrap();
            index.add_path(Path::new(p)).unwrap();
            index.write().unwrap();
        };
        let mv = |index: &mut git2::Index, from: &str, to: &str| {
            std::fs::rename(w.join(from), w.join(to)).unwrap();
            index.remove_path(Path::new(from)).unwrap();
            index.add_path(Path::new(to)).unwrap();
            index.write().unwrap();
        };
        let body = |p: &str| {
            (0..40)
                .map(|i| format!("{p} line {i}\n"))
                .collect::<String>()
        };
        for p in ["a.rs", "b.rs", "c.rs", "m.rs", "d/e.rs"] {
            put(&mut index, p, &body(p));
        }
        commit(&repo, "main", 1_000, "start");
        let since = 5_000;
        put(&mut index, "a.rs", "one");
        commit(&repo, "main", since + 10, "a once");
        mv(&mut index, "m.rs", "n.rs");
        let first = commit(&repo, "main", since + 20, "mv m");
        let r = Repo::discover(w, &[]).unwrap();
        let asks: Vec<Ask> = ["a.rs", "b.rs", "c.rs", "m.rs", "d"]
            .map(|p| Ask {
                path: p.into(),
                since,
            })
            .to_vec();
        let before = r.path_histories(&asks, 1_000, true);
        put(&mut index, "a.rs", "two");
        commit(&repo, "main", since + 30, "a twice");
        put(&mut index, "n.rs", &format!("{}more\n", body("m.rs")));
        commit(&repo, "main", since + 40, "n after the move");
        mv(&mut index, "b.rs", "moved.rs");
        commit(&repo, "main", since + 50, "mv b");
        put(&mut index, "moved.rs", &format!("{}more\n", body("b.rs")));
        commit(&repo, "main", since + 60, "moved after the move");
        std::fs::remove_file(w.join("d/e.rs")).unwrap();
        index.remove_path(Path::new("d/e.rs")).unwrap();
        index.write().unwrap();
        commit(&repo, "main", since + 70, "rm d");
        let whole = r.path_histories(&asks, 1_000, true);
        let after: Vec<_> = r
            .path_histories_after_with(
                &asks,
                &before,
                &first.to_string(),
                &r.head_commit().unwrap(),
                1_000,
                true,
            )
            .unwrap()
            .into_iter()
            .map(Option::unwrap)
            .collect();
        assert_eq!(after, whole);
        let said = |i: usize| -> Vec<&str> {
            after[i]
                .touches
                .iter()
                .map(|t| t.summary.as_str())
                .collect()
        };
        assert_eq!(said(0), ["a twice", "a once"]);
        assert_eq!(said(1), ["moved after the move"]);
        assert_eq!(said(3), ["n after the move"]);
        assert!(said(2).is_empty());
        assert_eq!(said(4), ["rm d"]);
    }
}
