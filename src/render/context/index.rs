//! The session-start index (SPEC §13.5) as the knowledge part of a context.

use std::fmt::Write as _;

use super::text::tokens_text;
use crate::megg::context::Knowledge;
use crate::megg::knowledge::BLOCKED_ABOVE;
use crate::megg::recall::index::{Index, Line, Why};

/// The session-start index (SPEC §13.5) as the knowledge part of a context: the header (how
/// many entries, how to reach any of them), its first `keep` lines by group, how many are not
/// listed, the topic counts with `topics`, and in blocked mode the seed's instruction to run
/// `megg maintain`. The header and the instruction stay whatever is cut.
pub fn index_text(k: &Knowledge, index: &Index, keep: usize, topics: bool) -> String {
    let (live, archived) = (index.live, index.archived);
    let mut out = format!(
        "Knowledge index: {live} entries, {}{} — too many to load whole. Find any entry with `megg search <words>` and read it with `megg show <id>` (MCP: `search`, `show`). Search before re-deciding something or adding an entry.\n",
        tokens_text(k),
        if archived > 0 {
            format!(" (and {archived} archived)")
        } else {
            String::new()
        }
    );
    let lines = index.lines.get(..keep).unwrap_or(&index.lines);
    for (why, head) in [
        (Why::Session, "Relevant to this session:"),
        (Why::Gotcha, "Gotchas:"),
        (Why::Recent, "Newest:"),
    ] {
        let mut mine = lines.iter().filter(|l| l.why == why).peekable();
        if mine.peek().is_none() {
            continue;
        }
        let _ = writeln!(out, "\n{head}");
        for l in mine {
            let _ = writeln!(out, "{}", index_line(l));
        }
    }
    // A walk stopped at its bound is said, as `search`, `show` and `maintain --check` say it.
    if let Some(bound) = lines
        .iter()
        .filter_map(|l| l.freshness.as_ref())
        .filter(|f| f.capped && !f.paths.is_empty())
        .map(|f| f.bound)
        .max()
    {
        let _ = writeln!(
            out,
            "\nThe history is longer than the walk: checked the last {bound} commits for the code entries cite."
        );
    }
    if lines.len() < live + archived {
        let _ = writeln!(
            out,
            "\n… {} more: search for them.",
            live + archived - lines.len()
        );
    }
    if topics && !k.topics.is_empty() {
        let _ = writeln!(
            out,
            "\nTopics: {}",
            crate::megg::knowledge::topic_list(&k.topics)
        );
    }
    if index.blocked {
        // The seed's blocked message (`knowledge::blocked_message`), without its topic counts:
        // the index says them once, and gives them up before its lines.
        let size = if k.tokens_exact {
            format!("{} tokens", k.tokens)
        } else {
            format!("at least {} tokens", k.tokens)
        };
        let _ = write!(
            out,
            "\nKnowledge is blocked: {} is {size} ({} entries), over the {BLOCKED_ABOVE}-token limit.\n\
             Run `megg maintain` to archive or consolidate it, or load one topic with \
             `megg context --topic <topic>`.\n",
            k.path.display(),
            k.entries
        );
    }
    out
}

/// One line of the index: `- id date type: title [topics]`, and ` (archived)` for an archived
/// entry. [`Line::width`] is its length.
pub fn index_line(l: &Line) -> String {
    let mut s = format!("- {}", l.id);
    if let Some(d) = &l.date {
        let _ = write!(s, " {d}");
    }
    s.push(' ');
    if let Some(t) = &l.entry_type {
        let _ = write!(s, "{t}: ");
    }
    s.push_str(&l.title);
    if !l.topics.is_empty() {
        let _ = write!(s, " [{}]", l.topics.join(", "));
    }
    if l.archived {
        s.push_str(" (archived)");
    }
    if l.stale() {
        s.push_str(" stale?");
    }
    s
}
