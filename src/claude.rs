//! Claude Code as an outside system: where its user files are (honouring `CLAUDE_CONFIG_DIR`,
//! SPEC §7) and running its CLI. megg never edits `~/.claude.json` itself.

use std::path::PathBuf;

/// The user's Claude Code directory: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`.
pub fn user_dir() -> Option<PathBuf> {
    non_empty("CLAUDE_CONFIG_DIR").or_else(|| home().map(|h| h.join(".claude")))
}

/// The user's Claude Code state file (MCP servers at user scope): `.claude.json` in
/// `$CLAUDE_CONFIG_DIR` when set, else `~/.claude.json`.
pub fn user_json() -> Option<PathBuf> {
    match non_empty("CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(dir.join(".claude.json")),
        None => home().map(|h| h.join(".claude.json")),
    }
}

/// The user's home: `$HOME`, else `%USERPROFILE%` on Windows.
pub fn home() -> Option<PathBuf> {
    crate::fsx::home_dir()
}

/// Runs `claude ARGS` when `claude` is on PATH (on Windows `claude.exe`, else npm's
/// `claude.cmd`); `true` when it succeeded.
pub fn run(argv: &[&str]) -> bool {
    let Some(program) = program() else {
        return false;
    };
    std::process::Command::new(program)
        .args(argv)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A Claude Code version, as `claude --version` prints it (`2.1.332 (Claude Code)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// The version at the start of `claude --version`'s output.
    pub fn parse(text: &str) -> Option<Self> {
        let word = text.split_whitespace().next()?;
        let mut parts = word.split('.').map(|n| n.parse::<u32>().ok());
        let version = Self(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The first Claude Code that runs a hook's exec form (`"command"` + `"args"`, no shell),
/// read in its shipped code (SPEC §15.1). Before it, the settings schema drops `args`
/// without a word and runs `command` alone through the shell: `megg` with no arguments.
pub const EXEC_FORM_SINCE: Version = Version(2, 1, 139);

/// Longest megg waits for `claude --version` (a cold start of its single binary).
const VERSION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// What `claude --version` told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// No `claude` on PATH.
    Absent,
    /// One is there, but it failed, took too long or printed no version.
    Unknown,
    Version(Version),
}

impl Asked {
    /// The version read, if any.
    pub fn version(self) -> Option<Version> {
        match self {
            Self::Version(v) => Some(v),
            Self::Absent | Self::Unknown => None,
        }
    }
}

/// The version of the `claude` on PATH (on Windows `claude.exe`, else npm's `claude.cmd`),
/// run directly (no shell), its stdout read.
pub fn version() -> Asked {
    let Some(program) = program() else {
        return Asked::Absent;
    };
    let answer = crate::probe::ask(&program, &["--version"], VERSION_TIMEOUT);
    match answer {
        Ok(a) if a.status.success() => Version::parse(&String::from_utf8_lossy(&a.stdout))
            .map_or(Asked::Unknown, Asked::Version),
        _ => Asked::Unknown,
    }
}

/// The `claude` on PATH that can be spawned without a shell: not npm's `claude.ps1`.
fn program() -> Option<PathBuf> {
    crate::probe::which("claude")
        .filter(|p| !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ps1")))
}

fn non_empty(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Most bytes of hook input read (SPEC §3.3, §9).
pub const MAX_HOOK_INPUT: u64 = 64 * 1024;
/// Longest megg waits for the end of hook input (SPEC §3.3).
pub const HOOK_INPUT_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// The JSON object Claude Code writes on a hook's stdin (SPEC §3.3). Every field is optional:
/// megg runs on whatever part of it makes sense.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default)]
pub struct HookInput {
    /// Copilot CLI spells its fields in camelCase (SPEC §12).
    #[serde(alias = "sessionId")]
    pub session_id: Option<String>,
    #[serde(alias = "transcriptPath")]
    pub transcript_path: Option<PathBuf>,
    pub cwd: Option<PathBuf>,
    #[serde(alias = "hookEventName")]
    pub hook_event_name: Option<String>,
    /// SessionStart's `startup|resume|clear|compact`.
    pub source: Option<String>,
    /// Stop's copy of the turn's last assistant message: when the hook runs, Claude Code has
    /// not written it to the transcript yet.
    pub last_assistant_message: Option<String>,
    /// Copilot CLI's session-start prompt (`initialPrompt`; `initial_prompt` when it runs a
    /// Claude-format hook).
    #[serde(alias = "initialPrompt")]
    pub initial_prompt: Option<String>,
    /// The prompt the user submitted (Copilot's `userPromptSubmitted`, Claude Code's
    /// `UserPromptSubmit`; Gemini's `AfterAgent` with its hook context prepended).
    pub prompt: Option<String>,
    /// Gemini's `AfterAgent`: the turn's answer.
    pub prompt_response: Option<String>,
    /// A compaction's `manual|auto` (Copilot's `preCompact` is known by it).
    pub trigger: Option<String>,
    /// Claude Code's `PostCompact`: the summary its model wrote for the compaction (SPEC
    /// §18.1); empty on one of its paths, which is no summary.
    pub compact_summary: Option<String>,
    /// The input has a field only Copilot CLI sends: `sessionId` (camelCase) or `timestamp`
    /// (in both its own and the Claude-format inputs it hands hooks).
    #[serde(skip)]
    pub copilot_fields: bool,
    /// When the host sent this event (Gemini and Copilot CLI: text or milliseconds), as
    /// written: two of megg's hooks run for one event share it, two starts of a session do not.
    #[serde(default, deserialize_with = "timestamp_text")]
    pub timestamp: Option<String>,
}

/// A `timestamp` field as text, whatever JSON it is (a string, a number, anything else).
fn timestamp_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let v: Option<serde_json::Value> = serde::Deserialize::deserialize(d)?;
    Ok(v.map(|v| match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }))
}

/// The fields that tell a Copilot CLI input apart (recorded from Copilot 1.0.102: its
/// Claude-format SessionEnd input has nothing else that would).
#[derive(serde::Deserialize)]
struct CopilotFields {
    #[serde(rename = "sessionId")]
    session_id: Option<serde::de::IgnoredAny>,
    timestamp: Option<serde::de::IgnoredAny>,
}

impl HookInput {
    /// Reads hook input from text; anything that is not a JSON object is no input.
    pub fn parse(text: &str) -> Option<Self> {
        let mut input: Self = serde_json::from_str(text).ok()?;
        input.copilot_fields = serde_json::from_str::<CopilotFields>(text)
            .is_ok_and(|c| c.session_id.is_some() || c.timestamp.is_some());
        Some(input)
    }

    /// Whether this input is Copilot CLI's (SPEC §12 "one megg per session"): Copilot also runs
    /// the Claude-format hooks of a trusted folder, with its own input — camelCase fields, a
    /// `timestamp`, an initial prompt, `source: new`, or a transcript under its
    /// `session-state/`.
    pub fn is_copilot(&self) -> bool {
        self.copilot_fields
            || self.initial_prompt.is_some()
            || self.source.as_deref() == Some("new")
            || self
                .transcript_path
                .as_ref()
                .is_some_and(|p| p.components().any(|c| c.as_os_str() == "session-state"))
    }

    /// The input on stdin when stdin is not a terminal: at most [`MAX_HOOK_INPUT`] bytes,
    /// waiting at most [`HOOK_INPUT_WAIT`] for its end. `None` when there is none or it is not
    /// JSON (never an error: hooks never fail).
    pub fn from_stdin() -> Option<Self> {
        Self::from_stdin_up_to(MAX_HOOK_INPUT)
    }

    /// [`HookInput::from_stdin`] with another bound: capture's input carries the turn's last
    /// message, so it may read up to SPEC §9's 1 MiB.
    pub fn from_stdin_up_to(limit: u64) -> Option<Self> {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal() {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(crate::fsx::read_stdin(limit));
        });
        match rx.recv_timeout(HOOK_INPUT_WAIT) {
            Ok(Ok((text, _, false))) => Self::parse(&text),
            _ => None,
        }
    }
}

/// Claude Code's task list directory for a session: `<config dir>/tasks/<list id>`, the list
/// id being `CLAUDE_CODE_TASK_LIST_ID` when set, else the session id (SPEC §10).
pub fn task_list_dir(session_id: &str) -> Option<PathBuf> {
    let list = std::env::var("CLAUDE_CODE_TASK_LIST_ID")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| session_id.to_string());
    let plain =
        !list.is_empty() && list != "." && list != ".." && !list.contains(['/', '\\', '\0']);
    plain.then(|| user_dir().map(|d| d.join("tasks").join(list)))?
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input Copilot CLI 1.0.102 hands a hook — its own format and the Claude-format
    /// hooks of `.claude/settings.json` (recorded in tests/fixtures/hook-inputs/) — is Copilot's;
    /// Claude Code's are not.
    #[test]
    fn copilots_inputs_are_told_from_claude_codes() {
        let copilot = [
            r#"{"hook_event_name":"SessionStart","session_id":"7c96","timestamp":"2026-11-23T19:49:11.488Z","cwd":"/p","source":"new","initial_prompt":"write the notes"}"#,
            r#"{"hook_event_name":"SessionEnd","session_id":"7c96","timestamp":"2026-11-23T19:49:12.559Z","cwd":"/p","reason":"complete"}"#,
            r#"{"hook_event_name":"Stop","session_id":"7c96","timestamp":"2026-11-23T19:49:12.515Z","cwd":"/p","transcript_path":"/h/.copilot/session-state/7c96/events.jsonl","stop_reason":"end_turn","stop_hook_active":false}"#,
            r#"{"sessionId":"7c96","timestamp":1795463351488,"cwd":"/p","source":"new","initialPrompt":"write the notes"}"#,
            r#"{"sessionId":"7c96","timestamp":1795463352515,"cwd":"/p","transcriptPath":"/h/.copilot/session-state/7c96/events.jsonl","stopReason":"end_turn"}"#,
        ];
        for input in copilot {
            assert!(HookInput::parse(input).unwrap().is_copilot(), "{input}");
        }
        let claude = [
            r#"{"session_id":"abc","transcript_path":"/h/.claude/projects/p/abc.jsonl","cwd":"/p","hook_event_name":"SessionStart","source":"startup"}"#,
            r#"{"session_id":"abc","transcript_path":"/h/.claude/projects/p/abc.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"SessionEnd","reason":"other"}"#,
            r#"{"session_id":"abc","transcript_path":"/h/.claude/projects/p/abc.jsonl","cwd":"/p","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}"#,
        ];
        for input in claude {
            assert!(!HookInput::parse(input).unwrap().is_copilot(), "{input}");
        }
    }

    #[test]
    fn versions_are_read_as_claude_version_prints_them() {
        assert_eq!(
            Version::parse("2.1.332 (Claude Code)\n"),
            Some(Version(2, 1, 332))
        );
        assert_eq!(Version::parse("2.1.138"), Some(Version(2, 1, 138)));
        for not in [
            "",
            "Claude Code 2.1.3",
            "2.1",
            "2.1.x (Claude Code)",
            "2.1.3.4",
        ] {
            assert_eq!(Version::parse(not), None, "{not}");
        }
        assert!(Version(2, 1, 138) < EXEC_FORM_SINCE && EXEC_FORM_SINCE < Version(2, 1, 200));
        assert!(Version(2, 2, 0) > EXEC_FORM_SINCE && Version(10, 0, 0) > Version(9, 99, 999));
        assert_eq!(EXEC_FORM_SINCE.to_string(), "2.1.139");
    }

    #[test]
    fn copilot_camel_case_input_is_read() {
        let i = HookInput::parse(
            r#"{"sessionId":"abc-1","cwd":"/w","source":"new","initialPrompt":"hi","transcriptPath":"/t.jsonl"}"#,
        )
        .unwrap();
        assert_eq!(i.session_id.as_deref(), Some("abc-1"));
        assert_eq!(
            i.transcript_path.as_deref(),
            Some(std::path::Path::new("/t.jsonl"))
        );
        assert_eq!(i.source.as_deref(), Some("new"));
        let claude = HookInput::parse(r#"{"session_id":"s","source":"startup"}"#).unwrap();
        assert_eq!(claude.session_id.as_deref(), Some("s"));
    }
}
