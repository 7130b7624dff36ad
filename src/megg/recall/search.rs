//! `megg search` (SPEC §13.3): BM25 over fields — title over topics over body — exact and
//! deterministic (the same files and query give the same bytes), ties newer first; quoted
//! phrases must occur as phrases; filters by kind, type, topic and date; a snippet of the
//! best-matching lines; and, for no match, the nearest topics.

use std::collections::{BTreeMap, HashSet};

use super::doc::{Doc, Kind};
use super::postings::{Postings, body_of};
use super::text::{each_term, phrase_words, terms};
use crate::megg::knowledge;

/// BM25's term-frequency saturation and length normalization.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// English function words, as the stemmer leaves them.
const STOPWORDS: [&str; 48] = [
    "a", "about", "an", "and", "are", "as", "at", "be", "by", "can", "did", "do", "doe", "for",
    "from", "had", "has", "have", "how", "i", "if", "in", "is", "it", "of", "on", "or", "our",
    "should", "so", "that", "the", "there", "this", "to", "us", "was", "we", "what", "when",
    "where", "whi", "which", "who", "why", "will", "with", "you",
];

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
    parse_query(text).0
}

/// The query's plain words and its `"quoted phrases"`.
fn parse_query(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
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
    let mut seen = HashSet::new();
    let all: Vec<String> = terms(&plain)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect();
    // The words an agent's question is built of ("how do we store tokens?") match every
    // document and rank none: left out, unless the query is nothing else.
    let words: Vec<String> = all
        .iter()
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .cloned()
        .collect();
    (if words.is_empty() { all } else { words }, phrases)
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
    let (words, phrases) = parse_query(&q.text);
    let candidate: Vec<bool> = docs.iter().map(|d| passes(d, q)).collect();
    let lens = |i: usize| f64::from(postings.len_of(i));
    let n = candidate.iter().filter(|&&c| c).count().max(1) as f64;
    let total_len: f64 = (0..docs.len()).filter(|&i| candidate[i]).map(lens).sum();
    let avg = (total_len / n).max(1.0);
    // Each document's score, summed word by word in the query's order.
    let mut scores: Vec<f64> = vec![0.0; docs.len()];
    for w in &words {
        let list: Vec<(usize, u32)> = postings
            .list(w)
            .into_iter()
            .filter(|&(i, _)| candidate.get(i) == Some(&true))
            .collect();
        let df = list.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for (i, tf) in list {
            let tf = f64::from(tf);
            scores[i] += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * lens(i) / avg));
        }
    }
    let mut hits: Vec<Hit<'c>> = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        if !candidate[i] {
            continue;
        }
        if !phrases.is_empty() {
            let topics = doc.topics.join(" ");
            let body = if postings.titles_only() {
                ""
            } else {
                body_of(doc)
            };
            let words = phrase_words(&format!("{}\n{topics}\n{body}", doc.title));
            if !phrases.iter().all(|p| contains_phrase(&words, p)) {
                continue;
            }
        }
        let score = scores[i];
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
    if !postings.titles_only() {
        for h in &mut hits {
            h.snippet = snippet(h.doc, &words);
        }
    }
    let suggestions = if total == 0 {
        nearest_topics(docs, &q.text)
    } else {
        Vec::new()
    };
    Found {
        hits,
        total,
        suggestions,
    }
}

/// The best-matching lines of a document (the ones holding the most query words, then the
/// ones after them), within [`MAX_SNIPPET_CHARS`].
fn snippet(doc: &Doc, words: &[String]) -> String {
    let lines: Vec<&str> = body_of(doc)
        .lines()
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
/// search that found nothing.
fn nearest_topics(docs: &[Doc], query: &str) -> Vec<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for d in docs {
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
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
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
}
