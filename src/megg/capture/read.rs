//! Reading a session's transcripts and task files (SPEC §10) with bounded memory: one
//! streaming pass, line by line, each line bounded, continuing from where the previous
//! capture of the same session stopped (a `Stop` capture runs after every turn).

use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::format;
use super::transcript::{Origin, Scan, Task, TaskStatus, one_line_cut};
use crate::fsx::{self, Boundary, Kind};
use crate::host::Agent;

/// Longest transcript line read; a longer one (a huge tool result) is skipped whole.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// Most transcript bytes one capture reads (the rest waits for the next capture).
pub const MAX_READ_BYTES: u64 = 1024 * 1024 * 1024;
/// Most subagent transcripts read.
const MAX_SUBAGENTS: usize = 100;
/// Most task files read, and the bytes of each.
const MAX_TASK_FILES: usize = 500;
const MAX_TASK_BYTES: u64 = 64 * 1024;

/// Where reading one file stopped: its identity and the offset after the last whole line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub path: PathBuf,
    pub id: (u64, u64),
    pub offset: u64,
}

/// A scan and where it stopped in each file: saved between captures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// megg's version: a cache from another version is not trusted.
    pub version: String,
    pub marks: Vec<Mark>,
    pub scan: Scan,
    /// The files changed since the session's start, as the last capture found them (hosts
    /// whose start record has a start time); `None`: not looked at yet.
    #[serde(default)]
    pub shell_edits: Option<Vec<String>>,
}

impl Progress {
    fn fresh() -> Self {
        Self {
            version: env!("CARGO_PKG_VERSION").to_string(),
            ..Self::default()
        }
    }
}

/// The transcripts of a session: its own, then its subagents' (`<transcript without
/// .jsonl>/subagents/**/agent-*.jsonl`, where Claude Code puts them).
pub fn transcripts(main: &Path) -> Vec<(PathBuf, Origin)> {
    let mut out = vec![(main.to_path_buf(), Origin::Main)];
    let Some(stem) = main.to_str().and_then(|s| s.strip_suffix(".jsonl")) else {
        return out;
    };
    let root = PathBuf::from(stem).join("subagents");
    let mut found = Vec::new();
    let mut dirs = vec![(root, 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = fsx::list_dir(&dir) else {
            continue;
        };
        for (name, kind) in entries {
            let path = dir.join(&name);
            match kind {
                Kind::Dir if depth < 2 => dirs.push((path, depth + 1)),
                Kind::File if name.to_string_lossy().ends_with(".jsonl") => found.push(path),
                _ => {}
            }
        }
    }
    found.sort();
    found.truncate(MAX_SUBAGENTS);
    out.extend(found.into_iter().map(|p| (p, Origin::Subagent)));
    out
}

/// Brings `previous` up to date with `files`: reads only what was appended since. When a file
/// was replaced, shrank, or is new in the middle of the list, everything is read again (the
/// scan's state depends on the order lines came in). Returns the progress and whether anything
/// new was read.
pub fn update(
    previous: Option<Progress>,
    files: &[(PathBuf, Origin)],
    agent: Agent,
) -> (Progress, bool) {
    let mut progress = previous
        .filter(|p| p.version == env!("CARGO_PKG_VERSION"))
        .unwrap_or_else(Progress::fresh);
    let mut opened = Vec::new();
    for (path, origin) in files {
        let b = Boundary::user(path.parent().unwrap_or(Path::new("/")), "the transcript");
        if let Ok(Some(s)) = fsx::open_stream(&b, path) {
            opened.push((path.clone(), *origin, s));
        }
    }
    // Start over only when a file read before was replaced or shrank. A file that cannot be
    // opened now (gone at session end, unreadable) keeps what was read from it; a new file
    // (a subagent that just started) is read from its start, wherever it sorts.
    let consistent = progress.marks.iter().all(|m| {
        opened
            .iter()
            .find(|(p, _, _)| *p == m.path)
            .is_none_or(|(_, _, s)| s.id == m.id && s.len >= m.offset)
    });
    if !consistent {
        progress = Progress::fresh();
    }
    let mut changed = false;
    let mut budget = MAX_READ_BYTES;
    let mut marks = Vec::with_capacity(opened.len());
    // What a later line replaces is never scanned for secrets: redacted once the pass ends.
    progress.scan.hold();
    for (path, origin, stream) in opened {
        let start = progress
            .marks
            .iter()
            .find(|m| m.path == path)
            .map_or(0, |m| m.offset);
        let mut offset = start;
        if stream.len > start && budget > 0 {
            offset = read_from(
                stream.file,
                start,
                (agent, origin),
                &mut progress.scan,
                &mut budget,
            );
            changed |= offset != start;
        }
        marks.push(Mark {
            path,
            id: stream.id,
            offset,
        });
    }
    progress.scan.seal();
    for m in &progress.marks {
        if !marks.iter().any(|n: &Mark| n.path == m.path) {
            marks.push(m.clone());
        }
    }
    progress.marks = marks;
    (progress, changed)
}

/// Feeds whole lines from `offset` into `scan`; returns the offset after the last whole line
/// (a line still being written is read again next time).
fn read_from(
    file: std::fs::File,
    offset: u64,
    (agent, origin): (Agent, Origin),
    scan: &mut Scan,
    budget: &mut u64,
) -> u64 {
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    if reader.seek(SeekFrom::Start(offset)).is_err() {
        return offset;
    }
    let mut at = offset;
    let mut line = Vec::new();
    loop {
        line.clear();
        let Some((consumed, complete)) = read_line(&mut reader, &mut line) else {
            break;
        };
        if !complete {
            break;
        }
        at += consumed as u64;
        *budget = budget.saturating_sub(consumed as u64);
        if consumed <= MAX_LINE_BYTES {
            match std::str::from_utf8(&line) {
                Ok(text) => format::feed(scan, agent, text, origin),
                Err(_) => format::feed(scan, agent, &String::from_utf8_lossy(&line), origin),
            }
        } else {
            scan.lines += 1;
            scan.skipped += 1;
        }
        if *budget == 0 {
            break;
        }
    }
    at
}

/// Reads one line into `buf`, keeping at most [`MAX_LINE_BYTES`] of it. Returns the bytes
/// consumed and whether the line ended with a newline; `None` at the end of the file.
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> Option<(usize, bool)> {
    let mut consumed = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return (consumed > 0).then_some((consumed, false)),
        };
        if chunk.is_empty() {
            return (consumed > 0).then_some((consumed, false));
        }
        // Through the first newline, or all of the chunk when it has none.
        let line = chunk
            .split_inclusive(|&b| b == b'\n')
            .next()
            .unwrap_or(chunk);
        let done = line.last() == Some(&b'\n');
        let take = line.len();
        let room = (MAX_LINE_BYTES + 1).saturating_sub(buf.len());
        buf.extend_from_slice(line.get(..room).unwrap_or(line));
        reader.consume(take);
        consumed += take;
        if done {
            return Some((consumed, true));
        }
    }
}

#[derive(Deserialize)]
struct TaskFile {
    #[serde(default)]
    id: Option<serde_json::Value>,
    subject: String,
    #[serde(default)]
    description: String,
    status: String,
}

/// The task list Claude Code keeps in `<config>/tasks/<list id>/<id>.json`, ordered by id;
/// `None` when there is none. Files it cannot read are skipped.
pub fn task_files(dir: &Path) -> Option<Vec<Task>> {
    let b = Boundary::user(dir, "the task list");
    let names = fsx::list(&b, dir).ok()?;
    let mut tasks: Vec<(u64, String, Task)> = names
        .into_iter()
        .filter(|(n, k)| *k == Kind::File && n.to_string_lossy().ends_with(".json"))
        .take(MAX_TASK_FILES)
        .filter_map(|(name, _)| {
            let text = fsx::read_text(&b, &dir.join(&name), MAX_TASK_BYTES)
                .ok()??
                .text;
            let f: TaskFile = serde_json::from_str(&text).ok()?;
            let id = match f.id {
                Some(serde_json::Value::String(s)) => s,
                Some(serde_json::Value::Number(n)) => n.to_string(),
                _ => name.to_string_lossy().trim_end_matches(".json").to_string(),
            };
            let status = TaskStatus::parse(&f.status)?;
            Some((
                id.parse().unwrap_or(u64::MAX),
                id.clone(),
                Task {
                    id: Some(id),
                    subject: one_line_cut(&f.subject, 300),
                    description: super::transcript::cut_chars(&f.description, 300),
                    status,
                },
            ))
        })
        .collect();
    if tasks.is_empty() {
        return None;
    }
    tasks.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    Some(tasks.into_iter().map(|(_, _, t)| t).collect())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use serde_json::json;

    use super::*;
    use crate::megg::capture::transcript::MAX_TASKS;
    use crate::megg::secrets;

    /// A first capture of a long session scans for secrets only the texts it keeps (SPEC §12:
    /// they are redacted before anything is cut or written): the first and latest request,
    /// the assistant's last message, the last failing run, the tasks it keeps — not every
    /// request, message, failing run and task it read on the way.
    #[test]
    fn a_pass_scans_the_requests_messages_runs_and_tasks_it_keeps_not_those_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let mut lines = Vec::new();
        let user = |content: serde_json::Value| json!({"type": "user", "message": {"role": "user", "content": content}});
        for i in 0..30 {
            lines.push(user(json!(format!(
                "request {i}: deploy with token=tok{i}Zq81xVb2"
            ))));
            lines.push(json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "text", "text": format!("message {i}: the key is sk-live{i}Qw7eRt5yUi9oP3aS")}]}}));
            let id = format!("run{i}");
            lines.push(json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "npx jest"}}]}}));
            let out = format!(
                "Exit code 1\nFAIL src/a.test.js\n  ● suite › run {i} with password=pw{i}Xc9vB7nM\n"
            );
            lines.push(user(json!([{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": true}])));
        }
        // More tasks than a scan keeps, then one whose result the pass does not see.
        for i in 0..MAX_TASKS + 5 {
            let id = format!("task{i}");
            lines.push(json!({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": id, "name": "TaskCreate",
                 "input": {"subject": format!("task {i} with token=tk{i}Hq2wE4rT6y"), "description": "d"}}]}}));
            lines.push(user(json!([{"type": "tool_result", "tool_use_id": id, "content": format!("Task #{i} created successfully")}])));
        }
        lines.push(
            json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "last", "name": "TaskCreate",
             "input": {"subject": "awaiting", "description": "password=pw0Lz8kJ6hG4"}}]}}),
        );
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();

        secrets::take_scanned();
        let (progress, _) = update(None, &[(path, Origin::Main)], Agent::Claude);
        let scanned = secrets::take_scanned();

        let scan = &progress.scan;
        assert_eq!(
            scan.first_request.as_deref(),
            Some("request 0: deploy with token=[redacted]")
        );
        assert_eq!(
            scan.latest_request.as_deref(),
            Some("request 29: deploy with token=[redacted]")
        );
        assert!(
            scan.last_message
                .as_deref()
                .is_some_and(|m| m.starts_with("message 29:") && m.contains("[redacted]")),
            "{scan:?}"
        );
        let failing = scan.failing.as_ref().unwrap();
        assert!(
            failing
                .names
                .iter()
                .any(|n| n.contains("run 29") && n.contains("[redacted]")),
            "{failing:?}"
        );
        assert_eq!(scan.tasks.len(), MAX_TASKS);
        assert_eq!(
            scan.tasks.last().map(|t| t.subject.as_str()),
            Some("task 199 with token=[redacted]")
        );
        // The call awaiting its result is saved redacted.
        let saved = serde_json::to_string(&progress).unwrap();
        assert!(!saved.contains("pw0Lz8kJ6hG4"), "{saved}");
        for i in MAX_TASKS..MAX_TASKS + 5 {
            let dropped = format!("task {i} with");
            let seen: Vec<&String> = scanned.iter().filter(|t| t.contains(&dropped)).collect();
            assert!(seen.is_empty(), "scanned, though never kept: {seen:?}");
        }
        for i in 1..29 {
            let replaced = [
                format!("request {i}:"),
                format!("message {i}:"),
                format!("run {i} with"),
            ];
            let seen: Vec<&String> = scanned
                .iter()
                .filter(|t| replaced.iter().any(|r| t.contains(r.as_str())))
                .collect();
            assert!(seen.is_empty(), "scanned, though replaced: {seen:?}");
        }
    }
}
