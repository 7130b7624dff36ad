//! `megg setup [--scope project|user] [--uninstall] [--no-capture] [--dry-run] [--json]`
//! (SPEC §7, §10): install the SessionStart hook, the capture hooks, the skill, the workflow
//! commands, the MCP registration, the gitignore block and the merge driver (SPEC §11) —
//! merged into what is there, idempotent, backed up, and exactly undoable.

use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::megg::gitignore;
use crate::megg::setup::{self, Hook, Scope, active, plan};
use crate::output::Output;
use crate::render::shell_quote;
use crate::templates::CLAUDE_FILES;
use crate::wire::setup::{Change, Report};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Where to install
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    pub scope: Scope,
    /// Remove exactly what setup added
    #[arg(long)]
    pub uninstall: bool,
    /// Leave out the capture hooks (PreCompact, SessionEnd, Stop) and remove any setup installed
    /// before: capture off
    #[arg(long)]
    pub no_capture: bool,
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
    // megg's own path: the merge driver (SPEC §11) and, at user scope, the hooks run it.
    let exe_path = std::env::current_exe()
        .map_err(|e| Error::user(format!("cannot find megg's own path: {e}")))?
        .display()
        .to_string();
    // The binary the MCP server (and, at user scope, the hooks) run.
    let (root, program) = match args.scope {
        Scope::Project => (project.root.join(".claude"), "megg".to_string()),
        Scope::User => {
            let dir = crate::claude::user_dir().ok_or_else(|| {
                Error::user("HOME is not set").with_hint("set HOME, or use --scope project")
            })?;
            (dir, shell_quote(&exe_path))
        }
    };
    // Project hooks live in a committed file: guarded plain `megg`. User hooks: the absolute path.
    let hook_command = |hook: Hook| match args.scope {
        Scope::Project => hook.project_command().to_string(),
        Scope::User => hook.command(&program),
    };
    let places = plan::Places {
        claude: match args.scope {
            Scope::Project => project.boundary(),
            Scope::User => fsx::Boundary::user(&root, "~/.claude"),
        },
        project: project.boundary(),
        backups: match (args.scope, &project.repo) {
            (Scope::Project, Some(repo)) => {
                let common = repo.common_dir();
                Some((
                    fsx::Boundary::new(&common, "the git directory"),
                    common.join("megg/backups"),
                ))
            }
            (Scope::User, _) => Some((
                fsx::Boundary::user(&root, "~/.claude"),
                root.join(".megg-backups"),
            )),
            (Scope::Project, None) => fsx::user_cache_dir().map(|c| {
                (
                    fsx::Boundary::new(&c, "megg's cache directory"),
                    c.join("backups"),
                )
            }),
        },
    };
    let mut warnings = Vec::new();
    let mut planned = Vec::new();

    // One megg per session: where megg is already active from another place, add no second
    // hook or server (the model would get its context twice, or see two servers).
    let active = active::Places {
        project: project.root.clone(),
        user_dir: crate::claude::user_dir(),
        user_json: crate::claude::user_json(),
    };
    let check_others = !args.uninstall && !args.force;
    let settings_path = root.join("settings.json");
    let elsewhere = |hook: Hook| -> Vec<_> {
        if !check_others {
            return Vec::new();
        }
        active
            .hooks(hook)
            .into_iter()
            .filter(|s| !matches!(s, active::Source::Settings(p) if *p == settings_path))
            .collect()
    };
    // --no-capture takes megg's capture hooks out of this file whatever runs elsewhere.
    let capture_off = args.no_capture && !args.uninstall;

    // Plan everything first: an invalid JSON file stops the run before anything is written.
    // megg's hooks in the settings file: each added, removed (--uninstall; the capture hooks
    // with --no-capture) or left out because megg already runs it from another place.
    let mut hooks = Vec::new();
    for (hook, verb) in [
        (Hook::Context, "hook is"),
        (Hook::Capture, "capture hooks are"),
    ] {
        let others = if hook == Hook::Capture && capture_off {
            Vec::new()
        } else {
            elsewhere(hook)
        };
        if others.is_empty() {
            hooks.push(hook);
        } else {
            warnings.push(already_active(verb, &others));
            planned.push(plan::skipped(&settings_path, hook.as_str()));
        }
    }
    if !hooks.is_empty() {
        // How the report names the change depends on what the edit finds: `what` comes after.
        let mut capture_removed = false;
        let mut p = plan::plan_json(&places.claude, &settings_path, args.uninstall, "", |v| {
            let mut changed = false;
            for &hook in &hooks {
                if args.uninstall || (hook == Hook::Capture && capture_off) {
                    let removed = setup::remove_hook(v, hook, &hook_command(hook));
                    capture_removed |= removed && hook == Hook::Capture;
                    changed |= removed;
                } else {
                    changed |= setup::add_hook(v, hook, &hook_command(hook))?;
                }
            }
            Ok(changed)
        })?;
        let parts: Vec<&str> = hooks
            .iter()
            .filter_map(|&hook| match hook {
                Hook::Capture if capture_off => {
                    capture_removed.then_some("capture hooks removed (--no-capture)")
                }
                _ => Some(hook.as_str()),
            })
            .collect();
        // --no-capture with nothing to remove, and the SessionStart hook active elsewhere:
        // nothing of megg's is in this file to report.
        if !parts.is_empty() {
            p.what = parts.join(", ");
            planned.push(p);
        }
    }
    for (rel, template) in CLAUDE_FILES {
        let path = root.join(rel);
        if let Some(p) = plan::plan_markdown(
            &places.claude,
            &path,
            template,
            args.uninstall,
            &mut warnings,
        )? {
            planned.push(p);
        }
    }
    let mut mcp_note = None;
    // The lines setup adds to .gitignore and .gitattributes, recorded after this run.
    let mut records = Vec::new();
    let mcp_json = project.root.join(".mcp.json");
    let servers_elsewhere: Vec<_> = if check_others {
        active
            .servers()
            .into_iter()
            .filter(|s| match (args.scope, s) {
                (Scope::Project, active::Source::Mcp(p)) => *p != mcp_json,
                (Scope::User, active::Source::Mcp(p)) => Some(p) != active.user_json.as_ref(),
                _ => true,
            })
            .collect()
    } else {
        Vec::new()
    };
    match args.scope {
        Scope::Project => {
            if servers_elsewhere.is_empty() {
                planned.push(plan::plan_json(
                    &places.project,
                    &mcp_json,
                    args.uninstall,
                    "MCP server `megg`",
                    |v| {
                        if args.uninstall {
                            Ok(setup::remove_mcp(v))
                        } else {
                            setup::add_mcp(v, &program)
                        }
                    },
                )?);
            } else {
                warnings.push(already_active("MCP server is", &servers_elsewhere));
                planned.push(plan::skipped(&mcp_json, "MCP server `megg`"));
            }
            let (p, record) = plan::plan_block(
                &project,
                &gitignore::BLOCK,
                ".gitignore",
                "gitignore block",
                args.uninstall,
            )?;
            records.extend(record);
            planned.push(p);
        }
        Scope::User if !servers_elsewhere.is_empty() => {
            warnings.push(already_active("MCP server is", &servers_elsewhere));
        }
        Scope::User => {
            mcp_note = Some(if args.uninstall {
                "claude mcp remove --scope user megg".to_string()
            } else {
                format!("claude mcp add --scope user megg -- {program} mcp")
            });
        }
    }

    // The merge driver, whatever the host (SPEC §11 "Registration").
    let global = crate::git::global_config_path();
    let merge = setup::merge::plan(&project, args.scope, &exe_path, global, args.uninstall)?;
    planned.extend(merge.planned);
    records.extend(merge.record);
    warnings.extend(merge.note);

    if !args.dry_run {
        let now = env.clock.now().format("%Y%m%dT%H%M%SZ").to_string();
        // User-scope files are the user's, not the project's: their locks never go into this
        // repository's git directory.
        let repo = match args.scope {
            Scope::Project => project.repo.as_ref(),
            Scope::User => None,
        };
        for p in &planned {
            plan::apply(&places, repo, p, &now)?;
        }
        for record in &records {
            record.save(args.uninstall)?;
        }
        if mcp_note.is_some() {
            let argv: Vec<&str> = if args.uninstall {
                vec!["mcp", "remove", "--scope", "user", "megg"]
            } else {
                vec![
                    "mcp", "add", "--scope", "user", "megg", "--", &exe_path, "mcp",
                ]
            };
            if crate::claude::run(&argv) {
                mcp_note = None;
            }
        }
    }
    let report = Report {
        scope: args.scope,
        root: match args.scope {
            Scope::Project => project.root.clone(),
            Scope::User => root.clone(),
        },
        uninstall: args.uninstall,
        dry_run: args.dry_run,
        changes: planned
            .into_iter()
            .map(|p| Change {
                path: p.path,
                action: p.action,
                what: p.what,
            })
            .collect(),
        mcp_command: mcp_note,
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

/// The warning for hooks or a server setup leaves out because megg is active elsewhere; `what`
/// ends with its verb ("hook is", "capture hooks are").
fn already_active(what: &str, places: &[active::Source]) -> String {
    let names: Vec<String> = places.iter().map(ToString::to_string).collect();
    format!(
        "megg's {what} already active from {}; not adding a second one (megg would run twice in each session). Run with --force to add it anyway",
        names.join(" and ")
    )
}
