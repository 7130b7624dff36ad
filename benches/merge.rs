//! SPEC §8's merge-driver row: `megg merge-driver` on two 16,000-token knowledge files that
//! each add 50 entries to a common base (SPEC §11), run as git runs it — a fresh process on
//! three files in the work tree's top — and the pure merge alone.
//!
//!     cargo bench --bench merge
//!
//! Prints medians (this machine is noisy: medians, never single runs).

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

use common::{median, ms, time};

use std::path::Path;
use std::process::Command;

use megg::megg::merge;
use megg::tokens::Counter;

const RUNS: usize = 41;
const PURE_RUNS: usize = 201;
const TOKENS: usize = 16_000;
const NEW_ENTRIES: usize = 50;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench merge`");
        return;
    }
    let megg = common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    let (base, ours, theirs) = fixture();
    let counter = Counter::new(None);
    let (to, tt) = (counter.count(&ours), counter.count(&theirs));
    let dir = tmp.path();
    std::fs::write(dir.join(".merge_file_O"), &base).unwrap();
    std::fs::write(dir.join(".merge_file_B"), &theirs).unwrap();

    // The result is what the benchmark claims: clean, every entry once.
    let check = merge::merge_knowledge(
        Some(base.as_bytes()),
        ours.as_bytes(),
        theirs.as_bytes(),
        ".megg/knowledge.md",
        7,
    );
    assert!(check.is_clean());
    let entries = |t: &str| megg::megg::knowledge::document(t).entries.len();
    let merged_text = String::from_utf8(check.bytes).unwrap();
    assert_eq!(
        entries(&merged_text),
        entries(&base) + 2 * NEW_ENTRIES,
        "every entry once"
    );
    driver(&megg, dir, &ours);
    assert_eq!(
        std::fs::read_to_string(dir.join(".merge_file_A")).unwrap(),
        merged_text
    );

    println!(
        "megg merge-driver benchmark: OURS {to} tokens, THEIRS {tt} tokens, {} base entries, {NEW_ENTRIES} new on each side ({RUNS} process runs, {PURE_RUNS} pure runs, medians)\n",
        entries(&base)
    );
    println!("| case | median | target |");
    println!("|---|---|---|");
    let (mut version, mut process) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        version.push(time(|| {
            let s = Command::new(&megg).arg("--version").output().unwrap();
            assert!(s.status.success());
        }));
        process.push(driver(&megg, dir, &ours));
    }
    println!("| `megg --version` | {} | — |", ms(median(&mut version)));
    println!(
        "| `megg merge-driver` (the process git runs), 2 × 16k tokens, 50 new entries each | {} | ≤ 20 ms |",
        ms(median(&mut process))
    );
    let mut pure = Vec::new();
    for _ in 0..PURE_RUNS {
        pure.push(time(|| {
            let m = merge::merge_knowledge(
                Some(base.as_bytes()),
                ours.as_bytes(),
                theirs.as_bytes(),
                ".megg/knowledge.md",
                7,
            );
            assert!(m.is_clean());
        }));
    }
    println!(
        "| `merge_knowledge` alone (parse three versions, merge, render) | {} | — |",
        ms(median(&mut pure))
    );
}

/// One driver run as git makes it, OURS restored first (outside the timing).
fn driver(megg: &Path, dir: &Path, ours: &str) -> std::time::Duration {
    std::fs::write(dir.join(".merge_file_A"), ours).unwrap();
    time(|| {
        let out = Command::new(megg)
            .args([
                "merge-driver",
                "--marker-size",
                "7",
                ".merge_file_O",
                ".merge_file_A",
                ".merge_file_B",
                ".megg/knowledge.md",
            ])
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
}

fn entry(i: usize, who: &str) -> String {
    let kinds = [
        "decision", "pattern", "gotcha", "rule", "process", "fact", "context",
    ];
    format!(
        "\n---\n\n## 2026-{:02}-{:02} - {who} entry {i}\n**Type:** {}\n**Topics:** topic{}, area{}\n\nWhy this matters and how it was decided.\n\n```sh\ncargo test --all\n```\n\nThe details a newcomer needs, {who} {i}.\n",
        i % 12 + 1,
        i % 28 + 1,
        kinds[i % kinds.len()],
        i % 11,
        i % 5,
    )
}

/// A base, and OURS and THEIRS each the base plus 50 entries of their own, OURS exactly
/// 16,000 tokens by the real tokenizer (THEIRS the same entries' size, within a few tokens).
fn fixture() -> (String, String, String) {
    let counter = Counter::new(None);
    let ours_new: String = (0..NEW_ENTRIES).map(|i| entry(i, "Alice")).collect();
    let theirs_new: String = (0..NEW_ENTRIES).map(|i| entry(i, "Bob")).collect();
    let mut base = String::from(
        "---\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: knowledge\n---\n\n# Knowledge\n",
    );
    let mut i = 0;
    loop {
        let next = entry(i, "Base");
        if counter.count(&format!("{base}{next}{ours_new}")) > TOKENS {
            break;
        }
        base.push_str(&next);
        i += 1;
    }
    // Fill the last base entry up to the exact size with one-token words.
    base.pop();
    while counter.count(&format!("{base}\n{ours_new}")) < TOKENS {
        base.push_str(" word");
    }
    base.push('\n');
    let ours = format!("{base}{ours_new}");
    let theirs = format!("{base}{theirs_new}");
    (base, ours, theirs)
}
