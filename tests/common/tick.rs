//! One tick of the file system's clock, shared by the tests and the benchmarks.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Waits until the file system dates a change later than every change made before the call.
/// A capture tells a session's edits from earlier ones by the kernel's change times (SPEC
/// §14), whose clock is coarser than the system's: a test separates "before the session" from
/// "during it" by one tick of that clock — a probe file written until its change time moves
/// on (microseconds where the kernel dates changes finely, one tick where it does not) — not
/// by a sleep. The probe lives outside every work tree.
pub fn fs_tick() {
    let probe = tempfile::NamedTempFile::new().unwrap();
    let ctime = |p: &Path| {
        let m = fs::symlink_metadata(p).unwrap();
        (m.ctime(), m.ctime_nsec())
    };
    fs::write(probe.path(), "0").unwrap();
    let first = ctime(probe.path());
    for n in 1u64.. {
        fs::write(probe.path(), n.to_string()).unwrap();
        if ctime(probe.path()) > first {
            return;
        }
        assert!(n < 10_000_000, "the file system's clock never moved");
    }
}
