//! Open items are not dropped by a later session (SPEC §18.2): a capture that replaces a
//! handoff another session (or a person) wrote carries that handoff's open `## Next` items
//! into its own, under a line naming where they came from — on real repositories, with Claude
//! Code transcripts and Codex's recorded hook inputs and rollout.

use std::fs;
use std::io::Write;

use serde_json::{Value, json};

use crate::agents_capture::{Repo, section};
use crate::{NOW, epoch};

const STRIPE: &str = "Handle Stripe charge.refunded webhook";

/// `NOW` moved by `hours`.
fn hours(hours: i64) -> String {
    let at = chrono::DateTime::from_timestamp(epoch(NOW) + hours * 3600, 0).unwrap();
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Runs megg at `now` with `input`; exit 0 and nothing on stderr.
fn run_at(r: &Repo, now: &str, args: &[&str], input: &Value) -> String {
    let out = r
        .command(args, input)
        .env("MEGG_NOW", now)
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// A Claude Code session: its hook inputs and transcript.
struct Claude<'r> {
    r: &'r Repo,
    id: String,
}

impl<'r> Claude<'r> {
    /// Starts session `id` at `now` (its SessionStart hook records what it found).
    fn start(r: &'r Repo, id: &str, now: &str) -> Self {
        let s = Self { r, id: id.into() };
        run_at(
            r,
            now,
            &["context", "--format", "hook", "--agent", "claude"],
            &s.input("SessionStart"),
        );
        s
    }

    fn input(&self, event: &str) -> Value {
        json!({
            "session_id": self.id,
            "transcript_path": self.r.home(&format!("claude/projects/p/{}.jsonl", self.id)),
            "cwd": self.r.p.root(),
            "hook_event_name": event,
            "source": "startup",
        })
    }

    fn say(&self, lines: &[Value]) {
        let path = self.r.home(&format!("claude/projects/p/{}.jsonl", self.id));
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

    /// A turn: the request, the to-do list as `TodoWrite` sets it (`(text, status)`), an edit
    /// of `file`.
    fn turn(&self, request: &str, todos: &[(&str, &str)], file: &str) {
        let n = fs::read_to_string(self.r.home(&format!("claude/projects/p/{}.jsonl", self.id)))
            .map_or(0, |t| t.lines().count());
        let todos: Vec<Value> = todos
            .iter()
            .map(|(t, s)| json!({"content": t, "status": s, "activeForm": t}))
            .collect();
        self.say(&[
            user(json!(request)),
            tool_use(&format!("t{n}"), "TodoWrite", json!({ "todos": todos })),
            ok(&format!("t{n}"), "Todos have been modified successfully"),
            tool_use(
                &format!("w{n}"),
                "Write",
                json!({"file_path": self.r.p.path(file), "content": "x"}),
            ),
            ok(&format!("w{n}"), "File created"),
        ]);
    }

    fn capture(&self, now: &str) {
        let out = run_at(self.r, now, &["capture"], &self.input("Stop"));
        assert_eq!(out, "");
    }
}

fn user(content: Value) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": content}})
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": id, "name": name, "input": input}
    ]}})
}

fn ok(id: &str, text: &str) -> Value {
    user(json!([{"type": "tool_result", "tool_use_id": id, "content": text}]))
}

/// A one-turn Codex session (the recorded `exec` that writes notes.txt through its shell),
/// started and captured at `NOW`; returns its session id.
fn codex_turn(r: &Repo) -> String {
    let transcript = r.transcript(
        "codex-0.169.0-exec-write.jsonl",
        "codex/sessions/rollout.jsonl",
        |_| true,
    );
    let start = r.input("hook-inputs/codex-SessionStart.json", Some(&transcript));
    r.start("codex", &start);
    r.p.write("notes.txt", "hello\n");
    r.capture(
        "codex",
        &r.input("hook-inputs/codex-Stop.json", Some(&transcript)),
    );
    start["session_id"].as_str().unwrap().to_string()
}

/// The context a new Claude Code session receives.
fn new_session_context(r: &Repo, id: &str) -> String {
    let s = Claude { r, id: id.into() };
    let out = run_at(r, NOW, &["context", "--json"], &s.input("SessionStart"));
    let doc: Value = serde_json::from_str(&out).unwrap();
    doc["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The line naming where carried items came from, in `state`.
fn carried_line(state: &str) -> &str {
    state
        .lines()
        .find(|l| l.starts_with("- Carried from "))
        .unwrap_or_else(|| panic!("no carried items in\n{state}"))
}

/// The `megg show` id a carried line names.
fn shown_id(line: &str) -> String {
    let rest = &line[line.find("megg show ").unwrap() + "megg show ".len()..];
    rest.split([';', ')']).next().unwrap().to_string()
}

/// The bug as a user hit it: a one-turn Codex session after a Claude Code session replaced
/// the handoff whole, and the Claude session's open Next item was gone from the next context
/// (`## Next` read "(no open tasks recorded)"). Now it is carried, named by the Claude
/// session, its date and the `megg show` id of its handoff, which shows it.
#[test]
fn a_codex_session_after_a_claude_session_keeps_its_open_item() {
    let r = Repo::new();
    let a = Claude::start(&r, "claude-a", &hours(-2));
    a.turn(
        "Refunds for the Stripe integration",
        &[("Wire the checkout", "completed"), (STRIPE, "pending")],
        "src/pay.rs",
    );
    a.capture(&hours(-1));
    assert!(section(&r.state().unwrap(), "Next").contains(STRIPE));

    let codex = codex_turn(&r);
    let state = r.state().unwrap();
    assert!(state.contains(&format!("\nsession: {codex}\n")), "{state}");
    let next = section(&state, "Next");
    assert!(next.contains(&format!("  - [ ] {STRIPE}\n")), "{state}");
    assert!(!next.contains("no open tasks recorded"), "{state}");
    assert!(!next.contains("Wire the checkout"), "a done item: {state}");
    let line = carried_line(&state);
    assert!(
        line.contains("the handoff of session claude-a, ")
            && line.contains(&hours(-1))
            && line.contains("carried 1 of 3 times"),
        "{line}"
    );
    // The id names the replaced handoff, which `megg show` shows whole.
    let shown = r.p.ok("", &["show", &shown_id(line)]);
    assert!(
        shown.contains("Refunds for the Stripe integration"),
        "{shown}"
    );

    // The next session's context shows it under Next.
    let context = new_session_context(&r, "claude-c");
    let next = section(&context, "Next");
    assert!(next.contains(STRIPE), "{context}");
    assert!(
        next.contains("Carried from the handoff of session claude-a"),
        "{context}"
    );
}

/// A handoff written by hand (its Next item in Japanese and English) keeps its open item the
/// same way, named as written by hand.
#[test]
fn a_hand_written_handoffs_open_item_is_carried() {
    let r = Repo::new();
    let item = "Stripe の返金 webhook を処理する / Handle the Stripe refund webhook";
    r.p.ok(
        "",
        &[
            "state",
            "write",
            "--content",
            &format!("## Working On\n返金 / Refunds\n\n## Next\n- [ ] {item}\n- [x] 済み / done\n"),
        ],
    );
    codex_turn(&r);
    let state = r.state().unwrap();
    let next = section(&state, "Next");
    assert!(next.contains(&format!("  - [ ] {item}\n")), "{state}");
    assert!(!next.contains("済み"), "{state}");
    let line = carried_line(&state);
    assert!(
        line.starts_with(&format!(
            "- Carried from a handoff written by hand, {NOW} (megg show h"
        )),
        "{line}"
    );
    let shown = r.p.ok("", &["show", &shown_id(line)]);
    assert!(shown.contains("返金 / Refunds"), "{shown}");
    let context = new_session_context(&r, "claude-c");
    assert!(section(&context, "Next").contains(item), "{context}");
}

/// An item this session completed (the same text, case and spacing aside) is not carried;
/// the others are, and a second capture of the same session — `state.md` now its own —
/// keeps them.
#[test]
fn completed_items_are_not_carried_and_a_second_capture_keeps_the_rest() {
    let r = Repo::new();
    let a = Claude::start(&r, "claude-a", &hours(-3));
    a.turn(
        "Refunds",
        &[(STRIPE, "in_progress"), ("Email the receipts", "pending")],
        "src/pay.rs",
    );
    a.capture(&hours(-2));

    let b = Claude::start(&r, "claude-b", &hours(-1));
    b.turn(
        "Finish the webhook",
        &[("handle  stripe CHARGE.refunded webhook", "completed")],
        "src/webhook.rs",
    );
    b.capture(&hours(-1));
    let state = r.state().unwrap();
    let next = section(&state, "Next");
    assert!(next.contains("  - [ ] Email the receipts\n"), "{state}");
    assert!(
        !next.contains("Handle Stripe"),
        "completed by this session: {state}"
    );

    // A second turn: the handoff changes, `state.md` is the session's own; the carried
    // item stays.
    b.turn(
        "Now the tests",
        &[
            ("handle  stripe CHARGE.refunded webhook", "completed"),
            ("Write the webhook tests", "pending"),
        ],
        "tests/webhook.rs",
    );
    b.capture(NOW);
    let state = r.state().unwrap();
    assert!(state.contains("Write the webhook tests"), "{state}");
    let next = section(&state, "Next");
    assert!(next.contains("  - [ ] Email the receipts\n"), "{state}");
    assert_eq!(next.matches("Carried from").count(), 1, "{state}");
    assert!(carried_line(&state).contains("session claude-a"), "{state}");
    let (_, own) = r
        .written()
        .into_iter()
        .find(|(path, _)| path.ends_with("claude-b.md"))
        .expect("the session's own file");
    assert!(own.contains("  - [ ] Email the receipts\n"), "{own}");
}

/// Carried again while still open, counted, until the third replacement: the fourth session
/// after the one it was open in no longer carries it.
#[test]
fn carried_again_on_later_replacements_at_most_three_times() {
    let r = Repo::new();
    let a = Claude::start(&r, "claude-a", &hours(-10));
    a.turn("Refunds", &[(STRIPE, "pending")], "src/a.rs");
    a.capture(&hours(-10));
    for (n, id) in ["b", "c", "d", "e"].iter().enumerate() {
        let s = Claude::start(&r, id, &hours(-9 + n as i64 * 2));
        s.turn(&format!("Step {id}"), &[], &format!("src/{id}.rs"));
        s.capture(&hours(-8 + n as i64 * 2));
        let state = r.state().unwrap();
        assert!(state.contains(&format!("\nsession: {id}\n")), "{state}");
        if n < 3 {
            let line = carried_line(&state);
            assert!(line.contains("session claude-a"), "{line}");
            assert!(
                line.contains(&format!("carried {} of 3 times", n + 1)),
                "{line}"
            );
            assert!(section(&state, "Next").contains(STRIPE), "{state}");
        } else {
            assert!(!state.contains(STRIPE), "a fourth replacement: {state}");
        }
    }
}

/// An expired handoff (older than the domain's 48 hours) is replaced without carrying its
/// items; one just within its lifetime carries them.
#[test]
fn an_expired_handoff_carries_nothing() {
    for (age, carried) in [(47, true), (49, false)] {
        let r = Repo::new();
        let a = Claude::start(&r, "claude-a", &hours(-age - 1));
        a.turn("Refunds", &[(STRIPE, "pending")], "src/a.rs");
        a.capture(&hours(-age));
        codex_turn(&r);
        let state = r.state().unwrap();
        assert!(!state.contains("session: claude-a"), "{state}");
        assert_eq!(state.contains(STRIPE), carried, "{age} h old: {state}");
        assert_eq!(state.contains("Carried from"), carried, "{state}");
    }
}

/// At most 10 items are carried, in the handoff's order.
#[test]
fn at_most_ten_items_are_carried() {
    let r = Repo::new();
    let a = Claude::start(&r, "claude-a", &hours(-2));
    let items: Vec<String> = (1..=14).map(|i| format!("Open item {i:02}")).collect();
    let todos: Vec<(&str, &str)> = items.iter().map(|i| (i.as_str(), "pending")).collect();
    a.turn("Many things", &todos, "src/a.rs");
    a.capture(&hours(-1));
    codex_turn(&r);
    let state = r.state().unwrap();
    let next = section(&state, "Next");
    assert_eq!(next.matches("  - [ ] Open item").count(), 10, "{state}");
    assert!(
        next.contains("Open item 10\n") && !next.contains("Open item 11"),
        "{state}"
    );
}
