//! The SessionStart hook's entry point (SPEC §3.3): exactly one JSON document on stdout,
//! nothing on stderr, exit 0 — whatever happens, a panic included. The document itself is
//! built by [`crate::commands::context::hook`].

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

use crate::claude::HookInput;
use crate::cli::{Cli, Command};
use crate::clock::Clock;
use crate::commands::capture;
use crate::commands::context::{Session, failure_document, hook};
use crate::env::Env;
use crate::host::Agent;

/// The first command word and the arguments after it (global options skipped).
fn command_word(args: &[OsString]) -> Option<(String, Vec<String>)> {
    let args: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut rest = args.as_slice();
    while let Some((a, after)) = rest.split_first() {
        if a == "-C" || a == "--color" {
            rest = after.get(1..).unwrap_or_default();
            continue;
        }
        if a.starts_with('-') {
            rest = after;
            continue;
        }
        return Some((a.clone(), after.to_vec()));
    }
    None
}

/// Whether these arguments ask for the hook format: the first command word is `context` and
/// `--json` or `--format hook` is present. Such runs never fail (SPEC §3.3).
pub fn is_invocation(args: &[OsString]) -> bool {
    let Some((word, rest)) = command_word(args) else {
        return false;
    };
    word == "context"
        && rest.iter().enumerate().any(|(j, a)| {
            a == "--json"
                || a == "--format=hook"
                || (a == "--format" && rest.get(j + 1).is_some_and(|v| v == "hook"))
        })
}

/// Whether these arguments run `megg capture`, which never fails either (SPEC §10).
pub fn is_capture(args: &[OsString]) -> bool {
    command_word(args).is_some_and(|(word, _)| word == "capture")
}

/// Runs `megg capture`: exit 0 whatever happens, nothing on stderr, and on stdout only a
/// `--dry-run` report (or `--help`).
pub fn capture_main(args: Vec<OsString>) -> u8 {
    crate::error::quiet_panics();
    // A hook never waits on a file another program holds (SPEC §15.1).
    crate::fsx::never_wait();
    let text = std::panic::catch_unwind(|| capture_from_args(args)).unwrap_or_default();
    if !text.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(crate::render::terminal_safe(&text).as_bytes());
        let _ = out.flush();
    }
    0
}

fn capture_from_args(args: Vec<OsString>) -> String {
    crate::failpoint::panic_at("capture");
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => return e.render().to_string(),
        Err(_) => return String::new(),
    };
    let Command::Capture(mut args) = cli.command else {
        return String::new();
    };
    let input = HookInput::from_stdin_up_to(crate::fsx::MAX_STDIN_BYTES);
    let clock = Clock::from_env().unwrap_or_else(|_| Clock::system());
    let dir = cli.dir.or_else(|| {
        input
            .as_ref()
            .and_then(|i| i.cwd.clone())
            .filter(|d| d.is_absolute())
    });
    let Ok(env) = Env::with_clock(dir.as_deref(), clock) else {
        return crate::render::capture::note(args.dry_run, "its directory does not exist");
    };
    if env.capture_off {
        return crate::render::capture::note(args.dry_run, "capture is off (MEGG_CAPTURE=off)");
    }
    // One megg per session (SPEC §12): a Claude-format capture hook that Copilot CLI runs
    // captures Copilot's session — unless megg's own Copilot hooks do.
    if args.agent == Agent::Claude && input.as_ref().is_some_and(HookInput::is_copilot) {
        let homes = crate::host::Homes::from_env();
        let root = env.project().root.clone();
        if crate::megg::setup::hosts::registered_anywhere(
            Agent::Copilot.host(),
            &root,
            homes.copilot.as_deref(),
            crate::megg::setup::Hook::Capture,
        ) {
            return String::new();
        }
        args.agent = Agent::Copilot;
    }
    let text = capture::run(&env, &args, input.as_ref());
    env.tokens.flush();
    text
}

/// Runs the hook format: exactly one JSON document on stdout, nothing on stderr, exit 0 —
/// whatever happens, a panic included.
pub fn main(args: Vec<OsString>) -> u8 {
    crate::error::quiet_panics();
    // A hook never waits on a file another program holds (SPEC §15.1).
    crate::fsx::never_wait();
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let agent = Agent::from_args(&words);
    let document =
        std::panic::catch_unwind(|| hook_from_args(args, agent)).unwrap_or_else(|panic| {
            let what = crate::error::panic_message(&*panic);
            failure_document(agent, &format!("internal error ({what}); please report it"))
        });
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{document}");
    let _ = out.flush();
    0
}

fn hook_from_args(args: Vec<OsString>, agent: Agent) -> String {
    crate::failpoint::panic_at("hook");
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            return failure_document(agent, first.trim_start_matches("error: "));
        }
    };
    let Command::Context(args) = cli.command else {
        return failure_document(agent, "not a context command");
    };
    let mut problems = Vec::new();
    let clock = Clock::from_env().unwrap_or_else(|e| {
        problems.push(format!("{}; using the system clock", e.message));
        Clock::system()
    });
    let input = HookInput::from_stdin().unwrap_or_default();
    // Claude Code's `cwd` is where the session works, unless -C or PATH says otherwise.
    let dir = match (&cli.dir, &args.path) {
        (None, None) => input.cwd.clone().filter(|d| d.is_absolute()),
        _ => cli.dir.clone(),
    };
    let env = match Env::with_clock(dir.as_deref(), clock) {
        Ok(env) => env,
        Err(e) => return failure_document(agent, &e.message),
    };
    // One megg per session (SPEC §12): Copilot CLI also runs the Claude-format hooks of a
    // trusted folder. When its own megg hook is registered too, this call does nothing;
    // otherwise it answers in Copilot's shape.
    let mut args = args;
    if args.agent == Agent::Claude && input.is_copilot() {
        let copilot = Agent::Copilot.host();
        let homes = crate::host::Homes::from_env();
        let root = env.project().root.clone();
        if crate::megg::setup::hosts::registered_anywhere(
            copilot,
            &root,
            homes.copilot.as_deref(),
            crate::megg::setup::Hook::Context,
        ) {
            return "{}".into();
        }
        args.agent = Agent::Copilot;
    }
    let session = Session::of(&input, args.agent, !env.capture_off);
    let document = hook(&env, &args, problems, session.as_ref());
    env.tokens.flush();
    document
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn hook_invocations_are_recognised() {
        assert!(is_invocation(&os(&["megg", "context", "--json"])));
        assert!(is_invocation(&os(&[
            "megg", "-C", "x", "context", "p", "--json"
        ])));
        assert!(is_invocation(&os(&["megg", "context", "--format", "hook"])));
        assert!(is_invocation(&os(&[
            "megg",
            "context",
            "--format=hook",
            "--bogus"
        ])));
        assert!(!is_invocation(&os(&["megg", "context"])));
        assert!(!is_invocation(&os(&[
            "megg", "context", "--format", "json"
        ])));
        assert!(!is_invocation(&os(&[
            "megg", "-C", "context", "state", "--json"
        ])));
        assert!(!is_invocation(&os(&["megg", "state", "--json"])));
    }
}
