//! The parsed corpus and its postings, kept in megg's cache directory (SPEC §13.7): keyed by a
//! hash of every file they were built from (path, bytes and the place of its domain, which its
//! ids hash) and of megg's version, so never stale; never inside a project; the newest [`KEPT`] kept; skipped silently when they cannot be
//! read or written. A search with them gives the same bytes as one without: the same documents
//! and the same postings, only not computed again.
//!
//! A file is `MAGIC`, the 128-bit xxh3 of the rest, then the rest (postcard). One that is cut,
//! altered or made for other files fails the check, the key or [`Postings::fits`], and is
//! rebuilt.

use std::path::{Path, PathBuf};

use super::doc::{Doc, Source};
use super::postings::Postings;
use crate::fsx::{self, Boundary};

/// First bytes of a cache file; a new layout gets a new one.
const MAGIC: &[u8] = b"megg recall 3\n";
/// Cache files kept: one per corpus searched recently (a few projects, their `--below`).
pub const KEPT: usize = 8;
/// Most bytes of a cache file read or written.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// What one cache file holds: the documents without their text and path, which are where each
/// one's span says in the sources read for the key (a search reads them anyway), nor the key
/// their id was computed from; and the postings.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    key: String,
    docs: Vec<Doc>,
    spans: Vec<Span>,
    postings: Postings,
}

/// A document's text: source number, start and end byte.
type Span = (u32, u32, u32);

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
    let Stored {
        key: stored,
        mut docs,
        spans,
        postings,
    } = postcard::from_bytes(payload).ok()?;
    if stored != key || spans.len() != docs.len() || !postings.fits(docs.len()) {
        return None;
    }
    for (doc, &(src, start, end)) in docs.iter_mut().zip(&spans) {
        let source = sources.get(src as usize)?;
        doc.text = source.text.get(start as usize..end as usize)?.to_string();
        doc.path.clone_from(&source.path);
    }
    Some((docs, postings))
}

/// Where each document's text lies in `sources`: documents come in the order of their sources,
/// each after the one before it in the same source.
fn spans(docs: &[Doc], sources: &[Source]) -> Option<Vec<Span>> {
    let (mut src, mut from) = (0, 0);
    let mut out = Vec::with_capacity(docs.len());
    for doc in docs {
        loop {
            let s = sources.get(src)?;
            if s.path == doc.path
                && let Some(at) = s.text.get(from..)?.find(&doc.text)
            {
                let start = from + at;
                from = start + doc.text.len();
                out.push((
                    u32::try_from(src).ok()?,
                    u32::try_from(start).ok()?,
                    u32::try_from(from).ok()?,
                ));
                break;
            }
            (src, from) = (src + 1, 0);
        }
    }
    Some(out)
}

/// Stores `docs` and `postings` under `key`, then keeps the newest [`KEPT`] files. Failures are
/// ignored: the cache only saves time.
pub fn store(cache: &Path, key: &str, sources: &[Source], docs: &[Doc], postings: &Postings) {
    let (b, dir) = folder(cache);
    let Some(spans) = spans(docs, sources) else {
        return;
    };
    let stored = Stored {
        key: key.to_string(),
        docs: docs
            .iter()
            .map(|d| Doc {
                // Where the span points, and nothing once ids are given.
                text: String::new(),
                path: PathBuf::new(),
                key: String::new(),
                ..d.clone()
            })
            .collect(),
        spans,
        postings: postings.clone(),
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
