//! Duplicates (SPEC §17): a new entry is like one already there when it has the same title
//! (by [`title_norm`]: case, Unicode punctuation and whitespace do not count) or a
//! near-identical body.
//!
//! **The measure.** A body's words are read the way `megg search` reads them for phrases
//! ([`crate::megg::recall::text::phrase_words`]): Unicode word boundaries, lowercased,
//! English-stemmed, punctuation dropped, CJK text one character per word. Two bodies differ by
//! the words changed between them: the longer one's words that are not in their longest common
//! subsequence (a word replaced, added or dropped is one). Bodies of at least [`SHORT_WORDS`]
//! words are near-identical when at most 1 word in every [`WORDS_PER_CHANGE`] of the longer
//! (at least 1) changed, so one changed word names a 15-word body as it names a 40-word one;
//! shorter bodies only when their words are the same.
//!
//! **The cost.** Each body is read once (its first [`MAX_WORDS`] words) into word hashes. A
//! comparison first bounds the words changed from below by their lengths and by the words they
//! share (a merge of two sorted lists); only bodies that pass are aligned, within a band as
//! wide as the changes allowed.

use super::{Entry, FIELD_LINES, NewEntry, is_field_line};

/// Bodies with fewer words than this compare on their exact words.
pub const SHORT_WORDS: usize = 8;
/// One changed word is allowed per this many words of the longer body (and always one).
pub const WORDS_PER_CHANGE: usize = 15;
/// Words of a body that are compared; the rest of a longer one is not read.
pub const MAX_WORDS: usize = 4_000;

/// How a new entry is like one already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Likeness {
    /// The same title, by [`title_norm`].
    Title,
    /// A near-identical body: this many words changed.
    Text(usize),
}

impl std::fmt::Display for Likeness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Title => f.write_str("the same title"),
            Self::Text(0) => f.write_str("the same text"),
            Self::Text(1) => f.write_str("the same text but for 1 word"),
            Self::Text(n) => write!(f, "the same text but for {n} words"),
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
        let key = title_norm(&entry.title);
        let same_title = known
            .iter()
            .enumerate()
            .find(|(i, e)| Some(*i) != except && title_norm(e.title) == key)
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
            .filter_map(|(i, b)| body.changed_words(b).map(|c| (i, c)))
            .min_by_key(|&(i, c)| (c, i));
        if let Some((old, changed)) = best {
            out.push(Duplicate {
                new: n,
                old,
                likeness: Likeness::Text(changed),
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

/// A title as duplicates compare it: case-folded, without Unicode punctuation, symbols or
/// whitespace (`ROUTES must be registered, in the one table!` is `Routes must be registered in
/// the one table`).
pub fn title_norm(title: &str) -> String {
    title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A body as compared: the hashes of its words, in order and sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Body {
    words: Vec<u64>,
    sorted: Vec<u64>,
}

impl Body {
    fn of(text: &str) -> Self {
        let mut words = crate::megg::recall::text::phrase_words(text);
        words.truncate(MAX_WORDS);
        let words: Vec<u64> = words
            .iter()
            .map(|w| xxhash_rust::xxh3::xxh3_64(w.as_bytes()))
            .collect();
        let mut sorted = words.clone();
        sorted.sort_unstable();
        Self { words, sorted }
    }

    /// The words changed between the two bodies when they are near-identical.
    fn changed_words(&self, other: &Self) -> Option<usize> {
        let (a, b) = (&self.words, &other.words);
        let longer = a.len().max(b.len());
        if a.is_empty() || b.is_empty() {
            return None;
        }
        if a.len() < SHORT_WORDS || b.len() < SHORT_WORDS {
            return (a == b).then_some(0);
        }
        let allowed = (longer / WORDS_PER_CHANGE).max(1);
        // The common subsequence is no longer than the words shared.
        if longer - shared(&self.sorted, &other.sorted) > allowed {
            return None;
        }
        let lcs = banded_lcs(a, b, allowed)?;
        let changed = longer - lcs;
        (changed <= allowed).then_some(changed)
    }
}

/// The longest common subsequence of `a` and `b` when it leaves at most `allowed` words of the
/// longer out (else `None`), computed within a band of that width around the diagonal.
fn banded_lcs(a: &[u64], b: &[u64], allowed: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > allowed {
        return None;
    }
    // row[j - lo(i)] = LCS of a[..i] and b[..j] for j within the band.
    let width = 2 * allowed + 1;
    let mut prev = vec![0usize; width + 2];
    let mut row = vec![0usize; width + 2];
    let lo = |i: usize| i.saturating_sub(allowed);
    let at = |v: &[usize], i: usize, j: usize| -> usize {
        // Outside the band the value is no better than the band's edge: 0 is a safe floor.
        j.checked_sub(lo(i))
            .filter(|k| *k <= width && j <= m)
            .and_then(|k| v.get(k).copied())
            .unwrap_or(0)
    };
    for i in 1..=n {
        row.iter_mut().for_each(|x| *x = 0);
        let (from, to) = (lo(i).max(1), (i + allowed).min(m));
        for j in from..=to {
            let same = a.get(i - 1) == b.get(j - 1);
            let value = if same {
                at(&prev, i - 1, j - 1) + 1
            } else {
                at(&prev, i - 1, j).max(at(&row, i, j - 1))
            };
            if let Some(slot) = j.checked_sub(lo(i)).and_then(|k| row.get_mut(k)) {
                *slot = value;
            }
        }
        std::mem::swap(&mut prev, &mut row);
    }
    Some(at(&prev, n, m))
}

/// How many values two sorted lists have in common, repeats counted.
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
