//! `megg context` (SPEC §3): the chain, knowledge and active state, as markdown, JSON or the
//! SessionStart hook document — which is printed whatever happens.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::claude::HookInput;
use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::host::Agent;
use crate::megg::capture::store::Run;
use crate::megg::capture::{self, SessionId};
use crate::megg::context::{self as ctx, Request};
use crate::output::Output;
use crate::render::context::{self as render, CLAUDE_CODE_LIMIT, DEFAULT_MAX_CHARS, MIN_MAX_CHARS};

/// Environment variable for the hook budget.
pub const MAX_CHARS_ENV: &str = "MEGG_HOOK_MAX_CHARS";

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Directory to load context for [default: the current directory]
    pub path: Option<PathBuf>,

    /// Only knowledge entries with this topic (whole-word, case-insensitive), in full
    #[arg(long)]
    pub topic: Option<String>,

    /// The SessionStart hook document of --agent (same as --format hook), not the context's
    /// data: for that, use --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// Output format
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// Character budget for the markdown (hook default: 9500, or MEGG_HOOK_MAX_CHARS)
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,

    /// The agent whose SessionStart hook runs this (hook format): its input and its document
    #[arg(long, value_enum, default_value_t = Agent::Claude)]
    pub agent: Agent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown, for people and agents running the CLI
    Md,
    /// The structured result
    Json,
    /// The SessionStart hook document of --agent
    Hook,
}

impl Args {
    fn format(&self) -> Format {
        if self.json {
            Format::Hook
        } else {
            self.format.unwrap_or(Format::Md)
        }
    }

    fn request(&self, env: &Env, with_fallbacks: bool) -> Result<Request> {
        if let Some(t) = &self.topic
            && t.trim().is_empty()
        {
            return Err(Error::usage("--topic needs a non-empty topic"));
        }
        Ok(Request {
            path: self
                .path
                .as_deref()
                .map_or_else(|| env.cwd.clone(), |p| env.resolve(p)),
            topic: self.topic.as_ref().map(|t| t.trim().to_string()),
            with_fallbacks,
            own_capture: None,
            host_summary: !env.host_summary_off,
        })
    }
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    match args.format() {
        Format::Hook => Ok(Output::text(hook(env, args, Vec::new(), None) + "\n")),
        Format::Json => {
            let context = named_hidden(build(env, &args.request(env, false)?)?);
            let text = render::markdown(&context, None, false).text + "\n";
            Ok(Output::pick(
                true,
                &crate::wire::context::ContextDoc::from(&context),
                text,
                Vec::new(),
            ))
        }
        Format::Md => {
            if let Some(n) = args.max_chars
                && n < MIN_MAX_CHARS
            {
                return Err(Error::usage(format!(
                    "--max-chars {n} is below the minimum of {MIN_MAX_CHARS}"
                )));
            }
            let context = named_hidden(build(env, &args.request(env, args.max_chars.is_some())?)?);
            let rendered = render::markdown(&context, args.max_chars, false);
            Ok(Output::text(rendered.text + "\n").with_warnings(context.warnings))
        }
    }
}

/// The context for `req`, with the config file's problems (SPEC §9) first among its warnings.
fn build(env: &Env, req: &Request) -> Result<ctx::Context> {
    let mut context = ctx::build(&env.deps(), req)?;
    context
        .warnings
        .splice(0..0, env.config_warnings.iter().cloned());
    Ok(context)
}

/// `context` with a warning per secret it shows as `[redacted]`, naming its file and line
/// (SPEC §12): on stderr, in the JSON document's `warnings`. The hook says them in one
/// sentence instead.
fn named_hidden(mut context: ctx::Context) -> ctx::Context {
    let named = context.hidden.iter().map(|h| h.warning());
    context.warnings.extend(named);
    context
}

/// The session a SessionStart hook runs for, from its input (SPEC §3.3).
#[derive(Debug, Clone)]
pub struct Session {
    pub id: SessionId,
    /// `compact` or `resume`: the session goes on, so its own capture is its state.
    pub resumed: bool,
    /// Record the session's start (capture is on).
    pub record: bool,
    /// The prompt the host handed the hook (Copilot's `initialPrompt`).
    pub prompt: Option<String>,
    /// This run of the host's SessionStart: two of megg's hooks running it (user scope and a
    /// project's, SPEC §7) share it, and only the first answers.
    pub run: Run,
}

impl Session {
    /// The session of `agent` an input names.
    pub fn of(input: &HookInput, agent: Agent, capture_on: bool) -> Option<Self> {
        Some(Self {
            id: SessionId::of(agent, input.session_id.as_deref()?)?,
            prompt: input.initial_prompt.clone(),
            // The source matters: a `compact` or `clear` later in the session is another run,
            // and so is one after the transcript grew.
            run: {
                let transcript = input.transcript_path.as_deref().filter(|p| p.is_absolute());
                Run::of(
                    agent.host().start_event,
                    &[
                        input.source.as_deref(),
                        input.initial_prompt.as_deref(),
                        input.timestamp.as_deref(),
                    ],
                    transcript,
                )
                .as_transcript_is(transcript)
            },
            resumed: matches!(input.source.as_deref(), Some("compact" | "resume")),
            // A session's start is recorded when it starts; a compact or resume in the middle
            // of one must not make what it finds now look like what it found then.
            record: capture_on && !matches!(input.source.as_deref(), Some("compact" | "resume")),
        })
    }
}

/// The hook document for `env`. Problems found before this point (invalid environment
/// values) are passed in and reported in `systemMessage`. With a session, its start is
/// recorded and, after `compact` or `resume`, its own capture is the state (SPEC §10).
pub fn hook(
    env: &Env,
    args: &Args,
    mut problems: Vec<String>,
    session: Option<&Session>,
) -> String {
    if let Some(s) = session
        && answered_already(env, args, s)
    {
        // Another of megg's hooks answers this same run: an empty document, so the model
        // gets the context once.
        return "{}".into();
    }
    let max = hook_budget(args.max_chars, &mut problems);
    let request = args.request(env, true).map(|mut req| {
        if let Some(s) = session {
            if s.record {
                // Recording the start is not the context: whatever happens in it, the context
                // still loads (SPEC §16).
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    capture::record_start(&env.deps(), &req.path, &s.id, s.prompt.as_deref());
                }));
            }
            if s.resumed {
                req.own_capture = Some(s.id.clone());
            }
        }
        req
    });
    let host = args.agent.host();
    let context = match request.and_then(|req| build(env, &req)) {
        Ok(c) => c,
        Err(e) => return failure_document(args.agent, &e.message),
    };
    // A host that previews long output by its bytes gets a budget in bytes (SPEC §12).
    let limit = match host.max_bytes {
        Some(bytes) => (max.min(bytes), render::Unit::Utf8),
        None => (max, render::Unit::Utf16),
    };
    let mut context = context;
    let mut last = String::new();
    for fewer in Fewer::ALL {
        fewer.apply(&mut context, &last);
        let rendered = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let rendered = render::markdown_in(&context, Some(limit), true);
            let message = render::system_message(&context, &rendered, &problems);
            crate::host::hook_document(host, &message, &rendered.text)
        }));
        match rendered {
            Ok(document) => return document,
            Err(panic) => last = crate::error::panic_message(&*panic),
        }
    }
    failure_document(
        args.agent,
        &format!("internal error ({last}); please report it"),
    )
}

/// Whether another invocation of megg's hook already claimed this run of the session (SPEC
/// §7 "one megg per session"). Only where there is a `.megg` (nothing is written into a
/// repository the user merely opened) and capture is on (`MEGG_CAPTURE=off` writes nothing in
/// the session files); never a reason to fail. The claim is kept: a twin that starts while
/// this one renders, or after, within the window, answers `{}`.
fn answered_already(env: &Env, args: &Args, session: &Session) -> bool {
    if env.capture_off {
        return false;
    }
    let path: PathBuf = args
        .path
        .as_deref()
        .map_or_else(|| env.cwd.clone(), |p: &Path| env.resolve(p));
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        let deps = env.deps();
        let place = capture::place(&deps, &path);
        match (place.domain, place.sessions) {
            (Some(_), Some(sessions)) => !sessions.claim(&session.id, session.run, deps.now).first,
            _ => false,
        }
    }))
    .unwrap_or(false)
}

/// What the hook leaves out when rendering the whole context failed inside megg (SPEC §16):
/// first the knowledge, then everything but the handoff, each said in one warning line.
#[derive(Debug, Clone, Copy)]
enum Fewer {
    Nothing,
    Knowledge,
    AllButTheHandoff,
}

impl Fewer {
    const ALL: [Self; 3] = [Self::Nothing, Self::Knowledge, Self::AllButTheHandoff];

    fn apply(self, context: &mut ctx::Context, why: &str) {
        match self {
            Fewer::Nothing => {}
            Fewer::Knowledge => {
                if let Some(k) = context.knowledge.take() {
                    context.warnings.push(ctx::failed_part(&k.path, why));
                }
            }
            Fewer::AllButTheHandoff => {
                let file = context
                    .domain
                    .as_ref()
                    .map_or_else(|| context.path.clone(), |d| d.info_path());
                context.warnings.push(ctx::failed_part(&file, why));
                context.info = None;
                context
                    .chain
                    .retain(|l| context.domain.as_ref().is_some_and(|d| d.dir == l.dir));
                for l in &mut context.chain {
                    l.excerpt.clear();
                }
                context.files.clear();
                context.siblings.clear();
                context.children.clear();
                context.newer_captures.clear();
                context.host_summary = None;
                context.workflow = None;
                context.removed_worktrees.clear();
            }
        }
    }
}

/// The hook budget: `--max-chars`, else `MEGG_HOOK_MAX_CHARS`, else the default; clamped to
/// the minimum, with a warning above Claude Code's own limit.
fn hook_budget(flag: Option<usize>, problems: &mut Vec<String>) -> usize {
    let from_env = std::env::var(MAX_CHARS_ENV)
        .ok()
        .and_then(|v| match v.trim().parse() {
            Ok(n) => Some(n),
            Err(_) => {
                problems.push(format!(
                    "{MAX_CHARS_ENV}='{v}' is not a number; using {DEFAULT_MAX_CHARS}"
                ));
                None
            }
        });
    let max = flag.or(from_env).unwrap_or(DEFAULT_MAX_CHARS);
    if max < MIN_MAX_CHARS {
        problems.push(format!(
            "a {max}-character budget is below the minimum; using {MIN_MAX_CHARS}"
        ));
        return MIN_MAX_CHARS;
    }
    if max > CLAUDE_CODE_LIMIT {
        problems.push(format!(
            "a {max}-character budget is over Claude Code's {CLAUDE_CODE_LIMIT}: it will show the model only a 2 KB preview"
        ));
    }
    max
}

/// The hook document, in `agent`'s shape, when no context could be built at all.
pub fn failure_document(agent: Agent, problem: &str) -> String {
    crate::host::hook_document(
        agent.host(),
        &format!("MEGG: no context loaded: {problem}"),
        &format!("megg could not load project context: {problem}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_defaults_clamps_and_warns() {
        let mut p = Vec::new();
        assert_eq!(hook_budget(Some(5000), &mut p), 5000);
        assert!(p.is_empty());
        assert_eq!(hook_budget(Some(10), &mut p), MIN_MAX_CHARS);
        assert_eq!(p.len(), 1);
        assert_eq!(hook_budget(Some(20_000), &mut p), 20_000);
        assert_eq!(p.len(), 2);
    }
}
