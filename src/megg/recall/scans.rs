//! What the secret scan found in the texts megg shows (SPEC §12 "At injection"), remembered by
//! each text's 128-bit xxh3: for the run (a file read twice is scanned once) and across runs,
//! in one small file of megg's cache directory. A SessionStart hook on files that did not
//! change since the last run compiles no rule and scans nothing: its scan costs a hash of each
//! file (SPEC §8).
//!
//! The file (`<cache>/secrets/scans`) is [`MAGIC`] and megg's version on its first line, then
//! one line per text, newest first: its hash, then each finding's start, end and rule, all
//! separated by tabs. Bounded to [`KEPT`] texts; a finding that is not a piece of its text is
//! never used (the text is scanned again); skipped silently when it cannot be read or written.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::fsx::{self, Boundary};
use crate::megg::secrets;

/// The first line's start; a new layout gets a new one.
const MAGIC: &str = "megg secret scans 1";
/// Texts remembered: the files of a few domains, each in a few versions.
const KEPT: usize = 64;
/// Most bytes of the file read.
const MAX_BYTES: u64 = 1024 * 1024;

/// One secret in a text: where it is, and the rule that found it (gitleaks' id, megg's words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub range: Range<usize>,
    pub rule: String,
}

type Known = Vec<(u128, Arc<Vec<Found>>)>;

/// The texts of this run and of the file, once read.
static SCANS: Mutex<Option<Known>> = Mutex::new(None);

/// The secrets in `text`, in order: remembered, else scanned (and remembered).
pub fn find(text: &str) -> Arc<Vec<Found>> {
    let key = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
    let cache = cache_dir();
    let known = SCANS.lock().ok().and_then(|mut scans| {
        let known = scans.get_or_insert_with(|| cache.as_deref().map(load).unwrap_or_default());
        let (_, found) = known.iter().find(|(k, _)| *k == key)?;
        fits(found, text).then(|| found.clone())
    });
    if let Some(found) = known {
        return found;
    }
    crate::failpoint::log("secret-scan");
    let found: Arc<Vec<Found>> = Arc::new(
        secrets::find(text)
            .into_iter()
            .map(|f| Found {
                range: f.range,
                rule: f.source.name().to_string(),
            })
            .collect(),
    );
    if let Ok(mut scans) = SCANS.lock() {
        let known = scans.get_or_insert_with(Vec::new);
        known.retain(|(k, _)| *k != key);
        known.insert(0, (key, found.clone()));
        known.truncate(KEPT);
        if let Some(dir) = &cache {
            store(dir, known);
        }
    }
    found
}

/// megg's cache directory, but in the crate's own tests (which must not write the user's).
fn cache_dir() -> Option<PathBuf> {
    if cfg!(test) {
        None
    } else {
        fsx::user_cache_dir()
    }
}

/// Whether each of `found` is a piece of `text`, in order.
fn fits(found: &[Found], text: &str) -> bool {
    let mut end = 0;
    found.iter().all(|f| {
        let ok = f.range.start >= end
            && f.range.start < f.range.end
            && text.get(f.range.clone()).is_some();
        end = f.range.end;
        ok
    })
}

fn file(cache: &Path) -> (Boundary, PathBuf) {
    let dir = cache.join("secrets");
    (Boundary::new(&dir, "megg's cache directory"), dir)
}

fn first_line() -> String {
    format!("{MAGIC} {}", env!("CARGO_PKG_VERSION"))
}

/// The texts the file in `cache` remembers, or none when it is missing, cut or of another
/// megg.
fn load(cache: &Path) -> Known {
    let (b, dir) = file(cache);
    let text = match fsx::read_text(&b, &dir.join("scans"), MAX_BYTES) {
        Ok(Some(t)) if !t.truncated && !t.lossy => t.text,
        _ => return Vec::new(),
    };
    let mut lines = text.lines();
    if lines.next() != Some(first_line().as_str()) {
        return Vec::new();
    }
    lines.filter_map(parse).take(KEPT).collect()
}

/// One line of the file.
fn parse(line: &str) -> Option<(u128, Arc<Vec<Found>>)> {
    let mut fields = line.split('\t');
    let key = u128::from_str_radix(fields.next()?, 16).ok()?;
    let fields: Vec<&str> = fields.collect();
    let found = fields
        .chunks(3)
        .map(|f| match f {
            [start, end, rule] => Some(Found {
                range: start.parse().ok()?..end.parse().ok()?,
                rule: (*rule).to_string(),
            }),
            _ => None,
        })
        .collect::<Option<Vec<Found>>>()?;
    Some((key, Arc::new(found)))
}

/// Writes `known` to the file in `cache` (a line with a tab or line end in a rule's name, which
/// none has, is left out).
fn store(cache: &Path, known: &Known) {
    let mut out = first_line();
    out.push('\n');
    for (key, found) in known {
        if found.iter().any(|f| f.rule.contains(['\t', '\n', '\r'])) {
            continue;
        }
        out.push_str(&format!("{key:032x}"));
        for f in found.iter() {
            out.push_str(&format!("\t{}\t{}\t{}", f.range.start, f.range.end, f.rule));
        }
        out.push('\n');
    }
    let (b, dir) = file(cache);
    if fsx::create_dir_all(&b, &dir).is_ok() {
        let _ = fsx::write_atomic(&b, &dir.join("scans"), out.as_bytes());
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    fn found(range: Range<usize>, rule: &str) -> Found {
        Found {
            range,
            rule: rule.to_string(),
        }
    }

    #[test]
    fn what_is_stored_is_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let known: Known = vec![
            (
                7,
                Arc::new(vec![
                    found(3..9, "gitlab-pat"),
                    found(12..20, "a password, secret or token value"),
                ]),
            ),
            (u128::MAX, Arc::new(Vec::new())),
        ];
        store(tmp.path(), &known);
        assert_eq!(load(tmp.path()), known);
    }

    #[test]
    fn a_file_of_another_megg_or_cut_is_not_used() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("secrets");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("scans"), "megg secret scans 0 0.1.0\n07\n").unwrap();
        assert!(load(tmp.path()).is_empty());
        std::fs::write(
            dir.join("scans"),
            format!("{}\n07\tx\t9\tr\n08\t1\n09\n", first_line()),
        )
        .unwrap();
        assert_eq!(load(tmp.path()), vec![(9, Arc::new(Vec::new()))]);
    }

    #[test]
    fn a_finding_that_is_no_piece_of_its_text_is_not_used() {
        let text = "é password=hunter2hunter2";
        assert!(fits(&[found(12..25, "r")], text));
        assert!(!fits(&[found(1..5, "r")], text), "inside a character");
        assert!(!fits(&[found(12..99, "r")], text), "past the end");
        assert!(
            !fits(&[found(12..25, "r"), found(13..14, "r")], text),
            "out of order"
        );
    }
}
