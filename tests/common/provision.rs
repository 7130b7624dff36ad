//! The outside tools some tests need, each pinned, installed by the tests themselves on first
//! use so that README's test command works on a fresh clone:
//!
//! | tool | pin | installed into the cargo target directory |
//! |---|---|---|
//! | Claude Code (e2e) | `@anthropic-ai/claude-code@`[`CLAUDE_VERSION`] from npm | `claude-code/` |
//! | Codex CLI (e2e) | [`CODEX`] from npm | `codex/` |
//! | Gemini CLI (e2e) | [`GEMINI`] from npm | `gemini/` |
//! | Copilot CLI (e2e) | [`COPILOT`] from npm | `copilot/` |
//! | the MCP Python SDK | [`MCP_PYTHON`] with pip | a venv, `mcp-venv/` |
//! | zig (`install` e2e, when `MEGG_DIST_DIR` is unset and `musl-gcc` is missing) | [`ZIGLANG`] with pip | a venv, `zig-venv/` |
//! | the MCP TypeScript SDK | `tests/mcp/ts/package-lock.json`, `npm ci` | `mcp-ts/` |
//! | verdaccio, a local npm registry (e2e) | `tests/e2e/verdaccio/package-lock.json`, `npm ci` | `verdaccio/` |
//!
//! Each is installed once per target directory: under a file lock (`<target>/<dir>.lock`), so
//! parallel test threads and parallel test binaries install it once; into an emptied directory
//! whose stamp (`.provisioned`, holding the pin) is written last, so an install that was killed
//! or whose pin changed is redone rather than taken for complete. npm and pip share one package
//! cache, `<target>/cache/`: every test and every install use it, and `cargo clean` removes it
//! with the rest.
//!
//! When the package manager itself is missing (no `npm`, no `python3` or no venv support) or
//! the install fails (the registry cannot be reached), a test that needs the tool prints one
//! line saying what is missing and how to get it, and returns — unless `CI` is set, where it
//! fails with that line. Each outcome is decided once per process. tmux, which only the
//! system's package manager can install, is checked the same way.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The Claude Code release the end-to-end tests are written against.
pub const CLAUDE_VERSION: &str = "2.1.332";
/// zig, from PyPI, for the static musl release build when `musl-gcc` is missing (the `install`
/// e2e tests, when `MEGG_DIST_DIR` is unset).
pub const ZIGLANG: &str = "ziglang==0.17.1";
/// The MCP Python SDK the Python client (`tests/mcp/client.py`) is written against.
pub const MCP_PYTHON: &str = "mcp==2.3.0";

/// An agent CLI from npm, pinned (SPEC §12).
pub struct Cli {
    /// The directory under the target directory it is installed into.
    pub dir: &'static str,
    pub package: &'static str,
    pub version: &'static str,
    /// Its program under `node_modules/.bin/`.
    pub bin: &'static str,
    /// What the tests call it.
    pub name: &'static str,
    /// The variable that points the tests at a binary of that version instead.
    pub env: &'static str,
}

pub const CODEX: Cli = Cli {
    dir: "codex",
    package: "@openai/codex",
    version: "0.171.0",
    bin: "codex",
    name: "Codex CLI",
    env: "MEGG_E2E_CODEX",
};
pub const GEMINI: Cli = Cli {
    dir: "gemini",
    package: "@google/gemini-cli",
    version: "0.61.0",
    bin: "gemini",
    name: "Gemini CLI",
    env: "MEGG_E2E_GEMINI",
};
pub const COPILOT: Cli = Cli {
    dir: "copilot",
    package: "@github/copilot",
    version: "1.0.102",
    bin: "copilot",
    name: "Copilot CLI",
    env: "MEGG_E2E_COPILOT",
};

/// The file, inside an installed directory, whose content is the pin it was installed for.
const STAMP: &str = ".provisioned";

/// Where a tool stands, decided once per process.
enum Outcome {
    /// Installed (or already there): the path the tests use.
    Ready(PathBuf),
    /// The package manager is missing or the install failed: one line naming what is missing
    /// and how to get it. Tests skip, or fail under CI.
    Missing(String),
    /// Installed but not what it should be (a wrong version, say): tests fail everywhere.
    Broken(String),
}

use Outcome::{Broken, Missing, Ready};

/// A package manager: the program, and what to say when it is not there.
struct Manager {
    program: &'static str,
    missing: String,
}

impl Manager {
    /// npm, needed for `what`; `or` names another way to get it, if any.
    fn npm(what: &str, or: &str) -> Self {
        Self {
            program: "npm",
            missing: format!(
                "{what} needs npm, not found on PATH: install Node.js with npm \
                 (apt-get install npm, or https://nodejs.org){}",
                also(or)
            ),
        }
    }

    fn python3() -> Self {
        Self {
            program: "python3",
            missing: "python3 not found on PATH: install Python 3 \
                      (apt-get install python3 python3-venv, or https://www.python.org)"
                .to_string(),
        }
    }

    /// Whether the program runs (`--version`).
    fn found(&self) -> bool {
        Command::new(self.program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|out| out.status.success())
    }
}

/// Claude Code's binary: `$MEGG_E2E_CLAUDE` when set (it must be [`CLAUDE_VERSION`]), else
/// the pinned release installed from npm into `<target>/claude-code`. `None`: the test skips.
pub fn claude_code() -> Option<&'static Path> {
    static CLAUDE: OnceLock<Outcome> = OnceLock::new();
    ready(CLAUDE.get_or_init(|| {
        if let Some(path) = std::env::var_os("MEGG_E2E_CLAUDE") {
            return claude_version(PathBuf::from(path), "MEGG_E2E_CLAUDE");
        }
        let package = format!("@anthropic-ai/claude-code@{CLAUDE_VERSION}");
        let what = format!("Claude Code {CLAUDE_VERSION}");
        let or = "or point MEGG_E2E_CLAUDE at a claude binary of that version";
        let npm = Manager::npm(&what, or);
        let installed = once("claude-code", &package, &what, &npm, |dir| {
            let prefix = dir.to_str().unwrap();
            run_npm(&what, or, dir, &["install", "--prefix", prefix, &package])
        });
        match installed {
            Ready(dir) => claude_version(dir.join("node_modules/.bin/claude"), "the install"),
            other => other,
        }
    }))
}

/// `cli`'s program: `$<cli.env>` when set (it must be the pinned version), else the pinned
/// release installed from npm into `<target>/<cli.dir>`. `None`: the test skips.
pub fn agent_cli(cli: &'static Cli) -> Option<&'static Path> {
    static CODEX_CLI: OnceLock<Outcome> = OnceLock::new();
    static GEMINI_CLI: OnceLock<Outcome> = OnceLock::new();
    static COPILOT_CLI: OnceLock<Outcome> = OnceLock::new();
    let cell = match cli.dir {
        "codex" => &CODEX_CLI,
        "gemini" => &GEMINI_CLI,
        _ => &COPILOT_CLI,
    };
    ready(cell.get_or_init(|| {
        if let Some(path) = std::env::var_os(cli.env) {
            return cli_version(cli, PathBuf::from(path), cli.env);
        }
        let package = format!("{}@{}", cli.package, cli.version);
        let what = format!("{} {}", cli.name, cli.version);
        let or = format!(
            "or point {} at a {} binary of that version",
            cli.env, cli.bin
        );
        let npm = Manager::npm(&what, &or);
        let installed = once(cli.dir, &package, &what, &npm, |dir| {
            let prefix = dir.to_str().unwrap();
            run_npm(&what, &or, dir, &["install", "--prefix", prefix, &package])
        });
        match installed {
            Ready(dir) => cli_version(
                cli,
                dir.join("node_modules/.bin").join(cli.bin),
                "the install",
            ),
            other => other,
        }
    }))
}

/// Runs `<cli> --version` and checks it names the pinned release.
fn cli_version(cli: &Cli, path: PathBuf, from: &str) -> Outcome {
    let out = Command::new(&path)
        .arg("--version")
        .env("COPILOT_AUTO_UPDATE", "false")
        .env("COPILOT_OFFLINE", "true")
        .env("COPILOT_PKG_CACHE_HOME", copilot_pkg_cache())
        .stdin(Stdio::null())
        .output();
    let version = match out {
        Ok(out) => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Err(e) => {
            return Broken(format!(
                "{} (from {from}) does not run: {e}",
                path.display()
            ));
        }
    };
    let words = version.split(|c: char| c.is_whitespace() || c == 'v');
    if words
        .clone()
        .any(|w| w.trim_end_matches('.') == cli.version)
    {
        Ready(path)
    } else {
        Broken(format!(
            "{} (from {from}) says {version:?}; these tests pin {} {}",
            path.display(),
            cli.name,
            cli.version
        ))
    }
}

/// Runs `claude --version` and checks it is the pinned release.
fn claude_version(path: PathBuf, from: &str) -> Outcome {
    let out = Command::new(&path)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null())
        .output();
    let version = match out {
        Ok(out) => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Err(e) => {
            return Broken(format!(
                "{} (from {from}) does not run: {e}",
                path.display()
            ));
        }
    };
    if version.split_whitespace().next() == Some(CLAUDE_VERSION) {
        Ready(path)
    } else {
        Broken(format!(
            "{} (from {from}) is Claude Code {version:?}; these tests pin {CLAUDE_VERSION}",
            path.display()
        ))
    }
}

/// `python3` on PATH, which runs the mock Anthropic API (standard library only).
pub fn python3() -> Option<&'static Path> {
    static PYTHON: OnceLock<Outcome> = OnceLock::new();
    ready(PYTHON.get_or_init(|| {
        let python = Manager::python3();
        if python.found() {
            Ready(PathBuf::from(python.program))
        } else {
            Missing(python.missing)
        }
    }))
}

/// The Python of a venv, `<target>/mcp-venv`, holding the pinned MCP Python SDK.
pub fn mcp_python() -> Option<&'static Path> {
    static VENV: OnceLock<Outcome> = OnceLock::new();
    ready(VENV.get_or_init(|| {
        let what = format!("the MCP Python SDK ({MCP_PYTHON})");
        python_venv("mcp-venv", MCP_PYTHON, &what)
    }))
}

/// The zig C compiler `cargo xtask dist` builds the static musl release's C code with when
/// `musl-gcc` is missing: PyPI's `ziglang` ([`ZIGLANG`]) in a venv, `<target>/zig-venv`; the
/// venv's python (dist runs `$PYTHON -m ziglang`).
pub fn ziglang() -> Option<&'static Path> {
    static VENV: OnceLock<Outcome> = OnceLock::new();
    ready(VENV.get_or_init(|| {
        let what = format!("zig, a C compiler for the musl release build ({ZIGLANG})");
        python_venv("zig-venv", ZIGLANG, &what)
    }))
}

/// A venv `<target>/<dir>` holding the pip requirement `pin`, installed once; its python.
fn python_venv(dir: &str, pin: &str, what: &str) -> Outcome {
    let installed = once(dir, pin, what, &Manager::python3(), |dir| {
        let venv = Command::new("python3")
            .args(["-m", "venv"])
            .arg(dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Broken(format!("python3 -m venv does not run: {e}")))?;
        if !venv.status.success() {
            return Err(Missing(format!(
                "python3 cannot create a venv ({}): install venv support \
                 (apt-get install python3-venv)",
                error_line(&venv)
            )));
        }
        let pip = Command::new(dir.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg(pin)
            .env("PIP_CACHE_DIR", cache("pip"))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Broken(format!("the venv's python does not run: {e}")))?;
        if !pip.status.success() {
            return Err(Missing(format!(
                "`pip install {pin}` failed ({}): check that pypi.org is reachable",
                error_line(&pip)
            )));
        }
        Ok(())
    });
    match installed {
        Ready(dir) => Ready(dir.join("bin/python")),
        other => other,
    }
}

/// A directory holding `tests/mcp/ts`'s client next to the dependencies its
/// `package-lock.json` pins, installed with `npm ci` into `<target>/mcp-ts`.
pub fn mcp_typescript() -> Option<&'static Path> {
    static TS: OnceLock<Outcome> = OnceLock::new();
    ready(TS.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/ts");
        let lock = fs::read(source.join("package-lock.json")).unwrap();
        let pin = format!(
            "package-lock.json {:016x}",
            xxhash_rust::xxh3::xxh3_64(&lock)
        );
        let what = "the MCP TypeScript SDK (tests/mcp/ts/package-lock.json)";
        let installed = once("mcp-ts", &pin, what, &Manager::npm(what, ""), |dir| {
            for file in ["package.json", "package-lock.json"] {
                fs::copy(source.join(file), dir.join(file)).unwrap();
            }
            run_npm(what, "", dir, &["ci"])
        });
        let Ready(dir) = installed else {
            return installed;
        };
        // The client is copied on every run (so edits to it count), atomically, beside the
        // modules it imports: Node resolves an ES module's imports from its own directory.
        let tmp = dir.join(format!("client.mjs.{}.tmp", std::process::id()));
        fs::copy(source.join("client.mjs"), &tmp).unwrap();
        fs::rename(&tmp, dir.join("client.mjs")).unwrap();
        Ready(dir)
    }))
}

/// verdaccio, the local npm registry the install tests publish megg's npm packages to (SPEC
/// §15), as `tests/e2e/verdaccio/package-lock.json` pins it, installed with `npm ci` into
/// `<target>/verdaccio`: the path of its program.
pub fn verdaccio() -> Option<&'static Path> {
    static VERDACCIO: OnceLock<Outcome> = OnceLock::new();
    ready(VERDACCIO.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/verdaccio");
        let mut pinned = fs::read(source.join("package.json")).unwrap();
        pinned.extend(fs::read(source.join("package-lock.json")).unwrap());
        let pin = format!(
            "package.json + package-lock.json {:016x}",
            xxhash_rust::xxh3::xxh3_64(&pinned)
        );
        let what = "verdaccio (tests/e2e/verdaccio/package-lock.json)";
        let installed = once("verdaccio", &pin, what, &Manager::npm(what, ""), |dir| {
            for file in ["package.json", "package-lock.json"] {
                fs::copy(source.join(file), dir.join(file)).unwrap();
            }
            run_npm(what, "", dir, &["ci"])
        });
        match installed {
            Ready(dir) => Ready(dir.join("node_modules/.bin/verdaccio")),
            other => other,
        }
    }))
}

/// tmux, for the pseudo-terminal tests. Only the system's package manager installs it (as
/// root), so the tests never try.
pub fn tmux() -> Option<&'static Path> {
    static TMUX: OnceLock<Outcome> = OnceLock::new();
    ready(TMUX.get_or_init(|| {
        let found = Command::new("tmux")
            .arg("-V")
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|out| out.status.success());
        if found {
            Ready(PathBuf::from("tmux"))
        } else {
            Missing(
                "tmux not found on PATH: install it (apt-get install tmux, or brew install tmux)"
                    .to_string(),
            )
        }
    }))
}

/// Whether `CI` is set: non-empty and neither `false` nor `0`.
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A test that cannot run here says why on one line and returns; under CI it fails instead.
pub fn skip(why: &str) {
    assert!(!ci(), "{why} (CI is set, so a missing tool fails the test)");
    let test = std::thread::current();
    say(&format!(
        "skipped {}: {why}",
        test.name().unwrap_or("a test")
    ));
}

/// One line straight to stderr, past the test harness's capture (so it shows in a normal run),
/// in one write (so it does not interleave with the harness's own lines).
fn say(line: &str) {
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

fn ready(outcome: &'static Outcome) -> Option<&'static Path> {
    match outcome {
        Ready(path) => Some(path),
        Missing(why) => {
            skip(why);
            None
        }
        Broken(why) => panic!("{why}"),
    }
}

/// Where Copilot CLI unpacks its JavaScript (`COPILOT_PKG_CACHE_HOME`), shared by every run:
/// else each HOME gets its own 235 MB copy. The version check above unpacks it, once per
/// process, before any test runs Copilot.
pub fn copilot_pkg_cache() -> PathBuf {
    target_dir().join("copilot-pkg-cache")
}

/// The cargo target directory (`CARGO_TARGET_TMPDIR` is its `tmp/`).
fn target_dir() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap()
}

/// The one package cache, per package manager, that every install shares.
fn cache(manager: &str) -> PathBuf {
    target_dir().join("cache").join(manager)
}

/// `<target>/<name>`, installed for `pin`: at once when its stamp says so; [`Missing`] when
/// `manager` is; otherwise, under `<target>/<name>.lock`, emptied, filled by `install`, and
/// stamped last.
fn once(
    name: &str,
    pin: &str,
    what: &str,
    manager: &Manager,
    install: impl FnOnce(&Path) -> Result<(), Outcome>,
) -> Outcome {
    let dir = target_dir().join(name);
    let stamp = dir.join(STAMP);
    let stamped = || fs::read_to_string(&stamp).is_ok_and(|s| s == pin);
    if stamped() {
        return Ready(dir);
    }
    if !manager.found() {
        return Missing(manager.missing.clone());
    }
    fs::create_dir_all(target_dir()).unwrap();
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target_dir().join(format!("{name}.lock")))
        .unwrap();
    lock.lock().unwrap(); // released when `lock` is dropped, or the process dies
    if stamped() {
        return Ready(dir); // another test binary installed it while this one waited
    }
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();
    say(&format!(
        "installing {what} into {} (once per target directory)",
        dir.display()
    ));
    if let Err(outcome) = install(&dir) {
        return outcome;
    }
    let tmp = dir.join(format!("{STAMP}.tmp"));
    fs::write(&tmp, pin).unwrap();
    fs::rename(&tmp, &stamp).unwrap();
    Ready(dir)
}

/// Runs `npm args…` in `dir` with the shared cache; a failed install is [`Missing`] (the
/// registry is out of reach, most likely), naming `what` and `or` another way to get it.
fn run_npm(what: &str, or: &str, dir: &Path, args: &[&str]) -> Result<(), Outcome> {
    let out = Command::new("npm")
        .args(args)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir)
        .env("npm_config_cache", cache("npm"))
        .env("npm_config_update_notifier", "false")
        .stdin(Stdio::null())
        .output()
        .map_err(|_| Missing(Manager::npm(what, or).missing))?;
    if out.status.success() {
        return Ok(());
    }
    Err(Missing(format!(
        "`npm {}` for {what} failed ({}): check that registry.npmjs.org is reachable{}",
        args[0],
        error_line(&out),
        also(or)
    )))
}

/// `; or …` when there is another way.
fn also(or: &str) -> String {
    if or.is_empty() {
        String::new()
    } else {
        format!("; {or}")
    }
}

/// The line of a failed command's output that says most: its first error line (npm's error
/// code, pip's `ERROR:`), else its last line.
fn error_line(out: &Output) -> String {
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .find(|l| l.to_lowercase().contains("err") && !l.contains("complete log"))
        .or(lines.last())
        .map_or_else(
            || format!("exit {}", out.status),
            |l| l.chars().take(200).collect(),
        )
}
