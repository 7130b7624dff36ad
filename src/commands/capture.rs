//! `megg capture` (SPEC §10, §12): the command of each host's capture hooks (Claude Code's
//! PreCompact, PostCompact, SessionEnd and Stop; Codex's, Gemini's and Copilot's of the §12 table). It reads
//! the host's hook input on stdin and captures the session's handoff; like the SessionStart
//! hook it never fails, and it prints nothing unless asked for a `--dry-run` report.

use std::path::PathBuf;

use crate::claude::{self, HookInput};
use crate::env::Env;
use crate::host::{Agent, Homes};
use crate::megg::capture::store::{Claim, Run};
use crate::megg::capture::{self, SessionId, Sessions};
use crate::render::capture as render;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Print the handoff it would write, where, and whether it would promote it to state.md;
    /// write nothing
    #[arg(long)]
    pub dry_run: bool,

    /// The agent whose hook runs it: its input fields and transcript format
    #[arg(long, value_enum, default_value_t = Agent::Claude)]
    pub agent: Agent,

    /// Note the work tree's dirty files for the agent's sessions that just started (what the
    /// SessionStart hook runs in the background; reads no hook input)
    #[arg(long, hide = true)]
    pub snapshot: bool,
}

/// Runs one capture; returns what to print (only a dry run prints anything).
pub fn run(env: &Env, args: &Args, input: Option<&HookInput>) -> String {
    if args.snapshot {
        capture::take_snapshots(&env.deps(), &env.cwd, args.agent);
        return String::new();
    }
    // `None`: stdin was empty, a terminal, or not one JSON object (hook.rs reads and parses it
    // before this runs, and tells these apart for no one).
    let Some(input) = input else {
        let mut text = render::note(
            args.dry_run,
            "stdin is not hook input (it is empty, or not JSON): `megg capture` expects the JSON object an agent's hook sends, such as {\"session_id\": \"…\", \"transcript_path\": \"/abs/….jsonl\", \"cwd\": \"/abs/dir\", \"hook_event_name\": \"Stop\"}",
        );
        if args.dry_run {
            text.push_str("hint: megg capture is run by the capture hooks `megg setup --agent <agent>` installs (Claude Code's PreCompact, PostCompact, SessionEnd and Stop); to try it by hand, pipe such an object in: echo '{\"session_id\": \"s1\", \"transcript_path\": \"/abs/t.jsonl\"}' | megg capture --dry-run\n");
        }
        return text;
    };
    let Some(session) = input
        .session_id
        .as_deref()
        .and_then(|id| SessionId::of(args.agent, id))
    else {
        return render::note(args.dry_run, "the hook input has no session id");
    };
    // Copilot's prompt, as the user submitted it: its transcript may not hold it yet when the
    // session stops (SPEC §12), so it is kept in the session's start record.
    if args.agent == Agent::Copilot
        && let Some(prompt) = &input.prompt
    {
        if !args.dry_run {
            capture::record_prompt(&env.deps(), &env.cwd, &session, prompt);
        }
        return render::note(args.dry_run, "a prompt: kept for the session's handoff");
    }
    // Claude Code's `PostCompact` hands over the summary its model wrote (SPEC §18.1): kept
    // beside the session's file; the handoff itself was captured by `PreCompact`.
    if input.hook_event_name.as_deref() == Some("PostCompact") {
        return post_compact(env, args, &session, input);
    }
    let req = capture::Request {
        agent: args.agent,
        tasks_dir: match args.agent {
            Agent::Claude => claude::task_list_dir(session.as_str()),
            _ => None,
        },
        transcript: transcript(args.agent, input),
        event: input
            .hook_event_name
            .clone()
            .unwrap_or_else(|| event_of(input).into()),
        session,
        cwd: env.cwd.clone(),
        last_message: input
            .last_assistant_message
            .clone()
            .or_else(|| input.prompt_response.clone()),
        dry_run: args.dry_run,
        host_summary: !env.host_summary_off,
    };
    // One megg per session (SPEC §7): of two of megg's hooks running this same event at once
    // (user scope and a project's), only the first captures.
    let claim = (!args.dry_run).then(|| claim(env, &req, input)).flatten();
    if claim.as_ref().is_some_and(|(_, c)| !c.first) {
        return String::new();
    }
    let outcome = capture::capture(&env.deps(), &req);
    if let Some((sessions, claim)) = claim {
        sessions.release(claim);
    }
    if args.dry_run {
        render::dry_run(&outcome)
    } else {
        String::new()
    }
}

/// Keeps a `PostCompact` input's summary, unless summaries are off (SPEC §18.1).
fn post_compact(env: &Env, args: &Args, session: &SessionId, input: &HookInput) -> String {
    if env.host_summary_off {
        return render::note(
            args.dry_run,
            "host summaries are off (MEGG_HOST_SUMMARY=off, or host_summary = false in megg's config)",
        );
    }
    let deps = env.deps();
    let found = input
        .compact_summary
        .as_deref()
        .and_then(|raw| capture::kept_summary::from_hook(raw, deps.now));
    let Some(found) = found else {
        return render::note(
            args.dry_run,
            "PostCompact without a summary (or an empty one)",
        );
    };
    let place = capture::place(&deps, &env.cwd);
    let (Some(_), Some(sessions)) = (place.domain, place.sessions) else {
        return render::note(
            args.dry_run,
            "no .megg here to keep it for (run `megg init`)",
        );
    };
    if args.dry_run {
        return render::summary_dry_run(&sessions.summary_path(session), &found);
    }
    capture::kept_summary::keep_hook(&sessions, session, &found, deps.now);
    String::new()
}

/// This event of the session ([`Run`]) claimed for this capture, while it runs: a twin that
/// starts meanwhile does nothing; one that starts after finds nothing new to write.
fn claim(env: &Env, req: &capture::Request, input: &HookInput) -> Option<(Sessions, Claim)> {
    let deps = env.deps();
    let place = capture::place(&deps, &req.cwd);
    let (Some(_), Some(sessions)) = (place.domain, place.sessions) else {
        return None;
    };
    let fields = [req.last_message.as_deref(), input.trigger.as_deref()];
    let run = Run::of(&req.event, &fields, req.transcript.as_deref());
    let claim = sessions.claim(&req.session, run, deps.now);
    Some((sessions, claim))
}

/// The session's transcript: the input's (absolute) path; for Copilot, whose `sessionEnd`
/// names none, `<copilot home>/session-state/<sessionId>/events.jsonl` (SPEC §12).
fn transcript(agent: Agent, input: &HookInput) -> Option<PathBuf> {
    let given = input.transcript_path.clone().filter(|p| p.is_absolute());
    if given.is_some() || agent != Agent::Copilot {
        return given;
    }
    let id = input.session_id.as_deref()?;
    let plain = !id.is_empty()
        && id.len() <= 128
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let home = Homes::from_env().copilot.filter(|h| h.is_absolute())?;
    plain.then(|| home.join("session-state").join(id).join("events.jsonl"))
}

/// The event a hook input is from, for the log, where the host does not name it (Copilot's
/// own inputs).
fn event_of(input: &HookInput) -> &'static str {
    if input.trigger.is_some() {
        "preCompact"
    } else if input.transcript_path.is_some() {
        "agentStop"
    } else if input.session_id.is_some() {
        "sessionEnd"
    } else {
        "manual"
    }
}
