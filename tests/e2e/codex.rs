//! End to end with the real Codex CLI (`@openai/codex`, pinned in [`provision::CODEX`]) in
//! `codex exec`, offline, talking to a scripted mock of the OpenAI Responses API
//! (`tests/e2e/mock_openai.py`) that logs every request. megg's SessionStart hook and MCP
//! server are installed by [`install`] (project or user scope); the tests assert on what the
//! model actually receives.
//!
//! What Codex needs, as measured with 0.169.0 and again with 0.171.0 (SPEC §12):
//! - a stand-in model (`-m mock-model`): with its default model Codex does not offer
//!   `exec_command` and friends (0.169.0 offered one JavaScript `exec` tool instead; 0.171.0's
//!   requests for its default `gpt-6.2-sol` carry no `tools` at all);
//! - project config (`.codex/config.toml`, `.codex/hooks.json`) loads only for a trusted
//!   project: `[projects."<dir>"] trust_level = "trusted"` in `$CODEX_HOME/config.toml` (what
//!   `codex exec --trust` writes);
//! - every hook, project or user, runs only when trusted: `[hooks.state."<hooks.json>:<event in
//!   snake_case>:<group>:<handler>"] trusted_hash = "sha256:…"` in `$CODEX_HOME/config.toml`
//!   (see [`hook_hash`]), else it is skipped without a word; `--dangerously-bypass-hook-trust`
//!   skips the check for one run.
//!
//! Codex is `$MEGG_E2E_CODEX`, else installed from npm into `<cargo target dir>/codex` by the
//! first test that needs it. Without npm or a reachable registry every test here says so in
//! one line and skips; under `CI` it fails.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::claude_code::wait;
use crate::common::provision;
use crate::{Git, NOW, Project};

/// Every tool megg's MCP server offers; Codex puts them in one `namespace` tool, `mcp__megg`.
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
/// The most UTF-8 bytes of hook output Codex passes on whole (2,500 of its 4-byte tokens);
/// above it the model gets a head-and-tail preview and the path of a file holding the rest.
const CODEX_PREVIEW_BYTES: usize = 10_000;
/// What Codex writes into a hook's output when it cuts it (as measured with 11,429 bytes).
const PREVIEW_MARKERS: [&str; 3] = [
    "Warning: truncated output",
    "Full hook output saved to:",
    "hook_outputs",
];
/// The project, one level into the test's temp dir: megg lists a domain's siblings, and the
/// other tests' projects in the system temp dir would come and go in its context.
pub(crate) const DIR: &str = "shop";

/// Where megg is installed into Codex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `.codex/hooks.json` and `.codex/config.toml` in the project.
    Project,
    /// `$CODEX_HOME/hooks.json` and `$CODEX_HOME/config.toml`.
    User,
}

/// The mock Responses API (`tests/e2e/mock_openai.py`), started and logged like the mock
/// Anthropic API.
pub(crate) struct Mock(crate::claude_code::Mock);

impl Mock {
    /// Starts the mock; `script` is its list of turns (see the mock's docstring).
    pub(crate) fn start(dir: &Path, script: &Value) -> Self {
        Self(crate::claude_code::Mock::start_file(
            dir,
            script,
            "mock_openai.py",
        ))
    }

    /// Every request logged so far: `{"method", "path", "headers", "body"}`.
    pub(crate) fn requests(&self) -> Vec<Value> {
        self.0.requests()
    }

    /// The bodies of the model turns (`POST /v1/responses`, not compaction).
    pub(crate) fn turns(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r["method"] == "POST" && r["path"] == "/v1/responses")
            .filter(|r| request_kind(r) != "compaction")
            .map(|r| r["body"].clone())
            .collect()
    }
}

/// What Codex says a request is for (`turn`, `compaction`) in `x-codex-turn-metadata`.
fn request_kind(request: &Value) -> String {
    let meta = request["headers"]["x-codex-turn-metadata"]
        .as_str()
        .and_then(|m| serde_json::from_str::<Value>(m).ok())
        .unwrap_or_default();
    meta["request_kind"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A git project with an `info.md` and an active state, a private HOME and `CODEX_HOME`, and
/// nothing of megg installed into Codex yet.
pub(crate) struct Session {
    pub(crate) p: Project,
    /// HOME, holding `.codex` (CODEX_HOME) and `tmp` (TMPDIR); outside the project.
    home: tempfile::TempDir,
    codex: &'static Path,
}

impl Session {
    /// `None` when Codex or python3 (for the mock) is unavailable: the test skips, having said
    /// why (under `CI` it fails).
    pub(crate) fn new() -> Option<Self> {
        let codex = provision::agent_cli(&provision::CODEX)?;
        provision::python3()?;
        let p = Project::new();
        let git = Git::init(&p.path(DIR), "main");
        p.write(
            &format!("{DIR}/.megg/info.md"),
            info("The storefront INFO-MARKER: Next.js front end, Rust API."),
        );
        git.commit("main", crate::epoch(NOW) - 3600, "init");
        p.ok(
            DIR,
            &[
                "state",
                "write",
                "--content",
                "## Working On\nCheckout redesign STATE-MARKER\n\n## Next\nWire the payment form",
            ],
        );
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".codex")).unwrap();
        std::fs::create_dir_all(home.path().join("tmp")).unwrap();
        Some(Self { p, home, codex })
    }

    /// The project as Codex sees it (its working directory, symlinks resolved).
    fn root(&self) -> PathBuf {
        std::fs::canonicalize(self.p.path(DIR)).unwrap()
    }

    fn codex_home(&self) -> PathBuf {
        self.home.path().join(".codex")
    }

    fn tmpdir(&self) -> PathBuf {
        self.home.path().join("tmp")
    }

    /// The hooks file of `scope`.
    fn hooks_file(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::Project => self.root().join(".codex/hooks.json"),
            Scope::User => self.codex_home().join("hooks.json"),
        }
    }

    /// The config file of `scope`.
    fn config_file(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::Project => self.root().join(".codex/config.toml"),
            Scope::User => self.codex_home().join("config.toml"),
        }
    }

    /// megg run in the project with this session's HOME, CODEX_HOME and PATH.
    pub(crate) fn megg(&self, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = self.p.megg(DIR);
        cmd.env("HOME", self.home.path())
            .env("CODEX_HOME", self.codex_home())
            .env("PATH", self.path_var())
            .args(args);
        cmd
    }

    /// megg's directory first, so `megg` in the hook and the MCP entry is the binary under test.
    fn path_var(&self) -> String {
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            megg().parent().unwrap().display()
        )
    }

    /// Appends `text` to `$CODEX_HOME/config.toml` (the user's config).
    fn append_user_config(&self, text: &str) {
        let file = self.config_file(Scope::User);
        let mut config = std::fs::read_to_string(&file).unwrap_or_default();
        config.push_str(text);
        std::fs::write(file, config).unwrap();
    }

    /// What `codex exec --trust` records: the project's own config and hooks may load.
    pub(crate) fn trust_project(&self) {
        self.append_user_config(&format!(
            "\n[projects.{}]\ntrust_level = \"trusted\"\n",
            toml_string(&self.root().display().to_string())
        ));
    }

    /// Trusts every hook of `scope`'s hooks.json as the user does in Codex's `/hooks` review:
    /// one `[hooks.state."<key>"]` table with the handler's `trusted_hash` each.
    pub(crate) fn trust_hooks(&self, scope: Scope) {
        let file = self.hooks_file(scope);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let mut text = String::new();
        for (event, groups) in doc["hooks"].as_object().unwrap() {
            for (g, group) in groups.as_array().unwrap().iter().enumerate() {
                for (h, handler) in group["hooks"].as_array().unwrap().iter().enumerate() {
                    let key = format!("{}:{}:{g}:{h}", file.display(), snake_case(event));
                    let hash = hook_hash(event, group["matcher"].as_str(), handler);
                    text.push_str(&format!(
                        "\n[hooks.state.{}]\ntrusted_hash = {}\n",
                        toml_string(&key),
                        toml_string(&hash)
                    ));
                }
            }
        }
        self.append_user_config(&text);
    }

    /// megg's own hook output for this project, as Codex's hook gets it.
    pub(crate) fn hook_context(&self) -> String {
        let doc = self
            .p
            .json(DIR, &["context", "--format", "hook", "--agent", "codex"]);
        assert_eq!(
            doc.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["hookSpecificOutput"],
            "{doc}"
        );
        doc["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// `codex exec … PROMPT` in the project against `mock`, with a private HOME, CODEX_HOME and
    /// TMPDIR, no credentials, and every proxy variable at a dead local port, so nothing but
    /// 127.0.0.1 is reached. Returns (stdout, stderr).
    pub(crate) fn codex(&self, mock: &Mock, prompt: &str, args: &[&str]) -> (String, String) {
        let out_file = self.home.path().join("codex.stdout");
        let err_file = self.home.path().join("codex.stderr");
        let dead = "http://127.0.0.1:9";
        let provider = format!(
            "model_providers.mock={{name=\"mock\",base_url=\"{}/v1\",\
             env_key=\"MOCK_API_KEY\",wire_api=\"responses\"}}",
            mock.0.url()
        );
        let mut cmd = Command::new(self.codex);
        cmd.current_dir(self.root())
            .env_clear()
            .env("PATH", self.path_var())
            .env("HOME", self.home.path())
            .env("CODEX_HOME", self.codex_home())
            .env("TMPDIR", self.tmpdir())
            .env("MOCK_API_KEY", "test-key")
            .env("MEGG_NOW", NOW)
            .env("MEGG_CACHE_DIR", "")
            .env("MEGG_CEILING_DIRS", self.p.root().parent().unwrap())
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1");
        for var in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
            cmd.env(var, dead).env(var.to_lowercase(), dead);
        }
        cmd.env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .args(["exec", "--skip-git-repo-check", "-m", "mock-model"])
            .args(["-c", "model_provider=\"mock\"", "-c", &provider])
            .args(args)
            .arg(prompt)
            .stdin(Stdio::null())
            .stdout(File::create(&out_file).unwrap())
            .stderr(File::create(&err_file).unwrap());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let status = wait(cmd.spawn().unwrap(), "codex exec");
        let stdout = std::fs::read_to_string(&out_file).unwrap();
        let stderr = std::fs::read_to_string(&err_file).unwrap();
        assert!(
            status.success(),
            "codex exec failed ({status}):\nstdout: {stdout}\nstderr: {stderr}\nrequests: {:#?}",
            mock.requests()
                .iter()
                .map(|r| r["path"].clone())
                .collect::<Vec<_>>()
        );
        let requests = mock.requests();
        assert!(
            !requests.is_empty() && requests.iter().all(|r| r["path"] == "/v1/responses"),
            "the mock saw the model requests and nothing else: {requests:#?}"
        );
        (stdout, stderr)
    }
}

/// The megg binary under test.
fn megg() -> PathBuf {
    assert_cmd::cargo::cargo_bin("megg")
}

/// Installs megg's SessionStart hook and MCP server into Codex at `scope` with
/// `megg setup --agent codex`, as a user does.
pub(crate) fn install(s: &Session, scope: Scope) {
    let scope = match scope {
        Scope::Project => "project",
        Scope::User => "user",
    };
    let out = s
        .megg(&["setup", "--agent", "codex", "--scope", scope, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "megg setup: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What `megg doctor` says of Codex's trust: its `codex trust` check.
pub(crate) fn doctor_trust(s: &Session) -> Value {
    let out = s.megg(&["doctor", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "codex trust")
        .cloned()
        .unwrap_or_else(|| panic!("no codex trust check: {v}"))
}

/// Codex's trust hash of one hook handler (codex-rs `hooks`): SHA-256 of the compact JSON, keys
/// sorted, of `{"event_name": <event in snake_case>, "hooks": [<the handler with Codex's
/// defaults: "async": false, "timeout": 600 seconds unless set>], "matcher": <only when set>}`,
/// as `sha256:<hex>`. A `statusMessage` would join the handler; megg writes none.
fn hook_hash(event: &str, matcher: Option<&str>, handler: &Value) -> String {
    assert!(
        handler.get("statusMessage").is_none(),
        "hook_hash leaves statusMessage out"
    );
    let mut timeout = handler["timeout"].as_u64().unwrap_or(600).max(1);
    if event == "SessionEnd" {
        timeout = timeout.min(3); // Codex clamps SessionEnd hooks to 3 s, warning on stderr
    }
    // Keys in sorted order, written out: serde_json keeps insertion order in this crate.
    let mut identity = format!(
        "{{\"event_name\":{},\"hooks\":[{{\"async\":false,\"command\":{},\"timeout\":{timeout},\"type\":\"command\"}}]",
        json!(snake_case(event)),
        json!(handler["command"].as_str().unwrap())
    );
    if let Some(matcher) = matcher {
        identity.push_str(&format!(",\"matcher\":{}", json!(matcher)));
    }
    identity.push('}');
    format!("sha256:{}", sha256_hex(identity.as_bytes()))
}

/// SHA-256 by python3's hashlib, which the mock already needs (no hashing crate in the tree).
fn sha256_hex(bytes: &[u8]) -> String {
    use std::io::Write;
    let python = provision::python3().unwrap();
    let mut child = Command::new(python)
        .args([
            "-c",
            "import hashlib,sys;print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// `SessionStart` → `session_start`, as Codex names events in hook keys.
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

/// A TOML basic string (JSON's escapes are valid TOML for the paths and hashes written here).
fn toml_string(s: &str) -> String {
    json!(s).to_string()
}

fn info(context: &str) -> String {
    format!(
        "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n---\n\n# Shop\n\n## Context\n{context}\n"
    )
}

/// The texts of a request's input messages, by role: what the model reads besides the tools.
fn messages(body: &Value) -> Vec<(String, String)> {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "message")
        .flat_map(|item| {
            let role = item["role"].as_str().unwrap_or_default().to_string();
            item["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["text"].as_str())
                .map(move |t| (role.clone(), t.to_string()))
        })
        .collect()
}

/// The tool megg's server becomes: a `namespace` named `mcp__megg` holding its functions.
fn megg_namespace(body: &Value) -> Option<Value> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__megg")
        .cloned()
}

/// megg's context reached the model once, whole, as a developer message of its own, and
/// megg's MCP tools are offered.
fn assert_context_and_tools(s: &Session, mock: &Mock) {
    let context = s.hook_context();
    assert!(context.contains("INFO-MARKER") && context.contains("STATE-MARKER"));
    let turns = mock.turns();
    assert!(!turns.is_empty(), "{:#?}", mock.requests());
    for body in &turns {
        let messages = messages(body);
        let hits: Vec<_> = messages
            .iter()
            .filter(|(_, t)| t.contains("INFO-MARKER"))
            .collect();
        assert_eq!(hits.len(), 1, "megg's context exactly once: {messages:#?}");
        assert_eq!(hits[0], &("developer".to_string(), context.clone()));
    }
    let tools = megg_namespace(&turns[0]).expect("megg's MCP server is offered as mcp__megg");
    assert_eq!(tools["type"], "namespace");
    assert!(
        tools["description"]
            .as_str()
            .unwrap()
            .starts_with("megg keeps project context"),
        "the server's instructions describe the namespace: {tools}"
    );
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for tool in MEGG_TOOLS {
        assert!(names.contains(&tool), "{tool} in {names:?}");
    }
}

#[test]
fn project_scope_context_and_tools_reach_the_model() {
    let Some(s) = Session::new() else { return };
    install(&s, Scope::Project);
    assert_eq!(doctor_trust(&s)["ok"], false, "nothing trusted yet");
    s.trust_project();
    s.trust_hooks(Scope::Project);
    // doctor recomputes Codex's hash of megg's entry: the trust Codex honours below.
    let trust = doctor_trust(&s);
    assert_eq!(trust["ok"], true, "{trust}");
    let mock = Mock::start(s.home.path(), &json!([]));
    let (stdout, stderr) = s.codex(&mock, "hello", &[]);
    assert_eq!(stdout.trim(), "OK", "{stderr}");
    assert!(stderr.contains("hook: SessionStart Completed"), "{stderr}");
    assert_context_and_tools(&s, &mock);
}

#[test]
fn user_scope_context_and_tools_reach_the_model() {
    let Some(s) = Session::new() else { return };
    install(&s, Scope::User);
    s.trust_hooks(Scope::User);
    let mock = Mock::start(s.home.path(), &json!([]));
    let (stdout, stderr) = s.codex(&mock, "hello", &[]);
    assert_eq!(stdout.trim(), "OK", "{stderr}");
    assert!(stderr.contains("hook: SessionStart Completed"), "{stderr}");
    assert_context_and_tools(&s, &mock);
}

#[test]
fn a_context_at_the_byte_cap_arrives_whole() {
    let Some(s) = Session::new() else { return };
    // Half ASCII, half CJK and emoji (3 and 4 bytes each) by bytes: far over the cap, so megg
    // cuts it to at most 9,500 bytes — below Codex's preview threshold.
    let line = "- 決済フォームの検証 🧾 and the checkout flow. 中文测试 🚀 ascii words here\n";
    s.p.write(
        &format!("{DIR}/.megg/info.md"),
        info(&format!("WIDE-MARKER\n{}", line.repeat(120))),
    );
    s.p.ok(
        DIR,
        &[
            "state",
            "write",
            "--content",
            &format!("## Working On\n{}", line.repeat(20)),
        ],
    );
    let context = s.hook_context();
    let bytes = context.len();
    let wide: usize = context
        .chars()
        .filter(|c| c.len_utf8() > 1)
        .map(char::len_utf8)
        .sum();
    assert!(
        (9_000..=9_500).contains(&bytes) && bytes < CODEX_PREVIEW_BYTES,
        "megg's context is near its 9,500-byte cap: {bytes}"
    );
    assert!(
        wide * 5 > bytes * 2,
        "about half its bytes are CJK and emoji: {wide} of {bytes}"
    );
    install(&s, Scope::Project);
    s.trust_project();
    s.trust_hooks(Scope::Project);
    let mock = Mock::start(s.home.path(), &json!([]));
    s.codex(&mock, "hello", &[]);
    let body = &mock.turns()[0];
    let messages = messages(body);
    let hits: Vec<_> = messages
        .iter()
        .filter(|(_, t)| t.contains("WIDE-MARKER"))
        .collect();
    assert_eq!(hits.len(), 1, "{messages:#?}");
    assert_eq!(
        hits[0].1, context,
        "the model reads megg's context byte for byte"
    );
    let all = body.to_string();
    for marker in PREVIEW_MARKERS {
        assert!(!all.contains(marker), "no preview: {marker}");
    }
    // Codex names TMPDIR itself in the sandbox's writable roots; the spill would be a file
    // under it.
    assert!(!s.tmpdir().join("hook_outputs").exists(), "no spill file");
}

#[test]
fn an_untrusted_project_hook_is_skipped_silently() {
    let Some(s) = Session::new() else { return };
    install(&s, Scope::Project);
    s.trust_project(); // the project's config loads (megg's MCP server is offered) ...
    let mock = Mock::start(s.home.path(), &json!([]));
    let (stdout, stderr) = s.codex(&mock, "hello", &[]);
    assert_eq!(stdout.trim(), "OK");
    // ... but its hook, never trusted, does not run, and nothing says so.
    let body = &mock.turns()[0];
    assert!(megg_namespace(body).is_some(), "{body}");
    assert!(
        !body.to_string().contains("INFO-MARKER"),
        "no megg context reaches the model"
    );
    assert!(!stderr.contains("hook:"), "no hook ran: {stderr}");
    // doctor sees what Codex does not say.
    let trust = doctor_trust(&s);
    assert_eq!(trust["ok"], false, "{trust}");
    assert!(
        trust["detail"].as_str().unwrap().contains("without a word"),
        "{trust}"
    );
    for word in ["trust", "review", "hooks.json"] {
        assert!(
            !stderr.to_lowercase().contains(word),
            "Codex says nothing about the skipped hook ({word}): {stderr}"
        );
    }

    // The same hook runs once trusted.
    s.trust_hooks(Scope::Project);
    let mock = Mock::start(s.home.path(), &json!([]));
    s.codex(&mock, "hello", &[]);
    assert_context_and_tools(&s, &mock);
}
