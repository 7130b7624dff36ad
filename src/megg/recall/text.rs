//! Words as a developer types them (SPEC §13.3): case-insensitive, on Unicode word boundaries,
//! English-stemmed (`retries` finds `retry`), identifiers kept whole and split
//! (`parseConfig`, `parse_config`, `src/auth/jwt.rs` → `parse`, `config`, `auth`, `jwt`), and
//! CJK text as characters and character bigrams (no dictionary needed). A stopword is told
//! apart before it is stemmed and kept as it is written: no stem of one (`this` → `thi`) is
//! ever a term (SPEC §16). A path written in backticks has its directories and extension told
//! apart from its name ([`each_term_marked`]): `src` and `ts` are in every entry citing code
//! (SPEC §17).

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// English function words, lowercase as written, sorted: the words an agent's question is built
/// of ("how do we store tokens?"), which match every document and rank none. Each is a term of
/// its own, never stemmed.
pub const STOPWORDS: [&str; 47] = [
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "did", "do", "does", "for",
    "from", "had", "has", "have", "how", "i", "if", "in", "is", "it", "of", "on", "or", "our",
    "should", "so", "that", "the", "there", "this", "to", "us", "was", "we", "what", "when",
    "where", "which", "who", "why", "will", "with", "you",
];

/// Whether `term` (lowercase) is one of [`STOPWORDS`].
pub fn is_stopword(term: &str) -> bool {
    // None is longer than 6 bytes: most words are told apart by their length alone.
    term.len() <= 6 && STOPWORDS.binary_search(&term).is_ok()
}

/// The terms of `text`, in order, for indexing and for queries alike: each word stemmed, then
/// the parts of an identifier, then CJK unigrams and bigrams.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_term(text, &mut |t| out.push(t.to_string()));
    out
}

/// [`terms`] one at a time, without keeping them: what ranking needs of every document.
pub fn each_term(text: &str, f: &mut dyn FnMut(&str)) {
    let mut lowered = String::new();
    each_word(text, &mut |w| match w {
        Word::Cjk(chars) => {
            let mut buf = [0u8; 8];
            for (i, c) in chars.iter().enumerate() {
                f(c.encode_utf8(&mut buf));
                if let Some(next) = chars.get(i + 1) {
                    f(&format!("{c}{next}"));
                }
            }
        }
        Word::Plain(word) => {
            let lower = lowercase(word, &mut lowered);
            if is_stopword(lower) {
                f(lower);
                return;
            }
            with_stem(lower, &mut |stemmed| {
                // The stemmer keeps the plural of an acronym (`JWTs`, `APIs`, `URLs`): its
                // singular too.
                if stemmed == lower
                    && lower.len() > 3
                    && let Some(singular) = lower.strip_suffix('s')
                    && !singular.ends_with('s')
                {
                    f(singular);
                }
                f(stemmed);
            });
            // Most words are one part: told apart without splitting them.
            if !is_plain_word(word) {
                let parts = identifier_parts(word);
                if parts.len() > 1 {
                    for p in parts {
                        with_term(&p.to_lowercase(), f);
                    }
                }
            }
        }
    });
}

/// A path as written — `src/billing/tax.ts`, `./src/api/routes.rs:12`, `pool.ts`, `src/db/` —
/// split into what is structure in it (its directories, its name's extension: `src`, `ts`,
/// shared by every entry that cites code) and its name (`tax.ts`; a directory's own: `db`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathParts<'a> {
    /// Up to the last `/` before the name (`src/billing`); empty for a bare name.
    pub dirs: &'a str,
    /// The last component (`tax.ts`; `db` for `src/db/`).
    pub name: &'a str,
    /// The name's extension (`ts`), if it has one; a directory has none.
    pub ext: Option<&'a str>,
    /// Written as a directory (`src/db/`): its name is a directory too.
    pub dir: bool,
    /// What follows the path in the token: a `:line` or `#Lline` (words, not structure).
    pub rest: &'a str,
}

/// `token` (one word of text, no space) as a path: with a `/`, or a name with an extension —
/// `1..=10` ASCII letters and digits after a `.`, the first a letter, after a name (`pool.ts`;
/// not `1.2`, `.env` or `a.b()`); without a leading `./`, a `:line` or `#Lline`. `None` for any
/// other word, a URL among them.
pub fn path_parts(token: &str) -> Option<PathParts<'_>> {
    if token.contains("://") {
        return None;
    }
    let token = token.strip_prefix("./").unwrap_or(token);
    // The path ends at a `#L` or at a `:` that only digits (and `-`, `:`) follow.
    let mut end = token.find("#L").unwrap_or(token.len());
    while let Some(colon) = token.get(..end).and_then(|p| p.rfind(':')) {
        let line = token.get(colon + 1..end).unwrap_or("");
        if line.is_empty() || !line.chars().all(|c| c.is_ascii_digit() || c == '-') {
            break;
        }
        end = colon;
    }
    let (path, rest) = token.split_at_checked(end)?;
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | '@');
    if path.is_empty() || !path.chars().all(allowed) {
        return None;
    }
    let dir = path.ends_with('/');
    let trimmed = path.trim_end_matches('/');
    let (dirs, name) = trimmed.rsplit_once('/').unwrap_or(("", trimmed));
    let ext = name
        .rsplit_once('.')
        .filter(|(stem, ext)| {
            !dir && !stem.is_empty()
                && (1..=10).contains(&ext.len())
                && ext.starts_with(|c: char| c.is_ascii_alphabetic())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
        .map(|(_, ext)| ext);
    (!name.is_empty() && (dir || !dirs.is_empty() || ext.is_some())).then_some(PathParts {
        dirs,
        name,
        ext,
        dir,
        rest,
    })
}

/// [`each_term`], saying of each term whether it is a cited path's structure: a directory or
/// the extension of a path written in backticks (`src/billing/tax.ts` gives `src`, `bill` and
/// `ts` as structure; `tax.t` and `tax`, its name, as words). The same terms as
/// [`each_term`], in its order but for CJK text on both sides of a backtick (no bigram across
/// one).
pub fn each_term_marked(text: &str, f: &mut dyn FnMut(&str, bool)) {
    if !text.contains('`') {
        return each_term(text, &mut |t| f(t, false));
    }
    for (piece, code) in pieces(text) {
        match path_parts(piece.trim()).filter(|_| code) {
            Some(p) => path_terms(&p, f),
            None => each_term(piece, &mut |t| f(t, false)),
        }
    }
}

/// Each path `text` writes in backticks ([`path_parts`]), in order: what an entry cites.
pub fn each_cited_path(text: &str, f: &mut dyn FnMut(PathParts<'_>)) {
    if !text.contains('`') {
        return;
    }
    for (piece, code) in pieces(text) {
        if let Some(p) = path_parts(piece.trim()).filter(|_| code) {
            f(p);
        }
    }
}

/// The pieces of `text` between backticks, each with whether it is a code span (between two).
fn pieces(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let ticks = text.bytes().filter(|&b| b == b'`').count();
    text.split('`')
        .enumerate()
        .map(move |(i, piece)| (piece, i % 2 == 1 && i < ticks))
}

impl PathParts<'_> {
    /// The path without what the token had around it: `src/api/routes.rs` for
    /// `./src/api/routes.rs:12`, `src/db` for `src/db/`.
    pub fn path(&self) -> String {
        if self.dirs.is_empty() {
            self.name.to_string()
        } else {
            format!("{}/{}", self.dirs, self.name)
        }
    }
}

/// The terms of a path, each with whether it is structure ([`each_term_marked`]).
fn path_terms(p: &PathParts<'_>, f: &mut dyn FnMut(&str, bool)) {
    each_term(p.dirs, &mut |t| f(t, true));
    match p.ext {
        Some(ext) => {
            let stem = p.name.rsplit_once('.').map_or("", |(stem, _)| stem);
            let (ext, stem) = (terms(ext), terms(stem));
            each_term(p.name, &mut |t| {
                f(
                    t,
                    ext.iter().any(|e| e == t) && !stem.iter().any(|s| s == t),
                )
            });
        }
        None => each_term(p.name, &mut |t| f(t, false)),
    }
    each_term(p.rest, &mut |t| f(t, false));
}

/// `word` in lowercase: itself when it is (most words of a text), else written into `buf`.
fn lowercase<'a>(word: &'a str, buf: &'a mut String) -> &'a str {
    if word
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        return word;
    }
    buf.clear();
    if word.is_ascii() {
        buf.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        buf.extend(word.chars().flat_map(char::to_lowercase));
    }
    buf
}

/// Whether `word` is an ASCII word of letters, lowercase after its first: one part for
/// [`identifier_parts`], which has none of the case changes, digits or separators it splits at.
fn is_plain_word(word: &str) -> bool {
    let mut bytes = word.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic()) && bytes.all(|b| b.is_ascii_lowercase())
}

/// The byte ranges of the words of `text` that hold one of `wanted` (a query's terms, as
/// [`terms`] gives them): what a terminal shows highlighted. `retried` is marked for
/// `retries`, `parseWebhookEvent` for `webhook`.
pub fn matching(text: &str, wanted: &[String]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for (at, word) in text.unicode_word_indices() {
        let mut hit = false;
        each_term(word, &mut |t| hit |= wanted.iter().any(|w| w == t));
        if hit {
            out.push(at..at + word.len());
        }
    }
    out
}

/// The words of `text` for phrase matching: each word whole, lowercased and stemmed, CJK text
/// one character per word.
pub fn phrase_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(text, &mut |w| match w {
        Word::Cjk(chars) => out.extend(chars.iter().map(char::to_string)),
        Word::Plain(word) => {
            let lower = word.to_lowercase();
            out.push(if is_stopword(&lower) {
                lower
            } else {
                stem(&lower)
            });
        }
    });
    out
}

thread_local! {
    static STEMMER: Stemmer = Stemmer::create(Algorithm::English);
    /// Words already stemmed in this run: a corpus repeats its words.
    static STEMS: std::cell::RefCell<std::collections::HashMap<String, String>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The English stem of a lowercase word.
fn stem(lower: &str) -> String {
    let mut out = String::new();
    with_stem(lower, &mut |s| out.push_str(s));
    out
}

/// Calls `f` with the term of a lowercase word: a stopword as it is, any other word stemmed.
fn with_term(lower: &str, f: &mut dyn FnMut(&str)) {
    if is_stopword(lower) {
        f(lower);
    } else {
        with_stem(lower, f);
    }
}

/// Calls `f` with the English stem of a lowercase word (memoized: a corpus repeats its words).
fn with_stem(lower: &str, f: &mut dyn FnMut(&str)) {
    let known = STEMS.with(|m| match m.borrow().get(lower) {
        Some(s) => {
            f(s);
            true
        }
        None => false,
    });
    if known {
        return;
    }
    let s = STEMMER.with(|st| st.stem(lower).into_owned());
    f(&s);
    STEMS.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() < 200_000 {
            m.insert(lower.to_string(), s);
        }
    });
}

enum Word<'a> {
    Plain(&'a str),
    /// A run of CJK characters.
    Cjk(&'a [char]),
}

/// Calls `f` with each Unicode word (UAX #29) of `text`, with `/`-separated paths split into
/// their parts first and runs of CJK characters kept together — one at a time, not gathered
/// first: this runs over every title and line a search shows.
fn each_word(text: &str, f: &mut dyn FnMut(Word<'_>)) {
    let mut run: Vec<char> = Vec::new();
    for word in text.unicode_words() {
        if word.chars().all(is_cjk) {
            run.extend(word.chars());
            continue;
        }
        if !run.is_empty() {
            f(Word::Cjk(&run));
            run.clear();
        }
        f(Word::Plain(word));
    }
    if !run.is_empty() {
        f(Word::Cjk(&run));
    }
}

/// Whether `c` is written without spaces between words (Han, kana, Hangul).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FA1F)
}

/// The parts of an identifier: split at `_`, `.`, `-`, `:` and lower-to-upper case changes
/// (`parseConfig` → `parse`, `Config`; `HTTPServer` → `HTTP`, `Server`). One part for a plain
/// word.
fn identifier_parts(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in word.split(['_', '.', '-', ':', '\'']) {
        // What is left of `piece` to cut, and the character before it.
        let mut rest = piece;
        let mut chars = piece.char_indices().peekable();
        let Some((_, mut prev)) = chars.next() else {
            continue;
        };
        let mut cut = 0;
        while let Some((i, c)) = chars.next() {
            let next_lower = chars.peek().is_some_and(|(_, n)| n.is_lowercase());
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower)
                || (prev.is_alphabetic() && c.is_numeric())
                || (prev.is_numeric() && c.is_alphabetic());
            // `i` is where `c` starts: a character boundary of `piece`, so of `rest`.
            if boundary && let Some((part, after)) = rest.split_at_checked(i - cut) {
                parts.push(part);
                rest = after;
                cut = i;
            }
            prev = c;
        }
        parts.push(rest);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_splits_identifiers_and_keeps_them_whole() {
        assert!(terms("Retries").contains(&"retri".to_string()));
        assert_eq!(terms("retries"), terms("retry"));
        let t = terms("parseConfig parse_config");
        for w in ["parseconfig", "pars", "config", "parse_config"] {
            assert!(t.contains(&w.to_string()), "{w} in {t:?}");
        }
        let t = terms("src/auth/jwt.rs");
        for w in ["src", "auth", "jwt"] {
            assert!(t.contains(&w.to_string()), "{w} in {t:?}");
        }
        assert_eq!(
            identifier_parts("HTTPServer2go"),
            ["HTTP", "Server", "2", "go"]
        );
    }

    #[test]
    fn identifiers_in_any_script_split_at_their_case_changes() {
        assert_eq!(identifier_parts("ÉtatInitial"), ["État", "Initial"]);
        assert_eq!(identifier_parts("naïveCafé2x"), ["naïve", "Café", "2", "x"]);
        assert_eq!(identifier_parts("ΑλφαΒήτα_令牌"), ["Αλφα", "Βήτα", "令牌"]);
        assert_eq!(identifier_parts("__"), Vec::<&str>::new());
        assert!(terms("parseÉtat").contains(&"état".to_string()));
    }

    /// [`is_stopword`] looks the list up by halves.
    #[test]
    fn the_stopwords_are_sorted_lowercase_and_short() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        for w in STOPWORDS {
            assert!(is_stopword(w) && w.len() <= 6 && w == w.to_lowercase());
        }
        assert!(!is_stopword("thi") && !is_stopword("This") && !is_stopword("doe"));
    }

    #[test]
    fn matching_marks_whole_words_by_their_terms() {
        let wanted = terms("retried webhook");
        let text = "Retry payment webhooks (parseWebhookEvent)";
        let marked: Vec<&str> = matching(text, &wanted)
            .into_iter()
            .map(|r| text.get(r).unwrap())
            .collect();
        assert_eq!(marked, ["Retry", "webhooks", "parseWebhookEvent"]);
        assert!(matching("nothing here", &wanted).is_empty());
    }

    #[test]
    fn a_path_is_split_into_its_structure_and_its_name() {
        type Parts<'a> = (&'a str, &'a str, Option<&'a str>, bool, &'a str);
        fn parts(t: &str) -> Option<Parts<'_>> {
            path_parts(t).map(|p| (p.dirs, p.name, p.ext, p.dir, p.rest))
        }
        assert_eq!(
            parts("src/billing/tax.ts"),
            Some(("src/billing", "tax.ts", Some("ts"), false, ""))
        );
        assert_eq!(
            parts("./src/api/routes.rs:12-14"),
            Some(("src/api", "routes.rs", Some("rs"), false, ":12-14"))
        );
        assert_eq!(
            parts("lib.rs#L7"),
            Some(("", "lib.rs", Some("rs"), false, "#L7"))
        );
        assert_eq!(parts("src/db/"), Some(("src", "db", None, true, "")));
        assert_eq!(parts("docs/"), Some(("", "docs", None, true, "")));
        assert_eq!(parts("Makefile"), None);
        for word in [
            "1.2",
            ".env",
            "a.b()",
            "https://x.io/a.ts",
            "cargo test",
            "",
            "/",
        ] {
            assert_eq!(parts(word), None, "{word}");
        }
    }

    #[test]
    fn a_cited_paths_directories_and_extension_are_marked_structure() {
        let marked = |text: &str| {
            let mut out = Vec::new();
            each_term_marked(text, &mut |t, s| out.push((t.to_string(), s)));
            out
        };
        let all = |text: &str| marked(text).into_iter().map(|(t, _)| t).collect::<Vec<_>>();
        let text = "Rates in `src/billing/tax.ts:42` and `src/db/` (see node.js, `cargo test`).";
        assert_eq!(all(text), terms(text));
        let structure: Vec<String> = marked(text)
            .into_iter()
            .filter(|(_, s)| *s)
            .map(|(t, _)| t)
            .collect();
        assert_eq!(structure, ["src", "bill", "ts", "src"]);
        // Outside backticks, and in an unclosed one, a path is text.
        assert!(marked("src/a.ts and `b/c.ts").iter().all(|(_, s)| !s));
    }

    #[test]
    fn cjk_text_is_searchable_by_bigrams() {
        let t = terms("令牌存储在数据库");
        assert!(t.contains(&"令牌".to_string()), "{t:?}");
        assert!(t.contains(&"存".to_string()));
        assert_eq!(phrase_words("令牌"), ["令", "牌"]);
    }
}
