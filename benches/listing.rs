//! SPEC §15: Linux lists a directory with `getdents64` into one buffer ([`Listing::Raw`]);
//! macOS with `readdir` ([`Listing::Portable`]). The fast path is kept only if it pays: both
//! list a directory of 100,000 files and 100 directories (a build's output beside the sources)
//! and one of 1,000 entries, interleaved, medians of 31 runs each.
//!
//!     cargo bench --bench listing

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

use common::median;
use megg::fsx::{Below, Listing};
use std::time::{Duration, Instant};

const RUNS: usize = 31;

fn fixture(files: usize, dirs: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..files {
        std::fs::write(dir.path().join(format!("object-{i:06}.o")), "").unwrap();
    }
    for i in 0..dirs {
        std::fs::create_dir(dir.path().join(format!("module-{i:03}"))).unwrap();
    }
    dir
}

fn time(dir: &std::path::Path, listing: Listing, dirs: usize) -> Duration {
    let start = Instant::now();
    let below = Below::open_start(dir).unwrap();
    let names = below.subdirs_by(listing, |_| true).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(names.len(), dirs);
    elapsed
}

fn main() {
    let listings = [
        #[cfg(target_os = "linux")]
        ("getdents64 (Linux)", Listing::Raw),
        ("readdir (portable)", Listing::Portable),
    ];
    println!("| directory | {} |", listings.map(|(n, _)| n).join(" | "));
    println!("|---|{}", "---|".repeat(listings.len()));
    for (files, dirs) in [(1_000, 100), (100_000, 100)] {
        let dir = fixture(files, dirs);
        let mut times = vec![Vec::new(); listings.len()];
        for _ in 0..RUNS {
            for (i, (_, listing)) in listings.iter().enumerate() {
                times[i].push(time(dir.path(), *listing, dirs));
            }
        }
        let cells: Vec<String> = times
            .iter_mut()
            .map(|t| format!("{:.2} ms", median(t).as_secs_f64() * 1000.0))
            .collect();
        println!("| {files} files, {dirs} dirs | {} |", cells.join(" | "));
    }
}
