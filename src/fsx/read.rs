//! Bounded, non-blocking reads of regular files inside a boundary.

use std::borrow::Cow;

use super::*;

/// Text read from a file. Invalid UTF-8 is replaced with U+FFFD and reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub text: String,
    /// The file held bytes that are not UTF-8.
    pub lossy: bool,
    /// Bytes read (at most the limit).
    pub len: u64,
    /// The file is longer than the limit: `text` is its first `limit` bytes.
    pub truncated: bool,
}

/// Reads at most `limit` bytes of the regular file at `path` inside `b`, as LF text: `\r\n` and
/// a lone `\r` are read as `\n` (Git for Windows checks text out with CRLF, SPEC §15.1), so no
/// `\r` reaches what megg counts, injects or prints. `Ok(None)` when it does not exist. A link
/// out of the boundary, a special file or an unreadable file is an error whose message starts
/// `skipped <path>:` and names where a link points.
pub fn read_text(b: &Boundary, path: &Path, limit: u64) -> Result<Option<Text>> {
    Ok(read_as_is(b, path, limit)?.map(|t| Text {
        text: match lf(&t.text) {
            Cow::Borrowed(_) => t.text,
            Cow::Owned(text) => text,
        },
        ..t
    }))
}

/// `text` as [`read_text`] reads it: every line ending `\n`.
pub fn lf(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether most of `text`'s line endings are `\r\n`: a file Git for Windows checked out, whose
/// new lines megg writes the same way (SPEC §15.1).
pub fn mostly_crlf(text: &str) -> bool {
    let crlf = text.matches("\r\n").count();
    crlf > 0 && crlf * 2 >= text.matches('\n').count()
}

/// LF `text` with the line endings a file megg edits had: every `\n` as `\r\n` when `crlf`.
pub fn with_endings(text: &str, crlf: bool) -> Cow<'_, str> {
    if crlf {
        Cow::Owned(lf(text).replace('\n', "\r\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// [`read_text`] with the line endings as they are in the file.
fn read_as_is(b: &Boundary, path: &Path, limit: u64) -> Result<Option<Text>> {
    let Some(Stream { file, len, .. }) = open_stream(b, path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(capacity(len, limit));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, &e))?;
    let truncated = bytes.len() as u64 > limit;
    if truncated {
        bytes.truncate(limit as usize);
        // Don't report a character cut in half by the limit as invalid UTF-8.
        if let Err(e) = std::str::from_utf8(&bytes)
            && e.error_len().is_none()
        {
            bytes.truncate(e.valid_up_to());
        }
    }
    let len = bytes.len() as u64;
    Ok(Some(match String::from_utf8(bytes) {
        Ok(text) => Text {
            text,
            lossy: false,
            len,
            truncated,
        },
        Err(e) => Text {
            text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
            lossy: true,
            len,
            truncated,
        },
    }))
}

/// The buffer to read a file of `len` bytes (as its metadata says when opened) into: its size,
/// never more than `limit` — a size is a hint for the allocation, never trusted for the read,
/// which goes on to the end or the limit whatever the file claimed.
fn capacity(len: u64, limit: u64) -> usize {
    usize::try_from(len.min(limit)).unwrap_or(0)
}

/// A regular file inside `b`, opened for a streaming read whose caller bounds what it reads
/// (a transcript: megg reads it line by line, each line bounded, never the whole file).
#[derive(Debug)]
pub struct Stream {
    pub file: std::fs::File,
    /// Its size when opened.
    pub len: u64,
    /// Device and inode: a file replaced under the same name is a different file.
    pub id: (u64, u64),
}

/// Opens the regular file at `path` inside `b` for [`Stream`]ing; `Ok(None)` when it does
/// not exist. Every read in the gate opens through here: never blocks on a special file (the
/// type is checked on the opened descriptor) and never follows a link out of `b`.
pub fn open_stream(b: &Boundary, path: &Path) -> Result<Option<Stream>> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    sys::read_options(&mut opts);
    let opened = if b.follow {
        cap_std::fs::File::open_ambient_with(path, &opts, cap_std::ambient_authority())
    } else {
        let rel = b.relative(path)?;
        let root = b.open_root().map_err(|e| Error::io("open", &b.root, &e))?;
        match root.open_with(rel, &opts) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(b.refusal(&root, rel, path, e, "read")),
            Ok(f) => Ok(f),
        }
    };
    let file = match opened {
        Ok(f) => f.into_std(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("read", path, &e)),
    };
    let meta = file.metadata().map_err(|e| Error::io("read", path, &e))?;
    let kind = Kind::of(&meta.file_type());
    if kind != Kind::File {
        return Err(GateError::Special {
            path: path.to_path_buf(),
            kind,
        }
        .into());
    }
    Ok(Some(Stream {
        len: meta.len(),
        id: sys::file_identity(&file, &meta),
        file,
    }))
}

/// Like [`read_text`] for a file megg will rewrite, its line endings kept (a file megg edits
/// keeps them, SPEC §15.1): a file over `limit` or with bytes that are not UTF-8 is refused,
/// because writing it back would lose what could not be read.
pub fn read_for_edit(b: &Boundary, path: &Path, limit: u64) -> Result<Option<String>> {
    let Some(t) = read_as_is(b, path, limit)? else {
        return Ok(None);
    };
    if t.truncated {
        return Err(GateError::RewriteOverLimit {
            path: path.to_path_buf(),
            limit,
        }
        .into());
    }
    if t.lossy {
        return Err(GateError::RewriteNotUtf8 {
            path: path.to_path_buf(),
        }
        .into());
    }
    Ok(Some(t.text))
}

/// Reads a file the user named on the command line (`--file F`): wherever it is, but only a
/// regular file, without blocking, and at most `limit` bytes (more is an error).
pub fn read_named(path: &Path, limit: u64) -> Result<Text> {
    let b = Boundary::user(path_parent(path), "its directory");
    let t = read_text(&b, path, limit)?
        .ok_or_else(|| Error::user(format!("{} does not exist", path.display())))?;
    if t.truncated {
        return Err(GateError::OverLimit {
            path: path.to_path_buf(),
            limit,
        }
        .into());
    }
    Ok(t)
}

/// Reads stdin up to `limit` bytes. Returns the text, whether invalid UTF-8 was replaced, and
/// whether input was cut at the limit (the rest is never read).
pub fn read_stdin(limit: u64) -> Result<(String, bool, bool)> {
    let mut bytes = Vec::new();
    io::stdin()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::user(format!("cannot read stdin: {e}")))?;
    let cut = bytes.len() as u64 > limit;
    if cut {
        bytes.truncate(limit as usize);
        if let Err(e) = std::str::from_utf8(&bytes)
            && e.error_len().is_none()
        {
            bytes.truncate(e.valid_up_to());
        }
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => (s, false, cut),
        Err(e) => (
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            true,
            cut,
        ),
    })
}

/// Most bytes read from stdin by any command (SPEC §9).
pub const MAX_STDIN_BYTES: u64 = 1024 * 1024;

/// What is at `path` inside `b`, without following a final link; `None` when nothing is.
pub fn kind(b: &Boundary, path: &Path) -> Option<Kind> {
    let (dir, name) = b.parent_of(path).ok()?;
    dir.symlink_metadata(&name)
        .ok()
        .map(|m| Kind::of(&m.file_type()))
}

/// Whether `path` is a regular file inside `b` (a link to one inside `b` counts).
pub fn is_file(b: &Boundary, path: &Path) -> bool {
    let Ok(rel) = b.relative(path) else {
        return false;
    };
    if b.follow {
        return std::fs::metadata(path).is_ok_and(|m| m.is_file());
    }
    b.open_root()
        .and_then(|root| root.metadata(rel))
        .is_ok_and(|m| m.is_file())
}

/// The raw bytes of a regular file inside `b`, at most `limit` (more is an error).
pub fn read_bytes(b: &Boundary, path: &Path, limit: u64) -> Result<Option<Vec<u8>>> {
    let Some(Stream { file, len, .. }) = open_stream(b, path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(capacity(len, limit));
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", path, &e))?;
    if bytes.len() as u64 > limit {
        return Err(GateError::OverLimit {
            path: path.to_path_buf(),
            limit,
        }
        .into());
    }
    Ok(Some(bytes))
}
