//! `megg completions SHELL` and `megg man`: shell completion scripts and the man page,
//! generated from the same clap definition the CLI parses with, so they never drift. The
//! dispatcher hands that definition in (`Cli::command()`): this module never names the CLI
//! that names it.

use crate::error::{Error, Result};
use crate::output::Output;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The completion script for `args.shell` of the command line `cli`, on stdout.
pub fn run(args: &Args, mut cli: clap::Command) -> Result<Output> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "megg", &mut out);
    String::from_utf8(out)
        .map(Output::text)
        .map_err(|e| Error::internal(format!("completion script is not UTF-8: {e}")))
}

/// The man page (roff) of the command line `cli`, on stdout:
/// `megg man > ~/.local/share/man/man1/megg.1`. It is the one page megg prints: its command
/// list names each command as it is typed (`megg context`), not as a `megg-context(1)` page
/// that nothing installs, and says where each one's options are.
pub fn man(cli: clap::Command) -> Result<Output> {
    // `help` is clap's, added when the page is built.
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .chain(["help".to_string()])
        .collect();
    let mut out = Vec::new();
    clap_mangen::Man::new(cli)
        .render(&mut out)
        .map_err(|e| Error::internal(format!("cannot render the man page: {e}")))?;
    let mut page = String::from_utf8(out)
        .map_err(|e| Error::internal(format!("man page is not UTF-8: {e}")))?;
    for name in &names {
        let name = name.replace('-', "\\-");
        page = page.replace(
            &format!("\nmegg\\-{name}(1)\n"),
            &format!("\n\\fBmegg {name}\\fR\n"),
        );
    }
    page = page.replacen(
        ".SH SUBCOMMANDS\n",
        ".SH SUBCOMMANDS\nEach command\\*(Aqs options and arguments: \\fBmegg\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR.\n",
        1,
    );
    Ok(Output::text(page))
}
