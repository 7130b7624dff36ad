//! End to end with the real Claude Code CLI (`@anthropic-ai/claude-code`, pinned to
//! [`provision::CLAUDE_VERSION`]) in print mode, talking to a scripted mock of the Anthropic
//! Messages API (`tests/e2e/mock_anthropic.py`) that logs every request. A project set up with
//! `megg setup` gets megg's SessionStart hook, MCP server, commands and skill; the tests assert
//! on what the model actually receives.
//!
//! Claude Code is `$MEGG_E2E_CLAUDE`, else installed from npm into
//! `<cargo target dir>/claude-code` by the first test that needs it
//! (`common::provision::claude_code`). Without npm, or without a reachable registry, every test
//! here says so in one line and skips; under `CI` it fails.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::provision;
use crate::{Git, NOW, Project};

/// Longest any one process (Claude Code, the mock's start) may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(120);
/// The prefix Claude Code puts before a SessionStart hook's `additionalContext`.
pub(crate) const HOOK_PREFIX: &str = "SessionStart hook additional context: ";
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

/// Waits for `child` at most [`TIMEOUT`]; kills its whole process group when it takes longer.
pub(crate) fn wait(mut child: Child, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > TIMEOUT {
            kill_group(&child);
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn kill_group(child: &Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
}

/// A mock model API (Anthropic's by default): a Python process serving on a free local port,
/// killed on drop.
pub(crate) struct Mock {
    child: Child,
    pub(crate) url: String,
    log: PathBuf,
}

impl Mock {
    /// Starts the mock Anthropic API; `script` is its list of turns (see the mock's docstring).
    pub(crate) fn start(dir: &Path, script: &Value) -> Self {
        Self::start_file(dir, script, "mock_anthropic.py")
    }

    /// Starts `tests/e2e/<file>`, a mock that takes the same arguments and prints `PORT <n>`.
    pub(crate) fn start_file(dir: &Path, script: &Value, file: &str) -> Self {
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let log = dir.join(format!("requests-{n}.jsonl"));
        let script_file = dir.join(format!("script-{n}.json"));
        std::fs::write(&script_file, script.to_string()).unwrap();
        let mock = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/e2e")
            .join(file);
        let python = provision::python3().expect("Session::new checked python3");
        let mut child = Command::new(python)
            .arg(mock)
            .arg(&log)
            .arg(&script_file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(File::create(dir.join(format!("mock-{n}.stderr"))).unwrap())
            .spawn()
            .expect("python3 runs the mock");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(TIMEOUT).unwrap_or_default();
        let Some(port) = line.strip_prefix("PORT ") else {
            let _ = child.kill();
            let _ = child.wait();
            let err =
                std::fs::read_to_string(dir.join(format!("mock-{n}.stderr"))).unwrap_or_default();
            panic!("the mock did not start: {line:?}\n{err}");
        };
        Self {
            child,
            url: format!("http://127.0.0.1:{}", port.trim()),
            log,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Every request logged so far: `{"method", "path", "headers", "body"}`.
    pub(crate) fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The bodies of the agent loop's `/v1/messages` requests (the ones offering tools).
    pub(crate) fn agent_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r["path"].as_str().unwrap().starts_with("/v1/messages"))
            .filter(|r| r["body"]["tools"].as_array().is_some_and(|t| !t.is_empty()))
            .map(|r| r["body"].clone())
            .collect()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A git project set up with `megg setup` (project scope), an `info.md` and an active state,
/// plus a private HOME whose Claude Code settings approve the project's MCP servers.
pub(crate) struct Session {
    pub(crate) p: Project,
    claude: &'static Path,
}

impl Session {
    /// `None` when Claude Code or python3 (for the mock) is unavailable: the test skips, having
    /// said why (under `CI` it fails).
    pub(crate) fn new() -> Option<Self> {
        Self::with_setup(true)
    }

    /// A project with megg's files but, unless `setup`, nothing installed into Claude Code.
    pub(crate) fn with_setup(setup: bool) -> Option<Self> {
        let claude = provision::claude_code()?;
        provision::python3()?;
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        p.write(".megg/info.md", info());
        git.commit("main", crate::epoch(NOW) - 3600, "init");
        p.mkdir("home/.claude");
        p.write(
            "home/.claude/settings.json",
            json!({"enableAllProjectMcpServers": true}).to_string(),
        );
        let s = Self { p, claude };
        if setup {
            s.setup(&s.path_var(), &[]);
            s.write_state();
        }
        Some(s)
    }

    /// `megg setup --scope project` with `path` as PATH and `env` besides.
    fn setup(&self, path: &str, env: &[(&str, &str)]) {
        let out = self
            .p
            .megg("")
            .env("HOME", self.p.path("home"))
            .env("PATH", path)
            .envs(env.iter().copied())
            .args(["setup", "--scope", "project"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The active handoff every session here starts with (`STATE-MARKER`).
    fn write_state(&self) {
        self.p.ok(
            "",
            &[
                "state",
                "write",
                "--content",
                "## Working On\nCheckout redesign STATE-MARKER\n\n## Next\nWire the payment form",
            ],
        );
    }

    /// megg's directory first, so the hook's `megg context --json` and `.mcp.json`'s `megg mcp`
    /// run the binary under test.
    fn path_var(&self) -> String {
        let megg = assert_cmd::cargo::cargo_bin("megg");
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            megg.parent().unwrap().display()
        )
    }

    /// `claude` in the project with a private HOME, no real credentials and no traffic beyond
    /// `mock` (when given); megg's hook and MCP server see a fixed clock, no cache, no walk
    /// above the project.
    pub(crate) fn command(&self, mock: Option<&Mock>) -> Command {
        let home = self.p.path("home");
        let mut cmd = Command::new(self.claude);
        cmd.current_dir(self.p.root())
            .env_clear()
            .env("PATH", self.path_var())
            .env("HOME", &home)
            .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("MEGG_NOW", NOW)
            .env("MEGG_CACHE_DIR", "")
            .env("MEGG_CEILING_DIRS", self.p.root().parent().unwrap())
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null());
        if let Some(mock) = mock {
            cmd.env("ANTHROPIC_API_KEY", "test-key")
                .env("ANTHROPIC_BASE_URL", &mock.url);
        }
        cmd
    }

    /// `claude -p PROMPT --output-format json ARGS…` in the project against `mock`, with a
    /// private HOME, no real credentials and no traffic beyond the mock. Returns the result
    /// document Claude Code printed.
    pub(crate) fn claude(
        &self,
        mock: &Mock,
        prompt: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Value {
        let out_file = self.p.path("claude.stdout");
        let err_file = self.p.path("claude.stderr");
        let mut cmd = self.command(Some(mock));
        cmd.envs(env.iter().copied())
            .args(["-p", prompt, "--output-format", "json"])
            .args(args)
            .stdout(File::create(&out_file).unwrap())
            .stderr(File::create(&err_file).unwrap());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().unwrap();
        let status = wait(child, "claude -p");
        let stdout = std::fs::read_to_string(&out_file).unwrap();
        let stderr = std::fs::read_to_string(&err_file).unwrap();
        assert!(
            status.success(),
            "claude -p failed ({status}):\nstdout: {stdout}\nstderr: {stderr}\nrequests: {:#?}",
            mock.requests()
                .iter()
                .map(|r| r["path"].clone())
                .collect::<Vec<_>>()
        );
        let result: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
        assert_eq!(result["is_error"], false, "{result}");
        result
    }

    /// The hook document megg prints for this project, as the hook would get it.
    pub(crate) fn hook_context(&self) -> String {
        let doc = self.p.json("", &["context", "--json"]);
        doc["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

fn info() -> String {
    "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n---\n\n# Shop\n\n## Context\nThe storefront INFO-MARKER: Next.js front end, Rust API.\n".to_string()
}

/// Every text the model reads in a request: system blocks, message text, tool results.
pub(crate) fn texts(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => {
                for (k, x) in o {
                    if k == "text" || k == "content" || k == "system" || k == "messages" {
                        walk(x, out);
                    }
                }
            }
            _ => {}
        }
    }
    walk(&body["system"], &mut out);
    walk(&body["messages"], &mut out);
    out
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

/// The `tool_result` blocks of a request's last message.
fn tool_results(body: &Value) -> Vec<Value> {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter(|b| b["type"] == "tool_result")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// A tool result's content as the model reads it.
fn result_text(result: &Value) -> String {
    match &result["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        other => other.to_string(),
    }
}

#[test]
fn the_hook_context_reaches_the_model_verbatim() {
    let Some(s) = Session::new() else { return };
    let mock = Mock::start(s.p.root(), &json!([]));
    let result = s.claude(&mock, "hello", &[], &[]);
    assert_eq!(result["result"], "OK");
    let context = s.hook_context();
    assert!(context.contains("INFO-MARKER") && context.contains("STATE-MARKER"));
    let requests = mock.agent_requests();
    assert!(!requests.is_empty(), "{:#?}", mock.requests());
    for body in &requests {
        let texts = texts(body);
        let hits: Vec<&String> = texts.iter().filter(|t| t.contains(&context)).collect();
        assert_eq!(
            hits.len(),
            1,
            "the hook's additionalContext, verbatim, exactly once:\n{context}\n---\n{texts:#?}"
        );
        assert!(
            hits[0].starts_with(&format!("{HOOK_PREFIX}{context}")),
            "{}",
            hits[0]
        );
    }
}

#[test]
fn megg_mcp_tools_are_offered_to_the_model() {
    let Some(s) = Session::new() else { return };
    let mock = Mock::start(s.p.root(), &json!([]));
    // Default: Claude Code defers MCP tools behind ToolSearch and names them in the prompt.
    s.claude(&mock, "hello", &[], &[]);
    let body = &mock.agent_requests()[0];
    let names = tool_names(body);
    assert!(names.iter().any(|n| n == "ToolSearch"), "{names:?}");
    let all = texts(body).join("\n");
    for tool in MEGG_TOOLS {
        let name = format!("mcp__megg__{tool}");
        assert!(
            names.contains(&name) || all.lines().any(|l| l == name),
            "{name} neither in tools nor in the deferred tool list"
        );
    }
    assert!(
        all.contains("## megg\nmegg keeps project context"),
        "the server's instructions reach the model"
    );

    // Without tool search every megg tool is in `tools`, with its description and schema.
    let mock = Mock::start(s.p.root(), &json!([]));
    s.claude(&mock, "hello", &[], &[("ENABLE_TOOL_SEARCH", "false")]);
    let body = &mock.agent_requests()[0];
    let tools = body["tools"].as_array().unwrap();
    for tool in MEGG_TOOLS {
        let name = format!("mcp__megg__{tool}");
        let t = tools
            .iter()
            .find(|t| t["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} not in tools: {:?}", tool_names(body)));
        assert!(t["description"].as_str().unwrap().len() > 40, "{t}");
        assert_eq!(t["input_schema"]["type"], "object", "{t}");
    }
    let state = tools
        .iter()
        .find(|t| t["name"] == "mcp__megg__state")
        .unwrap();
    assert!(
        state["input_schema"]["properties"]["content"].is_object(),
        "{state}"
    );
}

#[test]
fn the_model_saves_state_through_the_mcp_tool() {
    let Some(s) = Session::new() else { return };
    let content = "## Working On\nSaved by the model E2E-MARKER\n\n## Next\nShip it";
    let mock = Mock::start(
        s.p.root(),
        &json!([
            [{"type": "tool_use", "name": "mcp__megg__state", "input": {"content": content}}],
            [{"type": "text", "text": "State saved."}]
        ]),
    );
    let result = s.claude(
        &mock,
        "save the handoff",
        &["--allowedTools", "mcp__megg__state"],
        &[],
    );
    assert_eq!(result["result"], "State saved.", "{result}");
    assert_eq!(result["num_turns"], 2, "{result}");
    assert_eq!(result["permission_denials"], json!([]), "{result}");

    let state = s.p.read(".megg/state.md");
    assert!(state.ends_with(content), "{state}");
    assert!(!state.contains("STATE-MARKER"), "{state}");

    let requests = mock.agent_requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let results = tool_results(&requests[1]);
    assert_eq!(results.len(), 1, "{:#}", requests[1]["messages"]);
    let assistant = &requests[1]["messages"].as_array().unwrap();
    let tool_use = assistant
        .iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(tool_use["content"][0]["name"], "mcp__megg__state");
    assert_eq!(results[0]["tool_use_id"], tool_use["content"][0]["id"]);
    assert_ne!(results[0]["is_error"], true, "{}", results[0]);
    let text = result_text(&results[0]);
    assert!(text.contains(".megg/state.md"), "{text}");
    assert_eq!(
        s.p.json("", &["state", "show", "--json"])["state"]["content"],
        content
    );
}

#[test]
fn slash_commands_and_the_skill_resolve() {
    let Some(s) = Session::new() else { return };
    let mock = Mock::start(s.p.root(), &json!([]));
    s.claude(&mock, "/workflows:plan add a login page", &[], &[]);
    let body = &mock.agent_requests()[0];
    let all = texts(body).join("\n");
    // The command's body (frontmatter stripped, $ARGUMENTS substituted) is the prompt.
    let plan = std::fs::read_to_string(s.p.path(".claude/commands/workflows/plan.md")).unwrap();
    let heading = plan.lines().find(|l| l.starts_with("# ")).unwrap();
    assert_eq!(heading, "# Plan a feature");
    assert!(all.contains("<command-name>/workflows:plan</command-name>"));
    assert!(all.contains("<command-args>add a login page</command-args>"));
    assert!(
        all.contains(heading),
        "the command's body reaches the model"
    );
    assert!(
        all.contains("The feature to plan: #add a login page")
            || all.contains("The feature to plan: add a login page"),
        "$ARGUMENTS substituted"
    );
    assert!(!all.contains("argument-hint:"), "frontmatter stripped");

    // The skill (and the commands) are listed for the Skill tool with their descriptions.
    assert!(tool_names(body).iter().any(|n| n == "Skill"));
    let skill = std::fs::read_to_string(s.p.path(".claude/skills/megg-state/SKILL.md")).unwrap();
    let description = skill
        .lines()
        .find_map(|l| l.strip_prefix("description: "))
        .unwrap();
    assert!(
        all.contains(&format!("- megg-state: {description}")),
        "the skill is offered: {all}"
    );
    for command in ["plan", "work", "review", "compound"] {
        assert!(
            all.contains(&format!("- workflows:{command}: ")),
            "{command}"
        );
    }

    // /megg-state runs the skill: its body becomes the prompt.
    let mock = Mock::start(s.p.root(), &json!([]));
    s.claude(&mock, "/megg-state show", &[], &[]);
    let all = texts(&mock.agent_requests()[0]).join("\n");
    assert!(all.contains("# /megg-state — session handoff"), "{all}");
}

#[test]
fn the_context_tool_result_as_the_model_reads_it() {
    let Some(s) = Session::new() else { return };
    // Knowledge just under the `full` limit: the context is far over 10,000 characters.
    s.p.write(".megg/knowledge.md", crate::knowledge_file(7_900));
    let mock = Mock::start(
        s.p.root(),
        &json!([
            [{"type": "tool_use", "name": "mcp__megg__context", "input": {}}],
            [{"type": "text", "text": "Loaded."}]
        ]),
    );
    s.claude(
        &mock,
        "load the context",
        &["--allowedTools", "mcp__megg__context"],
        &[],
    );
    let requests = mock.agent_requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let results = tool_results(&requests[1]);
    assert_eq!(results.len(), 1);
    let text = result_text(&results[0]);
    let chars = text.encode_utf16().count();
    assert!(text.contains("INFO-MARKER"), "{text}");
    // SPEC §7 "What the model reads": `context` returns text only — the markdown rendering,
    // budgeted like the hook (max_chars, default 9,500) — and no result is over 10,000
    // characters. Before, the model got the `--format json` document: 40,017 UTF-16 units here.
    let is_json = serde_json::from_str::<Value>(&text).is_ok_and(|v| v.is_object());
    assert!(
        !is_json,
        "context returns markdown, not JSON: {}",
        &text[..200]
    );
    assert!(text.contains("## Current Context"), "{}", &text[..200]);
    assert!(
        chars <= 10_000,
        "context result is {chars} characters (SPEC: at most 10,000)"
    );
}

/// `claude` run as a plain CLI command (no model) in the session's private HOME.
fn claude_cli(s: &Session, args: &[&str]) -> String {
    let out = s.command(None).args(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "claude {args:?}: {text}");
    text
}

/// The repository is a plugin and its own marketplace (SPEC §7): `claude plugin validate`
/// passes, `claude plugin marketplace add <repo>` + `claude plugin install megg@megg` installs
/// it, and a session then gets megg's hook context and MCP tools from the plugin alone.
#[test]
fn the_plugin_installs_from_its_own_marketplace() {
    let Some(s) = Session::with_setup(false) else {
        return;
    };
    // The plugin's own files, as a clone has them (not the build directory beside them, which
    // `marketplace add` would copy whole).
    let plugin = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in [".claude-plugin", "hooks", "commands", "skills"] {
        copy_tree(&root.join(dir), &plugin.path().join(dir));
    }
    let repo = plugin.path().to_str().unwrap();
    let validated = claude_cli(&s, &["plugin", "validate", repo]);
    assert!(validated.contains("Validation passed"), "{validated}");
    assert!(validated.contains("mcpServers: megg"), "{validated}");
    claude_cli(&s, &["plugin", "marketplace", "add", repo]);
    claude_cli(&s, &["plugin", "install", "megg@megg"]);
    let mock = Mock::start(s.p.root(), &json!([]));
    s.claude(&mock, "hello", &[], &[]);
    let request = &mock.agent_requests()[0];
    let all = texts(request).join("\n");
    assert_eq!(
        all.matches(&s.hook_context()).count(),
        1,
        "the plugin's hook context reaches the model, once"
    );
    let names = format!("{all}\n{:?}", tool_names(request));
    assert!(names.contains("megg"), "{names}");
    assert!(
        names.contains("__state"),
        "the plugin's MCP tools are offered: {names}"
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// After `/compact` the context is injected again (SPEC §3.3, matcher `compact`): in one
/// multi-turn session (stream-json input), Claude Code runs megg's hook as
/// `SessionStart:compact` and the first request after the compaction carries megg's context,
/// once.
#[test]
fn the_context_is_injected_again_after_compact() {
    let Some(s) = Session::new() else { return };
    let mock = Mock::start(s.p.root(), &json!([]));
    let mut cmd = s.command(Some(&mock));
    cmd.args([
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
    ])
    .stdin(Stdio::piped())
    .stdout(File::create(s.p.path("claude.stdout")).unwrap())
    .stderr(File::create(s.p.path("claude.stderr")).unwrap());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for text in ["hello FIRST-TURN", "/compact", "after SECOND-TURN"] {
            let line = json!({"type": "user", "message": {"role": "user", "content": text}});
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let status = wait(child, "claude -p (stream-json)");
    let stdout = std::fs::read_to_string(s.p.path("claude.stdout")).unwrap();
    assert!(status.success(), "{stdout}");
    assert!(
        stdout.contains("\"hook_name\":\"SessionStart:compact\""),
        "megg's hook ran on compaction: {stdout}"
    );
    let requests = mock.agent_requests();
    let last = requests
        .iter()
        .rev()
        .find(|r| texts(r).join("\n").contains("after SECOND-TURN"))
        .expect("a request after the compaction");
    let all = texts(last).join("\n");
    assert_eq!(
        all.matches(&s.hook_context()).count(),
        1,
        "megg's context is in the conversation again after /compact, once"
    );
}

/// The two forms `megg setup` writes for Claude Code on Windows (SPEC §15.1), run by the real
/// Claude Code (the forms are the same on every OS): the exec form (`"command": "megg"`,
/// `"args"`, no shell) that setup writes for Claude Code 2.1.139 and later, and the plain line
/// both Windows shells run that it writes for an older one (`claude --version` answered
/// 2.1.138 here). Each hands the model megg's context exactly once.
#[test]
fn the_windows_forms_of_the_hook_reach_the_model() {
    for old in [false, true] {
        let Some(s) = Session::with_setup(false) else {
            return;
        };
        let path = if old {
            let fake = crate::common::fake_claude(&s.p.path("fake-claude"), "2.1.138");
            format!("{}:{}", fake.display(), s.path_var())
        } else {
            s.path_var()
        };
        s.setup(&path, &[("MEGG_FAILPOINTS", "windows-hooks")]);
        let settings: Value = serde_json::from_str(
            &std::fs::read_to_string(s.p.path(".claude/settings.json")).unwrap(),
        )
        .unwrap();
        let handler = &settings["hooks"]["SessionStart"][0]["hooks"][0];
        if old {
            assert_eq!(handler["command"], "megg context --json", "{settings}");
            assert!(handler.get("args").is_none(), "{settings}");
        } else {
            assert_eq!(handler["command"], "megg", "{settings}");
            assert_eq!(handler["args"], json!(["context", "--json"]), "{settings}");
        }
        s.write_state();
        let mock = Mock::start(s.p.root(), &json!([]));
        s.claude(&mock, "hello", &[], &[]);
        let context = s.hook_context();
        assert!(context.contains("INFO-MARKER") && context.contains("STATE-MARKER"));
        let requests = mock.agent_requests();
        assert!(!requests.is_empty(), "{:#?}", mock.requests());
        for body in &requests {
            let texts = texts(body);
            let hits = texts.iter().filter(|t| t.contains(&context)).count();
            assert_eq!(hits, 1, "old: {old}; {context}\n---\n{texts:#?}");
        }
    }
}
