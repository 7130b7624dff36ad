//! Automatic capture (SPEC §10) end to end: the real Claude Code CLI, driven by the scripted
//! mock API (see `claude_code.rs`; Claude Code installed on first use, or the tests skip), runs megg's PreCompact, SessionEnd and Stop hooks
//! (`megg capture`); the tests assert on `state.md`, the session files under
//! `.git/megg/sessions/main/`, and on what the model receives in the next session or after
//! compaction.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Instant;

use serde_json::{Value, json};

use crate::NOW;
use crate::claude_code::{HOOK_PREFIX, Mock, Session, TIMEOUT, kill_group, texts, wait};

/// The command megg's capture hooks run (what `megg setup` will install).
const CAPTURE_COMMAND: &str = "command -v megg >/dev/null 2>&1 || exit 0; exec megg capture";

/// Adds megg's capture hooks (PreCompact, SessionEnd, Stop) to the project's
/// `.claude/settings.json`.
/// `megg setup` installed the three capture hooks, each once, with the guarded command.
fn assert_capture_hooks_installed(s: &Session) {
    let path = s.p.path(".claude/settings.json");
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for event in ["PreCompact", "SessionEnd", "Stop"] {
        assert_eq!(
            settings["hooks"][event],
            json!([{"hooks": [{"type": "command", "command": CAPTURE_COMMAND}]}]),
            "{event}"
        );
    }
}

/// A project set up by `megg setup` (which installs the capture hooks); with the harness's hand-written
/// STATE-MARKER state when `state`, else with no `state.md` at all.
fn project(state: bool) -> Option<Session> {
    let s = Session::with_setup(true)?;
    assert_capture_hooks_installed(&s);
    if !state {
        s.p.ok("", &["state", "clear"]);
        assert!(!s.p.path(".megg/state.md").exists());
    }
    Some(s)
}

fn task_create(subject: &str, description: &str) -> Value {
    json!({"type": "tool_use", "name": "TaskCreate",
           "input": {"subject": subject, "description": description,
                     "activeForm": format!("Working on: {subject}")}})
}

fn task_update(id: &str, status: &str) -> Value {
    json!({"type": "tool_use", "name": "TaskUpdate",
           "input": {"taskId": id, "status": status}})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// The session id Claude Code reports, checked to be a plain file name.
fn session_id(doc: &Value) -> String {
    let id = doc["session_id"].as_str().unwrap_or_default().to_string();
    assert!(
        !id.is_empty()
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "session_id: {doc}"
    );
    id
}

/// The session files' directory.
fn sessions_dir(s: &Session) -> std::path::PathBuf {
    s.p.path(".git/megg/sessions/main")
}

/// The session's own capture file, when there is one.
fn own_capture(s: &Session, id: &str) -> Option<String> {
    std::fs::read_to_string(sessions_dir(s).join(format!("{id}.md"))).ok()
}

/// The capture log's lines for `id`: (event, verdict word, explanation).
fn log_for(s: &Session, id: &str) -> Vec<(String, String, String)> {
    std::fs::read_to_string(sessions_dir(s).join("capture.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "a capture log line has 5 fields: {l:?}");
            (f[1] == id).then(|| (f[2].to_string(), f[3].to_string(), f[4].to_string()))
        })
        .collect()
}

fn log_text(s: &Session) -> String {
    std::fs::read_to_string(sessions_dir(s).join("capture.log")).unwrap_or_default()
}

/// A `state.md`'s frontmatter and its content (what follows the frontmatter).
pub(crate) fn split_state(text: &str) -> (String, String) {
    let rest = text
        .strip_prefix("---\n")
        .unwrap_or_else(|| panic!("no frontmatter: {text}"));
    let (front, content) = rest
        .split_once("\n---\n")
        .unwrap_or_else(|| panic!("unterminated frontmatter: {text}"));
    (
        front.to_string(),
        content.trim_start_matches('\n').to_string(),
    )
}

/// One `## ` section's body (up to the next section), as written.
pub(crate) fn section<'a>(content: &'a str, name: &str) -> &'a str {
    let head = format!("## {name}\n");
    let at = content
        .find(&head)
        .unwrap_or_else(|| panic!("no {head:?} in:\n{content}"));
    let body = &content[at + head.len()..];
    let end = body.find("\n## ").map_or(body.len(), |i| i + 1);
    &body[..end]
}

/// Checks that `text` is a capture of session `id`: `source: auto`, `session: <id>`, stamped
/// with the harness's clock.
pub(crate) fn assert_auto(text: &str, id: &str) -> String {
    assert_auto_at(text, id, NOW)
}

fn assert_auto_at(text: &str, id: &str, now: &str) -> String {
    let (front, content) = split_state(text);
    let lines: Vec<&str> = front.lines().collect();
    assert!(lines.contains(&"source: auto"), "{text}");
    assert!(lines.contains(&format!("session: {id}").as_str()), "{text}");
    assert!(
        lines.contains(&format!("updated: {now}").as_str()),
        "{text}"
    );
    content
}

/// The SessionStart hook's context in a request: the text after [`HOOK_PREFIX`] (the last
/// one, when a compaction added another).
fn hook_text(body: &Value) -> String {
    texts(body)
        .iter()
        .filter_map(|t| {
            t.find(HOOK_PREFIX)
                .map(|i| t[i + HOOK_PREFIX.len()..].to_string())
        })
        .next_back()
        .unwrap_or_else(|| panic!("no SessionStart hook context in {:#?}", texts(body)))
}

/// A multi-turn session: `claude -p --input-format stream-json --output-format stream-json`
/// with its input kept open, its output read line by line. Killed with its process group when
/// dropped unfinished.
struct Stream {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<Value>,
}

impl Stream {
    fn start(s: &Session, mock: &Mock, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut cmd = s.command(Some(mock));
        cmd.envs(env.iter().copied())
            .args([
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--verbose",
            ])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(File::create(s.p.path("claude-stream.stderr")).unwrap());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child: Some(child),
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, text: &str) {
        let line = json!({"type": "user", "message": {"role": "user", "content": text}});
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads output until a message matching `want` (returned); fails after [`TIMEOUT`].
    fn until(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let left = TIMEOUT.saturating_sub(start.elapsed());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let Ok(v) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    self.seen.push(v.clone());
                    if want(&v) {
                        return v;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {TIMEOUT:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the session ended before {what}: {:#?}", self.seen)
                }
            }
        }
    }

    /// Sends one turn and waits for its `result`, which must not be an error.
    fn turn(&mut self, text: &str) -> Value {
        self.send(text);
        let result = self.until("result", |v| v["type"] == "result");
        assert_eq!(result["is_error"], false, "{result}");
        result
    }

    /// Closes the input and waits for the session to end (SessionEnd runs).
    fn finish(mut self) -> Vec<Value> {
        drop(self.stdin.take());
        let status = wait(self.child.take().unwrap(), "claude -p (stream-json)");
        self.seen.extend(
            self.lines
                .iter()
                .filter_map(|l| serde_json::from_str::<Value>(&l).ok()),
        );
        assert!(status.success(), "{status}: {:#?}", self.seen);
        std::mem::take(&mut self.seen)
    }

    /// SIGKILL to the whole process group: no SessionEnd, no cleanup.
    fn kill(mut self) {
        let mut child = self.child.take().unwrap();
        kill_group(&child);
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            kill_group(&child);
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn hook_ran(seen: &[Value], name: &str) -> bool {
    seen.iter().any(|v| v["hook_name"] == name)
}

/// SPEC §10: a session that kept a task list and edited a file leaves a handoff in
/// `state.md` (`source: auto`, its session id) whose Next holds the unfinished task — and the
/// next session starts with it.
#[test]
fn a_session_with_tasks_and_edits_hands_off_to_the_next() {
    let Some(s) = project(false) else { return };
    let file = s.p.path("src/parser.rs");
    let mock = Mock::start(
        s.p.root(),
        &json!([
            [task_create("Write the config parser DONE-TASK", "Parse megg.toml\nwith serde")],
            [task_create("Wire the parser into main NEXT-TASK", "Call it at startup\nand report errors")],
            [task_update("1", "completed")],
            [{"type": "tool_use", "name": "Write",
              "input": {"file_path": file.to_str().unwrap(), "content": "pub fn parse() {}\n"}}],
            [text("Parser written; wiring is next.")]
        ]),
    );
    let prompt = "Build the config parser";
    let result = s.claude(
        &mock,
        prompt,
        &["--allowedTools", "TaskCreate,TaskUpdate,Write"],
        &[],
    );
    let id = session_id(&result);
    assert_eq!(result["permission_denials"], json!([]), "{result}");
    assert_eq!(s.p.read("src/parser.rs"), "pub fn parse() {}\n");

    let state = s.p.read(".megg/state.md");
    let content = assert_auto(&state, &id);
    assert_eq!(section(&content, "Working On"), format!("{prompt}\n\n"));
    assert_eq!(
        section(&content, "Progress"),
        "- [x] Write the config parser DONE-TASK\n\
         - Files changed (newest first):\n  - src/parser.rs\n\n"
    );
    assert_eq!(
        section(&content, "Next"),
        "- [ ] Wire the parser into main NEXT-TASK — Call it at startup\n\n"
    );
    let context = section(&content, "Context");
    assert!(context.starts_with("- Branch: main at "), "{context}");
    assert!(
        context.contains("  > Parser written; wiring is next.\n"),
        "{context}"
    );
    // The session's own file holds the same capture, and the log says it was promoted.
    assert_eq!(own_capture(&s, &id).as_deref(), Some(state.as_str()));
    let log = log_for(&s, &id);
    assert!(
        log.iter().any(|(e, w, _)| e == "Stop" && w == "promoted"),
        "{}",
        log_text(&s)
    );

    // The next session's model reads the unfinished task in megg's SessionStart context.
    let mock = Mock::start(s.p.root(), &json!([]));
    let next = s.claude(&mock, "what is next?", &[], &[]);
    assert_ne!(session_id(&next), id);
    let first = &mock.agent_requests()[0];
    let hook = hook_text(first);
    assert!(
        hook.contains("- [ ] Wire the parser into main NEXT-TASK — Call it at startup"),
        "{hook}"
    );
    // Answering a question hands nothing off: the handoff stays.
    assert_eq!(s.p.read(".megg/state.md"), state);
}

/// SPEC §10: a handoff written by hand during the session (here through the MCP tool) is kept;
/// the capture stays in the session's own file.
#[test]
fn a_hand_written_handoff_is_kept() {
    let Some(s) = project(true) else { return };
    let hand = "## Working On\nHAND-WRITTEN handoff\n\n## Next\nReview the migration";
    let mock = Mock::start(
        s.p.root(),
        &json!([
            [task_create("Migrate the orders table KEEP-TASK", "Add the status column")],
            [{"type": "tool_use", "name": "mcp__megg__state", "input": {"content": hand}}],
            [text("Saved the handoff.")]
        ]),
    );
    let result = s.claude(
        &mock,
        "migrate the orders table",
        &["--allowedTools", "TaskCreate,mcp__megg__state"],
        &[],
    );
    let id = session_id(&result);
    assert_eq!(result["permission_denials"], json!([]), "{result}");

    let state = s.p.read(".megg/state.md");
    assert!(state.ends_with(hand), "{state}");
    assert!(!state.contains("source: auto"), "{state}");
    assert!(!state.contains("KEEP-TASK"), "{state}");

    let capture = own_capture(&s, &id).unwrap_or_else(|| panic!("no capture: {}", log_text(&s)));
    let content = assert_auto(&capture, &id);
    assert_eq!(
        section(&content, "Next"),
        "- [ ] Migrate the orders table KEEP-TASK — Add the status column\n\n"
    );
    let log = log_for(&s, &id);
    assert!(!log.is_empty(), "{}", log_text(&s));
    assert!(
        log.iter()
            .all(|(_, w, _)| w == "written" || w == "unchanged"),
        "{}",
        log_text(&s)
    );
    assert!(
        log[0]
            .2
            .contains("state.md was written during this session"),
        "{}",
        log_text(&s)
    );
}

/// SPEC §10: a session with nothing to hand off (no tasks, no edits) writes nothing — though
/// its capture hooks ran.
#[test]
fn a_session_that_only_answered_writes_nothing() {
    let Some(s) = project(false) else { return };
    let mock = Mock::start(s.p.root(), &json!([[text("Four.")]]));
    let result = s.claude(&mock, "what is 2+2?", &[], &[]);
    let id = session_id(&result);
    assert_eq!(result["result"], "Four.");

    assert!(!s.p.path(".megg/state.md").exists());
    assert_eq!(own_capture(&s, &id), None);
    // Stop runs before the result is printed; SessionEnd usually logs too, but Claude Code
    // gives SessionEnd hooks only 1.5 s (CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS) and may cut
    // it on a loaded machine, so it is not required.
    let log = log_for(&s, &id);
    assert!(
        log.iter().any(|(e, _, _)| e == "Stop"),
        "the capture hooks ran: {}",
        log_text(&s)
    );
    assert!(
        log.iter().all(|(_, w, _)| w == "nothing"),
        "{}",
        log_text(&s)
    );
    // With a state.md present it is left as it was.
    let Some(s) = project(true) else { return };
    let before = s.p.read(".megg/state.md");
    let mock = Mock::start(s.p.root(), &json!([[text("Four.")]]));
    let result = s.claude(&mock, "what is 2+2?", &[], &[]);
    let id = session_id(&result);
    assert_eq!(s.p.read(".megg/state.md"), before);
    assert_eq!(own_capture(&s, &id), None);
    assert!(!log_for(&s, &id).is_empty(), "{}", log_text(&s));
}

/// SPEC §10 "Compaction and resume": after `/compact` the SessionStart:compact context is the
/// session's own capture — its task list — even when `state.md` was since written by someone
/// else.
#[test]
fn after_compact_the_model_gets_its_own_task_list() {
    let Some(s) = project(true) else { return };
    let mock = Mock::start(
        s.p.root(),
        &json!([
            // One assistant message, so that the mock (which picks the turn by the number
            // of assistant messages) answers the first request after compaction with text.
            [
                task_create("Index the catalogue COMPACT-A", "Build the search index"),
                task_create("Tune the ranking COMPACT-B", "Boost exact matches")
            ],
            [text("Planned.")]
        ]),
    );
    let mut stream = Stream::start(&s, &mock, &["--allowedTools", "TaskCreate"], &[]);
    let first = stream.turn("plan the search work");
    let id = session_id(&first);
    // Another terminal writes the handoff meanwhile: state.md is no longer this session's.
    s.p.ok(
        "",
        &[
            "state",
            "write",
            "--content",
            "## Working On\nOTHER-HANDOFF",
        ],
    );
    stream.turn("/compact");
    stream.turn("after SECOND-TURN");
    let seen = stream.finish();
    assert!(hook_ran(&seen, "SessionStart:compact"), "{seen:#?}");

    let requests = mock.agent_requests();
    let after = requests
        .iter()
        .find(|r| texts(r).join("\n").contains("after SECOND-TURN"))
        .expect("a request after the compaction");
    let hook = hook_text(after);
    // The two creations may run in either order: compare the open tasks as a set.
    let mut next: Vec<&str> = section(&hook, "Next").lines().collect();
    next.sort_unstable();
    assert_eq!(
        next,
        [
            "",
            "- [ ] Index the catalogue COMPACT-A — Build the search index",
            "- [ ] Tune the ranking COMPACT-B — Boost exact matches",
        ],
        "the session's own task list after /compact:\n{hook}"
    );
    assert!(
        hook.contains(&format!("captured automatically from session {id}")),
        "{hook}"
    );
    assert!(!hook.contains("OTHER-HANDOFF"), "{hook}");
    assert!(s.p.read(".megg/state.md").contains("OTHER-HANDOFF"));
    let capture = own_capture(&s, &id).unwrap();
    assert!(capture.contains("COMPACT-B"), "{capture}");
    let log = log_for(&s, &id);
    assert!(
        log.iter().any(|(e, _, _)| e == "PreCompact"),
        "{}",
        log_text(&s)
    );
}

/// SPEC §10: a session killed after a turn (no SessionEnd) still leaves the handoff the Stop
/// hook captured after that turn.
#[test]
fn a_killed_session_still_hands_off() {
    let Some(s) = project(false) else { return };
    let mock = Mock::start(
        s.p.root(),
        &json!([
            [task_create(
                "Refactor the billing module KILL-TASK",
                "Split invoices from payments"
            )],
            [text("Task noted.")]
        ]),
    );
    let mut stream = Stream::start(&s, &mock, &["--allowedTools", "TaskCreate"], &[]);
    let result = stream.turn("refactor billing");
    let id = session_id(&result);
    stream.kill();

    let state = std::fs::read_to_string(s.p.path(".megg/state.md"))
        .unwrap_or_else(|_| panic!("no state.md: {}", log_text(&s)));
    let content = assert_auto(&state, &id);
    assert_eq!(
        section(&content, "Next"),
        "- [ ] Refactor the billing module KILL-TASK — Split invoices from payments\n\n"
    );
    // The turn's last message reaches the handoff although Claude Code writes it to the
    // transcript only after the Stop hook ran: the hook input carries it.
    assert!(
        content.contains("- Last message from the assistant:\n  > Task noted.\n"),
        "{content}"
    );
    let log = log_for(&s, &id);
    assert!(
        log.iter().all(|(e, _, _)| e == "Stop"),
        "only Stop ran: {}",
        log_text(&s)
    );
}

/// SPEC §10 "two sessions in one folder": the first to capture owns `state.md`; the other's
/// capture stays in its session file, and `megg context` names it.
#[test]
fn parallel_sessions_keep_both_handoffs() {
    let Some(s) = project(false) else { return };
    // B starts first and waits; its turn comes after A's whole session, so its clock reads
    // later (with one fixed clock both handoffs carry the same second, and `context` names
    // only a capture strictly newer than state.md).
    const LATER: &str = "2026-11-22T12:10:00Z";
    let mock_b = Mock::start(
        s.p.root(),
        &json!([
            [text("Hello.")],
            [task_create("Write the B-TASK report", "Summarise the logs")],
            [text("Noted.")]
        ]),
    );
    let mut b = Stream::start(
        &s,
        &mock_b,
        &["--allowedTools", "TaskCreate"],
        &[("MEGG_NOW", LATER)],
    );
    let hello = b.turn("hello");
    let id_b = session_id(&hello);
    assert!(
        sessions_dir(&s).join(format!("{id_b}.start")).exists(),
        "B's SessionStart recorded its start"
    );

    let mock_a = Mock::start(
        s.p.root(),
        &json!([
            [task_create(
                "Fix the A-TASK login bug",
                "Reset the session cookie"
            )],
            [text("Noted.")]
        ]),
    );
    let a = s.claude(
        &mock_a,
        "fix the login bug",
        &["--allowedTools", "TaskCreate"],
        &[],
    );
    let id_a = session_id(&a);
    let state_a = s.p.read(".megg/state.md");
    let content = assert_auto(&state_a, &id_a);
    assert_eq!(
        section(&content, "Next"),
        "- [ ] Fix the A-TASK login bug — Reset the session cookie\n\n"
    );
    assert_eq!(own_capture(&s, &id_a).as_deref(), Some(state_a.as_str()));

    b.turn("write the report");
    b.finish();

    assert_eq!(
        s.p.read(".megg/state.md"),
        state_a,
        "A's handoff stays in state.md"
    );
    let capture_b = own_capture(&s, &id_b).unwrap_or_else(|| panic!("{}", log_text(&s)));
    let content_b = assert_auto_at(&capture_b, &id_b, LATER);
    assert_eq!(
        section(&content_b, "Next"),
        "- [ ] Write the B-TASK report — Summarise the logs\n\n"
    );
    let log = log_for(&s, &id_b);
    assert!(
        log.iter().any(|(_, w, _)| w == "written"),
        "{}",
        log_text(&s)
    );
    assert!(
        log.iter().all(|(_, w, _)| w != "promoted"),
        "{}",
        log_text(&s)
    );

    let context = String::from_utf8(
        s.p.megg("")
            .env("MEGG_NOW", LATER)
            .arg("context")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let path = sessions_dir(&s).join(format!("{id_b}.md"));
    assert!(
        context.contains(&format!(
            "**A parallel session has a newer handoff.** Session {id_b} captured one at"
        )) && context.contains(&format!("read {}", path.display())),
        "{context}"
    );
}
