//! What a capture claims of a shell session's changes (SPEC §12, §14) when git rewrites files
//! the session did not change, and on a file system that dates changes to the whole second:
//! exactly the files the session changed — never an earlier edit whose change time a `git
//! stash`, `touch` or `chmod` moved, never blind past a count of unrelated dirty paths, and
//! every edit made in the very second the session started.
//!
//! The SessionStart hook of Codex, Gemini and Copilot starts a background `megg` that notes
//! the content of every file dirty at the start (the hook itself never walks the work tree);
//! a capture leaves out a file whose content is still what it was then.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::agents_capture::{Repo, section};
use crate::{NOW, epoch, fs_tick, git_cli};

const TRANSCRIPT: &str = "codex-0.169.0-exec-write.jsonl";

/// A Codex session in `r`: its SessionStart and Stop hook inputs.
fn session(r: &Repo) -> (Value, Value) {
    let transcript = r.transcript(TRANSCRIPT, "codex/sessions/rollout.jsonl", |_| true);
    (
        r.input("hook-inputs/codex-SessionStart.json", Some(&transcript)),
        r.input("hook-inputs/codex-Stop.json", Some(&transcript)),
    )
}

fn id(start: &Value) -> &str {
    start["session_id"].as_str().unwrap()
}

/// The note of the work tree at the session's start, which the hook's background `megg` writes.
fn snapshot(r: &Repo, start: &Value) -> PathBuf {
    r.sessions().join(format!("codex/{}.snapshot", id(start)))
}

/// Waits (bounded) for the background `megg` the SessionStart hook started to have written its
/// note of the work tree; whether it did.
fn wait_for_snapshot(r: &Repo, start: &Value) -> bool {
    wait_for(&snapshot(r, start))
}

/// Waits (bounded) for a background `megg` to have written the note `path`; whether it did.
fn wait_for(path: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if path.is_file() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The session starts (what was written before is dated before it, [`fs_tick`]) and its
/// background note of the work tree is taken before the session does anything, as it is while a
/// model reads its first prompt.
fn begin(r: &Repo, start: &Value) {
    r.start("codex", start);
    assert!(wait_for_snapshot(r, start), "no snapshot was written");
    fs_tick();
}

/// The `git` CLI in the work tree (the session's shell).
fn git(r: &Repo, args: &[&str]) {
    let home = r.home("git-home");
    fs::create_dir_all(&home).unwrap();
    let out = git_cli(r.p.root(), &home).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// Commits `files` (path, content) in `r`'s repository.
fn commit(r: &Repo, files: &[(&str, &str)]) {
    for (path, text) in files {
        r.p.write(path, text);
    }
    let mut index = r.git.repo.index().unwrap();
    for (path, _) in files {
        index.add_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    r.git.commit("main", epoch(NOW) - 1800, "source");
}

fn progress(r: &Repo) -> String {
    let state = r.state().expect("a handoff promoted to state.md");
    section(&state, "Progress").to_string()
}

fn assert_claims(progress: &str, claimed: &[&str], not: &[&str]) {
    for f in claimed {
        assert!(progress.contains(f), "{f} not claimed: {progress}");
    }
    for f in not {
        assert!(!progress.contains(f), "{f} claimed: {progress}");
    }
}

/// The reviewer's case: `git stash` then `git stash pop` during a session rewrites every dirty
/// file and brings back every deleted one before deleting it again — their change times move,
/// their content does not. Only the session's own edit is its (megg 1.2.0 claimed all four).
#[test]
fn stash_and_pop_claim_only_the_session_s_own_edit() {
    let r = Repo::new();
    commit(
        &r,
        &[
            ("a.txt", "a\n"),
            ("b.txt", "b\n"),
            ("c.txt", "c\n"),
            ("d/y.txt", "y\n"),
            ("d/z.txt", "z\n"),
        ],
    );
    r.p.write("b.txt", "an earlier edit\n");
    r.p.write("c.txt", "another earlier edit\n");
    fs::remove_file(r.p.path("d/y.txt")).unwrap();
    let (start, stop) = session(&r);
    begin(&r, &start);
    r.p.write("a.txt", "mine\n");
    git(&r, &["stash", "-q"]);
    git(&r, &["stash", "pop", "-q"]);
    r.capture("codex", &stop);
    assert_claims(&progress(&r), &["a.txt"], &["b.txt", "c.txt", "d/y.txt"]);
}

/// A file dirty before the session that the session only touched or chmodded back and forth
/// (its change time moved, its content did not) is not the session's.
#[test]
fn a_file_dirty_before_and_only_touched_is_not_claimed() {
    let r = Repo::new();
    commit(&r, &[("b.txt", "b\n"), ("c.sh", "c\n")]);
    r.p.write("b.txt", "an earlier edit\n");
    r.p.write("c.sh", "an earlier edit\n");
    let (start, stop) = session(&r);
    begin(&r, &start);
    r.p.write("notes.txt", "mine\n");
    let b = fs::File::options()
        .write(true)
        .open(r.p.path("b.txt"))
        .unwrap();
    b.set_modified(std::time::SystemTime::now()).unwrap();
    let c = r.p.path("c.sh");
    let mode = fs::metadata(&c).unwrap().permissions();
    let mut exec = mode.clone();
    std::os::unix::fs::PermissionsExt::set_mode(&mut exec, 0o755);
    fs::set_permissions(&c, exec).unwrap();
    fs::set_permissions(&c, mode).unwrap();
    r.capture("codex", &stop);
    assert_claims(&progress(&r), &["notes.txt"], &["b.txt", "c.sh"]);
}

/// "Never blind past a count of unrelated dirty paths": 1,100 files edited before the session
/// and 200 new ones, all rewritten by the session's `git stash` and `git stash pop`; the
/// session's edit sorts after them all and is claimed, none of theirs is (megg 1.2.0 claimed
/// all 1,100, and Progress, which names at most a few, never reached the session's file).
#[test]
fn a_thousand_unrelated_changed_paths_never_blind_a_capture() {
    let r = Repo::new();
    let names: Vec<String> = (0..1_100).map(|i| format!("gen/f{i:04}.txt")).collect();
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "generated\n")).collect();
    commit(&r, &files);
    commit(&r, &[("zz/last.txt", "last\n")]);
    for n in &names {
        r.p.write(n, "regenerated before the session\n");
    }
    for i in 0..200 {
        r.p.write(&format!("new/n{i:03}.txt"), "new before the session\n");
    }
    let (start, stop) = session(&r);
    begin(&r, &start);
    r.p.write("zz/last.txt", "the session's edit\n");
    git(&r, &["stash", "-q"]);
    git(&r, &["stash", "pop", "-q"]);
    r.capture("codex", &stop);
    assert_claims(&progress(&r), &["zz/last.txt"], &["gen/", "new/"]);
}

/// A file dirty before the session and left alone is not the session's, though the session
/// carried it to a new branch (`git stash`, `git switch -c`, `git stash pop`).
#[test]
fn a_file_dirty_before_and_untouched_is_not_claimed() {
    let r = Repo::new();
    commit(&r, &[("src/lib.rs", "// lib\n")]);
    r.p.write("src/lib.rs", "// an earlier edit, left alone\n");
    let (start, stop) = session(&r);
    begin(&r, &start);
    r.p.write("src/new.rs", "// the session's file\n");
    git(&r, &["stash", "-q"]);
    git(&r, &["switch", "-q", "-c", "topic"]);
    git(&r, &["stash", "pop", "-q"]);
    r.capture("codex", &stop);
    assert_claims(&progress(&r), &["src/new.rs"], &["src/lib.rs"]);
}

/// A file system that dates changes to the whole second (ext4 with 128-byte inodes, ext3,
/// HFS+), as the failure point `coarse-times` makes every time megg reads: what was written
/// before the second the session started is dated before it, what the session writes in that
/// same second is dated at it.
const COARSE: &str = "coarse-times";

/// Waits until the file system's clock starts a new whole second.
fn next_second() {
    let probe = tempfile::NamedTempFile::new().unwrap();
    let secs = || {
        fs::write(probe.path(), "x").unwrap();
        fs::symlink_metadata(probe.path()).unwrap().ctime()
    };
    let first = secs();
    while secs() == first {}
}

/// A session on a whole-second file system: `before` runs, the second turns, the session
/// starts and `during` runs in the very second it started (checked on `same_second`, the paths
/// whose change time the session set: tried again in a new repository when a second turned in
/// between); returns its Progress.
fn in_the_start_s_second(
    before: impl Fn(&Repo),
    during: impl Fn(&Repo),
    same_second: &[&str],
) -> String {
    for _ in 0..20 {
        let r = Repo::new();
        before(&r);
        let (start, stop) = session(&r);
        next_second();
        let out = r
            .command(&["context", "--format", "hook", "--agent", "codex"], &start)
            .env("MEGG_FAILPOINTS", COARSE)
            .output()
            .unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        during(&r);
        let record =
            fs::read_to_string(r.sessions().join(format!("codex/{}.start", id(&start)))).unwrap();
        let since: i64 = record
            .lines()
            .find_map(|l| l.strip_prefix("since: "))
            .and_then(|t| t.split('.').next())
            .and_then(|s| s.parse().ok())
            .expect("a start time");
        let dated = |rel: &str| fs::symlink_metadata(r.p.path(rel)).unwrap().ctime();
        if same_second.iter().any(|p| dated(p) != since) {
            continue;
        }
        let out = r
            .command(&["capture", "--agent", "codex"], &stop)
            .env("MEGG_FAILPOINTS", COARSE)
            .output()
            .unwrap();
        assert!(out.status.success() && out.stdout.is_empty(), "{out:?}");
        return progress(&r);
    }
    panic!("no session began and changed its files within one second");
}

/// On a whole-second file system a file dirty before the session and edited again in the
/// second it started is claimed; the file dirty before and left alone is not (megg 1.2.0 claimed
/// no edit made in that second: 39 of 40 edits right after the hook).
#[test]
fn a_file_edited_again_in_the_start_s_second_is_claimed() {
    let progress = in_the_start_s_second(
        |r| {
            commit(r, &[("b.txt", "b\n"), ("c.txt", "c\n")]);
            r.p.write("b.txt", "an earlier edit\n");
            r.p.write("c.txt", "an earlier edit, left alone\n");
        },
        |r| {
            r.p.write("b.txt", "the earlier edit, edited again\n");
        },
        &["b.txt"],
    );
    assert_claims(&progress, &["b.txt"], &["c.txt"]);
}

/// On a whole-second file system a file the session deletes in the second it started is
/// claimed; one deleted before it is not.
#[test]
fn a_file_deleted_in_the_start_s_second_is_claimed() {
    let progress = in_the_start_s_second(
        |r| {
            commit(
                r,
                &[
                    ("d/gone.txt", "g\n"),
                    ("e/old.txt", "o\n"),
                    ("e/x.txt", "x\n"),
                ],
            );
            fs::remove_file(r.p.path("e/old.txt")).unwrap();
        },
        |r| {
            fs::remove_file(r.p.path("d/gone.txt")).unwrap();
        },
        &["d"],
    );
    assert_claims(&progress, &["d/gone.txt"], &["e/old.txt"]);
}

/// The SessionStart hook of a shell host returns at once and leaves the note of the work tree
/// to a `megg` it starts in the background (SPEC §14: no hook walks the work tree); Claude
/// Code's, whose edit tools name their files, starts none.
#[test]
fn only_a_shell_host_s_start_takes_a_snapshot_and_in_the_background() {
    let r = Repo::new();
    r.p.write("earlier.txt", "an edit from before the session\n");
    let log = r.home("failpoints.log");
    let failpoints = format!("log={}", log.display());
    let lines = |event: &str| {
        fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| *l == event)
            .count()
    };
    let claude = serde_json::json!({
        "session_id": "claude-1", "cwd": r.p.root(), "hook_event_name": "SessionStart",
        "source": "startup",
    });
    let out = r
        .command(&["context", "--json"], &claude)
        .env("MEGG_FAILPOINTS", &failpoints)
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let (start, _) = session(&r);
    let out = r
        .command(&["context", "--format", "hook", "--agent", "codex"], &start)
        .env("MEGG_FAILPOINTS", &failpoints)
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let _: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert!(wait_for_snapshot(&r, &start), "no snapshot was written");
    assert_eq!(lines("work-tree-walk"), 0, "a hook walked the work tree");
    assert_eq!(lines("snapshot-walk"), 1, "one snapshot, Codex's");
    let text = fs::read_to_string(snapshot(&r, &start)).unwrap();
    assert!(text.contains("earlier.txt"), "{text}");
    assert!(!r.sessions().join("claude-1.snapshot").exists());
}

/// Copilot's `userPromptSubmitted` for a session whose start went unrecorded records the start
/// with the prompt and, as a SessionStart hook does, leaves the note of the work tree to a
/// background `megg`: a file dirty before the session and left alone, or only touched since, is
/// not claimed; the session's edit is.
#[test]
fn a_copilot_prompt_without_a_recorded_start_takes_the_snapshot_in_the_background() {
    let r = Repo::new();
    commit(&r, &[("b.txt", "b\n"), ("c.txt", "c\n")]);
    r.p.write("b.txt", "an earlier edit, left alone\n");
    r.p.write("c.txt", "an earlier edit, only touched\n");
    let log = r.home("failpoints.log");
    let prompt = r.input("hook-inputs/copilot-userPromptSubmitted.json", None);
    let id = prompt["sessionId"].as_str().unwrap().to_string();
    let transcript = r.transcript(
        "copilot-create.jsonl",
        &format!("copilot/session-state/{id}/events.jsonl"),
        |_| true,
    );
    fs_tick();
    let out = r
        .command(&["capture", "--agent", "copilot"], &prompt)
        .env("MEGG_FAILPOINTS", format!("log={}", log.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "{out:?}"
    );
    let record = fs::read_to_string(r.sessions().join(format!("copilot/{id}.start")))
        .expect("the start recorded");
    assert!(record.contains("write the notes"), "{record}");
    let note = r.sessions().join(format!("copilot/{id}.snapshot"));
    assert!(wait_for(&note), "no snapshot was written");
    let text = fs::read_to_string(&note).unwrap();
    assert!(text.contains("b.txt") && text.contains("c.txt"), "{text}");
    let walks = fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(
        walks.lines().filter(|l| *l == "snapshot-walk").count(),
        1,
        "{walks}"
    );
    fs_tick();
    r.p.write("mine.txt", "the session's edit\n");
    let c = fs::File::options()
        .write(true)
        .open(r.p.path("c.txt"))
        .unwrap();
    c.set_modified(std::time::SystemTime::now()).unwrap();
    r.capture(
        "copilot",
        &r.input("hook-inputs/copilot-agentStop.json", Some(&transcript)),
    );
    assert_claims(&progress(&r), &["mine.txt"], &["b.txt", "c.txt"]);
}

/// What the session did through git's index is its own too: a file it created and staged, one
/// it renamed with `git mv`, one it removed with `git rm` and a directory it removed with `git rm
/// -r`; a file staged before the session and left alone is not. (A capture after the index was
/// written compares HEAD with the index's entries staged since the start, and with the
/// directories that changed since, not with all of it.)
#[test]
fn what_the_session_staged_moved_or_removed_with_git_is_claimed() {
    let r = Repo::new();
    commit(
        &r,
        &[
            ("src/keep.rs", "k\n"),
            ("src/old_name.rs", "o\n"),
            ("src/removed.rs", "r\n"),
            ("src/staged_before.rs", "s\n"),
            ("gone/a.txt", "a\n"),
            ("gone/deep/b.txt", "b\n"),
        ],
    );
    r.p.write("src/staged_before.rs", "an earlier edit, staged\n");
    git(&r, &["add", "src/staged_before.rs"]);
    let (start, stop) = session(&r);
    begin(&r, &start);
    r.p.write("src/added.rs", "new, staged\n");
    git(&r, &["add", "src/added.rs"]);
    git(&r, &["mv", "src/old_name.rs", "src/new_name.rs"]);
    git(&r, &["rm", "-q", "src/removed.rs"]);
    git(&r, &["rm", "-q", "-r", "gone"]);
    r.capture("codex", &stop);
    assert_claims(
        &progress(&r),
        &[
            "src/added.rs",
            "src/new_name.rs",
            "src/old_name.rs",
            "src/removed.rs",
            "gone/a.txt",
            "gone/deep/b.txt",
        ],
        &["src/keep.rs", "src/staged_before.rs"],
    );
}
