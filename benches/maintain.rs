//! SPEC §8 row 4: `megg maintain` over 50,000 directories holding 200 `.megg`.
//!
//!     cargo bench --bench maintain

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

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const DIRS: usize = 50_000;
const DOMAINS: usize = 200;
const RUNS: usize = 21;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench maintain`");
        return;
    }
    let megg = common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("tree");
    build_tree(&root);
    let cache = tmp.path().join("cache");
    let run = |cache: &Path| {
        let start = Instant::now();
        let out = Command::new(&megg)
            .args(["maintain", ".", "--json"])
            .current_dir(&root)
            .env("MEGG_NOW", "2026-11-22T12:00:00Z")
            .env("MEGG_CACHE_DIR", cache)
            .output()
            .unwrap();
        let took = start.elapsed();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["domains"].as_array().unwrap().len(), DOMAINS);
        took
    };
    run(&cache);
    let mut warm: Vec<Duration> = (0..RUNS).map(|_| run(&cache)).collect();
    let mut cold: Vec<Duration> = (0..RUNS)
        .map(|i| run(&tmp.path().join(format!("cold-{i}"))))
        .collect();
    warm.sort();
    cold.sort();
    println!("| case (SPEC §8 row 4) | median | target |");
    println!("|---|---|---|");
    println!(
        "| `megg maintain` over {DIRS} directories holding {DOMAINS} `.megg`, warm | {} | ≤ 500 ms |",
        ms(warm[RUNS / 2])
    );
    println!(
        "| the same, no token cache | {} | ≤ 500 ms |",
        ms(cold[RUNS / 2])
    );
}

/// 50,000 directories, 4 levels deep (about 15 children each), every 250th a domain with
/// an info.md and a small knowledge.md.
fn build_tree(root: &Path) {
    let mut made = 0;
    let mut domains = 0;
    'outer: for a in 0..15 {
        for b in 0..15 {
            for c in 0..15 {
                for d in 0..15 {
                    let dir = root.join(format!("a{a}/b{b}/c{c}/d{d}"));
                    std::fs::create_dir_all(&dir).unwrap();
                    made += 1;
                    if made % (DIRS / DOMAINS) == 0 && domains < DOMAINS {
                        std::fs::create_dir_all(dir.join(".megg")).unwrap();
                        std::fs::write(dir.join(".megg/info.md"), "# Domain\n").unwrap();
                        std::fs::write(
                            dir.join(".megg/knowledge.md"),
                            format!("# Knowledge\n\n---\n\n## 2026-01-0{} - Entry\n**Type:** fact\n**Topics:** t{}\n\nSome text.\n", domains % 9 + 1, domains % 7),
                        )
                        .unwrap();
                        domains += 1;
                    }
                    if made >= DIRS {
                        break 'outer;
                    }
                }
            }
        }
    }
}
