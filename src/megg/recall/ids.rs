//! Ids (SPEC §13.2): short, `[a-z0-9-]`, at most 10 characters, computed from what a document
//! is — an entry's date and title (so it survives edits of its text, reordering, merges and
//! archiving), a handoff's time and session, an info section's domain and heading — and the
//! same on every machine for the same files. Never written into a file.

use super::doc::{Doc, Kind};

/// A letter for the kind (entries share `k`: an archived entry keeps its id), then 7 base-36
/// digits of a hash of the document's key; `-2`, `-3`… for a second and later document with the
/// same key (or hash) in one corpus.
pub fn assign(docs: &mut Vec<Doc>) {
    // The same handoff found twice (the active state, its session file, its copy in the
    // history) is one document: the first found.
    let mut seen_handoffs = std::collections::HashSet::new();
    docs.retain(|d| {
        d.kind != Kind::Handoff || seen_handoffs.insert((d.key.clone(), d.text.clone()))
    });
    let mut used = std::collections::HashMap::<String, usize>::new();
    for d in docs.iter_mut() {
        let base = base_id(d.kind, &d.key);
        let n = used.entry(base.clone()).or_insert(0);
        *n += 1;
        d.id = if *n == 1 { base } else { format!("{base}-{n}") };
    }
}

/// The id of the first document with this kind and key.
pub fn base_id(kind: Kind, key: &str) -> String {
    let letter = match kind {
        Kind::Knowledge | Kind::Archive => 'k',
        Kind::Handoff => 'h',
        Kind::Info => 'i',
    };
    let normalized: String = key
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let mut h = xxhash_rust::xxh3::xxh3_64(normalized.as_bytes());
    let mut digits = [b'0'; 7];
    for d in digits.iter_mut().rev() {
        *d = b"0123456789abcdefghijklmnopqrstuvwxyz"[(h % 36) as usize];
        h /= 36;
    }
    format!("{letter}{}", String::from_utf8_lossy(&digits))
}

/// Whether `s` looks like an id (for a clear error on anything else).
pub fn is_id(s: &str) -> bool {
    let s = s.trim();
    (2..=10).contains(&s.len())
        && s.starts_with(['k', 'h', 'i'])
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_stable_and_kind_tagged() {
        let a = base_id(Kind::Knowledge, "2026-01-17\nUse JWT in httpOnly cookies");
        assert_eq!(
            a,
            base_id(Kind::Archive, "2026-01-17\nUse  JWT in httpOnly cookies")
        );
        assert_eq!(a.len(), 8);
        assert!(is_id(&a) && is_id(&format!("{a}-2")));
        assert!(a.starts_with('k'));
        assert_ne!(
            a,
            base_id(Kind::Knowledge, "2026-01-18\nUse JWT in httpOnly cookies")
        );
        assert!(base_id(Kind::Handoff, "x").starts_with('h'));
        assert!(!is_id("K123") && !is_id("kx y") && !is_id("k12345678901"));
    }
}
