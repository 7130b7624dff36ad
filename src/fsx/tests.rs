//! The gate's own tests on real temp directories.

use super::*;
use std::fs;
use std::os::unix::fs::PermissionsExt;

/// Makes a FIFO at `path` with the system's `mkfifo` (rustix has no `mkfifoat` on macOS).
fn mkfifo(path: impl AsRef<Path>) {
    let status = std::process::Command::new("mkfifo")
        .args(["-m", "600"])
        .arg(path.as_ref())
        .status()
        .unwrap();
    assert!(status.success());
}

fn boundary(dir: &tempfile::TempDir) -> Boundary {
    Boundary::new(dir.path(), "the project")
}

#[test]
fn atomic_write_creates_and_replaces_without_leftovers() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("state.md");
    write_atomic(&boundary(&dir), &p, b"one").unwrap();
    write_atomic(&boundary(&dir), &p, b"two").unwrap();
    assert_eq!(fs::read(&p).unwrap(), b"two");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temp files left behind");
}

#[test]
fn atomic_write_keeps_an_existing_mode() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.md");
    fs::write(&p, "x").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&boundary(&dir), &p, b"y").unwrap();
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

/// A new file gets the mode any other tool would give it, 0666 minus the user's umask (0644
/// under 022, 0600 under 077), never the 0600 of the temp file it was written through. The
/// reference is a file created the ordinary way in the same process, so the test holds under
/// any umask (the umask cannot be read without setting it, which would race the other tests).
#[test]
fn new_files_get_the_mode_the_umask_gives() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("new.md");
    write_atomic(&boundary(&dir), &p, b"y").unwrap();
    let reference = dir.path().join("reference");
    fs::File::create(&reference).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&p), mode(&reference));
}

#[test]
fn writing_through_a_link_inside_writes_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.md");
    let link = dir.path().join("link.md");
    fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink("real.md", &link).unwrap();
    write_atomic(&boundary(&dir), &link, b"new").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read(&real).unwrap(), b"new");
}

#[test]
fn writing_through_a_link_out_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("bashrc");
    fs::write(&victim, "mine").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("state.md");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let err = write_atomic(&boundary(&dir), &link, b"theirs").unwrap_err();
    assert!(err.message.starts_with("refused to write"), "{err:?}");
    assert_eq!(fs::read(&victim).unwrap(), b"mine");
    // A directory linked out is refused too.
    std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
    let err = write_atomic(&boundary(&dir), &dir.path().join("sub/bashrc"), b"x");
    assert!(err.unwrap_err().message.contains("link leaves the project"));
    assert_eq!(fs::read(&victim).unwrap(), b"mine");
}

#[test]
fn reads_refuse_links_out_and_special_files_without_blocking() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret"), "key").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let b = boundary(&dir);
    std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("k.md")).unwrap();
    let err = read_text(&b, &dir.path().join("k.md"), 100).unwrap_err();
    assert!(
        err.message.contains("link leaves the project (→ "),
        "{err:?}"
    );
    mkfifo(dir.path().join("fifo.md"));
    let err = read_text(&b, &dir.path().join("fifo.md"), 100).unwrap_err();
    assert!(err.message.contains("a FIFO"), "{err:?}");
    fs::create_dir(dir.path().join("d.md")).unwrap();
    assert!(read_text(&b, &dir.path().join("d.md"), 100).is_err());
}

#[test]
fn reads_stop_at_their_limit() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.md");
    fs::write(&p, "aé".repeat(100)).unwrap();
    let t = read_text(&boundary(&dir), &p, 4).unwrap().unwrap();
    assert!(t.truncated);
    assert_eq!(
        t.text, "aéa",
        "cut at a character boundary, not flagged lossy"
    );
    assert!(!t.lossy);
    let err = read_for_edit(&boundary(&dir), &p, 4).unwrap_err();
    assert!(err.message.contains("over the 4-byte limit"));
}

#[test]
fn invalid_utf8_is_replaced_and_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("k.md");
    fs::write(&p, b"ok \xff\xfe end").unwrap();
    let t = read_text(&boundary(&dir), &p, 100).unwrap().unwrap();
    assert!(t.lossy);
    assert!(t.text.contains('\u{FFFD}'));
    assert_eq!(t.len, 9);
    assert!(read_for_edit(&boundary(&dir), &p, 100).is_err());
    let missing = dir.path().join("missing");
    assert!(read_text(&boundary(&dir), &missing, 9).unwrap().is_none());
}

#[test]
fn stale_temp_files_are_removed_fresh_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join(".megg-old.tmp");
    let fresh = dir.path().join(".megg-fresh.tmp");
    fs::write(&old, "x").unwrap();
    fs::write(&fresh, "x").unwrap();
    let two_hours_ago = SystemTime::now() - Duration::from_secs(7200);
    fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    write_atomic(&boundary(&dir), &dir.path().join("f.md"), b"y").unwrap();
    assert!(!old.exists());
    assert!(fresh.exists());
}

#[test]
fn create_unique_never_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let b = boundary(&dir);
    let q = dir.path().join("q");
    let a = create_unique(&b, &q, "x.md.1", b"one").unwrap();
    let c = create_unique(&b, &q, "x.md.1", b"two").unwrap();
    assert_ne!(a, c);
    assert_eq!(fs::read(&a).unwrap(), b"one");
    assert_eq!(fs::read(&c).unwrap(), b"two");
}

#[test]
fn lock_is_exclusive_across_handles() {
    let dir = tempfile::tempdir().unwrap();
    let lp = dir.path().join("locks/x.lock");
    let held = Lock::acquire(&boundary(&dir), &lp).unwrap();
    let other = fs::File::options().write(true).open(held.path()).unwrap();
    assert!(
        other.try_lock().is_err(),
        "second lock must fail while held"
    );
    drop(held);
    assert!(other.try_lock().is_ok());
}

/// SPEC §15: both listings give the same directories, on a directory bigger than one
/// `getdents64` buffer, with links, special files, hidden names and names that are not UTF-8.
#[test]
fn both_listings_find_the_same_directories() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..2_000 {
        fs::write(
            root.join(format!("a-rather-long-file-name-{i:05}.txt")),
            "x",
        )
        .unwrap();
    }
    for name in ["src", "docs", ".hidden", "Café", "注意"] {
        fs::create_dir(root.join(name)).unwrap();
    }
    fs::create_dir(root.join(OsStr::from_bytes(b"bad-\xff-name"))).unwrap();
    std::os::unix::fs::symlink("src", root.join("link-to-src")).unwrap();
    std::os::unix::fs::symlink("/", root.join("link-out")).unwrap();
    mkfifo(root.join("fifo"));
    let below = Below::open_start(root).unwrap();
    let keep = |name: &OsStr| !name.as_bytes().starts_with(b".");
    let portable = below.subdirs_by(Listing::Portable, keep).unwrap();
    let expected: Vec<std::ffi::OsString> = [
        OsStr::from_bytes(b"Caf\xc3\xa9"),
        OsStr::from_bytes(b"bad-\xff-name"),
        OsStr::new("docs"),
        OsStr::new("src"),
        OsStr::new("注意"),
    ]
    .iter()
    .map(|n| n.to_os_string())
    .collect();
    assert_eq!(portable, expected);
    #[cfg(target_os = "linux")]
    assert_eq!(below.subdirs_by(Listing::Raw, keep).unwrap(), portable);
    // The descriptor stays usable after a portable listing.
    assert_eq!(below.kind_at(OsStr::new("src")), Some(Kind::Dir));
    assert_eq!(below.subdirs_by(Listing::Portable, keep).unwrap(), portable);
}
