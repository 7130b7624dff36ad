//! Everything megg asks git, answered with git2 (no network, never by running `git`). The only
//! module that touches git2; it returns plain values.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use std::collections::{BinaryHeap, HashMap, HashSet};

use git2::{BranchType, Oid, Repository, RepositoryOpenFlags};

/// Most commits one divergence count will walk (SPEC §4.5).
pub const WALK_CAP: usize = 100_000;
/// Most commits the SessionStart hook walks for `commits_since` (SPEC §9): it runs at every
/// session start, in any repository.
pub const HOOK_WALK_CAP: usize = 10_000;

/// One open repository. Cloning shares it: a run opens each repository once
/// ([`crate::megg::project::Repos`]).
#[derive(Clone)]
pub struct Repo {
    repo: std::rc::Rc<Repository>,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("git_dir", &self.repo.path())
            .finish()
    }
}

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
    /// The repository containing `start`, stopping the upward search at `ceilings`.
    pub fn discover(start: &Path, ceilings: &[PathBuf]) -> Option<Self> {
        crate::failpoint::log("git-open");
        Repository::open_ext(start, RepositoryOpenFlags::empty(), ceilings)
            .ok()
            .map(|repo| Self {
                repo: std::rc::Rc::new(repo),
            })
    }

    /// The one open repository behind this handle (tests compare handles).
    #[cfg(test)]
    pub(crate) fn shared(&self) -> std::rc::Rc<Repository> {
        std::rc::Rc::clone(&self.repo)
    }

    /// Top of the work tree; `None` for a bare repository.
    pub fn workdir(&self) -> Option<PathBuf> {
        self.repo.workdir().map(|p| {
            let s = p.to_string_lossy();
            PathBuf::from(s.trim_end_matches('/'))
        })
    }

    /// This work tree's git directory (`.git`, or `.git/worktrees/<name>` in a linked one).
    pub fn git_dir(&self) -> PathBuf {
        self.repo.path().to_path_buf()
    }

    /// The git directory shared by all work trees.
    pub fn common_dir(&self) -> PathBuf {
        self.repo.commondir().to_path_buf()
    }

    /// In a linked worktree, the main worktree's top directory; `None` otherwise.
    pub fn main_worktree_root(&self) -> Option<PathBuf> {
        if !self.repo.is_worktree() {
            return None;
        }
        let common = self.repo.commondir();
        let common = common.to_string_lossy();
        let common = Path::new(common.trim_end_matches('/'));
        (common.file_name()? == ".git").then(|| common.parent().map(Path::to_path_buf))?
    }

    /// Whether git ignores `rel` (relative to the work tree), by any rule it applies:
    /// `.gitignore` files, `.git/info/exclude` and the global excludes file.
    pub fn is_ignored(&self, rel: &Path) -> bool {
        self.repo.is_path_ignored(rel).unwrap_or(false)
    }

    /// Whether `rel` is in the index (tracked): an ignore rule does not untrack a file git
    /// already tracks. Unknown (no index) counts as tracked.
    pub fn is_tracked(&self, rel: &Path) -> bool {
        match self.repo.index() {
            Ok(index) => index.get_path(rel, 0).is_some(),
            Err(_) => true,
        }
    }

    /// The work tree's changed files, relative to it — modified, added, deleted, renamed,
    /// untracked; never ignored ones, nor submodules — at most `max` of them.
    pub fn dirty_paths(&self, max: usize) -> Vec<String> {
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(false)
            .exclude_submodules(true);
        let Ok(statuses) = self.repo.statuses(Some(&mut opts)) else {
            return Vec::new();
        };
        statuses
            .iter()
            .filter(|e| !e.status().is_empty() && !e.status().is_ignored())
            .filter_map(|e| e.path().ok().map(str::to_string))
            .take(max)
            .collect()
    }

    /// The URL of remote `name`, as configured (may hold credentials: callers strip them).
    pub fn remote_url(&self, name: &str) -> Option<String> {
        self.repo
            .find_remote(name)
            .ok()?
            .url()
            .ok()
            .map(str::to_string)
    }

    /// The checked-out branch's short name, also when it has no commits yet; `None` when HEAD
    /// is detached.
    pub fn current_branch(&self) -> Option<String> {
        let head = self.repo.find_reference("HEAD").ok()?;
        let target = head.symbolic_target().ok().flatten()?;
        Some(
            target
                .strip_prefix("refs/heads/")
                .unwrap_or(target)
                .to_string(),
        )
    }

    /// The commit HEAD points at.
    pub fn head_commit(&self) -> Option<String> {
        self.repo
            .head()
            .ok()?
            .peel_to_commit()
            .ok()
            .map(|c| c.id().to_string())
    }

    /// Whether this is a shallow clone (its history is cut).
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow()
    }

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
                    id[..7].to_string(),
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

/// An unmerged path in the index (a merge, rebase or cherry-pick stopped on it): the
/// contents of its stages, each `None` when the stage is absent (no common ancestor, or
/// deleted on that side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmerged {
    /// Relative to the work tree's top, `/`-separated as git stores it.
    pub path: String,
    pub base: Option<Stage>,
    pub ours: Option<Stage>,
    pub theirs: Option<Stage>,
}

/// One stage's blob, read only when it is within the caller's bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    Blob(Vec<u8>),
    /// Over the bound: its size, never read.
    TooLarge(u64),
}

impl Repo {
    /// Every unmerged path whose name satisfies `wanted`, with its stages' contents (each at
    /// most `max_bytes`). An unreadable index is no conflict.
    pub fn unmerged(&self, wanted: impl Fn(&str) -> bool, max_bytes: u64) -> Vec<Unmerged> {
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        let Ok(conflicts) = index.conflicts() else {
            return Vec::new();
        };
        let stage = |entry: Option<git2::IndexEntry>| self.stage_blob(&entry?, max_bytes);
        conflicts
            .filter_map(Result::ok)
            .filter_map(|c| {
                let any = c
                    .our
                    .as_ref()
                    .or(c.their.as_ref())
                    .or(c.ancestor.as_ref())?;
                let path = String::from_utf8_lossy(&any.path).into_owned();
                wanted(&path).then(|| Unmerged {
                    path,
                    base: stage(c.ancestor),
                    ours: stage(c.our),
                    theirs: stage(c.their),
                })
            })
            .collect()
    }

    /// Whether a merge, rebase, cherry-pick or revert is under way (and may have left paths
    /// unmerged).
    pub fn is_operation_in_progress(&self) -> bool {
        self.repo.state() != git2::RepositoryState::Clean
    }

    /// A stage's content; over `max_bytes` only its size, read from the object's header
    /// without inflating it.
    fn stage_blob(&self, entry: &git2::IndexEntry, max_bytes: u64) -> Option<Stage> {
        let (size, _) = self.repo.odb().ok()?.read_header(entry.id).ok()?;
        let size = size as u64;
        if size > max_bytes {
            return Some(Stage::TooLarge(size));
        }
        let blob = self.repo.find_blob(entry.id).ok()?;
        Some(Stage::Blob(blob.content().to_vec()))
    }

    /// OURS' version (stage 2) of an unmerged `rel`; `None` when `rel` is not unmerged or has
    /// no stage 2.
    pub fn ours_stage(&self, rel: &Path, max_bytes: u64) -> Option<Stage> {
        let index = self.repo.index().ok()?;
        self.stage_blob(&index.get_path(rel, 2)?, max_bytes)
    }

    /// Whether `rel` (relative to the work tree) is unmerged in the index.
    pub fn is_unmerged(&self, rel: &Path) -> bool {
        self.repo.index().is_ok_and(|index| {
            index.get_path(rel, 1).is_some()
                || index.get_path(rel, 2).is_some()
                || index.get_path(rel, 3).is_some()
        })
    }

    /// Stages `bytes` as the resolved `path` (`/`-separated, as git stores it): its conflict
    /// stages give way to a regular file of exactly those bytes. Staged from the buffer, so
    /// git never reads the work tree (megg wrote it through the file gate).
    pub fn mark_resolved(&self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let msg = |e: git2::Error| e.message().to_string();
        let mut index = self.repo.index().map_err(msg)?;
        let entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: 0o100_644,
            uid: 0,
            gid: 0,
            file_size: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
            id: Oid::ZERO_SHA1,
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        };
        index.add_frombuffer(&entry, bytes).map_err(msg)?;
        // Older libgit2 keeps the conflict beside the new entry; none may stay.
        let _ = index.conflict_remove(Path::new(path));
        index.write().map_err(msg)
    }
}

// ---------------------------------------------------------------------------------------------
// Config and attributes: megg's merge driver registration (SPEC §11 "Registration").

/// Which git config file a value came from, as far as the fix is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigLevel {
    /// The repository's own config (`.git/config`, or a worktree's `config.worktree`).
    Repository,
    /// The user's global config (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`).
    User,
    /// The system's, or one git was given some other way.
    Other,
}

/// A config value git would use, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigValue {
    pub value: String,
    pub level: ConfigLevel,
}

/// What an attribute says for a path (gitattributes(5)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attr {
    /// No rule names it.
    Unspecified,
    /// `name`.
    Set,
    /// `-name`.
    Unset,
    /// `name=value`.
    Value(String),
}

/// A git config file that could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

impl From<ConfigError> for crate::error::Error {
    fn from(e: ConfigError) -> Self {
        Self::user(format!(
            "cannot use the git config file {}: {}; nothing more was changed",
            e.path.display(),
            e.message
        ))
        .with_hint("fix the file (git config --file <it> --list shows what git reads), then run megg setup again")
    }
}

/// The global config file git reads and `git config --global` writes: `$GIT_CONFIG_GLOBAL`
/// when set (libgit2 ignores it for a repository opened the ordinary way; git, which runs the
/// driver, does not), else `~/.gitconfig`, else `$XDG_CONFIG_HOME/git/config` when only that
/// one exists. `None` without a home directory.
pub fn global_config_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(path) = var("GIT_CONFIG_GLOBAL") {
        return Some(PathBuf::from(path));
    }
    let home = PathBuf::from(var("HOME")?);
    let dotfile = home.join(".gitconfig");
    let xdg = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".config"))
        .join("git/config");
    // Like git: the XDG file only when there is no ~/.gitconfig (not even a link).
    Some(
        if crate::fsx::lstat_kind(&dotfile).is_none() && crate::fsx::identity(&xdg).is_some() {
            xdg
        } else {
            dotfile
        },
    )
}

fn config_error(path: &Path, e: &git2::Error) -> ConfigError {
    ConfigError {
        path: path.to_path_buf(),
        message: e.message().to_string(),
    }
}

/// The values of `keys` in the one config file at `path` (a missing file has none). A key set
/// several times gives its last value, as git reads it.
pub fn config_file_values(path: &Path, keys: &[&str]) -> Result<Vec<Option<String>>, ConfigError> {
    let config = git2::Config::open(path)
        .and_then(|mut c| c.snapshot())
        .map_err(|e| config_error(path, &e))?;
    Ok(keys.iter().map(|key| config.get_string(key).ok()).collect())
}

/// Sets each `(key, value)` in the config file at `path` (created when missing), replacing
/// every earlier value of the key. Written by libgit2 (its own lock file, then a rename).
pub fn config_file_set(path: &Path, entries: &[(&str, &str)]) -> Result<(), ConfigError> {
    let mut config = git2::Config::open(path).map_err(|e| config_error(path, &e))?;
    for (key, value) in entries {
        // A key set twice (by hand) is a multivar, which `set_str` refuses to overwrite.
        remove_all(&mut config, key).map_err(|e| config_error(path, &e))?;
        config
            .set_str(key, value)
            .map_err(|e| config_error(path, &e))?;
    }
    Ok(())
}

/// Removes every value of each of `keys` from the config file at `path`; `true` when one was
/// there. libgit2 leaves the emptied section's header behind (callers tidy it).
pub fn config_file_remove(path: &Path, keys: &[&str]) -> Result<bool, ConfigError> {
    let had = config_file_values(path, keys)?.iter().any(Option::is_some);
    if had {
        let mut config = git2::Config::open(path).map_err(|e| config_error(path, &e))?;
        for key in keys {
            remove_all(&mut config, key).map_err(|e| config_error(path, &e))?;
        }
    }
    Ok(had)
}

fn remove_all(config: &mut git2::Config, key: &str) -> Result<(), git2::Error> {
    match config.remove_multivar(key, ".*") {
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(()),
        other => other,
    }
}

impl Repo {
    /// The repository's own config file (`.git/config`; from a linked worktree, the common
    /// directory's, which git reads for every worktree).
    pub fn config_path(&self) -> PathBuf {
        self.common_dir().join("config")
    }

    /// `key` as git reads it for this repository: every config file, the most specific first;
    /// `global` stands for the user's global file (see [`global_config_path`]).
    pub fn config_value(&self, key: &str, global: Option<&Path>) -> Option<ConfigValue> {
        let mut config = self.repo.config().ok()?;
        if let Some(global) = global {
            config
                .add_file(global, git2::ConfigLevel::Global, true)
                .ok()?;
        }
        let config = config.snapshot().ok()?;
        let entry = config.get_entry(key).ok()?;
        let value = entry.value().ok()?.to_string();
        let level = match entry.level() {
            git2::ConfigLevel::Local | git2::ConfigLevel::Worktree => ConfigLevel::Repository,
            git2::ConfigLevel::Global | git2::ConfigLevel::XDG => ConfigLevel::User,
            _ => ConfigLevel::Other,
        };
        Some(ConfigValue { value, level })
    }

    /// Attribute `name` for `rel` (relative to the work tree), from every source git reads:
    /// the `.gitattributes` files of the work tree (then the index's), `.git/info/attributes`,
    /// `core.attributesFile` (or `$XDG_CONFIG_HOME/git/attributes`) and the system's.
    pub fn attribute(&self, rel: &Path, name: &str) -> Attr {
        let flags = git2::AttrCheckFlags::FILE_THEN_INDEX;
        match self.repo.get_attr_bytes(rel, name, flags) {
            Ok(value) => match git2::AttrValue::from_bytes(value) {
                git2::AttrValue::True => Attr::Set,
                git2::AttrValue::False => Attr::Unset,
                git2::AttrValue::String(s) => Attr::Value(s.to_string()),
                git2::AttrValue::Bytes(b) => Attr::Value(String::from_utf8_lossy(b).into_owned()),
                git2::AttrValue::Unspecified => Attr::Unspecified,
            },
            Err(_) => Attr::Unspecified,
        }
    }

    /// The paths in the index (any stage, each once) that `keep` accepts, `/`-separated.
    pub fn index_paths(&self, keep: impl Fn(&str) -> bool) -> Vec<String> {
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        let mut paths: Vec<String> = index
            .iter()
            .filter_map(|e| String::from_utf8(e.path).ok())
            .filter(|p| keep(p))
            .collect();
        paths.dedup();
        paths
    }
}

/// Whether one commit reaches another, within a walk limit.
enum Reach {
    Yes,
    No,
    Unknown,
}

fn count_capped<T>(items: impl Iterator<Item = T>, cap: usize) -> (usize, bool) {
    let n = items.take(cap + 1).count();
    if n > cap { (cap, true) } else { (n, false) }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;
    use git2::{Signature, Time};

    fn commit(repo: &Repository, branch: &str, secs: i64, msg: &str) -> Oid {
        let sig = Signature::new("T", "t@example.com", &Time::new(secs, 0)).unwrap();
        let tree_id = repo.index().unwrap().write_tree().unwrap();
        let tree = repo.find_tree(tree_id).unwrap();
        let refname = format!("refs/heads/{branch}");
        let parent = repo
            .find_reference(&refname)
            .ok()
            .and_then(|r| r.peel_to_commit().ok());
        let parents: Vec<_> = parent.iter().collect();
        repo.commit(Some(&refname), &sig, &sig, msg, &tree, &parents)
            .unwrap()
    }

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(secs, 0).unwrap()
    }

    #[test]
    fn branch_head_and_unborn() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        repo.set_head("refs/heads/main").unwrap();
        let r = Repo::discover(dir.path(), &[]).unwrap();
        assert_eq!(r.current_branch().as_deref(), Some("main"));
        assert_eq!(r.head_commit(), None);
        let c = commit(&repo, "main", 1000, "one");
        assert_eq!(r.head_commit(), Some(c.to_string()));
        assert_eq!(r.branch_tip("main"), Some(c.to_string()));
        assert_eq!(r.branch_tip("nope"), None);
        repo.set_head_detached(c).unwrap();
        assert_eq!(r.current_branch(), None);
    }

    #[test]
    fn ceilings_stop_discovery() {
        let dir = tempfile::tempdir().unwrap();
        Repository::init(dir.path()).unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        assert!(Repo::discover(&sub, &[]).is_some());
        assert!(Repo::discover(&sub, &[dir.path().join("a")]).is_none());
    }

    #[test]
    fn divergence_exact_time_rewritten_and_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let base = commit(&repo, "feat", 1000, "base");
        commit(&repo, "feat", 2000, "a");
        commit(&repo, "feat", 3000, "b");
        let r = Repo::discover(dir.path(), &[]).unwrap();

        let d = r
            .divergence("feat", Some(&base.to_string()), at(0), WALK_CAP)
            .unwrap();
        assert_eq!(
            (d.commits, d.basis, d.rewritten),
            (2, Basis::Head, Some(false))
        );

        let d = r.divergence("feat", None, at(1500), WALK_CAP).unwrap();
        assert_eq!((d.commits, d.basis), (2, Basis::Time));
        // Exactly at a commit's time is not after it.
        let d = r.divergence("feat", None, at(2000), WALK_CAP).unwrap();
        assert_eq!(d.commits, 1);

        // A recorded commit this clone does not have: megg cannot know it was rewritten.
        let unknown = "1111111111111111111111111111111111111111";
        let d = r
            .divergence("feat", Some(unknown), at(2500), WALK_CAP)
            .unwrap();
        assert_eq!(d.rewritten, None);
        assert_eq!((d.commits, d.basis), (1, Basis::Time));

        // A commit that exists but is not an ancestor: rewritten, known for sure.
        let other = commit(&repo, "other", 500, "elsewhere");
        let d = r
            .divergence("feat", Some(&other.to_string()), at(2500), WALK_CAP)
            .unwrap();
        assert_eq!(d.rewritten, Some(true));
        // Past the walk limit the answer is unknown, never a wrong "rewritten".
        let d = r
            .divergence("feat", Some(&other.to_string()), at(2500), 2)
            .unwrap();
        assert_eq!(d.rewritten, None);

        // Without a recorded head a missing branch may never have existed here.
        let d = r.divergence("gone", None, at(0), WALK_CAP).unwrap();
        assert_eq!(d.branch_exists, None);
        let d = r.divergence("gone", Some(&base.to_string()), at(0), WALK_CAP);
        assert_eq!(d.unwrap().branch_exists, Some(false));
        assert!(r.divergence("", None, at(0), WALK_CAP).is_none());
    }

    #[test]
    fn linked_worktrees_know_the_main_root() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        let repo = Repository::init(&main).unwrap();
        commit(&repo, "master", 1000, "one");
        repo.set_head("refs/heads/master").unwrap();
        let wt_path = dir.path().join("wt");
        repo.worktree("wt", &wt_path, None).unwrap();
        let r = Repo::discover(&wt_path, &[]).unwrap();
        let got = r.main_worktree_root().unwrap();
        assert_eq!(
            std::fs::canonicalize(got).unwrap(),
            std::fs::canonicalize(&main).unwrap()
        );
        assert!(
            Repo::discover(&main, &[])
                .unwrap()
                .main_worktree_root()
                .is_none()
        );
    }

    #[test]
    fn ignore_rules() {
        let dir = tempfile::tempdir().unwrap();
        Repository::init(dir.path()).unwrap();
        std::fs::write(dir.path().join(".gitignore"), ".*.local.md\n").unwrap();
        let r = Repo::discover(dir.path(), &[]).unwrap();
        assert!(r.is_ignored(Path::new(".x.local.md")));
        assert!(!r.is_ignored(Path::new("x.md")));
    }

    #[test]
    fn config_keys_are_set_replaced_and_removed_in_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitconfig");
        let keys = ["merge.megg.name", "merge.megg.driver"];
        assert_eq!(config_file_values(&path, &keys).unwrap(), [None, None]);
        // A key set twice by hand (a multivar) is replaced by one value.
        std::fs::write(&path, "[merge \"megg\"]\n\tdriver = a\n\tdriver = b\n").unwrap();
        config_file_set(
            &path,
            &[("merge.megg.name", "n"), ("merge.megg.driver", "d")],
        )
        .unwrap();
        let values = config_file_values(&path, &keys).unwrap();
        assert_eq!(values, [Some("n".to_string()), Some("d".to_string())]);
        assert_eq!(
            std::fs::read_to_string(&path)
                .unwrap()
                .matches("driver")
                .count(),
            1
        );
        assert!(config_file_remove(&path, &keys).unwrap());
        assert!(!config_file_remove(&path, &keys).unwrap());
        assert_eq!(config_file_values(&path, &keys).unwrap(), [None, None]);
    }

    #[test]
    fn config_values_say_where_they_come_from_and_attributes_every_source() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let global = dir.path().join("global");
        std::fs::write(&global, "[merge \"megg\"]\n\tname = user\n").unwrap();
        repo.config()
            .unwrap()
            .set_str("merge.megg.driver", "local")
            .unwrap();
        let r = Repo::discover(dir.path(), &[]).unwrap();
        let value = |key| r.config_value(key, Some(&global));
        assert_eq!(
            value("merge.megg.name"),
            Some(ConfigValue {
                value: "user".into(),
                level: ConfigLevel::User
            })
        );
        assert_eq!(
            value("merge.megg.driver").unwrap().level,
            ConfigLevel::Repository
        );
        assert_eq!(value("merge.megg.nothing"), None);

        let rel = Path::new(".megg/knowledge.md");
        assert_eq!(r.attribute(rel, "merge"), Attr::Unspecified);
        std::fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        std::fs::write(
            dir.path().join(".git/info/attributes"),
            "**/.megg/knowledge.md merge=megg -diff\n",
        )
        .unwrap();
        let r = Repo::discover(dir.path(), &[]).unwrap();
        assert_eq!(r.attribute(rel, "merge"), Attr::Value("megg".into()));
        assert_eq!(r.attribute(rel, "diff"), Attr::Unset);
    }

    #[test]
    fn walk_cap() {
        assert_eq!(count_capped(0..5, WALK_CAP), (5, false));
        assert_eq!(count_capped(0..WALK_CAP, WALK_CAP), (WALK_CAP, false));
        assert_eq!(count_capped(0..WALK_CAP + 7, WALK_CAP), (WALK_CAP, true));
        assert_eq!(
            count_capped(0..HOOK_WALK_CAP + 1, HOOK_WALK_CAP),
            (HOOK_WALK_CAP, true)
        );
    }
}
