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

use std::collections::BTreeMap;

use crate::tokens::Counter;

pub mod similar;
pub mod supersede;
pub mod write;

pub use supersede::superseded_by;

/// A knowledge entry's type: those of the TypeScript megg v1.1 and v1.2. The one place the
/// set is spelled; `learn`, `maintain`, the summary digest and the MCP schema use it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum KnowledgeType {
    /// A choice made and why.
    Decision,
    /// A way of doing things that works here.
    Pattern,
    /// A mistake that is easy to make again.
    Gotcha,
    /// Background that explains the code.
    Context,
    /// A rule every change must follow.
    Rule,
    /// A fact about the system.
    Fact,
    /// A procedure to follow.
    Process,
}

impl KnowledgeType {
    pub const ALL: [Self; 7] = [
        Self::Decision,
        Self::Pattern,
        Self::Gotcha,
        Self::Context,
        Self::Rule,
        Self::Fact,
        Self::Process,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decision => "decision",
            Self::Pattern => "pattern",
            Self::Gotcha => "gotcha",
            Self::Context => "context",
            Self::Rule => "rule",
            Self::Fact => "fact",
            Self::Process => "process",
        }
    }

    /// The type named `s`, in any case (files written by hand say `Decision`).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// "decision, pattern, …" for messages.
    pub fn list() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

impl std::fmt::Display for KnowledgeType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

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
    /// SPEC §12: entries are shared through git. Names the kind and where, never the secret.
    #[error("{0} in {1}; nothing written")]
    Secret(&'static str, String),
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
            Self::Secret(..) => {
                "remove it; if it is not a secret, pass --allow-secrets (MCP: allow_secrets: true)"
                    .into()
            }
        }
    }
}

impl From<EntryError> for crate::error::Error {
    fn from(e: EntryError) -> Self {
        crate::error::Error::user(e.to_string()).with_hint(e.hint())
    }
}

/// Below this many knowledge tokens the file loads in full; from it on, only its summary
/// digest (SPEC §3.1). Over it, `maintain` calls the file bloated (SPEC §6).
pub const FULL_BELOW: usize = 8_000;
/// Above this many knowledge tokens loading is blocked.
pub const BLOCKED_ABOVE: usize = 16_000;
/// Past this many knowledge tokens `learn` warns that `megg maintain` is due (SPEC §6): the
/// file already loads as a summary, and the block is near.
pub const MAINTAIN_DUE: usize = 12_000;

/// How `megg context` loads a knowledge file by its size, and when `maintain` and `learn`
/// speak up, in the words every message about the thresholds uses, from the constants above.
pub fn thresholds() -> String {
    format!(
        "`megg context` loads knowledge in full below {FULL_BELOW} tokens, only a summary from {FULL_BELOW} to {BLOCKED_ABOVE}, and none of it over {BLOCKED_ABOVE}; `megg maintain` calls it bloated over {FULL_BELOW}, and `megg learn` says maintenance is due past {MAINTAIN_DUE}"
    )
}

/// Whether `maintain` calls a knowledge file of `tokens` bloated (SPEC §6: over
/// [`FULL_BELOW`]).
pub fn bloated(tokens: usize) -> bool {
    tokens > FULL_BELOW
}

/// Whether `learn` warns, after writing, that `megg maintain` is due (SPEC §6: past
/// [`MAINTAIN_DUE`]).
pub fn maintain_due(tokens: usize) -> bool {
    tokens > MAINTAIN_DUE
}

/// `1 entry`, `2 entries`: every count of knowledge entries people read.
pub fn entries_count(n: usize) -> String {
    if n == 1 {
        "1 entry".to_string()
    } else {
        format!("{n} entries")
    }
}
/// The summary digest's size limit.
pub const SUMMARY_MAX_TOKENS: usize = 2_000;

/// One `## [date -] Title` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    pub date: Option<&'a str>,
    pub title: &'a str,
    pub kind: Option<&'a str>,
    pub topics: Vec<&'a str>,
    /// The entry's text exactly as in the file, from its header to its last non-blank line.
    pub raw: &'a str,
}

/// The entries of a `knowledge.md` body (the text after its frontmatter).
pub fn parse(body: &str) -> Vec<Entry<'_>> {
    let mut entries: Vec<Entry<'_>> = Vec::new();
    for (i, chunk) in chunks(body).into_iter().enumerate() {
        // The first chunk holds the file's title; people write their first entry right under
        // it, without a `---` line: its header starts the entry (SPEC §16).
        let chunk = if i == 0 { after_title(chunk) } else { chunk };
        match parse_entry(chunk) {
            Some(entry) => entries.push(entry),
            // A chunk without a header after an entry is that entry's text around a `---`
            // rule the TypeScript megg let through: keep it with the entry.
            None => {
                if let Some(last) = entries.last_mut()
                    && !chunk.trim().is_empty()
                {
                    last.raw = extend(body, last.raw, chunk);
                }
            }
        }
    }
    entries
}

/// A knowledge or archive file cut into its parts, each an exact slice of the text, so that
/// `frontmatter + preamble + (gaps[i] + entries[i].raw)… + tail` is the text byte for byte.
/// The merge driver (SPEC §11) works on this; the entries are [`parse`]'s, the same ones
/// `context` and `maintain` read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document<'a> {
    /// The frontmatter block with its fences (and a byte-order mark), `""` without one.
    pub frontmatter: &'a str,
    /// The YAML between the fences, `None` without frontmatter.
    pub yaml: Option<&'a str>,
    /// What the frontmatter's lines end with.
    pub newline: &'static str,
    /// The text before the first entry, up to its last line that is neither blank nor `---`
    /// (`\n# Knowledge` in a file megg or the TypeScript megg wrote).
    pub preamble: &'a str,
    pub entries: Vec<Entry<'a>>,
    /// What lies before each entry (after the preamble or the entry before it): the rest of a
    /// line, blank lines and `---` separators.
    pub gaps: Vec<&'a str>,
    /// What follows the last entry (or the preamble): line ends, blank lines, a stray `---`.
    pub tail: &'a str,
}

/// Cuts a whole knowledge file into a [`Document`].
pub fn document(text: &str) -> Document<'_> {
    let split = crate::frontmatter::split(text);
    let body = split.body;
    let fm_len = text.len() - body.len();
    let entries = parse(body);
    let offset = |s: &str| s.as_ptr() as usize - body.as_ptr() as usize;
    // Every offset here is where a slice of `body` starts or ends, so a char boundary; `piece`
    // still never panics (the fuzz target checks that the pieces give the text back).
    let piece = |from: usize, to: usize| body.get(from..to).unwrap_or_default();
    let head_end = entries.first().map_or(body.len(), |e| offset(e.raw));
    let head = piece(0, head_end);
    let mut preamble_end = 0;
    let mut pos = 0;
    for line in head.split_inclusive('\n') {
        // Blank lines and separators (the rule `chunks` splits on) are not the preamble's.
        if !line.trim().is_empty() && line.trim_end_matches(['\n', '\r']) != "---" {
            preamble_end = pos + line.trim_end().len();
        }
        pos += line.len();
    }
    let mut gaps = Vec::with_capacity(entries.len());
    let mut end = preamble_end;
    for e in &entries {
        gaps.push(piece(end, offset(e.raw)));
        end = offset(e.raw) + e.raw.len();
    }
    Document {
        frontmatter: text.get(..fm_len).unwrap_or_default(),
        yaml: split.yaml,
        newline: split.newline,
        preamble: piece(0, preamble_end),
        entries,
        gaps,
        tail: piece(end, body.len()),
    }
}

/// `text` as the merge compares it (SPEC §11): CRLF read as LF, each line without trailing
/// whitespace.
pub fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.trim_end());
    }
    out
}

impl Entry<'_> {
    /// The entry's heading as the merge compares it: its first line, normalized.
    pub fn heading(&self) -> &str {
        self.raw.lines().next().unwrap_or("").trim_end()
    }
}

/// The chunks between lines that are exactly `---`, each trimmed of blank lines.
fn chunks(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in body.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == "---" {
            out.push(trim_blank_lines(body.get(start..pos).unwrap_or_default()));
            start = pos + line.len();
        }
        pos += line.len();
    }
    out.push(trim_blank_lines(body.get(start..).unwrap_or_default()));
    out
}

/// The first chunk from its first `## ` header line on (the whole chunk when none is).
fn after_title(chunk: &str) -> &str {
    let mut pos = 0;
    for line in chunk.split_inclusive('\n') {
        if line.starts_with("## ") {
            return chunk.get(pos..).unwrap_or(chunk);
        }
        pos += line.len();
    }
    chunk
}

fn trim_blank_lines(s: &str) -> &str {
    let s = s.trim_end();
    let mut start = 0;
    for line in s.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    s.get(start..).unwrap_or_default()
}

/// `raw` grown to the end of `next`, both slices of `body`.
fn extend<'a>(body: &'a str, raw: &'a str, next: &'a str) -> &'a str {
    let start = raw.as_ptr() as usize - body.as_ptr() as usize;
    let end = next.as_ptr() as usize - body.as_ptr() as usize + next.len();
    body.get(start..end).unwrap_or(raw)
}

/// How many lines below its heading an entry's `**Type:**` and `**Topics:**` are read from.
const FIELD_LINES: usize = 6;

fn parse_entry(chunk: &str) -> Option<Entry<'_>> {
    let mut lines = chunk.lines();
    let header = lines.next()?.trim_end_matches('\r');
    let header = header.strip_prefix("## ")?.trim();
    let (date, title) = split_date(header);
    let mut kind = None;
    let mut topics = Vec::new();
    for line in lines.take(FIELD_LINES) {
        let line = line.trim();
        if let Some(v) = field(line, "Type") {
            kind = Some(v);
        } else if let Some(v) = field(line, "Topics") {
            topics = v
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect();
        }
    }
    Some(Entry {
        date,
        title,
        kind,
        topics,
        raw: chunk,
    })
}

/// `2026-01-17 - Title` → (date, title); a header without a leading date is all title.
fn split_date(header: &str) -> (Option<&str>, &str) {
    let Some((date, rest)) = header.split_at_checked(10).filter(|(date, _)| {
        date.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
    }) else {
        return (None, header);
    };
    let rest = rest.trim_start();
    let title = ["- ", "— ", "– ", ": "]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))
        .unwrap_or(rest)
        .trim();
    (Some(date), if title.is_empty() { header } else { title })
}

/// Whether `line` is one of the field lines an entry's type and topics are read from
/// (`**Type:** …`, `**Topics**: …`, any case, spaces around): recall leaves them out of an
/// entry's body text (SPEC §16).
pub fn is_field_line(line: &str) -> bool {
    let line = line.trim();
    field(line, "Type").is_some() || field(line, "Topics").is_some()
}

/// The value of a `**Name:** value` line (also `**Name**: value`), any case.
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let rest = line.strip_prefix("**")?;
    // `get`: the line is anyone's text, and `name.len()` bytes in may be inside a character
    // (`**Café** …`).
    let (head, rest) = rest.split_at_checked(name.len())?;
    if !head.eq_ignore_ascii_case(name) {
        return None;
    }
    let rest = rest
        .strip_prefix(":**")
        .or_else(|| rest.strip_prefix("**:"))?;
    Some(rest.trim())
}

/// Lower-cased alphanumeric words.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `topic` equals `query` or contains it as whole words, case-insensitively:
/// `auth` matches `auth`, `Auth`, `auth-flow`, not `oauth`.
pub fn topic_matches(topic: &str, query: &str) -> bool {
    if topic.trim().to_lowercase() == query.trim().to_lowercase() {
        return true;
    }
    let (t, q) = (words(topic), words(query));
    !q.is_empty() && t.windows(q.len()).any(|w| w == q.as_slice())
}

/// The entries with a topic matching `query`.
pub fn filter<'e, 'a>(entries: &'e [Entry<'a>], query: &str) -> Vec<&'e Entry<'a>> {
    entries
        .iter()
        .filter(|e| e.topics.iter().any(|t| topic_matches(t, query)))
        .collect()
}

/// Entries joined back the way the file separates them.
pub fn join(entries: &[&Entry<'_>]) -> String {
    entries
        .iter()
        .map(|e| e.raw)
        .collect::<Vec<_>>()
        .join("\n\n---\n\n")
}

/// Topics with their entry counts, most used first, then by name (case-insensitive, shown
/// in their first spelling).
pub fn topic_counts(entries: &[Entry<'_>]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for e in entries {
        let mut seen = Vec::new();
        for t in &e.topics {
            let key = t.to_lowercase();
            if seen.contains(&key) {
                continue;
            }
            counts
                .entry(key.clone())
                .or_insert_with(|| (t.to_string(), 0))
                .1 += 1;
            seen.push(key);
        }
    }
    let mut v: Vec<(String, usize)> = counts.into_values().collect();
    v.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| a.0.to_lowercase().cmp(&b.0.to_lowercase()))
    });
    v
}

/// `topic (n), topic (n)`.
pub fn topic_list(counts: &[(String, usize)]) -> String {
    counts
        .iter()
        .map(|(t, n)| format!("{t} ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_kind(e: &Entry<'_>, kinds: &[KnowledgeType]) -> bool {
    e.kind
        .and_then(KnowledgeType::parse)
        .is_some_and(|k| kinds.contains(&k))
}

fn line(e: &Entry<'_>) -> String {
    let mut s = String::from("- ");
    if let Some(d) = e.date {
        s.push_str(d);
        s.push(' ');
    }
    s.push_str(e.title);
    if !e.topics.is_empty() {
        s.push_str(&format!(" [{}]", e.topics.join(", ")));
    }
    s
}

/// Entries newest first; undated entries count as oldest; ties keep the later one in the file
/// first (it was appended later).
fn newest_first<'e, 'a>(entries: impl Iterator<Item = &'e Entry<'a>>) -> Vec<&'e Entry<'a>>
where
    'a: 'e,
{
    let mut v: Vec<(usize, &Entry<'a>)> = entries.enumerate().collect();
    v.sort_by(|(ia, a), (ib, b)| b.date.cmp(&a.date).then(ib.cmp(ia)));
    v.into_iter().map(|(_, e)| e).collect()
}

/// The summary digest: deterministic, within [`SUMMARY_MAX_TOKENS`], telling a reader what
/// the knowledge covers and which topic to ask for.
pub fn summary(entries: &[Entry<'_>], tokens: usize, counter: &Counter) -> String {
    // Start generous and tighten until the digest fits; each step keeps it deterministic.
    for limit in [12usize, 8, 5, 3, 2, 1, 0] {
        let text = summary_with(entries, tokens, limit);
        if text.len() <= SUMMARY_MAX_TOKENS || counter.count(&text) <= SUMMARY_MAX_TOKENS {
            return text;
        }
    }
    counter
        .truncate(&summary_with(entries, tokens, 0), SUMMARY_MAX_TOKENS)
        .text
        .to_string()
}

fn summary_with(entries: &[Entry<'_>], tokens: usize, limit: usize) -> String {
    let counts = topic_counts(entries);
    let mut out = format!(
        "Knowledge summary: {tokens} tokens in {}, too large to load in full.\n\
         Load one topic in full with `megg context --topic <topic>`.\n",
        entries_count(entries.len())
    );
    let shown_topics = if limit == 0 { 40 } else { 200 };
    out.push_str("\n### Topics\n");
    out.push_str(&topic_list(counts.get(..shown_topics).unwrap_or(&counts)));
    if counts.len() > shown_topics {
        out.push_str(&format!(", … {} more", counts.len() - shown_topics));
    }
    out.push('\n');

    let mut section = |title: &str, picked: Vec<&Entry<'_>>, max: usize| {
        if picked.is_empty() {
            return;
        }
        out.push_str(&format!("\n### {title}\n"));
        for e in picked.iter().take(max) {
            out.push_str(&line(e));
            out.push('\n');
        }
        if picked.len() > max {
            out.push_str(&format!("- … {} more\n", picked.len() - max));
        }
    };
    let recent_decisions = newest_first(
        entries
            .iter()
            .filter(|e| is_kind(e, &[KnowledgeType::Decision])),
    );
    section("Recent decisions", recent_decisions, limit);
    let rules = newest_first(
        entries
            .iter()
            .filter(|e| is_kind(e, &[KnowledgeType::Rule, KnowledgeType::Pattern])),
    );
    section("Rules and patterns", rules, limit);
    // Every gotcha title: the cheapest insurance against repeating a known mistake.
    let gotchas = newest_first(
        entries
            .iter()
            .filter(|e| is_kind(e, &[KnowledgeType::Gotcha])),
    );
    let gotcha_max = if limit >= 5 { usize::MAX } else { limit * 4 };
    section("Gotchas", gotchas, gotcha_max);
    let processes = newest_first(
        entries
            .iter()
            .filter(|e| is_kind(e, &[KnowledgeType::Process])),
    );
    section("Processes", processes, limit);
    section("Most recent", newest_first(entries.iter()), limit.min(5));
    out
}

/// What `blocked` mode delivers instead of the knowledge.
pub fn blocked_message(entries: &[Entry<'_>], tokens: usize, path: &str, exact: bool) -> String {
    let counts = topic_counts(entries);
    let size = if exact {
        format!("{tokens} tokens")
    } else {
        format!("at least {tokens} tokens")
    };
    let mut out = format!(
        "Knowledge is blocked: {path} is {size} ({}), over the {BLOCKED_ABOVE}-token limit.\n\
         Run `megg maintain` to archive or consolidate it, or load one topic with \
         `megg context --topic <topic>`.\n",
        entries_count(entries.len())
    );
    if !counts.is_empty() {
        out.push_str(&format!("Topics: {}\n", topic_list(&counts)));
    }
    out
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
/// refuses it with: its kind and where (`the title`, `the topics`, `the content, line 3`).
pub fn secret_in(entry: &NewEntry) -> Option<EntryError> {
    let topics = entry.topics.join(", ");
    [
        ("the title", entry.title.as_str()),
        ("the topics", topics.as_str()),
        ("the content", entry.content.as_str()),
    ]
    .into_iter()
    .find_map(|(place, text)| {
        let found = crate::megg::redact::secrets(text).into_iter().next()?;
        let place = if place == "the content" {
            let before = text.get(..found.range.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            format!("{place}, line {line}")
        } else {
            place.to_string()
        };
        Some(EntryError::Secret(found.kind.describe(), place))
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

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests;
