//! `megg state`: the scenarios of seeds 000 and 001, as SPEC §5 reconciles them.

use std::io::Write;
use std::process::Stdio;

use crate::{Git, NOW, Project, exact_tokens};

const HANDOFF: &str = "## Working On\nAuth flow\n\n## Progress\n- login done\n\n## Next\n- logout\n\n## Context\nsrc/auth.rs\n";

fn project() -> Project {
    let p = Project::new();
    p.domain("", "P");
    p
}

#[test]
fn seed000_write_state_creates_frontmatter_and_content() {
    let p = project();
    let out = p.ok("", &["state", "write", "--content", HANDOFF]);
    assert!(out.starts_with(&format!(
        "State saved to {}",
        p.path(".megg/state.md").display()
    )));
    let text = p.read(".megg/state.md");
    assert_eq!(
        text,
        format!("---\nupdated: {NOW}\nstatus: active\n---\n\n{HANDOFF}")
    );
    // Overwrite.
    p.ok(
        "",
        &["state", "write", "--content", "## Working On\nOther\n"],
    );
    assert!(
        p.read(".megg/state.md")
            .ends_with("\n\n## Working On\nOther\n")
    );
}

#[test]
fn seed001_write_new_state_json() {
    let p = project();
    let v = p.json("", &["state", "write", "--content", HANDOFF, "--json"]);
    assert_eq!(v["path"], p.path(".megg/state.md").display().to_string());
    assert_eq!(v["truncated"], false);
    assert_eq!(
        v["tokens"].as_u64().unwrap() as usize,
        crate::reference_tokens(HANDOFF)
    );
    assert_eq!(v["warnings"], serde_json::json!([]));
}

#[test]
fn state_write_from_file_and_stdin() {
    let p = project();
    p.write("handoff.md", HANDOFF);
    p.ok("", &["state", "write", "--file", "handoff.md"]);
    assert!(p.read(".megg/state.md").ends_with(HANDOFF));

    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("megg"))
        .args(["state", "write"])
        .current_dir(p.root())
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"## Working On\nfrom stdin\n")
        .unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    assert!(
        p.read(".megg/state.md")
            .ends_with("## Working On\nfrom stdin\n")
    );
}

#[test]
fn state_write_with_empty_input_is_refused() {
    let p = project();
    let out = p
        .megg("")
        .args(["state", "write"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hint:"));
    assert!(!p.path(".megg/state.md").exists());
    let out = p.run("", &["state", "write", "--file", "missing.md"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn seed000_state_token_limit_2000_is_kept_whole() {
    let p = project();
    let content = exact_tokens("## Working On\nbig", 2_000);
    let v = p.json("", &["state", "write", "--content", &content, "--json"]);
    assert_eq!(v["truncated"], false);
    assert_eq!(v["tokens"], 2_000);
    assert!(p.read(".megg/state.md").ends_with(&content));
}

#[test]
fn seed001_truncation_warning_at_2001() {
    let p = project();
    let mut content = String::new();
    for i in 0..200 {
        content.push_str(&format!("- item {i} of the progress list\n"));
    }
    let content = exact_tokens(&content, 2_001);
    let v = p.json("", &["state", "write", "--content", &content, "--json"]);
    assert_eq!(v["truncated"], true);
    let tokens = v["tokens"].as_u64().unwrap() as usize;
    assert!(tokens <= 2_000);
    let w = v["warnings"][0].as_str().unwrap();
    assert_eq!(
        w,
        format!("state content was 2001 tokens; truncated to {tokens}")
    );
    // Cut at a line boundary: the stored content is a prefix made of whole lines.
    let shown = p.json("", &["state", "show", "--json"]);
    let stored = shown["state"]["content"].as_str().unwrap();
    assert!(content.starts_with(stored));
    assert!(
        content[stored.len()..].starts_with('\n'),
        "cut at a line end"
    );
    assert_eq!(crate::reference_tokens(stored), tokens);

    // Text mode: the warning on stderr.
    let out = p.run("", &["state", "write", "--content", &content]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("warning: state content was 2001 tokens; truncated to ")
    );
}

#[test]
fn seed001_read_active_state() {
    let p = project();
    p.ok("", &["state", "write", "--content", HANDOFF]);
    let v = p.json("", &["state", "--json"]);
    let s = &v["state"];
    assert_eq!(s["content"], HANDOFF);
    assert_eq!(s["status"], "active");
    assert_eq!(s["updated"], NOW);
    assert_eq!(s["expired"], false);
    assert_eq!(
        s["tokens"].as_u64().unwrap() as usize,
        crate::reference_tokens(HANDOFF)
    );
    let text = p.ok("", &["state", "show"]);
    assert!(text.contains("Auth flow"));
    assert!(text.starts_with("Active state: "));
}

fn with_state_at(updated: &str, status: &str) -> Project {
    let p = project();
    p.write(
        ".megg/state.md",
        format!("---\nupdated: {updated}\nstatus: {status}\n---\n\n{HANDOFF}"),
    );
    p
}

#[test]
fn seed001_read_expired_state_48h_plus_1s() {
    let p = with_state_at("2026-11-20T11:59:59Z", "active");
    let v = p.json("", &["state", "show", "--json"]);
    assert_eq!(v["state"]["expired"], true);
    assert_eq!(v["state"]["content"], HANDOFF);
    let text = p.ok("", &["state"]);
    assert!(text.starts_with("No active state (48 h old"), "{text}");
}

#[test]
fn state_exactly_48h_old_is_active() {
    let p = with_state_at("2026-11-20T12:00:00Z", "active");
    let v = p.json("", &["state", "--json"]);
    assert_eq!(v["state"]["expired"], false);
}

#[test]
fn seed000_done_state_is_expired() {
    let p = with_state_at("2026-11-22T11:00:00Z", "done");
    let v = p.json("", &["state", "--json"]);
    assert_eq!(v["state"]["expired"], true);
    assert!(
        p.ok("", &["state"])
            .starts_with("No active state (marked done")
    );
}

#[test]
fn seed001_no_state_file() {
    let p = project();
    let v = p.json("", &["state", "show", "--json"]);
    assert!(v["state"].is_null());
    assert_eq!(p.ok("", &["state"]), "No active state\n");
}

#[test]
fn seed001_clear_state_and_done_alias() {
    let p = project();
    p.ok("", &["state", "write", "--content", HANDOFF]);
    assert_eq!(p.ok("", &["state", "clear"]), "State cleared\n");
    assert!(!p.path(".megg/state.md").exists());
    // Nothing to clear is not an error.
    let v = p.json("", &["state", "clear", "--json"]);
    assert_eq!(v["cleared"], false);
    p.ok("", &["state", "write", "--content", HANDOFF]);
    let v = p.json("", &["state", "done", "--json"]);
    assert_eq!(v["cleared"], true);
    assert!(!p.path(".megg/state.md").exists());
}

#[test]
fn seed000_find_nearest_megg_for_state() {
    let p = Project::new();
    p.domain("project", "Project");
    p.mkdir("project/src/feature");
    p.ok(
        "project/src/feature",
        &["state", "write", "--content", HANDOFF],
    );
    assert!(p.path("project/.megg/state.md").exists());
    // A nearer .megg without info.md is still the current domain (SPEC §2.1).
    p.mkdir("project/src/.megg");
    p.ok(
        "project/src/feature",
        &["state", "write", "--content", "nearer"],
    );
    assert!(p.read("project/src/.megg/state.md").ends_with("nearer"));
}

#[test]
fn state_without_megg_is_an_error_and_writes_nothing() {
    let p = Project::new();
    p.mkdir("a");
    for args in [
        &["state", "write", "--content", "x"][..],
        &["state", "show", "--json"][..],
        &["state", "clear"][..],
    ] {
        let out = p.run("a", args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "stdout stays empty with --json too");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("error: no .megg directory"), "{err}");
        assert!(err.contains("hint: run `megg init`"), "{err}");
    }
    assert_eq!(std::fs::read_dir(p.path("a")).unwrap().count(), 0);
}

#[test]
fn state_in_git_records_branch_and_head() {
    let p = project();
    let git = Git::init(p.root(), "feat/auth");
    let head = git.commit("feat/auth", crate::epoch("2026-11-22T11:00:00Z"), "one");
    p.ok("", &["state", "write", "--content", HANDOFF]);
    let text = p.read(".megg/state.md");
    assert!(text.contains("branch: feat/auth\n"), "{text}");
    assert!(text.contains(&format!("head: {head}\n")), "{text}");
    // The lock lives under .git, so nothing new shows in `git status`.
    assert!(!p.path(".megg/.state.md.lock").exists());
    assert!(
        std::fs::read_dir(p.path(".git/megg/locks"))
            .unwrap()
            .count()
            >= 1
    );

    git.commit("feat/auth", crate::epoch("2026-11-22T11:30:00Z"), "two");
    let v = p.json("", &["state", "--json"]);
    assert_eq!(v["state"]["commits_since"], 1);
    assert_eq!(v["state"]["head"], head);
}

#[test]
fn state_written_outside_git_has_no_branch_keys() {
    let p = project();
    p.ok("", &["state", "write", "--content", HANDOFF]);
    let text = p.read(".megg/state.md");
    assert!(!text.contains("branch:") && !text.contains("head:"));
}

#[test]
fn state_write_keeps_a_symlinked_state_file_a_symlink() {
    // A link that stays inside .megg is followed and stays a link; one that leaves .megg
    // is refused (SPEC §9), even when it points elsewhere in the project.
    let p = project();
    p.write(".megg/states/mine.md", "old");
    std::os::unix::fs::symlink("states/mine.md", p.path(".megg/state.md")).unwrap();
    p.ok("", &["state", "write", "--content", HANDOFF]);
    assert!(
        std::fs::symlink_metadata(p.path(".megg/state.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(p.read(".megg/states/mine.md").ends_with(HANDOFF));

    p.write("elsewhere/state.md", "old");
    std::fs::remove_file(p.path(".megg/state.md")).unwrap();
    std::os::unix::fs::symlink(p.path("elsewhere/state.md"), p.path(".megg/state.md")).unwrap();
    let out = p.run("", &["state", "write", "--content", HANDOFF]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused to write"));
    assert_eq!(p.read("elsewhere/state.md"), "old");
}

#[test]
fn typescript_state_file_reads_the_same() {
    let p = project();
    p.write(
        ".megg/state.md",
        "---\nupdated: 2026-11-22T09:43:11.616Z\nstatus: active\n---\n\n## Working On\nCheckout redesign\n\n## Context\nFiles: api/src/cart.rs",
    );
    let v = p.json("", &["state", "--json"]);
    assert_eq!(v["state"]["updated"], "2026-11-22T09:43:11Z");
    assert_eq!(v["state"]["expired"], false);
    assert!(v["state"]["content"].as_str().unwrap().ends_with("cart.rs"));
}

/// 16 `megg state write` processes at once, many rounds: the file always parses and always
/// equals one complete write; no temp files are left behind. A reader polls the file while
/// the writers run. And one writer held at its critical point (the `hold=` failure point:
/// its new text written, not yet in place) leaves the file as it was for a reader;
/// [`concurrent_writers_tear_the_file_without_the_atomic_rename`] holds it the same way with
/// the rename switched off (`no-atomic`: held halfway through its bytes) and the reader sees a
/// torn file.
#[test]
fn concurrent_writers_never_tear_the_file() {
    assert_eq!(concurrent_writers(6), Ok(()));
    assert_eq!(held_writer(""), Ok(()));
}

/// The test above can fail: written in place, a reader catches a half-written file.
#[test]
fn concurrent_writers_tear_the_file_without_the_atomic_rename() {
    let torn = held_writer(",no-atomic").unwrap_err();
    assert!(torn.contains("torn"), "{torn}");
}

/// A `state write` over an earlier one, held at its critical point while the file is read;
/// `Err` shows a torn read.
fn held_writer(failpoints: &str) -> Result<(), String> {
    let p = project();
    let before = "## Working On\nthe first write\n";
    p.ok("", &["state", "write", "--content", before]);
    let earlier = p.read(".megg/state.md");
    let hold = crate::capture::Hold::new();
    let content = format!(
        "## Working On\nthe second write\n\n{}",
        "- a step\n".repeat(40)
    );
    let mut writer = p.megg("");
    writer
        .env(
            "MEGG_FAILPOINTS",
            format!("{}{failpoints}", hold.at(".megg/state.md")),
        )
        .args(["state", "write", "--content", &content]);
    let writer = std::thread::spawn(move || writer.output().unwrap());
    hold.wait_held(&writer);
    let read = p.read(".megg/state.md");
    hold.release();
    assert!(writer.join().unwrap().status.success());
    let after = p.read(".megg/state.md");
    assert!(after.contains("the second write"), "{after}");
    if read == earlier {
        Ok(())
    } else {
        Err(format!("torn read:\n{read}"))
    }
}

/// `rounds` of 16 concurrent `state write`, with a reader polling the file; `Err` shows a torn
/// read.
fn concurrent_writers(rounds: usize) -> Result<(), String> {
    let p = project();
    Git::init(p.root(), "main").commit("main", 1_000_000, "init");
    let bin = assert_cmd::cargo::cargo_bin("megg");
    let contents: Vec<String> = (0..16)
        .map(|w| {
            format!(
                "## Working On\nwriter {w}\n\n## Progress\n{}",
                format!("- step of writer {w}\n").repeat(40)
            )
        })
        .collect();
    let whole = |text: &str| {
        text.split_once("\n---\n\n")
            .is_some_and(|(_, body)| contents.iter().any(|c| c == body))
    };
    for round in 0..rounds {
        let mut children: Vec<_> = contents
            .iter()
            .map(|c| {
                std::process::Command::new(&bin)
                    .args(["state", "write", "--content", c])
                    .current_dir(p.root())
                    .env("MEGG_NOW", NOW)
                    .env("MEGG_CACHE_DIR", "")
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        // Read while they write: every read sees no file yet or one complete write.
        while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
            if let Ok(text) = std::fs::read_to_string(p.path(".megg/state.md"))
                && !whole(&text)
            {
                for mut c in children {
                    c.wait().unwrap();
                }
                return Err(format!("round {round}: torn read:\n{text}"));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for mut c in children {
            assert!(c.wait().unwrap().success(), "round {round}");
        }
        let text = p.read(".megg/state.md");
        if !whole(&text) {
            return Err(format!("round {round}: torn write:\n{text}"));
        }
        let v = p.json("", &["state", "--json"]);
        assert_eq!(v["state"]["status"], "active");
    }
    let leftovers: Vec<_> = std::fs::read_dir(p.path(".megg"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "info.md" && n != "state.md")
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
    Ok(())
}

#[test]
fn state_write_from_a_non_utf8_file_warns() {
    let p = project();
    p.write("handoff.md", b"## Working On\nCaf\xe9\n");
    let v = p.json("", &["state", "write", "--file", "handoff.md", "--json"]);
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8"),
        "{v}"
    );
    assert!(p.read(".megg/state.md").contains("Caf\u{FFFD}"));
}
