//! What ranking needs of every document, computed once per corpus (and kept, keyed by content,
//! in megg's cache directory: [`super::cache`]): each term's documents with its weighted
//! frequency there, and each document's weighted length. A search then reads the lists of its
//! own words only, instead of splitting every document into words again.
//!
//! Laid out to be read back cheaply: the terms sorted in one string, each term's list as
//! variable-length integers in one byte string — a search decodes the lists of its own words and
//! nothing else.

use std::collections::HashMap;

use super::doc::Doc;
use super::text::each_term;

/// Field weights: a word in the title counts three times one in the body, in the topics twice.
pub const TITLE_WEIGHT: u32 = 3;
pub const TOPICS_WEIGHT: u32 = 2;
pub const BODY_WEIGHT: u32 = 1;

/// The inverted index of one corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Postings {
    /// Built from titles and topics only (the session-start index), not the bodies.
    titles_only: bool,
    /// The weighted length of each document (its terms counted with their field's weight).
    lens: Vec<u32>,
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
        let mut terms: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
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
                each_term(text, &mut |t| {
                    len = len.saturating_add(weight);
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
        }
        let mut sorted: Vec<(String, Vec<(u32, u32)>)> = terms.into_iter().collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut out = Self {
            titles_only,
            lens,
            ..Self::default()
        };
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

    /// The documents holding `term`, in increasing order, each with the term's weighted
    /// frequency there. Never a document past the corpus, whatever the bytes say.
    pub fn list(&self, term: &str) -> Vec<(usize, u32)> {
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
                    return self.decode(self.lists.get(list).unwrap_or_default());
                }
            }
        }
        Vec::new()
    }

    fn decode(&self, mut bytes: &[u8]) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        let mut doc = 0usize;
        while let Some((delta, rest)) = take(bytes)
            && let Some((tf, rest)) = take(rest)
        {
            doc = doc.saturating_add(delta as usize);
            if doc >= self.lens.len() {
                break;
            }
            out.push((doc, tf));
            bytes = rest;
        }
        out
    }

    /// Whether these postings can serve a corpus of `docs` documents (a cache file is checked
    /// before it is used): one length each, every term and list where its ends say.
    pub fn fits(&self, docs: usize) -> bool {
        let mut before = (0, 0);
        self.lens.len() == docs
            && self.ends.iter().all(|&(w, l)| {
                let ok = w >= before.0
                    && l >= before.1
                    && self.words.is_char_boundary(w as usize)
                    && (l as usize) <= self.lists.len();
                before = (w, l);
                ok
            })
            && before.0 as usize == self.words.len()
            && before.1 as usize == self.lists.len()
    }
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
        bad.lists.iter_mut().for_each(|b| *b = 0xff);
        assert!(bad.list("share").is_empty());
        let mut short = p.clone();
        short.lens.truncate(10);
        assert!(short.list("share").len() <= 10);
        let mut cut = p.clone();
        cut.ends.last_mut().unwrap().0 += 1;
        assert!(!cut.fits(300));
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
