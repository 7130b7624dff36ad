//! The gate's Windows half (SPEC §15.1): §9's guarantees the Windows way. cap-std resolves every
//! path component itself under the boundary's handle (a symlink or junction that leads out is
//! refused as on Unix); reads open with every share flag (never in another program's way, and
//! a file never blocks: there are no FIFOs to plant in a work tree); ownership is the owner
//! SID, the current user's or the Administrators group's; device names (`CON`, `NUL`, `COM1`…)
//! are never opened. The only `unsafe` in megg is here: three Win32 calls std does not wrap
//! (a file's owner SID, the process's user SID, a handle's file index), each checked.
#![allow(unsafe_code)]

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::os::windows::fs::OpenOptionsExt as _;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, GetNamedSecurityInfoW, SE_FILE_OBJECT,
};
use windows_sys::Win32::Security::{
    GetTokenInformation, OWNER_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID, TOKEN_QUERY,
    TOKEN_USER, TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_FLAG_BACKUP_SEMANTICS, GetFileInformationByHandle,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

/// Who owns a file: a SID as `S-1-5-21-…`.
pub type Owner = String;

/// The Administrators group: files an elevated process creates belong to it.
const ADMINISTRATORS: &str = "S-1-5-32-544";
/// The system itself (`NT AUTHORITY\SYSTEM`).
const SYSTEM: &str = "S-1-5-18";

/// A read never blocks on Windows (no FIFOs in a directory); std already shares read, write
/// and delete, so an editor or indexer holding the file is never in the way of a read.
pub fn read_options(_opts: &mut OpenOptions) {}

/// Files megg creates get the default ACL of their directory; no mode to give.
pub fn write_options(_opts: &mut OpenOptions, _mode: u32, _nonblock: bool) {}

pub fn is_fifo(_t: &std::fs::FileType) -> bool {
    false
}

pub fn is_socket(_t: &std::fs::FileType) -> bool {
    false
}

pub fn is_device(_t: &std::fs::FileType) -> bool {
    false
}

pub fn cap_is_fifo(_t: &cap_std::fs::FileType) -> bool {
    false
}

pub fn cap_is_socket(_t: &cap_std::fs::FileType) -> bool {
    false
}

pub fn cap_is_device(_t: &cap_std::fs::FileType) -> bool {
    false
}

/// A name Windows reserves for a device in every directory (`CON`, `nul.txt`, `COM1`…).
pub fn is_reserved_name(name: &OsStr) -> bool {
    super::reserved_device_name(name)
}

/// The volume serial number and file index of an open file: its identity whatever its name.
pub fn file_identity(file: &std::fs::File, _meta: &std::fs::Metadata) -> (u64, u64) {
    handle_identity(file).unwrap_or((0, 0))
}

fn handle_identity(file: &std::fs::File) -> Option<(u64, u64)> {
    let mut info = BY_HANDLE_FILE_INFORMATION {
        dwFileAttributes: 0,
        ftCreationTime: zero_time(),
        ftLastAccessTime: zero_time(),
        ftLastWriteTime: zero_time(),
        dwVolumeSerialNumber: 0,
        nFileSizeHigh: 0,
        nFileSizeLow: 0,
        nNumberOfLinks: 0,
        nFileIndexHigh: 0,
        nFileIndexLow: 0,
    };
    // SAFETY: the handle is the open file's, alive for the call; `info` is a valid out-pointer.
    let ok = unsafe { GetFileInformationByHandle(file.as_raw_handle() as HANDLE, &mut info) };
    (ok != 0).then(|| {
        (
            u64::from(info.dwVolumeSerialNumber),
            (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        )
    })
}

fn zero_time() -> windows_sys::Win32::Foundation::FILETIME {
    windows_sys::Win32::Foundation::FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    }
}

/// The identity of `path` (links followed; a directory too).
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    let file = std::fs::OpenOptions::new()
        .access_mode(0)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
        .ok()?;
    handle_identity(&file)
}

/// Windows keeps one permission bit megg can give back: read-only. Spelled as a mode so the
/// callers are the same: `0o444` read-only, else `0o666`.
pub fn mode_of(meta: &cap_std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o666
    }
}

pub fn set_mode(file: &std::fs::File, mode: u32) -> io::Result<()> {
    let mut p = file.metadata()?.permissions();
    p.set_readonly(mode & 0o222 == 0);
    file.set_permissions(p)
}

pub fn regular_file_mode(path: &Path) -> Option<u32> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map(|m| {
            if m.permissions().readonly() {
                0o444
            } else {
                0o666
            }
        })
}

pub fn set_path_mode(path: &Path, mode: u32) {
    if let Ok(m) = std::fs::metadata(path) {
        let mut p = m.permissions();
        p.set_readonly(mode & 0o222 == 0);
        let _ = std::fs::set_permissions(path, p);
    }
}

/// The owner SID of `path`; `None` when it cannot be read (a note, not a refusal).
pub fn owner(path: &Path) -> Option<Owner> {
    let wide: Vec<u16> = long_path(path).encode_wide().chain(Some(0)).collect();
    let mut sid: PSID = std::ptr::null_mut();
    let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: `wide` is NUL-terminated and outlives the call; the out-pointers are valid; on
    // success `sd` owns the memory `sid` points into and is freed below.
    let err = unsafe {
        GetNamedSecurityInfoW(
            wide.as_ptr(),
            SE_FILE_OBJECT,
            OWNER_SECURITY_INFORMATION,
            &mut sid,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut sd,
        )
    };
    if err != 0 || sid.is_null() {
        return None;
    }
    let text = sid_string(sid);
    // SAFETY: `sd` was allocated by GetNamedSecurityInfoW and is freed once.
    unsafe { LocalFree(sd) };
    text
}

/// `path` as a Win32 call that is not long-path aware by itself takes it: past `MAX_PATH` (260,
/// less the 12 a directory name needs: std's own threshold), its absolute form with `\\?\`
/// (`\\?\UNC\` for a share), as std spells paths for its own calls; a shorter one as it is.
fn long_path(path: &Path) -> OsString {
    if path.as_os_str().encode_wide().count() < 248 {
        return path.as_os_str().to_owned();
    }
    verbatim(path)
}

/// The `\\?\` form of `path`, made absolute and normalised (`..`, `/`) by Windows itself.
fn verbatim(path: &Path) -> OsString {
    let Ok(absolute) = std::path::absolute(path) else {
        return path.as_os_str().to_owned();
    };
    let wide: Vec<u16> = absolute.as_os_str().encode_wide().collect();
    let starts = |prefix: &str| wide.starts_with(&prefix.encode_utf16().collect::<Vec<_>>());
    if starts(r"\\?\") || starts(r"\\.\") {
        return absolute.into_os_string();
    }
    let (prefix, rest) = if starts(r"\\") {
        (r"\\?\UNC\", wide.get(2..).unwrap_or_default())
    } else {
        (r"\\?\", wide.as_slice())
    };
    let mut out: Vec<u16> = prefix.encode_utf16().collect();
    out.extend_from_slice(rest);
    OsString::from_wide(&out)
}

/// `S-1-…` for a SID.
fn sid_string(sid: PSID) -> Option<String> {
    let mut out: windows_sys::core::PWSTR = std::ptr::null_mut();
    // SAFETY: `sid` is a valid SID for the call; on success `out` is a NUL-terminated string
    // LocalAlloc'd for us, read up to its NUL and freed once.
    unsafe {
        if ConvertSidToStringSidW(sid, &mut out) == 0 || out.is_null() {
            return None;
        }
        let mut len = 0;
        while *out.add(len) != 0 {
            len += 1;
        }
        let text = OsString::from_wide(std::slice::from_raw_parts(out, len));
        LocalFree(out.cast());
        text.into_string().ok()
    }
}

/// The SID of the user this process runs as (empty when it cannot be read: then no owner is
/// ever "mine", and every foreign domain is skipped, the safe side).
pub fn current_user() -> Owner {
    token_user().unwrap_or_default()
}

fn token_user() -> Option<String> {
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: the current-process pseudo handle needs no closing; `token` is closed below.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return None;
    }
    let mut buf = vec![0u64; 64];
    let mut len = 0u32;
    let size = u32::try_from(buf.len() * 8).unwrap_or(0);
    // SAFETY: `buf` is `size` bytes, 8-aligned (TOKEN_USER's alignment); `len` is valid.
    let ok =
        unsafe { GetTokenInformation(token, TokenUser, buf.as_mut_ptr().cast(), size, &mut len) };
    // SAFETY: `token` was opened above and is closed once.
    unsafe { CloseHandle(token) };
    if ok == 0 {
        return None;
    }
    // SAFETY: on success the buffer starts with a TOKEN_USER whose SID points into the buffer,
    // which lives until `sid_string` returns.
    let user = unsafe { &*buf.as_ptr().cast::<TOKEN_USER>() };
    sid_string(user.User.Sid)
}

/// The Administrators group and the system: an elevated process's files are theirs.
pub fn is_administrator(o: &Owner) -> bool {
    o == ADMINISTRATORS || o == SYSTEM
}

pub fn describe_owner(o: &Owner) -> String {
    format!("SID {o}")
}

/// Whether `path` is a program Windows would run by name: a file with an extension in
/// `PATHEXT` (`.exe`, `.cmd`…).
pub fn is_executable_file(path: &Path) -> bool {
    let exts = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()).to_ascii_uppercase());
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && ext.is_some_and(|e| exts.split(';').any(|x| x.eq_ignore_ascii_case(&e)))
}

/// Lock files without a cache directory: `%LOCALAPPDATA%\megg\locks`, else `<temp>\megg`
/// (a user's temp directory is their own on Windows).
pub fn user_lock_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("LOCALAPPDATA").filter(|d| Path::new(d).is_absolute()) {
        Some(local) => PathBuf::from(local).join("megg").join("locks"),
        None => std::env::temp_dir().join("megg"),
    };
    let _ = std::fs::create_dir_all(&dir);
    std::fs::symlink_metadata(&dir)
        .is_ok_and(|m| m.is_dir())
        .then_some(dir)
}

/// A read-only directory attribute does not stop writes on Windows; the write itself says.
pub fn read_only_dir(_d: &Path) -> Option<super::ReadOnly> {
    None
}

/// A file marked read-only cannot be written where it is.
pub fn writable_at(dir: &Dir, name: &OsStr) -> bool {
    dir.metadata(name)
        .is_ok_and(|m| !m.permissions().readonly())
}

/// ACLs decide on Windows, and only the write itself reads them right: nothing refused ahead.
pub fn directory_refusal(_dir: &Dir, _name: &OsStr, _there: bool) -> Option<String> {
    None
}

/// When a file last changed: its last write time (100 ns since 1601), as seconds and
/// nanoseconds since the Unix epoch.
pub fn change_time(meta: &std::fs::Metadata) -> (i64, i64) {
    use std::os::windows::fs::MetadataExt as _;
    from_filetime(meta.last_write_time())
}

pub fn cap_change_time(meta: &cap_std::fs::Metadata) -> (i64, i64) {
    match meta.modified() {
        Ok(t) => match t.into_std().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => (
                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                i64::from(d.subsec_nanos()),
            ),
            Err(_) => (0, 0),
        },
        Err(_) => (0, 0),
    }
}

pub fn change_time_at(dir: &Dir, name: &OsStr) -> Option<(i64, i64)> {
    dir.symlink_metadata(name).ok().map(|m| cap_change_time(&m))
}

fn from_filetime(t: u64) -> (i64, i64) {
    const EPOCH_DIFF: u64 = 11_644_473_600;
    let secs = (t / 10_000_000).saturating_sub(EPOCH_DIFF);
    let nanos = (t % 10_000_000) * 100;
    (
        i64::try_from(secs).unwrap_or(i64::MAX),
        i64::try_from(nanos).unwrap_or(0),
    )
}

/// Another program holds the file open without sharing it (an editor, an indexer, antivirus):
/// `ERROR_SHARING_VIOLATION`, `ERROR_LOCK_VIOLATION`, or the access denied a rename over an open
/// file gets.
pub fn is_held(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(32 | 33 | 5))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path past `MAX_PATH` reaches `GetNamedSecurityInfoW` in its `\\?\` form, normalised;
    /// a share as `\\?\UNC\`; a short one as it is.
    #[test]
    fn long_paths_take_the_verbatim_form() {
        let long = format!(r"C:\{}\x\..\.megg", "d".repeat(250));
        assert_eq!(
            long_path(Path::new(&long)),
            OsString::from(format!(r"\\?\C:\{}\.megg", "d".repeat(250)))
        );
        let share = format!(r"\\server\share\{}", "d".repeat(250));
        assert_eq!(
            long_path(Path::new(&share)),
            OsString::from(format!(r"\\?\UNC\server\share\{}", "d".repeat(250)))
        );
        let already = format!(r"\\?\C:\{}", "d".repeat(250));
        assert_eq!(long_path(Path::new(&already)), OsString::from(&already));
        assert_eq!(
            long_path(Path::new(r"C:\short\..\p")),
            OsString::from(r"C:\short\..\p")
        );
    }
}
