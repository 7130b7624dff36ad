//! The handoff history (SPEC §13.1): every `state.md` that `state write`, `state clear` or a
//! capture promotion replaces is kept first, unchanged, in `<common git dir>/megg/handoffs/`,
//! shared by every worktree of the repository so `git worktree remove` loses none (SPEC §18.2;
//! outside git: megg's cache directory, keyed by the domain) — per developer, never committed,
//! the newest [`KEEP`] kept. Each is named `<time>.<worktree key>.md`
//! ([`crate::megg::capture::store::worktree_key`]); one named `<time>.md` is the main
//! worktree's, kept by an older megg.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::fsx::{self, Boundary};
use crate::git::Repo;
use crate::megg::capture::store;
use crate::megg::discovery::Domain;

/// How many replaced handoffs are kept — of all worktrees together: a busy worktree's push
/// out the oldest, a removed one's among them (its session files keep its last captures).
pub const KEEP: usize = 100;

/// Where one project's (or, outside git, one domain's) handoff history lives.
#[derive(Debug, Clone)]
pub struct History {
    dir: PathBuf,
    boundary: Boundary,
    /// The worktree a handoff kept from here is named with (inside git).
    worktree: Option<store::WorktreeKey>,
}

impl History {
    /// Inside git `<common git dir>/megg/handoffs`, after moving what an older megg kept in a
    /// worktree's own git directory ([`store::migrate`]); outside, `<cache>/handoffs/<hash of
    /// key>`, `key` being the domain's directory. `None` outside git without a cache directory.
    pub fn locate(repo: Option<&Repo>, key: &Path, cache: Option<&Path>) -> Option<Self> {
        if let Some(r) = repo {
            store::migrate(r);
            let common = r.common_dir();
            return Some(Self {
                dir: common.join(store::HANDOFFS),
                boundary: Boundary::new(common, "the git directory"),
                worktree: Some(store::worktree_key(r)),
            });
        }
        let cache = cache?;
        let hash = xxhash_rust::xxh3::xxh3_64(key.as_os_str().as_encoded_bytes());
        Some(Self {
            dir: cache.join("handoffs").join(format!("{hash:016x}")),
            boundary: Boundary::new(cache, "megg's cache directory"),
            worktree: None,
        })
    }

    pub fn boundary(&self) -> &Boundary {
        &self.boundary
    }

    /// Keeps `bytes` (a state about to be replaced) as `<now>.<worktree key>.md` (outside git
    /// `<now>.md`), then drops all but the newest [`KEEP`].
    pub fn keep(&self, bytes: &[u8], now: DateTime<Utc>) -> crate::error::Result<PathBuf> {
        let time = now.format("%Y%m%dT%H%M%SZ");
        let name = match &self.worktree {
            Some(w) => {
                w.pin(&self.boundary);
                format!("{time}.{}.md", w.key)
            }
            None => format!("{time}.md"),
        };
        // Unchanged but for SPEC §12's redaction: a hand-written handoff (or an older megg's)
        // may hold a secret, and a kept copy is searched and shown.
        let redacted = match std::str::from_utf8(bytes) {
            Ok(text) => crate::megg::secrets::redact(text).into_owned().into_bytes(),
            Err(_) => bytes.to_vec(),
        };
        let path = fsx::create_unique(&self.boundary, &self.dir, &name, &redacted)?;
        for old in self.files().into_iter().skip(KEEP) {
            let _ = fsx::remove_file(&self.boundary, &old);
        }
        Ok(path)
    }

    /// The kept handoffs, newest first (by name: the time each was replaced).
    pub fn files(&self) -> Vec<PathBuf> {
        if fsx::kind(&self.boundary, &self.dir) != Some(fsx::Kind::Dir) {
            return Vec::new();
        }
        let mut names: Vec<String> = fsx::list(&self.boundary, &self.dir)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, k)| *k == fsx::Kind::File)
            .filter_map(|(n, _)| n.into_string().ok())
            .filter(|n| n.contains(".md"))
            .collect();
        names.sort_by(|a, b| b.cmp(a));
        names.into_iter().map(|n| self.dir.join(n)).collect()
    }
}

/// Keeps the domain's current `state.md` in the history before it is replaced or cleared (the
/// caller holds the state's lock). Nothing to keep, or a history that cannot be written, is
/// not an error: the write goes on.
pub fn keep_current(
    repo: Option<&Repo>,
    d: &Domain,
    cache: Option<&Path>,
    replacement: Option<&[u8]>,
    now: DateTime<Utc>,
) {
    let Ok(Some(bytes)) = fsx::read_bytes(
        &d.boundary,
        &d.state_path(),
        crate::megg::state::MAX_STATE_BYTES,
    ) else {
        return;
    };
    if bytes.is_empty() || replacement == Some(bytes.as_slice()) {
        return;
    }
    if let Some(h) = History::locate(repo, &d.dir, cache) {
        let _ = h.keep(&bytes, now);
    }
}
