//! `megg state … --json` (SPEC §5) and the MCP `state` tool's structured results.

use std::path::PathBuf;

use serde::Serialize;

use super::context::StateDoc;

/// `state write`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Written {
    pub path: PathBuf,
    pub tokens: usize,
    pub truncated: bool,
    pub warnings: Vec<String>,
}

/// `state show`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Shown {
    pub state: Option<StateDoc>,
    pub warnings: Vec<String>,
}

/// `state clear` / `state done`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Cleared {
    pub cleared: bool,
    pub path: PathBuf,
}
