//! `megg doctor [--json]` (SPEC §7): is megg wired into Claude Code and are its files healthy?
//! The checks are in [`crate::megg::doctor`]; this gathers their inputs and prints the report.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::env::Env;
use crate::error::Result;
use crate::megg::recall::hidden::{self, Hidden};
use crate::megg::setup::{Hook, Platform, merge};
use crate::megg::{doctor, doctor_hosts, doctor_team};
use crate::output::Output;
use crate::wire::doctor::Report;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    let claude_dirs: Vec<PathBuf> = std::iter::once(project.root.join(".claude"))
        .chain(crate::claude::user_dir())
        .collect();

    // Secrets shown `[redacted]` (SPEC §12), named on stderr: the report has no other place.
    let mut hidden = Vec::new();
    let (settings_check, settings) = doctor::settings(project, &claude_dirs);
    let plugin = doctor::plugin_enabled(&settings);
    let active = crate::megg::setup::active::Places {
        project: project.root.clone(),
        user_dir: crate::claude::user_dir(),
        user_json: crate::claude::user_json(),
    };
    let mut checks = vec![
        settings_check,
        doctor::hook(&settings, plugin, &active.hooks(Hook::Context), resolve),
        doctor::capture(
            project,
            &settings,
            &active.hooks(Hook::Capture),
            env.capture_off,
            last_capture(env, &mut hidden),
        ),
    ];
    checks.extend(doctor::exec_form(&settings, || {
        crate::claude::version().version()
    }));
    checks.extend(doctor::installed(project, &claude_dirs, plugin));
    // A user-scope setup registers the server with Claude Code's CLI (megg never edits
    // ~/.claude.json), so that is the fix to print there.
    let mcp_fix = if doctor::hooks_in_user_scope(project, &active.hooks(Hook::Context)) {
        let megg = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "megg".into());
        format!(
            "claude mcp add --scope user megg -- {} mcp",
            crate::shell::shell_quote(&megg)
        )
    } else {
        "megg setup".into()
    };
    checks.push(doctor::mcp(&active.servers(), &mcp_fix));
    // Every other host megg was set up for (SPEC §12).
    // On Windows, each host's hooks in the form it runs there (SPEC §15.1).
    let (homes, platform) = (crate::host::Homes::from_env(), Platform::current());
    checks.extend(doctor_hosts::checks(project, &homes, resolve, platform));
    checks.extend(doctor_hosts::windows_forms(
        project, &homes, resolve, platform,
    ));
    checks.extend(doctor::gitignore(project));
    checks.push(doctor::checkpoints(project));

    let top = env.top(&env.cwd);
    let mut refused = env.config_warnings.clone();
    let domain = env.walk(&top).current_domain(&env.cwd, &mut refused);
    checks.push(doctor::domain(domain.as_ref(), &env.cwd));
    checks.push(doctor::files(domain.as_ref(), refused));
    if let Some(domain) = &domain {
        checks.push(doctor::expired_state(domain, env.clock.now()));
        checks.push(doctor::knowledge(domain, &env.tokens));
    }
    // Team knowledge that merges (SPEC §11): the driver where the attributes name it, and no
    // file left holding a conflict.
    if let Some(repo) = &project.repo {
        let global = crate::git::global_config_path();
        let effective = merge::Effective::read(repo, global.as_deref());
        let files = doctor_team::megg_files(project, domain.as_ref());
        checks.push(doctor_team::merge_driver(
            &files,
            &effective,
            resolve,
            probe_merge_driver,
        ));
        checks.extend(doctor_team::conflicts(project, repo, &files));
    }

    let report = Report::from(checks.as_slice());
    let text = crate::render::doctor::text(&report);
    let mut out = Output::pick(args.json, &report, text, Vec::new())
        .with_warnings(hidden.iter().map(Hidden::warning).collect());
    out.code = u8::from(!report.ok);
    Ok(out)
}

/// The capture log's last line (SPEC §10: doctor shows it), as `<time>, session <id>
/// (<event>): <what happened and why>`.
/// With it, the host's last compaction summary kept (SPEC §18.1), or that summaries are off;
/// what it shows of one an older megg kept is redacted, each secret noted in `hidden`.
fn last_capture(env: &Env, hidden: &mut Vec<Hidden>) -> Option<String> {
    let sessions = crate::megg::capture::place(&env.deps(), &env.cwd).sessions?;
    let line = sessions.last_log()?;
    let f: Vec<&str> = line.splitn(5, '\t').collect();
    let mut text = match f.as_slice() {
        [at, session, event, _, why] => format!("{at}, session {session} ({event}): {why}"),
        _ => line,
    };
    if env.host_summary_off {
        text.push_str("; host summaries are off (MEGG_HOST_SUMMARY=off or host_summary = false)");
    } else if let Some(k) = crate::megg::capture::kept_summary::newest(&sessions) {
        let at = k.found.at.as_deref().map_or_else(
            || "time unknown".to_string(),
            |at| hidden::redact_value(&k.path, at, hidden),
        );
        text.push_str(&format!(
            "; last host summary kept: {} of session {}, {at} ({} characters), {}",
            k.found.source.label(),
            k.session,
            k.found.text.chars().count(),
            k.path.display()
        ));
    }
    Some(text)
}

/// Where a hook's program is ([`crate::probe::which`]).
fn resolve(program: &str) -> Option<PathBuf> {
    crate::probe::which(program)
}

/// Longest doctor waits for `<driver> merge-driver --help`.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Runs `program merge-driver --help` directly (no shell, stdin closed) for at most
/// [`PROBE_TIMEOUT`]: `Ok` when it exits 0 and its output mentions `merge-driver`, as megg's
/// does; else why not.
fn probe_merge_driver(program: &Path) -> std::result::Result<(), String> {
    let answer = crate::probe::ask(program, &["merge-driver", "--help"], PROBE_TIMEOUT)?;
    if !answer.status.success() {
        return Err(format!("`merge-driver --help` failed ({})", answer.status));
    }
    let said = [answer.stdout, answer.stderr].concat();
    if !String::from_utf8_lossy(&said).contains("merge-driver") {
        return Err("`merge-driver --help` does not describe megg's merge driver".into());
    }
    Ok(())
}
