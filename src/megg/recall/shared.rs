//! Pieces of strings (and runs of lists) that many documents share: what a corpus's fields
//! are, so that reading thousands of documents from the cache and dropping them at the end of
//! a search costs a few allocations, not one for every field of every document — which was
//! most of what a warm search cost.

use std::ops::Range;
use std::sync::{Arc, LazyLock};

/// A piece of a string that many documents share — their file's text, or one string of their
/// ids — read as a `str`. A search reads thousands of documents from the cache and drops them
/// at its end: with their fields pieces of a few strings, that is a few allocations and frees,
/// not one for every field (which cost more than the rest of a warm search).
#[derive(Clone)]
pub struct Shared {
    /// An `Arc<String>` rather than an `Arc<str>`: a file's text becomes one without a copy.
    whole: Arc<String>,
    range: Range<usize>,
}

impl Shared {
    /// `part`, a slice of `whole`, as a piece of it; any other `part` is copied.
    pub fn piece(whole: &Arc<String>, part: &str) -> Self {
        let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
        match start.checked_add(part.len()) {
            Some(end) if start <= whole.len() && end <= whole.len() => Self {
                whole: whole.clone(),
                range: start..end,
            },
            _ => Self::from(part),
        }
    }

    /// The bytes `range` of `whole`, when they are whole characters in it.
    pub fn at(whole: &Arc<String>, range: Range<usize>) -> Option<Self> {
        whole.get(range.clone())?;
        Some(Self {
            whole: whole.clone(),
            range,
        })
    }

    /// Where this piece lies in `whole`, when it is a piece of that very string.
    pub fn range_in(&self, whole: &Arc<String>) -> Option<Range<usize>> {
        Arc::ptr_eq(&self.whole, whole).then(|| self.range.clone())
    }

    pub fn as_str(&self) -> &str {
        // Every constructor checks the range; "" would be a piece that cannot be.
        self.whole.get(self.range.clone()).unwrap_or_default()
    }
}

impl Default for Shared {
    /// The empty string, without an allocation (every document's id starts as one).
    fn default() -> Self {
        static EMPTY: LazyLock<Arc<String>> = LazyLock::new(Arc::default);
        Self {
            whole: EMPTY.clone(),
            range: 0..0,
        }
    }
}

impl From<&str> for Shared {
    fn from(s: &str) -> Self {
        Self::from(s.to_string())
    }
}

impl From<String> for Shared {
    fn from(s: String) -> Self {
        Self {
            range: 0..s.len(),
            whole: Arc::new(s),
        }
    }
}

impl std::ops::Deref for Shared {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Shared {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl PartialEq for Shared {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Shared {}

impl PartialEq<str> for Shared {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Shared {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Shared {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialOrd for Shared {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Shared {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Shared {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

/// A document's topics: a run of a list that documents share (those read from the cache: all
/// their topics are one list), read as a slice — for the reason of [`Shared`].
#[derive(Clone)]
pub struct Topics {
    all: Arc<Vec<Shared>>,
    range: Range<usize>,
}

impl Topics {
    /// The topics `range` of `all`, when it has them.
    pub fn run(all: &Arc<Vec<Shared>>, range: Range<usize>) -> Option<Self> {
        all.get(range.clone())?;
        Some(Self {
            all: all.clone(),
            range,
        })
    }
}

impl Default for Topics {
    /// No topics, without an allocation.
    fn default() -> Self {
        static NONE: LazyLock<Arc<Vec<Shared>>> = LazyLock::new(Arc::default);
        Self {
            all: NONE.clone(),
            range: 0..0,
        }
    }
}

impl FromIterator<Shared> for Topics {
    fn from_iter<I: IntoIterator<Item = Shared>>(topics: I) -> Self {
        let all: Vec<Shared> = topics.into_iter().collect();
        Self {
            range: 0..all.len(),
            all: Arc::new(all),
        }
    }
}

impl std::ops::Deref for Topics {
    type Target = [Shared];

    fn deref(&self) -> &[Shared] {
        // `run` checks the range; none would be a run that cannot be.
        self.all.get(self.range.clone()).unwrap_or_default()
    }
}

impl<'a> IntoIterator for &'a Topics {
    type Item = &'a Shared;
    type IntoIter = std::slice::Iter<'a, Shared>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Topics {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Topics {}

impl std::fmt::Debug for Topics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_of_the_string_is_shared_and_anything_else_copied() {
        let whole = Arc::new("héllo world".to_string());
        let piece = Shared::piece(&whole, whole.get(7..).unwrap());
        assert_eq!(piece, "world");
        assert_eq!(piece.range_in(&whole), Some(7..12));
        let copied = Shared::piece(&whole, "world");
        assert_eq!(copied, piece);
        assert_eq!(copied.range_in(&whole), None);
        // Not whole characters, or past the end: no piece.
        assert!(Shared::at(&whole, 1..2).is_none() && Shared::at(&whole, 7..13).is_none());
        assert_eq!(Shared::default(), "");
        let all = Arc::new(vec![Shared::from("a"), Shared::from("b"), piece]);
        let topics = Topics::run(&all, 1..3).unwrap();
        assert_eq!(topics.join(", "), "b, world");
        assert_eq!(topics, ["b".into(), "world".into()].into_iter().collect());
        assert!(Topics::run(&all, 2..4).is_none() && Topics::default().is_empty());
    }
}
