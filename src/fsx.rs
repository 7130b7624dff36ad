//! File-system primitives every write in megg goes through: atomic replace, an exclusive lock
//! on a separate lock file, and reads whose errors name their path (SPEC §1 "writes",
//! "concurrency").

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Text read from a file. Invalid UTF-8 is replaced with U+FFFD and reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub text: String,
    /// The file held bytes that are not UTF-8.
    pub lossy: bool,
    /// Size of the file in bytes.
    pub len: u64,
}

/// Reads a file as text; `Ok(None)` when it does not exist.
pub fn read_text(path: &Path) -> Result<Option<Text>> {
    read_text_limited(path, u64::MAX)
}

/// Like [`read_text`], but refuses files larger than `max` bytes so a runaway file cannot
/// exhaust memory.
pub fn read_text_limited(path: &Path, max: u64) -> Result<Option<Text>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("read", path, &e)),
    };
    let meta = file.metadata().map_err(|e| Error::io("read", path, &e))?;
    if meta.is_dir() {
        return Err(Error::failure(format!(
            "cannot read {}: it is a directory",
            path.display()
        )));
    }
    if meta.len() > max {
        return Err(Error::failure(format!(
            "cannot read {}: {} bytes is over the {max}-byte limit",
            path.display(),
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, &e))?;
    let len = bytes.len() as u64;
    Ok(Some(match String::from_utf8(bytes) {
        Ok(text) => Text {
            text,
            lossy: false,
            len,
        },
        Err(e) => Text {
            text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
            lossy: true,
            len,
        },
    }))
}

/// The file a write to `path` really lands on: writing through a symlink writes its target.
fn write_target(path: &Path) -> PathBuf {
    let mut target = path.to_path_buf();
    // Bounded: a symlink loop must not hang a write.
    for _ in 0..40 {
        match fs::symlink_metadata(&target) {
            Ok(meta) if meta.file_type().is_symlink() => match fs::read_link(&target) {
                Ok(link) => {
                    target = match target.parent() {
                        Some(parent) if link.is_relative() => parent.join(link),
                        _ => link,
                    }
                }
                Err(_) => break,
            },
            _ => break,
        }
    }
    target
}

/// Replaces `path` with `bytes` atomically: a temp file in the same directory, fsync, rename.
/// An existing file's mode is kept; a new file gets 0666 minus the umask.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = write_target(path);
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing_mode = fs::metadata(&target).ok().map(|m| m.permissions().mode());
    let mut tmp = tempfile::Builder::new()
        .prefix(".megg-")
        .suffix(".tmp")
        // Passed to open(2), so the umask applies, as it does for any new file.
        .permissions(fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        .map_err(|e| Error::io("create a temporary file in", &dir, &e))?;
    let result = (|| -> io::Result<()> {
        tmp.write_all(bytes)?;
        if let Some(mode) = existing_mode {
            tmp.as_file()
                .set_permissions(fs::Permissions::from_mode(mode))?;
        }
        tmp.as_file().sync_all()
    })();
    result.map_err(|e| Error::io("write", &target, &e))?;
    tmp.persist(&target)
        .map_err(|e| Error::io("replace", &target, &e.error))?;
    // Make the rename itself durable; failure here loses nothing already visible.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Deletes a file; `Ok(false)` when it was already gone.
pub fn remove_file(path: &Path) -> Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("delete", path, &e)),
    }
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
    _file: File,
    path: PathBuf,
}

impl Lock {
    /// Blocks until the lock at `lock_path` is ours, creating the file and its directory.
    pub fn acquire(lock_path: &Path) -> Result<Self> {
        if let Some(parent) = lock_path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, &e))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(lock_path)
            .map_err(|e| Error::io("open lock file", lock_path, &e))?;
        file.lock().map_err(|e| Error::io("lock", lock_path, &e))?;
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

    #[test]
    fn atomic_write_creates_and_replaces_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
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
        write_atomic(&p, b"y").unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[test]
    fn new_files_are_not_private_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.md");
        write_atomic(&p, b"y").unwrap();
        // 0666 minus whatever umask the test runs under; never tempfile's 0600.
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode, 0o600);
        assert_eq!(mode & 0o400, 0o400);
    }

    #[test]
    fn writing_through_a_symlink_writes_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.md");
        let link = dir.path().join("link.md");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink("real.md", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn invalid_utf8_is_replaced_and_flagged() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.md");
        fs::write(&p, b"ok \xff\xfe end").unwrap();
        let t = read_text(&p).unwrap().unwrap();
        assert!(t.lossy);
        assert!(t.text.contains('\u{FFFD}'));
        assert_eq!(t.len, 9);
        assert!(read_text(&dir.path().join("missing")).unwrap().is_none());
    }

    #[test]
    fn limited_read_refuses_huge_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.md");
        fs::write(&p, vec![b'a'; 100]).unwrap();
        let err = read_text_limited(&p, 99).unwrap_err();
        assert!(err.message.contains("over the 99-byte limit"));
    }

    #[test]
    fn lock_is_exclusive_across_handles() {
        let dir = tempfile::tempdir().unwrap();
        let lp = dir.path().join("locks/x.lock");
        let held = Lock::acquire(&lp).unwrap();
        let other = File::options().write(true).open(held.path()).unwrap();
        assert!(
            other.try_lock().is_err(),
            "second lock must fail while held"
        );
        drop(held);
        assert!(other.try_lock().is_ok());
    }
}
