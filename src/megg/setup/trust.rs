//! Trust stays the user's (SPEC §12): megg writes no host's trust settings. What setup and
//! doctor say instead: the steps that trust megg's entries in each host, and — before advising
//! a folder trust — every other hook and MCP server that trust would switch on.

use std::path::Path;

use serde_json::Value;

use super::{Hook, Platform, Scope, hosts};
use crate::fsx;
use crate::host::{Agent, Host, WindowsHooks};
use crate::megg::project::Project;

/// The steps that make `host` run megg's entries installed at `scope` in `project`.
pub fn steps(host: &Host, scope: Scope, root: &Path) -> Vec<String> {
    let root = root.display();
    let name = host.name;
    match (host.agent, scope) {
        (Agent::Claude, _) => Vec::new(),
        (Agent::Codex, Scope::Project) => vec![
            format!(
                "{name}: start `codex` in {root} and trust the project, then review and trust megg's hooks — SessionStart and the capture hooks {} (`/hooks`); Codex skips an untrusted hook without a word",
                host.capture_events.join(", ")
            ),
            format!(
                "{name}: it trusts a hook by a hash of its entry — when setup changes the entry (an upgrade that moves megg), trust it again"
            ),
        ],
        (Agent::Codex, Scope::User) => vec![format!(
            "{name}: start `codex` and trust megg's hooks (SessionStart; {} for capture) when it lists them for review (`/hooks`); Codex skips an untrusted hook without a word, and a changed entry must be trusted again",
            host.capture_events.join(", ")
        )],
        (Agent::Gemini, _) => vec![format!(
            "{name}: in a folder it does not trust it runs no settings hook, user ones included (headless, it exits 55) — start `gemini` in {root} and trust the folder when asked (or `/permissions`); it then announces megg's project hook once"
        )],
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
            for file in hosts::hook_files(host, &b, &root.join(host.project_hooks)) {
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
                let claude = Agent::Claude.host();
                let megg = [Hook::Context, Hook::Capture].iter().any(|hook| {
                    hook.program_in(host, h).is_some() || hook.program_in(claude, h).is_some()
                });
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

/// The trust megg can see in a host's own files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    Trusted(String),
    NotTrusted(String),
    /// Not enough in the files to say either way.
    CannotTell(String),
}

/// What the host's files say about the trust megg's entries at `scope` need (`home`: the
/// host's user directory; `hooks_file`: where megg's hook is; `hook`: its handler, as written).
pub fn seen(
    host: &Host,
    scope: Scope,
    root: &Path,
    home: &Path,
    hooks_file: &Path,
    hook: Option<&HookAt>,
    gemini_trust_file: Option<&Path>,
) -> Seen {
    match host.agent {
        Agent::Claude => Seen::CannotTell("Claude Code asks at its first start".into()),
        Agent::Codex => codex_seen(scope, root, home, hooks_file, hook),
        Agent::Gemini => {
            // Gemini CLI runs even user hooks only in a trusted folder (measured, 0.61.0).
            let file = gemini_trust_file
                .map_or_else(|| home.join("trustedFolders.json"), Path::to_path_buf);
            let b = fsx::Boundary::user(file.parent().unwrap_or(home), "Gemini CLI");
            let root = &fsx::canonical(root).unwrap_or_else(|| root.to_path_buf());
            let Some(v) = hosts::read_lenient(&b, &file) else {
                return Seen::NotTrusted(format!(
                    "{} does not trust {} (no {})",
                    host.name,
                    root.display(),
                    file.display()
                ));
            };
            let rules = v.as_object().cloned().unwrap_or_default();
            // The nearest rule for the folder or one of its parents decides.
            for dir in root.ancestors() {
                let rule = rules
                    .get(&dir.display().to_string())
                    .and_then(Value::as_str);
                match (rule, dir == root) {
                    (Some("DO_NOT_TRUST"), _) => {
                        return Seen::NotTrusted(format!(
                            "{} marks {} DO_NOT_TRUST",
                            file.display(),
                            dir.display()
                        ));
                    }
                    (Some("TRUST_FOLDER"), _) | (Some("TRUST_PARENT"), false) => {
                        return Seen::Trusted(format!("trusted in {}", file.display()));
                    }
                    (Some(other), _) => {
                        return Seen::CannotTell(format!(
                            "{} has {other} for {}",
                            file.display(),
                            dir.display()
                        ));
                    }
                    (None, _) => {}
                }
            }
            Seen::NotTrusted(format!(
                "{} has no rule for {} or a folder above it",
                file.display(),
                root.display()
            ))
        }
        Agent::Copilot if scope == Scope::User => {
            Seen::Trusted("user hooks need no folder trust".into())
        }
        Agent::Copilot => {
            let file = home.join("config.json");
            let b = fsx::Boundary::user(home, "Copilot CLI");
            let folders: Vec<String> = hosts::read_lenient(&b, &file)
                .and_then(|v| v.get("trustedFolders").cloned())
                .and_then(|f| serde_json::from_value(f).ok())
                .unwrap_or_default();
            if root
                .ancestors()
                .any(|d| folders.iter().any(|f| Path::new(f) == d))
            {
                Seen::Trusted(format!("trusted in {}", file.display()))
            } else {
                Seen::NotTrusted(format!(
                    "{} is not among trustedFolders in {}",
                    root.display(),
                    file.display()
                ))
            }
        }
    }
}

/// megg's hook handler in a hooks file: its place and the entry around it.
#[derive(Debug, Clone)]
pub struct HookAt {
    pub event: String,
    pub group: usize,
    pub handler: usize,
    pub matcher: Option<String>,
    pub command: String,
    /// The line under the host's Windows key (Codex `commandWindows`), if any.
    pub command_windows: Option<String>,
    pub timeout: Option<u64>,
}

impl HookAt {
    /// The handler as the host runs it on `platform`: on Windows Codex runs (and so trusts)
    /// `commandWindows` where there is one; elsewhere it never looks at it, so adding one leaves
    /// the trust of a Unix user's entry as it was (measured with Codex 0.171.0 on Linux).
    pub fn on(self, platform: Platform) -> Self {
        match (platform, self.command_windows.clone()) {
            (Platform::Windows, Some(command)) => Self { command, ..self },
            _ => self,
        }
    }
}

/// Finds megg's context hook for `host` in a hooks file.
pub fn find_hook(v: &Value, host: &'static Host) -> Option<HookAt> {
    find_hooks(v, host, Hook::Context).into_iter().next()
}

/// Every handler of megg's `hook` for `host` in a hooks file (grouped layouts: Codex, Gemini).
pub fn find_hooks(v: &Value, host: &'static Host, hook: Hook) -> Vec<HookAt> {
    let mut out = Vec::new();
    for event in hook.events_of(host) {
        let list = v
            .get("hooks")
            .and_then(|h| h.get(event))
            .and_then(Value::as_array);
        for (g, group) in list.into_iter().flatten().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (h, handler) in handlers.into_iter().flatten().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if hook.program_of(host, command).is_some() {
                    out.push(HookAt {
                        event: event.to_string(),
                        group: g,
                        handler: h,
                        matcher: group
                            .get("matcher")
                            .and_then(Value::as_str)
                            .map(String::from),
                        command: command.to_string(),
                        command_windows: match host.windows {
                            WindowsHooks::Key(key) => {
                                handler.get(key).and_then(Value::as_str).map(String::from)
                            }
                            WindowsHooks::Exec | WindowsHooks::PowerShell => None,
                        },
                        timeout: handler.get("timeout").and_then(Value::as_u64),
                    });
                }
            }
        }
    }
    out
}

/// Codex CLI: a project's files load only when `[projects."<root>"] trust_level = "trusted"`,
/// and each hook runs only when `[hooks.state."<file>:<event>:<group>:<handler>"]` holds the
/// hash of its entry (measured with Codex 0.169.0).
fn codex_seen(
    scope: Scope,
    root: &Path,
    home: &Path,
    hooks_file: &Path,
    hook: Option<&HookAt>,
) -> Seen {
    let file = home.join("config.toml");
    let b = fsx::Boundary::user(home, "Codex CLI");
    let doc = match fsx::read_text(&b, &file, super::plan::MAX_SETTINGS_BYTES) {
        Ok(Some(t)) => match t.text.parse::<toml_edit::DocumentMut>() {
            Ok(doc) => doc,
            Err(_) => return Seen::CannotTell(format!("{} does not parse", file.display())),
        },
        _ => toml_edit::DocumentMut::new(),
    };
    if scope == Scope::Project {
        let level = doc
            .get("projects")
            .and_then(|p| p.get(root.display().to_string()))
            .and_then(|p| p.get("trust_level"))
            .and_then(|l| l.as_str());
        if level != Some("trusted") {
            return Seen::NotTrusted(format!(
                "the project is not trusted ({} has no trust_level = \"trusted\" for {})",
                file.display(),
                root.display()
            ));
        }
    }
    let Some(hook) = hook else {
        return Seen::CannotTell("megg's hook was not found".into());
    };
    let key = format!(
        "{}:{}:{}:{}",
        hooks_file.display(),
        snake_case(&hook.event),
        hook.group,
        hook.handler
    );
    let recorded = doc
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.get(&key))
        .and_then(|s| s.get("trusted_hash"))
        .and_then(|h| h.as_str());
    match recorded {
        None => Seen::NotTrusted(format!(
            "megg's {} hook is not trusted (no trusted_hash for it in {}): Codex skips it without a word",
            hook.event,
            file.display()
        )),
        Some(h) if h == codex_hook_hash(hook) => {
            Seen::Trusted(format!("megg's hook is trusted in {}", file.display()))
        }
        Some(_) => Seen::NotTrusted(format!(
            "megg's {} hook was trusted for an earlier entry (its hash in {} no longer matches): trust it again",
            hook.event,
            file.display()
        )),
    }
}

/// `SessionStart` → `session_start`.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Codex's trust hash of a hook handler: SHA-256 of the compact JSON, keys sorted, of
/// `{"event_name", "hooks": [the handler with Codex's defaults], "matcher"?}`.
pub fn codex_hook_hash(hook: &HookAt) -> String {
    use sha2::Digest;
    let mut timeout = hook.timeout.unwrap_or(600).max(1);
    if hook.event == "SessionEnd" {
        timeout = timeout.min(3);
    }
    let mut identity = format!(
        "{{\"event_name\":{},\"hooks\":[{{\"async\":false,\"command\":{},\"timeout\":{timeout},\"type\":\"command\"}}]",
        Value::from(snake_case(&hook.event)),
        Value::from(hook.command.as_str())
    );
    if let Some(m) = &hook.matcher {
        identity.push_str(&format!(",\"matcher\":{}", Value::from(m.as_str())));
    }
    identity.push('}');
    let digest = sha2::Sha256::digest(identity.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_hook_hash_is_codexs() {
        let hook = HookAt {
            event: "SessionStart".into(),
            group: 0,
            handler: 0,
            matcher: None,
            command: "echo hi".into(),
            command_windows: Some("echo windows".into()),
            timeout: Some(30),
        };
        // Python's hashlib over the identity Codex hashes (its key order, compact JSON, the
        // defaults it fills in); the e2e test `codex` checks Codex accepts megg's.
        let expected = "sha256:59cef8dd19f237d2b895f105e1b58dbe36fc741179e521988935609cfe668f31";
        assert_eq!(codex_hook_hash(&hook), expected);
        // A Windows key beside it changes nothing on Unix; on Windows Codex runs that line.
        assert_eq!(codex_hook_hash(&hook.clone().on(Platform::Unix)), expected);
        assert_ne!(codex_hook_hash(&hook.on(Platform::Windows)), expected);
        assert_eq!(snake_case("SessionStart"), "session_start");
        assert_eq!(snake_case("PreCompact"), "pre_compact");
    }
}
