//! The parsed corpus and its postings, kept in megg's cache directory (SPEC §13.7): keyed by a
//! hash of every file they were built from (path, bytes and the place of its domain, which its
//! ids hash) and of megg's version, so never stale; never inside a project; the newest [`KEPT`]
//! kept; skipped silently when they cannot be read or written. A search with them gives the
//! same bytes as one without: the same documents and the same postings, only not computed
//! again.
//!
//! A file is `MAGIC`, the 128-bit xxh3 of the rest, then the rest (postcard). One that is cut,
//! altered or made for other files fails the check, the key, [`Postings::fits`] or the place of
//! a field, and is rebuilt.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::doc::{Doc, Kind, Source};
use super::postings::Postings;
use super::shared::{Shared, Topics};
use crate::fsx::{self, Boundary};

/// First bytes of a cache file; a new layout, or postings built another way (5: an entry's
/// field lines are no body text, stopwords are not stemmed; 6: a cited path's directories and
/// extension are no words of it), gets a new one.
const MAGIC: &[u8] = b"megg recall 6\n";
/// Cache files kept: one per corpus searched recently (a few projects, their `--below`).
pub const KEPT: usize = 8;
/// Most bytes of a cache file read or written.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// What one cache file holds: where each document's fields are — in its file's text, which a
/// search reads anyway (for the key), or in one string of the fields that are not (ids, an
/// info section's or a handoff's title, …) — and the postings. Read back, every field is a
/// piece of one of those strings, and every document's topics a run of one list: the documents
/// cost no allocation of their own.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored<'a> {
    key: String,
    /// The fields that are not in their document's file, one after another.
    table: String,
    /// Every document as numbers ([`record`]), little-endian `u32`s: read in place, without a
    /// call per number (which cost a warm search more than everything else in the file).
    #[serde(borrow)]
    docs: Cow<'a, [u8]>,
    postings: Postings,
}

/// Where a field is, the first of its three numbers in a [`record`] (its start and end byte
/// there follow): nowhere (a document without a date or type), in the document's file, or in
/// [`Stored::table`].
const ABSENT: usize = 0;
const IN_FILE: usize = 1;
const IN_TABLE: usize = 2;

/// The key of the corpus built from `sources`, in their order.
pub fn key(sources: &[Source]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(MAGIC);
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for s in sources {
        for part in [
            s.kind.as_str().as_bytes(),
            s.path.as_os_str().as_encoded_bytes(),
            s.domain.as_bytes(),
            // Ids hash it: the same files in a domain that moved (or became a repository's)
            // have other ids.
            s.place.as_bytes(),
            s.text.as_bytes(),
        ] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
    }
    format!("{:032x}", h.digest128())
}

/// The cache directory's folder for recall.
fn folder(cache: &Path) -> (Boundary, PathBuf) {
    let dir = cache.join("recall");
    (Boundary::new(&dir, "megg's cache directory"), dir)
}

/// The documents and postings stored under `key` for `sources`, when a sound file holds them.
pub fn load(cache: &Path, key: &str, sources: &[Source]) -> Option<(Vec<Doc>, Postings)> {
    let (b, dir) = folder(cache);
    let bytes = fsx::read_bytes(&b, &dir.join(format!("{key}.bin")), MAX_BYTES).ok()??;
    let rest = bytes.strip_prefix(MAGIC)?;
    let (sum, payload) = rest.split_at_checked(16)?;
    if sum != xxhash_rust::xxh3::xxh3_128(payload).to_le_bytes() {
        return None;
    }
    let stored: Stored = postcard::from_bytes(payload).ok()?;
    let mut numbers = Numbers(&stored.docs);
    if stored.key != key {
        return None;
    }
    let table = Arc::new(stored.table);
    let n = stored.postings.docs();
    let (mut docs, mut runs) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut topics = Vec::new();
    while !numbers.0.is_empty() {
        let start = topics.len();
        docs.push(doc(&mut numbers, &table, sources, &mut topics)?);
        runs.push(start..topics.len());
    }
    let topics = Arc::new(topics);
    for (d, run) in docs.iter_mut().zip(runs) {
        d.topics = Topics::run(&topics, run)?;
    }
    stored
        .postings
        .fits(docs.len())
        .then_some((docs, stored.postings))
}

/// The numbers of [`Stored::docs`], in order.
struct Numbers<'a>(&'a [u8]);

impl Iterator for Numbers<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let (n, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_le_bytes(*n) as usize)
    }
}

/// The next document of `numbers` ([`record`]), its fields pieces of its file's text and of
/// `table`; its topics appended to `topics` (the caller gives it its run of them).
fn doc(
    numbers: &mut Numbers<'_>,
    table: &Arc<String>,
    sources: &[Source],
    topics: &mut Vec<Shared>,
) -> Option<Doc> {
    let kind = *Kind::ALL.get(numbers.next()?)?;
    let source = sources.get(numbers.next()?)?;
    let line = numbers.next()?;
    let count = numbers.next()?;
    // `Some(None)` for an absent field, `None` for numbers that are not a field.
    let mut field = || {
        let (place, start, end) = (numbers.next()?, numbers.next()?, numbers.next()?);
        let whole = match place {
            ABSENT => return Some(None),
            IN_FILE => &source.text,
            IN_TABLE => table,
            _ => return None,
        };
        Shared::at(whole, start..end).map(Some)
    };
    let id = field()??;
    let date = field()?;
    let entry_type = field()?;
    let title = field()??;
    let text = field()??;
    for _ in 0..count {
        topics.push(field()??);
    }
    Some(Doc {
        id,
        kind,
        path: source.path.clone(),
        line,
        date,
        entry_type,
        title,
        topics: Topics::default(),
        text,
        key: String::new(),
    })
}

/// `docs` as [`Stored`]. `None` when a document is not of the next of `sources` (never, for a
/// corpus read from them).
fn stored(
    key: &str,
    sources: &[Source],
    docs: &[Doc],
    postings: &Postings,
) -> Option<Stored<'static>> {
    let (mut table, mut numbers) = (String::new(), Vec::new());
    let mut src = 0;
    for d in docs {
        // Documents come in the order of their files.
        let source = loop {
            let source = sources.get(src)?;
            if Arc::ptr_eq(&source.path, &d.path) {
                break source;
            }
            src += 1;
        };
        record(d, src, &source.text, &mut table, &mut numbers)?;
    }
    Some(Stored {
        key: key.to_string(),
        table,
        docs: Cow::Owned(numbers),
        postings: postings.clone(),
    })
}

/// Appends document `d`, of source number `src` (whose text is `text`), to `numbers`: its kind
/// (its place in [`Kind::ALL`]), source, line and number of topics, then its id, date, type,
/// title, text and topics as three numbers each — [`ABSENT`], [`IN_FILE`] or [`IN_TABLE`], and
/// the field's start and end byte there (appended to `table` when it is not in `text`).
fn record(
    d: &Doc,
    src: usize,
    text: &Arc<String>,
    table: &mut String,
    numbers: &mut Vec<u8>,
) -> Option<()> {
    let mut put = |n: usize| -> Option<()> {
        numbers.extend_from_slice(&u32::try_from(n).ok()?.to_le_bytes());
        Some(())
    };
    let kind = Kind::ALL.iter().position(|&k| k == d.kind)?;
    for n in [kind, src, d.line, d.topics.len()] {
        put(n)?;
    }
    let fields = [Some(&d.id), d.date.as_ref(), d.entry_type.as_ref()]
        .into_iter()
        .chain([Some(&d.title), Some(&d.text)])
        .chain(d.topics.iter().map(Some));
    for field in fields {
        let (place, range) = match field {
            None => (ABSENT, 0..0),
            Some(f) => match f.range_in(text) {
                Some(range) => (IN_FILE, range),
                None => {
                    table.push_str(f);
                    (IN_TABLE, table.len() - f.len()..table.len())
                }
            },
        };
        for n in [place, range.start, range.end] {
            put(n)?;
        }
    }
    Some(())
}

/// Stores `docs` and `postings` under `key`, then keeps the newest [`KEPT`] files. Failures are
/// ignored: the cache only saves time.
pub fn store(cache: &Path, key: &str, sources: &[Source], docs: &[Doc], postings: &Postings) {
    let (b, dir) = folder(cache);
    let Some(stored) = stored(key, sources, docs, postings) else {
        return;
    };
    let Ok(payload) = postcard::to_stdvec(&stored) else {
        return;
    };
    let mut bytes = Vec::with_capacity(MAGIC.len() + 16 + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    if bytes.len() as u64 > MAX_BYTES
        || fsx::create_dir_all(&b, &dir).is_err()
        || fsx::write_atomic(&b, &dir.join(format!("{key}.bin")), &bytes).is_err()
    {
        return;
    }
    prune(&b, &dir);
}

/// Removes all but the newest [`KEPT`] cache files.
fn prune(b: &Boundary, dir: &Path) {
    let Ok(mut files) = fsx::list_files_modified(b, dir) else {
        return;
    };
    files.retain(|(name, _)| Path::new(name).extension().is_some_and(|e| e == "bin"));
    if files.len() <= KEPT {
        return;
    }
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (name, _) in files.into_iter().skip(KEPT) {
        let _ = fsx::remove_file(b, &dir.join(name));
    }
}
