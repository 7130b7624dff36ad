//! `megg capture` (SPEC §10): the PreCompact, SessionEnd and Stop hooks' command. It reads
//! Claude Code's hook input on stdin and captures the session's handoff; like the SessionStart
//! hook it never fails, and it prints nothing unless asked for a `--dry-run` report.

use crate::claude::{self, HookInput};
use crate::env::Env;
use crate::megg::capture::{self, SessionId};
use crate::render::capture as render;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Print the handoff it would write, where, and whether it would promote it to state.md;
    /// write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Runs one capture; returns what to print (only a dry run prints anything).
pub fn run(env: &Env, args: &Args, input: Option<&HookInput>) -> String {
    let Some(input) = input else {
        return render::note(
            args.dry_run,
            "no hook input on stdin: `megg capture` is run by Claude Code's PreCompact, SessionEnd and Stop hooks, which pass it the session",
        );
    };
    let Some(session) = input.session_id.as_deref().and_then(SessionId::parse) else {
        return render::note(args.dry_run, "the hook input has no valid session_id");
    };
    let req = capture::Request {
        agent: crate::host::Agent::Claude,
        tasks_dir: claude::task_list_dir(session.as_str()),
        session,
        event: input
            .hook_event_name
            .clone()
            .unwrap_or_else(|| "manual".into()),
        cwd: env.cwd.clone(),
        transcript: input.transcript_path.clone().filter(|p| p.is_absolute()),
        last_message: input.last_assistant_message.clone(),
        dry_run: args.dry_run,
    };
    let outcome = capture::capture(&env.deps(), &req);
    if args.dry_run {
        render::dry_run(&outcome)
    } else {
        String::new()
    }
}
