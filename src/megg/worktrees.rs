//! Worktrees that are gone (SPEC §18.2): every worktree's session files live under the
//! repository's common git directory, keyed by worktree ([`store::worktree_key`]), so those of
//! a worktree `git worktree remove` deleted (or whose directory was deleted, which git lists as
//! prunable) are still there. The main worktree's next session is told of each one's last
//! handoff in one line, while it is unexpired; it is never injected as the session's own.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::fsx;
use crate::git::{MAIN_WORKTREE, Repo};
use crate::megg::capture::store::{self, Sessions};
use crate::megg::discovery::Domain;
use crate::megg::recall::{self, ids};
use crate::megg::{Deps, state};

/// The last handoff of a worktree that no longer exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    /// The worktree's admin name (`git worktree list` shows its directory).
    pub name: String,
    /// The branch its last handoff names.
    pub branch: Option<String>,
    /// When that handoff was written.
    pub updated: DateTime<Utc>,
    /// The `megg show` id of that handoff. The id a search gives it too, unless another
    /// handoff with the same time and session but other text is found before it (then that
    /// one has this id and this one a suffix).
    pub id: String,
}

/// The newest unexpired capture of each worktree of `repo` that no longer exists — its admin
/// directory is gone, or git would prune it — for `domain` (the same place in that work tree
/// as `domain` in this one), newest first. Only in the main worktree (in a bare repository, in
/// each worktree): elsewhere, none. Reads
/// git's admin files, the session directories' listing and the gone worktrees' captures;
/// never a work tree.
pub fn removed_handoffs(deps: &Deps<'_>, repo: &Repo, domain: &Domain) -> Vec<Removed> {
    // Of a bare repository's worktrees none is the main one: each names the others' (its own
    // is live, so never among them).
    if repo.worktree_name().is_some() && !repo.common_is_bare() {
        return Vec::new();
    }
    let live: HashSet<String> = repo
        .linked_worktrees()
        .iter()
        .filter(|l| !l.prunable)
        .map(|l| store::key_of(repo, l).key)
        .collect();
    let place = repo.workdir().and_then(|top| below(&domain.dir, &top));
    let lifetime = domain.state_lifetime(&mut Vec::new());
    let mut out: Vec<Removed> = Sessions::every_worktree(repo)
        .into_iter()
        .filter(|(key, _)| key != MAIN_WORKTREE && !live.contains(key))
        .filter_map(|(key, sessions)| {
            let recorded = sessions.recorded_worktree();
            let name = match &recorded {
                Some((name, _)) => name.clone(),
                None => key
                    .rsplit_once('@')
                    .map_or(key.as_str(), |(n, _)| n)
                    .to_string(),
            };
            let top = recorded.map(|(_, top)| top);
            // Newest first (as written): the first active capture of the domain is the last
            // handoff — a removed worktree's directory costs a read or two per session start
            // (at most its 20 captures when none is active any more).
            let mut newest = None;
            for (id, _) in sessions.captures() {
                let Some(doc) = sessions.read_capture(&id).map(|t| state::parse(&t, "")) else {
                    continue;
                };
                let Some(updated) = doc.updated else { continue };
                if deps.now - updated > lifetime.duration() {
                    continue;
                }
                // Only the captures of the domain at this place in that work tree.
                let here = match (&doc.domain, &top, &place) {
                    (Some(dir), Some(top), Some(place)) => {
                        below(Path::new(dir), top).as_ref() == Some(place)
                    }
                    _ => true,
                };
                if here && state::expiry_within(&doc, deps.now, lifetime).is_active() {
                    newest = Some((updated, doc));
                    break;
                }
            }
            let (updated, doc) = newest?;
            Some(Removed {
                name,
                branch: doc.branch.clone(),
                updated,
                id: ids::base_id(recall::Kind::Handoff, &recall::handoff_key(&doc)),
            })
        })
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.updated));
    out
}

/// Where `dir` lies in the work tree `top`, however each is spelled: git gives a work tree as
/// `C:/…`, a directory megg was given may be `\\?\C:\…` (SPEC §15.1) — compared as written,
/// no capture's domain would lie in the work tree, and every one would count as this domain's.
fn below(dir: &Path, top: &Path) -> Option<PathBuf> {
    let (dir, top) = (
        fsx::as_spelled(dir.to_path_buf()),
        fsx::as_spelled(top.to_path_buf()),
    );
    dir.strip_prefix(top).ok().map(Path::to_path_buf)
}

/// The one line a context gives a removed worktree's last handoff: ``Worktree `feature-x`
/// (branch feature/x) was removed; its last handoff, 3h old: megg show h1a2b3c4``.
pub fn line(r: &Removed, now: DateTime<Utc>) -> String {
    let branch = r
        .branch
        .as_deref()
        .map(|b| format!(" (branch {b})"))
        .unwrap_or_default();
    let age = crate::clock::human_age((now - r.updated).num_seconds());
    format!(
        "Worktree `{}`{branch} was removed; its last handoff, {age} old: megg show {}",
        r.name, r.id
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;
    use crate::megg::capture::SessionId;
    use crate::megg::discovery::{Megg, megg_at};

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .unwrap()
    }

    fn domain(dir: &Path) -> Domain {
        std::fs::create_dir_all(dir.join(".megg")).unwrap();
        std::fs::write(dir.join(".megg/info.md"), "# D\n").unwrap();
        match megg_at(dir, &[]) {
            Megg::Domain(d) => d,
            _ => panic!("no domain at {}", dir.display()),
        }
    }

    fn capture(domain: &Path, session: &str, updated: &str) -> String {
        format!(
            "---\nupdated: {updated}\nsource: auto\nsession: {session}\nbranch: feature/x\ndomain: {}\n---\n\n## Working On\nRefunds\n",
            domain.display()
        )
    }

    /// SPEC §18.2: the main worktree is told of a worktree that is gone — its directory
    /// deleted (git lists it prunable) or its admin directory removed — by its newest unexpired
    /// capture of the same domain; of none while it exists, and nowhere but in the main one.
    #[test]
    fn a_gone_worktrees_newest_handoff_is_named_in_the_main_one() {
        let tmp = tempfile::tempdir().unwrap();
        let tmp = std::fs::canonicalize(tmp.path()).unwrap();
        let main = tmp.join("main");
        let git = git2::Repository::init(&main).unwrap();
        let sig = git2::Signature::now("T", "t@example.com").unwrap();
        let tree = git
            .find_tree(git.index().unwrap().write_tree().unwrap())
            .unwrap();
        git.commit(Some("HEAD"), &sig, &sig, "one", &tree, &[])
            .unwrap();
        let feat = tmp.join("feat");
        git.worktree("feat", &feat, None).unwrap();
        let ceilings = vec![tmp.clone()];
        let (tokens, repos) = (
            crate::tokens::Counter::new(None),
            crate::megg::repos::Repos::new(&ceilings),
        );
        let deps = Deps {
            now: at("2026-11-22T12:00:00Z"),
            tokens: &tokens,
            ceilings: &ceilings,
            trusted: &[],
            repos: &repos,
        };
        let (main_domain, feat_domain) = (domain(&main), domain(&feat));
        let main_repo = deps.repo(&main).unwrap();
        let feat_repo = deps.repo(&feat).unwrap();
        let sessions = Sessions::locate(Some(&feat_repo), &feat, None).unwrap();
        let write = |id: &str, text: &str| {
            let id = SessionId::parse(id).unwrap();
            sessions.write_capture(&id, text).unwrap();
        };
        write("old", &capture(&feat, "old", "2026-11-22T08:00:00Z"));
        write("new", &capture(&feat, "new", "2026-11-22T09:00:00Z"));
        // Another domain of that work tree, and a capture long expired: neither counts.
        write(
            "sub",
            &capture(&feat.join("sub"), "sub", "2026-11-22T11:00:00Z"),
        );
        write("stale", &capture(&feat, "stale", "2026-10-01T09:00:00Z"));
        assert_eq!(removed_handoffs(&deps, &main_repo, &main_domain), []);

        std::fs::remove_dir_all(&feat).unwrap();
        let found = removed_handoffs(&deps, &main_repo, &main_domain);
        let key = format!("{}\nnew", "2026-11-22T09:00:00Z");
        assert_eq!(
            found,
            [Removed {
                name: "feat".into(),
                branch: Some("feature/x".into()),
                updated: at("2026-11-22T09:00:00Z"),
                id: ids::base_id(recall::Kind::Handoff, &key),
            }]
        );
        assert_eq!(removed_handoffs(&deps, &feat_repo, &feat_domain), []);
        // `git worktree prune`: its admin directory gone too.
        std::fs::remove_dir_all(main.join(".git/worktrees/feat")).unwrap();
        assert_eq!(removed_handoffs(&deps, &main_repo, &main_domain), found);
    }

    #[test]
    fn a_removed_worktree_is_one_line() {
        let mut r = Removed {
            name: "feature-x".into(),
            branch: Some("feature/x".into()),
            updated: at("2026-11-22T09:00:00Z"),
            id: "h1a2b3c4".into(),
        };
        assert_eq!(
            line(&r, at("2026-11-22T12:00:00Z")),
            "Worktree `feature-x` (branch feature/x) was removed; its last handoff, 3h old: megg show h1a2b3c4"
        );
        r.branch = None;
        assert_eq!(
            line(&r, at("2026-11-22T09:00:30Z")),
            "Worktree `feature-x` was removed; its last handoff, 30s old: megg show h1a2b3c4"
        );
    }
}
