//! `knowledge.md`: the entry parser every command shares, topic matching, and the summary
//! digest and blocked message of SPEC §3.1–3.2.
//!
//! The parser is tolerant of everything the TypeScript megg writes (v1.1 and v1.2 types,
//! undated headers, extra blank lines, CRLF) and, unlike it, keeps entries whose bodies contain
//! `created:` or `type:` lines.
//!
//! [`write`] is `learn`'s read-modify-write; [`supersede`] moves a replaced entry to the archive
//! with the line naming its successor (SPEC §17); [`similar`] finds the entries a new one
//! duplicates.
//!
//! `parse.rs` is the parser (entries, and whole files for the merge), `topics.rs` matches and
//! counts topics, `digest.rs` writes the summary digest and blocked message, `size.rs` says
//! what a file's size means, `new_entry.rs` checks `learn`'s input and `append.rs` writes it,
//! and `kind.rs` spells the entry types.

pub mod similar;
pub mod supersede;
pub mod write;

mod append;
mod digest;
mod kind;
mod new_entry;
mod parse;
mod size;
mod topics;

pub use append::{append, append_raw, entry_text, new_file, refuse_unparsable, unparsable};
pub use digest::{SUMMARY_MAX_TOKENS, blocked_message, entries_count, summary};
pub use kind::KnowledgeType;
pub use new_entry::{
    EntryError, EntryFile, NewEntry, entry_file, entry_file_pieces, new_entry, piece_title,
    secret_in, title_key,
};
pub use parse::{Document, Entry, document, normalized, parse};
pub use size::{BLOCKED_ABOVE, FULL_BELOW, MAINTAIN_DUE, bloated, maintain_due, thresholds};
pub use supersede::{superseded_by, supersedes};
pub use topics::{filter, join, topic_counts, topic_list, topic_matches};
// What `similar` and `supersede` read an entry's field lines with.
use parse::FIELD_LINES;

/// Whether `line` is one of an entry's field lines: `**Type:** …` and `**Topics**: …` (any
/// case, spaces around), which its type and topics are read from, and a successor's
/// `**Supersedes:** …` (SPEC §17). Recall leaves them out of an entry's body text (SPEC §16),
/// and duplicates are not told by them.
pub fn is_field_line(line: &str) -> bool {
    parse::is_field_line(line) || supersede::supersedes_line(line)
}

// What the tests reach through `use super::*` besides the items above.
#[cfg(test)]
use crate::tokens::Counter;
#[cfg(test)]
use digest::summary_with;

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests;
