//! No secrets in what megg keeps or injects (SPEC §12 "At write", "Measured"): every true
//! positive of gitleaks' 217 text rules and its JSON-escaped and multi-line shapes
//! (`../shared/secrets/`), put in each host's own transcript format — user requests, assistant
//! messages, a failing test run's output, the to-do list, the host's compaction summary — and
//! in what the hooks hand in (the last assistant message, Copilot's prompts, Claude Code's
//! `PostCompact` summary and task files), a hand-written handoff's open items and a
//! checkpoint's phase or target (the workflow line). A capture runs after every turn, as the
//! Stop hook does; after every run of megg, every file it wrote is read, and so is what the
//! next SessionStart injects. No 12 characters of a sample's secret survive anywhere — and the
//! marker written next to each sample reaches some file, so each sample was in a field capture
//! keeps, not in one it drops (which would prove nothing).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::io::Write;
use std::path::PathBuf;

use aho_corasick::AhoCorasick;
use serde_json::{Value, json};

use crate::NOW;
use crate::agents_capture::Repo;
use crate::secret_samples::{self, Sample, survivor};

/// Bytes of samples in one compaction summary (megg keeps 8 KiB of one).
const SUMMARY_BYTES: usize = 7_000;
/// Failing tests a jest run names (megg keeps 10).
const NAMES: usize = 10;
/// What keeps two samples of one summary apart, for the rules as gitleaks writes them: six
/// lines holding a space. `jwt-base64` takes line breaks into its secret but never a space,
/// and `curl-auth-user` looks up to five lines past `curl` for the last `-u` — so a curl
/// command whose `-u` is on a later line, followed closely by another, has the other's
/// credentials found instead of its own (gitleaks does the same on such a text).
const APART: &str = "\n \n \n \n \n \n \n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    Claude,
    Codex,
    Gemini,
    Copilot,
}

impl Host {
    fn agent(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Copilot => "copilot",
        }
    }

    /// Gemini CLI writes no compaction summary (SPEC §18.1).
    fn has_summary(self) -> bool {
        self != Host::Gemini
    }
}

/// What a slot of a turn takes: any text, one line, or one shell word.
#[derive(Debug, Clone, Copy)]
enum Shape {
    Any,
    OneLine,
    Word,
}

/// Where a sample was put, for the report of a marker that went missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Field {
    Request,
    Message,
    HookMessage,
    TestName,
    TestError,
    Todo,
    Description,
    TaskFile,
    Summary,
    PostCompact,
    Carried,
    Phase,
    Target,
    Prompt,
}

/// The samples, each with its marker, and which are still to be put in a transcript.
struct Samples {
    all: Vec<Sample>,
    left: Vec<usize>,
    placed: BTreeMap<usize, Field>,
}

fn marker(i: usize) -> String {
    format!("mk{i:04}mk")
}

impl Samples {
    fn new() -> Self {
        let mut all = secret_samples::true_positives();
        all.extend(secret_samples::shapes());
        let markers = AhoCorasick::new((0..all.len()).map(marker)).unwrap();
        for s in &all {
            assert!(
                !markers.is_match(&s.text),
                "a sample holds a marker: {}",
                s.text
            );
        }
        Self {
            left: (0..all.len()).collect(),
            all,
            placed: BTreeMap::new(),
        }
    }

    /// Sample `i` as written: its marker, a space, its text (a word: joined by `-`).
    fn text(&self, i: usize, shape: Shape) -> String {
        match shape {
            Shape::Word => format!("{}-{}", marker(i), self.all[i].text),
            _ => format!("{} {}", marker(i), self.all[i].text),
        }
    }

    fn fits(&self, i: usize, max: usize, shape: Shape) -> bool {
        let text = &self.all[i].text;
        self.text(i, shape).chars().count() <= max
            && match shape {
                Shape::Any => true,
                Shape::OneLine => !text.contains(['\n', '\r']),
                Shape::Word => {
                    !text.starts_with('-')
                        && !text
                            .chars()
                            .any(|c| c.is_whitespace() || "&|;$`'\"".contains(c))
                }
            }
    }

    /// The first sample left that fits, as written into `field`.
    fn take(&mut self, field: Field, max: usize, shape: Shape) -> Option<String> {
        let at = self.left.iter().position(|&i| self.fits(i, max, shape))?;
        let i = self.left.remove(at);
        self.placed.insert(i, field);
        Some(self.text(i, shape))
    }

    fn take_n(&mut self, field: Field, n: usize, max: usize, shape: Shape) -> Vec<String> {
        (0..n).map_while(|_| self.take(field, max, shape)).collect()
    }

    /// Samples for a summary of at most `budget` bytes, [`APART`] between them.
    fn take_bytes(&mut self, field: Field, budget: usize) -> Option<String> {
        let mut out: Vec<String> = Vec::new();
        let mut used = 0;
        let mut k = 0;
        while k < self.left.len() {
            let i = self.left[k];
            let text = self.text(i, Shape::Any);
            if used + text.len() + APART.len() <= budget {
                used += text.len() + APART.len();
                self.left.remove(k);
                self.placed.insert(i, field);
                out.push(text);
            } else {
                k += 1;
            }
        }
        (!out.is_empty()).then(|| out.join(APART))
    }
}

/// What one turn of a session holds, each a sample as written (marker first).
#[derive(Debug, Default)]
struct Turn {
    n: usize,
    request: Option<String>,
    message: Option<String>,
    hook_message: Option<String>,
    names: Vec<String>,
    error: Option<String>,
    todos: Vec<String>,
    descriptions: Vec<String>,
    task_files: Vec<(String, String)>,
    summary: Option<String>,
    post_compact: Option<String>,
    carried: Vec<String>,
    phase: Option<String>,
    target: Option<String>,
    initial_prompt: Option<String>,
    prompts: Vec<String>,
}

impl Turn {
    /// The next turn of `host`'s session: every slot it has, filled with the samples left that
    /// fit it whole (megg's own cut: a request 300 characters, a test name 160, …).
    fn plan(host: Host, n: usize, s: &mut Samples) -> Self {
        use Shape::*;
        let mut t = Turn {
            n,
            ..Turn::default()
        };
        t.names = s.take_n(Field::TestName, NAMES, 148, OneLine);
        t.error = s.take(Field::TestError, 290, OneLine);
        if n == 0 {
            t.carried = s.take_n(Field::Carried, 10, 280, OneLine);
        }
        if n.is_multiple_of(2) {
            t.phase = s.take(Field::Phase, 200, OneLine);
        } else {
            t.target = s.take(Field::Target, 200, Word);
        }
        if host == Host::Copilot {
            if n == 0 {
                t.initial_prompt = s.take(Field::Prompt, 290, Any);
            }
            t.prompts = s.take_n(Field::Prompt, 3, 290, Any);
        }
        t.request = s.take(Field::Request, 290, Any);
        // Without a summary, the message is the longest field a host keeps: what is longer is
        // kept cut, after its redaction.
        let longest = if host.has_summary() { 490 } else { usize::MAX };
        t.message = s.take(Field::Message, longest, Any);
        if host != Host::Copilot {
            t.hook_message = s.take(Field::HookMessage, 490, Any);
        }
        match host {
            Host::Claude => {
                // Turn 0 carries a hand-written handoff's items instead: the handoff stays
                // within its 2,000 tokens.
                if n > 0 {
                    for _ in 0..6 {
                        let Some(subject) = s.take(Field::TaskFile, 150, Any) else {
                            break;
                        };
                        let description = s.take(Field::TaskFile, 150, Any).unwrap_or_default();
                        t.task_files.push((subject, description));
                    }
                }
                t.todos = s.take_n(Field::Todo, 100, 290, Any);
                t.descriptions = s.take_n(Field::Description, 100, 290, Any);
                t.post_compact = s.take_bytes(Field::PostCompact, SUMMARY_BYTES);
            }
            Host::Codex | Host::Gemini => t.todos = s.take_n(Field::Todo, 150, 290, Any),
            Host::Copilot => {}
        }
        if host.has_summary() {
            t.summary = s.take_bytes(Field::Summary, SUMMARY_BYTES);
        }
        t
    }

    /// A jest run's output naming the failing tests, the first one's assertion under it.
    fn jest_output(&self) -> String {
        let mut out = String::from("FAIL src/secrets.test.js\n");
        let plain = ["reads the config".to_string()];
        let names = if self.names.is_empty() {
            &plain[..]
        } else {
            &self.names[..]
        };
        for (k, name) in names.iter().enumerate() {
            out.push_str(&format!("  ● secrets › {name}\n\n"));
            if k == 0 {
                let error = self
                    .error
                    .as_deref()
                    .unwrap_or("expect(received).toBe(expected)");
                out.push_str(&format!("    {error}\n\n"));
            }
        }
        out.push_str(&format!(
            "Tests:       {} failed, {} total\n",
            names.len(),
            names.len()
        ));
        out
    }

    /// The checkpoint a `megg checkpoint update` names this turn: the checkpoint file whose
    /// phase holds a sample, or a sample as the target.
    fn checkpoint(&self) -> String {
        self.target.clone().unwrap_or_else(|| "feat-x".into())
    }

    fn request_text(&self) -> String {
        self.request
            .clone()
            .unwrap_or_else(|| format!("carry on with turn {}", self.n))
    }

    fn message_text(&self) -> String {
        self.message
            .clone()
            .unwrap_or_else(|| format!("Turn {} done.", self.n))
    }

    /// The to-do list as a host's plan tool sets it: the samples completed, then 20 short
    /// completed steps (the handoff lists the newest 20 done) and one open step.
    fn plan_items(&self) -> Vec<(String, &'static str)> {
        let mut items: Vec<(String, &'static str)> = self
            .todos
            .iter()
            .map(|t| (t.clone(), "completed"))
            .collect();
        items.extend((0..20).map(|k| (format!("step {k} of turn {}", self.n), "completed")));
        items.push((format!("finish turn {}", self.n), "pending"));
        items
    }
}

/// A session of one host in a repository: its transcript, the hook inputs, and everything
/// megg wrote or printed, read after each run.
struct Session<'r> {
    r: &'r Repo,
    host: Host,
    id: String,
    transcript: PathBuf,
    /// Files the test wrote (transcripts, task files): not megg's.
    inputs: HashSet<PathBuf>,
    /// Contents the test wrote by hand (the handoff a capture replaces): a byte-exact copy of
    /// one is the user's own file, kept as it was (SPEC §13.1's history).
    by_hand: HashSet<Vec<u8>>,
    /// What megg wrote or printed: text → where.
    seen: BTreeMap<String, String>,
    /// Claude Code's task ids still open (deleted at the next turn).
    task_ids: Vec<String>,
    next_task: usize,
    runs: usize,
}

impl<'r> Session<'r> {
    fn new(r: &'r Repo, host: Host) -> Self {
        let id = format!("{}-secrets-1", host.agent());
        let transcript = match host {
            Host::Claude => r.home(&format!("claude/projects/p/{id}.jsonl")),
            Host::Codex => r.home(&format!("codex/sessions/rollout-{id}.jsonl")),
            Host::Gemini => r.home(&format!("gemini-home/chats/session-{id}.jsonl")),
            Host::Copilot => r.home(&format!("copilot/session-state/{id}/events.jsonl")),
        };
        fs::create_dir_all(transcript.parent().unwrap()).unwrap();
        Self {
            r,
            host,
            id,
            inputs: HashSet::from([transcript.clone()]),
            transcript,
            by_hand: HashSet::new(),
            seen: BTreeMap::new(),
            task_ids: Vec::new(),
            next_task: 1,
            runs: 0,
        }
    }

    /// megg with `input`: exit 0; what it printed and every file it wrote are read.
    fn run(&mut self, args: &[&str], input: &Value) {
        let out = self.r.run(args, input);
        assert!(out.status.success(), "megg {args:?}: {out:?}");
        self.runs += 1;
        for (what, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes).into_owned();
            self.keep(text, &format!("{what} of megg {}", args.join(" ")));
        }
        self.read_written();
    }

    fn keep(&mut self, text: String, origin: &str) {
        if text.is_empty() {
            return;
        }
        // JSON documents are read decoded too: an escaped secret is still one.
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            let mut strings = Vec::new();
            strings_of(&v, &mut strings);
            let decoded = strings.join("\n");
            self.seen
                .entry(decoded)
                .or_insert_with(|| format!("{origin} (decoded)"));
        }
        self.seen.entry(text).or_insert_with(|| origin.to_string());
    }

    /// Every file under the repository's `.megg` and `.git/megg`, megg's cache and HOME, and
    /// the hosts' homes (but the test's own inputs).
    fn read_written(&mut self) {
        let r = self.r;
        let mut dirs = vec![
            r.p.path(".megg"),
            r.p.path(".git/megg"),
            r.p.cache.path().to_path_buf(),
            r.home(""),
        ];
        while let Some(d) = dirs.pop() {
            for e in fs::read_dir(&d).into_iter().flatten().flatten() {
                let path = e.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if !self.inputs.contains(&path) {
                    let Ok(bytes) = fs::read(&path) else { continue };
                    if self.by_hand.contains(&bytes) {
                        continue;
                    }
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    self.keep(text, &path.display().to_string());
                }
            }
        }
    }

    fn append(&self, lines: &[Value]) {
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.transcript)
            .unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
    }

    fn base_input(&self, event: &str) -> Value {
        match self.host {
            Host::Copilot => json!({
                "sessionId": self.id,
                "timestamp": 1795463351488_u64,
                "cwd": self.r.p.root(),
            }),
            _ => json!({
                "session_id": self.id,
                "transcript_path": self.transcript,
                "cwd": self.r.p.root(),
                "hook_event_name": event,
            }),
        }
    }

    /// The session's start: a hand-written handoff whose open items it will replace (and
    /// carry), then its SessionStart hook.
    fn start(&mut self, t: &Turn) {
        let mut state = format!(
            "---\nupdated: {NOW}\nstatus: active\n---\n\n## Working On\nRotating the keys\n\n## Next\n"
        );
        for item in &t.carried {
            state.push_str(&format!("- [ ] {item}\n"));
        }
        self.by_hand.insert(state.clone().into_bytes());
        self.r.p.write(".megg/state.md", &state);
        let mut input = self.base_input("SessionStart");
        input["source"] = json!(if self.host == Host::Copilot {
            "new"
        } else {
            "startup"
        });
        if let Some(p) = &t.initial_prompt {
            input["initialPrompt"] = json!(p);
        }
        // What it injects here is the hand-written handoff as it is, which capture never wrote.
        let out = self.r.run(
            &["context", "--format", "hook", "--agent", self.host.agent()],
            &input,
        );
        assert!(out.status.success(), "{out:?}");
    }

    /// One turn: the checkpoint file, the transcript's lines, the hooks' inputs, the capture.
    fn turn(&mut self, t: &Turn) {
        if let Some(phase) = &t.phase {
            self.r.p.write(
                ".feat-x.local.md",
                format!(
                    "---\nfeature: feat-x\nplan_file: docs/plans/feat-x.md\nphase: {}\n---\n- [ ] x\n",
                    serde_json::to_string(phase).unwrap()
                ),
            );
        }
        for p in &t.prompts {
            let mut input = self.base_input("userPromptSubmitted");
            input["prompt"] = json!(p);
            self.run(&["capture", "--agent", "copilot"], &input);
        }
        let lines = match self.host {
            Host::Claude => self.claude_lines(t),
            Host::Codex => codex_lines(t),
            Host::Gemini => gemini_lines(t, self.r),
            Host::Copilot => copilot_lines(t, self.r),
        };
        self.append(&lines);
        if let Some(summary) = &t.post_compact {
            let mut input = self.base_input("PostCompact");
            input["trigger"] = json!("auto");
            input["compact_summary"] = json!(format!(
                "<analysis>\nWhat the session did.\n</analysis>\n\n<summary>\n{summary}\n</summary>"
            ));
            self.run(&["capture", "--agent", "claude"], &input);
        }
        let mut stop = match self.host {
            Host::Claude | Host::Codex => self.base_input("Stop"),
            Host::Gemini => self.base_input("AfterAgent"),
            Host::Copilot => {
                let mut i = self.base_input("agentStop");
                i["transcriptPath"] = json!(self.transcript);
                i["stopReason"] = json!("end_turn");
                i
            }
        };
        if let Some(m) = &t.hook_message {
            let key = match self.host {
                Host::Gemini => "prompt_response",
                _ => "last_assistant_message",
            };
            stop[key] = json!(m);
        }
        self.run(&["capture", "--agent", self.host.agent()], &stop);
        // What a new session of the same host is given next.
        self.new_session_starts(&format!("peek-{}", t.n));
    }

    /// The SessionStart hook of a new session `suffix` of this host.
    fn new_session_starts(&mut self, suffix: &str) {
        let id = format!("{}-{suffix}", self.host.agent());
        let input = match self.host {
            Host::Copilot => json!({"sessionId": id, "timestamp": 1795463351488_u64,
                "cwd": self.r.p.root(), "source": "new"}),
            _ => json!({"session_id": id, "cwd": self.r.p.root(),
                "hook_event_name": "SessionStart", "source": "startup",
                "transcript_path": self.r.home(&format!("none/{id}.jsonl"))}),
        };
        self.run(
            &["context", "--format", "hook", "--agent", self.host.agent()],
            &input,
        );
    }

    /// The session's own SessionStart after a compaction (Claude Code and Codex inject the
    /// session's own capture then).
    fn compacted_session_starts(&mut self) {
        let mut input = self.base_input("SessionStart");
        input["source"] = json!("compact");
        self.run(
            &["context", "--format", "hook", "--agent", self.host.agent()],
            &input,
        );
    }

    /// Claude Code's transcript lines for a turn; its task files written beside.
    fn claude_lines(&mut self, t: &Turn) -> Vec<Value> {
        let n = t.n;
        let mut lines = vec![claude_user(json!(t.request_text()))];
        for (k, id) in std::mem::take(&mut self.task_ids).into_iter().enumerate() {
            let call = format!("del{n}-{k}");
            lines.push(claude_tool(
                &call,
                "TaskUpdate",
                json!({"taskId": id, "status": "deleted"}),
            ));
            lines.push(claude_result(&call, "Updated task", false));
        }
        for (k, subject) in t.todos.iter().enumerate() {
            let call = format!("task{n}-{k}");
            let description = t.descriptions.get(k).cloned().unwrap_or_default();
            lines.push(claude_tool(
                &call,
                "TaskCreate",
                json!({"subject": subject, "description": description}),
            ));
            let id = self.next_task.to_string();
            self.next_task += 1;
            lines.push(claude_result(
                &call,
                &format!("Task #{id} created successfully: the task"),
                false,
            ));
            self.task_ids.push(id);
        }
        // Descriptions left over (more descriptions than subjects): tasks of their own.
        for (k, description) in t.descriptions.iter().enumerate().skip(t.todos.len()) {
            let call = format!("taskd{n}-{k}");
            lines.push(claude_tool(
                &call,
                "TaskCreate",
                json!({"subject": format!("task {k}"), "description": description}),
            ));
            let id = self.next_task.to_string();
            self.next_task += 1;
            lines.push(claude_result(
                &call,
                &format!("Task #{id} created successfully: the task"),
                false,
            ));
            self.task_ids.push(id);
        }
        let file = self.r.p.path(&format!("src/turn{n}.rs"));
        lines.push(claude_tool(
            &format!("w{n}"),
            "Write",
            json!({"file_path": file, "content": "x"}),
        ));
        lines.push(claude_result(&format!("w{n}"), "File created", false));
        lines.push(claude_tool(
            &format!("jest{n}"),
            "Bash",
            json!({"command": "npx jest src/secrets.test.js"}),
        ));
        lines.push(claude_result(
            &format!("jest{n}"),
            &format!("Exit code 1\n{}", t.jest_output()),
            true,
        ));
        lines.push(claude_tool(
            &format!("cp{n}"),
            "Bash",
            json!({"command": format!("megg checkpoint update {}", t.checkpoint())}),
        ));
        lines.push(claude_result(&format!("cp{n}"), "updated", false));
        if let Some(summary) = &t.summary {
            lines.push(json!({
                "type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
                "isSidechain": false, "timestamp": at(n),
                "message": {"role": "user", "content": format!(
                    "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n{summary}"
                )},
            }));
        }
        lines.push(json!({"type": "assistant", "message": {"role": "assistant",
            "content": [{"type": "text", "text": t.message_text()}]}}));
        // The task list Claude Code keeps beside the transcript: the handoff's Next.
        let dir = self.r.home(&format!("claude/tasks/{}", self.id));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let placeholder = [("Rotate the keys".to_string(), String::new())];
        let files = if t.task_files.is_empty() {
            &placeholder[..]
        } else {
            &t.task_files[..]
        };
        for (k, (subject, description)) in files.iter().enumerate() {
            let path = dir.join(format!("{}.json", k + 1));
            fs::write(
                &path,
                json!({"id": (k + 1).to_string(), "subject": subject, "description": description,
                    "status": if k == 0 { "in_progress" } else { "pending" },
                    "blocks": [], "blockedBy": []})
                .to_string(),
            )
            .unwrap();
            self.inputs.insert(path);
        }
        lines
    }
}

/// A line's time: turn `n`'s, after the one before (a newer summary replaces the kept one).
fn at(n: usize) -> String {
    format!("2026-11-22T12:{:02}:00.000Z", n + 1)
}

fn claude_user(content: Value) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": content}})
}

fn claude_tool(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": id, "name": name, "input": input}
    ]}})
}

fn claude_result(id: &str, text: &str, error: bool) -> Value {
    claude_user(
        json!([{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": error}]),
    )
}

/// Codex's rollout lines for a turn (as `codex_tests.rs` and the recorded rollouts write them).
fn codex_lines(t: &Turn) -> Vec<Value> {
    let n = t.n;
    let ts = at(n);
    let event = |payload: Value| json!({"timestamp": ts, "type": "event_msg", "payload": payload});
    let response =
        |payload: Value| json!({"timestamp": ts, "type": "response_item", "payload": payload});
    let exec = |id: &str, cmd: &str| {
        response(
            json!({"type": "function_call", "name": "exec_command", "call_id": id,
            "arguments": json!({"cmd": cmd}).to_string()}),
        )
    };
    let out = |id: &str, output: &str| {
        response(json!({"type": "function_call_output", "call_id": id, "output": output}))
    };
    let exec_out = |code: i32, output: &str| {
        format!(
            "Chunk ID: 38ba8b\nWall time: 1.2000 seconds\nProcess exited with code {code}\n\
             Original token count: 120\nOutput:\n{output}"
        )
    };
    let plan: Vec<Value> = t
        .plan_items()
        .into_iter()
        .map(|(step, status)| json!({"step": step, "status": status}))
        .collect();
    let mut lines = vec![
        event(
            json!({"type": "item_completed", "item": {"type": "UserMessage", "id": format!("u{n}"),
            "content": [{"type": "text", "text": t.request_text(), "text_elements": []}]}}),
        ),
        response(
            json!({"type": "function_call", "name": "update_plan", "call_id": format!("plan{n}"),
            "arguments": json!({"plan": plan}).to_string()}),
        ),
        out(&format!("plan{n}"), "Plan updated"),
        exec(&format!("jest{n}"), "npx jest src/secrets.test.js"),
        out(&format!("jest{n}"), &exec_out(1, &t.jest_output())),
        exec(
            &format!("cp{n}"),
            &format!("megg checkpoint update {}", t.checkpoint()),
        ),
        out(&format!("cp{n}"), &exec_out(0, "updated\n")),
    ];
    if let Some(summary) = &t.summary {
        lines.push(json!({"timestamp": ts, "type": "compacted", "payload": {
            "message": format!("Another language model started to solve this problem and produced a summary of its thinking process. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\n{summary}"),
            "replacement_history": []}}));
    }
    lines.push(event(
        json!({"type": "item_completed", "item": {"type": "AgentMessage", "id": format!("a{n}"),
        "content": [{"type": "text", "text": t.message_text()}]}}),
    ));
    lines
}

/// Gemini CLI's chat records for a turn (as `gemini_tests.rs` and the recorded chat write
/// them): the request, the model's tool calls, its answer.
fn gemini_lines(t: &Turn, r: &Repo) -> Vec<Value> {
    let n = t.n;
    let ts = at(n);
    let call = |id: String, name: &str, args: Value, output: String| {
        json!({"id": id, "name": name, "args": args,
            "result": [{"functionResponse": {"id": id, "name": name, "response": {"output": output}}}],
            "status": "success", "timestamp": ts})
    };
    let todos: Vec<Value> = t
        .plan_items()
        .into_iter()
        .map(|(description, status)| json!({"description": description, "status": status}))
        .collect();
    let calls = json!([
        call(
            format!("write_todos__{n}"),
            "write_todos",
            json!({ "todos": todos }),
            "Successfully updated the todo list.".into()
        ),
        call(
            format!("write_file__{n}"),
            "write_file",
            json!({"file_path": r.p.path(&format!("src/turn{n}.rs")), "content": "x"}),
            "Successfully created and wrote to new file.".into()
        ),
        call(
            format!("run_shell_command__jest{n}"),
            "run_shell_command",
            json!({"command": "npx jest src/secrets.test.js", "description": "Run the tests"}),
            format!(
                "Output: {}\nExit Code: 1\nProcess Group PGID: 4242",
                t.jest_output()
            )
        ),
        call(
            format!("run_shell_command__cp{n}"),
            "run_shell_command",
            json!({"command": format!("megg checkpoint update {}", t.checkpoint())}),
            "Output: updated\nProcess Group PGID: 4243".into()
        ),
    ]);
    vec![
        json!({"id": format!("u{n}"), "timestamp": ts, "type": "user",
            "content": [{"text": t.request_text()}]}),
        json!({"id": format!("g{n}"), "timestamp": ts, "type": "gemini", "content": "",
            "thoughts": [], "model": "gemini-2.5-flash", "toolCalls": calls}),
        json!({"id": format!("m{n}"), "timestamp": ts, "type": "gemini",
            "content": t.message_text(), "thoughts": [], "model": "gemini-2.5-flash"}),
    ]
}

/// Copilot CLI's events for a turn (as `copilot_tests.rs` and the recorded log write them).
fn copilot_lines(t: &Turn, r: &Repo) -> Vec<Value> {
    let n = t.n;
    let ts = at(n);
    let ev = |kind: &str, data: Value| {
        json!({"type": kind, "data": data, "id": format!("{kind}-{n}"), "timestamp": ts,
            "parentId": null})
    };
    let file = r.p.path(&format!("src/turn{n}.rs"));
    let bash = |id: String, command: String, code: i32, output: String| {
        [
            ev(
                "tool.execution_start",
                json!({"toolCallId": id, "toolName": "bash", "arguments": {"command": command}}),
            ),
            ev(
                "tool.execution_complete",
                json!({"toolCallId": id, "success": code == 0,
                "result": {"content": format!("{output}\n<exited with exit code {code}>")}}),
            ),
        ]
    };
    let mut lines = vec![
        ev("user.message", json!({"content": t.request_text()})),
        ev(
            "tool.execution_start",
            json!({"toolCallId": format!("c{n}"), "toolName": "create",
            "arguments": {"path": file, "file_text": "x"}}),
        ),
        ev(
            "tool.execution_complete",
            json!({"toolCallId": format!("c{n}"), "success": true,
            "fileEdits": [{"path": file, "kind": "create"}],
            "result": {"content": "Created file"}}),
        ),
    ];
    lines.extend(bash(
        format!("jest{n}"),
        "npx jest src/secrets.test.js".into(),
        1,
        t.jest_output(),
    ));
    lines.extend(bash(
        format!("cp{n}"),
        format!("megg checkpoint update {}", t.checkpoint()),
        0,
        "updated".into(),
    ));
    if let Some(summary) = &t.summary {
        lines.push(ev(
            "session.compaction_complete",
            json!({"success": true, "summaryContent": format!("<summary>{summary}</summary>")}),
        ));
    }
    lines.push(ev(
        "assistant.message",
        json!({"content": t.message_text(), "toolRequests": []}),
    ));
    lines
}

/// Every string in a JSON value.
fn strings_of(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// What one host's run proved.
struct Outcome {
    turns: usize,
    runs: usize,
    placed: usize,
    /// Samples some 12 characters of whose secret survived, with where.
    survived: Vec<(usize, String, String)>,
    /// Markers that reached nothing megg wrote, with the field their sample was in.
    missing: Vec<(usize, Field)>,
}

/// Puts every sample into `host`'s session, turn after turn, capturing after each.
fn run_host(host: Host, s: &mut Samples, windows: &Windows) -> Outcome {
    let r = Repo::new();
    let mut session = Session::new(&r, host);
    let mut n = 0;
    while !s.left.is_empty() {
        let before = s.left.len();
        let t = Turn::plan(host, n, s);
        assert!(
            s.left.len() < before,
            "{host:?}: samples fit no field: {:?}",
            s.left.iter().map(|&i| &s.all[i].text).collect::<Vec<_>>()
        );
        if n == 0 {
            session.start(&t);
        }
        session.turn(&t);
        n += 1;
    }
    session.new_session_starts("next");
    if matches!(host, Host::Claude | Host::Codex) {
        session.compacted_session_starts();
    }
    let texts: Vec<(&String, &String)> = session.seen.iter().collect();
    let survived = windows.survivors(&s.all, &texts);
    let markers: Vec<String> = s.placed.keys().map(|&i| marker(i)).collect();
    let ac = AhoCorasick::new(&markers).unwrap();
    let mut found = vec![false; markers.len()];
    for (text, _) in &texts {
        for m in ac.find_overlapping_iter(text.as_str()) {
            found[m.pattern().as_usize()] = true;
        }
    }
    let missing = s
        .placed
        .iter()
        .zip(&found)
        .filter(|(_, f)| !**f)
        .map(|((&i, &field), _)| (i, field))
        .collect();
    Outcome {
        turns: n,
        runs: session.runs,
        placed: s.placed.len(),
        survived,
        missing,
    }
}

/// Every 12 consecutive characters of every sample's secret, to find any that survived in one
/// pass over each text (the samples it names are then checked with [`survivor`]).
struct Windows {
    ac: AhoCorasick,
    /// Pattern → the samples whose cores hold it.
    owners: Vec<Vec<usize>>,
}

impl Windows {
    fn new(all: &[Sample]) -> Self {
        let mut index: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, s) in all.iter().enumerate() {
            for core in &s.cores {
                let chars: Vec<char> = core.chars().collect();
                for w in chars.windows(12) {
                    index.entry(w.iter().collect()).or_default().push(i);
                }
            }
        }
        let (patterns, owners): (Vec<String>, Vec<Vec<usize>>) = index.into_iter().unzip();
        Self {
            ac: AhoCorasick::new(&patterns).unwrap(),
            owners,
        }
    }

    /// The samples with a survivor in `texts`: (sample, the piece, where).
    fn survivors(
        &self,
        all: &[Sample],
        texts: &[(&String, &String)],
    ) -> Vec<(usize, String, String)> {
        let mut out = Vec::new();
        let mut done: BTreeSet<usize> = BTreeSet::new();
        for (text, origin) in texts {
            let suspects: BTreeSet<usize> = self
                .ac
                .find_overlapping_iter(text.as_str())
                .flat_map(|m| self.owners[m.pattern().as_usize()].iter().copied())
                .collect();
            for i in suspects {
                if done.contains(&i) {
                    continue;
                }
                if let Some(piece) = survivor(text, &all[i].cores) {
                    done.insert(i);
                    let at = text.find(&piece).unwrap_or(0);
                    let line_start = text[..at].rfind('\n').map_or(0, |k| k + 1);
                    let line_end = text[at..].find('\n').map_or(text.len(), |k| at + k);
                    let line: String = text[line_start..line_end].chars().take(300).collect();
                    out.push((i, piece, format!("{origin}: {line:?}")));
                }
            }
        }
        out
    }
}

/// SPEC §12 "Measured": for every host, every sample in its transcript and hook inputs, in a
/// field capture keeps; no 12 characters of a secret reach any file megg writes or what a
/// SessionStart injects — ≥ 95 % of rules caught (a rule counts when none of its samples
/// survives anywhere), expected all of them; and none at all of the samples the scanner finds
/// on its own (what capture owes: the scan of everything it keeps).
#[test]
#[allow(clippy::print_stderr)] // the per-host coverage, as reported (`-- --nocapture`)
fn capture_keeps_no_secret_of_any_rule_in_any_hosts_format() {
    if !super::secret_samples::present() {
        return;
    }
    let rules = secret_samples::rules();
    assert_eq!(rules.len(), 217);
    let probe = Samples::new();
    let windows = Windows::new(&probe.all);
    // Which samples the scanner redacts as they are written, alone.
    let alone: Vec<bool> = (0..probe.all.len())
        .map(|i| {
            let text = probe.text(i, Shape::Any);
            survivor(&megg::megg::secrets::redact(&text), &probe.all[i].cores).is_none()
        })
        .collect();
    let misses = alone.iter().filter(|c| !**c).count();
    let mut report = vec![format!(
        "the scanner alone leaves {misses} of {} samples",
        alone.len()
    )];
    let mut failures = Vec::new();
    for host in [Host::Claude, Host::Codex, Host::Gemini, Host::Copilot] {
        let mut s = Samples::new();
        let o = run_host(host, &mut s, &windows);
        let failed: BTreeSet<&str> = o
            .survived
            .iter()
            .map(|(i, _, _)| s.all[*i].rule.as_str())
            .collect();
        let caught = rules
            .iter()
            .filter(|r| !failed.contains(r.as_str()))
            .count();
        report.push(format!(
            "{host:?}: {caught}/{} rules caught ({:.1} %), {} samples in {} turns, {} runs of megg, {} survivors, {} markers missing",
            rules.len(),
            100.0 * caught as f64 / rules.len() as f64,
            o.placed,
            o.turns,
            o.runs,
            o.survived.len(),
            o.missing.len()
        ));
        // The line names the marker of the sample that leaked (several share a secret).
        for (i, piece, origin) in o.survived.iter().take(20) {
            report.push(format!(
                "  survived: {} {piece:?} in {origin}",
                s.all[*i].rule
            ));
        }
        for (i, field) in o.missing.iter().take(20) {
            report.push(format!(
                "  marker missing: {} ({field:?}) {:?}",
                marker(*i),
                s.all[*i].text
            ));
        }
        // Capture's own duty: every sample the scanner finds on its own is found in whatever
        // field capture kept it — one field left unredacted fails here, whatever the rate.
        let escaped: Vec<&(usize, String, String)> =
            o.survived.iter().filter(|(i, _, _)| alone[*i]).collect();
        for (i, piece, origin) in escaped.iter().take(20) {
            report.push(format!(
                "  found alone, survived capture: {} {piece:?} in {origin}",
                s.all[*i].rule
            ));
        }
        if caught * 100 < rules.len() * 95 || !o.missing.is_empty() || !escaped.is_empty() {
            failures.push(host);
        }
    }
    let report = report.join("\n");
    eprintln!("{report}");
    assert!(failures.is_empty(), "{failures:?}\n{report}");
}
