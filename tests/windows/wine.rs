//! The harness: a private wine prefix under the target directory (`<target>/wine/prefix`) holding
//! the stand-in `bcryptprimitives.dll`, the C helpers built with mingw-w64, wine's services
//! started before any test is timed, and `megg.exe` run the way a Windows user runs it — their
//! own `USERPROFILE`, `%APPDATA%` and `%LOCALAPPDATA%`, no `HOME`.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::NOW;
use crate::common::provision::skip;

/// How long wine's server (and the services it started) stays up after the last program ends:
/// long enough to span the whole run, so that no test's program starts them. A program that
/// did would hand them its stdout and stderr, and reading its output would wait until the
/// server gave up on them, this long and more.
const PERSIST_SECS: u32 = 60;

/// The drive letter mapped to the temp directory, where every test builds its tree.
pub const TEMP_DRIVE: char = 't';

/// The prefix and the programs the tests run in it.
pub struct Wine {
    /// megg.exe, as a Linux path.
    exe: PathBuf,
    prefix: PathBuf,
    /// Where the helpers are built: `with-env.exe`, `hold.exe`.
    bin: PathBuf,
    /// The temp directory T: maps to (canonical).
    temp: PathBuf,
}

enum Setup {
    Ready(Wine),
    /// A tool or the binary is missing: the tests skip (or fail under CI).
    Missing(String),
    /// Set up but broken: the tests fail everywhere.
    Broken(String),
}

/// The prefix, set up once per process; `None` (after a one-line skip) when wine, mingw-w64 or
/// megg.exe is missing.
pub fn wine() -> Option<&'static Wine> {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    match SETUP.get_or_init(setup) {
        Setup::Ready(w) => Some(w),
        Setup::Missing(why) => {
            skip(why);
            None
        }
        Setup::Broken(why) => panic!("{why}"),
    }
}

/// The cargo target directory (`CARGO_TARGET_TMPDIR` is its `tmp/`).
fn target_dir() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap()
}

fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success())
}

fn setup() -> Setup {
    let exe = std::env::var_os("MEGG_WINDOWS_EXE").map_or_else(
        || target_dir().join("x86_64-pc-windows-gnu/release/megg.exe"),
        PathBuf::from,
    );
    if !exe.is_file() {
        return Setup::Missing(format!(
            "megg.exe not found at {}: build it with `cargo build --release --target \
             x86_64-pc-windows-gnu --bin megg`, or point MEGG_WINDOWS_EXE at one",
            exe.display()
        ));
    }
    if !runs("wine") {
        return Setup::Missing(
            "wine not found on PATH: install it (apt-get install wine wine64)".to_string(),
        );
    }
    if !runs("x86_64-w64-mingw32-gcc") {
        return Setup::Missing(
            "x86_64-w64-mingw32-gcc not found on PATH: install mingw-w64 \
             (apt-get install gcc-mingw-w64-x86-64)"
                .to_string(),
        );
    }
    match prepare(exe) {
        Ok(w) => Setup::Ready(w),
        Err(why) => Setup::Broken(why),
    }
}

/// Builds the helpers, creates or refreshes the prefix and starts its services, under a lock
/// so that two test processes never set it up at once.
fn prepare(exe: PathBuf) -> Result<Wine, String> {
    let dir = target_dir().join("wine");
    fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let lock = fs::File::create(dir.with_extension("lock")).map_err(|e| e.to_string())?;
    lock.lock().map_err(|e| e.to_string())?;

    let bin = dir.join("bin");
    fs::create_dir_all(&bin).map_err(|e| e.to_string())?;
    compile(
        "processprng.c",
        &bin.join("bcryptprimitives.dll"),
        &["-shared", "-ladvapi32"],
    )?;
    compile("with_env.c", &bin.join("with-env.exe"), &["-municode"])?;
    compile("hold.c", &bin.join("hold.exe"), &["-municode"])?;

    let temp = std::env::temp_dir()
        .canonicalize()
        .map_err(|e| e.to_string())?;
    let wine = Wine {
        exe: exe.canonicalize().map_err(|e| e.to_string())?,
        prefix: dir.join("prefix"),
        bin,
        temp,
    };
    // The server first, persistent, with nothing of ours on its stdio (in the prefix's
    // directory: without one it would not start, and wineboot would start a short-lived one);
    // then wineboot, which fills the prefix on first use and starts the services under it.
    let fresh = !wine.prefix.join("system.reg").exists();
    fs::create_dir_all(&wine.prefix).map_err(|e| e.to_string())?;
    let mut server = wine.tool("wineserver");
    server.arg(format!("-p{PERSIST_SECS}"));
    quiet(server).map_err(|e| format!("wineserver: {e}"))?;
    let started = Instant::now();
    let mut boot = wine.tool("wineboot");
    boot.arg("-i");
    let status = quiet(boot).map_err(|e| format!("wineboot: {e}"))?;
    if !status.success() {
        return Err(format!(
            "wineboot -i failed ({status}) in {}",
            wine.prefix.display()
        ));
    }
    let booted = started.elapsed();
    // Rust's std calls ProcessPrng at start; wine 8 has no bcryptprimitives.dll to find it in.
    // Copied only when it changed: a program of another test run may have it mapped.
    let dll = fs::read(wine.bin.join("bcryptprimitives.dll")).map_err(|e| e.to_string())?;
    let installed = wine
        .prefix
        .join("drive_c/windows/system32/bcryptprimitives.dll");
    if fs::read(&installed).ok().as_ref() != Some(&dll) {
        fs::write(&installed, &dll)
            .map_err(|e| format!("install the stand-in {}: {e}", installed.display()))?;
    }
    let drive = wine.prefix.join(format!("dosdevices/{TEMP_DRIVE}:"));
    if fs::read_link(&drive).ok().as_ref() != Some(&wine.temp) {
        let _ = fs::remove_file(&drive);
        std::os::unix::fs::symlink(&wine.temp, &drive).map_err(|e| e.to_string())?;
    }
    if fresh {
        // Past the harness's capture: the one slow step of a first run says what it was.
        let _ = std::io::stderr().write_all(
            format!(
                "wine prefix {} created in {booted:.1?}\n",
                wine.prefix.display()
            )
            .as_bytes(),
        );
    }
    Ok(wine)
}

/// Builds tests/windows/`source` into `out` with mingw-w64 when `out` is older than it.
fn compile(source: &str, out: &Path, flags: &[&str]) -> Result<(), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/windows")
        .join(source);
    let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(out).is_some_and(|o| modified(&src).is_some_and(|s| o >= s)) {
        return Ok(());
    }
    let out_status = Command::new("x86_64-w64-mingw32-gcc")
        .args(["-O2", "-s", "-Wall", "-o"])
        .arg(out)
        .arg(&src)
        .args(flags)
        .output()
        .map_err(|e| e.to_string())?;
    if !out_status.status.success() {
        return Err(format!(
            "mingw-w64 could not build {}:\n{}",
            src.display(),
            String::from_utf8_lossy(&out_status.stderr)
        ));
    }
    Ok(())
}

/// Runs `cmd` with nothing on its stdio, so that no daemon it leaves behind holds our pipes.
fn quiet(mut cmd: Command) -> std::io::Result<std::process::ExitStatus> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
}

/// `path` (under the temp directory) as a Windows path on the drive [`TEMP_DRIVE`] maps.
pub fn on_drive(path: &Path) -> String {
    let wine = wine_set();
    let rel = path
        .canonicalize()
        .unwrap()
        .strip_prefix(&wine.temp)
        .unwrap_or_else(|_| panic!("{} is not under the temp directory", path.display()))
        .to_path_buf();
    backslashed(&format!("{}:\\", TEMP_DRIVE.to_ascii_uppercase()), &rel)
}

/// `path` as Windows sees it through `Z:`, which maps `/`.
pub fn on_z(path: &Path) -> String {
    let rel = path.strip_prefix("/").unwrap();
    backslashed("Z:\\", rel)
}

fn backslashed(root: &str, rel: &Path) -> String {
    format!("{root}{}", rel.to_str().unwrap().replace('/', "\\"))
}

fn wine_set() -> &'static Wine {
    wine().expect("the prefix is set up before any path is converted")
}

/// A Windows user's profile under `dir`: `USERPROFILE`, `%APPDATA%` and `%LOCALAPPDATA%`.
pub struct User {
    pub profile: PathBuf,
    pub roaming: PathBuf,
    pub local: PathBuf,
}

impl User {
    pub fn under(dir: &Path) -> Self {
        let profile = dir.join("Usuário");
        let roaming = profile.join("AppData/Roaming");
        let local = profile.join("AppData/Local");
        fs::create_dir_all(&roaming).unwrap();
        fs::create_dir_all(&local).unwrap();
        Self {
            profile,
            roaming,
            local,
        }
    }
}

impl Wine {
    /// A wine tool (`wine`, `wineserver`, `wineboot`) for this prefix, with a clean environment.
    fn tool(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            // wine reads Unix paths and arguments in the locale's encoding: UTF-8, not ASCII.
            .env("LANG", "C.UTF-8")
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "bcryptprimitives=n;mscoree,mshtml=")
            .current_dir(&self.temp);
        cmd
    }

    /// Another Windows program (`exe`, a Unix path) in this prefix, with a clean environment:
    /// megg's unit tests built for Windows.
    pub fn program(&self, exe: &Path) -> Command {
        let mut cmd = self.tool("wine");
        cmd.arg(on_z(exe)).stdin(Stdio::null());
        cmd
    }

    /// megg.exe as `user` runs it: their profile variables set, `HOME` unset (PowerShell and
    /// cmd set none), megg's clock fixed. Add the arguments; `stdin` is null unless set.
    pub fn megg(&self, user: &User) -> Command {
        let mut cmd = self.tool("wine");
        cmd.arg(self.bin.join("with-env.exe"))
            .arg(format!("USERPROFILE={}", on_z(&user.profile)))
            .arg(format!("APPDATA={}", on_z(&user.roaming)))
            .arg(format!("LOCALAPPDATA={}", on_z(&user.local)))
            .arg("-HOME")
            .arg(format!("MEGG_NOW={NOW}"))
            .arg("NO_COLOR=1")
            .arg("GIT_CONFIG_NOSYSTEM=1")
            .arg("--")
            .arg(on_z(&self.exe))
            .stdin(Stdio::null());
        cmd
    }

    /// Holds `file` (a Windows path) open sharing nothing, as an editor or an indexer can,
    /// until the returned [`Held`] is dropped.
    pub fn hold(&self, file: &str) -> Held {
        self.hold_with(&[file])
    }

    /// Holds `file` open sharing only reading: others read it, nobody replaces it.
    pub fn hold_sharing_read(&self, file: &str) -> Held {
        self.hold_with(&[file, "read"])
    }

    fn hold_with(&self, args: &[&str]) -> Held {
        let file = args[0];
        let mut child = self
            .tool("wine")
            .arg(self.bin.join("hold.exe"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        if line.trim() != "held" {
            let out = child.wait_with_output().unwrap();
            panic!(
                "hold.exe could not hold {file}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let stdin = child.stdin.take();
        Held { child, stdin }
    }
}

/// A file held open by `hold.exe`; dropping it lets go and waits for the program to end.
pub struct Held {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"\n");
        }
        let _ = self.child.wait();
    }
}

/// Runs `cmd`, returning its output and how long it took.
pub fn timed(cmd: &mut Command) -> (Output, Duration) {
    let started = Instant::now();
    let out = cmd.output().unwrap();
    (out, started.elapsed())
}
