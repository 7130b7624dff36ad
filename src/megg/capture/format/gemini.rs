//! Gemini CLI's chat (`session-*.jsonl`), as Gemini CLI 0.61.0 writes it (SPEC §12): a
//! metadata line, then one message record a line (`{id, timestamp, type, content, …}`), and
//! `{"$set": …}` / `{"$rewindTo": …}` patch lines.
//!
//! What is read, and from which lines:
//! - **Requests**: `user` records whose content holds text, not `functionResponse` parts (those
//!   are tool results); the `displayContent` the user saw when there is one. Not requests: a
//!   text opening with `<session_context>` (Gemini's environment), a compression summary
//!   (`<state_snapshot>`); a `<hook_context>…</hook_context>` block (megg's SessionStart
//!   context, prepended to the prompt; a BeforeAgent hook's, appended) is cut out and the rest
//!   kept, and so are the files an `@` reference pasted after the prompt.
//! - **Last message**: `gemini` records' text, but not thoughts nor the "Got it" Gemini writes
//!   after a compression.
//! - **Files / to-do list / checkpoint**: the `toolCalls` of `gemini` records whose `status` is
//!   `success`: `write_file` and `replace` (`args.file_path`), `write_todos` (`args.todos`),
//!   `run_shell_command` (`megg checkpoint …`), megg's MCP tools (`mcp_megg_<tool>`).
//!   Gemini writes a record again each time it changes (first without its tool calls, then
//!   with them, then with its token counts): every one of these takes effect as often as it is
//!   read, to the same result.
//! - **Failing runs**: a test or build command in `run_shell_command`, with the exit code
//!   and the output of its `functionResponse` (`Output: …`, then `Exit Code: N` when not 0).
//!   A call read again (its record written anew) counts once.
//! - **Host summary**: none (SPEC §18.1); a compression's `<state_snapshot>` is not one.
//! - `$set` lines are skipped: their `messages` (a whole history, after a rollback or a
//!   compression) repeat records already read, besides the compression's own.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::megg::capture::transcript::{
    Call, MAX_TASKS, Scan, Task, TaskStatus, json_str as string, megg_tool_call, run_call,
    shell_call,
};

/// Gemini's answer after a compression, written as the model's (`chatCompressionService`).
const COMPRESSION_ACK: &str = "Got it. Thanks for the additional context!";
/// What Gemini appends to a prompt for its `@file` references.
const REFERENCED_FILES: &str = "--- Content from referenced files ---";

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(rename = "displayContent", borrow, default)]
    display_content: Option<&'a RawValue>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<&'a RawValue>,
}

/// One part of a content list: text, a thought, a tool result, …
#[derive(Deserialize)]
struct Part<'a> {
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thought: Option<&'a RawValue>,
    #[serde(rename = "functionResponse", borrow, default)]
    function_response: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
}

/// A tool result part: `{functionResponse: {response: {output}}}`.
#[derive(Deserialize)]
struct ResultPart<'a> {
    #[serde(rename = "functionResponse", borrow)]
    function_response: FunctionResponse<'a>,
}

#[derive(Deserialize)]
struct FunctionResponse<'a> {
    #[serde(borrow)]
    response: Response<'a>,
}

#[derive(Deserialize)]
struct Response<'a> {
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Args<'a> {
    #[serde(borrow)]
    file_path: Option<&'a RawValue>,
    #[serde(borrow)]
    todos: Option<&'a RawValue>,
    #[serde(borrow)]
    command: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Todo<'a> {
    #[serde(borrow, default)]
    description: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
}

/// A content: its text (a string, or the text parts but thoughts, one a line), and whether it
/// holds a tool's result. `None` when it is neither a string nor a list of parts.
fn content(raw: &RawValue) -> Option<(String, bool)> {
    if let Some(s) = string(Some(raw)) {
        return Some((s.into_owned(), false));
    }
    let parts = serde_json::from_str::<Vec<Part>>(raw.get()).ok()?;
    let mut text = String::new();
    let mut result = false;
    for p in &parts {
        result |= p.function_response.is_some();
        if p.thought.is_some_and(|t| t.get() == "true") {
            continue;
        }
        if let Some(t) = string(p.text) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&t);
        }
    }
    Some((text, result))
}

/// Reads one line of the chat into `scan`.
pub fn feed(scan: &mut Scan, line: &str) {
    scan.lines += 1;
    let line = line.trim_end_matches(['\n', '\r']);
    let start = line.trim_start();
    // Patches (`$set`, `$rewindTo`) and lines that are no user or model record.
    if start.is_empty()
        || start.starts_with("{\"$")
        || (!line.contains("\"user\"") && !line.contains("\"gemini\""))
    {
        return;
    }
    let Ok(record) = serde_json::from_str::<Record>(line) else {
        scan.skipped += 1;
        return;
    };
    match record.kind.as_deref() {
        Some("user") => user(scan, &record),
        Some("gemini") => model(scan, &record),
        _ => {}
    }
}

fn user(scan: &mut Scan, record: &Record) {
    let Some((text, result)) = record.content.and_then(content) else {
        return;
    };
    if result {
        return;
    }
    let shown = record
        .display_content
        .and_then(content)
        .map(|(t, _)| t)
        .filter(|t| !t.trim().is_empty());
    if let Some(request) = request_text(shown.as_deref().unwrap_or(&text)) {
        scan.user_request(&request);
    }
}

/// What the user asked in a user record's text: without the hooks' context and the
/// referenced files' contents; `None` for the texts Gemini writes itself.
pub(crate) fn request_text(text: &str) -> Option<String> {
    if text.contains("<state_snapshot>") {
        return None;
    }
    let mut rest = String::with_capacity(text.len());
    let mut tail = text;
    loop {
        let Some((before, after)) = tail.split_once("<hook_context>") else {
            rest.push_str(tail);
            break;
        };
        rest.push_str(before);
        // A block never closed (a cut line) is context to its end.
        let Some((_, after)) = after.split_once("</hook_context>") else {
            break;
        };
        tail = after;
    }
    if let Some(at) = rest.find(REFERENCED_FILES) {
        rest.truncate(at);
    }
    let rest = rest.trim();
    (!rest.is_empty() && !rest.starts_with("<session_context>")).then(|| rest.to_string())
}

fn model(scan: &mut Scan, record: &Record) {
    if let Some((text, _)) = record.content.and_then(content)
        && text.trim() != COMPRESSION_ACK
    {
        scan.assistant_text(&text);
    }
    let Some(calls) = record
        .tool_calls
        .and_then(|c| serde_json::from_str::<Vec<ToolCall>>(c.get()).ok())
    else {
        return;
    };
    for call in &calls {
        if string(call.status).as_deref() != Some("success") {
            continue;
        }
        let Some(name) = string(call.name) else {
            continue;
        };
        if name == "run_shell_command" {
            ran(scan, call);
        }
        if let Some(call) = call_of(&name, call.args) {
            scan.call_done(call);
        }
    }
}

/// A shell call that ran: its outcome when it is a test or build command. Its output is
/// `Output: …`, then `Exit Code: N` when N is not 0 (Gemini CLI 0.61.0); one cancelled or
/// moved to the background says nothing of the run.
fn ran(scan: &mut Scan, call: &ToolCall) {
    let Some(command) = call
        .args
        .and_then(|a| serde_json::from_str::<Args>(a.get()).ok())
        .and_then(|a| string(a.command))
    else {
        return;
    };
    // The command as a run keeps it: redacted and cut, its scope included (SPEC §12).
    let Some(Call::Run(command)) = run_call(&command) else {
        return;
    };
    let output = call
        .result
        .and_then(|r| serde_json::from_str::<Vec<ResultPart>>(r.get()).ok())
        .and_then(|parts| {
            parts
                .iter()
                .find_map(|p| string(p.function_response.response.output))
                .map(Cow::into_owned)
        })
        .unwrap_or_default();
    if !output.starts_with("Output:") && !output.starts_with("Command:") {
        return;
    }
    let code = output
        .lines()
        .find_map(|l| l.strip_prefix("Exit Code: "))
        .and_then(|c| c.trim().parse::<i64>().ok())
        .unwrap_or(0);
    let id = string(call.id).unwrap_or_default();
    let text = output_of(&output);
    scan.shell_ran(&id, &command, code == 0, &text);
}

/// The run's own output in a `run_shell_command` response: after `Output: ` (wherever that line
/// is: older versions open with `Command: …` and `Directory: …`), up to Gemini's own
/// `Error:`/`Exit Code:`/`Signal:` lines — with the error when it is not `(none)`.
fn output_of(response: &str) -> String {
    let body = response
        .strip_prefix("Output: ")
        .or_else(|| response.split_once("\nOutput: ").map(|(_, rest)| rest))
        .unwrap_or(response);
    let mut out = String::with_capacity(body.len());
    for line in body.lines() {
        if let Some(error) = line.strip_prefix("Error: ") {
            if error.trim() != "(none)" {
                out.push_str(error);
                out.push('\n');
            }
            break;
        }
        if line.starts_with("Exit Code: ") || line.starts_with("Signal: ") {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The change a successful tool call makes to the handoff, if any.
fn call_of(name: &str, args: Option<&RawValue>) -> Option<Call> {
    if let Some(tool) = name.strip_prefix("mcp_megg_") {
        return megg_tool_call(tool, args.map_or("{}", |a| a.get()));
    }
    let args = args
        .and_then(|a| serde_json::from_str::<Args>(a.get()).ok())
        .unwrap_or_default();
    match name {
        "write_file" | "replace" => string(args.file_path)
            .filter(|p| !p.is_empty())
            .map(|p| Call::Edit(p.into_owned())),
        "write_todos" => {
            let todos = serde_json::from_str::<Vec<Todo>>(args.todos?.get()).ok()?;
            Some(Call::TodoWrite(
                todos.iter().take(MAX_TASKS).filter_map(todo).collect(),
            ))
        }
        "run_shell_command" => shell_call(&string(args.command)?),
        _ => None,
    }
}

/// A `write_todos` item: `pending`, `in_progress`, `completed` as they are, `blocked` still to
/// do; `cancelled` ones are left out.
fn todo(t: &Todo) -> Option<Task> {
    let status = match string(t.status)?.as_ref() {
        "blocked" => TaskStatus::Pending,
        s => TaskStatus::parse(s)?,
    };
    Task::todo(&string(t.description)?, status)
}

#[cfg(test)]
#[path = "gemini_tests.rs"]
mod tests;
