//! The domain: what `.megg` directories, knowledge, state and context are, as pure functions
//! over data plus the reads they need. Commands orchestrate these; renderers format them.

pub mod checkpoint;
pub mod context;
pub mod discovery;
pub mod gitignore;
pub mod init;
pub mod knowledge;
pub mod maintain;
pub mod slug;
pub mod state;

use std::path::{Path, PathBuf};

use crate::git::Repo;

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
