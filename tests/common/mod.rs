//! What both integration test binaries share: a temp project to run megg in, git2-built
//! repositories with fixed authors and times, token helpers, and (in `provision`) the outside
//! tools some tests install for themselves on first use.

// Each binary includes this module whole and uses its own part of it.
#![allow(dead_code)]

pub mod provision;
mod tick;

#[allow(unused_imports)] // the e2e binary does not use it
pub use tick::fs_tick;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use git2::{Repository, Signature, Time};

/// The fixed "now" of every test unless a test sets its own.
pub const NOW: &str = "2026-11-22T12:00:00Z";

/// A temp directory tree with helpers to write files and run megg in it.
pub struct Project {
    pub tmp: tempfile::TempDir,
    /// megg's cache and HOME, apart from the tree.
    pub cache: tempfile::TempDir,
}

impl Default for Project {
    fn default() -> Self {
        Self::new()
    }
}

impl Project {
    pub fn new() -> Self {
        Self {
            tmp: tempfile::tempdir().unwrap(),
            cache: tempfile::tempdir().unwrap(),
        }
    }

    pub fn root(&self) -> &Path {
        self.tmp.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, content).unwrap();
        p
    }

    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let p = self.path(rel);
        fs::create_dir_all(&p).unwrap();
        p
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap()
    }

    /// A domain with an `info.md` titled `title`.
    pub fn domain(&self, rel: &str, title: &str) -> PathBuf {
        let dir = if rel.is_empty() {
            self.root().to_path_buf()
        } else {
            self.mkdir(rel)
        };
        let info = format!(
            "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n---\n\n# {title}\n\n## Context\nAbout {title}.\n"
        );
        self.write(&join(rel, ".megg/info.md"), info);
        dir
    }

    /// megg started in `rel`, with a clean, reproducible environment.
    pub fn megg(&self, rel: &str) -> Command {
        let mut cmd = megg_command();
        cmd.current_dir(self.path(rel))
            .env("MEGG_CACHE_DIR", self.cache.path())
            // A HOME of its own: no global git config or excludes from the machine.
            .env("HOME", self.cache.path())
            .env("MEGG_CEILING_DIRS", self.root().parent().unwrap());
        cmd
    }

    /// Runs megg in `rel` and returns its output, whatever the exit code.
    pub fn run(&self, rel: &str, args: &[&str]) -> Output {
        self.megg(rel).args(args).output().unwrap()
    }

    /// Runs megg expecting exit 0, returning stdout.
    pub fn ok(&self, rel: &str, args: &[&str]) -> String {
        let out = self.run(rel, args);
        assert!(
            out.status.success(),
            "megg {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs megg expecting exit 0 and a JSON document on stdout.
    pub fn json(&self, rel: &str, args: &[&str]) -> serde_json::Value {
        let out = self.ok(rel, args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }
}

/// Makes a FIFO at `path` with the system's `mkfifo` (rustix has no `mkfifoat` on macOS).
pub fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .args(["-m", "600"])
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

pub fn join(rel: &str, tail: &str) -> String {
    if rel.is_empty() {
        tail.to_string()
    } else {
        format!("{rel}/{tail}")
    }
}

/// The megg binary with the user's environment stripped of anything that changes its output.
pub fn megg_command() -> Command {
    let mut cmd = Command::cargo_bin("megg").unwrap();
    for var in [
        "MEGG_NOW",
        "MEGG_HOOK_MAX_CHARS",
        "MEGG_CEILING_DIRS",
        "MEGG_CACHE_DIR",
        "MEGG_FAILPOINTS",
        "MEGG_CAPTURE",
        "MEGG_HOST_SUMMARY",
        "CLAUDE_CONFIG_DIR",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "PWD",
        "GIT_DIR",
        "GIT_WORK_TREE",
        // Tests give megg a private HOME; git's own pointer to a global config would escape it.
        "GIT_CONFIG_GLOBAL",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("MEGG_NOW", NOW)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    cmd
}

/// A git repository at `dir` with a fixed author, fixed commit times and no global config.
pub struct Git {
    pub repo: Repository,
}

impl Git {
    pub fn init(dir: &Path, branch: &str) -> Self {
        let repo = Repository::init(dir).unwrap();
        repo.set_head(&format!("refs/heads/{branch}")).unwrap();
        Self { repo }
    }

    /// Commits the current index on `branch` at `secs` since the epoch; returns the id.
    pub fn commit(&self, branch: &str, secs: i64, msg: &str) -> String {
        let sig = Signature::new("Test", "test@example.com", &Time::new(secs, 0)).unwrap();
        let tree_id = self.repo.index().unwrap().write_tree().unwrap();
        let tree = self.repo.find_tree(tree_id).unwrap();
        let refname = format!("refs/heads/{branch}");
        let parent = self
            .repo
            .find_reference(&refname)
            .ok()
            .and_then(|r| r.peel_to_commit().ok());
        let parents: Vec<_> = parent.iter().collect();
        self.repo
            .commit(Some(&refname), &sig, &sig, msg, &tree, &parents)
            .unwrap()
            .to_string()
    }

    pub fn checkout(&self, branch: &str) {
        self.repo.set_head(&format!("refs/heads/{branch}")).unwrap();
    }
}

/// A directory holding a `claude` that says it is `version` to `--version` (on stdout, after
/// a notice on stderr as an update check prints one) and succeeds at anything else, as
/// `claude mcp add` does: for the tests of what megg does with the Claude Code it finds.
pub fn fake_claude(dir: &Path, version: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    fs::create_dir_all(dir).unwrap();
    let claude = dir.join("claude");
    fs::write(
        &claude,
        format!(
            "#!/bin/sh\necho 'Update available: 9.9.9' >&2\nsleep 0.05\n[ \"$1\" = --version ] && echo '{version} (Claude Code)'\nexit 0\n"
        ),
    )
    .unwrap();
    fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).unwrap();
    dir.to_path_buf()
}

/// Seconds since the epoch of an RFC 3339 time.
pub fn epoch(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp()
}

/// Exact cl100k tokens of `text`, counted by tiktoken-rs (the reference implementation).
pub fn reference_tokens(text: &str) -> usize {
    use std::sync::OnceLock;
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::cl100k_base().unwrap())
        .encode_ordinary(text)
        .len()
}

/// Text of exactly `target` tokens built from `base` plus filler words.
pub fn exact_tokens(base: &str, target: usize) -> String {
    let mut text = base.to_string();
    let mut n = reference_tokens(&text);
    assert!(n <= target, "base already has {n} tokens");
    while n < target {
        // " word" is one token; add many at once while far from the target.
        let add = (target - n).saturating_sub(2).max(1);
        let mut next = text.clone();
        for _ in 0..add {
            next.push_str(" word");
        }
        let m = reference_tokens(&next);
        if m <= target {
            text = next;
            n = m;
        } else {
            text.push_str(" word");
            n = reference_tokens(&text);
        }
    }
    assert_eq!(reference_tokens(&text), target);
    text
}

/// A `knowledge.md` of exactly `target` tokens (whole file, as SPEC §2.2 counts it), with
/// entries on several topics.
pub fn knowledge_file(target: usize) -> String {
    let mut s = String::from(
        "---\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-01-17T10:30:00Z\ntype: knowledge\n---\n# Knowledge\n",
    );
    let kinds = [
        "decision", "pattern", "gotcha", "rule", "process", "fact", "context",
    ];
    let topics = ["auth", "db", "payments", "ci", "auth-flow", "oauth"];
    let mut i = 0;
    let entry_body = "Explanation of the choice and its consequences for later work. ".repeat(6);
    loop {
        let entry = format!(
            "\n---\n\n## 2026-01-{:02} - Entry {i}\n**Type:** {}\n**Topics:** {}, misc\n\n{entry_body}\n",
            i % 28 + 1,
            kinds[i % kinds.len()],
            topics[i % topics.len()]
        );
        if reference_tokens(&s) + reference_tokens(&entry) + 20 > target {
            break;
        }
        s.push_str(&entry);
        i += 1;
    }
    exact_tokens(&s, target)
}

pub fn stdout_json(out: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not one JSON document ({e}): {text}"))
}

/// The `git` CLI in `dir`, isolated from the machine: the system config off, `home` as HOME
/// (its global config, if any, is the only one), a fixed author, committer and dates, no
/// editor, and none of the variables that would point it (or a merge driver it runs) elsewhere.
pub fn git_cli(dir: &Path, home: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new("git");
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_CONFIG_GLOBAL",
        "XDG_CONFIG_HOME",
        "MEGG_NOW",
        "MEGG_FAILPOINTS",
    ] {
        cmd.env_remove(var);
    }
    cmd.current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", "2026-11-22T12:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-11-22T12:00:00Z")
        .env("GIT_EDITOR", "true")
        .env("NO_COLOR", "1");
    cmd
}

/// The check named `name` in `megg doctor --json`'s document.
pub fn doctor_check<'v>(doctor: &'v serde_json::Value, name: &str) -> &'v serde_json::Value {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check: {doctor:#}"))
}
