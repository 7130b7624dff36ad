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
use crate::megg::knowledge::{self, BLOCKED_ABOVE, Entry, MAINTAIN_DUE, NewEntry};
use crate::output::Output;
use crate::wire::knowledge::Learned;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A one-line title (one an entry already has, in any case or spacing, is learned with a
    /// warning naming that entry)
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
    /// `**Topics:** a, b`, a blank line, the text. Several entries in F (each with its own
    /// `**Type:**` and `**Topics:**`, `---` between them optional) are each learned, or none
    /// if one is incomplete
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
    let now = env.clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let entries = match &args.file {
        Some(f) => from_file(env, f, &date)?,
        None => {
            let arg = |a: &Option<String>| a.clone().unwrap_or_default();
            let content = match args.content.as_deref() {
                Some("-") => read_stdin(env)?,
                _ => arg(&args.content),
            };
            vec![knowledge::new_entry(
                &date,
                &arg(&args.title),
                &arg(&args.kind),
                &arg(&args.topics),
                &content,
            )?]
        }
    };
    // Entries are shared through git (SPEC §12): a secret is refused before anything is written.
    if !args.allow_secrets {
        for (i, entry) in entries.iter().enumerate() {
            if let Some(found) = knowledge::secret_in(entry) {
                return Err(which(i, &entries, found.into()));
            }
        }
    }

    env.refuse_writing_up(&domain)?;
    let path = domain.knowledge_path();
    let repo = env.repo(&domain.dir);
    let mut warnings = Vec::new();
    let text = {
        let _lock = crate::megg::lock(repo.as_ref(), &domain.boundary, &path)?;
        // Refuses invalid UTF-8: rewriting would turn those bytes into U+FFFD for good.
        let existing = fsx::read_for_edit(&domain.boundary, &path, MAX_KNOWLEDGE_BYTES)?;
        if let Some(why) = existing.as_deref().and_then(knowledge::unparsable) {
            return Err(knowledge::refuse_unparsable(&path, &why));
        }
        let known = existing.as_deref().map(knowledge::document);
        warnings.extend(repeated_titles(
            known.as_ref().map_or(&[][..], |d| &d.entries),
            &entries,
            &path,
        ));
        let mut text = existing.unwrap_or_default();
        for entry in &entries {
            text = knowledge::append(Some(&text), entry, &format_timestamp(now));
        }
        fsx::write_atomic(&domain.boundary, &path, text.as_bytes())?;
        text
    };
    let tokens = env.tokens.count(&text);
    if knowledge::maintain_due(tokens) {
        let now_loads = if tokens > BLOCKED_ABOVE {
            "none of it"
        } else {
            "only a summary"
        };
        warnings.push(format!(
            "{} is {tokens} tokens, past the {MAINTAIN_DUE} at which `megg maintain` is due, and `megg context` loads {now_loads} ({}): run `megg maintain` to archive or consolidate",
            path.display(),
            knowledge::thresholds()
        ));
    }
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return Err(crate::error::Error::internal("learn: no entry to write"));
    };
    let result = Learned {
        path: path.display().to_string(),
        entry: first.into(),
        entries: entries.iter().map(Into::into).collect(),
        tokens,
        warnings,
    };
    let mut human = String::new();
    for entry in &entries {
        human.push_str(&format!(
            "Learned '{}' ({}, {} tokens) in {}",
            entry.title,
            entry.kind,
            env.tokens.count(&knowledge::entry_text(entry)),
            result.path
        ));
        if std::ptr::eq(entry, last) {
            human.push_str(&format!(", now {tokens} tokens in all"));
        }
        human.push('\n');
    }
    Ok(Output::pick(
        args.json,
        &result,
        human,
        result.warnings.clone(),
    ))
}

/// The entries of the entry file `f` (SPEC §6): one, or several written as `knowledge.md`
/// holds them, each with its own type and topics, all dated `date`. One that cannot be an
/// entry refuses the whole file, naming it.
fn from_file(env: &Env, f: &std::path::Path, date: &str) -> Result<Vec<NewEntry>> {
    let path = env.resolve(f);
    let text = fsx::read_named(&path, fsx::MAX_STDIN_BYTES)?;
    if text.lossy {
        return Err(Error::user(format!(
            "{} is not valid UTF-8; nothing written",
            path.display()
        ))
        .with_hint("save the entry file as UTF-8"));
    }
    let mut pieces = knowledge::entry_file_pieces(&text.text);
    if pieces.is_empty() {
        pieces.push(&text.text);
    }
    let n = pieces.len();
    let mut entries = Vec::with_capacity(n);
    for (i, piece) in pieces.into_iter().enumerate() {
        let named = |e: knowledge::EntryError| {
            let whose = match knowledge::piece_title(piece) {
                Some(title) if n > 1 => format!("entry {} of {n} ('{title}')", i + 1),
                _ if n > 1 => format!("entry {} of {n}", i + 1),
                _ => String::new(),
            };
            let message = if whose.is_empty() {
                format!("{}: {e}", path.display())
            } else {
                format!("{}: {whose}: {e}; nothing written", path.display())
            };
            Error::user(message).with_hint(e.hint())
        };
        let f = knowledge::entry_file(piece).map_err(named)?;
        let entry = knowledge::new_entry(date, &f.title, &f.kind, &f.topics, &f.content);
        entries.push(match entry {
            Ok(entry) => entry,
            // One entry: the message learn gives its arguments.
            Err(e) if n == 1 => return Err(e.into()),
            Err(e) => return Err(named(e)),
        });
    }
    Ok(entries)
}

/// `err` naming the entry it is about, when the file held several.
fn which(i: usize, entries: &[NewEntry], err: Error) -> Error {
    match entries.get(i) {
        Some(e) if entries.len() > 1 => Error {
            message: format!(
                "entry {} of {} ('{}'): {}",
                i + 1,
                entries.len(),
                e.title,
                err.message
            ),
            ..err
        },
        _ => err,
    }
}

/// A warning for each new entry whose title an entry already has (SPEC §17 will add
/// `--supersedes`; until then a word, never a prompt): the entries in the file, then the new
/// ones before it.
fn repeated_titles(known: &[Entry<'_>], new: &[NewEntry], path: &std::path::Path) -> Vec<String> {
    let mut warnings = Vec::new();
    for (i, entry) in new.iter().enumerate() {
        if let Some(old) = knowledge::same_title(known, &entry.title) {
            let named = match old.date {
                Some(date) => format!("{date} - {}", old.title),
                None => old.title.to_string(),
            };
            warnings.push(format!(
                "'{}' has the title of an entry already in {}: '{named}'; learned anyway (if they say the same, edit or remove one)",
                entry.title,
                path.display()
            ));
        } else if new
            .iter()
            .take(i)
            .any(|e| knowledge::title_key(&e.title) == knowledge::title_key(&entry.title))
        {
            warnings.push(format!(
                "'{}' is the title of two of the entries learned now; both learned",
                entry.title
            ));
        }
    }
    warnings
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
