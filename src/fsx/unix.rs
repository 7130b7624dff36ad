//! The gate's Unix half (Linux, macOS): what §9's guarantees are made of there — `O_NOFOLLOW`,
//! `O_NONBLOCK`, modes, uids, `access(2)`, the sticky bit, `ctime`. `windows.rs` is the same
//! functions the Windows way; nothing outside `fsx` sees either.

use std::ffi::OsStr;
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use rustix::fs::{Access, AtFlags, Mode, OFlags};

/// Who owns a file: a user id.
pub type Owner = u32;

/// A read that never blocks: opening a FIFO for reading blocks until a writer appears;
/// `O_NONBLOCK` returns at once, and `fstat` on the descriptor then tells us not to read it.
pub fn read_options(opts: &mut OpenOptions) {
    opts.custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32);
}

/// A file opened for writing (`mode` for a new one) that is never a link followed, and
/// (`nonblock`) never blocks on a FIFO someone planted.
pub fn write_options(opts: &mut OpenOptions, mode: u32, nonblock: bool) {
    let flags = if nonblock {
        OFlags::NOFOLLOW | OFlags::NONBLOCK
    } else {
        OFlags::NOFOLLOW
    };
    opts.mode(mode).custom_flags(flags.bits() as i32);
}

pub fn is_fifo(t: &std::fs::FileType) -> bool {
    t.is_fifo()
}

pub fn is_socket(t: &std::fs::FileType) -> bool {
    t.is_socket()
}

pub fn is_device(t: &std::fs::FileType) -> bool {
    t.is_block_device() || t.is_char_device()
}

pub fn cap_is_fifo(t: &cap_std::fs::FileType) -> bool {
    cap_std::fs::FileTypeExt::is_fifo(t)
}

pub fn cap_is_socket(t: &cap_std::fs::FileType) -> bool {
    cap_std::fs::FileTypeExt::is_socket(t)
}

pub fn cap_is_device(t: &cap_std::fs::FileType) -> bool {
    cap_std::fs::FileTypeExt::is_block_device(t) || cap_std::fs::FileTypeExt::is_char_device(t)
}

/// A name the system reserves for a device wherever it appears: none on Unix.
pub fn is_reserved_name(_name: &OsStr) -> bool {
    false
}

/// Device and inode of an open file: its identity whatever its name.
pub fn file_identity(_file: &std::fs::File, meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

/// Device and inode of `path` (links followed).
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The permission bits of a file megg is about to replace (kept on the new one).
pub fn mode_of(meta: &cap_std::fs::Metadata) -> u32 {
    cap_std::fs::PermissionsExt::mode(&meta.permissions())
}

/// Gives a file megg wrote the permission bits of the one it replaces.
pub fn set_mode(file: &std::fs::File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))
}

/// The permission bits of the regular file at `path` (a final link not followed).
pub fn regular_file_mode(path: &Path) -> Option<u32> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map(|m| m.permissions().mode() & 0o7777)
}

pub fn set_path_mode(path: &Path, mode: u32) {
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

/// The owner of `path` (links followed).
pub fn owner(path: &Path) -> Option<Owner> {
    std::fs::metadata(path).ok().map(|m| m.uid())
}

/// The user this process runs as.
pub fn current_user() -> Owner {
    rustix::process::geteuid().as_raw()
}

/// Whether `o` is the system's own administrator (root), whose files count as anyone's.
pub fn is_administrator(o: &Owner) -> bool {
    *o == 0
}

/// How a message names an owner.
pub fn describe_owner(o: &Owner) -> String {
    format!("uid {o}")
}

/// Whether the file's bytes are executable by someone (doctor's PATH check).
pub fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A directory of the user's own for lock files when there is no cache directory:
/// `$XDG_RUNTIME_DIR/megg`, else `<temp>/megg-<uid>`, created with mode 0700 and used only when
/// it is a real directory owned by this user — never one someone else planted in `/tmp`.
pub fn user_lock_dir() -> Option<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| Path::new(d).is_absolute()) {
        Some(run) => PathBuf::from(run).join("megg"),
        None => std::env::temp_dir().join(format!("megg-{uid}")),
    };
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o022 == 0).then_some(dir)
}

/// Why a lock cannot be taken in directory `d`, when it is that `d` is read-only: a read-only
/// file system, or a directory this user may not write.
pub fn read_only_dir(d: &Path) -> Option<super::ReadOnly> {
    match rustix::fs::access(d, Access::WRITE_OK) {
        Err(rustix::io::Errno::ROFS) => Some(super::ReadOnly::FileSystem),
        Err(rustix::io::Errno::ACCESS | rustix::io::Errno::PERM) => Some(super::ReadOnly::ForYou),
        _ => None,
    }
}

/// Whether this user may write the existing file `name` in `dir` where it is.
pub fn writable_at(dir: &Dir, name: &OsStr) -> bool {
    rustix::fs::accessat(dir, name, Access::WRITE_OK, AtFlags::empty()).is_ok()
}

/// Why this user may not add, replace or remove the entry `name` of `dir` (`there`: something
/// is at `name`), `None` when they may: the directory must be writable and searchable, and
/// in a sticky directory (`/tmp`) an entry that is there must be theirs or the directory's
/// owner's. Root may do all of it.
pub fn directory_refusal(dir: &Dir, name: &OsStr, there: bool) -> Option<String> {
    let me = rustix::process::geteuid();
    if rustix::fs::accessat(
        dir,
        ".",
        Access::WRITE_OK | Access::EXEC_OK,
        AtFlags::empty(),
    )
    .is_err()
    {
        return Some("its directory is read-only for you".into());
    }
    if !there || me.is_root() {
        return None;
    }
    let dir_stat = rustix::fs::fstat(dir).ok()?;
    let sticky = Mode::from_raw_mode(dir_stat.st_mode).contains(Mode::SVTX);
    if !sticky || dir_stat.st_uid == me.as_raw() {
        return None;
    }
    let file = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    (file.st_uid != me.as_raw())
        .then(|| "its directory is sticky and the file is another user's".into())
}

/// When a file last changed (`ctime`: seconds, nanoseconds), which no tool can date back.
pub fn change_time(meta: &std::fs::Metadata) -> (i64, i64) {
    (meta.ctime(), meta.ctime_nsec())
}

/// [`change_time`] of a directory entry's metadata.
pub fn cap_change_time(meta: &cap_std::fs::Metadata) -> (i64, i64) {
    use cap_std::fs::MetadataExt as _;
    (meta.ctime(), meta.ctime_nsec())
}

/// [`change_time`] of `name` in `dir`, a final link not followed: one `fstatat`.
pub fn change_time_at(dir: &Dir, name: &OsStr) -> Option<(i64, i64)> {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        // The nanoseconds are a `u64` on Linux, an `i64` on macOS.
        .map(|st| {
            #[allow(clippy::unnecessary_cast)]
            let nanos = st.st_ctime_nsec as i64;
            (st.st_ctime, nanos)
        })
}

/// Whether an error is another program holding the file (Windows' sharing violation): never
/// on Unix, where an open file can always be replaced.
pub fn is_held(_e: &io::Error) -> bool {
    false
}
