//! `megg completions SHELL` and `megg man`: shell completion scripts and the man page,
//! generated from the same clap definition the CLI parses with, so they never drift.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::{Error, Result};
use crate::output::Output;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The completion script for `args.shell`, on stdout.
pub fn run(args: &Args) -> Result<Output> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "megg", &mut out);
    String::from_utf8(out)
        .map(Output::text)
        .map_err(|e| Error::internal(format!("completion script is not UTF-8: {e}")))
}

/// The man page (roff), on stdout: `megg man > ~/.local/share/man/man1/megg.1`.
pub fn man() -> Result<Output> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| Error::internal(format!("cannot render the man page: {e}")))?;
    String::from_utf8(out)
        .map(Output::text)
        .map_err(|e| Error::internal(format!("man page is not UTF-8: {e}")))
}
