//! `megg capture --agent codex|gemini|copilot` (SPEC §12 "Capture for every host") on real
//! repositories, fed the hook inputs and transcripts recorded from the pinned CLIs
//! (`tests/fixtures/hook-inputs/`, `tests/fixtures/transcripts/`): the handoff's Working On is
//! the user's request — never megg's own context the host wrote into the user role — its
//! Progress names the files the session changed (by the host's edit tools, or for Codex's
//! shell the files changed since the session's start), and session files are kept per host.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::{Git, NOW, Project, epoch, fs_tick};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// A git project with a domain and megg's gitignore block committed, and a private directory
/// outside the work tree for the hosts' homes and transcripts.
pub(crate) struct Repo {
    pub(crate) p: Project,
    pub(crate) git: Git,
    homes: tempfile::TempDir,
}

impl Repo {
    pub(crate) fn new() -> Self {
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        p.domain("", "Shop");
        p.ok("", &["gitignore"]);
        git.commit("main", epoch(NOW) - 3600, "init");
        Self {
            p,
            git,
            homes: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) fn home(&self, rel: &str) -> PathBuf {
        self.homes.path().join(rel)
    }

    /// A recorded fixture with its placeholders made this repository's paths.
    pub(crate) fn fixture(&self, rel: &str) -> String {
        let text = fs::read_to_string(format!("{FIXTURES}/{rel}")).unwrap();
        let root = self.p.root().display().to_string();
        text.replace("<CODEX_HOME>", &self.home("codex").display().to_string())
            .replace(
                "$HOME/.copilot",
                &self.home("copilot").display().to_string(),
            )
            .replace("/HOME/.gemini", &self.home("gemini").display().to_string())
            .replace("<PROJECT>", &root)
            .replace("$PROJECT", &root)
            .replace("/PROJECT", &root)
    }

    /// A recorded hook input, its transcript path (if any) moved to `transcript`.
    pub(crate) fn input(&self, rel: &str, transcript: Option<&Path>) -> Value {
        let mut v: Value = serde_json::from_str(&self.fixture(rel)).unwrap();
        for key in ["transcript_path", "transcriptPath"] {
            if let (Some(t), Some(_)) = (transcript, v.get(key)) {
                v[key] = json!(t);
            }
        }
        v
    }

    /// Writes a transcript (lines kept by `keep`) outside the work tree.
    pub(crate) fn transcript(
        &self,
        fixture: &str,
        rel: &str,
        keep: impl Fn(&str) -> bool,
    ) -> PathBuf {
        let path = self.home(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = self
            .fixture(&format!("transcripts/{fixture}"))
            .lines()
            .filter(|l| keep(l))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&path, text).unwrap();
        path
    }

    /// megg with `stdin`, from the filesystem root (only the input's `cwd` points it here).
    pub(crate) fn run(&self, args: &[&str], stdin: &Value) -> Output {
        self.command(args, stdin).output().unwrap()
    }

    pub(crate) fn command(&self, args: &[&str], stdin: &Value) -> assert_cmd::Command {
        let mut cmd = self.p.megg("");
        cmd.current_dir("/")
            .env("CODEX_HOME", self.home("codex"))
            .env("COPILOT_HOME", self.home("copilot"))
            .env("GEMINI_CLI_HOME", self.home("gemini-home"))
            .env("CLAUDE_CONFIG_DIR", self.home("claude"))
            .args(args)
            .write_stdin(stdin.to_string());
        cmd
    }

    /// A host's SessionStart hook; returns the context it injects. What the test wrote before
    /// is dated before the session's start, and what it writes after, after it ([`fs_tick`]).
    pub(crate) fn start(&self, agent: &str, input: &Value) -> String {
        fs_tick();
        let out = self.run(&["context", "--format", "hook", "--agent", agent], input);
        fs_tick();
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// `megg capture --agent AGENT`: exit 0, nothing on stdout or stderr.
    pub(crate) fn capture(&self, agent: &str, input: &Value) {
        let out = self.run(&["capture", "--agent", agent], input);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    }

    pub(crate) fn state(&self) -> Option<String> {
        fs::read_to_string(self.p.path(".megg/state.md")).ok()
    }

    pub(crate) fn sessions(&self) -> PathBuf {
        self.p.path(".git/megg/sessions/main")
    }

    /// Every file megg wrote, with its text.
    pub(crate) fn written(&self) -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        let mut dirs = vec![self.p.path(".git/megg"), self.p.path(".megg")];
        while let Some(d) = dirs.pop() {
            for e in fs::read_dir(&d).into_iter().flatten() {
                let path = e.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    out.push((path.clone(), fs::read_to_string(&path).unwrap_or_default()));
                }
            }
        }
        out
    }
}

/// The section of a handoff under `## name`.
pub(crate) fn section<'s>(state: &'s str, name: &str) -> &'s str {
    let start = state
        .find(&format!("## {name}"))
        .unwrap_or_else(|| panic!("no {name} in {state}"));
    let rest = &state[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// megg's context as the hosts inject it, and the host's own user-role text: never a request.
const NOISE: [&str; 6] = [
    "Domain Chain",
    "INFO-MARKER",
    "hook_context",
    "environment_context",
    "AGENTS.md",
    "current_datetime",
];

fn assert_no_noise(text: &str) {
    for n in NOISE {
        assert!(!text.contains(n), "{n} in {text}");
    }
}

/// "Codex edits files through its shell tool (`exec_command`), so there is no edit tool call to
/// read paths from, and a work tree's earlier uncommitted edits must not be claimed": the file
/// the session wrote through its shell is Progress, the one dirty before it started is not;
/// Working On is the request, not Codex's environment context or megg's developer message.
#[test]
fn codex_capture_claims_its_shell_edits_and_the_request_only() {
    let r = Repo::new();
    r.p.write("earlier.txt", "an edit from before the session\n");
    let transcript = r.transcript(
        "codex-0.169.0-exec-write.jsonl",
        "codex/sessions/rollout.jsonl",
        |_| true,
    );
    let start = r.input("hook-inputs/codex-SessionStart.json", Some(&transcript));
    r.start("codex", &start);
    // The model's `printf 'hello\n' > notes.txt`.
    r.p.write("notes.txt", "hello\n");
    r.capture(
        "codex",
        &r.input("hook-inputs/codex-Stop.json", Some(&transcript)),
    );
    let state = r.state().expect("promoted to state.md");
    let working = section(&state, "Working On");
    assert!(working.contains("write hello to notes.txt"), "{state}");
    assert_no_noise(&state);
    let progress = section(&state, "Progress");
    assert!(progress.contains("notes.txt"), "{state}");
    assert!(!state.contains("earlier.txt"), "{state}");
    assert!(
        state.contains("Wrote notes.txt."),
        "the last message: {state}"
    );
    let id = start["session_id"].as_str().unwrap();
    assert!(
        r.sessions().join(format!("codex/{id}.md")).is_file(),
        "the session file is under sessions/codex/"
    );
    assert!(!r.sessions().join(format!("{id}.md")).exists());

    // Compaction: Codex's SessionStart with `source: compact` injects the session's own
    // capture, even when state.md was written by someone else meanwhile.
    r.p.ok(
        "",
        &["state", "write", "--content", "Somebody else's handoff"],
    );
    let compact = r.input(
        "hook-inputs/codex-SessionStart-compact.json",
        Some(&transcript),
    );
    let context = r.start("codex", &compact);
    assert!(context.contains("write hello to notes.txt"), "{context}");
}

/// SPEC §14 "never blind past a count of unrelated dirty paths": in a work tree with 1,200
/// untracked files that sort before the source (a build's output not yet ignored), a Codex
/// session's shell edit, its edit of a file dirty before it, and its deletion are all
/// claimed, and so are a file it created and staged and one it created; a file dirty before
/// the session and untouched (staged or not), one deleted before it and ignored build output
/// are not.
/// (megg 1.1 cut the start snapshot at 1,000 paths and claimed nothing past its end.)
#[test]
fn a_capture_claims_exactly_the_session_s_changes_among_many_dirty_paths() {
    let r = Repo::new();
    for f in [
        "src/app.rs",
        "src/pre.rs",
        "src/untouched.rs",
        "src/gone.rs",
        "lib/old.rs",
        "lib/keep.rs",
        "src/staged_before.rs",
    ] {
        r.p.write(f, format!("// {f}\n"));
    }
    let mut index = r.git.repo.index().unwrap();
    index
        .add_all(["src", "lib"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    r.git.commit("main", epoch(NOW) - 1800, "source");
    // Dirty before the session: edited, edited and staged, deleted; build output ignored.
    r.p.write("src/pre.rs", "// an earlier edit\n");
    r.p.write("src/staged_before.rs", "// an earlier edit, staged\n");
    let stage = |path: &str| {
        let mut index = r.git.repo.index().unwrap();
        index.add_path(Path::new(path)).unwrap();
        index.write().unwrap();
    };
    stage("src/staged_before.rs");
    let ignore = fs::read_to_string(r.p.path(".gitignore")).unwrap_or_default();
    r.p.write(".gitignore", format!("{ignore}target/\n"));
    r.p.write("src/untouched.rs", "// an earlier edit, left alone\n");
    fs::remove_file(r.p.path("lib/old.rs")).unwrap();
    for i in 0..1_200 {
        r.p.write(&format!("build/out{i:04}.o"), "object\n");
    }
    let transcript = r.transcript(
        "codex-0.169.0-exec-write.jsonl",
        "codex/sessions/rollout.jsonl",
        |_| true,
    );
    let start = r.input("hook-inputs/codex-SessionStart.json", Some(&transcript));
    r.start("codex", &start);
    // The session, through its shell.
    r.p.write("src/app.rs", "// the session's edit\n");
    r.p.write("src/pre.rs", "// the earlier edit, edited again\n");
    fs::remove_file(r.p.path("src/gone.rs")).unwrap();
    r.p.write("src/added.rs", "// new, and staged\n");
    stage("src/added.rs");
    r.p.write("notes/plan.md", "# A new file\n");
    r.p.write("target/debug/app", "ignored build output\n");
    r.capture(
        "codex",
        &r.input("hook-inputs/codex-Stop.json", Some(&transcript)),
    );
    let state = r.state().expect("promoted to state.md");
    let progress = section(&state, "Progress");
    for claimed in [
        "src/app.rs",
        "src/pre.rs",
        "src/gone.rs",
        "src/added.rs",
        "notes/plan.md",
    ] {
        assert!(progress.contains(claimed), "{claimed}: {state}");
    }
    for not in [
        "src/untouched.rs",
        "src/staged_before.rs",
        "lib/old.rs",
        "build/",
        "target/",
        ".gitignore",
    ] {
        assert!(!state.contains(not), "{not}: {state}");
    }
}

/// SPEC §14: no host's SessionStart hook walks the work tree (its start is a time, not a
/// snapshot); a capture after a turn walks it once.
#[test]
fn no_session_start_hook_walks_the_work_tree() {
    let r = Repo::new();
    r.p.write("earlier.txt", "an edit from before the session\n");
    // Before the session: a change in the start's own tick would count as the session's.
    fs_tick();
    let log = r.home("failpoints.log");
    let failpoints = format!("log={}", log.display());
    let walks = || {
        fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| *l == "work-tree-walk")
            .count()
    };
    let transcript = r.transcript(
        "codex-0.169.0-exec-write.jsonl",
        "codex/sessions/rollout.jsonl",
        |_| true,
    );
    for (agent, input) in [
        ("codex", "hook-inputs/codex-SessionStart.json"),
        ("gemini", "hook-inputs/gemini-SessionStart.json"),
        ("copilot", "hook-inputs/copilot-sessionStart.json"),
    ] {
        let input = r.input(input, Some(&transcript));
        let out = r
            .command(&["context", "--format", "hook", "--agent", agent], &input)
            .env("MEGG_FAILPOINTS", &failpoints)
            .output()
            .unwrap();
        assert!(out.status.success(), "{agent}: {out:?}");
        assert_eq!(
            walks(),
            0,
            "{agent}'s SessionStart hook walked the work tree"
        );
    }
    fs_tick();
    r.p.write("notes.txt", "hello\n");
    let out = r
        .command(
            &["capture", "--agent", "codex"],
            &r.input("hook-inputs/codex-Stop.json", Some(&transcript)),
        )
        .env("MEGG_FAILPOINTS", &failpoints)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(walks(), 1, "a capture walks the work tree once");
    let state = r.state().expect("promoted");
    assert!(section(&state, "Progress").contains("notes.txt"), "{state}");
    assert!(!state.contains("earlier.txt"), "{state}");
}

/// "A session that only answered writes nothing": no edit, no to-do list — no handoff, no
/// session file; the work tree's earlier edits are not the session's.
#[test]
fn a_codex_session_that_only_answered_writes_nothing() {
    let r = Repo::new();
    r.p.write("earlier.txt", "an edit from before the session\n");
    let transcript = r.transcript(
        "codex-0.169.0-exec-write.jsonl",
        "codex/sessions/rollout.jsonl",
        |l| !l.contains("function_call") && !l.contains("exec_command"),
    );
    let start = r.input("hook-inputs/codex-SessionStart.json", Some(&transcript));
    r.start("codex", &start);
    r.capture(
        "codex",
        &r.input("hook-inputs/codex-Stop.json", Some(&transcript)),
    );
    assert_eq!(r.state(), None);
    let id = start["session_id"].as_str().unwrap();
    assert!(!r.sessions().join(format!("codex/{id}.md")).exists());
}

/// "Gemini puts the hook's context inside the user's prompt": Working On is the prompt after
/// megg's `<hook_context>`, Progress the files `write_file` and `replace` wrote, Next its
/// `write_todos` list.
#[test]
fn gemini_capture_strips_megg_context_from_the_prompt() {
    let r = Repo::new();
    let transcript = r.transcript(
        "gemini-0.61.0-write-file.jsonl",
        "gemini/tmp/shop/chats/session.jsonl",
        |_| true,
    );
    let start = r.input("hook-inputs/gemini-SessionStart.json", Some(&transcript));
    r.start("gemini", &start);
    r.p.write("notes.txt", "hello\n");
    r.capture(
        "gemini",
        &r.input("hook-inputs/gemini-AfterAgent.json", Some(&transcript)),
    );
    let state = r.state().expect("promoted to state.md");
    assert!(
        section(&state, "Working On").contains("write the notes"),
        "{state}"
    );
    assert_no_noise(&state);
    assert!(section(&state, "Progress").contains("notes.txt"), "{state}");
    let id = start["session_id"].as_str().unwrap();
    assert!(r.sessions().join(format!("gemini/{id}.md")).is_file());
}

/// "Copilot writes `events.jsonl` lazily: at `agentStop` the turn's user message is not in it
/// yet": the prompt `sessionStart` and `userPromptSubmitted` handed megg is Working On; and
/// `sessionEnd`, which names no transcript, reads `<COPILOT_HOME>/session-state/<id>/`.
#[test]
fn copilot_capture_keeps_the_prompt_its_transcript_lacks() {
    let r = Repo::new();
    let start = r.input("hook-inputs/copilot-sessionStart.json", None);
    let id = start["sessionId"].as_str().unwrap().to_string();
    let transcript = r.transcript(
        "copilot-create.jsonl",
        &format!("copilot/session-state/{id}/events.jsonl"),
        // Lazily written: neither the user's message nor the hooks' copies of it are there.
        |l| !l.contains("user.message") && !l.contains("write the notes"),
    );
    r.start("copilot", &start);
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-userPromptSubmitted.json", None),
    );
    r.p.write("notes.md", "# Notes\nCREATED-BY-MODEL\n");
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-agentStop.json", Some(&transcript)),
    );
    let state = r.state().expect("promoted to state.md");
    assert!(
        section(&state, "Working On").contains("write the notes"),
        "{state}"
    );
    assert!(section(&state, "Progress").contains("notes.md"), "{state}");
    assert_no_noise(&state);
    let start_record =
        fs::read_to_string(r.sessions().join(format!("copilot/{id}.start"))).unwrap();
    assert!(start_record.contains("write the notes"), "{start_record}");

    // sessionEnd names no transcript: megg finds it under COPILOT_HOME.
    fs::remove_file(r.p.path(".megg/state.md")).unwrap();
    fs::remove_file(r.sessions().join(format!("copilot/{id}.md"))).unwrap();
    fs::remove_file(r.sessions().join(format!("copilot/{id}.promoted"))).ok();
    fs::remove_file(r.sessions().join(format!("copilot/{id}.scan"))).ok();
    fs::remove_file(r.sessions().join(format!("copilot/{id}.start"))).unwrap();
    r.start("copilot", &start);
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-sessionEnd.json", None),
    );
    let state = r.state().expect("sessionEnd captured from session-state");
    assert!(section(&state, "Progress").contains("notes.md"), "{state}");
}

/// "Copilot runs the Claude-format capture hooks of `.claude/settings.json` too": with only
/// Claude Code's hooks, that call captures Copilot's session (as Copilot's); once megg's own
/// Copilot capture hooks are registered, it captures nothing — each event once.
#[test]
fn a_claude_format_capture_from_copilot_is_captured_once() {
    let r = Repo::new();
    let start = r.input("hook-inputs/copilot-claude-format-SessionStart.json", None);
    let id = start["session_id"].as_str().unwrap().to_string();
    let transcript = r.transcript(
        "copilot-create.jsonl",
        &format!("copilot/session-state/{id}/events.jsonl"),
        |_| true,
    );
    let out = r.run(&["context", "--json"], &start);
    assert!(out.status.success());
    r.p.write("notes.md", "# Notes\n");
    let stop = r.input(
        "hook-inputs/copilot-claude-format-Stop.json",
        Some(&transcript),
    );
    r.capture_claude(&stop);
    let state = r.state().expect("captured as Copilot's session");
    assert!(
        section(&state, "Working On").contains("write the notes"),
        "{state}"
    );
    assert!(r.sessions().join(format!("copilot/{id}.md")).is_file());
    assert!(
        !r.sessions().join(format!("{id}.md")).exists(),
        "not as Claude Code's"
    );

    // megg's Copilot hooks registered (they capture the same events): the Claude-format call
    // does nothing.
    r.p.ok("", &["setup", "--agent", "copilot"]);
    let log = fs::read_to_string(r.sessions().join("capture.log")).unwrap();
    r.capture_claude(&stop);
    assert_eq!(
        fs::read_to_string(r.sessions().join("capture.log")).unwrap(),
        log,
        "no second capture"
    );
}

impl Repo {
    fn capture_claude(&self, input: &Value) {
        let out = self.run(&["capture"], input);
        assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
    }
}

/// "A request like `deploy with key AKIA… token ghp_…` lands in `state.md` and
/// `.git/megg/sessions/`": Copilot's prompts — kept in the start record — and its transcript
/// leave no trace of an AWS key, a GitHub token or an Anthropic key in any file megg writes.
#[test]
fn no_secret_from_any_host_reaches_a_file_megg_writes() {
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let github = "ghp_R7tKq2mXw9LpZ4vNc8YbH3sJf6DgA1eUo5iQ";
    let anthropic = "sk-ant-api03-Q8vLm3xT9rKp2wZc7NbY4hJf6DsA1eUo5iGt0Hn";
    let prompt = format!("deploy with key {aws} token {github} and {anthropic}");
    let r = Repo::new();
    let mut start = r.input("hook-inputs/copilot-sessionStart.json", None);
    start["initialPrompt"] = json!(prompt);
    let id = start["sessionId"].as_str().unwrap().to_string();
    let transcript = r.transcript(
        "copilot-create.jsonl",
        &format!("copilot/session-state/{id}/events.jsonl"),
        |_| true,
    );
    // The transcript carries the same request.
    let text = fs::read_to_string(&transcript)
        .unwrap()
        .replace("write the notes", &prompt);
    fs::write(&transcript, text).unwrap();
    r.start("copilot", &start);
    let mut submitted = r.input("hook-inputs/copilot-userPromptSubmitted.json", None);
    submitted["prompt"] = json!(prompt);
    r.capture("copilot", &submitted);
    r.p.write("notes.md", "# Notes\n");
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-agentStop.json", Some(&transcript)),
    );
    let state = r.state().expect("promoted");
    assert!(state.contains("deploy with key [redacted]"), "{state}");
    let written = r.written();
    assert!(written.len() >= 4, "{written:?}");
    for (path, text) in written {
        for secret in [aws, github, anthropic] {
            assert!(!text.contains(secret), "{secret} in {}", path.display());
        }
    }
}

/// Session ids name files megg writes: one outside `[A-Za-z0-9._-]{1,128}` is hashed, never a
/// path; nothing is written outside the host's session directory.
#[test]
fn a_hostile_session_id_is_hashed_into_the_hosts_directory() {
    let r = Repo::new();
    let transcript = r.transcript(
        "gemini-0.61.0-write-file.jsonl",
        "gemini/chat.jsonl",
        |_| true,
    );
    let mut input = r.input("hook-inputs/gemini-AfterAgent.json", Some(&transcript));
    input["session_id"] = json!("../../../escape");
    r.p.write("notes.txt", "x\n");
    r.capture("gemini", &input);
    assert!(!r.p.path(".git/escape.md").exists());
    assert!(!r.p.root().parent().unwrap().join("escape.md").exists());
    let names: Vec<String> = fs::read_dir(r.sessions().join("gemini"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| n.starts_with("id-")), "{names:?}");
}

/// `--no-capture` for a host takes its capture hooks out (and keeps its context hook); setup
/// again puts them back.
#[test]
fn no_capture_removes_a_hosts_capture_hooks() {
    let r = Repo::new();
    r.p.ok("", &["setup", "--agent", "gemini"]);
    let v: Value = serde_json::from_str(&r.p.read(".gemini/settings.json")).unwrap();
    assert!(v["hooks"]["AfterAgent"].is_array(), "{v}");
    r.p.ok("", &["setup", "--agent", "gemini", "--no-capture"]);
    let v: Value = serde_json::from_str(&r.p.read(".gemini/settings.json")).unwrap();
    assert!(v["hooks"].get("AfterAgent").is_none(), "{v}");
    assert!(v["hooks"].get("SessionEnd").is_none(), "{v}");
    assert!(v["hooks"]["SessionStart"].is_array(), "{v}");
}

/// A Copilot session whose start went unrecorded (megg set up mid-session): its first prompt
/// records the start, but never as if the handoff written by hand meanwhile were the session's
/// — SPEC §10's rule without a start record holds: only an absent `state.md` is created.
#[test]
fn a_prompt_without_a_recorded_start_never_takes_over_a_written_state() {
    let r = Repo::new();
    let id = "7c96c316-1063-4b17-8b4d-e6150c9db8f6";
    let transcript = r.transcript(
        "copilot-create.jsonl",
        &format!("copilot/session-state/{id}/events.jsonl"),
        |_| true,
    );
    r.p.ok("", &["state", "write", "--content", "Written by hand"]);
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-userPromptSubmitted.json", None),
    );
    r.p.write("notes.md", "# Notes\n");
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-agentStop.json", Some(&transcript)),
    );
    let state = r.state().unwrap();
    assert!(state.contains("Written by hand"), "{state}");
    let own = fs::read_to_string(r.sessions().join(format!("copilot/{id}.md"))).unwrap();
    assert!(
        own.contains("write the notes"),
        "kept in its own file: {own}"
    );
}

/// SPEC §18.2: a correction the user submitted, then "ok go ahead", both only in Copilot's
/// `userPromptSubmitted` (its transcript lags): the correction stays the latest request, the
/// acknowledgement after it.
#[test]
fn copilot_an_acknowledgement_after_a_submitted_correction_keeps_the_correction() {
    let r = Repo::new();
    let start = r.input("hook-inputs/copilot-sessionStart.json", None);
    let id = start["sessionId"].as_str().unwrap().to_string();
    let transcript = r.transcript(
        "copilot-create.jsonl",
        &format!("copilot/session-state/{id}/events.jsonl"),
        |l| !l.contains("user.message") && !l.contains("write the notes"),
    );
    r.start("copilot", &start);
    for prompt in ["no — use Postgres, not SQLite", "ok go ahead"] {
        let mut submitted = r.input("hook-inputs/copilot-userPromptSubmitted.json", None);
        submitted["prompt"] = serde_json::json!(prompt);
        r.capture("copilot", &submitted);
    }
    r.p.write("notes.md", "# Notes\n");
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-agentStop.json", Some(&transcript)),
    );
    let state = r.state().expect("promoted to state.md");
    assert!(
        section(&state, "Working On")
            .contains("Latest request: no — use Postgres, not SQLite (then: \"ok go ahead\")"),
        "{state}"
    );
}

/// Copilot running only megg's Claude-format hooks hands no `userPromptSubmitted`: the latest
/// request is the transcript's, not the first prompt frozen in the start record.
#[test]
fn the_latest_request_follows_the_transcript_after_the_first_prompt() {
    let r = Repo::new();
    let start = r.input("hook-inputs/copilot-claude-format-SessionStart.json", None);
    let id = start["session_id"].as_str().unwrap().to_string();
    let path = r.transcript(
        "copilot-create.jsonl",
        &format!("copilot/session-state/{id}/events.jsonl"),
        |_| true,
    );
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str(
        &json!({"type": "user.message", "data": {"content": "now add the tests"}, "id": "later", "timestamp": "2026-11-23T19:50:00.000Z"})
            .to_string(),
    );
    text.push('\n');
    fs::write(&path, text).unwrap();
    assert!(r.run(&["context", "--json"], &start).status.success());
    r.p.write("notes.md", "# Notes\n");
    r.capture_claude(&r.input("hook-inputs/copilot-claude-format-Stop.json", Some(&path)));
    let state = r.state().unwrap();
    let working = section(&state, "Working On");
    assert!(working.contains("write the notes"), "{state}");
    assert!(working.contains("now add the tests"), "{state}");
}

/// A large file (past what a snapshot hashes) the shell changes is still claimed: it is
/// fingerprinted by its size, not given up on.
#[test]
fn a_large_file_the_shell_grew_is_claimed() {
    let r = Repo::new();
    let big = vec![b'x'; 17 * 1024 * 1024];
    r.p.write("data.bin", &big);
    let transcript = r.transcript(
        "codex-0.169.0-exec-write.jsonl",
        "codex/sessions/rollout.jsonl",
        |_| true,
    );
    let start = r.input("hook-inputs/codex-SessionStart.json", Some(&transcript));
    r.start("codex", &start);
    let mut grown = big;
    grown.extend_from_slice(b"more\n");
    r.p.write("data.bin", &grown);
    r.capture(
        "codex",
        &r.input("hook-inputs/codex-Stop.json", Some(&transcript)),
    );
    let state = r.state().expect("promoted");
    assert!(section(&state, "Progress").contains("data.bin"), "{state}");
}

/// `--no-capture` in one scope while the other scope captures: said, not silently ignored.
#[test]
fn no_capture_says_when_the_other_scope_still_captures() {
    let r = Repo::new();
    let gemini_home = r.home("gemini-home");
    let out =
        r.p.megg("")
            .env("GEMINI_CLI_HOME", &gemini_home)
            .args(["setup", "--agent", "gemini", "--scope", "user"])
            .output()
            .unwrap();
    assert!(out.status.success(), "{out:?}");
    let out =
        r.p.megg("")
            .env("GEMINI_CLI_HOME", &gemini_home)
            .args(["setup", "--agent", "gemini", "--no-capture", "--force"])
            .output()
            .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("capture hooks stay active"), "{stderr}");
}

/// Bad input never fails a host's capture hook, prints nothing and writes nothing.
#[test]
fn a_hosts_capture_never_fails_on_bad_input() {
    let r = Repo::new();
    let garbage = r.home("garbage.jsonl");
    fs::write(&garbage, "not json\n{\"type\":\n\u{0}\u{1}\n[1,2]\n").unwrap();
    let cases = [
        json!("not an object"),
        json!({"session_id": 42, "cwd": 7}),
        json!({"sessionId": "s", "cwd": r.p.root(), "transcriptPath": "/dev/zero"}),
        json!({"session_id": "s", "cwd": "/nowhere/at/all", "transcript_path": garbage}),
        json!({"session_id": "s", "cwd": r.p.root(), "transcript_path": garbage}),
        json!({"sessionId": "../../x", "cwd": r.p.root()}),
    ];
    for agent in ["codex", "gemini", "copilot"] {
        for input in &cases {
            r.capture(agent, input);
        }
    }
    assert_eq!(r.state(), None, "nothing to hand off");
    let md: Vec<PathBuf> = r
        .written()
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with(".megg/info.md"))
        .collect();
    assert!(md.is_empty(), "{md:?}");
}
