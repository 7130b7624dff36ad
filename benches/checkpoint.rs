//! SPEC §8 row 3: `megg checkpoint resume --json` on a repository of 100,000 commits whose
//! branch is 1,000 commits past the recorded `head`.
//!
//!     cargo bench --bench checkpoint
//!
//! The repository is built as a pack with `git fast-import` (needs `git` on PATH).

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

use common::ms;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const COMMITS: usize = 100_000;
const PAST_HEAD: usize = 1_000;
const RUNS: usize = 31;
const BASE_TIME: i64 = 1_700_000_000;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench checkpoint`");
        return;
    }
    let megg = common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let started = Instant::now();
    let head = build_repo(root);
    println!(
        "built {COMMITS} commits with git fast-import in {:.1} s\n",
        started.elapsed().as_secs_f64()
    );

    std::fs::create_dir_all(root.join("docs/plans")).unwrap();
    std::fs::write(
        root.join("docs/plans/2026-01-15-feat-bench-plan.md"),
        "# plan\n",
    )
    .unwrap();
    // `updated` just before the 1,000 newest commits, so the time basis counts the same range.
    let updated =
        chrono::DateTime::from_timestamp(BASE_TIME + (COMMITS - PAST_HEAD) as i64 * 60 + 30, 0)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%SZ");
    let write = |head: &str| {
        std::fs::write(
            root.join(".bench.local.md"),
            format!("---\nfeature: bench\nplan_file: docs/plans/2026-01-15-feat-bench-plan.md\nphase: work\nbranch: main\nhead: {head}\nstarted: {updated}\nupdated: {updated}\n---\n## Progress\n- [x] Plan created\n"),
        )
        .unwrap();
    };

    println!("| case | median | target |");
    println!("|---|---|---|");
    for (label, recorded) in [
        ("head recorded (exact)", head.as_str()),
        ("no head (time basis)", "\"\""),
    ] {
        write(recorded);
        let mut times = Vec::new();
        let mut commits = String::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            let out = Command::new(&megg)
                .args(["checkpoint", "resume", "bench", "--json"])
                .current_dir(root)
                .env("MEGG_NOW", "2030-01-01T00:00:00Z")
                .output()
                .unwrap();
            times.push(start.elapsed());
            assert!(out.status.success());
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            commits = v["checkpoint"]["divergence"]["commits"].to_string();
        }
        times.sort();
        println!(
            "| `megg checkpoint resume --json`, {COMMITS} commits, branch {PAST_HEAD} past head, {label} ({commits} commits counted) | {} | ≤ 50 ms |",
            ms(times[RUNS / 2])
        );
    }
}

/// A linear history of [`COMMITS`] empty commits on `main`, one a minute; returns the id of
/// the commit [`PAST_HEAD`] below the tip.
fn build_repo(root: &Path) -> String {
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    let marks = root.join("marks");
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .arg(format!("--export-marks={}", marks.display()))
        .current_dir(root)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = std::io::BufWriter::new(child.stdin.take().unwrap());
        for i in 1..=COMMITS {
            let time = BASE_TIME + i as i64 * 60;
            write!(stdin, "commit refs/heads/main\nmark :{i}\ncommitter B <b@example.com> {time} +0000\ndata 0\n").unwrap();
            if i > 1 {
                writeln!(stdin, "from :{}", i - 1).unwrap();
            }
            writeln!(stdin).unwrap();
        }
    }
    assert!(child.wait().unwrap().success());
    let marks = std::fs::read_to_string(marks).unwrap();
    let wanted = format!(":{} ", COMMITS - PAST_HEAD);
    marks
        .lines()
        .find_map(|l| l.strip_prefix(&wanted))
        .unwrap()
        .trim()
        .to_string()
}
