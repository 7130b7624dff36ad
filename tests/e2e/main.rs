//! The slow end-to-end test binary: the real Claude Code CLI, installed on first use (see
//! `common::provision`), against a scripted mock of the Anthropic API
//! (`tests/e2e/mock_anthropic.py`). Kept apart from the fast `cli` binary so that
//! `cargo test --test cli` stays quick to iterate on.

#![allow(clippy::disallowed_methods)]
// tests build their fixtures with std::fs
// SPEC §16's panic lints guard megg's own code from its input; a test panicking is how it fails.
#![allow(
    clippy::string_slice,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]

#[path = "../common/mod.rs"]
mod common;

mod capture_e2e;
mod claude_code;
mod codex;
mod codex_capture;
mod copilot;
mod copilot_capture;
mod gemini;
mod gemini_capture;
mod host_summary;
mod install;

use common::*;
