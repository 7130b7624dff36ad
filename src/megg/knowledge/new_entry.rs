//! `learn`'s input: a new entry's parts checked (secrets included), entry files cut into
//! entries, and the title key duplicates are found by.

use super::kind::KnowledgeType;
use super::parse::{field, is_field_line, split_date};
use crate::megg::secrets::{ALLOW_MARKER, Source};

/// Why `learn`'s input cannot become an entry; each says what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("the title must be one non-empty line")]
    Title,
    #[error("unknown type '{0}'")]
    Type(String),
    #[error("the topics must be on one line")]
    TopicsLines,
    #[error("no topics given")]
    NoTopics,
    #[error("the content is empty")]
    NoContent,
    #[error(
        "the content has a line that is exactly `---`, which would split the entry when read back"
    )]
    Separator,
    #[error("the entry file does not start with a `## Title` line")]
    FileTitle,
    #[error("the entry file has no `**Type:**` line")]
    FileType,
    #[error("the entry file has no `**Topics:**` line")]
    FileTopics,
    /// SPEC §12: entries are shared through git. Names the rule and where, never the secret.
    #[error("{}", refusal(*.0, .1))]
    Secret(Source, String),
}

/// The refusal of a secret in `place`: megg's own rules are named in megg's words (`a GitHub
/// token in the content, line 3`); gitleaks' by their id, with their description quoted as
/// gitleaks words it — a sentence of its own (`Identified a GitLab Personal Access Token,
/// risking …`), which reads as a quotation and not as part of megg's.
fn refusal(source: Source, place: &str) -> String {
    match source {
        Source::Own(kind) => format!("{} in {place}; nothing written", kind.describe()),
        Source::Gitleaks(rule) => {
            // `the content, line 3` is closed by a comma before its verb.
            let comma = if place.contains(',') { "," } else { "" };
            format!(
                "{place}{comma} holds what gitleaks' rule {} takes for a secret (\"{}\"); nothing written",
                rule.id, rule.description
            )
        }
    }
}

impl EntryError {
    pub fn hint(&self) -> String {
        match self {
            Self::Title => "pass a short title, e.g. \"Use JWT in httpOnly cookies\"".into(),
            Self::Type(_) => format!("valid types: {}", KnowledgeType::list()),
            Self::TopicsLines | Self::NoTopics => {
                "pass comma-separated topics, e.g. \"auth, security\"".into()
            }
            Self::NoContent => "say what was learned and why".into(),
            Self::Separator => "use `***` for a horizontal rule".into(),
            Self::FileTitle | Self::FileType | Self::FileTopics => {
                "write the entry as `## Title`, `**Type:** decision`, `**Topics:** a, b`, a blank line, then the text".into()
            }
            Self::Secret(..) => format!(
                "remove it; if it is not a secret, pass --allow-secrets (MCP: allow_secrets: true) to write it as given, its line marked `{ALLOW_MARKER}`"
            ),
        }
    }
}

impl From<EntryError> for crate::error::Error {
    fn from(e: EntryError) -> Self {
        crate::error::Error::user(e.to_string()).with_hint(e.hint())
    }
}

/// A new entry, as `learn` takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry {
    pub date: String,
    pub title: String,
    pub kind: KnowledgeType,
    pub topics: Vec<String>,
    pub content: String,
}

/// Checks and normalizes `learn`'s arguments; the error says what to fix.
pub fn new_entry(
    date: &str,
    title: &str,
    kind: &str,
    topics: &str,
    content: &str,
) -> Result<NewEntry, EntryError> {
    let title = title.trim();
    if title.is_empty() || title.contains(['\n', '\r']) {
        return Err(EntryError::Title);
    }
    let kind =
        KnowledgeType::parse(kind).ok_or_else(|| EntryError::Type(kind.trim().to_lowercase()))?;
    if topics.contains(['\n', '\r']) {
        // A line break would end the `**Topics:**` line and split the entry on re-read.
        return Err(EntryError::TopicsLines);
    }
    let topics: Vec<String> = topics
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    if topics.is_empty() {
        return Err(EntryError::NoTopics);
    }
    if content.trim().is_empty() {
        return Err(EntryError::NoContent);
    }
    if content.lines().any(|l| l.trim_end_matches('\r') == "---") {
        return Err(EntryError::Separator);
    }
    Ok(NewEntry {
        date: date.to_string(),
        title: title.to_string(),
        kind,
        topics,
        content: content.trim_end().to_string(),
    })
}

/// The first thing in `entry` that looks like a secret (SPEC §12), as the error `learn`
/// refuses it with: the rule that found it and where (`the title`, `the topics`, `the content,
/// line 3`).
pub fn secret_in(entry: &NewEntry) -> Option<EntryError> {
    let topics = entry.topics.join(", ");
    [
        ("the title", entry.title.as_str()),
        ("the topics", topics.as_str()),
        ("the content", entry.content.as_str()),
    ]
    .into_iter()
    .find_map(|(place, text)| {
        let found = crate::megg::secrets::find(text).into_iter().next()?;
        let place = if place == "the content" {
            format!("{place}, line {}", found.line(text))
        } else {
            place.to_string()
        };
        Some(EntryError::Secret(found.source, place))
    })
}

/// What an agent wrote in an entry file for `megg learn --file F`, before [`new_entry`]
/// checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFile {
    pub title: String,
    pub kind: String,
    pub topics: String,
    pub content: String,
}

/// The parts of an entry file an agent wrote for `megg learn --file F` (SPEC §6): a
/// `## Title` line, `**Type:**` and `**Topics:**` lines, then the body.
pub fn entry_file(text: &str) -> Result<EntryFile, EntryError> {
    let text = text.trim_start_matches('\u{feff}');
    let mut lines = text.lines().skip_while(|l| l.trim().is_empty());
    let header = lines
        .next()
        .and_then(|l| l.trim_end_matches('\r').strip_prefix("## "))
        .ok_or(EntryError::FileTitle)?;
    let (_, title) = split_date(header.trim());
    let (mut kind, mut topics) = (None, None);
    let mut rest: Vec<&str> = Vec::new();
    let mut in_fields = true;
    for line in lines {
        let trimmed = line.trim();
        if in_fields {
            if let Some(v) = field(trimmed, "Type") {
                kind = Some(v.to_string());
                continue;
            }
            if let Some(v) = field(trimmed, "Topics") {
                topics = Some(v.to_string());
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            in_fields = false;
        }
        rest.push(line.trim_end_matches('\r'));
    }
    Ok(EntryFile {
        title: title.to_string(),
        kind: kind.ok_or(EntryError::FileType)?,
        topics: topics.ok_or(EntryError::FileTopics)?,
        content: rest.join("\n"),
    })
}

/// An entry file cut into its entries (SPEC §6): it may hold several, written as
/// `knowledge.md` holds them. An entry starts at its `## Title` line: the file's first, one
/// after a `---` line, or one that is dated (`## 2026-01-17 - Title`) or followed by its
/// `**Type:**` / `**Topics:**` lines. Any other `## ` line is a heading in the text, and a
/// `---` line that no entry follows stays in the text, for [`new_entry`] to refuse. Blank
/// pieces are left out; each piece is a slice of `text`.
pub fn entry_file_pieces(text: &str) -> Vec<&str> {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |pos, line| {
            let at = *pos;
            *pos += line.len();
            Some((at, line))
        })
        .collect();
    fn bare(l: &str) -> &str {
        l.trim_end_matches(['\n', '\r'])
    }
    let next_text = |i: usize| {
        lines
            .iter()
            .skip(i + 1)
            .map(|(_, l)| bare(l).trim())
            .find(|l| !l.is_empty())
    };
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut skip_to: Option<usize> = None;
    // Inside a fenced block (an example entry shown in a body), nothing starts an entry.
    let mut fenced = false;
    for (i, (at, line)) in lines.iter().enumerate() {
        let line = bare(line);
        if skip_to.is_some_and(|s| i < s) {
            continue;
        }
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line == "---" && next_text(i).is_some_and(|l| l.starts_with("## ")) {
            pieces.push(text.get(start..*at).unwrap_or_default());
            // The next piece starts at the heading.
            let heading = lines
                .iter()
                .enumerate()
                .skip(i + 1)
                .find(|(_, (_, l))| !bare(l).trim().is_empty());
            if let Some((j, (pos, _))) = heading {
                start = *pos;
                skip_to = Some(j + 1);
            }
            continue;
        }
        // A `## ` heading followed by its `**Type:**` or `**Topics:**` line; a heading alone
        // (`## 2026-03-01 outage` in an incident log) is the body's own.
        let starts_entry = line.starts_with("## ") && next_text(i).is_some_and(is_field_line);
        if starts_entry && *at > start {
            pieces.push(text.get(start..*at).unwrap_or_default());
            start = *at;
        }
    }
    pieces.push(text.get(start..).unwrap_or_default());
    pieces
        .into_iter()
        .filter(|p| !p.trim().trim_start_matches('\u{feff}').is_empty())
        .collect()
}

/// The title of an entry file's piece, as messages name it (its `## ` line, undated).
pub fn piece_title(piece: &str) -> Option<&str> {
    let header = piece
        .trim_start_matches('\u{feff}')
        .lines()
        .find(|l| !l.trim().is_empty())?
        .trim_end_matches('\r')
        .strip_prefix("## ")?;
    Some(split_date(header.trim()).1)
}

/// A title as duplicates are found: case and runs of whitespace do not count.
pub fn title_key(title: &str) -> String {
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}
