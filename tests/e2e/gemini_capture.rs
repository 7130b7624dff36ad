//! Capture for Gemini CLI end to end (SPEC §12 "Capture for every host", "No secrets in a
//! handoff"; issue 22): the real, pinned Gemini CLI (`gemini -p`, see `gemini.rs`) against the
//! mock Gemini API, with megg installed by `megg setup --agent gemini` — its SessionStart hook
//! and the capture hooks `AfterAgent` and `SessionEnd` running `megg capture --agent gemini`.
//! The tests assert on `.megg/state.md`, the session files under `.git/megg/sessions/main/gemini/`,
//! and on what the next session's model receives. Gemini puts megg's context inside the
//! user's prompt (`<hook_context>…</hook_context>`): the handoff must hold the request only.

use serde_json::{Value, json};

use crate::capture_e2e::section;
use crate::claude_code::Mock;
use crate::codex_capture::{
    assert_handoff, assert_no_secret_in_megg_files, capture_log, captures, log_events, occurrences,
    secret_prompt,
};
use crate::gemini::{Scope, Session, agent_requests, install, texts};

/// The marker in `gemini.rs`'s `info.md`.
const MARKER: &str = "GEMINI-INFO-MARKER";

/// A Gemini session set up with `megg setup --agent gemini` (project scope), with no
/// `state.md`. The private HOME and the mock's files live in the project's directory: kept out
/// of its changed files, as a user's HOME would be.
fn project() -> Option<Session> {
    let s = Session::new()?;
    install(&s, Scope::Project);
    let settings: Value = serde_json::from_str(&s.p.read(".gemini/settings.json")).unwrap();
    for event in ["AfterAgent", "SessionEnd"] {
        let command = settings["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("no {event} capture hook: {settings}"));
        assert!(
            command.contains("capture --agent gemini"),
            "{event}: {command}"
        );
    }
    s.p.ok("", &["state", "clear"]);
    assert!(!s.p.path(".megg/state.md").exists());
    Some(s)
}

fn mock(s: &Session, script: &Value) -> Mock {
    Mock::start_file(s.p.root(), script, "mock_gemini.py")
}

/// `write_file` of `notes.txt`, then a closing message.
fn write_notes(s: &Session) -> Value {
    json!([
        [{"functionCall": {"name": "write_file",
                           "args": {"file_path": s.root().join("notes.txt"),
                                    "content": "hello\n"}}}],
        [{"text": "Wrote notes.txt."}]
    ])
}

/// SPEC §12: a session whose model writes a file with `write_file` hands off its request and
/// the file — never the `<hook_context>` Gemini wraps megg's context in — and the next
/// session's model receives it, once.
#[test]
fn gemini_a_session_that_writes_a_file_hands_off_to_the_next() {
    let Some(s) = project() else { return };
    let prompt = "Write the release notes GEMINI-PROMPT-1";
    let mock = mock(&s, &write_notes(&s));
    let run = s.gemini_ok(&mock, prompt, Scope::Project);
    assert_eq!(s.p.read("notes.txt"), "hello\n", "{}", run.stderr);
    let (_, state) = assert_handoff(s.p.root(), "gemini", prompt, "notes.txt", MARKER);

    let mock = self::mock(&s, &json!([]));
    s.gemini_ok(&mock, "what is next?", Scope::Project);
    let first = &agent_requests(&mock)[0];
    let texts = texts(first);
    assert_eq!(
        occurrences(&texts, prompt),
        1,
        "the handoff reaches the next session's model once: {texts:#?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains(prompt) && t.contains("<hook_context>")),
        "inside megg's context: {texts:#?}"
    );
    // That session only answered: the handoff stays.
    assert_eq!(s.p.read(".megg/state.md"), state);
    assert_eq!(captures(s.p.root(), "gemini").len(), 1);
}

/// SPEC §10, §12: a session that only answered writes no state.md and no session file,
/// though its capture hooks ran.
#[test]
fn gemini_a_session_that_only_answered_writes_nothing() {
    let Some(s) = project() else { return };
    let mock = mock(&s, &json!([[{"text": "Four."}]]));
    let run = s.gemini_ok(&mock, "what is 2+2?", Scope::Project);
    assert_eq!(run.stdout.trim(), "Four.", "{}", run.stderr);
    let root = s.p.root();
    assert!(!root.join(".megg/state.md").exists());
    assert_eq!(captures(root, "gemini"), Vec::<(String, String)>::new());
    let events = log_events(root);
    assert!(
        events.iter().any(|(e, _)| e == "AfterAgent"),
        "the capture hooks ran: {}",
        capture_log(root)
    );
    assert!(
        events.iter().all(|(_, v)| v == "nothing"),
        "{}",
        capture_log(root)
    );
}

/// SPEC §12 "No secrets in a handoff": a request carrying an AWS key, a GitHub token and an
/// Anthropic key leaves none of them in any file megg wrote; the handoff says `[redacted]`.
#[test]
fn gemini_no_secret_from_the_request_reaches_megg_files() {
    let Some(s) = project() else { return };
    let mock = mock(&s, &write_notes(&s));
    s.gemini_ok(&mock, &secret_prompt(), Scope::Project);
    let state = std::fs::read_to_string(s.p.path(".megg/state.md"))
        .unwrap_or_else(|_| panic!("no state.md: {}", capture_log(s.p.root())));
    let working_on = section(&state, "Working On");
    assert!(
        working_on.contains("[redacted]") && working_on.contains("SECRET-PROMPT"),
        "{state}"
    );
    assert_no_secret_in_megg_files(s.p.root());
}
