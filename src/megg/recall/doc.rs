//! What recall works on: documents, their kinds, the corpus one run reads and where it looks.

use std::path::Path;
use std::sync::Arc;

use super::hidden::{self, Hidden};
use super::shared::{Shared, Topics};
use crate::megg::knowledge;

/// The kinds of document (`--in`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An entry of a `knowledge.md`.
    Knowledge,
    /// An entry of a `.megg/archive/*.md`.
    Archive,
    /// The active state, a captured session's handoff, or one from the handoff history.
    Handoff,
    /// A `##` section of an `info.md`.
    Info,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Knowledge, Kind::Archive, Kind::Handoff, Kind::Info];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Knowledge => "knowledge",
            Kind::Archive => "archive",
            Kind::Handoff => "handoff",
            Kind::Info => "info",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s.trim())
    }
}

/// One searchable document, as it stands in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    pub id: Shared,
    pub kind: Kind,
    /// Its file's path, shared by the file's documents.
    pub path: Arc<Path>,
    /// 1-based line of its first line in the file.
    pub line: usize,
    /// `YYYY-MM-DD` for entries; a handoff's `updated` time as written.
    pub date: Option<Shared>,
    /// The knowledge type (`decision`, `gotcha`, …).
    pub entry_type: Option<Shared>,
    pub title: Shared,
    pub topics: Topics,
    /// The document's text exactly as in the file.
    pub text: Shared,
    /// What the id is computed from: an entry's domain, date and title, a handoff's time and
    /// session, an info section's domain and heading (a domain as [`super::place`] names it).
    pub key: String,
}

impl Doc {
    /// The text ranked as the document's body and shown in its snippet: below its heading line
    /// (an entry, an info section; all of a handoff), without an entry's `**Type:**` and
    /// `**Topics:**` lines — its fields, ranked as fields or not at all, never twice and never
    /// as a snippet (SPEC §16). Pieces of [`Doc::text`] between the field lines, in order.
    pub fn body(&self) -> Body<'_> {
        let text = self.text.as_str();
        match self.kind {
            Kind::Handoff => Body {
                rest: text,
                field_lines: 0,
            },
            Kind::Info => Body {
                rest: below_heading(text),
                field_lines: 0,
            },
            Kind::Knowledge | Kind::Archive => Body {
                rest: below_heading(text),
                field_lines: FIELD_LINES,
            },
        }
    }
}

/// The lines after an entry's heading that `knowledge::parse` reads its fields from.
const FIELD_LINES: usize = 6;

/// `text` below its first line.
fn below_heading(text: &str) -> &str {
    text.split_once('\n').map_or("", |(_, rest)| rest)
}

/// A document's body ([`Doc::body`]): the pieces of its text between its field lines, none of
/// them blank. Most entries are one piece, the text below their fields.
#[derive(Debug, Clone)]
pub struct Body<'a> {
    /// What is left to go through.
    rest: &'a str,
    /// How many of the first lines of `rest` may still be field lines.
    field_lines: usize,
}

impl<'a> Iterator for Body<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        while !self.rest.is_empty() {
            // The piece runs up to the next field line among the first lines, or to the end.
            let (mut piece, mut field) = (0, 0);
            let mut lines = self.rest.split_inclusive('\n');
            while self.field_lines > 0
                && let Some(line) = lines.next()
            {
                self.field_lines -= 1;
                if knowledge::is_field_line(line) {
                    field = line.len();
                    break;
                }
                piece += line.len();
            }
            if field == 0 {
                piece = self.rest.len();
            }
            let (text, after) = self.rest.split_at_checked(piece).unwrap_or((self.rest, ""));
            self.rest = after.get(field..).unwrap_or("");
            if !text.trim().is_empty() {
                return Some(text);
            }
        }
        None
    }
}

/// Everything one search or show can reach, and what could not be read.
#[derive(Debug, Default)]
pub struct Corpus {
    pub docs: Vec<Doc>,
    pub warnings: Vec<String>,
    /// The secrets its documents show as `[redacted]` (a corpus read as megg shows it, SPEC
    /// §12): for the warnings of those a command prints.
    pub hidden: Vec<Hidden>,
}

impl Corpus {
    /// The warnings of the secrets `docs` (documents of this corpus) show as `[redacted]`,
    /// each once.
    pub fn hidden_in(&self, docs: &[&Doc]) -> Vec<String> {
        let mut named: Vec<Hidden> = self
            .hidden
            .iter()
            .filter(|h| {
                docs.iter()
                    .any(|d| h.is_in(&d.path, d.line, d.text.as_str()))
            })
            .cloned()
            .collect();
        hidden::dedup(&mut named);
        named.iter().map(Hidden::warning).collect()
    }
}

/// Where to look: the chain of `path` and, with `below`, the domains below it.
#[derive(Debug, Clone)]
pub struct Scope<'a> {
    pub path: &'a Path,
    pub below: bool,
    /// megg's cache directory (the handoff history and session files outside git).
    pub cache: Option<&'a Path>,
}

/// One file recall reads, before it is parsed: what it holds, where, and its text as read.
#[derive(Debug)]
pub struct Source {
    pub kind: Kind,
    /// Shared by the documents of the file.
    pub path: Arc<Path>,
    /// The domain's name (an info section's title).
    pub domain: String,
    /// The domain as ids name it ([`super::place`]): part of every entry's and info section's
    /// key.
    pub place: String,
    /// Shared by the documents of the file: each one's text, title, … are pieces of it.
    pub text: Arc<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(kind: Kind, text: &str) -> Doc {
        Doc {
            id: Shared::default(),
            kind,
            path: Path::new("/k.md").into(),
            line: 1,
            date: None,
            entry_type: None,
            title: "T".into(),
            topics: Topics::default(),
            text: text.into(),
            key: String::new(),
        }
    }

    /// The pieces of the body, trimmed.
    fn body(kind: Kind, text: &str) -> Vec<String> {
        doc(kind, text)
            .body()
            .map(|p| p.trim().to_string())
            .collect()
    }

    /// A line is a field line exactly when the knowledge parser reads a type or topics from it.
    #[test]
    fn field_lines_are_the_ones_the_parser_reads() {
        for line in [
            "**Type:** decision",
            "**Type**: decision",
            "**type:**decision",
            "  **TYPE**:  gotcha  ",
            "**Type:**",
            "**Topics:** a, b",
            "**topics**: a",
            "\t**Topics:** a\r",
            "**Types:** x",
            "**Type** decision",
            "*Type:* decision",
            "**Topic:** a",
            "Type: decision",
            "**Typeface:** x",
            "**Type :** x",
            "** Type:** x",
            "**",
            "",
        ] {
            let text = format!("## T\n{line}\n");
            let entries = knowledge::parse(&text);
            let read = entries
                .first()
                .is_some_and(|e| e.kind.is_some() || !e.topics.is_empty());
            assert_eq!(knowledge::is_field_line(line), read, "{line:?}");
        }
        // Topics with no value are a field too, and nothing else panics.
        assert!(knowledge::is_field_line("**Topics:**"));
        for line in [
            "**Café** au lait",
            "**注意** 本文",
            "**⚠️ Ty**",
            "**Typ€:** x",
        ] {
            assert!(!knowledge::is_field_line(line), "{line}");
        }
    }

    #[test]
    fn an_entrys_body_leaves_its_field_lines_out() {
        let k = Kind::Knowledge;
        assert_eq!(
            body(k, "## T\n**Type:** a\n**Topics:** b\n\nBody.\nMore.\n"),
            ["Body.\nMore."]
        );
        assert_eq!(
            body(k, "## T\nFirst.\n**Topics**: b\r\n**type**: a\nThen.\n"),
            ["First.", "Then."]
        );
        assert_eq!(
            body(k, "## T\n**Type:** a\n**Topics:** b"),
            Vec::<String>::new()
        );
        // Below the lines the parser reads fields from, and in other documents, it is text.
        assert_eq!(
            body(k, "## T\n1\n2\n3\n4\n5\n6\n**Type:** a\n"),
            ["1\n2\n3\n4\n5\n6\n**Type:** a"]
        );
        assert_eq!(
            body(Kind::Info, "## Context\n**Type:** a\n"),
            ["**Type:** a"]
        );
        assert_eq!(
            body(Kind::Handoff, "## Working On\n**Type:** a\n"),
            ["## Working On\n**Type:** a"]
        );
        assert_eq!(body(k, "## Only a heading"), Vec::<String>::new());
    }
}
