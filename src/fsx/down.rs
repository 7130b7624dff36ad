//! Looking down a tree for domains (SPEC §3.1) at the cost of the directories looked at, not of
//! what they hold: a directory is listed through one descriptor into one buffer — the names of
//! its files (a build's thousands) are never copied — and what lies below it is asked relative
//! to that descriptor, not by a path walked again from `/`.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir};

use super::Kind;

/// Bytes of directory entries read per `getdents` call.
const LISTING_BUFFER: usize = 32 * 1024;

/// A directory opened for looking down: never through a link, never blocking.
pub struct Below {
    fd: OwnedFd,
}

impl Below {
    /// Opens the directory `path` that a walk went down into: a link is not followed (the
    /// listing said it was a directory; one swapped for a link since is not gone into).
    pub fn open(path: &Path) -> io::Result<Self> {
        Self::open_with(path, OFlags::NOFOLLOW)
    }

    /// Opens the directory `path` a walk starts from, as the user named it (links followed).
    pub fn open_start(path: &Path) -> io::Result<Self> {
        Self::open_with(path, OFlags::empty())
    }

    fn open_with(path: &Path, extra: OFlags) -> io::Result<Self> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let fd = rustix::fs::open(path, flags | extra, Mode::empty())?;
        Ok(Self { fd })
    }

    /// The names of the directories directly inside (not links to them) for which `keep`
    /// holds, sorted. Only those names are copied.
    pub fn subdirs(&self, keep: impl Fn(&OsStr) -> bool) -> io::Result<Vec<OsString>> {
        let mut buf = Vec::with_capacity(LISTING_BUFFER);
        let mut entries = RawDir::new(&self.fd, buf.spare_capacity_mut());
        let mut names = Vec::new();
        while let Some(entry) = entries.next() {
            let entry = entry?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            // The type first: the names of files are never looked at.
            let dir = match entry.file_type() {
                FileType::Directory => true,
                // A file system that does not say: asked, the final link not followed.
                FileType::Unknown => self.kind_at(name) == Some(Kind::Dir),
                _ => false,
            } && name != "."
                && name != ".."
                && keep(name);
            if dir {
                names.push(name.to_os_string());
            }
        }
        names.sort_unstable();
        Ok(names)
    }

    /// What is at `rel` below this directory, a final link not followed; `None` when nothing.
    pub fn kind_at(&self, rel: &OsStr) -> Option<Kind> {
        let stat = rustix::fs::statat(&self.fd, rel, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        Some(match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => Kind::Dir,
            FileType::RegularFile => Kind::File,
            FileType::Symlink => Kind::Link,
            FileType::Fifo => Kind::Fifo,
            FileType::Socket => Kind::Socket,
            FileType::CharacterDevice | FileType::BlockDevice => Kind::Device,
            _ => Kind::Other,
        })
    }
}
