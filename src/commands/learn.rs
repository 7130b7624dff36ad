//! `megg learn TITLE TYPE TOPICS CONTENT` or `megg learn --file F` (SPEC §6): append an entry
//! to the current domain's `knowledge.md`, the one `context` reads. `--file` lets an agent pass
//! its own words in a file it wrote, never on a shell command line (SPEC §7). `--supersedes ID`
//! moves the entry the new one replaces to the archive (SPEC §17); an entry like one already
//! there is named with its id — and, on a terminal, asked about ([`crate::flow::learn`]).

use crate::clock::format_timestamp;
use crate::commands::state::current_domain;
use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::flow::learn::{self as flow, Answer};
use crate::fsx;
use crate::megg::freshness;
use crate::megg::knowledge::write;
use crate::megg::knowledge::{self, BLOCKED_ABOVE, MAINTAIN_DUE, NewEntry};
use crate::megg::recall::{self, Scope};
use crate::output::Output;
use crate::prompt::Terminal;
use crate::wire::knowledge::{Learned, Superseded};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A one-line title (an entry with the same title or near-identical text already there is
    /// named in a warning, with its id; on a terminal, megg asks)
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
    /// The id (from `megg search`) of the entry this one replaces or contradicts: it moves to
    /// `.megg/archive/`, marked with this one's date and title, and stays searchable
    #[arg(long, value_name = "ID")]
    pub supersedes: Option<String>,
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

    if args.supersedes.is_some() && entries.len() > 1 {
        return Err(Error::user(format!(
            "--supersedes names the one entry a new one replaces, and the file holds {} entries; nothing written",
            entries.len()
        ))
        .with_hint("learn the replacing entry from a file of its own with --supersedes, and the others without it"));
    }

    env.refuse_writing_up(&domain)?;
    let path = domain.knowledge_path();
    let cache = fsx::user_cache_dir();
    let corpus = |below: bool| {
        let scope = Scope {
            path: &env.cwd,
            below,
            cache: cache.as_deref(),
        };
        match (below, args.supersedes.as_ref()) {
            (true, Some(id)) => recall::resolve(&env.deps(), &scope, std::slice::from_ref(id)),
            _ => recall::collect(&env.deps(), &scope),
        }
    };
    // The ids `megg show` resolves, read once: the documents `--supersedes` is looked up in
    // name the duplicates too.
    let resolved = args.supersedes.as_ref().map(|_| corpus(true));
    let mut target = match (&args.supersedes, &resolved) {
        (Some(id), Some(corpus)) => Some(write::target(corpus, id, &path)?),
        _ => None,
    };
    let found = write::duplicates(&domain, &entries, target.as_ref(), || {
        resolved.unwrap_or_else(|| corpus(false))
    })?;
    let mut warnings = Vec::new();
    if env.interactive && !args.json && !found.is_empty() {
        let can_supersede = target.is_none();
        match flow::ask(&mut Terminal::new(), &entries, &found, can_supersede)? {
            Answer::Write => {}
            Answer::Supersede(t) => target = Some(t),
            Answer::Cancel => {
                return Ok(Output::text(format!(
                    "Nothing written to {}\n",
                    path.display()
                )));
            }
        }
    } else {
        warnings.extend(found.iter().map(|f| f.warning(&entries, &path)));
    }
    warnings.extend(repeated_among(&entries));
    // SPEC §17: a bare file name several paths have cites none of them; say which.
    warnings.extend(freshness::ambiguous_warnings(&env.deps(), &path, &entries));
    if let (Some(t), Some(e)) = (&target, entries.first()) {
        write::refuse_same_id(t, e)?;
    }
    // Told it is no secret: written as given, each line holding one marked so that megg and
    // gitleaks leave it alone (SPEC §12).
    let to_write = if args.allow_secrets {
        let (marked, said) = write::allow_secrets_all(&entries);
        warnings.extend(said);
        marked
    } else {
        entries.clone()
    };
    let repo = env.repo(&domain.dir);
    let written = write::learn(&write::Learn {
        domain: &domain,
        repo: repo.as_ref(),
        entries: &to_write,
        supersedes: target.as_ref(),
        now: &format_timestamp(now),
    })?;
    let text = written.text;
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
        return Err(Error::internal("learn: no entry to write"));
    };
    let superseded = match (target, written.archive) {
        (Some(t), Some(archive)) => Some(Superseded {
            id: t.id,
            date: t.date,
            title: t.title,
            archive: archive.display().to_string(),
        }),
        _ => None,
    };
    let result = Learned {
        path: path.display().to_string(),
        entry: first.into(),
        entries: entries.iter().map(Into::into).collect(),
        tokens,
        superseded,
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
    if let Some(s) = &result.superseded {
        human.push_str(&format!(
            "Superseded '{}' ({}) — moved to {}\n",
            s.title, s.id, s.archive
        ));
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

/// A warning for each new entry whose title an earlier one of them has.
fn repeated_among(new: &[NewEntry]) -> Vec<String> {
    let mut warnings = Vec::new();
    for (i, entry) in new.iter().enumerate() {
        let key = knowledge::title_key(&entry.title);
        if new
            .iter()
            .take(i)
            .any(|e| knowledge::title_key(&e.title) == key)
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
