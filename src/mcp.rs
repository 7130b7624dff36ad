//! `megg mcp`: a stdio MCP server over every capability (SPEC §7), built on rmcp.
//!
//! Each tool turns its parameters into the argv of the matching CLI command and runs it through
//! the same clap parser and the same `run` as the CLI, so validation, behaviour and output can
//! never diverge. Results carry `structuredContent` = the command's `--json` document and a
//! text block = its human output; failures are results with `isError: true` and the CLI's
//! error text. stdout carries the protocol only.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{
    ErrorData as McpError, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router,
};
use serde::Deserialize;

use crate::cli::Cli;
use crate::clock::Clock;
use crate::{Env, Error};
use clap::Parser;

/// Runs the server on stdin/stdout until the client closes the connection.
pub fn serve() -> crate::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| Error::user(format!("cannot start the MCP runtime: {e}")))?;
    runtime.block_on(async {
        let service = Megg::new()
            .serve(rmcp::transport::stdio())
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

/// Runs one CLI command line (without the program name) in `path` and turns the outcome
/// into a tool result.
fn call(path: Option<&str>, argv: Vec<String>) -> CallToolResult {
    let mut full = vec!["megg".to_string()];
    if let Some(p) = path.filter(|p| !p.is_empty()) {
        full.push(format!("-C={p}"));
    }
    full.extend(argv);
    let outcome = std::panic::catch_unwind(|| run(&full))
        .unwrap_or_else(|_| Err(Error::internal("internal error in megg; please report it")));
    match outcome {
        Ok(out) => {
            let mut result =
                CallToolResult::structured(out.document.unwrap_or(serde_json::Value::Null));
            result.content = vec![ContentBlock::text(out.text.unwrap_or(out.stdout))];
            // A finding such as `gitignore --check` failing is an error result too.
            result.is_error = Some(out.code != 0);
            result
        }
        Err(e) => {
            let text = crate::error::render(&e, str::to_string, str::to_string);
            CallToolResult::error(vec![ContentBlock::text(text.trim_end())])
        }
    }
}

fn run(argv: &[String]) -> crate::Result<crate::Output> {
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        let text = e.render().to_string();
        Error::usage(
            text.lines()
                .next()
                .unwrap_or("invalid parameters")
                .trim_start_matches("error: ")
                .to_string(),
        )
    })?;
    let mut env = Env::with_clock(cli.dir.as_deref(), Clock::from_env()?)?;
    // stdin is the protocol stream: nothing may read it, and nothing may prompt.
    env.stdin_is_tty = true;
    env.interactive = false;
    let result = crate::run(&env, cli.command);
    env.tokens.flush();
    result
}

/// `--name=value` for each present value (the `=` form keeps values that start with `-`).
fn opt(argv: &mut Vec<String>, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        argv.push(format!("--{name}={v}"));
    }
}

fn flag(argv: &mut Vec<String>, name: &str, on: Option<bool>) {
    if on == Some(true) {
        argv.push(format!("--{name}"));
    }
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ContextParams {
    /// Directory to load context for (default: the server's working directory)
    pub path: Option<String>,
    /// Only knowledge entries with this topic, in full
    pub topic: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StateStatus {
    Active,
    Done,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct StateParams {
    /// Directory to act in (its nearest .megg is used)
    pub path: Option<String>,
    /// The handoff to save (markdown: Working On / Progress / Next / Context); omit to read
    pub content: Option<String>,
    /// `done` clears the state; omit (or `active`) to read or write
    pub status: Option<StateStatus>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct LearnParams {
    pub path: Option<String>,
    /// One-line title
    pub title: String,
    /// decision, pattern, gotcha, context, rule, fact or process
    #[serde(rename = "type")]
    pub kind: String,
    /// Topics, e.g. ["auth", "security"]
    pub topics: Vec<String>,
    /// The entry's markdown (no line that is exactly `---`)
    pub content: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitParams {
    pub path: Option<String>,
    /// The directory to make a domain (alias of path)
    pub project_root: Option<String>,
    /// The info.md text instead of the template
    pub info: Option<String>,
    /// Replace an existing info.md
    pub force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintainParams {
    pub path: Option<String>,
    /// Move entries dated before this day (YYYY-MM-DD) into .megg/archive/
    pub archive_before: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SaveParams {
    pub path: Option<String>,
    /// The plan file, relative to `path`
    pub plan_file: String,
    /// plan-complete (default), work, work-complete, review, review-complete or compound
    pub phase: Option<String>,
    pub branch: Option<String>,
    /// Replace another plan's checkpoint with the same slug
    pub force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PathParams {
    pub path: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResumeChoice {
    Resume,
    Fresh,
    View,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ResumeParams {
    pub path: Option<String>,
    /// Slug or plan file (default: any checkpoint)
    pub target: Option<String>,
    /// The workflow command asking: plan, work, review or compound
    #[serde(rename = "for")]
    pub for_command: Option<String>,
    /// Carry out the user's answer; omit to get the question and options
    pub choice: Option<ResumeChoice>,
    /// With choice `resume`: the plan's new path
    pub new_plan_file: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct UpdateParams {
    pub path: Option<String>,
    /// Slug or plan file
    pub target: String,
    pub phase: Option<String>,
    pub branch: Option<String>,
    /// Items to check, matched case-insensitively by the start of their text
    pub check: Option<Vec<String>>,
    /// Items to uncheck
    pub uncheck: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct TargetParams {
    pub path: Option<String>,
    /// Slug or plan file
    pub target: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct GitignoreParams {
    pub path: Option<String>,
    /// Change nothing; report whether checkpoints are ignored
    pub check: Option<bool>,
}

#[tool_router]
impl Megg {
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Load the project context: the .megg chain (info.md root to deepest), knowledge (full, summary or blocked by size; a topic in full), the active session state, and nearby domains. Call at the start of a task or to look up a knowledge topic."
    )]
    async fn context(
        &self,
        Parameters(p): Parameters<ContextParams>,
    ) -> Result<CallToolResult, McpError> {
        let mut argv = args(&["context", "--format=json"]);
        opt(&mut argv, "topic", p.topic.as_deref());
        Ok(call(p.path.as_deref(), argv))
    }

    #[tool(
        description = "The session handoff in .megg/state.md. No arguments: read it (an expired one comes back with expired: true). content: save it (at most 2,000 tokens; longer content is cut). status \"done\": clear it. Call with content before a session ends mid-task; with status done when the task is finished."
    )]
    async fn state(
        &self,
        Parameters(p): Parameters<StateParams>,
    ) -> Result<CallToolResult, McpError> {
        let argv = match (p.content, p.status) {
            (Some(_), Some(StateStatus::Done)) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    "error: pass either content (to save) or status \"done\" (to clear), not both",
                )]));
            }
            (Some(c), _) => vec![
                "state".into(),
                "write".into(),
                "--json".into(),
                format!("--content={c}"),
            ],
            (None, Some(StateStatus::Done)) => args(&["state", "clear", "--json"]),
            (None, _) => args(&["state", "show", "--json"]),
        };
        Ok(call(p.path.as_deref(), argv))
    }

    #[tool(
        description = "Save a permanent knowledge entry (a decision, pattern, gotcha, context, rule, fact or process) to the current domain's knowledge.md. Ask the user before saving."
    )]
    async fn learn(
        &self,
        Parameters(p): Parameters<LearnParams>,
    ) -> Result<CallToolResult, McpError> {
        if p.content == "-" {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "error: content `-` means stdin on the command line; over MCP pass the text itself",
            )]));
        }
        let argv = vec![
            "learn".into(),
            "--json".into(),
            "--".into(),
            p.title,
            p.kind,
            p.topics.join(", "),
            p.content,
        ];
        Ok(call(p.path.as_deref(), argv))
    }

    #[tool(
        description = "Create .megg/info.md for a directory (a template prefilled from Cargo.toml / package.json / pyproject.toml and the git remote, or the given info). Never overwrites without force."
    )]
    async fn init(
        &self,
        Parameters(p): Parameters<InitParams>,
    ) -> Result<CallToolResult, McpError> {
        let mut argv = args(&["init", "--json"]);
        opt(&mut argv, "info", p.info.as_deref());
        flag(&mut argv, "force", p.force);
        let dir = p.project_root.or(p.path);
        if let Some(d) = dir {
            argv.push("--".into());
            argv.push(d);
        }
        Ok(call(None, argv))
    }

    #[tool(
        description = "Report on knowledge health at and below a directory (size, stale entries, topics to consolidate, unknown types, parse problems, expired state) with suggested actions; archiveBefore moves older entries into .megg/archive/."
    )]
    async fn maintain(
        &self,
        Parameters(p): Parameters<MaintainParams>,
    ) -> Result<CallToolResult, McpError> {
        let mut argv = args(&["maintain", "--json"]);
        opt(&mut argv, "archive-before", p.archive_before.as_deref());
        Ok(call(p.path.as_deref(), argv))
    }

    #[tool(
        description = "Save a workflow checkpoint (.<slug>.local.md in the project root) when a plan is finished, so a later session can resume the work. Returns the announcement to repeat to the user."
    )]
    async fn checkpoint_save(
        &self,
        Parameters(p): Parameters<SaveParams>,
    ) -> Result<CallToolResult, McpError> {
        let mut argv = args(&["checkpoint", "save", "--json"]);
        opt(&mut argv, "phase", p.phase.as_deref());
        opt(&mut argv, "branch", p.branch.as_deref());
        flag(&mut argv, "force", p.force);
        argv.extend(["--".into(), p.plan_file]);
        Ok(call(p.path.as_deref(), argv))
    }

    #[tool(
        description = "List every workflow checkpoint, newest first, with phase, progress, age and branch; corrupt and other tools' .local.md files are reported apart."
    )]
    async fn checkpoint_list(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, McpError> {
        Ok(call(
            p.path.as_deref(),
            args(&["checkpoint", "list", "--json"]),
        ))
    }

    #[tool(
        description = "Find a saved workflow session and offer to resume it. Without choice: returns status (found / none / multiple), the question, the options (shaped for AskUserQuestion) and warnings; changes nothing. Ask the user, then call again with choice resume, fresh or view."
    )]
    async fn checkpoint_resume(
        &self,
        Parameters(p): Parameters<ResumeParams>,
    ) -> Result<CallToolResult, McpError> {
        let mut argv = args(&["checkpoint", "resume", "--json"]);
        opt(&mut argv, "for", p.for_command.as_deref());
        opt(
            &mut argv,
            "choice",
            p.choice.map(|c| match c {
                ResumeChoice::Resume => "resume",
                ResumeChoice::Fresh => "fresh",
                ResumeChoice::View => "view",
            }),
        );
        opt(&mut argv, "plan-file", p.new_plan_file.as_deref());
        if let Some(t) = p.target {
            argv.extend(["--".into(), t]);
        }
        Ok(call(p.path.as_deref(), argv))
    }

    #[tool(
        description = "Update a workflow checkpoint: phase, branch, and checklist items to check or uncheck (matched by the start of their text). Call after each meaningful step of the work."
    )]
    async fn checkpoint_update(
        &self,
        Parameters(p): Parameters<UpdateParams>,
    ) -> Result<CallToolResult, McpError> {
        let mut argv = args(&["checkpoint", "update", "--json"]);
        opt(&mut argv, "phase", p.phase.as_deref());
        opt(&mut argv, "branch", p.branch.as_deref());
        for item in p.check.unwrap_or_default() {
            opt(&mut argv, "check", Some(&item));
        }
        for item in p.uncheck.unwrap_or_default() {
            opt(&mut argv, "uncheck", Some(&item));
        }
        argv.extend(["--".into(), p.target]);
        Ok(call(p.path.as_deref(), argv))
    }

    #[tool(
        description = "The plan → work → review → compound lifecycle is complete: delete the checkpoint."
    )]
    async fn checkpoint_finish(
        &self,
        Parameters(p): Parameters<TargetParams>,
    ) -> Result<CallToolResult, McpError> {
        Ok(call(
            p.path.as_deref(),
            vec![
                "checkpoint".into(),
                "finish".into(),
                "--json".into(),
                "--".into(),
                p.target,
            ],
        ))
    }

    #[tool(
        description = "Make git ignore checkpoints and the per-developer state (adds only missing lines of a small block to .gitignore); check: only report whether they are ignored."
    )]
    async fn gitignore(
        &self,
        Parameters(p): Parameters<GitignoreParams>,
    ) -> Result<CallToolResult, McpError> {
        let mut argv = args(&["gitignore", "--json"]);
        flag(&mut argv, "check", p.check);
        Ok(call(p.path.as_deref(), argv))
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
