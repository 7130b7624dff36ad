//! The one gate for every file megg reads or writes (SPEC §1 "writes", "concurrency", §9).
//!
//! A repository is untrusted input, so nothing else in the crate opens, creates, renames or
//! deletes files (clippy's `disallowed_methods` enforces it, see `clippy.toml`). Every operation
//! names a [`Boundary`] — a directory the file must stay inside — and is carried out relative
//! to a handle on that directory (cap-std: `openat2(RESOLVE_BENEATH)` where the kernel has it,
//! a checked component walk where it does not), so checking and opening cannot race and no
//! link, `..` or absolute path leads out. Reads open non-blocking, check the type on the opened
//! descriptor (a FIFO or device is never read) and never read more than their limit plus one
//! byte, whatever size the file claims. Writes never follow a link out, never replace a
//! special file, create their temp files exclusively and rename them into place.

#![allow(clippy::disallowed_methods)]

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use cap_std::fs::{Dir, OpenOptions};

use crate::error::{Error, Result};

/// Why the gate refused a path. Each converts into a [`crate::error::Error`] of kind `User` with its
/// hint; the message names the path and, for a link, where it points (SPEC §9).
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("refused {}: outside {label} ({})", path.display(), root.display())]
    Outside {
        path: PathBuf,
        label: String,
        root: PathBuf,
    },
    #[error("refused {}: not a plain path inside {label}", path.display())]
    NotPlain { path: PathBuf, label: String },
    #[error("refused {}: no file name", path.display())]
    NoName { path: PathBuf },
    #[error("skipped {}: link leaves {label} (→ {})", path.display(), target.display())]
    LinkOut {
        path: PathBuf,
        label: String,
        target: PathBuf,
    },
    #[error("skipped {}: it is {kind}, not a regular file", path.display())]
    Special { path: PathBuf, kind: Kind },
    #[error("refused to write {}: {why}", path.display())]
    WriteThroughLink { path: PathBuf, why: String },
    #[error("refused to write {}: it is {kind}, not a regular file", path.display())]
    WriteSpecial { path: PathBuf, kind: Kind },
    #[error("refusing to rewrite {}: it is over the {limit}-byte limit", path.display())]
    RewriteOverLimit { path: PathBuf, limit: u64 },
    #[error("refusing to rewrite {}: it is not valid UTF-8 and rewriting would change its bytes", path.display())]
    RewriteNotUtf8 { path: PathBuf },
    #[error("{} is over the {limit}-byte limit", path.display())]
    OverLimit { path: PathBuf, limit: u64 },
    #[error("refused lock file {}: it is {kind}", path.display())]
    LockSpecial { path: PathBuf, kind: Kind },
    #[error("cannot create {}: 999 files of that name already exist", path.display())]
    NamesExhausted { path: PathBuf },
}

impl From<GateError> for Error {
    fn from(e: GateError) -> Self {
        let hint = match &e {
            GateError::LinkOut { label, .. } => Some(format!(
                "megg never follows a link out of {label}; to allow a directory you own, run: megg trust <dir>"
            )),
            GateError::WriteThroughLink { .. } => Some(
                "megg never writes through a link that leaves its boundary; replace the link with a file"
                    .to_string(),
            ),
            GateError::RewriteNotUtf8 { .. } => {
                Some("fix the file's encoding, then run the command again".to_string())
            }
            _ => None,
        };
        let err = Error::user(e.to_string());
        match hint {
            Some(h) => err.with_hint(h),
            None => err,
        }
    }
}

/// Prefix and suffix of megg's temp files: a name only megg uses, so stale ones can be removed.
const TEMP_PREFIX: &str = ".megg-";
const TEMP_SUFFIX: &str = ".tmp";
/// A megg temp file older than this was left by a killed megg; the next write removes it.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// A directory every file of one operation must stay inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Boundary {
    /// The root as callers spell paths under it (symlinks as walked).
    root: PathBuf,
    /// The directory actually opened for `root` (differs for a trusted `.megg` link).
    real: PathBuf,
    /// How messages name it: "the project", ".megg", "the git directory".
    label: String,
    /// Links may lead anywhere: the user's own configuration, which dotfile managers link.
    follow: bool,
}

impl Boundary {
    /// A boundary at `root`: nothing under it may lead out.
    pub fn new(root: impl Into<PathBuf>, label: impl Into<String>) -> Self {
        let root = root.into();
        Self {
            real: root.clone(),
            root,
            label: label.into(),
            follow: false,
        }
    }

    /// A boundary whose paths are spelled under `root` but opened under `real`.
    pub fn aliased(root: impl Into<PathBuf>, real: impl Into<PathBuf>, label: &str) -> Self {
        Self {
            root: root.into(),
            real: real.into(),
            label: label.into(),
            follow: false,
        }
    }

    /// The user's own directory (Claude Code's config, megg's config): links are followed,
    /// but reads are still bounded and special files still refused.
    pub fn user(root: impl Into<PathBuf>, label: impl Into<String>) -> Self {
        Self {
            follow: true,
            ..Self::new(root, label)
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    /// Whether `path` is spelled under this boundary.
    pub fn contains(&self, path: &Path) -> bool {
        self.relative(path).is_ok()
    }

    fn relative<'p>(&self, path: &'p Path) -> Result<&'p Path> {
        let rel = path
            .strip_prefix(&self.root)
            .map_err(|_| GateError::Outside {
                path: path.to_path_buf(),
                label: self.label.clone(),
                root: self.root.clone(),
            })?;
        if rel
            .components()
            .any(|c| !matches!(c, Component::Normal(n) if !sys::is_reserved_name(n)))
        {
            return Err(GateError::NotPlain {
                path: path.to_path_buf(),
                label: self.label.clone(),
            }
            .into());
        }
        Ok(rel)
    }

    fn open_root(&self) -> io::Result<Dir> {
        Dir::open_ambient_dir(&self.real, cap_std::ambient_authority())
    }

    /// The directory holding `path` and the file's name in it, opened inside the boundary.
    fn parent_of(&self, path: &Path) -> Result<(Dir, OsString)> {
        let rel = self.relative(path)?;
        let name = rel
            .file_name()
            .ok_or_else(|| GateError::NoName {
                path: path.to_path_buf(),
            })?
            .to_os_string();
        let parent = rel.parent().unwrap_or(Path::new(""));
        let dir = if self.follow {
            let abs = self.real.join(parent);
            Dir::open_ambient_dir(&abs, cap_std::ambient_authority())
                .map_err(|e| Error::io("open", &abs, &e))?
        } else {
            let root = self
                .open_root()
                .map_err(|e| Error::io("open", &self.root, &e))?;
            if parent.as_os_str().is_empty() {
                root
            } else {
                root.open_dir(parent)
                    .map_err(|e| self.refusal(&root, parent, &path_parent(path), e, "open"))?
            }
        };
        Ok((dir, name))
    }

    /// Explains why opening `rel` under `root` failed: a link that leads out of the boundary
    /// is named with where it points; anything else is an ordinary I/O error.
    fn refusal(&self, root: &Dir, rel: &Path, shown: &Path, err: io::Error, action: &str) -> Error {
        let mut prefix = PathBuf::new();
        for c in rel.components() {
            prefix.push(c);
            let Ok(meta) = root.symlink_metadata(&prefix) else {
                break;
            };
            if meta.file_type().is_symlink() && root.metadata(&prefix).is_err() {
                let target = root.read_link_contents(&prefix).unwrap_or_default();
                return GateError::LinkOut {
                    path: self.root.join(&prefix),
                    label: self.label.clone(),
                    target,
                }
                .into();
            }
        }
        Error::io(action, shown, &err)
    }
}

fn path_parent(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// What a directory entry or file is, without following links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Link,
    Fifo,
    Socket,
    Device,
    Other,
}

impl Kind {
    fn of(t: &impl FileTypeLike) -> Self {
        if t.is_symlink() {
            Kind::Link
        } else if t.is_file() {
            Kind::File
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_fifo() {
            Kind::Fifo
        } else if t.is_socket() {
            Kind::Socket
        } else if t.is_device() {
            Kind::Device
        } else {
            Kind::Other
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::File => "a file",
            Kind::Dir => "a directory",
            Kind::Link => "a link",
            Kind::Fifo => "a FIFO",
            Kind::Socket => "a socket",
            Kind::Device => "a device",
            Kind::Other => "not a regular file",
        })
    }
}

trait FileTypeLike {
    fn is_symlink(&self) -> bool;
    fn is_file(&self) -> bool;
    fn is_dir(&self) -> bool;
    fn is_fifo(&self) -> bool;
    fn is_socket(&self) -> bool;
    fn is_device(&self) -> bool;
}

impl FileTypeLike for std::fs::FileType {
    fn is_symlink(&self) -> bool {
        std::fs::FileType::is_symlink(self)
    }
    fn is_file(&self) -> bool {
        std::fs::FileType::is_file(self)
    }
    fn is_dir(&self) -> bool {
        std::fs::FileType::is_dir(self)
    }
    fn is_fifo(&self) -> bool {
        sys::is_fifo(self)
    }
    fn is_socket(&self) -> bool {
        sys::is_socket(self)
    }
    fn is_device(&self) -> bool {
        sys::is_device(self)
    }
}

impl FileTypeLike for cap_std::fs::FileType {
    fn is_symlink(&self) -> bool {
        cap_std::fs::FileType::is_symlink(self)
    }
    fn is_file(&self) -> bool {
        cap_std::fs::FileType::is_file(self)
    }
    fn is_dir(&self) -> bool {
        cap_std::fs::FileType::is_dir(self)
    }
    fn is_fifo(&self) -> bool {
        sys::cap_is_fifo(self)
    }
    fn is_socket(&self) -> bool {
        sys::cap_is_socket(self)
    }
    fn is_device(&self) -> bool {
        sys::cap_is_device(self)
    }
}

/// The names and kinds (links not followed) in directory `dir` inside `b`, unsorted.
pub fn list(b: &Boundary, dir: &Path) -> Result<Vec<(OsString, Kind)>> {
    let handle = if dir == b.root {
        b.open_root().map_err(|e| Error::io("list", dir, &e))?
    } else {
        let rel = b.relative(dir)?;
        let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
        root.open_dir(rel)
            .map_err(|e| b.refusal(&root, rel, dir, e, "list"))?
    };
    let entries = handle.entries().map_err(|e| Error::io("list", dir, &e))?;
    Ok(entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name(), Kind::of(&e.file_type().ok()?))))
        .collect())
}

/// Like [`list`], for regular files only, each with its modification time (for keeping the
/// newest N of something).
pub fn list_files_modified(b: &Boundary, dir: &Path) -> Result<Vec<(OsString, SystemTime)>> {
    let rel = b.relative(dir)?;
    let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
    let handle = if rel.as_os_str().is_empty() {
        root
    } else {
        root.open_dir(rel)
            .map_err(|e| b.refusal(&root, rel, dir, e, "list"))?
    };
    let entries = handle.entries().map_err(|e| Error::io("list", dir, &e))?;
    Ok(entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            if !meta.is_file() {
                return None;
            }
            Some((e.file_name(), meta.modified().ok()?.into_std()))
        })
        .collect())
}

/// Lists any directory the user walks through (the walks up, across and down): names and
/// kinds only, nothing is opened.
pub fn list_dir(dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name(), Kind::of(&e.file_type().ok()?))))
        .collect())
}

/// [`list_dir`] keeping only the entries of one of `kinds`: the names of the others are never
/// copied (a walk down looks for directories among a build's thousands of files).
pub fn list_dir_of(dir: &Path, kinds: &[Kind]) -> io::Result<Vec<(OsString, Kind)>> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let kind = Kind::of(&e.file_type().ok()?);
            kinds.contains(&kind).then(|| (e.file_name(), kind))
        })
        .collect())
}

/// What is at `path`, not following a final link (the walks' view of a directory entry).
pub fn lstat_kind(path: &Path) -> Option<Kind> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| Kind::of(&m.file_type()))
}

/// The permission bits of the regular file at `path` (a final link not followed), `None` for
/// anything else: for files another library rewrites (libgit2's config files), whose mode
/// megg gives back afterwards with [`restore_mode`]. On Windows, read-only or not.
pub fn regular_file_mode(path: &Path) -> Option<u32> {
    sys::regular_file_mode(path)
}

/// Gives the regular file at `path` the permission bits `mode` when it has others (best
/// effort: a file that is no longer a regular file, or a mode that cannot be set, is left).
pub fn restore_mode(path: &Path, mode: u32) {
    if regular_file_mode(path).is_some_and(|now| now != mode) {
        sys::set_path_mode(path, mode);
    }
}

/// Whether `path` is a directory, following links (for paths the user gave, like `-C`).
pub fn is_dir(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// Who owns a file: a uid on Unix, a SID on Windows (§9 "Ownership", §15.1).
pub use sys::Owner;

/// The owner of `path` (links followed), for the ownership rule of §9; `None` when it
/// cannot be read.
pub fn owner(path: &Path) -> Option<Owner> {
    sys::owner(path)
}

/// The user this process runs as.
pub fn current_user() -> Owner {
    sys::current_user()
}

/// Whether files of `o` count as everyone's: root, or Windows' Administrators and SYSTEM.
pub fn is_administrator(o: &Owner) -> bool {
    sys::is_administrator(o)
}

/// `uid 1001`, `SID S-1-5-21-…`: an owner as a message names it.
pub fn describe_owner(o: &Owner) -> String {
    sys::describe_owner(o)
}

/// Device and inode of `path` (links followed): a file's identity whatever its spelling (the
/// volume serial and file index on Windows).
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    sys::identity(path)
}

/// `path` with every link resolved, when it exists.
pub fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok().map(as_spelled)
}

/// `path` as the user spells it: Windows' canonical form `\\?\C:\…` is `C:\…`, and
/// `\\?\UNC\server\share` is `\\server\share` (SPEC §15.1: never print `\\?\`); any other
/// path as it is. Pure, so tested on every OS.
pub fn as_spelled(path: PathBuf) -> PathBuf {
    let Some(text) = path.to_str() else {
        return path;
    };
    if let Some(rest) = text.strip_prefix(r"\\?\UNC\") {
        return PathBuf::from(format!(r"\\{rest}"));
    }
    match text.strip_prefix(r"\\?\") {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => PathBuf::from(rest),
        _ => path,
    }
}

/// Where a link points, as written in it.
pub fn link_target(path: &Path) -> Option<PathBuf> {
    std::fs::read_link(path).ok()
}

/// Whether the file is a program (doctor's PATH check): executable by someone on Unix, an
/// extension in `PATHEXT` on Windows.
pub fn is_executable_file(path: &Path) -> bool {
    sys::is_executable_file(path)
}

/// The process's working directory.
pub fn current_dir() -> io::Result<PathBuf> {
    std::env::current_dir()
}

/// The user's home directory: `HOME` when set (Git Bash sets it on Windows too), else
/// `USERPROFILE` on Windows (PowerShell sets no `HOME`, SPEC §15.1).
pub fn home_dir() -> Option<PathBuf> {
    home_from(
        std::env::var_os("HOME"),
        cfg!(windows)
            .then(|| std::env::var_os("USERPROFILE"))
            .flatten(),
    )
}

/// [`home_dir`] from the two variables' values (pure: tested on every OS).
pub fn home_from(home: Option<OsString>, profile: Option<OsString>) -> Option<PathBuf> {
    [home, profile]
        .into_iter()
        .flatten()
        .find(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// A variable naming an absolute directory, `None` when unset, empty or relative.
fn absolute_var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
}

/// megg's own configuration directory: `$XDG_CONFIG_HOME/megg` when set, else
/// `%APPDATA%\megg` on Windows, else `~/.config/megg` (SPEC §15.1).
pub fn user_config_dir() -> Option<PathBuf> {
    if let Some(dir) = absolute_var("XDG_CONFIG_HOME") {
        return Some(dir.join("megg"));
    }
    if cfg!(windows)
        && let Some(roaming) = absolute_var("APPDATA")
    {
        return Some(roaming.join("megg"));
    }
    Some(home_dir()?.join(".config").join("megg"))
}

/// `MEGG_CACHE_DIR`, else `$XDG_CACHE_HOME/megg`, else `%LOCALAPPDATA%\megg` (Windows),
/// `~/Library/Caches/megg` (macOS) or `~/.cache/megg`. An empty `MEGG_CACHE_DIR` disables the
/// cache.
pub fn user_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("MEGG_CACHE_DIR") {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    if let Some(dir) = absolute_var("XDG_CACHE_HOME") {
        return Some(dir.join("megg"));
    }
    if cfg!(windows)
        && let Some(local) = absolute_var("LOCALAPPDATA")
    {
        return Some(local.join("megg"));
    }
    let home = home_dir()?;
    Some(if cfg!(target_os = "macos") {
        home.join("Library/Caches/megg")
    } else {
        home.join(".cache/megg")
    })
}

/// A directory of the user's own for lock files when there is no cache directory (an empty
/// `MEGG_CACHE_DIR`, no `HOME`): on Unix `$XDG_RUNTIME_DIR/megg`, else `<temp>/megg-<uid>`,
/// created with mode 0700 and used only when it is a real directory owned by this user — never
/// a directory someone else planted in a shared temp directory; on Windows
/// `%LOCALAPPDATA%\megg\locks`.
pub fn user_lock_dir() -> Option<PathBuf> {
    sys::user_lock_dir()
}

/// Why a directory cannot be written (a lock's refusal says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadOnly {
    /// The file system is mounted read-only.
    FileSystem,
    /// This user may not write it.
    #[cfg_attr(windows, allow(dead_code))]
    ForYou,
}

/// How long a command waits, at most, for a file another program holds open (an editor, an
/// indexer, antivirus on Windows, SPEC §15.1), in milliseconds; a hook or capture waits for
/// nothing ([`never_wait`]).
static PATIENCE_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(2000);

/// From here on, a file another program holds is not waited for (the hook path: it skips that
/// write, logs why and exits 0).
pub fn never_wait() {
    PATIENCE_MS.store(0, Ordering::Relaxed);
}

/// Runs `op` again while another program holds the file (never on Unix, where a held file can
/// always be replaced), for at most the patience; then its last error.
fn while_held<T>(mut op: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let patience = Duration::from_millis(PATIENCE_MS.load(Ordering::Relaxed));
    let start = std::time::Instant::now();
    loop {
        match op() {
            Err(e) if sys::is_held(&e) && start.elapsed() < patience => {
                std::thread::sleep(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Whether `e` is another program holding the file.
fn is_held(e: &io::Error) -> bool {
    sys::is_held(e)
}

/// Whether `name` is one Windows reserves for a device in every directory: `CON`, `PRN`,
/// `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9` (and their superscript-digit forms), whatever
/// follows a dot or trailing spaces (`nul.txt`, `CON .md`). Opening one reaches the device, not
/// a file, so the gate never does on Windows (SPEC §15.1); pure, so tested on every OS.
#[cfg_attr(not(windows), allow(dead_code))]
pub(crate) fn reserved_device_name(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    let stem = name.split('.').next().unwrap_or("").trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        _ => {
            let (head, digit) = (upper.get(..3), upper.get(3..));
            matches!(head, Some("COM" | "LPT"))
                && matches!(digit, Some(d) if d.chars().count() == 1
                    && d.chars().all(|c| c.is_ascii_digit() || "¹²³".contains(c)))
        }
    }
}

#[cfg(unix)]
#[path = "unix.rs"]
mod sys;
#[cfg(windows)]
#[path = "windows.rs"]
mod sys;

mod clock;
mod down;
mod lock;
mod read;
mod write;

pub use clock::{ChangeTime, ChangeTimes, clock};
pub use down::{Below, Listing};
pub use lock::Lock;
pub use read::*;
pub use write::*;

/// On real Unix directories: links, modes, FIFOs.
#[cfg(test)]
#[cfg(unix)]
mod tests;

#[cfg(test)]
mod portable_tests;
