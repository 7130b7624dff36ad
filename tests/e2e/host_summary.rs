//! The host's own summary end to end (SPEC §18.1): the real Claude Code CLI (see
//! `claude_code.rs`) in a project set up with `megg setup`, against the mock Anthropic API
//! scripted with a compaction summary. A session works, `/compact`s (the mock writes the
//! summary), and the next new session's model receives megg's context with that summary in a
//! fence under a heading that says it is model-written.
//!
//! As measured with Claude Code 2.1.332 (`tests/fixtures/hook-inputs/README.md`): `/compact`
//! runs `PreCompact`, then `SessionStart` with `source: compact`, then `PostCompact`, whose
//! `compact_summary` is the model's answer as it wrote it.

use serde_json::{Value, json};

use crate::capture_e2e::{assert_auto, section};
use crate::claude_code::{HOOK_PREFIX, Mock, Session, texts};

/// What the mock's model answers to the compaction request: the shape Claude Code asks for,
/// a decision and a failing test the next session should learn about.
const SUMMARY: &str = "<analysis>
The user asked me to build the transcript parser. I wrote src/parser.rs. We chose Postgres over SQLite.
</analysis>

<summary>
1. Primary Request and Intent:
   The user asked to build the transcript parser for the session store.

2. Key Technical Concepts:
   - Decisions: use Postgres not SQLite for the session store HOST-SUMMARY-MARKER.

4. Errors and fixes:
   - Errors: test parser::tests::crlf fails (the CR stays at the end of each line).

7. Pending Tasks:
   - Fix parser::tests::crlf.
</summary>";

/// Claude Code's fixed sentences around the summary in its transcript (2.1.332): never part
/// of what megg injects.
const FIXED: [&str; 3] = [
    "This session is being continued from a previous conversation",
    "Continue the conversation from where it left off",
    "read the full transcript at:",
];

/// A hook, added to the private HOME's user settings, that appends every input it gets to
/// `hook-events.jsonl` in that HOME: the events Claude Code ran, in order.
fn record_hook_events(s: &Session) {
    let record = format!("cat >> '{}'", s.p.path("home/hook-events.jsonl").display());
    let handler = json!([{"hooks": [{"type": "command", "command": record}]}]);
    let settings = json!({
        "enableAllProjectMcpServers": true,
        "hooks": {
            "PreCompact": handler,
            "SessionStart": handler,
            "PostCompact": handler,
        },
    });
    std::fs::write(s.p.path("home/.claude/settings.json"), settings.to_string()).unwrap();
}

/// The hook inputs recorded so far.
fn hook_events(s: &Session) -> Vec<Value> {
    std::fs::read_to_string(s.p.path("home/hook-events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The SessionStart hook's context in a request (the text after [`HOOK_PREFIX`]).
fn hook_text(body: &Value) -> String {
    let texts = texts(body);
    texts
        .iter()
        .find_map(|t| {
            t.find(HOOK_PREFIX)
                .map(|i| t[i + HOOK_PREFIX.len()..].to_string())
        })
        .unwrap_or_else(|| panic!("no SessionStart hook context in {texts:#?}"))
}

/// SPEC §18.1: after `/compact`, a new session's model gets megg's context with the summary
/// Claude Code's model wrote, fenced, under a heading saying it is a model-written summary,
/// after megg's own sections; `megg setup` registered `PostCompact`.
#[test]
fn a_new_session_gets_the_summary_written_at_compaction() {
    let Some(s) = Session::with_setup(true) else {
        return;
    };
    s.p.ok("", &["state", "clear"]);
    record_hook_events(&s);
    let file = s.p.path("src/parser.rs");
    let prompt = "Build the transcript parser";
    let mock = Mock::start(
        s.p.root(),
        &json!({
            "turns": [
                [{"type": "text", "text": "Writing the parser."},
                 {"type": "tool_use", "name": "Write",
                  "input": {"file_path": file.to_str().unwrap(),
                            "content": "pub fn parse() {}\n"}}],
                [{"type": "text", "text": "Wrote src/parser.rs; parser::tests::crlf fails."}]
            ],
            "summary": SUMMARY,
        }),
    );

    // The session works, and hands off.
    let first = s.claude(&mock, prompt, &["--allowedTools", "Write"], &[]);
    let id = first["session_id"].as_str().unwrap().to_string();
    assert_eq!(s.p.read("src/parser.rs"), "pub fn parse() {}\n");
    let state = s.p.read(".megg/state.md");
    let content = assert_auto(&state, &id);
    assert_eq!(section(&content, "Working On"), format!("{prompt}\n\n"));

    // It compacts: the mock's model answers the summary request.
    let compacted = s.claude(&mock, "/compact", &["--continue"], &[]);
    assert_eq!(compacted["session_id"], id.as_str(), "{compacted}");
    assert_eq!(compacted["local_command"], "compact", "{compacted}");
    let events: Vec<Value> = hook_events(&s)
        .into_iter()
        .filter(|e| e["session_id"] == id.as_str())
        .collect();
    let names: Vec<String> = events
        .iter()
        .map(|e| match e["source"].as_str() {
            Some(source) => format!("{}:{source}", e["hook_event_name"].as_str().unwrap()),
            None => e["hook_event_name"].as_str().unwrap().to_string(),
        })
        .collect();
    assert_eq!(
        names,
        [
            "SessionStart:startup",
            "SessionStart:resume",
            "PreCompact",
            "SessionStart:compact",
            "PostCompact",
        ],
        "the hook events of the session, in order"
    );
    let post = events.last().unwrap();
    assert_eq!(
        post["compact_summary"], SUMMARY,
        "PostCompact hands over the model's answer as written"
    );
    let transcript = std::fs::read_to_string(post["transcript_path"].as_str().unwrap()).unwrap();
    let compact_line = transcript
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["isCompactSummary"] == true)
        .unwrap_or_else(|| panic!("no isCompactSummary line in the transcript"));
    let message = compact_line["message"]["content"].as_str().unwrap();
    assert!(
        message.starts_with(FIXED[0]) && message.contains("HOST-SUMMARY-MARKER"),
        "{message}"
    );

    // A new session: its model gets the summary, fenced, after megg's own sections.
    let next_mock = Mock::start(s.p.root(), &json!([]));
    let next = s.claude(&next_mock, "what is next?", &[], &[]);
    assert_ne!(next["session_id"], id.as_str());
    let hook = hook_text(&next_mock.agent_requests()[0]);
    let lines: Vec<&str> = hook.lines().collect();
    let headings: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.to_lowercase();
            l.starts_with('#') && l.contains("summary") && l.contains("model-written")
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        headings.len(),
        1,
        "one heading saying it is a model-written summary:\n{hook}"
    );
    let heading = headings[0];
    let before = lines[..heading].join("\n");
    assert!(
        before.contains(prompt) && before.contains("## Working On"),
        "the summary comes after megg's own sections (the handoff):\n{hook}"
    );
    assert!(
        !before.contains("HOST-SUMMARY-MARKER"),
        "the summary text is never part of the handoff:\n{hook}"
    );
    let open = heading
        + 1
        + lines[heading + 1..]
            .iter()
            .position(|l| l.starts_with("```"))
            .unwrap_or_else(|| panic!("no fence after the heading:\n{hook}"));
    // The opening line may name the text's kind (`text`); the closing one is the backticks.
    let fence = &lines[open][..lines[open].bytes().take_while(|b| *b == b'`').count()];
    assert!(
        fence.len() >= 5 && !lines[open][fence.len()..].contains('`'),
        "a fence of at least 5 backticks: {:?}\n{hook}",
        lines[open]
    );
    let close = open
        + 1
        + lines[open + 1..]
            .iter()
            .position(|l| *l == fence)
            .unwrap_or_else(|| panic!("the fence is never closed:\n{hook}"));
    let inside = lines[open + 1..close].join("\n");
    for needed in [
        "Decisions: use Postgres not SQLite for the session store HOST-SUMMARY-MARKER.",
        "Errors: test parser::tests::crlf fails (the CR stays at the end of each line).",
        "Fix parser::tests::crlf.",
    ] {
        assert!(
            inside.contains(needed),
            "{needed:?} inside the fence:\n{hook}"
        );
    }
    assert_eq!(
        hook.matches("HOST-SUMMARY-MARKER").count(),
        1,
        "the summary once, inside its fence:\n{hook}"
    );
    for tag in ["<summary>", "</summary>", "<analysis>", "</analysis>"] {
        assert!(!inside.contains(tag), "{tag} loses its tag:\n{inside}");
    }
    for fixed in FIXED {
        assert!(!hook.contains(fixed), "{fixed:?} in the context:\n{hook}");
    }

    // `megg setup` registered PostCompact beside PreCompact.
    let settings: Value = serde_json::from_str(&s.p.read(".claude/settings.json")).unwrap();
    let post_compact = settings["hooks"]["PostCompact"].to_string();
    assert!(
        post_compact.contains("megg"),
        "megg setup registers PostCompact: {settings:#}"
    );
}
