//! What every benchmark shares: timing, medians, and peak memory of one run. Each bench
//! includes it with `mod common;`; not every bench uses every piece.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

pub const NOW: &str = "2026-11-22T12:00:00Z";

pub fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

pub fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Peak resident memory, in KiB, of one `megg ARGS` in `dir` with `stdin` as its input,
/// read with Python's `resource.getrusage(RUSAGE_CHILDREN)`; `None` without `python3`.
pub fn peak_rss_kib(
    megg: &Path,
    args: &[&str],
    dir: &Path,
    env: &[(&str, &Path)],
    stdin: &str,
) -> Option<u64> {
    let script = "import resource,subprocess,sys\nsubprocess.run(sys.argv[2:],check=True,input=sys.argv[1].encode(),stdout=subprocess.DEVNULL)\nprint(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(stdin)
        .arg(megg)
        .args(args)
        .current_dir(dir)
        .env("MEGG_NOW", NOW)
        .envs(env.iter().copied())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}
