//! megg: continuity for AI coding agents.
//!
//! The binary's `main` calls [`main`]; everything else is here so tests and the MCP server use
//! the same code. Data flows one way: CLI args → request → domain function (`megg::*`) →
//! result struct → renderer (`render::*`) → [`Output`].

pub mod claude;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod env;
pub mod error;
pub mod failpoint;
pub mod flow;
pub mod frontmatter;
pub mod fsx;
#[doc(hidden)]
pub mod fuzz;
pub mod git;
pub mod hook;
pub mod host;
pub mod mcp;
pub mod megg;
pub mod output;
pub mod probe;
pub mod prompt;
pub mod render;
pub mod shell;
pub mod templates;
pub mod tokens;
pub mod wire;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};

use clap::Parser;

pub use env::Env;
pub use error::{Error, Result};
pub use output::Output;

use cli::{Cli, ColorChoice, Command};

/// Runs megg with these arguments (the first is the program name) and returns the exit code.
pub fn main(args: Vec<OsString>) -> u8 {
    if hook::is_invocation(&args) {
        return hook::main(args);
    }
    if hook::is_capture(&args) {
        return hook::capture_main(args);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    let stderr = Stderr::new(cli.color);
    prompt::set_color(stderr.color);
    let env = match Env::from_process(cli.dir.as_deref()) {
        Ok(env) => env,
        Err(e) => return stderr.error(&e),
    };
    // A bug that panics ends the command with `error: internal error …` and exit 1, never
    // Rust's 101 and its text (SPEC §16).
    error::quiet_panics();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match cli.command {
        Command::Mcp => mcp::serve().map(|()| Output::default()),
        command => command.run(&env),
    }))
    .unwrap_or_else(|panic| Err(error::from_panic(&*panic)));
    env.tokens.flush();
    match result {
        Ok(out) => {
            for w in &out.warnings {
                stderr.warning(w);
            }
            let mut stdout = std::io::stdout().lock();
            let color = colored(cli.color, stdout.is_terminal());
            match stdout
                .write_all(render::highlighted(&out.stdout, &out.marks, color).as_bytes())
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

/// Whether output to a stream is coloured (SPEC §1): `--color`, else only on a terminal and
/// without `NO_COLOR`.
fn colored(choice: ColorChoice, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && terminal,
    }
}

/// Writes `error:` / `warning:` / `hint:` lines, coloured on a terminal.
struct Stderr {
    color: bool,
}

impl Stderr {
    fn new(choice: ColorChoice) -> Self {
        Self {
            color: colored(choice, std::io::stderr().is_terminal()),
        }
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
