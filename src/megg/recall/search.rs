//! `megg search` (SPEC §13.3): BM25 over fields — title over topics over body — exact and
//! deterministic (the same files and query give the same bytes), ties newer first; quoted
//! phrases must occur as phrases; filters by kind, type, topic and date; a snippet of the
//! best-matching lines; and, for no match, the nearest topics.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::doc::{Doc, Kind};
use super::postings::{Moved, Postings};
use super::text::{each_term_marked, is_stopword, path_parts, phrase_words, terms};
use crate::fsx;
use crate::megg::{Deps, freshness, knowledge};

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
    /// Those of `words` the query writes as a path's directory or extension (`src/db/`,
    /// `billing/`): they match an entry through the directories and extensions of the paths it
    /// cites too. Any other word matches through its text and the names of those paths only
    /// (SPEC §17: `ts` and `src` would match every entry that cites code).
    structure: Vec<String>,
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
        let (words, structure) = words(&plain);
        Self {
            words,
            structure,
            phrases,
        }
    }

    /// Text megg turns into a query itself (a handoff, a branch, a plan title): its words,
    /// whatever it holds — a `"` there is a character, never a phrase (SPEC §16).
    pub fn literal(text: &str) -> Self {
        let (words, structure) = words(text);
        Self {
            words,
            structure,
            phrases: Vec::new(),
        }
    }
}

/// The terms of `text`, each once, and those of them it writes as a path's structure
/// ([`Terms::structure`]). The words an agent's question is built of ("how do we store
/// tokens?") match every document and rank none: left out, unless the text is nothing else.
fn words(text: &str) -> (Vec<String>, Vec<String>) {
    let mut seen = HashSet::new();
    let all: Vec<String> = terms(text)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect();
    // SPEC §17: in a path (`src/billing/tax.ts`), the directory and extension words match every
    // entry that cites code: they weigh like stopwords, and the file's own name decides.
    let (noise, structure) = path_words(text);
    let quiet = |t: &String| is_stopword(t) || noise.contains(t);
    let words: Vec<String> = if all.iter().all(quiet) {
        all
    } else {
        all.into_iter().filter(|t| !quiet(t)).collect()
    };
    let structure = words
        .iter()
        .filter(|w| structure.contains(*w))
        .cloned()
        .collect();
    (words, structure)
}

/// What the paths `text` holds (a word with a `/`, or a file name with an extension:
/// [`path_parts`]) make of their terms: the noise — their directories' and extensions' terms
/// but those the rest of the text also has — and the structure — their directories' and
/// extensions' terms, and the name of one written as a directory (`src/db/` → `db`).
fn path_words(text: &str) -> (HashSet<String>, HashSet<String>) {
    let (mut noise, mut structure, mut kept) = (HashSet::new(), HashSet::new(), HashSet::new());
    for token in text.split_whitespace() {
        let token =
            token.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | ',' | ';' | '(' | ')'));
        let Some(path) = path_parts(token) else {
            kept.extend(terms(token));
            continue;
        };
        noise.extend(terms(path.dirs));
        let (stem, ext) = match path.ext {
            Some(ext) => (path.name.rsplit_once('.').map_or("", |(s, _)| s), ext),
            None => (path.name, ""),
        };
        noise.extend(terms(ext));
        if path.dir {
            structure.extend(terms(stem));
        }
        kept.extend(terms(stem));
        kept.extend(terms(path.rest));
    }
    structure.extend(noise.iter().cloned());
    noise.retain(|t| !kept.contains(t));
    (noise, structure)
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
            // Found by a moved citation's new name: the snippet is where the entry cites it.
            let i = docs.iter().position(|d| std::ptr::eq(d, h.doc));
            let moved = i.map_or(Vec::new(), |i| postings.moved_in(i, &terms.words));
            let cited: Vec<&str> = moved
                .iter()
                .filter_map(|m| m.from.rsplit('/').next())
                .collect();
            h.snippet = snippet(h.doc, terms, &cited);
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
    let Terms {
        words,
        structure,
        phrases,
    } = terms;
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
        let list = if structure.contains(w) {
            postings.list_and_paths(w)
        } else {
            postings.list(w)
        };
        let list: Vec<(usize, u32)> = list
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

/// The best-matching lines of a document (the ones holding the most query words — as
/// [`ranked`] matches them — and of the file names in `cited`, then the ones after them), within
/// [`MAX_SNIPPET_CHARS`].
fn snippet(doc: &Doc, terms: &Terms, cited: &[&str]) -> String {
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
            let mut hits = cited.iter().filter(|c| l.contains(*c)).count();
            each_term_marked(l, &mut |t, path| {
                let words = if path { &terms.structure } else { &terms.words };
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

/// The citations of `docs`' entries that moved (SPEC §17): what git's rename detection found
/// for each cited path (`freshness`, cached by HEAD), so that [`Postings::with_moved`] makes
/// the new name find the entry citing the old one. Asked only of the entries citing a path
/// ([`Postings::cited`]) that is not in the work tree (from its top, or from the entry's
/// domain): a file still where the entry says did not move, and a search costs no walk of the
/// history for it — a `stat` per path cited, or one read of a directory many are in.
pub fn moved(deps: &Deps<'_>, docs: &[Doc], postings: &Postings) -> Vec<Moved> {
    let mut trees: Vec<WorkTree> = Vec::new();
    // The last file's domain: its work tree's index in `trees`, and the domain from its top
    // (`/`-ended; empty at the top). A file's entries come one after another.
    let mut file: Option<(&Doc, Option<(usize, String)>)> = None;
    let mut asked: Vec<(usize, &Doc)> = Vec::new();
    for (i, path) in postings.cited() {
        let Some(d) = docs
            .get(i)
            .filter(|_| asked.last().is_none_or(|a| a.0 != i))
        else {
            continue;
        };
        if !file
            .as_ref()
            .is_some_and(|(f, _)| std::sync::Arc::ptr_eq(&f.path, &d.path))
        {
            let domain = d
                .path
                .ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == ".megg"))
                .and_then(Path::parent);
            let tree = domain.filter(|dir| deps.repo(dir).is_some()).map(|dir| {
                let top = deps.top(dir);
                let rel = match dir.strip_prefix(&top) {
                    Ok(r) if !r.as_os_str().is_empty() => format!("{}/", r.to_string_lossy()),
                    _ => String::new(),
                };
                let at = trees
                    .iter()
                    .position(|t| t.top == top)
                    .unwrap_or(trees.len());
                if at == trees.len() {
                    trees.push(WorkTree::new(top));
                }
                (at, rel)
            });
            file = Some((d, tree));
        }
        let Some((_, Some((at, rel)))) = &file else {
            continue;
        };
        let Some(tree) = trees.get_mut(*at) else {
            continue;
        };
        if !tree.has(path) && (rel.is_empty() || !tree.has(&format!("{rel}{path}"))) {
            asked.push((i, d));
        }
    }
    let entries: Vec<&Doc> = asked.iter().map(|a| a.1).collect();
    let checked = freshness::of_docs(deps, &entries);
    let mut out = Vec::new();
    for ((i, _), f) in asked.iter().zip(checked) {
        for p in f.iter().flat_map(|f| &f.paths) {
            if let Some(to) = &p.new_path {
                out.push(Moved {
                    doc: *i,
                    from: p.path.clone(),
                    to: to.clone(),
                });
            }
        }
    }
    out
}

/// Whether paths are in one work tree, for [`moved`]: a `stat` each for the first
/// [`STATS_PER_DIR`] paths of a directory, then one read of the directory for all the others —
/// citations spread over many directories cost a `stat` each, citations gathered in one
/// directory a read of it.
struct WorkTree {
    top: PathBuf,
    b: fsx::Boundary,
    below: Option<fsx::Below>,
    /// By directory from the top (`src/db`; empty for the top): how many paths were looked
    /// for in it, or the names it holds once read.
    dirs: HashMap<String, Result<HashSet<String>, usize>>,
}

/// Paths looked for in one directory by a `stat` each, before the directory is read.
const STATS_PER_DIR: usize = 8;

impl WorkTree {
    fn new(top: PathBuf) -> Self {
        Self {
            b: fsx::Boundary::new(&top, "the work tree"),
            below: fsx::Below::open_start(&top).ok(),
            top,
            dirs: HashMap::new(),
        }
    }

    /// Whether `rel` (from the top, `/`-separated) names something in the work tree.
    fn has(&mut self, rel: &str) -> bool {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let asked = match self.dirs.get_mut(dir) {
            Some(Ok(names)) => return names.contains(name),
            Some(Err(asked)) => {
                *asked += 1;
                *asked
            }
            None => {
                self.dirs.insert(dir.to_string(), Err(1));
                1
            }
        };
        if asked <= STATS_PER_DIR {
            return self
                .below
                .as_ref()
                .is_some_and(|b| b.kind_at(std::ffi::OsStr::new(rel)).is_some());
        }
        let names: HashSet<String> = match fsx::list(&self.b, &self.top.join(dir)) {
            Ok(list) => list
                .into_iter()
                .filter_map(|(n, _)| n.into_string().ok())
                .collect(),
            Err(_) => HashSet::new(),
        };
        let found = names.contains(name);
        self.dirs.insert(dir.to_string(), Ok(names));
        found
    }
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
        assert!(path_words("version 1.2 rules").0.is_empty());
        // A URL is no path: its words are words.
        assert_eq!(
            words("https://github.com/o/r"),
            ["http", "https", "github.com", "github", "com", "o", "r"]
        );
    }

    /// Issue 45 (SPEC §17): `ts` matched every entry citing a `.ts` file. A bare word matches
    /// an entry through its text and the names of the files it cites; a path's directories and
    /// extension only for a query that writes them as a path.
    #[test]
    fn only_a_path_query_matches_the_directories_and_extensions_of_cited_paths() {
        let structure = |q: &str| Terms::parse(q).structure;
        assert_eq!(structure("ts"), Vec::<String>::new());
        assert_eq!(structure("src/"), ["src"]);
        assert_eq!(structure("src/db/"), ["db"]);
        assert_eq!(structure("billing src/billing/tax.ts"), ["bill"]);
        let docs = vec![
            doc(
                "k1",
                "2026-01-01",
                "Rates",
                &[],
                "Every rate in `src/billing/tax.ts`.",
            ),
            doc("k2", "2026-01-02", "Strict", &[], "All TS code is strict."),
        ];
        let q = |text: &str| Query {
            text: text.into(),
            limit: 10,
            ..Query::default()
        };
        assert_eq!(ids(&search(&docs, &q("ts"))), ["k2"]);
        assert_eq!(ids(&search(&docs, &q("src"))), Vec::<String>::new());
        assert_eq!(ids(&search(&docs, &q("tax"))), ["k1"]);
        assert_eq!(ids(&search(&docs, &q("billing/"))), ["k1"]);
        // A moved citation's new name finds the entry; its snippet is the line citing it.
        let moved = vec![Moved {
            doc: 0,
            from: "src/billing/tax.ts".into(),
            to: "src/billing/vat.ts".into(),
        }];
        let postings = Postings::build(&docs, false).with_moved(moved);
        let found = super::search(&docs, &postings, &q("vat"));
        assert_eq!(ids(&found), ["k1"]);
        assert_eq!(found.hits[0].snippet, "Every rate in `src/billing/tax.ts`.");
        assert_eq!(ids(&super::search(&docs, &postings, &q("ts"))), ["k2"]);
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
