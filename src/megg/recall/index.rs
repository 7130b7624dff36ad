//! The session-start index (SPEC §13.5): when knowledge is too large to load (summary or
//! blocked), the hook carries one line per entry — `id date type: title [topics]` — the entries
//! relevant to *this* session first (ranked by what megg knows of it: the handoff's Working On
//! and Next, the branch, the paths the last commits changed), then every gotcha, then the
//! newest; as many as fit.

use std::collections::HashSet;

use super::doc::{Doc, Kind};
use super::postings::Postings;
use super::search::{MAX_QUERY_CHARS, Query, search};

/// Most characters of the index lines (the knowledge's share of the hook's 9,500).
pub const MAX_INDEX_CHARS: usize = 4_000;
/// Most entries taken for the session before gotchas and the newest.
const MAX_SESSION_HITS: usize = 15;

/// Why an entry is in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// It matches what this session is about.
    Session,
    /// A gotcha: always worth knowing.
    Gotcha,
    /// Among the newest.
    Recent,
}

/// One line of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub id: String,
    pub date: Option<String>,
    pub entry_type: Option<String>,
    pub title: String,
    pub topics: Vec<String>,
    pub why: Why,
    pub archived: bool,
}

impl Line {
    pub fn text(&self) -> String {
        let mut s = format!("- {}", self.id);
        if let Some(d) = &self.date {
            s.push(' ');
            s.push_str(d);
        }
        s.push(' ');
        if let Some(t) = &self.entry_type {
            s.push_str(t);
            s.push_str(": ");
        }
        s.push_str(&self.title);
        if !self.topics.is_empty() {
            s.push_str(&format!(" [{}]", self.topics.join(", ")));
        }
        if self.archived {
            s.push_str(" (archived)");
        }
        s
    }
}

/// The index of `docs` (knowledge and archive entries), ranked by their titles and topics, for a
/// session described by `session`
/// (free text: the handoff, the branch, changed paths), within [`MAX_INDEX_CHARS`].
pub fn build(docs: &[Doc], session: &str) -> Vec<Line> {
    let entries: Vec<&Doc> = docs
        .iter()
        .filter(|d| matches!(d.kind, Kind::Knowledge | Kind::Archive))
        .collect();
    let mut picked: Vec<(&Doc, Why)> = Vec::new();
    let mut seen = HashSet::new();
    if !session.trim().is_empty() {
        let owned: Vec<Doc> = entries.iter().map(|d| (*d).clone()).collect();
        // Ranked by titles and topics only: cheap enough for the hook.
        let found = search(
            &owned,
            &Postings::build(&owned, true),
            &Query {
                text: session.chars().take(MAX_QUERY_CHARS).collect(),
                limit: MAX_SESSION_HITS,
                ..Query::default()
            },
        );
        for h in found.hits {
            if let Some(d) = entries.iter().find(|d| d.id == h.doc.id)
                && seen.insert(d.id.clone())
            {
                picked.push((d, Why::Session));
            }
        }
    }
    let mut newest: Vec<&Doc> = entries.clone();
    newest.sort_by(|a, b| b.date.cmp(&a.date).then(a.id.cmp(&b.id)));
    for d in &newest {
        if d.entry_type.as_deref() == Some("gotcha")
            && d.kind == Kind::Knowledge
            && seen.insert(d.id.clone())
        {
            picked.push((d, Why::Gotcha));
        }
    }
    for d in &newest {
        if seen.insert(d.id.clone()) {
            picked.push((d, Why::Recent));
        }
    }
    let mut lines = Vec::new();
    let mut used = 0;
    for (d, why) in picked {
        let line = Line {
            id: d.id.clone(),
            date: d.date.clone(),
            entry_type: d.entry_type.clone(),
            title: d.title.clone(),
            topics: d.topics.clone(),
            why,
            archived: d.kind == Kind::Archive,
        };
        let n = line.text().chars().count() + 1;
        if used + n > MAX_INDEX_CHARS {
            break;
        }
        used += n;
        lines.push(line);
    }
    lines
}

/// The index and what is said with it: how many entries there are, the topics, and in blocked
/// mode the seed's instruction to run `megg maintain` — everything a budget may cut it down to
/// (SPEC §13.5, §3.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// Most relevant first (the session's, then gotchas, then the newest), within
    /// [`MAX_INDEX_CHARS`]; a budget keeps a prefix.
    pub lines: Vec<Line>,
    pub live: usize,
    pub archived: usize,
    /// The knowledge's tokens, and whether they were counted (else a bound, SPEC §3.1).
    pub tokens: (usize, bool),
    /// `a (3), b (2)`, or empty.
    pub topics: String,
    /// Blocked mode: what the seed says (the file is blocked, run `megg maintain`).
    pub blocked: Option<String>,
}

impl Index {
    /// The index as the hook's knowledge text, with its first `keep` lines and, with `topics`,
    /// the topic list: the header (how many entries, how to reach any of them) and, in blocked
    /// mode, the instruction to run `megg maintain` always stay.
    pub fn text(&self, keep: usize, topics: bool) -> String {
        let (live, archived) = (self.live, self.archived);
        let tokens = match self.tokens {
            (n, true) => format!("{n} tokens"),
            (_, false) => "over 16,000 tokens".to_string(),
        };
        let mut out = format!(
            "Knowledge index: {live} entries, {tokens}{} — too many to load whole. Find any entry with `megg search <words>` and read it with `megg show <id>` (MCP: `search`, `show`). Search before re-deciding something or adding an entry.\n",
            if archived > 0 {
                format!(" (and {archived} archived)")
            } else {
                String::new()
            }
        );
        let lines = &self.lines[..keep.min(self.lines.len())];
        for (why, head) in [
            (Why::Session, "Relevant to this session:"),
            (Why::Gotcha, "Gotchas:"),
            (Why::Recent, "Newest:"),
        ] {
            let mine: Vec<&Line> = lines.iter().filter(|l| l.why == why).collect();
            if mine.is_empty() {
                continue;
            }
            out.push('\n');
            out.push_str(head);
            out.push('\n');
            for l in mine {
                out.push_str(&l.text());
                out.push('\n');
            }
        }
        let shown = lines.len();
        if shown < live + archived {
            out.push_str(&format!(
                "\n… {} more: search for them.\n",
                live + archived - shown
            ));
        }
        if topics && !self.topics.is_empty() {
            out.push_str(&format!("\nTopics: {}\n", self.topics));
        }
        if let Some(b) = &self.blocked {
            out.push('\n');
            out.push_str(b);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, date: &str, kind: &str, title: &str) -> Doc {
        Doc {
            id: id.into(),
            kind: Kind::Knowledge,
            path: "/k.md".into(),
            line: 1,
            date: Some(date.into()),
            entry_type: Some(kind.into()),
            title: title.into(),
            topics: vec!["t".into()],
            text: format!("## {date} - {title}\n"),
            key: String::new(),
        }
    }

    #[test]
    fn the_session_first_then_gotchas_then_the_newest() {
        let docs = vec![
            entry("k1", "2026-01-01", "decision", "Billing exports use CSV"),
            entry("k2", "2026-02-01", "gotcha", "The cache never expires"),
            entry("k3", "2026-03-01", "fact", "Deploys are blue-green"),
            entry("k4", "2026-01-05", "rule", "Invoices are immutable"),
        ];
        let lines = build(
            &docs,
            "## Working On\nthe billing export\nbranch feat/billing-export",
        );
        let order: Vec<(&str, Why)> = lines.iter().map(|l| (l.id.as_str(), l.why)).collect();
        assert_eq!(
            order,
            [
                ("k1", Why::Session),
                ("k2", Why::Gotcha),
                ("k3", Why::Recent),
                ("k4", Why::Recent)
            ]
        );
        let index = Index {
            lines,
            live: 4,
            archived: 0,
            tokens: (17_000, true),
            topics: "t (4)".into(),
            blocked: Some("Knowledge is blocked. Run `megg maintain`.\n".into()),
        };
        let text = index.text(4, true);
        assert!(
            text.starts_with("Knowledge index: 4 entries, 17000 tokens"),
            "{text}"
        );
        assert!(
            text.contains("- k1 2026-01-01 decision: Billing exports use CSV [t]"),
            "{text}"
        );
        assert!(text.contains("megg search") && text.contains("Topics: t (4)"));
        // Cut down, the header and the instruction stay; the rest is counted.
        let least = index.text(0, false);
        assert_eq!(
            least
                .lines()
                .filter(|l| !l.is_empty())
                .skip(1)
                .collect::<Vec<_>>(),
            [
                "… 4 more: search for them.",
                "Knowledge is blocked. Run `megg maintain`."
            ]
        );
        assert!(index.text(2, true).contains("… 2 more"));
    }
}
