//! The two engines agree (pattern.rs): for every rule of the generated table and every regex of
//! its allowlists, what `regex` finds with the regex as gitleaks wrote it, on the text as the
//! rules read it, is what each engine finds as [`Pattern`] runs it (without the lead, from the
//! places of names, skipping a text without what a match needs) — the same matches and groups,
//! the same yes or no — and what `regex-lite` finds on the text itself, character by character
//! as Go reads it (so the folding of non-ASCII characters is faithful). On gitleaks' samples
//! and the corpus's paragraphs (`../shared/`, read where they are) and on generated text.

// Test data beside the project is read with std::fs; a skip is said on stderr.
#![allow(clippy::disallowed_methods, clippy::print_stderr)]

use super::super::rule::{Rule, lines_around};
use super::*;

use std::sync::LazyLock;

use proptest::prelude::*;

/// A regex in each of the ways compared.
struct Ways {
    source: &'static str,
    pattern: Pattern,
    /// `regex` on the regex as written, reading the folded text.
    written: Regex,
    /// `regex-lite` on the regex as written, reading the text itself.
    by_character: regex_lite::Regex,
}

impl Ways {
    fn new(source: &'static str, pattern: Pattern) -> Self {
        Self {
            source,
            pattern,
            written: compile(source).unwrap(),
            by_character: compile_lite(source).unwrap(),
        }
    }
}

struct Checked {
    rule: &'static Rule,
    regex: Ways,
    allowlists: Vec<Ways>,
}

static CHECKED: LazyLock<Vec<Checked>> = LazyLock::new(|| {
    super::super::gitleaks::RULES
        .iter()
        .map(|rule| Checked {
            rule,
            regex: Ways::new(rule.regex, Pattern::rule(rule.regex)),
            allowlists: rule
                .allowlists
                .iter()
                .flat_map(|a| a.regexes.iter())
                .map(|r| Ways::new(r, Pattern::test(r)))
                .collect(),
        })
        .collect()
});

static GLOBAL: LazyLock<Vec<Ways>> = LazyLock::new(|| {
    super::super::gitleaks::GLOBAL
        .regexes
        .iter()
        .map(|r| Ways::new(r, Pattern::test(r)))
        .collect()
});

/// `spans` of the folded text, in `text`.
fn back(text: &Folded<'_>, spans: Vec<Spans>) -> Vec<Spans> {
    spans
        .into_iter()
        .map(|s| s.into_iter().map(|r| r.map(|r| text.original(r))).collect())
        .collect()
}

/// What each way finds of `ways`' regex in `text`, or what first differs.
fn matches_agree(ways: &Ways, text: &str) -> Result<Vec<Spans>, String> {
    let folded = Folded::new(text);
    let p = &ways.pattern;
    let plan = p.plan(&folded);
    let written = back(
        &folded,
        ways.written
            .captures_iter(folded.ascii.as_bytes())
            .map(|c| full_spans(&c))
            .collect(),
    );
    let by_character: Vec<Spans> = ways
        .by_character
        .captures_iter(text)
        .map(|c| lite_spans(&c))
        .collect();
    let lite = back(
        &folded,
        p.captures_by(Engine::Lite(p.lite().unwrap()), &plan, &folded),
    );
    let full = back(
        &folded,
        p.captures_by(Engine::Full(p.full().unwrap()), &plan, &folded),
    );
    for (way, found) in [
        ("regex-lite", &lite),
        ("regex", &full),
        ("by character", &by_character),
    ] {
        if *found != written {
            return Err(format!(
                "{:?} on {text:?}: as written {written:?}, {way} {found:?}",
                ways.source
            ));
        }
    }
    Ok(written)
}

/// Whether each way finds `ways`' regex in `text` alike, or what differs.
fn tests_agree(ways: &Ways, text: &str) -> Result<(), String> {
    let folded = Folded::new(text);
    let p = &ways.pattern;
    let plan = p.plan(&folded);
    let written = ways.written.is_match(folded.ascii.as_bytes());
    let found = [
        (
            "regex-lite",
            p.is_match_by(Engine::Lite(p.lite().unwrap()), &plan, &folded),
        ),
        (
            "regex",
            p.is_match_by(Engine::Full(p.full().unwrap()), &plan, &folded),
        ),
        ("by character", ways.by_character.is_match(text)),
    ];
    match found.iter().find(|(_, yes)| *yes != written) {
        Some((way, yes)) => Err(format!(
            "{:?} on {text:?}: as written {written}, {way} {yes}",
            ways.source
        )),
        None => Ok(()),
    }
}

/// Every rule whose keyword `text` holds (the rules a scan runs on it), and each match's
/// secret, match and line tried on its allowlists' regexes and the global ones.
fn agree(text: &str, only: Option<&str>) -> Result<usize, String> {
    let lower = text.to_ascii_lowercase();
    let mut compared = 0;
    for c in CHECKED.iter() {
        let runs = c.rule.keywords.iter().any(|k| lower.contains(k));
        if !runs && only != Some(c.rule.id) {
            continue;
        }
        compared += 1;
        let found = matches_agree(&c.regex, text)?;
        let mut targets = vec![text.to_string()];
        for spans in found {
            for span in spans.into_iter().flatten() {
                targets.push(text.get(span.clone()).unwrap_or_default().to_string());
                targets.push(lines_around(text, span).to_string());
            }
        }
        for ways in c.allowlists.iter().chain(GLOBAL.iter()) {
            for t in &targets {
                tests_agree(ways, t)?;
            }
        }
    }
    Ok(compared)
}

/// gitleaks' samples: (rule, text) of every true positive, shape and false positive.
fn samples() -> Option<Vec<(String, String)>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/secrets/gitleaks-samples.json"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("skipped: SPEC §12's samples are not at {path}");
        return None;
    };
    let d: serde_json::Value = serde_json::from_str(&text).unwrap();
    Some(
        ["tps", "shapes", "fps"]
            .iter()
            .flat_map(|k| d[*k].as_array().unwrap().iter())
            .map(|t| {
                (
                    t["rule"].as_str().unwrap().to_string(),
                    t["text"].as_str().unwrap().to_string(),
                )
            })
            .collect(),
    )
}

/// The paragraphs of the corpus of files people wrote.
fn paragraphs() -> Option<Vec<String>> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !dir.is_dir() {
        eprintln!("skipped: the corpus is not at {}", dir.display());
        return None;
    }
    let mut files = Vec::new();
    walk(&dir, &mut files);
    files.sort();
    Some(
        files
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .flat_map(|t| {
                t.split("\n\n")
                    .filter(|p| !p.trim().is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect(),
    )
}

#[test]
fn every_regex_compiles_in_both_engines() {
    let mut lite_cannot = Vec::new();
    let global = GLOBAL.iter();
    for ways in CHECKED
        .iter()
        .flat_map(|c| std::iter::once(&c.regex).chain(&c.allowlists))
        .chain(global)
    {
        {
            let p = &ways.pattern;
            assert!(p.full().is_some(), "regex: {}", ways.source);
            if p.lite().is_none() {
                lite_cannot.push(ways.source);
            }
        }
    }
    // Any would fall back to `regex`; none does today.
    assert!(lite_cannot.is_empty(), "{lite_cannot:?}");
}

#[test]
fn the_lead_is_taken_off_every_semi_generic_rule_but_one() {
    let led: Vec<&str> = CHECKED
        .iter()
        .filter(|c| c.regex.pattern.led)
        .map(|c| c.rule.id)
        .collect();
    let leading: Vec<&str> = CHECKED
        .iter()
        .filter(|c| c.rule.regex.starts_with(LEAD) && !c.regex.pattern.led)
        .map(|c| c.rule.id)
        .collect();
    // atlassian-api-token's regex has a second alternative without the lead.
    assert_eq!(leading, ["atlassian-api-token"]);
    assert!(led.len() >= 90, "{}", led.len());
    assert!(led.contains(&"generic-api-key"));
}

#[test]
fn the_engines_agree_on_gitleaks_samples() {
    let Some(samples) = samples() else { return };
    let mut compared = 0;
    for (rule, text) in &samples {
        compared += agree(text, Some(rule)).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(compared > samples.len(), "{compared}");
}

#[test]
fn the_engines_agree_on_the_corpus() {
    let Some(paragraphs) = paragraphs() else {
        return;
    };
    let mut compared = 0;
    for p in &paragraphs {
        compared += agree(p, None).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(paragraphs.len() > 10_000 && compared > 1_000, "{compared}");
    assert!(paragraphs.iter().any(|p| !p.is_ascii()));
}

/// Text made of what the rules look for: keywords, pieces of gitleaks' samples, assignment
/// signs, quotes, line breaks, runs of letters and digits, and characters beyond ASCII.
fn text() -> impl Strategy<Value = String> {
    static PIECES: LazyLock<Vec<String>> = LazyLock::new(|| {
        let mut pieces: Vec<String> = super::super::gitleaks::RULES
            .iter()
            .flat_map(|r| r.keywords.iter().map(|k| (*k).to_string()))
            .collect();
        if let Some(samples) = samples() {
            pieces.extend(samples.into_iter().map(|(_, t)| t));
        }
        pieces
    });
    let piece = prop_oneof![
        3 => (0..PIECES.len(), any::<prop::sample::Index>(), 0usize..80).prop_map(|(i, at, len)| {
            let p: Vec<char> = PIECES.get(i).map(|p| p.chars().collect()).unwrap_or_default();
            let from = at.index(p.len().max(1));
            p.get(from..(from + len).min(p.len())).unwrap_or_default().iter().collect()
        }),
        2 => prop::sample::select(vec![
            "=", " = ", ": ", "\"", "'", "`", "\n", "\r\n", "\t", "-", "_", ".", "/", ",", "@",
            "é", "日本", "—", "\u{301}", "ß", "K", "．", "\0", "KEY", "token", "api_", "Bearer ",
        ])
        .prop_map(str::to_string),
        2 => "[A-Za-z0-9+/_=.-]{0,48}",
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_engines_agree_on_any_text(text in text()) {
        if let Err(e) = agree(&text, None) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// What the generated text found when the lead was cut one character short, and when a
/// non-ASCII character was folded to a letter.
#[test]
fn the_engines_agree_where_a_broken_shortcut_did_not() {
    for text in [
        "oken: j-cj9ess9r031W7KCxOxP-1Fy5EyF2lbJGE2WuKmu5v0suYqoHKEYconfig.ini\": \"DROPBOX_TO",
        "KEY\u{e9}",
    ] {
        assert!(
            agree(text, None).unwrap_or_else(|e| panic!("{e}")) > 0,
            "{text}"
        );
    }
}

#[test]
fn a_few_short_texts_build_no_regex_and_a_long_scan_does() {
    let Some(c) = CHECKED.iter().find(|c| c.rule.id == "generic-api-key") else {
        panic!("no generic-api-key")
    };
    // A fresh copy: the shared one may have been searched by another test.
    let pattern = Pattern::rule(c.rule.regex);
    let short = Folded::new("the deploy token = 'Zq8vN3xR7tLm2KpW9sYb' for staging");
    let first = pattern.captures(&short);
    assert_eq!(first.len(), 1);
    assert!(
        pattern.full.get().is_none(),
        "regex built for one short text"
    );
    let long = "db_password = \"h7Gk2Lq9Xv4Rn8Tz\"\n".repeat(2_000);
    let folded = Folded::new(&long);
    let all = pattern.captures(&folded);
    assert!(
        matches!(pattern.full.get(), Some(Some(_))),
        "regex not built"
    );
    assert_eq!(all.len(), 2_000);
    assert_eq!(pattern.captures(&short), first);
}

#[test]
fn names_spell_how_each_match_starts() {
    let chars = |s: &str| s.chars().collect::<Vec<_>>();
    let generic = chars(
        "(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)\\s",
    );
    let spelt = names(&generic).unwrap();
    for name in ["access", "api", "passwd", "password", "secret", "token"] {
        assert!(spelt.iter().any(|n| n == name), "{name} not in {spelt:?}");
    }
    // A class, repetition or escape cuts a name short; a match that may start with anything
    // has none.
    assert_eq!(names(&chars("ab[0-9]c")).unwrap(), ["ab"]);
    assert_eq!(
        names(&chars("(?:MailchimpSDK.initialize|mailchimp)")).unwrap(),
        ["mailchimpsdk", "mailchimp"]
    );
    assert_eq!(names(&chars("ab?")).unwrap(), ["ab", "a"]);
    assert!(names(&chars("\\bkey")).is_none());
    assert!(names(&chars("x*key")).is_none());
    assert!(names(&chars("(?:key|\\w+)")).is_none());
}

#[test]
fn needs_finds_what_every_match_holds() {
    let needs = |s: &str| needs(&s.chars().collect::<Vec<_>>());
    assert_eq!(needs("[A-Z_]+=\\n[A-Z_]+=").unwrap(), ["=\n"]);
    // `\x60` is one character, not `x60`.
    assert_eq!(needs("\\x60abc").unwrap(), ["abc"]);
    assert_eq!(needs("\\bcurl\\b(?:.*)").unwrap(), ["curl"]);
    assert_eq!(needs("ab|cd").unwrap(), ["ab", "cd"]);
    assert_eq!(needs("x?yz").unwrap(), ["yz"]);
    assert_eq!(needs("(?:ab|cde)+z").unwrap(), ["ab", "cde"]);
    assert!(needs("ab|[0-9]+").is_none());
    assert!(needs("(?:ab)?").is_none());
}

#[test]
fn tokens_are_read_whole() {
    let chars = |s: &str| s.chars().collect::<Vec<_>>();
    assert_eq!(token_end(&chars("\\x60a"), 0), Some(4));
    assert_eq!(token_end(&chars("\\x{2014}a"), 0), Some(8));
    assert_eq!(token_end(&chars("\\pLa"), 0), Some(3));
    assert_eq!(token_end(&chars("[^]]a"), 0), Some(4));
    assert_eq!(token_end(&chars("[[:alpha:]x]a"), 0), Some(12));
    assert_eq!(token_end(&chars("(a(b)[)])c"), 0), Some(9));
    assert_eq!(alternation(&chars("a|(b|c)|[|]")).unwrap().len(), 3);
    assert!(verbose("(?x) a b") && verbose("(?ix:a)") && !verbose("(?i)ax"));
}

#[test]
fn words_are_found_in_any_case() {
    let words = Words::new(&["abc", "ab", "x", "zq"]);
    assert_eq!(words.places(b"xABcz zQ"), [0, 1, 6]);
    assert!(words.any_in(b"--Ab--") && !words.any_in(b"a-b z"));
    assert!(Words::default().places(b"abc").is_empty());
}
