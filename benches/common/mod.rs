//! What every benchmark shares: the binary to time, timing, medians, and peak memory of one
//! run. Each bench includes it with `mod common;`; not every bench uses every piece.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../tests/common/tick.rs"]
mod tick;
use std::time::{Duration, Instant};
#[allow(unused_imports)] // not every bench uses it
pub use tick::fs_tick;

pub const NOW: &str = "2026-11-22T12:00:00Z";

/// A string only a binary with the test-only failure points holds (`src/failpoint.rs`).
const FAILPOINTS: &[u8] = b"MEGG_FAILPOINTS";

/// The `megg` the benchmarks time: the binary users get, without the test-only failure points.
/// The one `cargo bench` builds beside the benches (`CARGO_BIN_EXE_megg`) has them: the crate's
/// dev-dependency on itself switches the `failpoints` feature on, and cargo builds a package
/// with the union of its features. So this builds `cargo build --release --bin megg` into a
/// target directory of its own, `target/bench-megg/`, where no dev-dependency takes part (the
/// first time costs a second release build, later ones nothing) — or takes the binary
/// `MEGG_BENCH_BIN` names (an installed megg, an older build for an A/B). It prints which binary
/// it times and refuses one holding the failure points. Called only under `--bench`:
/// `cargo test --all-targets` runs the benches as tests, which skip at once.
pub fn megg_binary() -> PathBuf {
    let (megg, how) = match std::env::var_os("MEGG_BENCH_BIN") {
        Some(bin) => (PathBuf::from(bin), "named by MEGG_BENCH_BIN"),
        None => (
            build_release(),
            "`cargo build --release --bin megg`, no dev features",
        ),
    };
    let bytes = std::fs::read(&megg).unwrap_or_else(|e| panic!("{}: {e}", megg.display()));
    assert!(
        !bytes.windows(FAILPOINTS.len()).any(|w| w == FAILPOINTS),
        "{} has the test-only failure points: not the binary users get",
        megg.display()
    );
    println!("timing {} ({how})\n", megg.display());
    megg
}

/// Builds the release binary without dev-dependencies into `<target>/bench-megg/`; its path.
fn build_release() -> PathBuf {
    // `<target>/release/megg`: the target directory this `cargo bench` builds into.
    let target = Path::new(env!("CARGO_BIN_EXE_megg"))
        .parent()
        .and_then(Path::parent)
        .expect("the bench binary's target directory")
        .join("bench-megg");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--bin", "megg", "--target-dir"])
        .arg(&target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo");
    assert!(status.success(), "cargo build --release --bin megg failed");
    target.join("release/megg")
}

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

/// A git work tree of `files` committed files (`src/m<i>/s<j>/f<k>.txt`, 100 to a directory),
/// built with `git fast-import` and checked out, then `modified` of them changed and
/// `untracked` new files under `scratch/`; a `.megg` domain with a knowledge file and an
/// active state at its top. git runs with no user or system config.
pub fn work_tree(root: &Path, files: usize, modified: usize, untracked: usize) {
    use std::io::Write;
    std::fs::create_dir_all(root).unwrap();
    let git = |args: &[&str]| {
        let ok = git_command(root).args(args).status().unwrap().success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    let mut child = git_command(root)
        .args(["fast-import", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut w = std::io::BufWriter::new(child.stdin.take().unwrap());
        write!(
            w,
            "commit refs/heads/main\ncommitter B <b@example.com> 1700000000 +0000\ndata 4\ninit\n"
        )
        .unwrap();
        for i in 0..files {
            let body = format!("file {i}\n");
            write!(
                w,
                "M 100644 inline {}\ndata {}\n{body}\n",
                file_name(i),
                body.len()
            )
            .unwrap();
        }
        writeln!(w).unwrap();
    }
    assert!(child.wait().unwrap().success());
    git(&["reset", "-q", "--hard", "main"]);
    for i in 0..modified {
        std::fs::write(
            root.join(file_name(i * (files / modified.max(1)))),
            "changed\n",
        )
        .unwrap();
    }
    std::fs::create_dir_all(root.join("scratch")).unwrap();
    for i in 0..untracked {
        std::fs::write(root.join(format!("scratch/u{i}.txt")), "new\n").unwrap();
    }
    std::fs::create_dir_all(root.join(".megg")).unwrap();
    std::fs::write(
        root.join(".megg/info.md"),
        "---\ntype: context\n---\n\n# Monorepo\n\n## Context\nA large work tree.\n",
    )
    .unwrap();
    std::fs::write(
        root.join(".megg/knowledge.md"),
        "# Knowledge\n\n---\n\n## 2026-11-01 - Builds run in CI only\n**Type:** rule\n**Topics:** ci\n\nLocal builds are for iteration.\n",
    )
    .unwrap();
    std::fs::write(
        root.join(".megg/state.md"),
        "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\nbranch: main\n---\n\n## Working On\nThe benchmark\n\n## Next\n- measure\n",
    )
    .unwrap();
}

/// The path of committed file `i` in [`work_tree`].
pub fn file_name(i: usize) -> String {
    format!("src/m{}/s{}/f{i}.txt", i / 1000, i / 100 % 10)
}

/// `git` in `dir` with no user or system config and fixed identities.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "B")
        .env("GIT_AUTHOR_EMAIL", "b@example.com")
        .env("GIT_COMMITTER_NAME", "B")
        .env("GIT_COMMITTER_EMAIL", "b@example.com");
    cmd
}

/// Makes a FIFO at `path` with the system's `mkfifo` (rustix has no `mkfifoat` on macOS).
pub fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .args(["-m", "600"])
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}
