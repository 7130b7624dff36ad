//! Atomic writes, exclusive creation, moves and removals inside a boundary.

use super::*;

/// Resolves a write to `path`: the directory and name the bytes land on. A link is followed
/// only while it stays inside the boundary; a special file or directory is refused.
fn write_target(b: &Boundary, path: &Path) -> Result<(Dir, OsString, Option<u32>)> {
    let (dir, name) = b.parent_of(path)?;
    let meta = match dir.symlink_metadata(&name) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((dir, name, None)),
        Err(e) => return Err(Error::io("write", path, &e)),
        Ok(m) => m,
    };
    match Kind::of(&meta.file_type()) {
        Kind::File => Ok((dir, name, Some(sys::mode_of(&meta)))),
        Kind::Link => {
            let refuse = |why: String| {
                Error::from(GateError::WriteThroughLink {
                    path: path.to_path_buf(),
                    why,
                })
            };
            let target = dir.read_link_contents(&name).unwrap_or_default();
            if b.follow {
                let real = std::fs::canonicalize(path)
                    .map_err(|_| refuse(format!("link points nowhere (→ {})", target.display())))?;
                return write_target(&Boundary::user(path_parent(&real), &b.label), &real);
            }
            let rel = b.relative(path)?;
            let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
            let real_rel = root.canonicalize(rel).map_err(|_| {
                refuse(format!(
                    "link leaves {} or points nowhere (→ {})",
                    b.label,
                    target.display()
                ))
            })?;
            let real_abs = b.root.join(&real_rel);
            if real_rel == rel {
                return Err(refuse("link loop".into()));
            }
            write_target(b, &real_abs)
        }
        kind => Err(GateError::WriteSpecial {
            path: path.to_path_buf(),
            kind,
        }
        .into()),
    }
}

/// How a write lands on a file that is already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landing {
    /// A new file renamed over it ([`write_atomic`], a file created beside it): a change to
    /// its directory, which must take it. A read-only file is replaced, keeping its mode.
    Replace,
    /// The file opened for writing where it is (a lock file): the file must be writable too.
    InPlace,
}

/// Why a write to `path` (inside `b`) would not be carried out, `None` when it would: the
/// refusals of [`write_atomic`] (a special file, a directory, a link out of the boundary or to
/// nowhere), a directory that is not there, or one this user may not change (a write lands by
/// a rename beside the file); a sticky directory where the file is another user's; with
/// [`Landing::InPlace`], a file this user may not write. Nothing is opened for writing: a dry
/// run asks this before it promises a write.
pub fn write_refusal(b: &Boundary, path: &Path, landing: Landing) -> Option<String> {
    let (dir, name, existing) = match write_target(b, path) {
        Ok(target) => target,
        Err(e) => return Some(e.message),
    };
    if let Some(why) = directory_refusal(&dir, &name, existing.is_some()) {
        return Some(format!("cannot write {}: {why}", path.display()));
    }
    let writable = || sys::writable_at(&dir, &name);
    if landing == Landing::InPlace && existing.is_some() && !writable() {
        return Some(format!("cannot write {}: it is read-only", path.display()));
    }
    None
}

/// Why [`remove_file`] would not remove `path` (inside `b`), `None` when it would or nothing
/// is there: a removal is a change to the directory alone, so a read-only file in a directory
/// this user may change goes; a directory this user may not change (or a sticky one, where the
/// file is another user's) keeps it.
pub fn remove_refusal(b: &Boundary, path: &Path) -> Option<String> {
    match kind(b, path) {
        None => return None,
        Some(Kind::Dir) => {
            return Some(format!(
                "cannot delete {}: it is a directory",
                path.display()
            ));
        }
        Some(_) => {}
    }
    let (dir, name) = match b.parent_of(path) {
        Ok(place) => place,
        Err(e) => return Some(e.message),
    };
    directory_refusal(&dir, &name, true)
        .map(|why| format!("cannot delete {}: {why}", path.display()))
}

/// Why this user may not add, replace or remove the entry `name` of `dir` (`there`: something
/// is at `name`), `None` when they may (the platform's rules: [`sys::directory_refusal`]).
fn directory_refusal(dir: &Dir, name: &std::ffi::OsStr, there: bool) -> Option<String> {
    sys::directory_refusal(dir, name, there)
}

static TEMP_COUNTER: AtomicU32 = AtomicU32::new(0);

fn temp_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "{TEMP_PREFIX}{}-{nanos:08x}-{n}{TEMP_SUFFIX}",
        std::process::id()
    )
}

/// Removes megg temp files older than [`STALE_TEMP_AGE`] from `dir`: a killed megg leaves
/// them, and they must not linger in `git status`.
fn remove_stale_temps(dir: &Dir) {
    let Ok(entries) = dir.entries() else { return };
    let now = SystemTime::now();
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name();
        let s = name.to_string_lossy();
        if !(s.starts_with(TEMP_PREFIX) && s.ends_with(TEMP_SUFFIX)) {
            continue;
        }
        let old = dir
            .symlink_metadata(&name)
            .ok()
            .and_then(|m| m.modified().ok())
            .map(|t| t.into_std())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE_TEMP_AGE);
        if old {
            let _ = dir.remove_file(&name);
        }
    }
}

fn new_file_options(mode: u32) -> OpenOptions {
    let mut opts = OpenOptions::new();
    // create_new is O_EXCL: never opens, truncates or follows what is already there.
    opts.write(true).create_new(true);
    sys::write_options(&mut opts, mode, false);
    opts
}

/// A new, empty temp file beside `path` (inside `b`), created exclusively: the file, its name
/// and the directory holding it (to remove it by).
pub(super) fn create_temp(b: &Boundary, path: &Path) -> Result<(std::fs::File, OsString, Dir)> {
    let (dir, _) = b.parent_of(path)?;
    let tmp = OsString::from(temp_name());
    let file = dir
        .open_with(&tmp, &new_file_options(0o600))
        .map_err(|e| Error::io("create a temporary file beside", path, &e))?;
    Ok((file.into_std(), tmp, dir))
}

/// Replaces `path` (inside `b`) with `bytes` atomically: a temp file created exclusively in
/// the same directory, fsync, rename. An existing file's mode is kept; a new file gets 0666
/// minus the umask. A link out of the boundary or a special file is refused, nothing written.
pub fn write_atomic(b: &Boundary, path: &Path, bytes: &[u8]) -> Result<()> {
    let (dir, name, mode) = write_target(b, path)?;
    if crate::failpoint::off("no-atomic") {
        return write_in_place(&dir, &name, path, bytes);
    }
    remove_stale_temps(&dir);
    let tmp = temp_name();
    let file = dir
        .open_with(&tmp, &new_file_options(0o666))
        .map_err(|e| Error::io("create a temporary file beside", path, &e))?;
    let mut file = file.into_std();
    let result = (|| -> io::Result<()> {
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            sys::set_mode(&file, mode)?;
        }
        file.sync_all()?;
        crate::failpoint::hold(path);
        while_held(|| dir.rename(&tmp, &dir, &name))
    })();
    if let Err(e) = result {
        let _ = dir.remove_file(&tmp);
        if is_held(&e) {
            return Err(Error::user(format!(
                "cannot write {}: another program holds it open; nothing written",
                path.display()
            ))
            .with_hint(
                "close it in the editor or program that has it open, then run the command again",
            ));
        }
        return Err(Error::io("write", path, &e));
    }
    // Make the rename itself durable; failure here loses nothing already visible.
    if let Ok(d) = dir.try_clone() {
        let _ = d.into_std_file().sync_all();
    }
    Ok(())
}

/// The unprotected write a test switches on (`no-atomic`) to show what the rename prevents:
/// a reader between the two halves sees a torn file.
fn write_in_place(dir: &Dir, name: &OsString, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut opts = OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    let mut file = dir
        .open_with(name, &opts)
        .map_err(|e| Error::io("write", path, &e))?
        .into_std();
    let (first, rest) = bytes.split_at(bytes.len() / 2);
    file.write_all(first)
        .map_err(|e| Error::io("write", path, &e))?;
    crate::failpoint::hold(path);
    file.write_all(rest)
        .map_err(|e| Error::io("write", path, &e))
}

/// Creates `path` with `bytes`, exclusively: never over an existing file or through a link.
/// `Ok(false)` when something is already there.
pub fn create_new(b: &Boundary, path: &Path, bytes: &[u8]) -> Result<bool> {
    let (dir, name) = b.parent_of(path)?;
    let mut file = match dir.open_with(&name, &new_file_options(0o666)) {
        Ok(f) => f.into_std(),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(Error::io("create", path, &e)),
    };
    if let Err(e) = file.write_all(bytes).and_then(|()| file.sync_all()) {
        // Not left half written (a full disk): a file that exists claims its name for good
        // (a hook's claim, a backup's name).
        drop(file);
        let _ = dir.remove_file(&name);
        return Err(Error::io("write", path, &e));
    }
    Ok(true)
}

/// Appends `bytes` to the regular file `path` inside `b` (creating it), never through a link
/// or into a special file; returns the file's size after. Not synced: for megg's own logs,
/// where one lost line after a crash costs nothing and a sync per line would cost every hook.
pub fn append(b: &Boundary, path: &Path, bytes: &[u8]) -> Result<u64> {
    let (dir, name) = b.parent_of(path)?;
    let mut opts = OpenOptions::new();
    opts.append(true).create(true);
    sys::write_options(&mut opts, 0o666, true);
    let mut file = dir
        .open_with(&name, &opts)
        .map_err(|e| Error::io("append to", path, &e))?
        .into_std();
    let meta = file
        .metadata()
        .map_err(|e| Error::io("append to", path, &e))?;
    let kind = Kind::of(&meta.file_type());
    if kind != Kind::File {
        return Err(GateError::WriteSpecial {
            path: path.to_path_buf(),
            kind,
        }
        .into());
    }
    file.write_all(bytes)
        .map_err(|e| Error::io("append to", path, &e))?;
    Ok(meta.len() + bytes.len() as u64)
}

/// Creates a file named `base` in `dir` (inside `b`), or `base.2`, `base.3`… when taken:
/// backups and quarantine copies never replace anything. Returns the path written.
pub fn create_unique(b: &Boundary, dir: &Path, base: &str, bytes: &[u8]) -> Result<PathBuf> {
    create_dir_all(b, dir)?;
    for n in 1..1000 {
        let name = if n == 1 {
            base.to_string()
        } else {
            format!("{base}.{n}")
        };
        let path = dir.join(&name);
        if create_new(b, &path, bytes)? {
            return Ok(path);
        }
    }
    Err(GateError::NamesExhausted {
        path: dir.join(base),
    }
    .into())
}

/// Moves the file at `from` (inside `from_b`) into `to_dir` (inside `to_b`) as `base`, or
/// `base.2`, `base.3`… when taken: a quarantine never replaces anything, and the bytes exist
/// in the new place before the old name goes. Returns the new path.
pub fn move_unique(
    from_b: &Boundary,
    from: &Path,
    to_b: &Boundary,
    to_dir: &Path,
    base: &str,
) -> Result<PathBuf> {
    create_dir_all(to_b, to_dir)?;
    let (src_dir, src_name) = from_b.parent_of(from)?;
    let (dst_dir, _) = to_b.parent_of(&to_dir.join(base))?;
    for n in 1..1000 {
        let name = if n == 1 {
            base.to_string()
        } else {
            format!("{base}.{n}")
        };
        let target = to_dir.join(&name);
        // link(2) fails rather than replace an existing name: exclusive by construction.
        match src_dir.hard_link(&src_name, &dst_dir, &name) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(_) => {
                // Another file system (or no hard links): copy the bytes, then remove.
                let Some(bytes) = read_bytes(from_b, from, MAX_MOVE_BYTES)? else {
                    return Err(Error::user(format!("{} disappeared", from.display())));
                };
                if !create_new(to_b, &target, &bytes)? {
                    continue;
                }
            }
        }
        src_dir
            .remove_file(&src_name)
            .map_err(|e| Error::io("remove", from, &e))?;
        return Ok(target);
    }
    Err(Error::user(format!(
        "cannot move {} into {}: 999 files of that name already exist",
        from.display(),
        to_dir.display()
    )))
}

/// Most bytes copied when a move has to copy.
const MAX_MOVE_BYTES: u64 = 64 * 1024 * 1024;

/// Deletes a file (a link is removed itself, never its target); `Ok(false)` when it was
/// already gone.
pub fn remove_file(b: &Boundary, path: &Path) -> Result<bool> {
    if kind(b, path).is_none() {
        // Nothing there (its directory may not exist either).
        return Ok(false);
    }
    let (dir, name) = b.parent_of(path)?;
    match dir.remove_file(&name) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("delete", path, &e)),
    }
}

/// Removes an empty directory; `false` when it is not empty or not there.
pub fn remove_empty_dir(b: &Boundary, path: &Path) -> bool {
    b.parent_of(path)
        .is_ok_and(|(dir, name)| dir.remove_dir(&name).is_ok())
}

/// Creates `path` and its parents inside `b`.
pub fn create_dir_all(b: &Boundary, path: &Path) -> Result<()> {
    if b.follow {
        return std::fs::create_dir_all(path).map_err(|e| Error::io("create", path, &e));
    }
    let rel = b.relative(path).or_else(|e| {
        if path == b.root {
            Ok(Path::new(""))
        } else {
            Err(e)
        }
    })?;
    // The boundary's root is the anchor megg chose (a `.megg`, the git or cache directory):
    // create it where it is missing; everything below it is created inside it.
    if !is_dir(&b.real) {
        std::fs::create_dir_all(&b.real).map_err(|e| Error::io("create", &b.root, &e))?;
    }
    let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
    if rel.as_os_str().is_empty() {
        return Ok(());
    }
    root.create_dir_all(rel)
        .map_err(|e| b.refusal(&root, rel, path, e, "create"))
}
