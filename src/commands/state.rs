//! `megg state` (SPEC §5): read, write and clear the session handoff of the current domain.

use std::path::{Path, PathBuf};

use clap::Subcommand;

use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::megg::context::load_state;
use crate::megg::discovery::Domain;
use crate::megg::recall::{Hidden, history};
use crate::megg::{secrets, state};
use crate::output::Output;
use crate::render::state as render;
use crate::wire::state as wire;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Option<Action>,

    /// Print one JSON document
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Action {
    /// Show the active state (the default)
    Show,
    /// Save the handoff: from --content, --file, or stdin
    Write(WriteArgs),
    /// Delete the state (the task is done)
    #[command(alias = "done")]
    Clear,
}

#[derive(Debug, Clone, clap::Args)]
pub struct WriteArgs {
    /// The state content (markdown: Working On / Progress / Next / Context)
    #[arg(long, conflicts_with = "file", allow_hyphen_values = true)]
    pub content: Option<String>,

    /// Read the content from this file
    #[arg(long)]
    pub file: Option<PathBuf>,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let domain = current_domain(env)?;
    match &args.action {
        None | Some(Action::Show) => show(env, &domain, args.json),
        Some(Action::Write(w)) => {
            let (content, mut warnings) = read_content(env, w)?;
            write(env, &domain, &content, args.json, &mut warnings)
        }
        Some(Action::Clear) => clear(env, &domain, args.json),
    }
}

/// The current domain (SPEC §2.1), or the error every state command gives without one.
pub fn current_domain(env: &Env) -> Result<Domain> {
    let top = env.top(&env.cwd);
    let mut warnings = Vec::new();
    let found = env.walk(&top).current_domain(&env.cwd, &mut warnings);
    found.ok_or_else(|| {
        let mut e = Error::user(format!(
            "no .megg directory at or above {}",
            env.cwd.display()
        ));
        if let Some(w) = warnings.first() {
            e = e.with_hint(w.clone());
        }
        e.with_hint("run `megg init` to create one")
    })
}

fn read_content(env: &Env, w: &WriteArgs) -> Result<(String, Vec<String>)> {
    let mut warnings = Vec::new();
    let content = if let Some(c) = &w.content {
        c.clone()
    } else if let Some(f) = &w.file {
        let path = env.resolve(f);
        let text = fsx::read_named(&path, fsx::MAX_STDIN_BYTES)?;
        if text.lossy {
            warnings.push(format!(
                "{} is not valid UTF-8; invalid bytes were replaced with U+FFFD",
                path.display()
            ));
        }
        text.text
    } else if env.stdin_is_tty {
        return Err(Error::user("no state content given")
            .with_hint("pass --content TEXT or --file FILE, or pipe the content on stdin"));
    } else {
        let (text, lossy, cut) = fsx::read_stdin(fsx::MAX_STDIN_BYTES)?;
        if lossy {
            warnings
                .push("stdin is not valid UTF-8; invalid bytes were replaced with U+FFFD".into());
        }
        if cut {
            warnings.push(format!(
                "stdin is over {} bytes; read only the first {0}",
                fsx::MAX_STDIN_BYTES
            ));
        }
        text
    };
    if content.trim().is_empty() {
        return Err(Error::user("the state content is empty; nothing written")
            .with_hint("to clear the state, run `megg state clear`"));
    }
    Ok((content, warnings))
}

/// Writes `content` as the active state, cut to 2,000 tokens.
pub fn write(
    env: &Env,
    domain: &Domain,
    content: &str,
    json: bool,
    warnings: &mut Vec<String>,
) -> Result<Output> {
    env.refuse_writing_up(domain)?;
    // A handoff holds no secret (SPEC §12), and one is never cut in two by the bound.
    let (content, secrets) = secrets::redact_found(content);
    let cut = env.tokens.truncate(&content, state::MAX_TOKENS);
    if cut.was_cut() {
        warnings.push(format!(
            "state content was {} tokens; truncated to {}",
            cut.original, cut.tokens
        ));
    }
    let repo = env.repo(&domain.dir);
    let branch = repo.as_ref().and_then(|r| r.current_branch());
    let head = repo.as_ref().and_then(|r| r.head_commit());
    let path = domain.state_path();
    let bytes = state::render(
        cut.text,
        env.clock.now(),
        branch.as_deref(),
        head.as_deref(),
    );
    {
        let _lock = crate::megg::lock(repo.as_ref(), &domain.boundary, &path)?;
        history::keep_current(
            repo.as_ref(),
            domain,
            fsx::user_cache_dir().as_deref(),
            Some(bytes.as_bytes()),
            env.clock.now(),
        );
        fsx::write_atomic(&domain.boundary, &path, bytes.as_bytes())?;
    }
    warnings.extend(redacted(&secrets, &bytes, cut.text, &path));
    // As `checkpoint save` says (SPEC §4.6): a handoff is one developer's, not the team's.
    let project = env.project();
    if project.repo.is_some() && !project.is_ignored(&path) {
        warnings.push(format!(
            "{} is not gitignored, so a commit could share it — run: megg gitignore",
            path.display()
        ));
    }
    let result = wire::Written {
        path,
        tokens: cut.tokens,
        truncated: cut.was_cut(),
        warnings: std::mem::take(warnings),
    };
    let text = render::written_text(&result);
    Ok(Output::pick(json, &result, text, result.warnings.clone()))
}

/// A warning for each of `found` (secrets of the content as given) that the state written,
/// `bytes` ending with the `kept` content, holds as `[redacted]`: its rule and line there.
fn redacted(found: &[secrets::Finding], bytes: &str, kept: &str, path: &Path) -> Vec<String> {
    let before = bytes
        .len()
        .checked_sub(kept.len())
        .and_then(|at| bytes.get(..at))
        .map_or(0, |head| head.matches('\n').count());
    let mut out = Vec::new();
    // Where each `[redacted]` is in the content written: earlier ones changed its length.
    let mut shift: isize = 0;
    for f in found {
        let at = f.range.start.saturating_add_signed(shift);
        shift += secrets::REDACTED.len() as isize - f.range.len() as isize;
        // Past the token bound: not written at all.
        let Some(head) = kept.get(..at).filter(|_| at < kept.len()) else {
            continue;
        };
        out.push(format!(
            "a secret ({}) in the state is written as {} ({}:{})",
            f.source.name(),
            secrets::REDACTED,
            path.display(),
            before + head.matches('\n').count() + 1
        ));
    }
    out
}

fn show(env: &Env, domain: &Domain, json: bool) -> Result<Output> {
    let (mut warnings, mut hidden) = (Vec::new(), Vec::new());
    let view = load_state(&env.deps(), domain, &mut warnings, &mut hidden);
    warnings.extend(hidden.iter().map(Hidden::warning));
    let text = render::shown_text(view.as_ref());
    let shown = wire::Shown {
        state: view.as_ref().map(Into::into),
        warnings: warnings.clone(),
    };
    Ok(Output::pick(json, &shown, text, warnings))
}

fn clear(env: &Env, domain: &Domain, json: bool) -> Result<Output> {
    let path = domain.state_path();
    let repo = env.repo(&domain.dir);
    let cleared = {
        let _lock = crate::megg::lock(repo.as_ref(), &domain.boundary, &path)?;
        history::keep_current(
            repo.as_ref(),
            domain,
            fsx::user_cache_dir().as_deref(),
            None,
            env.clock.now(),
        );
        fsx::remove_file(&domain.boundary, &path)?
    };
    let result = wire::Cleared { cleared, path };
    let text = render::cleared_text(&result);
    Ok(Output::pick(json, &result, text, Vec::new()))
}
