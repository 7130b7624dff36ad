//! Supersession (SPEC §17), as text: the entry a new one replaces leaves `knowledge.md` and
//! goes to its year's archive file with one line naming its successor by date and title
//! (`**Superseded-by:** 2026-11-26 - New title`) — never deleted. Ids stay computed from the
//! date and title (§13.2), so the old entry keeps its id in the archive. [`super::write`]
//! carries it out; recall reads the line back with [`superseded_by`] to label the entry.

use std::path::{Path, PathBuf};

use super::{Document, FIELD_LINES, NewEntry, field};

/// The field naming an archived entry's successor.
const FIELD: &str = "Superseded-by";

/// How many lines below its heading a `**Superseded-by:**` line is read from: those an entry's
/// type and topics are read from, and the one [`mark`] may add after them.
const MARK_LINES: usize = FIELD_LINES + 1;

/// The successor an entry's `**Superseded-by:**` line names (`2026-11-26 - New title`), when
/// it has one among its field lines (right below its heading). `entry_text` is the entry as
/// it stands in its file, from its `## ` heading on.
pub fn superseded_by(entry_text: &str) -> Option<&str> {
    entry_text
        .lines()
        .skip(1)
        .take(MARK_LINES)
        .find_map(|line| field(line.trim(), FIELD))
        .filter(|v| !v.is_empty())
}

/// Whether `line` is a `**Superseded-by:**` field line (any case, spaces around).
pub fn superseded_by_line(line: &str) -> bool {
    field(line.trim(), FIELD).is_some()
}

/// How a new entry is named as the successor of the one it supersedes: its date and title.
pub fn successor(entry: &NewEntry) -> String {
    format!("{} - {}", entry.date, entry.title)
}

/// `raw` (an entry's text, from its heading to its last non-blank line) with the line
/// `**Superseded-by:** <successor>` right after its `**Topics:**` line — after whichever of its
/// `**Type:**` and `**Topics:**` lines comes last (so neither leaves the lines they are read
/// from), or its heading when it has neither. A `**Superseded-by:**` line it already had is
/// replaced. Every other byte is kept, its line ends included.
pub fn mark(raw: &str, successor: &str) -> String {
    let newline = if raw.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = raw
        .split_inclusive('\n')
        .enumerate()
        .filter(|(i, l)| *i == 0 || *i > MARK_LINES || !superseded_by_line(l))
        .map(|(_, l)| l)
        .collect();
    let after = lines
        .iter()
        .enumerate()
        .skip(1)
        .take(FIELD_LINES)
        .filter(|(_, l)| super::is_field_line(l))
        .map(|(i, _)| i)
        .next_back()
        .unwrap_or(0);
    let mut out = String::with_capacity(raw.len() + successor.len() + 24);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        if i == after {
            if !line.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&format!("**{FIELD}:** {successor}"));
            if i + 1 < lines.len() {
                out.push_str(newline);
            }
        }
    }
    out
}

/// The whole text of `doc` without its entry `i` and what lies between it and the entry (or
/// preamble) before it — blank lines and its `---` separator: every other byte as it was, the
/// frontmatter untouched (SPEC §11: a branch that supersedes changes only that entry's lines).
pub fn without(doc: &Document<'_>, i: usize) -> String {
    let mut out = String::from(doc.frontmatter);
    out.push_str(doc.preamble);
    for (j, (gap, entry)) in doc.gaps.iter().zip(&doc.entries).enumerate() {
        if j != i {
            out.push_str(gap);
            out.push_str(entry.raw);
        }
    }
    out.push_str(doc.tail);
    if !out.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The archive file an entry dated `date` goes to in the `.megg` directory `megg`, the one
/// `megg maintain --archive-before` writes: `archive/knowledge-<year>.md`. An undated entry goes
/// to `today`'s year.
pub fn archive_file(megg: &Path, date: Option<&str>, today: &str) -> (i32, PathBuf) {
    let year = |d: &str| d.get(..4).and_then(|y| y.parse::<i32>().ok());
    let year = date.and_then(year).or_else(|| year(today)).unwrap_or(0);
    (
        year,
        megg.join("archive").join(format!("knowledge-{year}.md")),
    )
}
