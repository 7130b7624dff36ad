//! SPEC §8 rows 1, 2 and 5, on fixtures this benchmark generates, plus the measurement that
//! chose the tokenizer crate.
//!
//!     cargo bench --bench context
//!     cargo bench --bench context -- sizes    # only the hooks by work-tree size (SPEC §14)
//!
//! Prints medians (this machine is noisy: medians and ratios, never single runs). Peak memory
//! is read with Python's `resource.getrusage(RUSAGE_CHILDREN)` around one run, so `python3`
//! must be on PATH for that row.

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

use common::{NOW, file_name, fs_tick, median, ms, peak_rss_kib, time, work_tree};

use std::path::{Path, PathBuf};
use std::process::Command;

use megg::tokens::Counter;

const RUNS: usize = 41;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--tokenizer-probe") {
        return probe(&args[i + 1]);
    }
    if !args.iter().any(|a| a == "--bench") {
        // `cargo test --all-targets` runs bench targets too; measuring belongs to `cargo bench`.
        println!("skipped: run with `cargo bench --bench context`");
        return;
    }
    let megg = common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    if args.iter().any(|a| a == "sizes") {
        // `cargo bench --bench context -- sizes`: only the work-tree sizes (SPEC §14).
        return hooks_by_size(&megg, tmp.path());
    }
    let feature = fixture(tmp.path(), 13_000);
    let cache = tmp.path().join("cache");

    println!("megg context benchmark ({RUNS} runs each, medians)\n");
    println!("| case | median | target |");
    println!("|---|---|---|");

    // Row 1: warm (cache filled) vs `megg --version`, interleaved so noise hits both alike.
    run(&megg, &feature, &cache, &["context", "--json"]); // fills the token cache
    let (mut version, mut warm) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        version.push(time(|| run(&megg, &feature, &cache, &["--version"])));
        warm.push(time(|| {
            run(&megg, &feature, &cache, &["context", "--json"])
        }));
    }
    let (v, w) = (median(&mut version), median(&mut warm));
    println!("| `megg --version` | {} | — |", ms(v));
    println!(
        "| `megg context --json`, 3 levels, ~13k-token knowledge (summary), active state, warm | {} ({:.2} × --version) | ≤ 3 × --version |",
        ms(w),
        w.as_secs_f64() / v.as_secs_f64()
    );

    // Row 2: first run, no cache: a fresh cache directory every time.
    let mut cold = Vec::new();
    for i in 0..RUNS {
        let fresh = tmp.path().join(format!("cold-{i}"));
        cold.push(time(|| {
            run(&megg, &feature, &fresh, &["context", "--json"])
        }));
    }
    println!(
        "| the same, first run (no cache) | {} | ≤ 80 ms |",
        ms(median(&mut cold))
    );

    // Row 5: peak memory on a 20k-token knowledge file (blocked mode, still tokenized).
    let big = fixture(&tmp.path().join("big"), 20_000);
    let big_cache = tmp.path().join("big-cache");
    run(&megg, &big, &big_cache, &["context", "--json"]);
    match (
        peak_rss_kib(
            &megg,
            &["context", "--json"],
            &big,
            &[("MEGG_CACHE_DIR", &big_cache)],
            "",
        ),
        peak_rss_kib(
            &megg,
            &["context", "--json"],
            &big,
            &[("MEGG_CACHE_DIR", &tmp.path().join("big-cold"))],
            "",
        ),
    ) {
        (Some(warm), Some(cold)) => {
            println!(
                "| peak memory, 20k-token knowledge, warm | {:.1} MB | ≤ 20 MB |",
                warm as f64 / 1024.0
            );
            println!(
                "| peak memory, 20k-token knowledge, cold | {:.1} MB | ≤ 40 MB |",
                cold as f64 / 1024.0
            );
        }
        _ => println!("| peak memory | (python3 not found) | |"),
    }

    hooks_by_size(&megg, tmp.path());

    // The tokenizer choice (SPEC §8): start-up plus one count of the 13k-token file.
    println!("\ntokenizer: first count of a 13k-token file in a fresh process (medians)\n");
    println!("| crate | median |");
    println!("|---|---|");
    for which in ["bpe-openai", "tiktoken-rs"] {
        let mut t = Vec::new();
        for _ in 0..9 {
            t.push(time(|| {
                let status = Command::new(std::env::current_exe().unwrap())
                    .args(["--bench", "--tokenizer-probe", which])
                    .env("PROBE_FILE", feature.join(".megg/knowledge.md"))
                    .status()
                    .unwrap();
                assert!(status.success());
            }));
        }
        println!("| {which} | {} |", ms(median(&mut t)));
    }
}

/// Counts the probe file with one tokenizer and exits (a fresh process per measurement).
fn probe(which: &str) {
    let text = std::fs::read_to_string(std::env::var("PROBE_FILE").unwrap()).unwrap();
    let n = match which {
        "bpe-openai" => Counter::new(None).count(&text),
        _ => tiktoken_rs::cl100k_base()
            .unwrap()
            .encode_ordinary(&text)
            .len(),
    };
    assert!(n > 0);
}

/// SPEC §14: each host's SessionStart hook (a new session every run: its start is recorded)
/// in a git work tree of 1,000 and of 100,000 files (20 modified, 1,000 untracked), then a
/// Codex capture after a turn that edited 3 files (the Stop hook: a new transcript, so the
/// work tree is looked at), again with nothing new, and after a turn that edited 3 files and
/// staged one with `git add` (the index written since the start) — beside `megg --version` and
/// `git status --porcelain` in the same run: the hooks interleaved with `--version`, each host
/// first in turn; `git status` interleaved with the captures, in a second pass. The `megg` a
/// shell host's hook starts in the background to note the work tree is waited for, untimed,
/// before anything else runs (as a session's first prompt takes longer than it).
fn hooks_by_size(megg: &Path, tmp: &Path) {
    const SIZE_RUNS: usize = 21;
    let hosts: [(&str, &[&str]); 4] = [
        ("Claude Code", &["context", "--json"]),
        (
            "Codex",
            &["context", "--format", "hook", "--agent", "codex"],
        ),
        (
            "Gemini CLI",
            &["context", "--format", "hook", "--agent", "gemini"],
        ),
        (
            "Copilot CLI",
            &["context", "--format", "hook", "--agent", "copilot"],
        ),
    ];
    println!("\nhooks by work-tree size ({SIZE_RUNS} runs each, medians)\n");
    println!("| case | 1,000 files | 100,000 files | ratio |");
    println!("|---|---|---|---|");
    let mut rows: Vec<(String, Vec<Vec<std::time::Duration>>)> = vec![
        ("`megg --version`".into(), vec![Vec::new(), Vec::new()]),
        (
            "`git status --porcelain`".into(),
            vec![Vec::new(), Vec::new()],
        ),
    ];
    for (name, _) in &hosts {
        rows.push((format!("{name} hook"), vec![Vec::new(), Vec::new()]));
    }
    let capture_row = rows.len();
    for name in [
        "Codex capture after a turn that edited 3 files",
        "Codex capture, nothing new",
        "Codex capture after a turn that edited 3 files and ran `git add` on one",
    ] {
        rows.push((name.into(), vec![Vec::new(), Vec::new()]));
    }
    let sizes = [1_000, 100_000];
    let trees: Vec<PathBuf> = sizes
        .iter()
        .map(|&n| {
            let dir = tmp.join(format!("tree-{n}"));
            let built = time(|| work_tree(&dir, n, 20, 1_000));
            println!(
                "(built a {n}-file work tree in {:.1} s)",
                built.as_secs_f64()
            );
            dir
        })
        .collect();
    let cache = tmp.join("tree-cache");
    let transcripts: Vec<PathBuf> = trees
        .iter()
        .enumerate()
        .map(|(s, dir)| codex_transcript(tmp, s, dir))
        .collect();
    // One warm-up run per tree and host: the token cache is filled, the files are in the
    // page cache, as for every session after the first.
    for (s, dir) in trees.iter().enumerate() {
        for (h, (name, args)) in hosts.iter().enumerate() {
            run_input(
                megg,
                dir,
                &cache,
                args,
                &session_start(name, dir, &format!("warm-{h}-{s}")),
            );
            // Each host's start is recorded: the hook measured is the one a session runs.
            let host = HOSTS[h];
            assert!(
                h == 0
                    || dir
                        .join(format!(".git/megg/sessions/main/{host}/warm-{h}-{s}.start"))
                        .is_file(),
                "{name}: no start recorded"
            );
            wait_for_note(dir, host, &format!("warm-{h}-{s}"));
        }
    }
    for run_no in 0..SIZE_RUNS {
        for (s, dir) in trees.iter().enumerate() {
            rows[0].1[s].push(time(|| run(megg, dir, &cache, &["--version"])));
            // In turn first: no host's row pays more than another for what ran before it.
            for k in 0..hosts.len() {
                let h = (k + run_no) % hosts.len();
                let (name, args) = hosts[h];
                let id = format!("bench-{h}-{s}-{run_no}");
                let input = session_start(name, dir, &id);
                rows[2 + h].1[s].push(time(|| run_input(megg, dir, &cache, args, &input)));
                wait_for_note(dir, HOSTS[h], &id);
            }
        }
    }
    // `git status` and the captures, apart: a 100,000-file walk leaves the machine's caches
    // to whatever runs next, and a session's start does not follow one.
    for run_no in 0..SIZE_RUNS {
        for (s, dir) in trees.iter().enumerate() {
            rows[1].1[s].push(time(|| {
                let ok = common::git_command(dir)
                    .args(["status", "--porcelain"])
                    .stdout(std::process::Stdio::null())
                    .status()
                    .unwrap()
                    .success();
                assert!(ok);
            }));
            // Two Codex sessions, each just started: a turn edits 3 files; in the second it
            // also stages one (`git add` writes the index).
            for (k, staged) in [(0, false), (1, true)] {
                let id = format!("capture-{s}-{run_no}-{k}");
                run_input(
                    megg,
                    dir,
                    &cache,
                    hosts[1].1,
                    &session_start("Codex", dir, &id),
                );
                wait_for_note(dir, "codex", &id);
                fs_tick();
                let edited: Vec<String> = (1..=3).map(|i| file_name(i * 97 + k)).collect();
                for f in &edited {
                    std::fs::write(dir.join(f), format!("turn {run_no}\n")).unwrap();
                }
                if staged {
                    let ok = common::git_command(dir)
                        .args(["add", "--", &edited[0]])
                        .status()
                        .unwrap()
                        .success();
                    assert!(ok, "git add");
                }
                let stop = serde_json::json!({
                    "session_id": id, "transcript_path": transcripts[s], "cwd": dir,
                    "hook_event_name": "Stop", "last_assistant_message": "Edited three files.",
                })
                .to_string();
                let capture = ["capture", "--agent", "codex"];
                let timed: &[usize] = if staged {
                    &[capture_row + 2]
                } else {
                    &[capture_row, capture_row + 1]
                };
                for &row in timed {
                    rows[row].1[s].push(time(|| run_capture(megg, dir, &cache, &capture, &stop)));
                }
                let sessions = dir.join(".git/megg/sessions/main");
                let written = std::fs::read_to_string(sessions.join(format!("codex/{id}.md")))
                    .unwrap_or_else(|e| {
                        let log = std::fs::read_to_string(sessions.join("capture.log"));
                        panic!("no capture of {id} ({e}): {log:?}")
                    });
                for f in &edited {
                    assert!(written.contains(f.as_str()), "{f} not claimed: {written}");
                }
                for i in [0, 5, 10] {
                    // Dirty before every session here (the tree's 20 modified files).
                    let before = file_name(i * (sizes[s] / 20));
                    assert!(!written.contains(&before), "{before} claimed: {written}");
                }
            }
        }
    }
    for (name, mut by_size) in rows {
        let (small, large) = (median(&mut by_size[0]), median(&mut by_size[1]));
        println!(
            "| {name} | {} | {} | {:.2} × |",
            ms(small),
            ms(large),
            large.as_secs_f64() / small.as_secs_f64()
        );
    }
}

/// Each host's directory of session files (Claude Code's is the directory itself).
const HOSTS: [&str; 4] = ["", "codex", "gemini", "copilot"];

/// Waits (untimed) until the `megg` a shell host's SessionStart hook started in the background
/// has noted the work tree for session `id` — nothing to wait for with Claude Code (`host` "").
fn wait_for_note(dir: &Path, host: &str, id: &str) {
    if host.is_empty() {
        return;
    }
    let note = dir.join(format!(".git/megg/sessions/main/{host}/{id}.snapshot"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    // Written, and the `megg` that wrote it gone (it frees what it read after writing).
    while !note.is_file() || snapshotting() {
        assert!(
            std::time::Instant::now() < deadline,
            "{host}: no note of the start of {id}"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Whether a `megg capture … --snapshot` still runs on this machine.
fn snapshotting() -> bool {
    std::fs::read_dir("/proc").is_ok_and(|procs| {
        procs.filter_map(Result::ok).any(|p| {
            std::fs::read(p.path().join("cmdline")).is_ok_and(|c| {
                c.split(|&b| b == 0).any(|a| a == b"--snapshot")
                    && c.split(|&b| b == 0).any(|a| a == b"capture")
            })
        })
    })
}

/// A SessionStart hook's input for a new session in `dir`, spelled as `host` spells it (Copilot
/// CLI in camelCase; an input with both spellings is no input).
fn session_start(host: &str, dir: &Path, id: &str) -> String {
    if host.starts_with("Copilot") {
        return format!(
            r#"{{"sessionId":"{id}","cwd":"{}","source":"new","timestamp":1795463351488}}"#,
            dir.display()
        );
    }
    format!(
        r#"{{"session_id":"{id}","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        dir.display()
    )
}

/// A hook: exit 0, one JSON document on stdout.
fn run_input(megg: &Path, dir: &Path, cache: &Path, args: &[&str], input: &str) {
    let out = run_with_input(megg, dir, cache, args, input);
    assert!(out.starts_with(b"{"), "{}", String::from_utf8_lossy(&out));
}

/// A capture: exit 0, nothing on stdout.
fn run_capture(megg: &Path, dir: &Path, cache: &Path, args: &[&str], input: &str) {
    let out = run_with_input(megg, dir, cache, args, input);
    assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
}

/// megg with `input` on stdin, as a host's hook runs it: exit 0; its stdout.
fn run_with_input(megg: &Path, dir: &Path, cache: &Path, args: &[&str], input: &str) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new(megg)
        .args(args)
        .current_dir(dir)
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", cache)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Written and closed: the hook sees the end of its input.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    out.stdout
}

/// Codex's transcript recorded from the pinned CLI, its paths made `dir`'s.
fn codex_transcript(tmp: &Path, n: usize, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/transcripts/codex-0.169.0-exec-write.jsonl"
    ))
    .unwrap()
    .replace("<PROJECT>", &dir.display().to_string());
    let path = tmp.join(format!("rollout-{n}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

fn run(megg: &Path, dir: &Path, cache: &Path, args: &[&str]) {
    let out = Command::new(megg)
        .args(args)
        .current_dir(dir)
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", cache)
        .output()
        .unwrap();
    assert!(out.status.success());
}

/// company → project → feature, an active state, and a knowledge file of about `tokens`
/// tokens at the feature level. Returns the feature directory.
fn fixture(root: &Path, tokens: usize) -> PathBuf {
    let counter = Counter::new(None);
    let feature = root.join("company/project/feature");
    for (dir, title) in [
        (root.join("company"), "Company"),
        (root.join("company/project"), "Project"),
        (feature.clone(), "Feature"),
    ] {
        std::fs::create_dir_all(dir.join(".megg")).unwrap();
        std::fs::write(
            dir.join(".megg/info.md"),
            format!("---\ntype: context\n---\n\n# {title}\n\n## Context\nWhat {title} is about.\n"),
        )
        .unwrap();
    }
    let kinds = [
        "decision", "pattern", "gotcha", "rule", "process", "fact", "context",
    ];
    let mut k = String::from(
        "---\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: knowledge\n---\n# Knowledge\n",
    );
    let mut i = 0;
    while counter.count(&k) < tokens {
        k.push_str(&format!(
            "\n---\n\n## 2026-{:02}-{:02} - Knowledge entry {i}\n**Type:** {}\n**Topics:** topic{}, area{}\n\n{}\n",
            i % 12 + 1,
            i % 28 + 1,
            kinds[i % kinds.len()],
            i % 11,
            i % 5,
            "Why this matters and how it was decided, with the details a newcomer needs. ".repeat(3)
        ));
        i += 1;
    }
    std::fs::write(feature.join(".megg/knowledge.md"), k).unwrap();
    std::fs::write(
        feature.join(".megg/state.md"),
        "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nThe benchmark\n\n## Next\n- measure\n",
    )
    .unwrap();
    feature
}
