//! The text `learn` and `maintain` write: a new entry appended to a file byte for byte, and the
//! refusal to rewrite a file whose frontmatter megg cannot read.

use super::new_entry::NewEntry;

/// The text [`append`] adds to the file for `entry`: its separator and the entry.
pub fn entry_text(entry: &NewEntry) -> String {
    crate::templates::fill(
        crate::templates::KNOWLEDGE_ENTRY,
        &[
            ("date", &entry.date),
            ("title", &entry.title),
            ("type", entry.kind.as_str()),
            ("topics", &entry.topics.join(", ")),
            ("content", &entry.content),
        ],
    )
}

/// The header of a new `knowledge.md`.
pub fn new_file(now: &str) -> String {
    crate::templates::fill(crate::templates::KNOWLEDGE, &[("now", now)])
}

/// `existing` (or a new file, its frontmatter stamped `now`) with `entry` appended; every
/// existing byte is kept, the frontmatter included (SPEC §6, §11): two branches that learn then
/// touch only the end of the file, which the merge driver merges entry by entry.
pub fn append(existing: Option<&str>, entry: &NewEntry, now: &str) -> String {
    let base = match existing {
        Some(text) if !text.trim().is_empty() => text.to_string(),
        _ => new_file(now),
    };
    let mut out = base;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&entry_text(entry));
    out
}

/// Why a knowledge or archive file cannot be rewritten: its frontmatter is not YAML megg can
/// read (SPEC §16). `learn` and `maintain` refuse to write such a file and leave it as it is.
pub fn unparsable(text: &str) -> Option<String> {
    let yaml = crate::frontmatter::split(text).yaml?;
    crate::frontmatter::parse(yaml).err().map(|e| e.0)
}

/// The error a command that would rewrite `path` gives for [`unparsable`]'s `why`.
pub fn refuse_unparsable(path: &std::path::Path, why: &str) -> crate::error::Error {
    crate::error::Error::corrupt(format!(
        "{}: invalid frontmatter ({why}); nothing written",
        path.display()
    ))
    .with_hint("fix the YAML between the `---` lines at the top of the file (`megg doctor` names the problem), then run this again")
}

/// Appends an entry's text (`raw`: from its `## ` header to its last non-blank line) to
/// `out` byte for byte the way [`append`] writes a new one: a line end if missing, a blank
/// line, `---`, a blank line, the entry, a line end.
pub fn append_raw(out: &mut String, raw: &str) {
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("\n---\n\n");
    out.push_str(raw);
    out.push('\n');
}
