//! Running another program to ask it something (`megg merge-driver --help`, `claude
//! --version`): directly, never through a shell, stdin closed, for a bounded time and a bounded
//! amount of output, so a hung or chatty program cannot hold megg up.

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Most bytes read from each of its output streams.
pub const MAX_OUTPUT: u64 = 64 * 1024;

/// What a program that finished in time printed.
#[derive(Debug)]
pub struct Answer {
    pub status: ExitStatus,
    /// Its stdout and stderr, in the order their readers finished, each cut at [`MAX_OUTPUT`].
    pub output: Vec<u8>,
}

/// Runs `program ARGS` for at most `timeout`: its answer, else why there is none (it does not
/// start, or it did not finish in time — then it is killed).
pub fn ask(program: &Path, args: &[&str], timeout: Duration) -> Result<Answer, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("it does not start: {}", crate::error::plain(&e)))?;
    // Read both pipes while it runs, so a chatty program cannot block on a full pipe; a
    // program that leaves a child holding them open is not waited for past the deadline.
    let (tx, rx) = std::sync::mpsc::channel();
    let pipes: [Option<Box<dyn Read + Send>>; 2] = [
        child.stdout.take().map(|p| Box::new(p) as _),
        child.stderr.take().map(|p| Box::new(p) as _),
    ];
    for pipe in pipes.into_iter().flatten() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.take(MAX_OUTPUT).read_to_end(&mut out);
            let _ = tx.send(out);
        });
    }
    drop(tx);
    let deadline = Instant::now() + timeout;
    let too_slow = || {
        format!(
            "`{}` did not finish within {} s",
            args.join(" "),
            timeout.as_secs_f32()
        )
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(too_slow());
            }
        }
    };
    let mut output = Vec::new();
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(out) => output.extend(out),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => return Err(too_slow()),
        }
    }
    Ok(Answer { status, output })
}
