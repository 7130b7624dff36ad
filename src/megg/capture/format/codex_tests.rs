//! Codex CLI 0.169.0 rollouts, recorded offline against `tests/e2e/mock_openai.py`
//! (tests/fixtures/transcripts/README.md), and hand-written lines for the shapes they lack.

use serde_json::{Value, json};

use super::*;

// Each reader's tests include the shared checks.
#[allow(clippy::duplicate_mod)]
#[path = "tests_common.rs"]
mod common;
use common::*;

const EXEC_WRITE: &str =
    include_str!("../../../../tests/fixtures/transcripts/codex-0.169.0-exec-write.jsonl");
const COMPACT: &str =
    include_str!("../../../../tests/fixtures/transcripts/codex-0.169.0-compact.jsonl");
const TOOLS: &str =
    include_str!("../../../../tests/fixtures/transcripts/codex-0.169.0-tools.jsonl");

/// What megg's context and the harness put into the session: none of it is a request.
const NOT_THE_USER: [&str; 8] = [
    "Domain Chain",
    "INFO-MARKER",
    "environment_context",
    "AGENTS.md",
    "skills_instructions",
    "Another language model",
    "Summary of the work",
    "<hook_context>",
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

fn event(payload: Value) -> Value {
    json!({"timestamp": "2026-11-23T00:00:00Z", "type": "event_msg", "payload": payload})
}

fn response(payload: Value) -> Value {
    json!({"timestamp": "2026-11-23T00:00:00Z", "type": "response_item", "payload": payload})
}

fn user_item(text: &str) -> Value {
    event(
        json!({"type": "item_completed", "item": {"type": "UserMessage", "id": "u",
        "content": [{"type": "text", "text": text, "text_elements": []}]}}),
    )
}

fn exec(id: &str, cmd: &str) -> Value {
    response(
        json!({"type": "function_call", "name": "exec_command", "call_id": id,
        "arguments": json!({"cmd": cmd}).to_string()}),
    )
}

fn out(id: &str, output: &str) -> Value {
    response(json!({"type": "function_call_output", "call_id": id, "output": output}))
}

const PATCH: &str = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/new.md\n+hi\n\
    *** Update File: src/old.rs\n@@\n-a\n+b\n*** Move to: src/moved.rs\n\
    *** Delete File: gone.txt\n*** End Patch\nEOF";

#[test]
fn the_request_is_what_the_user_typed_and_the_context_is_not() {
    let s = read(feed, EXEC_WRITE);
    assert_eq!(s.first_request.as_deref(), Some("write hello to notes.txt"));
    assert_eq!(s.latest_request, s.first_request);
    assert_only_the_user(&s);
    assert_eq!(s.last_message.as_deref(), Some("Wrote notes.txt."));
    // `printf … > notes.txt` is a shell edit: the caller finds it in the work tree.
    assert!(s.files.is_empty(), "{:?}", s.files);
    assert_eq!(s.skipped, 0);
}

#[test]
fn the_compaction_summary_is_neither_a_request_nor_the_last_message() {
    let s = read(feed, COMPACT);
    assert_eq!(s.first_request.as_deref(), Some("write hello to notes.txt"));
    assert_eq!(s.latest_request, s.first_request);
    assert_only_the_user(&s);
    assert_eq!(s.last_message.as_deref(), Some("Wrote notes.txt."));

    // Just after the compaction, before the assistant speaks again: the summary the model
    // wrote for the compaction is not what the assistant last said.
    let before = read_lines(feed, &upto(COMPACT, &["\"type\":\"compacted\""]));
    assert_eq!(before.last_message.as_deref(), Some("I'll write the file."));
    assert_only_the_user(&before);
}

#[test]
fn patches_shell_checkpoints_mcp_calls_and_the_goal_of_a_real_rollout() {
    let s = read(feed, TOOLS);
    assert_eq!(
        s.first_request.as_deref(),
        Some("set a goal: write the plan and save its checkpoint")
    );
    assert_only_the_user(&s);
    assert_eq!(
        s.last_message.as_deref(),
        Some("Saved the plan and its checkpoint.")
    );
    // The intercepted patch's FileChange names the file by its absolute path; the failed
    // patch (missing.md) names nothing.
    assert_eq!(s.files, ["<PROJECT>/plan.md"]);
    // The MCP `checkpoint_update` that succeeded, after the shell's `checkpoint save`.
    assert_eq!(s.checkpoint.as_deref(), Some("plan"));
    assert_eq!(
        s.todos,
        [Task {
            id: None,
            subject: "Write the plan and save its checkpoint".into(),
            description: String::new(),
            status: TaskStatus::Completed,
        }]
    );
    assert_eq!(s.skipped, 0);

    // While the goal is active it is in progress.
    let early = read_lines(feed, &upto(TOOLS, &["\"status\\\":\\\"active\\\""]));
    assert_eq!(early.todos.len(), 1);
    assert_eq!(early.todos[0].status, TaskStatus::InProgress);

    // `megg checkpoint save nothere.md` exited 1: no checkpoint; `save plan.md` exited 0.
    let failed = read_lines(feed, &upto(TOOLS, &["Process exited with code 1"]));
    assert_eq!(failed.checkpoint, None);
    let saved = read_lines(feed, &upto(TOOLS, &["Process exited with code 0"]));
    assert_eq!(saved.checkpoint.as_deref(), Some("plan.md"));
    // The MCP call that failed (an unknown phase) does not count.
    let mcp_failed = read_lines(
        feed,
        &upto(TOOLS, &["\"McpToolCall\"", "\"status\":\"failed\""]),
    );
    assert_eq!(mcp_failed.checkpoint.as_deref(), Some("plan.md"));
}

#[test]
fn an_apply_patch_heredoc_names_its_files_once_the_command_exited_0() {
    let ok = lines(&[
        exec("c1", PATCH),
        out(
            "c1",
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n",
        ),
    ]);
    let s = read(feed, &ok);
    assert_eq!(
        s.files,
        ["docs/new.md", "src/old.rs", "src/moved.rs", "gone.txt"]
    );

    // The older shell tool: `{"command": ["bash", "-lc", script]}`, output "Exit code: 0".
    let shell = lines(&[
        response(
            json!({"type": "function_call", "name": "shell", "call_id": "c2",
            "arguments": json!({"command": ["bash", "-lc", PATCH]}).to_string()}),
        ),
        out(
            "c2",
            "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.",
        ),
    ]);
    assert_eq!(read(feed, &shell).files.len(), 4);

    // The JSON output of older versions.
    let legacy = lines(&[
        exec("c3", PATCH),
        out(
            "c3",
            r#"{"output":"Success.","metadata":{"exit_code":0,"duration_seconds":0.1}}"#,
        ),
    ]);
    assert_eq!(read(feed, &legacy).files.len(), 4);
}

#[test]
fn a_failed_or_unfinished_call_does_not_count() {
    for output in [
        "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\nerror",
        "apply_patch verification failed: Failed to read file to update src/old.rs",
        "Chunk ID: 1\nWall time: 10 seconds\nProcess running with session ID 7\nOutput:\n",
        // A failing command whose own output says "Exit code: 0" later on.
        "Process exited with code 2\nOutput:\nExit code: 0",
        r#"{"output":"","metadata":{"exit_code":1}}"#,
    ] {
        let s = read(feed, &lines(&[exec("c1", PATCH), out("c1", output)]));
        assert!(s.files.is_empty(), "{output}: {:?}", s.files);
    }
    // No output at all yet: nothing either.
    assert!(read(feed, &lines(&[exec("c1", PATCH)])).files.is_empty());
    // An output for another call leaves this one waiting.
    let s = read(
        feed,
        &lines(&[exec("c1", PATCH), out("c9", "Process exited with code 0")]),
    );
    assert!(s.files.is_empty());
    // A FileChange that failed replaces the heredoc's names with nothing.
    let s = read(
        feed,
        &lines(&[
            exec("c1", PATCH),
            event(
                json!({"type": "item_completed", "item": {"type": "FileChange", "id": "c1",
                "changes": {"/p/docs/new.md": {"type": "add"}}, "status": "failed"}}),
            ),
            out("c1", "Exit code: 0\n"),
        ]),
    );
    assert!(s.files.is_empty(), "{:?}", s.files);
}

#[test]
fn a_real_apply_patch_tool_call_names_its_files_too() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch";
    let custom = lines(&[
        response(
            json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": "p1",
            "input": patch}),
        ),
        response(json!({"type": "custom_tool_call_output", "call_id": "p1",
            "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA a.txt\n"})),
    ]);
    assert_eq!(read(feed, &custom).files, ["a.txt"]);
    let function = lines(&[
        response(
            json!({"type": "function_call", "name": "apply_patch", "call_id": "p2",
            "arguments": json!({"input": patch}).to_string()}),
        ),
        out("p2", "Exit code: 0\n"),
    ]);
    assert_eq!(read(feed, &function).files, ["a.txt"]);
}

#[test]
fn update_plan_sets_the_to_do_list_once_the_plan_is_updated() {
    let plan = json!({"plan": [
        {"step": "Write the parser", "status": "completed"},
        {"step": "Add tests", "status": "in_progress"},
        {"step": "Ship it", "status": "pending"},
    ]});
    let call = response(
        json!({"type": "function_call", "name": "update_plan", "call_id": "u1",
        "arguments": plan.to_string()}),
    );
    let s = read(feed, &lines(&[call.clone(), out("u1", "Plan updated")]));
    let got: Vec<(&str, TaskStatus)> = s
        .todos
        .iter()
        .map(|t| (t.subject.as_str(), t.status))
        .collect();
    assert_eq!(
        got,
        [
            ("Write the parser", TaskStatus::Completed),
            ("Add tests", TaskStatus::InProgress),
            ("Ship it", TaskStatus::Pending),
        ]
    );
    // Refused (as `codex exec` 0.169.0 answers it): no list.
    let s = read(
        feed,
        &lines(&[call, out("u1", "unsupported call: update_plan")]),
    );
    assert!(s.todos.is_empty());
}

#[test]
fn harness_texts_are_never_requests_even_as_user_messages() {
    let s = read(
        feed,
        &lines(&[
            user_item("<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"),
            user_item("# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>"),
            user_item(
                "Another language model started to solve this problem and produced a summary",
            ),
            user_item("<user_instructions>\nuse tabs\n</user_instructions>"),
            user_item("<skills_instructions>\n## Skills\n</skills_instructions>"),
            user_item("<turn_aborted>\n</turn_aborted>"),
            user_item("   "),
        ]),
    );
    assert_nothing(&s);
    // The older event: the same rules.
    let s = read(
        feed,
        &lines(&[
            event(json!({"type": "user_message", "message": "fix the bug", "images": []})),
            event(
                json!({"type": "user_message", "message": "<environment_context>x</environment_context>"}),
            ),
            event(json!({"type": "agent_message", "message": "Fixed."})),
        ]),
    );
    assert_eq!(s.first_request.as_deref(), Some("fix the bug"));
    assert_eq!(s.latest_request.as_deref(), Some("fix the bug"));
    assert_eq!(s.last_message.as_deref(), Some("Fixed."));
}

#[test]
fn user_role_response_items_and_developer_messages_are_not_read() {
    // megg's SessionStart context (a developer message) and a user-role message: only the
    // UserMessage event says what the user typed.
    let s = read(
        feed,
        &lines(&[
            response(json!({"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": "## Domain Chain\n\nINFO-MARKER"}]})),
            response(json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "## Domain Chain\n\nINFO-MARKER"}]})),
        ]),
    );
    assert_nothing(&s);
}

#[test]
fn only_megg_mcp_calls_that_completed_name_a_checkpoint() {
    let mcp = |server: &str, status: &str, is_error: bool| {
        event(
            json!({"type": "item_completed", "item": {"type": "McpToolCall", "id": "m",
            "server": server, "tool": "checkpoint_save",
            "arguments": {"plan_file": "plans/x.md"}, "status": status,
            "result": {"content": [], "isError": is_error}}}),
        )
    };
    let s = read(feed, &lines(&[mcp("megg", "completed", false)]));
    assert_eq!(s.checkpoint.as_deref(), Some("plans/x.md"));
    for line in [
        mcp("megg", "failed", false),
        mcp("megg", "completed", true),
        mcp("other", "completed", false),
        mcp("megg", "in_progress", false),
    ] {
        assert_eq!(
            read(feed, &lines(std::slice::from_ref(&line))).checkpoint,
            None,
            "{line}"
        );
    }
}

#[test]
fn wrong_types_invent_nothing() {
    let s = read(
        feed,
        &lines(&[
            event(json!({"type": "item_completed", "item": {"type": "UserMessage", "content": 5}})),
            event(
                json!({"type": "item_completed", "item": {"type": "UserMessage",
                "content": [{"type": "text", "text": 7}]}}),
            ),
            event(json!({"type": "item_completed", "item": 3})),
            event(
                json!({"type": "item_completed", "item": {"type": "AgentMessage", "content": {"a": 1}}}),
            ),
            event(
                json!({"type": "item_completed", "item": {"type": "FileChange", "id": "c",
                "changes": ["a"], "status": "completed"}}),
            ),
            event(
                json!({"type": "item_completed", "item": {"type": "McpToolCall", "id": 5,
                "server": "megg", "tool": 9, "arguments": "x", "status": "completed"}}),
            ),
            event(json!({"type": "user_message", "message": ["x"]})),
            response(
                json!({"type": "function_call", "name": 5, "call_id": "c", "arguments": "{}"}),
            ),
            response(
                json!({"type": "function_call", "name": "exec_command", "call_id": "c",
                "arguments": "{not json"}),
            ),
            response(
                json!({"type": "function_call", "name": "exec_command", "call_id": "c",
                "arguments": {"cmd": PATCH}}),
            ),
            response(
                json!({"type": "function_call", "name": "update_plan", "call_id": "u",
                "arguments": json!({"plan": "x"}).to_string()}),
            ),
            out("u", "Plan updated"),
            response(json!({"type": "function_call_output", "call_id": "c", "output": 0})),
            response(
                json!({"type": "function_call", "name": "create_goal", "call_id": "g",
                "arguments": "{}"}),
            ),
            out("g", r#"{"goal":{"objective":5,"status":"active"}}"#),
            json!({"type": "event_msg", "payload": "x"}),
            json!({"type": ["event_msg"], "payload": {}}),
        ]),
    );
    assert_nothing(&s);
}

#[test]
fn a_saved_scan_resumes_where_it_stopped() {
    for text in [EXEC_WRITE, COMPACT, TOOLS] {
        resumes_identically(feed, text);
    }
}

#[test]
fn damaged_lines_never_panic_nor_invent() {
    for text in [EXEC_WRITE, COMPACT, TOOLS] {
        survives_damage(feed, text);
    }
}

#[test]
fn patch_files_reads_the_patch_headers_only_inside_a_patch() {
    assert_eq!(
        patch_files(PATCH),
        ["docs/new.md", "src/old.rs", "src/moved.rs", "gone.txt"]
    );
    assert!(patch_files("echo '*** Add File: x'").is_empty());
    assert!(patch_files("*** Begin Patch\n*** Add File:   \n*** End Patch").is_empty());
}

// ---------------------------------------------------------------------------------------------
// SPEC §18: acknowledgements, failing runs, the host's summary.

const COMPACT_0_171: &str =
    include_str!("../../../../tests/fixtures/transcripts/codex-0.171.0-compact.jsonl");

#[test]
fn a_correction_then_ok_go_ahead_keeps_the_correction() {
    let s = read(
        feed,
        &lines(&[
            user_item("Build the session store"),
            user_item("no — use Postgres, not SQLite"),
            user_item("ok go ahead"),
        ]),
    );
    assert_eq!(
        s.latest_request.as_deref(),
        Some("no — use Postgres, not SQLite")
    );
    assert_eq!(s.ack.as_deref(), Some("ok go ahead"));
}

/// A unified-exec output as Codex 0.169.0 writes it.
fn exec_out(code: i32, output: &str) -> String {
    format!(
        "Chunk ID: 38ba8b\nWall time: 1.2000 seconds\nProcess exited with code {code}\n\
         Original token count: 120\nOutput:\n{output}"
    )
}

const GO_FAILED: &str = "--- FAIL: TestParse (0.00s)
    parse_test.go:12: parse(\"a\\r\\n\") = [\"a\\r\"], want [\"a\"]
FAIL
FAIL\texample.com/store/parser\t0.004s
FAIL
";

#[test]
fn a_failing_shell_run_is_kept_until_the_same_scope_passes() {
    let failed = [
        exec("r1", "go test ./parser/..."),
        out("r1", &exec_out(1, GO_FAILED)),
    ];
    let s = read(feed, &lines(&failed));
    let run = s.failing.clone().unwrap();
    assert_eq!(run.command, "go test ./parser/...");
    assert_eq!(run.names, ["TestParse"]);
    assert_eq!(
        run.first_error.as_deref(),
        Some("parse_test.go:12: parse(\"a\\r\\n\") = [\"a\\r\"], want [\"a\"]")
    );
    // Another scope passing: still named.
    let other = [
        exec("r2", "go test ./store/..."),
        out(
            "r2",
            &exec_out(0, "ok  \texample.com/store/store\t0.003s\n"),
        ),
    ];
    let s = read(feed, &lines(&[failed.to_vec(), other.to_vec()].concat()));
    assert_eq!(s.failing.as_ref(), Some(&run));
    // The same scope passing later (the older shell tools' `Exit code: N`): nothing.
    let again = [
        response(
            json!({"type": "function_call", "name": "shell", "call_id": "r3",
            "arguments": json!({"command": ["bash", "-lc", "go test ./parser/..."]}).to_string()}),
        ),
        out(
            "r3",
            "Exit code: 0\nWall time: 0.5 seconds\nOutput:\nok  \texample.com/store/parser\t0.004s\n",
        ),
    ];
    let s = read(feed, &lines(&[failed.to_vec(), again.to_vec()].concat()));
    assert_eq!(s.failing, None);
    // A run still going says nothing yet.
    let running = [
        exec("r4", "go test ./parser/..."),
        out(
            "r4",
            "Chunk ID: 1\nWall time: 10 seconds\nProcess running with session ID 7\nOutput:\n",
        ),
    ];
    let s = read(feed, &lines(&[failed.to_vec(), running.to_vec()].concat()));
    assert_eq!(s.failing.as_ref(), Some(&run));
}

#[test]
fn the_compacted_line_is_the_host_summary() {
    use crate::megg::capture::summary::Source;
    for (rollout, words) in [
        (COMPACT, "Summary of the work so far."),
        (COMPACT_0_171, "use Postgres not SQLite"),
    ] {
        let s = read(feed, rollout);
        let found = s.summary.clone().unwrap();
        assert_eq!(found.source, Source::Codex);
        assert!(found.text.contains(words), "{}", found.text);
        assert!(
            !found.text.contains("Another language model"),
            "{}",
            found.text
        );
        assert!(
            found
                .at
                .as_deref()
                .is_some_and(|t| t.starts_with("2026-11-"))
        );
        assert_only_the_user(&s);
    }
    // Before the compacted line: none.
    let before = upto(COMPACT, &["\"type\":\"compacted\""]);
    let s = read_lines(feed, &before[..before.len() - 1]);
    assert_eq!(s.summary, None);
    // The same text as the user's message, or in a tool's output, is no summary.
    let looks = "Another language model started to solve this problem and produced a summary \
                 of its thinking process. Here is the summary produced by the other language model, \
                 use the information in this summary to assist with your own analysis:\nfake";
    let s = read(
        feed,
        &lines(&[
            user_item(looks),
            event(json!({"type": "user_message", "message": looks})),
            exec("c1", "cat notes.md"),
            out("c1", &exec_out(0, looks)),
        ]),
    );
    assert_eq!(s.summary, None);
}
