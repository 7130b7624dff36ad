//! `megg setup --agent codex|gemini|copilot` (SPEC §12): the session-start hook, the MCP server
//! and Gemini's commands in each host's own files, planned from the host's description in
//! [`crate::host`]. Claude Code's part, and the pieces the hosts share (`.mcp.json`, the
//! gitignore block, the merge driver), are planned by the command.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::plan::{self, Planned};
use super::{Action, Handler, Hook, Marker, Platform, Scope};
use crate::error::{Error, Result};
use crate::fsx;
use crate::host::{Agent, Host, McpPlace};
use crate::megg::project::Project;

/// One host set up in one scope.
pub struct Target<'a> {
    pub host: &'static Host,
    pub scope: Scope,
    pub project: &'a Project,
    /// The host's user directory (`$CODEX_HOME`, `~/.gemini`, `~/.copilot`).
    pub home: &'a Path,
    /// megg's absolute path: what user scope runs.
    pub exe: &'a str,
    pub uninstall: bool,
    /// Say nothing of megg active from the other scope.
    pub force: bool,
    /// `--no-capture`: no capture hooks (those there are removed).
    pub no_capture: bool,
    /// The OS whose host runs the hooks (SPEC §15.1).
    pub platform: Platform,
}

impl Target<'_> {
    fn user(&self) -> bool {
        self.scope == Scope::User
    }

    /// The directory this scope's files are in, and the boundary they are written in.
    pub fn boundary(&self) -> fsx::Boundary {
        if self.user() {
            fsx::Boundary::user(self.home, self.host.name)
        } else {
            self.project.boundary()
        }
    }

    /// The hooks file of this scope.
    pub fn hooks_file(&self) -> PathBuf {
        self.host
            .hooks_file(self.user(), &self.project.root, self.home)
    }

    /// The hooks file of the other scope.
    fn other_hooks_file(&self) -> PathBuf {
        self.host
            .hooks_file(!self.user(), &self.project.root, self.home)
    }

    /// The handler of megg's `hook`: plain `megg` in a project's committed file (guarded where
    /// the shell allows, with the host's Windows key where it has one), the absolute path at
    /// user scope.
    pub fn hook_handler(&self, hook: Hook) -> Handler {
        let exe = self.user().then_some(self.exe);
        Handler::wanted(self.host, hook, self.platform, exe)
    }

    /// The program megg's MCP server entry runs (an argv, not a shell line: unquoted).
    pub fn mcp_program(&self) -> &str {
        if self.user() { self.exe } else { "megg" }
    }

    /// Where this scope's MCP server goes.
    pub fn mcp_place(&self) -> McpPlace {
        let [project, user] = self.host.mcp;
        if self.user() { user } else { project }
    }

    /// The file of this scope's MCP server, unless it is the hooks file or shared.
    fn mcp_file(&self) -> Option<PathBuf> {
        match self.mcp_place() {
            McpPlace::CodexToml => Some(if self.user() {
                self.home.join("config.toml")
            } else {
                self.project.root.join(".codex/config.toml")
            }),
            McpPlace::CopilotConfig => Some(self.home.join("mcp-config.json")),
            McpPlace::GeminiSettings | McpPlace::ProjectMcpJson | McpPlace::ClaudeCli => None,
        }
    }
}

/// Plans one host's files. Pieces already active from the other scope are noted: both run,
/// and the hook answers each session once (SPEC §7 "one megg per session", per host).
pub fn plan(t: &Target, warnings: &mut Vec<String>) -> Result<Vec<Planned>> {
    debug_assert!(t.host.agent != Agent::Claude);
    let b = t.boundary();
    let mut planned = Vec::new();
    let hooks_file = t.hooks_file();
    let gemini = t.mcp_place() == McpPlace::GeminiSettings;
    // --no-capture takes megg's capture hooks out of this file whatever runs elsewhere.
    let capture_off = t.no_capture && !t.uninstall;
    if capture_off && let Some(other) = other_scope_hook(t, Hook::Capture) {
        warnings.push(format!(
            "megg's {} capture hooks stay active from {}: run --no-capture in that scope too to stop capturing",
            t.host.name,
            other.display()
        ));
    }
    // Each scope is judged on its own file: megg's hooks in the other scope (a project's, or
    // the user's) run too, and the hook answers each session once (SPEC §7), so they are
    // added all the same, with a note.
    let hooks = [Hook::Context, Hook::Capture];
    for hook in hooks {
        let skip_check = t.uninstall || t.force || (hook == Hook::Capture && capture_off);
        if let Some(other) = (!skip_check).then(|| other_scope_hook(t, hook)).flatten() {
            warnings.push(format!(
                "megg's {} {} also active from {}: both run, and megg answers each session once (`megg doctor` says how to keep one)",
                t.host.name,
                match hook {
                    Hook::Context => "hook is",
                    Hook::Capture => "capture hooks are",
                },
                other.display(),
            ));
        }
    }
    refuse_comments(&b, &hooks_file, t)?;
    let mcp = gemini.then(|| t.mcp_program().to_string());
    let mut parts: Vec<String> = hooks
        .iter()
        .filter(|&&h| !(h == Hook::Capture && capture_off))
        .map(|&h| hook_what(t.host, h))
        .collect();
    if mcp.is_some() {
        parts.push("MCP server `megg`".into());
    }
    let mut capture_removed = false;
    let mut p = plan::plan_json(&b, &hooks_file, t.uninstall, "", |v| {
        let mut changed = false;
        for &hook in &hooks {
            let handler = t.hook_handler(hook);
            if t.uninstall || (hook == Hook::Capture && capture_off) {
                let removed = super::remove_handler(v, t.host, hook, &handler);
                capture_removed |= removed && hook == Hook::Capture;
                changed |= removed;
            } else {
                changed |= super::add_handler(v, t.host, hook, &handler, t.platform)?;
            }
        }
        if let Some(program) = &mcp {
            changed |= if t.uninstall {
                super::remove_mcp(v)
            } else {
                super::add_mcp(v, program)?
            };
        }
        Ok(changed)
    })?;
    if capture_removed && capture_off {
        parts.push("capture hooks removed (--no-capture)".into());
    }
    if !parts.is_empty() {
        p.what = parts.join(", ");
        planned.push(p);
    }
    if let Some(file) = t.mcp_file() {
        planned.push(match t.mcp_place() {
            McpPlace::CodexToml => plan_toml(&b, &file, t)?,
            _ => plan::plan_json(&b, &file, t.uninstall, "MCP server `megg`", |v| {
                if t.uninstall {
                    Ok(super::remove_mcp(v))
                } else {
                    super::add_mcp_entry(v, super::copilot_mcp_entry(t.mcp_program())?)
                }
            })?,
        });
    }
    if t.host.commands {
        let root = t.host.dir(t.user(), &t.project.root, t.home);
        for (rel, template) in crate::templates::GEMINI_FILES {
            planned.extend(plan::plan_installed(
                &b,
                &root.join(rel),
                template,
                Marker::Hash,
                "Gemini CLI command",
                t.uninstall,
                warnings,
            )?);
        }
    }
    Ok(planned)
}

/// How the report names one of megg's hooks for `host`: its events.
fn hook_what(host: &Host, hook: Hook) -> String {
    match hook {
        Hook::Context => format!("{} {} hook", host.name, host.start_event),
        Hook::Capture => format!("capture hooks ({})", host.capture_events.join(", ")),
    }
}

/// The file of the other scope that registers megg's `hook` for this host, if one does.
fn other_scope_hook(t: &Target, hook: Hook) -> Option<PathBuf> {
    let b = if t.user() {
        t.project.boundary()
    } else {
        fsx::Boundary::user(t.home, t.host.name)
    };
    has_hook(t.host, &b, &t.other_hooks_file(), hook)
}

/// The hooks files `host` reads where `file` is its hooks file: `file` itself, or — for
/// Copilot, which reads every `*.json` of its hooks directory — all of those, sorted.
pub fn hook_files(host: &Host, b: &fsx::Boundary, file: &Path) -> Vec<PathBuf> {
    if host.layout != crate::host::HookLayout::Flat {
        return vec![file.to_path_buf()];
    }
    let dir = file.parent().unwrap_or(b.root()).to_path_buf();
    let mut files: Vec<PathBuf> = fsx::list(b, &dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|(n, k)| *k == fsx::Kind::File && n.to_string_lossy().ends_with(".json"))
        .map(|(n, _)| dir.join(n))
        .collect();
    files.sort();
    files
}

/// The file that registers megg's `hook` among [`hook_files`].
fn has_hook(host: &'static Host, b: &fsx::Boundary, file: &Path, hook: Hook) -> Option<PathBuf> {
    hook_files(host, b, file).into_iter().find(|f| {
        read_lenient(b, f).is_some_and(|v| !super::hook_commands_of(&v, host, hook).is_empty())
    })
}

/// Whether megg's `hook` (context or capture) for `host` is registered for the project at
/// `root` in either scope (`home`: the host's user directory). Copilot reads every `*.json` in
/// its hooks directories, so all of them count.
pub fn registered_anywhere(
    host: &'static Host,
    root: &Path,
    home: Option<&Path>,
    hook: Hook,
) -> bool {
    let places = [
        Some((
            fsx::Boundary::new(root, "the project"),
            root.join(host.project_hooks),
        )),
        home.map(|h| (fsx::Boundary::user(h, host.name), h.join(host.user_hooks))),
    ];
    places
        .into_iter()
        .flatten()
        .any(|(b, file)| has_hook(host, &b, &file, hook).is_some())
}

/// A host's JSON file, read for inspection: comments (Gemini allows them) stripped; `None`
/// when it is missing, unreadable or not JSON.
pub fn read_lenient(b: &fsx::Boundary, path: &Path) -> Option<Value> {
    let text = fsx::read_text(b, path, plan::MAX_SETTINGS_BYTES)
        .ok()??
        .text;
    serde_json::from_str(&text)
        .ok()
        .or_else(|| serde_json::from_str(&strip_comments(&text)?).ok())
}

/// Gemini CLI's settings may hold comments, which a JSON rewrite would lose: such a file is
/// refused untouched, with the entries to add by hand (SPEC §12).
fn refuse_comments(b: &fsx::Boundary, path: &Path, t: &Target) -> Result<()> {
    let Some(text) = plan::read_existing(b, path)? else {
        return Ok(());
    };
    if serde_json::from_str::<Value>(&text).is_ok() {
        return Ok(());
    }
    let Some(stripped) = strip_comments(&text) else {
        return Ok(());
    };
    if serde_json::from_str::<Value>(&stripped).is_err() {
        return Ok(()); // not JSON at all: plan_json says so
    }
    let verb = if t.uninstall { "remove" } else { "add" };
    Err(Error::user(format!(
        "{} has comments, which megg would lose rewriting it; nothing was changed",
        path.display()
    ))
    .with_hint(format!(
        "{verb} megg's entries by hand — under \"hooks\".\"{}\" the command `{}`{}{} — or remove the comments and run megg setup again",
        t.host.start_event,
        t.hook_handler(Hook::Context).display(),
        if t.no_capture {
            String::new()
        } else {
            format!(
                ", under \"hooks\".\"{}\" each the command `{}`",
                t.host.capture_events.join("\", \""),
                t.hook_handler(Hook::Capture).display()
            )
        },
        if t.mcp_place() == McpPlace::GeminiSettings {
            format!(
                ", and under \"mcpServers\" the server \"megg\": {{\"command\": \"{}\", \"args\": [\"mcp\"]}}",
                t.mcp_program()
            )
        } else {
            String::new()
        }
    )))
}

/// `text` without `//` and `/* */` comments outside strings; `None` when it has none.
pub fn strip_comments(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut in_string, mut found) = (false, false);
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                found = true;
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                found = true;
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    found.then_some(out)
}

/// Codex's `config.toml`: `[mcp_servers.megg]` merged with toml_edit (comments kept).
fn plan_toml(b: &fsx::Boundary, path: &Path, t: &Target) -> Result<Planned> {
    let existing = plan::read_existing(b, path)?;
    let mut doc = super::toml::parse(existing.as_deref().unwrap_or_default()).map_err(|e| {
        Error::corrupt(format!(
            "{} is not valid TOML ({e}); nothing was changed",
            path.display()
        ))
        .with_hint("fix the file (or move it aside), then run megg setup again")
    })?;
    let changed = if t.uninstall {
        super::toml::remove_mcp(&mut doc)
    } else {
        super::toml::add_mcp(&mut doc, t.mcp_program()).map_err(|e| {
            Error::user(format!(
                "cannot merge into {}: {e}; nothing was changed",
                path.display()
            ))
        })?
    };
    let text = doc.to_string();
    let action = match (&existing, changed) {
        (_, false) => Action::Unchanged,
        (Some(_), true) if t.uninstall && text.trim().is_empty() => Action::Remove,
        (Some(_), true) => Action::Update,
        (None, true) => Action::Create,
    };
    Ok(Planned {
        path: path.to_path_buf(),
        action,
        what: "MCP server `megg`".into(),
        content: (action.changes() && action != Action::Remove).then_some(text),
        backup: action == Action::Update,
        original: existing,
        config: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_found_outside_strings_only() {
        assert_eq!(strip_comments(r#"{"a": "http://x/*y*/"}"#), None);
        let text = "{\n  // mine\n  \"a\": 1, /* two\nlines */ \"b\": \"//\"\n}\n";
        let stripped = strip_comments(text).unwrap();
        let v: Value = serde_json::from_str(&stripped).unwrap();
        assert_eq!(v, serde_json::json!({"a": 1, "b": "//"}));
        assert_eq!(strip_comments(r#"{"a": "\"//"}"#), None);
    }
}
