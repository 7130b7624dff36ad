//! Worktrees (SPEC §18.2): session files and kept handoffs live under the repository's common
//! git directory, keyed by worktree, so `git worktree remove` loses none of them; what an older
//! megg kept in a worktree's own git directory moves there at the next run.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::{Project, git_cli};

/// A repository made with the git CLI in `repo/`, its domain committed, so every worktree
/// checks one out.
struct Repo {
    p: Project,
}

impl Repo {
    fn new() -> Self {
        let p = Project::new();
        p.domain("repo", "Shop");
        p.ok("repo", &["gitignore"]);
        let r = Self { p };
        r.git("repo", &["init", "-q", "-b", "main"]);
        r.git("repo", &["add", "-A"]);
        r.git("repo", &["commit", "-q", "-m", "init"]);
        r
    }

    /// Runs git in `rel`, expecting success.
    fn git(&self, rel: &str, args: &[&str]) {
        let out = git_cli(&self.p.path(rel), self.p.cache.path())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    fn common(&self) -> PathBuf {
        self.p.path("repo/.git")
    }

    fn transcript(&self, id: &str) -> PathBuf {
        self.p.path(&format!("claude/projects/p/{id}.jsonl"))
    }

    /// Session `id` in work tree `rel` asks for `task`, then its Stop hook captures it.
    fn capture(&self, rel: &str, id: &str, task: &str) {
        let path = self.transcript(id);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut f = fs::File::create(&path).unwrap();
        for line in [
            json!({"type": "user", "message": {"role": "user", "content": format!("Please do {task}")}}),
            json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "TaskCreate", "input": {"subject": task, "description": "details"}}
            ]}}),
            json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": format!("Task #1 created successfully: {task}")}
            ]}}),
            json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": format!("Working on {task}.")}]}}),
        ] {
            writeln!(f, "{line}").unwrap();
        }
        let input = json!({
            "session_id": id,
            "transcript_path": path,
            "cwd": self.p.path(rel),
            "hook_event_name": "Stop",
        });
        let out = self
            .p
            .megg("")
            .current_dir("/")
            .env("CLAUDE_CONFIG_DIR", self.p.path("claude"))
            .arg("capture")
            .write_stdin(input.to_string())
            .output()
            .unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    }

    /// `megg search QUERY --in handoff` in `rel`: the titles and ids found.
    fn handoffs(&self, rel: &str, query: &str) -> Vec<(String, String)> {
        let v: Value = self
            .p
            .json(rel, &["search", query, "--in", "handoff", "--json"]);
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["title"].as_str().unwrap().to_string(),
                    r["id"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// The session directories under the common git directory whose name starts with `prefix`.
    fn session_dirs(&self, prefix: &str) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = fs::read_dir(self.common().join("megg/sessions"))
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default();
        dirs.sort();
        dirs
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Issue 44: a linked worktree's session files were kept in `.git/worktrees/<name>/megg/`,
/// which `git worktree remove` deletes. The handoff captured there is still found and shown
/// from the main worktree after the removal.
#[test]
fn a_removed_worktrees_handoff_is_still_found_and_shown() {
    let r = Repo::new();
    r.git(
        "repo",
        &["worktree", "add", "-q", "-b", "feature/x", "../feature-x"],
    );
    r.capture("feature-x", "s-wt", "the refund webhook");
    assert!(
        r.p.path("feature-x/.megg/state.md").exists(),
        "the capture was promoted in the worktree"
    );
    // Never the main worktree's own handoff.
    let ctx = r.p.ok("repo", &["context"]);
    assert!(!ctx.contains("refund webhook"), "{ctx}");
    r.git("repo", &["worktree", "remove", "--force", "../feature-x"]);
    assert!(!r.common().join("worktrees/feature-x").exists());
    let ctx = r.p.ok("repo", &["context"]);
    assert!(!ctx.contains("Please do the refund webhook"), "{ctx}");

    let found = r.handoffs("repo", "refund webhook");
    assert_eq!(found.len(), 1, "{found:?}");
    // The main worktree's next session names it in one line, with the id that shows it.
    let line = "Worktree `feature-x` (branch feature/x) was removed; its last handoff, ";
    let named: Vec<&str> = ctx.lines().filter(|l| l.starts_with(line)).collect();
    assert_eq!(named.len(), 1, "{ctx}");
    assert!(
        named[0].ends_with(&format!("megg show {}", found[0].1)),
        "{ctx}"
    );
    assert_eq!(found[0].0, "Please do the refund webhook");
    let shown = r.p.ok("repo", &["show", &found[0].1]);
    assert!(shown.contains("Please do the refund webhook"), "{shown}");
    assert!(shown.contains("branch: feature/x"), "{shown}");
    // Kept under the common directory, keyed by the worktree's name and path.
    let dirs = r.session_dirs("feature-x@");
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert!(dirs[0].join("s-wt.md").exists());
    // The main worktree's own session files are in a directory of their own.
    r.capture("repo", "s-main", "the cart API");
    assert!(r.common().join("megg/sessions/main/s-main.md").exists());
}

/// What an older megg kept in each worktree's own git directory (and, for the main worktree,
/// directly in `.git/megg/sessions/`) moves under the common directory at the next run, byte
/// for byte, once; a second run changes nothing.
#[test]
fn an_older_layout_moves_with_nothing_lost() {
    let r = Repo::new();
    r.git(
        "repo",
        &["worktree", "add", "-q", "-b", "feature/x", "../feature-x"],
    );
    let capture = |session: &str, task: &str| {
        format!(
            "---\nupdated: 2026-11-22T10:00:00Z\nsource: auto\nsession: {session}\nbranch: feature/x\n---\n\n## Working On\n{task}\n"
        )
    };
    let common = r.common();
    let old = [
        ("megg/sessions/s-old.md", capture("s-old", "Main invoices")),
        (
            "megg/sessions/s-old.start",
            "state: absent\nhead: \n".into(),
        ),
        ("megg/sessions/capture.log", "a log line\n".into()),
        (
            "megg/sessions/codex/c-old.md",
            capture("c-old", "Codex exports"),
        ),
        (
            "worktrees/feature-x/megg/sessions/s-wt.md",
            capture("s-wt", "Worktree refunds"),
        ),
        (
            "worktrees/feature-x/megg/sessions/gemini/g-wt.scan",
            "{}".into(),
        ),
        (
            "worktrees/feature-x/megg/handoffs/20261120T090000Z.md",
            "## Working On\nKept payouts\n".into(),
        ),
        (
            "worktrees/feature-x/megg/handoffs/20261120T090000Z.md.2",
            "## Working On\nKept payouts again\n".into(),
        ),
        (
            "megg/handoffs/20261119T090000Z.md",
            "## Working On\nMain ledger\n".into(),
        ),
    ];
    for (rel, text) in &old {
        let path = common.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    // Any run in any worktree moves them: here a search in the linked one.
    assert_eq!(r.handoffs("feature-x", "refunds").len(), 1);
    let wt = r.session_dirs("feature-x@");
    assert_eq!(wt.len(), 1, "{wt:?}");
    let key = wt[0].file_name().unwrap().to_string_lossy().into_owned();
    let main = common.join("megg/sessions/main");
    let moved = [
        main.join("s-old.md"),
        main.join("s-old.start"),
        main.join("capture.log"),
        main.join("codex/c-old.md"),
        wt[0].join("s-wt.md"),
        wt[0].join("gemini/g-wt.scan"),
        common.join(format!("megg/handoffs/20261120T090000Z.{key}.md")),
        common.join(format!("megg/handoffs/20261120T090000Z.{key}.md.2")),
        common.join("megg/handoffs/20261119T090000Z.md"),
    ];
    for ((rel, text), new) in old.iter().zip(&moved) {
        assert_eq!(&read(new), text, "{rel} → {}", new.display());
        if !rel.starts_with("megg/handoffs/") {
            assert!(!common.join(rel).exists(), "{rel} is still there");
        }
    }
    assert!(!common.join("worktrees/feature-x/megg/sessions").exists());
    assert!(!common.join("megg/sessions/codex").exists());
    // Everything is found from the main worktree, each kept handoff once.
    for (query, title) in [
        ("invoices", "Main invoices"),
        ("codex exports", "Codex exports"),
        ("refunds", "Worktree refunds"),
        ("ledger", "Main ledger"),
    ] {
        let found = r.handoffs("repo", query);
        assert_eq!(found.len(), 1, "{query}: {found:?}");
        assert_eq!(found[0].0, title);
    }
    assert_eq!(r.handoffs("repo", "payouts").len(), 2);

    // Once: a file an older megg writes now stays where it is, and nothing else moves.
    let late = common.join("megg/sessions/late.md");
    fs::write(&late, capture("late", "Late")).unwrap();
    r.handoffs("repo", "refunds");
    assert!(late.exists());
    for new in &moved {
        assert!(new.exists(), "{}", new.display());
    }
}

/// A worktree name git gives again, to a worktree at another path, is another worktree: its
/// sessions do not continue the removed one's, and both handoffs stay found.
#[test]
fn a_name_reused_at_another_path_is_another_worktree() {
    let r = Repo::new();
    r.git(
        "repo",
        &["worktree", "add", "-q", "-b", "first", "../a/feature-x"],
    );
    r.capture("a/feature-x", "s1", "the first refund flow");
    r.git("repo", &["worktree", "remove", "--force", "../a/feature-x"]);
    r.git(
        "repo",
        &["worktree", "add", "-q", "-b", "second", "../b/feature-x"],
    );
    assert!(r.common().join("worktrees/feature-x").exists());
    r.capture("b/feature-x", "s2", "the second refund flow");

    let dirs = r.session_dirs("feature-x@");
    assert_eq!(dirs.len(), 2, "{dirs:?}");
    let holds = |d: &Path, id: &str| d.join(format!("{id}.md")).exists();
    assert!(
        (holds(&dirs[0], "s1") && holds(&dirs[1], "s2"))
            || (holds(&dirs[1], "s1") && holds(&dirs[0], "s2")),
        "{dirs:?}"
    );
    assert!(dirs.iter().all(|d| !(holds(d, "s1") && holds(d, "s2"))));
    let found = r.handoffs("repo", "refund flow");
    assert_eq!(found.len(), 2, "{found:?}");
}

/// Review of issue 44: in a bare repository with linked worktrees — the layout many agent
/// users work in — no worktree is the main one; each names a removed one's last handoff.
#[test]
fn in_a_bare_repository_each_worktree_names_a_removed_ones_handoff() {
    let r = Repo::new();
    r.git("", &["clone", "-q", "--bare", "repo", "bare.git"]);
    r.git("bare.git", &["worktree", "add", "-q", "../one", "main"]);
    r.git(
        "bare.git",
        &["worktree", "add", "-q", "-b", "feature/x", "../two"],
    );
    r.p.ok("one", &["gitignore"]);
    r.p.ok("two", &["gitignore"]);
    r.capture("two", "s-two", "the refund webhook");
    let ctx = r.p.ok("one", &["context"]);
    assert!(!ctx.contains("was removed"), "{ctx}");
    r.git("bare.git", &["worktree", "remove", "--force", "../two"]);
    let ctx = r.p.ok("one", &["context"]);
    let named: Vec<&str> = ctx
        .lines()
        .filter(|l| l.starts_with("Worktree `two` (branch feature/x) was removed"))
        .collect();
    assert_eq!(named.len(), 1, "{ctx}");
    assert!(
        !ctx.contains("Please do the refund webhook"),
        "never as its own:\n{ctx}"
    );
}
