//! The agent hosts megg serves (SPEC §12), each described once, as data: what its
//! SessionStart hook must print for the model to receive megg's context, and how much of it
//! arrives whole. The hook, and later setup and doctor, read these descriptions instead of
//! each matching on the host.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

/// An agent CLI megg runs in.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    ValueEnum,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code (`@anthropic-ai/claude-code`)
    #[default]
    Claude,
    /// OpenAI Codex CLI (`@openai/codex`)
    Codex,
    /// Google Gemini CLI (`@google/gemini-cli`)
    Gemini,
    /// GitHub Copilot CLI (`@github/copilot`)
    Copilot,
}

/// The shape of a host's SessionStart hook document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    /// `{"systemMessage", "hookSpecificOutput": {"hookEventName", "additionalContext"}}`.
    SystemMessageAndContext,
    /// Only `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`: Codex fails a
    /// hook whose JSON has any key outside its schema; Gemini injects only this field.
    ContextOnly,
    /// Only a top-level `{"additionalContext"}`: Copilot ignores `hookSpecificOutput`.
    TopLevelContext,
}

/// How a host's hooks file lays out one handler (SPEC §12 table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookLayout {
    /// `{"hooks": {Event: [{"matcher"?, "hooks": [{"type": "command", "command", <timeout>}]}]}}`
    /// (Claude Code, Codex, Gemini).
    Grouped,
    /// `{"version": 1, "hooks": {event: [{"type": "command", "bash", <timeout>}]}}` (Copilot).
    Flat,
}

/// How a host runs a hook handler on Windows (SPEC §15.1; read in the pinned releases): setup
/// writes the form it runs there, and doctor names a line it would not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowsHooks {
    /// The exec form, `"command"` (the program) + `"args"`, spawned with no shell. A shell-form
    /// `command` runs in Git Bash where it is installed, else in PowerShell (Claude Code).
    Exec,
    /// This key of the handler, run in PowerShell instead of the POSIX one where present (Codex
    /// `commandWindows`, Copilot `powershell`).
    Key(&'static str),
    /// The one `command`, in PowerShell: `pwsh`, else Windows PowerShell 5.1, which has no
    /// `&&`, `||` or `??` (Gemini CLI).
    PowerShell,
}

/// Where a host reads its MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpPlace {
    /// `mcpServers.megg` in the project's `.mcp.json` (Claude Code's shape; Copilot reads it
    /// too): shared between the hosts that read it.
    ProjectMcpJson,
    /// Claude Code's user scope: registered with `claude mcp add --scope user`.
    ClaudeCli,
    /// `[mcp_servers.megg]` in a Codex `config.toml`.
    CodexToml,
    /// `mcpServers.megg` in a Gemini `settings.json`, next to its hooks.
    GeminiSettings,
    /// `mcpServers.megg` in Copilot's `mcp-config.json` (`"type": "local"`, `"tools": ["*"]`).
    CopilotConfig,
}

/// What megg knows of one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Host {
    pub agent: Agent,
    /// How people call it.
    pub name: &'static str,
    pub document: Document,
    /// Most UTF-8 bytes of context that arrive whole: Codex turns hook output over about
    /// 2,500 tokens (≈ 10,000 bytes) into a head-and-tail preview.
    pub max_bytes: Option<usize>,
    /// The event megg's context hook runs on.
    pub start_event: &'static str,
    /// The matcher of the context hook's entry (`None`: every source).
    pub start_matcher: Option<&'static str>,
    /// The events megg's capture hook runs on (SPEC §10, §12 table).
    pub capture_events: &'static [&'static str],
    /// Events whose handlers the host holds to a shorter timeout than [`Host::timeout`]
    /// (Codex clamps `SessionEnd` to 3 s and warns about a longer one).
    pub short_timeouts: &'static [(&'static str, u64)],
    pub layout: HookLayout,
    /// The handler's timeout key and its value (in the host's unit), if megg sets one.
    pub timeout: Option<(&'static str, u64)>,
    /// The handler's `name`, where the host shows one (Gemini announces new project hooks by
    /// it, and merges identical hooks by name and command).
    pub handler_name: Option<&'static str>,
    /// The hooks file at project scope, relative to the project root.
    pub project_hooks: &'static str,
    /// The hooks file at user scope, relative to the host's user directory.
    pub user_hooks: &'static str,
    /// Where the MCP server goes: project scope, user scope.
    pub mcp: [McpPlace; 2],
    /// Whether setup installs megg's workflow commands (and `/megg-state`) into the host's
    /// directory: Claude Code's markdown commands and skill, Gemini's TOML commands.
    pub commands: bool,
    /// How it runs a hook on Windows.
    pub windows: WindowsHooks,
}

const HOSTS: [Host; 4] = [
    Host {
        agent: Agent::Claude,
        name: "Claude Code",
        document: Document::SystemMessageAndContext,
        max_bytes: None,
        start_event: "SessionStart",
        start_matcher: Some("startup|resume|clear|compact"),
        capture_events: &["PreCompact", "PostCompact", "SessionEnd", "Stop"],
        short_timeouts: &[],
        layout: HookLayout::Grouped,
        timeout: None,
        handler_name: None,
        project_hooks: ".claude/settings.json",
        user_hooks: "settings.json",
        mcp: [McpPlace::ProjectMcpJson, McpPlace::ClaudeCli],
        commands: true,
        windows: WindowsHooks::Exec,
    },
    Host {
        agent: Agent::Codex,
        name: "Codex CLI",
        document: Document::ContextOnly,
        max_bytes: Some(9_500),
        start_event: "SessionStart",
        start_matcher: None,
        capture_events: &["Stop", "SessionEnd", "PreCompact"],
        short_timeouts: &[("SessionEnd", 3)],
        layout: HookLayout::Grouped,
        timeout: Some(("timeout", 30)),
        handler_name: None,
        project_hooks: ".codex/hooks.json",
        user_hooks: "hooks.json",
        mcp: [McpPlace::CodexToml, McpPlace::CodexToml],
        commands: false,
        windows: WindowsHooks::Key("commandWindows"),
    },
    Host {
        agent: Agent::Gemini,
        name: "Gemini CLI",
        document: Document::ContextOnly,
        max_bytes: None,
        start_event: "SessionStart",
        start_matcher: None,
        // Not `PreCompress`: it fires before every model call.
        capture_events: &["AfterAgent", "SessionEnd"],
        short_timeouts: &[],
        layout: HookLayout::Grouped,
        timeout: Some(("timeout", 30_000)),
        handler_name: Some("megg"),
        project_hooks: ".gemini/settings.json",
        user_hooks: "settings.json",
        mcp: [McpPlace::GeminiSettings, McpPlace::GeminiSettings],
        commands: true,
        windows: WindowsHooks::PowerShell,
    },
    Host {
        agent: Agent::Copilot,
        name: "Copilot CLI",
        document: Document::TopLevelContext,
        max_bytes: None,
        start_event: "sessionStart",
        start_matcher: None,
        // `userPromptSubmitted` keeps the prompt its lazily written transcript may lack.
        capture_events: &[
            "userPromptSubmitted",
            "agentStop",
            "sessionEnd",
            "preCompact",
        ],
        short_timeouts: &[],
        layout: HookLayout::Flat,
        timeout: Some(("timeoutSec", 30)),
        handler_name: None,
        project_hooks: ".github/hooks/megg.json",
        user_hooks: "hooks/megg.json",
        mcp: [McpPlace::ProjectMcpJson, McpPlace::CopilotConfig],
        commands: false,
        windows: WindowsHooks::Key("powershell"),
    },
];

/// Every host, in `--agent`'s order.
pub fn all() -> impl Iterator<Item = &'static Host> {
    HOSTS.iter()
}

/// The user directories of each host, from the environment (each host's own home variable
/// first: `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `COPILOT_HOME`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Homes {
    pub claude: Option<PathBuf>,
    pub codex: Option<PathBuf>,
    pub gemini: Option<PathBuf>,
    pub copilot: Option<PathBuf>,
    /// Gemini CLI's folder-trust file when `GEMINI_CLI_TRUSTED_FOLDERS_PATH` moves it.
    pub gemini_trusted_folders: Option<PathBuf>,
    /// megg's own user configuration directory (`$XDG_CONFIG_HOME/megg`, else `%APPDATA%\megg`
    /// on Windows, else `~/.config/megg`):
    /// where user-scope setup records the hosts it installed.
    pub megg: Option<PathBuf>,
}

impl Homes {
    pub fn from_env() -> Self {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = crate::fsx::home_dir();
        let under = |rel: &str| home.as_ref().map(|h| h.join(rel));
        Self {
            claude: var("CLAUDE_CONFIG_DIR").or_else(|| under(".claude")),
            codex: var("CODEX_HOME").or_else(|| under(".codex")),
            // Gemini CLI reads `$GEMINI_CLI_HOME/.gemini` when that is set.
            gemini: var("GEMINI_CLI_HOME")
                .map(|h| h.join(".gemini"))
                .or_else(|| under(".gemini")),
            copilot: var("COPILOT_HOME").or_else(|| under(".copilot")),
            gemini_trusted_folders: var("GEMINI_CLI_TRUSTED_FOLDERS_PATH"),
            megg: crate::fsx::user_config_dir(),
        }
    }

    /// The user directory of `agent`.
    pub fn of(&self, agent: Agent) -> Option<&Path> {
        match agent {
            Agent::Claude => self.claude.as_deref(),
            Agent::Codex => self.codex.as_deref(),
            Agent::Gemini => self.gemini.as_deref(),
            Agent::Copilot => self.copilot.as_deref(),
        }
    }
}

impl Host {
    /// The hooks file for a scope: `project` is the project root, `user` the host's user
    /// directory.
    pub fn hooks_file(&self, user: bool, project: &Path, home: &Path) -> PathBuf {
        if user {
            home.join(self.user_hooks)
        } else {
            project.join(self.project_hooks)
        }
    }

    /// The directory a scope's files live in (the boundary setup writes in).
    pub fn dir(&self, user: bool, project: &Path, home: &Path) -> PathBuf {
        if user {
            home.to_path_buf()
        } else {
            let first = self.project_hooks.split('/').next().unwrap_or_default();
            project.join(first)
        }
    }

    /// The arguments after `megg` of the context hook.
    pub fn context_args(&self) -> String {
        match self.agent {
            Agent::Claude => "context --json".into(),
            a => format!("context --format hook --agent {}", a.as_str()),
        }
    }
}

impl Agent {
    /// Its `--agent` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Claude => "claude",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Copilot => "copilot",
        }
    }

    pub fn host(self) -> &'static Host {
        HOSTS.iter().find(|h| h.agent == self).unwrap_or(&HOSTS[0])
    }

    /// The agent a command line names (`--agent X` / `--agent=X`), read before clap so a
    /// hook that fails to parse still answers in its host's shape.
    pub fn from_args(args: &[String]) -> Self {
        let named = args.iter().enumerate().find_map(|(i, a)| {
            a.strip_prefix("--agent=")
                .map(str::to_string)
                .or_else(|| (a == "--agent").then(|| args.get(i + 1).cloned()).flatten())
        });
        named
            .and_then(|n| Self::from_str(&n, true).ok())
            .unwrap_or_default()
    }
}

/// The hook document `host` reads: the context the model receives and, where the host shows
/// one, the message for the user.
pub fn hook_document(host: &Host, system_message: &str, context: &str) -> String {
    let inner = serde_json::json!({
        "hookEventName": "SessionStart",
        "additionalContext": context,
    });
    match host.document {
        Document::SystemMessageAndContext => serde_json::json!({
            "systemMessage": system_message,
            "hookSpecificOutput": inner,
        }),
        Document::ContextOnly => serde_json::json!({ "hookSpecificOutput": inner }),
        Document::TopLevelContext => serde_json::json!({ "additionalContext": context }),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(doc: &str) -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(doc).unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn each_host_gets_its_own_document() {
        let doc = |a: Agent| hook_document(a.host(), "msg", "ctx");
        assert_eq!(
            keys(&doc(Agent::Claude)),
            ["systemMessage", "hookSpecificOutput"]
        );
        for a in [Agent::Codex, Agent::Gemini] {
            let d = doc(a);
            assert_eq!(keys(&d), ["hookSpecificOutput"], "{a:?}");
            let v: serde_json::Value = serde_json::from_str(&d).unwrap();
            let inner = v["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(inner.len(), 2);
            assert_eq!(inner["additionalContext"], "ctx");
            assert_eq!(inner["hookEventName"], "SessionStart");
        }
        let d = doc(Agent::Copilot);
        assert_eq!(keys(&d), ["additionalContext"]);
        assert!(d.contains("\"ctx\""));
    }

    #[test]
    fn the_agent_is_read_before_clap() {
        let args = |s: &[&str]| s.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent", "codex"])),
            Agent::Codex
        );
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent=Copilot"])),
            Agent::Copilot
        );
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent"])),
            Agent::Claude
        );
        assert_eq!(
            Agent::from_args(&args(&["context", "--agent", "vim"])),
            Agent::Claude
        );
    }

    #[test]
    fn only_codex_has_a_byte_limit() {
        assert_eq!(Agent::Codex.host().max_bytes, Some(9_500));
        for a in [Agent::Claude, Agent::Gemini, Agent::Copilot] {
            assert_eq!(a.host().max_bytes, None);
        }
    }
}
