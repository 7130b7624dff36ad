//! `megg search` (SPEC §13.3): BM25 over fields — title over topics over body — exact and
//! deterministic (the same files and query give the same bytes), ties newer first; quoted
//! phrases must occur as phrases; filters by kind, type, topic and date; a snippet of the
//! best-matching lines; and, for no match, the nearest topics.

use std::collections::{BTreeMap, HashSet};

use super::doc::{Doc, Kind};
use super::postings::Postings;
use super::text::{each_term, is_stopword, phrase_words, terms};
use crate::megg::knowledge;

/// BM25's term-frequency saturation and length normalization.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Longest query kept, in characters; a longer one is cut with a warning.
pub const MAX_QUERY_CHARS: usize = 1_000;
/// Longest snippet, in characters.
pub const MAX_SNIPPET_CHARS: usize = 240;

/// What to look for and where.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub text: String,
    /// Empty: every kind.
    pub kinds: Vec<Kind>,
    pub entry_type: Option<String>,
    pub topic: Option<String>,
    /// `YYYY-MM-DD`: documents dated on or after it.
    pub since: Option<String>,
    pub limit: usize,
}

/// One ranked document.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'c> {
    pub doc: &'c Doc,
    pub score: f64,
    pub snippet: String,
}

/// The ranked documents, how many matched, and the nearest topics when none did.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<'c> {
    pub hits: Vec<Hit<'c>>,
    pub total: usize,
    pub suggestions: Vec<String>,
}

/// The terms a query ranks by (what a result's words are matched against to highlight them).
pub fn query_terms(text: &str) -> Vec<String> {
    Terms::parse(text).words
}

/// What a query ranks by and requires: its words and its phrases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    /// Each once, in the query's order; stopwords left out unless there is nothing else.
    words: Vec<String>,
    /// Each must occur in a document, word after word.
    phrases: Vec<Vec<String>>,
}

impl Terms {
    /// A query as someone typed it: its plain words and its `"quoted phrases"`.
    pub fn parse(text: &str) -> Self {
        let mut plain = String::new();
        let mut phrases = Vec::new();
        for (i, part) in text.split('"').enumerate() {
            if i % 2 == 1 {
                let words = phrase_words(part);
                if !words.is_empty() {
                    phrases.push(words);
                }
                plain.push(' ');
            }
            plain.push_str(part);
            plain.push(' ');
        }
        Self {
            words: words(&plain),
            phrases,
        }
    }

    /// Text megg turns into a query itself (a handoff, a branch, a plan title): its words,
    /// whatever it holds — a `"` there is a character, never a phrase (SPEC §16).
    pub fn literal(text: &str) -> Self {
        Self {
            words: words(text),
            phrases: Vec::new(),
        }
    }
}

/// The terms of `text`, each once. The words an agent's question is built of ("how do we
/// store tokens?") match every document and rank none: left out, unless the text is nothing
/// else.
fn words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let all: Vec<String> = terms(text)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect();
    // SPEC §17: in a path (`src/billing/tax.ts`), the directory and extension words match every
    // entry that cites code: they weigh like stopwords, and the file's own name decides.
    let noise = path_noise(text);
    let quiet = |t: &String| is_stopword(t) || noise.contains(t);
    if all.iter().all(quiet) {
        return all;
    }
    all.into_iter().filter(|t| !quiet(t)).collect()
}

/// The terms of the directories and extensions of the paths `text` holds (a word with a `/`,
/// or a file name with an extension), but those the rest of the text also has.
fn path_noise(text: &str) -> HashSet<String> {
    let mut noise = HashSet::new();
    let mut kept = HashSet::new();
    for token in text.split_whitespace() {
        let token =
            token.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | ',' | ';' | '(' | ')'));
        let (dirs, file) = token.rsplit_once('/').unwrap_or(("", token));
        let ext = file.rsplit_once('.').filter(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.starts_with(|c: char| c.is_ascii_alphabetic())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
        if dirs.is_empty() && ext.is_none() {
            kept.extend(terms(token));
            continue;
        }
        noise.extend(terms(&dirs.replace('/', " ")));
        match ext {
            Some((stem, ext)) => {
                noise.extend(terms(ext));
                kept.extend(terms(stem));
            }
            None => kept.extend(terms(file)),
        }
    }
    noise.retain(|t| !kept.contains(t));
    noise
}

fn contains_phrase(words: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && words.windows(phrase.len()).any(|w| w == phrase)
}

/// Whether `doc` passes the query's filters.
fn passes(doc: &Doc, q: &Query) -> bool {
    (q.kinds.is_empty() || q.kinds.contains(&doc.kind))
        && q.entry_type.as_deref().is_none_or(|t| {
            doc.entry_type
                .as_deref()
                .is_some_and(|k| k.eq_ignore_ascii_case(t))
        })
        && q.topic.as_deref().is_none_or(|t| {
            doc.topics
                .iter()
                .any(|topic| knowledge::topic_matches(topic, t))
        })
        && q.since.as_deref().is_none_or(|since| {
            doc.date
                .as_deref()
                .is_some_and(|d| d.get(..10).unwrap_or(d) >= since)
        })
}

/// Ranks `docs` (indexed by `postings`, built from them) for `q`: every document that holds a
/// query word (and every phrase), best first; equal scores newer first, then by id. Postings
/// built from titles and topics only rank by those and give no snippets.
pub fn search<'c>(docs: &'c [Doc], postings: &Postings, q: &Query) -> Found<'c> {
    search_for(docs, postings, q, &Terms::parse(&q.text))
}

/// [`search`] for `terms` rather than the query's own text ([`Terms::literal`]: a query megg
/// built itself); `q.text` only finds the nearest topics when nothing matches.
pub fn search_for<'c>(docs: &'c [Doc], postings: &Postings, q: &Query, terms: &Terms) -> Found<'c> {
    let mut found = ranked(docs, postings, q, terms);
    if !postings.titles_only() {
        for h in &mut found.hits {
            h.snippet = snippet(h.doc, &terms.words);
        }
    }
    if found.total == 0 {
        found.suggestions = nearest_topics(docs, &q.text);
    }
    found
}

/// [`search_for`] without the snippets and the nearest topics: the ranked documents only (what
/// the session-start index takes, once per thing the session is about).
pub fn ranked<'c>(docs: &'c [Doc], postings: &Postings, q: &Query, terms: &Terms) -> Found<'c> {
    let Terms { words, phrases } = terms;
    let candidate: Vec<bool> = docs.iter().map(|d| passes(d, q)).collect();
    let lens = |i: usize| f64::from(postings.len_of(i));
    let n = candidate.iter().filter(|&&c| c).count().max(1) as f64;
    let total_len: f64 = candidate
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c)
        .map(|(i, _)| lens(i))
        .sum();
    let avg = (total_len / n).max(1.0);
    // Each document's score, summed word by word in the query's order.
    let mut scores: Vec<f64> = vec![0.0; docs.len()];
    for w in words {
        let list: Vec<(usize, u32)> = postings
            .list(w)
            .into_iter()
            .filter(|&(i, _)| candidate.get(i) == Some(&true))
            .collect();
        let df = list.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for (i, tf) in list {
            let tf = f64::from(tf);
            if let Some(score) = scores.get_mut(i) {
                *score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * lens(i) / avg));
            }
        }
    }
    let mut hits: Vec<Hit<'c>> = Vec::new();
    for ((doc, &passed), &score) in docs.iter().zip(&candidate).zip(&scores) {
        if !passed {
            continue;
        }
        if !phrases.is_empty() {
            let mut text = format!("{}\n{}", doc.title, doc.topics.join(" "));
            if !postings.titles_only() {
                for piece in doc.body() {
                    text.push('\n');
                    text.push_str(piece);
                }
            }
            let words = phrase_words(&text);
            if !phrases.iter().all(|p| contains_phrase(&words, p)) {
                continue;
            }
        }
        if score <= 0.0 && phrases.is_empty() {
            continue;
        }
        hits.push(Hit {
            doc,
            // Rounded so that the order never depends on the last bits of a float sum.
            score: (score * 1e6).round() / 1e6,
            snippet: String::new(),
        });
    }
    let order = |a: &Hit<'_>, b: &Hit<'_>| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.doc.date.cmp(&a.doc.date))
            .then_with(|| a.doc.id.cmp(&b.doc.id))
    };
    let total = hits.len();
    let limit = q.limit.max(1);
    // Only the first `limit` are shown: picked from the others before they are sorted, not all
    // sorted (a common word matches most documents). Ids are unique (`ids::assign`), so no two
    // hits are equal in this order: those picked are the ones a full sort would put first.
    if total > limit {
        hits.select_nth_unstable_by(limit - 1, order);
        hits.truncate(limit);
    }
    hits.sort_by(order);
    successors_first(&mut hits);
    Found {
        hits,
        total,
        suggestions: Vec::new(),
    }
}

/// SPEC §17: a superseded entry ranks after its successor when both are found — the entry that
/// replaced it is the one to read first, whatever their scores.
fn successors_first(hits: &mut Vec<Hit<'_>>) {
    fn successor_of<'h>(h: &'h Hit<'_>) -> Option<&'h str> {
        crate::megg::knowledge::superseded_by(&h.doc.text)
    }
    let mut i = 0;
    // Each move puts a hit after one further down: at most one move per hit and position.
    let mut moves = hits.len() * hits.len();
    while i < hits.len() && moves > 0 {
        let later = hits.get(i).and_then(successor_of).and_then(|next| {
            hits.iter().enumerate().skip(i + 1).find_map(|(j, s)| {
                crate::megg::knowledge::supersede::names(next, s.doc.date.as_deref(), &s.doc.title)
                    .then_some(j)
            })
        });
        match later {
            Some(j) => {
                let h = hits.remove(i);
                hits.insert(j, h);
                moves -= 1;
            }
            None => i += 1,
        }
    }
}

/// The best-matching lines of a document (the ones holding the most query words, then the
/// ones after them), within [`MAX_SNIPPET_CHARS`].
fn snippet(doc: &Doc, words: &[String]) -> String {
    let lines: Vec<&str> = doc
        .body()
        .flat_map(str::lines)
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "---")
        .collect();
    let best = lines
        .iter()
        .enumerate()
        .max_by_key(|(i, l)| {
            // Counted as they come, none kept: a query has a few words.
            let mut hits = 0;
            each_term(l, &mut |t| {
                hits += usize::from(words.iter().any(|w| w == t))
            });
            (hits, std::cmp::Reverse(*i))
        })
        .map_or(0, |(i, _)| i);
    let mut out = String::new();
    for l in lines.iter().skip(best) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(l);
        if out.chars().count() >= MAX_SNIPPET_CHARS {
            break;
        }
    }
    if out.chars().count() > MAX_SNIPPET_CHARS {
        out = out.chars().take(MAX_SNIPPET_CHARS - 1).collect::<String>() + "…";
    }
    out
}

/// Up to five topics nearest the query's words (by edit distance relative to length), for a
/// search that found nothing: the topics of knowledge and archive entries — a handoff's
/// "topic" is its branch, which no `--topic` finds an entry by.
fn nearest_topics(docs: &[Doc], query: &str) -> Vec<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for d in docs
        .iter()
        .filter(|d| matches!(d.kind, Kind::Knowledge | Kind::Archive))
    {
        for t in &d.topics {
            *counts.entry(t.to_lowercase()).or_default() += 1;
        }
    }
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut scored: Vec<(f64, usize, String)> = counts
        .into_iter()
        .map(|(topic, n)| {
            let best = words
                .iter()
                .map(|w| {
                    let d = levenshtein(w, &topic) as f64;
                    d / w.chars().count().max(topic.chars().count()) as f64
                })
                .fold(1.0, f64::min);
            (best, n, topic)
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    scored.into_iter().take(5).map(|(_, _, t)| t).collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // The distances from `a`'s first characters to each prefix of `b`, one row at a time.
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(prev.len());
        let mut left = i + 1;
        cur.push(left);
        // `prev` holds one more than `b`: each character of `b` meets the pair above it.
        for (cb, above) in b.iter().zip(prev.windows(2)) {
            if let &[diagonal, up] = above {
                left = (diagonal + usize::from(ca != *cb))
                    .min(up + 1)
                    .min(left + 1);
            }
            cur.push(left);
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str, date: &str, title: &str, topics: &[&str], body: &str) -> Doc {
        Doc {
            id: id.into(),
            kind: Kind::Knowledge,
            path: std::path::Path::new("/k.md").into(),
            line: 1,
            date: Some(date.into()),
            entry_type: Some("decision".into()),
            title: title.into(),
            topics: topics.iter().map(|&t| t.into()).collect(),
            text: format!("## {date} - {title}\n**Type:** decision\n\n{body}\n").into(),
            key: String::new(),
        }
    }

    fn search<'c>(docs: &'c [Doc], q: &Query) -> Found<'c> {
        super::search(docs, &Postings::build(docs, false), q)
    }

    fn ids(found: &Found<'_>) -> Vec<String> {
        found.hits.iter().map(|h| h.doc.id.to_string()).collect()
    }

    #[test]
    fn title_outranks_body_phrases_filter_and_ties_go_newer_first() {
        let docs = vec![
            doc(
                "k1",
                "2026-01-01",
                "Token storage",
                &["auth"],
                "Kept in cookies.",
            ),
            doc(
                "k2",
                "2026-02-01",
                "Cookies",
                &["web"],
                "The token storage decision lives elsewhere.",
            ),
            doc(
                "k3",
                "2026-03-01",
                "Retries",
                &["http"],
                "We retry three times.",
            ),
            doc(
                "k4",
                "2026-04-01",
                "Retries",
                &["http"],
                "We retry three times.",
            ),
        ];
        let q = |text: &str| Query {
            text: text.into(),
            limit: 10,
            ..Query::default()
        };
        assert_eq!(ids(&search(&docs, &q("token storage"))), ["k1", "k2"]);
        assert_eq!(ids(&search(&docs, &q("\"storage decision\""))), ["k2"]);
        assert_eq!(ids(&search(&docs, &q("retrying"))), ["k4", "k3"]);
        let none = search(&docs, &q("htp"));
        assert_eq!(none.total, 0);
        assert_eq!(none.suggestions[0], "http");
        let filtered = Query {
            topic: Some("auth".into()),
            ..q("cookies")
        };
        assert_eq!(ids(&search(&docs, &filtered)), ["k1"]);
        let since = Query {
            since: Some("2026-04-01".into()),
            ..q("retry")
        };
        assert_eq!(ids(&search(&docs, &since)), ["k4"]);
    }

    /// Issue 38 item 7: the nearest topics of a search that found nothing named a branch — a
    /// handoff's branch is kept as its topic. Only entries' topics are suggested.
    #[test]
    fn the_nearest_topics_are_entries_topics_never_a_branch() {
        let mut handoff = doc(
            "h1",
            "2026-05-01",
            "The export",
            &["feat/invoise-export"],
            "",
        );
        handoff.kind = Kind::Handoff;
        let docs = vec![
            doc("k1", "2026-01-01", "Token storage", &["auth"], "Cookies."),
            handoff,
        ];
        let none = search(
            &docs,
            &Query {
                text: "invoce".into(),
                limit: 10,
                ..Query::default()
            },
        );
        assert_eq!(none.total, 0);
        assert_eq!(none.suggestions, ["auth"]);
    }

    /// Issue 45 (SPEC §17): a path's directory and extension words matched every entry citing
    /// code; the file's name decides, and a plain word query is unchanged.
    #[test]
    fn a_path_query_weighs_its_directories_and_extension_like_stopwords() {
        let words = |q: &str| Terms::parse(q).words;
        assert_eq!(words("src/billing/tax.ts"), ["tax.t", "tax"]);
        assert_eq!(words("`src/db/pool.ts` size"), ["pool.t", "pool", "size"]);
        assert_eq!(words("pool.ts"), ["pool.t", "pool"]);
        // Nothing else: searched as written.
        assert_eq!(words("src/"), ["src"]);
        assert_eq!(words("ts"), ["ts"]);
        // A word the query also has on its own stays; a version is no file name.
        assert_eq!(
            words("billing src/billing/tax.ts"),
            ["bill", "tax.t", "tax"]
        );
        assert!(path_noise("version 1.2 rules").is_empty());
    }

    /// Issue (SPEC §16): stopwords were left out by their stems, and `this` became `thi` (the
    /// singular the acronym rule takes), which no list held. Every stopword is a term of its
    /// own, never a stem of it; left out of a query unless the query is nothing else.
    #[test]
    fn no_stopword_survives_as_a_stem() {
        for &w in crate::megg::recall::text::STOPWORDS.iter() {
            let upper = w.to_uppercase();
            let capital = format!("{}{}", upper.get(..1).unwrap(), w.get(1..).unwrap());
            for form in [w.to_string(), capital, upper] {
                assert_eq!(terms(&form), [w], "{form}");
                assert_eq!(query_terms(&form), [w], "{form} alone is searched");
                assert_eq!(
                    query_terms(&format!("{form} webhooks")),
                    ["webhook"],
                    "{form} in a query"
                );
                let docs = [doc("k1", "2026-01-01", &form, &[], &form)];
                let postings = Postings::build(&docs, false);
                let stem = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
                    .stem(w)
                    .into_owned();
                for t in [stem.as_str(), w.strip_suffix('s').unwrap_or(w)] {
                    if t != w {
                        assert_eq!(postings.list(t), [], "{form} indexed as {t}");
                    }
                }
            }
        }
    }
}
