//! The answers of one repository's HEAD, kept in megg's cache directory: one file per
//! repository (named by a hash of its git directory), for the HEAD it names and one walk cap —
//! what each (path, day) and each bare name (in a domain) came to. Commits never change, so an
//! answer at one HEAD is the answer forever; at a new HEAD, the answers are brought up to it by
//! walking the new commits only (or computed again). Bounded, and skipped silently when it
//! cannot be read or written.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::fsx::{self, Boundary};
use crate::git::{Ask, NameAsk, Named, PathHistory, Repo};

/// First field of the first line; a new layout gets a new one. 2: days end at their base on
/// the first-parent chain, paths that existed, counts after a move, bare names.
const MAGIC: &str = "megg citations 2";
/// Most answers kept per repository, of each kind.
const CAPACITY: usize = 4_096;
/// Most bytes read of a file.
const MAX_BYTES: u64 = 2 * 1024 * 1024;

/// The cache file of `repo` under `dir`.
pub fn file(dir: &Path, repo: &Repo) -> PathBuf {
    // Per work tree (each has its own HEAD), not per repository.
    let key = xxhash_rust::xxh3::xxh3_64(repo.git_dir().as_os_str().as_encoded_bytes());
    dir.join("citations").join(format!("{key:016x}.tsv"))
}

fn boundary(file: &Path) -> Option<Boundary> {
    Some(Boundary::new(file.parent()?, "megg's cache directory"))
}

/// What a cache file holds.
#[derive(Debug, Default)]
pub struct Kept {
    /// The HEAD the answers are for; none when the file is for another cap or layout, or
    /// cannot be read.
    pub head: Option<String>,
    pub asks: HashMap<Ask, PathHistory>,
    pub names: HashMap<NameAsk, Named>,
}

/// The answers kept for `cap`.
pub fn read(file: &Path, cap: usize) -> Kept {
    let mut out = Kept::default();
    let Some(b) = boundary(file) else {
        return out;
    };
    let Ok(Some(t)) = fsx::read_text(&b, file, MAX_BYTES) else {
        return out;
    };
    if t.truncated {
        return out;
    }
    let mut lines = t.text.lines();
    out.head = lines.next().and_then(|l| {
        let mut f = l.split('\t');
        (f.next() == Some(MAGIC)).then_some(())?;
        let head = f.next()?;
        (f.next()? == cap.to_string()).then(|| head.to_string())
    });
    if out.head.is_none() {
        return out;
    }
    for line in lines.take(2 * CAPACITY) {
        if let Some(rest) = line.strip_prefix("A\t")
            && let Some((ask, h)) = parse_ask(rest)
        {
            out.asks.insert(ask, h);
        } else if let Some(rest) = line.strip_prefix("N\t")
            && let Some((ask, n)) = parse_name(rest)
        {
            out.names.insert(ask, n);
        }
    }
    out
}

fn header(head: &str, cap: usize) -> String {
    format!("{MAGIC}\t{head}\t{cap}")
}

fn flag(f: Option<&str>) -> Option<bool> {
    match f? {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

fn parse_ask(line: &str) -> Option<(Ask, PathHistory)> {
    let mut f = line.splitn(8, '\t');
    let since = f.next()?.parse().ok()?;
    let at_head = flag(f.next())?;
    let existed = flag(f.next())?;
    let count = f.next()?.parse().ok()?;
    let moved_count = f.next()?.parse().ok()?;
    let capped = flag(f.next())?;
    let new_path = Some(f.next()?)
        .filter(|p| !p.is_empty())
        .map(str::to_string);
    let path = f.next()?.to_string();
    Some((
        Ask { path, since },
        PathHistory {
            at_head,
            existed,
            touches: Vec::new(),
            count,
            new_path,
            moved_count,
            capped,
        },
    ))
}

fn parse_name(line: &str) -> Option<(NameAsk, Named)> {
    let mut f = line.splitn(5, '\t');
    let capped = flag(f.next())?;
    let several = flag(f.next())?;
    let path = Some(f.next()?)
        .filter(|p| !p.is_empty())
        .map(str::to_string);
    let domain = f.next()?.to_string();
    let name = f.next()?.to_string();
    Some((
        NameAsk { name, domain },
        // The candidates are for `learn`'s message, which asks git itself: not kept.
        Named {
            path,
            several,
            capped,
            candidates: Vec::new(),
        },
    ))
}

/// Keeps `asks` and `names` as the file of `head`: at most [`CAPACITY`] of each, those of
/// `first_asks` and `first_names` (what this run needed) before any other.
pub fn write(
    file: &Path,
    head: &str,
    cap: usize,
    (first_asks, asks): (&[Ask], &HashMap<Ask, PathHistory>),
    (first_names, names): (&[NameAsk], &HashMap<NameAsk, Named>),
) {
    let Some(b) = boundary(file) else { return };
    let mut text = header(head, cap);
    text.push('\n');
    // A path with a tab or a line break cannot be kept in a line: asked again next time.
    let bad = |s: &str| s.contains(['\t', '\n', '\r']);
    for (a, h) in first_of(first_asks, asks).take(CAPACITY) {
        if bad(&a.path) || h.new_path.as_deref().is_some_and(bad) {
            continue;
        }
        text.push_str(&format!(
            "A\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            a.since,
            u8::from(h.at_head),
            u8::from(h.existed),
            h.count,
            h.moved_count,
            u8::from(h.capped),
            h.new_path.as_deref().unwrap_or(""),
            a.path
        ));
    }
    for (a, n) in first_of(first_names, names).take(CAPACITY) {
        if bad(&a.name) || bad(&a.domain) || n.path.as_deref().is_some_and(bad) {
            continue;
        }
        text.push_str(&format!(
            "N\t{}\t{}\t{}\t{}\t{}\n",
            u8::from(n.capped),
            u8::from(n.several),
            n.path.as_deref().unwrap_or(""),
            a.domain,
            a.name
        ));
    }
    if fsx::create_dir_all(&b, b.root()).is_ok() {
        let _ = fsx::write_atomic(&b, file, text.as_bytes());
    }
}

/// The entries of `all`, those of `first` first.
fn first_of<'a, K: Eq + std::hash::Hash, V>(
    first: &'a [K],
    all: &'a HashMap<K, V>,
) -> impl Iterator<Item = (&'a K, &'a V)> {
    let firsts: HashSet<&K> = first.iter().collect();
    first
        .iter()
        .filter_map(|a| all.get_key_value(a))
        .chain(all.iter().filter(move |(a, _)| !firsts.contains(a)))
}
