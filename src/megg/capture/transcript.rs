//! Reading a Claude Code transcript (JSON lines) into the facts a handoff needs (SPEC §10):
//! the requests, the task list, the files edited, the checkpoint touched and the last thing
//! the assistant said.
//!
//! The transcript is another program's log, so reading it is defensive: a line that is not
//! JSON, a line of a kind megg does not know, a field of the wrong type — each is skipped,
//! never an error. [`Scan`] is the state of one streaming pass; it is serialisable, so the next
//! capture continues where this one stopped instead of reading the whole file again. What it
//! keeps of the text it reads is redacted when kept (`super::kept`): a pass ([`Scan::hold`]
//! to [`Scan::seal`]) scans for secrets the requests, message and failing run it ends with,
//! not every one a later line replaced.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::acknowledgement::is_acknowledgement;
pub use super::calls::{Call, Task, TaskStatus};
use super::failures::{self, FailingRun};
use super::kept::{Held, MAX_HELD_BYTES, MAX_HELD_TASK_BYTES, cut, one_line};
pub use super::kept::{MAX_MESSAGE_CHARS, MAX_REQUEST_CHARS, cut_chars, one_line_cut};
use super::summary::{Found, Source};
use crate::megg::secrets::redact;

/// Most distinct files remembered (the handoff shows 30).
const MAX_FILES: usize = 200;
/// Most tasks remembered (a saved scan stays far below its 1 MiB bound).
pub const MAX_TASKS: usize = 200;
/// Most tool calls awaiting their result.
const MAX_PENDING: usize = 64;
/// Most characters kept of a test or build command awaiting its result.
const MAX_COMMAND_CHARS: usize = 2_000;
/// Most shell runs remembered as read (a host that writes a record again must not run it twice).
const MAX_RUNS_SEEN: usize = 32;

/// A JSON string's text, borrowed where it has no escapes; anything else is `None`.
pub fn json_str(raw: Option<&RawValue>) -> Option<Cow<'_, str>> {
    serde_json::from_str::<Cow<str>>(raw?.get()).ok()
}

/// What one streaming pass over a transcript (and its subagents') found so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scan {
    pub first_request: Option<String>,
    /// The latest substantive request: an acknowledgement never replaces it (SPEC §18.2).
    pub latest_request: Option<String>,
    /// The acknowledgement ([`is_acknowledgement`]) the user sent after the latest request,
    /// if any; the next substantive request clears it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack: Option<String>,
    /// From `TaskCreate` / `TaskUpdate`, in creation order.
    pub tasks: Vec<Task>,
    /// The last list `TodoWrite` set.
    pub todos: Vec<Task>,
    /// Absolute paths of files created or edited, oldest first, each once.
    pub files: VecDeque<String>,
    /// The workflow checkpoint a `megg checkpoint` command or tool named last.
    pub checkpoint: Option<String>,
    pub last_message: Option<String>,
    /// The last failing test or build run, unless a later run of the same runner and scope
    /// passed (SPEC §18.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing: Option<FailingRun>,
    /// The newest summary the host wrote when it compacted the session (SPEC §18.1): kept
    /// beside the handoff, never part of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Found>,
    /// Fingerprints of the shell runs already recorded, the newest few.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    runs_seen: Vec<u64>,
    /// Tool calls whose result has not been read yet: they count only once they succeeded.
    pending: VecDeque<(String, Call)>,
    /// Successful `TaskUpdate`s for ids not created yet (a subagent's transcript is read after
    /// the main one): applied when the task appears, so the result does not depend on the
    /// order the files are read in.
    #[serde(default)]
    early_updates: VecDeque<Call>,
    /// Fingerprints ([`fingerprint`]) of the context hooks injected into the session
    /// (Copilot's `hook.end` `additionalContext`), so that the same text arriving as a user
    /// message is never taken for a request. The newest few are kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) injected: Vec<u64>,
    /// Lines read, and lines skipped as not understood.
    pub lines: u64,
    pub skipped: u64,
    /// What this pass read for the requests, last message and failing run, as read: a later
    /// line may still replace it (`super::kept`).
    #[serde(skip)]
    held: Held,
    /// Whether [`Held`] texts wait for [`Scan::seal`] ([`Scan::hold`]) or are redacted at once.
    #[serde(skip)]
    holding: bool,
}

/// Where a line comes from: the session itself, or one of its subagents (whose requests and
/// messages are the main agent's business, but whose edits and tasks are the session's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Main,
    Subagent,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default, rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(default, rename = "isCompactSummary")]
    compact_summary: Option<bool>,
    #[serde(default, rename = "isSidechain")]
    sidechain: Option<bool>,
    #[serde(borrow)]
    message: Option<Message<'a>>,
    #[serde(rename = "toolUseResult", borrow)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    is_error: Option<bool>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

/// Any JSON value read leniently as text: strings as they are, numbers as written.
#[derive(Deserialize)]
#[serde(untagged)]
enum Lenient {
    Text(String),
    Number(serde_json::Number),
    Other(serde::de::IgnoredAny),
}

impl Lenient {
    fn text(self) -> Option<String> {
        match self {
            Lenient::Text(s) => Some(s),
            Lenient::Number(n) => Some(n.to_string()),
            Lenient::Other(_) => None,
        }
    }
}

fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<Lenient>::deserialize(d)?.and_then(Lenient::text))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolInput {
    file_path: Option<String>,
    notebook_path: Option<String>,
    #[serde(deserialize_with = "lenient")]
    subject: Option<String>,
    #[serde(deserialize_with = "lenient")]
    description: Option<String>,
    #[serde(rename = "taskId", deserialize_with = "lenient")]
    task_id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    status: Option<String>,
    todos: Option<Vec<TodoItem>>,
    command: Option<String>,
    plan_file: Option<String>,
    target: Option<String>,
}

#[derive(Deserialize)]
struct TodoItem {
    #[serde(default, deserialize_with = "lenient")]
    content: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    status: Option<String>,
}

#[derive(Deserialize)]
struct CreatedResult {
    task: CreatedTask,
}

#[derive(Deserialize)]
struct CreatedTask {
    #[serde(deserialize_with = "lenient")]
    id: Option<String>,
}

/// Claude Code's own commands: typing them is not a request to the agent.
const BUILTIN_COMMANDS: [&str; 22] = [
    "/clear",
    "/compact",
    "/context",
    "/cost",
    "/help",
    "/model",
    "/status",
    "/config",
    "/login",
    "/logout",
    "/exit",
    "/resume",
    "/mcp",
    "/doctor",
    "/memory",
    "/permissions",
    "/hooks",
    "/agents",
    "/plugin",
    "/usage",
    "/rewind",
    "/export",
];

impl Scan {
    /// Reads one line of a transcript. Never fails: what it does not understand is skipped.
    pub fn feed(&mut self, line: &str, origin: Origin) {
        self.lines += 1;
        let line = line.trim_end_matches(['\n', '\r']);
        if line.is_empty() {
            return;
        }
        // Most of a transcript's bytes are lines megg has no use for (system prompts, request
        // shapes, attachments); skip them before parsing.
        if !line.contains("\"user\"") && !line.contains("\"assistant\"") {
            return;
        }
        let Ok(parsed) = serde_json::from_str::<Line>(line) else {
            self.skipped += 1;
            return;
        };
        let sidechain = origin == Origin::Subagent || parsed.sidechain == Some(true);
        let Some(content) = parsed.message.as_ref().and_then(|m| m.content) else {
            return;
        };
        match parsed.kind.as_deref() {
            // The summary Claude Code wrote when it compacted the session (a subagent's is not
            // the session's): never a request.
            Some("user") if parsed.compact_summary == Some(true) && !sidechain => {
                let text = content_text(Some(content));
                let at = parsed.timestamp.as_deref();
                self.found_summary(Found::new(Source::ClaudeTranscript, &text, at));
            }
            Some("user") => {
                let meta = parsed.is_meta == Some(true) || parsed.compact_summary == Some(true);
                self.user(content, parsed.tool_use_result, meta || sidechain);
            }
            Some("assistant") => self.assistant(content, sidechain),
            _ => {}
        }
    }

    fn user(&mut self, content: &RawValue, result: Option<&RawValue>, not_a_request: bool) {
        if let Ok(text) = serde_json::from_str::<Cow<str>>(content.get()) {
            if !not_a_request {
                self.request(&text);
            }
            return;
        }
        let Ok(blocks) = serde_json::from_str::<Vec<Block>>(content.get()) else {
            self.skipped += 1;
            return;
        };
        let mut prompt = String::new();
        let mut had_result = false;
        for b in &blocks {
            match b.kind.as_ref() {
                "tool_result" => {
                    had_result = true;
                    if let Some(id) = &b.tool_use_id {
                        self.result(id, b.is_error == Some(true), result, b.content);
                    }
                }
                "text" => {
                    if let Some(t) = &b.text {
                        if !prompt.is_empty() {
                            prompt.push('\n');
                        }
                        prompt.push_str(t);
                    }
                }
                _ => {}
            }
        }
        if !had_result && !not_a_request {
            self.request(&prompt);
        }
    }

    /// A prompt the user typed: a slash command as the command and its arguments; Claude
    /// Code's own commands and its injected notes are not requests (`/clear` starts over).
    fn request(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty()
            || text.starts_with("<local-command-")
            || text.starts_with("<system-reminder>")
            || text.starts_with("Caveat: ")
            || text.starts_with("[Request interrupted")
            || text.starts_with("<bash-")
            || text.starts_with("<task-notification>")
        {
            return;
        }
        let request = match tag(text, "command-name") {
            Some(name) => {
                let name = name.trim();
                if name == "/clear" {
                    *self = Scan {
                        lines: self.lines,
                        skipped: self.skipped,
                        holding: self.holding,
                        ..Scan::default()
                    };
                    return;
                }
                if BUILTIN_COMMANDS.contains(&name) {
                    return;
                }
                let args = tag(text, "command-args").unwrap_or("").trim();
                if args.is_empty() {
                    name.to_string()
                } else {
                    format!("{name} {args}")
                }
            }
            None => text.to_string(),
        };
        self.take_request(&request);
    }

    /// A request, as read: the first is kept; an acknowledgement after a request is kept after
    /// it, any other request becomes the latest. Each is redacted and cut when it is kept
    /// ([`Scan::seal`]). Whether it is empty or an acknowledgement is judged on it as it will
    /// be shown, its secrets still in: a secret never empties a text, and a text holding one
    /// holds a word no acknowledgement has (its key or prefix, or the secret), as `[redacted]`
    /// is none.
    fn take_request(&mut self, request: &str) {
        let shown = cut(&one_line(request), MAX_REQUEST_CHARS);
        if shown.is_empty() {
            return;
        }
        let held = &mut self.held;
        if self.first_request.is_none() && held.first_request.is_none() {
            held.first_request = Some(request.to_string());
        }
        let has_latest = self.latest_request.is_some() || held.latest_request.is_some();
        if has_latest && is_acknowledgement(&shown) {
            held.ack = Some(request.to_string());
            self.release(request.len());
            return;
        }
        held.latest_request = Some(request.to_string());
        held.ack = None;
        self.ack = None;
        if let Some(summary) = &mut self.summary {
            summary.requests_after = summary.requests_after.saturating_add(1);
        }
        self.release(request.len());
    }

    /// From now on the requests, message and failing run read are held as read until
    /// [`Scan::seal`] (a pass over a transcript), rather than redacted as each is read: what a
    /// later line replaces is never scanned.
    pub fn hold(&mut self) {
        self.holding = true;
    }

    /// Redacts and cuts what was held into the fields it was read for, and holds nothing more:
    /// the end of a pass, before the scan is saved or anything is taken from it.
    pub fn seal(&mut self) {
        self.holding = false;
        self.seal_held();
    }

    fn seal_held(&mut self) {
        let sealed = std::mem::take(&mut self.held).seal();
        self.first_request = sealed.first_request.or(self.first_request.take());
        self.latest_request = sealed.latest_request.or(self.latest_request.take());
        self.ack = sealed.ack.or(self.ack.take());
        self.last_message = sealed.last_message.or(self.last_message.take());
        self.failing = sealed.failing.or(self.failing.take());
        for call in self
            .pending
            .iter_mut()
            .map(|(_, call)| call)
            .chain(self.early_updates.iter_mut())
        {
            call.seal();
        }
    }

    /// Redacts what is held at once unless the scan is holding ([`Scan::hold`]) and the text
    /// just held (`bytes`) is small: what a pass holds stays small.
    fn release(&mut self, bytes: usize) {
        if !self.holding || bytes > MAX_HELD_BYTES {
            self.seal_held();
        }
    }

    fn assistant(&mut self, content: &RawValue, sidechain: bool) {
        let Ok(blocks) = serde_json::from_str::<Vec<Block>>(content.get()) else {
            return;
        };
        for b in blocks {
            match b.kind.as_ref() {
                "text" if !sidechain => {
                    if let Some(t) = b.text.as_deref() {
                        self.assistant_text(t);
                    }
                }
                "tool_use" => {
                    if let (Some(id), Some(name)) = (&b.id, &b.name) {
                        let input = b
                            .input
                            .and_then(|i| serde_json::from_str::<ToolInput>(i.get()).ok())
                            .unwrap_or_default();
                        let run = (name == "Bash")
                            .then(|| input.command.as_deref().and_then(run_call))
                            .flatten();
                        for call in call_of(name, input).into_iter().chain(run) {
                            self.call_started(id, call);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A tool call's result: a successful call takes effect.
    fn result(
        &mut self,
        id: &str,
        is_error: bool,
        tool_use_result: Option<&RawValue>,
        content: Option<&RawValue>,
    ) {
        for call in self.take_pending(id) {
            match call {
                Call::Run(command) => {
                    // Claude Code's failed command: `Exit code N` and its output. Any other
                    // error (a refusal, a timeout) says nothing of the run.
                    let text = content_text(content);
                    if !is_error || text.trim_start().starts_with("Exit code ") {
                        self.shell_ran(id, &command, !is_error, &text);
                    }
                }
                call if !is_error => self.apply(call, tool_use_result, content),
                _ => {}
            }
        }
    }

    /// A successful call takes effect.
    fn apply(
        &mut self,
        call: Call,
        tool_use_result: Option<&RawValue>,
        content: Option<&RawValue>,
    ) {
        match call {
            Call::Edit(path) => self.edited(path),
            Call::Checkpoint(target) => self.checkpoint = Some(target),
            Call::TodoWrite(list) => self.todos = list,
            mut create @ Call::TaskCreate { .. } => {
                let id = tool_use_result
                    .and_then(|r| serde_json::from_str::<CreatedResult>(r.get()).ok())
                    .and_then(|r| r.task.id)
                    .or_else(|| content.and_then(created_id_in_text));
                if self.tasks.len() < MAX_TASKS {
                    create.seal();
                    let Call::TaskCreate {
                        subject,
                        description,
                        ..
                    } = create
                    else {
                        return;
                    };
                    self.tasks.push(Task {
                        id: id.clone(),
                        subject,
                        description,
                        status: TaskStatus::Pending,
                    });
                    let (early, rest): (Vec<Call>, Vec<Call>) = std::mem::take(
                        &mut self.early_updates,
                    )
                    .into_iter()
                    .partition(
                        |u| matches!(u, Call::TaskUpdate { id: u, .. } if Some(u) == id.as_ref()),
                    );
                    self.early_updates = rest.into();
                    for u in early {
                        self.update_task(u);
                    }
                }
            }
            update @ Call::TaskUpdate { .. } => self.update_task(update),
            // A run's outcome is recorded by whoever reads its output ([`Scan::shell_ran`]).
            Call::Run(_) => {}
        }
    }

    /// Applies a `TaskUpdate` to its task, or keeps it until the task is created.
    fn update_task(&mut self, mut update: Call) {
        let Call::TaskUpdate { id, status, .. } = &update else {
            return;
        };
        let Some(i) = self.tasks.iter().position(|t| t.id.as_ref() == Some(id)) else {
            if self.early_updates.len() >= MAX_PENDING {
                self.early_updates.pop_front();
            }
            self.early_updates.push_back(update);
            return;
        };
        if status.as_deref() == Some("deleted") {
            self.tasks.remove(i);
            return;
        }
        update.seal();
        let Call::TaskUpdate {
            status,
            subject,
            description,
            ..
        } = update
        else {
            return;
        };
        let Some(task) = self.tasks.get_mut(i) else {
            return;
        };
        if let Some(s) = status.as_deref().and_then(TaskStatus::parse) {
            task.status = s;
        }
        if let Some(s) = subject {
            task.subject = s;
        }
        if let Some(d) = description {
            task.description = d;
        }
    }

    /// A file the session created, edited or deleted (absolute, or relative to its directory).
    pub fn edited(&mut self, path: String) {
        if let Some(i) = self.files.iter().position(|f| *f == path) {
            self.files.remove(i);
        }
        if self.files.len() >= MAX_FILES {
            self.files.pop_front();
        }
        self.files.push_back(path);
    }

    /// A request the user typed, in a host's transcript whose reader has already left out the
    /// text the host wrote into the user role: redacted, cut to one line of
    /// [`MAX_REQUEST_CHARS`], the first kept and the latest replaced — unless it is an
    /// acknowledgement, kept after the latest ([`is_acknowledgement`]).
    pub fn user_request(&mut self, text: &str) {
        self.take_request(text);
    }

    /// A summary the host wrote when it compacted the session: the newest replaces older ones.
    pub fn found_summary(&mut self, found: Option<Found>) {
        if let Some(found) = found {
            self.summary = Some(found);
        }
    }

    /// A shell command's outcome, read from the host's tool result: a test or build command
    /// ([`failures::classify`]) that failed is kept as the last failing run; one that passed
    /// clears it when of the same runner and scope. `id` is the tool call's: a call read again
    /// (a host writing its record anew) counts once.
    pub fn shell_ran(&mut self, id: &str, command: &str, exit_ok: bool, output: &str) {
        let seen = fingerprint(&format!("{id}\n{command}"));
        if self.runs_seen.contains(&seen) {
            return;
        }
        if self.runs_seen.len() >= MAX_RUNS_SEEN {
            self.runs_seen.remove(0);
        }
        self.runs_seen.push(seen);
        failures::record(
            (&mut self.failing, &mut self.held.failing),
            command,
            exit_ok,
            output,
        );
        let held = self
            .held
            .failing
            .as_ref()
            .map_or(0, failures::Unread::bytes);
        self.release(held);
    }

    /// Text the assistant said (the latest is kept, redacted and cut when kept).
    pub fn assistant_text(&mut self, text: &str) {
        let text = text.trim();
        if !text.is_empty() {
            self.held.last_message = Some(text.to_string());
            self.release(text.len());
        }
    }

    /// A tool call that takes effect once [`Scan::call_finished`] says it succeeded.
    pub fn call_started(&mut self, id: &str, mut call: Call) {
        // What a pass holds as read stays small: a task's long text is redacted at once.
        if call.held_bytes() > MAX_HELD_TASK_BYTES {
            call.seal();
        }
        if self.pending.len() >= MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((id.to_string(), call));
        self.release(0);
    }

    /// A tool call's outcome: a successful one takes effect, a failed one is forgotten.
    pub fn call_finished(&mut self, id: &str, ok: bool) {
        self.result(id, !ok, None, None);
    }

    /// Takes out every call still awaiting call `id`'s result, oldest first: for a host whose
    /// one tool call makes several changes, or whose outcome is told by another line than
    /// the result.
    pub fn take_pending(&mut self, id: &str) -> Vec<Call> {
        if !self.pending.iter().any(|(p, _)| p == id) {
            return Vec::new();
        }
        let (mine, rest): (VecDeque<_>, VecDeque<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|(p, _)| p == id);
        self.pending = rest;
        mine.into_iter().map(|(_, call)| call).collect()
    }

    /// A call known to have succeeded, taking effect now.
    pub fn call_done(&mut self, call: Call) {
        self.apply(call, None, None);
    }

    /// The session's to-do list: the task tools' when it used them, else `TodoWrite`'s.
    pub fn task_list(&self) -> &[Task] {
        if self.tasks.is_empty() {
            &self.todos
        } else {
            &self.tasks
        }
    }
}

/// The call a `tool_use` block makes, when it is one a handoff cares about.
fn call_of(name: &str, input: ToolInput) -> Option<Call> {
    match name {
        "Edit" | "Write" | "MultiEdit" => input.file_path.map(Call::Edit),
        "NotebookEdit" => input.notebook_path.or(input.file_path).map(Call::Edit),
        // The texts as read: redacted and cut once kept ([`Call::seal`]).
        "TaskCreate" => Some(Call::TaskCreate {
            subject: input.subject?,
            description: input.description.unwrap_or_default(),
            held: true,
        }),
        "TaskUpdate" => Some(Call::TaskUpdate {
            id: input.task_id?,
            // Only what a status can be: the call waits in the saved scan for its result.
            status: input
                .status
                .filter(|s| s == "deleted" || TaskStatus::parse(s).is_some()),
            subject: input.subject,
            description: input.description,
            held: true,
        }),
        "TodoWrite" => Some(Call::TodoWrite(
            input
                .todos?
                .into_iter()
                .take(MAX_TASKS)
                .filter_map(|t| Task::todo(&t.content?, TaskStatus::parse(t.status.as_deref()?)?))
                .collect(),
        )),
        "Bash" => checkpoint_in_command(input.command.as_deref()?).map(Call::Checkpoint),
        _ if name.starts_with("mcp__") && name.contains("megg") => {
            megg_tool(name.rsplit("__").next()?, input)
        }
        _ => None,
    }
}

/// The checkpoint a megg MCP tool (`checkpoint_save`, …, by its name without the host's
/// prefix) names, from its arguments as JSON.
pub fn megg_tool_call(tool: &str, arguments: &str) -> Option<Call> {
    megg_tool(tool, serde_json::from_str(arguments).ok()?)
}

fn megg_tool(tool: &str, input: ToolInput) -> Option<Call> {
    let target = match tool {
        "checkpoint_save" => input.plan_file,
        "checkpoint_update" | "checkpoint_finish" | "checkpoint_resume" => {
            input.target.or(input.plan_file)
        }
        _ => None,
    };
    target.map(|t| Call::Checkpoint(redact(&t).into_owned()))
}

/// The checkpoint a shell command line (`megg checkpoint save|update|resume|finish TARGET`)
/// names.
pub fn shell_call(command: &str) -> Option<Call> {
    checkpoint_in_command(command).map(Call::Checkpoint)
}

/// The run a shell command line makes, when it is a test or build command: its outcome counts
/// whether it passed or failed ([`Scan::shell_ran`]).
pub fn run_call(command: &str) -> Option<Call> {
    failures::classify(command).map(|_| Call::Run(cut_chars(command, MAX_COMMAND_CHARS)))
}

/// A tool result's text: a string, or its text blocks one a line.
fn content_text(raw: Option<&RawValue>) -> String {
    let Some(raw) = raw else {
        return String::new();
    };
    if let Some(text) = json_str(Some(raw)) {
        return text.into_owned();
    }
    serde_json::from_str::<Vec<Block>>(raw.get())
        .unwrap_or_default()
        .iter()
        .filter(|b| b.kind == "text")
        .filter_map(|b| b.text.as_deref())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The target of a `megg checkpoint save|update|resume|finish TARGET` in a shell command,
/// redacted: the handoff's workflow line names it (SPEC §12).
fn checkpoint_in_command(command: &str) -> Option<String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.windows(2).position(|w| match w {
        [megg, sub] => (*megg == "megg" || megg.ends_with("/megg")) && *sub == "checkpoint",
        _ => false,
    })?;
    let rest = words.get(at + 2..)?;
    let (sub, args) = rest.split_first()?;
    if !matches!(*sub, "save" | "update" | "resume" | "finish") {
        return None;
    }
    // Options that take a value: their value is not the target.
    const VALUED: [&str; 8] = [
        "--phase",
        "--branch",
        "--check",
        "--uncheck",
        "--for",
        "--choice",
        "--new-plan-file",
        "-C",
    ];
    let mut target = None;
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if VALUED.contains(a) {
            skip = true;
        } else if matches!(*a, "&&" | "||" | ";" | "|") {
            break;
        } else if !a.starts_with('-') {
            target = Some(*a);
            break;
        }
    }
    let target = target?;
    let target = target.trim_matches(['"', '\'']);
    (!target.is_empty() && !target.contains(['&', '|', ';', '$', '`']))
        .then(|| redact(target).into_owned())
}

/// `Task #12 created successfully: …` → `12`.
fn created_id_in_text(content: &RawValue) -> Option<String> {
    let text: String = serde_json::from_str(content.get()).ok()?;
    let rest = text.split("Task #").nth(1)?;
    let id: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!id.is_empty()).then_some(id)
}

/// A stable 64-bit fingerprint (FNV-1a) of a text, trimmed: to recognise a text seen before
/// without keeping it.
pub fn fingerprint(text: &str) -> u64 {
    text.trim().bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The text between `<name>` and `</name>`.
fn tag<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let (_, after) = text.split_once(&format!("<{name}>"))?;
    let (inside, _) = after.split_once(&format!("</{name}>"))?;
    Some(inside)
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
