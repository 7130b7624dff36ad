//! megg: continuity for AI coding agents.
//!
//! The binary's `main` calls [`main`]; everything else is here so tests and the MCP server use
//! the same code. Data flows one way: CLI args → request → domain function (`megg::*`) →
//! result struct → renderer (`render::*`) → [`Output`].

pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod error;
pub mod failpoint;
pub mod frontmatter;
pub mod fsx;
pub mod git;
pub mod hook;
pub mod mcp;
pub mod megg;
pub mod prompt;
pub mod render;
pub mod templates;
pub mod tokens;
pub mod wire;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::Parser;

pub use error::{Error, Result};

use cli::{Cli, ColorChoice, Command};
use clock::Clock;
use git::Repo;
use tokens::Counter;

/// What every command runs against: where, when, and the shared services.
#[derive(Debug)]
pub struct Env {
    /// The starting directory (after `-C`), absolute, symlinks as walked.
    pub cwd: PathBuf,
    pub clock: Clock,
    pub tokens: Counter,
    /// `MEGG_CEILING_DIRS`.
    pub ceilings: Vec<PathBuf>,
    pub stdin_is_tty: bool,
    /// stdin and stderr are both terminals: prompts may ask.
    pub interactive: bool,
    /// Directories the user trusts (canonical), from the user's config file only (SPEC §9).
    pub trusted: Vec<PathBuf>,
    /// Why the config file could not be used, if it could not.
    pub config_warnings: Vec<String>,
}

impl Env {
    /// The environment of this process, started in `dir` (relative to the working directory).
    pub fn from_process(dir: Option<&Path>) -> Result<Self> {
        Self::with_clock(dir, Clock::from_env()?)
    }

    /// Like [`Env::from_process`] with a given clock.
    pub fn with_clock(dir: Option<&Path>, clock: Clock) -> Result<Self> {
        let base = current_dir()?;
        let cwd = match dir {
            Some(d) => megg::discovery::absolute(&base, d),
            None => base,
        };
        if !fsx::is_dir(&cwd) {
            return Err(Error::user(format!(
                "cannot change to {}: not a directory",
                cwd.display()
            ))
            .with_hint("check the -C argument"));
        }
        let (trusted, config_warnings) = config::trusted_dirs(&cwd);
        Ok(Self {
            cwd,
            trusted,
            config_warnings,
            clock,
            tokens: Counter::from_env(),
            ceilings: megg::discovery::ceilings_from_env(),
            stdin_is_tty: std::io::stdin().is_terminal(),
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
        })
    }

    /// What the domain needs from this environment (SPEC: the domain never sees `Env`).
    pub fn deps(&self) -> megg::Deps<'_> {
        megg::Deps {
            now: self.clock.now(),
            tokens: &self.tokens,
            ceilings: &self.ceilings,
            trusted: &self.trusted,
        }
    }

    /// The project this command runs in (SPEC §2.4).
    pub fn project(&self) -> megg::project::Project {
        megg::project::Project::at(&self.cwd, &self.ceilings)
    }

    /// The project top for a directory: its git work tree's top as walked, else itself.
    pub fn top(&self, at: &Path) -> PathBuf {
        megg::project::top(&self.ceilings, at)
    }

    /// SPEC §9 "No writing up", from this command's starting directory.
    pub fn refuse_writing_up(&self, d: &megg::discovery::Domain) -> Result<()> {
        megg::project::refuse_writing_up(&self.cwd, &self.ceilings, d)
    }

    /// The git repository containing `at`, if any.
    pub fn repo(&self, at: &Path) -> Option<Repo> {
        Repo::discover(at, &self.ceilings)
    }

    /// The walk up from a directory in the project whose top is `top` (SPEC §2.1, §9).
    pub fn walk<'a>(&'a self, top: &'a Path) -> megg::discovery::Walk<'a> {
        megg::discovery::Walk {
            ceilings: &self.ceilings,
            trusted: &self.trusted,
            top,
        }
    }

    /// A path argument made absolute against the starting directory.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        megg::discovery::absolute(&self.cwd, path)
    }
}

/// The working directory as the user's shell sees it: `$PWD` when it names the same
/// directory (keeps symlinks as walked, like git and the shell), else the physical one.
fn current_dir() -> Result<PathBuf> {
    let physical = fsx::current_dir()
        .map_err(|e| Error::user(format!("cannot read the current directory: {e}")))?;
    if let Some(pwd) = std::env::var_os("PWD").map(PathBuf::from)
        && pwd.is_absolute()
        && let Some(id) = fsx::identity(&pwd)
        && fsx::identity(&physical) == Some(id)
    {
        return Ok(pwd);
    }
    Ok(physical)
}

/// What a command produced: stdout text, warnings for stderr (text mode), an exit code —
/// and both renderings of its result, so the MCP server gets the JSON document and the human
/// text from one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    pub stdout: String,
    pub warnings: Vec<String>,
    pub code: u8,
    /// The `--json` document.
    pub document: Option<serde_json::Value>,
    /// The human text.
    pub text: Option<String>,
}

impl Output {
    pub fn text(stdout: impl Into<String>) -> Self {
        Self {
            stdout: stdout.into(),
            ..Self::default()
        }
    }

    /// A JSON document (pretty, newline-terminated).
    pub fn json(value: &impl serde::Serialize) -> Self {
        let document = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        let mut s = serde_json::to_string_pretty(&document).unwrap_or_else(|_| "null".into());
        s.push('\n');
        Self {
            document: Some(document),
            ..Self::text(s)
        }
    }

    /// Both renderings of a result; stdout is the JSON document when `json`, else the text
    /// (with the warnings for stderr: a JSON document carries its own).
    pub fn pick(
        json: bool,
        value: &impl serde::Serialize,
        text: String,
        warnings: Vec<String>,
    ) -> Self {
        let mut out = Self::json(value);
        if !json {
            out.stdout = text.clone();
            out.warnings = warnings;
        }
        out.text = Some(text);
        out
    }

    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }
}

/// Runs megg with these arguments (the first is the program name) and returns the exit code.
pub fn main(args: Vec<OsString>) -> u8 {
    if hook::is_invocation(&args) {
        return hook::main(args);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    let stderr = Stderr::new(cli.color);
    let env = match Env::from_process(cli.dir.as_deref()) {
        Ok(env) => env,
        Err(e) => return stderr.error(&e),
    };
    let result = run(&env, cli.command);
    env.tokens.flush();
    match result {
        Ok(out) => {
            for w in &out.warnings {
                stderr.warning(w);
            }
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(render::terminal_safe(&out.stdout).as_bytes())
                .and_then(|()| stdout.flush())
            {
                // A closed pipe (`megg context | head`) is not an error worth a message.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => out.code,
                Err(e) => stderr.error(&Error::user(format!("cannot write output: {e}"))),
                Ok(()) => out.code,
            }
        }
        Err(e) => stderr.error(&e),
    }
}

/// Dispatches one command.
pub fn run(env: &Env, command: Command) -> Result<Output> {
    match command {
        Command::Context(args) => commands::context::run(env, &args),
        Command::State(args) => commands::state::run(env, &args),
        Command::Checkpoint(args) => commands::checkpoint::run(env, &args),
        Command::Gitignore(args) => commands::gitignore::run(env, &args),
        Command::Learn(args) => commands::learn::run(env, &args),
        Command::Init(args) => commands::init::run(env, &args),
        Command::Maintain(args) => commands::maintain::run(env, &args),
        Command::Setup(args) => commands::setup::run(env, &args),
        Command::Doctor(args) => commands::doctor::run(env, &args),
        Command::Trust(args) => commands::trust::run(env, &args),
        Command::Mcp => crate::mcp::serve().map(|()| Output::default()),
    }
}

/// Writes `error:` / `warning:` / `hint:` lines, coloured on a terminal.
struct Stderr {
    color: bool,
}

impl Stderr {
    fn new(choice: ColorChoice) -> Self {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        };
        Self { color }
    }

    fn label(&self, text: &str, code: &str) -> String {
        if self.color {
            format!("\x1b[1;{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn warning(&self, message: &str) {
        let _ = writeln!(
            std::io::stderr(),
            "{} {}",
            self.label("warning:", "33"),
            render::terminal_safe(message)
        );
    }

    fn error(&self, e: &Error) -> u8 {
        let text = error::render(
            e,
            |l| self.label(l, Self::color_of(l)),
            |t| render::terminal_safe(t).into_owned(),
        );
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
        e.exit_code()
    }

    fn color_of(label: &str) -> &'static str {
        match label {
            "error:" => "31",
            _ => "36",
        }
    }
}
