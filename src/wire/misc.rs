//! The documents of the smaller commands: `init --json`, `gitignore --json`, `trust --json`.

use std::path::PathBuf;

use serde::Serialize;

/// `init`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Initialized {
    pub path: String,
    pub created: bool,
}

/// `gitignore` and `gitignore --check`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Gitignored {
    pub path: String,
    pub changed: bool,
    pub added: Vec<&'static str>,
    pub ignored: bool,
}

/// `trust`, `trust --list`, `trust --remove`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Trusted {
    pub config: PathBuf,
    pub trusted_dirs: Vec<PathBuf>,
    pub changed: bool,
}
