//! The user's own configuration, `$XDG_CONFIG_HOME/megg/config.toml` (else
//! `~/.config/megg/config.toml`): the only source of trust (SPEC §9). Trust is never taken
//! from an environment variable alone or from a file inside a repository — a cloned
//! repository's `.claude/settings.json` can set environment variables for the session, so a
//! config file that resolves inside the starting directory's project is ignored.

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item, value};

use crate::error::Error;
use crate::error::Result;
use crate::fsx::{self, Boundary};

/// Most bytes read from the config file.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The config file's path.
pub fn path() -> Option<PathBuf> {
    Some(crate::fsx::user_config_dir()?.join("config.toml"))
}

fn boundary(file: &Path) -> Boundary {
    Boundary::user(
        file.parent().unwrap_or(Path::new("/")),
        "megg's config directory",
    )
}

/// What the user's config says, read once per run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserConfig {
    /// The trusted directories (canonical).
    pub trusted: Vec<PathBuf>,
    /// `host_summary` (SPEC §18.1): only `false` turns the hosts' summaries off.
    pub host_summary: bool,
    /// Why the config could not be used, if it could not.
    pub warnings: Vec<String>,
}

/// The user's config, for a run started for `project`: a config file inside it is the
/// repository's, not the user's, and is ignored (it cannot grant trust).
pub fn load(project: &Path) -> UserConfig {
    let mut out = UserConfig {
        trusted: Vec::new(),
        host_summary: true,
        warnings: Vec::new(),
    };
    let Some(file) = path() else {
        return out;
    };
    if let (Some(real), Some(proj)) = (fsx::canonical(&file), fsx::canonical(project))
        && real.starts_with(&proj)
    {
        out.warnings.push(format!(
            "ignored {}: a config file inside the project cannot grant trust",
            file.display()
        ));
        return out;
    }
    match read(&file) {
        Ok(doc) => {
            out.trusted = list(&doc)
                .into_iter()
                .map(|d| fsx::canonical(&d).unwrap_or(d))
                .collect();
            out.host_summary = doc.get(HOST_SUMMARY_KEY).and_then(Item::as_bool) != Some(false);
        }
        Err(e) => out.warnings.push(e.message),
    }
    out
}

fn read(file: &Path) -> Result<DocumentMut> {
    let text = fsx::read_for_edit(&boundary(file), file, MAX_CONFIG_BYTES)?.unwrap_or_default();
    text.parse::<DocumentMut>().map_err(|e| {
        Error::corrupt(format!("cannot parse {}: {}", file.display(), e.message()))
            .with_hint("fix the TOML by hand; megg leaves it as it is")
    })
}

fn list(doc: &DocumentMut) -> Vec<PathBuf> {
    doc.get("trusted_dirs")
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str())
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `dir` (canonical) is a trusted directory or inside one.
pub fn is_trusted(dir: &Path, trusted: &[PathBuf]) -> bool {
    trusted.iter().any(|t| dir.starts_with(t))
}

/// Changes `trusted_dirs` under a lock (read, `edit`, write), keeping every other key and
/// comment of the file. Writes only when `edit` says it changed something.
pub fn edit_list(
    edit: impl FnOnce(&mut Vec<PathBuf>) -> bool,
) -> Result<(PathBuf, Vec<PathBuf>, bool)> {
    let mut dirs = Vec::new();
    let (file, changed) = edit_file(|doc| {
        dirs = list(doc);
        let changed = edit(&mut dirs);
        if changed {
            let mut array = Array::new();
            for d in &dirs {
                array.push(d.to_string_lossy().into_owned());
            }
            *doc.entry("trusted_dirs").or_insert(Item::None) = value(array);
        }
        changed
    })?;
    Ok((file, dirs, changed))
}

/// Changes the config file under its lock: read, `edit` (which says whether it changed
/// anything), write only then; every other key and comment stays.
fn edit_file(edit: impl FnOnce(&mut DocumentMut) -> bool) -> Result<(PathBuf, bool)> {
    let file = path().ok_or_else(|| {
        Error::user("cannot find the config directory: none of XDG_CONFIG_HOME, HOME (USERPROFILE, APPDATA on Windows) is set")
    })?;
    let b = boundary(&file);
    fsx::create_dir_all(&b, b.root())?;
    let _lock = fsx::Lock::acquire(&b, &file.with_file_name(".config.toml.lock"))?;
    let mut doc = read(&file)?;
    let changed = edit(&mut doc);
    if changed {
        fsx::write_atomic(&b, &file, doc.to_string().as_bytes())?;
    }
    Ok((file, changed))
}

/// The config's `host_summary` (SPEC §18.1): `false` turns the hosts' compaction summaries
/// off; absent, unreadable or anything else is on.
pub fn host_summary(project: &Path) -> bool {
    load(project).host_summary
}

/// The key of [`host_summary`].
pub const HOST_SUMMARY_KEY: &str = "host_summary";

/// Sets `host_summary` under the config's lock, keeping every other key and comment; returns
/// the file and whether it changed. On is the key's absence.
pub fn set_host_summary(on: bool) -> Result<(PathBuf, bool)> {
    edit_file(|doc| {
        let present = doc.get(HOST_SUMMARY_KEY).is_some();
        let now = doc
            .get(HOST_SUMMARY_KEY)
            .and_then(Item::as_bool)
            .unwrap_or(true);
        if now == on && present != on {
            return false;
        }
        if on {
            doc.remove(HOST_SUMMARY_KEY);
        } else {
            *doc.entry(HOST_SUMMARY_KEY).or_insert(Item::None) = value(false);
        }
        true
    })
}
