//! One megg per session (SPEC §7): where megg's hooks (SessionStart, capture) and MCP server
//! are already active for a project — the project's settings, its `settings.local.json`, the
//! user's settings, an enabled `megg@…` plugin, `.mcp.json`, the user's `.claude.json` — so
//! setup adds no second one in the same scope (each scope is judged on its own files; the
//! other scope's hooks both run, and the hook answers each session once) and doctor warns when
//! there are two.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Hook, Scope};
use crate::fsx;

/// Most bytes of a settings file read here.
const MAX_JSON_BYTES: u64 = 1024 * 1024;

/// Where Claude Code's files for one project are.
#[derive(Debug, Clone)]
pub struct Places {
    /// The project root (its `.claude/` and `.mcp.json`).
    pub project: PathBuf,
    /// The user's Claude Code directory (`~/.claude` or `$CLAUDE_CONFIG_DIR`).
    pub user_dir: Option<PathBuf>,
    /// The user's `.claude.json`.
    pub user_json: Option<PathBuf>,
}

/// A place megg is active from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A settings file with megg's hook.
    Settings(PathBuf),
    /// A settings file that enables the megg plugin (hooks and MCP server).
    Plugin(PathBuf),
    /// `.mcp.json` or `.claude.json` registering the `megg` server.
    Mcp(PathBuf),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Settings(p) => write!(f, "{}", p.display()),
            Self::Plugin(p) => write!(f, "the megg plugin (enabled in {})", p.display()),
            Self::Mcp(p) => write!(f, "the MCP server in {}", p.display()),
        }
    }
}

impl Places {
    /// Every settings file, project ones first.
    fn settings(&self) -> Vec<PathBuf> {
        let mut out = vec![
            self.project.join(".claude/settings.json"),
            self.project.join(".claude/settings.local.json"),
        ];
        if let Some(u) = &self.user_dir {
            out.push(u.join("settings.json"));
            out.push(u.join("settings.local.json"));
        }
        out
    }

    fn read(&self, path: &Path) -> Option<Value> {
        let b = if path.starts_with(&self.project) {
            fsx::Boundary::new(&self.project, "the project")
        } else {
            fsx::Boundary::user(path.parent()?, "~/.claude")
        };
        serde_json::from_str(&fsx::read_text(&b, path, MAX_JSON_BYTES).ok()??.text).ok()
    }

    /// Where megg's `hook` runs from: settings files with the hook (for any of its events), and
    /// the plugin, which brings every hook.
    pub fn hooks(&self, hook: Hook) -> Vec<Source> {
        let mut out = Vec::new();
        for path in self.settings() {
            let Some(v) = self.read(&path) else { continue };
            if !super::hook_commands(&v, hook).is_empty() {
                out.push(Source::Settings(path.clone()));
            }
            if plugin_enabled(&v) {
                out.push(Source::Plugin(path));
            }
        }
        out
    }

    /// Where the `megg` MCP server is registered: `.mcp.json`, the user's `.claude.json`
    /// (user scope or this project's entry), and the plugin.
    pub fn servers(&self) -> Vec<Source> {
        let mut out = Vec::new();
        let mcp = self.project.join(".mcp.json");
        if self.read(&mcp).is_some_and(|v| super::has_mcp(&v)) {
            out.push(Source::Mcp(mcp));
        }
        if let Some(f) = &self.user_json
            && let Some(v) = self.read(f)
            && (super::has_mcp(&v)
                || v.get("projects")
                    .and_then(|p| p.get(self.project.display().to_string()))
                    .is_some_and(super::has_mcp))
        {
            out.push(Source::Mcp(f.clone()));
        }
        for path in self.settings() {
            if self.read(&path).is_some_and(|v| plugin_enabled(&v)) {
                out.push(Source::Plugin(path));
            }
        }
        out
    }

    /// The file setup writes the hooks into for `scope`.
    pub fn target(&self, scope: Scope) -> Option<PathBuf> {
        match scope {
            Scope::Project => Some(self.project.join(".claude/settings.json")),
            Scope::User => self.user_dir.as_ref().map(|u| u.join("settings.json")),
        }
    }
}

/// Whether a settings file enables a `megg@…` plugin.
pub fn plugin_enabled(settings: &Value) -> bool {
    settings
        .get("enabledPlugins")
        .and_then(Value::as_object)
        .is_some_and(|p| {
            p.iter()
                .any(|(k, on)| k.starts_with("megg@") && on == &Value::Bool(true))
        })
}
