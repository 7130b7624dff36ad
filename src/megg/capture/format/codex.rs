//! Codex CLI's rollout (`rollout-*.jsonl`, one `{timestamp, type, payload}` a line), as
//! Codex 0.169.0 writes it (SPEC §12).
//!
//! What is read, and from which lines:
//! - **Requests**: `event_msg` `item_completed` items of type `UserMessage` (and the older
//!   `event_msg` `user_message`). Codex writes these only for what the user typed; the
//!   user-role `response_item` messages also carry the harness's own text (environment
//!   context, `# AGENTS.md instructions`, skills, the compaction summary "Another language
//!   model started…") and are not read at all. megg's SessionStart context arrives as a
//!   `developer` message, never read either. Harness texts are still refused by their opening
//!   ([`harness_text`]) should a version ever write one as a user message.
//! - **Last message**: `AgentMessage` items (and the older `agent_message`); the compaction's
//!   summary is an assistant `response_item` only, so it is never taken for the last message.
//! - **Files**: an `apply_patch` heredoc in an `exec_command` / `shell` / `shell_command`
//!   call, or a real `apply_patch` tool call, names its files (`*** Add/Update/Delete File:`,
//!   `*** Move to:`); they count once the call's output shows exit code 0. When Codex
//!   intercepts the patch it also writes a `FileChange` item with the absolute paths and the
//!   outcome: that item then decides, with its paths.
//! - **To-do list**: `update_plan` (`plan[].step/status`, once its output says "Plan
//!   updated") and Codex's goal (`create_goal` / `update_goal` / `get_goal`, whose output is
//!   the goal): one task, the objective, in progress while active.
//! - **Checkpoint**: `megg checkpoint …` in a shell command (exit code 0), and megg's MCP
//!   tools, from the `McpToolCall` item Codex writes with the call's status.
//! - **Failing runs**: a test or build command in a shell call, with the exit code and the
//!   output its `function_call_output` reports.
//! - **Host summary**: the newest `compacted` line's `message` (SPEC §18.1). The same summary
//!   also arrives as a user-role `response_item`, never read.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::megg::capture::summary::{Found, Source};
use crate::megg::capture::transcript::{
    Call, MAX_TASKS, Scan, Task, TaskStatus, json_str as string, megg_tool_call, run_call,
    shell_call,
};

/// Most files one patch may name (the pending calls are bounded too).
const MAX_PATCH_FILES: usize = 32;

/// The line kinds megg reads; a line holding none of these is skipped unparsed.
const WANTED: [&str; 6] = [
    "\"compacted\"",
    "\"item_completed\"",
    "\"function_call",
    "\"custom_tool_call",
    "\"user_message\"",
    "\"agent_message\"",
];

/// How the harness's own user-role texts begin (none of them is a request).
const HARNESS_OPENINGS: [&str; 20] = [
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<startup_context>",
    "<skills_instructions>",
    "<plugins_instructions>",
    "<model_instructions>",
    "<managed_developer_instructions>",
    "<environments_instructions>",
    "<apps_instructions>",
    "<permissions instructions>",
    "<agent_message_board_notification>",
    "<collaboration_mode>",
    "<INSTRUCTIONS>",
    "<skill>",
    "# AGENTS.md instructions",
    "Another language model started to solve this problem",
    "You are performing a CONTEXT CHECKPOINT COMPACTION",
];

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    payload: &'a RawValue,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    call_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Item<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(borrow, default)]
    server: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// One content part of an item or an output: `{type, text}`.
#[derive(Deserialize)]
struct Part<'a> {
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// A shell call's arguments: `exec_command` `{cmd}`, `shell` `{command: [..]}`,
/// `shell_command` `{command}`; `apply_patch` `{input}`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Arguments<'a> {
    #[serde(borrow)]
    cmd: Option<&'a RawValue>,
    #[serde(borrow)]
    command: Option<&'a RawValue>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    plan: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PlanStep<'a> {
    #[serde(borrow, default)]
    step: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct GoalOutput<'a> {
    #[serde(borrow)]
    goal: Option<Goal<'a>>,
}

#[derive(Deserialize)]
struct Goal<'a> {
    #[serde(borrow, default)]
    objective: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FileChange<'a> {
    #[serde(borrow)]
    move_path: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct McpResult {
    #[serde(rename = "isError")]
    is_error: Option<bool>,
}

#[derive(Deserialize)]
struct LegacyShellOutput {
    metadata: LegacyMetadata,
}

#[derive(Deserialize)]
struct LegacyMetadata {
    exit_code: i64,
}

/// The text of `content`: a string, or the `text` of each part, one a line.
fn text_of(raw: Option<&RawValue>) -> Option<String> {
    let raw = raw?;
    if let Some(s) = string(Some(raw)) {
        return Some(s.into_owned());
    }
    let parts = serde_json::from_str::<Vec<Part>>(raw.get()).ok()?;
    let texts: Vec<Cow<str>> = parts.iter().filter_map(|p| string(p.text)).collect();
    Some(texts.join("\n"))
}

/// Reads one line of the rollout into `scan`.
pub fn feed(scan: &mut Scan, line: &str) {
    scan.lines += 1;
    let line = line.trim_end_matches(['\n', '\r']);
    if line.is_empty() || !WANTED.iter().any(|w| line.contains(w)) {
        return;
    }
    let Ok(parsed) = serde_json::from_str::<Line>(line) else {
        scan.skipped += 1;
        return;
    };
    let Ok(payload) = serde_json::from_str::<Payload>(parsed.payload.get()) else {
        scan.skipped += 1;
        return;
    };
    let kind = payload.kind.as_deref().unwrap_or("");
    match (parsed.kind.as_ref(), kind) {
        ("event_msg", "item_completed") => {
            if let Some(item) = payload.item {
                completed(scan, item);
            }
        }
        ("event_msg", "user_message") => {
            if let Some(text) = string(payload.message) {
                request(scan, &text);
            }
        }
        ("event_msg", "agent_message") => {
            if let Some(text) = string(payload.message) {
                scan.assistant_text(&text);
            }
        }
        ("compacted", _) => {
            if let Some(message) = string(payload.message) {
                let at = parsed.timestamp.as_deref();
                scan.found_summary(Found::new(Source::Codex, &message, at));
            }
        }
        ("response_item", "function_call") => function_call(scan, &payload),
        ("response_item", "custom_tool_call") => {
            let (Some(id), Some(name)) = (string(payload.call_id), string(payload.name)) else {
                return;
            };
            if name == "apply_patch"
                && let Some(patch) = string(payload.input)
            {
                for path in patch_files(&patch) {
                    scan.call_started(&id, Call::Edit(path));
                }
            }
        }
        ("response_item", "function_call_output" | "custom_tool_call_output") => {
            if let Some(id) = string(payload.call_id) {
                output(scan, &id, payload.output);
            }
        }
        _ => {}
    }
}

/// An `item_completed` event: the user's message, the assistant's, a patch's outcome, an MCP
/// call's outcome.
fn completed(scan: &mut Scan, item: &RawValue) {
    let Ok(item) = serde_json::from_str::<Item>(item.get()) else {
        scan.skipped += 1;
        return;
    };
    match item.kind.as_deref() {
        Some("UserMessage") => {
            if let Some(text) = text_of(item.content) {
                request(scan, &text);
            }
        }
        Some("AgentMessage") => {
            if let Some(text) = text_of(item.content) {
                scan.assistant_text(&text);
            }
        }
        Some("FileChange") => {
            // The patch Codex applied, with its absolute paths: it replaces the names read
            // from the command (relative to its directory), whatever its outcome.
            if let Some(id) = string(item.id) {
                for call in scan.take_pending(&id) {
                    if !matches!(call, Call::Edit(_)) {
                        scan.call_started(&id, call);
                    }
                }
            }
            if string(item.status).as_deref() != Some("completed") {
                return;
            }
            let Some(changes) = item
                .changes
                .and_then(|c| serde_json::from_str::<BTreeMap<Cow<str>, FileChange>>(c.get()).ok())
            else {
                return;
            };
            for (path, change) in changes.iter().take(MAX_PATCH_FILES) {
                scan.edited(path.to_string());
                if let Some(to) = string(change.move_path) {
                    scan.edited(to.into_owned());
                }
            }
        }
        Some("McpToolCall") => {
            if let Some(id) = string(item.id) {
                scan.take_pending(&id);
            }
            let ok = string(item.status).as_deref() == Some("completed")
                && item.error.is_none()
                && !item
                    .result
                    .and_then(|r| serde_json::from_str::<McpResult>(r.get()).ok())
                    .and_then(|r| r.is_error)
                    .unwrap_or(false);
            let (Some(server), Some(tool)) = (string(item.server), string(item.tool)) else {
                return;
            };
            if ok
                && server == "megg"
                && let Some(call) = megg_tool_call(&tool, item.arguments.map_or("{}", |a| a.get()))
            {
                scan.call_done(call);
            }
        }
        _ => {}
    }
}

/// A `function_call`: a shell command (a patch, a `megg checkpoint`), a patch, the plan or
/// the goal. Each takes effect once its output says it succeeded.
fn function_call(scan: &mut Scan, payload: &Payload) {
    let (Some(id), Some(name)) = (string(payload.call_id), string(payload.name)) else {
        return;
    };
    // The arguments are a JSON document inside a JSON string.
    let arguments = string(payload.arguments);
    let args = arguments
        .as_deref()
        .and_then(|a| serde_json::from_str::<Arguments>(a).ok())
        .unwrap_or_default();
    match name.as_ref() {
        "exec_command" | "shell" | "shell_command" | "container.exec" | "local_shell" => {
            let Some(command) = command_text(args.cmd.or(args.command)) else {
                return;
            };
            if command.contains("apply_patch") || command.contains("applypatch") {
                for path in patch_files(&command) {
                    scan.call_started(&id, Call::Edit(path));
                }
            }
            for call in shell_call(&command).into_iter().chain(run_call(&command)) {
                scan.call_started(&id, call);
            }
        }
        "apply_patch" => {
            let patch = string(args.input).or_else(|| string(payload.input));
            for path in patch.as_deref().map(patch_files).unwrap_or_default() {
                scan.call_started(&id, Call::Edit(path));
            }
        }
        "update_plan" => {
            if let Some(plan) = args.plan.and_then(plan_list) {
                scan.call_started(&id, Call::TodoWrite(plan));
            }
        }
        // The goal is read from the output, which holds it whole.
        "create_goal" | "update_goal" | "get_goal" => {
            scan.call_started(&id, Call::TodoWrite(Vec::new()));
        }
        _ => {}
    }
}

/// A call's output: the calls awaiting it take effect when it succeeded.
fn output(scan: &mut Scan, id: &str, output: Option<&RawValue>) {
    let calls = scan.take_pending(id);
    if calls.is_empty() {
        return;
    }
    let text = text_of(output).unwrap_or_default();
    let code = exit_code(&text);
    let exit_ok = code == Some(0);
    for call in calls {
        match call {
            // A run still going (`Process running with session ID …`) says nothing yet.
            Call::Run(command) => {
                if let Some(code) = code {
                    scan.shell_ran(id, &command, code == 0, &text);
                }
            }
            Call::TodoWrite(plan) => {
                if let Some(goal) = goal_list(&text) {
                    scan.call_done(Call::TodoWrite(goal));
                } else if text.trim_start().starts_with("Plan updated") {
                    scan.call_done(Call::TodoWrite(plan));
                }
            }
            call if exit_ok => scan.call_done(call),
            _ => {}
        }
    }
}

/// A request the user typed, unless it is one of the harness's own texts.
fn request(scan: &mut Scan, text: &str) {
    if !harness_text(text) {
        scan.user_request(text);
    }
}

/// Whether a user-role text is one the harness wrote (context, instructions, compaction).
fn harness_text(text: &str) -> bool {
    let text = text.trim_start();
    HARNESS_OPENINGS.iter().any(|o| text.starts_with(o))
}

/// A shell command as text: a string, or its words one a line (`["bash", "-lc", script]`).
fn command_text(raw: Option<&RawValue>) -> Option<String> {
    let raw = raw?;
    if let Some(s) = string(Some(raw)) {
        return Some(s.into_owned());
    }
    let words = serde_json::from_str::<Vec<Cow<str>>>(raw.get()).ok()?;
    Some(words.join("\n"))
}

/// The files an `apply_patch` patch names (`*** Add File: p`, `*** Update File: p`,
/// `*** Delete File: p`, `*** Move to: p`), each once, in order.
pub(crate) fn patch_files(text: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    let mut files: Vec<String> = Vec::new();
    if !text.contains("*** Begin Patch") {
        return files;
    }
    for line in text.lines() {
        let line = line.trim();
        let Some(path) = HEADERS.iter().find_map(|h| line.strip_prefix(h)) else {
            continue;
        };
        let path = path.trim();
        if !path.is_empty() && !files.iter().any(|f| f == path) {
            if files.len() >= MAX_PATCH_FILES {
                break;
            }
            files.push(path.to_string());
        }
    }
    files
}

/// The exit code a shell call's output reports: `Process exited with code N` (unified exec),
/// `Exit code: N` (the shell tools, an intercepted `apply_patch`), or the older JSON
/// `{"output", "metadata": {"exit_code"}}`. The first one said counts.
fn exit_code(text: &str) -> Option<i64> {
    if text.trim_start().starts_with('{') {
        return serde_json::from_str::<LegacyShellOutput>(text)
            .ok()
            .map(|o| o.metadata.exit_code);
    }
    let found = ["Process exited with code ", "Exit code: "]
        .iter()
        .filter_map(|m| text.find(m).map(|at| at + m.len()))
        .min()?;
    let digits: String = text
        .get(found..)?
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// `update_plan`'s list: `[{step, status}]`, statuses `pending|in_progress|completed`.
fn plan_list(raw: &RawValue) -> Option<Vec<Task>> {
    let steps = serde_json::from_str::<Vec<PlanStep>>(raw.get()).ok()?;
    Some(
        steps
            .iter()
            .take(MAX_TASKS)
            .filter_map(|s| {
                let step = string(s.step)?;
                let status = TaskStatus::parse(&string(s.status)?)?;
                Task::todo(&step, status)
            })
            .collect(),
    )
}

/// The goal a goal tool's output holds, as a one-task list (none when the goal is cleared):
/// in progress while `active`, completed once `complete`, pending otherwise (paused,
/// blocked, out of budget).
fn goal_list(text: &str) -> Option<Vec<Task>> {
    let text = text.trim();
    if !text.starts_with('{') {
        return None;
    }
    let out = serde_json::from_str::<GoalOutput>(text).ok()?;
    let Some(goal) = out.goal else {
        return Some(Vec::new());
    };
    let objective = string(goal.objective)?;
    let status = match string(goal.status).as_deref() {
        Some("active") => TaskStatus::InProgress,
        Some("complete") => TaskStatus::Completed,
        _ => TaskStatus::Pending,
    };
    Some(Task::todo(&objective, status).into_iter().collect())
}

#[cfg(test)]
#[path = "codex_tests.rs"]
mod tests;
