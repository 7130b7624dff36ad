//! The lock file of a read-modify-write.

use super::*;

/// An exclusive lock held until dropped. It lives on a separate lock file, never the data
/// file: the atomic rename replaces the data file's inode and would silently drop the lock.
#[derive(Debug)]
pub struct Lock {
    _file: std::fs::File,
    path: PathBuf,
}

/// Why the lock at `lock_path` (inside `b`) cannot be made, when it is that its directory
/// cannot be written: a read-only checkout or file system. Said of the highest directory that
/// is read-only on the way up to the one holding `b` (the checkout, for a lock in `.git/`),
/// in the user's words, not of the lock file megg would have made there.
fn read_only(b: &Boundary, lock_path: &Path) -> Option<Error> {
    let top = b.root.parent().unwrap_or(&b.root);
    let mut found = None;
    for d in lock_path.ancestors().skip(1) {
        if is_dir(d) {
            match sys::read_only_dir(d) {
                Some(why) => found = Some((d, why)),
                None => break,
            }
        }
        if d == top {
            break;
        }
    }
    let (dir, why) = found?;
    let shown = dir.display();
    let e = if why == ReadOnly::FileSystem {
        Error::user(format!(
            "{shown} is on a read-only file system, and megg takes a lock in it before it writes; nothing written"
        ))
        .with_hint("remount it read-write, or run megg in a copy you can write")
    } else {
        Error::user(format!(
            "{shown} is read-only for you, and megg takes a lock in it before it writes; nothing written"
        ))
        .with_hint(format!(
            "make it writable (chmod -R u+w {}), or run megg in a checkout you can write",
            crate::shell::shell_quote(&dir.display().to_string())
        ))
    };
    Some(e)
}

impl Lock {
    /// Blocks until the lock at `lock_path` (inside `b`) is ours, creating the file and its
    /// directory. The lock file is opened without following a link and must be a regular file.
    pub fn acquire(b: &Boundary, lock_path: &Path) -> Result<Self> {
        create_dir_all(b, &path_parent(lock_path))
            .map_err(|e| read_only(b, lock_path).unwrap_or(e))?;
        let (dir, name) = b.parent_of(lock_path)?;
        let mut opts = OpenOptions::new();
        opts.write(true).create(true).truncate(false);
        sys::write_options(&mut opts, 0o666, true);
        let file = dir
            .open_with(&name, &opts)
            .map_err(|e| {
                read_only(b, lock_path)
                    .unwrap_or_else(|| Error::io("open lock file", lock_path, &e))
            })?
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
            crate::failpoint::lock_wait(&file, lock_path);
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
