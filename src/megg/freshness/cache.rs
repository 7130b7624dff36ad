//! The answers of one repository's HEAD, kept in megg's cache directory: one file per
//! repository (named by a hash of its git directory) and walk — the session start's, and
//! `maintain --check`'s deeper one, which names the commits too — for the HEAD it names and one
//! walk cap: what each (path, day) and each bare name (in a domain) came to. Commits never
//! change, so an answer at one HEAD is the answer forever; at a new HEAD, the answers are
//! brought up to it by walking the new commits only (or computed again). Bounded, and skipped
//! silently when it cannot be read or written.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::fsx::{self, Boundary};
use crate::git::{Ask, NameAsk, Named, PathHistory, Repo, Touch};

/// First field of the first line; a new layout gets a new one. 2: days end at their base on
/// the first-parent chain, paths that existed, counts after a move, bare names.
const MAGIC: &str = "megg citations 2";
/// Most answers kept per repository, of each kind.
const CAPACITY: usize = 4_096;
/// Most bytes read of a file, and written: the answers past it are not kept.
const MAX_BYTES: u64 = 4 * 1024 * 1024;
/// Most new commits walked to bring kept answers up to a new HEAD; past it, they are
/// computed again.
const INCREMENTAL_CAP: usize = 1_000;

/// The cache file of `repo` under `dir`: the session start's, or with `touches` the one of
/// `maintain --check`'s walk (its answers name the commits).
pub fn file(dir: &Path, repo: &Repo, touches: bool) -> PathBuf {
    // Per work tree (each has its own HEAD), not per repository.
    let key = xxhash_rust::xxh3::xxh3_64(repo.git_dir().as_os_str().as_encoded_bytes());
    let kind = if touches { ".check" } else { "" };
    dir.join("citations").join(format!("{key:016x}{kind}.tsv"))
}

fn boundary(file: &Path) -> Option<Boundary> {
    Some(Boundary::new(file.parent()?, "megg's cache directory"))
}

/// The answers of one HEAD: read from the cache and brought up to HEAD, then completed by the
/// walks this run makes, and kept again.
pub struct Kept {
    file: Option<PathBuf>,
    head: String,
    /// The walk's bound the answers are for.
    pub cap: usize,
    pub asks: HashMap<Ask, PathHistory>,
    pub names: HashMap<NameAsk, Named>,
    /// This run added or changed answers: they are written back.
    pub changed: bool,
}

impl Kept {
    /// Nothing kept, nothing to keep.
    fn none(head: &str, cap: usize) -> Self {
        Self {
            file: None,
            head: head.to_string(),
            cap,
            asks: HashMap::new(),
            names: HashMap::new(),
            changed: false,
        }
    }

    /// The answers kept under `dir` for `cap` (with `touches`, those of the walk that names
    /// the commits), brought up to `head` when they are for an older one: by walking the new
    /// commits alone; an answer that cannot be is dropped (and asked again).
    pub fn load(repo: &Repo, dir: Option<&Path>, head: &str, cap: usize, touches: bool) -> Self {
        // A shallow clone's history grows under the same HEAD (`git fetch --deepen`): not kept.
        let file = dir
            .filter(|_| !repo.is_shallow())
            .map(|d| file(d, repo, touches));
        let read = file.as_deref().map(|f| read(f, cap)).unwrap_or_default();
        let mut kept = Self {
            file,
            asks: read.asks,
            names: read.names,
            ..Self::none(head, cap)
        };
        let Some(old) = read.head.filter(|old| old != head) else {
            return kept;
        };
        kept.changed = true;
        if !kept.asks.is_empty() {
            let (asks, known): (Vec<Ask>, Vec<PathHistory>) = kept.asks.drain().unzip();
            if let Some(now) =
                repo.path_histories_after_with(&asks, &known, &old, head, INCREMENTAL_CAP, touches)
            {
                kept.asks = asks
                    .into_iter()
                    .zip(now)
                    .filter_map(|(a, h)| Some((a, h?)))
                    .collect();
            }
        }
        if !kept.names.is_empty() {
            let (names, named): (Vec<NameAsk>, Vec<Named>) = kept.names.drain().unzip();
            let list: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
            if let Some(touched) = repo.names_touched_after(&list, &old, head, INCREMENTAL_CAP) {
                kept.names = names
                    .into_iter()
                    .zip(named)
                    .zip(touched)
                    .filter(|(_, t)| !t)
                    .map(|(kept, _)| kept)
                    .collect();
            }
        }
        kept
    }

    /// Writes the answers back when this run changed them: those of `asks` and `names` (what
    /// it needed) kept first, whatever else is dropped.
    pub fn save(&self, asks: &[Ask], names: &[NameAsk]) {
        if let (true, Some(f)) = (self.changed, &self.file) {
            write(
                f,
                &self.head,
                self.cap,
                (asks, &self.asks),
                (names, &self.names),
            );
        }
    }
}

/// What a cache file holds.
#[derive(Debug, Default)]
struct Stored {
    /// The HEAD the answers are for; none when the file is for another cap or layout, or
    /// cannot be read.
    head: Option<String>,
    asks: HashMap<Ask, PathHistory>,
    names: HashMap<NameAsk, Named>,
}

/// The answers kept for `cap`.
fn read(file: &Path, cap: usize) -> Stored {
    let mut out = Stored::default();
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
    // The ask the `T` lines that follow it name the commits of.
    let mut last: Option<Ask> = None;
    for line in lines {
        if let Some(rest) = line.strip_prefix("A\t") {
            last = None;
            if out.asks.len() < CAPACITY
                && let Some((ask, h)) = parse_ask(rest)
            {
                last = Some(ask.clone());
                out.asks.insert(ask, h);
            }
        } else if let Some(rest) = line.strip_prefix("T\t") {
            let h = last.as_ref().and_then(|a| out.asks.get_mut(a));
            if let (Some(h), Some(t)) = (h, parse_touch(rest)) {
                h.touches.push(t);
            }
        } else if let Some(rest) = line.strip_prefix("N\t")
            && out.names.len() < CAPACITY
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

/// A commit that touched the path of the `A` line before: `time`, `commit`, `summary`.
fn parse_touch(line: &str) -> Option<Touch> {
    let mut f = line.splitn(3, '\t');
    let time = f.next()?.parse().ok()?;
    let commit = f.next()?.to_string();
    let summary = f.next()?.to_string();
    Some(Touch {
        commit,
        time,
        summary,
    })
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

/// Keeps `asks` and `names` as the file of `head`: at most [`CAPACITY`] of each and
/// [`MAX_BYTES`] in all, those of `first_asks` and `first_names` (what this run needed) before
/// any other.
fn write(
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
    let max = usize::try_from(MAX_BYTES).unwrap_or(usize::MAX);
    let mut lines: Vec<String> = Vec::new();
    for (a, n) in first_of(first_names, names).take(CAPACITY) {
        if bad(&a.name) || bad(&a.domain) || n.path.as_deref().is_some_and(bad) {
            continue;
        }
        lines.push(format!(
            "N\t{}\t{}\t{}\t{}\t{}\n",
            u8::from(n.capped),
            u8::from(n.several),
            n.path.as_deref().unwrap_or(""),
            a.domain,
            a.name
        ));
    }
    let mut left = max.saturating_sub(text.len() + lines.iter().map(String::len).sum::<usize>());
    for (a, h) in first_of(first_asks, asks).take(CAPACITY) {
        if bad(&a.path)
            || h.new_path.as_deref().is_some_and(bad)
            || h.touches
                .iter()
                .any(|t| bad(&t.commit) || t.summary.contains(['\n', '\r']))
        {
            continue;
        }
        let mut one = format!(
            "A\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            a.since,
            u8::from(h.at_head),
            u8::from(h.existed),
            h.count,
            h.moved_count,
            u8::from(h.capped),
            h.new_path.as_deref().unwrap_or(""),
            a.path
        );
        for t in &h.touches {
            one.push_str(&format!("T\t{}\t{}\t{}\n", t.time, t.commit, t.summary));
        }
        if one.len() > left {
            break;
        }
        left -= one.len();
        text.push_str(&one);
    }
    text.extend(lines);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The commits an answer names survive the file, summaries with tabs included; an answer
    /// whose summary cannot be kept in a line is left out, the others kept.
    #[test]
    fn answers_and_their_commits_round_trip() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("citations").join("x.check.tsv");
        let touch = |summary: &str| Touch {
            commit: "0123abcd".into(),
            time: 1_770_000_000,
            summary: summary.into(),
        };
        let history = |touches: Vec<Touch>| PathHistory {
            at_head: true,
            existed: true,
            count: touches.len(),
            touches,
            new_path: None,
            moved_count: 0,
            capped: false,
        };
        let ask = |p: &str| Ask {
            path: p.into(),
            since: 5,
        };
        let asks: HashMap<Ask, PathHistory> = [
            (
                ask("a.rs"),
                history(vec![touch("fix\tthe tab"), touch("two")]),
            ),
            (ask("b.rs"), history(vec![touch("bad\nline")])),
            (ask("c.rs"), history(Vec::new())),
        ]
        .into_iter()
        .collect();
        write(&file, "head", 7, (&[], &asks), (&[], &HashMap::new()));
        let read = read(&file, 7);
        assert_eq!(read.head.as_deref(), Some("head"));
        assert_eq!(read.asks.get(&ask("a.rs")), asks.get(&ask("a.rs")));
        assert_eq!(read.asks.get(&ask("c.rs")), asks.get(&ask("c.rs")));
        assert!(!read.asks.contains_key(&ask("b.rs")));
        // Another cap: nothing.
        assert!(super::read(&file, 8).head.is_none());
    }
}
