//! End to end with the real Gemini CLI ([`provision::GEMINI`], pinned) in headless mode
//! (`gemini --approval-mode yolo -p …`), talking to a scripted mock of the Gemini API
//! (`tests/e2e/mock_gemini.py`) that logs every request. megg's SessionStart hook and MCP
//! server are installed by [`install`], in project or user scope; the tests assert on what the
//! model actually receives (SPEC §12).
//!
//! Nothing but 127.0.0.1 is contacted: the API key is a dummy, `GOOGLE_GEMINI_BASE_URL` points
//! at the mock, and every other HTTP(S) request goes to a proxy on a closed local port.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use serde_json::{Value, json};

use crate::claude_code::{Mock, wait};
use crate::common::provision;
use crate::{Git, NOW, Project};

/// The model the private settings name (the mock answers for any).
const MODEL: &str = "gemini-2.5-flash";
/// megg's MCP tools, as Gemini offers them: `mcp_<server>_<tool>`.
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
/// What the Gemini CLI prints the first time it sees a workspace's hooks (it then records
/// them in `~/.gemini/trusted_hooks.json` and does not say it again).
const NEW_HOOKS_WARNING: &str =
    "WARNING: The following project-level hooks have been detected in this workspace:";
/// What it prints, exiting 55, when run headless in a folder that is not trusted.
const UNTRUSTED: &str = "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.";
/// Gemini CLI's exit code for an untrusted workspace (`FatalUntrustedWorkspaceError`).
const EXIT_UNTRUSTED: i32 = 55;

/// Where megg is installed for the Gemini CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `.gemini/settings.json` in the project.
    Project,
    /// `~/.gemini/settings.json`.
    User,
}

/// A git project with megg's files (an `info.md`, an active state) and a private HOME whose
/// `~/.gemini/settings.json` selects API-key auth, names a model and turns telemetry and
/// updates off.
pub(crate) struct Session {
    pub(crate) p: Project,
    gemini: &'static Path,
}

/// What one `gemini -p` run left: its exit status and output.
pub(crate) struct Run {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Session {
    /// `None` when the Gemini CLI or python3 (for the mock) is unavailable: the test skips,
    /// having said why (under `CI` it fails).
    pub(crate) fn new() -> Option<Self> {
        let gemini = provision::agent_cli(&provision::GEMINI)?;
        provision::python3()?;
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        p.write(".megg/info.md", info());
        git.commit("main", crate::epoch(NOW) - 3600, "init");
        // The private HOME and the mock's files live in the project's directory: kept out of
        // its changed files (which a capture claims), as a user's HOME would be.
        crate::codex_capture::exclude(
            p.root(),
            &[
                "/home/",
                "/requests-*",
                "/script-*",
                "/mock-*",
                "/gemini.std*",
            ],
        );
        p.mkdir("home/.gemini");
        let s = Self { p, gemini };
        s.write_json("home/.gemini/settings.json", &user_settings());
        s.p.ok(
            "",
            &[
                "state",
                "write",
                "--content",
                "## Working On\nCheckout redesign GEMINI-STATE-MARKER\n\n## Next\nWire the form",
            ],
        );
        Some(s)
    }

    /// The project's root, as the Gemini CLI resolves it (symlinks followed).
    pub(crate) fn root(&self) -> PathBuf {
        self.p.root().canonicalize().unwrap()
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.p.path("home")
    }

    fn read_json(&self, rel: &str) -> Value {
        std::fs::read_to_string(self.p.path(rel))
            .map(|s| serde_json::from_str(&s).unwrap())
            .unwrap_or_else(|_| json!({}))
    }

    fn write_json(&self, rel: &str, doc: &Value) {
        self.p
            .write(rel, serde_json::to_string_pretty(doc).unwrap() + "\n");
    }

    /// `gemini --approval-mode yolo -p PROMPT` in the project against `mock`: a private HOME,
    /// a dummy key, no traffic beyond 127.0.0.1. `trusted` sets `GEMINI_CLI_TRUST_WORKSPACE`;
    /// without it the folder is trusted only if `~/.gemini/trustedFolders.json` says so.
    /// megg's directory is on PATH only when `megg_on_path` (project scope's hook finds megg
    /// there; user scope's names its absolute path).
    pub(crate) fn gemini(
        &self,
        mock: &Mock,
        prompt: &str,
        trusted: bool,
        megg_on_path: bool,
    ) -> Run {
        let megg = assert_cmd::cargo::cargo_bin("megg");
        let path = if megg_on_path {
            format!(
                "{}:/usr/local/bin:/usr/bin:/bin",
                megg.parent().unwrap().display()
            )
        } else {
            "/usr/local/bin:/usr/bin:/bin".to_string()
        };
        let proxy = format!("http://127.0.0.1:{}", closed_port());
        let out_file = self.p.path("gemini.stdout");
        let err_file = self.p.path("gemini.stderr");
        let mut cmd = Command::new(self.gemini);
        cmd.current_dir(self.p.root())
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home())
            .env("GEMINI_API_KEY", "dummy")
            .env("GOOGLE_GEMINI_BASE_URL", &mock.url)
            .env("HTTP_PROXY", &proxy)
            .env("HTTPS_PROXY", &proxy)
            .env("http_proxy", &proxy)
            .env("https_proxy", &proxy)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env("MEGG_NOW", NOW)
            .env("MEGG_CACHE_DIR", "")
            .env("MEGG_CEILING_DIRS", self.p.root().parent().unwrap())
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["--approval-mode", "yolo", "-p", prompt])
            .stdin(Stdio::null())
            .stdout(File::create(&out_file).unwrap())
            .stderr(File::create(&err_file).unwrap());
        if trusted {
            cmd.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
        }
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let status = wait(cmd.spawn().unwrap(), "gemini -p");
        Run {
            status,
            stdout: std::fs::read_to_string(&out_file).unwrap(),
            stderr: std::fs::read_to_string(&err_file).unwrap(),
        }
    }

    /// Like [`Self::gemini`], expecting success and a mock that was asked.
    pub(crate) fn gemini_ok(&self, mock: &Mock, prompt: &str, scope: Scope) -> Run {
        let run = self.gemini(mock, prompt, true, scope == Scope::Project);
        assert!(
            run.status.success(),
            "gemini -p failed ({}):\nstdout: {}\nstderr: {}",
            run.status,
            run.stdout,
            run.stderr
        );
        assert!(
            !mock.requests().is_empty(),
            "the mock got no request: {}",
            run.stderr
        );
        run
    }

    /// The `additionalContext` megg's hook prints for this project.
    pub(crate) fn hook_context(&self) -> String {
        let doc = self
            .p
            .json("", &["context", "--format", "hook", "--agent", "gemini"]);
        assert_eq!(
            doc.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["hookSpecificOutput"]
        );
        doc["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// Installs megg's SessionStart hook and MCP server for the Gemini CLI in `scope` with
/// `megg setup --agent gemini`, as a user does.
pub(crate) fn install(s: &Session, scope: Scope) {
    install_with(s, scope, &[]);
}

/// [`install`] with more `megg setup` arguments.
fn install_with(s: &Session, scope: Scope, extra: &[&str]) {
    let scope = match scope {
        Scope::Project => "project",
        Scope::User => "user",
    };
    let out =
        s.p.megg("")
            .env("HOME", s.home())
            .env_remove("GEMINI_CLI_HOME")
            .args(["setup", "--agent", "gemini", "--scope", scope, "--json"])
            .args(extra)
            .output()
            .unwrap();
    assert!(
        out.status.success(),
        "megg setup: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the private HOME's settings hold before anything is installed.
fn user_settings() -> Value {
    json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "model": {"name": MODEL},
        "telemetry": {"enabled": false},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
    })
}

fn info() -> String {
    "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n---\n\n# Shop\n\n## Context\nThe storefront GEMINI-INFO-MARKER: Next.js front end, Rust API.\n".to_string()
}

/// A local port nothing listens on: bound, then released.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The bodies of the agent loop's `generateContent` requests (the ones declaring functions).
pub(crate) fn agent_requests(mock: &Mock) -> Vec<Value> {
    mock.requests()
        .into_iter()
        .filter(|r| {
            r["path"]
                .as_str()
                .unwrap()
                .contains(":streamGenerateContent")
        })
        .filter(|r| !function_names(&r["body"]).is_empty())
        .map(|r| r["body"].clone())
        .collect()
}

/// Every text the model reads in a request: the system instruction and the contents' text
/// parts, one string per part.
pub(crate) fn texts(body: &Value) -> Vec<String> {
    let parts = |content: &Value| -> Vec<String> {
        content["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["text"].as_str().map(String::from))
            .collect()
    };
    let mut out = parts(&body["systemInstruction"]);
    for content in body["contents"].as_array().into_iter().flatten() {
        out.extend(parts(content));
    }
    out
}

/// The function declarations a request offers, by name.
fn function_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["functionDeclarations"].as_array())
        .flatten()
        .filter_map(|d| d["name"].as_str().map(String::from))
        .collect()
}

fn declaration<'a>(body: &'a Value, name: &str) -> &'a Value {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["functionDeclarations"].as_array())
        .flatten()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("{name} not offered: {:?}", function_names(body)))
}

/// The checks both scopes share: megg's context reaches the model once, wrapped in
/// `<hook_context>` before the prompt; every megg tool is offered as `mcp_megg_<tool>` with an
/// object schema; Gemini has no complaint about megg's schemas.
fn assert_megg_reaches_the_model(s: &Session, mock: &Mock, run: &Run) {
    assert_eq!(run.stdout.trim(), "OK", "{}", run.stderr);
    for r in mock.requests() {
        let path = r["path"].as_str().unwrap();
        assert!(
            path.starts_with(&format!("/v1beta/models/{MODEL}:")),
            "unexpected request {path}"
        );
    }
    let context = s.hook_context();
    assert!(context.contains("GEMINI-INFO-MARKER") && context.contains("GEMINI-STATE-MARKER"));
    let requests = agent_requests(mock);
    assert_eq!(requests.len(), 1, "{:#?}", mock.requests());
    let body = &requests[0];
    let texts = texts(body);
    let marked: Vec<&String> = texts
        .iter()
        .filter(|t| t.contains("GEMINI-INFO-MARKER"))
        .collect();
    assert_eq!(marked.len(), 1, "megg's context, exactly once: {texts:#?}");
    assert_eq!(marked[0].matches("GEMINI-INFO-MARKER").count(), 1);
    assert_eq!(
        *marked[0],
        format!("<hook_context>{context}</hook_context>\n\nhello"),
        "the hook's additionalContext, verbatim, prepended to the prompt"
    );

    for tool in MEGG_TOOLS {
        let d = declaration(body, &format!("mcp_megg_{tool}"));
        assert!(d["description"].as_str().unwrap().len() > 40, "{d}");
        assert_eq!(d["parametersJsonSchema"]["type"], "object", "{d}");
    }
    let state = declaration(body, "mcp_megg_state");
    assert!(
        state["parametersJsonSchema"]["properties"]["content"].is_object(),
        "{state}"
    );
    // The server's instructions reach the model inside the session context.
    assert!(
        texts
            .iter()
            .any(|t| t
                .contains("The following are instructions provided by the tool server 'megg':")),
        "{texts:#?}"
    );
    assert!(
        !run.stderr.contains("unknown format"),
        "Gemini warns about megg's schemas: {}",
        run.stderr
    );
}

#[test]
fn project_scope_context_and_tools_reach_the_model() {
    let Some(s) = Session::new() else { return };
    install(&s, Scope::Project);
    let mock = Mock::start_file(s.p.root(), &json!([]), "mock_gemini.py");
    let run = s.gemini_ok(&mock, "hello", Scope::Project);
    assert_megg_reaches_the_model(&s, &mock, &run);

    // New project hooks are announced (by name) and recorded as trusted for this project,
    // keyed `<name>:<command>`; the next run says nothing.
    assert!(run.stderr.contains(NEW_HOOKS_WARNING), "{}", run.stderr);
    assert!(run.stderr.contains("\n  - megg\n"), "{}", run.stderr);
    let settings = s.read_json(".gemini/settings.json");
    let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let capture = settings["hooks"]["AfterAgent"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let root = s.root().display().to_string();
    // The context hook and the capture hooks (one command for AfterAgent and SessionEnd).
    let mut trusted: Vec<String> =
        serde_json::from_value(s.read_json("home/.gemini/trusted_hooks.json")[&root].clone())
            .unwrap();
    trusted.sort();
    trusted.dedup();
    let mut expected = vec![format!("megg:{command}"), format!("megg:{capture}")];
    expected.sort();
    assert_eq!(trusted, expected);
    let mock = Mock::start_file(s.p.root(), &json!([]), "mock_gemini.py");
    let again = s.gemini_ok(&mock, "hello", Scope::Project);
    assert!(
        !again.stderr.contains(NEW_HOOKS_WARNING),
        "{}",
        again.stderr
    );
    assert_megg_reaches_the_model(&s, &mock, &again);
}

#[test]
fn user_scope_context_and_tools_reach_the_model() {
    let Some(s) = Session::new() else { return };
    install(&s, Scope::User);
    let settings = s.read_json("home/.gemini/settings.json");
    assert_eq!(
        settings["security"]["auth"]["selectedType"],
        "gemini-api-key"
    );
    let mock = Mock::start_file(s.p.root(), &json!([]), "mock_gemini.py");
    // megg is not on PATH: the hook and the server run by absolute path.
    let run = s.gemini_ok(&mock, "hello", Scope::User);
    assert_megg_reaches_the_model(&s, &mock, &run);
    // User hooks are neither announced nor recorded.
    assert!(!run.stderr.contains(NEW_HOOKS_WARNING), "{}", run.stderr);
    assert!(!s.p.path("home/.gemini/trusted_hooks.json").exists());
}

/// Folder trust is on by default: headless in a folder that is not trusted, the Gemini CLI
/// exits 55 before any request — whether megg is installed in the project or for the user —
/// so neither hook nor MCP server runs. Trusting the folder in `~/.gemini/trustedFolders.json`
/// (`{"<absolute path>": "TRUST_FOLDER"}`, what the interactive trust dialog writes) is enough.
#[test]
fn an_untrusted_folder_exits_55_until_trusted() {
    let Some(s) = Session::new() else { return };
    install(&s, Scope::Project);
    // Both scopes (setup adds no second hook for a host without --force).
    install_with(&s, Scope::User, &["--force"]);
    for megg_on_path in [true, false] {
        let mock = Mock::start_file(s.p.root(), &json!([]), "mock_gemini.py");
        let run = s.gemini(&mock, "hello", false, megg_on_path);
        assert_eq!(run.status.code(), Some(EXIT_UNTRUSTED), "{}", run.stderr);
        assert!(run.stderr.contains(UNTRUSTED), "{}", run.stderr);
        assert!(
            run.stderr.contains(
                "Approval mode overridden to \"default\" because the current folder is not trusted."
            ),
            "{}",
            run.stderr
        );
        assert_eq!(mock.requests(), Vec::<Value>::new());
        assert!(!s.p.path("home/.gemini/trusted_hooks.json").exists());
    }

    // Only the user-scope entry now, so megg's context arrives once.
    let mut settings = s.read_json(".gemini/settings.json");
    settings.as_object_mut().unwrap().remove("hooks");
    settings.as_object_mut().unwrap().remove("mcpServers");
    s.write_json(".gemini/settings.json", &settings);
    let root = s.root().display().to_string();
    s.write_json(
        "home/.gemini/trustedFolders.json",
        &json!({ root: "TRUST_FOLDER" }),
    );
    let mock = Mock::start_file(s.p.root(), &json!([]), "mock_gemini.py");
    let run = s.gemini(&mock, "hello", false, false);
    assert!(run.status.success(), "{}", run.stderr);
    assert_megg_reaches_the_model(&s, &mock, &run);
}

/// Custom commands `.gemini/commands/**/*.toml` (`prompt`, optional `description`; the path
/// under `commands/` with `:` for `/`) resolve in `-p` mode — but only while the prompt starts
/// with `/`: a SessionStart hook's context is prepended first, so with megg's hook installed
/// `/workflows:plan` reaches the model as plain text.
#[test]
fn a_session_start_hook_stops_slash_commands_in_headless_mode() {
    let Some(s) = Session::new() else { return };
    s.p.write(
        ".gemini/commands/workflows/plan.toml",
        "# Plan a feature\ndescription = \"Plan a feature\"\nprompt = \"\"\"\n# Plan a feature\nThe feature to plan: {{args}}\n\"\"\"\n",
    );
    let prompt = "/workflows:plan add a login page";
    let mock = Mock::start_file(s.p.root(), &json!([]), "mock_gemini.py");
    s.gemini_ok(&mock, prompt, Scope::Project);
    let last = texts(&agent_requests(&mock)[0]).pop().unwrap();
    assert_eq!(
        last,
        "# Plan a feature\nThe feature to plan: add a login page\n"
    );

    install(&s, Scope::Project);
    let mock = Mock::start_file(s.p.root(), &json!([]), "mock_gemini.py");
    s.gemini_ok(&mock, prompt, Scope::Project);
    let last = texts(&agent_requests(&mock)[0]).pop().unwrap();
    assert_eq!(
        last,
        format!(
            "<hook_context>{}</hook_context>\n\n{prompt}",
            s.hook_context()
        )
    );
}
