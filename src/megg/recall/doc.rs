//! What recall works on: documents, their kinds, the corpus one run reads and where it looks.

use std::path::Path;
use std::sync::Arc;

use super::shared::{Shared, Topics};

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

/// Everything one search or show can reach, and what could not be read.
#[derive(Debug, Default)]
pub struct Corpus {
    pub docs: Vec<Doc>,
    pub warnings: Vec<String>,
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
    pub(super) kind: Kind,
    /// Shared by the documents of the file.
    pub(super) path: Arc<Path>,
    /// The domain's name (an info section's title).
    pub(super) domain: String,
    /// The domain as ids name it ([`super::place`]): part of every entry's and info section's
    /// key.
    pub(super) place: String,
    /// Shared by the documents of the file: each one's text, title, … are pieces of it.
    pub(super) text: Arc<String>,
}
