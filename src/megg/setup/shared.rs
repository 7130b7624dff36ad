//! The pieces of `megg setup` that every host shares (SPEC §12): `.mcp.json` (Claude Code and
//! Copilot, project scope), the gitignore block and the merge driver — added with the first
//! host, removed only with the last — and which hosts a scope already has.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::plan::{self, Planned};
use super::{Hook, Scope, active, claude, hosts};
use crate::error::Result;
use crate::fsx;
use crate::host::{Agent, Homes, Host};
use crate::megg::gitignore;
use crate::megg::project::Project;
use crate::megg::setup;

/// What this run does.
pub struct Run {
    pub scope: Scope,
    pub uninstall: bool,
    pub force: bool,
}

/// Where a scope's backups go: never in the project (SPEC §7).
pub fn backups(project: &Project, scope: Scope, dir: &Path) -> Option<(fsx::Boundary, PathBuf)> {
    match (scope, &project.repo) {
        (Scope::Project, Some(repo)) => {
            let common = repo.common_dir();
            Some((
                fsx::Boundary::new(&common, "the git directory"),
                common.join("megg/backups"),
            ))
        }
        (Scope::User, _) => Some((
            fsx::Boundary::user(dir, "the host's user directory"),
            dir.join(".megg-backups"),
        )),
        (Scope::Project, None) => fsx::user_cache_dir().map(|c| {
            (
                fsx::Boundary::new(&c, "megg's cache directory"),
                c.join("backups"),
            )
        }),
    }
}

/// The hosts whose megg hook is in this scope's hooks file (a setup from before the record).
pub fn detected(
    project: &Project,
    scope: Scope,
    homes: &Homes,
    active: &active::Places,
) -> Vec<Agent> {
    crate::host::all()
        .filter(|host| {
            let Some(home) = homes.of(host.agent) else {
                return scope == Scope::Project && host.agent != Agent::Claude && {
                    let file = host.hooks_file(false, &project.root, Path::new(""));
                    registered(host, &file, &project.boundary())
                };
            };
            let user = scope == Scope::User;
            let file = host.hooks_file(user, &project.root, home);
            let b = if user {
                fsx::Boundary::user(home, host.name)
            } else {
                project.boundary()
            };
            if host.agent == Agent::Claude {
                return active
                    .target(scope)
                    .is_some_and(|f| registered(host, &f, &b));
            }
            registered(host, &file, &b)
        })
        .map(|h| h.agent)
        .collect()
}

fn registered(host: &'static Host, file: &Path, b: &fsx::Boundary) -> bool {
    hosts::read_lenient(b, file)
        .is_some_and(|v| !setup::hook_commands_of(&v, host, Hook::Context).is_empty())
}

/// The pieces the hosts share: `.mcp.json` (Claude Code and Copilot, project scope), the
/// gitignore block (project scope) and the merge driver (both scopes) — added with the first
/// host, removed only with the last.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    project: &Project,
    args: &Run,
    agents: &[Agent],
    after: &BTreeSet<Agent>,
    active: &active::Places,
    homes: &Homes,
    exe: &str,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Planned>, Vec<plan::BlockRecord>)> {
    let mut planned = Vec::new();
    let mut records = Vec::new();
    let keep = |users: &[Agent], what: &str, warnings: &mut Vec<String>| -> bool {
        let left: Vec<&str> = after
            .iter()
            .filter(|a| users.contains(a))
            .map(|a| a.host().name)
            .collect();
        if args.uninstall && !left.is_empty() {
            warnings.push(format!(
                "kept the {what}: megg is still set up for {}",
                left.join(" and ")
            ));
            return true;
        }
        false
    };
    let all: Vec<Agent> = crate::host::all().map(|h| h.agent).collect();
    if args.scope == Scope::Project {
        let readers: Vec<Agent> = crate::host::all()
            .filter(|h| h.mcp[0] == crate::host::McpPlace::ProjectMcpJson)
            .map(|h| h.agent)
            .collect();
        let mcp_json = project.root.join(".mcp.json");
        if agents.iter().any(|a| readers.contains(a))
            && !keep(&readers, "MCP server in .mcp.json", warnings)
        {
            let elsewhere = mcp_elsewhere(agents, args, active, homes);
            if elsewhere.is_empty() {
                planned.push(plan::plan_json(
                    &project.boundary(),
                    &mcp_json,
                    args.uninstall,
                    "MCP server `megg`",
                    |v| {
                        if args.uninstall {
                            Ok(setup::remove_mcp(v))
                        } else {
                            setup::add_mcp(v, "megg")
                        }
                    },
                )?);
            } else {
                warnings.push(claude::already_active("MCP server is", &elsewhere));
                planned.push(plan::skipped(&mcp_json, "MCP server `megg`"));
            }
        }
        if !keep(&all, "gitignore block", warnings) {
            let (p, record) = plan::plan_block(
                project,
                &gitignore::BLOCK,
                ".gitignore",
                "gitignore block",
                args.uninstall,
            )?;
            records.extend(record);
            planned.push(p);
        }
    }
    // The merge driver, whatever the host (SPEC §11 "Registration").
    if !keep(&all, "merge driver registration", warnings) {
        let global = crate::git::global_config_path();
        let merge = setup::merge::plan(project, args.scope, exe, global, args.uninstall)?;
        planned.extend(merge.planned);
        records.extend(merge.record);
        warnings.extend(merge.note);
    }
    Ok((planned, records))
}

/// Where the `megg` server is registered other than `.mcp.json`, for the hosts of this run that
/// read `.mcp.json`: it is left out only when every one of them already has it.
fn mcp_elsewhere(
    agents: &[Agent],
    args: &Run,
    active: &active::Places,
    homes: &Homes,
) -> Vec<active::Source> {
    if args.uninstall || args.force {
        return Vec::new();
    }
    let mut all = Vec::new();
    for agent in agents {
        let found: Vec<active::Source> = match agent {
            // The plugin's server, which has its own name; a `megg` server at user scope is
            // not a second one (Claude Code keeps one of the same name).
            Agent::Claude => active
                .servers()
                .into_iter()
                .filter(|s| matches!(s, active::Source::Plugin(_)))
                .collect(),
            Agent::Copilot => homes
                .copilot
                .as_ref()
                .map(|h| h.join("mcp-config.json"))
                .filter(|f| {
                    hosts::read_lenient(
                        &fsx::Boundary::user(f.parent().unwrap_or(f), "Copilot CLI"),
                        f,
                    )
                    .is_some_and(|v| setup::has_mcp(&v))
                })
                .map(active::Source::Mcp)
                .into_iter()
                .collect(),
            _ => continue,
        };
        if found.is_empty() {
            return Vec::new();
        }
        all.extend(found);
    }
    all
}
