//! The file system's own clock (SPEC §14): when a file last changed, and "now" as the file
//! system would date a change — so a capture can tell the files a session changed from the
//! ones that were dirty before it, without walking the work tree when the session starts.
//!
//! A file's change time (`ctime`) is set by the kernel whenever its content, name, links or
//! mode change, and no tool can date it back (`touch -d`, `cp -p` and `tar` set the
//! modification time only). "Now" is read from a file created for the purpose, not from the
//! system clock: the kernel dates changes with a clock coarser than the system's, so a change
//! made just after a reading of the system clock can carry an earlier time.

use std::path::{Path, PathBuf};

use cap_std::fs::Dir;

use super::{Boundary, write};
use crate::error::{Error, Result};

/// When a file last changed, as the file system dates it: seconds and nanoseconds since the
/// epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChangeTime {
    secs: i64,
    nanos: u32,
}

impl ChangeTime {
    fn at(secs: i64, nanos: i64) -> Self {
        let nanos = if whole_seconds() { 0 } else { nanos };
        Self {
            secs,
            nanos: u32::try_from(nanos).unwrap_or(0),
        }
    }

    fn of(meta: &std::fs::Metadata) -> Self {
        let (secs, nanos) = super::sys::change_time(meta);
        Self::at(secs, nanos)
    }

    fn of_entry(meta: &cap_std::fs::Metadata) -> Self {
        let (secs, nanos) = super::sys::cap_change_time(meta);
        Self::at(secs, nanos)
    }

    /// A change time recorded elsewhere: git's index keeps each file's as it was when staged
    /// (seconds as 32 bits, unsigned).
    pub fn recorded(secs: u32, nanos: u32) -> Self {
        Self::at(i64::from(secs), i64::from(nanos))
    }

    /// When the open `file` last changed; `None` when it cannot be read.
    pub fn of_file(file: &std::fs::File) -> Option<Self> {
        file.metadata().ok().map(|m| Self::of(&m))
    }

    /// `1732512345.000000123`: what a start record keeps.
    pub fn render(self) -> String {
        format!("{}.{:09}", self.secs, self.nanos)
    }

    /// The inverse of [`ChangeTime::render`]; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let (secs, nanos) = text.trim().split_once('.')?;
        let nanos: u32 = (nanos.len() == 9).then(|| nanos.parse().ok())??;
        Some(Self {
            secs: secs.parse().ok()?,
            nanos: (nanos < 1_000_000_000).then_some(nanos)?,
        })
    }

    /// A time from its parts (tests).
    pub fn from_parts(secs: i64, nanos: u32) -> Self {
        Self { secs, nanos }
    }
}

/// Whether every time is read as a file system that dates changes to the whole second would
/// give it (ext3, ext4 with 128-byte inodes, HFS+): the test-only failure point `coarse-times`
/// in `MEGG_FAILPOINTS` ([`crate::failpoint`]), which a release build does not have.
fn whole_seconds() -> bool {
    #[cfg(feature = "failpoints")]
    {
        static COARSE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *COARSE.get_or_init(|| {
            std::env::var("MEGG_FAILPOINTS")
                .is_ok_and(|v| v.split(',').any(|item| item.trim() == "coarse-times"))
        })
    }
    #[cfg(not(feature = "failpoints"))]
    false
}

/// "Now" as the file system dates a change: the change time of a file created (and removed
/// again) in `dir`, which is made inside `b` when missing.
pub fn clock(b: &Boundary, dir: &Path) -> Result<ChangeTime> {
    write::create_dir_all(b, dir)?;
    let (file, tmp, parent) = write::create_temp(b, &dir.join("clock"))?;
    let time = file.metadata().map(|m| ChangeTime::of(&m));
    let _ = parent.remove_file(&tmp);
    time.map_err(|e| Error::io("read the time of", dir, &e))
}

/// The change times of paths inside one boundary, each directory opened once for a run of
/// paths in it (git lists them sorted, so the paths of one directory come together).
pub struct ChangeTimes<'b> {
    b: &'b Boundary,
    root: Option<Dir>,
    last: Option<(PathBuf, Dir)>,
}

impl<'b> ChangeTimes<'b> {
    pub fn new(b: &'b Boundary) -> Self {
        Self {
            b,
            root: b.open_root().ok(),
            last: None,
        }
    }

    /// The entries of directory `rel` (relative to the root, `/`-separated plain components,
    /// `""` the root itself), unsorted: one read of the directory and one `fstatat` per name
    /// in it, relative to it (a status walk stats each file by its whole path); `None` when it
    /// is not a directory that can be opened inside the boundary.
    pub fn list(&self, rel: &str) -> Option<Vec<Entry>> {
        let root = self.root.as_ref()?;
        let plain = |c: &str| !c.is_empty() && c != "." && c != "..";
        let opened;
        let dir = if rel.is_empty() {
            root
        } else if rel.split('/').all(plain) {
            opened = root.open_dir(rel).ok()?;
            &opened
        } else {
            return None;
        };
        let entries = dir.entries().ok()?;
        Some(
            entries
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let kind = super::Kind::of(&e.file_type().ok()?);
                    let name = e.file_name();
                    let time = if kind == super::Kind::Dir {
                        None
                    } else {
                        super::sys::change_time_at(dir, &name)
                            .map(|(secs, nanos)| ChangeTime::at(secs, nanos))
                    };
                    Some(Entry { name, kind, time })
                })
                .collect(),
        )
    }

    /// When `rel` (relative to the boundary's root, `""` for the root itself) last changed,
    /// without following a final link; `None` when nothing is there or it cannot be reached
    /// inside the boundary.
    pub fn of(&mut self, rel: &Path) -> Option<ChangeTime> {
        let root = self.root.as_ref()?;
        if rel.as_os_str().is_empty() {
            return root.dir_metadata().ok().map(|m| ChangeTime::of_entry(&m));
        }
        // The same checks as every other path through the gate: plain components only.
        self.b.relative(&self.b.root.join(rel)).ok()?;
        let name = rel.file_name()?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        if parent.as_os_str().is_empty() {
            return root
                .symlink_metadata(name)
                .ok()
                .map(|m| ChangeTime::of_entry(&m));
        }
        if self.last.as_ref().is_none_or(|(p, _)| p != parent) {
            self.last = root
                .open_dir(parent)
                .ok()
                .map(|d| (parent.to_path_buf(), d));
        }
        let (_, dir) = self.last.as_ref()?;
        dir.symlink_metadata(name)
            .ok()
            .map(|m| ChangeTime::of_entry(&m))
    }
}

/// One name in a directory ([`ChangeTimes::list`]): its kind (links not followed) and, unless it
/// is a directory, when it last changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: std::ffi::OsString,
    pub kind: super::Kind,
    pub time: Option<ChangeTime>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_time_renders_and_parses_back() {
        let t = ChangeTime::from_parts(1_732_512_345, 123);
        assert_eq!(t.render(), "1732512345.000000123");
        assert_eq!(ChangeTime::parse(&t.render()), Some(t));
        for bad in ["", "1", "1.5", "x.000000001", "1.1000000000", "1.-00000001"] {
            assert_eq!(ChangeTime::parse(bad), None, "{bad}");
        }
        assert!(ChangeTime::from_parts(1, 999_999_999) < ChangeTime::from_parts(2, 0));
    }

    #[test]
    fn the_clock_dates_like_the_files_it_compares() {
        let tmp = tempfile::tempdir().unwrap();
        let b = Boundary::new(tmp.path(), "test");
        let dir = tmp.path().join("sessions");
        let first = clock(&b, &dir).unwrap();
        std::fs::write(tmp.path().join("f"), "x").unwrap();
        let mut times = ChangeTimes::new(&b);
        let f = times.of(Path::new("f")).unwrap();
        assert!(f >= first, "{f:?} {first:?}");
        assert!(clock(&b, &dir).unwrap() >= f);
        assert_eq!(times.of(Path::new("missing")), None);
        assert!(times.of(Path::new("")).is_some(), "the root itself");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "the clock's file is removed"
        );
    }
}
