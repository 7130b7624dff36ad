//! `megg setup --json` (SPEC §7).

use std::path::PathBuf;

use serde::Serialize;

use crate::megg::setup::{Action, Scope};

/// One file setup changed, or would change.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Change {
    pub path: PathBuf,
    pub action: Action,
    pub what: String,
}

/// The whole run.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    pub scope: Scope,
    pub root: PathBuf,
    pub uninstall: bool,
    pub dry_run: bool,
    pub changes: Vec<Change>,
    /// The command that registers (or removes) the MCP server at user scope, when megg could
    /// not run it itself.
    pub mcp_command: Option<String>,
    pub warnings: Vec<String>,
}
