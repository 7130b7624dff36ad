//! Where a cited path went (SPEC §17): git's rename detection on the commit that took it
//! away, followed from name to name.

use git2::{Oid, Tree};

use super::Repo;

/// Most renames followed from a path to where it is now.
const MAX_HOPS: usize = 4;
/// Most files rename detection compares in one commit.
const RENAME_LIMIT: usize = 1_000;

impl Repo {
    /// Where `path` (not at HEAD) went, and the index in `commits` of the commit that moved it
    /// there: among the commits `touched` (indices into `commits`, newest first), those that
    /// took it away, newest first, git's rename detection of their changes; again from the new
    /// name, as long as that one is not at HEAD either (a later commit took it away in turn).
    pub(super) fn follow_renames(
        &self,
        path: &str,
        commits: &[(Oid, i64)],
        touched: &[usize],
        head_tree: &Tree<'_>,
    ) -> Option<(String, usize)> {
        let mut current = path.to_string();
        // The commits that took the original path away (it is in the parent, not after), newest
        // first: on another branch, a later edit of the old name may be newer than the rename.
        let mut candidates: Vec<usize> = touched
            .iter()
            .copied()
            .filter(|&i| {
                commits
                    .get(i)
                    .is_some_and(|(c, _)| self.took_away(*c, &current))
            })
            .collect();
        for _ in 0..MAX_HOPS {
            let (at, next) = candidates.iter().find_map(|&i| {
                let (oid, _) = commits.get(i)?;
                Some((i, self.renamed_in(*oid, &current)?))
            })?;
            if head_tree.get_path(std::path::Path::new(&next)).is_ok() {
                return Some((next, at));
            }
            // The new name left too: the commits after this one that took it away, the oldest
            // first (the first to do so is the rename's next step).
            candidates = (0..at)
                .rev()
                .filter(|&i| {
                    commits
                        .get(i)
                        .is_some_and(|(c, _)| self.took_away(*c, &next))
                })
                .collect();
            current = next;
        }
        None
    }

    /// Whether commit `oid` removed `path`: its first parent has it, it has not.
    fn took_away(&self, oid: Oid, path: &str) -> bool {
        let path = std::path::Path::new(path);
        let Ok(commit) = self.repo.find_commit(oid) else {
            return false;
        };
        let has = |c: &git2::Commit<'_>| c.tree().is_ok_and(|t| t.get_path(path).is_ok());
        !has(&commit) && commit.parent(0).is_ok_and(|p| has(&p))
    }

    /// The name `path` (a file, or a directory) has after commit `oid` renamed it.
    fn renamed_in(&self, oid: Oid, path: &str) -> Option<String> {
        let commit = self.repo.find_commit(oid).ok()?;
        let tree = commit.tree().ok()?;
        let parent = commit.parent(0).ok()?.tree().ok()?;
        let mut diff = self
            .repo
            .diff_tree_to_tree(Some(&parent), Some(&tree), None)
            .ok()?;
        let mut find = git2::DiffFindOptions::new();
        find.renames(true).rename_limit(RENAME_LIMIT);
        // A commit of thousands of files (a tree moved and rewritten) is matched by identical
        // content only: inexact matching compares every deleted file with every added one.
        if diff.deltas().len() > RENAME_LIMIT {
            find.exact_match_only(true);
        }
        diff.find_similar(Some(&mut find)).ok()?;
        let dir = format!("{path}/");
        diff.deltas()
            .filter(|d| d.status() == git2::Delta::Renamed)
            .find_map(|d| {
                let old = d.old_file().path()?.to_str()?;
                let new = d.new_file().path()?.to_str()?;
                if old == path {
                    return Some(new.to_string());
                }
                // A directory: where its files went, less the part of their names inside it.
                let inside = old.strip_prefix(&dir)?;
                new.strip_suffix(inside)
                    .and_then(|d| d.strip_suffix('/'))
                    .filter(|d| !d.is_empty())
                    .map(str::to_string)
            })
    }
}
