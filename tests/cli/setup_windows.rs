//! `megg setup` and `megg doctor` for hosts running on Windows (SPEC §15.1), planned on this
//! machine: the failure point `windows-hooks` makes megg plan for Windows, and the files it
//! writes are checked exactly — Claude Code's exec form, Codex's `commandWindows`, Gemini's
//! PowerShell 5.1 line, Copilot's `powershell` key — each PowerShell line parsed with a
//! PowerShell grammar (tree-sitter's, from PyPI, installed on first use) and linted for
//! Windows PowerShell 5.1 (no `&&`, `||`, `??`); each line a POSIX shell runs parsed with bash.
//!
//! megg runs from a path with a space and a quote (`…/Program Files/it's megg/megg`), as the
//! real `megg.exe` lives under `C:\Program Files` or a user name with an apostrophe.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use crate::common::provision;
use crate::{Git, NOW, Project};

/// Python's tree-sitter bindings and the PowerShell grammar, pinned (PyPI).
const TREE_SITTER: &str = "tree-sitter==0.26.1";
const POWERSHELL_GRAMMAR: &str = "tree-sitter-powershell==0.26.4";

const MATCHER: &str = "startup|resume|clear|compact";
const POSIX_GUARD: &str = "command -v megg >/dev/null 2>&1 || exit 0; exec ";
const PS_GUARD: &str = "if (Get-Command megg -ErrorAction SilentlyContinue) { ";

/// A git repository, a home, and megg at a path with a space and a quote in it.
struct Machine {
    p: Project,
    _bin: tempfile::TempDir,
    exe: PathBuf,
}

impl Machine {
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
        fs::create_dir_all(p.cache.path().join("home")).unwrap();
        let bin = tempfile::tempdir().unwrap();
        let dir = bin.path().join("Program Files").join("it's megg");
        fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("megg");
        let built = assert_cmd::cargo::cargo_bin("megg");
        if fs::hard_link(&built, &exe).is_err() {
            fs::copy(&built, &exe).unwrap();
        }
        Self { p, _bin: bin, exe }
    }

    fn home(&self) -> PathBuf {
        self.p.cache.path().join("home")
    }

    fn exe(&self) -> String {
        self.exe.display().to_string()
    }

    /// megg from its odd path, in the project, with a clean environment; on Windows's hosts
    /// when `windows`.
    fn run(&self, windows: bool, args: &[&str]) -> Output {
        self.run_on_path(windows, "/usr/bin:/bin", args)
    }

    /// [`Machine::run`] with `path` as PATH.
    fn run_on_path(&self, windows: bool, path: &str, args: &[&str]) -> Output {
        let mut cmd = Command::new(&self.exe);
        cmd.env_clear()
            .current_dir(self.p.root())
            .env("HOME", self.home())
            .env("PATH", path)
            .env("MEGG_NOW", NOW)
            .env("MEGG_CACHE_DIR", self.p.cache.path().join("cache"))
            .env("MEGG_CEILING_DIRS", self.p.root().parent().unwrap())
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(args)
            .stdin(Stdio::null());
        if windows {
            cmd.env("MEGG_FAILPOINTS", "windows-hooks");
        }
        cmd.output().unwrap()
    }

    /// [`Machine::run`] on Windows's hosts with a `claude` on PATH that says it is `version`
    /// ([`crate::common::fake_claude`]).
    fn run_with_claude(&self, version: &str, args: &[&str]) -> Output {
        let bin = crate::common::fake_claude(&self.p.cache.path().join("claude-bin"), version);
        self.run_on_path(true, &format!("{}:/usr/bin:/bin", bin.display()), args)
    }

    fn setup(&self, windows: bool, args: &[&str]) -> Value {
        let mut all = vec!["setup"];
        all.extend(args);
        all.push("--json");
        let out = self.run(windows, &all);
        assert!(
            out.status.success(),
            "megg {all:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        crate::stdout_json(&out)
    }

    fn doctor(&self, windows: bool) -> Value {
        crate::stdout_json(&self.run(windows, &["doctor", "--json"]))
    }

    fn json(&self, path: &Path) -> Value {
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
    }
}

const ALL: [&str; 8] = [
    "--agent", "claude", "--agent", "codex", "--agent", "gemini", "--agent", "copilot",
];

/// megg's arguments in a host's hooks.
fn args(agent: &str, capture: bool) -> String {
    match (agent, capture) {
        ("claude", false) => "context --json".into(),
        ("claude", true) => "capture".into(),
        (a, false) => format!("context --format hook --agent {a}"),
        (a, true) => format!("capture --agent {a}"),
    }
}

/// A POSIX shell word, as megg quotes one.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A PowerShell verbatim string.
fn ps_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A host's hooks file as setup writes it: each event's handler from `keys` (the keys beside
/// `type`, given whether it is a capture hook), with the host's name, timeout and layout.
fn hooks_file(agent: &str, keys: impl Fn(bool) -> Map<String, Value>) -> Value {
    let (context, capture): (&str, &[&str]) = match agent {
        "claude" => (
            "SessionStart",
            &["PreCompact", "PostCompact", "SessionEnd", "Stop"],
        ),
        "codex" => ("SessionStart", &["Stop", "SessionEnd", "PreCompact"]),
        "gemini" => ("SessionStart", &["AfterAgent", "SessionEnd"]),
        _ => (
            "sessionStart",
            &[
                "userPromptSubmitted",
                "agentStop",
                "sessionEnd",
                "preCompact",
            ],
        ),
    };
    let handler = |event: &str, capture: bool| {
        let mut h = Map::new();
        h.insert("type".into(), json!("command"));
        if agent == "gemini" {
            h.insert("name".into(), json!("megg"));
        }
        h.extend(keys(capture));
        match agent {
            "codex" => h.insert(
                "timeout".into(),
                json!(if event == "SessionEnd" { 3 } else { 30 }),
            ),
            "gemini" => h.insert("timeout".into(), json!(30_000)),
            "copilot" => h.insert("timeoutSec".into(), json!(30)),
            _ => None,
        };
        Value::Object(h)
    };
    let entry = |event: &str, capture: bool| {
        if agent == "copilot" {
            return json!([handler(event, capture)]);
        }
        let mut e = Map::new();
        if agent == "claude" && !capture {
            e.insert("matcher".into(), json!(MATCHER));
        }
        e.insert("hooks".into(), json!([handler(event, capture)]));
        json!([e])
    };
    let mut hooks = Map::new();
    hooks.insert(context.into(), entry(context, false));
    for event in capture {
        hooks.insert((*event).into(), entry(event, true));
    }
    let mut file = json!({"hooks": hooks});
    if agent == "copilot" {
        file["version"] = json!(1);
    }
    file
}

/// Claude Code's settings as setup writes its exec form: `program` with megg's arguments.
fn claude_exec(program: &str) -> Value {
    hooks_file("claude", |capture| {
        let words: &[&str] = if capture {
            &["capture"]
        } else {
            &["context", "--json"]
        };
        keys(&[("command", json!(program)), ("args", json!(words))])
    })
}

fn keys(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect()
}

/// What a PowerShell grammar makes of one line.
#[derive(Debug)]
struct Parsed {
    /// A syntax error anywhere in it.
    error: bool,
    /// The operators Windows PowerShell 5.1 does not have, as found.
    not_in_5_1: Vec<String>,
    /// Each command it runs: its name (a verbatim string unquoted) and its arguments.
    commands: Vec<(String, Vec<String>)>,
}

/// The grammar's reading of each line, or `None` when the grammar cannot be installed here
/// (the test then skips; under `CI` it fails).
fn parse_powershell(lines: &[String]) -> Option<Vec<Parsed>> {
    let python = powershell_python()?;
    const SCRIPT: &str = r#"
import json, sys
import tree_sitter as ts, tree_sitter_powershell as tsp
parser = ts.Parser(ts.Language(tsp.language()))
def leaves(n):
    if n.child_count == 0:
        yield n
    for c in n.children:
        yield from leaves(c)
def nodes(n):
    yield n
    for c in n.children:
        yield from nodes(c)
def word(n):
    t = n.text.decode()
    if t.startswith("'") and t.endswith("'") and len(t) >= 2:
        return t[1:-1].replace("''", "'")
    return t
out = []
for line in json.load(sys.stdin):
    tree = parser.parse(line.encode())
    bad = [l.text.decode() for l in leaves(tree.root_node)
           if l.type in ("&&", "||", "??") or "??" in l.text.decode()]
    commands = []
    for n in nodes(tree.root_node):
        if n.type != "command":
            continue
        name = n.child_by_field_name("command_name")
        elements = n.child_by_field_name("command_elements")
        args = [word(c) for c in (elements.children if elements else [])
                if c.type != "command_argument_sep"]
        commands.append([word(name) if name else None, args])
    out.append({"error": tree.root_node.has_error, "not_in_5_1": bad, "commands": commands})
json.dump(out, sys.stdout)
"#;
    let mut child = Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), lines).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the grammar's script failed");
    let v: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    Some(
        v.iter()
            .map(|p| Parsed {
                error: p["error"].as_bool().unwrap(),
                not_in_5_1: serde_json::from_value(p["not_in_5_1"].clone()).unwrap(),
                commands: serde_json::from_value(p["commands"].clone()).unwrap(),
            })
            .collect(),
    )
}

/// Each line parses with no error, uses nothing Windows PowerShell 5.1 lacks, and runs
/// `program` with `args` as its last command (after `Get-Command megg …` when `guarded`).
fn assert_powershell_runs(lines: &[(String, &str, String, bool)]) -> bool {
    let text: Vec<String> = lines.iter().map(|(l, ..)| l.clone()).collect();
    let Some(parsed) = parse_powershell(&text) else {
        return false;
    };
    for ((line, program, args, guarded), p) in lines.iter().zip(parsed) {
        assert!(!p.error, "PowerShell cannot parse {line:?}");
        assert!(
            p.not_in_5_1.is_empty(),
            "{line:?}: {:?} is not in PowerShell 5.1",
            p.not_in_5_1
        );
        for op in ["&&", "||", "??"] {
            assert!(!line.contains(op), "{line:?} has {op}");
        }
        let words: Vec<String> = args.split(' ').map(String::from).collect();
        let run = (program.to_string(), words);
        if *guarded {
            let check = (
                "Get-Command".to_string(),
                vec![
                    "megg".into(),
                    "-ErrorAction".into(),
                    "SilentlyContinue".into(),
                ],
            );
            assert_eq!(p.commands, [check, run], "{line:?}");
        } else {
            assert_eq!(p.commands, [run], "{line:?}");
        }
    }
    true
}

/// `bash -n`: the line parses as a POSIX shell line (Git Bash, a Unix teammate's shell).
fn assert_bash_parses(line: &str) {
    let out = Command::new("bash")
        .args(["-n", "-c", line])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bash cannot parse {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Windows, user scope: every host's hooks name the absolute megg — Claude Code by the exec
/// form, Codex and Copilot with a PowerShell line under their Windows key beside the POSIX
/// one, Gemini with a line PowerShell 5.1 runs — and every MCP entry names it too.
#[test]
fn windows_user_scope_names_the_absolute_megg_in_each_hosts_form() {
    let m = Machine::new();
    let exe = m.exe();
    let mut args_all = ALL.to_vec();
    args_all.extend(["--scope", "user"]);
    let report = m.setup(true, &args_all);
    let home = m.home();
    let claude = claude_exec(&exe);
    assert_eq!(m.json(&home.join(".claude/settings.json")), claude);
    assert_eq!(
        report["mcp_command"],
        format!("claude mcp add --scope user megg -- {} mcp", sh_quote(&exe))
    );
    let line =
        |agent: &str, capture: bool| format!("& {} {}", ps_quote(&exe), args(agent, capture));
    let posix = |agent: &str, capture: bool| format!("{} {}", sh_quote(&exe), args(agent, capture));
    let codex = hooks_file("codex", |c| {
        keys(&[
            ("command", json!(posix("codex", c))),
            ("commandWindows", json!(line("codex", c))),
        ])
    });
    assert_eq!(m.json(&home.join(".codex/hooks.json")), codex);
    let toml = fs::read_to_string(home.join(".codex/config.toml")).unwrap();
    assert!(toml.contains(&format!("command = \"{exe}\"")), "{toml}");
    let mut gemini = hooks_file("gemini", |c| keys(&[("command", json!(line("gemini", c)))]));
    gemini["mcpServers"] = json!({"megg": {"command": exe, "args": ["mcp"]}});
    assert_eq!(m.json(&home.join(".gemini/settings.json")), gemini);
    let copilot = hooks_file("copilot", |c| {
        keys(&[
            ("bash", json!(posix("copilot", c))),
            ("powershell", json!(line("copilot", c))),
        ])
    });
    assert_eq!(m.json(&home.join(".copilot/hooks/megg.json")), copilot);
    assert_eq!(
        m.json(&home.join(".copilot/mcp-config.json")),
        json!({"mcpServers": {"megg": {"type": "local", "command": exe, "args": ["mcp"], "tools": ["*"]}}})
    );
    // A second run changes nothing.
    let again = m.setup(true, &args_all);
    assert!(
        again["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["action"] == "unchanged"),
        "{again}"
    );
    let mut lines = Vec::new();
    for agent in ["codex", "gemini", "copilot"] {
        for capture in [false, true] {
            lines.push((
                line(agent, capture),
                exe.as_str(),
                args(agent, capture),
                false,
            ));
            if agent != "gemini" {
                assert_bash_parses(&posix(agent, capture));
            }
        }
    }
    assert_powershell_runs(&lines);
}

/// Windows, project scope: a committed file names plain `megg`. Codex and Copilot keep the
/// guarded POSIX line and get its PowerShell twin under their Windows key (a silent no-op for
/// a teammate without megg there too); Claude Code's exec form and Gemini's one line name
/// `megg` for every OS. The shared `.mcp.json` names `megg`.
#[test]
fn windows_project_scope_names_plain_megg_with_each_hosts_windows_line() {
    let m = Machine::new();
    m.setup(true, &ALL);
    let root = m.p.root();
    let claude = claude_exec("megg");
    assert_eq!(m.json(&root.join(".claude/settings.json")), claude);
    let guarded = |agent: &str, c: bool| format!("{POSIX_GUARD}megg {}", args(agent, c));
    let ps = |agent: &str, c: bool| format!("{PS_GUARD}megg {} }}", args(agent, c));
    let codex = hooks_file("codex", |c| {
        keys(&[
            ("command", json!(guarded("codex", c))),
            ("commandWindows", json!(ps("codex", c))),
        ])
    });
    assert_eq!(m.json(&root.join(".codex/hooks.json")), codex);
    let bare = |agent: &str, c: bool| format!("megg {}", args(agent, c));
    let mut gemini = hooks_file("gemini", |c| keys(&[("command", json!(bare("gemini", c)))]));
    gemini["mcpServers"] = json!({"megg": {"command": "megg", "args": ["mcp"]}});
    assert_eq!(m.json(&root.join(".gemini/settings.json")), gemini);
    let copilot = hooks_file("copilot", |c| {
        keys(&[
            ("bash", json!(guarded("copilot", c))),
            ("powershell", json!(ps("copilot", c))),
        ])
    });
    assert_eq!(m.json(&root.join(".github/hooks/megg.json")), copilot);
    assert_eq!(
        m.json(&root.join(".mcp.json")),
        json!({"mcpServers": {"megg": {"command": "megg", "args": ["mcp"]}}})
    );
    // The merge driver: Git for Windows runs it with its own sh, which takes the quoted path.
    let config = fs::read_to_string(root.join(".git/config")).unwrap();
    let driver = format!(
        "{} merge-driver --marker-size %L %O %A %B %P",
        sh_quote(&m.exe())
    );
    assert!(config.contains(&driver.replace('\\', "\\\\")), "{config}");
    assert_bash_parses(&driver);
    let mut lines = Vec::new();
    for capture in [false, true] {
        for agent in ["codex", "copilot"] {
            lines.push((ps(agent, capture), "megg", args(agent, capture), true));
            assert_bash_parses(&guarded(agent, capture));
        }
        // Gemini's one line runs in PowerShell on Windows and in bash everywhere else.
        lines.push((
            bare("gemini", capture),
            "megg",
            args("gemini", capture),
            false,
        ));
        assert_bash_parses(&bare("gemini", capture));
    }
    assert_powershell_runs(&lines);
}

/// A project set up on Linux or macOS gets the Windows keys too, so a teammate on Windows
/// runs megg (SPEC §15.1): an existing install gains them in place, beside its POSIX line,
/// and Codex's trust of that line — a hash of the line Codex runs here — still holds.
#[test]
fn a_project_set_up_on_unix_gets_the_windows_keys_and_keeps_its_trust() {
    let m = Machine::new();
    let root = m.p.root();
    let old_codex = hooks_file("codex", |c| {
        keys(&[(
            "command",
            json!(format!("{POSIX_GUARD}megg {}", args("codex", c))),
        )])
    });
    m.p.write(".codex/hooks.json", old_codex.to_string());
    trust_codex_hooks(&m, &old_codex);
    let before = m.doctor(false);
    let trust = |v: &Value| crate::doctor_check(v, "codex trust").clone();
    assert_eq!(trust(&before)["ok"], true, "{before}");
    m.setup(
        false,
        &[
            "--agent", "codex", "--agent", "copilot", "--agent", "claude", "--agent", "gemini",
        ],
    );
    let hooks = m.json(&root.join(".codex/hooks.json"));
    for (event, groups) in hooks["hooks"].as_object().unwrap() {
        assert_eq!(
            groups.as_array().unwrap().len(),
            1,
            "{event}: one entry, in place"
        );
        let h = &groups[0]["hooks"][0];
        assert_eq!(
            h["command"],
            old_codex["hooks"][event][0]["hooks"][0]["command"]
        );
        assert!(
            h["commandWindows"].as_str().unwrap().starts_with(PS_GUARD),
            "{h}"
        );
    }
    let copilot = m.json(&root.join(".github/hooks/megg.json"));
    for (event, list) in copilot["hooks"].as_object().unwrap() {
        assert!(
            list[0]["powershell"]
                .as_str()
                .unwrap()
                .starts_with(PS_GUARD),
            "{event}"
        );
        assert!(
            list[0]["bash"].as_str().unwrap().starts_with(POSIX_GUARD),
            "{event}"
        );
    }
    // One command for every OS and no Windows key: Claude Code and Gemini keep their guarded
    // POSIX line on Unix (a silent no-op for a teammate without megg, SPEC §7).
    let claude = m.json(&root.join(".claude/settings.json"));
    assert_eq!(
        claude["hooks"]["SessionStart"][0]["hooks"][0],
        json!({"type": "command", "command": format!("{POSIX_GUARD}megg context --json")})
    );
    let gemini = m.json(&root.join(".gemini/settings.json"));
    assert_eq!(
        gemini["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        format!("{POSIX_GUARD}megg {}", args("gemini", false))
    );
    // Codex's trust of the POSIX line is what it was: the same entry at the same place.
    let after = m.doctor(false);
    assert_eq!(trust(&after), trust(&before));
}

/// What the user does in Codex's `/hooks` review, for every handler of a project's
/// hooks.json: `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash`, Codex's hash
/// of the entry (SHA-256 of its identity, as `megg doctor` computes it), and the project's
/// trust.
fn trust_codex_hooks(m: &Machine, hooks: &Value) {
    use sha2::Digest;
    let file = m.p.root().join(".codex/hooks.json");
    let mut text = format!(
        "[projects.{}]\ntrust_level = \"trusted\"\n",
        json!(m.p.root().display().to_string())
    );
    for (event, groups) in hooks["hooks"].as_object().unwrap() {
        let snake: String = event
            .chars()
            .enumerate()
            .flat_map(|(i, c)| {
                let sep = (i > 0 && c.is_ascii_uppercase()).then_some('_');
                sep.into_iter()
                    .chain(std::iter::once(c.to_ascii_lowercase()))
            })
            .collect();
        let h = &groups[0]["hooks"][0];
        let timeout = h["timeout"].as_u64().unwrap();
        let identity = format!(
            "{{\"event_name\":{},\"hooks\":[{{\"async\":false,\"command\":{},\"timeout\":{timeout},\"type\":\"command\"}}]}}",
            json!(snake),
            h["command"]
        );
        let hash: String = sha2::Sha256::digest(identity.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let key = format!("{}:{snake}:0:0", file.display());
        text.push_str(&format!(
            "[hooks.state.{}]\ntrusted_hash = \"sha256:{hash}\"\n",
            json!(key)
        ));
    }
    fs::create_dir_all(m.home().join(".codex")).unwrap();
    fs::write(m.home().join(".codex/config.toml"), text).unwrap();
}

/// Setup on Windows rewrites megg's POSIX-only project line in place (it would fail in
/// PowerShell); setup on Unix then keeps the Windows form, which runs there too — the team's
/// file settles instead of flipping with whoever ran setup last — and the uninstall, from
/// either OS, removes megg's handlers in every form.
#[test]
fn windows_setup_rewrites_a_unix_line_and_unix_setup_keeps_it() {
    let m = Machine::new();
    let root = m.p.root();
    let hosts = ["--agent", "claude", "--agent", "gemini", "--agent", "codex"];
    m.setup(false, &hosts);
    let on_windows = m.setup(true, &hosts);
    let claude = m.json(&root.join(".claude/settings.json"));
    for (event, entries) in claude["hooks"].as_object().unwrap() {
        assert_eq!(entries.as_array().unwrap().len(), 1, "{event}: {claude}");
        let h = &entries[0]["hooks"][0];
        assert_eq!(h["command"], "megg", "{event}");
        assert!(h["args"].is_array(), "{event}");
    }
    let gemini = m.json(&root.join(".gemini/settings.json"));
    for (event, entries) in gemini["hooks"].as_object().unwrap() {
        assert_eq!(entries.as_array().unwrap().len(), 1, "{event}");
        let command = entries[0]["hooks"][0]["command"].as_str().unwrap();
        assert!(command.starts_with("megg "), "{event}: {command}");
    }
    let changed: Vec<&str> = on_windows["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["action"] != "unchanged")
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        changed.len(),
        2,
        "Claude Code's and Gemini's files, nothing else: {changed:?}"
    );
    // Back on Unix: nothing to change.
    let again = m.setup(false, &hosts);
    assert!(
        again["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["action"] == "unchanged"),
        "{again}"
    );
    let mut uninstall = hosts.to_vec();
    uninstall.push("--uninstall");
    m.setup(false, &uninstall);
    for file in [
        ".claude/settings.json",
        ".gemini/settings.json",
        ".codex/hooks.json",
    ] {
        assert!(!root.join(file).exists(), "{file} is gone");
    }
}

/// doctor on Windows: a POSIX-only line in a user's hooks file is reported with the setup that
/// rewrites it; after that setup, each host passes; a project's plain `megg` in Claude Code's
/// exec form says what a teammate without megg sees.
#[test]
fn doctor_on_windows_reports_a_unix_only_line_with_the_fix() {
    let m = Machine::new();
    let mut user = ALL.to_vec();
    user.extend(["--scope", "user"]);
    m.setup(false, &user);
    let v = m.doctor(true);
    for (agent, name) in [
        ("claude", "claude windows"),
        ("codex", "codex windows"),
        ("gemini", "gemini windows"),
        ("copilot", "copilot windows"),
    ] {
        let c = crate::doctor_check(&v, name);
        assert_eq!(c["ok"], false, "{c}");
        assert!(c["detail"].as_str().unwrap().contains("POSIX shell"), "{c}");
        assert!(
            c["fix"]
                .as_str()
                .unwrap()
                .contains(&format!("megg setup --agent {agent} --scope user")),
            "{c}"
        );
    }
    // The same files on Unix: no such check.
    let unix = m.doctor(false);
    assert!(
        !unix["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "codex windows"),
        "{unix}"
    );
    m.setup(true, &user);
    m.setup(true, &["--agent", "claude"]);
    let v = m.doctor(true);
    for name in [
        "claude windows",
        "codex windows",
        "gemini windows",
        "copilot windows",
    ] {
        let c = crate::doctor_check(&v, name);
        assert_eq!(c["ok"], true, "{c}");
    }
    let claude = crate::doctor_check(&v, "claude windows");
    assert!(
        claude["detail"]
            .as_str()
            .unwrap()
            .contains("without megg sees a Claude Code hook error"),
        "{claude}"
    );
    // Codex's handler was rewritten in place: one per event, no second registration.
    let codex = m.json(&m.home().join(".codex/hooks.json"));
    for (event, groups) in codex["hooks"].as_object().unwrap() {
        assert_eq!(groups.as_array().unwrap().len(), 1, "{event}: {codex}");
    }
    assert_eq!(crate::doctor_check(&v, "codex hook")["ok"], true, "{v}");
}

/// A Claude Code older than the exec form (2.1.138 drops `args` and runs `megg` alone) gets,
/// on Windows, shell lines Git Bash and PowerShell both run, with a warning naming 2.1.139;
/// doctor names that version for an exec form it finds; after an update, setup replaces the
/// lines with the exec form (one handler per event), and doctor passes.
#[test]
fn an_old_claude_code_gets_shell_lines_and_doctor_names_the_version_it_needs() {
    let m = Machine::new();
    let settings = |m: &Machine| m.json(&m.home().join(".claude/settings.json"));
    let user = ["setup", "--agent", "claude", "--scope", "user", "--json"];
    let out = m.run_with_claude("2.1.138", &user);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = crate::stdout_json(&out);
    // The `claude` on PATH registered the MCP server: no command left to print.
    assert!(report["mcp_command"].is_null(), "{report}");
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("Claude Code 2.1.138 does not run a hook's exec form (it needs 2.1.139)"),
        "{warnings}"
    );
    // megg's path here has a space and a quote: the line names `megg` from PATH.
    assert!(warnings.contains("`megg` from PATH"), "{warnings}");
    let shell = hooks_file("claude", |capture| {
        keys(&[(
            "command",
            json!(format!("megg {}", args("claude", capture))),
        )])
    });
    assert_eq!(settings(&m), shell);
    let mut lines = Vec::new();
    for capture in [false, true] {
        let line = format!("megg {}", args("claude", capture));
        assert_bash_parses(&line);
        lines.push((line, "megg", args("claude", capture), false));
    }
    assert_powershell_runs(&lines);

    // A project's exec form, from a teammate with a newer Claude Code: doctor names the
    // version this one needs.
    let project_exec = claude_exec("megg");
    fs::create_dir_all(m.p.root().join(".claude")).unwrap();
    fs::write(
        m.p.root().join(".claude/settings.json"),
        project_exec.to_string(),
    )
    .unwrap();
    let doctor =
        |version: &str| crate::stdout_json(&m.run_with_claude(version, &["doctor", "--json"]));
    let old = doctor("2.1.138");
    let c = crate::doctor_check(&old, "claude exec form");
    assert_eq!(c["ok"], false, "{c}");
    let detail = c["detail"].as_str().unwrap();
    assert!(
        detail.contains("Claude Code 2.1.138 does not run")
            && detail.contains("needs Claude Code 2.1.139")
            && detail.contains(".claude/settings.json"),
        "{c}"
    );
    assert!(c["fix"].as_str().unwrap().contains("claude update"), "{c}");
    let new = doctor("2.1.139");
    let c = crate::doctor_check(&new, "claude exec form");
    assert_eq!(c["ok"], true, "{c}");

    // After `claude update`: the exec form replaces each shell line, one handler per event.
    let out = m.run_with_claude("2.1.139", &user);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !crate::stdout_json(&out)["warnings"]
            .to_string()
            .contains("exec form"),
        "no note once it runs the exec form"
    );
    let exe = m.exe();
    let exec = claude_exec(&exe);
    assert_eq!(settings(&m), exec);
    // Back to the old one: the exec form it cannot run is replaced, not joined by a second.
    let out = m.run_with_claude("2.1.138", &user);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(settings(&m), shell);

    // Project scope: a teammate's exec form is replaced by the line the old one runs; after
    // an update that line stays (it runs on every Claude Code), one per event.
    let project = ["setup", "--agent", "claude", "--json"];
    let out = m.run_with_claude("2.1.138", &project);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let in_project = |m: &Machine| m.json(&m.p.root().join(".claude/settings.json"));
    assert_eq!(in_project(&m), shell);
    let out = m.run_with_claude("2.1.139", &project);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(in_project(&m), shell);
    let out = m.run_with_claude("2.1.139", &["setup", "--agent", "claude", "--uninstall"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A `claude` that prints no version: the exec form, with a warning that says what it needs.
    let out = m.run_with_claude("unknown", &user);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let warnings = crate::stdout_json(&out)["warnings"].to_string();
    assert!(
        warnings.contains("`claude --version` gave no version")
            && warnings.contains("needs Claude Code 2.1.139 or later"),
        "{warnings}"
    );
    assert_eq!(settings(&m), exec);

    // Uninstall removes either form.
    let mut uninstall = user.to_vec();
    uninstall.push("--uninstall");
    let left = m.home().join(".claude/settings.json");
    for version in ["2.1.139", "2.1.138"] {
        let out = m.run_with_claude(version, &user);
        assert!(out.status.success());
        let out = m.run_with_claude(version, &uninstall);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !left.exists() || !fs::read_to_string(&left).unwrap().contains("megg"),
            "{version}: {}",
            fs::read_to_string(&left).unwrap_or_default()
        );
    }
}

/// The python of a venv (`<target>/ps-grammar-venv`) holding [`TREE_SITTER`] and
/// [`POWERSHELL_GRAMMAR`], installed once per target directory under a lock, as
/// `tests/common/provision.rs` installs its tools; `None` (a one-line skip, a failure under
/// `CI`) when python3, venv or PyPI cannot be had.
fn powershell_python() -> Option<&'static Path> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match PYTHON.get_or_init(install_grammar) {
        Ok(python) => Some(python),
        Err(why) => {
            provision::skip(why);
            None
        }
    }
}

fn install_grammar() -> Result<PathBuf, String> {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let dir = target.join("ps-grammar-venv");
    let python = dir.join("bin/python");
    let pin = format!("{TREE_SITTER} {POWERSHELL_GRAMMAR}");
    let stamp = dir.join(".provisioned");
    let stamped = || fs::read_to_string(&stamp).is_ok_and(|s| s == pin);
    if stamped() {
        return Ok(python);
    }
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target.join("ps-grammar-venv.lock"))
        .unwrap();
    lock.lock().unwrap();
    if stamped() {
        return Ok(python);
    }
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    let what = format!("a PowerShell grammar ({TREE_SITTER}, {POWERSHELL_GRAMMAR})");
    let venv = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|_| format!("{what} needs python3, not found on PATH: install Python 3"))?;
    if !venv.status.success() {
        return Err(format!(
            "python3 cannot create a venv for {what}: install venv support (apt-get install python3-venv)"
        ));
    }
    let pip = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args([TREE_SITTER, POWERSHELL_GRAMMAR])
        .env("PIP_CACHE_DIR", target.join("cache/pip"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("the venv's python does not run: {e}"))?;
    if !pip.status.success() {
        return Err(format!(
            "`pip install` of {what} failed ({}): check that pypi.org is reachable",
            String::from_utf8_lossy(&pip.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    fs::write(&stamp, &pin).unwrap();
    Ok(python)
}
