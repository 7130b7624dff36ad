//! Token counting: OpenAI `cl100k_base`, `encode_ordinary` semantics, exact. The only module
//! that touches the tokenizer.
//!
//! Loading the tokenizer costs more than everything else megg does at session start (SPEC
//! §8), so callers first use [`bounds`] when the answer follows from the byte length alone, and
//! counts are cached by content hash (plus megg's version) in the user's cache directory —
//! never inside a project. The cache is bounded and skipped silently when it cannot be used.
//!
//! The crate is `bpe-openai`: identical counts to tiktoken's `encode_ordinary` (checked by the
//! corpus test in `tests/cli/tokens.rs`) and a third of tiktoken-rs's start-up time. Its
//! tokenizer runs over the encoding `build.rs` makes, which leaves out the 7.3 MB of automata
//! counting never uses (SPEC §15: what the binary holds, docs/benchmarks.md).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};

use bpe_openai::Tokenizer;
use bpe_openai::byte_pair_encoding::BytePairEncoding;

/// A cl100k token is 1 to 128 bytes.
pub const MAX_TOKEN_BYTES: u64 = 128;

/// Entries kept in the cache file; the oldest half goes when it is full.
const CACHE_CAPACITY: usize = 1024;

/// The range of token counts a text of `len` bytes can have: `ceil(len/128) ..= len`.
pub fn bounds(len: u64) -> (u64, u64) {
    (len.div_ceil(MAX_TOKEN_BYTES), len)
}

/// Counts tokens, remembering counts across runs.
#[derive(Debug)]
pub struct Counter {
    cache: Mutex<Cache>,
}

#[derive(Debug, Default)]
struct Cache {
    file: Option<PathBuf>,
    loaded: bool,
    entries: HashMap<u128, usize>,
    order: Vec<u128>,
    dirty: bool,
}

impl Counter {
    /// A counter caching in `dir` (`None`: no persistent cache).
    pub fn new(dir: Option<PathBuf>) -> Self {
        let file = dir.map(|d| d.join(format!("tokens-{}.tsv", env!("CARGO_PKG_VERSION"))));
        Self {
            cache: Mutex::new(Cache {
                file,
                ..Cache::default()
            }),
        }
    }

    /// The counter for this process: `MEGG_CACHE_DIR`, else the platform's user cache dir.
    pub fn from_env() -> Self {
        Self::new(crate::fsx::user_cache_dir())
    }

    /// Exact cl100k token count of `text`.
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        let key = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
        let mut cache = match self.cache.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        };
        cache.load();
        // A cache is a hint, not a truth (SPEC §9): a count the byte length rules out — more
        // tokens than bytes, or fewer than bytes/128 — was planted or corrupted; recount.
        let (lower, upper) = bounds(text.len() as u64);
        if let Some(&n) = cache.entries.get(&key)
            && (lower..=upper).contains(&(n as u64))
        {
            return n;
        }
        let n = count_uncached(text);
        cache.insert(key, n);
        n
    }

    /// Writes new counts to the cache file. Failures are ignored: the cache is an optimisation.
    pub fn flush(&self) {
        if let Ok(mut cache) = self.cache.lock() {
            cache.save();
        }
    }

    /// Cuts `text` to at most `max` tokens (SPEC §5): at the last line boundary that fits when
    /// that keeps at least three quarters of `max` (1,500 of 2,000), else at the last word
    /// boundary that does, else at a character boundary — so one giant line never turns 5,000
    /// tokens into 11.
    pub fn truncate<'t>(&self, text: &'t str, max: usize) -> Truncated<'t> {
        let original = self.count(text);
        if original <= max {
            return Truncated {
                text,
                tokens: original,
                original,
            };
        }
        // Every cut is a character boundary (from `match_indices` and `char_indices`).
        let fits = |end: usize| text.get(..end).is_some_and(|t| count_uncached(t) <= max);
        let lines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
        let words: Vec<usize> = text
            .char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(i, _)| i)
            .collect();
        let chars: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let keep_min = max - max / 4;
        let keeps_enough = |end: &usize| {
            text.get(..*end)
                .is_some_and(|t| count_uncached(t) >= keep_min)
        };
        let end = last_fitting(&lines, &fits)
            .filter(keeps_enough)
            .or_else(|| last_fitting(&words, &fits).filter(keeps_enough))
            .or_else(|| last_fitting(&chars, &fits))
            .unwrap_or(0);
        let cut = text.get(..end).unwrap_or_default().trim_end();
        Truncated {
            text: cut,
            tokens: self.count(cut),
            original,
        }
    }
}

/// The largest cut in `cuts` (ascending byte offsets) for which `fits` holds, by binary search
/// (token counts of prefixes grow with the prefix), confirmed by stepping back if needed.
fn last_fitting(cuts: &[usize], fits: &impl Fn(usize) -> bool) -> Option<usize> {
    let cuts: Vec<usize> = cuts.iter().copied().filter(|&c| c > 0).collect();
    let (mut lo, mut hi) = (0usize, cuts.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if cuts.get(mid).is_some_and(|&c| fits(c)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    cuts.get(..lo)?.iter().rev().copied().find(|&c| fits(c))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncated<'t> {
    pub text: &'t str,
    pub tokens: usize,
    /// Tokens before truncation.
    pub original: usize,
}

impl Truncated<'_> {
    pub fn was_cut(&self) -> bool {
        self.tokens < self.original
    }
}

fn count_uncached(text: &str) -> usize {
    CL100K.count(text)
}

/// The cl100k encoding build.rs serialized: bpe-openai's, without the two overlapping automata.
/// Counting, `encode` and `decode` never use them; bpe's table, interval, appendable,
/// prependable and minimal encoders do, and must not be called on it.
static CL100K_ENCODING: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.bpe"));

/// `bpe_openai::cl100k_base()` (0.3.2) over [`CL100K_ENCODING`]: the same pre-tokenizer — its
/// negative look-ahead `\s+(?!\S)` rewritten as a one-character look-ahead pattern — and no
/// NFC normalization. Loaded on the first count that needs it.
// `expect` cannot fail: build.rs checked that these bytes load and count, and the patterns are
// constants every test run compiles.
#[allow(clippy::expect_used)]
static CL100K: LazyLock<Tokenizer> = LazyLock::new(|| {
    let bpe: BytePairEncoding =
        rmp_serde::from_slice(CL100K_ENCODING).expect("build.rs wrote a valid encoding");
    let pat1 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$";
    let pat2 = "\\s+\\s";
    let pat3 = "\\s+";
    Tokenizer::new_lookahead(bpe, &[(pat1, false), (pat2, true), (pat3, false)], false)
        .expect("constant patterns compile")
});

/// Most bytes of the token cache read: its capacity's worth of lines, with room to spare.
const MAX_CACHE_BYTES: u64 = (CACHE_CAPACITY as u64 + 64) * 64;

/// The cache file lives in megg's own cache directory and never leaves it.
fn cache_boundary(file: &std::path::Path) -> Option<crate::fsx::Boundary> {
    Some(crate::fsx::Boundary::new(
        file.parent()?,
        "megg's cache directory",
    ))
}

impl Cache {
    fn load(&mut self) {
        if self.loaded {
            return;
        }
        self.loaded = true;
        let Some(file) = &self.file else { return };
        let Some(b) = cache_boundary(file) else {
            return;
        };
        let Ok(Some(text)) = crate::fsx::read_text(&b, file, MAX_CACHE_BYTES) else {
            return;
        };
        if text.truncated {
            return;
        }
        let text = text.text;
        for line in text.lines() {
            let mut parts = line.split('\t');
            let (Some(k), Some(v), None) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            if let (Ok(k), Ok(v)) = (u128::from_str_radix(k, 16), v.parse::<usize>())
                && self.entries.insert(k, v).is_none()
            {
                self.order.push(k);
            }
        }
    }

    fn insert(&mut self, key: u128, tokens: usize) {
        if self.entries.insert(key, tokens).is_none() {
            self.order.push(key);
        }
        self.dirty = true;
    }

    fn save(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let Some(file) = &self.file else { return };
        if self.order.len() > CACHE_CAPACITY {
            let drop = self.order.len() - CACHE_CAPACITY / 2;
            for k in self.order.drain(..drop) {
                self.entries.remove(&k);
            }
        }
        let mut out = String::with_capacity(self.order.len() * 40);
        for k in &self.order {
            if let Some(n) = self.entries.get(k) {
                // Writing to a String cannot fail.
                let _ = writeln!(out, "{k:032x}\t{n}");
            }
        }
        if let Some(b) = cache_boundary(file)
            && crate::fsx::create_dir_all(&b, b.root()).is_ok()
        {
            let _ = crate::fsx::write_atomic(&b, file, out.as_bytes());
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn counts_known_strings() {
        let c = Counter::new(None);
        assert_eq!(c.count(""), 0);
        assert_eq!(c.count("hello world"), 2);
        // Special-token text is ordinary text (encode_ordinary).
        assert_eq!(c.count("<|endoftext|>"), 7);
    }

    #[test]
    fn embeds_only_what_counting_uses() {
        // bpe-openai's serialized cl100k encoding is 15.0 MB; 7.3 MB of it are two automata
        // only other encoders use, which build.rs leaves out (SPEC §15).
        let len = CL100K_ENCODING.len();
        assert!(len < 8_000_000, "the embedded encoding is {len} bytes");
        // And what is left still counts (and cannot fail: see `CL100K`).
        assert_eq!(count_uncached("hello world"), 2);
    }

    #[test]
    fn every_cl100k_token_counts_as_tiktoken_counts_it() {
        // The whole vocabulary through the trimmed encoding (build.rs), each token alone and
        // glued to the next: tiktoken-rs is the reference (SPEC §8).
        let tiktoken = tiktoken_rs::cl100k_base().unwrap();
        let tokens: Vec<String> = (0..)
            .map_while(|rank| tiktoken.decode_bytes(&[rank]).ok())
            .filter_map(|bytes| String::from_utf8(bytes).ok())
            .collect();
        assert!(tokens.len() > 90_000, "{}", tokens.len());
        for pair in tokens.windows(2) {
            let [a, b] = pair else { continue };
            for text in [a.clone(), format!("{a}{b}")] {
                assert_eq!(
                    count_uncached(&text),
                    tiktoken.encode_ordinary(&text).len(),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn byte_bounds() {
        assert_eq!(bounds(0), (0, 0));
        assert_eq!(bounds(128), (1, 128));
        assert_eq!(bounds(129), (2, 129));
        assert_eq!(bounds(2_048_000), (16_000, 2_048_000));
    }

    #[test]
    fn cache_persists_and_is_used() {
        let dir = tempfile::tempdir().unwrap();
        let c = Counter::new(Some(dir.path().to_path_buf()));
        assert_eq!(c.count("alpha beta gamma"), 3);
        c.flush();
        let file = dir
            .path()
            .join(format!("tokens-{}.tsv", env!("CARGO_PKG_VERSION")));
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 1);
        // A planted (wrong but possible) count proves the second counter reads the cache, not
        // the tokenizer.
        let key = xxhash_rust::xxh3::xxh3_128(b"alpha beta gamma");
        std::fs::write(&file, format!("{key:032x}\t9\ngarbage line\n")).unwrap();
        let c2 = Counter::new(Some(dir.path().to_path_buf()));
        assert_eq!(c2.count("alpha beta gamma"), 9);
    }

    #[test]
    fn cache_entries_the_bytes_rule_out_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir
            .path()
            .join(format!("tokens-{}.tsv", env!("CARGO_PKG_VERSION")));
        let text = "alpha beta gamma"; // 16 bytes: between 1 and 16 tokens
        let key = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
        for planted in ["99", "0", "17"] {
            std::fs::write(&file, format!("{key:032x}\t{planted}\n")).unwrap();
            let c = Counter::new(Some(dir.path().to_path_buf()));
            assert_eq!(c.count(text), 3, "planted {planted} must be ignored");
        }
    }

    #[test]
    fn cache_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let c = Counter::new(Some(dir.path().to_path_buf()));
        for i in 0..(CACHE_CAPACITY + 5) {
            c.count(&format!("entry {i}"));
        }
        c.flush();
        let file = dir
            .path()
            .join(format!("tokens-{}.tsv", env!("CARGO_PKG_VERSION")));
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        assert!(lines <= CACHE_CAPACITY, "{lines}");
    }

    #[test]
    fn unwritable_cache_is_skipped_silently() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        let c = Counter::new(Some(blocker.join("sub")));
        assert_eq!(c.count("hello world"), 2);
        c.flush();
    }

    #[test]
    fn truncate_cuts_at_a_line_boundary() {
        let c = Counter::new(None);
        let text = "line one here\nline two here\nline three here\n";
        let t = c.truncate(text, 7);
        assert!(t.was_cut());
        assert!(t.tokens <= 7);
        assert_eq!(t.text, "line one here\nline two here");
    }

    #[test]
    fn truncate_falls_back_to_words_then_chars() {
        let c = Counter::new(None);
        let t = c.truncate("alpha beta gamma delta epsilon", 3);
        assert!(t.tokens <= 3);
        assert!("alpha beta gamma delta epsilon".starts_with(t.text));
        assert!(!t.text.ends_with(' '));
        let long = "x".repeat(5000);
        let t = c.truncate(&long, 10);
        assert!(t.tokens <= 10 && !t.text.is_empty());
    }

    #[test]
    fn truncate_leaves_fitting_text_alone() {
        let c = Counter::new(None);
        let t = c.truncate("short", 2000);
        assert!(!t.was_cut());
        assert_eq!(t.text, "short");
    }
}
