//! Installing megg the ways its users do (SPEC §15), offline: the artifacts of
//! `cargo xtask dist` for this machine's target, served by a small HTTP server on 127.0.0.1 to
//! `install.sh`, and published to a local npm registry (verdaccio, pinned by
//! `tests/e2e/verdaccio/package-lock.json`) for `npm i -g megg`, `npx megg` and the plugin's
//! SessionStart hook line.
//!
//! The artifacts are `$MEGG_DIST_DIR` when set (CI runs `cargo xtask dist --out target/dist`
//! first), else made once per process by `cargo run --locked -p xtask -- dist --out
//! <target>/e2e-dist`, under `<target>/e2e-dist.lock`. The install tests need only `sh`,
//! curl (or wget), tar and the system's tools; the npm test needs npm and skips with one line
//! without it (under `CI` it fails).
//!
//! Each prints how long it took from nothing to a working `megg --version` (`install.sh: N.NN
//! s`, `npm: N.NN s`), the figures docs/benchmarks.md quotes.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::Git;
use crate::common::provision;

/// megg's version, which `dist` names its artifacts after.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The artifacts of `cargo xtask dist` for this machine.
struct Dist {
    dir: PathBuf,
    /// The Rust target of this machine's release archive.
    target: String,
    /// A shared lock on `<target>/e2e-dist.lock` for the life of the process, so that another
    /// process does not make the directory anew under this one.
    _lock: Option<File>,
}

impl Dist {
    fn archive(&self, ext: &str) -> String {
        format!("megg-{VERSION}-{}.tar.{ext}", self.target)
    }
}

fn dist() -> &'static Dist {
    static DIST: OnceLock<Dist> = OnceLock::new();
    DIST.get_or_init(|| {
        let target = host_target();
        let (dir, lock) = match std::env::var_os("MEGG_DIST_DIR") {
            Some(dir) => {
                let dir = fs::canonicalize(&dir)
                    .unwrap_or_else(|e| panic!("MEGG_DIST_DIR={}: {e}", Path::new(&dir).display()));
                (dir, None)
            }
            None => {
                let (dir, lock) = make_dist();
                (dir, Some(lock))
            }
        };
        let dist = Dist {
            dir,
            target,
            _lock: lock,
        };
        for name in [
            "SHA256SUMS".to_string(),
            "install.sh".to_string(),
            dist.archive("xz"),
            dist.archive("gz"),
            format!("npm/megg-{VERSION}.tgz"),
        ] {
            assert!(
                dist.dir.join(&name).is_file(),
                "{} has no {name}: is it `cargo xtask dist` output for megg {VERSION}?",
                dist.dir.display()
            );
        }
        dist
    })
}

/// The target `dist` builds for by default: this machine's, statically linked on Linux.
fn host_target() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "macos" => format!("{arch}-apple-darwin"),
        _ => format!("{arch}-unknown-linux-musl"),
    }
}

/// Runs `dist` into `<target>/e2e-dist` under an exclusive lock, then holds the lock shared.
fn make_dist() -> (PathBuf, File) {
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    let out = target_dir.join("e2e-dist");
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target_dir.join("e2e-dist.lock"))
        .unwrap();
    lock.lock().unwrap();
    // Anew: dist gathers every archive already in DIR into SHA256SUMS.
    if out.exists() {
        fs::remove_dir_all(&out).unwrap();
    }
    say(&format!(
        "making the release artifacts: cargo xtask dist --out {} (once per test process)",
        out.display()
    ));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut dist = Command::new(cargo);
    dist.args([
        "run", "--locked", "--quiet", "-p", "xtask", "--", "dist", "--out",
    ])
    .arg(&out);
    // What a fresh machine lacks for the static build: rustup's musl target, and a C compiler
    // for it (musl-gcc, else zig from PyPI).
    let target = host_target();
    if found("rustup") {
        let added = Command::new("rustup")
            .args(["target", "add", &target])
            .stdin(Stdio::null())
            .output()
            .expect("rustup runs");
        assert!(
            added.status.success(),
            "rustup target add {target}: {}",
            String::from_utf8_lossy(&added.stderr)
        );
    }
    if !found("musl-gcc")
        && let Some(python) = crate::common::provision::ziglang()
    {
        dist.env("PYTHON", python);
    }
    let made = dist
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("cargo runs");
    assert!(
        made.status.success(),
        "cargo xtask dist --out {} failed:\n{}",
        out.display(),
        String::from_utf8_lossy(&made.stderr)
    );
    lock.unlock().unwrap();
    lock.lock_shared().unwrap();
    (out, lock)
}

/// One line straight to stderr, past the harness's capture, in one write.
fn say(line: &str) {
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// A static file server

/// Serves the files under a directory over HTTP on 127.0.0.1, one request per connection,
/// logging each path asked for; stopped on drop.
struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start(root: &Path) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (root, log, stopped) = (root.to_path_buf(), requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    let _ = serve(&root, stream, &log);
                }
            }
        });
        Self {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The paths asked for so far, in order.
    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port)); // wakes the accept
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(root: &Path, stream: TcpStream, log: &Mutex<Vec<String>>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let mut words = request.split_whitespace();
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or("/"));
    log.lock().unwrap().push(path.to_string());
    let rel = path.trim_start_matches('/');
    let file = (method == "GET" && !rel.split('/').any(|c| c == ".." || c.is_empty()))
        .then(|| fs::read(root.join(rel)).ok())
        .flatten();
    let mut stream = reader.into_inner();
    match file {
        Some(body) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            stream.write_all(&body)?;
        }
        None => write!(
            stream,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\nConnection: close\r\n\r\nnot found\n"
        )?,
    }
    stream.flush()
}

// ---------------------------------------------------------------------------------------------
// install.sh

/// The release, for the install.sh tests: `None` (the test skips, having said why; under `CI`
/// it fails) when neither curl nor wget is here to download it.
fn release() -> Option<&'static Dist> {
    if !found("curl") && !found("wget") {
        provision::skip("install.sh needs curl or wget, neither found on PATH: install curl");
        return None;
    }
    Some(dist())
}

/// Whether `program` is on PATH, as install.sh looks (`command -v`).
fn found(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", r#"command -v "$1""#, "sh", program])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The archive install.sh takes here: `.tar.xz` where it can read it.
fn preferred() -> &'static str {
    if cfg!(target_os = "macos") || found("xz") {
        "xz"
    } else {
        "gz"
    }
}

/// The archive install.sh takes where no `xz` program is found: the `.tar.gz`, but on macOS,
/// whose tar reads xz itself, still the `.tar.xz`.
fn without_xz() -> &'static str {
    if cfg!(target_os = "macos") {
        "xz"
    } else {
        "gz"
    }
}

/// The repository's `install.sh`.
fn install_sh() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("install.sh")
}

/// A private HOME (the default install dir is `$HOME/.local/bin`) and TMPDIR, so a run can
/// be checked for leftovers.
struct Sandbox {
    tmp: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        let sandbox = Self {
            tmp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(sandbox.home()).unwrap();
        fs::create_dir_all(sandbox.tmpdir()).unwrap();
        sandbox
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn home(&self) -> PathBuf {
        self.path("home")
    }

    fn tmpdir(&self) -> PathBuf {
        self.path("tmp")
    }

    /// The default install dir.
    fn bin(&self) -> PathBuf {
        self.home().join(".local/bin")
    }

    /// `sh` running `script` with `base` as MEGG_INSTALL_BASE, PATH `path` and `env` on top.
    fn command(&self, script: &str, base: &str, path: &OsString, env: &[(&str, &Path)]) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script, "sh"])
            .arg(install_sh())
            .env_remove("MEGG_INSTALL_DIR")
            .env_remove("MEGG_VERSION")
            .env("MEGG_INSTALL_BASE", base)
            .env("HOME", self.home())
            .env("TMPDIR", self.tmpdir())
            .env("SHELL", "/bin/bash")
            .env("PATH", path)
            .stdin(Stdio::null());
        for (key, value) in env {
            cmd.env(key, value);
        }
        cmd
    }

    /// Runs the repository's install.sh.
    fn install(&self, base: &str, path: &OsString, env: &[(&str, &Path)]) -> Output {
        self.command(r#"exec sh "$1""#, base, path, env)
            .output()
            .unwrap()
    }

    /// What the run left in TMPDIR: nothing, always.
    fn assert_no_temp_files(&self) {
        assert_eq!(entries(&self.tmpdir()), Vec::<String>::new(), "TMPDIR");
    }
}

fn system_path() -> OsString {
    std::env::var_os("PATH").unwrap_or_default()
}

/// The names in a directory, sorted; none when it does not exist.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A directory of symlinks to every program on PATH except `without`: the PATH of a machine
/// that lacks those programs.
fn path_without(dir: &Path, without: &[&str]) -> OsString {
    fs::create_dir_all(dir).unwrap();
    for entry in std::env::split_paths(&system_path()) {
        let Ok(rd) = fs::read_dir(&entry) else {
            continue;
        };
        for file in rd.flatten() {
            let name = file.file_name();
            let link = dir.join(&name);
            if without.iter().any(|w| name == **w) || link.symlink_metadata().is_ok() {
                continue;
            }
            std::os::unix::fs::symlink(file.path(), link).unwrap();
        }
    }
    dir.as_os_str().to_owned()
}

/// `dir` first on PATH, then the system's.
fn path_with(dir: &Path) -> OsString {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&system_path()));
    std::env::join_paths(dirs).unwrap()
}

fn version_of(megg: &Path) -> String {
    let out = Command::new(megg)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{} does not run: {e}", megg.display()));
    assert!(
        out.status.success(),
        "{} --version: {out:?}",
        megg.display()
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn text(out: &Output) -> String {
    format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_installed(out: &Output, megg: &Path, version: &str) {
    assert!(out.status.success(), "install.sh failed:\n{}", text(out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("megg {version} installed to {}", megg.display())),
        "{}",
        text(out)
    );
    assert_eq!(version_of(megg), format!("megg {version}"));
    assert_eq!(entries(megg.parent().unwrap()), ["megg"], "the install dir");
}

/// A run that failed and said `error:` with `what`, and a `hint:`.
fn assert_refused(out: &Output, what: &str) {
    assert!(
        !out.status.success(),
        "install.sh succeeded:\n{}",
        text(out)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains(what) && stderr.contains("\nhint: "),
        "expected `error: …{what}…` and a hint:\n{}",
        text(out)
    );
}

/// A copy of the release's SHA256SUMS, archives and install.sh in `dir`.
fn copy_release(dist: &Dist, dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    for name in [
        "SHA256SUMS".to_string(),
        "install.sh".to_string(),
        dist.archive("xz"),
        dist.archive("gz"),
    ] {
        fs::copy(dist.dir.join(&name), dir.join(&name)).unwrap();
    }
}

#[test]
fn install_sh_installs_into_home_local_bin_piped_from_curl() {
    let Some(dist) = release() else {
        return;
    };
    assert_eq!(
        fs::read_to_string(dist.dir.join("install.sh")).unwrap(),
        fs::read_to_string(install_sh()).unwrap(),
        "dist's install.sh is not the repository's: make the dist directory again"
    );
    let server = Server::start(&dist.dir);
    let s = Sandbox::new();
    // What README tells users to run, the script read from the server.
    let start = Instant::now();
    let out = s
        .command(
            concat!(
                r#"u="$MEGG_INSTALL_BASE/install.sh"; "#,
                r#"if command -v curl >/dev/null; then curl -fsSL "$u"; "#,
                r#"else wget -qO- "$u"; fi | sh"#
            ),
            &server.base(),
            &system_path(),
            &[],
        )
        .output()
        .unwrap();
    let megg = s.bin().join("megg");
    assert_installed(&out, &megg, VERSION);
    let took = start.elapsed();
    say(&format!("install.sh: {:.2} s", took.as_secs_f64()));
    assert_eq!(
        server.requests(),
        [
            "/install.sh".to_string(),
            "/SHA256SUMS".to_string(),
            format!("/{}", dist.archive(preferred()))
        ],
        "SHA256SUMS first, then the archive"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{} is not on PATH", s.bin().display()))
            && stdout.contains(".bashrc"),
        "{}",
        text(&out)
    );
    assert!(out.stderr.is_empty(), "{}", text(&out));
    s.assert_no_temp_files();
}

#[test]
fn install_sh_takes_the_tar_gz_without_xz_and_says_nothing_about_path_when_on_it() {
    let Some(dist) = release() else {
        return;
    };
    let server = Server::start(&dist.dir);
    let s = Sandbox::new();
    let tools = path_without(
        &s.path("tools"),
        &["xz", "unxz", "xzcat", "lzma", "unlzma", "lzcat"],
    );
    let dir = s.path("bin");
    let mut path = dir.clone().into_os_string();
    path.push(":");
    path.push(&tools);
    let out = s.install(&server.base(), &path, &[("MEGG_INSTALL_DIR", &dir)]);
    assert_installed(&out, &dir.join("megg"), VERSION);
    let format = without_xz();
    assert_eq!(
        server.requests(),
        [
            "/SHA256SUMS".to_string(),
            format!("/{}", dist.archive(format))
        ]
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("PATH"),
        "{}",
        text(&out)
    );
    s.assert_no_temp_files();
}

#[test]
fn install_sh_downloads_with_wget_when_curl_is_missing() {
    if !found("wget") {
        say("skipped install_sh_downloads_with_wget_when_curl_is_missing: no wget on PATH");
        return;
    }
    let Some(dist) = release() else {
        return;
    };
    let server = Server::start(&dist.dir);
    let s = Sandbox::new();
    let path = path_without(&s.path("tools"), &["curl"]);
    let out = s.install(&server.base(), &path, &[]);
    assert_installed(&out, &s.bin().join("megg"), VERSION);
    assert_eq!(server.requests().len(), 2);
    s.assert_no_temp_files();
}

fn executable(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(file, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn install_sh_verifies_with_shasum_or_openssl_without_sha256sum() {
    let Some(dist) = release() else {
        return;
    };
    let server = Server::start(&dist.dir);
    for (tool, without) in [
        ("shasum", &["sha256sum"][..]),
        ("openssl", &["sha256sum", "shasum"][..]),
    ] {
        if !found(tool) {
            say(&format!(
                "skipped part of install_sh_verifies_with_shasum_or_openssl_without_sha256sum: \
                 no {tool} on PATH"
            ));
            continue;
        }
        let s = Sandbox::new();
        let path = path_without(&s.path("tools"), without);
        let out = s.install(&server.base(), &path, &[]);
        assert_installed(&out, &s.bin().join("megg"), VERSION);
        s.assert_no_temp_files();
    }
}

/// A release of a stand-in megg, a script that says it is `version`, with its own SHA256SUMS.
fn fake_release(dist: &Dist, dir: &Path, version: &str) {
    let stage = dir.join("stage");
    let top = format!("megg-{version}-{}", dist.target);
    fs::create_dir_all(stage.join(&top)).unwrap();
    let megg = stage.join(&top).join("megg");
    fs::write(&megg, format!("#!/bin/sh\necho 'megg {version}'\n")).unwrap();
    executable(&megg);
    let mut sums = String::new();
    let formats: &[(&str, &str)] = if found("xz") {
        &[("-cJf", "xz"), ("-czf", "gz")]
    } else {
        &[("-czf", "gz")]
    };
    for (flag, ext) in formats {
        let name = format!("{top}.tar.{ext}");
        let status = Command::new("tar")
            .arg(flag)
            .arg(dir.join(&name))
            .arg(&top)
            .current_dir(&stage)
            .status()
            .unwrap();
        assert!(status.success(), "tar {flag} {name}");
        sums.push_str(&format!(
            "{}  {name}\n",
            sha256_hex(&fs::read(dir.join(&name)).unwrap())
        ));
    }
    fs::write(dir.join("SHA256SUMS"), sums).unwrap();
    fs::remove_dir_all(stage).unwrap();
}

#[test]
fn install_sh_upgrades_in_place() {
    let Some(dist) = release() else {
        return;
    };
    let s = Sandbox::new();
    let megg = s.bin().join("megg");
    let first = Server::start(&dist.dir);
    let out = s.install(&first.base(), &system_path(), &[]);
    assert_installed(&out, &megg, VERSION);
    let before = fs::metadata(&megg).unwrap();

    let newer = s.path("newer");
    fake_release(dist, &newer, "9.9.9");
    let second = Server::start(&newer);
    let out = s.install(&second.base(), &system_path(), &[]);
    assert_installed(&out, &megg, "9.9.9");
    let after = fs::metadata(&megg).unwrap();
    assert_ne!(
        std::os::unix::fs::MetadataExt::ino(&before),
        std::os::unix::fs::MetadataExt::ino(&after),
        "the new binary was renamed over the old one, not written into it"
    );
    s.assert_no_temp_files();
}

/// A mirror (`MEGG_INSTALL_BASE`) holding several versions: `MEGG_VERSION` picks its own, not
/// whichever sorts first (1.10.0 sorts before 1.9.0).
#[test]
fn install_sh_takes_megg_version_from_a_mirror_of_several() {
    let Some(dist) = release() else {
        return;
    };
    let s = Sandbox::new();
    let mirror = s.path("mirror");
    let mut sums = String::new();
    for version in ["1.10.0", "1.9.0"] {
        let one = s.path(version);
        fake_release(dist, &one, version);
        for entry in fs::read_dir(&one).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name() != "SHA256SUMS" {
                fs::create_dir_all(&mirror).unwrap();
                fs::copy(entry.path(), mirror.join(entry.file_name())).unwrap();
            }
        }
        sums.push_str(&fs::read_to_string(one.join("SHA256SUMS")).unwrap());
    }
    fs::write(mirror.join("SHA256SUMS"), sums).unwrap();
    let server = Server::start(&mirror);
    let megg = s.bin().join("megg");
    let out = s.install(
        &server.base(),
        &system_path(),
        &[("MEGG_VERSION", Path::new("1.9.0"))],
    );
    assert_installed(&out, &megg, "1.9.0");
    s.assert_no_temp_files();
}

#[test]
fn install_sh_refuses_a_tampered_archive_and_installs_nothing() {
    let Some(dist) = release() else {
        return;
    };
    let s = Sandbox::new();
    let megg = s.bin().join("megg");
    // Installed first from a stand-in release, so that a run that went through would show.
    let old = s.path("old");
    fake_release(dist, &old, "0.0.1");
    let old_server = Server::start(&old);
    assert_installed(
        &s.install(&old_server.base(), &system_path(), &[]),
        &megg,
        "0.0.1",
    );
    let installed = fs::read(&megg).unwrap();

    // Tampered: well-formed archives under the release's names, holding another `megg`;
    // the release's SHA256SUMS as it was. Only the sum tells them apart.
    let tampered = s.path("tampered");
    fake_release(dist, &tampered, VERSION);
    fs::copy(dist.dir.join("SHA256SUMS"), tampered.join("SHA256SUMS")).unwrap();
    let server = Server::start(&tampered);
    let out = s.install(&server.base(), &system_path(), &[]);
    assert_refused(
        &out,
        &format!("checksum mismatch for {}", dist.archive(preferred())),
    );
    assert_eq!(
        fs::read(&megg).unwrap(),
        installed,
        "the installed megg changed"
    );
    assert_eq!(entries(&s.bin()), ["megg"]);
    s.assert_no_temp_files();

    // Corrupted: the release's archives with one byte changed. Without xz it takes the
    // .tar.gz, into a fresh directory that stays empty.
    let corrupted = s.path("corrupted");
    copy_release(dist, &corrupted);
    for ext in ["xz", "gz"] {
        let archive = corrupted.join(dist.archive(ext));
        let mut bytes = fs::read(&archive).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x55;
        fs::write(&archive, bytes).unwrap();
    }
    let server = Server::start(&corrupted);
    let fresh = s.path("fresh");
    fs::create_dir(&fresh).unwrap();
    let tools = path_without(&s.path("tools"), &["xz"]);
    let out = s.install(&server.base(), &tools, &[("MEGG_INSTALL_DIR", &fresh)]);
    let format = without_xz();
    assert_refused(
        &out,
        &format!("checksum mismatch for {}", dist.archive(format)),
    );
    assert_eq!(entries(&fresh), Vec::<String>::new());
    s.assert_no_temp_files();
}

#[test]
fn install_sh_installs_nothing_on_a_404() {
    let Some(dist) = release() else {
        return;
    };
    let s = Sandbox::new();
    let dir = s.path("never/bin");
    // No release at all.
    let server = Server::start(&dist.dir);
    let base = format!("{}/no/such/release", server.base());
    let out = s.install(&base, &system_path(), &[("MEGG_INSTALL_DIR", &dir)]);
    assert_refused(&out, &format!("could not download {base}/SHA256SUMS"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("404"),
        "{}",
        text(&out)
    );
    assert!(!s.path("never").exists(), "the install dir was made");
    s.assert_no_temp_files();

    // SHA256SUMS, but the archive is gone.
    let partial = s.path("partial");
    copy_release(dist, &partial);
    fs::remove_file(partial.join(dist.archive(preferred()))).unwrap();
    let server = Server::start(&partial);
    let out = s.install(
        &server.base(),
        &system_path(),
        &[("MEGG_INSTALL_DIR", &dir)],
    );
    assert_refused(
        &out,
        &format!(
            "could not download {}/{}",
            server.base(),
            dist.archive(preferred())
        ),
    );
    assert!(!s.path("never").exists(), "the install dir was made");
    s.assert_no_temp_files();

    // A release without this target.
    let other = s.path("other");
    fs::create_dir_all(&other).unwrap();
    fs::write(
        other.join("SHA256SUMS"),
        format!(
            "{}  megg-{VERSION}-riscv64gc-unknown-linux-musl.tar.xz\n",
            "0".repeat(64)
        ),
    )
    .unwrap();
    let server = Server::start(&other);
    let out = s.install(
        &server.base(),
        &system_path(),
        &[("MEGG_INSTALL_DIR", &dir)],
    );
    assert_refused(&out, &format!("has no megg archive for {}", dist.target));
    assert!(!s.path("never").exists(), "the install dir was made");
    s.assert_no_temp_files();
}

/// A directory holding a `uname` that says `os` and `arch`, and a `sysctl` that says
/// `translated` for `sysctl.proc_translated` (Rosetta).
fn fake_platform(dir: &Path, os: &str, arch: &str, translated: &str) -> OsString {
    fs::create_dir_all(dir).unwrap();
    for (name, body) in [
        (
            "uname",
            format!(
                "case \"$1\" in -s) echo '{os}' ;; -m) echo '{arch}' ;; *) echo '{os}' ;; esac"
            ),
        ),
        ("sysctl", format!("echo '{translated}'")),
    ] {
        let file = dir.join(name);
        fs::write(&file, format!("#!/bin/sh\n{body}\n")).unwrap();
        executable(&file);
    }
    path_with(dir)
}

#[test]
fn install_sh_names_an_unknown_platform_and_installs_nothing() {
    let Some(dist) = release() else {
        return;
    };
    let server = Server::start(&dist.dir);
    let s = Sandbox::new();
    for (i, (os, arch, hint)) in [
        ("FreeBSD", "amd64", "cargo install --locked megg"),
        ("Linux", "riscv64", "cargo install --locked megg"),
        ("Darwin", "ppc", "cargo install --locked megg"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = fake_platform(&s.path(&format!("fake{i}")), os, arch, "0");
        let out = s.install(&server.base(), &path, &[]);
        assert_refused(
            &out,
            &format!("megg has no prebuilt binary for {os} {arch}"),
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(hint),
            "{}",
            text(&out)
        );
        assert!(!s.home().join(".local").exists(), "something was installed");
    }
    assert_eq!(
        server.requests(),
        Vec::<String>::new(),
        "nothing was downloaded"
    );
    s.assert_no_temp_files();
}

/// Git Bash, MSYS2 and Cygwin run install.sh on Windows, where megg.exe comes from install.ps1
/// (SPEC §15.1): the error names it, runnable from that very shell, and npm.
#[test]
fn install_sh_on_windows_names_install_ps1_and_npm_and_installs_nothing() {
    let Some(dist) = release() else {
        return;
    };
    let server = Server::start(&dist.dir);
    let s = Sandbox::new();
    for (i, (os, arch)) in [
        ("MINGW64_NT-10.0-19045", "x86_64"),
        ("MSYS_NT-10.0-22631", "x86_64"),
        ("CYGWIN_NT-10.0-26100", "x86_64"),
        ("MINGW64_NT-10.0-26100-ARM64", "aarch64"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = fake_platform(&s.path(&format!("fake{i}")), os, arch, "0");
        let out = s.install(&server.base(), &path, &[]);
        assert_refused(
            &out,
            &format!("install.sh installs megg on Linux and macOS, not on Windows ({os} {arch})"),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        for hint in [
            "powershell -NoProfile -ExecutionPolicy Bypass -Command \"irm \
             https://github.com/megg-dev/megg/releases/latest/download/install.ps1 | iex\"",
            "npm i -g megg",
        ] {
            assert!(stderr.contains(hint), "no `{hint}`:\n{}", text(&out));
        }
        assert!(!stderr.contains("WSL"), "{}", text(&out));
        assert!(!s.home().join(".local").exists(), "something was installed");
    }
    assert_eq!(
        server.requests(),
        Vec::<String>::new(),
        "nothing was downloaded"
    );
    s.assert_no_temp_files();
}

#[test]
fn install_sh_maps_each_supported_platform_to_its_target() {
    let Some(dist) = release() else {
        return;
    };
    let server = Server::start(&dist.dir);
    let s = Sandbox::new();
    for (i, (os, arch, translated, target)) in [
        ("Linux", "x86_64", "0", "x86_64-unknown-linux-musl"),
        ("Linux", "amd64", "0", "x86_64-unknown-linux-musl"),
        ("Linux", "aarch64", "0", "aarch64-unknown-linux-musl"),
        ("Linux", "arm64", "0", "aarch64-unknown-linux-musl"),
        ("Darwin", "x86_64", "0", "x86_64-apple-darwin"),
        ("Darwin", "x86_64", "1", "aarch64-apple-darwin"), // Rosetta
        ("Darwin", "arm64", "0", "aarch64-apple-darwin"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = fake_platform(&s.path(&format!("fake{i}")), os, arch, translated);
        let out = s.install(&server.base(), &path, &[]);
        if target == dist.target {
            assert_installed(&out, &s.bin().join("megg"), VERSION);
            fs::remove_dir_all(s.home().join(".local")).unwrap();
        } else {
            // Only this machine's target is in the local release: the error names the one
            // it looked for.
            assert_refused(&out, &format!("has no megg archive for {target}"));
            assert!(!s.home().join(".local").exists(), "something was installed");
        }
    }
    s.assert_no_temp_files();
}

#[test]
fn install_sh_says_which_tool_is_missing_and_installs_nothing() {
    let Some(dist) = release() else {
        return;
    };
    let server = Server::start(&dist.dir);
    let s = Sandbox::new();
    let path = path_without(&s.path("no-download"), &["curl", "wget"]);
    let out = s.install(&server.base(), &path, &[]);
    assert_refused(&out, "neither curl nor wget is installed");
    let path = path_without(&s.path("no-sha"), &["sha256sum", "shasum", "openssl"]);
    let out = s.install(&server.base(), &path, &[]);
    assert_refused(&out, "no SHA-256 tool found");
    assert!(!s.home().join(".local").exists(), "something was installed");
    assert_eq!(
        server.requests(),
        Vec::<String>::new(),
        "nothing was downloaded"
    );
    s.assert_no_temp_files();
}

// ---------------------------------------------------------------------------------------------
// npm

/// verdaccio on a free local port with no uplinks (nothing leaves the machine), storage in
/// `dir`; killed on drop.
struct Registry {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Registry {
    fn start(verdaccio: &Path, dir: &Path) -> Self {
        fs::create_dir_all(dir).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = dir.join("config.yaml");
        fs::write(
            &config,
            format!(
                "storage: {storage}\n\
                 auth:\n  htpasswd:\n    file: {htpasswd}\n    max_users: 10\n\
                 uplinks: {{}}\n\
                 packages:\n  '**':\n    access: $all\n    publish: $authenticated\n\
                 max_body_size: 100mb\n\
                 listen: 127.0.0.1:{port}\n\
                 log: {{ type: stdout, format: pretty, level: warn }}\n",
                storage = dir.join("storage").display(),
                htpasswd = dir.join("htpasswd").display(),
            ),
        )
        .unwrap();
        let log = File::create(dir.join("verdaccio.log")).unwrap();
        let child = Command::new(verdaccio)
            .arg("--config")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("verdaccio runs");
        let mut registry = Self {
            child,
            port,
            dir: dir.to_path_buf(),
        };
        let start = Instant::now();
        while http(port, "GET", "/-/ping", None).is_none_or(|(status, _)| status != 200) {
            if let Some(status) = registry.child.try_wait().unwrap() {
                panic!("verdaccio exited ({status}):\n{}", registry.log());
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "verdaccio did not answer within 60 s:\n{}",
                registry.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        registry
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir.join("verdaccio.log")).unwrap_or_default()
    }

    /// Creates a user (what `npm adduser` does) and returns its token.
    fn add_user(&self) -> String {
        let body = r#"{"name":"megg","password":"megg-e2e-password"}"#;
        let (status, reply) = http(
            self.port,
            "PUT",
            "/-/user/org.couchdb.user:megg",
            Some(body),
        )
        .expect("verdaccio answers");
        assert_eq!(status, 201, "adding a user: {reply}");
        let json = &reply[reply.find('{').unwrap()..=reply.rfind('}').unwrap()];
        let json: Value = serde_json::from_str(json).unwrap();
        json["token"].as_str().unwrap().to_string()
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request to 127.0.0.1:`port`: the status and the raw body, `None` when
/// nothing answers.
fn http(port: u16, method: &str, path: &str, body: Option<&str>) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let body = body.unwrap_or("");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply).ok()?;
    let status = reply.split_whitespace().nth(1)?.parse().ok()?;
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Some((status, body.to_string()))
}

/// npm and npx, with a private HOME, user config and cache, against the local registry only.
struct Npm {
    home: PathBuf,
    npmrc: PathBuf,
    cache: PathBuf,
    registry: String,
}

impl Npm {
    fn command(&self, program: &str, dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        clean_env(&mut cmd);
        cmd.current_dir(dir)
            .env("HOME", &self.home)
            .env("npm_config_userconfig", &self.npmrc)
            .env("npm_config_globalconfig", self.home.join("no-global-npmrc"))
            .env("npm_config_cache", &self.cache)
            .env("npm_config_registry", &self.registry)
            .env("npm_config_update_notifier", "false")
            .env("npm_config_audit", "false")
            .env("npm_config_fund", "false")
            .env("npm_config_loglevel", "error")
            .stdin(Stdio::null());
        cmd
    }

    fn ok(&self, dir: &Path, args: &[&str]) -> Output {
        let out = self.command("npm", dir).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "npm {}:\n{}",
            args.join(" "),
            text(&out)
        );
        out
    }
}

/// Leaves out the user's settings that would change what npm, git or megg do.
fn clean_env(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.to_lowercase().starts_with("npm_")
            || key.starts_with("MEGG_")
            || key.starts_with("GIT_")
            || key.starts_with("XDG_")
            || ["CLAUDE_CONFIG_DIR", "PWD", "NODE_OPTIONS", "NODE_PATH"].contains(&&*key)
        {
            cmd.env_remove(&*key);
        }
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1").env("NO_COLOR", "1");
}

/// The system PATH without the directories that hold a `megg`, after `first`.
fn path_for_megg(first: &Path) -> OsString {
    let mut dirs = vec![first.to_path_buf()];
    dirs.extend(std::env::split_paths(&system_path()).filter(|d| !d.join("megg").exists()));
    std::env::join_paths(dirs).unwrap()
}

/// A git repository at `dir` holding `.megg/info.md` titled `title`.
fn megg_project(dir: &Path, title: &str) {
    fs::create_dir_all(dir.join(".megg")).unwrap();
    Git::init(dir, "main");
    fs::write(
        dir.join(".megg/info.md"),
        format!(
            "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n\
             ---\n\n# {title}\n\n## Context\nAbout {title}.\n"
        ),
    )
    .unwrap();
    fs::write(dir.join(".gitignore"), "node_modules/\n").unwrap();
    fs::write(
        dir.join("package.json"),
        r#"{"name": "shop", "version": "1.0.0", "private": true}"#,
    )
    .unwrap();
}

fn stdout_json(out: &Output, what: &str) -> Value {
    assert!(out.status.success(), "{what}:\n{}", text(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no single JSON document ({e}):\n{}",
            text(out)
        )
    })
}

#[test]
fn npm_installs_megg_from_a_local_registry() {
    let Some(verdaccio) = provision::verdaccio() else {
        return;
    };
    let dist = dist();
    let tmp = tempfile::tempdir().unwrap();
    let registry = Registry::start(verdaccio, &tmp.path().join("registry"));
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let npmrc = tmp.path().join("npmrc");
    let token = registry.add_user();
    fs::write(
        &npmrc,
        format!("//127.0.0.1:{}/:_authToken={token}\n", registry.port),
    )
    .unwrap();
    let npm = Npm {
        home,
        npmrc,
        cache: tmp.path().join("publish-cache"),
        registry: registry.url(),
    };

    // This version's packages: the platform ones first, then `megg`, which names them.
    let mut tarballs: Vec<PathBuf> = fs::read_dir(dist.dir.join("npm"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(&format!("-{VERSION}.tgz")))
        })
        .collect();
    tarballs.sort_by_key(|p| p.ends_with(format!("megg-{VERSION}.tgz")));
    assert!(tarballs.len() >= 2, "dist's npm/ holds {tarballs:?}");
    for tgz in &tarballs {
        npm.ok(tmp.path(), &["publish", tgz.to_str().unwrap()]);
    }

    // npm i -g, from an empty cache into an empty prefix.
    let npm = Npm {
        cache: tmp.path().join("cache"),
        ..npm
    };
    let prefix = tmp.path().join("global");
    let start = Instant::now();
    npm.ok(
        tmp.path(),
        &["i", "-g", "megg", "--prefix", prefix.to_str().unwrap()],
    );
    assert_eq!(
        version_of(&prefix.join("bin/megg")),
        format!("megg {VERSION}")
    );
    let took = start.elapsed();
    say(&format!("npm: {:.2} s", took.as_secs_f64()));

    // npx megg context --json, TypeScript megg's hook line, in a project that depends on megg.
    let project = tmp.path().join("work/shop");
    megg_project(&project, "Shop");
    npm.ok(&project, &["i", "megg"]);
    let out = npm
        .command("npx", &project)
        .args(["megg", "context", "--json"])
        .env("PATH", path_for_megg(&project.join("node_modules/.bin")))
        .output()
        .unwrap();
    let context = stdout_json(&out, "npx megg context --json");
    let additional = context["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no additionalContext in {context}"));
    assert!(additional.contains("# Shop"), "{context}");

    // The plugin's SessionStart hook line, megg from the global install on PATH.
    let hooks: Value = serde_json::from_str(
        &fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/hooks.json"))
            .unwrap(),
    )
    .unwrap();
    let line = hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let out = npm
        .command("sh", &project)
        .args(["-c", line])
        .env("PATH", path_for_megg(&prefix.join("bin")))
        .output()
        .unwrap();
    let hook = stdout_json(&out, "the SessionStart hook line");
    assert!(
        hook["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.contains("# Shop")),
        "{hook}"
    );

    // A platform with no package (here: optional dependencies left out) says so, exit 1.
    let bare = tmp.path().join("work/bare");
    megg_project(&bare, "Bare");
    npm.ok(&bare, &["i", "megg", "--omit=optional"]);
    assert!(
        !bare
            .join("node_modules")
            .join(format!("megg-{}-{}", node_os(), node_arch()))
            .exists(),
        "--omit=optional installed the platform package"
    );
    let out = Command::new(bare.join("node_modules/.bin/megg"))
        .arg("--version")
        .env("PATH", system_path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stderr.contains("error: megg has no prebuilt binary installed for")
            && stderr.contains("hint:"),
        "{}",
        text(&out)
    );
    drop(registry);
}

/// Node's name for this OS (`process.platform`).
fn node_os() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        os => os,
    }
}

/// Node's name for this architecture (`process.arch`).
fn node_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        arch => arch,
    }
}
