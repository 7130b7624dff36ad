//! `megg setup --agent codex|gemini|copilot` (SPEC §12): each host's hooks file, MCP server and
//! (Gemini) commands, in both scopes, merged into what is there, exactly undone, with the pieces
//! the hosts share written once and removed with the last host; megg writes no trust setting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::{Git, Project};

const CODEX_HOOK: &str =
    "command -v megg >/dev/null 2>&1 || exit 0; exec megg context --format hook --agent codex";
const GEMINI_HOOK: &str =
    "command -v megg >/dev/null 2>&1 || exit 0; exec megg context --format hook --agent gemini";
const COPILOT_HOOK: &str =
    "command -v megg >/dev/null 2>&1 || exit 0; exec megg context --format hook --agent copilot";

/// A git repository with a home of its own; each host's home variable points inside it.
struct Repo {
    p: Project,
    git: Git,
}

impl Repo {
    fn new() -> Self {
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        p.write("README.md", "# project\n");
        {
            let mut index = git.repo.index().unwrap();
            index.add_path(Path::new("README.md")).unwrap();
            index.write().unwrap();
        }
        git.commit("main", 1_000_000, "init");
        Self { p, git }
    }

    fn home(&self) -> PathBuf {
        self.p.cache.path().join("home")
    }

    fn setup(&self, args: &[&str]) -> Output {
        self.setup_with(args, &[])
    }

    fn setup_with(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        std::fs::create_dir_all(self.home()).unwrap();
        let mut cmd = self.p.megg("");
        cmd.env("HOME", self.home())
            .env("PATH", "/usr/bin:/bin")
            .env_remove("CODEX_HOME")
            .env_remove("COPILOT_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .arg("setup")
            .args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let out = self.setup(&args);
        assert!(
            out.status.success(),
            "megg setup {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        crate::stdout_json(&out)
    }

    fn json(&self, rel: &str) -> Value {
        serde_json::from_str(&self.p.read(rel)).unwrap()
    }

    fn dirty(&self) -> Vec<String> {
        let mut opts = git2::StatusOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        self.git
            .repo
            .statuses(Some(&mut opts))
            .unwrap()
            .iter()
            .map(|s| s.path().unwrap_or("?").to_string())
            .collect()
    }
}

fn actions(v: &Value) -> BTreeMap<String, String> {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_string(),
                c["action"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn grouped(command: &str, timeout: u64) -> Value {
    json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": command, "timeout": timeout}
    ]}]}})
}

/// Codex's hooks file as setup writes it: the context hook and the capture hooks of SPEC §12
/// (`SessionEnd` at Codex's 3-second limit).
fn codex_hooks(megg: &str) -> Value {
    let handler = |args: &str, timeout: u64| json!([{"hooks": [{"type": "command", "command": format!("{megg}{args}"), "timeout": timeout}]}]);
    json!({"hooks": {
        "SessionStart": handler("context --format hook --agent codex", 30),
        "Stop": handler("capture --agent codex", 30),
        "SessionEnd": handler("capture --agent codex", 3),
        "PreCompact": handler("capture --agent codex", 30),
    }})
}

/// A project's hooks file with each guarded POSIX line's PowerShell twin under the host's
/// Windows key (SPEC §15.1: a committed file serves a teammate on Windows too).
fn with_windows_lines(mut v: Value, key: &str, windows: &str) -> Value {
    fn walk(v: &mut Value, key: &str, windows: &str) {
        match v {
            Value::Object(o) => {
                let line = o.get(key).and_then(Value::as_str).map(String::from);
                if let Some(line) = line
                    && let Some(megg) =
                        line.strip_prefix("command -v megg >/dev/null 2>&1 || exit 0; exec ")
                {
                    let ps =
                        format!("if (Get-Command megg -ErrorAction SilentlyContinue) {{ {megg} }}");
                    o.insert(windows.to_string(), json!(ps));
                }
                o.values_mut().for_each(|v| walk(v, key, windows));
            }
            Value::Array(a) => a.iter_mut().for_each(|v| walk(v, key, windows)),
            _ => {}
        }
    }
    walk(&mut v, key, windows);
    v
}

/// "`megg setup --agent codex` is a usage error; there is no way to install megg into Codex,
/// Gemini CLI or Copilot CLI": each host gets its session-start hook and MCP server in its own
/// files, and a second run changes nothing.
#[test]
fn each_host_gets_its_hook_and_server_in_its_own_files() {
    let r = Repo::new();
    let v = r.ok(&[
        "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
    ]);
    assert_eq!(v["agents"], json!(["codex", "gemini", "copilot"]));
    assert_eq!(
        r.json(".codex/hooks.json"),
        with_windows_lines(
            codex_hooks("command -v megg >/dev/null 2>&1 || exit 0; exec megg "),
            "command",
            "commandWindows"
        )
    );
    assert_eq!(
        r.p.read(".codex/config.toml"),
        "[mcp_servers.megg]\ncommand = \"megg\"\nargs = [\"mcp\"]\n"
    );
    let mut gemini = grouped(GEMINI_HOOK, 30_000);
    // Gemini announces a new project hook by its name.
    gemini["hooks"]["SessionStart"][0]["hooks"][0] =
        json!({"type": "command", "name": "megg", "command": GEMINI_HOOK, "timeout": 30_000});
    let gemini_capture = json!([{"hooks": [{"type": "command", "name": "megg", "command": GEMINI_HOOK.replace("context --format hook", "capture"), "timeout": 30_000}]}]);
    gemini["hooks"]["AfterAgent"] = gemini_capture.clone();
    gemini["hooks"]["SessionEnd"] = gemini_capture;
    gemini["mcpServers"] = json!({"megg": {"command": "megg", "args": ["mcp"]}});
    assert_eq!(r.json(".gemini/settings.json"), gemini);
    assert_eq!(
        r.json(".github/hooks/megg.json"),
        with_windows_lines(
            json!({"version": 1, "hooks": {
                "sessionStart": [{"type": "command", "bash": COPILOT_HOOK, "timeoutSec": 30}],
                "userPromptSubmitted": [{"type": "command", "bash": COPILOT_HOOK.replace("context --format hook", "capture"), "timeoutSec": 30}],
                "agentStop": [{"type": "command", "bash": COPILOT_HOOK.replace("context --format hook", "capture"), "timeoutSec": 30}],
                "sessionEnd": [{"type": "command", "bash": COPILOT_HOOK.replace("context --format hook", "capture"), "timeoutSec": 30}],
                "preCompact": [{"type": "command", "bash": COPILOT_HOOK.replace("context --format hook", "capture"), "timeoutSec": 30}],
            }}),
            "bash",
            "powershell"
        )
    );
    // Copilot reads Claude Code's .mcp.json as it is.
    assert_eq!(
        r.json(".mcp.json"),
        json!({"mcpServers": {"megg": {"command": "megg", "args": ["mcp"]}}})
    );
    for toml in [
        "workflows/plan",
        "workflows/work",
        "workflows/review",
        "workflows/compound",
    ] {
        let path = r.p.path(&format!(".gemini/commands/{toml}.toml"));
        assert!(path.exists(), "{}", path.display());
    }
    // Nothing for Claude Code.
    assert!(!r.p.path(".claude").exists());
    // A second run changes nothing.
    let again = r.ok(&[
        "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
    ]);
    assert!(
        actions(&again).values().all(|a| a == "unchanged"),
        "{again}"
    );
}

/// User scope: each host's own home variable (CODEX_HOME, COPILOT_HOME, GEMINI_CLI_HOME), the
/// absolute path of megg, Copilot's `"type": "local"` server; nothing in the project; and the
/// uninstall gives every file back.
#[test]
fn user_scope_honours_each_hosts_home_and_uninstall_gives_it_back() {
    let r = Repo::new();
    let homes = tempfile::tempdir().unwrap();
    let codex = homes.path().join("codex");
    let copilot = homes.path().join("copilot");
    let gemini = homes.path().join("gemini-home");
    std::fs::create_dir_all(&copilot).unwrap();
    std::fs::write(
        copilot.join("mcp-config.json"),
        r#"{"mcpServers": {"other": {"type": "local", "command": "x", "tools": ["*"]}}}"#,
    )
    .unwrap();
    let env = [
        ("CODEX_HOME", codex.as_path()),
        ("COPILOT_HOME", copilot.as_path()),
        ("GEMINI_CLI_HOME", gemini.as_path()),
    ];
    let all = [
        "--agent", "codex", "--agent", "gemini", "--agent", "copilot", "--scope", "user",
    ];
    let out = r.setup_with(&all, &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = env!("CARGO_BIN_EXE_megg");
    let read = |p: PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    assert_eq!(
        read(codex.join("hooks.json")),
        codex_hooks(&format!("{exe} "))
    );
    let toml = std::fs::read_to_string(codex.join("config.toml")).unwrap();
    assert!(toml.contains(&format!("command = \"{exe}\"")), "{toml}");
    let settings = read(gemini.join(".gemini/settings.json"));
    assert_eq!(
        settings["mcpServers"]["megg"],
        json!({"command": exe, "args": ["mcp"]})
    );
    assert_eq!(
        read(copilot.join("hooks/megg.json"))["hooks"]["sessionStart"][0]["bash"],
        format!("{exe} context --format hook --agent copilot")
    );
    assert_eq!(
        read(copilot.join("mcp-config.json"))["mcpServers"],
        json!({
            "other": {"type": "local", "command": "x", "tools": ["*"]},
            "megg": {"type": "local", "command": exe, "args": ["mcp"], "tools": ["*"]}
        })
    );
    assert_eq!(r.dirty(), Vec::<String>::new(), "nothing in the project");
    assert!(
        !r.home().join(".codex").exists(),
        "CODEX_HOME, not ~/.codex"
    );

    let mut uninstall = all.to_vec();
    uninstall.push("--uninstall");
    let out = r.setup_with(&uninstall, &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!codex.join("hooks.json").exists());
    assert!(!codex.join("config.toml").exists());
    assert!(!gemini.join(".gemini/settings.json").exists());
    assert!(!copilot.join("hooks/megg.json").exists());
    assert_eq!(
        read(copilot.join("mcp-config.json"))["mcpServers"],
        json!({"other": {"type": "local", "command": "x", "tools": ["*"]}})
    );
}

/// Files are merged, never replaced: the user's comments and servers in Codex's config.toml
/// survive byte for byte, other hooks and keys keep their values, and uninstall takes out only
/// megg's entries.
#[test]
fn the_users_entries_and_comments_survive_setup_and_uninstall() {
    let r = Repo::new();
    let toml = "# my codex settings\nmodel = \"o3\" # keep this\n\n[mcp_servers.docs]\ncommand = \"docs-server\"\nargs = []\n";
    r.p.write(".codex/config.toml", toml);
    let hooks = json!({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "echo mine"}
    ]}], "Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]}});
    r.p.write(".codex/hooks.json", hooks.to_string());
    r.p.write(
        ".gemini/settings.json",
        r#"{"ui": {"theme": "dark"}, "mcpServers": {"other": {"command": "o"}}}"#,
    );
    r.ok(&["--agent", "codex", "--agent", "gemini"]);
    let toml_after = r.p.read(".codex/config.toml");
    assert!(toml_after.starts_with(toml), "{toml_after}");
    let h = r.json(".codex/hooks.json");
    assert_eq!(h["hooks"]["Stop"][0], hooks["hooks"]["Stop"][0]);
    assert_eq!(h["hooks"]["Stop"].as_array().unwrap().len(), 2, "{h}");
    assert_eq!(h["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
    let g = r.json(".gemini/settings.json");
    assert_eq!(g["ui"], json!({"theme": "dark"}));
    assert_eq!(g["mcpServers"]["other"], json!({"command": "o"}));
    r.ok(&["--agent", "codex", "--agent", "gemini", "--uninstall"]);
    assert_eq!(r.p.read(".codex/config.toml"), toml);
    assert_eq!(r.json(".codex/hooks.json"), hooks);
    assert_eq!(
        r.json(".gemini/settings.json"),
        json!({"ui": {"theme": "dark"}, "mcpServers": {"other": {"command": "o"}}})
    );
}

/// Gemini CLI's settings may hold comments; rewriting the JSON would lose them, so the file is
/// refused untouched, with the entries to add by hand — and nothing else is written either.
#[test]
fn gemini_settings_with_comments_are_refused_untouched() {
    let r = Repo::new();
    let text = "{\n  // my theme\n  \"ui\": {\"theme\": \"dark\"}\n}\n";
    r.p.write(".gemini/settings.json", text);
    let out = r.setup(&["--agent", "codex", "--agent", "gemini"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has comments"), "{err}");
    assert!(err.contains(GEMINI_HOOK), "the entry to add by hand: {err}");
    assert_eq!(r.p.read(".gemini/settings.json"), text);
    assert!(
        !r.p.path(".codex").exists(),
        "planned first: nothing written"
    );
}

/// The shared pieces — `.mcp.json` (Claude Code and Copilot), the gitignore block, the merge
/// driver — are written once and removed only with the last host; then `git status` is clean.
#[test]
fn shared_pieces_go_with_the_last_host() {
    let r = Repo::new();
    r.ok(&[
        "--agent", "claude", "--agent", "copilot", "--agent", "codex",
    ]);
    assert!(r.p.path(".gitignore").exists());
    let v = r.ok(&["--agent", "copilot", "--uninstall"]);
    assert!(!r.p.path(".github/hooks/megg.json").exists());
    assert_eq!(
        r.json(".mcp.json")["mcpServers"]["megg"]["command"],
        "megg",
        "Claude Code still reads it"
    );
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("still set up for"), "{warnings}");
    r.ok(&["--uninstall"]); // Claude Code
    assert!(!r.p.path(".mcp.json").exists());
    assert!(r.p.path(".gitignore").exists(), "Codex still uses it");
    r.ok(&["--agent", "codex", "--uninstall"]);
    assert_eq!(r.dirty(), Vec::<String>::new());
    assert!(!r.p.path(".git/megg/setup/hosts-added").exists());
}

/// Each scope is judged on its own file (issue 38 item 2): a host already set up at user scope
/// still gets its project hooks (for the teammates who share them), with a note that both run
/// and megg answers each session once; --force says nothing of the other scope.
#[test]
fn a_host_set_up_in_the_other_scope_gets_its_hook_with_a_note() {
    let r = Repo::new();
    let codex = tempfile::tempdir().unwrap();
    let env = [("CODEX_HOME", codex.path())];
    let ok = |args: &[&str]| {
        let out = r.setup_with(args, &env);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        crate::stdout_json(&out)
    };
    ok(&["--agent", "codex", "--scope", "user", "--json"]);
    let v = ok(&["--agent", "codex", "--json"]);
    assert!(
        r.p.read(".codex/hooks.json").contains("SessionStart"),
        "{v}"
    );
    assert!(
        v["warnings"].to_string().contains("also active from"),
        "{v}"
    );
    ok(&["--agent", "codex", "--uninstall", "--json"]);
    let v = ok(&["--agent", "codex", "--force", "--json"]);
    assert!(r.p.path(".codex/hooks.json").exists());
    assert!(!v["warnings"].to_string().contains("also active"), "{v}");
}

#[test]
fn dry_run_writes_nothing_for_any_host() {
    let r = Repo::new();
    let v = r.ok(&[
        "--agent",
        "codex",
        "--agent",
        "gemini",
        "--agent",
        "copilot",
        "--dry-run",
    ]);
    assert!(actions(&v).values().any(|a| a == "create"), "{v}");
    assert_eq!(r.dirty(), Vec::<String>::new());
}

/// Trust stays the user's: setup writes no trust setting anywhere, says per host how to trust
/// megg's entries, and lists the other hooks and servers a folder trust would switch on —
/// Copilot's include the Claude-format hooks of `.claude/settings.json`.
#[test]
fn setup_writes_no_trust_and_names_what_a_folder_trust_enables() {
    let r = Repo::new();
    r.p.write(
        ".codex/hooks.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl example.com"}]}]}}"#,
    );
    r.p.write(
        ".mcp.json",
        r#"{"mcpServers": {"shell-server": {"command": "danger"}}}"#,
    );
    r.p.write(
        ".claude/settings.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./setup.sh"}]}]}}"#,
    );
    let v = r.ok(&["--agent", "codex", "--agent", "copilot"]);
    let trust: Vec<&str> = v["trust"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let codex: Vec<&&str> = trust.iter().filter(|t| t.starts_with("Codex")).collect();
    assert!(
        codex.iter().any(|t| t.contains("curl example.com")),
        "{trust:#?}"
    );
    assert!(codex.iter().any(|t| t.contains("trust")), "{trust:#?}");
    let copilot: Vec<&&str> = trust.iter().filter(|t| t.starts_with("Copilot")).collect();
    assert!(
        copilot
            .iter()
            .any(|t| t.contains("shell-server") && t.contains("./setup.sh")),
        "{trust:#?}"
    );
    assert!(
        copilot.iter().any(|t| t.contains("--scope user")),
        "user scope needs no folder trust: {trust:#?}"
    );
    // No trust setting written: no Codex user config, no Copilot config.
    assert!(!r.home().join(".codex").exists());
    assert!(!r.home().join(".copilot").exists());
    let human = String::from_utf8(r.setup(&["--agent", "codex"]).stdout).unwrap();
    assert!(human.contains("Trust ("), "{human}");
}

fn doctor(r: &Repo, env: &[(&str, &Path)]) -> Value {
    let mut cmd = r.p.megg("");
    cmd.env("HOME", r.home())
        .env(
            "PATH",
            format!(
                "{}:/usr/bin:/bin",
                Path::new(env!("CARGO_BIN_EXE_megg"))
                    .parent()
                    .unwrap()
                    .display()
            ),
        )
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .args(["doctor", "--json"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    crate::stdout_json(&cmd.output().unwrap())
}

/// "A user who installs megg and sees nothing happen has no way to know why": doctor checks
/// each host megg was set up for — hook once, command found, MCP registered — and the trust it
/// can see in the host's files, with the steps (and what a folder trust would switch on) as fix.
#[test]
fn doctor_checks_each_host_and_the_trust_it_can_see() {
    let r = Repo::new();
    let codex = tempfile::tempdir().unwrap();
    let env = [("CODEX_HOME", codex.path())];
    let ok = |args: &[&str]| {
        let out = r.setup_with(args, &env);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ok(&["--agent", "codex", "--agent", "copilot"]);
    let v = doctor(&r, &env);
    assert_eq!(crate::doctor_check(&v, "codex hook")["ok"], true, "{v}");
    assert_eq!(crate::doctor_check(&v, "codex mcp")["ok"], true, "{v}");
    assert_eq!(crate::doctor_check(&v, "copilot mcp")["ok"], true, "{v}");
    let trust = crate::doctor_check(&v, "codex trust");
    assert_eq!(trust["ok"], false, "{v}");
    assert!(trust["fix"].as_str().unwrap().contains("/hooks"), "{trust}");
    let copilot = crate::doctor_check(&v, "copilot trust");
    assert_eq!(copilot["ok"], false);
    assert!(
        copilot["fix"].as_str().unwrap().contains("--scope user"),
        "{copilot}"
    );
    assert!(
        !v.to_string().contains("gemini"),
        "never set up for Gemini: {v}"
    );

    // The project trusted and megg's hook trusted by the hash of its entry, as Codex records
    // them: doctor says trusted. A hash of another entry (an older megg): trust it again.
    let root = r.p.root().canonicalize().unwrap();
    let hooks = root.join(".codex/hooks.json");
    let command = CODEX_HOOK;
    let identity = format!(
        r#"{{"event_name":"session_start","hooks":[{{"async":false,"command":{},"timeout":30,"type":"command"}}]}}"#,
        Value::from(command)
    );
    let hash = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(identity.as_bytes());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let config = |hash: &str| {
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"{}:session_start:0:0\"]\ntrusted_hash = \"sha256:{hash}\"\n",
            root.display(),
            hooks.display()
        )
    };
    // Each capture hook is trusted by its own hash too.
    let capture = CODEX_HOOK.replace("context --format hook", "capture");
    let captures: String = [("stop", 30), ("session_end", 3), ("pre_compact", 30)]
        .iter()
        .map(|(event, timeout)| {
            let identity = format!(
                r#"{{"event_name":"{event}","hooks":[{{"async":false,"command":{},"timeout":{timeout},"type":"command"}}]}}"#,
                Value::from(capture.as_str())
            );
            use sha2::Digest;
            let d = sha2::Sha256::digest(identity.as_bytes());
            let h: String = d.iter().map(|b| format!("{b:02x}")).collect();
            format!(
                "\n[hooks.state.\"{}:{event}:0:0\"]\ntrusted_hash = \"sha256:{h}\"\n",
                hooks.display()
            )
        })
        .collect();
    std::fs::write(codex.path().join("config.toml"), config(&hash)).unwrap();
    let v = doctor(&r, &env);
    let trust = crate::doctor_check(&v, "codex trust");
    assert_eq!(
        trust["ok"], false,
        "the capture hooks are not trusted yet: {v}"
    );
    assert!(
        trust["detail"]
            .as_str()
            .unwrap()
            .contains("Stop hook is not trusted"),
        "{trust}"
    );
    std::fs::write(codex.path().join("config.toml"), config(&hash) + &captures).unwrap();
    let v = doctor(&r, &env);
    assert_eq!(crate::doctor_check(&v, "codex trust")["ok"], true, "{v}");
    assert_eq!(crate::doctor_check(&v, "codex capture")["ok"], true, "{v}");
    std::fs::write(codex.path().join("config.toml"), config(&"0".repeat(64))).unwrap();
    let v = doctor(&r, &env);
    let trust = crate::doctor_check(&v, "codex trust");
    assert_eq!(trust["ok"], false);
    assert!(
        trust["detail"].as_str().unwrap().contains("trust it again"),
        "{trust}"
    );

    // Two registrations (the other scope too): both run and megg answers each session once,
    // so a warning with the fix, not a failure.
    ok(&["--agent", "codex", "--scope", "user"]);
    let v = doctor(&r, &env);
    let hook = crate::doctor_check(&v, "codex hook");
    assert_eq!(hook["ok"], true, "{hook}");
    assert!(
        hook["detail"].as_str().unwrap().contains("2 times"),
        "{hook}"
    );
    assert!(hook["fix"].as_str().unwrap().contains("keep one"), "{hook}");
    // A hooks file that does not parse.
    r.p.write(".github/hooks/megg.json", "{ not json");
    let v = doctor(&r, &env);
    assert_eq!(crate::doctor_check(&v, "copilot hook")["ok"], false, "{v}");
}

/// Copilot reads every `*.json` of its hooks directory: megg's hook written by hand under
/// another name in the user's directory is found, and project setup, judged on its own file,
/// adds its hooks all the same and says both run.
#[test]
fn a_copilot_hook_under_another_file_name_is_found() {
    let r = Repo::new();
    let copilot = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(copilot.path().join("hooks")).unwrap();
    std::fs::write(
        copilot.path().join("hooks/mine.json"),
        json!({"version": 1, "hooks": {"sessionStart": [
            {"type": "command", "bash": "megg context --format hook --agent copilot"}
        ]}})
        .to_string(),
    )
    .unwrap();
    let out = r.setup_with(
        &["--agent", "copilot", "--json"],
        &[("COPILOT_HOME", copilot.path())],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = crate::stdout_json(&out);
    let megg = r.json(".github/hooks/megg.json");
    assert!(megg["hooks"].get("sessionStart").is_some(), "{megg}");
    assert!(megg["hooks"].get("agentStop").is_some(), "{megg}");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("mine.json") && warnings.contains("also active from"),
        "{v}"
    );
}

/// A Codex config.toml that does not parse is refused untouched, and nothing else is written.
#[test]
fn an_invalid_codex_config_is_refused_untouched() {
    let r = Repo::new();
    let bad = "[mcp_servers\ncommand = \n";
    r.p.write(".codex/config.toml", bad);
    let out = r.setup(&["--agent", "codex"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not valid TOML"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    assert_eq!(r.p.read(".codex/config.toml"), bad);
    assert!(
        !r.p.path(".codex/hooks.json").exists(),
        "planned first: nothing written"
    );
}

/// Codex trusts each hook by its own hash, wherever it is: capture hooks in the user's
/// hooks.json beside a project context hook are checked too, not only those next to it.
#[test]
fn doctor_checks_codex_trust_of_capture_hooks_in_the_other_scope() {
    let r = Repo::new();
    let codex = tempfile::tempdir().unwrap();
    let env = [("CODEX_HOME", codex.path())];
    for args in [
        &["--agent", "codex", "--no-capture"][..],
        &["--agent", "codex", "--scope", "user"],
    ] {
        let out = r.setup_with(args, &env);
        assert!(out.status.success(), "{out:?}");
    }
    // The user's context hook taken out by hand: only its capture hooks are there.
    let file = codex.path().join("hooks.json");
    let mut user: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    user["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("SessionStart");
    std::fs::write(&file, user.to_string()).unwrap();
    assert!(user["hooks"].get("SessionStart").is_none(), "{user}");
    assert!(user["hooks"]["Stop"].is_array(), "{user}");
    // The project and its context hook trusted; the user's capture hooks not.
    let root = r.p.root().canonicalize().unwrap();
    let identity = format!(
        r#"{{"event_name":"session_start","hooks":[{{"async":false,"command":{},"timeout":30,"type":"command"}}]}}"#,
        Value::from(CODEX_HOOK)
    );
    let hash: String = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(identity.as_bytes());
        d.iter().map(|b| format!("{b:02x}")).collect()
    };
    std::fs::write(
        codex.path().join("config.toml"),
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"{}:session_start:0:0\"]\ntrusted_hash = \"sha256:{hash}\"\n",
            root.display(),
            root.join(".codex/hooks.json").display()
        ),
    )
    .unwrap();
    let v = doctor(&r, &env);
    let trust = crate::doctor_check(&v, "codex trust");
    assert_eq!(trust["ok"], false, "{v}");
    assert!(
        trust["detail"]
            .as_str()
            .unwrap()
            .contains("Stop hook is not trusted"),
        "{trust}"
    );
}

/// Issue 38 item 7: a check's name longer than the names' column (`copilot capture`) pushed its
/// detail out of line. Every detail, and every fix, starts in one column.
#[test]
fn doctor_keeps_its_columns_with_long_check_names() {
    let r = Repo::new();
    let copilot = tempfile::tempdir().unwrap();
    let env = [("COPILOT_HOME", copilot.path())];
    let out = r.setup_with(&["--agent", "copilot"], &env);
    assert!(out.status.success(), "{out:?}");
    let out =
        r.p.megg("")
            .env("COPILOT_HOME", copilot.path())
            .arg("doctor")
            .output()
            .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("copilot capture"), "{text}");
    // The column a check's detail starts in: after the verdict and the padded name.
    let column = |line: &str| {
        let rest = line.get(5..).unwrap();
        let name_end = if line.starts_with("     ") {
            rest.find("fix: ").unwrap()
        } else {
            let name = [
                "copilot capture",
                "copilot trust",
                "copilot hook",
                "copilot mcp",
            ]
            .into_iter()
            .find(|n| rest.starts_with(n))
            .unwrap_or_else(|| rest.split(' ').next().unwrap());
            name.len() + rest.get(name.len()..).unwrap().find(|c| c != ' ').unwrap()
        };
        5 + name_end
    };
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("ok  ") || l.starts_with("FAIL") || l.starts_with("     "))
        .collect();
    let columns: Vec<usize> = lines.iter().map(|l| column(l)).collect();
    assert!(
        columns.iter().all(|&c| c == columns[0]),
        "{columns:?}\n{text}"
    );
}
