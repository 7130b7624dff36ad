//! `megg search QUERY [PATH] [--in KINDS] [--type T] [--topic T] [--since DATE] [--below]
//! [--limit N] [--json]` (SPEC §13.3).

use std::path::PathBuf;

use super::page;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::fsx;
use crate::megg::freshness;
use crate::megg::knowledge::KnowledgeType;
use crate::megg::recall::{self, Kind, search};
use crate::output::Output;
use crate::wire::recall::{self as wire, Searched};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Words to look for; "quoted phrases" must occur as phrases
    #[arg(required_unless_present = "query_file")]
    pub query: Option<String>,

    /// Read the words from this file instead (an agent's words never go on a command line)
    #[arg(long, value_name = "FILE", conflicts_with = "query")]
    pub query_file: Option<PathBuf>,

    /// Directory whose chain is searched [default: the current directory]
    pub path: Option<PathBuf>,

    /// Kinds of document, comma-separated: knowledge, archive, handoff, info [default: all]
    #[arg(long = "in", value_name = "KINDS", value_delimiter = ',')]
    pub kinds: Vec<String>,

    /// Only knowledge entries of this type
    #[arg(long = "type", value_name = "T", ignore_case = true, value_parser = knowledge_type())]
    pub entry_type: Option<KnowledgeType>,

    /// Only entries with this topic (whole-word, case-insensitive)
    #[arg(long, value_name = "T")]
    pub topic: Option<String>,

    /// Only documents dated on or after DATE (YYYY-MM-DD)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,

    /// Also search the domains below PATH
    #[arg(long)]
    pub below: bool,

    /// How many results to show (1–100)
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub limit: u16,

    /// Print one JSON document
    #[arg(long)]
    pub json: bool,

    /// MCP only: one page of the results instead of `limit` of them.
    #[arg(skip)]
    pub page: Option<Page>,
}

/// `--type`: one of SPEC §2.2's types, in any case; clap names them in the help and refuses
/// any other (exit 2).
fn knowledge_type() -> impl clap::builder::TypedValueParser<Value = KnowledgeType> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(KnowledgeType::ALL.map(KnowledgeType::as_str))
        .try_map(|t| KnowledgeType::parse(&t).ok_or("not a knowledge type"))
}

/// One page of the results (MCP `search`, SPEC §13.6): the hits in rank order from the
/// `from`th on — of the first `limit` when given, else of all — as many as fit in `max_chars`
/// characters of JSON, with `next_cursor` the position of the next when any are left. So
/// following `next_cursor` from 0 visits each of them exactly once, in rank order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub from: usize,
    pub limit: Option<usize>,
    pub max_chars: usize,
}

/// Most bytes read from `--query-file`.
const MAX_QUERY_FILE_BYTES: u64 = 100 * 1024;

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let mut warnings = Vec::new();
    let mut text = match (&args.query, &args.query_file) {
        (Some(q), _) => q.clone(),
        (None, Some(file)) => {
            fsx::read_named(&env.resolve(file), MAX_QUERY_FILE_BYTES)
                .map_err(|e| e.with_hint("the query file holds the words to search for"))?
                .text
        }
        (None, None) => String::new(),
    }
    .trim()
    .to_string();
    if text.is_empty() {
        return Err(
            Error::usage("the query is empty: give the words to look for").with_hint(
                "megg search <words>, e.g. megg search \"retry uploads\"; or --query-file F",
            ),
        );
    }
    if text.chars().count() > search::MAX_QUERY_CHARS {
        text = text.chars().take(search::MAX_QUERY_CHARS).collect();
        warnings.push(format!(
            "the query is over {} characters: searched for its first {}",
            search::MAX_QUERY_CHARS,
            search::MAX_QUERY_CHARS
        ));
    }
    let kinds = args
        .kinds
        .iter()
        .map(|k| {
            Kind::parse(k).ok_or_else(|| {
                Error::usage(format!("--in {k}: not a kind of document"))
                    .with_hint("use knowledge, archive, handoff or info (comma-separated)")
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(since) = &args.since
        && chrono::NaiveDate::parse_from_str(since, "%Y-%m-%d").is_err()
    {
        return Err(Error::usage(format!(
            "--since {}: not a date",
            page::clip(since, page::ECHOED_CHARS)
        ))
        .with_hint("use YYYY-MM-DD"));
    }
    let path = env.dir_arg(args.path.as_deref())?;
    let cache = fsx::user_cache_dir();
    let scope = recall::Scope {
        path: &path,
        below: args.below,
        cache: cache.as_deref(),
    };
    let (corpus, postings) = recall::collect_indexed(&env.deps(), &scope);
    warnings.extend(corpus.warnings.iter().cloned());
    let query = search::Query {
        text: text.clone(),
        kinds,
        entry_type: args.entry_type.map(|t| t.as_str().to_string()),
        topic: args.topic.clone(),
        since: args.since.clone(),
        limit: args.page.map_or(usize::from(args.limit), Page::fetch),
    };
    let found = search::search(&corpus.docs, &postings, &query);
    // Each hit's citations checked against git (SPEC §17).
    let hits: Vec<&recall::Doc> = found.hits.iter().map(|h| h.doc).collect();
    // The secrets the hits show as `[redacted]`, each named (SPEC §12).
    warnings.extend(corpus.hidden_in(&hits));
    let fresh = freshness::of_docs(&env.deps(), &hits);
    let mut doc = Searched::new(&text, &found, &fresh, warnings.clone());
    for r in &mut doc.results {
        r.superseded_by_id = recall::successor_id(&corpus.docs, &r.id);
    }
    if let Some(page) = args.page {
        page.cut(&mut doc)?;
    }
    let (human, marks) = crate::render::recall::searched_marked(&doc);
    Ok(Output::pick(args.json, &doc, human, warnings).with_marks(marks))
}

impl Page {
    /// How many hits the search ranks for this page: those before it and as many as could
    /// ever fit in it (each result's JSON is at least [`min_result_chars`] long).
    fn fetch(self) -> usize {
        let most = self.max_chars / min_result_chars() + 1;
        self.limit
            .unwrap_or(usize::MAX)
            .min(self.from.saturating_add(most))
    }

    /// Cuts `doc`, holding the first [`Page::fetch`] hits, to this page: what it echoes
    /// (the query, warnings, suggestions) and each hit's lists and path bounded, then as many
    /// hits as fit — the first, when alone over the page, with its title and snippet cut.
    fn cut(self, doc: &mut Searched) -> Result<()> {
        let end = self.limit.map_or(doc.total, |l| l.min(doc.total));
        if self.from > 0 && self.from >= end {
            return Err(
                Error::usage(format!("cursor: {} is past the {end} results", self.from))
                    .with_hint("start again without a cursor"),
            );
        }
        let max = self.max_chars;
        doc.query = page::clip(&doc.query, max / 16).into_owned();
        doc.warnings = page::bounded_warnings(std::mem::take(&mut doc.warnings), max);
        doc.suggestions = page::bounded_list(
            std::mem::take(&mut doc.suggestions),
            max / 8,
            page::ECHOED_CHARS,
            |n| format!("… {n} more"),
        );
        let hits: Vec<wire::Result> = doc.results.drain(..).skip(self.from).collect();
        // Measured with the longest cursor this walk can give; the one set at the end is no
        // longer.
        doc.next_cursor = Some(end.to_string());
        for mut hit in hits {
            bound(&mut hit, max);
            if doc.results.is_empty() {
                shorten(&mut hit, doc, max);
            }
            doc.results.push(hit);
            if doc.results.len() > 1 && page::json_chars(doc) > max {
                doc.results.pop();
                break;
            }
        }
        let next = self.from + doc.results.len();
        doc.next_cursor = (next < end).then(|| next.to_string());
        Ok(())
    }
}

/// The fewest characters one result takes in a page's JSON: its keys and punctuation.
fn min_result_chars() -> usize {
    let empty = wire::Result {
        id: String::new(),
        kind: Kind::Info,
        path: PathBuf::new(),
        line: 0,
        date: None,
        entry_type: None,
        title: String::new(),
        topics: Vec::new(),
        score: 0.0,
        snippet: String::new(),
        freshness: None,
        superseded_by: None,
        superseded_by_id: None,
    };
    page::json_chars(&empty).max(1)
}

/// A hit's fields other than its title and snippet within a share of a page of `max`
/// characters each, so that a page always has room for some title and snippet: its path
/// (the end kept), topics (the first that fit, then how many more), type and date.
fn bound(hit: &mut wire::Result, max: usize) {
    hit.path = page::clip_path(&hit.path, max / 8);
    hit.topics = page::bounded_list(
        std::mem::take(&mut hit.topics),
        max / 16,
        page::ECHOED_CHARS,
        |n| format!("… {n} more"),
    );
    for field in [&mut hit.entry_type, &mut hit.date].into_iter().flatten() {
        *field = page::clip(field, page::ECHOED_CHARS).into_owned();
    }
}

/// A result too long for a page of its own (a title of thousands of characters) with its
/// title and snippet cut, each marked `…`, to what the page has room for: the title gets what
/// the snippet leaves, but at least half.
fn shorten(hit: &mut wire::Result, doc: &Searched, max_chars: usize) {
    let mut page = doc.clone();
    page.results.push(wire::Result {
        title: String::new(),
        snippet: String::new(),
        ..hit.clone()
    });
    let room = max_chars.saturating_sub(page::json_chars(&page));
    let (title, snippet) = (page::json_len(&hit.title), page::json_len(&hit.snippet));
    if title + snippet <= room {
        return;
    }
    let title_room = title.min(room.saturating_sub(snippet).max(room / 2));
    hit.title = page::clip(&hit.title, title_room).into_owned();
    hit.snippet = page::clip(&hit.snippet, room - page::json_len(&hit.title)).into_owned();
}
