//! End to end with the real GitHub Copilot CLI (`@github/copilot`, pinned to
//! [`provision::COPILOT`]) in print mode (`copilot --allow-all-tools -p …`), offline, talking to
//! a scripted mock of the OpenAI Chat Completions API (`tests/e2e/mock_chat.py`) that logs
//! every request. megg's SessionStart hook and MCP server are installed by [`install`]; the
//! tests assert on what the model actually receives (SPEC §12).
//!
//! Copilot is `$MEGG_E2E_COPILOT`, else installed from npm into `<cargo target dir>/copilot`
//! by the first test that needs it. Without npm, or without a reachable registry, every test
//! here says so in one line and skips; under `CI` it fails. Copilot unpacks its JavaScript
//! into one `COPILOT_PKG_CACHE_HOME` under the target directory, shared by every run.
//!
//! What Copilot 1.0.102 does, as measured here (the report of SPEC §12):
//! - hooks: `.github/hooks/*.json` (project, only in a trusted folder) and
//!   `~/.copilot/hooks/*.json` (user, no trust needed), `{"version": 1, "hooks": {"sessionStart":
//!   [{"type": "command", "bash": …, "timeoutSec": …}]}}`; a top-level `additionalContext`
//!   printed by a sessionStart hook becomes its own user message, before the prompt.
//! - it also runs the Claude-format hooks of a trusted folder's `.claude/settings.json`, with
//!   snake_case input, ignoring their matchers; of their output it injects only a top-level
//!   `additionalContext` (never `hookSpecificOutput`).
//! - MCP servers from `.mcp.json` (trusted folder) and `~/.copilot/mcp-config.json`; the model
//!   sees megg's tools as `megg-<tool>`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::claude_code::{Mock, texts, wait};
use crate::common::provision;
use crate::{Git, NOW, Project};

/// The model name Copilot sends (any name works with a custom provider).
const MODEL: &str = "gpt-4.1";
/// A port nothing listens on: every proxied request fails, so only 127.0.0.1 is reachable.
const DEAD_PROXY: &str = "http://127.0.0.1:9";
/// The marker in `.megg/info.md`: it reaches the model only through megg's context.
const MARKER: &str = "INFO-MARKER-COPILOT";
const MEGG_TOOLS: [&str; 13] = [
    "context",
    "state",
    "learn",
    "init",
    "maintain",
    "checkpoint_save",
    "checkpoint_list",
    "checkpoint_resume",
    "checkpoint_update",
    "checkpoint_finish",
    "gitignore",
    "search",
    "show",
];

/// Where megg is installed into Copilot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `.github/hooks/megg.json` and `.mcp.json` in the project.
    Project,
    /// `~/.copilot/hooks/megg.json` and `~/.copilot/mcp-config.json`.
    User,
}

/// A git project with megg's files (an `info.md` holding [`MARKER`]) and a private HOME for
/// Copilot, apart from the project.
pub(crate) struct Session {
    pub(crate) p: Project,
    home: tempfile::TempDir,
    copilot: &'static Path,
}

impl Session {
    /// `None` when Copilot CLI or python3 (for the mock) is unavailable: the test skips, having
    /// said why (under `CI` it fails).
    pub(crate) fn new() -> Option<Self> {
        let copilot = provision::agent_cli(&provision::COPILOT)?;
        provision::python3()?;
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        p.write(".megg/info.md", info());
        git.commit("main", crate::epoch(NOW) - 3600, "init");
        // The mock's files and Copilot's output are written into the project's directory:
        // kept out of its changed files (which a capture claims).
        crate::codex_capture::exclude(
            p.root(),
            &["/requests-*", "/script-*", "/mock-*", "/copilot.std*"],
        );
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".copilot")).unwrap();
        Some(Self { p, home, copilot })
    }

    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    /// Records the project as trusted, as Copilot's own trust prompt does:
    /// `~/.copilot/config.json` `{"trustedFolders": ["<absolute path>"]}` (a parent folder
    /// trusts its subfolders too). megg never writes this itself (SPEC §12).
    pub(crate) fn trust(&self) {
        let config = json!({"trustedFolders": [self.p.root()]});
        std::fs::write(self.home().join(".copilot/config.json"), config.to_string()).unwrap();
    }

    /// megg's directory first, so `command -v megg` and `.mcp.json`'s `megg mcp` find the binary
    /// under test.
    fn path_var(&self) -> String {
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            megg().parent().unwrap().display()
        )
    }

    /// `copilot --allow-all-tools -p PROMPT` in the project against `mock`: offline, with a
    /// private HOME, no credentials but the mock's key, every proxied request sent to a dead
    /// port; megg's hook and MCP server see a fixed clock, no cache, no walk above the project.
    /// Returns what Copilot printed.
    pub(crate) fn copilot(&self, mock: &Mock, prompt: &str) -> String {
        let out_file = self.p.path("copilot.stdout");
        let err_file = self.p.path("copilot.stderr");
        let mut cmd = Command::new(self.copilot);
        cmd.current_dir(self.p.root())
            .env_clear()
            .env("PATH", self.path_var())
            .env("HOME", self.home())
            .env("COPILOT_OFFLINE", "true")
            .env("COPILOT_AUTO_UPDATE", "false")
            .env("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", mock.url()))
            .env("COPILOT_PROVIDER_API_KEY", "test-key")
            .env("COPILOT_MODEL", MODEL)
            .env("COPILOT_PKG_CACHE_HOME", provision::copilot_pkg_cache())
            .env("HTTP_PROXY", DEAD_PROXY)
            .env("HTTPS_PROXY", DEAD_PROXY)
            .env("http_proxy", DEAD_PROXY)
            .env("https_proxy", DEAD_PROXY)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env("MEGG_NOW", NOW)
            .env("MEGG_CACHE_DIR", "")
            .env("MEGG_CEILING_DIRS", self.p.root().parent().unwrap())
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["--allow-all-tools", "-p", prompt])
            .stdin(Stdio::null())
            .stdout(File::create(&out_file).unwrap())
            .stderr(File::create(&err_file).unwrap());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let status = wait(cmd.spawn().unwrap(), "copilot -p");
        let stdout = std::fs::read_to_string(&out_file).unwrap();
        let stderr = std::fs::read_to_string(&err_file).unwrap();
        let paths: Vec<Value> = mock.requests().iter().map(|r| r["path"].clone()).collect();
        assert!(
            status.success(),
            "copilot -p failed ({status}):\nstdout: {stdout}\nstderr: {stderr}\nrequests: {paths:?}"
        );
        assert!(
            !agent_requests(mock).is_empty(),
            "the mock got no model request (offline provider mode broken?): {paths:?}\n{stderr}"
        );
        stdout
    }

    /// The context megg's Copilot hook prints for this project, run as the hook runs.
    pub(crate) fn hook_context(&self) -> String {
        let out = self
            .p
            .megg("")
            .env("MEGG_NOW", NOW)
            .env("MEGG_CACHE_DIR", "")
            .args(["context", "--format", "hook", "--agent", "copilot"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["additionalContext"].as_str().unwrap().to_string()
    }
}

/// The megg binary under test.
fn megg() -> PathBuf {
    assert_cmd::cargo::cargo_bin("megg")
}

/// Runs `megg setup ARGS --json` in the project with the session's HOME, as a user does.
fn setup(s: &Session, args: &[&str]) {
    let out =
        s.p.megg("")
            .env("HOME", s.home())
            .env_remove("COPILOT_HOME")
            .arg("setup")
            .args(args)
            .arg("--json")
            .output()
            .unwrap();
    assert!(
        out.status.success(),
        "megg setup {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Installs megg's session-start hook and MCP server into Copilot with
/// `megg setup --agent copilot --scope …`.
pub(crate) fn install(s: &Session, scope: Scope) {
    let scope = match scope {
        Scope::Project => "project",
        Scope::User => "user",
    };
    setup(s, &["--agent", "copilot", "--scope", scope]);
}

/// megg set up for Claude Code in the project (`megg setup`): its SessionStart and capture
/// hooks in `.claude/settings.json`, which Copilot runs too in a trusted folder.
fn install_claude_hook(s: &Session) {
    setup(s, &["--agent", "claude"]);
}

fn info() -> String {
    format!(
        "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n---\n\n# Shop\n\n## Context\nThe storefront {MARKER}: Next.js front end, Rust API.\n"
    )
}

/// The mock Chat Completions API, scripted with `script` (see `mock_chat.py`).
pub(crate) fn mock(s: &Session, script: &Value) -> Mock {
    Mock::start_file(s.p.root(), script, "mock_chat.py")
}

/// The bodies of the agent loop's chat completions (the ones offering tools; not Copilot's
/// compaction requests).
pub(crate) fn agent_requests(mock: &Mock) -> Vec<Value> {
    mock.requests()
        .into_iter()
        .filter(|r| r["path"].as_str().unwrap().ends_with("/chat/completions"))
        .filter(|r| r["headers"]["x-interaction-type"] != "conversation-compaction")
        .filter(|r| r["body"]["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .map(|r| r["body"].clone())
        .collect()
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(String::from))
        .collect()
}

/// Asserts that every model request carries megg's context exactly once: the marker once in
/// all the text the model reads, and the hook's context verbatim, as its own user message.
fn assert_context_once(s: &Session, mock: &Mock) {
    let context = s.hook_context();
    assert!(context.contains(MARKER), "{context}");
    let requests = agent_requests(mock);
    for body in &requests {
        let texts = texts(body);
        let marked: Vec<&String> = texts.iter().filter(|t| t.contains(MARKER)).collect();
        let all = texts.join("\n");
        assert_eq!(
            all.matches(MARKER).count(),
            1,
            "megg's context reaches the model exactly once per session start; texts with \
             the marker: {marked:#?}"
        );
        let user: Vec<&Value> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "user")
            .collect();
        assert!(
            user.iter().any(|m| m["content"] == context.as_str()),
            "the hook's additionalContext, verbatim, as a user message of its own:\n{context}\n---\n{user:#?}"
        );
    }
}

fn assert_megg_tools(mock: &Mock) {
    let body = &agent_requests(mock)[0];
    let names = tool_names(body);
    for tool in MEGG_TOOLS {
        let name = format!("megg-{tool}");
        let t = body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["function"]["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} not offered: {names:?}"));
        assert!(
            t["function"]["description"].as_str().unwrap().len() > 40,
            "{t}"
        );
        assert_eq!(t["function"]["parameters"]["type"], "object", "{t}");
    }
}

/// Nothing but the mock on 127.0.0.1 was asked for anything: every request the mock logged
/// is a model call, and Copilot's only traffic is the mock's (the proxies point at a dead port).
fn assert_only_the_mock(mock: &Mock) {
    for r in mock.requests() {
        assert!(
            r["path"].as_str().unwrap().starts_with("/v1/"),
            "{}",
            r["path"]
        );
        assert_eq!(r["headers"]["authorization"], "Bearer test-key");
    }
}

#[test]
fn project_scope_context_once_and_mcp_tools_offered() {
    let Some(s) = Session::new() else { return };
    s.trust();
    install(&s, Scope::Project);
    let mock = mock(&s, &json!([]));
    let out = s.copilot(&mock, "hello");
    assert!(out.contains("OK"), "{out}");
    assert_context_once(&s, &mock);
    assert_megg_tools(&mock);
    assert_only_the_mock(&mock);
}

/// User hooks and `~/.copilot/mcp-config.json` need no folder trust: nothing in
/// `~/.copilot/config.json` names the project.
#[test]
fn user_scope_needs_no_folder_trust() {
    let Some(s) = Session::new() else { return };
    install(&s, Scope::User);
    let mock = mock(&s, &json!([]));
    s.copilot(&mock, "hello");
    assert_context_once(&s, &mock);
    assert_megg_tools(&mock);
    assert_only_the_mock(&mock);
}

/// SPEC §12 "One megg per session": a project set up for both Copilot and Claude Code, whose
/// `.claude/settings.json` hook Copilot also runs in a trusted folder.
#[test]
fn copilot_and_claude_hooks_inject_the_context_once() {
    let Some(s) = Session::new() else { return };
    s.trust();
    install(&s, Scope::Project);
    install_claude_hook(&s);
    let mock = mock(&s, &json!([]));
    s.copilot(&mock, "hello");
    assert_context_once(&s, &mock);
}

/// SPEC §12 "One megg per session": only Claude Code's hook is registered, and Copilot runs it;
/// megg recognises Copilot's input and answers in Copilot's shape, so the model still gets the
/// context, once. Fails until that detection exists: Copilot ignores `hookSpecificOutput`.
#[test]
fn a_claude_format_hook_alone_injects_the_context_once() {
    let Some(s) = Session::new() else { return };
    s.trust();
    install_claude_hook(&s);
    let mock = mock(&s, &json!([]));
    s.copilot(&mock, "hello");
    assert_context_once(&s, &mock);
}

/// The model calls megg's MCP tool by Copilot's name for it, and megg saves the handoff.
#[test]
fn the_model_saves_state_through_the_mcp_tool() {
    let Some(s) = Session::new() else { return };
    s.trust();
    install(&s, Scope::Project);
    let content = "## Working On\nSaved by Copilot E2E-MARKER\n\n## Next\nShip it";
    let mock = mock(
        &s,
        &json!([
            [{"type": "tool_call", "name": "megg-state", "arguments": {"content": content}}],
            [{"type": "text", "text": "State saved."}]
        ]),
    );
    let out = s.copilot(&mock, "save the handoff");
    assert!(out.contains("State saved."), "{out}");
    let requests = agent_requests(&mock);
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let messages = requests[1]["messages"].as_array().unwrap();
    let result = messages.last().unwrap();
    assert_eq!(result["role"], "tool", "{result}");
    let text = match &result["content"] {
        Value::String(t) => t.clone(),
        other => other.to_string(),
    };
    assert!(text.contains(".megg/state.md"), "{text}");
    let state = s.p.read(".megg/state.md");
    assert!(state.ends_with(content), "{state}");
}
