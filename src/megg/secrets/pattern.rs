//! A regex of gitleaks' as the rules search it (SPEC §12): on a text folded to ASCII, by
//! `regex-lite` first and by `regex` once the work pays for building it, with shortcuts that
//! spare `regex-lite` most bytes ([`Pattern`]), and the [`Words`] those shortcuts look for.
//!
//! Go's regexp is RE2 over UTF-8, rune by rune, with ASCII `\w`, `\s` and `\b`. The rules read
//! a [`Folded`] text, each non-ASCII character one NUL byte: every class, literal and assertion
//! in them is ASCII and none names NUL, so a non-ASCII character and NUL match the same parts of
//! a rule, and on ASCII text a byte is a character — the two engines read it alike.
//!
//! Each regex is compiled by two engines, each when first needed: by `regex-lite` first (a
//! small NFA searched by a PikeVM: cheap to build, slow per byte), and by `regex` once it has
//! searched about what building that one costs, [`LITE_BUDGET`] (forward and reverse NFAs,
//! prefilters, a lazy DFA: costly to build, fast per byte). A process that scans a few short
//! texts — capture, `learn` — builds little, and one that scans much soon searches at
//! `regex`'s speed. [`Pattern`] spares the PikeVM most bytes: it searches gitleaks'
//! semi-generic rules without their lead, tries a regex only where the names its matches start
//! with are, and not at all in a text without what its matches hold. The engines, and the
//! regex as written, find the same matches and groups (`engines_tests.rs`).

use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use regex::bytes::{Regex, RegexBuilder};

use super::syntax::{
    alternation, group_end, names, needs, sets_flags, sets_flags_at_top, token_end, verbose,
};

/// Room for the rules whose compiled form is larger than `regex`'s default allows (the
/// longest alternations: `generic-api-key`, `pypi-upload-token`, `vault-batch-token`).
const SIZE_LIMIT: usize = 64 << 20;

/// How much a regex searches with `regex-lite` before `regex` compiles it, in bytes read
/// times the length of the regex (a PikeVM's cost per byte grows with it): about what
/// building `regex`'s engines costs, so that a process scanning much pays for them early and
/// one scanning a few short texts never does.
const LITE_BUDGET: usize = 500_000;

fn compile(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .ok()
}

fn compile_lite(pattern: &str) -> Option<regex_lite::Regex> {
    regex_lite::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .build()
        .ok()
}

/// A text as the rules read it: each non-ASCII character one NUL byte (the module says why).
pub(super) struct Folded<'a> {
    pub(super) text: &'a str,
    ascii: Cow<'a, str>,
    /// For a text that is not ASCII: where each byte of `ascii`, and its end, is in `text`.
    offsets: Vec<usize>,
}

impl<'a> Folded<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        if text.is_ascii() {
            return Self {
                text,
                ascii: Cow::Borrowed(text),
                offsets: Vec::new(),
            };
        }
        let mut ascii = String::with_capacity(text.len());
        let mut offsets = Vec::with_capacity(text.len() + 1);
        for (at, c) in text.char_indices() {
            ascii.push(if c.is_ascii() { c } else { '\0' });
            offsets.push(at);
        }
        offsets.push(text.len());
        Self {
            text,
            ascii: Cow::Owned(ascii),
            offsets,
        }
    }

    /// `range` of the folded text, in the text.
    pub(super) fn original(&self, range: Range<usize>) -> Range<usize> {
        if self.offsets.is_empty() {
            return range;
        }
        let at = |i: usize| self.offsets.get(i).copied().unwrap_or(self.text.len());
        at(range.start)..at(range.end)
    }
}

/// A match: the whole of it and each group, in the folded text.
pub(super) type Spans = Vec<Option<Range<usize>>>;

/// How gitleaks' semi-generic rules start — up to 50 word characters, dots or dashes before
/// the name of the key (`[\w.-]{0,50}?(?:adafruit)…`) — and the most it takes.
const LEAD: &str = r"(?i)[\w.-]{0,50}?";
const LEAD_MAX: usize = 50;

/// One regex in both engines, each compiled when first needed.
///
/// Three shortcuts keep `regex-lite` from reading every byte with all the regex's first states
/// alive. A rule that starts with [`LEAD`] is searched without it: in a PikeVM or a DFA its
/// 50 optional characters are 50 states live at each byte of a word, and a match is the same
/// once its start is moved back over them (the lead is lazy, so the leftmost match starts as
/// far back as they reach from the first place the rest matches). Where each match of the
/// rest (or, for an allowlist's yes-or-no, of some of its alternatives) starts with one of a
/// few names, `regex-lite` tries it, anchored, only where a name is. And what it still
/// searches as usual, it skips in a text without one of the texts its matches hold.
pub(super) struct Pattern {
    /// What `regex` compiles: the regex, or for a led one `(?i)` and the rest.
    full_source: Cow<'static, str>,
    /// What `regex-lite` compiles: `full_source`, or what it tries at the places of `names`.
    lite_source: Cow<'static, str>,
    /// Texts one of which each match of `lite_source` starts with (in any case); none: it is
    /// searched as usual.
    names: Words,
    /// Whether `full_source` is the regex without its [`LEAD`].
    led: bool,
    /// The alternatives without names, searched as usual beside `lite_source` (yes-or-no only).
    others: Option<String>,
    /// Texts one of which what `regex-lite` searches as usual (`others`, or `lite_source` when
    /// there are no names) holds in each match: without one in the text, it is not searched.
    needs: Words,
    /// `None`: `regex-lite` cannot compile it, `regex` does it all.
    lite: OnceLock<Option<Lite>>,
    full: OnceLock<Option<Regex>>,
    /// What `regex-lite` has searched, in bytes times the length of the regex (a PikeVM's cost).
    searched: AtomicUsize,
}

/// What `regex-lite` compiles of a [`Pattern`]: `lite_source`, and `others`.
struct Lite {
    main: regex_lite::Regex,
    others: Option<regex_lite::Regex>,
}

/// The bytes a search of `regex-lite` from a name reads, as [`Pattern::searched`] counts them.
const NAME_READ: usize = 4;

impl Pattern {
    /// A regex searched as written, without shortcuts.
    fn whole(regex: &'static str) -> Self {
        Self {
            full_source: Cow::Borrowed(regex),
            lite_source: Cow::Borrowed(regex),
            names: Words::default(),
            led: false,
            others: None,
            needs: Words::default(),
            lite: OnceLock::new(),
            full: OnceLock::new(),
            searched: AtomicUsize::new(0),
        }
    }

    /// A regex searched whole by `regex-lite` too, with what it [`needs`] unless it is anchored
    /// at the start (then a search stops soon anyway).
    fn usual(regex: &'static str) -> Self {
        if verbose(regex) {
            return Self::whole(regex);
        }
        let chars: Vec<char> = regex.chars().collect();
        let anchored = alternation(&chars).is_some_and(|alts| {
            alts.iter().all(|alt| {
                let flags = match alt.first() {
                    Some('(') if sets_flags(alt, 0) => group_end(alt, 0).map_or(0, |e| e + 1),
                    _ => 0,
                };
                alt.get(flags) == Some(&'^')
            })
        });
        let needs = if anchored { None } else { needs(&chars) };
        Self {
            needs: Words::new(&needs.unwrap_or_default()),
            ..Self::whole(regex)
        }
    }

    /// A rule's regex, whose matches are asked for.
    pub(super) fn rule(regex: &'static str) -> Self {
        let Some(rest) = regex.strip_prefix(LEAD).filter(|_| !verbose(regex)) else {
            return Self::usual(regex);
        };
        let chars: Vec<char> = rest.chars().collect();
        let single = alternation(&chars).is_some_and(|alts| alts.len() == 1);
        match names(&chars) {
            Some(names) if single => Self {
                full_source: Cow::Owned(format!("(?i){rest}")),
                lite_source: Cow::Owned(format!("(?i)^{rest}")),
                names: Words::new(&names),
                led: true,
                ..Self::whole(regex)
            },
            _ => Self::usual(regex),
        }
    }

    /// An allowlist's regex, asked only whether it matches: its alternatives whose matches
    /// start with names are tried where those are, the others searched as usual.
    pub(super) fn test(regex: &'static str) -> Self {
        if verbose(regex) {
            return Self::whole(regex);
        }
        let chars: Vec<char> = regex.chars().collect();
        let flags = match chars.first() {
            Some('(') if sets_flags(&chars, 0) => group_end(&chars, 0).map_or(0, |end| end + 1),
            _ => 0,
        };
        let (Some(prefix), Some(mut body)) = (chars.get(..flags), chars.get(flags..)) else {
            return Self::usual(regex);
        };
        if let Some(['(', '?', ':', inner @ .., ')']) = Some(body)
            && group_end(body, 0) == Some(body.len() - 1)
        {
            body = inner;
        }
        let Some(alts) = alternation(body) else {
            return Self::usual(regex);
        };
        let mut named: Vec<String> = Vec::new();
        let mut all_names: Vec<String> = Vec::new();
        let mut others: Vec<String> = Vec::new();
        let mut others_need: Option<Vec<String>> = Some(Vec::new());
        for alt in alts {
            if sets_flags_at_top(alt) {
                return Self::usual(regex);
            }
            // A match at all is one that starts after a leading `x*`: try from there.
            let from = token_end(alt, 0)
                .filter(|&end| alt.get(end) == Some(&'*'))
                .map_or(0, |end| {
                    end + 1 + usize::from(alt.get(end + 1) == Some(&'?'))
                });
            let text: String = alt.iter().collect();
            match alt.get(from..).and_then(names) {
                Some(names) => {
                    all_names.extend(names);
                    named.push(text);
                }
                None => {
                    others_need = others_need.zip(needs(alt)).map(|(mut all, more)| {
                        all.extend(more);
                        all
                    });
                    others.push(text);
                }
            }
        }
        if named.is_empty() {
            return Self::usual(regex);
        }
        let prefix: String = prefix.iter().collect();
        Self {
            lite_source: Cow::Owned(format!("{prefix}^(?:{})", named.join("|"))),
            names: Words::new(&all_names),
            others: (!others.is_empty()).then(|| format!("{prefix}(?:{})", others.join("|"))),
            needs: Words::new(&others_need.unwrap_or_default()),
            ..Self::whole(regex)
        }
    }

    fn lite(&self) -> Option<&Lite> {
        self.lite
            .get_or_init(|| {
                let others = match &self.others {
                    Some(others) => Some(compile_lite(others)?),
                    None => None,
                };
                Some(Lite {
                    main: compile_lite(&self.lite_source)?,
                    others,
                })
            })
            .as_ref()
    }

    fn full(&self) -> Option<&Regex> {
        self.full
            .get_or_init(|| compile(&self.full_source))
            .as_ref()
    }

    /// Whether either engine compiles it.
    pub(super) fn compiles(&self) -> bool {
        self.lite().is_some() || self.full().is_some()
    }

    /// The engine for a search that costs `regex-lite` `work` (see [`Pattern::searched`]):
    /// `regex` once built, or once `regex-lite` would pass its budget; `regex-lite` while it
    /// stays within it, or when `regex` fails.
    fn engine(&self, work: usize) -> Engine<'_> {
        if let Some(Some(full)) = self.full.get() {
            return Engine::Full(full);
        }
        if let Some(lite) = self.lite() {
            let before = self.searched.fetch_add(work, Ordering::Relaxed);
            if before.saturating_add(work) <= LITE_BUDGET {
                return Engine::Lite(lite);
            }
        }
        match (self.full(), self.lite()) {
            (Some(full), _) => Engine::Full(full),
            (None, Some(lite)) => Engine::Lite(lite),
            (None, None) => Engine::None,
        }
    }

    /// What `regex-lite` does in `text`.
    fn plan(&self, text: &Folded<'_>) -> Plan {
        let bytes = text.ascii.as_bytes();
        let places = if self.names.is_empty() {
            Vec::new()
        } else {
            self.names.places(bytes)
        };
        let usual = if self.names.is_empty() {
            Some(&*self.lite_source)
        } else {
            self.others.as_deref()
        };
        let searched = usual.filter(|_| self.needs.is_empty() || self.needs.any_in(bytes));
        let work = places
            .len()
            .saturating_mul(NAME_READ)
            .saturating_mul(self.lite_source.len())
            .saturating_add(searched.map_or(0, |u| bytes.len().saturating_mul(u.len())));
        Plan {
            places,
            usual: searched.is_some(),
            work,
        }
    }

    /// The engine for `text`, and what `regex-lite` would do in it (nothing once `regex` is
    /// built).
    fn choose(&self, text: &Folded<'_>) -> (Engine<'_>, Plan) {
        if let Some(Some(full)) = self.full.get() {
            return (Engine::Full(full), Plan::default());
        }
        let plan = self.plan(text);
        (self.engine(plan.work), plan)
    }

    /// Every match in `text`, leftmost first, as the regex finds them (in the folded text).
    pub(super) fn captures(&self, text: &Folded<'_>) -> Vec<Spans> {
        let (engine, plan) = self.choose(text);
        self.captures_by(engine, &plan, text)
    }

    fn captures_by(&self, engine: Engine<'_>, plan: &Plan, text: &Folded<'_>) -> Vec<Spans> {
        if self.led {
            return captures_led(engine, &text.ascii, &plan.places);
        }
        match engine {
            Engine::Lite(lite) if plan.usual => lite
                .main
                .captures_iter(&text.ascii)
                .map(|c| lite_spans(&c))
                .collect(),
            Engine::Full(re) => re
                .captures_iter(text.ascii.as_bytes())
                .map(|c| full_spans(&c))
                .collect(),
            Engine::Lite(_) | Engine::None => Vec::new(),
        }
    }

    /// Whether it matches somewhere in `text`.
    pub(super) fn is_match(&self, text: &Folded<'_>) -> bool {
        let (engine, plan) = self.choose(text);
        self.is_match_by(engine, &plan, text)
    }

    fn is_match_by(&self, engine: Engine<'_>, plan: &Plan, text: &Folded<'_>) -> bool {
        let ascii = &*text.ascii;
        match engine {
            Engine::Full(re) => re.is_match(ascii.as_bytes()),
            Engine::Lite(lite) if self.names.is_empty() => plan.usual && lite.main.is_match(ascii),
            Engine::Lite(lite) => {
                (plan.usual && lite.others.as_ref().is_some_and(|re| re.is_match(ascii)))
                    || plan
                        .places
                        .iter()
                        .any(|&p| ascii.get(p..).is_some_and(|rest| lite.main.is_match(rest)))
            }
            Engine::None => false,
        }
    }
}

/// What `regex-lite` does in a text: where it tries from (the places of names), whether its
/// usual search (of the alternatives without names, or of all when there are no names) may
/// find anything, and what that costs it (see [`Pattern::searched`]).
#[derive(Default)]
struct Plan {
    places: Vec<usize>,
    usual: bool,
    work: usize,
}

/// The matches of a led regex in `text`: `regex` searches for the rest; `regex-lite` tries
/// the anchored rest at each of `places`.
fn captures_led(engine: Engine<'_>, text: &str, places: &[usize]) -> Vec<Spans> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut places = places.iter().copied();
    loop {
        let found = match engine {
            Engine::Full(re) => re.captures_at(text.as_bytes(), at).map(|c| full_spans(&c)),
            Engine::Lite(lite) => places.by_ref().filter(|&p| p >= at).find_map(|p| {
                let mut spans = lite_spans(&lite.main.captures(text.get(p..)?)?);
                for span in spans.iter_mut().flatten() {
                    *span = span.start + p..span.end + p;
                }
                Some(spans)
            }),
            Engine::None => None,
        };
        let Some(mut spans) = found else {
            return out;
        };
        let Some(Some(rest)) = spans.first_mut() else {
            return out;
        };
        let end = rest.end.max(rest.start + 1);
        rest.start = lead_start(text.as_bytes(), at, rest.start);
        out.push(spans);
        at = end;
    }
}

/// Where a match whose rest starts at `rest` starts: back over up to [`LEAD_MAX`] word
/// characters, dots and dashes, not before `from`.
fn lead_start(text: &[u8], from: usize, rest: usize) -> usize {
    let floor = from.max(rest.saturating_sub(LEAD_MAX));
    let mut start = rest;
    while start > floor
        && text
            .get(start - 1)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    {
        start -= 1;
    }
    start
}

#[derive(Clone, Copy)]
enum Engine<'a> {
    Lite(&'a Lite),
    Full(&'a Regex),
    None,
}

fn lite_spans(c: &regex_lite::Captures<'_>) -> Spans {
    c.iter().map(|m| m.map(|m| m.range())).collect()
}

fn full_spans(c: &regex::bytes::Captures<'_>) -> Spans {
    c.iter().map(|m| m.map(|m| m.range())).collect()
}

/// Words, by their first byte: where they start in a text, in any case.
#[derive(Default)]
pub(super) struct Words {
    /// Lower-case and sorted: those that start with byte `b` are `words[from[b]..from[b + 1]]`.
    words: Vec<Vec<u8>>,
    from: Vec<usize>,
}

impl Words {
    /// Whether a word starts with `byte` (lower-case).
    fn first(&self, byte: u8) -> bool {
        let b = usize::from(byte);
        self.from.get(b) < self.from.get(b + 1)
    }
}

impl Words {
    pub(super) fn new<S: AsRef<str>>(words: &[S]) -> Self {
        let mut words: Vec<Vec<u8>> = words
            .iter()
            .map(|w| w.as_ref().as_bytes().to_ascii_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        words.sort();
        // A word that another starts with is found where that one is.
        words.dedup_by(|longer, shorter| longer.starts_with(shorter));
        let mut from = Vec::with_capacity(257);
        let mut k = 0;
        for b in 0..=256 {
            while words
                .get(k)
                .and_then(|w| w.first())
                .is_some_and(|&first| usize::from(first) < b)
            {
                k += 1;
            }
            from.push(k);
        }
        Self { words, from }
    }

    fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether one of the words starts at `at` of `text`.
    fn starts_at(&self, text: &[u8], at: usize) -> bool {
        let Some(rest) = text.get(at..) else {
            return false;
        };
        let Some(lower) = rest.first().map(u8::to_ascii_lowercase) else {
            return false;
        };
        if !self.first(lower) {
            return false;
        }
        let first = usize::from(lower);
        let (Some(&from), Some(&to)) = (self.from.get(first), self.from.get(first + 1)) else {
            return false;
        };
        let same_first = self.words.get(from..to).unwrap_or_default();
        // A one-byte word is alone with its first byte (no other starts with it).
        if same_first.first().is_some_and(|w| w.len() == 1) {
            return true;
        }
        // The words are sorted: those with the text's second byte are side by side.
        let second = rest.get(1).map(u8::to_ascii_lowercase);
        let lo = same_first.partition_point(|w| w.get(1).copied() < second);
        let hi = same_first.partition_point(|w| w.get(1).copied() <= second);
        same_first.get(lo..hi).unwrap_or_default().iter().any(|w| {
            rest.get(..w.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(w))
        })
    }

    /// Where one of the words starts in `text`, in order.
    fn places(&self, text: &[u8]) -> Vec<usize> {
        (0..text.len())
            .filter(|&at| self.starts_at(text, at))
            .collect()
    }

    /// Whether `text` holds one of the words.
    pub(super) fn any_in(&self, text: &[u8]) -> bool {
        (0..text.len()).any(|at| self.starts_at(text, at))
    }
}

#[cfg(test)]
#[path = "engines_tests.rs"]
mod engines_tests;
