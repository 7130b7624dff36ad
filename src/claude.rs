//! Claude Code as an outside system: where its user files are (honouring `CLAUDE_CONFIG_DIR`,
//! SPEC §7) and running its CLI. megg never edits `~/.claude.json` itself.

use std::path::PathBuf;

/// The user's Claude Code directory: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`.
pub fn user_dir() -> Option<PathBuf> {
    non_empty("CLAUDE_CONFIG_DIR").or_else(|| home().map(|h| h.join(".claude")))
}

/// The user's Claude Code state file (MCP servers at user scope): `.claude.json` in
/// `$CLAUDE_CONFIG_DIR` when set, else `~/.claude.json`.
pub fn user_json() -> Option<PathBuf> {
    match non_empty("CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(dir.join(".claude.json")),
        None => home().map(|h| h.join(".claude.json")),
    }
}

/// `$HOME`, when set.
pub fn home() -> Option<PathBuf> {
    non_empty("HOME")
}

/// Runs `claude ARGS` when `claude` is on PATH; `true` when it succeeded.
pub fn run(argv: &[&str]) -> bool {
    std::process::Command::new("claude")
        .args(argv)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn non_empty(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}
