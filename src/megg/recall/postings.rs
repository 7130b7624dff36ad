//! What ranking needs of every document, computed once per corpus (and kept, keyed by content,
//! in megg's cache directory: [`super::cache`]): each term's documents with its weighted
//! frequency there, and each document's weighted length. A search then reads the lists of its
//! own words only, instead of splitting every document into words again.
//!
//! Laid out to be read back cheaply: the terms sorted in one string, each term's list as
//! variable-length integers in one byte string — a search decodes the lists of its own words and
//! nothing else.
//!
//! The directories and extensions of the paths entries cite (`src`, `ts`) are listed apart
//! ([`Postings::path_list`]): a bare word does not match an entry through them (SPEC §17). The
//! paths themselves are kept too ([`Postings::cited`]), and a search adds the new names of those
//! that moved ([`Postings::with_moved`]).

use std::collections::HashMap;

use super::doc::{Doc, Kind};
use super::text::{each_cited_path, each_term_marked};

/// Field weights: a word in the title counts three times one in the body, in the topics twice.
pub const TITLE_WEIGHT: u32 = 3;
pub const TOPICS_WEIGHT: u32 = 2;
pub const BODY_WEIGHT: u32 = 1;

/// A (document, weighted frequency) list per term, while it is built.
type Building = HashMap<String, Vec<(u32, u32)>>;

/// The inverted index of one corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Postings {
    /// Built from titles and topics only (the session-start index), not the bodies.
    titles_only: bool,
    /// The weighted length of each document (its terms counted with their field's weight).
    lens: Vec<u32>,
    /// Each term's documents — every occurrence but those in `paths`.
    words: Lists,
    /// The occurrences that are a directory or the extension of a path written in backticks
    /// ([`super::text::each_term_marked`]).
    paths: Lists,
    /// The paths each dated knowledge or archive entry writes in backticks
    /// ([`super::text::each_cited_path`]), one after another: what a search looks for in the
    /// work tree ([`super::search::moved`]) without reading the entries again.
    cited: String,
    /// For each of those paths, in order: its entry, and where it ends in `cited`.
    cited_ends: Vec<(u32, u32)>,
    /// What a search adds for the moment: the names entries' citations moved to
    /// ([`Postings::with_moved`]). Never kept in the cache: it follows git's HEAD, not the
    /// files.
    #[serde(skip)]
    moved: Added,
}

/// A citation that moved: entry `doc` cites `from`, which git's rename detection found at `to`
/// (SPEC §17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub doc: usize,
    pub from: String,
    pub to: String,
}

/// The terms of moved citations' new paths, as `Postings::words` and `Postings::paths` list
/// them, and the moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Added {
    words: HashMap<String, Vec<(usize, u32)>>,
    paths: HashMap<String, Vec<(usize, u32)>>,
    moves: Vec<Moved>,
}

/// Sorted terms and their lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Lists {
    /// Every term, sorted, one after another.
    words: String,
    /// For each term, in order: where it ends in `words`, and where its list ends in `lists`.
    ends: Vec<(u32, u32)>,
    /// Each term's list: (document − the one before, weighted frequency) pairs, documents in
    /// increasing order, as LEB128 integers.
    #[serde(with = "bytes")]
    lists: Vec<u8>,
}

impl Postings {
    /// The postings of `docs`, in their order.
    pub fn build(docs: &[Doc], titles_only: bool) -> Self {
        let (mut words, mut paths) = (Building::new(), Building::new());
        let (mut cited, mut cited_ends) = (String::new(), Vec::new());
        let mut lens = Vec::with_capacity(docs.len());
        for (i, doc) in docs.iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            let mut len = 0u32;
            let topics = doc.topics.join(" ");
            let body = (!titles_only).then(|| doc.body()).into_iter().flatten();
            let fields = [
                (doc.title.as_str(), TITLE_WEIGHT),
                (topics.as_str(), TOPICS_WEIGHT),
            ];
            for (text, weight) in fields.into_iter().chain(body.map(|b| (b, BODY_WEIGHT))) {
                each_term_marked(text, &mut |t, structure| {
                    len = len.saturating_add(weight);
                    let terms = if structure { &mut paths } else { &mut words };
                    let list = match terms.get_mut(t) {
                        Some(list) => list,
                        None => terms.entry(t.to_string()).or_default(),
                    };
                    match list.last_mut() {
                        Some((doc, tf)) if *doc == i => *tf = tf.saturating_add(weight),
                        _ => list.push((i, weight)),
                    }
                });
            }
            lens.push(len);
            if matches!(doc.kind, Kind::Knowledge | Kind::Archive) && doc.date.is_some() {
                each_cited_path(&doc.text, &mut |p| {
                    cited.push_str(&p.path());
                    cited_ends.push((i, u32::try_from(cited.len()).unwrap_or(u32::MAX)));
                });
            }
        }
        Self {
            titles_only,
            lens,
            words: Lists::of(words),
            paths: Lists::of(paths),
            cited,
            cited_ends,
            moved: Added::default(),
        }
    }

    /// Each path a dated knowledge or archive entry writes in backticks, with its entry, in
    /// the entries' order.
    pub fn cited(&self) -> impl Iterator<Item = (usize, &str)> {
        let mut start = 0;
        self.cited_ends.iter().map(move |&(doc, end)| {
            let path = self.cited.get(start..end as usize).unwrap_or("");
            start = end as usize;
            (doc as usize, path)
        })
    }

    /// These postings, with the new paths of `moves` as words of the entries citing their old
    /// ones (one more citation of the body each), for one search.
    pub fn with_moved(mut self, moves: Vec<Moved>) -> Self {
        let docs = self.lens.len();
        for m in moves.iter().filter(|m| m.doc < docs) {
            let Added { words, paths, .. } = &mut self.moved;
            each_term_marked(&format!("`{}`", m.to), &mut |t, structure| {
                let terms = if structure { &mut *paths } else { &mut *words };
                let list = terms.entry(t.to_string()).or_default();
                match list.iter_mut().find(|(doc, _)| *doc == m.doc) {
                    Some((_, tf)) => *tf = tf.saturating_add(BODY_WEIGHT),
                    None => list.push((m.doc, BODY_WEIGHT)),
                }
            });
        }
        for list in self
            .moved
            .words
            .values_mut()
            .chain(self.moved.paths.values_mut())
        {
            list.sort_unstable();
        }
        self.moved.moves = moves;
        self
    }

    /// The citations of document `doc` whose new path's name holds one of `words`: how a
    /// search found it by that name.
    pub fn moved_in(&self, doc: usize, words: &[String]) -> Vec<&Moved> {
        let named = |m: &&Moved| {
            let mut hit = false;
            each_term_marked(&format!("`{}`", m.to), &mut |t, structure| {
                hit |= !structure && words.iter().any(|w| w == t)
            });
            hit
        };
        self.moved
            .moves
            .iter()
            .filter(|m| m.doc == doc)
            .filter(named)
            .collect()
    }

    /// Built from titles and topics only.
    pub fn titles_only(&self) -> bool {
        self.titles_only
    }

    /// How many documents these postings are of.
    pub fn docs(&self) -> usize {
        self.lens.len()
    }

    /// Document `i`'s weighted length.
    pub fn len_of(&self, i: usize) -> u32 {
        self.lens.get(i).copied().unwrap_or(0)
    }

    /// The documents holding `term` other than as a cited path's directory or extension, in
    /// increasing order, each with the term's weighted frequency there. Never a document past
    /// the corpus, whatever the bytes say.
    pub fn list(&self, term: &str) -> Vec<(usize, u32)> {
        merged(
            self.words.list(term, self.lens.len()),
            self.moved.words.get(term),
        )
    }

    /// The documents holding `term` as a directory or the extension of a path they cite (in
    /// backticks), as [`Postings::list`] gives them: what a query writing it as a path
    /// (`src/`, `billing/`) also matches.
    pub fn path_list(&self, term: &str) -> Vec<(usize, u32)> {
        merged(
            self.paths.list(term, self.lens.len()),
            self.moved.paths.get(term),
        )
    }

    /// [`Postings::list`] and [`Postings::path_list`] as one list: every occurrence.
    pub fn list_and_paths(&self, term: &str) -> Vec<(usize, u32)> {
        merged(self.list(term), Some(&self.path_list(term)))
    }

    /// Whether these postings can serve a corpus of `docs` documents (a cache file is checked
    /// before it is used): one length each, every term and list where its ends say.
    pub fn fits(&self, docs: usize) -> bool {
        let mut before = (0, 0);
        let cited = self.cited_ends.iter().all(|&(doc, end)| {
            let ok = doc >= before.0
                && end >= before.1
                && (doc as usize) < docs
                && self.cited.is_char_boundary(end as usize);
            before = (doc, end);
            ok
        }) && before.1 as usize == self.cited.len();
        self.lens.len() == docs && self.words.fits() && self.paths.fits() && cited
    }
}

/// `list` and `more` (both in increasing document order) as one list, the frequencies of a
/// document in both added.
fn merged(list: Vec<(usize, u32)>, more: Option<&Vec<(usize, u32)>>) -> Vec<(usize, u32)> {
    let Some(more) = more.filter(|m| !m.is_empty()) else {
        return list;
    };
    let mut out = Vec::with_capacity(list.len() + more.len());
    let mut more = more.iter().copied().peekable();
    for (doc, tf) in list {
        while let Some(m) = more.next_if(|m| m.0 < doc) {
            out.push(m);
        }
        let extra = more.next_if(|m| m.0 == doc).map_or(0, |m| m.1);
        out.push((doc, tf.saturating_add(extra)));
    }
    out.extend(more);
    out
}

impl Lists {
    fn of(terms: Building) -> Self {
        let mut sorted: Vec<(String, Vec<(u32, u32)>)> = terms.into_iter().collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut out = Self::default();
        for (term, list) in sorted {
            out.words.push_str(&term);
            let mut before = 0;
            for (doc, tf) in list {
                put(&mut out.lists, doc - before);
                put(&mut out.lists, tf);
                before = doc;
            }
            let end = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            out.ends.push((end(out.words.len()), end(out.lists.len())));
        }
        out
    }

    /// `term`'s list, without a document from `docs` on.
    fn list(&self, term: &str, docs: usize) -> Vec<(usize, u32)> {
        let bounds = |k: usize| {
            let start = k.checked_sub(1).and_then(|k| self.ends.get(k));
            let (w0, l0) = start.copied().unwrap_or((0, 0));
            let (w1, l1) = self.ends.get(k).copied().unwrap_or((w0, l0));
            (w0 as usize..w1 as usize, l0 as usize..l1 as usize)
        };
        let (mut lo, mut hi) = (0, self.ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (word, list) = bounds(mid);
            match self.words.get(word).unwrap_or("").cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return decode(self.lists.get(list).unwrap_or_default(), docs);
                }
            }
        }
        Vec::new()
    }

    /// Every term and list where its ends say.
    fn fits(&self) -> bool {
        let mut before = (0, 0);
        self.ends.iter().all(|&(w, l)| {
            let ok = w >= before.0
                && l >= before.1
                && self.words.is_char_boundary(w as usize)
                && (l as usize) <= self.lists.len();
            before = (w, l);
            ok
        }) && before.0 as usize == self.words.len()
            && before.1 as usize == self.lists.len()
    }
}

/// A list's pairs, up to the first document past `docs`.
fn decode(mut bytes: &[u8], docs: usize) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    let mut doc = 0usize;
    while let Some((delta, rest)) = take(bytes)
        && let Some((tf, rest)) = take(rest)
    {
        doc = doc.saturating_add(delta as usize);
        if doc >= docs {
            break;
        }
        out.push((doc, tf));
        bytes = rest;
    }
    out
}

/// A byte string kept as one (postcard: its length, then its bytes — the same bytes as a list
/// of `u8`), read back in one copy rather than one call per byte, which cost a warm search
/// more than anything else it read from the cache.
mod bytes {
    use serde::{Deserializer, Serializer, de};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl de::Visitor<'_> for Bytes {
            type Value = Vec<u8>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }

            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
                Ok(bytes.to_vec())
            }

            fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(bytes)
            }
        }
        d.deserialize_byte_buf(Bytes)
    }
}

/// Appends `n` as a LEB128 integer.
fn put(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The LEB128 integer at the start of `bytes`, and the rest; `None` when cut or too long.
fn take(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let mut n: u32 = 0;
    for (k, &b) in bytes.iter().enumerate().take(5) {
        n |= u32::from(b & 0x7f).checked_shl(7 * k as u32)?;
        if b & 0x80 == 0 {
            return Some((n, bytes.get(k + 1..)?));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megg::recall::Kind;

    fn doc(title: &str, topics: &[&str], body: &str) -> Doc {
        Doc {
            id: Default::default(),
            kind: Kind::Knowledge,
            path: std::path::Path::new("/k.md").into(),
            line: 1,
            date: None,
            entry_type: None,
            title: title.into(),
            topics: topics.iter().map(|&t| t.into()).collect(),
            text: format!("## {title}\n{body}").into(),
            key: String::new(),
        }
    }

    #[test]
    fn frequencies_are_weighted_by_field_and_lists_ordered() {
        let docs = [
            doc("Token storage", &["auth"], "tokens in cookies"),
            doc("Cookies", &["web", "token"], "none"),
        ];
        let p = Postings::build(&docs, false);
        // "token": title (3) + body "tokens" (1) in the first; topic (2) in the second.
        assert_eq!(p.list("token"), [(0, 4), (1, 2)]);
        assert_eq!(p.list("cooki"), [(0, 1), (1, 3)]);
        assert_eq!(p.list("absent"), []);
        assert_eq!(
            (p.len_of(0), p.len_of(1)),
            (3 + 3 + 2 + 1 + 1 + 1, 3 + 2 + 2 + 1)
        );
        assert!(p.fits(2) && !p.fits(3));
        let titles = Postings::build(&docs, true);
        assert_eq!(titles.list("token"), [(0, 3), (1, 2)]);
        assert_eq!(titles.list("none"), []);
    }

    /// Issue (SPEC §16): an entry's `**Type:**` and `**Topics:**` lines were indexed as body
    /// text too: its topics counted twice, its type's name a word of every entry of that type.
    /// They are fields only, in every form megg reads (`**Type**:`, any case, among the first
    /// lines after the heading); a field line further down is text.
    #[test]
    fn type_and_topics_lines_are_not_body_text() {
        let entry = |fields: &str| Doc {
            topics: ["auth".into(), "web".into()].into_iter().collect(),
            entry_type: Some("decision".into()),
            ..doc("Token storage", &[], fields)
        };
        let docs = [
            entry("**Type:** decision\n**Topics:** auth, web\n\nCookies.\n"),
            entry("**type**: decision\n**TOPICS**: auth, web\n\nCookies.\n"),
            entry("Cookies.\n  **Topics:** auth, web  \r\n**Type:**   decision\n"),
        ];
        let p = Postings::build(&docs, false);
        assert_eq!(p.list("decis"), []);
        assert_eq!(p.list("type"), []);
        assert_eq!(p.list("topic"), []);
        assert_eq!(p.list("auth"), [(0, 2), (1, 2), (2, 2)]);
        assert_eq!(p.list("cooki"), [(0, 1), (1, 1), (2, 1)]);
        for i in 0..3 {
            // Title (2 words) × 3, topics (2) × 2, body (1).
            assert_eq!(p.len_of(i), 2 * 3 + 2 * 2 + 1, "entry {i}");
        }
        // Past the lines the parser reads fields from, a field line is the entry's text.
        let late = [entry("1\n2\n3\n4\n5\n6\n**Type:** decision\n")];
        assert_eq!(Postings::build(&late, false).list("decis"), [(0, 1)]);
    }

    #[test]
    fn every_term_is_found_in_a_large_index_and_bad_bytes_never_panic() {
        let docs: Vec<Doc> = (0..300)
            .map(|i| {
                doc(
                    &format!("entry{i} shared"),
                    &[],
                    &format!("body{} x", i % 7),
                )
            })
            .collect();
        let p = Postings::build(&docs, false);
        for i in 0..300 {
            assert_eq!(p.list(&format!("entry{i}")), [(i, 3)]);
        }
        assert_eq!(p.list("share").len(), 300);
        assert_eq!(p.list("body3").len(), 43);
        // Lists that point past the corpus or end in the middle of a number.
        let mut bad = p.clone();
        bad.words.lists.iter_mut().for_each(|b| *b = 0xff);
        assert!(bad.list("share").is_empty());
        let mut short = p.clone();
        short.lens.truncate(10);
        assert!(short.list("share").len() <= 10);
        let mut cut = p.clone();
        cut.words.ends.last_mut().unwrap().0 += 1;
        assert!(!cut.fits(300));
    }

    /// Issue 45 (SPEC §17): a cited path's directories and extension are listed apart, and a
    /// moved citation's new path is added for one search.
    #[test]
    fn cited_paths_structure_is_listed_apart_and_moves_are_added() {
        let dated = |title, body| Doc {
            date: Some("2026-01-10".into()),
            ..doc(title, &[], body)
        };
        let docs = [
            dated("Rates", "Rates in `src/billing/tax.ts`; TS is strict."),
            dated(
                "Pool",
                "See `./src/db/pool.ts:12` and `docs/`, not `cargo test`.",
            ),
            doc("Undated", &[], "`src/x.ts`"),
        ];
        let p = Postings::build(&docs, false);
        let cited: Vec<(usize, &str)> = p.cited().collect();
        assert_eq!(
            cited,
            [
                (0, "src/billing/tax.ts"),
                (1, "src/db/pool.ts"),
                (1, "docs")
            ]
        );
        assert_eq!(p.list("ts"), [(0, 1)]);
        assert_eq!(p.path_list("ts"), [(0, 1), (1, 1), (2, 1)]);
        assert_eq!(p.list_and_paths("ts"), [(0, 2), (1, 1), (2, 1)]);
        assert_eq!(p.list("src"), []);
        assert_eq!(p.list("pool"), [(1, 3 + 1)]);
        assert_eq!(p.list("12"), [(1, 1)]);
        // Lengths count every term, structure included.
        let body = crate::megg::recall::text::terms("`src/x.ts`").len() as u32;
        assert_eq!(p.len_of(2), 3 + body);
        assert!(p.fits(3) && !p.fits(2));
        let moved = p.clone().with_moved(vec![Moved {
            doc: 1,
            from: "src/db/pool.ts".into(),
            to: "src/db/conn.ts".into(),
        }]);
        assert_eq!(moved.list("conn"), [(1, 1)]);
        assert_eq!(moved.path_list("db"), [(1, 2)]);
        assert_eq!(moved.moved_in(1, &["conn".into()]).len(), 1);
        assert!(moved.moved_in(1, &["db".into()]).is_empty());
        assert_eq!(moved.list("pool"), p.list("pool"));
    }

    #[test]
    fn integers_round_trip() {
        for n in [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            let mut out = Vec::new();
            put(&mut out, n);
            assert_eq!(take(&out), Some((n, &[][..])));
        }
        assert_eq!(take(&[0x80]), None);
        assert_eq!(take(&[0xff; 6]), None);
    }
}
