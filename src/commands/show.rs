//! `megg show ID... [--json] [--max-chars N]` (SPEC §13.4): documents by the ids `megg search`
//! and the session-start index give, whole, as they stand in their files.

use std::path::PathBuf;

use crate::env::Env;
use crate::error::Result;
use crate::fsx;
use crate::megg::recall;
use crate::output::Output;
use crate::wire::recall::{Shown, ShownDoc};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Ids from `megg search` or the session-start index
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,

    /// Directory whose chain (and the domains below it) holds the documents [default: the
    /// current directory]
    #[arg(long, value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// Most characters printed in all (the rest is left out, and said so)
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_chars: usize,

    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let path = env.dir_arg(args.path.as_deref())?;
    let cache = fsx::user_cache_dir();
    let scope = recall::Scope {
        path: &path,
        below: true,
        cache: cache.as_deref(),
    };
    let corpus = recall::collect(&env.deps(), &scope);
    let mut warnings = corpus.warnings.clone();
    let (mut documents, mut missing) = (Vec::new(), Vec::new());
    let mut budget = args.max_chars;
    let mut left_out = Vec::new();
    for id in &args.ids {
        let id = id.trim().to_lowercase();
        let Some(doc) = corpus.docs.iter().find(|d| d.id == id) else {
            missing.push(id);
            continue;
        };
        if budget == 0 {
            left_out.push(id);
            continue;
        }
        let len = doc.text.chars().count();
        if len > budget {
            warnings.push(format!(
                "{id}: {} of its {len} characters shown (--max-chars {}); read the rest at {}:{}",
                budget,
                args.max_chars,
                doc.path.display(),
                doc.line
            ));
            documents.push(ShownDoc::of(doc, doc.text.chars().take(budget).collect()));
            budget = 0;
            continue;
        }
        budget -= len;
        documents.push(ShownDoc::of(doc, doc.text.clone()));
    }
    if !left_out.is_empty() {
        warnings.push(format!(
            "left out (over --max-chars {}): {}; show them in another call",
            args.max_chars,
            left_out.join(" ")
        ));
    }
    let shown = Shown {
        documents,
        missing: missing.clone(),
        warnings: warnings.clone(),
        next_cursor: None,
    };
    let human = crate::render::recall::shown(&shown);
    let mut out = Output::pick(args.json, &shown, human, warnings);
    if !missing.is_empty() {
        let hint = format!(
            "its title or date changed, or it is in a domain below another directory? find it again: megg search <words>{}",
            if recall::ids::is_id(&missing[0]) {
                ""
            } else {
                " (ids look like k3f9a2xq)"
            }
        );
        if !args.json {
            out.warnings.push(format!(
                "no document with id {}; {hint}",
                missing.join(", ")
            ));
        }
        out.code = 1;
    }
    Ok(out)
}
