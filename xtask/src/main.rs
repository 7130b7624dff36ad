//! megg's release tooling, run as `cargo xtask <task>` (the alias is in .cargo/config.toml).
//! Never shipped: it builds and packages what is.

mod archive;
mod binary;
mod compile;
mod dist;
mod gitleaks;
mod homebrew;
mod npm;
mod project;
mod sums;
mod target;
mod winget;

use std::process::ExitCode;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "xtask",
    bin_name = "cargo xtask",
    about = "megg's release tooling"
)]
enum Task {
    /// Build and package megg's release artifacts: archives, npm packages, SHA256SUMS,
    /// install.sh, install.ps1, the Homebrew formula and the winget manifests (SPEC §15, §15.1)
    Dist(dist::Args),
    /// Write megg's copy of gitleaks' default rules (src/megg/secrets/gitleaks.rs) from the
    /// crate that ships them, checked against crates.io's checksum (SPEC §12)
    GitleaksRules(gitleaks::Args),
}

fn main() -> ExitCode {
    let result = match Task::parse() {
        Task::Dist(args) => dist::run(&args),
        Task::GitleaksRules(args) => gitleaks::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
