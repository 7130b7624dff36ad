//! The session-start index (SPEC §13.5): when knowledge is too large to load (summary or
//! blocked), the hook carries one line per entry — `id date type: title [topics]` — the entries
//! relevant to *this* session first (ranked by what megg knows of it — each item of the
//! handoff's Working On and Next, the checkpoint, the branch, the paths the last commits
//! changed, each a query of its own, their hits taken in turns: [`rank`]), then every gotcha,
//! then the newest; as many as fit.

use std::collections::{HashMap, HashSet};

use super::doc::{Doc, Kind};
use super::postings::Postings;
use super::search::{MAX_QUERY_CHARS, Query, Terms, ranked};
use crate::megg::freshness::Freshness;
use crate::megg::knowledge::KnowledgeType;

/// The freshness of each of some entries, in their order (SPEC §17): what [`rank`] asks of git
/// for the entries that fit.
pub type Fresh<'f> = &'f dyn Fn(&[&Doc]) -> Vec<Option<Freshness>>;

/// Most characters of the index lines (the knowledge's share of the hook's 9,500).
pub const MAX_INDEX_CHARS: usize = 4_000;
/// Most entries taken for the session before gotchas and the newest.
pub const MAX_SESSION_HITS: usize = 15;

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
    /// Its citations checked against git (SPEC §17).
    pub freshness: Option<Freshness>,
}

impl Line {
    /// A cited path is gone, or changed in 5 commits or more: the line ends with ` stale?`.
    pub fn stale(&self) -> bool {
        self.freshness.as_ref().is_some_and(Freshness::stale)
    }
}

impl Line {
    /// Characters of the line as the index prints it — `- id date type: title [topics]`, then
    /// ` (archived)` for an archived entry (`render::context::index_line`) — without rendering
    /// it: what [`MAX_INDEX_CHARS`] counts.
    pub fn width(&self) -> usize {
        let chars = |s: &str| s.chars().count();
        let topics = if self.topics.is_empty() {
            0
        } else {
            chars(&self.topics.join(", ")) + " []".len()
        };
        "- ".len()
            + chars(&self.id)
            + self.date.as_deref().map_or(0, |d| 1 + chars(d))
            + 1
            + self
                .entry_type
                .as_deref()
                .map_or(0, |t| chars(t) + ": ".len())
            + chars(&self.title)
            + topics
            + if self.archived {
                " (archived)".len()
            } else {
                0
            }
            + if self.stale() { " stale?".len() } else { 0 }
    }
}

/// The index of `docs` for a session described by `session`, one item per line ([`rank`]),
/// the postings built here: what a test or a fuzz target calls.
pub fn build(docs: &[Doc], session: &str) -> Vec<Line> {
    let items: Vec<String> = session.lines().map(str::to_string).collect();
    rank(docs, &Postings::build(docs, false), &items, &|d| {
        vec![None; d.len()]
    })
}

/// The index of `docs` (its knowledge and archive entries; `postings` built from all of
/// `docs`), within [`MAX_INDEX_CHARS`]: first the entries of the session, `items` being what
/// it is about (a handoff's items, the checkpoint, the branch, the changed paths — each
/// taken word for word, never as query syntax: SPEC §16). Each item is a query of its own,
/// ranked as `megg search` ranks it; their hits are taken in turns — every item's best, then
/// every item's second… — each entry once, up to [`MAX_SESSION_HITS`]: an item whose words
/// are rare in the session still brings its answer before the others' second bests.
///
/// A superseded entry is never listed (SPEC §17). The entries that fit are checked against git
/// (`fresh`); a stale one goes after the fresh ones of equal relevance — the same turn of the
/// session's hits, the same date among gotchas and the newest.
pub fn rank(docs: &[Doc], postings: &Postings, items: &[String], fresh: Fresh<'_>) -> Vec<Line> {
    let entries: Vec<&Doc> = docs
        .iter()
        .filter(|d| matches!(d.kind, Kind::Knowledge | Kind::Archive) && !superseded(d))
        .collect();
    // (entry, why, the turn it was picked in: 0 outside the session's hits).
    let mut picked: Vec<(&Doc, Why, usize)> = Vec::new();
    let mut seen = HashSet::new();
    let query = Query {
        kinds: vec![Kind::Knowledge, Kind::Archive],
        limit: MAX_SESSION_HITS,
        ..Query::default()
    };
    let mut lists: Vec<Vec<(&Doc, f64)>> = items
        .iter()
        .map(|item| {
            let text: String = item.chars().take(MAX_QUERY_CHARS).collect();
            ranked(docs, postings, &query, &Terms::literal(&text))
                .hits
                .into_iter()
                .map(|h| (h.doc, h.score))
                .filter(|(d, _)| !superseded(d))
                .collect()
        })
        .collect();
    // The session's hits checked first: of two with the same score for an item, the fresh one
    // is taken first.
    let mut checked: HashMap<String, Option<Freshness>> = HashMap::new();
    let hits: Vec<&Doc> = lists.iter().flatten().map(|(d, _)| *d).collect();
    for (d, f) in hits.iter().zip(fresh(&hits)) {
        checked.insert(d.id.to_string(), f);
    }
    let stale = |d: &Doc| {
        checked
            .get(d.id.as_str())
            .is_some_and(|f| f.as_ref().is_some_and(Freshness::stale))
    };
    for list in &mut lists {
        list.sort_by(|a, b| {
            b.1.partial_cmp(&a.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| stale(a.0).cmp(&stale(b.0)))
        });
    }
    'turns: for turn in 0..MAX_SESSION_HITS {
        for list in &lists {
            if let Some(&(d, _)) = list.get(turn)
                && seen.insert(d.id.clone())
            {
                picked.push((d, Why::Session, turn));
                if picked.len() == MAX_SESSION_HITS {
                    break 'turns;
                }
            }
        }
    }
    let mut newest: Vec<&Doc> = entries.clone();
    newest.sort_by(|a, b| b.date.cmp(&a.date).then(a.id.cmp(&b.id)));
    for d in &newest {
        if d.entry_type.as_deref() == Some(KnowledgeType::Gotcha.as_str())
            && d.kind == Kind::Knowledge
            && seen.insert(d.id.clone())
        {
            picked.push((d, Why::Gotcha, 0));
        }
    }
    for d in &newest {
        if seen.insert(d.id.clone()) {
            picked.push((d, Why::Recent, 0));
        }
    }
    let line = |&(d, why, _): &(&Doc, Why, usize), freshness| Line {
        id: d.id.to_string(),
        date: d.date.as_deref().map(str::to_string),
        entry_type: d.entry_type.as_deref().map(str::to_string),
        title: d.title.to_string(),
        topics: d.topics.iter().map(|t| t.to_string()).collect(),
        why,
        archived: d.kind == Kind::Archive,
        freshness,
    };
    // The entries that fit (a stale one's mark may push the last out below), checked together.
    let mut used = 0;
    let fits = picked
        .iter()
        .take_while(|p| {
            used += line(p, None).width() + 1;
            used <= MAX_INDEX_CHARS
        })
        .count();
    picked.truncate(fits);
    let unchecked: Vec<&Doc> = picked
        .iter()
        .map(|p| p.0)
        .filter(|d| !checked.contains_key(d.id.as_str()))
        .collect();
    for (d, f) in unchecked.iter().zip(fresh(&unchecked)) {
        checked.insert(d.id.to_string(), f);
    }
    let mut lines: Vec<Line> = picked
        .iter()
        .map(|p| line(p, checked.get(p.0.id.as_str()).cloned().flatten()))
        .collect();
    // Within each run of equal relevance, the fresh first (a stable partition).
    let group = |p: &(&Doc, Why, usize)| (p.1, p.2, p.0.date.clone());
    let mut start = 0;
    while start < lines.len() {
        let key = picked.get(start).map(group);
        let end = (start..picked.len())
            .find(|&i| picked.get(i).map(group) != key)
            .unwrap_or(picked.len());
        if let Some(run) = lines.get_mut(start..end) {
            run.sort_by_key(Line::stale);
        }
        start = end;
    }
    let mut used = 0;
    lines.retain(|l| {
        used += l.width() + 1;
        used <= MAX_INDEX_CHARS
    });
    lines
}

/// An entry `learn --supersedes` moved to the archive: found by search, never in the index.
fn superseded(d: &Doc) -> bool {
    crate::megg::knowledge::superseded_by(&d.text).is_some()
}

/// The index and what is said with it: how many entries there are and, in blocked mode, that
/// the seed's instruction to run `megg maintain` goes with it (SPEC §13.5, §3.3). Rendered by
/// `render::context`, with the knowledge's path, tokens and topic counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// Most relevant first (the session's, then gotchas, then the newest), within
    /// [`MAX_INDEX_CHARS`]; a budget keeps a prefix.
    pub lines: Vec<Line>,
    pub live: usize,
    pub archived: usize,
    /// Blocked mode: the knowledge is over the limit, and `megg maintain` is due.
    pub blocked: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, date: &str, kind: &str, title: &str) -> Doc {
        Doc {
            id: id.into(),
            kind: Kind::Knowledge,
            path: std::path::Path::new("/k.md").into(),
            line: 1,
            date: Some(date.into()),
            entry_type: Some(kind.into()),
            title: title.into(),
            topics: ["t".into()].into_iter().collect(),
            text: format!("## {date} - {title}\n").into(),
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
    }

    /// Issue (SPEC §16): the session's text was read as query syntax — its quotes made phrases
    /// no title held, and the session ranked nothing. It is taken word for word.
    #[test]
    fn the_sessions_quotes_are_words_not_syntax() {
        let docs = vec![
            entry("k1", "2026-01-01", "decision", "Billing exports use CSV"),
            entry("k2", "2026-02-01", "fact", "Deploys are blue-green"),
        ];
        for session in [
            "Rename \"Save\" to \"Submit\" in the billing export",
            "the billing export on 5\" screens",
            "\"billing export",
            "\"\"\"billing\" OR -export",
        ] {
            let lines = build(&docs, session);
            assert_eq!(
                (lines[0].id.as_str(), lines[0].why),
                ("k1", Why::Session),
                "{session}"
            );
        }
    }

    /// SPEC §17: a stale entry goes after a fresh one of equal relevance (here: the same date
    /// among the newest), never before a more relevant one; a superseded entry is not listed.
    #[test]
    fn stale_entries_go_after_fresh_ones_of_equal_relevance() {
        use crate::megg::freshness::{Freshness, PathFreshness, Status};
        let mut superseded = entry("k0", "2026-04-01", "fact", "Old way");
        superseded.text = "## 2026-04-01 - Old way\n**Type:** fact\n**Topics:** t\n**Superseded-by:** 2026-05-01 - New way\n\nx\n".into();
        let docs = vec![
            superseded,
            entry("k1", "2026-03-01", "fact", "Deploys are blue-green"),
            entry("k2", "2026-03-01", "fact", "Builds are cached"),
            entry("k3", "2026-02-01", "fact", "Invoices are immutable"),
        ];
        let gone = Freshness {
            date: "2026-03-01".into(),
            paths: vec![PathFreshness {
                path: "deploy.sh".into(),
                status: Status::Gone,
                commits: 1,
                new_path: None,
                touches: Vec::new(),
            }],
            ..Freshness::default()
        };
        let stale_ids = ["k1", "k3"];
        let fresh = |d: &[&Doc]| {
            d.iter()
                .map(|d| stale_ids.contains(&d.id.as_str()).then(|| gone.clone()))
                .collect()
        };
        let lines = rank(&docs, &Postings::build(&docs, false), &[], &fresh);
        let order: Vec<&str> = lines.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(order, ["k2", "k1", "k3"]);
        assert!(!lines[0].stale() && lines[1].stale() && lines[2].stale());
    }
}
