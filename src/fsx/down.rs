//! Looking down a tree for domains (SPEC §3.1) at the cost of the directories looked at, not of
//! what they hold: a directory is listed through one descriptor into one buffer — the names of
//! its files (a build's thousands) are never copied — and what lies below it is asked relative
//! to that descriptor, not by a path walked again from `/`.
//!
//! Two listings, one behaviour (SPEC §15): on Linux the directory's entries are read by
//! `getdents64` into one buffer ([`Listing::Raw`]); everywhere else (macOS) through the C
//! library's `readdir` ([`Listing::Portable`]). Both are compiled and tested on Linux: the
//! failure point `no-raw-listing` switches the Linux build to the portable one. On Windows
//! ([`windows`]) a directory is listed by std's `FindFirstFile` walk, which says each entry's
//! kind (a junction or symlink is a link, never gone into) without opening it.

#[cfg(unix)]
use std::ffi::{OsStr, OsString};
#[cfg(unix)]
use std::io;
#[cfg(unix)]
use std::os::fd::OwnedFd;
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;
#[cfg(unix)]
use std::path::Path;

#[cfg(unix)]
use rustix::fs::{AtFlags, FileType, Mode, OFlags};

#[cfg(unix)]
use super::Kind;

#[cfg(windows)]
pub use windows::{Below, Listing};

/// Bytes of directory entries read per `getdents` call.
#[cfg(target_os = "linux")]
const LISTING_BUFFER: usize = 32 * 1024;

/// How a directory's entries are read.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `getdents64` into one reused buffer; only the kept names are copied (Linux).
    #[cfg(target_os = "linux")]
    Raw,
    /// `readdir` through the C library (or rustix's own on Linux): every Unix megg builds on.
    Portable,
}

#[cfg(unix)]
impl Listing {
    /// The listing this build uses: the raw one on Linux unless a test switched it off.
    pub fn for_this_build() -> Self {
        #[cfg(target_os = "linux")]
        if !crate::failpoint::off("no-raw-listing") {
            return Listing::Raw;
        }
        Listing::Portable
    }
}

/// A directory opened for looking down: never through a link, never blocking.
#[cfg(unix)]
pub struct Below {
    fd: OwnedFd,
}

#[cfg(unix)]
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
        self.subdirs_by(Listing::for_this_build(), keep)
    }

    /// [`Below::subdirs`] read by `listing` (the benchmark compares them).
    pub fn subdirs_by(
        &self,
        listing: Listing,
        keep: impl Fn(&OsStr) -> bool,
    ) -> io::Result<Vec<OsString>> {
        let mut names = Vec::new();
        let mut take = |name: &OsStr, kind: FileType| {
            // The type first: the names of files are never looked at.
            let dir = match kind {
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
        };
        match listing {
            #[cfg(target_os = "linux")]
            Listing::Raw => {
                let mut buf = Vec::with_capacity(LISTING_BUFFER);
                let mut entries = rustix::fs::RawDir::new(&self.fd, buf.spare_capacity_mut());
                while let Some(entry) = entries.next() {
                    let entry = entry?;
                    take(
                        OsStr::from_bytes(entry.file_name().to_bytes()),
                        entry.file_type(),
                    );
                }
            }
            Listing::Portable => {
                crate::failpoint::log("listing portable");
                // Its own descriptor on the same directory: this one stays usable for `kind_at`.
                for entry in rustix::fs::Dir::read_from(&self.fd)? {
                    let entry = entry?;
                    take(
                        OsStr::from_bytes(entry.file_name().to_bytes()),
                        entry.file_type(),
                    );
                }
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

#[cfg(windows)]
mod windows {
    use std::ffi::{OsStr, OsString};
    use std::io;
    use std::path::{Path, PathBuf};

    use super::super::Kind;

    /// How a directory's entries are read: one way on Windows.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Listing {
        /// std's directory walk, which carries each entry's kind.
        Portable,
    }

    impl Listing {
        pub fn for_this_build() -> Self {
            Listing::Portable
        }
    }

    /// A directory a walk looks down into, by its path (Windows has no `openat`; each entry's
    /// kind comes with the listing, and a link is never gone into).
    pub struct Below {
        path: PathBuf,
    }

    impl Below {
        /// A directory a walk went down into: refused when it is a link (a junction too).
        pub fn open(path: &Path) -> io::Result<Self> {
            let meta = std::fs::symlink_metadata(path)?;
            if !meta.is_dir() || meta.file_type().is_symlink() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "not a directory",
                ));
            }
            Ok(Self {
                path: path.to_path_buf(),
            })
        }

        /// The directory a walk starts from, as the user named it (links followed).
        pub fn open_start(path: &Path) -> io::Result<Self> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "not a directory",
                ));
            }
            Ok(Self {
                path: path.to_path_buf(),
            })
        }

        pub fn subdirs(&self, keep: impl Fn(&OsStr) -> bool) -> io::Result<Vec<OsString>> {
            self.subdirs_by(Listing::Portable, keep)
        }

        pub fn subdirs_by(
            &self,
            _listing: Listing,
            keep: impl Fn(&OsStr) -> bool,
        ) -> io::Result<Vec<OsString>> {
            let mut names = Vec::new();
            for entry in std::fs::read_dir(&self.path)? {
                let entry = entry?;
                let is_dir = entry
                    .file_type()
                    .is_ok_and(|t| t.is_dir() && !t.is_symlink());
                let name = entry.file_name();
                if is_dir && keep(&name) {
                    names.push(name);
                }
            }
            names.sort_unstable();
            Ok(names)
        }

        pub fn kind_at(&self, rel: &OsStr) -> Option<Kind> {
            std::fs::symlink_metadata(self.path.join(rel))
                .ok()
                .map(|m| Kind::of(&m.file_type()))
        }
    }
}
