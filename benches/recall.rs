//! SPEC §13.7's speed rows: `megg search` over 2,000 entries (knowledge and archives, about
//! 140k tokens) plus 100 kept handoffs, beside `megg --version` in the same run; over 10,000
//! entries, with its peak memory; and the hook with the index on a 300-entry blocked knowledge.
//!
//!     cargo bench --bench recall
//!
//! Medians of interleaved runs (this machine is noisy).

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

use common::{NOW, median, ms, peak_rss_kib, time};

use std::path::Path;
use std::process::Command;

const RUNS: usize = 21;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench recall`");
        return;
    }
    let megg = &common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    let two = tmp.path().join("two-thousand");
    fixture(&two, 2_000, 100);
    let ten = tmp.path().join("ten-thousand");
    fixture(&ten, 10_000, 0);
    let hook = tmp.path().join("hook");
    fixture(&hook, 300, 0);

    println!("megg recall benchmark ({RUNS} runs each, medians)\n");
    println!("| case | median | target |");
    println!("|---|---|---|");
    let (mut version, mut two_ms, mut ten_ms, mut hook_ms) = (vec![], vec![], vec![], vec![]);
    let query = ["search", "invoice rounding for the export"];
    for _ in 0..RUNS {
        version.push(time(|| run(megg, &two, &["--version"])));
        two_ms.push(time(|| run(megg, &two, &query)));
        ten_ms.push(time(|| run(megg, &ten, &query)));
        hook_ms.push(time(|| run(megg, &hook, &["context", "--json"])));
    }
    let v = median(&mut version);
    let two_m = median(&mut two_ms);
    println!("| `megg --version` | {} | — |", ms(v));
    println!(
        "| `megg search`, 2,000 entries + 100 handoffs | {} ({:.2} × --version) | ≤ 3 × --version |",
        ms(two_m),
        two_m.as_secs_f64() / v.as_secs_f64()
    );
    println!(
        "| `megg search`, 10,000 entries | {} | ≤ 100 ms |",
        ms(median(&mut ten_ms))
    );
    match peak_rss_kib(
        megg,
        &query,
        &ten,
        &[("MEGG_CACHE_DIR", &tmp.path().join("c"))],
        "",
    ) {
        Some(kib) => println!(
            "| peak memory, search over 10,000 entries | {:.1} MB | ≤ 40 MB |",
            kib as f64 / 1024.0
        ),
        None => println!("| peak memory | (python3 not found) | |"),
    }
    println!(
        "| the hook with the index, 300 entries (blocked) | {} | §8: ≤ 3 × --version |",
        ms(median(&mut hook_ms))
    );
}

fn run(megg: &Path, dir: &Path, args: &[&str]) {
    let out = Command::new(megg)
        .args(args)
        .current_dir(dir)
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", dir.join(".cache"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// A git repository with `entries` knowledge entries (a fifth of them archived) and
/// `handoffs` kept handoffs.
fn fixture(root: &Path, entries: usize, handoffs: usize) {
    std::fs::create_dir_all(root.join(".megg/archive")).unwrap();
    git2::Repository::init(root).unwrap();
    std::fs::write(
        root.join(".megg/info.md"),
        "# Bench\n\n## Context\nA benchmark.\n",
    )
    .unwrap();
    let words = [
        "invoice", "export", "cache", "token", "deploy", "webhook", "ledger", "tenant", "schema",
        "queue", "retry", "cookie", "session", "billing", "refund", "audit", "search", "index",
        "replica", "backup", "metric", "alert", "budget", "locale", "upload", "preview",
    ];
    let kinds = [
        "decision", "pattern", "gotcha", "rule", "fact", "process", "context",
    ];
    let (mut live, mut archive) = (String::from("# Knowledge\n"), String::from("# Archive\n"));
    for i in 0..entries {
        let w = |k: usize| words[(i * 7 + k * 13) % words.len()];
        let entry = format!(
            "\n---\n\n## 20{:02}-{:02}-{:02} - {} {} {} number {i}\n**Type:** {}\n**Topics:** {}, {}\n\nWe {} the {} when the {} {} changes; see src/{}/{}.rs ({i}). Why this matters and how it was decided, with the details a newcomer needs.\n",
            20 + i % 7,
            i % 12 + 1,
            i % 28 + 1,
            w(0),
            w(1),
            w(2),
            kinds[i % kinds.len()],
            w(3),
            w(4),
            w(5),
            w(6),
            w(7),
            w(8),
            w(9),
            w(10)
        );
        if i % 5 == 0 {
            archive.push_str(&entry)
        } else {
            live.push_str(&entry)
        }
    }
    std::fs::write(root.join(".megg/knowledge.md"), live).unwrap();
    std::fs::write(root.join(".megg/archive/knowledge-old.md"), archive).unwrap();
    let dir = root.join(".git/megg/handoffs");
    std::fs::create_dir_all(&dir).unwrap();
    for h in 0..handoffs {
        std::fs::write(
            dir.join(format!("202611{:02}T{:02}0000Z.md", h % 28 + 1, h % 24)),
            format!("---\nupdated: 2026-11-{:02}T{:02}:00:00Z\nstatus: active\n---\n\n## Working On\nThe {} {} work, part {h}\n\n## Next\n- continue\n", h % 28 + 1, h % 24, words[h % words.len()], words[(h * 3) % words.len()]),
        )
        .unwrap();
    }
    std::fs::write(
        root.join(".megg/state.md"),
        "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nInvoice export rounding\n",
    )
    .unwrap();
}
