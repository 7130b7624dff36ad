//! SPEC §13.7 "quality is measured, not assumed": recall@5 and nDCG@10 of megg's ranking on a
//! judged set kept in the test tree (`tests/fixtures/recall/judged.json`: entries of a
//! fictional team's knowledge, and queries written the way an agent asks, each with the
//! entries judged relevant by hand — 2 answers it, 1 helps), beside a plain BM25 baseline on the
//! same set (one field, lower-cased alphanumeric words, no stemming, no identifier splitting,
//! no stop words).
//!
//!     cargo bench --bench recall_quality
//!
//! The ranking is megg's own (`megg::megg::recall::search`) on the entries as megg parses them.

// SPEC §16's panic lints guard megg's own code from its input; a benchmark panicking is how it
// fails.
#![allow(
    clippy::string_slice,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]
#![allow(clippy::disallowed_methods)] // reads the judged set with std::fs
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

use std::collections::{BTreeMap, HashMap};

use megg::megg::recall::index::{self, Why};
use megg::megg::recall::search::{Query, search};
use megg::megg::recall::{Doc, Kind, Postings};
use serde_json::Value;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench recall_quality`");
        return;
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/recall/judged.json"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        println!("no judged set at {path}: nothing to measure");
        return;
    };
    let set: Value = serde_json::from_str(&text).unwrap();
    let docs: Vec<Doc> = set["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            let topics: Vec<String> = e["topics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .collect();
            Doc {
                id: s("id").into(),
                kind: Kind::Knowledge,
                path: std::path::Path::new("knowledge.md").into(),
                line: 1,
                date: Some(s("date").into()),
                entry_type: Some(s("type").into()),
                title: s("title").into(),
                text: format!(
                    "## {} - {}\n**Type:** {}\n**Topics:** {}\n\n{}\n",
                    s("date"),
                    s("title"),
                    s("type"),
                    topics.join(", "),
                    s("body")
                )
                .into(),
                topics: topics.into_iter().map(Into::into).collect(),
                key: String::new(),
            }
        })
        .collect();
    let queries = set["queries"].as_array().unwrap();
    let baseline = Baseline::new(&docs);
    let postings = Postings::build(&docs, false);
    let (mut megg_r5, mut megg_ndcg, mut base_r5, mut base_ndcg) = (0.0, 0.0, 0.0, 0.0);
    for q in queries {
        let text = q["query"].as_str().unwrap();
        let judged: BTreeMap<String, u32> = q["relevant"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap() as u32))
            .collect();
        let ours: Vec<String> = search(
            &docs,
            &postings,
            &Query {
                text: text.to_string(),
                limit: 10,
                ..Query::default()
            },
        )
        .hits
        .iter()
        .map(|h| h.doc.id.to_string())
        .collect();
        let theirs = baseline.rank(text, 10);
        megg_r5 += recall_at(&ours, &judged, 5);
        megg_ndcg += ndcg_at(&ours, &judged, 10);
        base_r5 += recall_at(&theirs, &judged, 5);
        base_ndcg += ndcg_at(&theirs, &judged, 10);
    }
    let n = queries.len() as f64;
    println!(
        "judged set: {} entries, {} queries\n",
        docs.len(),
        queries.len()
    );
    println!("| ranking | recall@5 | nDCG@10 |");
    println!("|---|---|---|");
    println!("| megg | {:.3} | {:.3} |", megg_r5 / n, megg_ndcg / n);
    println!(
        "| plain BM25 (one field, no stemming) | {:.3} | {:.3} |",
        base_r5 / n,
        base_ndcg / n
    );
    handoffs(&docs, queries, &postings);
}

/// SPEC §13.5's session-start index on the same set: handoffs of several items (the judged
/// queries taken 2, 3 and 5 at a time, as a Working On and Next list), each case judged by
/// its queries' judgments together. What the index lists for the session (at most 15 lines,
/// `why: session`) is measured as recall (the share of the judged entries listed), answered
/// (the share of items whose best answer, a 2, is listed) and nDCG@15 — ranked three ways:
/// the handoff as one bag of words over titles and topics (the index before issue 38 item 12),
/// the same bag over whole entries, and each item a query of its own, taken in turns.
fn handoffs(docs: &[Doc], queries: &[Value], postings: &Postings) {
    let titles = Postings::build(docs, true);
    println!(
        "\nsession-start index, handoffs of several items (the session's lines, at most 15):\n"
    );
    println!("| items per handoff | cases | ranking | recall | answered | nDCG@15 |");
    println!("|---|---|---|---|---|---|");
    for per in [2, 3, 5] {
        let cases: Vec<&[Value]> = queries.chunks_exact(per).collect();
        let rankings: [(&str, Ranking<'_>); 3] = [
            ("one bag of words, titles and topics (before)", &|items| {
                session(docs, &titles, &[items.join("\n")])
            }),
            ("one bag of words, whole entries", &|items| {
                session(docs, postings, &[items.join("\n")])
            }),
            ("each item its own query, in turns (now)", &|items| {
                session(docs, postings, items)
            }),
        ];
        for (name, rank) in rankings {
            let (mut recall, mut answered, mut ndcg) = (0.0, 0.0, 0.0);
            for case in &cases {
                let items: Vec<String> = case
                    .iter()
                    .map(|q| q["query"].as_str().unwrap().to_string())
                    .collect();
                let mut judged: BTreeMap<String, u32> = BTreeMap::new();
                let mut best: Vec<Vec<String>> = Vec::new();
                for q in *case {
                    let rel = q["relevant"].as_object().unwrap();
                    best.push(
                        rel.iter()
                            .filter(|(_, g)| g.as_u64() == Some(2))
                            .map(|(id, _)| id.clone())
                            .collect(),
                    );
                    for (id, g) in rel {
                        let g = g.as_u64().unwrap() as u32;
                        let e = judged.entry(id.clone()).or_default();
                        *e = (*e).max(g);
                    }
                }
                let listed = rank(&items);
                recall += recall_at(&listed, &judged, listed.len());
                answered += best
                    .iter()
                    .filter(|ids| ids.iter().any(|id| listed.contains(id)))
                    .count() as f64
                    / best.len() as f64;
                ndcg += ndcg_at(&listed, &judged, 15);
            }
            let n = cases.len() as f64;
            println!(
                "| {per} | {} | {name} | {:.3} | {:.3} | {:.3} |",
                cases.len(),
                recall / n,
                answered / n,
                ndcg / n
            );
        }
    }
}

/// The ids one way of ranking the index lists for a handoff's items.
type Ranking<'a> = &'a dyn Fn(&[String]) -> Vec<String>;

/// The ids the index lists for the session `items` describe.
fn session(docs: &[Doc], postings: &Postings, items: &[String]) -> Vec<String> {
    index::rank(docs, postings, items, &|d| vec![None; d.len()])
        .into_iter()
        .filter(|l| l.why == Why::Session)
        .map(|l| l.id)
        .collect()
}

/// The share of the relevant entries found in the first `k`.
fn recall_at(ranked: &[String], judged: &BTreeMap<String, u32>, k: usize) -> f64 {
    let found = ranked
        .iter()
        .take(k)
        .filter(|id| judged.contains_key(*id))
        .count();
    found as f64 / judged.len().max(1) as f64
}

/// Normalized discounted cumulative gain over the first `k`, gain 2^grade - 1.
fn ndcg_at(ranked: &[String], judged: &BTreeMap<String, u32>, k: usize) -> f64 {
    let gain = |g: u32| f64::from((1u32 << g) - 1);
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, id)| judged.get(id).map_or(0.0, |&g| gain(g)) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u32> = judged.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| gain(g) / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

/// Textbook BM25 (k1 1.2, b 0.75) over each entry's whole text as one field.
struct Baseline {
    docs: Vec<(String, HashMap<String, f64>, f64)>,
    df: HashMap<String, f64>,
    avg: f64,
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

impl Baseline {
    fn new(docs: &[Doc]) -> Self {
        let mut df: HashMap<String, f64> = HashMap::new();
        let mut out = Vec::new();
        for d in docs {
            let mut tf: HashMap<String, f64> = HashMap::new();
            let w = words(&d.text);
            for t in &w {
                *tf.entry(t.clone()).or_default() += 1.0;
            }
            for t in tf.keys() {
                *df.entry(t.clone()).or_default() += 1.0;
            }
            out.push((d.id.to_string(), tf, w.len() as f64));
        }
        let avg = out.iter().map(|d| d.2).sum::<f64>() / out.len().max(1) as f64;
        Self { docs: out, df, avg }
    }

    fn rank(&self, query: &str, k: usize) -> Vec<String> {
        let n = self.docs.len() as f64;
        let mut q = words(query);
        q.dedup();
        let mut scored: Vec<(f64, &str)> = self
            .docs
            .iter()
            .map(|(id, tf, len)| {
                let s: f64 = q
                    .iter()
                    .filter_map(|t| {
                        let f = *tf.get(t)?;
                        let df = self.df[t];
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        Some(idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len / self.avg)))
                    })
                    .sum();
                (s, id.as_str())
            })
            .filter(|(s, _)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(k)
            .map(|(_, id)| id.to_string())
            .collect()
    }
}
