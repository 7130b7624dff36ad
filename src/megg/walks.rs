//! Remembered answers of bounded git walks (SPEC §8, §9). Commits never change, so how far a
//! branch tip is from a recorded head — for one (tip, head, since, limit) — is the same answer
//! forever. The SessionStart hook runs at every session start; without this, a state whose
//! head lies deep in a long history would cost a 10,000-commit walk each time. Like the token
//! cache: per user, in megg's cache directory, bounded, and skipped silently when it cannot be
//! read or written.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::fsx::{self, Boundary};
use crate::git::{Basis, Divergence, Repo};

/// Most answers kept.
const CAPACITY: usize = 256;
/// Most bytes of the cache file read.
const MAX_BYTES: u64 = 64 * 1024;

fn file() -> Option<PathBuf> {
    Some(fsx::user_cache_dir()?.join(format!("walks-{}.tsv", env!("CARGO_PKG_VERSION"))))
}

fn boundary(file: &Path) -> Option<Boundary> {
    Some(Boundary::new(file.parent()?, "megg's cache directory"))
}

/// `repo.divergence(…)`, answered from the cache when this exact question was asked before.
pub fn divergence(
    repo: &Repo,
    branch: &str,
    head: Option<&str>,
    since: DateTime<Utc>,
    cap: usize,
) -> Option<Divergence> {
    let tip = repo.branch_tip(branch);
    // Only a question with a tip is stable; a missing branch is answered from git each time.
    let key = tip.as_ref().map(|tip| {
        let q = format!(
            "{}\0{tip}\0{}\0{}\0{cap}\0{}",
            repo.common_dir().display(),
            head.unwrap_or(""),
            since.timestamp(),
            repo.is_shallow()
        );
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(q.as_bytes()))
    });
    let file = file();
    let lines = match (&key, &file) {
        (Some(_), Some(f)) => read(f),
        _ => Vec::new(),
    };
    if let Some(key) = &key
        && let Some(hit) = lines.iter().find_map(|l| parse(l, key))
    {
        return Some(hit);
    }
    let answer = repo.divergence(branch, head, since, cap)?;
    if let (Some(key), Some(f)) = (key, file) {
        write(&f, lines, &key, &answer);
    }
    Some(answer)
}

fn read(file: &Path) -> Vec<String> {
    let Some(b) = boundary(file) else {
        return Vec::new();
    };
    match fsx::read_text(&b, file, MAX_BYTES) {
        Ok(Some(t)) if !t.truncated => t.text.lines().map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

fn write(file: &Path, mut lines: Vec<String>, key: &str, d: &Divergence) {
    let Some(b) = boundary(file) else { return };
    lines.push(format!(
        "{key}\t{}\t{}\t{}\t{}\t{}",
        d.commits,
        match d.basis {
            Basis::Head => "head",
            Basis::Time => "time",
        },
        tri(d.branch_exists),
        tri(d.rewritten),
        u8::from(d.capped)
    ));
    let skip = lines.len().saturating_sub(CAPACITY);
    let text: String = lines.iter().skip(skip).map(|l| format!("{l}\n")).collect();
    if fsx::create_dir_all(&b, b.root()).is_ok() {
        let _ = fsx::write_atomic(&b, file, text.as_bytes());
    }
}

fn tri(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "1",
        Some(false) => "0",
        None => "-",
    }
}

fn parse(line: &str, key: &str) -> Option<Divergence> {
    let mut f = line.split('\t');
    if f.next()? != key {
        return None;
    }
    let commits = f.next()?.parse().ok()?;
    let basis = match f.next()? {
        "head" => Basis::Head,
        "time" => Basis::Time,
        _ => return None,
    };
    let tri = |s: &str| match s {
        "1" => Some(Some(true)),
        "0" => Some(Some(false)),
        "-" => Some(None),
        _ => None,
    };
    let branch_exists = tri(f.next()?)?;
    let rewritten = tri(f.next()?)?;
    let capped = f.next()? == "1";
    Some(Divergence {
        commits,
        basis,
        branch_exists,
        rewritten,
        capped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_garbage_is_ignored() {
        let d = Divergence {
            commits: 7,
            basis: Basis::Time,
            branch_exists: Some(true),
            rewritten: None,
            capped: true,
        };
        let line = "k\t7\ttime\t1\t-\t1";
        assert_eq!(parse(line, "k"), Some(d));
        assert_eq!(parse(line, "other"), None);
        assert_eq!(parse("k\tx\ttime\t1\t-\t1", "k"), None);
        assert_eq!(parse("k\t1\tsideways\t1\t-\t1", "k"), None);
    }
}
