//! Config files and attributes: megg's merge driver registration (SPEC §11 "Registration").

use std::path::{Path, PathBuf};

use super::Repo;

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
    let home = crate::fsx::home_dir()?;
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
    keeping_mode(path, || {
        let mut config = git2::Config::open(path).map_err(|e| config_error(path, &e))?;
        for (key, value) in entries {
            // A key set twice (by hand) is a multivar, which `set_str` refuses to overwrite.
            remove_all(&mut config, key).map_err(|e| config_error(path, &e))?;
            config
                .set_str(key, value)
                .map_err(|e| config_error(path, &e))?;
        }
        Ok(())
    })
}

/// Runs `write` (libgit2 rewriting the config file at `path` by a lock file and a rename) and
/// gives the file back its permission bits: libgit2 creates the new file with its default mode,
/// so a `0600` `~/.gitconfig` (it may hold credentials) would come back world-readable; git
/// itself keeps the mode. Only a regular file before and after is touched.
fn keeping_mode(
    path: &Path,
    write: impl FnOnce() -> Result<(), ConfigError>,
) -> Result<(), ConfigError> {
    let before = crate::fsx::regular_file_mode(path);
    write()?;
    if let Some(mode) = before {
        crate::fsx::restore_mode(path, mode);
    }
    Ok(())
}

/// Removes every value of each of `keys` from the config file at `path`; `true` when one was
/// there. libgit2 leaves the emptied section's header behind (callers tidy it).
pub fn config_file_remove(path: &Path, keys: &[&str]) -> Result<bool, ConfigError> {
    let had = config_file_values(path, keys)?.iter().any(Option::is_some);
    if had {
        keeping_mode(path, || {
            let mut config = git2::Config::open(path).map_err(|e| config_error(path, &e))?;
            for key in keys {
                remove_all(&mut config, key).map_err(|e| config_error(path, &e))?;
            }
            Ok(())
        })?;
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
}
