//! SPEC §8 "the hook on a hostile repository": `megg context --json` in a repository holding a
//! FIFO `knowledge.md`, a `state.md` linked to `/dev/zero`, an `info.md` linked to a file
//! outside, 5,000 `.md` files and a 1,000,000-commit history (SPEC §14) whose state records the first
//! commit — against the same hook in a normal repository, interleaved, medians.
//!
//!     cargo bench --bench hostile
//!
//! The history is built as a pack with `git fast-import` (needs `git` on PATH).

// SPEC §16's panic lints guard megg's own code from its input; a benchmark panicking is how it
// fails.
#![allow(
    clippy::string_slice,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]
#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

mod common;

use common::{median, ms};

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 31;
const COMMITS: usize = 1_000_000;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench hostile`");
        return;
    }
    let megg = common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    let normal = tmp.path().join("normal");
    let hostile = tmp.path().join("hostile");
    std::fs::create_dir_all(&normal).unwrap();
    std::fs::create_dir_all(&hostile).unwrap();

    let started = Instant::now();
    let first = history(&hostile, COMMITS);
    history(&normal, 100);
    println!(
        "built {COMMITS} commits with git fast-import in {:.1} s\n",
        started.elapsed().as_secs_f64()
    );
    for dir in [&normal, &hostile] {
        std::fs::create_dir_all(dir.join(".megg")).unwrap();
        std::fs::write(dir.join(".megg/info.md"), "# Project\n\nAbout it.\n").unwrap();
    }
    std::fs::write(
        normal.join(".megg/knowledge.md"),
        "# Knowledge\n\n---\n\n## 2026-11-01 - A fact\n**Type:** fact\n**Topics:** a\n\nBody.\n",
    )
    .unwrap();
    std::fs::write(
        normal.join(".megg/state.md"),
        "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nx\n",
    )
    .unwrap();
    // The hostile one: a FIFO, a link to /dev/zero, a link to a file outside, 5,000 names,
    // and a state whose head is 1,000,000 commits back.
    common::mkfifo(&hostile.join(".megg/knowledge.md"));
    std::os::unix::fs::symlink("/dev/zero", hostile.join(".megg/zero.md")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", hostile.join(".megg/passwd.md")).unwrap();
    for i in 0..5_000 {
        std::fs::write(hostile.join(format!(".megg/note-{i:04}.md")), "x").unwrap();
    }
    std::fs::write(
        hostile.join(".megg/state.md"),
        format!("---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\nbranch: main\nhead: {first}\n---\n\n## Working On\nx\n"),
    )
    .unwrap();

    let cache = tmp.path().join("cache");
    let hook = |dir: &Path| {
        let start = Instant::now();
        let out = Command::new(&megg)
            .args(["context", "--json"])
            .current_dir(dir)
            .env("MEGG_NOW", "2026-11-22T12:00:00Z")
            .env("MEGG_CACHE_DIR", &cache)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let took = start.elapsed();
        assert!(out.status.success());
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("one JSON document");
        took
    };
    hook(&normal);
    hook(&hostile);
    let (mut n, mut h) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        n.push(hook(&normal));
        h.push(hook(&hostile));
    }
    let (n, h) = (median(&mut n), median(&mut h));
    println!("| case | median | target |");
    println!("|---|---|---|");
    println!(
        "| `megg context --json`, normal repository, warm | {} | — |",
        ms(n)
    );
    println!(
        "| the same, hostile repository (FIFO, /dev/zero link, 5,000 .md files, {COMMITS}-commit history) | {} ({:.2} × normal) | ≤ 3 × normal |",
        ms(h),
        h.as_secs_f64() / n.as_secs_f64()
    );
}

/// A linear history of `n` empty commits on `main`; returns the first commit's id.
fn history(root: &Path, n: usize) -> String {
    let ok = Command::new("git")
        .args(["init", "-q", "-b", "main"])
        .current_dir(root)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let marks = root.join(".git/marks");
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .arg(format!("--export-marks={}", marks.display()))
        .current_dir(root)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = std::io::BufWriter::new(child.stdin.take().unwrap());
        for i in 1..=n {
            let time = 1_500_000_000 + i as i64 * 60;
            write!(stdin, "commit refs/heads/main\nmark :{i}\ncommitter B <b@example.com> {time} +0000\ndata 0\n").unwrap();
            if i > 1 {
                writeln!(stdin, "from :{}", i - 1).unwrap();
            }
            writeln!(stdin).unwrap();
        }
    }
    assert!(child.wait().unwrap().success());
    std::fs::read_to_string(marks)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(":1 ").map(|s| s.trim().to_string()))
        .unwrap()
}
