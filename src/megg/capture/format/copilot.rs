//! GitHub Copilot CLI's session log (`~/.copilot/session-state/<id>/events.jsonl`, one
//! `{type, data, id, timestamp, parentId}` event a line), as Copilot CLI 1.0.102 writes it
//! (SPEC §12).
//!
//! What is read, and from which events:
//! - **Requests**: `user.message` `data.content`, what the user typed (`transformedContent`
//!   adds `<current_datetime>` and is not read). As recorded with megg's hook installed
//!   (`tests/fixtures/transcripts/copilot-1.0.102-megg-context.jsonl`), megg's sessionStart
//!   `additionalContext` is no `user.message` at all: it is in the `hook.end` event's
//!   `data.output`, and the model gets it as a message of its own that the log does not hold;
//!   the compaction's prompt and summary are no `user.message` either (`model.*` and
//!   `session.compaction_complete` events). Still, should a version log them as user messages:
//!   a message whose text is a context a hook injected earlier (its fingerprint is kept from
//!   `hook.end`) is not a request, nor one a sub-agent (`agentId`), a skill or another agent
//!   (`data.source`) or autopilot (`isAutopilotContinuation`) sent, nor one opening like the
//!   compaction's texts.
//! - **Last message**: `assistant.message` `data.content` of the main agent.
//! - **Files**: `tool.execution_complete` with `success: true`: its `fileEdits[].path`, or
//!   else the `path` argument of the `create` / `edit` call its `tool.execution_start` named.
//! - **Checkpoint**: megg's MCP tools (`megg-checkpoint_save`, …: `mcpServerName` `megg`)
//!   and `megg checkpoint …` in a `bash` command, once they succeeded.
//! - **Failing runs**: a test or build command in a `bash` / `powershell` call, with the exit
//!   code its `tool.execution_complete` `result.content` ends with (`<exited with exit code
//!   N>`) and that output.
//! - **Host summary**: the newest `session.compaction_complete` event's `data.summaryContent`
//!   (SPEC §18.1).
//! - **To-do list**: none. Copilot keeps its todos in the `todos` table of the session's
//!   `session.db` (written with its `sql` tool); the log holds only the SQL and an ephemeral,
//!   unlogged `session.todos_changed` signal, so there is no list to read here.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::megg::capture::summary::{Found, Source};
use crate::megg::capture::transcript::{
    Call, Scan, fingerprint, json_str as string, megg_tool_call, run_call, shell_call,
};

/// The event kinds megg reads; a line naming none of them is skipped unparsed.
const WANTED: [&str; 6] = [
    "\"session.compaction_complete\"",
    "\"user.message\"",
    "\"assistant.message\"",
    "\"tool.execution_start\"",
    "\"tool.execution_complete\"",
    "\"additionalContext\"",
];

/// Most injected contexts remembered.
const MAX_INJECTED: usize = 16;

/// How Copilot's own texts in the user role begin: the compaction's request and the summary
/// that replaces the history.
const COPILOT_OPENINGS: [&str; 3] = [
    "Please create a detailed summary of the conversation so far",
    "Some of the conversation history has been summarized",
    "<summary>",
];

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    data: &'a RawValue,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    source: Option<&'a RawValue>,
    #[serde(rename = "isAutopilotContinuation", borrow, default)]
    autopilot: Option<&'a RawValue>,
    #[serde(rename = "parentToolCallId", borrow, default)]
    parent_tool_call: Option<&'a RawValue>,
    #[serde(rename = "toolCallId", borrow, default)]
    tool_call_id: Option<&'a RawValue>,
    #[serde(rename = "toolName", borrow, default)]
    tool_name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "mcpServerName", borrow, default)]
    mcp_server: Option<&'a RawValue>,
    #[serde(rename = "mcpToolName", borrow, default)]
    mcp_tool: Option<&'a RawValue>,
    #[serde(borrow, default)]
    success: Option<&'a RawValue>,
    #[serde(rename = "fileEdits", borrow, default)]
    file_edits: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(rename = "summaryContent", borrow, default)]
    summary_content: Option<&'a RawValue>,
}

/// A tool's result: `content` is what the model read.
#[derive(Deserialize)]
struct ToolResult<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Arguments<'a> {
    #[serde(borrow)]
    path: Option<&'a RawValue>,
    #[serde(borrow)]
    command: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct FileEdit<'a> {
    #[serde(borrow, default)]
    path: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct HookOutput<'a> {
    #[serde(rename = "additionalContext", borrow, default)]
    additional_context: Option<&'a RawValue>,
}

fn is_true(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get() == "true")
}

/// Reads one event of the log into `scan`.
pub fn feed(scan: &mut Scan, line: &str) {
    scan.lines += 1;
    let line = line.trim_end_matches(['\n', '\r']);
    if line.is_empty() || !WANTED.iter().any(|w| line.contains(w)) {
        return;
    }
    let Ok(event) = serde_json::from_str::<Event>(line) else {
        scan.skipped += 1;
        return;
    };
    let Ok(data) = serde_json::from_str::<Data>(event.data.get()) else {
        scan.skipped += 1;
        return;
    };
    let sub_agent = event.agent_id.is_some() || data.parent_tool_call.is_some();
    match event.kind.as_ref() {
        "user.message" if !sub_agent => user(scan, &data),
        "assistant.message" if !sub_agent => {
            if let Some(text) = string(data.content) {
                scan.assistant_text(&text);
            }
        }
        "tool.execution_start" => started(scan, &data),
        "tool.execution_complete" => complete(scan, &data),
        "session.compaction_complete" => {
            if let Some(text) = string(data.summary_content) {
                let at = event.timestamp.as_deref();
                scan.found_summary(Found::new(Source::Copilot, &text, at));
            }
        }
        "hook.end" => {
            let context = data
                .output
                .and_then(|o| serde_json::from_str::<HookOutput>(o.get()).ok())
                .and_then(|o| string(o.additional_context));
            if let Some(context) = context.filter(|c| !c.trim().is_empty()) {
                let print = fingerprint(&context);
                scan.injected.retain(|p| *p != print);
                if scan.injected.len() >= MAX_INJECTED {
                    scan.injected.remove(0);
                }
                scan.injected.push(print);
            }
        }
        _ => {}
    }
}

fn user(scan: &mut Scan, data: &Data) {
    // Typed messages carry no `source` (as recorded); any other origin is not the user.
    let from_elsewhere = data
        .source
        .is_some_and(|raw| string(Some(raw)).is_none_or(|s| !s.is_empty() && s != "user"));
    if from_elsewhere || is_true(data.autopilot) {
        return;
    }
    let Some(text) = string(data.content) else {
        return;
    };
    let text = without_datetime(&text);
    if scan.injected.contains(&fingerprint(text))
        || COPILOT_OPENINGS.iter().any(|o| text.starts_with(o))
    {
        return;
    }
    scan.user_request(text);
}

/// The text without the `<current_datetime>…</current_datetime>` Copilot puts first.
fn without_datetime(text: &str) -> &str {
    let text = text.trim_start();
    if text.starts_with("<current_datetime>")
        && let Some((_, after)) = text.split_once("</current_datetime>")
    {
        return after.trim_start();
    }
    text
}

/// A tool starting: the change it makes once it succeeds.
fn started(scan: &mut Scan, data: &Data) {
    let (Some(id), Some(name)) = (string(data.tool_call_id), string(data.tool_name)) else {
        return;
    };
    let arguments = data.arguments.map_or("{}", |a| a.get());
    let mcp_tool = match string(data.mcp_server).as_deref() {
        Some("megg") => string(data.mcp_tool),
        Some(_) => None,
        None => name
            .strip_prefix("megg-")
            .map(|t| Cow::Owned(t.to_string())),
    };
    let calls = if let Some(tool) = mcp_tool {
        megg_tool_call(&tool, arguments).into_iter().collect()
    } else {
        let args = serde_json::from_str::<Arguments>(arguments).unwrap_or_default();
        match name.as_ref() {
            "create" | "edit" => string(args.path)
                .filter(|p| !p.is_empty())
                .map(|p| Call::Edit(p.into_owned()))
                .into_iter()
                .collect(),
            "bash" | "powershell" => string(args.command)
                .map(|c| shell_call(&c).into_iter().chain(run_call(&c)).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    };
    for call in calls {
        scan.call_started(&id, call);
    }
}

/// A tool's outcome: when it succeeded, the files it committed (`fileEdits`, which Copilot
/// writes for its own editing tools) and the calls awaiting it take effect.
fn complete(scan: &mut Scan, data: &Data) {
    let id = string(data.tool_call_id).unwrap_or_default();
    let mut calls = scan.take_pending(&id);
    // A test or build command: its outcome, whichever it is.
    let output = data
        .result
        .and_then(|r| serde_json::from_str::<ToolResult>(r.get()).ok())
        .and_then(|r| string(r.content))
        .unwrap_or_default();
    calls.retain(|call| match call {
        Call::Run(command) => {
            if let Some((text, code)) = exit_code(&output) {
                scan.shell_ran(&id, command, code == 0, text);
            }
            false
        }
        _ => true,
    });
    if !is_true(data.success) {
        return;
    }
    let edits: Vec<String> = data
        .file_edits
        .and_then(|e| serde_json::from_str::<Vec<FileEdit>>(e.get()).ok())
        .unwrap_or_default()
        .iter()
        .filter_map(|e| string(e.path))
        .filter(|p| !p.is_empty())
        .map(Cow::into_owned)
        .collect();
    let committed = !edits.is_empty();
    for path in edits {
        scan.edited(path);
    }
    for call in calls {
        if !(committed && matches!(call, Call::Edit(_))) {
            scan.call_done(call);
        }
    }
}

/// The output of a shell call and its exit code, from the `<exited with exit code N>` line
/// Copilot ends it with; `None` without one (a command still running, or refused).
fn exit_code(output: &str) -> Option<(&str, i64)> {
    const MARK: &str = "<exited with exit code ";
    let at = output.rfind(MARK)?;
    let code = output
        .get(at + MARK.len()..)?
        .split('>')
        .next()?
        .trim()
        .parse()
        .ok()?;
    Some((output.get(..at).unwrap_or_default(), code))
}

#[cfg(test)]
#[path = "copilot_tests.rs"]
mod tests;
