//! The command line: global options and the command enum. Each command's arguments live
//! with the command, in `commands/`.

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::commands;
use crate::env::Env;
use crate::error::Result;
use crate::output::Output;

#[derive(Debug, Parser)]
#[command(
    name = "megg",
    version,
    about = "Continuity for AI coding agents: project context, knowledge and session handoff in .megg/",
    propagate_version = true
)]
pub struct Cli {
    /// Run as if megg was started in DIR
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,

    /// When to colour output
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load the context chain, knowledge and active state (every agent's SessionStart hook)
    ///
    /// Claude Code's hook runs `megg context --json`; Codex's, Gemini CLI's and Copilot CLI's
    /// run `megg context --format hook --agent <agent>`.
    Context(commands::context::Args),
    /// Read, write or clear the session handoff in .megg/state.md
    State(commands::state::Args),
    /// Save, list, resume and finish workflow checkpoints (.<slug>.local.md)
    Checkpoint(commands::checkpoint::Args),
    /// Make git ignore checkpoints and the per-developer state
    Gitignore(commands::gitignore::Args),
    /// Append a knowledge entry to the current domain's knowledge.md
    Learn(commands::learn::Args),
    /// Create .megg/info.md for a directory
    Init(commands::init::Args),
    /// Report on knowledge health below a directory; archive old entries
    Maintain(commands::maintain::Args),
    /// Search knowledge, archived entries, past handoffs and info sections (BM25)
    ///
    /// Every entry megg kept stays one query away, also past the session-start budget and
    /// after `maintain --archive-before`. Read a result in full with `megg show ID`.
    Search(commands::search::Args),
    /// Show documents by the ids `megg search` and the session-start index give
    Show(commands::show::Args),
    /// Install megg for Claude Code, Codex, Gemini CLI or Copilot CLI (--agent)
    ///
    /// Each agent gets its SessionStart and capture hooks, the MCP server, and its commands and
    /// skill, in the project (--scope project) or for the user (--scope user).
    Setup(commands::setup::Args),
    /// Check that megg is installed and its files are healthy
    Doctor(commands::doctor::Args),
    /// Finish a merge of .megg knowledge files by entry (unmerged in git, or committed with
    /// conflict markers)
    Resolve(commands::resolve::Args),
    /// Trust a directory: let megg read a `.megg` linked there or another user's ancestor
    /// domain in it (kept in the user's config, never taken from a repository)
    Trust(commands::trust::Args),
    /// Capture the session's handoff from an agent's hook input on stdin (--agent)
    ///
    /// The hooks `megg setup` installs run it when a session compacts, ends or stops;
    /// MEGG_CAPTURE=off turns it off.
    Capture(commands::capture::Args),
    /// Merge two versions of a knowledge file entry by entry (git's merge driver for
    /// .megg/knowledge.md and .megg/archive/*.md; `megg setup` registers it)
    MergeDriver(commands::merge_driver::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(commands::completions::Args),
    /// Print megg's man page (roff)
    Man,
    /// Serve every capability as MCP tools over stdio
    Mcp,
}

impl Command {
    /// Runs this command: the one dispatch, for the CLI and the MCP server alike.
    pub fn run(self, env: &Env) -> Result<Output> {
        match self {
            Command::Context(args) => commands::context::run(env, &args),
            Command::State(args) => commands::state::run(env, &args),
            Command::Checkpoint(args) => commands::checkpoint::run(env, &args),
            Command::Gitignore(args) => commands::gitignore::run(env, &args),
            Command::Learn(args) => commands::learn::run(env, &args),
            Command::Init(args) => commands::init::run(env, &args),
            Command::Maintain(args) => commands::maintain::run(env, &args),
            Command::Search(args) => commands::search::run(env, &args),
            Command::Show(args) => commands::show::run(env, &args),
            Command::Setup(args) => commands::setup::run(env, &args),
            Command::Doctor(args) => commands::doctor::run(env, &args),
            Command::Resolve(args) => commands::resolve::run(env, &args),
            Command::Trust(args) => commands::trust::run(env, &args),
            Command::MergeDriver(args) => commands::merge_driver::run(env, &args),
            Command::Completions(args) => commands::completions::run(&args, Cli::command()),
            Command::Man => commands::completions::man(Cli::command()),
            // Capture never fails and reads its own stdin: `main` runs it through
            // `hook::capture_main` before any dispatch, like the server below.
            Command::Capture(_) => Ok(Output::default()),
            // The server owns stdin and stdout; `main` starts it before any dispatch.
            Command::Mcp => Ok(Output::default()),
        }
    }
}
