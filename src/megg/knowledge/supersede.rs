//! Supersession (SPEC §17), as text: the entry a new one replaces leaves `knowledge.md` and
//! goes to its year's archive file with one line naming its successor by date and title
//! (`**Superseded-by:** 2026-11-26 - New title`) — never deleted. Ids stay computed from the
//! date and title (§13.2), so the old entry keeps its id in the archive. [`super::write`]
//! carries it out; recall reads the line back with [`superseded_by`] to label the entry.
//!
//! The successor names what it replaces the same way, after its field lines
//! (`**Supersedes:** 2025-03-01 - Old title`, read back with [`supersedes`]): the merge driver,
//! which sees only `knowledge.md`, tells a supersede from a delete by it (§11, §17).

use std::path::{Path, PathBuf};

use super::new_entry::NewEntry;
use super::parse::{Document, FIELD_LINES, field, split_date};

/// The field naming an archived entry's successor.
const FIELD: &str = "Superseded-by";
/// The field naming, in a successor, the entry it superseded.
const SUPERSEDES: &str = "Supersedes";

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

/// The entry a successor's `**Supersedes:**` line names (`2025-03-01 - Old title`), when it
/// has one among its field lines (right below its heading). `entry_text` is the entry as it
/// stands in its file, from its `## ` heading on.
pub fn supersedes(entry_text: &str) -> Option<&str> {
    entry_text
        .lines()
        .skip(1)
        .take(MARK_LINES)
        .find_map(|line| field(line.trim(), SUPERSEDES))
        .filter(|v| !v.is_empty())
}

/// Whether `line` is a `**Supersedes:**` field line (any case, spaces around).
pub fn supersedes_line(line: &str) -> bool {
    field(line.trim(), SUPERSEDES).is_some()
}

/// Whether `named` — what a `**Supersedes:**` or `**Superseded-by:**` line says, `date - title`
/// — names the entry dated `date` and titled `title`: the same date, and the same title
/// without regard to case or runs of whitespace, as ids compare them (SPEC §13.2).
pub fn names(named: &str, date: Option<&str>, title: &str) -> bool {
    let (d, t) = split_date(named.trim());
    let words = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    d == date && words(t) == words(title)
}

/// The text `learn` appends for the successor of the entry headed `old` (`2025-03-01 - Old
/// title`): `entry_text` (what [`super::entry_text`] gives, its separator included) with the
/// line `**Supersedes:** <old>` right after its field lines.
pub fn successor_text(entry_text: &str, old: &str) -> String {
    let mut heading = 0;
    for line in entry_text.split_inclusive('\n') {
        if line.starts_with("## ") {
            break;
        }
        heading += line.len();
    }
    let (before, entry) = entry_text
        .split_at_checked(heading)
        .unwrap_or((entry_text, ""));
    if entry.is_empty() {
        return entry_text.to_string();
    }
    let lines: Vec<&str> = entry.split_inclusive('\n').collect();
    let mut out = String::from(before);
    out.push_str(&after_fields(&lines, &format!("**{SUPERSEDES}:** {old}")));
    out
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
    let lines: Vec<&str> = raw
        .split_inclusive('\n')
        .enumerate()
        .filter(|(i, l)| *i == 0 || *i > MARK_LINES || !superseded_by_line(l))
        .map(|(_, l)| l)
        .collect();
    after_fields(&lines, &format!("**{FIELD}:** {successor}"))
}

/// `lines` (an entry's, its heading first, each with its line end) joined with `field` (a
/// whole field line, without a line end) after whichever of its first [`FIELD_LINES`] lines
/// below the heading is the last field line, or after the heading; the line ends those lines
/// use (CRLF when any has one).
fn after_fields(lines: &[&str], field: &str) -> String {
    let newline = if lines.iter().any(|l| l.ends_with("\r\n")) {
        "\r\n"
    } else {
        "\n"
    };
    let after = lines
        .iter()
        .enumerate()
        .skip(1)
        .take(FIELD_LINES)
        .filter(|(_, l)| super::parse::is_field_line(l) || supersedes_line(l))
        .map(|(i, _)| i)
        .next_back()
        .unwrap_or(0);
    let mut out =
        String::with_capacity(lines.iter().map(|l| l.len()).sum::<usize>() + field.len() + 2);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        if i == after {
            if !line.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(field);
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

#[cfg(test)]
mod tests {
    use super::*;

    const SUCCESSOR: &str = "## 2026-11-26 - New\n**Type:** decision\n**Topics:** api\n**Supersedes:** 2025-03-01 - Old title\n\nbody";

    #[test]
    fn supersedes_reads_the_entry_a_successor_names_among_its_field_lines() {
        assert_eq!(supersedes(SUCCESSOR), Some("2025-03-01 - Old title"));
        assert_eq!(
            supersedes("## New\r\n**supersedes**:  2025-03-01 - Old \r\n\r\nbody"),
            Some("2025-03-01 - Old")
        );
        assert_eq!(supersedes("## New\n**Type:** fact\n\nbody"), None);
        assert_eq!(supersedes("## New\n**Supersedes:**\n\nbody"), None);
        // A line far down the body is text, not the field; the heading is not a field.
        let deep = format!("## New\n{}**Supersedes:** x\n", "line\n".repeat(9));
        assert_eq!(supersedes(&deep), None);
        assert_eq!(supersedes("**Supersedes:** x"), None);
        // Not the archive's line, nor it this one.
        assert_eq!(superseded_by(SUCCESSOR), None);
        assert!(supersedes_line(" **Supersedes:** x ") && !supersedes_line("**Superseded-by:** x"));
    }

    #[test]
    fn names_compares_date_and_title_as_ids_do() {
        assert!(names(
            "2025-03-01 - Old title",
            Some("2025-03-01"),
            "Old title"
        ));
        assert!(names(
            " 2025-03-01 — old  TITLE ",
            Some("2025-03-01"),
            "Old title"
        ));
        assert!(names("Undated one", None, "Undated one"));
        assert!(!names(
            "2025-03-02 - Old title",
            Some("2025-03-01"),
            "Old title"
        ));
        assert!(!names("2025-03-01 - Old", Some("2025-03-01"), "Old title"));
        assert!(!names("Old title", Some("2025-03-01"), "Old title"));
    }

    #[test]
    fn the_successor_names_what_it_supersedes_after_its_field_lines() {
        let plain = "\n---\n\n## 2026-11-26 - New\n**Type:** decision\n**Topics:** api\n\nbody\n";
        assert_eq!(
            successor_text(plain, "2025-03-01 - Old title"),
            "\n---\n\n## 2026-11-26 - New\n**Type:** decision\n**Topics:** api\n**Supersedes:** 2025-03-01 - Old title\n\nbody\n"
        );
        // What reads back is the entry and the name of the one it supersedes.
        let text = successor_text(plain, "2025-03-01 - Old title");
        let doc = super::super::document(&text);
        assert_eq!(
            supersedes(doc.entries[0].raw),
            Some("2025-03-01 - Old title")
        );
        // Superseded in its turn: the archive's line after it, both read back.
        let marked = mark(doc.entries[0].raw, "2027-01-02 - Newer");
        assert_eq!(superseded_by(&marked), Some("2027-01-02 - Newer"));
        assert_eq!(supersedes(&marked), Some("2025-03-01 - Old title"));
        // No heading: nothing to add to.
        assert_eq!(successor_text("text", "x"), "text");
    }
}
