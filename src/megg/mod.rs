//! The domain: what `.megg` directories, knowledge, state and context are, as pure functions
//! over data plus the reads they need. Commands orchestrate these; renderers format them.

pub mod checkpoint;
pub mod context;
pub mod discovery;
pub mod gitignore;
pub mod init;
pub mod knowledge;
pub mod maintain;
pub mod project;
pub mod setup;
pub mod slug;
pub mod state;

use std::path::{Path, PathBuf};

use crate::git::Repo;

/// A lock for a file outside any project (Claude Code's user files): in megg's user cache
/// directory, so no lock file is left among the user's configuration; beside the file when
/// there is no cache directory.
pub fn user_lock_path(file: &Path) -> PathBuf {
    match crate::fsx::user_cache_dir() {
        Some(dir) => {
            let key = xxhash_rust::xxh3::xxh3_64(file.as_os_str().as_encoded_bytes());
            dir.join("locks").join(format!("{key:016x}.lock"))
        }
        None => lock_path(None, file),
    }
}

/// Where the lock for read-modify-writes of `file` lives: under the git directory inside a
/// repository (so it never shows in `git status`), else a hidden file beside `file`.
pub fn lock_path(repo: Option<&Repo>, file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "megg".into());
    match repo {
        Some(r) => {
            let key = xxhash_rust::xxh3::xxh3_64(file.as_os_str().as_encoded_bytes());
            r.common_dir()
                .join("megg/locks")
                .join(format!("{name}.{key:016x}.lock"))
        }
        None => file.with_file_name(format!(".{name}.lock")),
    }
}
