//! `megg setup` for Claude Code (SPEC §7, §10): the SessionStart and capture hooks in its
//! settings, its commands and skill, and its MCP server at user scope. `.mcp.json` at project
//! scope is shared with Copilot and planned with the other shared pieces.

use std::path::PathBuf;

use super::plan::{self, Planned};
use super::{Hook, Scope, active};
use crate::error::Result;
use crate::fsx;
use crate::templates::CLAUDE_FILES;

/// Claude Code set up in one scope.
pub struct Target<'a> {
    pub scope: Scope,
    /// `.claude/` of the project, or the user's Claude Code directory.
    pub root: PathBuf,
    /// The program the hooks run at user scope, shell-quoted.
    pub program: &'a str,
    /// megg's absolute path, unquoted: what `claude mcp add` registers.
    pub exe: &'a str,
    pub active: &'a active::Places,
    pub uninstall: bool,
    pub force: bool,
    pub no_capture: bool,
}

/// What Claude Code's part of a run does.
pub struct Plan {
    pub planned: Vec<Planned>,
    /// User scope: the `claude mcp` command that registers (or removes) the server.
    pub mcp_command: Option<Vec<String>>,
}

impl Target<'_> {
    /// The settings file the hooks go in.
    pub fn settings(&self) -> PathBuf {
        self.root.join("settings.json")
    }

    /// Project hooks live in a committed file: guarded plain `megg`. User hooks: the absolute
    /// path.
    fn hook_command(&self, hook: Hook) -> String {
        match self.scope {
            Scope::Project => hook.project_command().to_string(),
            Scope::User => hook.command(self.program),
        }
    }

    fn check_others(&self) -> bool {
        !self.uninstall && !self.force
    }

    /// Where megg's `hook` is already active other than the file this run writes.
    fn elsewhere(&self, hook: Hook) -> Vec<active::Source> {
        if !self.check_others() {
            return Vec::new();
        }
        let settings = self.settings();
        self.active
            .hooks(hook)
            .into_iter()
            .filter(|s| !matches!(s, active::Source::Settings(p) if *p == settings))
            .collect()
    }

    /// Where the `megg` server is already registered other than where this run registers it.
    pub fn servers_elsewhere(&self) -> Vec<active::Source> {
        if !self.check_others() {
            return Vec::new();
        }
        let mcp_json = self.active.project.join(".mcp.json");
        self.active
            .servers()
            .into_iter()
            .filter(|s| match (self.scope, s) {
                (Scope::Project, active::Source::Mcp(p)) => *p != mcp_json,
                (Scope::User, active::Source::Mcp(p)) => Some(p) != self.active.user_json.as_ref(),
                _ => true,
            })
            .collect()
    }
}

/// Plans Claude Code's files.
pub fn plan(t: &Target, boundary: &fsx::Boundary, warnings: &mut Vec<String>) -> Result<Plan> {
    let mut planned = Vec::new();
    let settings_path = t.settings();
    // --no-capture takes megg's capture hooks out of this file whatever runs elsewhere.
    let capture_off = t.no_capture && !t.uninstall;

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
            t.elsewhere(hook)
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
        let mut p = plan::plan_json(boundary, &settings_path, t.uninstall, "", |v| {
            let mut changed = false;
            for &hook in &hooks {
                if t.uninstall || (hook == Hook::Capture && capture_off) {
                    let removed = super::remove_hook(v, hook, &t.hook_command(hook));
                    capture_removed |= removed && hook == Hook::Capture;
                    changed |= removed;
                } else {
                    changed |= super::add_hook(v, hook, &t.hook_command(hook))?;
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
        let path = t.root.join(rel);
        planned.extend(plan::plan_markdown(
            boundary,
            &path,
            template,
            t.uninstall,
            warnings,
        )?);
    }
    let mut mcp_command = None;
    if t.scope == Scope::User {
        let servers = t.servers_elsewhere();
        if !servers.is_empty() {
            warnings.push(already_active("MCP server is", &servers));
        } else {
            let verb = if t.uninstall { "remove" } else { "add" };
            let mut argv: Vec<String> = ["mcp", verb, "--scope", "user", "megg"]
                .map(String::from)
                .into();
            if !t.uninstall {
                argv.extend(["--".into(), t.exe.to_string(), "mcp".into()]);
            }
            mcp_command = Some(argv);
        }
    }
    Ok(Plan {
        planned,
        mcp_command,
    })
}

/// The warning for hooks or a server setup leaves out because megg is active elsewhere; `what`
/// ends with its verb ("hook is", "capture hooks are").
pub fn already_active(what: &str, places: &[active::Source]) -> String {
    let names: Vec<String> = places.iter().map(ToString::to_string).collect();
    format!(
        "megg's {what} already active from {}; not adding a second one (megg would run twice in each session). Run with --force to add it anyway",
        names.join(" and ")
    )
}
