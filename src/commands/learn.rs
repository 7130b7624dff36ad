//! `megg learn TITLE TYPE TOPICS CONTENT` or `megg learn --file F` (SPEC §6): append an entry
//! to the current domain's `knowledge.md`, the one `context` reads. `--file` lets an agent pass
//! its own words in a file it wrote, never on a shell command line (SPEC §7).

use crate::clock::format_timestamp;
use crate::commands::state::current_domain;
use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::megg::context::MAX_KNOWLEDGE_BYTES;
use crate::megg::knowledge::{self, MAINTAIN_DUE};
use crate::output::Output;
use crate::wire::knowledge::Learned;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A one-line title
    #[arg(required_unless_present = "file")]
    pub title: Option<String>,
    /// decision, pattern, gotcha, context, rule, fact or process
    #[arg(value_name = "TYPE", required_unless_present = "file")]
    pub kind: Option<String>,
    /// Comma-separated topics
    #[arg(required_unless_present = "file")]
    pub topics: Option<String>,
    /// The entry's text (markdown); `-` reads stdin
    #[arg(allow_hyphen_values = true, required_unless_present = "file")]
    pub content: Option<String>,
    /// Read the entry from F, written as megg writes one: `## Title`, `**Type:** t`,
    /// `**Topics:** a, b`, a blank line, the text
    #[arg(long, value_name = "F", conflicts_with_all = ["title", "kind", "topics", "content"])]
    pub file: Option<std::path::PathBuf>,
    /// Write the entry even though it looks like it holds a secret (a token, a key, a
    /// password value): for text that only looks like one
    #[arg(long)]
    pub allow_secrets: bool,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let domain = current_domain(env)?;
    let (title, kind, topics, content) = match &args.file {
        Some(f) => {
            let path = env.resolve(f);
            let text = fsx::read_named(&path, fsx::MAX_STDIN_BYTES)?;
            if text.lossy {
                return Err(Error::user(format!(
                    "{} is not valid UTF-8; nothing written",
                    path.display()
                ))
                .with_hint("save the entry file as UTF-8"));
            }
            let f = knowledge::entry_file(&text.text)
                .map_err(|e| Error::user(format!("{}: {e}", path.display())).with_hint(e.hint()))?;
            (f.title, f.kind, f.topics, f.content)
        }
        None => {
            let arg = |a: &Option<String>| a.clone().unwrap_or_default();
            let content = match args.content.as_deref() {
                Some("-") => read_stdin(env)?,
                _ => arg(&args.content),
            };
            (
                arg(&args.title),
                arg(&args.kind),
                arg(&args.topics),
                content,
            )
        }
    };
    let now = env.clock.now();
    let entry = knowledge::new_entry(
        &now.format("%Y-%m-%d").to_string(),
        &title,
        &kind,
        &topics,
        &content,
    )?;
    // Entries are shared through git (SPEC §12): a secret is refused before anything is written.
    if !args.allow_secrets
        && let Some(found) = knowledge::secret_in(&entry)
    {
        return Err(found.into());
    }

    env.refuse_writing_up(&domain)?;
    let path = domain.knowledge_path();
    let repo = env.repo(&domain.dir);
    let text = {
        let _lock = crate::megg::lock(repo.as_ref(), &domain.boundary, &path)?;
        // Refuses invalid UTF-8: rewriting would turn those bytes into U+FFFD for good.
        let existing = fsx::read_for_edit(&domain.boundary, &path, MAX_KNOWLEDGE_BYTES)?;
        if let Some(why) = existing.as_deref().and_then(knowledge::unparsable) {
            return Err(knowledge::refuse_unparsable(&path, &why));
        }
        let text = knowledge::append(existing.as_deref(), &entry, &format_timestamp(now));
        fsx::write_atomic(&domain.boundary, &path, text.as_bytes())?;
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
        entry: (&entry).into(),
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
        return Err(Error::user("CONTENT is `-` but stdin is a terminal")
            .with_hint("pipe the content in, or pass it as the argument"));
    }
    let (text, lossy, cut) = fsx::read_stdin(fsx::MAX_STDIN_BYTES)?;
    if lossy {
        return Err(
            Error::user("stdin is not valid UTF-8; nothing written").with_hint("send UTF-8 text")
        );
    }
    if cut {
        return Err(Error::user(format!(
            "stdin is over {} bytes; nothing written",
            fsx::MAX_STDIN_BYTES
        ))
        .with_hint("a knowledge entry should be short; split it"));
    }
    Ok(text)
}
