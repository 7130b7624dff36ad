//! The documents of `megg search --json` and `megg show --json` (SPEC §13.3, §13.4).

use std::path::PathBuf;

use serde::Serialize;

use crate::megg::recall::{Doc, Kind, search::Found};

/// `search --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Searched {
    pub query: String,
    /// How many documents matched (`results` holds at most `--limit` of them).
    pub total: usize,
    pub results: Vec<Result>,
    /// The nearest topics when nothing matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    pub warnings: Vec<String>,
    /// MCP only: the `cursor` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One hit.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Result {
    pub id: String,
    pub kind: Kind,
    pub path: PathBuf,
    pub line: usize,
    pub date: Option<String>,
    #[serde(rename = "type")]
    pub entry_type: Option<String>,
    pub title: String,
    pub topics: Vec<String>,
    pub score: f64,
    pub snippet: String,
}

impl Searched {
    pub fn new(query: &str, found: &Found<'_>, warnings: Vec<String>) -> Self {
        Self {
            query: query.to_string(),
            total: found.total,
            results: found
                .hits
                .iter()
                .map(|h| Result {
                    id: h.doc.id.to_string(),
                    kind: h.doc.kind,
                    path: h.doc.path.to_path_buf(),
                    line: h.doc.line,
                    date: h.doc.date.as_deref().map(str::to_string),
                    entry_type: h.doc.entry_type.as_deref().map(str::to_string),
                    title: h.doc.title.to_string(),
                    topics: h.doc.topics.iter().map(|t| t.to_string()).collect(),
                    score: h.score,
                    snippet: h.snippet.clone(),
                })
                .collect(),
            suggestions: found.suggestions.clone(),
            warnings,
            next_cursor: None,
        }
    }
}

/// `show --json`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Shown {
    pub documents: Vec<ShownDoc>,
    /// Ids that resolve to nothing.
    pub missing: Vec<String>,
    pub warnings: Vec<String>,
    /// MCP only: the `cursor` of the next call, when documents are left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One document, whole (or cut at `--max-chars`, which `warnings` says).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ShownDoc {
    pub id: String,
    pub kind: Kind,
    pub path: PathBuf,
    pub line: usize,
    pub text: String,
}

impl ShownDoc {
    pub fn of(doc: &Doc, text: String) -> Self {
        Self {
            id: doc.id.to_string(),
            kind: doc.kind,
            path: doc.path.to_path_buf(),
            line: doc.line,
            text,
        }
    }
}
