//! `megg learn TITLE TYPE TOPICS CONTENT` (SPEC §6): append an entry to the current domain's
//! `knowledge.md`, the one `context` reads.

use std::io::Read;

use serde::Serialize;

use crate::clock::format_timestamp;
use crate::commands::state::current_domain;
use crate::megg::knowledge::{self, MAINTAIN_DUE, NewEntry};
use crate::megg::lock_path;
use crate::{Env, Error, Output, Result, fsx};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A one-line title
    pub title: String,
    /// decision, pattern, gotcha, context, rule, fact or process
    #[arg(value_name = "TYPE")]
    pub kind: String,
    /// Comma-separated topics
    pub topics: String,
    /// The entry's text (markdown); `-` reads stdin
    #[arg(allow_hyphen_values = true)]
    pub content: String,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Serialize)]
struct Learned {
    path: String,
    entry: NewEntry,
    tokens: usize,
    warnings: Vec<String>,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let domain = current_domain(env)?;
    let content = if args.content == "-" {
        read_stdin(env)?
    } else {
        args.content.clone()
    };
    let now = env.clock.now();
    let entry = knowledge::new_entry(
        &now.format("%Y-%m-%d").to_string(),
        &args.title,
        &args.kind,
        &args.topics,
        &content,
    )
    .map_err(|(message, hint)| Error::failure(message).with_hint(hint))?;

    let path = domain.knowledge_path();
    let repo = env.repo(&domain.dir);
    let text = {
        let _lock = fsx::Lock::acquire(&lock_path(repo.as_ref(), &path))?;
        let existing = fsx::read_text(&path)?;
        if existing.as_ref().is_some_and(|t| t.lossy) {
            // Rewriting would turn the invalid bytes into U+FFFD for good.
            return Err(Error::failure(format!(
                "{} is not valid UTF-8; not appending to it",
                path.display()
            ))
            .with_hint("fix or re-encode the file first"));
        }
        let text = knowledge::append(
            existing.map(|t| t.text).as_deref(),
            &entry,
            &format_timestamp(now),
        );
        fsx::write_atomic(&path, text.as_bytes())?;
        text
    };
    let tokens = env.tokens.count(&text);
    let mut warnings = Vec::new();
    if tokens > MAINTAIN_DUE {
        warnings.push(format!(
            "{} is {tokens} tokens (over {MAINTAIN_DUE}): run `megg maintain` to archive or consolidate",
            path.display()
        ));
    }
    let result = Learned {
        path: path.display().to_string(),
        entry,
        tokens,
        warnings,
    };
    let text = format!(
        "Learned '{}' ({}) in {} ({} tokens)\n",
        result.entry.title, result.entry.kind, result.path, result.tokens
    );
    Ok(Output::pick(
        args.json,
        &result,
        text,
        result.warnings.clone(),
    ))
}

fn read_stdin(env: &Env) -> Result<String> {
    if env.stdin_is_tty {
        return Err(Error::failure("CONTENT is `-` but stdin is a terminal")
            .with_hint("pipe the content in, or pass it as the argument"));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| Error::failure(format!("cannot read stdin: {e}")))?;
    String::from_utf8(bytes).map_err(|_| {
        Error::failure("stdin is not valid UTF-8; nothing written").with_hint("send UTF-8 text")
    })
}
