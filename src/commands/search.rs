//! `megg search QUERY [PATH] [--in KINDS] [--type T] [--topic T] [--since DATE] [--below]
//! [--limit N] [--json]` (SPEC §13.3).

use std::path::PathBuf;

use crate::env::Env;
use crate::error::{Error, Result};
use crate::fsx;
use crate::megg::recall::{self, Kind, search};
use crate::output::Output;
use crate::wire::recall::Searched;

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

    /// Only knowledge entries of this type (decision, pattern, gotcha, …)
    #[arg(long = "type", value_name = "T")]
    pub entry_type: Option<String>,

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
        return Err(Error::usage(
            "the query is empty: give the words to look for",
        ));
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
        return Err(
            Error::usage(format!("--since {since}: not a date")).with_hint("use YYYY-MM-DD")
        );
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
        entry_type: args.entry_type.clone(),
        topic: args.topic.clone(),
        since: args.since.clone(),
        limit: usize::from(args.limit),
    };
    let found = search::search(&corpus.docs, &postings, &query);
    let doc = Searched::new(&text, &found, warnings.clone());
    let (human, marks) = crate::render::recall::searched_marked(&doc);
    Ok(Output::pick(args.json, &doc, human, warnings).with_marks(marks))
}
