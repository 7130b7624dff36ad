//! `megg mcp`: a stdio MCP server over every capability (SPEC §7), built on rmcp.
//!
//! Each tool turns its typed parameters into the matching command's request (the same
//! `commands::*::Args` values clap builds for the CLI, never an argv string) and runs it through
//! the same `run` as the CLI, so behaviour and output can never diverge and errors are megg's
//! own, not an argument parser's.
//!
//! What the model reads (SPEC §7): Claude Code shows a result's `structuredContent` when there
//! is one, else its text. So `context` and `state` return text only — the markdown an agent
//! reads, `context` within its character budget — and `context` adds `structuredContent` only
//! when asked for `format: "json"`. Every other tool declares an `outputSchema` (its wire
//! type's keys and closed sets, `schema.rs`) and returns `structuredContent` = the command's
//! `--json` document with the same JSON as text. Failures are results with `isError: true`
//! and megg's `error:` / `hint:` text.
//! Calls run on the blocking pool, off the protocol loop, so `ping` and cancellation are
//! answered while one works. stdout carries the protocol only.

mod params;
mod schema;
mod transport;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{
    ErrorData as McpError, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router,
};

use std::path::{Path, PathBuf};

use crate::cli::Command;
use crate::clock::Clock;
use crate::commands::{
    checkpoint, context, gitignore, init, learn, maintain, page, search, show, state,
};
use crate::env::Env;
use crate::error::Error;
use crate::wire;
use params::{
    ContextFormat, ContextParams, GitignoreParams, InitParams, LearnParams, ListParams,
    MaintainParams, ResumeParams, SaveParams, SearchParams, ShowParams, StateParams, StateStatus,
    TargetParams, UpdateParams,
};

/// The markdown budget of the `context` tool when the caller gives none (the hook's default).
const CONTEXT_MAX_CHARS: usize = 9_500;
/// No tool result is longer than this (SPEC §7).
const MAX_RESULT_CHARS: usize = 10_000;
/// The most characters of one `search` result (SPEC §13.6); `next_cursor` pages further.
const SEARCH_MAX_CHARS: usize = 4_000;
/// The most characters of one `show` result (SPEC §13.6); `next_cursor` pages further.
const SHOW_MAX_CHARS: usize = 9_500;

/// How a tool's result is shaped for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Text only: the command's human output (markdown).
    Text,
    /// `structuredContent` = the `--json` document, and the same JSON as text.
    Json,
    /// The markdown as text, and the `--json` document as `structuredContent`.
    TextAndJson,
    /// Like `Json`, with one page of a list field and `total` / `truncated`.
    Paged(Page),
}

/// A `cursor` parameter: the position a previous call gave as `next_cursor` (none: the start).
fn cursor<T: std::str::FromStr + Default>(cursor: Option<&str>) -> Result<T, Error> {
    match cursor.map(str::trim).filter(|c| !c.is_empty()) {
        None => Ok(T::default()),
        Some(c) => c.parse().map_err(|_| {
            Error::usage(format!(
                "cursor: {:?} is not a position from next_cursor",
                page::clip(c, page::ECHOED_CHARS)
            ))
            .with_hint("start again without a cursor")
        }),
    }
}

/// One page of a list tool's array field (SPEC §7: no result over 10,000 characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Page {
    field: &'static str,
    limit: usize,
    offset: usize,
}

impl Page {
    /// Items per page when the caller gives no `limit`.
    const DEFAULT_LIMIT: usize = 10;

    fn new(field: &'static str, limit: Option<usize>, offset: Option<usize>) -> Self {
        Self {
            field,
            limit: limit.unwrap_or(Self::DEFAULT_LIMIT).clamp(1, 100),
            offset: offset.unwrap_or(0),
        }
    }

    /// Cuts the document's list to this page and says how many there are in all.
    fn apply(self, document: &mut serde_json::Value) {
        let Some(obj) = document.as_object_mut() else {
            return;
        };
        let Some(items) = obj.get_mut(self.field).and_then(|v| v.as_array_mut()) else {
            return;
        };
        let total = items.len();
        let page: Vec<_> = items.drain(..).skip(self.offset).take(self.limit).collect();
        *items = page;
        obj.insert("total".into(), total.into());
        obj.insert("truncated".into(), false.into());
        // Fewer items when the page would still be over the result limit.
        loop {
            let shown = document[self.field].as_array().map_or(0, Vec::len);
            document["truncated"] = (shown < total).into();
            if shown <= 1 || page::json_chars(document) <= MAX_RESULT_CHARS {
                break;
            }
            if let Some(items) = document[self.field].as_array_mut() {
                items.pop();
            }
        }
    }
}

/// A document as the text of a result: compact JSON (the model reads it; every character
/// counts against the result limit).
fn json_text(document: &serde_json::Value) -> String {
    serde_json::to_string(document).unwrap_or_default()
}

/// Runs the server on stdin/stdout until the client closes the connection.
pub fn serve() -> crate::error::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::user(format!("cannot start the MCP runtime: {e}")))?;
    runtime.block_on(async {
        let service = Megg::new()
            .serve((transport::stdin(), tokio::io::stdout()))
            .await
            .map_err(|e| Error::user(format!("MCP initialization failed: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::user(format!("MCP server stopped: {e}")))?;
        Ok(())
    })
}

#[derive(Debug, Clone)]
pub struct Megg {
    tool_router: ToolRouter<Self>,
}

impl Default for Megg {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs one command in `path` (default: the server's working directory) on the blocking pool
/// and turns the outcome into a tool result of `shape`.
async fn call(path: Option<String>, command: Command, shape: Shape) -> CallToolResult {
    let dir = path.filter(|p| !p.is_empty()).map(PathBuf::from);
    let outcome = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(|| run(dir.as_deref(), command))
            .unwrap_or_else(|_| Err(Error::internal("internal error in megg; please report it")))
    })
    .await
    .unwrap_or_else(|_| Err(Error::internal("internal error in megg; please report it")));
    respond(outcome, shape)
}

/// The tool result for a command's outcome.
fn respond(outcome: crate::error::Result<crate::output::Output>, shape: Shape) -> CallToolResult {
    let mut out = match outcome {
        Ok(out) => out,
        Err(e) => {
            let text = crate::error::render(&e, str::to_string, mcp_terms);
            return CallToolResult::error(vec![ContentBlock::text(cap(text.trim_end().into()))]);
        }
    };
    if let (Shape::Paged(page), Some(doc)) = (shape, out.document.as_mut()) {
        page.apply(doc);
    }
    if let Some(doc) = out.document.as_mut() {
        bound_warnings(doc);
    }
    let human = out.text.clone().unwrap_or_else(|| out.stdout.clone());
    let json = || out.document.as_ref().map(json_text).unwrap_or_default();
    let mut result = match shape {
        // What the CLI prints on stderr follows the text (a secret shown as `[redacted]` is
        // named there, SPEC §12): a text result has no other place for it.
        Shape::Text => {
            let notes = warning_lines(std::mem::take(&mut out.warnings));
            let room = MAX_RESULT_CHARS.saturating_sub(notes.chars().count());
            let mut text = cap_within(human, room);
            text.push_str(&notes);
            CallToolResult::success(vec![ContentBlock::text(text)])
        }
        Shape::Json | Shape::Paged(_) => {
            let mut r = CallToolResult::structured(out.document.clone().unwrap_or_default());
            r.content = vec![ContentBlock::text(json())];
            r
        }
        Shape::TextAndJson => {
            let mut document = out.document.clone().unwrap_or_default();
            fit_content(&mut document);
            let mut r = CallToolResult::structured(document);
            r.content = vec![ContentBlock::text(cap(human))];
            r
        }
    };
    // A finding such as `gitignore --check` failing is an error result too.
    result.is_error = Some(out.code != 0);
    result
}

/// A document's `warnings` within a quarter of a result, then how many more (SPEC §7's limit:
/// a checkpoint or context holding 200 secrets names 200 places).
fn bound_warnings(doc: &mut serde_json::Value) {
    let Some(list) = doc.get_mut("warnings").and_then(|w| w.as_array_mut()) else {
        return;
    };
    let Some(warnings) = list
        .iter()
        .map(|w| w.as_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()
    else {
        return;
    };
    *list = page::bounded_warnings(warnings, MAX_RESULT_CHARS)
        .into_iter()
        .map(serde_json::Value::from)
        .collect();
}

/// A `warning:` line for each of `warnings`, within a quarter of a result (then how many
/// more there are).
fn warning_lines(warnings: Vec<String>) -> String {
    page::bounded_warnings(warnings, MAX_RESULT_CHARS)
        .iter()
        .map(|w| format!("warning: {w}\n"))
        .collect()
}

/// An error or hint in the terms of the tools (SPEC §7 "errors speak MCP"): the next step
/// as a tool call with its parameter names, not a command-line flag.
fn mcp_terms(text: &str) -> String {
    const TERMS: [(&str, &str); 4] = [
        ("pass --force to", "call again with `force: true` to"),
        ("Run with --force to", "Call again with `force: true` to"),
        (
            "`megg checkpoint save PLAN_FILE` creates one",
            "the `checkpoint_save` tool with `plan_file` creates one",
        ),
        ("run `megg maintain`", "call the `maintain` tool"),
    ];
    TERMS
        .iter()
        .fold(text.to_string(), |t, (cli, mcp)| t.replace(cli, mcp))
}

/// The context document within [`MAX_RESULT_CHARS`] (SPEC §7): its longest content field —
/// `info`, `knowledge.content`, `state.content` — is cut at a line, with a note, to what lets
/// the whole document fit; when even none of it would, the next longest is cut too.
fn fit_content(document: &mut serde_json::Value) {
    const FIELDS: [&str; 3] = ["/info", "/knowledge/content", "/state/content"];
    const NOTE: &str = "\n[… cut to fit the result limit]";
    for _ in FIELDS {
        if page::json_chars(document) <= MAX_RESULT_CHARS {
            return;
        }
        let longest = FIELDS
            .iter()
            .filter_map(|f| Some((*f, document.pointer(f)?.as_str()?.to_string())))
            .max_by_key(|(_, text)| text.chars().count());
        let Some((field, text)) = longest else { return };
        let with = |kept: &str| {
            let mut d = document.clone();
            if let Some(slot) = d.pointer_mut(field) {
                *slot = format!("{kept}{NOTE}").into();
            }
            d
        };
        let fits = |kept: &str| page::json_chars(&with(kept)) <= MAX_RESULT_CHARS;
        let kept = page::longest_lines(&text, fits).unwrap_or("");
        *document = with(kept.strip_suffix('\n').unwrap_or(kept));
    }
}

/// Text within [`MAX_RESULT_CHARS`], cut at a line with a note when longer.
fn cap(text: String) -> String {
    cap_within(text, MAX_RESULT_CHARS)
}

/// Text within `max` characters, cut at a line with a note when longer.
fn cap_within(text: String, max: usize) -> String {
    const NOTE: &str = "[… cut: the result is over 10,000 characters]\n";
    if text.chars().count() <= max {
        return text;
    }
    let room = max.saturating_sub(NOTE.chars().count() + 1);
    let kept = page::longest_lines(&text, |p| p.chars().count() <= room).unwrap_or("");
    format!("{}\n{NOTE}", kept.strip_suffix('\n').unwrap_or(kept))
}

fn run(dir: Option<&Path>, command: Command) -> crate::error::Result<crate::output::Output> {
    let mut env = Env::with_clock(dir, Clock::from_env()?)?;
    // stdin is the protocol stream: nothing may read it, and nothing may prompt.
    env.stdin_is_tty = true;
    env.interactive = false;
    let result = command.run(&env);
    env.tokens.flush();
    result
}

/// A checkpoint subcommand with its JSON document.
fn checkpoint_command(action: checkpoint::Action) -> Command {
    Command::Checkpoint(checkpoint::Args { action, json: true })
}

/// A tool's parameter error, worded like any other megg error.
fn invalid(message: &str) -> CallToolResult {
    refuse(Error::usage(message))
}

/// The result of a call refused before it ran.
fn refuse(e: Error) -> CallToolResult {
    respond(Err(e), Shape::Text)
}

/// The `outputSchema` of a tool whose result is the wire type `T`.
fn output<T: schemars::JsonSchema + 'static>() -> std::sync::Arc<rmcp::model::JsonObject> {
    rmcp::handler::server::common::schema_for_output::<T>()
}

#[tool_router]
impl Megg {
    pub fn new() -> Self {
        let mut tool_router = Self::tool_router();
        for route in tool_router.map.values_mut() {
            let tool = &mut route.attr;
            tool.input_schema = std::sync::Arc::new(schema::input(&tool.input_schema));
            if let Some(out) = &tool.output_schema {
                tool.output_schema = Some(std::sync::Arc::new(schema::output(out)));
            }
        }
        Self { tool_router }
    }

    #[tool(
        title = "Load project context",
        description = "Project context: the .megg chain's info.md, knowledge (a digest when large), the session handoff, nearby domains. Call at the start of a task, or with topic for one topic's entries.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true
        )
    )]
    async fn context(
        &self,
        Parameters(p): Parameters<ContextParams>,
    ) -> Result<CallToolResult, McpError> {
        let json = p.format == Some(ContextFormat::Json);
        let args = context::Args {
            path: None,
            topic: p.topic,
            json: false,
            format: Some(if json {
                context::Format::Json
            } else {
                context::Format::Md
            }),
            max_chars: Some(
                p.max_chars
                    .unwrap_or(CONTEXT_MAX_CHARS)
                    .min(MAX_RESULT_CHARS),
            ),
            agent: crate::host::Agent::Claude,
        };
        let shape = if json {
            Shape::TextAndJson
        } else {
            Shape::Text
        };
        Ok(call(p.path, Command::Context(args), shape).await)
    }

    #[tool(
        title = "Read, save or clear the session handoff",
        description = "The session handoff (.megg/state.md). No arguments: read it. content: save it (at most 2,000 tokens), before a session ends mid-task. status done: clear it, when the task is finished.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false
        )
    )]
    async fn state(
        &self,
        Parameters(p): Parameters<StateParams>,
    ) -> Result<CallToolResult, McpError> {
        let action = match (p.content, p.status) {
            (Some(_), Some(StateStatus::Done)) => {
                return Ok(invalid(
                    "pass either content (to save) or status \"done\" (to clear), not both",
                ));
            }
            (Some(c), _) => state::Action::Write(state::WriteArgs {
                content: Some(c),
                file: None,
            }),
            (None, Some(StateStatus::Done)) => state::Action::Clear,
            (None, _) => state::Action::Show,
        };
        let args = state::Args {
            action: Some(action),
            json: false,
        };
        Ok(call(p.path, Command::State(args), Shape::Text).await)
    }

    #[tool(
        title = "Save a knowledge entry",
        description = "Save a lasting lesson (a decision, gotcha, rule…) to knowledge.md, shared with the team. Ask the user first; `search` for an existing entry first.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false),
        output_schema = output::<wire::knowledge::Learned>()
    )]
    async fn learn(
        &self,
        Parameters(p): Parameters<LearnParams>,
    ) -> Result<CallToolResult, McpError> {
        if p.content == "-" {
            return Ok(invalid(
                "content `-` means stdin on the command line; over MCP pass the text itself",
            ));
        }
        let args = learn::Args {
            title: Some(p.title),
            kind: Some(p.kind.to_string()),
            topics: Some(p.topics.join(", ")),
            content: Some(p.content),
            file: None,
            supersedes: p.supersedes,
            allow_secrets: p.allow_secrets.unwrap_or(false),
            json: true,
        };
        Ok(call(p.path, Command::Learn(args), Shape::Json).await)
    }

    #[tool(
        title = "Create a .megg domain",
        description = "Create .megg/info.md for a directory: the given info, or a template prefilled from the project manifest and git remote. Never overwrites without force.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false),
        output_schema = output::<wire::misc::Initialized>()
    )]
    async fn init(
        &self,
        Parameters(p): Parameters<InitParams>,
    ) -> Result<CallToolResult, McpError> {
        let args = init::Args {
            path: p.project_root.or(p.path).map(PathBuf::from),
            info: p.info,
            force: p.force.unwrap_or(false),
            json: true,
        };
        Ok(call(None, Command::Init(args), Shape::Json).await)
    }

    #[tool(
        title = "Check knowledge health",
        description = "Report knowledge health at and below a directory (size, stale entries, topics to merge, parse problems, expired state) with suggested actions; archiveBefore archives older entries.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true),
        output_schema = output::<wire::knowledge::Maintained>()
    )]
    async fn maintain(
        &self,
        Parameters(p): Parameters<MaintainParams>,
    ) -> Result<CallToolResult, McpError> {
        let archive_before = match p.archive_before.as_deref().map(maintain::parse_date) {
            Some(Err(e)) => return Ok(invalid(&format!("archiveBefore: {e}"))),
            Some(Ok(d)) => Some(d),
            None => None,
        };
        let args = maintain::Args {
            path: None,
            archive_before,
            json: true,
            quiet: false,
            check: false,
            stale: false,
        };
        let page = Page::new("domains", p.limit, p.offset);
        Ok(call(p.path, Command::Maintain(args), Shape::Paged(page)).await)
    }

    #[tool(
        title = "Save a workflow checkpoint",
        description = "Save a workflow checkpoint when a plan is finished, so a later session can resume the work. Repeat the announcement it returns to the user.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false),
        output_schema = output::<wire::checkpoint::SaveDocument>()
    )]
    async fn checkpoint_save(
        &self,
        Parameters(p): Parameters<SaveParams>,
    ) -> Result<CallToolResult, McpError> {
        let action = checkpoint::Action::Save {
            plan_file: PathBuf::from(p.plan_file),
            phase: p.phase,
            branch: p.branch,
            force: p.force.unwrap_or(false),
        };
        Ok(call(p.path, checkpoint_command(action), Shape::Json).await)
    }

    #[tool(
        title = "List workflow checkpoints",
        description = "List the workflow checkpoints, newest first, with phase, progress, age and branch; corrupt ones apart.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true),
        output_schema = output::<wire::checkpoint::ListDocument>()
    )]
    async fn checkpoint_list(
        &self,
        Parameters(p): Parameters<ListParams>,
    ) -> Result<CallToolResult, McpError> {
        let page = Page::new("checkpoints", p.limit, p.offset);
        Ok(call(
            p.path,
            checkpoint_command(checkpoint::Action::List),
            Shape::Paged(page),
        )
        .await)
    }

    #[tool(
        title = "Resume a workflow session",
        description = "Find a saved workflow checkpoint to resume. Without choice it changes nothing and returns a question and options: ask the user, then call again with their choice.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false),
        output_schema = output::<wire::checkpoint::ResumeDocument>()
    )]
    async fn checkpoint_resume(
        &self,
        Parameters(p): Parameters<ResumeParams>,
    ) -> Result<CallToolResult, McpError> {
        let action = checkpoint::Action::Resume {
            target: p.target,
            for_command: p.for_command,
            choice: p.choice,
            plan_file: p.new_plan_file.map(PathBuf::from),
        };
        Ok(call(p.path, checkpoint_command(action), Shape::Json).await)
    }

    #[tool(
        title = "Update a workflow checkpoint",
        description = "Update a workflow checkpoint: phase, branch, checklist items to check or uncheck. Call after each meaningful step of the work.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true),
        output_schema = output::<wire::checkpoint::UpdateDocument>()
    )]
    async fn checkpoint_update(
        &self,
        Parameters(p): Parameters<UpdateParams>,
    ) -> Result<CallToolResult, McpError> {
        let action = checkpoint::Action::Update {
            target: p.target,
            phase: p.phase,
            branch: p.branch,
            check: p.check.unwrap_or_default(),
            uncheck: p.uncheck.unwrap_or_default(),
        };
        Ok(call(p.path, checkpoint_command(action), Shape::Json).await)
    }

    #[tool(
        title = "Finish a workflow",
        description = "Delete the checkpoint when the plan → work → review → compound lifecycle is complete.",
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false),
        output_schema = output::<wire::checkpoint::FinishDocument>()
    )]
    async fn checkpoint_finish(
        &self,
        Parameters(p): Parameters<TargetParams>,
    ) -> Result<CallToolResult, McpError> {
        Ok(call(
            p.path,
            checkpoint_command(checkpoint::Action::Finish { target: p.target }),
            Shape::Json,
        )
        .await)
    }

    #[tool(
        title = "Search what the team knows",
        description = "Search all knowledge (archived too, and what the session-start digest leaves out), past handoffs and info.md by words. Use before deciding what the team may already have decided, before `learn`, and for an entry the session-start index names. Returns ids and snippets; `show` reads one whole.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true),
        output_schema = output::<wire::recall::Searched>()
    )]
    async fn search(
        &self,
        Parameters(p): Parameters<SearchParams>,
    ) -> Result<CallToolResult, McpError> {
        let from = match cursor(p.cursor.as_deref()) {
            Ok(n) => n,
            Err(e) => return Ok(refuse(e)),
        };
        if let Some(n) = p.limit.filter(|n| !(1..=100).contains(n)) {
            return Ok(invalid(&format!(
                "limit: {n} is not in 1–100 (the most results to page through; omit it for all)"
            )));
        }
        let args = search::Args {
            query: Some(p.query),
            query_file: None,
            path: None,
            kinds: p
                .kinds
                .unwrap_or_default()
                .iter()
                .map(|k| k.as_str().to_string())
                .collect(),
            entry_type: p.entry_type,
            topic: p.topic,
            since: p.since,
            below: p.below.unwrap_or(false),
            // The CLI's count; a page has its own limit.
            limit: 100,
            json: true,
            page: Some(search::Page {
                from,
                limit: p.limit,
                max_chars: SEARCH_MAX_CHARS,
            }),
        };
        Ok(call(p.path, Command::Search(args), Shape::Json).await)
    }

    #[tool(
        title = "Show entries by id",
        description = "Read documents whole by the ids `search` or the session-start index gave. Call after `search`, before acting on an entry.",
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true),
        output_schema = output::<wire::recall::Shown>()
    )]
    async fn show(
        &self,
        Parameters(p): Parameters<ShowParams>,
    ) -> Result<CallToolResult, McpError> {
        let from = match cursor(p.cursor.as_deref()) {
            Ok(n) => n,
            Err(e) => return Ok(refuse(e)),
        };
        if p.ids.is_empty() {
            return Ok(invalid("ids: give at least one id from `search`"));
        }
        let args = show::Args {
            ids: p.ids,
            path: None,
            max_chars: SHOW_MAX_CHARS,
            json: true,
            page: Some(show::Page {
                from,
                max_chars: SHOW_MAX_CHARS,
            }),
        };
        Ok(call(p.path, Command::Show(args), Shape::Json).await)
    }

    #[tool(
        title = "Make git ignore checkpoints",
        description = "Make git ignore checkpoints and the per-developer state (adds the missing lines to .gitignore); check: only report.",
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true),
        output_schema = output::<wire::misc::Gitignored>()
    )]
    async fn gitignore(
        &self,
        Parameters(p): Parameters<GitignoreParams>,
    ) -> Result<CallToolResult, McpError> {
        let args = gitignore::Args {
            check: p.check.unwrap_or(false),
            json: true,
        };
        Ok(call(p.path, Command::Gitignore(args), Shape::Json).await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Megg {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("megg", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "megg keeps project context, permanent knowledge, a session handoff and workflow checkpoints in plain files. Call `context` at the start of a task; `state` with content before stopping mid-task; `learn` (after asking the user) for lasting lessons; the checkpoint_* tools from the /workflows commands.",
            )
    }
}
