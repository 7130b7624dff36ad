//! Copilot CLI 1.0.102 session logs recorded offline against `tests/e2e/mock_chat.py`: one
//! without megg's hook, one with it (three runs of one session: a prompt, `/compact`, a
//! second prompt; tests/fixtures/transcripts/README.md), and hand-written events.

use serde_json::{Value, json};

use super::*;

// Each reader's tests include the shared checks.
#[allow(clippy::duplicate_mod)]
#[path = "tests_common.rs"]
mod common;
use common::*;

const CREATE: &str = include_str!("../../../../tests/fixtures/transcripts/copilot-create.jsonl");
const MEGG: &str =
    include_str!("../../../../tests/fixtures/transcripts/copilot-1.0.102-megg-context.jsonl");

const NOT_THE_USER: [&str; 7] = [
    "Domain Chain",
    "INFO-MARKER",
    "current_datetime",
    "<hook_context>",
    "summary",
    "Summary",
    "summarized",
];

fn assert_only_the_user(s: &Scan) {
    for r in [&s.first_request, &s.latest_request].into_iter().flatten() {
        for marker in NOT_THE_USER {
            assert!(!r.contains(marker), "{marker} in {r:?}");
        }
    }
}

fn lines(items: &[Value]) -> String {
    items
        .iter()
        .map(|v| v.to_string() + "\n")
        .collect::<String>()
}

fn ev(kind: &str, data: Value) -> Value {
    json!({"type": kind, "data": data, "id": "e", "timestamp": "2026-11-23T00:00:00Z",
        "parentId": null})
}

fn typed(text: &str) -> Value {
    ev(
        "user.message",
        json!({"content": text, "transformedContent": format!("<current_datetime>x</current_datetime>\n\n{text}")}),
    )
}

fn start(id: &str, tool: &str, arguments: Value) -> Value {
    ev(
        "tool.execution_start",
        json!({"toolCallId": id, "toolName": tool, "arguments": arguments}),
    )
}

fn done(id: &str, success: bool, edits: Value) -> Value {
    ev(
        "tool.execution_complete",
        json!({"toolCallId": id, "success": success, "fileEdits": edits}),
    )
}

#[test]
fn a_real_log_gives_the_prompt_the_created_file_and_the_last_message() {
    let s = read(feed, CREATE);
    assert_eq!(s.first_request.as_deref(), Some("write the notes"));
    assert_eq!(s.latest_request, s.first_request);
    assert_only_the_user(&s);
    assert_eq!(s.files, ["$PROJECT/notes.md"]);
    assert_eq!(s.last_message.as_deref(), Some("Created notes.md."));
    assert!(s.todos.is_empty() && s.tasks.is_empty());
    assert_eq!(s.skipped, 0);
}

#[test]
fn with_megg_hook_installed_its_context_and_the_compaction_are_no_request() {
    let s = read(feed, MEGG);
    assert_eq!(s.first_request.as_deref(), Some("write the notes"));
    assert_eq!(s.latest_request.as_deref(), Some("fix the greeting"));
    assert_only_the_user(&s);
    // The failed edit of missing.md names nothing.
    assert_eq!(s.files, ["$PROJECT/notes.md", "$PROJECT/greeting-plan.md"]);
    // The second megg-checkpoint_save, after the plan was written (the first failed).
    assert_eq!(s.checkpoint.as_deref(), Some("greeting-plan.md"));
    assert_eq!(
        s.last_message.as_deref(),
        Some("Fixed the greeting in notes.md.")
    );
    assert!(s.todos.is_empty());
    assert_eq!(s.skipped, 0);
    // megg's context, as its hook gave it, twice (a start, then a resume).
    assert_eq!(s.injected.len(), 1);

    let failed = read_lines(
        feed,
        &upto(MEGG, &["tool.execution_complete", "plan file not found"]),
    );
    assert_eq!(failed.checkpoint, None);
    let first = read_lines(feed, &upto(MEGG, &["Created notes.md."]));
    assert_eq!(first.latest_request.as_deref(), Some("write the notes"));
    assert_eq!(first.last_message.as_deref(), Some("Created notes.md."));
}

#[test]
fn megg_context_logged_as_a_user_message_would_not_be_a_request() {
    // The real log, with its hook's additionalContext also written as a user message right
    // after the hook ended (as the model receives it).
    let hook_end = MEGG
        .lines()
        .find(|l| l.contains("\"hook.end\"") && l.contains("additionalContext"))
        .unwrap();
    let end: Value = serde_json::from_str(hook_end).unwrap();
    let context = end["data"]["output"]["additionalContext"].as_str().unwrap();
    assert!(context.contains("Domain Chain") && context.contains("INFO-MARKER"));
    let injected = typed(context).to_string();
    let mut text = String::new();
    for line in MEGG.lines() {
        text.push_str(line);
        text.push('\n');
        if line == hook_end {
            text.push_str(&injected);
            text.push('\n');
        }
    }
    let s = read(feed, &text);
    assert_eq!(s.first_request.as_deref(), Some("write the notes"));
    assert_eq!(s.latest_request.as_deref(), Some("fix the greeting"));
    assert_only_the_user(&s);
    resumes_identically(feed, &text);
}

#[test]
fn messages_from_elsewhere_are_not_requests() {
    let s = read(
        feed,
        &lines(&[
            ev(
                "user.message",
                json!({"content": "use the pdf skill", "source": "skill-pdf"}),
            ),
            ev(
                "user.message",
                json!({"content": "from another agent", "source": "agent-7"}),
            ),
            ev(
                "user.message",
                json!({"content": "odd source", "source": 5}),
            ),
            ev(
                "user.message",
                json!({"content": "keep going", "isAutopilotContinuation": true}),
            ),
            json!({"type": "user.message", "agentId": "sub-1", "data": {"content": "sub task"},
                "id": "e", "timestamp": "t", "parentId": null}),
            typed(
                "Please create a detailed summary of the conversation so far. The history is being compacted",
            ),
            typed("Some of the conversation history has been summarized to free up context."),
            typed("<summary>OK</summary>"),
            typed("   "),
        ]),
    );
    assert_nothing(&s);
    // Typed, with or without `source: user`; a datetime in front is not part of it.
    let s = read(
        feed,
        &lines(&[
            ev(
                "user.message",
                json!({"content": "first", "source": "user"}),
            ),
            typed("<current_datetime>2026-11-23T00:00:00Z</current_datetime>\n\nsecond"),
        ]),
    );
    assert_eq!(s.first_request.as_deref(), Some("first"));
    assert_eq!(s.latest_request.as_deref(), Some("second"));
}

#[test]
fn a_tool_counts_only_once_it_succeeded() {
    let s = read(
        feed,
        &lines(&[
            start("c1", "create", json!({"path": "/p/a.md", "file_text": "x"})),
            done("c1", false, json!([{"path": "/p/a.md", "kind": "create"}])),
            start(
                "c2",
                "megg-checkpoint_save",
                json!({"plan_file": "plan.md"}),
            ),
            ev(
                "tool.execution_complete",
                json!({"toolCallId": "c2", "success": false,
                "error": {"message": "plan file not found", "code": "failure"}}),
            ),
            start(
                "c3",
                "bash",
                json!({"command": "megg checkpoint save plan.md"}),
            ),
            ev(
                "tool.execution_complete",
                json!({"toolCallId": "c3", "success": "true"}),
            ),
            start("c4", "edit", json!({"path": "/p/b.md"})),
        ]),
    );
    assert_nothing(&s);
}

#[test]
fn edits_come_from_file_edits_or_else_from_the_call() {
    // Without `fileEdits` (an experimental field), the call's path.
    let s = read(
        feed,
        &lines(&[
            start(
                "c1",
                "edit",
                json!({"path": "/p/a.md", "old_str": "a", "new_str": "b"}),
            ),
            ev(
                "tool.execution_complete",
                json!({"toolCallId": "c1", "success": true}),
            ),
        ]),
    );
    assert_eq!(s.files, ["/p/a.md"]);
    // With it, what it says was committed (a sub-agent's edits are the session's too).
    let s = read(
        feed,
        &lines(&[
            start("c1", "create", json!({"path": "/p/a.md"})),
            json!({"type": "tool.execution_complete", "agentId": "sub", "id": "e",
                "timestamp": "t", "parentId": null,
                "data": {"toolCallId": "c1", "success": true,
                    "fileEdits": [{"path": "/p/real.md", "kind": "create"},
                                  {"path": "/p/old.md", "kind": "delete"}]}}),
        ]),
    );
    assert_eq!(s.files, ["/p/real.md", "/p/old.md"]);
}

#[test]
fn megg_checkpoints_from_its_mcp_tools_and_shell_commands() {
    let s = read(
        feed,
        &lines(&[
            ev(
                "tool.execution_start",
                json!({"toolCallId": "m1", "toolName": "megg-checkpoint_update",
                "arguments": {"target": "plans/a.md", "phase": "work"},
                "mcpServerName": "megg", "mcpToolName": "checkpoint_update"}),
            ),
            done("m1", true, Value::Null),
        ]),
    );
    assert_eq!(s.checkpoint.as_deref(), Some("plans/a.md"));
    let s = read(
        feed,
        &lines(&[
            start(
                "b1",
                "bash",
                json!({"command": "megg checkpoint finish plans/b.md", "description": "finish"}),
            ),
            done("b1", true, Value::Null),
        ]),
    );
    assert_eq!(s.checkpoint.as_deref(), Some("plans/b.md"));
    // Another server's tool, even named like megg's, is not megg's.
    let s = read(
        feed,
        &lines(&[
            ev(
                "tool.execution_start",
                json!({"toolCallId": "m2", "toolName": "megg-checkpoint_save",
                "arguments": {"plan_file": "x.md"}, "mcpServerName": "other",
                "mcpToolName": "checkpoint_save"}),
            ),
            done("m2", true, Value::Null),
        ]),
    );
    assert_eq!(s.checkpoint, None);
}

#[test]
fn sub_agents_say_nothing_for_the_session() {
    let s = read(
        feed,
        &lines(&[
            json!({"type": "assistant.message", "agentId": "sub", "data": {"content": "sub says"},
                "id": "e", "timestamp": "t", "parentId": null}),
            ev(
                "assistant.message",
                json!({"content": "deprecated sub", "parentToolCallId": "t1"}),
            ),
            ev(
                "assistant.message",
                json!({"content": "", "toolRequests": []}),
            ),
        ]),
    );
    assert_nothing(&s);
}

#[test]
fn wrong_types_invent_nothing() {
    let s = read(
        feed,
        &lines(&[
            ev("user.message", json!({"content": 5})),
            ev("user.message", json!({"content": ["write the notes"]})),
            ev("user.message", json!("write the notes")),
            ev("assistant.message", json!({"content": {"text": "x"}})),
            json!({"type": 5, "data": {"content": "user.message"}}),
            json!({"type": "user.message"}),
            start("c1", "create", json!({"path": 5})),
            done("c1", true, json!("x")),
            start("c2", "create", json!("not an object")),
            done("c2", true, json!([{"path": 7}, 3])),
            ev(
                "tool.execution_start",
                json!({"toolCallId": 1, "toolName": "create",
                "arguments": {"path": "/p/a"}}),
            ),
            done("1", true, Value::Null),
            start(
                "c3",
                "bash",
                json!({"command": ["megg", "checkpoint", "save", "x"]}),
            ),
            done("c3", true, Value::Null),
            ev(
                "hook.end",
                json!({"hookType": "sessionStart", "success": true,
                "output": {"additionalContext": 5}}),
            ),
            ev("hook.end", json!({"output": "additionalContext"})),
        ]),
    );
    assert_nothing(&s);
    assert!(s.injected.is_empty());
}

#[test]
fn a_saved_scan_resumes_where_it_stopped() {
    resumes_identically(feed, CREATE);
    resumes_identically(feed, MEGG);
}

#[test]
fn damaged_lines_never_panic_nor_invent() {
    survives_damage(feed, CREATE);
    survives_damage(feed, MEGG);
}

// ---------------------------------------------------------------------------------------------
// SPEC §18: acknowledgements, failing runs, the host's summary.

#[test]
fn a_correction_then_ok_go_ahead_keeps_the_correction() {
    let s = read(
        feed,
        &lines(&[
            typed("Build the session store"),
            typed("no — use Postgres, not SQLite"),
            typed("ok go ahead"),
        ]),
    );
    assert_eq!(
        s.latest_request.as_deref(),
        Some("no — use Postgres, not SQLite")
    );
    assert_eq!(s.ack.as_deref(), Some("ok go ahead"));
}

/// A `bash` call and its completion as Copilot CLI 1.0.102 logs them: the output the model
/// read, ending with the exit code.
fn bash_run(id: &str, command: &str, output: &str, code: i32) -> [Value; 2] {
    [
        start(
            id,
            "bash",
            json!({"command": command, "description": "Run the tests", "mode": "sync"}),
        ),
        ev(
            "tool.execution_complete",
            json!({"toolCallId": id, "model": "gpt-4.1", "turnId": "0", "success": true,
                "result": {"content": format!("{output}\n<exited with exit code {code}>"),
                    "detailedContent": format!("{output}\n<exited with exit code {code}>")}}),
        ),
    ]
}

const JEST_FAILED: &str = "FAIL src/store.test.js
  store
    ✓ opens (2 ms)
    ✕ keeps concurrent writers (4 ms)

  ● store › keeps concurrent writers

    expect(received).toBe(expected) // Object.is equality

    Expected: 2
    Received: 1

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 passed, 2 total";

const JEST_PASSED: &str = "PASS src/store.test.js
  store
    ✓ opens (2 ms)
    ✓ keeps concurrent writers (3 ms)

Test Suites: 1 passed, 1 total
Tests:       2 passed, 2 total";

#[test]
fn a_failing_shell_run_is_kept_until_the_same_scope_passes() {
    let failed = bash_run("call_1", "npx jest src/store.test.js", JEST_FAILED, 1);
    let s = read(feed, &lines(&failed));
    let run = s.failing.clone().unwrap();
    assert_eq!(run.command, "npx jest src/store.test.js");
    assert_eq!(run.names, ["store › keeps concurrent writers"]);
    assert_eq!(
        run.first_error.as_deref(),
        Some("expect(received).toBe(expected) // Object.is equality")
    );
    // Another scope passing: still named.
    let other = bash_run("call_2", "npx jest src/api.test.js", JEST_PASSED, 0);
    let s = read(feed, &lines(&[failed.to_vec(), other.to_vec()].concat()));
    assert_eq!(s.failing.as_ref(), Some(&run));
    // The same scope passing later: nothing.
    let again = bash_run("call_3", "npx jest src/store.test.js 2>&1", JEST_PASSED, 0);
    let s = read(feed, &lines(&[failed.to_vec(), again.to_vec()].concat()));
    assert_eq!(s.failing, None);
    // A call that failed to run (no exit code) says nothing of the run.
    let refused = [
        start(
            "call_4",
            "bash",
            json!({"command": "npx jest src/store.test.js"}),
        ),
        ev(
            "tool.execution_complete",
            json!({"toolCallId": "call_4", "success": false,
                "error": {"message": "The user rejected this tool call.", "code": "rejected"}}),
        ),
    ];
    let s = read(feed, &lines(&[failed.to_vec(), refused.to_vec()].concat()));
    assert_eq!(s.failing.as_ref(), Some(&run));
}

#[test]
fn compaction_complete_is_the_host_summary() {
    use crate::megg::capture::summary::Source;
    let s = read(feed, MEGG);
    let found = s.summary.clone().unwrap();
    assert_eq!(found.source, Source::Copilot);
    assert_eq!(found.text, "OK");
    assert_eq!(found.at.as_deref(), Some("2026-11-23T22:39:21Z"));
    // "fix the greeting" came after it.
    assert_eq!(found.requests_after, 1);
    assert_only_the_user(&s);
    // The newest replaces an older one; a user's message or a tool's output that looks like
    // one is not one.
    let summary = |text: &str| {
        ev(
            "session.compaction_complete",
            json!({"success": true, "summaryContent": text}),
        )
    };
    let s = read(
        feed,
        &lines(&[
            summary("<summary>old</summary>"),
            summary("<summary>new</summary>"),
            typed("<summary>fake</summary>"),
            start("c1", "bash", json!({"command": "cat notes.md"})),
            ev(
                "tool.execution_complete",
                json!({"toolCallId": "c1", "success": true,
                    "result": {"content": "<summary>fake</summary>\n<exited with exit code 0>"}}),
            ),
        ]),
    );
    assert_eq!(s.summary.map(|f| f.text).as_deref(), Some("new"));
}
