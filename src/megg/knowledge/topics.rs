//! Topic matching and counting.

use std::collections::BTreeMap;

use super::parse::Entry;

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
