//! Duplicates (SPEC §17): a new entry is like one already there when it has the same title
//! (by [`super::title_key`]: case and runs of spaces do not count) or a near-identical body.
//!
//! **The measure.** A body's words are read the way `megg search` reads them for phrases
//! ([`crate::megg::recall::text::phrase_words`]): Unicode word boundaries, lowercased,
//! English-stemmed, punctuation dropped, CJK text one character per word. Two bodies of at
//! least [`SHORT_WORDS`] words each are near-identical when the Jaccard similarity of their sets
//! of word [`SHINGLE`]-grams (shingles) is at least [`NEAR_PERCENT`] %; a shorter body is
//! near-identical only to one with exactly the same words. In a body of 40 words, one word
//! changed keeps 85 % of the shingles and five words added 88 %; two words changed apart keep
//! 72 % and ten words added 79 %, no longer near-identical (the unit tests pin these).
//!
//! **The cost.** Each body is read once (its first [`MAX_WORDS`] words) into sorted shingle
//! hashes, and each comparison is a merge of two sorted lists: 500 entries of 80 words take
//! tens of milliseconds in a release build, whatever the new entries.

use super::{Entry, FIELD_LINES, NewEntry, is_field_line, title_key};

/// Words per shingle.
pub const SHINGLE: usize = 3;
/// Bodies with fewer words than this compare on their exact words.
pub const SHORT_WORDS: usize = 8;
/// The least Jaccard similarity, in percent, of two near-identical bodies.
pub const NEAR_PERCENT: usize = 80;
/// Words of a body that are compared; the rest of a longer one is not read.
pub const MAX_WORDS: usize = 4_000;

/// How a new entry is like one already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Likeness {
    /// The same title, by [`title_key`].
    Title,
    /// A near-identical body: this percentage of their shingles in common.
    Text(usize),
}

impl std::fmt::Display for Likeness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Title => f.write_str("the same title"),
            Self::Text(100) => f.write_str("the same text"),
            Self::Text(p) => write!(f, "{p}% the same text"),
        }
    }
}

/// New entry `new` (an index into the entries learned) is like `known` entry `old`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Duplicate {
    pub new: usize,
    pub old: usize,
    pub likeness: Likeness,
}

/// Each new entry's likeness to the entries already there (`known`), but the one at `except`
/// (the entry it supersedes): an entry with the same title, and the most similar body of
/// another entry when it is near-identical. In the order of `new`.
pub fn duplicates(known: &[Entry<'_>], new: &[NewEntry], except: Option<usize>) -> Vec<Duplicate> {
    let mut out = Vec::new();
    let mut bodies: Option<Vec<Body>> = None;
    for (n, entry) in new.iter().enumerate() {
        let key = title_key(&entry.title);
        let same_title = known
            .iter()
            .enumerate()
            .find(|(i, e)| Some(*i) != except && title_key(e.title) == key)
            .map(|(i, _)| i);
        if let Some(old) = same_title {
            out.push(Duplicate {
                new: n,
                old,
                likeness: Likeness::Title,
            });
        }
        let known_bodies = bodies
            .get_or_insert_with(|| known.iter().map(|e| Body::of(&entry_body(e.raw))).collect());
        let body = Body::of(&entry.content);
        let best = known_bodies
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != except && Some(*i) != same_title)
            .filter_map(|(i, b)| body.percent_like(b).map(|p| (i, p)))
            .max_by_key(|&(i, p)| (p, std::cmp::Reverse(i)));
        if let Some((old, p)) = best {
            out.push(Duplicate {
                new: n,
                old,
                likeness: Likeness::Text(p),
            });
        }
    }
    out
}

/// An entry's body as compared: its text below the heading, without its field lines.
pub fn entry_body(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for (i, line) in raw.lines().enumerate().skip(1) {
        if i <= FIELD_LINES + 1
            && (is_field_line(line) || super::supersede::superseded_by_line(line))
        {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A body as compared: its words when short, else the sorted hashes of its shingles.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Body {
    Short(Vec<String>),
    Long(Vec<u64>),
}

impl Body {
    fn of(text: &str) -> Self {
        let mut words = crate::megg::recall::text::phrase_words(text);
        words.truncate(MAX_WORDS);
        if words.len() < SHORT_WORDS {
            return Self::Short(words);
        }
        let words: Vec<u64> = words
            .iter()
            .map(|w| xxhash_rust::xxh3::xxh3_64(w.as_bytes()))
            .collect();
        let mut hashes: Vec<u64> = words
            .windows(SHINGLE)
            .map(|w| {
                let mut bytes = [0u8; 8 * SHINGLE];
                for (chunk, h) in bytes.chunks_exact_mut(8).zip(w) {
                    chunk.copy_from_slice(&h.to_le_bytes());
                }
                xxhash_rust::xxh3::xxh3_64(&bytes)
            })
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        Self::Long(hashes)
    }

    /// How alike the two are, in percent, when near-identical.
    fn percent_like(&self, other: &Self) -> Option<usize> {
        match (self, other) {
            (Self::Short(a), Self::Short(b)) => (!a.is_empty() && a == b).then_some(100),
            (Self::Long(a), Self::Long(b)) => {
                // The similarity cannot reach the threshold when one set is much larger.
                let (small, large) = (a.len().min(b.len()), a.len().max(b.len()));
                if small * 100 < large * NEAR_PERCENT {
                    return None;
                }
                let shared = shared(a, b);
                let union = a.len() + b.len() - shared;
                (union > 0 && shared * 100 >= union * NEAR_PERCENT).then(|| shared * 100 / union)
            }
            _ => None,
        }
    }
}

/// How many values two sorted lists without repeats have in common.
fn shared(a: &[u64], b: &[u64]) -> usize {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    let mut n = 0;
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => {
                a.next();
            }
            std::cmp::Ordering::Greater => {
                b.next();
            }
            std::cmp::Ordering::Equal => {
                n += 1;
                a.next();
                b.next();
            }
        }
    }
    n
}
