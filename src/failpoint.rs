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
//! - `fail=git-config-write` — setup's edit of a git config file fails after planning (a
//!   global config that changed under the run): the hosts stay installed, the run warns.
//! - `pause=MS` — every read-modify-write pauses MS milliseconds between reading the file and
//!   writing it back, and [`crate::fsx::write_atomic`] pauses halfway through its bytes: it
//!   widens the windows the lock and the atomic rename guard so a test can hit them every time.
//! - `log=PATH` — events are appended to PATH, one per line ([`log`]): `git-open` for each
//!   repository discovery, so a test can hold a run to one.
//! - `coarse-times` — every change time megg reads is cut to the whole second, as on ext3,
//!   HFS+ or ext4 with 128-byte inodes (proves a change in the start's own second is claimed).
//! - `no-lock` — [`crate::fsx::Lock::acquire`] takes no lock.
//! - `no-atomic` — [`crate::fsx::write_atomic`] writes the file in place instead of through a
//!   temp file and a rename.
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

/// Sleeps for `pause=MS` inside a critical section.
#[inline]
pub fn pause() {
    #[cfg(feature = "failpoints")]
    if let Some(ms) = value("pause").and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Whether the mechanism `name` (`no-lock`, `no-atomic`) is switched off.
#[inline]
pub fn off(name: &str) -> bool {
    #[cfg(feature = "failpoints")]
    if value(name).is_some() {
        return true;
    }
    let _ = name;
    false
}
