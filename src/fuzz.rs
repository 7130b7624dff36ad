//! The fuzz targets' bodies (SPEC §16 "Fuzzed, not hoped"): one function per parser of outside
//! input, each calling megg's own parsing and merging code the way the commands do and checking
//! the invariants that are cheap to check. `fuzz/fuzz_targets/*.rs` (libFuzzer, nightly) are
//! one-line calls of these; `tests/fuzz_regressions.rs` runs every seed and every crash ever
//! found through the same functions on stable, so a crash becomes a regression test by copying
//! its input into `fuzz/regressions/<target>/`.
//!
//! Not part of megg's interface: hidden from the docs, used only by those two.
//!
//! Inputs made of several texts (the merge's three versions, a query and the documents it
//! searches) are split at `0xFF` bytes, which never occur in UTF-8: each part stays readable
//! text in a seed file, and the fuzzer finds the separator in no time.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};

use crate::claude::HookInput;
use crate::commands::context::Session;
use crate::frontmatter;
use crate::host::{self, Agent};
use crate::megg::capture::SessionId;
use crate::megg::capture::format;
use crate::megg::capture::handoff::{self, Facts};
use crate::megg::capture::transcript::{Origin, Scan};
use crate::megg::checkpoint::{self, Changes, Kind as CheckpointKind, Phase};
use crate::megg::recall::doc::Source;
use crate::megg::recall::search::{self, Query};
use crate::megg::recall::{self, Kind as DocKind, Postings};
use crate::megg::setup::{self, Hook, Marker};
use crate::megg::{conflict, knowledge, maintain, merge, state};
use crate::tokens::Counter;

/// What every fuzz target runs first. libFuzzer's harness (libfuzzer-sys) makes every panic
/// abort the process, even one megg catches on purpose (`setup::toml::parse` turns toml_edit's
/// panics into a parse error): back to Rust's own hook, a panic megg catches is not a crash,
/// and one it does not catch still ends the run — the harness aborts when it reaches it — after
/// the hook printed its message and location.
pub fn init() {
    drop(std::panic::take_hook());
}

/// The agent hosts, each fuzzed with every host-dependent reader.
const AGENTS: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Copilot];

/// Where the merge driver is pointed: a path it merges by entry.
const KNOWLEDGE_PATH: &str = ".megg/knowledge.md";

/// The fixed "now" of every check that needs a clock.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0)
        .single()
        .unwrap_or_default()
}

/// The parts of an input separated by `0xFF` bytes.
fn parts(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == 0xFF).collect()
}

/// Bytes as megg reads a text file: invalid UTF-8 as replacement characters (`fsx::read_text`).
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// Whether `part` is a slice of `whole` (the parsers hand out slices, never copies).
fn within(whole: &str, part: &str) -> bool {
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    p >= w && p + part.len() <= w + whole.len()
}

/// `knowledge.md` (SPEC §3, §6, §11): the one entry parser and everything that reads its
/// entries — context's topic filter, summary digest and blocked message, maintain's analysis
/// and archive plan, `learn --file`'s entry file and the append.
///
/// Checks: [`knowledge::document`]'s slices reassemble the text byte for byte and its entries
/// are [`knowledge::parse`]'s; every entry is a slice starting with its `## ` header; an
/// archive plan moves entries without losing or duplicating one; an appended entry reads back
/// as the last one, with its title.
pub fn knowledge(data: &[u8]) {
    let text = text(data);
    let text = text.as_str();

    let doc = knowledge::document(text);
    let mut whole = String::with_capacity(text.len());
    whole.push_str(doc.frontmatter);
    whole.push_str(doc.preamble);
    assert_eq!(doc.gaps.len(), doc.entries.len(), "one gap per entry");
    for (gap, e) in doc.gaps.iter().zip(&doc.entries) {
        whole.push_str(gap);
        whole.push_str(e.raw);
    }
    whole.push_str(doc.tail);
    assert!(whole == text, "document() lost or added bytes");

    let body = frontmatter::split(text).body;
    let entries = knowledge::parse(body);
    assert!(entries == doc.entries, "document() and parse() disagree");
    for e in &entries {
        assert!(within(body, e.raw), "an entry is not a slice of the body");
        assert!(e.raw.starts_with("## "), "an entry without its header");
        assert!(within(e.raw, e.title), "a title outside its entry");
        let _ = (e.heading(), knowledge::normalized(e.raw));
    }

    // What context loads: conflicts replaced by OURS' side, then the entries, by topic or not.
    let _ = conflict::count(text);
    let _ = conflict::both(text);
    let loaded = conflict::ours(text);
    let loaded_entries = knowledge::parse(frontmatter::split(&loaded).body);
    let counts = knowledge::topic_counts(&loaded_entries);
    let _ = knowledge::topic_list(&counts);
    let first_line = text.lines().next().unwrap_or("");
    let queries = entries
        .iter()
        .flat_map(|e| e.topics.iter().copied())
        .take(4)
        .chain([first_line]);
    for query in queries {
        let picked = knowledge::filter(&loaded_entries, query);
        let _ = knowledge::join(&picked);
    }
    let counter = Counter::new(None);
    let _ = knowledge::summary(&loaded_entries, text.len(), &counter);
    let _ = knowledge::blocked_message(&loaded_entries, text.len(), ".megg/knowledge.md", true);

    // What maintain reads and writes.
    let today = now().date_naive();
    let mut report = maintain::DomainReport::default();
    maintain::analyse(&mut report, text, text.len(), today);
    let _ = maintain::actions(&[report], today);
    let before = NaiveDate::from_ymd_opt(2100, 1, 1).unwrap_or(today);
    let plan = maintain::plan_archive(body, before);
    let moved: usize = plan.by_year.values().map(Vec::len).sum();
    assert_eq!(
        knowledge::parse(&plan.remaining_body).len() + moved,
        entries.len(),
        "archiving lost or duplicated an entry"
    );
    for (year, picked) in &plan.by_year {
        let (archive, added) = maintain::append_to_archive(None, *year, picked, "now");
        assert_eq!(added, picked.len());
        let _ = knowledge::document(&archive);
    }

    // What `learn --file` reads, and the append it makes.
    if let Ok(f) = knowledge::entry_file(text)
        && let Ok(entry) =
            knowledge::new_entry("2026-01-17", &f.title, &f.kind, &f.topics, &f.content)
    {
        let _ = knowledge::secret_in(&entry);
        for existing in [None, Some(text)] {
            let appended = knowledge::append(existing, &entry, "2026-01-17T10:30:00Z");
            let doc = knowledge::document(&appended);
            let last = doc.entries.last().map(|e| e.title);
            assert_eq!(last, Some(entry.title.as_str()), "the appended entry");
        }
    }
}

/// `---` frontmatter (SPEC §2): the split, the YAML mapping, and the single-key edits every
/// writer makes.
///
/// Checks: the split's body is the end of the text and its YAML sits right after the opening
/// fence; in YAML that reads, a key megg sets to any text reads back as that text.
pub fn frontmatter(data: &[u8]) {
    let text = text(data);
    let text = text.as_str();
    let split = frontmatter::split(text);
    assert!(
        text.ends_with(split.body),
        "the body is not the end of the text"
    );
    let Some(yaml) = split.yaml else {
        assert!(
            split.body == text,
            "no frontmatter, yet the body is not the text"
        );
        return;
    };
    let opened = text.strip_prefix('\u{feff}').unwrap_or(text);
    let fence = format!("---{}", split.newline);
    assert!(
        opened.starts_with(&format!("{fence}{yaml}")),
        "the YAML is not after the fence"
    );

    let value = split.body.lines().next().unwrap_or("");
    let Ok(fields) = frontmatter::parse(yaml) else {
        return;
    };
    let keys: Vec<String> = fields.keys().map(str::to_string).collect();
    for key in &keys {
        let _ = (fields.value(key), fields.get_str(key));
        let block = frontmatter::key_block(yaml, key);
        let _ = frontmatter::set_block(yaml, key, block, split.newline);
        let _ = frontmatter::set_block(yaml, key, None, split.newline);
    }
    for key in &keys {
        let edited = frontmatter::set(yaml, key, value, split.newline);
        let _ = frontmatter::parse(&edited);
        let _ = frontmatter::join(&edited, split.body, split.newline);
    }
    // The keys megg sets (checkpoints, states, the merge's times), present or not: set to any
    // text, they read back as that text, and the rest of the YAML still reads. (Line by line:
    // a mapping written in flow style, `{phase: work}`, is out of scope.)
    if !block_style(yaml) {
        return;
    }
    for key in MEGG_KEYS {
        let edited = frontmatter::set(yaml, key, value, split.newline);
        let read = match frontmatter::parse(&edited) {
            Ok(read) => read,
            Err(e) => panic!("setting `{key}` broke the YAML ({e}): {edited:?}"),
        };
        assert_eq!(
            read.get_str(key).as_deref(),
            Some(value),
            "`{key}` did not read back: {edited:?}"
        );
    }
}

/// Whether every top-level line of `yaml` is a comment or a `key: value` line of a block
/// mapping (not a flow mapping, a complex key, a directive, a tag or an anchor).
fn block_style(yaml: &str) -> bool {
    // Top-level keys at the start of their lines, as megg and people write frontmatter: a
    // mapping indented as a whole (` key: v`) is out of scope too.
    // Lines as YAML reads them: a lone `\r` breaks a line too (found by the fuzz gate:
    // `\r  key: v` is an indented mapping, not a top-level key).
    let lines = || yaml.split(['\n', '\r']);
    let first = lines().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    // Anchors and aliases (`&a`, `*a`) are out of scope too: setting the key that holds an
    // anchor leaves its aliases pointing nowhere.
    // So is YAML that opens with a document end (`...`): no writer makes one, and what follows
    // it is read as a new document whose indentation YAML judges apart (found by the fuzz gate).
    // So is a flow collection left open at a line's end (`key: {a: 1,` … `}`): the lines
    // after it are inside it, not top-level keys, whatever their indentation (found by the
    // fuzz gate: `phase: w` inside `key: {…}` was set as a key of its own).
    let flow_open = |l: &str| l.matches(['{', '[']).count() > l.matches(['}', ']']).count();
    !yaml.contains(['&', '*'])
        && !lines().any(flow_open)
        && first.is_none_or(|l| !l.starts_with([' ', '\t']) && !l.starts_with("..."))
        && lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with([' ', '\t', '#']))
            .all(|l| !l.starts_with(['{', '[', '?', '%', '!', '&', '*', '|', '>', '-', ':', ',']))
}

/// The frontmatter keys megg writes.
const MEGG_KEYS: [&str; 8] = [
    "feature",
    "plan_file",
    "phase",
    "branch",
    "head",
    "status",
    "updated",
    "created",
];

/// `state.md` (SPEC §2.3, §5): reading it, the expiry rule, and the file megg writes.
///
/// Checks: what megg writes reads back as what it was given — the content byte for byte, the
/// branch, the head and the time — whatever the text.
pub fn state(data: &[u8]) {
    let text = text(data);
    let text = text.as_str();
    let doc = state::parse(text, "state.md");
    let _ = state::expiry(&doc, now()).reason();
    let _ = recall::handoff_sections(&doc.content, &["Working On", "Next"]).count();
    let first = text.lines().next().unwrap_or("");
    let _ = crate::clock::parse_timestamp(first);
    // The open items a later capture carries over from it, as replaced handoff and as the
    // session's own previous capture (SPEC §18.2): every text is one, and carrying is bounded.
    let sources = crate::megg::capture::carry::Sources {
        session: first,
        replaced: Some((text, crate::megg::state::Lifetime::default())),
        previous: Some(text),
        tasks: &[],
        now: now(),
    };
    let carried =
        crate::megg::capture::carry::into_handoff(String::from("## Next\n"), &sources, |_| true);
    assert!(carried.lines().count() <= 64, "carried without bound");
    // The text as a host summary the context fences (SPEC §18.1): no host tag survives, no
    // line starts a heading, and the fence cannot be closed from inside.
    let fenced = crate::megg::capture::summary::sanitise(text);
    let fence = crate::megg::capture::summary::fence_for(&fenced);
    assert!(
        !fenced.lines().any(|l| l.trim_start().starts_with(&fence)),
        "closes its fence"
    );
    assert!(
        !fenced.lines().any(|l| l.starts_with('#')),
        "a heading left in a summary"
    );

    let written = state::render(text, now(), Some(first), Some(first));
    let read = state::parse(&written, "state.md");
    assert!(read.content == text, "the content did not read back");
    let kept = (!first.is_empty()).then(|| first.to_string());
    assert_eq!(read.branch, kept, "the branch did not read back");
    assert_eq!(read.head, kept, "the head did not read back");
    assert_eq!(read.updated, Some(now()), "the time did not read back");
    assert_eq!(state::expiry(&read, now()), state::Expiry::Active);
}

/// Workflow checkpoints (`.<slug>.local.md`, SPEC §2.4): classifying a file, its items, and
/// the edits `checkpoint save` makes.
///
/// Checks: an edited checkpoint is still one, with the same feature and plan, the new phase and
/// branch, the items checked and unchecked as asked and no other item changed; a new checkpoint
/// reads back with the fields it was written with.
pub fn checkpoint(data: &[u8]) {
    let text = text(data);
    let text = text.as_str();
    let first = text.lines().next().unwrap_or("");
    let kind = checkpoint::classify(text);
    if let CheckpointKind::Checkpoint(cp) = &kind {
        let _ = cp.known_phase();
        let _ = checkpoint::format::match_item(&cp.items, first);
        let changes = Changes {
            plan_file: None,
            phase: Some(Phase::Work),
            branch: Some(first.to_string()),
            head: Some("abc123".into()),
            updated: Some(now()),
            check: vec![0],
            uncheck: vec![1],
        };
        let edited = checkpoint::format::edit(text, &changes);
        let after = match checkpoint::classify(&edited) {
            CheckpointKind::Checkpoint(after) => after,
            other => panic!("an edited checkpoint is no longer one ({other:?}): {edited:?}"),
        };
        assert_eq!(after.feature, cp.feature);
        assert_eq!(after.plan_file, cp.plan_file);
        assert_eq!(after.known_phase(), Some(Phase::Work));
        let kept = (!first.is_empty()).then(|| first.to_string());
        assert_eq!(after.branch, kept, "the branch did not read back");
        assert_eq!(after.updated, Some(now()));
        assert_eq!(
            after.items.len(),
            cp.items.len(),
            "an edit changed the items"
        );
        for (i, (a, b)) in cp.items.iter().zip(&after.items).enumerate() {
            assert_eq!(a.text, b.text, "an edit changed item {i}'s text");
            let done = match i {
                0 => true,
                1 => false,
                _ => a.done,
            };
            assert_eq!(b.done, done, "item {i}");
        }
    }
    let _ = checkpoint::format::parse_items(text);

    let new = checkpoint::format::render_new(first, first, Phase::PlanComplete, first, "", now());
    let CheckpointKind::Checkpoint(cp) = checkpoint::classify(&new) else {
        panic!("a new checkpoint does not read back as one: {new:?}");
    };
    assert_eq!(cp.feature, first);
    assert_eq!(cp.plan_file, first);
    assert_eq!(cp.known_phase(), Some(Phase::PlanComplete));
    assert_eq!(cp.started, Some(now()));
}

/// Each host's hook input on stdin (SPEC §3.3, §10, §12): one reader for all four hosts, then
/// what the SessionStart hook and capture take from it, per host.
///
/// Checks: the hook document built around any text the input carries is one valid JSON value
/// holding that text.
pub fn hook_input(data: &[u8]) {
    let text = text(data);
    let Some(input) = HookInput::parse(&text) else {
        return;
    };
    let _ = input.is_copilot();
    for agent in AGENTS {
        if let Some(id) = input.session_id.as_deref() {
            let session = SessionId::of(agent, id);
            assert_eq!(session.is_some(), !id.is_empty());
            if let Some(s) = session {
                let safe = s.as_str();
                assert!(
                    !safe.is_empty()
                        && safe != "."
                        && safe != ".."
                        && safe.len() <= 128
                        && safe
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
                    "a session id unsafe as a file name: {safe:?}"
                );
            }
        }
        let _ = Session::of(&input, agent, true);
        let said = input
            .prompt
            .as_deref()
            .or(input.initial_prompt.as_deref())
            .or(input.last_assistant_message.as_deref())
            .unwrap_or("");
        let document = host::hook_document(agent.host(), said, said);
        let value: serde_json::Value =
            serde_json::from_str(&document).unwrap_or(serde_json::Value::Null);
        assert!(value.is_object(), "the hook document is not a JSON object");
        assert!(document.contains(&serde_json::to_string(said).unwrap_or_default()));
    }
}

/// One host's transcript (SPEC §10, §12): its lines through the scan, the facts a capture
/// takes from it, the handoff and the `state.md` written from them.
///
/// Checks: the scan survives a round trip through the JSON the session's progress is saved in;
/// the handoff reads back from `state.md` as written.
pub fn transcript(agent: Agent, data: &[u8]) {
    let mut main = Scan::default();
    let mut sub = Scan::default();
    for line in data.split_inclusive(|&b| b == b'\n') {
        // As `capture::read` does: UTF-8 when it is, else with replacement characters.
        let line = String::from_utf8_lossy(line);
        format::feed(&mut main, agent, &line, Origin::Main);
        format::feed(&mut sub, agent, &line, Origin::Subagent);
    }
    for scan in [&main, &sub] {
        let saved = serde_json::to_string(scan).unwrap_or_default();
        let back: Option<Scan> = serde_json::from_str(&saved).ok();
        assert!(
            back.as_ref() == Some(scan),
            "the scan did not survive its save"
        );
        let facts = Facts {
            first_request: scan.first_request.clone(),
            latest_request: scan.latest_request.clone(),
            latest_ack: scan.ack.clone(),
            tasks: scan.task_list().to_vec(),
            files: scan.files.iter().rev().cloned().collect(),
            commits: None,
            branch: None,
            head: None,
            checkpoint: scan.checkpoint.clone().map(|c| (c, None)),
            last_message: scan.last_message.clone(),
            failing: scan.failing.clone(),
            transcript: None,
        };
        let _ = facts.is_empty();
        let content = handoff::render(&facts);
        let written = state::render(&content, now(), None, None);
        assert!(state::parse(&written, "state.md").content == content);
    }
}

/// Claude Code's transcript lines.
pub fn transcript_claude(data: &[u8]) {
    transcript(Agent::Claude, data);
}

/// Codex CLI's rollout lines.
pub fn transcript_codex(data: &[u8]) {
    transcript(Agent::Codex, data);
}

/// Gemini CLI's chat records.
pub fn transcript_gemini(data: &[u8]) {
    transcript(Agent::Gemini, data);
}

/// Copilot CLI's `events.jsonl` lines.
pub fn transcript_copilot(data: &[u8]) {
    transcript(Agent::Copilot, data);
}

/// The JSON (and JSONC: Gemini's comments) settings and hooks files setup merges into (SPEC
/// §7, §12): megg's hooks and MCP server added and removed for every host, the way `setup`
/// and `setup --uninstall` plan them; and the files setup installs whole, told apart by their
/// last line.
///
/// Checks: a hook added is found, adding it again changes nothing, removing it removes it; the
/// same for the MCP server; what megg writes is JSON that reads back as the value.
pub fn settings_json(data: &[u8]) {
    let text = text(data);
    let _ = setup::hosts::strip_comments(&text);
    for marker in [Marker::Html, Marker::Hash] {
        let _ = setup::classify_installed_with(marker, &text, "template");
    }
    let _ = setup::merge::split(&text);
    let value = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => v,
        Err(_) => {
            match setup::hosts::strip_comments(&text).and_then(|t| serde_json::from_str(&t).ok()) {
                Some(v) => v,
                None => return,
            }
        }
    };
    let _ = setup::active::plugin_enabled(&value);
    for agent in AGENTS {
        let host = agent.host();
        let _ = setup::trust::find_hook(&value, host);
        for hook in [Hook::Context, Hook::Capture] {
            let _ = setup::hook_commands_of(&value, host, hook);
            let _ = setup::trust::find_hooks(&value, host, hook);
            let command = hook.command_of(host, "megg");
            let mut v = value.clone();
            // An error is a refusal: `plan_json` drops the value and writes nothing.
            if setup::add_hook_of(&mut v, host, hook, &command).is_ok() {
                for event in hook.events_of(host) {
                    assert!(
                        setup::event_commands_of(&v, host, hook, event).contains(&command),
                        "an added hook is not found"
                    );
                }
                assert_eq!(
                    setup::add_hook_of(&mut v, host, hook, &command),
                    Ok(false),
                    "adding a hook twice"
                );
                written_reads_back(&v);
                assert!(setup::remove_hook_of(&mut v, host, hook, &command));
                for event in hook.events_of(host) {
                    assert!(
                        !setup::event_commands_of(&v, host, hook, event).contains(&command),
                        "a removed hook is still there"
                    );
                }
                assert!(!setup::remove_hook_of(&mut v, host, hook, &command));
                written_reads_back(&v);
            }
        }
    }
    let mut v = value.clone();
    let entry = setup::copilot_mcp_entry("megg").unwrap_or_default();
    for wanted in [setup::mcp_entry("megg").unwrap_or_default(), entry] {
        if setup::add_mcp_entry(&mut v, wanted.clone()).is_ok() {
            assert!(setup::has_mcp(&v));
            assert_eq!(setup::add_mcp_entry(&mut v, wanted), Ok(false));
            written_reads_back(&v);
            assert!(setup::remove_mcp(&mut v));
            assert!(!setup::has_mcp(&v));
            written_reads_back(&v);
        }
    }
}

/// What setup writes of `value` is JSON that reads back as it — but for the last bit of a
/// number past the integers (serde_json reads floats to within one unit in the last place).
fn written_reads_back(value: &serde_json::Value) {
    let written = setup::to_text(value);
    let back: Option<serde_json::Value> = serde_json::from_str(&written).ok();
    assert!(
        back.is_some_and(|b| same(&b, value)),
        "written JSON does not read back"
    );
}

/// `a` and `b` are the same JSON value, floats within a unit in the last place.
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() && y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.to_bits().abs_diff(y.to_bits()) <= 1
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

/// Codex's `config.toml` (SPEC §12), merged with toml_edit: `[mcp_servers.megg]` added and
/// removed.
///
/// Checks: what megg writes is TOML that parses, with the server found after adding it and
/// gone after removing it; adding it twice changes nothing.
pub fn settings_toml(data: &[u8]) {
    let text = text(data);
    let Ok(mut doc) = setup::toml::parse(&text) else {
        return;
    };
    let _ = setup::toml::mcp_command(&doc);
    let had = setup::toml::has_mcp(&doc);
    if setup::toml::add_mcp(&mut doc, "megg").is_ok() {
        assert!(setup::toml::has_mcp(&doc));
        assert_eq!(setup::toml::mcp_command(&doc).as_deref(), Some("megg"));
        assert_eq!(setup::toml::add_mcp(&mut doc, "megg"), Ok(false));
        let written = doc.to_string();
        let Ok(mut back) = written.parse::<toml_edit::DocumentMut>() else {
            panic!("written TOML does not parse: {written:?}");
        };
        assert!(setup::toml::has_mcp(&back));
        assert!(
            setup::toml::remove_mcp(&mut back),
            "megg's server is found (has_mcp) but cannot be removed (remove_mcp): {written:?}"
        );
        assert!(!setup::toml::has_mcp(&back));
        let written = back.to_string();
        assert!(
            written.parse::<toml_edit::DocumentMut>().is_ok(),
            "TOML without megg does not parse: {written:?}"
        );
    } else {
        assert!(!had || setup::toml::remove_mcp(&mut doc));
    }
}

/// The merge driver (SPEC §11): three versions (base, ours, theirs, split at `0xFF`; one part
/// is the same file three times, two have no base; a fourth part's length sets the marker
/// size) through `merge_knowledge`, as `megg merge-driver` and `megg resolve` call it.
///
/// Checks: the merge of a file with itself is clean and the file, byte for byte; when THEIRS
/// changed nothing, a clean merge keeps OURS after the frontmatter; a clean merge of texts is
/// text; what committed conflict markers hold merges without panicking.
pub fn merge(data: &[u8]) {
    let parts = parts(data);
    let marker = parts
        .get(3)
        .map_or(merge::DEFAULT_MARKER_SIZE, |p| p.len() % 16 + 1);
    let (base, ours, theirs) = match parts.as_slice() {
        [one] => (Some(*one), *one, *one),
        [ours, theirs] => (None, *ours, *theirs),
        [base, ours, theirs, ..] => (Some(*base), *ours, *theirs),
        [] => return,
    };
    let m = merge::merge_knowledge(base, ours, theirs, KNOWLEDGE_PATH, marker);
    let utf8 = |b: &[u8]| std::str::from_utf8(b).is_ok();
    if m.is_clean() && utf8(ours) && utf8(theirs) && base.is_none_or(utf8) {
        let merged = std::str::from_utf8(&m.bytes);
        assert!(merged.is_ok(), "a clean merge of texts is not text");
        let _ = merged.map(knowledge::document);
    }
    let _ = m.conflicted_entries();
    let _ = merge::merge_knowledge(base, ours, theirs, "README.md", marker);

    for side in [Some(ours), Some(theirs), base].into_iter().flatten() {
        let Ok(file) = std::str::from_utf8(side) else {
            continue;
        };
        let parses = frontmatter::split(file)
            .yaml
            .is_none_or(|y| frontmatter::parse(y).is_ok());
        for base in [Some(side), None] {
            let m = merge::merge_knowledge(base, side, side, KNOWLEDGE_PATH, marker);
            if parses {
                assert!(
                    m.is_clean(),
                    "a file merged with itself conflicts: {:?}",
                    m.conflicts
                );
                assert!(m.bytes == side, "a file merged with itself changed");
            }
        }
        // `megg resolve` of committed markers: each side's whole version, merged.
        if let Some((o, t)) = conflict::both(file) {
            let _ =
                merge::merge_knowledge(None, o.as_bytes(), t.as_bytes(), KNOWLEDGE_PATH, marker);
        }
    }
    if let (Some(base), Ok(ours_text)) = (base, std::str::from_utf8(ours)) {
        let m = merge::merge_knowledge(Some(base), ours, base, KNOWLEDGE_PATH, marker);
        if m.is_clean() {
            let body = |t: &str| frontmatter::split(t).body.to_string();
            let merged = String::from_utf8_lossy(&m.bytes);
            assert!(
                body(&merged) == body(ours_text),
                "THEIRS changed nothing, yet OURS changed"
            );
        }
    }
}

/// Recall (SPEC §13): a query (the first part, split at `0xFF`) over a small fixed corpus —
/// knowledge entries, an info file and a handoff, in the languages people write — plus, when
/// there is a second part, that text read as a knowledge file, an info file and a handoff; a
/// third part is the topic filter, a fourth the date filter. The session-start index is ranked
/// by the query too.
///
/// Checks: no more hits than the limit, never more than matched; every highlighted range lies
/// on character boundaries of the text it marks.
pub fn recall(data: &[u8]) {
    let parts = parts(data);
    let part = |i: usize| parts.get(i).map(|p| text(p));
    let query = part(0).unwrap_or_default();
    let mut sources = vec![
        source(
            DocKind::Knowledge,
            "/p/.megg/knowledge.md",
            CORPUS_KNOWLEDGE,
        ),
        source(DocKind::Archive, "/p/.megg/archive/2025.md", CORPUS_ARCHIVE),
        source(DocKind::Info, "/p/.megg/info.md", CORPUS_INFO),
        source(DocKind::Handoff, "/p/.megg/state.md", CORPUS_STATE),
    ];
    if let Some(extra) = part(1) {
        for (kind, path) in [
            (DocKind::Knowledge, "/q/.megg/knowledge.md"),
            (DocKind::Info, "/q/.megg/info.md"),
            (DocKind::Handoff, "/q/.megg/state.md"),
        ] {
            sources.push(source(kind, path, &extra));
        }
    }
    let docs = recall::parse(&sources);
    for d in &docs {
        let _ = recall::ids::is_id(d.id.as_str());
    }
    let terms = search::query_terms(&query);
    let _ = recall::ids::is_id(&query);
    for titles_only in [false, true] {
        let postings = Postings::build(&docs, titles_only);
        for (topic, since) in [(None, None), (part(2), part(3))] {
            let q = Query {
                text: query.clone(),
                kinds: Vec::new(),
                entry_type: part(2),
                topic,
                since,
                limit: 5,
            };
            let found = search::search(&docs, &postings, &q);
            assert!(
                found.hits.len() <= q.limit.max(1),
                "more hits than the limit"
            );
            assert!(found.hits.len() <= found.total, "more hits than matched");
            for h in &found.hits {
                for r in recall::text::matching(&h.snippet, &terms) {
                    assert!(h.snippet.get(r).is_some(), "a highlight inside a character");
                }
                let title = h.doc.title.as_str();
                for r in recall::text::matching(title, &terms) {
                    assert!(title.get(r).is_some(), "a highlight inside a character");
                }
            }
        }
    }
    for line in recall::index::build(&docs, &query) {
        let _ = line.width();
    }
}

fn source(kind: DocKind, path: &str, text: &str) -> Source {
    Source {
        kind,
        path: Arc::from(Path::new(path)),
        domain: "p".into(),
        place: "p".into(),
        text: Arc::new(text.to_string()),
    }
}

/// The fixed corpus recall searches: what people write, in several languages.
const CORPUS_KNOWLEDGE: &str = "---\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-01-17T10:30:00Z\ntype: knowledge\n---\n\n# Knowledge\n\n---\n\n## 2026-01-17 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\nTokens live in `httpOnly` cookies; `parseWebhookEvent` checks the signature.\n\n---\n\n## 2026-01-18 - Café au lait: caching\n**Type:** gotcha\n**Topics:** café, cache\n\n**Café** is where the façade's naïve cache lives — crème brûlée.\n\n---\n\n## 2026-02-01 - 注意：データベースの移行\n**Type:** rule\n**Topics:** 数据库, 注意\n\n**注意** 移行は必ず`migrate`で行う。数据库迁移必须先备份。\n\n---\n\n## 2026-02-02 - ⚠️ Important: 👩‍💻 deploys\n**Type:** process\n**Topics:** deploy, 🚀\n\n**⚠️ Important** Deploy on Fridays only with 👨‍👩‍👧‍👦 approval.\n\n| step | who |\n|---|---|\n| build | CI |\n\n---\n\n## 2026-02-03 - מסד נתונים · قاعدة البيانات\n**Type:** fact\n**Topics:** עברית, العربية\n\n**Ñandú** שלום עולם — مرحبا بالعالم. e\u{301} a\u{308} Z\u{335}\u{30c}\n";

const CORPUS_ARCHIVE: &str = "---\ntype: knowledge-archive\n---\n\n# Knowledge archive 2025\n\n---\n\n## 2025-03-01 - Old retries\n**Type:** pattern\n**Topics:** retries, http\n\n```rust\nretry(3, || fetch())\n```\n";

const CORPUS_INFO: &str = "# Shop\n\n## Context\nCheckout and billing. 購物車 (cart) lives in `api/src/cart.rs`.\n\n## Rules\n- **Ñandú** never ships on Friday.\n";

const CORPUS_STATE: &str = "---\nupdated: 2026-05-31T09:43:11Z\nstatus: active\nbranch: feat/café\n---\n\n## Working On\n- The invoice export — 請求書\n\n## Next\n- Tests for 🇯🇵 locales\n";
