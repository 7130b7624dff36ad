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
    hook_costs(megg, tmp.path());
}

/// SPEC §14 for the hook's recall parts (issue 38 item 10): the index hook on 500 entries
/// beside `--version`; full mode with 50 archive files beside none; the index hook after a
/// commit of 20,000 files beside one of 3 (the paths of the last commits rank the index).
fn hook_costs(megg: &Path, tmp: &Path) {
    let five = tmp.join("five-hundred");
    fixture(&five, 500, 0);
    let none = tmp.join("full-no-archive");
    full(&none, 0);
    let fifty = tmp.join("full-fifty-archives");
    full(&fifty, 50);
    let small = tmp.join("small-commit");
    fixture(&small, 500, 0);
    commits(&small, 3);
    let big = tmp.join("big-commit");
    fixture(&big, 500, 0);
    commits(&big, 20_000);
    let cases: [(&str, &Path, &[&str]); 6] = [
        ("`megg --version`", &five, &["--version"]),
        (
            "index hook, 500 entries (blocked)",
            &five,
            &["context", "--json"],
        ),
        ("full-mode hook, no archive", &none, &["context", "--json"]),
        (
            "full-mode hook, 50 archive files",
            &fifty,
            &["context", "--json"],
        ),
        (
            "index hook, last commit of 3 files",
            &small,
            &["context", "--json"],
        ),
        (
            "index hook, last commit of 20,000 files",
            &big,
            &["context", "--json"],
        ),
    ];
    let mut times: Vec<Vec<std::time::Duration>> = vec![Vec::new(); cases.len()];
    for (_, dir, args) in &cases {
        run(megg, dir, args);
    }
    for _ in 0..31 {
        for (i, (_, dir, args)) in cases.iter().enumerate() {
            times[i].push(time(|| run(megg, dir, args)));
        }
    }
    let m: Vec<f64> = times.iter_mut().map(|t| median(t).as_secs_f64()).collect();
    println!("\nhook costs (31 interleaved runs, medians)\n");
    println!("| case | median | ratio |");
    println!("|---|---|---|");
    let row = |i: usize, of: usize, what: &str| {
        println!(
            "| {} | {:.1} ms | {:.2} × {what} |",
            cases[i].0,
            m[i] * 1000.0,
            m[i] / m[of]
        );
    };
    row(0, 0, "--version");
    row(1, 0, "--version (§8: ≤ 3 ×)");
    row(2, 0, "--version");
    row(3, 2, "no archive (≤ 1.25 ×)");
    row(4, 0, "--version");
    row(5, 4, "3 files (flat: ≤ 1.25 ×)");
}

/// A git repository whose knowledge is small (full mode) with `archives` archive files of 40
/// entries each.
fn full(root: &Path, archives: usize) {
    std::fs::create_dir_all(root.join(".megg/archive")).unwrap();
    git2::Repository::init(root).unwrap();
    std::fs::write(
        root.join(".megg/info.md"),
        "# Bench\n\n## Context\nA benchmark.\n",
    )
    .unwrap();
    std::fs::write(
        root.join(".megg/knowledge.md"),
        "# Knowledge\n\n---\n\n## 2026-01-10 - Live\n**Type:** fact\n**Topics:** misc\n\nLive.\n",
    )
    .unwrap();
    let entries: String = (0..40)
        .map(|i| format!("\n---\n\n## 2025-01-{:02} - Old entry {i}\n**Type:** fact\n**Topics:** misc\n\nWhy this mattered then, and what replaced it.\n", i % 28 + 1))
        .collect();
    for f in 0..archives {
        std::fs::write(
            root.join(format!(".megg/archive/knowledge-{f:02}.md")),
            format!("# Archive\n{entries}"),
        )
        .unwrap();
    }
}

/// Two commits on HEAD: a root of one file, then one adding `files` files.
fn commits(root: &Path, files: usize) {
    let repo = git2::Repository::open(root).unwrap();
    let sig =
        git2::Signature::new("b", "b@example.com", &git2::Time::new(1_700_000_000, 0)).unwrap();
    let blob = repo.blob(b"root\n").unwrap();
    let mut tb = repo.treebuilder(None).unwrap();
    tb.insert("README.md", blob, 0o100644).unwrap();
    let root_tree = repo.find_tree(tb.write().unwrap()).unwrap();
    let first = repo
        .commit(Some("HEAD"), &sig, &sig, "root", &root_tree, &[])
        .unwrap();
    // `files` files, 100 to a directory.
    let mut top = repo.treebuilder(Some(&root_tree)).unwrap();
    let mut gen_tb = repo.treebuilder(None).unwrap();
    for d in 0..files.div_ceil(100) {
        let mut sub = repo.treebuilder(None).unwrap();
        for f in 0..100.min(files - d * 100) {
            let b = repo.blob(format!("file {d} {f}\n").as_bytes()).unwrap();
            sub.insert(format!("f{f:03}.rs"), b, 0o100644).unwrap();
        }
        gen_tb
            .insert(format!("d{d:04}"), sub.write().unwrap(), 0o040000)
            .unwrap();
    }
    top.insert("gen", gen_tb.write().unwrap(), 0o040000)
        .unwrap();
    let tree = repo.find_tree(top.write().unwrap()).unwrap();
    let parent = repo.find_commit(first).unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "many files", &tree, &[&parent])
        .unwrap();
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
