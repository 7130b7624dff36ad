//! SPEC §8's capture row: `megg capture` (the Stop hook, after every turn) on a 10 MB
//! transcript with 200 tool calls when nothing is new since the last capture (≤ 20 ms), the
//! first capture of that transcript (one full pass), and peak memory on 10 MB vs 50 MB
//! transcripts (it must not grow with the transcript) — for Claude Code's transcript, and for
//! each other host's format (SPEC §12), built from the transcripts recorded from the pinned
//! CLIs (`tests/fixtures/transcripts/`) with their tool results grown to the size.
//!
//!     cargo bench --bench capture
//!     cargo bench --bench capture -- secrets    # only SPEC §12's row
//!
//! SPEC §12's row: the first capture of a 10 MB transcript holding every true positive and
//! shape of gitleaks' rules (`../shared/secrets/`, read where it is) against the same
//! transcript with each sample's characters replaced by `x` (≤ 1.5 ×).
//!
//! Medians, interleaved with `megg --version` so noise hits both alike. Peak memory is read
//! with Python's `resource.getrusage(RUSAGE_CHILDREN)`, so `python3` must be on PATH.

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

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

const RUNS: usize = 41;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench capture`");
        return;
    }
    let only_secrets = std::env::args().any(|a| a == "secrets");
    let megg = common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let repo = git2::Repository::init(&root).unwrap();
    let sig = git2::Signature::now("B", "b@example.com").unwrap();
    let tree = repo
        .find_tree(repo.index().unwrap().write_tree().unwrap())
        .unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "init", &tree, &[])
        .unwrap();
    let cache = tmp.path().join("cache");
    for args in [&["init"][..], &["gitignore"]] {
        run(&megg, &root, &cache, args, "");
    }
    if only_secrets {
        secrets_rows(&megg, &root, &cache, tmp.path());
        return;
    }
    let ten = transcript(tmp.path(), "ten", &root, 10 * 1024 * 1024, 200);
    let fifty = transcript(tmp.path(), "fifty", &root, 50 * 1024 * 1024, 1000);
    let input = |id: &str, t: &Path| {
        json!({"session_id": id, "transcript_path": t, "cwd": root, "hook_event_name": "Stop"})
            .to_string()
    };
    let start = json!({"session_id": "ten", "cwd": root, "source": "startup"}).to_string();
    run(&megg, &root, &cache, &["context", "--json"], &start);

    println!("megg capture benchmark ({RUNS} runs each, medians)\n");
    println!("| case | median | target |");
    println!("|---|---|---|");
    run(&megg, &root, &cache, &["capture"], &input("ten", &ten)); // the first capture
    let (mut version, mut same) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        version.push(time(|| run(&megg, &root, &cache, &["--version"], "")));
        same.push(time(|| {
            run(&megg, &root, &cache, &["capture"], &input("ten", &ten))
        }));
    }
    let log = std::fs::read_to_string(root.join(".git/megg/sessions/main/capture.log")).unwrap();
    assert!(
        log.lines().last().unwrap().contains("\tunchanged\t"),
        "{log}"
    );
    let (v, s) = (median(&mut version), median(&mut same));
    println!("| `megg --version` | {} | — |", ms(v));
    println!(
        "| `megg capture` (Stop), 10 MB transcript, 200 tool calls, nothing new | {} ({:.2} × --version) | ≤ 20 ms |",
        ms(s),
        s.as_secs_f64() / v.as_secs_f64()
    );

    // The first capture of the same transcript: one full pass (scan state removed each time).
    let sessions = root.join(".git/megg/sessions/main");
    let mut first = Vec::new();
    for _ in 0..11 {
        let _ = std::fs::remove_file(sessions.join("ten.scan"));
        let _ = std::fs::remove_file(sessions.join("ten.md"));
        first.push(time(|| {
            run(&megg, &root, &cache, &["capture"], &input("ten", &ten))
        }));
    }
    println!(
        "| first capture of that transcript (one full pass, 11 runs) | {} | — |",
        ms(median(&mut first))
    );

    // Peak memory of a full pass: 10 MB vs 50 MB.
    let peak = |id: &str, t: &Path| {
        let _ = std::fs::remove_file(sessions.join(format!("{id}.scan")));
        let _ = std::fs::remove_file(sessions.join(format!("{id}.md")));
        peak_rss_kib(
            &megg,
            &["capture"],
            &root,
            &[
                ("MEGG_CACHE_DIR", &cache),
                ("CLAUDE_CONFIG_DIR", &cache.join("claude")),
            ],
            &input(id, t),
        )
    };
    match (peak("ten", &ten), peak("fifty", &fifty)) {
        (Some(a), Some(b)) => println!(
            "| peak memory of a full pass: 10 MB / 50 MB transcript | {:.1} MB / {:.1} MB | independent of size |",
            a as f64 / 1024.0,
            b as f64 / 1024.0
        ),
        _ => println!("| peak memory | (python3 not found) | |"),
    }
    for host in &HOSTS {
        host_rows(&megg, &root, &cache, tmp.path(), host, v);
    }
    secrets_rows(&megg, &root, &cache, tmp.path());
}

/// SPEC §12's row: the first capture (one full pass) of a 10 MB transcript that holds samples
/// of gitleaks' rules where capture scans — requests, assistant messages, task subjects and
/// descriptions, failing test runs' output — against the same transcript with each sample's
/// characters (but its line breaks and spaces) replaced by `x`, runs interleaved: every true
/// positive and shape (1,249), then one true positive per rule (217). Capture redacts what it
/// keeps when it keeps it, so it scans the samples of the first and latest request, the last
/// message, the tasks it keeps and the last failing run — not those a later one replaced
/// (docs/benchmarks.md counts them).
fn secrets_rows(megg: &Path, root: &Path, cache: &Path, tmp: &Path) {
    let Some(samples) = secret_samples() else {
        println!(
            "| capture, 10 MB transcript with secrets of every rule | (../shared/secrets/gitleaks-samples.json not found) | ≤ 1.5 × |"
        );
        return;
    };
    let all: Vec<String> = samples.iter().map(|(_, t)| t.clone()).collect();
    let mut rules = std::collections::BTreeSet::new();
    let one_per_rule: Vec<String> = samples
        .iter()
        .filter(|(rule, _)| rules.insert(rule.clone()))
        .map(|(_, t)| t.clone())
        .collect();
    for (what, texts) in [
        ("every sample", &all),
        ("one sample per rule", &one_per_rule),
    ] {
        secrets_row(megg, root, cache, tmp, what, texts);
    }
}

fn secrets_row(megg: &Path, root: &Path, cache: &Path, tmp: &Path, what: &str, samples: &[String]) {
    let plain: Vec<String> = samples
        .iter()
        .map(|s| {
            s.chars()
                .map(|c| if c.is_whitespace() { c } else { 'x' })
                .collect()
        })
        .collect();
    let n = samples.len();
    let (with_id, without_id) = (format!("secrets-with-{n}"), format!("secrets-without-{n}"));
    let with = secrets_transcript(tmp, &with_id, root, samples);
    let without = secrets_transcript(tmp, &without_id, root, &plain);
    let input = |id: &str, t: &Path| {
        json!({"session_id": id, "transcript_path": t, "cwd": root, "hook_event_name": "Stop"})
            .to_string()
    };
    let sessions = root.join(".git/megg/sessions/main");
    for id in [&with_id, &without_id] {
        let start = json!({"session_id": id, "cwd": root, "source": "startup"}).to_string();
        run(megg, root, cache, &["context", "--json"], &start);
    }
    let first = |id: &str, t: &Path| {
        let _ = std::fs::remove_file(sessions.join(format!("{id}.scan")));
        let _ = std::fs::remove_file(sessions.join(format!("{id}.md")));
        time(|| run(megg, root, cache, &["capture"], &input(id, t)))
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..11 {
        b.push(first(&without_id, &without));
        a.push(first(&with_id, &with));
    }
    // The capture did redact: its handoff says so where a sample was.
    let kept = std::fs::read_to_string(sessions.join(format!("{with_id}.md"))).unwrap();
    assert!(kept.contains("[redacted]"), "{kept}");
    let (a, b) = (median(&mut a), median(&mut b));
    println!(
        "| first capture, 10 MB transcript, {what} of gitleaks' rules ({n}; 11 runs) | {} ({:.2} × the same without them: {}) | ≤ 1.5 × |",
        ms(a),
        a.as_secs_f64() / b.as_secs_f64(),
        ms(b)
    );
}

/// The rule and text of gitleaks' true positives, then of their shapes (`../shared/secrets/`),
/// if there.
fn secret_samples() -> Option<Vec<(String, String)>> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/secrets/gitleaks-samples.json");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let texts = ["tps", "shapes"]
        .iter()
        .flat_map(|k| doc[*k].as_array().cloned().unwrap_or_default())
        .filter_map(|t| {
            Some((
                t["rule"].as_str()?.to_string(),
                t["text"].as_str()?.to_string(),
            ))
        })
        .collect();
    Some(texts)
}

/// A 10 MB transcript like [`transcript`]'s (200 reads with large results, edits), with each
/// of `samples` in a place capture scans, in turn: a request, an assistant message, a task's
/// subject, its description, and — ten to a run — a failing jest run's test names.
fn secrets_transcript(dir: &Path, id: &str, root: &Path, samples: &[String]) -> PathBuf {
    let path = dir.join(format!("{id}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut line = |v: serde_json::Value| writeln!(f, "{v}").unwrap();
    let user = |content: serde_json::Value| json!({"type": "user", "message": {"role": "user", "content": content}});
    let tool = |id: &str, name: &str, input: serde_json::Value| {
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": name, "input": input}]}})
    };
    let result = |id: &str, text: &str, error: bool| {
        user(
            json!([{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": error}]),
        )
    };
    let bulk = "x".repeat(10 * 1024 * 1024 / 200);
    line(user(json!("Refactor the cart")));
    let mut jest: Vec<&String> = Vec::new();
    for (k, sample) in samples.iter().enumerate() {
        let id = format!("s{k}");
        match k % 5 {
            0 => line(user(json!(sample))),
            1 => line(json!({"type": "assistant", "message": {"role": "assistant",
                "content": [{"type": "text", "text": sample}]}})),
            2 => {
                line(tool(
                    &id,
                    "TaskCreate",
                    json!({"subject": sample, "description": "d"}),
                ));
                line(result(
                    &id,
                    &format!("Task #{k} created successfully"),
                    false,
                ));
            }
            3 => {
                line(tool(
                    &id,
                    "TaskCreate",
                    json!({"subject": format!("task {k}"), "description": sample}),
                ));
                line(result(
                    &id,
                    &format!("Task #{k} created successfully"),
                    false,
                ));
            }
            _ => jest.push(sample),
        }
        if jest.len() == 10 || (k + 1 == samples.len() && !jest.is_empty()) {
            let mut out = String::from("Exit code 1\nFAIL src/secrets.test.js\n");
            for name in jest.drain(..) {
                out.push_str(&format!("  ● secrets › {name}\n\n"));
            }
            out.push_str("Tests:       10 failed, 10 total\n");
            line(tool(
                &format!("{id}-jest"),
                "Bash",
                json!({"command": "npx jest"}),
            ));
            line(result(&format!("{id}-jest"), &out, true));
        }
        // The bulk: 200 reads with large results, an edit now and then.
        if k % (samples.len() / 200).max(1) == 0 {
            let read = format!("{id}-read");
            line(tool(
                &read,
                "Read",
                json!({"file_path": root.join("src/lib.rs")}),
            ));
            line(result(&read, &bulk, false));
            if k % 50 == 0 {
                let edit = format!("{id}-edit");
                line(tool(
                    &edit,
                    "Edit",
                    json!({"file_path": root.join(format!("src/f{k}.rs")),
                    "old_string": "a", "new_string": "b"}),
                ));
                line(result(&edit, "ok", false));
            }
        }
    }
    line(json!({"type": "assistant", "message": {"role": "assistant",
        "content": [{"type": "text", "text": "Halfway there."}]}}));
    drop(f);
    path
}

/// One host's transcript format: its recorded fixture, the line kind whose tool output is
/// grown to make the size, and its hook inputs.
struct HostFormat {
    agent: &'static str,
    fixture: &'static str,
    /// A substring of the fixture's tool-result line.
    bulk: &'static str,
    /// Where in that line the output text is (a JSON pointer).
    output: &'static str,
}

const HOSTS: [HostFormat; 3] = [
    HostFormat {
        agent: "codex",
        fixture: "codex-0.169.0-exec-write.jsonl",
        bulk: "\"function_call_output\"",
        output: "/payload/output",
    },
    HostFormat {
        agent: "gemini",
        fixture: "gemini-0.61.0-write-file.jsonl",
        bulk: "\"type\":\"user\",\"content\":[{\"functionResponse\":{\"id\":\"write_file",
        output: "/content/0/functionResponse/response/output",
    },
    HostFormat {
        agent: "copilot",
        fixture: "copilot-create.jsonl",
        bulk: "\"tool.execution_complete\"",
        output: "/data/result/content",
    },
];

/// The host's rows: nothing new on 10 MB, a first pass, peak memory 10 MB / 50 MB.
fn host_rows(megg: &Path, root: &Path, cache: &Path, tmp: &Path, host: &HostFormat, v: Duration) {
    let id = format!("{}-ten", host.agent);
    let ten = host_transcript(tmp, host, &id, root, 10 * 1024 * 1024, 200);
    let fifty_id = format!("{}-fifty", host.agent);
    let fifty = host_transcript(tmp, host, &fifty_id, root, 50 * 1024 * 1024, 1000);
    let input = |id: &str, t: &Path| {
        match host.agent {
        "copilot" => json!({"sessionId": id, "transcriptPath": t, "cwd": root, "timestamp": 1, "stopReason": "end_turn"}),
        "gemini" => json!({"session_id": id, "transcript_path": t, "cwd": root, "hook_event_name": "AfterAgent"}),
        _ => json!({"session_id": id, "transcript_path": t, "cwd": root, "hook_event_name": "Stop"}),
    }
    .to_string()
    };
    let args = ["capture", "--agent", host.agent];
    let start = match host.agent {
        "copilot" => json!({"sessionId": id, "cwd": root, "source": "new", "timestamp": 1}),
        _ => json!({"session_id": id, "cwd": root, "source": "startup"}),
    };
    run(
        megg,
        root,
        cache,
        &["context", "--format", "hook", "--agent", host.agent],
        &start.to_string(),
    );
    // A file the session's shell wrote (Codex edits through it): the capture has a handoff.
    std::fs::write(root.join(format!("{}-notes.txt", host.agent)), "hello\n").unwrap();
    run(megg, root, cache, &args, &input(&id, &ten)); // the first capture
    let mut same = Vec::new();
    for _ in 0..RUNS {
        same.push(time(|| run(megg, root, cache, &args, &input(&id, &ten))));
    }
    let sessions = root.join(".git/megg/sessions/main").join(host.agent);
    let log = std::fs::read_to_string(root.join(".git/megg/sessions/main/capture.log")).unwrap();
    assert!(
        log.lines().last().unwrap().contains("\tunchanged\t"),
        "{log}"
    );
    let s = median(&mut same);
    println!(
        "| `megg capture --agent {}`, 10 MB transcript, 200 tool calls, nothing new | {} ({:.2} × --version) | ≤ 20 ms |",
        host.agent,
        ms(s),
        s.as_secs_f64() / v.as_secs_f64()
    );
    let mut first = Vec::new();
    for _ in 0..11 {
        let _ = std::fs::remove_file(sessions.join(format!("{id}.scan")));
        let _ = std::fs::remove_file(sessions.join(format!("{id}.md")));
        first.push(time(|| run(megg, root, cache, &args, &input(&id, &ten))));
    }
    println!(
        "| `--agent {}` first capture (one full pass, 11 runs) | {} | — |",
        host.agent,
        ms(median(&mut first))
    );
    let peak = |id: &str, t: &Path| {
        let _ = std::fs::remove_file(sessions.join(format!("{id}.scan")));
        let _ = std::fs::remove_file(sessions.join(format!("{id}.md")));
        peak_rss_kib(
            megg,
            &args,
            root,
            &[("MEGG_CACHE_DIR", cache)],
            &input(id, t),
        )
    };
    if let (Some(a), Some(b)) = (peak(&id, &ten), peak(&fifty_id, &fifty)) {
        println!(
            "| `--agent {}` peak memory of a full pass: 10 MB / 50 MB | {:.1} MB / {:.1} MB | independent of size |",
            host.agent,
            a as f64 / 1024.0,
            b as f64 / 1024.0
        );
    }
}

/// The host's recorded transcript, then `calls` copies of its tool-result line with the output
/// grown so the whole is about `bytes`; paths are this project's.
fn host_transcript(
    dir: &Path,
    host: &HostFormat,
    id: &str,
    root: &Path,
    bytes: usize,
    calls: usize,
) -> PathBuf {
    let fixture = std::fs::read_to_string(format!(
        "{}/tests/fixtures/transcripts/{}",
        env!("CARGO_MANIFEST_DIR"),
        host.fixture
    ))
    .unwrap();
    let root = root.display().to_string();
    let fixture = fixture
        .replace("<PROJECT>", &root)
        .replace("$PROJECT", &root)
        .replace("/PROJECT", &root);
    let bulk = fixture
        .lines()
        .find(|l| l.contains(host.bulk))
        .unwrap_or_else(|| panic!("no {} line in {}", host.bulk, host.fixture));
    let mut bulk: serde_json::Value = serde_json::from_str(bulk).unwrap();
    *bulk.pointer_mut(host.output).unwrap() = json!("x".repeat(bytes / calls));
    let bulk = bulk.to_string();
    let path = dir.join(format!("{id}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let lines: Vec<&str> = fixture.lines().collect();
    // The session's start, the bulk of tool results, then the rest of the session.
    let (head, tail) = lines.split_at(lines.len() / 2);
    for l in head {
        writeln!(f, "{l}").unwrap();
    }
    for _ in 0..calls {
        writeln!(f, "{bulk}").unwrap();
    }
    for l in tail {
        writeln!(f, "{l}").unwrap();
    }
    drop(f);
    path
}

/// A transcript of about `bytes` with `calls` tool calls: mostly reads with large results (as
/// real sessions are), plus tasks and edits so the capture has something to hand off.
fn transcript(dir: &Path, id: &str, root: &Path, bytes: usize, calls: usize) -> PathBuf {
    let path = dir.join(format!("{id}.jsonl"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let line = |f: &mut std::io::BufWriter<std::fs::File>, v: serde_json::Value| {
        writeln!(f, "{v}").unwrap();
    };
    line(
        &mut f,
        json!({"type": "user", "message": {"role": "user", "content": "Refactor the cart"}}),
    );
    let result = "x".repeat(bytes / calls);
    for i in 0..calls {
        let id = format!("toolu_{i}");
        let (name, input) = match i % 10 {
            0 => (
                "TaskCreate",
                json!({"subject": format!("Task {i}"), "description": "Details"}),
            ),
            1 => (
                "Edit",
                json!({"file_path": root.join(format!("src/f{i}.rs")), "old_string": "a", "new_string": "b"}),
            ),
            _ => ("Read", json!({"file_path": root.join("src/lib.rs")})),
        };
        line(
            &mut f,
            json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}}),
        );
        let text = if name == "TaskCreate" {
            format!("Task #{} created successfully", i / 10 + 1)
        } else {
            result.clone()
        };
        line(
            &mut f,
            json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}}),
        );
    }
    line(
        &mut f,
        json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Halfway there."}]}}),
    );
    drop(f);
    path
}

fn run(megg: &Path, dir: &Path, cache: &Path, args: &[&str], stdin: &str) {
    let mut child = Command::new(megg)
        .args(args)
        .current_dir(dir)
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", cache)
        .env("CLAUDE_CONFIG_DIR", cache.join("claude"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}
