//! `megg setup [--agent HOST]... [--scope project|user] [--uninstall] [--no-capture]
//! [--dry-run] [--json]` (SPEC §7, §10, §12): install, for each host, the session-start hook
//! (and Claude Code's capture hooks), the commands, the MCP registration; and once for all of
//! them the gitignore block and the merge driver (SPEC §11) — merged into what is there,
//! idempotent, backed up, and exactly undoable. The shared pieces go with the last host. The
//! whole plan is checked before anything is written, and the run carries out that plan.

use std::collections::BTreeSet;
use std::path::Path;

use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::host::{Agent, Homes};
use crate::megg::setup::hosts_record::Record;
use crate::megg::setup::plan::{Places, Planned};
use crate::megg::setup::{
    Action, Platform, Scope, active, claude, hosts, plan, refuse, shared, trust,
};
use crate::output::Output;
use crate::shell::shell_quote;
use crate::wire::setup::{Change, Report};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The agent CLI to set megg up for (repeat for several)
    #[arg(long = "agent", value_enum, value_name = "HOST")]
    pub agents: Vec<Agent>,
    /// Where to install
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    pub scope: Scope,
    /// Remove exactly what setup added
    #[arg(long)]
    pub uninstall: bool,
    /// Leave out the capture hooks (those that run `megg capture`) and remove any setup
    /// installed before: capture off
    #[arg(long)]
    pub no_capture: bool,
    /// Keep and inject none of the hosts' own compaction summaries: sets `host_summary =
    /// false` in megg's user config
    #[arg(long)]
    pub no_host_summary: bool,
    /// Print what would change; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Add megg's hook or MCP server even where megg is already active from another place
    #[arg(long)]
    pub force: bool,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    let homes = Homes::from_env();
    // megg's own path: the merge driver (SPEC §11) and, at user scope, the hooks run it.
    let exe = std::env::current_exe()
        .map(fsx::as_spelled)
        .map_err(|e| Error::user(format!("cannot find megg's own path: {e}")))?
        .display()
        .to_string();
    // How the hosts on this machine run the hooks (SPEC §15.1): the planner takes it as input.
    let platform = Platform::current();
    let mut agents: Vec<Agent> = Vec::new();
    for a in &args.agents {
        if !agents.contains(a) {
            agents.push(*a);
        }
    }
    if agents.is_empty() {
        agents.push(Agent::Claude);
    }
    // A Claude Code too old for the exec form gets shell lines on Windows (SPEC §15.1).
    let wants_exec = platform == Platform::Windows && !args.uninstall;
    let claude_version =
        (wants_exec && agents.contains(&Agent::Claude)).then(crate::claude::version);
    let active = active::Places {
        project: project.root.clone(),
        user_dir: homes.claude.clone(),
        user_json: crate::claude::user_json(),
    };
    // The hosts megg is set up for in this scope, before and after this run: the shared pieces
    // go only with the last of them.
    let record = Record::at(project, args.scope, homes.megg.as_deref());
    let before: BTreeSet<Agent> = record
        .read()
        .into_iter()
        .chain(shared::detected(project, args.scope, &homes, &active))
        .collect();
    let after: BTreeSet<Agent> = if args.uninstall {
        before
            .difference(&agents.iter().copied().collect())
            .copied()
            .collect()
    } else {
        before.iter().chain(&agents).copied().collect()
    };

    // Project files are locked under the repository's git directory; user-scope files are the
    // user's, not the project's: their locks never go into this repository's git directory.
    let repo = match args.scope {
        Scope::Project => project.repo.as_ref(),
        Scope::User => None,
    };
    let mut warnings = Vec::new();
    let mut trust = Vec::new();
    let mut groups: Vec<(Places, Vec<Planned>)> = Vec::new();
    let mut mcp_command = None;
    let mut roots = Vec::new();
    // Plan everything first: an invalid file stops the run before anything is written.
    for &agent in &agents {
        let host = agent.host();
        let home = homes.of(agent).map(Path::to_path_buf);
        let user_home = || {
            home.clone().ok_or_else(|| {
                Error::user(format!(
                    "HOME is not set: no user directory for {}",
                    host.name
                ))
                .with_hint("set HOME, or use --scope project")
            })
        };
        let dir = match args.scope {
            Scope::Project => host.dir(false, &project.root, Path::new("")),
            Scope::User => user_home()?,
        };
        roots.push(dir.clone());
        let places = Places {
            claude: match args.scope {
                Scope::Project => project.boundary(),
                Scope::User => fsx::Boundary::user(&dir, host.name),
            },
            project: project.boundary(),
            backups: shared::backups(project, args.scope, &dir),
            repo,
        };
        let planned = if agent == Agent::Claude {
            let t = claude::Target {
                scope: args.scope,
                root: dir.clone(),
                exe: &exe,
                platform,
                claude_version,
                active: &active,
                uninstall: args.uninstall,
                force: args.force,
                no_capture: args.no_capture,
            };
            let plan = claude::plan(&t, &places.claude, &mut warnings)?;
            mcp_command = plan.mcp_command;
            plan.planned
        } else {
            let home = match args.scope {
                Scope::Project => home.unwrap_or_default(),
                Scope::User => dir.clone(),
            };
            let t = hosts::Target {
                host,
                scope: args.scope,
                project,
                home: &home,
                exe: &exe,
                uninstall: args.uninstall,
                force: args.force,
                no_capture: args.no_capture,
                platform,
            };
            hosts::plan(&t, &mut warnings)?
        };
        if !args.uninstall {
            let steps = trust::steps(host, args.scope, &project.root);
            if !steps.is_empty() && args.scope == Scope::Project {
                trust.extend(steps);
                trust.push(format!(
                    "{}: {}",
                    host.name,
                    trust::reach(&trust::others(host, project))
                ));
            } else {
                trust.extend(steps);
            }
        }
        groups.push((places, planned));
    }

    // The shared pieces' backups at user scope (the global git config's) stay where SPEC §7
    // keeps user-scope backups: ~/.claude/.megg-backups/.
    let shared_dir = match args.scope {
        Scope::Project => Some(project.root.clone()),
        Scope::User => homes.claude.clone(),
    };
    let shared = Places {
        claude: project.boundary(),
        project: project.boundary(),
        backups: shared_dir.and_then(|d| shared::backups(project, args.scope, &d)),
        repo,
    };
    let run = shared::Run {
        scope: args.scope,
        uninstall: args.uninstall,
        force: args.force,
    };
    let (shared_planned, mut records) = shared::plan(
        project,
        &run,
        &agents,
        &after,
        &active,
        &homes,
        &exe,
        &mut warnings,
    )?;
    groups.push((shared, shared_planned));
    refuse::refuse_or_skip(
        &mut groups,
        &agents,
        &mut records,
        &record,
        &after,
        refuse::Run {
            uninstall: args.uninstall,
            scope: args.scope,
        },
        &mut warnings,
    )?;

    if !args.dry_run {
        let now = env.clock.now().format("%Y%m%dT%H%M%SZ").to_string();
        // The hosts' own files first; a shared piece that fails at the last moment (the
        // planner saw it writable) is skipped with a warning, never failing the hosts already
        // installed half-way.
        let last = groups.len() - 1;
        for (i, (places, planned)) in groups.iter_mut().enumerate() {
            for p in planned {
                match plan::apply(places, p, &now) {
                    Err(e) if i == last => refuse::skip(p, &e.message, &mut records, &mut warnings),
                    other => other?,
                }
            }
        }
        for r in &records {
            r.save(args.uninstall)?;
        }
        record.write(&after)?;
        if let Some(argv) = &mcp_command {
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            if crate::claude::run(&argv) {
                mcp_command = None;
            }
        }
    }
    let mut changes: Vec<Change> = groups
        .into_iter()
        .flat_map(|(_, planned)| planned)
        .map(|p| Change {
            path: p.path,
            action: p.action,
            what: p.what,
        })
        .collect();
    if args.no_host_summary && !args.uninstall {
        changes.push(host_summary_off(args.dry_run)?);
    }
    let report = Report {
        scope: args.scope,
        agents,
        root: match args.scope {
            Scope::Project => project.root.clone(),
            Scope::User => roots.first().cloned().unwrap_or_default(),
        },
        uninstall: args.uninstall,
        dry_run: args.dry_run,
        changes,
        mcp_command: mcp_command.map(|argv| {
            let words: Vec<String> = argv.iter().map(|w| shell_quote(w)).collect();
            format!("claude {}", words.join(" "))
        }),
        trust,
        warnings,
    };
    let human = crate::render::setup::text(&report);
    Ok(Output::pick(
        args.json,
        &report,
        human,
        report.warnings.clone(),
    ))
}

/// `--no-host-summary`: `host_summary = false` in megg's user config (a dry run only says so).
fn host_summary_off(dry_run: bool) -> Result<Change> {
    let what = "host_summary = false (the hosts' compaction summaries: off)".to_string();
    let path = crate::config::path().ok_or_else(|| {
        Error::user("cannot find the config directory: neither XDG_CONFIG_HOME nor HOME is set")
    })?;
    if dry_run {
        let on = crate::config::host_summary(Path::new("/"));
        return Ok(Change {
            path,
            action: if on {
                Action::Update
            } else {
                Action::Unchanged
            },
            what,
        });
    }
    let (path, changed) = crate::config::set_host_summary(false)?;
    Ok(Change {
        path,
        action: if changed {
            Action::Update
        } else {
            Action::Unchanged
        },
        what,
    })
}
