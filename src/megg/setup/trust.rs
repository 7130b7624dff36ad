//! Trust stays the user's (SPEC §12): megg writes no host's trust settings. What setup and
//! doctor say instead: the steps that trust megg's entries in each host, and — before advising
//! a folder trust — every other hook and MCP server that trust would switch on.

use std::path::Path;

use serde_json::Value;

use super::{Hook, Scope, hosts};
use crate::fsx;
use crate::host::{Agent, Host};
use crate::megg::project::Project;

/// The steps that make `host` run megg's entries installed at `scope` in `project`.
pub fn steps(host: &Host, scope: Scope, root: &Path) -> Vec<String> {
    let root = root.display();
    let name = host.name;
    match (host.agent, scope) {
        (Agent::Claude, _) => Vec::new(),
        (Agent::Codex, Scope::Project) => vec![
            format!(
                "{name}: start `codex` in {root} and trust the project, then review and trust megg's SessionStart hook (`/hooks`); Codex skips an untrusted hook without a word"
            ),
            format!(
                "{name}: it trusts a hook by a hash of its entry — when setup changes the entry (an upgrade that moves megg), trust it again"
            ),
        ],
        (Agent::Codex, Scope::User) => vec![format!(
            "{name}: start `codex` and trust megg's SessionStart hook when it lists it for review (`/hooks`); Codex skips an untrusted hook without a word, and a changed entry must be trusted again"
        )],
        (Agent::Gemini, Scope::Project) => vec![format!(
            "{name}: it reads {root}/.gemini/ only in a trusted folder — start `gemini` in {root} and trust the folder when asked (or `/permissions`)"
        )],
        (Agent::Gemini, Scope::User) => Vec::new(),
        (Agent::Copilot, Scope::Project) => vec![
            format!(
                "{name}: it runs {root}'s hooks and .mcp.json only in a trusted folder — start `copilot` in {root} and trust the folder when asked"
            ),
            format!(
                "{name}: user hooks need no folder trust: `megg setup --agent copilot --scope user` instead avoids trusting this folder"
            ),
        ],
        (Agent::Copilot, Scope::User) => Vec::new(),
    }
}

/// The hooks and MCP servers other than megg's that trusting `project`'s folder would switch
/// on in `host` (Copilot also runs the Claude-format hooks of `.claude/settings.json`).
pub fn others(host: &'static Host, project: &Project) -> Vec<String> {
    let b = project.boundary();
    let root = &project.root;
    let mut out = Vec::new();
    let mut hooks_in = |file: &Path, of: &'static Host| {
        if let Some(v) = hosts::read_lenient(&b, file) {
            out.extend(
                foreign_hooks(&v, of)
                    .into_iter()
                    .map(|(event, c)| format!("hook `{c}` ({event}, {})", rel(root, file))),
            );
            out.extend(
                foreign_servers(&v)
                    .into_iter()
                    .map(|s| format!("MCP server `{s}` ({})", rel(root, file))),
            );
        }
    };
    match host.agent {
        Agent::Claude => {}
        Agent::Codex => {
            hooks_in(&root.join(host.project_hooks), host);
            let config = root.join(".codex/config.toml");
            if let Ok(Some(t)) = fsx::read_text(&b, &config, super::plan::MAX_SETTINGS_BYTES)
                && let Ok(doc) = t.text.parse::<toml_edit::DocumentMut>()
                && let Some(servers) = doc.get("mcp_servers").and_then(|s| s.as_table_like())
            {
                out.extend(
                    servers
                        .iter()
                        .filter(|(name, _)| *name != "megg")
                        .map(|(name, _)| format!("MCP server `{name}` (.codex/config.toml)")),
                );
            }
        }
        Agent::Gemini => hooks_in(&root.join(host.project_hooks), host),
        Agent::Copilot => {
            let dir = root.join(".github/hooks");
            let mut files: Vec<_> = fsx::list(&b, &dir)
                .unwrap_or_default()
                .into_iter()
                .filter(|(n, k)| *k == fsx::Kind::File && n.to_string_lossy().ends_with(".json"))
                .map(|(n, _)| dir.join(n))
                .collect();
            files.sort();
            for file in files {
                hooks_in(&file, host);
            }
            hooks_in(&root.join(".mcp.json"), host);
            hooks_in(&root.join(".claude/settings.json"), Agent::Claude.host());
        }
    }
    out
}

/// Every hook command in a hooks file that is not one of megg's, with its event.
fn foreign_hooks(v: &Value, host: &'static Host) -> Vec<(String, String)> {
    let Some(events) = v.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (event, list) in events {
        for item in list.as_array().into_iter().flatten() {
            let handlers: Vec<&Value> = match item.get("hooks").and_then(Value::as_array) {
                Some(inner) => inner.iter().collect(),
                None => vec![item],
            };
            for h in handlers {
                let Some(c) = h
                    .get("command")
                    .or_else(|| h.get("bash"))
                    .and_then(Value::as_str)
                else {
                    continue;
                };
                let megg = [Hook::Context, Hook::Capture]
                    .iter()
                    .any(|hook| hook.program_of(host, c).is_some() || hook.matches(c));
                if !megg {
                    out.push((event.clone(), c.to_string()));
                }
            }
        }
    }
    out
}

/// The MCP servers of an `mcpServers` object other than megg.
fn foreign_servers(v: &Value) -> Vec<String> {
    v.get("mcpServers")
        .and_then(Value::as_object)
        .map(|s| s.keys().filter(|k| *k != "megg").cloned().collect())
        .unwrap_or_default()
}

fn rel(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// What trusting `project`'s folder switches on besides megg, as one line.
pub fn reach(others: &[String]) -> String {
    if others.is_empty() {
        "trusting this folder switches on no other hook or MCP server megg can see".into()
    } else {
        format!(
            "trusting this folder also switches on: {}",
            others.join("; ")
        )
    }
}
