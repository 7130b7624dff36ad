//! Ids (SPEC §13.2): short, `[a-z0-9-]`, at most 10 characters, computed from what a document
//! is — an entry's domain, date and title (so it survives edits of its text, reordering, merges
//! and archiving), a handoff's time and session, an info section's domain and heading, a domain
//! being named by its place (`recall::place`) — so the same from every directory that reaches
//! it and on every machine for the same files. Never written into a file.

use std::sync::Arc;

use super::doc::{Doc, Kind};
use super::shared::Shared;

/// A letter for the kind (entries share `k`: an archived entry keeps its id), then 7 base-36
/// digits of a hash of the document's key; a suffix ([`suffix`]) for a second and later
/// document with the same key (or hash) in one corpus — for entries, one domain's, numbered in
/// its own order whatever else the corpus holds.
pub fn assign(docs: &mut Vec<Doc>) {
    // The same handoff found twice (the active state, its session file, its copy in the
    // history) is one document: the first found.
    let mut seen_handoffs = std::collections::HashSet::new();
    docs.retain(|d| {
        d.kind != Kind::Handoff || seen_handoffs.insert((d.key.clone(), d.text.clone()))
    });
    let mut used = std::collections::HashMap::<String, usize>::new();
    let mut all = String::new();
    let mut ends = Vec::with_capacity(docs.len());
    for d in docs.iter() {
        let base = base_id(d.kind, &d.key);
        let n = used.entry(base.clone()).or_insert(0);
        *n += 1;
        all.push_str(&base);
        all.push_str(&suffix(*n));
        ends.push(all.len());
    }
    // Pieces of one string: a corpus's ids are one allocation (see `Shared`).
    let all: Arc<String> = all.into();
    let mut start = 0;
    for (d, end) in docs.iter_mut().zip(ends) {
        d.id = Shared::at(&all, start..end).unwrap_or_default();
        start = end;
    }
}

const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// What tells the `n`th document with one base id (8 characters) from the others, so that ids
/// stay within 10 characters and sort in the documents' order: nothing for the first, `-2` …
/// `-9` (as ever), `-a` … `-z` for the 10th to the 35th, then two base-36 digits without a dash
/// (`00` … `zz`: 1,296 more). Past those (1,331 documents with one date and title), `-` and the
/// number in base 36: longer than 10, still unique.
fn suffix(n: usize) -> String {
    let digit = |i: usize| DIGITS.get(i).map_or('0', |&d| char::from(d));
    match n {
        0 | 1 => String::new(),
        2..=35 => format!("-{}", digit(n)),
        36..=1_331 => format!("{}{}", digit((n - 36) / 36), digit((n - 36) % 36)),
        _ => {
            let (mut rest, mut out) = (n, Vec::new());
            while rest > 0 {
                out.push(digit(rest % 36));
                rest /= 36;
            }
            format!("-{}", out.iter().rev().collect::<String>())
        }
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
        *d = DIGITS.get((h % 36) as usize).copied().unwrap_or(b'0');
        h /= 36;
    }
    format!("{letter}{}", String::from_utf8_lossy(&digits))
}

/// The id of the entry an archived one names as its successor (`**Superseded-by:**`): the
/// knowledge entry of the same domain with that date and title, when `docs` holds it.
pub fn successor_id(docs: &[Doc], id: &str) -> Option<String> {
    let doc = docs
        .iter()
        .find(|d| &*d.id == id && d.kind == Kind::Archive)?;
    let next = crate::megg::knowledge::superseded_by(&doc.text)?;
    // `<domain>/.megg/archive/<file>` and `<domain>/.megg/knowledge.md`: the same `.megg`.
    let megg = doc.path.parent()?.parent()?;
    docs.iter()
        .find(|d| {
            d.kind == Kind::Knowledge
                && d.path.parent() == Some(megg)
                && crate::megg::knowledge::supersede::names(next, d.date.as_deref(), &d.title)
        })
        .map(|d| d.id.to_string())
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

    fn entries(titles: &[&str]) -> Vec<Doc> {
        titles
            .iter()
            .map(|t| Doc {
                id: Shared::default(),
                kind: Kind::Knowledge,
                path: std::path::Path::new("/k.md").into(),
                line: 1,
                date: Some("2026-01-17".into()),
                entry_type: None,
                title: (*t).into(),
                topics: Default::default(),
                text: Shared::default(),
                key: format!("2026-01-17\n{t}"),
            })
            .collect()
    }

    /// Issue: the 10th and later entries with one date and title got 11-character ids, which
    /// sorted before the 2nd. However many duplicates, ids stay within SPEC §13.2, unique, and
    /// in the order of the entries.
    #[test]
    fn two_hundred_duplicates_keep_short_unique_ordered_ids() {
        let mut docs = entries(&["Notes"; 200]);
        docs.extend(entries(&["Other"]));
        assign(&mut docs);
        let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
        for id in &ids {
            assert!(is_id(id), "{id} is not an id (at most 10 of [a-z0-9-])");
        }
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        let notes = &ids[..200];
        let mut sorted = notes.to_vec();
        sorted.sort();
        assert_eq!(sorted, notes, "sorted ids are not in the entries' order");
        // The first ones keep the ids they always had.
        assert_eq!(notes[1], format!("{}-2", notes[0]));
        assert_eq!(notes[8], format!("{}-9", notes[0]));
        assert_eq!(suffix(1_331), "zz");
        assert_eq!(suffix(1_332).len(), 4);
    }
}
