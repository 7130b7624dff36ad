//! megg.exe under wine (SPEC §15.1): the release `x86_64-pc-windows-gnu` build, run the way a
//! Windows user runs it — paths with spaces, non-ASCII and drive letters, CRLF files, no `HOME`,
//! `;`-separated ceilings, two writers at once, a file another program holds open, the
//! SessionStart hook. What wine cannot prove (ACLs and owner SIDs, long paths, the MSVC build,
//! antivirus timing) the release workflow proves on native Windows (docs/development.md).
//!
//! The binary is `$MEGG_WINDOWS_EXE`, else `<target>/x86_64-pc-windows-gnu/release/megg.exe`
//! (`.ci/run` builds it). Without it, wine or mingw-w64 each test says so on one line and
//! returns — unless `CI` is set, where it fails. It is built on x86_64 Linux only, where wine
//! runs an x86_64 `megg.exe`; elsewhere it is empty (native Windows runs the other binaries).

#![cfg(all(target_os = "linux", target_arch = "x86_64"))]
#![allow(clippy::disallowed_methods)]
// tests build their fixtures with std::fs
// SPEC §16's panic lints guard megg's own code from its input; a test panicking is how it fails.
#![allow(
    clippy::string_slice,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]

#[path = "common/mod.rs"]
mod common;
#[path = "windows/wine.rs"]
mod wine;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use wine::{User, Wine, on_drive, on_z, timed};

/// A test's tree in the temp directory, with a Windows user of its own.
struct Case {
    tmp: tempfile::TempDir,
    user: User,
}

impl Case {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let user = User::under(tmp.path());
        Self { tmp, user }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, content).unwrap();
        p
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Exit 0, returning stdout.
fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        text(&out.stderr),
        text(&out.stdout)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not one JSON document ({e}): {stdout}"))
}

/// megg.exe run with `-C dir` (a Windows path) and `args`.
fn megg_in(w: &Wine, case: &Case, dir: &str, args: &[&str]) -> Command {
    let mut cmd = w.megg(&case.user);
    cmd.arg("-C").arg(dir).args(args);
    cmd
}

/// The SessionStart hook's input as Claude Code sends it on Windows.
fn hook_input(session: &str, cwd: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "transcript_path": format!("{cwd}\\transcript-{session}.jsonl"),
        "cwd": cwd,
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
    .to_string()
}

/// Runs `megg.exe context --json` as the SessionStart hook in `dir` (a Linux path; the hook's
/// working directory, as the host starts it) with `input` on stdin.
fn run_hook(w: &Wine, case: &Case, dir: &Path, input: &str) -> (Output, Duration) {
    let mut cmd = w.megg(&case.user);
    cmd.args(["context", "--json"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = std::time::Instant::now();
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (out, started.elapsed())
}

/// The hook's contract: exit 0 and exactly one JSON document on stdout.
fn hook_document(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v = json(&text(&out.stdout));
    assert_eq!(
        v["hookSpecificOutput"]["hookEventName"], "SessionStart",
        "{v}"
    );
    v
}

fn additional_context(v: &Value) -> &str {
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no additionalContext: {v}"))
}

#[test]
fn version_runs() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    let out = ok(w.megg(&case.user).arg("--version"));
    assert_eq!(out.trim(), format!("megg {}", env!("CARGO_PKG_VERSION")));
}

/// init, learn and context in a project whose path has spaces and non-ASCII, reached through
/// `Z:` (which maps `/`) and through a drive letter of its own.
#[test]
fn a_project_under_spaces_and_non_ascii_through_z_and_a_drive_letter() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    let loja = case.path("Projetos Ação/loja");
    fs::create_dir_all(&loja).unwrap();
    for (dir, title) in [(on_z(&loja), "Via Z"), (on_drive(&loja), "Via T")] {
        let _ = fs::remove_dir_all(loja.join(".megg"));
        let init = json(&ok(&mut megg_in(w, &case, &dir, &["init", "--json"])));
        let info = init["path"].as_str().unwrap_or_else(|| panic!("{init}"));
        assert_eq!(info, format!("{dir}\\.megg\\info.md"), "{init}");
        assert!(loja.join(".megg/info.md").is_file());

        let learned = json(&ok(&mut megg_in(
            w,
            &case,
            &dir,
            &[
                "learn",
                title,
                "fact",
                "paths",
                "Ação: a path with spaces.",
                "--json",
            ],
        )));
        assert_eq!(
            learned["path"],
            format!("{dir}\\.megg\\knowledge.md"),
            "{learned}"
        );

        let ctx = json(&ok(&mut megg_in(
            w,
            &case,
            &dir,
            &["context", "--format", "json"],
        )));
        let knowledge = ctx["knowledge"]["content"].as_str().unwrap_or_default();
        assert!(
            knowledge.contains(title) && knowledge.contains("Ação: a path with spaces."),
            "{ctx}"
        );
        let printed = ctx.to_string();
        assert!(
            !printed.contains(r"\\\\?\\"),
            "a verbatim path printed: {printed}"
        );
    }
}

/// Git for Windows checks text out with CRLF: the hook's context carries the text, not the `\r`.
#[test]
fn a_crlf_info_md_reaches_the_hook_without_carriage_returns() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    let loja = case.path("loja");
    case.write(
        "loja/.megg/info.md",
        "---\r\ncreated: 2026-11-01T00:00:00Z\r\nupdated: 2026-11-01T00:00:00Z\r\ntype: context\r\n---\r\n\r\n# Loja\r\n\r\nA loja online.\r\n",
    );
    let (out, _) = run_hook(w, &case, &loja, &hook_input("crlf", &on_z(&loja)));
    let v = hook_document(&out);
    let context = additional_context(&v);
    assert!(
        context.contains("# Loja\n\nA loja online.\n"),
        "{context:?}"
    );
    assert!(!out.stdout.contains(&b'\r'), "{}", text(&out.stdout));
    assert!(
        !v.to_string().contains("\\r"),
        "a \\r reached the hook: {v}"
    );
}

/// No `HOME` (PowerShell sets none): the config goes under `%APPDATA%\megg`, the cache under
/// `%LOCALAPPDATA%\megg`, nothing into the profile's Unix-style dot directories.
#[test]
fn without_home_config_and_cache_land_under_appdata_and_localappdata() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    let loja = case.path("loja");
    fs::create_dir_all(&loja).unwrap();
    let dir = on_z(&loja);
    ok(&mut megg_in(w, &case, &dir, &["init"]));
    ok(&mut megg_in(w, &case, &dir, &["trust", &dir]));
    ok(&mut megg_in(
        w,
        &case,
        &dir,
        &["learn", "Cached", "fact", "cache", "A fact."],
    ));
    ok(&mut megg_in(
        w,
        &case,
        &dir,
        &["context", "--format", "json"],
    ));

    let config = case.user.roaming.join("megg/config.toml");
    let written = fs::read_to_string(&config)
        .unwrap_or_else(|e| panic!("no config at {}: {e}", config.display()));
    assert!(written.contains("loja"), "{written}");
    let cache = case.user.local.join("megg");
    let cached: Vec<_> = fs::read_dir(&cache)
        .unwrap_or_else(|e| panic!("no cache at {}: {e}", cache.display()))
        .collect();
    assert!(!cached.is_empty(), "{} is empty", cache.display());
    for dot in [".config", ".cache", ".megg"] {
        assert!(
            !case.user.profile.join(dot).exists(),
            "{dot} written into the profile"
        );
    }
}

/// `MEGG_CEILING_DIRS` is `;`-separated on Windows, its entries drive-lettered paths.
#[test]
fn ceilings_split_at_semicolons_with_drive_letters() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    case.write(
        "outer/.megg/info.md",
        "---\ntype: context\n---\n\n# Outer\n\n## Context\nThe outer domain.\n",
    );
    let inner = case.path("outer/inner");
    fs::create_dir_all(&inner).unwrap();
    let dir = on_drive(&inner);
    let context = |ceilings: Option<String>| {
        let mut cmd = megg_in(w, &case, &dir, &["context", "--format", "json"]);
        if let Some(c) = ceilings {
            // after `--`, with-env is done: the variable goes through the Unix environment
            cmd.env("MEGG_CEILING_DIRS", c);
        }
        ok(&mut cmd)
    };
    assert!(context(None).contains("The outer domain."));
    let ceilings = format!(
        "C:\\windows;{};D:\\elsewhere",
        on_drive(&case.path("outer"))
    );
    let fenced = context(Some(ceilings.clone()));
    assert!(
        !fenced.contains("The outer domain."),
        "MEGG_CEILING_DIRS={ceilings} did not stop the walk: {fenced}"
    );
}

/// Two `megg.exe learn` at once into one knowledge.md that an indexer holds (sharing reading
/// only), so neither can replace it until it lets go: both entries kept. Without megg's lock
/// both would read the file before either wrote it, and the second rename would drop the first
/// entry — which is why the hold is let go only once both have a temp file beside it, or once
/// one has had it for a while (the other, then, is waiting for the lock).
#[test]
fn two_concurrent_learn_writers_keep_both_entries() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    let loja = case.path("loja");
    fs::create_dir_all(&loja).unwrap();
    let dir = on_z(&loja);
    ok(&mut megg_in(w, &case, &dir, &["init"]));
    ok(&mut megg_in(
        w,
        &case,
        &dir,
        &["learn", "First", "fact", "race", "The first entry."],
    ));
    let megg_dir = loja.join(".megg");
    let listed = names(&megg_dir);

    let held = w.hold_sharing_read(&format!("{dir}\\.megg\\knowledge.md"));
    let writers: Vec<_> = ["left", "right"]
        .iter()
        .map(|side| {
            let title = format!("Entry {side}");
            let body = format!("Written by the {side} writer.");
            megg_in(w, &case, &dir, &["learn", &title, "fact", "race", &body])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let temps = || names(&megg_dir).len().saturating_sub(listed.len());
    let deadline = Instant::now() + Duration::from_secs(30);
    while temps() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let first = Instant::now();
    while temps() < 2 && first.elapsed() < Duration::from_millis(700) {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(held);
    for writer in writers {
        let out = writer.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let knowledge = fs::read_to_string(megg_dir.join("knowledge.md")).unwrap();
    for title in ["First", "Entry left", "Entry right"] {
        assert!(
            knowledge.contains(&format!("## 2026-11-22 - {title}\n")),
            "the entry {title:?} was lost:\n{knowledge}"
        );
    }
    assert_eq!(names(&megg_dir), listed, "a temp file left behind");
}

/// The names in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const OLD_STATE: &str = "## Working On\nThe old handoff\n";

/// A domain at `loja` with a state.md megg wrote; returns its Windows path and the file's bytes.
fn domain_with_state(w: &Wine, case: &Case) -> (String, Vec<u8>) {
    let loja = case.path("loja");
    fs::create_dir_all(&loja).unwrap();
    let dir = on_z(&loja);
    ok(&mut megg_in(w, case, &dir, &["init"]));
    ok(&mut megg_in(
        w,
        case,
        &dir,
        &["state", "write", "--content", OLD_STATE],
    ));
    let bytes = fs::read(loja.join(".megg/state.md")).unwrap();
    (dir, bytes)
}

/// An editor or an indexer holds state.md open sharing nothing: `state write` retries for at
/// most 2 s, then says which file with an `error:`, the old content intact and no temp file.
#[test]
fn a_held_state_md_is_retried_then_refused_naming_it() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    let (dir, before) = domain_with_state(w, &case);
    let megg_dir = case.path("loja/.megg");
    let listed = names(&megg_dir);
    let state = format!("{dir}\\.megg\\state.md");

    let held = w.hold(&state);
    let (out, took) = timed(&mut megg_in(
        w,
        &case,
        &dir,
        &[
            "state",
            "write",
            "--content",
            "## Working On\nThe new handoff\n",
        ],
    ));
    drop(held);
    let stderr = text(&out.stderr);
    assert!(
        !out.status.success(),
        "exit 0 with nothing written: {stderr}"
    );
    assert!(
        stderr.contains("error:") && stderr.contains(&state),
        "the error does not name {state}: {stderr}"
    );
    assert!(
        took >= Duration::from_millis(1900),
        "gave up after {took:?}"
    );
    assert!(took < Duration::from_secs(6), "waited {took:?}");
    assert_eq!(fs::read(megg_dir.join("state.md")).unwrap(), before);
    assert_eq!(names(&megg_dir), listed, "a file left behind");

    // Let go, and the same write goes through.
    ok(&mut megg_in(
        w,
        &case,
        &dir,
        &[
            "state",
            "write",
            "--content",
            "## Working On\nThe new handoff\n",
        ],
    ));
}

/// The SessionStart hook never waits on a held file: exit 0, one JSON document, no later
/// than an unheld run plus a margin far below the 2 s a command would wait.
#[test]
fn the_hook_with_state_md_held_answers_at_once() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    let (dir, before) = domain_with_state(w, &case);
    let loja = case.path("loja");

    let (free, baseline) = run_hook(w, &case, &loja, &hook_input("free", &dir));
    hook_document(&free);
    let held = w.hold(&format!("{dir}\\.megg\\state.md"));
    let (out, took) = run_hook(w, &case, &loja, &hook_input("held", &dir));
    drop(held);
    hook_document(&out);
    assert!(
        took < baseline + Duration::from_millis(1500),
        "the hook took {took:?} (unheld: {baseline:?})"
    );
    assert_eq!(fs::read(loja.join(".megg/state.md")).unwrap(), before);
}

/// SPEC §9's ownership rule, the Windows way: wine gives a file of another Unix user the
/// Anonymous SID (S-1-5-7), so an ancestor domain of theirs is skipped with a warning until
/// the user trusts it (the trust kept under `%APPDATA%`).
#[test]
fn another_users_ancestor_domain_is_skipped_until_trusted() {
    let Some(w) = wine::wine() else { return };
    let case = Case::new();
    case.write(
        "outer/.megg/info.md",
        "---\ntype: context\n---\n\n# Outer\n\n## Context\nThe outer domain.\n",
    );
    let inner = case.path("outer/inner");
    fs::create_dir_all(&inner).unwrap();
    let nobody = Some(65534);
    for p in ["outer", "outer/.megg", "outer/.megg/info.md"] {
        if let Err(e) = std::os::unix::fs::chown(case.path(p), nobody, nobody) {
            common::provision::skip(&format!(
                "giving a directory another owner needs root (chown: {e})"
            ));
            return;
        }
    }
    let outer = on_z(&case.path("outer"));
    let dir = on_z(&inner);
    let out = megg_in(w, &case, &dir, &["context", "--format", "json"])
        .output()
        .unwrap();
    let v = json(&text(&out.stdout));
    assert!(v["domain"].is_null(), "{v}");
    let skipped = format!("skipped {outer}\\.megg: owned by another user");
    assert!(
        v["warnings"].as_array().is_some_and(|w| w
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.starts_with(&skipped)))),
        "no warning `{skipped}`: {v}"
    );

    ok(&mut megg_in(w, &case, &dir, &["trust", &outer]));
    let trusted = ok(&mut megg_in(
        w,
        &case,
        &dir,
        &["context", "--format", "json"],
    ));
    assert!(trusted.contains("The outer domain."), "{trusted}");
}

/// megg's own unit tests built for Windows — the file gate's Windows half, paths as Windows
/// spells them, CRLF, every unit test not bound to Unix — run as a Windows program. `.ci/run`
/// builds them and names the program in `MEGG_WINDOWS_UNIT_TESTS`.
#[test]
fn megg_s_unit_tests_pass_under_wine() {
    let Some(w) = wine::wine() else { return };
    let Some(exe) = std::env::var_os("MEGG_WINDOWS_UNIT_TESTS") else {
        common::provision::skip(
            "MEGG_WINDOWS_UNIT_TESTS is not set: build megg's unit tests for Windows with \
             `cargo test --no-run --lib --target x86_64-pc-windows-gnu` and name the .exe it \
             prints",
        );
        return;
    };
    let out = w
        .program(Path::new(&exe))
        .args(["--test-threads=2", "-q"])
        .output()
        .unwrap();
    let report = text(&out.stdout);
    assert!(
        out.status.success(),
        "megg's unit tests failed under wine ({}):\n{report}\n{}",
        out.status,
        text(&out.stderr)
    );
    assert!(report.contains("test result: ok."), "{report}");
}
