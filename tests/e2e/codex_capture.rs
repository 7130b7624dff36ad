//! Capture for Codex CLI end to end (SPEC §12 "Capture for every host", "No secrets in a
//! handoff"; issue 22): the real, pinned Codex (`codex exec`, see `codex.rs`) against the mock
//! Responses API, with megg installed by `megg setup --agent codex` — its SessionStart hook
//! and the capture hooks `Stop`, `SessionEnd`, `PreCompact` running `megg capture --agent
//! codex`. The tests assert on `.megg/state.md`, the session files under
//! `.git/megg/sessions/main/codex/`, and on what the next session's model receives.
//!
//! The helpers shared with `gemini_capture.rs` and `copilot_capture.rs` (secrets, the walk of
//! megg's files, the handoff checks) live here.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::capture_e2e::{assert_auto, section};
use crate::codex::{DIR, Mock, Scope, Session, install};

/// An AWS access key id (AWS's documented example).
pub(crate) const AWS_KEY: &str = "AKIAIOSFODNN7EXAMPLE";
/// A GitHub token: `ghp_` + 36 alphanumerics.
pub(crate) const GITHUB_TOKEN: &str = "ghp_abcdefghij0123456789ABCDEFGHIJabcdef";
/// An Anthropic key: `sk-ant-api03-` + 40 characters.
pub(crate) const ANTHROPIC_KEY: &str = "sk-ant-api03-AbCdEfGhIj0123456789KlMnOpQrSt0123456789";

/// A one-line request carrying the three secrets, asking for a file to be written.
pub(crate) fn secret_prompt() -> String {
    format!(
        "Deploy with key {AWS_KEY} token {GITHUB_TOKEN} and {ANTHROPIC_KEY} then write notes.txt SECRET-PROMPT"
    )
}

/// Text that is megg's (or the host's) injected context, never the user's request: none of it
/// may appear in a captured handoff.
pub(crate) const NOT_THE_USER: [&str; 6] = [
    "<hook_context>",
    "environment_context",
    "Domain Chain",
    "<session_context>",
    "<current_datetime>",
    "AGENTS.md",
];

/// Every file under `dir`, recursively (none when it does not exist).
pub(crate) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// No trace of the three secrets — whole or their distinctive tails — in any file under
/// `root/.megg` and `root/.git/megg` (state, session files, start records, scans, the log,
/// setup's records and backups).
pub(crate) fn assert_no_secret_in_megg_files(root: &Path) {
    let files: Vec<PathBuf> = files_under(&root.join(".megg"))
        .into_iter()
        .chain(files_under(&root.join(".git/megg")))
        .collect();
    assert!(
        files.iter().any(|f| f.ends_with(".megg/state.md")),
        "{files:#?}"
    );
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for secret in [
            AWS_KEY,
            "IOSFODNN7EXAMPLE",
            GITHUB_TOKEN,
            "abcdefghij0123456789ABCDEFGHIJ",
            ANTHROPIC_KEY,
            "AbCdEfGhIj0123456789KlMnOpQrSt",
        ] {
            assert!(
                !text.contains(secret),
                "{secret} in {}:\n{text}",
                file.display()
            );
        }
    }
}

/// The session captures of `host` under `root/.git/megg/sessions/main/<host>/`: (id, text).
pub(crate) fn captures(root: &Path, host: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        files_under(&root.join(".git/megg/sessions/main").join(host))
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "md"))
            .map(|f| {
                let id = f.file_stem().unwrap().to_string_lossy().into_owned();
                (id, std::fs::read_to_string(&f).unwrap())
            })
            .collect();
    out.sort();
    out
}

/// The capture log: `time\tsession\tevent\tverdict\texplanation` lines.
pub(crate) fn capture_log(root: &Path) -> String {
    std::fs::read_to_string(root.join(".git/megg/sessions/main/capture.log")).unwrap_or_default()
}

/// The capture log's (event, verdict) pairs.
pub(crate) fn log_events(root: &Path) -> Vec<(String, String)> {
    capture_log(root)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "a capture log line has 5 fields: {l:?}");
            (f[2].to_string(), f[3].to_string())
        })
        .collect()
}

/// Keeps the harness's own files (mock logs, the CLI's output, a HOME inside the project) out
/// of the work tree's changed files, as a user's would be: `.git/info/exclude`.
pub(crate) fn exclude(root: &Path, patterns: &[&str]) {
    let path = root.join(".git/info/exclude");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    for p in patterns {
        text.push_str(p);
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// The one capture of `host` in `root`, which is also `state.md`: a handoff of its session
/// whose Working On is `prompt` and nothing of megg's context (`marker` is in `info.md`), and
/// whose Progress names `file`. Returns (session id, state.md).
pub(crate) fn assert_handoff(
    root: &Path,
    host: &str,
    prompt: &str,
    file: &str,
    marker: &str,
) -> (String, String) {
    let state = std::fs::read_to_string(root.join(".megg/state.md"))
        .unwrap_or_else(|_| panic!("no state.md; capture log:\n{}", capture_log(root)));
    let caps = captures(root, host);
    assert_eq!(
        caps.len(),
        1,
        "one capture: {caps:#?}\n{}",
        capture_log(root)
    );
    let (id, capture) = &caps[0];
    assert_eq!(
        capture, &state,
        "state.md is the session's capture, promoted"
    );
    let content = assert_auto(&state, id);
    assert_eq!(
        section(&content, "Working On"),
        format!("{prompt}\n\n"),
        "Working On is the user's request:\n{state}"
    );
    assert_eq!(
        section(&content, "Progress"),
        format!("- Files changed (newest first):\n  - {file}\n\n"),
        "{state}"
    );
    assert!(
        !state.contains(marker),
        "megg's context in the handoff:\n{state}"
    );
    for noise in NOT_THE_USER {
        assert!(!state.contains(noise), "{noise} in the handoff:\n{state}");
    }
    assert!(
        log_events(root)
            .iter()
            .any(|(_, verdict)| verdict == "promoted"),
        "{}",
        capture_log(root)
    );
    (id.clone(), state)
}

/// How many times `needle` occurs in all of `texts`.
pub(crate) fn occurrences(texts: &[String], needle: &str) -> usize {
    texts.iter().map(|t| t.matches(needle).count()).sum()
}

// ---------------------------------------------------------------------------------------------
// Codex

/// The exec_command call that writes `notes.txt` through the shell, then a closing message.
fn write_notes() -> Value {
    json!([
        [{"type": "function_call", "name": "exec_command",
          "arguments": {"cmd": "printf 'hello\\n' > notes.txt"}}],
        [{"type": "text", "text": "Wrote notes.txt."}]
    ])
}

/// A Codex session set up with `megg setup --agent codex` (project scope, the project and
/// every megg hook trusted as the user would), with no `state.md`.
fn project() -> Option<Session> {
    let s = Session::new()?;
    install(&s, Scope::Project);
    let hooks: Value =
        serde_json::from_str(&s.p.read(&format!("{DIR}/.codex/hooks.json"))).unwrap();
    for event in ["Stop", "SessionEnd", "PreCompact"] {
        let command = hooks["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("no {event} capture hook: {hooks}"));
        assert!(
            command.contains("capture --agent codex"),
            "{event}: {command}"
        );
    }
    s.trust_project();
    s.trust_hooks(Scope::Project);
    s.megg(&["state", "clear"]).assert().success();
    assert!(!root(&s).join(".megg/state.md").exists());
    Some(s)
}

fn root(s: &Session) -> PathBuf {
    s.p.path(DIR)
}

/// The texts of a Responses request's input messages: what the model reads besides tools.
fn input_texts(body: &Value) -> Vec<String> {
    body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "message")
        .flat_map(|item| item["content"].as_array().into_iter().flatten())
        .filter_map(|c| c["text"].as_str().map(String::from))
        .collect()
}

/// SPEC §12: a session whose model writes a file through `exec_command` hands off its request
/// and the file — never megg's context or Codex's environment context — and the next
/// session's model receives it, once.
#[test]
fn codex_a_session_that_writes_a_file_hands_off_to_the_next() {
    let Some(s) = project() else { return };
    let prompt = "Write the release notes CODEX-PROMPT-1";
    let mock = Mock::start(s.p.root(), &write_notes());
    let (_, stderr) = s.codex(&mock, prompt, &[]);
    assert_eq!(s.p.read(&format!("{DIR}/notes.txt")), "hello\n", "{stderr}");
    assert!(stderr.contains("hook: Stop Completed"), "{stderr}");
    let (id, state) = assert_handoff(&root(&s), "codex", prompt, "notes.txt", "INFO-MARKER");

    let mock = Mock::start(s.p.root(), &json!([]));
    s.codex(&mock, "what is next?", &[]);
    let first = &mock.turns()[0];
    let texts = input_texts(first);
    assert_eq!(
        occurrences(&texts, prompt),
        1,
        "the handoff reaches the next session's model once: {texts:#?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains(prompt) && t.contains("INFO-MARKER")),
        "inside megg's context: {texts:#?}"
    );
    // That session only answered: the handoff stays, and it wrote no capture of its own.
    assert_eq!(s.p.read(&format!("{DIR}/.megg/state.md")), state);
    let caps = captures(&root(&s), "codex");
    assert_eq!(caps.len(), 1, "{caps:#?}");
    assert_eq!(caps[0].0, id);
}

/// SPEC §10, §12: a session that only answered writes no state.md and no session file,
/// though its capture hooks ran.
#[test]
fn codex_a_session_that_only_answered_writes_nothing() {
    let Some(s) = project() else { return };
    let mock = Mock::start(s.p.root(), &json!([[{"type": "text", "text": "Four."}]]));
    let (stdout, stderr) = s.codex(&mock, "what is 2+2?", &[]);
    assert_eq!(stdout.trim(), "Four.", "{stderr}");
    assert!(stderr.contains("hook: Stop Completed"), "{stderr}");
    let root = root(&s);
    assert!(!root.join(".megg/state.md").exists());
    assert_eq!(captures(&root, "codex"), Vec::<(String, String)>::new());
    let events = log_events(&root);
    assert!(
        events.iter().any(|(e, _)| e == "Stop"),
        "the capture hooks ran: {}",
        capture_log(&root)
    );
    assert!(
        events.iter().all(|(_, v)| v == "nothing"),
        "{}",
        capture_log(&root)
    );
}

/// SPEC §12 "No secrets in a handoff": a request carrying an AWS key, a GitHub token and an
/// Anthropic key leaves none of them in any file megg wrote; the handoff says `[redacted]`.
#[test]
fn codex_no_secret_from_the_request_reaches_megg_files() {
    let Some(s) = project() else { return };
    let mock = Mock::start(s.p.root(), &write_notes());
    s.codex(&mock, &secret_prompt(), &[]);
    let root = root(&s);
    let state = std::fs::read_to_string(root.join(".megg/state.md"))
        .unwrap_or_else(|_| panic!("no state.md: {}", capture_log(&root)));
    let working_on = section(&state, "Working On");
    assert!(
        working_on.contains("[redacted]") && working_on.contains("SECRET-PROMPT"),
        "{state}"
    );
    assert_no_secret_in_megg_files(&root);
}

/// SPEC §12: after an automatic compaction (`PreCompact`, then `SessionStart` with `source:
/// compact`) the model gets the session's own capture — even though `state.md` was written
/// meanwhile by someone else (here the model's own shell command), so the capture could not
/// be promoted.
#[test]
fn codex_after_compaction_the_model_gets_its_own_capture() {
    let Some(s) = project() else { return };
    let prompt = "Write the notes before compaction CODEX-COMPACT-PROMPT";
    let mock = Mock::start(
        s.p.root(),
        &json!([
            [{"type": "function_call", "name": "exec_command",
              "arguments": {"cmd": "printf 'hello\\n' > notes.txt && printf '## Working On\\nOTHER-HANDOFF\\n' > .megg/state.md"}}],
            [{"type": "text", "text": "Wrote notes.txt."}]
        ]),
    );
    // Compact as soon as the conversation holds more than a handful of tokens: after the
    // call's output, before the next turn (how the recorded compaction fixture was made).
    let (_, stderr) = s.codex(&mock, prompt, &["-c", "model_auto_compact_token_limit=12"]);
    let root = root(&s);
    assert!(stderr.contains("hook: PreCompact Completed"), "{stderr}");
    let compactions = mock
        .requests()
        .iter()
        .filter(|r| {
            r["headers"]["x-codex-turn-metadata"]
                .as_str()
                .is_some_and(|m| m.contains("\"compaction\""))
        })
        .count();
    assert!(compactions >= 1, "Codex compacted: {stderr}");
    assert_eq!(
        s.p.read(&format!("{DIR}/.megg/state.md")),
        "## Working On\nOTHER-HANDOFF\n"
    );
    let caps = captures(&root, "codex");
    assert_eq!(caps.len(), 1, "{caps:#?}\n{}", capture_log(&root));
    let (id, capture) = &caps[0];
    assert!(capture.contains(prompt), "{capture}");

    // The request after the compaction: megg's developer message is the session's capture.
    let turns = mock.turns();
    let after = turns.last().unwrap();
    let texts = input_texts(after);
    let hook: Vec<&String> = texts
        .iter()
        .filter(|t| t.contains(&format!("captured automatically from session {id}")))
        .collect();
    assert_eq!(hook.len(), 1, "the session's own capture, once: {texts:#?}");
    assert!(hook[0].contains(prompt), "{}", hook[0]);
    assert!(hook[0].contains("notes.txt"), "{}", hook[0]);
    assert!(
        !texts.iter().any(|t| t.contains("OTHER-HANDOFF")),
        "{texts:#?}"
    );
    let events = log_events(&root);
    assert!(
        events.iter().any(|(e, _)| e == "PreCompact"),
        "{}",
        capture_log(&root)
    );
}
