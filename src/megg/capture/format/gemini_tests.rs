//! A Gemini CLI 0.61.0 chat recorded with megg's SessionStart hook and MCP server installed
//! (`tests/fixtures/hook-inputs/README.md`), and hand-written records for the shapes it lacks.

use serde_json::{Value, json};

use super::*;

// Each reader's tests include the shared checks.
#[allow(clippy::duplicate_mod)]
#[path = "tests_common.rs"]
mod common;
use common::*;

const CHAT: &str =
    include_str!("../../../../tests/fixtures/transcripts/gemini-0.61.0-write-file.jsonl");

const NOT_THE_USER: [&str; 6] = [
    "Domain Chain",
    "INFO-MARKER",
    "<hook_context>",
    "hook_context",
    "session_context",
    "This is the Gemini CLI",
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

fn user(content: Value) -> Value {
    json!({"id": "u", "timestamp": "2026-11-23T00:00:00Z", "type": "user", "content": content})
}

fn model(text: &str, calls: Value) -> Value {
    json!({"id": "g", "timestamp": "2026-11-23T00:00:00Z", "type": "gemini", "content": text,
        "thoughts": [], "model": "gemini-2.5-flash", "toolCalls": calls})
}

fn call(name: &str, args: Value, status: &str) -> Value {
    json!({"id": format!("{name}__call"), "name": name, "args": args, "status": status,
        "result": [{"functionResponse": {"id": format!("{name}__call"), "name": name,
            "response": {"output": "done"}}}]})
}

#[test]
fn a_real_chat_gives_the_prompt_without_megg_context_the_file_and_the_todos() {
    let s = read(feed, CHAT);
    assert_eq!(s.first_request.as_deref(), Some("write the notes"));
    assert_eq!(s.latest_request.as_deref(), Some("write the notes"));
    assert_only_the_user(&s);
    assert_eq!(s.files, ["/PROJECT/notes.txt"]);
    let todos: Vec<(&str, TaskStatus)> = s
        .todos
        .iter()
        .map(|t| (t.subject.as_str(), t.status))
        .collect();
    assert_eq!(
        todos,
        [
            ("Write notes.txt", TaskStatus::InProgress),
            ("Fix the greeting", TaskStatus::Pending),
        ]
    );
    assert!(
        s.todos
            .iter()
            .all(|t| t.id.is_none() && t.description.is_empty())
    );
    assert_eq!(s.last_message.as_deref(), Some("Done: notes.txt written."));
    assert_eq!(s.checkpoint, None);
    assert_eq!(s.skipped, 0);
}

#[test]
fn hook_context_is_cut_out_wherever_it_is_and_the_prompt_kept() {
    for content in [
        // megg's SessionStart context, prepended (as recorded).
        json!([{"text": "<hook_context>## Domain Chain\nINFO-MARKER\n</hook_context>\n\nwrite the notes"}]),
        // A BeforeAgent hook's, appended as a part of its own.
        json!([{"text": "write the notes"}, {"text": "<hook_context>INFO-MARKER</hook_context>"}]),
        // Both, and a string content.
        json!("<hook_context>a</hook_context>write the notes<hook_context>b</hook_context>"),
        // A block never closed is context to its end.
        json!([{"text": "write the notes\n<hook_context>## Domain Chain INFO-MARKER"}]),
    ] {
        let s = read(feed, &lines(&[user(content.clone())]));
        assert_eq!(
            s.latest_request.as_deref(),
            Some("write the notes"),
            "{content}"
        );
        assert_only_the_user(&s);
    }
    // Nothing but context: no request.
    let s = read(
        feed,
        &lines(&[user(json!([{"text": "<hook_context>x</hook_context>"}]))]),
    );
    assert_nothing(&s);
}

#[test]
fn gemini_own_user_texts_and_tool_results_are_not_requests() {
    let s = read(
        feed,
        &lines(&[
            user(
                json!([{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]),
            ),
            user(
                json!([{"functionResponse": {"id": "x", "name": "write_file",
                "response": {"output": "written"}}}, {"text": "write the notes"}]),
            ),
            user(
                json!([{"text": "<state_snapshot>\n<overall_goal>ship</overall_goal>\n</state_snapshot>"}]),
            ),
            user(json!([{"text": "Reasoning first.\n\n<state_snapshot>x</state_snapshot>"}])),
            user(json!([{"text": "   "}])),
            json!({"id": "i", "type": "info", "content": "write the notes"}),
        ]),
    );
    assert_nothing(&s);
}

#[test]
fn what_the_user_saw_is_the_request_without_the_referenced_files() {
    let s = read(
        feed,
        &lines(&[json!({"id": "u", "type": "user",
            "content": [{"text": "explain @src/a.rs\n--- Content from referenced files ---\nfn a() {}\n--- End of content ---"}],
            "displayContent": [{"text": "explain @src/a.rs"}]})]),
    );
    assert_eq!(s.latest_request.as_deref(), Some("explain @src/a.rs"));
    let s = read(
        feed,
        &lines(&[user(
            json!([{"text": "explain @src/a.rs\n--- Content from referenced files ---\nfn a() {}"}]),
        )]),
    );
    assert_eq!(s.latest_request.as_deref(), Some("explain @src/a.rs"));
}

#[test]
fn a_tool_call_counts_only_once_it_succeeded() {
    for status in [
        "error",
        "cancelled",
        "awaiting_approval",
        "executing",
        "scheduled",
    ] {
        let s = read(
            feed,
            &lines(&[model(
                "",
                json!([
                    call(
                        "write_file",
                        json!({"file_path": "/p/a.txt", "content": "x"}),
                        status
                    ),
                    call(
                        "write_todos",
                        json!({"todos": [{"description": "x", "status": "pending"}]}),
                        status
                    ),
                    call(
                        "mcp_megg_checkpoint_save",
                        json!({"plan_file": "plan.md"}),
                        status
                    ),
                ]),
            )]),
        );
        assert_nothing(&s);
    }
    // The first write of a record, before its tool calls: nothing yet.
    assert_nothing(&read(
        feed,
        &lines(&[json!({"id": "g", "type": "gemini", "content": ""})]),
    ));
}

#[test]
fn a_record_written_again_counts_once() {
    let todos = call(
        "write_todos",
        json!({"todos": [
            {"description": "One", "status": "completed"},
            {"description": "Two", "status": "cancelled"},
            {"description": "Three", "status": "blocked"},
        ]}),
        "success",
    );
    let edit = call(
        "replace",
        json!({"file_path": "/p/a.txt", "old_string": "a", "new_string": "b"}),
        "success",
    );
    let record = model("Editing.", json!([todos, edit]));
    let once = read(feed, &lines(std::slice::from_ref(&record)));
    let thrice = read(feed, &lines(&[record.clone(), record.clone(), record]));
    assert_eq!(once.files, ["/p/a.txt"]);
    assert_eq!(thrice.files, once.files);
    assert_eq!(thrice.todos, once.todos);
    let todos: Vec<(&str, TaskStatus)> = once
        .todos
        .iter()
        .map(|t| (t.subject.as_str(), t.status))
        .collect();
    assert_eq!(
        todos,
        [
            ("One", TaskStatus::Completed),
            ("Three", TaskStatus::Pending)
        ]
    );
}

#[test]
fn megg_checkpoints_from_its_mcp_tools_and_shell_commands() {
    let s = read(
        feed,
        &lines(&[model(
            "",
            json!([call(
                "mcp_megg_checkpoint_save",
                json!({"plan_file": "plans/a.md"}),
                "success"
            )]),
        )]),
    );
    assert_eq!(s.checkpoint.as_deref(), Some("plans/a.md"));
    let s = read(
        feed,
        &lines(&[model(
            "",
            json!([call(
                "run_shell_command",
                json!({"command": "megg checkpoint update plans/b.md --phase work"}),
                "success"
            )]),
        )]),
    );
    assert_eq!(s.checkpoint.as_deref(), Some("plans/b.md"));
    // Another server's tool of the same name is not megg's.
    let s = read(
        feed,
        &lines(&[model(
            "",
            json!([call(
                "mcp_other_checkpoint_save",
                json!({"plan_file": "x.md"}),
                "success"
            )]),
        )]),
    );
    assert_eq!(s.checkpoint, None);
}

#[test]
fn patches_are_skipped_and_the_compression_answer_is_not_the_last_message() {
    let s = read(
        feed,
        &lines(&[
            model("Wrote it.", json!([])),
            json!({"$set": {"messages": [
                {"id": "x", "type": "user", "content": [{"text": "an old request"}]},
                {"id": "y", "type": "gemini", "content": "Said in a patch."}]}}),
            json!({"$rewindTo": "x"}),
            json!({"id": "s", "type": "user", "content": [{"text": "<state_snapshot>x</state_snapshot>"}]}),
            json!({"id": "t", "type": "gemini", "content": [{"text": COMPRESSION_ACK}]}),
            json!({"id": "t2", "type": "gemini", "content": [{"text": "Thinking…", "thought": true}]}),
        ]),
    );
    assert_eq!(s.first_request, None);
    assert_eq!(s.last_message.as_deref(), Some("Wrote it."));
}

#[test]
fn wrong_types_invent_nothing() {
    let s = read(
        feed,
        &lines(&[
            user(json!(5)),
            user(json!([{"text": 5}])),
            user(json!({"text": "write the notes"})),
            json!({"type": "user", "content": [{"text": {"a": 1}}], "displayContent": 3}),
            json!({"type": ["user"], "content": "write the notes"}),
            json!({"type": "gemini", "content": 7, "toolCalls": "x"}),
            json!({"type": "gemini", "content": "", "toolCalls": [5, {"name": 5, "status": "success"}]}),
            model(
                "",
                json!([call("write_file", json!({"file_path": 5}), "success")]),
            ),
            model("", json!([call("write_file", json!("x"), "success")])),
            model(
                "",
                json!([call("write_todos", json!({"todos": "x"}), "success")]),
            ),
            model(
                "",
                json!([call(
                    "write_todos",
                    json!({"todos": [{"description": 1, "status": "pending"}]}),
                    "success"
                )]),
            ),
            model(
                "",
                json!([{"name": "write_file", "args": {"file_path": "/a"}, "status": true}]),
            ),
            model(
                "",
                json!([call(
                    "run_shell_command",
                    json!({"command": ["megg", "checkpoint"]}),
                    "success"
                )]),
            ),
        ]),
    );
    assert_nothing(&s);
}

#[test]
fn a_saved_scan_resumes_where_it_stopped() {
    resumes_identically(feed, CHAT);
}

#[test]
fn damaged_lines_never_panic_nor_invent() {
    survives_damage(feed, CHAT);
}

// ---------------------------------------------------------------------------------------------
// SPEC §18: acknowledgements, failing runs, no host summary.

#[test]
fn a_correction_then_ok_go_ahead_keeps_the_correction() {
    let s = read(
        feed,
        &lines(&[
            user(json!([{"text": "Build the session store"}])),
            user(json!([{"text": "no — use Postgres, not SQLite"}])),
            user(json!([{"text": "ok go ahead"}])),
        ]),
    );
    assert_eq!(
        s.latest_request.as_deref(),
        Some("no — use Postgres, not SQLite")
    );
    assert_eq!(s.ack.as_deref(), Some("ok go ahead"));
}

/// A `run_shell_command` call as Gemini CLI 0.61.0 records it: the output, then the exit code
/// when it is not 0, then the process group.
fn shell(id: &str, command: &str, output: &str, code: i32) -> Value {
    let mut text = format!("Output: {output}");
    if code != 0 {
        text.push_str(&format!("\nExit Code: {code}"));
    }
    text.push_str("\nProcess Group PGID: 4242");
    json!({"id": id, "name": "run_shell_command",
        "args": {"command": command, "description": "Run the tests"},
        "result": [{"functionResponse": {"id": id, "name": "run_shell_command",
            "response": {"output": text}}}],
        "status": "success", "timestamp": "2026-11-23T19:43:28.508Z",
        "resultDisplay": output, "displayName": "Shell", "renderOutputAsMarkdown": false})
}

const PYTEST_FAILED: &str =
    "============================= test session starts ==============================
collected 3 items

tests/test_store.py .F.                                                  [100%]

=================================== FAILURES ===================================
______________________________ test_concurrent ______________________________

    def test_concurrent():
>       assert store.writers() == 2
E       assert 1 == 2

tests/test_store.py:14: AssertionError
=========================== short test summary info ============================
FAILED tests/test_store.py::test_concurrent - assert 1 == 2
========================= 1 failed, 2 passed in 0.05s ==========================";

const PYTEST_PASSED: &str = "collected 3 items

tests/test_store.py ...                                                  [100%]

============================== 3 passed in 0.02s ===============================";

#[test]
fn a_failing_shell_run_is_kept_until_the_same_scope_passes() {
    let failed = model(
        "",
        json!([shell(
            "run_shell_command__call1",
            "pytest tests/test_store.py",
            PYTEST_FAILED,
            1
        )]),
    );
    let s = read(feed, &lines(std::slice::from_ref(&failed)));
    let run = s.failing.clone().unwrap();
    assert_eq!(run.command, "pytest tests/test_store.py");
    assert_eq!(run.names, ["tests/test_store.py::test_concurrent"]);
    assert_eq!(run.first_error.as_deref(), Some("assert 1 == 2"));
    // Another scope passing: still named.
    let other = model(
        "",
        json!([shell(
            "run_shell_command__call2",
            "pytest tests/test_api.py",
            PYTEST_PASSED,
            0
        )]),
    );
    let s = read(feed, &lines(&[failed.clone(), other]));
    assert_eq!(s.failing.as_ref(), Some(&run));
    // The same scope passing later: nothing — even when the failing record is written again
    // after it (Gemini rewrites a record as it changes).
    let again = model(
        "",
        json!([shell(
            "run_shell_command__call3",
            "python -m pytest tests/test_store.py -q",
            PYTEST_PASSED,
            0
        )]),
    );
    let s = read(
        feed,
        &lines(&[failed.clone(), again.clone(), failed.clone()]),
    );
    assert_eq!(s.failing, None);
    // A record written three times counts as one run.
    let thrice = read(feed, &lines(&[failed.clone(), failed.clone(), failed]));
    assert_eq!(thrice.failing.as_ref(), Some(&run));
}

#[test]
fn gemini_has_no_host_summary() {
    let s = read(
        feed,
        &lines(&[
            json!({"id": "s", "type": "user", "content": [{"text": "<state_snapshot>\n<overall_goal>fake</overall_goal>\n</state_snapshot>"}]}),
            user(
                json!([{"text": "This session is being continued from a previous conversation. Summary: fake"}]),
            ),
        ]),
    );
    assert_eq!(s.summary, None);
    assert_eq!(read(feed, CHAT).summary, None);
}

/// SPEC §12: a failing run's command is kept redacted — its scope (the words that choose what
/// runs, saved in the scan) included.
#[test]
fn a_failing_runs_scope_keeps_no_secret() {
    let token = "ghp_sidn1pvgidzqh3zmvt45xkrclnhe75eixzn6";
    let failed = model(
        "",
        json!([shell(
            "run_shell_command__call1",
            &format!("pytest tests/test_store.py --token {token}"),
            PYTEST_FAILED,
            1
        )]),
    );
    let s = read(feed, &lines(&[failed]));
    let run = s.failing.clone().unwrap();
    assert_eq!(run.names, ["tests/test_store.py::test_concurrent"]);
    let saved = serde_json::to_string(&s).unwrap();
    assert!(!saved.contains("zqh3zmvt45xk"), "{saved}");
}
