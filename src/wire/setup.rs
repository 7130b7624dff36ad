//! `megg setup --json` (SPEC §7).

use std::path::PathBuf;

use serde::Serialize;

use crate::host::Agent;
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
    /// The hosts this run set up (or removed).
    pub agents: Vec<Agent>,
    pub root: PathBuf,
    pub uninstall: bool,
    pub dry_run: bool,
    pub changes: Vec<Change>,
    /// The command that registers (or removes) the MCP server at user scope, when megg could
    /// not run it itself.
    pub mcp_command: Option<String>,
    /// The steps that make each host trust megg's entries, and what else a folder trust would
    /// switch on (megg writes no host's trust settings).
    pub trust: Vec<String>,
    pub warnings: Vec<String>,
}
