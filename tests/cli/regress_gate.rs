//! Regression tests for the reliability defects of the file gate, each named after the defect
//! it pins: locks keyed by spelling, lossy rewrites, quarantine collisions, stale temp files.

use std::process::Stdio;

use crate::{Git, NOW, Project};

#[test]
fn two_agents_reaching_one_file_through_different_spellings_lose_no_update() {
    let p = Project::new();
    p.domain("real", "Real");
    Git::init(&p.path("real"), "main");
    std::os::unix::fs::symlink(p.path("real"), p.path("alias")).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("megg");
    let workers: Vec<_> = ["real", "alias"]
        .into_iter()
        .map(|spelling| {
            let bin = bin.clone();
            let dir = p.path(spelling);
            std::thread::spawn(move || {
                for i in 0..25 {
                    let status = std::process::Command::new(&bin)
                        .args(["learn", &format!("{spelling} {i}"), "fact", "t", "text"])
                        .current_dir(&dir)
                        // The shell's spelling of the directory: megg keeps it as walked.
                        .env("PWD", &dir)
                        .env("MEGG_NOW", NOW)
                        .env("MEGG_CACHE_DIR", "")
                        .env_remove("MEGG_CEILING_DIRS")
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .unwrap();
                    assert!(status.success());
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let v = p.json("real", &["maintain", "--json"]);
    assert_eq!(v["domains"][0]["entries"], 50, "updates were lost");
}

#[test]
fn checkpoint_update_resume_and_save_never_turn_bytes_into_replacement_characters() {
    let p = Project::new();
    Git::init(p.root(), "main");
    p.write("docs/plans/2026-01-15-feat-auth-plan.md", "# plan\n");
    let file = b"---\nfeature: auth\nplan_file: docs/plans/2026-01-15-feat-auth-plan.md\nphase: work\nbranch: \"\"\nstarted: 2026-11-22T10:00:00Z\nupdated: 2026-11-22T10:00:00Z\n---\n## Progress\n- [x] Plan created\n- [ ] Tests passing\n\nNotes in Latin-1: caf\xe9\n";
    p.write(".auth.local.md", file);
    for args in [
        &["checkpoint", "update", "auth", "--check", "Tests passing"][..],
        &[
            "checkpoint",
            "resume",
            "auth",
            "--choice",
            "resume",
            "--json",
        ],
        &[
            "checkpoint",
            "save",
            "docs/plans/2026-01-15-feat-auth-plan.md",
        ],
    ] {
        let out = p.run("", args);
        assert_eq!(out.status.code(), Some(1), "megg {args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not valid UTF-8"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(p.path(".auth.local.md")).unwrap(),
            file,
            "bytes kept"
        );
    }
}

#[test]
fn two_corrupt_files_quarantined_in_the_same_second_are_both_kept() {
    let p = Project::new();
    Git::init(p.root(), "main");
    let corrupt = |n: u8| format!("---\nfeature: [unclosed {n}\nplan_file: x\n---\n");
    p.write(".x.local.md", corrupt(1));
    p.ok("", &["checkpoint", "resume", "--json"]);
    p.write(".x.local.md", corrupt(2));
    p.ok("", &["checkpoint", "resume", "--json"]);
    let dir = p.path(".git/megg/quarantine");
    let mut kept: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [corrupt(1), corrupt(2)],
        "the second overwrote the first"
    );
}

#[test]
fn a_killed_megg_leaves_no_temp_file_in_git_status_for_long() {
    let p = Project::new();
    p.domain("", "P");
    Git::init(p.root(), "main");
    // What a megg killed between creating its temp file and renaming it leaves behind.
    let old = p.write(".megg/.megg-4242-0000-0.tmp", "half a state");
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    p.ok("", &["state", "write", "--content", "## Working On\nx\n"]);
    assert!(
        !old.exists(),
        "the next write removes a stale megg temp file"
    );
}
