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
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};

use crate::error::{Error, Result};

/// Why the gate refused a path. Each converts into a [`crate::Error`] of kind `User` with its
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
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
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
        std::os::unix::fs::FileTypeExt::is_fifo(self)
    }
    fn is_socket(&self) -> bool {
        std::os::unix::fs::FileTypeExt::is_socket(self)
    }
    fn is_device(&self) -> bool {
        std::os::unix::fs::FileTypeExt::is_block_device(self)
            || std::os::unix::fs::FileTypeExt::is_char_device(self)
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
        cap_std::fs::FileTypeExt::is_fifo(self)
    }
    fn is_socket(&self) -> bool {
        cap_std::fs::FileTypeExt::is_socket(self)
    }
    fn is_device(&self) -> bool {
        cap_std::fs::FileTypeExt::is_block_device(self)
            || cap_std::fs::FileTypeExt::is_char_device(self)
    }
}

/// Text read from a file. Invalid UTF-8 is replaced with U+FFFD and reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub text: String,
    /// The file held bytes that are not UTF-8.
    pub lossy: bool,
    /// Bytes read (at most the limit).
    pub len: u64,
    /// The file is longer than the limit: `text` is its first `limit` bytes.
    pub truncated: bool,
}

fn read_flags() -> i32 {
    // Opening a FIFO for reading blocks until a writer appears; O_NONBLOCK returns at once,
    // and fstat on the descriptor then tells us not to read it.
    (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32
}

/// Reads at most `limit` bytes of the regular file at `path` inside `b`; `Ok(None)` when it
/// does not exist. A link out of the boundary, a special file or an unreadable file is an
/// error whose message starts `skipped <path>:` and names where a link points.
pub fn read_text(b: &Boundary, path: &Path, limit: u64) -> Result<Option<Text>> {
    let mut opts = OpenOptions::new();
    opts.read(true).custom_flags(read_flags());
    let opened = if b.follow {
        cap_std::fs::File::open_ambient_with(path, &opts, cap_std::ambient_authority())
    } else {
        let rel = b.relative(path)?;
        let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
        match root.open_with(rel, &opts) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(b.refusal(&root, rel, path, e, "read")),
            Ok(f) => Ok(f),
        }
    };
    let file = match opened {
        Ok(f) => f.into_std(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("read", path, &e)),
    };
    let meta = file.metadata().map_err(|e| Error::io("read", path, &e))?;
    let kind = Kind::of(&meta.file_type());
    if kind != Kind::File {
        return Err(GateError::Special {
            path: path.to_path_buf(),
            kind,
        }
        .into());
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, &e))?;
    let truncated = bytes.len() as u64 > limit;
    if truncated {
        bytes.truncate(limit as usize);
        // Don't report a character cut in half by the limit as invalid UTF-8.
        if let Err(e) = std::str::from_utf8(&bytes)
            && e.error_len().is_none()
        {
            bytes.truncate(e.valid_up_to());
        }
    }
    let len = bytes.len() as u64;
    Ok(Some(match String::from_utf8(bytes) {
        Ok(text) => Text {
            text,
            lossy: false,
            len,
            truncated,
        },
        Err(e) => Text {
            text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
            lossy: true,
            len,
            truncated,
        },
    }))
}

/// Like [`read_text`] for a file megg will rewrite: a file over `limit` or with bytes that are
/// not UTF-8 is refused, because writing it back would lose what could not be read.
pub fn read_for_edit(b: &Boundary, path: &Path, limit: u64) -> Result<Option<String>> {
    let Some(t) = read_text(b, path, limit)? else {
        return Ok(None);
    };
    if t.truncated {
        return Err(GateError::RewriteOverLimit {
            path: path.to_path_buf(),
            limit,
        }
        .into());
    }
    if t.lossy {
        return Err(GateError::RewriteNotUtf8 {
            path: path.to_path_buf(),
        }
        .into());
    }
    Ok(Some(t.text))
}

/// Reads a file the user named on the command line (`--file F`): wherever it is, but only a
/// regular file, without blocking, and at most `limit` bytes (more is an error).
pub fn read_named(path: &Path, limit: u64) -> Result<Text> {
    let b = Boundary::user(path_parent(path), "its directory");
    let t = read_text(&b, path, limit)?
        .ok_or_else(|| Error::user(format!("{} does not exist", path.display())))?;
    if t.truncated {
        return Err(GateError::OverLimit {
            path: path.to_path_buf(),
            limit,
        }
        .into());
    }
    Ok(t)
}

/// Reads stdin up to `limit` bytes. Returns the text, whether invalid UTF-8 was replaced, and
/// whether input was cut at the limit (the rest is never read).
pub fn read_stdin(limit: u64) -> Result<(String, bool, bool)> {
    let mut bytes = Vec::new();
    io::stdin()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::user(format!("cannot read stdin: {e}")))?;
    let cut = bytes.len() as u64 > limit;
    if cut {
        bytes.truncate(limit as usize);
        if let Err(e) = std::str::from_utf8(&bytes)
            && e.error_len().is_none()
        {
            bytes.truncate(e.valid_up_to());
        }
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => (s, false, cut),
        Err(e) => (
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            true,
            cut,
        ),
    })
}

/// Most bytes read from stdin by any command (SPEC §9).
pub const MAX_STDIN_BYTES: u64 = 1024 * 1024;

/// What is at `path` inside `b`, without following a final link; `None` when nothing is.
pub fn kind(b: &Boundary, path: &Path) -> Option<Kind> {
    let (dir, name) = b.parent_of(path).ok()?;
    dir.symlink_metadata(&name)
        .ok()
        .map(|m| Kind::of(&m.file_type()))
}

/// Whether `path` is a regular file inside `b` (a link to one inside `b` counts).
pub fn is_file(b: &Boundary, path: &Path) -> bool {
    let Ok(rel) = b.relative(path) else {
        return false;
    };
    if b.follow {
        return std::fs::metadata(path).is_ok_and(|m| m.is_file());
    }
    b.open_root()
        .and_then(|root| root.metadata(rel))
        .is_ok_and(|m| m.is_file())
}

/// Resolves a write to `path`: the directory and name the bytes land on. A link is followed
/// only while it stays inside the boundary; a special file or directory is refused.
fn write_target(b: &Boundary, path: &Path) -> Result<(Dir, OsString, Option<u32>)> {
    let (dir, name) = b.parent_of(path)?;
    let meta = match dir.symlink_metadata(&name) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((dir, name, None)),
        Err(e) => return Err(Error::io("write", path, &e)),
        Ok(m) => m,
    };
    match Kind::of(&meta.file_type()) {
        Kind::File => Ok((
            dir,
            name,
            Some(cap_std::fs::PermissionsExt::mode(&meta.permissions())),
        )),
        Kind::Link => {
            let refuse = |why: String| {
                Error::from(GateError::WriteThroughLink {
                    path: path.to_path_buf(),
                    why,
                })
            };
            let target = dir.read_link_contents(&name).unwrap_or_default();
            if b.follow {
                let real = std::fs::canonicalize(path)
                    .map_err(|_| refuse(format!("link points nowhere (→ {})", target.display())))?;
                return write_target(&Boundary::user(path_parent(&real), &b.label), &real);
            }
            let rel = b.relative(path)?;
            let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
            let real_rel = root.canonicalize(rel).map_err(|_| {
                refuse(format!(
                    "link leaves {} or points nowhere (→ {})",
                    b.label,
                    target.display()
                ))
            })?;
            let real_abs = b.root.join(&real_rel);
            if real_rel == rel {
                return Err(refuse("link loop".into()));
            }
            write_target(b, &real_abs)
        }
        kind => Err(GateError::WriteSpecial {
            path: path.to_path_buf(),
            kind,
        }
        .into()),
    }
}

static TEMP_COUNTER: AtomicU32 = AtomicU32::new(0);

fn temp_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "{TEMP_PREFIX}{}-{nanos:08x}-{n}{TEMP_SUFFIX}",
        std::process::id()
    )
}

/// Removes megg temp files older than [`STALE_TEMP_AGE`] from `dir`: a killed megg leaves
/// them, and they must not linger in `git status`.
fn remove_stale_temps(dir: &Dir) {
    let Ok(entries) = dir.entries() else { return };
    let now = SystemTime::now();
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name();
        let s = name.to_string_lossy();
        if !(s.starts_with(TEMP_PREFIX) && s.ends_with(TEMP_SUFFIX)) {
            continue;
        }
        let old = dir
            .symlink_metadata(&name)
            .ok()
            .and_then(|m| m.modified().ok())
            .map(|t| t.into_std())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE_TEMP_AGE);
        if old {
            let _ = dir.remove_file(&name);
        }
    }
}

fn new_file_options(mode: u32) -> OpenOptions {
    let mut opts = OpenOptions::new();
    // create_new is O_EXCL: never opens, truncates or follows what is already there.
    opts.write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    opts
}

/// Replaces `path` (inside `b`) with `bytes` atomically: a temp file created exclusively in
/// the same directory, fsync, rename. An existing file's mode is kept; a new file gets 0666
/// minus the umask. A link out of the boundary or a special file is refused, nothing written.
pub fn write_atomic(b: &Boundary, path: &Path, bytes: &[u8]) -> Result<()> {
    let (dir, name, mode) = write_target(b, path)?;
    if crate::failpoint::off("no-atomic") {
        return write_in_place(&dir, &name, path, bytes);
    }
    remove_stale_temps(&dir);
    let tmp = temp_name();
    let file = dir
        .open_with(&tmp, &new_file_options(0o666))
        .map_err(|e| Error::io("create a temporary file beside", path, &e))?;
    let mut file = file.into_std();
    let result = (|| -> io::Result<()> {
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            file.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
        }
        file.sync_all()?;
        crate::failpoint::pause();
        dir.rename(&tmp, &dir, &name)
    })();
    if let Err(e) = result {
        let _ = dir.remove_file(&tmp);
        return Err(Error::io("write", path, &e));
    }
    // Make the rename itself durable; failure here loses nothing already visible.
    if let Ok(d) = dir.try_clone() {
        let _ = d.into_std_file().sync_all();
    }
    Ok(())
}

/// The unprotected write a test switches on (`no-atomic`) to show what the rename prevents:
/// a reader between the two halves sees a torn file.
fn write_in_place(dir: &Dir, name: &OsString, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut opts = OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    let mut file = dir
        .open_with(name, &opts)
        .map_err(|e| Error::io("write", path, &e))?
        .into_std();
    let (first, rest) = bytes.split_at(bytes.len() / 2);
    file.write_all(first)
        .map_err(|e| Error::io("write", path, &e))?;
    crate::failpoint::pause();
    file.write_all(rest)
        .map_err(|e| Error::io("write", path, &e))
}

/// Creates `path` with `bytes`, exclusively: never over an existing file or through a link.
/// `Ok(false)` when something is already there.
pub fn create_new(b: &Boundary, path: &Path, bytes: &[u8]) -> Result<bool> {
    let (dir, name) = b.parent_of(path)?;
    let mut file = match dir.open_with(&name, &new_file_options(0o666)) {
        Ok(f) => f.into_std(),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(Error::io("create", path, &e)),
    };
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("write", path, &e))?;
    Ok(true)
}

/// Creates a file named `base` in `dir` (inside `b`), or `base.2`, `base.3`… when taken:
/// backups and quarantine copies never replace anything. Returns the path written.
pub fn create_unique(b: &Boundary, dir: &Path, base: &str, bytes: &[u8]) -> Result<PathBuf> {
    create_dir_all(b, dir)?;
    for n in 1..1000 {
        let name = if n == 1 {
            base.to_string()
        } else {
            format!("{base}.{n}")
        };
        let path = dir.join(&name);
        if create_new(b, &path, bytes)? {
            return Ok(path);
        }
    }
    Err(GateError::NamesExhausted {
        path: dir.join(base),
    }
    .into())
}

/// Moves the file at `from` (inside `from_b`) into `to_dir` (inside `to_b`) as `base`, or
/// `base.2`, `base.3`… when taken: a quarantine never replaces anything, and the bytes exist
/// in the new place before the old name goes. Returns the new path.
pub fn move_unique(
    from_b: &Boundary,
    from: &Path,
    to_b: &Boundary,
    to_dir: &Path,
    base: &str,
) -> Result<PathBuf> {
    create_dir_all(to_b, to_dir)?;
    let (src_dir, src_name) = from_b.parent_of(from)?;
    let (dst_dir, _) = to_b.parent_of(&to_dir.join(base))?;
    for n in 1..1000 {
        let name = if n == 1 {
            base.to_string()
        } else {
            format!("{base}.{n}")
        };
        let target = to_dir.join(&name);
        // link(2) fails rather than replace an existing name: exclusive by construction.
        match src_dir.hard_link(&src_name, &dst_dir, &name) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(_) => {
                // Another file system (or no hard links): copy the bytes, then remove.
                let Some(bytes) = read_bytes(from_b, from, MAX_MOVE_BYTES)? else {
                    return Err(Error::user(format!("{} disappeared", from.display())));
                };
                if !create_new(to_b, &target, &bytes)? {
                    continue;
                }
            }
        }
        src_dir
            .remove_file(&src_name)
            .map_err(|e| Error::io("remove", from, &e))?;
        return Ok(target);
    }
    Err(Error::user(format!(
        "cannot move {} into {}: 999 files of that name already exist",
        from.display(),
        to_dir.display()
    )))
}

/// Most bytes copied when a move has to copy.
const MAX_MOVE_BYTES: u64 = 64 * 1024 * 1024;

/// The raw bytes of a regular file inside `b`, at most `limit` (more is an error).
fn read_bytes(b: &Boundary, path: &Path, limit: u64) -> Result<Option<Vec<u8>>> {
    let rel = b.relative(path)?;
    let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
    let mut opts = OpenOptions::new();
    opts.read(true).custom_flags(read_flags());
    let file = match root.open_with(rel, &opts) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(b.refusal(&root, rel, path, e, "read")),
        Ok(f) => f.into_std(),
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(Error::user(format!(
            "skipped {}: not a regular file",
            path.display()
        )));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, &e))?;
    if bytes.len() as u64 > limit {
        return Err(GateError::OverLimit {
            path: path.to_path_buf(),
            limit,
        }
        .into());
    }
    Ok(Some(bytes))
}

/// Deletes a file (a link is removed itself, never its target); `Ok(false)` when it was
/// already gone.
pub fn remove_file(b: &Boundary, path: &Path) -> Result<bool> {
    if kind(b, path).is_none() {
        // Nothing there (its directory may not exist either).
        return Ok(false);
    }
    let (dir, name) = b.parent_of(path)?;
    match dir.remove_file(&name) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("delete", path, &e)),
    }
}

/// Removes an empty directory; `false` when it is not empty or not there.
pub fn remove_empty_dir(b: &Boundary, path: &Path) -> bool {
    b.parent_of(path)
        .is_ok_and(|(dir, name)| dir.remove_dir(&name).is_ok())
}

/// Creates `path` and its parents inside `b`.
pub fn create_dir_all(b: &Boundary, path: &Path) -> Result<()> {
    if b.follow {
        return std::fs::create_dir_all(path).map_err(|e| Error::io("create", path, &e));
    }
    let rel = b.relative(path).or_else(|e| {
        if path == b.root {
            Ok(Path::new(""))
        } else {
            Err(e)
        }
    })?;
    // The boundary's root is the anchor megg chose (a `.megg`, the git or cache directory):
    // create it where it is missing; everything below it is created inside it.
    if !is_dir(&b.real) {
        std::fs::create_dir_all(&b.real).map_err(|e| Error::io("create", &b.root, &e))?;
    }
    let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
    if rel.as_os_str().is_empty() {
        return Ok(());
    }
    root.create_dir_all(rel)
        .map_err(|e| b.refusal(&root, rel, path, e, "create"))
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

/// Lists any directory the user walks through (the walks up, across and down): names and
/// kinds only, nothing is opened.
pub fn list_dir(dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
    Ok(std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name(), Kind::of(&e.file_type().ok()?))))
        .collect())
}

/// What is at `path`, not following a final link (the walks' view of a directory entry).
pub fn lstat_kind(path: &Path) -> Option<Kind> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| Kind::of(&m.file_type()))
}

/// Whether `path` is a directory, following links (for paths the user gave, like `-C`).
pub fn is_dir(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// The owner's user id of `path` (links followed), for the ownership rule of §9.
pub fn owner(path: &Path) -> Option<u32> {
    std::fs::metadata(path).ok().map(|m| m.uid())
}

/// Device and inode of `path` (links followed): a file's identity whatever its spelling.
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// `path` with every link resolved, when it exists.
pub fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Where a link points, as written in it.
pub fn link_target(path: &Path) -> Option<PathBuf> {
    std::fs::read_link(path).ok()
}

/// Whether the file's bytes are executable by someone (doctor's PATH check).
pub fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The process's working directory.
pub fn current_dir() -> io::Result<PathBuf> {
    std::env::current_dir()
}

/// `MEGG_CACHE_DIR`, else `$XDG_CACHE_HOME/megg`, else `~/Library/Caches/megg` (macOS) or
/// `~/.cache/megg`. An empty `MEGG_CACHE_DIR` disables the cache.
pub fn user_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("MEGG_CACHE_DIR") {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| Path::new(d).is_absolute()) {
        return Some(PathBuf::from(dir).join("megg"));
    }
    let home = PathBuf::from(std::env::var_os("HOME").filter(|h| !h.is_empty())?);
    Some(if cfg!(target_os = "macos") {
        home.join("Library/Caches/megg")
    } else {
        home.join(".cache/megg")
    })
}

/// An exclusive lock held until dropped. It lives on a separate lock file, never the data
/// file: the atomic rename replaces the data file's inode and would silently drop the lock.
#[derive(Debug)]
pub struct Lock {
    _file: std::fs::File,
    path: PathBuf,
}

impl Lock {
    /// Blocks until the lock at `lock_path` (inside `b`) is ours, creating the file and its
    /// directory. The lock file is opened without following a link and must be a regular file.
    pub fn acquire(b: &Boundary, lock_path: &Path) -> Result<Self> {
        create_dir_all(b, &path_parent(lock_path))?;
        let (dir, name) = b.parent_of(lock_path)?;
        let mut opts = OpenOptions::new();
        opts.write(true)
            .create(true)
            .truncate(false)
            .mode(0o666)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
            );
        let file = dir
            .open_with(&name, &opts)
            .map_err(|e| Error::io("open lock file", lock_path, &e))?
            .into_std();
        let kind = file
            .metadata()
            .map(|m| Kind::of(&m.file_type()))
            .map_err(|e| Error::io("open lock file", lock_path, &e))?;
        if kind != Kind::File {
            return Err(GateError::LockSpecial {
                path: lock_path.to_path_buf(),
                kind,
            }
            .into());
        }
        if !crate::failpoint::off("no-lock") {
            file.lock().map_err(|e| Error::io("lock", lock_path, &e))?;
        }
        Ok(Self {
            _file: file,
            path: lock_path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn boundary(dir: &tempfile::TempDir) -> Boundary {
        Boundary::new(dir.path(), "the project")
    }

    #[test]
    fn atomic_write_creates_and_replaces_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.md");
        write_atomic(&boundary(&dir), &p, b"one").unwrap();
        write_atomic(&boundary(&dir), &p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp files left behind");
    }

    #[test]
    fn atomic_write_keeps_an_existing_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.md");
        fs::write(&p, "x").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&boundary(&dir), &p, b"y").unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[test]
    fn new_files_are_not_private_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.md");
        write_atomic(&boundary(&dir), &p, b"y").unwrap();
        // 0666 minus whatever umask the test runs under; never a temp file's 0600.
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode, 0o600);
        assert_eq!(mode & 0o400, 0o400);
    }

    #[test]
    fn writing_through_a_link_inside_writes_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.md");
        let link = dir.path().join("link.md");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink("real.md", &link).unwrap();
        write_atomic(&boundary(&dir), &link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn writing_through_a_link_out_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("bashrc");
        fs::write(&victim, "mine").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("state.md");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let err = write_atomic(&boundary(&dir), &link, b"theirs").unwrap_err();
        assert!(err.message.starts_with("refused to write"), "{err:?}");
        assert_eq!(fs::read(&victim).unwrap(), b"mine");
        // A directory linked out is refused too.
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
        let err = write_atomic(&boundary(&dir), &dir.path().join("sub/bashrc"), b"x");
        assert!(err.unwrap_err().message.contains("link leaves the project"));
        assert_eq!(fs::read(&victim).unwrap(), b"mine");
    }

    #[test]
    fn reads_refuse_links_out_and_special_files_without_blocking() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "key").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let b = boundary(&dir);
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("k.md")).unwrap();
        let err = read_text(&b, &dir.path().join("k.md"), 100).unwrap_err();
        assert!(
            err.message.contains("link leaves the project (→ "),
            "{err:?}"
        );
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            dir.path().join("fifo.md"),
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let err = read_text(&b, &dir.path().join("fifo.md"), 100).unwrap_err();
        assert!(err.message.contains("a FIFO"), "{err:?}");
        fs::create_dir(dir.path().join("d.md")).unwrap();
        assert!(read_text(&b, &dir.path().join("d.md"), 100).is_err());
    }

    #[test]
    fn reads_stop_at_their_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.md");
        fs::write(&p, "aé".repeat(100)).unwrap();
        let t = read_text(&boundary(&dir), &p, 4).unwrap().unwrap();
        assert!(t.truncated);
        assert_eq!(
            t.text, "aéa",
            "cut at a character boundary, not flagged lossy"
        );
        assert!(!t.lossy);
        let err = read_for_edit(&boundary(&dir), &p, 4).unwrap_err();
        assert!(err.message.contains("over the 4-byte limit"));
    }

    #[test]
    fn invalid_utf8_is_replaced_and_flagged() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.md");
        fs::write(&p, b"ok \xff\xfe end").unwrap();
        let t = read_text(&boundary(&dir), &p, 100).unwrap().unwrap();
        assert!(t.lossy);
        assert!(t.text.contains('\u{FFFD}'));
        assert_eq!(t.len, 9);
        assert!(read_for_edit(&boundary(&dir), &p, 100).is_err());
        let missing = dir.path().join("missing");
        assert!(read_text(&boundary(&dir), &missing, 9).unwrap().is_none());
    }

    #[test]
    fn stale_temp_files_are_removed_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(".megg-old.tmp");
        let fresh = dir.path().join(".megg-fresh.tmp");
        fs::write(&old, "x").unwrap();
        fs::write(&fresh, "x").unwrap();
        let two_hours_ago = SystemTime::now() - Duration::from_secs(7200);
        fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(two_hours_ago)
            .unwrap();
        write_atomic(&boundary(&dir), &dir.path().join("f.md"), b"y").unwrap();
        assert!(!old.exists());
        assert!(fresh.exists());
    }

    #[test]
    fn create_unique_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let b = boundary(&dir);
        let q = dir.path().join("q");
        let a = create_unique(&b, &q, "x.md.1", b"one").unwrap();
        let c = create_unique(&b, &q, "x.md.1", b"two").unwrap();
        assert_ne!(a, c);
        assert_eq!(fs::read(&a).unwrap(), b"one");
        assert_eq!(fs::read(&c).unwrap(), b"two");
    }

    #[test]
    fn lock_is_exclusive_across_handles() {
        let dir = tempfile::tempdir().unwrap();
        let lp = dir.path().join("locks/x.lock");
        let held = Lock::acquire(&boundary(&dir), &lp).unwrap();
        let other = fs::File::options().write(true).open(held.path()).unwrap();
        assert!(
            other.try_lock().is_err(),
            "second lock must fail while held"
        );
        drop(held);
        assert!(other.try_lock().is_ok());
    }
}
