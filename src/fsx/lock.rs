//! The lock file of a read-modify-write.

use super::*;

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
