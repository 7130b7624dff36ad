//! The answers of one repository's HEAD, kept in megg's cache directory: one file per
//! repository (named by a hash of its git directory), for the HEAD it names and one walk cap.
//! Commits never change, so an answer for (path, since) at one HEAD is the answer forever; at a
//! new HEAD, the answers are brought up to it by walking the new commits only (or computed
//! again). Bounded, and skipped silently when it cannot be read or written.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::fsx::{self, Boundary};
use crate::git::{Ask, PathHistory, Repo};

/// First field of the first line; a new layout gets a new one.
const MAGIC: &str = "megg citations 1";
/// Most answers kept per repository.
const CAPACITY: usize = 4_096;
/// Most bytes read of a file.
const MAX_BYTES: u64 = 1024 * 1024;

/// The cache file of `repo` under `dir`.
pub fn file(dir: &Path, repo: &Repo) -> PathBuf {
    // Per work tree (each has its own HEAD), not per repository.
    let key = xxhash_rust::xxh3::xxh3_64(repo.git_dir().as_os_str().as_encoded_bytes());
    dir.join("citations").join(format!("{key:016x}.tsv"))
}

fn boundary(file: &Path) -> Option<Boundary> {
    Some(Boundary::new(file.parent()?, "megg's cache directory"))
}

/// The answers kept for `cap`, and the HEAD they are for; none when the file is for another
/// cap or cannot be read.
pub fn read(file: &Path, cap: usize) -> (HashMap<Ask, PathHistory>, Option<String>) {
    let mut out = HashMap::new();
    let Some(b) = boundary(file) else {
        return (out, None);
    };
    let Ok(Some(t)) = fsx::read_text(&b, file, MAX_BYTES) else {
        return (out, None);
    };
    if t.truncated {
        return (out, None);
    }
    let mut lines = t.text.lines();
    let head = lines.next().and_then(|l| {
        let mut f = l.split('\t');
        (f.next() == Some(MAGIC)).then_some(())?;
        let head = f.next()?;
        (f.next()? == cap.to_string()).then(|| head.to_string())
    });
    if head.is_none() {
        return (out, None);
    }
    for line in lines.take(CAPACITY) {
        if let Some((ask, h)) = parse(line) {
            out.insert(ask, h);
        }
    }
    (out, head)
}

fn header(head: &str, cap: usize) -> String {
    format!("{MAGIC}\t{head}\t{cap}")
}

fn parse(line: &str) -> Option<(Ask, PathHistory)> {
    let mut f = line.splitn(6, '\t');
    let since = f.next()?.parse().ok()?;
    let at_head = f.next()? == "1";
    let count = f.next()?.parse().ok()?;
    let capped = f.next()? == "1";
    let new_path = Some(f.next()?)
        .filter(|p| !p.is_empty())
        .map(str::to_string);
    let path = f.next()?.to_string();
    Some((
        Ask { path, since },
        PathHistory {
            at_head,
            touches: Vec::new(),
            count,
            new_path,
            capped,
        },
    ))
}

/// Keeps `answers` as the file of `head`: at most [`CAPACITY`] of them, those of `first` (what
/// this run needed) before any other.
pub fn write(
    file: &Path,
    head: &str,
    cap: usize,
    first: &[Ask],
    answers: &HashMap<Ask, PathHistory>,
) {
    let Some(b) = boundary(file) else { return };
    let mut text = header(head, cap);
    text.push('\n');
    let firsts: std::collections::HashSet<&Ask> = first.iter().collect();
    let ordered = first
        .iter()
        .filter_map(|a| answers.get_key_value(a))
        .chain(answers.iter().filter(|(a, _)| !firsts.contains(a)));
    for (a, h) in ordered.take(CAPACITY) {
        // A path (or a new path) with a tab or a line break cannot be kept in a line: asked again next time.
        let bad = |s: &str| s.contains(['\t', '\n', '\r']);
        if bad(&a.path) || h.new_path.as_deref().is_some_and(bad) {
            continue;
        }
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            a.since,
            u8::from(h.at_head),
            h.count,
            u8::from(h.capped),
            h.new_path.as_deref().unwrap_or(""),
            a.path
        ));
    }
    if fsx::create_dir_all(&b, b.root()).is_ok() {
        let _ = fsx::write_atomic(&b, file, text.as_bytes());
    }
}
