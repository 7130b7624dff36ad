//! What loads in place of knowledge too large to load in full (SPEC §3.1–3.2): the summary
//! digest and the blocked message.

use super::kind::KnowledgeType;
use super::parse::Entry;
use super::size::BLOCKED_ABOVE;
use super::topics::{topic_counts, topic_list};
use crate::tokens::Counter;

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

pub(super) fn summary_with(entries: &[Entry<'_>], tokens: usize, limit: usize) -> String {
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
