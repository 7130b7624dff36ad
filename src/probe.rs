//! Running another program to ask it something (`megg merge-driver --help`, `claude
//! --version`): directly, never through a shell, stdin closed, for a bounded time and a bounded
//! amount of output, so a hung or chatty program cannot hold megg up.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// Most bytes read from each of its output streams.
pub const MAX_OUTPUT: u64 = 64 * 1024;

/// What a program that finished in time printed.
#[derive(Debug)]
pub struct Answer {
    pub status: ExitStatus,
    /// Its stdout, cut at [`MAX_OUTPUT`].
    pub stdout: Vec<u8>,
    /// Its stderr, cut at [`MAX_OUTPUT`].
    pub stderr: Vec<u8>,
}

/// Where a program is: a path as it is, else looked up on PATH — on Windows as Windows does,
/// `name.exe` before npm's `name.cmd` and `name.ps1`.
pub fn which(program: &str) -> Option<PathBuf> {
    let executable = |p: &Path| crate::fsx::is_executable_file(p);
    if program.contains('/') || Path::new(program).is_absolute() {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    let names: Vec<String> = if cfg!(windows) && Path::new(program).extension().is_none() {
        ["exe", "cmd", "ps1"]
            .iter()
            .map(|e| format!("{program}.{e}"))
            .collect()
    } else {
        vec![program.to_string()]
    };
    std::env::split_paths(&std::env::var_os("PATH")?)
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| executable(p))
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
    let pipes: [(bool, Option<Box<dyn Read + Send>>); 2] = [
        (true, child.stdout.take().map(|p| Box::new(p) as _)),
        (false, child.stderr.take().map(|p| Box::new(p) as _)),
    ];
    for (is_stdout, pipe) in pipes {
        let Some(pipe) = pipe else { continue };
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.take(MAX_OUTPUT).read_to_end(&mut out);
            let _ = tx.send((is_stdout, out));
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
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((true, out)) => stdout = out,
            Ok((false, out)) => stderr = out,
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => return Err(too_slow()),
        }
    }
    Ok(Answer {
        status,
        stdout,
        stderr,
    })
}
