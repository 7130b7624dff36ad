//! `megg capture` and the SessionStart hook's input (SPEC §3.3, §10), on real repositories
//! with transcripts in Claude Code's format: where a capture goes, when it is promoted to
//! `state.md` and when it is kept, and that it never fails.

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::Output;

use serde_json::{Value, json};

use crate::{Git, NOW, Project, epoch};

/// A git project with a domain, megg's gitignore block committed, and a transcript file.
pub(crate) struct Repo {
    pub(crate) p: Project,
    pub(crate) git: Git,
}

impl Repo {
    pub(crate) fn new() -> Self {
        Self::with(true, true)
    }

    /// A repository with a domain (`megg`) and megg's gitignore block (`ignore`), or without.
    pub(crate) fn with(megg: bool, ignore: bool) -> Self {
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        if megg {
            p.domain("", "Shop");
        }
        if ignore {
            p.ok("", &["gitignore"]);
        }
        git.commit("main", epoch(NOW) - 3600, "init");
        Self { p, git }
    }

    pub(crate) fn transcript(&self, id: &str) -> PathBuf {
        self.p.path(&format!("claude/projects/p/{id}.jsonl"))
    }

    /// Appends transcript lines for session `id`.
    pub(crate) fn say(&self, id: &str, lines: &[Value]) {
        let path = self.transcript(id);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut f = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
    }

    pub(crate) fn input(&self, id: &str, event: &str) -> String {
        json!({
            "session_id": id,
            "transcript_path": self.transcript(id),
            "cwd": self.p.root(),
            "hook_event_name": event,
        })
        .to_string()
    }

    /// Runs megg with `stdin` as its input, from the filesystem root so that only the hook
    /// input's `cwd` can point it at the project.
    pub(crate) fn with_input(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        self.p
            .megg("")
            .current_dir("/")
            .env("CLAUDE_CONFIG_DIR", self.p.path("claude"))
            .envs(env.iter().copied())
            .args(args)
            .write_stdin(stdin.to_string())
            .output()
            .unwrap()
    }

    /// The SessionStart hook for session `id`; returns its additionalContext.
    pub(crate) fn start(&self, id: &str, source: &str) -> String {
        let input = json!({"session_id": id, "cwd": self.p.root(), "hook_event_name": "SessionStart", "source": source, "transcript_path": self.transcript(id)});
        let out = self.with_input(&["context", "--json"], &input.to_string(), &[]);
        assert!(out.status.success() && out.stderr.is_empty());
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// `megg capture` for session `id`: exit 0, nothing on stdout or stderr.
    pub(crate) fn capture(&self, id: &str, env: &[(&str, &str)]) {
        let out = self.with_input(&["capture"], &self.input(id, "Stop"), env);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    }

    pub(crate) fn dry_run(&self, id: &str) -> String {
        let out = self.with_input(&["capture", "--dry-run"], &self.input(id, "Stop"), &[]);
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    }

    pub(crate) fn sessions(&self) -> PathBuf {
        self.p.path(".git/megg/sessions/main")
    }

    pub(crate) fn session_file(&self, id: &str) -> Option<String> {
        fs::read_to_string(self.sessions().join(format!("{id}.md"))).ok()
    }

    pub(crate) fn state(&self) -> Option<String> {
        fs::read_to_string(self.p.path(".megg/state.md")).ok()
    }

    pub(crate) fn log(&self) -> Vec<String> {
        fs::read_to_string(self.sessions().join("capture.log"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    /// A session that asked for something, created a task and edited a file.
    pub(crate) fn work(&self, id: &str, task: &str) {
        self.say(
            id,
            &[
                user(json!(format!("Please do {task}"))),
                tool_use(
                    &format!("{id}-c"),
                    "TaskCreate",
                    json!({"subject": task, "description": "details"}),
                ),
                ok(
                    &format!("{id}-c"),
                    &format!("Task #1 created successfully: {task}"),
                ),
                tool_use(
                    &format!("{id}-w"),
                    "Write",
                    json!({"file_path": self.p.path("src/lib.rs"), "content": "x"}),
                ),
                ok(&format!("{id}-w"), "File created"),
                said(&format!("Working on {task}.")),
            ],
        );
    }
}

pub(crate) fn user(content: Value) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": content}})
}

pub(crate) fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": id, "name": name, "input": input}
    ]}})
}

pub(crate) fn ok(id: &str, text: &str) -> Value {
    user(json!([{"type": "tool_result", "tool_use_id": id, "content": text}]))
}

pub(crate) fn said(text: &str) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}})
}

pub(crate) fn section<'t>(text: &'t str, name: &str) -> &'t str {
    let start = text
        .find(&format!("## {name}\n"))
        .unwrap_or_else(|| panic!("no ## {name} in\n{text}"));
    let rest = &text[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

#[test]
fn a_capture_is_written_to_the_session_file_and_promoted_when_state_is_untouched() {
    let r = Repo::new();
    r.start("s1", "startup");
    assert!(r.sessions().join("s1.start").exists());
    r.work("s1", "Add the cart API");
    r.capture("s1", &[]);
    let state = r.state().expect("state.md promoted");
    assert!(state.contains("\nsource: auto\nsession: s1\n"), "{state}");
    assert!(state.contains("\nbranch: main\n"));
    assert_eq!(
        section(&state, "Working On"),
        "## Working On\nPlease do Add the cart API\n"
    );
    assert!(section(&state, "Progress").contains("  - src/lib.rs\n"));
    assert!(section(&state, "Next").contains("- [ ] Add the cart API — details\n"));
    assert!(
        section(&state, "Context")
            .contains("Last message from the assistant:\n  > Working on Add the cart API.")
    );
    assert_eq!(r.session_file("s1").as_deref(), Some(state.as_str()));
    let log = r.log();
    assert_eq!(log.len(), 1);
    assert!(
        log[0].starts_with(&format!("{NOW}\ts1\tStop\tpromoted\t")),
        "{log:?}"
    );
    // Nothing new: nothing written, the log says so.
    r.capture("s1", &[]);
    assert!(r.log()[1].contains("\tunchanged\t"));
    // The state is an ignored file: git status stays clean.
    let statuses = r.git.repo.statuses(None).unwrap();
    let dirty: Vec<_> = statuses
        .iter()
        .filter(|s| !s.status().is_ignored())
        .filter_map(|s| s.path().ok().map(String::from))
        .collect();
    assert!(
        !dirty
            .iter()
            .any(|p| p.contains("megg/state") || p.contains("sessions")),
        "{dirty:?}"
    );
    assert!(
        statuses
            .iter()
            .any(|s| s.path() == Ok(".megg/state.md") && s.status().is_ignored())
    );
    // `context` tells the model it was captured automatically, and from which session.
    let ctx = r.p.ok("", &["context"]);
    assert!(
        ctx.contains("captured automatically from session s1"),
        "{ctx}"
    );
    let doc = r.p.json("", &["context", "--format", "json"]);
    assert_eq!(doc["state"]["source"], "auto");
    assert_eq!(doc["state"]["session"], "s1");
}

#[test]
fn a_handoff_written_by_hand_during_the_session_is_kept() {
    let r = Repo::new();
    r.start("s1", "startup");
    r.p.ok(
        "",
        &["state", "write", "--content", "## Working On\nHAND-WRITTEN"],
    );
    r.work("s1", "Add the cart API");
    assert!(r.dry_run("s1").contains(
        "would not promote it: state.md was written during this session by someone else"
    ));
    r.capture("s1", &[]);
    assert!(r.state().unwrap().contains("HAND-WRITTEN"));
    assert!(r.session_file("s1").unwrap().contains("Add the cart API"));
    assert!(r.log()[0].contains("\twritten\tstate.md was written during this session"));
}

#[test]
fn a_clear_during_the_session_is_respected_before_and_after_a_promotion() {
    let r = Repo::new();
    r.p.ok(
        "",
        &["state", "write", "--content", "## Working On\nold handoff"],
    );
    r.start("s1", "startup");
    r.p.ok("", &["state", "clear"]);
    r.work("s1", "First task");
    r.capture("s1", &[]);
    assert_eq!(r.state(), None, "a clear made during the session stays");

    // A session that promoted, then cleared: its next capture does not bring it back.
    let r = Repo::new();
    r.start("s2", "startup");
    r.work("s2", "First task");
    r.capture("s2", &[]);
    assert!(r.state().is_some());
    r.p.ok("", &["state", "clear"]);
    r.say(
        "s2",
        &[
            tool_use("n", "TaskCreate", json!({"subject": "Second task"})),
            ok("n", "Task #2 created"),
        ],
    );
    r.capture("s2", &[]);
    assert_eq!(r.state(), None);
    assert!(r.session_file("s2").unwrap().contains("Second task"));
}

#[test]
fn the_first_of_two_parallel_sessions_owns_state_and_context_names_the_other() {
    let r = Repo::new();
    r.start("aaa", "startup");
    r.start("bbb", "startup");
    r.work("aaa", "A-TASK");
    r.capture("aaa", &[]);
    r.work("bbb", "B-TASK");
    r.capture("bbb", &[]);
    let state = r.state().unwrap();
    assert!(state.contains("A-TASK") && !state.contains("B-TASK"));
    assert!(r.session_file("bbb").unwrap().contains("B-TASK"));
    let doc = r.p.json("", &["context", "--format", "json"]);
    let newer = doc["newer_captures"].as_array().unwrap();
    assert_eq!(newer.len(), 1, "{doc:#}");
    assert_eq!(newer[0]["session"], "bbb");
    let path = r.sessions().join("bbb.md");
    assert_eq!(newer[0]["path"], path.display().to_string());
    let hook = r.start("ccc", "startup");
    assert!(
        hook.contains(&format!(
            "Session bbb captured one at {NOW} that is not in state.md: read {}",
            path.display()
        )),
        "{hook}"
    );
}

#[test]
fn a_session_with_nothing_to_hand_off_writes_nothing() {
    let r = Repo::new();
    r.start("q", "startup");
    r.say(
        "q",
        &[
            user(json!("What does this function do?")),
            said("It adds two numbers."),
        ],
    );
    r.capture("q", &[]);
    assert_eq!(r.state(), None);
    assert_eq!(r.session_file("q"), None);
    assert!(
        r.dry_run("q")
            .contains("nothing to hand off (no tasks, no edits)")
    );
}

#[test]
fn without_a_start_record_only_an_absent_state_is_created() {
    let r = Repo::new();
    r.work("late", "Installed mid-session");
    r.capture("late", &[]);
    assert!(r.state().unwrap().contains("Installed mid-session"));
    // …and a later capture of the same session may replace its own promotion.
    r.say(
        "late",
        &[
            tool_use("x", "TaskCreate", json!({"subject": "More"})),
            ok("x", "Task #2 created"),
        ],
    );
    r.capture("late", &[]);
    assert!(r.state().unwrap().contains("More"));
    // Another session without a start record finds a state it did not write: kept.
    r.work("other", "Other work");
    r.capture("other", &[]);
    assert!(!r.state().unwrap().contains("Other work"));
}

#[test]
fn a_state_git_would_not_ignore_is_never_created() {
    let r = Repo::with(true, false);
    r.start("s", "startup");
    r.work("s", "Task");
    let dry = r.dry_run("s");
    assert!(dry.contains("run `megg gitignore`"), "{dry}");
    r.capture("s", &[]);
    assert_eq!(r.state(), None);
    assert!(r.session_file("s").is_some());
    assert!(r.log()[0].contains("git does not ignore"));
}

#[test]
fn a_capture_never_writes_up_into_a_domain_above_the_repository() {
    let p = Project::new();
    p.domain("", "Company");
    fs::create_dir_all(p.path("repo")).unwrap();
    let git = Git::init(&p.path("repo"), "main");
    p.write("repo/.gitignore", "**/.megg/state.md\n");
    git.commit("main", epoch(NOW) - 3600, "init");
    let input = json!({"session_id": "s", "cwd": p.path("repo"), "transcript_path": p.path("t.jsonl"), "hook_event_name": "Stop"});
    p.write(
        "t.jsonl",
        format!(
            "{}\n{}\n",
            tool_use("w", "Write", json!({"file_path": p.path("repo/a")})),
            ok("w", "ok")
        ),
    );
    let out = p
        .megg("")
        .args(["capture", "--dry-run"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("is above this repository; captures never write up")
    );
    let out = p
        .megg("")
        .arg("capture")
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
    assert!(!p.path(".megg/state.md").exists());
    assert!(p.path("repo/.git/megg/sessions/main/s.md").exists());
}

#[test]
fn megg_capture_off_writes_nothing_not_even_a_start_record() {
    let r = Repo::new();
    let input = json!({"session_id": "s", "cwd": r.p.root(), "source": "startup"}).to_string();
    let out = r.with_input(&["context", "--json"], &input, &[("MEGG_CAPTURE", "off")]);
    assert!(out.status.success());
    r.work("s", "Task");
    r.capture("s", &[("MEGG_CAPTURE", "off")]);
    assert!(!r.sessions().exists());
    assert_eq!(r.state(), None);
    let out = r.with_input(
        &["capture", "--dry-run"],
        &r.input("s", "Stop"),
        &[("MEGG_CAPTURE", "off")],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "megg capture: nothing captured: capture is off (MEGG_CAPTURE=off)\n"
    );
}

#[test]
fn capture_never_fails_and_never_writes_outside() {
    let r = Repo::new();
    r.work("s", "Task");
    let fifo = r.p.path("fifo.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let cases: Vec<(String, Vec<(&str, &str)>)> = vec![
        (String::new(), vec![]),
        ("not json".into(), vec![]),
        ("[1,2]".into(), vec![]),
        (r.input("s", "Stop"), vec![("MEGG_NOW", "yesterday")]),
        (json!({"session_id": "../../../escape", "cwd": r.p.root(), "transcript_path": r.transcript("s")}).to_string(), vec![]),
        (json!({"session_id": "s2", "cwd": "/nowhere/at/all", "transcript_path": r.transcript("s")}).to_string(), vec![]),
        (json!({"session_id": "s3", "cwd": r.p.root(), "transcript_path": "/dev/zero"}).to_string(), vec![]),
        (json!({"session_id": "s4", "cwd": r.p.root(), "transcript_path": fifo}).to_string(), vec![]),
        (json!({"session_id": "s5", "cwd": r.p.root(), "transcript_path": r.p.path("missing.jsonl")}).to_string(), vec![]),
        (json!({"session_id": 42, "cwd": 7}).to_string(), vec![]),
    ];
    for (stdin, env) in cases {
        let out = r.with_input(&["capture"], &stdin, &env);
        assert!(out.status.success(), "{stdin}: {out:?}");
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "{stdin}: {out:?}"
        );
    }
    assert!(!r.p.root().parent().unwrap().join("escape.md").exists());
    let names: Vec<String> = fs::read_dir(r.sessions())
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        names
            .iter()
            .all(|n| n == "capture.log" || n.starts_with("s.") || n.starts_with("id-")),
        "{names:?}"
    );
    // A panic inside capture still exits 0 with nothing printed.
    let out = r.with_input(
        &["capture"],
        &r.input("s", "Stop"),
        &[("MEGG_FAILPOINTS", "panic=capture")],
    );
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn after_compact_the_hook_injects_the_sessions_own_capture() {
    let r = Repo::new();
    r.start("one", "startup");
    r.start("two", "startup");
    r.work("two", "TWO-TASK");
    r.capture("two", &[]);
    r.work("one", "ONE-TASK");
    r.capture("one", &[]);
    assert!(r.state().unwrap().contains("TWO-TASK"));
    for source in ["compact", "resume"] {
        let ctx = r.start("one", source);
        assert!(
            ctx.contains("ONE-TASK") && !ctx.contains("TWO-TASK"),
            "{source}: {ctx}"
        );
        assert!(ctx.contains("captured automatically from session one"));
    }
    for source in ["startup", "clear"] {
        let ctx = r.start("one", source);
        assert!(ctx.contains("TWO-TASK"), "{source}: {ctx}");
    }
    // The start record is the first one: a compact does not replace what the session found.
    assert_eq!(
        fs::read_to_string(r.sessions().join("one.start"))
            .unwrap()
            .lines()
            .next(),
        Some("state: absent")
    );
}

#[test]
fn the_hook_takes_its_directory_from_the_input_unless_told_otherwise() {
    let r = Repo::new();
    r.p.ok(
        "",
        &[
            "state",
            "write",
            "--content",
            "## Working On\nFROM-INPUT-CWD",
        ],
    );
    let input = json!({"session_id": "s", "cwd": r.p.root(), "source": "startup"}).to_string();
    let out = r.with_input(&["context", "--json"], &input, &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("FROM-INPUT-CWD"));
    let other = Project::new();
    let out = r.with_input(
        &["-C", other.root().to_str().unwrap(), "context", "--json"],
        &input,
        &[],
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("FROM-INPUT-CWD"));
}

#[test]
fn reading_continues_where_the_last_capture_stopped() {
    let r = Repo::new();
    r.start("s", "startup");
    r.work("s", "First");
    r.capture("s", &[]);
    // A line still being written is not read…
    let line = tool_use("t2", "TaskCreate", json!({"subject": "Second"})).to_string();
    let path = r.transcript("s");
    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
    write!(f, "{}", &line[..20]).unwrap();
    r.capture("s", &[]);
    assert!(!r.state().unwrap().contains("Second"));
    // …and is read whole once it ends.
    writeln!(f, "{}", &line[20..]).unwrap();
    writeln!(f, "{}", ok("t2", "Task #2 created")).unwrap();
    r.capture("s", &[]);
    let state = r.state().unwrap();
    assert!(
        state.contains("- [ ] First") && state.contains("- [ ] Second"),
        "{state}"
    );
    // A transcript replaced by another file is read again from its start.
    fs::remove_file(&path).unwrap();
    r.say(
        "s",
        &[
            user(json!("fresh start")),
            tool_use("w", "Write", json!({"file_path": r.p.path("b.rs")})),
            ok("w", "ok"),
        ],
    );
    r.capture("s", &[]);
    let state = r.state().unwrap();
    assert!(
        state.contains("fresh start") && !state.contains("First"),
        "{state}"
    );
}

#[test]
fn task_files_are_the_task_list_when_present() {
    let r = Repo::new();
    r.start("s", "startup");
    r.work("s", "From the transcript");
    let dir = r.p.path("claude/tasks/s");
    fs::create_dir_all(&dir).unwrap();
    for (id, subject, status) in [
        ("1", "Done task", "completed"),
        ("2", "Doing task", "in_progress"),
        ("10", "Later task", "pending"),
    ] {
        fs::write(
            dir.join(format!("{id}.json")),
            json!({"id": id, "subject": subject, "description": "", "status": status, "blocks": [], "blockedBy": []}).to_string(),
        )
        .unwrap();
    }
    fs::write(dir.join("3.json"), "{broken").unwrap();
    r.capture("s", &[]);
    let state = r.state().unwrap();
    assert!(section(&state, "Progress").contains("- [x] Done task"));
    assert_eq!(
        section(&state, "Next"),
        "## Next\n- [ ] Doing task (in progress)\n- [ ] Later task\n"
    );
    // CLAUDE_CODE_TASK_LIST_ID names another list.
    let shared = r.p.path("claude/tasks/shared");
    fs::create_dir_all(&shared).unwrap();
    fs::write(
        shared.join("1.json"),
        json!({"id": "1", "subject": "Shared task", "status": "pending"}).to_string(),
    )
    .unwrap();
    r.capture("s", &[("CLAUDE_CODE_TASK_LIST_ID", "shared")]);
    assert!(section(&r.state().unwrap(), "Next").contains("Shared task"));
}

#[test]
fn commits_made_since_the_session_began_are_progress() {
    let r = Repo::new();
    r.start("s", "startup");
    r.git.commit("main", epoch(NOW) - 60, "Add cart model");
    r.git.commit("main", epoch(NOW) - 30, "Wire cart API");
    r.work("s", "Cart");
    r.capture("s", &[]);
    let progress = section(&r.state().unwrap(), "Progress").to_string();
    assert!(
        progress.contains("- 2 commits since the session began:\n"),
        "{progress}"
    );
    let lines: Vec<&str> = progress
        .lines()
        .filter(|l| l.starts_with("  - ") && l.len() > 12 && l.as_bytes()[11] == b' ')
        .collect();
    assert!(
        lines[0].ends_with(" Wire cart API") && lines[1].ends_with(" Add cart model"),
        "{progress}"
    );
}

#[test]
fn a_50_mb_transcript_is_read_in_one_bounded_pass() {
    let r = Repo::new();
    r.start("big", "startup");
    let path = r.transcript("big");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    writeln!(f, "{}", user(json!("Refactor everything"))).unwrap();
    let filler = "x".repeat(100_000);
    for i in 0..500 {
        writeln!(
            f,
            "{}",
            tool_use(&format!("r{i}"), "Read", json!({"file_path": "/p/f.rs"}))
        )
        .unwrap();
        writeln!(f, "{}", ok(&format!("r{i}"), &filler)).unwrap();
    }
    // One line over the per-line bound (8 MiB) is skipped whole, and reading goes on.
    writeln!(f, "{}", ok("huge", &"y".repeat(9 * 1024 * 1024))).unwrap();
    writeln!(
        f,
        "{}",
        tool_use(
            "c",
            "TaskCreate",
            json!({"subject": "After the giant line"})
        )
    )
    .unwrap();
    writeln!(f, "{}", ok("c", "Task #1 created")).unwrap();
    drop(f);
    assert!(fs::metadata(&path).unwrap().len() > 50_000_000);
    r.capture("big", &[]);
    let state = r.state().unwrap();
    assert!(
        state.contains("Refactor everything") && state.contains("After the giant line"),
        "{state}"
    );
}

#[test]
fn the_log_and_the_session_files_are_bounded() {
    let r = Repo::new();
    fs::create_dir_all(r.sessions()).unwrap();
    let old: String = (0..250).map(|i| format!("old line {i}\n")).collect();
    fs::write(r.sessions().join("capture.log"), old).unwrap();
    for i in 0..25 {
        let f = r.sessions().join(format!("old{i}.md"));
        fs::write(&f, "---\nupdated: 2026-11-01T00:00:00Z\n---\nx\n").unwrap();
        let t =
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + i);
        fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    r.work("new", "Task");
    r.capture("new", &[]);
    let log = r.log();
    assert!(log.len() <= 200, "{}", log.len());
    assert!(log.last().unwrap().contains("\tnew\t"));
    assert!(!log.iter().any(|l| l == "old line 0"));
    let mds: Vec<String> = fs::read_dir(r.sessions())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert_eq!(mds.len(), 20, "{mds:?}");
    assert!(mds.contains(&"new.md".to_string()) && !mds.contains(&"old0.md".to_string()));
}

#[test]
fn subagent_transcripts_beside_the_session_count() {
    let r = Repo::new();
    r.start("s", "startup");
    r.say("s", &[user(json!("Delegate it"))]);
    let sub = r.p.path("claude/projects/p/s/subagents/agent-a1.jsonl");
    fs::create_dir_all(sub.parent().unwrap()).unwrap();
    fs::write(
        &sub,
        format!(
            "{}\n{}\n",
            tool_use("e", "Edit", json!({"file_path": r.p.path("src/sub.rs")})),
            ok("e", "ok")
        ),
    )
    .unwrap();
    r.capture("s", &[]);
    assert!(r.state().unwrap().contains("  - src/sub.rs\n"));
}

/// A handoff written by hand while a capture is promoting: the capture decides and writes under
/// `state.md`'s lock, so the hand-written one waits for it and lands after it. With the lock
/// switched off, the capture overwrites it — the loss the lock prevents. The capture is held
/// ([`Hold`]) with its handoff written beside `state.md`, not yet in place; the hand write
/// starts then, and the capture is let go once the hand write waits for the lock (or, without
/// it, is done). The state, and whether the hand write waited.
fn race_hand_write_against_promotion(lock: bool) -> (String, bool) {
    let r = Repo::new();
    r.start("s", "startup");
    r.work("s", "Captured task");
    let hold = Hold::new();
    let off = if lock { "" } else { ",no-lock" };
    let mut capture = r.p.megg("");
    capture
        .current_dir("/")
        .env(
            "MEGG_FAILPOINTS",
            format!("{}{off}", hold.at(".megg/state.md")),
        )
        .arg("capture")
        .write_stdin(r.input("s", "Stop"));
    let capture = std::thread::spawn(move || capture.output().unwrap());
    hold.wait_held(&capture);
    let mut hand = r.p.megg("");
    hand.env("MEGG_FAILPOINTS", format!("{}{off}", hold.log()))
        .args(["state", "write", "--content", "## Working On\nHAND-WRITTEN"]);
    let hand = std::thread::spawn(move || hand.output().unwrap());
    let waited = hold.wait_second(&hand, "state.md");
    hold.release();
    for out in [capture.join().unwrap(), hand.join().unwrap()] {
        assert!(out.status.success(), "{out:?}");
    }
    (r.state().unwrap(), waited)
}

#[test]
fn a_hand_written_handoff_racing_a_promotion_is_not_lost() {
    let (state, waited) = race_hand_write_against_promotion(true);
    assert!(waited, "the hand write never waited for the capture's lock");
    assert!(state.contains("HAND-WRITTEN"), "{state}");
}

#[test]
fn without_the_lock_a_promotion_overwrites_a_racing_hand_written_handoff() {
    let (state, waited) = race_hand_write_against_promotion(false);
    assert!(!waited);
    assert!(
        !state.contains("HAND-WRITTEN") && state.contains("Captured task"),
        "{state}"
    );
}

/// The test's side of the `hold=FILE:DIR` failure point (`src/failpoint.rs`), in place of a
/// pause that is hoped to be long enough: a first process is held at its write of FILE, inside
/// its critical section, until the test releases it; a second process started with
/// [`Hold::log`] says when it is blocked on the first's lock.
pub(crate) struct Hold {
    dir: tempfile::TempDir,
}

impl Hold {
    pub(crate) fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// The failure point that holds a process at its write of `file` (a path suffix).
    pub(crate) fn at(&self, file: &str) -> String {
        format!("hold={file}:{}", self.dir.path().display())
    }

    /// The failure point that logs the second process's waits for a lock.
    pub(crate) fn log(&self) -> String {
        format!("log={}", self.dir.path().join("second.log").display())
    }

    /// Waits (bounded) until the process run by `first` is held inside its critical section.
    pub(crate) fn wait_held<T>(&self, first: &std::thread::JoinHandle<T>) {
        let held = || self.dir.path().join("held").is_file();
        until("the first process to be held", || {
            held() || first.is_finished()
        });
        assert!(
            held(),
            "the first process ended without reaching its critical section"
        );
    }

    /// Waits (bounded) until the process run by `second` has ended or waits for the lock of
    /// `file` (a file name); whether it waits.
    pub(crate) fn wait_second<T>(&self, second: &std::thread::JoinHandle<T>, file: &str) -> bool {
        let lock = format!("-{file}.lock");
        let waits = || {
            fs::read_to_string(self.dir.path().join("second.log"))
                .unwrap_or_default()
                .lines()
                .any(|l| l.starts_with("lock-wait ") && l.ends_with(&lock))
        };
        until("the second process to end or wait for the lock", || {
            waits() || second.is_finished()
        });
        waits()
    }

    /// Lets the held process go on.
    pub(crate) fn release(&self) {
        fs::write(self.dir.path().join("release"), "").unwrap();
    }
}

impl Drop for Hold {
    /// A failed test lets its held process go rather than leave it waiting.
    fn drop(&mut self) {
        let _ = fs::write(self.dir.path().join("release"), "");
    }
}

/// Polls `done` until it holds, failing after a minute: the wait is for an event, never for
/// a length of time.
fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn doctor_shows_the_last_capture_and_why_it_was_not_promoted() {
    let r = Repo::new();
    r.start("s1", "startup");
    r.work("s1", "Task");
    r.capture("s1", &[]);
    let doctor = |r: &Repo| -> String {
        let out = r.p.run("", &["doctor", "--json"]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let check = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "capture")
            .unwrap()
            .clone();
        check["detail"].as_str().unwrap().to_string()
    };
    let detail = doctor(&r);
    assert!(
        detail.ends_with(&format!(
            "; last capture: {NOW}, session s1 (Stop): promoted to state.md"
        )),
        "{detail}"
    );
    fs::write(r.p.path(".gitignore"), "").unwrap();
    r.say(
        "s1",
        &[
            tool_use("n", "TaskCreate", json!({"subject": "Next"})),
            ok("n", "Task #2 created"),
        ],
    );
    r.capture("s1", &[]);
    assert!(
        doctor(&r).contains("(Stop): git does not ignore"),
        "{}",
        doctor(&r)
    );
}

#[test]
fn a_handoff_cut_to_2000_tokens_is_unchanged_when_nothing_new_happened() {
    let r = Repo::new();
    r.start("s", "startup");
    let mut lines = vec![user(json!("Plan the migration"))];
    for i in 0..40 {
        let subject = format!(
            "Migrate table {i}: {}",
            "with every column checked and every index rebuilt ".repeat(5)
        );
        lines.push(tool_use(
            &format!("c{i}"),
            "TaskCreate",
            json!({"subject": subject, "description": format!("Step {i}: {}", "copy the rows, verify the counts, swap the names ".repeat(4))}),
        ));
        lines.push(ok(&format!("c{i}"), &format!("Task #{i} created")));
    }
    r.say("s", &lines);
    r.capture("s", &[]);
    let state = r.state().unwrap();
    assert!(crate::reference_tokens(state.split("---\n\n").nth(1).unwrap()) <= 2000);
    assert!(
        !state.contains("## Context"),
        "the handoff was cut: {state}"
    );
    r.capture("s", &[]);
    assert!(r.log()[1].contains("\tunchanged\t"), "{:?}", r.log());
}

#[test]
fn the_stop_hooks_last_assistant_message_is_the_last_message() {
    // When Stop runs, Claude Code has not yet written the turn's last message to the
    // transcript; the hook input carries it.
    let r = Repo::new();
    r.start("s", "startup");
    r.work("s", "Task");
    let mut input: Value = serde_json::from_str(&r.input("s", "Stop")).unwrap();
    input["last_assistant_message"] = json!("Done: the cart API is wired.");
    let out = r.with_input(&["capture"], &input.to_string(), &[]);
    assert!(out.status.success());
    let state = r.state().unwrap();
    assert!(
        section(&state, "Context").contains("  > Done: the cart API is wired.\n"),
        "{state}"
    );
}

#[test]
fn a_tracked_state_is_never_promoted_even_when_an_ignore_rule_matches_it() {
    let r = Repo::new();
    r.p.ok(
        "",
        &["state", "write", "--content", "## Working On\nCOMMITTED"],
    );
    let mut index = r.git.repo.index().unwrap();
    index
        .add_path(std::path::Path::new(".megg/state.md"))
        .unwrap();
    index.write().unwrap();
    r.git
        .commit("main", epoch(NOW) - 100, "commit the state by mistake");
    r.start("s", "startup");
    r.work("s", "Task");
    r.capture("s", &[]);
    assert!(r.state().unwrap().contains("COMMITTED"));
    assert!(r.log()[0].contains("git does not ignore"), "{:?}", r.log());
}

#[test]
fn a_promotion_that_could_not_happen_is_retried_once_it_can() {
    let r = Repo::with(true, false);
    r.start("s", "startup");
    r.work("s", "Task");
    r.capture("s", &[]);
    assert_eq!(r.state(), None);
    r.p.ok("", &["gitignore"]);
    // Nothing new in the session, but now the state can be promoted.
    r.capture("s", &[]);
    assert!(r.state().unwrap().contains("Task"));
    r.capture("s", &[]);
    assert!(r.log().last().unwrap().contains("\tunchanged\t"));
}

#[test]
fn a_compact_or_resume_never_records_a_start_in_the_middle_of_a_session() {
    let r = Repo::new();
    r.start("a", "startup");
    r.work("a", "A-TASK");
    r.capture("a", &[]);
    // Session b had no start record (megg installed mid-session); compacting must not make
    // a's handoff look like what b found.
    r.start("b", "compact");
    r.start("b", "resume");
    assert!(!r.sessions().join("b.start").exists());
    r.work("b", "B-TASK");
    r.capture("b", &[]);
    assert!(r.state().unwrap().contains("A-TASK"));
}

#[test]
fn an_expired_own_capture_gives_way_to_an_active_state_and_never_names_itself() {
    let r = Repo::new();
    r.start("old", "startup");
    r.work("old", "OLD-TASK");
    r.capture("old", &[("MEGG_NOW", "2026-11-18T12:00:00Z")]);
    r.p.ok(
        "",
        &["state", "write", "--content", "## Working On\nFRESH-STATE"],
    );
    let ctx = r.start("old", "resume");
    assert!(
        ctx.contains("FRESH-STATE") && !ctx.contains("OLD-TASK"),
        "{ctx}"
    );

    // Resuming session one, whose own capture is injected, is not told about itself.
    let r = Repo::new();
    r.start("one", "startup");
    r.start("two", "startup");
    r.work("two", "TWO-TASK");
    r.capture("two", &[]);
    r.work("one", "ONE-TASK");
    r.capture("one", &[]);
    let ctx = r.start("one", "compact");
    assert!(
        ctx.contains("ONE-TASK") && !ctx.contains("parallel session"),
        "{ctx}"
    );
}

#[test]
fn captures_for_another_domain_of_the_repository_are_not_parallel_sessions() {
    let r = Repo::new();
    r.p.domain("packages/billing", "Billing");
    r.p.ok(
        "",
        &["state", "write", "--content", "## Working On\nroot state"],
    );
    // A session in packages/billing captures for that domain.
    let input = json!({"session_id": "bill", "cwd": r.p.path("packages/billing"), "transcript_path": r.transcript("bill"), "hook_event_name": "Stop"});
    r.work("bill", "BILLING-TASK");
    let out = r.with_input(&["capture"], &input.to_string(), &[]);
    assert!(out.status.success());
    assert!(
        r.p.read("packages/billing/.megg/state.md")
            .contains("BILLING-TASK")
    );
    let doc = r.p.json("", &["context", "--format", "json"]);
    assert_eq!(doc["newer_captures"], json!([]), "{doc:#}");
}

#[test]
fn a_transcript_gone_at_session_end_keeps_what_was_read() {
    let r = Repo::new();
    r.start("s", "startup");
    r.work("s", "Kept task");
    r.capture("s", &[]);
    fs::remove_file(r.transcript("s")).unwrap();
    // Task files still exist, so there is a handoff to write: it must keep the request and
    // the files read before.
    let dir = r.p.path("claude/tasks/s");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("1.json"),
        json!({"id": "1", "subject": "Kept task", "status": "in_progress"}).to_string(),
    )
    .unwrap();
    r.capture("s", &[]);
    let state = r.state().unwrap();
    assert!(
        state.contains("Please do Kept task") && state.contains("src/lib.rs"),
        "{state}"
    );
}

#[test]
fn a_repository_without_megg_gets_nothing_written_by_the_hooks() {
    let r = Repo::with(false, false);
    r.start("s", "startup");
    r.work("s", "Task");
    r.capture("s", &[]);
    assert!(
        !r.p.path(".git/megg").exists(),
        "a stranger's repository stays untouched"
    );
    assert!(
        r.dry_run("s")
            .contains("no .megg here to promote to (run `megg init`)")
    );
}

/// Every file under `dir`, with its text.
fn files_under(dir: &std::path::Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push((path.clone(), fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    out
}

#[test]
fn no_secret_from_the_session_reaches_any_file_megg_writes() {
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let github = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF2gH4");
    let anthropic = format!("sk-ant-api03-{}", "Xy9".repeat(13) + "Z");
    let secrets = [aws, &github, &anthropic, "hunter2"];
    let r = Repo::new();
    r.start("s1", "startup");
    let request = format!(
        "Deploy the shop with AWS key {aws}, GitHub token {github}, Anthropic key {anthropic} and password=hunter2 then run the smoke tests"
    );
    r.say(
        "s1",
        &[
            user(json!(request)),
            tool_use(
                "c",
                "TaskCreate",
                json!({"subject": format!("Rotate {aws}"), "description": format!("token: {github}")}),
            ),
            ok("c", "Task #1 created successfully"),
            tool_use(
                "w",
                "Write",
                json!({"file_path": r.p.path("src/lib.rs"), "content": "x"}),
            ),
            ok("w", "File created"),
            said(&format!("Used {anthropic} as asked.")),
        ],
    );
    let input = json!({
        "session_id": "s1",
        "transcript_path": r.transcript("s1"),
        "cwd": r.p.root(),
        "hook_event_name": "Stop",
        "last_assistant_message": format!("Logged in with password=hunter2 and {github}."),
    });
    let out = r.with_input(&["capture"], &input.to_string(), &[]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");

    let state = r.state().expect("state.md promoted");
    let mut written = files_under(&r.sessions());
    written.push((r.p.path(".megg/state.md"), state.clone()));
    assert!(written.len() >= 4, "{written:?}"); // state, capture, start record, scan, log
    for (path, text) in &written {
        for s in secrets {
            assert!(!text.contains(s), "{s} in {}:\n{text}", path.display());
        }
    }
    let working = section(&state, "Working On");
    assert!(
        working.contains("Deploy the shop with AWS key [redacted], GitHub token [redacted], Anthropic key [redacted] and password=[redacted] then run the smoke tests"),
        "{working}"
    );
    assert!(
        state.contains("- [ ] Rotate [redacted] — token: [redacted]"),
        "{state}"
    );
    assert!(
        state.contains("> Logged in with password=[redacted] and [redacted]."),
        "{state}"
    );
}

/// The repository is discovered and opened once per run (SPEC §14, the uv `Workspace`
/// pattern): the SessionStart hook of Claude Code and of Codex (recording the session's start,
/// reading the state and its branch) and a capture that promotes its handoff.
#[test]
fn one_repository_open_per_hook_and_capture() {
    let r = Repo::new();
    let log = r.p.cache.path().join("opens.log");
    let failpoints = format!("log={}", log.display());
    let opens = |what: &str, args: &[&str], stdin: String| {
        let _ = fs::remove_file(&log);
        let out = r.with_input(args, &stdin, &[("MEGG_FAILPOINTS", failpoints.as_str())]);
        assert!(out.status.success(), "{what}: {out:?}");
        let n = fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| *l == "git-open")
            .count();
        (what.to_string(), n)
    };
    let start = |id: &str| {
        json!({"session_id": id, "cwd": r.p.root(), "hook_event_name": "SessionStart", "source": "startup", "transcript_path": r.transcript(id)}).to_string()
    };
    let mut seen = vec![opens(
        "claude hook, no state",
        &["context", "--json"],
        start("s1"),
    )];
    r.work("s1", "Add the cart API");
    seen.push(opens("capture", &["capture"], r.input("s1", "Stop")));
    assert!(r.state().is_some(), "the capture promoted its handoff");
    seen.push(opens(
        "claude hook, state on a branch",
        &["context", "--json"],
        start("s2"),
    ));
    // The Codex hook, and the `megg` it starts in the background to note the work tree: one
    // open each.
    let note = r.p.path(".git/megg/sessions/main/codex/c1.snapshot");
    let mut codex = opens(
        "codex hook and its background note",
        &["context", "--format", "hook", "--agent", "codex"],
        start("c1"),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !note.is_file() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let opened = fs::read_to_string(&log).unwrap_or_default();
    codex.1 = opened.lines().filter(|l| *l == "git-open").count();
    seen.push(codex);
    let root = r.p.root().display().to_string();
    seen.push(opens(
        "context --format json",
        &["-C", &root, "context", "--format", "json"],
        String::new(),
    ));
    let want: Vec<(String, usize)> = seen
        .iter()
        .map(|(w, _)| (w.clone(), if w.contains("background") { 2 } else { 1 }))
        .collect();
    assert_eq!(seen, want);
}
