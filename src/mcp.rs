//! `megg mcp`: a stdio MCP server over every capability (SPEC §7), built on rmcp.
//!
//! Each tool turns its typed parameters into the matching command's request (the same
//! `commands::*::Args` values clap builds for the CLI, never an argv string) and runs it through
//! the same `run` as the CLI, so behaviour and output can never diverge and errors are megg's
//! own, not an argument parser's. Results carry `structuredContent` = the command's `--json` document and a
//! text block = its human output; failures are results with `isError: true` and the CLI's
//! error text. stdout carries the protocol only.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{
    ErrorData as McpError, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router,
};
use serde::Deserialize;

use std::path::{Path, PathBuf};

use crate::cli::Command;
use crate::clock::Clock;
use crate::commands::{checkpoint, context, gitignore, init, learn, maintain, state};
use crate::env::Env;
use crate::error::Error;
use crate::megg::checkpoint::{Choice, Phase, WorkflowCommand};
use crate::megg::knowledge::KnowledgeType;

/// Runs the server on stdin/stdout until the client closes the connection.
pub fn serve() -> crate::error::Result<()> {
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

/// Runs one command in `path` (default: the server's working directory) and turns the
/// outcome into a tool result.
fn call(path: Option<&str>, command: Command) -> CallToolResult {
    let dir = path.filter(|p| !p.is_empty()).map(std::path::PathBuf::from);
    let outcome = std::panic::catch_unwind(|| run(dir.as_deref(), command))
        .unwrap_or_else(|_| Err(Error::internal("internal error in megg; please report it")));
    respond(outcome)
}

/// The tool result for a command's outcome.
fn respond(outcome: crate::error::Result<crate::output::Output>) -> CallToolResult {
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
    respond(Err(Error::usage(message)))
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
    /// What kind of knowledge it is
    #[serde(rename = "type")]
    pub kind: KnowledgeType,
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
    /// The phase to record (default: plan-complete)
    pub phase: Option<Phase>,
    pub branch: Option<String>,
    /// Replace another plan's checkpoint with the same slug
    pub force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PathParams {
    pub path: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ResumeParams {
    pub path: Option<String>,
    /// Slug or plan file (default: any checkpoint)
    pub target: Option<String>,
    /// The workflow command asking (warns on a phase mismatch)
    #[serde(rename = "for")]
    pub for_command: Option<WorkflowCommand>,
    /// Carry out the user's answer; omit to get the question and options
    pub choice: Option<Choice>,
    /// With choice `resume`: the plan's new path
    pub new_plan_file: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct UpdateParams {
    pub path: Option<String>,
    /// Slug or plan file
    pub target: String,
    pub phase: Option<Phase>,
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
        let args = context::Args {
            path: None,
            topic: p.topic,
            json: false,
            format: Some(context::Format::Json),
            max_chars: None,
        };
        Ok(call(p.path.as_deref(), Command::Context(args)))
    }

    #[tool(
        description = "The session handoff in .megg/state.md. No arguments: read it (an expired one comes back with expired: true). content: save it (at most 2,000 tokens; longer content is cut). status \"done\": clear it. Call with content before a session ends mid-task; with status done when the task is finished."
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
            json: true,
        };
        Ok(call(p.path.as_deref(), Command::State(args)))
    }

    #[tool(
        description = "Save a permanent knowledge entry (a decision, pattern, gotcha, context, rule, fact or process) to the current domain's knowledge.md. Ask the user before saving."
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
            json: true,
        };
        Ok(call(p.path.as_deref(), Command::Learn(args)))
    }

    #[tool(
        description = "Create .megg/info.md for a directory (a template prefilled from Cargo.toml / package.json / pyproject.toml and the git remote, or the given info). Never overwrites without force."
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
        Ok(call(None, Command::Init(args)))
    }

    #[tool(
        description = "Report on knowledge health at and below a directory (size, stale entries, topics to consolidate, unknown types, parse problems, expired state) with suggested actions; archiveBefore moves older entries into .megg/archive/."
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
        };
        Ok(call(p.path.as_deref(), Command::Maintain(args)))
    }

    #[tool(
        description = "Save a workflow checkpoint (.<slug>.local.md in the project root) when a plan is finished, so a later session can resume the work. Returns the announcement to repeat to the user."
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
        Ok(call(p.path.as_deref(), checkpoint_command(action)))
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
            checkpoint_command(checkpoint::Action::List),
        ))
    }

    #[tool(
        description = "Find a saved workflow session and offer to resume it. Without choice: returns status (found / none / multiple), the question, the options (shaped for AskUserQuestion) and warnings; changes nothing. Ask the user, then call again with choice resume, fresh or view."
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
        Ok(call(p.path.as_deref(), checkpoint_command(action)))
    }

    #[tool(
        description = "Update a workflow checkpoint: phase, branch, and checklist items to check or uncheck (matched by the start of their text). Call after each meaningful step of the work."
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
        Ok(call(p.path.as_deref(), checkpoint_command(action)))
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
            checkpoint_command(checkpoint::Action::Finish { target: p.target }),
        ))
    }

    #[tool(
        description = "Make git ignore checkpoints and the per-developer state (adds only missing lines of a small block to .gitignore); check: only report whether they are ignored."
    )]
    async fn gitignore(
        &self,
        Parameters(p): Parameters<GitignoreParams>,
    ) -> Result<CallToolResult, McpError> {
        let args = gitignore::Args {
            check: p.check.unwrap_or(false),
            json: true,
        };
        Ok(call(p.path.as_deref(), Command::Gitignore(args)))
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
