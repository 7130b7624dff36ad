//! The entry parser every command shares, and a whole file cut into exact slices for the
//! merge.

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
pub(super) const FIELD_LINES: usize = 6;

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
pub(super) fn split_date(header: &str) -> (Option<&str>, &str) {
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
pub(super) fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
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
