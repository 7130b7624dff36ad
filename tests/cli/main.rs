//! The fast integration test binary: the real `megg` binary against temp directories and real
//! git repositories built with git2. The slow suites that drive real agent CLIs live in
//! `tests/e2e/`; the helpers both use live in `tests/common/`.

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

mod agents;
mod agents_capture;
mod agents_setup;
mod budget;
mod capture;
mod capture_start;
mod carry;
mod checkpoint;
mod context;
mod docs;
mod freshness;
mod gemini_commands;
mod hook;
mod host_summary;
mod hostile;
mod knowledge;
mod maintain_archive;
mod mcp;
mod merge;
mod newcomer;
mod people_text;
mod pty;
mod readme;
mod recall;
mod recall_index;
mod recall_mcp;
mod regress_domain;
mod regress_gate;
mod regress_hook;
mod resume_set;
mod scopes;
mod search_paths;
mod secret_samples;
mod secrets_capture;
mod secrets_injection;
mod secrets_kept;
mod secrets_learn;
mod setup;
mod setup_global;
mod setup_plan;
mod setup_windows;
mod snapshots;
mod state;
mod supersede;
mod team;
mod team_setup;
mod tokens;
mod upkeep_text;
mod worktrees;

use common::*;

#[test]
fn version_and_help() {
    let out = megg_command().arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "megg 1.1.0\n");
    let out = megg_command().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for word in ["context", "state", "-C <DIR>", "--color"] {
        assert!(help.contains(word), "{word} missing from help:\n{help}");
    }
}

/// `--help` and the man page describe the commands as they are: setup and capture serve four
/// hosts, chosen with `--agent`, not only Claude Code.
#[test]
fn help_and_man_name_every_host() {
    let text = |args: &[&str]| {
        let out = megg_command().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let help = text(&["--help"]);
    let line = |name: &str| {
        help.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in {help}"))
            .to_string()
    };
    for host in [
        "Claude Code",
        "Codex",
        "Gemini CLI",
        "Copilot CLI",
        "--agent",
    ] {
        assert!(line("setup").contains(host), "{}", line("setup"));
    }
    assert!(
        line("capture").contains("an agent's"),
        "{}",
        line("capture")
    );
    assert!(line("capture").contains("--agent"), "{}", line("capture"));
    assert!(
        line("context").contains("every agent"),
        "{}",
        line("context")
    );
    for args in [
        &["setup", "--help"][..],
        &["capture", "--help"],
        &["context", "--help"],
    ] {
        let h = text(args);
        assert!(!h.contains("Claude Code's hook input"), "{args:?}: {h}");
        assert!(h.contains("--agent"), "{args:?}: {h}");
    }
    let man = text(&["man"]);
    for host in ["Codex", "Gemini CLI", "Copilot CLI"] {
        assert!(man.contains(host), "the man page misses {host}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let out = megg_command().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn missing_c_directory_is_an_error_with_a_hint() {
    let p = Project::new();
    let out = p.run("", &["-C", "nope", "state"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: cannot change to "), "{err}");
    assert!(err.contains("hint: "), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn invalid_megg_now_is_a_usage_error() {
    let p = Project::new();
    p.domain("", "P");
    let out = p
        .megg("")
        .env("MEGG_NOW", "yesterday")
        .arg("state")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MEGG_NOW"));
    assert!(out.stdout.is_empty());
}

#[test]
fn broken_pipe_is_quiet() {
    let p = Project::new();
    p.write(
        ".megg/info.md",
        "# Big\n".to_string() + &"a line of context\n".repeat(200_000),
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("megg"))
        .args(["context", "--format", "md"])
        .current_dir(p.root())
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", p.path("cache"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("error"),
        "{:?}",
        out
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let p = Project::new();
    let out = p.run("", &["--color", "always", "state"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("\u{1b}[1;31merror:\u{1b}[0m "), "{err:?}");
    // Not a terminal (and NO_COLOR set by the test environment): plain.
    let out = p.run("", &["state"]);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    let out = p.run("", &["--color", "never", "state"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains('\u{1b}'));
}
