//! `megg setup` for Claude Code (SPEC §7, §10): the SessionStart and capture hooks in its
//! settings, its commands and skill, and its MCP server at user scope. `.mcp.json` at project
//! scope is shared with Copilot and planned with the other shared pieces.

use std::path::PathBuf;

use super::handler::both_shells_word;
use super::plan::{self, Planned};
use super::{Handler, Hook, Platform, Scope, active};
use crate::claude::{Asked, EXEC_FORM_SINCE};
use crate::error::Result;
use crate::fsx;
use crate::templates::CLAUDE_FILES;

/// Claude Code set up in one scope.
pub struct Target<'a> {
    pub scope: Scope,
    /// `.claude/` of the project, or the user's Claude Code directory.
    pub root: PathBuf,
    /// megg's absolute path, unquoted: what the hooks run at user scope and `claude mcp add`
    /// registers.
    pub exe: &'a str,
    /// The OS whose Claude Code runs the hooks (SPEC §15.1: the exec form on Windows).
    pub platform: Platform,
    /// What `claude --version` told, when asked (on Windows): one older than
    /// [`EXEC_FORM_SINCE`] gets a line both of its Windows shells run (SPEC §15.1).
    pub claude_version: Option<Asked>,
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

    /// Project hooks live in a committed file: plain `megg` (guarded on Unix). User hooks: the
    /// absolute path.
    fn hook_handler(&self, hook: Hook) -> Handler {
        let exe = (self.scope == Scope::User).then_some(self.exe);
        let claude = crate::host::Agent::Claude.host();
        if self.platform == Platform::Windows && !self.exec_form() {
            return Handler::both_shells(claude, hook, exe);
        }
        Handler::wanted(claude, hook, self.platform, exe)
    }

    /// Whether its Claude Code runs the exec form: yes unless a version older than
    /// [`EXEC_FORM_SINCE`] was read (the form every Claude Code since May 2026 runs).
    fn exec_form(&self) -> bool {
        self.claude_version
            .and_then(Asked::version)
            .is_none_or(|v| v >= EXEC_FORM_SINCE)
    }

    /// What a run on Windows says when its Claude Code is too old for the exec form, or
    /// `claude --version` gave no version.
    fn exec_form_note(&self) -> Option<String> {
        if self.platform != Platform::Windows || self.uninstall {
            return None;
        }
        match self.claude_version? {
            Asked::Version(version) if version < EXEC_FORM_SINCE => {
                let exe = self.exe.replace('\\', "/");
                let program = if self.scope == Scope::User && both_shells_word(&exe) {
                    format!("`{exe}`")
                } else {
                    "`megg` from PATH".to_string()
                };
                let after = match self.scope {
                    Scope::User => "after `claude update`, run this setup again for the exec form",
                    Scope::Project => {
                        "setup keeps them after an update: they run with every Claude Code"
                    }
                };
                Some(format!(
                    "Claude Code {version} does not run a hook's exec form (it needs {EXEC_FORM_SINCE}): its hooks are shell lines Git Bash and PowerShell both run, naming {program}; {after}"
                ))
            }
            Asked::Unknown => Some(format!(
                "`claude --version` gave no version: megg's hooks are in the exec form, which needs Claude Code {EXEC_FORM_SINCE} or later (an older one runs `megg` alone); `megg doctor` checks it"
            )),
            Asked::Version(_) | Asked::Absent => None,
        }
    }

    fn check_others(&self) -> bool {
        !self.uninstall && !self.force
    }

    /// Whether `source` belongs to this run's scope: a file under the project (project scope)
    /// or under the user's Claude Code directory (user scope). Each scope is judged on its own
    /// files: a project's hooks say nothing about the user's other repositories.
    fn in_scope(&self, source: &active::Source) -> bool {
        let (active::Source::Settings(p) | active::Source::Plugin(p) | active::Source::Mcp(p)) =
            source;
        let user = self
            .active
            .user_dir
            .as_ref()
            .is_some_and(|u| p.starts_with(u))
            || Some(p) == self.active.user_json.as_ref();
        user == (self.scope == Scope::User)
    }

    /// Where megg's `hook` is already active in this scope other than the file this run
    /// writes (its `settings.local.json`, a plugin enabled there), and where in the other
    /// scope (both run; the hook answers each session once, SPEC §7).
    fn elsewhere(&self, hook: Hook) -> (Vec<active::Source>, Vec<active::Source>) {
        if !self.check_others() {
            return (Vec::new(), Vec::new());
        }
        let settings = self.settings();
        self.active
            .hooks(hook)
            .into_iter()
            .filter(|s| !matches!(s, active::Source::Settings(p) if *p == settings))
            .partition(|s| self.in_scope(s))
    }

    /// Where the `megg` server is already registered other than where this run registers it:
    /// the plugin's, and a `megg` server of this scope. A same-named server of the other scope
    /// is not a second one: Claude Code keeps one of them.
    pub fn servers_elsewhere(&self) -> Vec<active::Source> {
        if !self.check_others() {
            return Vec::new();
        }
        let mcp_json = self.active.project.join(".mcp.json");
        self.active
            .servers()
            .into_iter()
            .filter(|s| match (self.scope, s) {
                (_, active::Source::Mcp(_)) if !self.in_scope(s) => false,
                (Scope::Project, active::Source::Mcp(p)) => *p != mcp_json,
                (Scope::User, active::Source::Mcp(p)) => Some(p) != self.active.user_json.as_ref(),
                // The plugin's server has its own name: a second set of tools, whatever scope.
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
    warnings.extend(t.exec_form_note());

    // megg's hooks in the settings file: each added, removed (--uninstall; the capture hooks
    // with --no-capture) or left out because megg already runs it from another place.
    let mut hooks = Vec::new();
    for (hook, verb) in [
        (Hook::Context, "hook is"),
        (Hook::Capture, "capture hooks are"),
    ] {
        let (others, other_scope) = if hook == Hook::Capture && capture_off {
            (Vec::new(), Vec::new())
        } else {
            t.elsewhere(hook)
        };
        if !other_scope.is_empty() && others.is_empty() {
            warnings.push(also_active(verb, &other_scope));
        }
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
                let claude = crate::host::Agent::Claude.host();
                let handler = t.hook_handler(hook);
                if t.uninstall || (hook == Hook::Capture && capture_off) {
                    let removed = super::remove_handler(v, claude, hook, &handler);
                    capture_removed |= removed && hook == Hook::Capture;
                    changed |= removed;
                } else {
                    changed |= super::add_handler(v, claude, hook, &handler, t.platform)?;
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

/// The note for hooks added while the other scope has them too: both run, and megg answers
/// each session once (SPEC §7; docs/hosts.md "Two of megg's hooks").
pub fn also_active(what: &str, places: &[active::Source]) -> String {
    let names: Vec<String> = places.iter().map(ToString::to_string).collect();
    format!(
        "megg's {what} also active from {}: both run, and megg answers each session once (`megg doctor` says how to keep one)",
        names.join(" and ")
    )
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
