//! `megg mcp` latency: the tools/call round trip for `context` and `state`, over stdio, with
//! one long-running server (as a client keeps it).
//!
//!     cargo bench --bench mcp

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

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CALLS: usize = 300;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench mcp`");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join(".megg")).unwrap();
    std::fs::write(dir.join(".megg/info.md"), "# Bench\n\nA project.\n").unwrap();
    let mut knowledge = String::from("# Knowledge\n");
    for i in 0..40 {
        knowledge.push_str(&format!("\n---\n\n## 2026-01-01 - Entry {i}\n**Type:** fact\n**Topics:** t{}\n\nSome text about it.\n", i % 5));
    }
    std::fs::write(dir.join(".megg/knowledge.md"), knowledge).unwrap();
    std::fs::write(
        dir.join(".megg/state.md"),
        "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nBench\n",
    )
    .unwrap();

    let mut child = Command::new(common::megg_binary())
        .arg("mcp")
        .current_dir(dir)
        .env("MEGG_NOW", "2026-11-22T12:00:00Z")
        .env("MEGG_CACHE_DIR", dir.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut request = |id: usize, body: &str| -> Duration {
        let start = Instant::now();
        writeln!(stdin, "{}", body.replace("ID", &id.to_string())).unwrap();
        stdin.flush().unwrap();
        if body.contains("\"id\"") {
            line.clear();
            stdout.read_line(&mut line).unwrap();
            assert!(line.contains(&format!("\"id\":{id}")), "{line}");
        }
        start.elapsed()
    };
    request(
        0,
        r#"{"jsonrpc":"2.0","id":ID,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
    );
    request(
        0,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    println!("| tools/call round trip over stdio ({CALLS} calls) | median | p90 |");
    println!("|---|---|---|");
    for (name, body) in [
        (
            "context",
            r#"{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"context","arguments":{}}}"#,
        ),
        (
            "state (read)",
            r#"{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"state","arguments":{}}}"#,
        ),
        (
            "state (write)",
            r###"{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"state","arguments":{"content":"## Working On\nBench\n"}}}"###,
        ),
    ] {
        let mut times: Vec<Duration> = (1..=CALLS).map(|i| request(i, body)).collect();
        times.sort();
        println!(
            "| `{name}` | {} | {} |",
            ms(times[CALLS / 2]),
            ms(times[CALLS * 9 / 10])
        );
    }
    drop(stdin);
    let _ = child.wait();
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
