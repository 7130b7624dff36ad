//! Test-only failure points. They exist only with the cargo feature `failpoints`, which this
//! crate's own tests switch on (a dev-dependency on itself); a release build has none of them
//! and every call below compiles to nothing.
//!
//! `MEGG_FAILPOINTS` is a comma-separated list of `name` or `name=value`:
//!
//! - `panic=hook` — the hook panics before doing anything (proves the panic guard).
//! - `panic=children-thread` — the thread that walks down for children panics (the walk is
//!   made again in place: the `children-walked-in-place` event).
//! - `fail=archive-before-live` — `maintain --archive-before` fails between the archive
//!   writes and the live file's write (proves an interruption there loses nothing).
//! - `fail=supersede-before-live` — `learn --supersedes` fails between the archive's write and
//!   `knowledge.md`'s (the same, for a superseded entry).
//! - `fail=git-config-write` — setup's edit of a git config file fails after planning (a
//!   global config that changed under the run): the hosts stay installed, the run warns.
//! - `hold=FILE:DIR` — a handshake at the critical point of writing a file whose path ends in
//!   FILE (`.megg/state.md`): when [`crate::fsx::write_atomic`] has the new bytes in its temp
//!   file and has not yet renamed it into place (inside the lock of a read-modify-write, after
//!   the read; with `no-atomic`, halfway through its bytes), the process creates `DIR/held`
//!   and waits until `DIR/release` exists (at most 30 s, then it panics). The test knows for certain the process is inside its critical
//!   section before it starts the second one, and lets the first go when it chooses ([`hold`]).
//! - `log=PATH` — events are appended to PATH, one per line ([`log`]): `git-open` for each
//!   repository discovery, so a test can hold a run to one; `lock-wait NAME` when the process
//!   finds the lock file NAME held by another and is about to wait for it ([`lock_wait`]), so a
//!   test knows its second process is blocked on the first.
//! - `coarse-times` — every change time megg reads is cut to the whole second, as on ext3,
//!   HFS+ or ext4 with 128-byte inodes (proves a change in the start's own second is claimed).
//! - `no-lock` — [`crate::fsx::Lock::acquire`] takes no lock.
//! - `no-atomic` — [`crate::fsx::write_atomic`] writes the file in place instead of through a
//!   temp file and a rename.
//! - `no-exclusive-claim` — a hook's claim of its session's run (`Sessions::claim`) looks for
//!   the marker, then writes it, instead of creating it exclusively: two hooks of one session
//!   that start together both answer (proves the exclusive create is what keeps it to one). With
//!   `hold=<session>.once:DIR`, a hook waits inside its claim until the test lets it go.
//! - `no-raw-listing` — directories are listed by the portable `readdir` path macOS uses
//!   instead of Linux's `getdents64` ([`crate::fsx::Listing`]), so the tests run it on Linux.
//! - `windows-hooks` — setup and doctor plan each host's hooks as it runs them on Windows
//!   (`megg::setup::Platform::current`), so the tests check the Windows files on Linux.
//!
//! A concurrency test shows it can fail by running once with the mechanism switched off and
//! asserting the loss or tear it otherwise prevents.

/// Whether failure point `name` is switched on, and its value (`""` when it has none).
#[cfg(feature = "failpoints")]
fn value(name: &str) -> Option<String> {
    let all = std::env::var("MEGG_FAILPOINTS").ok()?;
    all.split(',').find_map(|item| {
        let (key, value) = item.split_once('=').unwrap_or((item, ""));
        (key.trim() == name).then(|| value.trim().to_string())
    })
}

/// Panics when `panic=<site>` is set.
#[inline]
pub fn panic_at(site: &str) {
    #[cfg(feature = "failpoints")]
    if value("panic").as_deref() == Some(site) {
        panic!("test-only panic requested by MEGG_FAILPOINTS at {site}");
    }
    let _ = site;
}

/// Fails when `fail=<site>` is set.
#[inline]
pub fn fail_at(site: &str) -> crate::error::Result<()> {
    #[cfg(feature = "failpoints")]
    if value("fail").as_deref() == Some(site) {
        return Err(crate::error::Error::user(format!(
            "test-only failure at {site}"
        )));
    }
    let _ = site;
    Ok(())
}

/// Appends `event` as a line to the file `log=PATH` names: a test counts what one run did
/// (`git-open`: a repository discovered and opened).
#[inline]
pub fn log(event: &str) {
    #[cfg(feature = "failpoints")]
    if let Some(path) = value("log") {
        use std::io::Write;
        #[allow(clippy::disallowed_methods)] // test-only: the log is the test's own file
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        if let Ok(mut f) = file {
            let _ = writeln!(f, "{event}");
        }
    }
    let _ = event;
}

/// At the critical point of writing `file` (the new bytes written, not yet in place): when
/// `hold=FILE:DIR` names it, creates `DIR/held` and waits until `DIR/release` exists. Bounded,
/// so a test that never releases fails instead of hanging.
#[inline]
#[allow(clippy::disallowed_methods)] // test-only: the handshake's files are the test's own
pub fn hold(file: &std::path::Path) {
    #[cfg(feature = "failpoints")]
    if let Some(spec) = value("hold")
        && let Some((suffix, dir)) = spec.split_once(':')
        && file.ends_with(suffix)
    {
        use std::time::{Duration, Instant};
        let dir = std::path::Path::new(dir);
        if let Err(e) = std::fs::write(dir.join("held"), std::process::id().to_string()) {
            panic!("hold: cannot create {}: {e}", dir.join("held").display());
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while !dir.join("release").exists() {
            if Instant::now() > deadline {
                panic!("hold: {} was never released", file.display());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let _ = file;
}

/// Called just before a process blocks on the lock `file` (the lock file at `lock_path`): when
/// another process holds it, logs `lock-wait NAME` to `log=PATH`. When it is free this takes it,
/// and the caller's blocking lock on the same descriptor returns at once.
#[inline]
pub fn lock_wait(file: &std::fs::File, lock_path: &std::path::Path) {
    #[cfg(feature = "failpoints")]
    if value("log").is_some() && matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock)) {
        let name = lock_path.file_name().unwrap_or_default().to_string_lossy();
        log(&format!("lock-wait {name}"));
    }
    let _ = (file, lock_path);
}

/// Whether the mechanism `name` (`no-lock`, `no-atomic`, `no-raw-listing`) is switched off.
#[inline]
pub fn off(name: &str) -> bool {
    #[cfg(feature = "failpoints")]
    if value(name).is_some() {
        return true;
    }
    let _ = name;
    false
}
