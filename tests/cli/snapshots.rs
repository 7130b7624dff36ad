//! Snapshot tests (insta) pinning the exact bytes megg prints today: every `--json` document,
//! the text outputs, `--help` of every command, typical errors (stderr and exit code) and the
//! MCP server's answers. A refactor that changes any byte shows up as a snapshot diff.
//!
//! Every fixture is built at fixed times (`MEGG_NOW`, commit times, a fixed git signature), so
//! commit ids are stable; the temp directories, the private HOME, the cache directory and the
//! binary's directory are the only machine-dependent parts and are replaced by `<ROOT>`,
//! `<HOME>`, `<CACHE>` and `<BIN>`.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::{Git, NOW, Project, epoch};

/// A project under `<ROOT>/acme` with its own HOME, run with PATH = the binary's directory
/// only (no `claude`, no other `megg`).
struct Fx {
    p: Project,
    home: tempfile::TempDir,
}

impl Fx {
    fn new() -> Self {
        let fx = Self {
            p: Project::new(),
            home: tempfile::tempdir().unwrap(),
        };
        fx.p.mkdir("acme");
        fx
    }

    fn cmd(&self, rel: &str, now: &str, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = self.p.megg(rel);
        cmd.env("HOME", self.home.path())
            .env("MEGG_NOW", now)
            .env("PATH", bin_dir())
            .env_remove("CLAUDE_CONFIG_DIR")
            .args(args);
        cmd
    }

    fn run_at(&self, rel: &str, now: &str, args: &[&str]) -> Output {
        self.cmd(rel, now, args).output().unwrap()
    }

    fn run(&self, rel: &str, args: &[&str]) -> Output {
        self.run_at(rel, NOW, args)
    }

    fn run_stdin(&self, rel: &str, args: &[&str], stdin: &str) -> Output {
        self.cmd(rel, NOW, args)
            .write_stdin(stdin.to_string())
            .output()
            .unwrap()
    }

    /// The machine-dependent paths of this fixture, longest first.
    fn paths(&self) -> Vec<(String, &'static str)> {
        let mut out = Vec::new();
        let mut add = |p: &Path, name: &'static str| {
            out.push((p.display().to_string(), name));
            if let Ok(c) = std::fs::canonicalize(p) {
                out.push((c.display().to_string(), name));
            }
        };
        add(&bin_dir(), "<BIN>");
        add(self.p.root(), "<ROOT>");
        add(self.home.path(), "<HOME>");
        add(self.p.cache.path(), "<CACHE>");
        out.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        out
    }

    fn norm(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (path, name) in self.paths() {
            text = text.replace(&path, name);
        }
        text
    }

    /// Exit code, stdout and stderr, normalized, with every byte visible (a missing final
    /// newline is marked).
    fn report(&self, out: &Output) -> String {
        let section = |bytes: &[u8]| {
            let text = self.norm(std::str::from_utf8(bytes).expect("UTF-8 output"));
            if text.is_empty() || text.ends_with('\n') {
                text
            } else {
                format!("{text}\n\\ no newline at end\n")
            }
        };
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}--- end",
            out.status
                .code()
                .map_or("signal".to_string(), |c| c.to_string()),
            section(&out.stdout),
            section(&out.stderr)
        )
    }

    /// Runs megg at `now` and snapshots the whole result as `name`.
    fn snap_at(&self, name: &str, rel: &str, now: &str, args: &[&str]) -> Output {
        let out = self.run_at(rel, now, args);
        snap(
            name,
            &format!(
                "$ megg {}\n{}",
                self.norm(&shell_words(args)),
                self.report(&out)
            ),
        );
        out
    }

    fn snap(&self, name: &str, rel: &str, args: &[&str]) -> Output {
        self.snap_at(name, rel, NOW, args)
    }

    /// Snapshots `megg context --max-chars BUDGET` in `rel`. Where megg cuts depends on the
    /// length of the absolute paths it prints (the cut notes and markers name them), so this
    /// runs megg through a link whose path has the same length on every machine,
    /// `/tmp/megg-snap-<pid>-<n>`, whatever TMPDIR is.
    fn snap_budget(&self, name: &str, rel: &str, budget: usize) {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let link = FixedRoot::new(
            PathBuf::from(format!("/tmp/megg-snap-{:010}-{n:03}", std::process::id())),
            self.p.root(),
        );
        let dir = link.0.join(rel);
        let args = ["context", "--max-chars", &budget.to_string()];
        let out = self
            .cmd(rel, NOW, &args)
            .current_dir(&dir)
            .env("PWD", &dir)
            .env("MEGG_CEILING_DIRS", "/tmp")
            .output()
            .unwrap();
        assert_exit(&out, 0);
        let report = self
            .report(&out)
            .replace(&link.0.display().to_string(), "<ROOT>");
        snap(name, &format!("$ megg {}\n{report}", shell_words(&args)));
    }

    /// A file's contents, normalized, as a snapshot.
    fn snap_file(&self, name: &str, rel: &str) {
        let text = self.norm(&self.p.read(rel));
        snap(name, &format!("# {rel}\n{text}--- end"));
    }
}

/// A link to a fixture's root at a path of fixed length, removed when dropped.
struct FixedRoot(PathBuf);

impl FixedRoot {
    fn new(link: PathBuf, target: &Path) -> Self {
        if link.symlink_metadata().is_ok_and(|m| m.is_symlink()) {
            std::fs::remove_file(&link).unwrap(); // left by a crashed run of this process id
        }
        std::os::unix::fs::symlink(target, &link).unwrap();
        Self(link)
    }
}

impl Drop for FixedRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn bin_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin("megg")
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The arguments as a shell would need them: plain words as they are, others quoted (Rust
/// string syntax, so a newline shows as `\n`).
fn shell_words(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+<>".contains(c))
            {
                (*a).to_string()
            } else {
                format!("{a:?}")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn snap(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// ------------------------------------------------------------------------------------------
// Fixtures

const KNOWLEDGE: &str = "---
created: 2026-10-01T09:00:00Z
updated: 2026-11-20T10:30:00Z
type: knowledge
---
# Knowledge

---

## 2026-10-01 - Use JWT in httpOnly cookies
**Type:** decision
**Topics:** auth, security

Sessions are JWTs in httpOnly cookies; never localStorage.

---

## 2026-10-12 - Migrations run in CI only
**Type:** rule
**Topics:** db, ci

Never run migrations by hand against staging.

---

## 2026-11-03 - Token refresh races
**Type:** gotcha
**Topics:** auth-flow

Two tabs refreshing at once invalidate each other's token; serialize refreshes.

---

## 2026-11-20 - OAuth providers
**Type:** fact
**Topics:** oauth

Google and GitHub.
";

/// Knowledge with maintenance work to do: a stale entry, a topic with three entries and an
/// unknown type.
const OLD_KNOWLEDGE: &str = "---
created: 2026-01-10T09:00:00Z
updated: 2026-09-01T10:00:00Z
type: knowledge
---
# Knowledge

---

## 2026-01-10 - Postgres 16 everywhere
**Type:** fact
**Topics:** db

Staging and production run Postgres 16.

---

## 2026-06-02 - Pool size 20
**Type:** decision
**Topics:** db, performance

The connection pool holds 20 connections per instance.

---

## 2026-09-01 - Vacuum at night
**Type:** hunch
**Topics:** db

Autovacuum runs between 01:00 and 04:00.
";

const HANDOFF: &str = "## Working On
Token refresh endpoint

## Progress
- [x] refresh route
- [ ] rotation

## Next
- add rotation tests

## Context
src/auth/refresh.rs
";

/// The context fixture: `acme` (a git repository on main with two commits) > `shop` > `api`,
/// a sibling `web`, a child `api/v2`; `api` has knowledge, an active state and a note.
fn context_fixture() -> Fx {
    let fx = Fx::new();
    let p = &fx.p;
    let git = Git::init(&p.path("acme"), "main");
    let first = git.commit("main", epoch("2026-11-21T10:00:00Z"), "init");
    git.commit("main", epoch("2026-11-22T10:00:00Z"), "refresh route");
    p.domain("acme", "Acme");
    p.domain("acme/shop", "Shop");
    p.domain("acme/shop/api", "Shop API");
    p.domain("acme/shop/web", "Shop web");
    p.domain("acme/shop/api/v2", "API v2");
    p.write("acme/shop/api/.megg/knowledge.md", KNOWLEDGE);
    p.write(
        "acme/shop/api/.megg/state.md",
        format!(
            "---\nupdated: 2026-11-22T09:00:00Z\nstatus: active\nbranch: main\nhead: {first}\nsource: manual\n---\n\n{HANDOFF}"
        ),
    );
    p.write(
        "acme/shop/api/.megg/notes.md",
        "# Notes\n\nScratch notes.\n",
    );
    p.write("acme/shop/.megg/knowledge.md", OLD_KNOWLEDGE);
    p.write(
        "acme/shop/.megg/state.md",
        "---\nupdated: 2026-11-01T09:00:00Z\nstatus: active\n---\n\n## Working On\nOld work\n",
    );
    fx
}

const API: &str = "acme/shop/api";
const PLAN: &str = "docs/plans/2026-11-20-feat-user-authentication-flow-plan.md";
const PLAN2: &str = "docs/plans/2026-11-21-fix-login-redirect-plan.md";

/// A git repository `acme` on main with one commit and two plan files.
fn checkpoint_fixture() -> (Fx, Git) {
    let fx = Fx::new();
    let git = Git::init(&fx.p.path("acme"), "main");
    git.commit("main", epoch("2026-11-20T08:00:00Z"), "init");
    fx.p.write(&format!("acme/{PLAN}"), "# User authentication flow\n");
    fx.p.write(&format!("acme/{PLAN2}"), "# Login redirect\n");
    (fx, git)
}

// ------------------------------------------------------------------------------------------
// context

#[test]
fn context_documents() {
    let fx = context_fixture();
    let out = fx.snap("context_hook", API, &["context", "--json"]);
    assert_exit(&out, 0);
    // The two long strings of the hook document, unescaped, for review.
    let v = crate::stdout_json(&out);
    snap(
        "context_hook_decoded",
        &fx.norm(&format!(
            "--- systemMessage\n{}\n--- additionalContext\n{}\n--- end",
            v["systemMessage"].as_str().unwrap(),
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
        )),
    );
    assert_exit(
        &fx.snap("context_format_json", API, &["context", "--format", "json"]),
        0,
    );
    assert_exit(&fx.snap("context_md", API, &["context"]), 0);
    assert_exit(
        &fx.snap(
            "context_topic_md",
            API,
            &["context", "--topic", "auth", "--format", "md"],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "context_topic_json",
            API,
            &["context", "--topic", "auth", "--format", "json"],
        ),
        0,
    );
    // The parent domain: expired state, knowledge with a stale entry.
    assert_exit(
        &fx.snap(
            "context_shop_format_json",
            "acme/shop",
            &["context", "--format", "json"],
        ),
        0,
    );
}

/// `n` knowledge entries of about 100 tokens each, on rotating types, topics and dates.
fn many_entries(n: usize) -> String {
    let kinds = [
        "decision", "pattern", "gotcha", "rule", "process", "fact", "context",
    ];
    let topics = ["auth", "db", "payments", "ci", "auth-flow", "oauth"];
    let mut s = String::from(
        "---\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-11-20T10:30:00Z\ntype: knowledge\n---\n# Knowledge\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "\n---\n\n## 2026-{:02}-{:02} - Entry {i} about {}\n**Type:** {}\n**Topics:** {}, misc\n\n{}\n",
            i % 10 + 1,
            i % 28 + 1,
            topics[i % topics.len()],
            kinds[i % kinds.len()],
            topics[i % topics.len()],
            "Explanation of the choice and its consequences for later work. ".repeat(6)
        ));
    }
    s
}

#[test]
fn context_summary_blocked_and_budget() {
    let fx = Fx::new();
    let p = &fx.p;
    let git = Git::init(&p.path("acme"), "main");
    let first = git.commit("main", epoch("2026-11-21T10:00:00Z"), "init");
    p.domain("acme", "Acme");
    p.domain("acme/big", "Big");
    p.domain("acme/huge", "Huge");
    p.write("acme/big/.megg/knowledge.md", many_entries(100));
    p.write(
        "acme/big/.megg/state.md",
        format!(
            "---\nupdated: 2026-11-22T09:00:00Z\nstatus: active\nbranch: main\nhead: {first}\n---\n\n{}",
            HANDOFF.repeat(8)
        ),
    );
    p.write("acme/huge/.megg/knowledge.md", many_entries(220));
    let big = "acme/big";
    let out = fx.snap("context_summary_hook", big, &["context", "--json"]);
    assert_exit(&out, 0);
    let v = crate::stdout_json(&out);
    snap(
        "context_summary_hook_decoded",
        &fx.norm(&format!(
            "--- systemMessage\n{}\n--- additionalContext\n{}\n--- end",
            v["systemMessage"].as_str().unwrap(),
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
        )),
    );
    assert_exit(
        &fx.snap(
            "context_summary_format_json",
            big,
            &["context", "--format", "json"],
        ),
        0,
    );
    // Ancestors, lists and knowledge cut to counts and topics; info and state fit.
    fx.snap_budget("context_budget_3000_md", big, 3000);
    // Every cut, down to info.md and the state cut at a line boundary.
    fx.snap_budget("context_budget_2000_md", big, 2000);
    assert_exit(
        &fx.snap(
            "context_blocked_format_json",
            "acme/huge",
            &["context", "--format", "json"],
        ),
        0,
    );
    assert_exit(&fx.snap("context_blocked_md", "acme/huge", &["context"]), 0);
}

#[test]
fn context_without_megg() {
    let fx = Fx::new();
    fx.p.mkdir("acme/empty");
    assert_exit(
        &fx.snap("context_none_hook", "acme/empty", &["context", "--json"]),
        0,
    );
    assert_exit(
        &fx.snap(
            "context_none_format_json",
            "acme/empty",
            &["context", "--format", "json"],
        ),
        0,
    );
    assert_exit(&fx.snap("context_none_md", "acme/empty", &["context"]), 0);
}

// ------------------------------------------------------------------------------------------
// state

#[test]
fn state_documents() {
    let fx = context_fixture();
    assert_exit(
        &fx.snap("state_show_json", API, &["state", "show", "--json"]),
        0,
    );
    assert_exit(&fx.snap("state_show", API, &["state"]), 0);
    // Expired (shop's state is three weeks old).
    assert_exit(
        &fx.snap(
            "state_show_expired_json",
            "acme/shop",
            &["state", "show", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap("state_show_expired", "acme/shop", &["state", "show"]),
        0,
    );

    let out = fx.run_stdin(API, &["state", "write", "--json"], HANDOFF);
    snap(
        "state_write_stdin_json",
        &format!("$ megg state write --json < HANDOFF\n{}", fx.report(&out)),
    );
    assert_exit(&out, 0);
    fx.snap_file("state_write_file", &format!("{API}/.megg/state.md"));
    let out = fx.run_stdin(API, &["state", "write"], HANDOFF);
    snap(
        "state_write_stdin",
        &format!("$ megg state write < HANDOFF\n{}", fx.report(&out)),
    );
    assert_exit(&out, 0);

    assert_exit(
        &fx.snap("state_clear_json", API, &["state", "clear", "--json"]),
        0,
    );
    assert_exit(
        &fx.snap(
            "state_clear_nothing_json",
            API,
            &["state", "clear", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap("state_show_none_json", API, &["state", "show", "--json"]),
        0,
    );
    assert_exit(&fx.snap("state_show_none", API, &["state", "show"]), 0);
    fx.run_stdin(API, &["state", "write"], HANDOFF);
    assert_exit(&fx.snap("state_done", API, &["state", "done"]), 0);
    assert_exit(&fx.snap("state_clear_nothing", API, &["state", "clear"]), 0);
}

// ------------------------------------------------------------------------------------------
// checkpoint and gitignore

#[test]
fn checkpoint_lifecycle() {
    let (fx, git) = checkpoint_fixture();
    let a = "acme";
    assert_exit(
        &fx.snap(
            "checkpoint_save_not_ignored",
            a,
            &["checkpoint", "save", PLAN],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "gitignore_check_fails_json",
            a,
            &["gitignore", "--check", "--json"],
        ),
        1,
    );
    assert_exit(
        &fx.snap("gitignore_check_fails", a, &["gitignore", "--check"]),
        1,
    );
    assert_exit(&fx.snap("gitignore_json", a, &["gitignore", "--json"]), 0);
    fx.snap_file("gitignore_file", "acme/.gitignore");
    assert_exit(&fx.snap("gitignore_again", a, &["gitignore"]), 0);
    assert_exit(
        &fx.snap("gitignore_again_json", a, &["gitignore", "--json"]),
        0,
    );
    assert_exit(
        &fx.snap(
            "gitignore_check_json",
            a,
            &["gitignore", "--check", "--json"],
        ),
        0,
    );
    assert_exit(&fx.snap("gitignore_check", a, &["gitignore", "--check"]), 0);

    assert_exit(
        &fx.snap(
            "checkpoint_save_json",
            a,
            &["checkpoint", "save", PLAN, "--branch", "main", "--json"],
        ),
        0,
    );
    fx.snap_file(
        "checkpoint_file_saved",
        "acme/.user-authentication-flow.local.md",
    );
    assert_exit(
        &fx.snap(
            "checkpoint_save_second",
            a,
            &["checkpoint", "save", PLAN2, "--phase", "work"],
        ),
        0,
    );
    git.commit("main", epoch("2026-11-22T13:00:00Z"), "login form");

    let later = "2026-11-22T14:00:00Z";
    assert_exit(
        &fx.snap_at(
            "checkpoint_list_json",
            a,
            later,
            &["checkpoint", "list", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at("checkpoint_list", a, later, &["checkpoint", "list"]),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_show_json",
            a,
            later,
            &["checkpoint", "show", "user-authentication-flow", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at("checkpoint_show", a, later, &["checkpoint", "show", PLAN]),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_update_json",
            a,
            later,
            &[
                "checkpoint",
                "update",
                "user-authentication-flow",
                "--phase",
                "work",
                "--check",
                "Branch created",
                "--json",
            ],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_update",
            a,
            later,
            &[
                "checkpoint",
                "update",
                "user-authentication-flow",
                "--check",
                "implementation",
                "--uncheck",
                "Branch created",
            ],
        ),
        0,
    );
    fx.snap_file(
        "checkpoint_file_updated",
        "acme/.user-authentication-flow.local.md",
    );
    git.commit("main", epoch("2026-11-22T15:00:00Z"), "logout");

    let resume_at = "2026-11-22T16:00:00Z";
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_fresh_json",
            a,
            resume_at,
            &[
                "checkpoint",
                "resume",
                "user-authentication-flow",
                "--for",
                "work",
                "--json",
            ],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_fresh",
            a,
            resume_at,
            &[
                "checkpoint",
                "resume",
                "user-authentication-flow",
                "--for",
                "work",
            ],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_phase_mismatch_json",
            a,
            resume_at,
            &["checkpoint", "resume", PLAN, "--for", "compound", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_multiple_json",
            a,
            resume_at,
            &["checkpoint", "resume", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_multiple",
            a,
            resume_at,
            &["checkpoint", "resume"],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_view",
            a,
            resume_at,
            &["checkpoint", "resume", PLAN, "--choice", "view"],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_choice_resume_json",
            a,
            resume_at,
            &[
                "checkpoint",
                "resume",
                PLAN,
                "--for",
                "work",
                "--choice",
                "resume",
                "--json",
            ],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_choice_resume",
            a,
            resume_at,
            &["checkpoint", "resume", PLAN, "--choice", "resume"],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "checkpoint_finish_json",
            a,
            &["checkpoint", "finish", "user-authentication-flow", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "checkpoint_resume_fresh_choice_json",
            a,
            &["checkpoint", "resume", PLAN2, "--choice", "fresh", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "checkpoint_resume_none_json",
            a,
            &["checkpoint", "resume", "--for", "work", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap("checkpoint_resume_none", a, &["checkpoint", "resume"]),
        0,
    );
    assert_exit(
        &fx.snap(
            "checkpoint_list_empty_json",
            a,
            &["checkpoint", "list", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap("checkpoint_list_empty", a, &["checkpoint", "list"]),
        0,
    );
    fx.run(a, &["checkpoint", "save", PLAN]);
    assert_exit(
        &fx.snap("checkpoint_finish", a, &["checkpoint", "finish", PLAN]),
        0,
    );
}

#[test]
fn checkpoint_resume_situations() {
    let (fx, _git) = checkpoint_fixture();
    let a = "acme";
    fx.run(a, &["gitignore"]);
    assert_exit(
        &fx.run(a, &["checkpoint", "save", PLAN, "--branch", "main"]),
        0,
    );
    let args = [
        "checkpoint",
        "resume",
        "user-authentication-flow",
        "--for",
        "work",
        "--json",
    ];
    // Recent (2 days), stale (10 days) and abandoned (40 days).
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_recent_json",
            a,
            "2026-11-24T12:00:00Z",
            &args,
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_stale_json",
            a,
            "2026-12-02T12:00:00Z",
            &args,
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_stale",
            a,
            "2026-12-02T12:00:00Z",
            &args[..5],
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_abandoned_json",
            a,
            "2027-01-01T12:00:00Z",
            &args,
        ),
        0,
    );
    assert_exit(
        &fx.snap_at(
            "checkpoint_resume_abandoned",
            a,
            "2027-01-01T12:00:00Z",
            &args[..5],
        ),
        0,
    );
    // The plan file is gone: start fresh or enter a new path.
    std::fs::rename(
        fx.p.path(&format!("acme/{PLAN}")),
        fx.p.path("acme/docs/plans/auth-flow.md"),
    )
    .unwrap();
    assert_exit(&fx.snap("checkpoint_resume_plan_gone_json", a, &args), 0);
    assert_exit(&fx.snap("checkpoint_resume_plan_gone", a, &args[..5]), 0);
    assert_exit(
        &fx.snap(
            "checkpoint_resume_new_path_json",
            a,
            &[
                "checkpoint",
                "resume",
                "user-authentication-flow",
                "--choice",
                "resume",
                "--plan-file",
                "docs/plans/auth-flow.md",
                "--json",
            ],
        ),
        0,
    );
}

#[test]
fn checkpoint_corrupt_and_foreign_files() {
    let (fx, _git) = checkpoint_fixture();
    let a = "acme";
    fx.run(a, &["gitignore"]);
    assert_exit(&fx.run(a, &["checkpoint", "save", PLAN]), 0);
    fx.p.write(
        "acme/.broken.local.md",
        "---\nfeature: broken\nplan_file: [\n---\n",
    );
    fx.p.write("acme/.settings.local.md", "# Some plugin's settings\n");
    assert_exit(
        &fx.snap(
            "checkpoint_list_corrupt_json",
            a,
            &["checkpoint", "list", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap("checkpoint_list_corrupt", a, &["checkpoint", "list"]),
        0,
    );
    assert_exit(
        &fx.snap(
            "checkpoint_resume_quarantine_json",
            a,
            &["checkpoint", "resume", "--json"],
        ),
        0,
    );
}

#[test]
fn checkpoint_outside_git() {
    let fx = Fx::new();
    fx.p.write("acme/plans/my-idea.md", "# Idea\n");
    assert_exit(
        &fx.snap(
            "checkpoint_save_outside_git_json",
            "acme",
            &["checkpoint", "save", "plans/my-idea.md", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "gitignore_outside_git_json",
            "acme",
            &["gitignore", "--json"],
        ),
        0,
    );
}

// ------------------------------------------------------------------------------------------
// learn, init, maintain

#[test]
fn learn_documents() {
    let fx = Fx::new();
    fx.p.domain("acme", "Acme");
    Git::init(&fx.p.path("acme"), "main").commit("main", epoch("2026-11-01T00:00:00Z"), "init");
    assert_exit(
        &fx.snap(
            "learn_json",
            "acme",
            &[
                "learn",
                "Use JWT in httpOnly cookies",
                "decision",
                "auth, security",
                "Sessions are JWTs in httpOnly cookies.\n\n- never localStorage",
                "--json",
            ],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "learn_text",
            "acme",
            &[
                "learn",
                "Retry flaky uploads",
                "pattern",
                "uploads",
                "Retry 3 times.",
            ],
        ),
        0,
    );
    fx.p.write(
        "acme/entry.md",
        "## Staging is reset on Mondays\n**Type:** fact\n**Topics:** staging, ci\n\nThe staging database is rebuilt every Monday at 06:00 UTC.\n",
    );
    assert_exit(
        &fx.snap(
            "learn_file_json",
            "acme",
            &["learn", "--file", "entry.md", "--json"],
        ),
        0,
    );
    fx.snap_file("learn_knowledge_file", "acme/.megg/knowledge.md");
}

#[test]
fn init_documents() {
    let fx = Fx::new();
    let git = Git::init(&fx.p.path("acme"), "main");
    git.repo
        .remote(
            "origin",
            "https://alice:s3cret@github.com/acme/shop.git?private_token=abc&ref=main",
        )
        .unwrap();
    git.commit("main", epoch("2026-11-01T00:00:00Z"), "init");
    fx.p.write(
        "acme/Cargo.toml",
        "[package]\nname = \"acme-shop\"\nversion = \"0.1.0\"\ndescription = \"The Acme online shop\"\n",
    );
    assert_exit(&fx.snap("init_json", "acme", &["init", "--json"]), 0);
    fx.snap_file("init_info_file", "acme/.megg/info.md");
    assert_exit(&fx.snap("init_exists", "acme", &["init"]), 1);
    assert_exit(&fx.snap("init_exists_json", "acme", &["init", "--json"]), 1);
    fx.p.mkdir("acme/api");
    assert_exit(
        &fx.snap(
            "init_text_with_info",
            "acme",
            &["init", "api", "--info", "# API\n\nThe HTTP API.\n"],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "init_force_json",
            "acme",
            &["init", "api", "--force", "--json"],
        ),
        0,
    );
}

#[test]
fn maintain_documents() {
    let fx = context_fixture();
    assert_exit(
        &fx.snap("maintain_json", "acme", &["maintain", "--json"]),
        0,
    );
    assert_exit(&fx.snap("maintain_text", "acme", &["maintain"]), 0);
    assert_exit(
        &fx.snap(
            "maintain_archive_json",
            "acme/shop",
            &["maintain", "--archive-before", "2026-03-01", "--json"],
        ),
        0,
    );
    fx.snap_file(
        "maintain_archive_file",
        "acme/shop/.megg/archive/knowledge-2026.md",
    );
}

// ------------------------------------------------------------------------------------------
// setup, doctor, trust

#[test]
fn setup_and_doctor_documents() {
    let fx = Fx::new();
    Git::init(&fx.p.path("acme"), "main").commit("main", epoch("2026-11-01T00:00:00Z"), "init");
    fx.p.domain("acme", "Acme");
    fx.p.write(
        "acme/.claude/settings.json",
        "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo bye\"}]}]\n  }\n}\n",
    );
    fx.p.write("acme/.gitignore", "target/\n");
    let a = "acme";
    assert_exit(
        &fx.snap("doctor_before_setup_json", a, &["doctor", "--json"]),
        1,
    );
    assert_exit(&fx.snap("doctor_before_setup", a, &["doctor"]), 1);
    assert_exit(
        &fx.snap("setup_dry_run_json", a, &["setup", "--json", "--dry-run"]),
        0,
    );
    assert_exit(&fx.snap("setup_dry_run", a, &["setup", "--dry-run"]), 0);
    assert_exit(&fx.snap("setup_json", a, &["setup", "--json"]), 0);
    fx.snap_file("setup_settings_file", "acme/.claude/settings.json");
    fx.snap_file("setup_mcp_file", "acme/.mcp.json");
    fx.snap_file("setup_gitignore_file", "acme/.gitignore");
    assert_exit(&fx.snap("setup_again", a, &["setup"]), 0);
    assert_exit(&fx.snap("doctor_json", a, &["doctor", "--json"]), 0);
    assert_exit(&fx.snap("doctor", a, &["doctor"]), 0);
    assert_exit(
        &fx.snap(
            "setup_uninstall_dry_run",
            a,
            &["setup", "--uninstall", "--dry-run"],
        ),
        0,
    );
    assert_exit(
        &fx.snap(
            "setup_uninstall_json",
            a,
            &["setup", "--uninstall", "--json"],
        ),
        0,
    );
    fx.snap_file(
        "setup_uninstalled_settings_file",
        "acme/.claude/settings.json",
    );
}

#[test]
fn setup_user_scope_dry_run() {
    let fx = Fx::new();
    Git::init(&fx.p.path("acme"), "main");
    assert_exit(
        &fx.snap(
            "setup_user_dry_run_json",
            "acme",
            &["setup", "--scope", "user", "--dry-run", "--json"],
        ),
        0,
    );
}

#[test]
fn trust_documents() {
    let fx = Fx::new();
    let a = "acme";
    assert_exit(
        &fx.snap("trust_list_empty_json", a, &["trust", "--list", "--json"]),
        0,
    );
    assert_exit(&fx.snap("trust_list_empty", a, &["trust", "--list"]), 0);
    // An absolute DIR keeps the document free of the working directory; a relative one is
    // pinned by regress_domain::trust_with_a_relative_dir_trusts_that_dir_from_where_megg_runs.
    let shared = fx.p.mkdir("acme/shared");
    let shared = shared.to_str().unwrap();
    assert_exit(
        &fx.snap("trust_add_json", a, &["trust", shared, "--json"]),
        0,
    );
    assert_exit(&fx.snap("trust_add_again", a, &["trust", shared]), 0);
    assert_exit(
        &fx.snap("trust_list_json", a, &["trust", "--list", "--json"]),
        0,
    );
    assert_exit(&fx.snap("trust_list", a, &["trust", "--list"]), 0);
    fx.snap_file_abs(
        "trust_config_file",
        &fx.home.path().join(".config/megg/config.toml"),
    );
    assert_exit(
        &fx.snap("trust_remove", a, &["trust", "--remove", shared]),
        0,
    );
}

impl Fx {
    fn snap_file_abs(&self, name: &str, path: &Path) {
        let text = self.norm(&std::fs::read_to_string(path).unwrap());
        snap(
            name,
            &format!(
                "# {}\n{text}--- end",
                self.norm(&path.display().to_string())
            ),
        );
    }
}

// ------------------------------------------------------------------------------------------
// errors

#[test]
fn error_outputs() {
    let (fx, _git) = checkpoint_fixture();
    fx.p.domain("acme", "Acme");
    let a = "acme";
    assert_exit(
        &fx.snap(
            "error_unknown_checkpoint",
            a,
            &["checkpoint", "show", "no-such-plan"],
        ),
        1,
    );
    assert_exit(
        &fx.snap(
            "error_unknown_checkpoint_json",
            a,
            &["checkpoint", "finish", "no-such-plan", "--json"],
        ),
        1,
    );
    assert_exit(
        &fx.snap(
            "error_missing_plan_file",
            a,
            &["checkpoint", "save", "docs/plans/missing.md"],
        ),
        1,
    );
    let out = fx.run_stdin(a, &["state", "write", "--json"], "");
    snap(
        "error_state_write_empty_stdin",
        &format!("$ megg state write --json < /dev/null\n{}", fx.report(&out)),
    );
    assert_exit(&out, 1);
    assert_exit(
        &fx.snap(
            "error_state_write_missing_file",
            a,
            &["state", "write", "--file", "nope.md"],
        ),
        1,
    );
    fx.p.mkdir("outside");
    assert_exit(
        &fx.snap("error_no_megg", "outside", &["state", "show", "--json"]),
        1,
    );
    assert_exit(
        &fx.snap(
            "error_learn_bad_type",
            a,
            &["learn", "Title", "opinion", "x", "text"],
        ),
        1,
    );
    assert_exit(
        &fx.snap(
            "error_learn_separator",
            a,
            &["learn", "Title", "rule", "x", "one\n---\ntwo", "--json"],
        ),
        1,
    );
    assert_exit(&fx.snap("error_bad_flag", a, &["context", "--bogus"]), 2);
    assert_exit(&fx.snap("error_unknown_command", a, &["frobnicate"]), 2);
    assert_exit(
        &fx.snap(
            "error_bad_phase",
            a,
            &["checkpoint", "update", "x", "--phase", "shipping"],
        ),
        2,
    );
    assert_exit(
        &fx.snap_at("error_bad_megg_now", a, "yesterday", &["state"]),
        2,
    );
    // The hook format never fails, whatever the error.
    assert_exit(
        &fx.snap_at(
            "error_bad_megg_now_hook",
            a,
            "yesterday",
            &["context", "--json"],
        ),
        0,
    );
    assert_exit(
        &fx.snap("error_missing_c_dir", a, &["-C", "nope", "state"]),
        1,
    );
}

// ------------------------------------------------------------------------------------------
// --help

#[test]
fn help_texts() {
    let fx = Fx::new();
    let mut cases: Vec<Vec<&str>> = vec![vec!["--help"], vec!["--version"], vec!["help"]];
    for cmd in [
        "context",
        "state",
        "checkpoint",
        "gitignore",
        "learn",
        "init",
        "maintain",
        "search",
        "show",
        "setup",
        "doctor",
        "trust",
        "resolve",
        "capture",
        "merge-driver",
        "completions",
        "man",
        "mcp",
    ] {
        cases.push(vec![cmd, "--help"]);
    }
    for sub in ["save", "list", "show", "update", "resume", "finish"] {
        cases.push(vec!["checkpoint", sub, "--help"]);
    }
    for sub in ["show", "write", "clear"] {
        cases.push(vec!["state", sub, "--help"]);
    }
    cases.push(vec!["context", "-h"]);
    cases.push(vec!["setup", "-h"]);
    for args in cases {
        // `megg --help` → help, `megg help` → help_command, `megg context -h` →
        // help_context_short, `megg checkpoint save --help` → help_checkpoint_save.
        let name = std::iter::once("help")
            .chain(args.iter().filter_map(|a| match *a {
                "--help" => None,
                "-h" => Some("short"),
                "help" => Some("command"),
                "--version" => Some("version"),
                word => Some(word),
            }))
            .collect::<Vec<_>>()
            .join("_");
        let out = fx.run("acme", &args);
        assert_exit(&out, 0);
        snap(
            &name,
            &format!("$ megg {}\n{}", shell_words(&args), fx.report(&out)),
        );
    }
}

// ------------------------------------------------------------------------------------------
// search and show

/// Knowledge written the way people write it: accents, CJK, a pasted symbol, both forms of
/// the field lines, a field line below the first text line.
const RECALL_KNOWLEDGE: &str = "---
created: 2026-10-01T09:00:00Z
updated: 2026-11-20T10:30:00Z
type: knowledge
---
# Knowledge

---

## 2026-10-01 - Use JWT in httpOnly cookies
**Type:** decision
**Topics:** auth, security

Sessions are JWTs in httpOnly cookies; never localStorage.
This refresh token rotates on every use.

---

## 2026-10-20 - Café prices are stored in cents (€)
**type**: rule
**TOPICS**: payments, café

Prices on the café menu are integers in euro cents, never floats: a crème brûlée is 650.

---

## 2026-11-03 - 令牌存储在数据库
Tokens of the mobile app live server-side.
**Type:** gotcha
**Topics:** 認証, auth

令牌存储在数据库中，不在浏览器里。トークンは httpOnly クッキーに保存しない。
";

const RECALL_ARCHIVE: &str = "# Archive

---

## 2025-03-01 - Migrations run in CI
**Type:** decision
**Topics:** db

Migrations never run at boot: the deploy job runs them, même le dimanche.
";

/// `acme`, a git repository and a domain: knowledge, an archive, an info file and an active
/// handoff.
fn recall_fixture() -> Fx {
    let fx = Fx::new();
    Git::init(&fx.p.path("acme"), "main").commit("main", epoch("2026-11-01T00:00:00Z"), "init");
    fx.p.domain("acme", "Acme");
    fx.p.write("acme/.megg/knowledge.md", RECALL_KNOWLEDGE);
    fx.p.write("acme/.megg/archive/knowledge-2025.md", RECALL_ARCHIVE);
    fx.p.write(
        "acme/.megg/info.md",
        "---\ntype: context\n---\n\n# Acme\n\n## Context\nA café's online shop, in € and ¥.\n",
    );
    fx.p.write(
        "acme/.megg/state.md",
        "---\nupdated: 2026-11-22T09:00:00Z\nstatus: active\n---\n\n## Working On\nRename \"Save\" to \"Submit\" on the café checkout\n\n## Next\n- the 5\" screens\n",
    );
    fx
}

/// SPEC §13.3, §13.4, §16: `megg search` and `megg show`, text and JSON, on text in every
/// script; field lines never in a snippet.
#[test]
fn search_and_show_documents() {
    let fx = recall_fixture();
    for (name, query) in [
        ("cookies", "cookies"),
        ("accents", "café prices"),
        ("cjk", "令牌"),
        ("phrase", "\"refresh token\""),
        ("handoff", "checkout screens"),
        // Words of the topics alone: the snippet is the body's first line, never a field line.
        ("topics", "security payments"),
    ] {
        assert_exit(
            &fx.snap(&format!("search_{name}"), "acme", &["search", query]),
            0,
        );
        assert_exit(
            &fx.snap(
                &format!("search_{name}_json"),
                "acme",
                &["search", query, "--json"],
            ),
            0,
        );
    }
    assert_exit(
        &fx.snap(
            "search_filtered_json",
            "acme",
            &[
                "search",
                "never",
                "--in",
                "knowledge,archive",
                "--type",
                "decision",
                "--limit",
                "1",
                "--json",
            ],
        ),
        0,
    );
    assert_exit(
        &fx.snap("search_no_match", "acme", &["search", "paymnts"]),
        0,
    );
    assert_exit(
        &fx.snap(
            "search_no_match_json",
            "acme",
            &["search", "paymnts", "--json"],
        ),
        0,
    );
    let v = crate::stdout_json(&fx.run(
        "acme",
        &["search", "café cookies 令牌", "--in", "knowledge", "--json"],
    ));
    let ids: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 3, "{v}");
    let mut args = vec!["show"];
    args.extend(&ids);
    assert_exit(&fx.snap("show", "acme", &args), 0);
    args.push("--json");
    assert_exit(&fx.snap("show_json", "acme", &args), 0);
    let id_of = |title: &str| {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["title"].as_str().unwrap().starts_with(title))
            .unwrap_or_else(|| panic!("no {title} in {v}"))["id"]
            .as_str()
            .unwrap()
    };
    let (cafe, cjk) = (id_of("Café"), id_of("令牌"));
    assert_exit(
        &fx.snap("show_missing", "acme", &["show", cafe, "kzzzzzzz"]),
        1,
    );
    assert_exit(
        &fx.snap(
            "show_missing_json",
            "acme",
            &["show", cafe, "kzzzzzzz", "--json"],
        ),
        1,
    );
    assert_exit(
        &fx.snap(
            "show_max_chars_json",
            "acme",
            &["show", cjk, "--max-chars", "30", "--json"],
        ),
        0,
    );
}

// ------------------------------------------------------------------------------------------
// MCP

#[test]
fn mcp_tools() {
    let fx = context_fixture();
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"snapshots","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"maintain","arguments":{"path":"acme/shop"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"context","arguments":{"path":"acme/shop/api","topic":"auth"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"checkpoint_update","arguments":{"target":"x","phase":"shipping"}}}"#,
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = fx
        .cmd("", NOW, &["mcp"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let messages: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Standard JSON Schema formats only (SPEC §12): hosts warn about schemars' own.
    fn formats(v: &serde_json::Value, found: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(f) = m.get("format").and_then(|f| f.as_str()) {
                    found.push(f.to_string());
                }
                m.values().for_each(|v| formats(v, found));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| formats(v, found)),
            _ => {}
        }
    }
    let list = messages.iter().find(|m| m["id"] == 2).unwrap();
    let mut found = Vec::new();
    formats(&list["result"], &mut found);
    found.retain(|f| !["date-time", "date", "uri", "uuid", "email"].contains(&f.as_str()));
    assert!(
        found.is_empty(),
        "non-standard formats in tool schemas: {found:?}"
    );
    for (id, name) in [
        (1, "mcp_initialize"),
        (2, "mcp_tools_list"),
        (3, "mcp_call_maintain"),
        (4, "mcp_call_context"),
        (5, "mcp_call_error"),
    ] {
        let reply = messages
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id}: {stdout}"));
        snap(
            name,
            &fx.norm(&serde_json::to_string_pretty(reply).unwrap()),
        );
    }
}
