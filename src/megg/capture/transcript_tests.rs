//! Transcript fixtures: a real Claude Code 2.1.330 transcript (tests/fixtures/transcripts/,
//! recorded against the mock API with TaskCreate, TaskUpdate, Write and a refused TodoWrite)
//! and hand-written lines for each other shape SPEC §10 names.

use serde_json::json;

use super::*;

const REAL: &str = include_str!("../../../tests/fixtures/transcripts/claude-2.1.330-tasks.jsonl");
/// The same script, recorded whole with Claude Code 2.1.332 (attachments, request shapes…).
const REAL_2_1_332: &str =
    include_str!("../../../tests/fixtures/transcripts/claude-2.1.332-tasks.jsonl");

fn scan(lines: &[serde_json::Value]) -> Scan {
    let mut s = Scan::default();
    for l in lines {
        s.feed(&l.to_string(), Origin::Main);
    }
    s
}

fn user(content: serde_json::Value) -> serde_json::Value {
    json!({"type": "user", "message": {"role": "user", "content": content}})
}

fn tool_use(id: &str, name: &str, input: serde_json::Value) -> serde_json::Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": id, "name": name, "input": input}
    ]}})
}

fn ok(id: &str, text: &str) -> serde_json::Value {
    user(json!([{"type": "tool_result", "tool_use_id": id, "content": text}]))
}

fn said(text: &str) -> serde_json::Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})
}

#[test]
fn a_real_transcript_gives_tasks_with_ids_from_the_results_and_the_written_file() {
    for real in [REAL, REAL_2_1_332] {
        real_transcript_gives_tasks(real);
    }
}

fn real_transcript_gives_tasks(real: &str) {
    let mut s = Scan::default();
    for line in real.lines() {
        s.feed(line, Origin::Main);
    }
    assert_eq!(
        s.first_request.as_deref(),
        Some("Build the transcript parser")
    );
    assert_eq!(s.latest_request, s.first_request);
    let tasks: Vec<(Option<&str>, &str, TaskStatus)> = s
        .tasks
        .iter()
        .map(|t| (t.id.as_deref(), t.subject.as_str(), t.status))
        .collect();
    assert_eq!(
        tasks,
        vec![
            (Some("1"), "Write the parser", TaskStatus::Completed),
            (Some("2"), "Add tests", TaskStatus::Pending),
        ]
    );
    assert_eq!(s.tasks[0].description, "Parse the transcript\nsecond line");
    assert_eq!(s.files, ["/tmp/exp/proj/src/parser.rs"]);
    // The TodoWrite call was refused by Claude Code: it changes nothing.
    assert!(s.todos.is_empty());
    assert_eq!(
        s.last_message.as_deref(),
        Some("Done for now. The parser is written; tests remain.")
    );
    assert_eq!(s.skipped, 0);
}

#[test]
fn task_ids_come_from_the_result_text_when_the_structured_result_is_missing() {
    let s = scan(&[
        tool_use("t1", "TaskCreate", json!({"subject": "Ship it"})),
        ok("t1", "Task #7 created successfully: Ship it"),
        tool_use(
            "t2",
            "TaskUpdate",
            json!({"taskId": "7", "status": "in_progress"}),
        ),
        ok("t2", "Updated task #7 status"),
    ]);
    assert_eq!(s.tasks[0].id.as_deref(), Some("7"));
    assert_eq!(s.tasks[0].status, TaskStatus::InProgress);
}

#[test]
fn a_deleted_task_leaves_the_list_and_a_failed_call_changes_nothing() {
    let s = scan(&[
        tool_use("a", "TaskCreate", json!({"subject": "A"})),
        user(json!([{"type": "tool_result", "tool_use_id": "a", "content": "Task #1 created"}])),
        tool_use("b", "TaskCreate", json!({"subject": "B"})),
        ok("b", "Task #2 created"),
        tool_use("c", "TaskUpdate", json!({"taskId": 1, "status": "deleted"})),
        ok("c", "Updated"),
        tool_use(
            "d",
            "TaskUpdate",
            json!({"taskId": "2", "status": "completed"}),
        ),
        user(
            json!([{"type": "tool_result", "tool_use_id": "d", "content": "no", "is_error": true}]),
        ),
    ]);
    assert_eq!(s.tasks.len(), 1);
    assert_eq!(s.tasks[0].subject, "B");
    assert_eq!(s.tasks[0].status, TaskStatus::Pending);
}

#[test]
fn todo_write_replaces_the_list_and_counts_only_without_task_tools() {
    let s = scan(&[
        tool_use(
            "t",
            "TodoWrite",
            json!({"todos": [
                {"content": "Write docs", "status": "completed", "activeForm": "Writing docs"},
                {"content": "Add\nbench", "status": "in_progress"},
                {"content": "Broken", "status": "weird"}
            ]}),
        ),
        ok("t", "Todos have been modified successfully"),
    ]);
    let list: Vec<(&str, TaskStatus)> = s
        .task_list()
        .iter()
        .map(|t| (t.subject.as_str(), t.status))
        .collect();
    assert_eq!(
        list,
        vec![
            ("Write docs", TaskStatus::Completed),
            ("Add bench", TaskStatus::InProgress)
        ]
    );
}

#[test]
fn every_editing_tool_names_its_file_newest_last_once() {
    let s = scan(&[
        tool_use(
            "1",
            "Edit",
            json!({"file_path": "/p/a.rs", "old_string": "x", "new_string": "y"}),
        ),
        ok("1", "ok"),
        tool_use(
            "2",
            "MultiEdit",
            json!({"file_path": "/p/b.rs", "edits": []}),
        ),
        ok("2", "ok"),
        tool_use(
            "3",
            "NotebookEdit",
            json!({"notebook_path": "/p/n.ipynb", "new_source": ""}),
        ),
        ok("3", "ok"),
        tool_use(
            "4",
            "Write",
            json!({"file_path": "/p/a.rs", "content": "big"}),
        ),
        ok("4", "ok"),
        tool_use("5", "Read", json!({"file_path": "/p/read-only.rs"})),
        ok("5", "contents"),
        tool_use(
            "6",
            "Write",
            json!({"file_path": "/p/refused.rs", "content": ""}),
        ),
        user(
            json!([{"type": "tool_result", "tool_use_id": "6", "content": "denied", "is_error": true}]),
        ),
    ]);
    assert_eq!(s.files, ["/p/b.rs", "/p/n.ipynb", "/p/a.rs"]);
}

#[test]
fn slash_commands_are_the_command_and_its_arguments_and_builtins_are_not_requests() {
    let s = scan(&[
        user(json!(
            "<command-message>workflows:plan</command-message>\n<command-name>/workflows:plan</command-name>\n<command-args>add OAuth login</command-args>"
        )),
        user(json!(
            "<command-name>/compact</command-name>\n<command-args></command-args>"
        )),
        user(json!(
            "<local-command-stdout>Compacted</local-command-stdout>"
        )),
        json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": "Caveat: injected"}}),
        json!({"type": "user", "isCompactSummary": true, "message": {"role": "user", "content": "This session is being continued…"}}),
        user(json!([{"type": "text", "text": "now   the\ntests"}])),
    ]);
    assert_eq!(
        s.first_request.as_deref(),
        Some("/workflows:plan add OAuth login")
    );
    assert_eq!(s.latest_request.as_deref(), Some("now the tests"));
}

#[test]
fn a_long_request_is_cut_to_300_characters() {
    let long = "word ".repeat(200);
    let s = scan(&[user(json!(long))]);
    let r = s.first_request.unwrap();
    assert_eq!(r.chars().count(), MAX_REQUEST_CHARS);
    assert!(r.ends_with('…'));
}

#[test]
fn clear_starts_the_scan_over() {
    let s = scan(&[
        user(json!("first task")),
        tool_use("1", "Write", json!({"file_path": "/p/a"})),
        ok("1", "ok"),
        user(json!(
            "<command-name>/clear</command-name>\n<command-args></command-args>"
        )),
        user(json!("second task")),
    ]);
    assert_eq!(s.first_request.as_deref(), Some("second task"));
    assert!(s.files.is_empty());
}

#[test]
fn megg_checkpoint_commands_and_tools_name_the_checkpoint() {
    let s = scan(&[
        tool_use(
            "1",
            "Bash",
            json!({"command": "megg checkpoint save docs/plans/2026-11-01-feat-x-plan.md"}),
        ),
        ok("1", "saved"),
    ]);
    assert_eq!(
        s.checkpoint.as_deref(),
        Some("docs/plans/2026-11-01-feat-x-plan.md")
    );
    let s = scan(&[
        tool_use(
            "1",
            "mcp__megg__checkpoint_update",
            json!({"target": "feat-x", "check": ["a"]}),
        ),
        ok("1", "{}"),
        tool_use(
            "2",
            "Bash",
            json!({"command": "cd x && megg checkpoint update --check a"}),
        ),
        ok("2", ""),
    ]);
    assert_eq!(s.checkpoint.as_deref(), Some("feat-x"));
}

#[test]
fn a_manual_state_write_through_bash_or_mcp_is_neither_an_edit_nor_a_task() {
    // Whether a hand-written handoff is kept is decided by state.md's content (see
    // `may_promote`), never by recognising the tool that wrote it.
    let s = scan(&[
        tool_use(
            "1",
            "Bash",
            json!({"command": "megg state write --file /tmp/handoff.md"}),
        ),
        ok("1", "Saved"),
        tool_use(
            "2",
            "mcp__megg__state",
            json!({"content": "## Working On\nX"}),
        ),
        ok("2", "Saved"),
    ]);
    assert!(s.files.is_empty() && s.tasks.is_empty() && s.checkpoint.is_none());
}

#[test]
fn garbage_truncated_and_unknown_lines_are_skipped() {
    let mut s = Scan::default();
    s.feed("not json at all \"user\"", Origin::Main);
    s.feed(
        "{\"type\":\"user\",\"message\":{\"content\":\"cut",
        Origin::Main,
    );
    s.feed(
        "{\"type\":\"user\",\"message\":{\"content\":42}}",
        Origin::Main,
    );
    s.feed("{\"type\":\"summary\",\"summary\":\"x\"}", Origin::Main);
    s.feed("[1,2,3]", Origin::Main);
    s.feed("", Origin::Main);
    s.feed(&user(json!("real request")).to_string(), Origin::Main);
    assert_eq!(s.first_request.as_deref(), Some("real request"));
    assert!(s.skipped >= 2, "{}", s.skipped);
}

#[test]
fn subagent_lines_give_edits_and_tasks_but_not_requests_or_messages() {
    let mut s = Scan::default();
    for l in [
        user(json!("explore the parser")),
        tool_use("1", "Edit", json!({"file_path": "/p/sub.rs"})),
        ok("1", "ok"),
        said("subagent report"),
    ] {
        s.feed(&l.to_string(), Origin::Subagent);
    }
    assert_eq!(s.files, ["/p/sub.rs"]);
    assert!(s.first_request.is_none() && s.last_message.is_none());
}

#[test]
fn an_update_read_before_its_task_was_created_still_applies() {
    // A subagent creates task 3 and the main agent completes it; the main transcript is read
    // first, so the update comes before the create.
    let mut s = Scan::default();
    for l in [
        tool_use(
            "u",
            "TaskUpdate",
            json!({"taskId": "3", "status": "completed"}),
        ),
        ok("u", "Updated task #3 status"),
    ] {
        s.feed(&l.to_string(), Origin::Main);
    }
    for l in [
        tool_use("c", "TaskCreate", json!({"subject": "Subagent task"})),
        ok("c", "Task #3 created successfully: Subagent task"),
    ] {
        s.feed(&l.to_string(), Origin::Subagent);
    }
    assert_eq!(s.tasks.len(), 1);
    assert_eq!(s.tasks[0].status, TaskStatus::Completed);
}

#[test]
fn a_secret_split_over_lines_is_redacted_once_on_one() {
    // `password:` and its value on the next line become a pair only when joined.
    let cut = one_line_cut("deploy\npassword:\nhunter2 now", MAX_REQUEST_CHARS);
    assert!(!cut.contains("hunter2"), "{cut}");
    assert!(cut.contains("[redacted]"), "{cut}");
}

// ---------------------------------------------------------------------------------------------
// SPEC §18: acknowledgements, failing runs, the host's summary.

const COMPACT: &str =
    include_str!("../../../tests/fixtures/transcripts/claude-2.1.332-compact.jsonl");

#[test]
fn an_acknowledgement_never_replaces_the_request_before_it() {
    let mut s = scan(&[
        user(json!("Build the session store")),
        user(json!("no — use Postgres, not SQLite")),
        user(json!("ok go ahead")),
    ]);
    assert_eq!(s.first_request.as_deref(), Some("Build the session store"));
    assert_eq!(
        s.latest_request.as_deref(),
        Some("no — use Postgres, not SQLite")
    );
    assert_eq!(s.ack.as_deref(), Some("ok go ahead"));
    // The newest acknowledgement is the one kept; the next request clears it.
    s.feed(&user(json!("yes")).to_string(), Origin::Main);
    assert_eq!(s.ack.as_deref(), Some("yes"));
    s.feed(
        &user(json!("now write the migration")).to_string(),
        Origin::Main,
    );
    assert_eq!(s.latest_request.as_deref(), Some("now write the migration"));
    assert_eq!(s.ack, None);
    // An acknowledgement with nothing before it is the request.
    let s = scan(&[user(json!("ok"))]);
    assert_eq!(
        (
            s.first_request.as_deref(),
            s.latest_request.as_deref(),
            s.ack
        ),
        (Some("ok"), Some("ok"), None)
    );
}

/// Claude Code's `Bash` call and its result: `Exit code N` and the output when it failed.
fn bash(id: &str, command: &str, failed: bool, output: &str) -> [serde_json::Value; 2] {
    let content = if failed {
        format!("Exit code 101\n{output}")
    } else {
        output.to_string()
    };
    [
        tool_use(
            id,
            "Bash",
            json!({"command": command, "description": "Run the tests"}),
        ),
        user(
            json!([{"type": "tool_result", "tool_use_id": id, "content": content,
            "is_error": failed}]),
        ),
    ]
}

const CARGO_FAILED: &str = "running 2 tests
test parser::tests::crlf ... FAILED
test parser::tests::lf ... ok

failures:

---- parser::tests::crlf stdout ----

thread 'parser::tests::crlf' panicked at src/parser.rs:57:9:
assertion `left == right` failed

failures:
    parser::tests::crlf

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass `-p core --lib`";

const CARGO_PASSED: &str = "running 2 tests
test parser::tests::crlf ... ok
test parser::tests::lf ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s";

#[test]
fn a_failing_bash_run_is_kept_until_the_same_scope_passes() {
    let failed = bash("t1", "cargo test -p core", true, CARGO_FAILED);
    let s = scan(&failed);
    let run = s.failing.clone().unwrap();
    assert_eq!(run.command, "cargo test -p core");
    assert_eq!(run.names, ["parser::tests::crlf"]);
    assert_eq!(
        run.first_error.as_deref(),
        Some(
            "thread 'parser::tests::crlf' panicked at src/parser.rs:57:9: assertion `left == right` failed"
        )
    );
    // Another scope passing: still named.
    let other = bash("t2", "cargo test -p cli", false, CARGO_PASSED);
    let s = scan(&[failed.clone(), other].concat());
    assert_eq!(s.failing.as_ref(), Some(&run));
    // A later run of the same scope passing: nothing.
    let again = bash(
        "t3",
        "cd core && cargo test -p core 2>&1",
        false,
        CARGO_PASSED,
    );
    let s = scan(&[failed.clone(), again].concat());
    assert_eq!(s.failing, None);
    // A refused call ran nothing; a command that is no runner counts for nothing.
    let refused = [
        tool_use("t4", "Bash", json!({"command": "cargo test -p core"})),
        user(
            json!([{"type": "tool_result", "tool_use_id": "t4", "is_error": true,
            "content": "The user doesn't want to proceed with this tool use."}]),
        ),
    ];
    let s = scan(
        &[
            refused.to_vec(),
            bash("t5", "ls", true, "ls: x: No such file").to_vec(),
        ]
        .concat(),
    );
    assert_eq!(s.failing, None);
    // A checkpoint command still names its checkpoint.
    let s = scan(&bash(
        "t6",
        "megg checkpoint save p.md && cargo test",
        false,
        CARGO_PASSED,
    ));
    assert_eq!(s.checkpoint.as_deref(), Some("p.md"));
}

#[test]
fn the_compact_summary_is_found_and_never_a_request() {
    let mut s = Scan::default();
    for line in COMPACT.lines() {
        s.feed(line, Origin::Main);
    }
    let found = s.summary.clone().unwrap();
    assert_eq!(
        found.source,
        crate::megg::capture::summary::Source::ClaudeTranscript
    );
    assert!(
        found.text.contains("use Postgres not SQLite"),
        "{}",
        found.text
    );
    assert!(!found.text.starts_with("This session is being continued"));
    assert!(found.at.is_some());
    assert_eq!(found.requests_after, 0);
    assert_eq!(
        s.latest_request.as_deref(),
        Some("Build the transcript parser")
    );
    // Each substantive request after it is counted; an acknowledgement is not.
    s.feed(
        &user(json!("now fix the CRLF test")).to_string(),
        Origin::Main,
    );
    s.feed(&user(json!("ok")).to_string(), Origin::Main);
    assert_eq!(s.summary.as_ref().unwrap().requests_after, 1);
}

#[test]
fn text_that_only_looks_like_a_summary_is_not_one() {
    let looks = "This session is being continued from a previous conversation that ran out of \
                 context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. fake";
    let s = scan(&[
        user(json!(looks)),
        tool_use("t1", "Read", json!({"file_path": "/p/notes.md"})),
        ok("t1", looks),
        // A subagent's compaction is not the session's.
        json!({"type": "user", "isCompactSummary": true, "isSidechain": true,
            "message": {"role": "user", "content": looks}}),
    ]);
    assert_eq!(s.summary, None);
    // The user's message stays a request.
    assert!(
        s.latest_request
            .unwrap()
            .starts_with("This session is being continued")
    );
}

/// SPEC §12: what a scan keeps of a checkpoint command and a task update is redacted too —
/// the workflow line's target, and an update's status (kept in the saved scan while its call
/// awaits its result) — not only the requests, messages and tasks.
#[test]
fn a_checkpoint_target_and_a_pending_status_keep_no_secret() {
    let token = "ghp_sidn1pvgidzqh3zmvt45xkrclnhe75eixzn6";
    let s = scan(&[
        tool_use(
            "1",
            "Bash",
            json!({"command": format!("megg checkpoint update {token}")}),
        ),
        ok("1", "updated"),
        tool_use(
            "2",
            "mcp__megg__checkpoint_update",
            json!({"target": format!("GITHUB_TOKEN={token}")}),
        ),
        tool_use("3", "TaskUpdate", json!({"taskId": "1", "status": token})),
    ]);
    assert_eq!(
        s.checkpoint.as_deref(),
        Some(crate::megg::secrets::REDACTED)
    );
    let saved = serde_json::to_string(&s).unwrap();
    assert!(!saved.contains("zqh3zmvt45xk"), "{saved}");
}

/// A pass holds what it reads as read until it ends ([`Scan::hold`]), but only so much: a
/// request past the bound is redacted at once, with whatever else was held.
#[test]
fn a_holding_scan_redacts_a_huge_request_at_once() {
    use crate::megg::secrets::take_scanned;
    let mut s = Scan::default();
    s.hold();
    take_scanned();
    s.feed(
        &user(json!("first: use token=tok7Zq81xVb2")).to_string(),
        Origin::Main,
    );
    assert_eq!(take_scanned(), Vec::<String>::new());
    let huge = format!("deploy {}", "word ".repeat(MAX_HELD_BYTES / 5));
    s.feed(&user(json!(huge)).to_string(), Origin::Main);
    let scanned = take_scanned();
    assert!(
        scanned.iter().any(|t| t.starts_with("deploy word")),
        "{}",
        scanned.len()
    );
    assert_eq!(s.held, Held::default());
    assert_eq!(
        s.first_request.as_deref(),
        Some("first: use token=[redacted]")
    );
    s.seal();
    assert!(
        s.latest_request
            .is_some_and(|r| r.starts_with("deploy word"))
    );
}
