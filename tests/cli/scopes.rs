//! One megg per session, whatever scopes are installed (SPEC §7; issue 38 item 2): setup judges
//! the user scope and a project's each on its own file, and when both run megg's hooks, one
//! session gets one context and each capture event is captured once.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Git, NOW, Project, epoch};

/// A git project with a domain and megg's gitignore block committed.
fn repo() -> Project {
    let p = Project::new();
    let git = Git::init(p.root(), "main");
    p.domain("", "Shop");
    p.ok("", &["gitignore"]);
    git.commit("main", epoch(NOW) - 3600, "init");
    p
}

/// megg in `p` with `home` as HOME and no `claude` on PATH.
fn megg_at(p: &Project, home: &Path, args: &[&str]) -> Output {
    p.megg("")
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .args(args)
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A project set up at project scope, then the user scope set up from inside it.
fn user_setup_inside_a_set_up_project(home: &Path) -> (Project, Value) {
    let p = repo();
    json_of(&megg_at(&p, home, &["setup", "--json"]));
    assert!(
        p.read(".claude/settings.json")
            .contains("megg context --json")
    );
    let v = json_of(&megg_at(&p, home, &["setup", "--scope", "user", "--json"]));
    (p, v)
}

/// Issue 38 item 2: `setup --scope user` inside a project with megg's hooks judged the user
/// scope by the project's file and skipped it.
#[test]
fn user_setup_inside_a_project_with_project_hooks_writes_the_user_file() {
    let home = tempfile::tempdir().unwrap();
    let (_p, v) = user_setup_inside_a_set_up_project(home.path());
    let settings = home.path().join(".claude/settings.json");
    let text =
        fs::read_to_string(&settings).unwrap_or_else(|_| panic!("no user settings written: {v}"));
    let user: Value = serde_json::from_str(&text).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("megg");
    assert_eq!(
        user["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        format!("{} context --json", bin.display()),
        "{user}"
    );
    for event in ["PreCompact", "PostCompact", "SessionEnd", "Stop"] {
        assert!(user["hooks"][event].is_array(), "{event}: {user}");
    }
    // It says the project's hooks run too, and that megg answers each session once.
    assert!(
        v["warnings"].to_string().contains("also active from"),
        "{v}"
    );
}

/// Issue 38 item 2: after that, doctor in any other repository found no hook and failed with
/// the project-scope fix.
#[test]
fn doctor_in_another_repository_after_user_setup_is_ok_for_the_hook() {
    let home = tempfile::tempdir().unwrap();
    let (_p, _) = user_setup_inside_a_set_up_project(home.path());
    let other = repo();
    let v: Value =
        serde_json::from_slice(&megg_at(&other, home.path(), &["doctor", "--json"]).stdout)
            .unwrap();
    let hook = crate::doctor_check(&v, "hook");
    assert_eq!(hook["ok"], true, "{v}");
    assert!(hook["fix"].is_null(), "{v}");
}

/// Both scopes installed in the same project: doctor warns (with the fix), it does not fail.
#[test]
fn doctor_warns_of_a_double_install_with_a_fix() {
    let home = tempfile::tempdir().unwrap();
    let (p, _) = user_setup_inside_a_set_up_project(home.path());
    let v: Value =
        serde_json::from_slice(&megg_at(&p, home.path(), &["doctor", "--json"]).stdout).unwrap();
    for name in ["hook", "capture"] {
        let c = crate::doctor_check(&v, name);
        assert_eq!(c["ok"], true, "{v}");
        assert!(c["detail"].as_str().unwrap().contains("2 times"), "{c}");
        assert!(c["fix"].as_str().unwrap().contains("keep one"), "{c}");
    }
}

/// The SessionStart hook's input for session `id`.
fn start_input(p: &Project, id: &str, source: &str) -> String {
    json!({
        "session_id": id,
        "transcript_path": p.path(&format!("claude/projects/p/{id}.jsonl")),
        "cwd": p.root(),
        "hook_event_name": "SessionStart",
        "source": source,
    })
    .to_string()
}

/// megg with `stdin`, from `/` so that only the input's `cwd` points it at the project, with a
/// clean environment (as [`crate::megg_command`]) and these failure points.
fn spawn(p: &Project, args: &[&str], stdin: &str, failpoints: Option<&str>) -> std::process::Child {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("megg"));
    for var in [
        "MEGG_FAILPOINTS",
        "MEGG_CAPTURE",
        "MEGG_HOOK_MAX_CHARS",
        "XDG_CONFIG_HOME",
    ] {
        cmd.env_remove(var);
    }
    cmd.current_dir("/")
        .env("MEGG_NOW", NOW)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("MEGG_CACHE_DIR", p.cache.path())
        .env("HOME", p.cache.path())
        .env("MEGG_CEILING_DIRS", p.root().parent().unwrap())
        .env("CLAUDE_CONFIG_DIR", p.path("claude"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(f) = failpoints {
        cmd.env("MEGG_FAILPOINTS", f);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child
}

/// The hook's document: one valid JSON document, exit 0, nothing on stderr.
fn document(out: Output) -> Value {
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not one JSON document ({e}): {out:?}"))
}

fn start(p: &Project, id: &str, source: &str) -> Value {
    let child = spawn(p, &["context", "--json"], &start_input(p, id, source), None);
    document(child.wait_with_output().unwrap())
}

/// The context a hook document carries, if any.
fn context(doc: &Value) -> Option<&str> {
    doc["hookSpecificOutput"]["additionalContext"].as_str()
}

/// Two of megg's SessionStart hooks (user scope and a project's) run for one session start:
/// the second gives an empty document; another session, or a later start of the same session
/// with another source (after `/clear` or a compaction), gets its context.
#[test]
fn a_second_session_start_hook_of_the_same_session_gives_no_second_context() {
    let p = repo();
    let first = start(&p, "s-1", "startup");
    assert!(context(&first).unwrap().contains("Shop"), "{first}");
    let second = start(&p, "s-1", "startup");
    assert_eq!(context(&second), None, "the context twice: {second}");
    assert_eq!(second, json!({}), "an empty, valid document");

    let other = start(&p, "s-2", "startup");
    assert!(context(&other).unwrap().contains("Shop"), "{other}");
    let compact = start(&p, "s-1", "compact");
    assert!(context(&compact).unwrap().contains("Shop"), "{compact}");
    let clear = start(&p, "s-1", "clear");
    assert!(context(&clear).unwrap().contains("Shop"), "{clear}");
}

/// A host that stamps its events (Gemini, Copilot: `timestamp`) tells two starts of one
/// session apart even when nothing else differs: twins share the stamp, a second start does not.
#[test]
fn a_second_start_with_its_own_timestamp_gets_its_context() {
    let p = repo();
    let at = |stamp: &str| {
        let mut input: Value = serde_json::from_str(&start_input(&p, "s-3", "resume")).unwrap();
        input["timestamp"] = json!(stamp);
        let args = ["context", "--format", "hook", "--agent", "gemini"];
        document(
            spawn(&p, &args, &input.to_string(), None)
                .wait_with_output()
                .unwrap(),
        )
    };
    assert!(context(&at("2026-11-22T12:00:00.100Z")).is_some());
    assert_eq!(at("2026-11-22T12:00:00.100Z"), json!({}), "its twin");
    let again = at("2026-11-22T12:00:04.900Z");
    assert!(context(&again).unwrap().contains("Shop"), "{again}");
}

/// Both hooks start at the same instant: exactly one carries the context.
#[test]
fn two_session_start_hooks_spawned_at_once_give_one_context() {
    let p = repo();
    for n in 0..4 {
        let id = format!("at-once-{n}");
        let input = start_input(&p, &id, "startup");
        let a = spawn(&p, &["context", "--json"], &input, None);
        let b = spawn(&p, &["context", "--json"], &input, None);
        let docs = [a, b].map(|c| document(c.wait_with_output().unwrap()));
        let with: Vec<&Value> = docs.iter().filter(|d| context(d).is_some()).collect();
        assert_eq!(with.len(), 1, "{docs:?}");
    }
}

/// Two runs of `args` with `input` for session `id`: the first holds at its claim of the run
/// (`hold=<id>.once`) while the second runs whole; then it goes on. `mechanism`: more failure
/// points for both. Returns both outputs, first the held one's.
fn held_pair(p: &Project, args: &[&str], input: &str, id: &str, mechanism: &str) -> [Output; 2] {
    let sync = tempfile::tempdir().unwrap();
    let failpoints = format!("hold={id}.once:{},{mechanism}", sync.path().display());
    // Under load the hook may miss its input's 100 ms (SPEC §3.3) and answer without a
    // session, never reaching its claim: then it is run again.
    let mut attempt = 0;
    let a = loop {
        attempt += 1;
        let mut a = spawn(p, args, input, Some(&failpoints));
        let deadline = Instant::now() + Duration::from_secs(20);
        let held = loop {
            if sync.path().join("held").exists() {
                break true;
            }
            if a.try_wait().unwrap().is_some() || Instant::now() > deadline {
                break false;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        if held {
            break a;
        }
        let _ = a.kill();
        let _ = a.wait();
        assert!(attempt < 3, "the first hook never reached its claim");
    };
    let second = spawn(p, args, input, Some(mechanism))
        .wait_with_output()
        .unwrap();
    fs::write(sync.path().join("release"), "").unwrap();
    [a.wait_with_output().unwrap(), second]
}

/// Two SessionStart hooks of session `id`, the first held inside its claim: both documents.
fn held_starts(p: &Project, id: &str, mechanism: &str) -> [Value; 2] {
    let input = start_input(p, id, "startup");
    held_pair(p, &["context", "--json"], &input, id, mechanism).map(document)
}

/// The claim is an exclusive create: while the first hook is inside its claim, the second
/// finds it taken.
#[test]
fn a_hook_inside_its_claim_leaves_the_second_without_context() {
    let p = repo();
    let [first, second] = held_starts(&p, "held-1", "");
    assert!(context(&first).is_some(), "{first}");
    assert_eq!(second, json!({}), "{second}");
}

/// Its twin, with the exclusive create switched off (look, then write): both hooks find the
/// run free and the model gets the context twice — what the exclusive create prevents.
#[test]
fn without_the_exclusive_create_both_hooks_give_the_context() {
    let p = repo();
    let [first, second] = held_starts(&p, "held-2", "no-exclusive-claim");
    assert!(context(&first).is_some(), "{first}");
    assert!(context(&second).is_some(), "{second}");
}

/// Appends a turn to session `id`'s transcript: a request and the task it creates.
fn transcript(p: &Project, id: &str, turn: usize) -> PathBuf {
    let path = p.path(&format!("claude/projects/p/{id}.jsonl"));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap();
    let call = format!("{id}-{turn}");
    let task = format!("Write the notes, part {turn}");
    let lines = [
        json!({"type": "user", "message": {"role": "user", "content": format!("Please do {task}")}}),
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": call, "name": "TaskCreate", "input": {"subject": task, "description": "details"}}
        ]}}),
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": format!("Task #{turn} created successfully: {task}")}
        ]}}),
    ];
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    path
}

fn capture_input(p: &Project, id: &str, event: &str) -> String {
    json!({
        "session_id": id,
        "transcript_path": p.path(&format!("claude/projects/p/{id}.jsonl")),
        "cwd": p.root(),
        "hook_event_name": event,
    })
    .to_string()
}

/// A capture hook's output: exit 0, nothing on stdout or stderr.
fn quiet(out: &Output) {
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

fn capture(p: &Project, id: &str, event: &str) {
    let out = spawn(p, &["capture"], &capture_input(p, id, event), None)
        .wait_with_output()
        .unwrap();
    quiet(&out);
}

/// The capture log's lines: one per capture megg ran.
fn log(p: &Project) -> Vec<String> {
    fs::read_to_string(p.path(".git/megg/sessions/main/capture.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Two of megg's capture hooks run for one event at once (user scope and a project's; the
/// first held inside its claim while the second runs): it is captured once — one log line,
/// the second does nothing.
#[test]
fn a_capture_event_run_twice_is_captured_once() {
    let p = repo();
    transcript(&p, "c-1", 1);
    let input = capture_input(&p, "c-1", "Stop");
    let outs = held_pair(&p, &["capture"], &input, "c-1", "");
    outs.iter().for_each(quiet);
    assert_eq!(log(&p).len(), 1, "{:?}", log(&p));
    assert!(log(&p)[0].contains("\tStop\tpromoted\t"), "{:?}", log(&p));
    // Once it is done, the same event again (a twin that starts late) finds nothing new and
    // writes nothing; the next turn's Stop (the transcript grew) is a capture of its own.
    capture(&p, "c-1", "Stop");
    assert!(log(&p)[1].contains("\tunchanged\t"), "{:?}", log(&p));
    transcript(&p, "c-1", 2);
    capture(&p, "c-1", "Stop");
    assert_eq!(log(&p).len(), 3, "{:?}", log(&p));
}

/// Its twin, with the exclusive create switched off: both hooks capture the same event.
#[test]
fn without_the_exclusive_create_a_capture_event_is_captured_twice() {
    let p = repo();
    transcript(&p, "c-2", 1);
    let input = capture_input(&p, "c-2", "Stop");
    let outs = held_pair(&p, &["capture"], &input, "c-2", "no-exclusive-claim");
    outs.iter().for_each(quiet);
    assert_eq!(log(&p).len(), 2, "{:?}", log(&p));
}
