//! The text of `megg search` and `megg show` (SPEC §13.3, §13.4).

use std::ops::Range;

use crate::megg::freshness::{Status, describe};
use crate::megg::recall::{search, text};
use crate::shell::shell_quote;
use crate::wire::recall::{Freshness, Searched, Shown};

/// What happened to an entry's cited code since its date, in one line (SPEC §17) — `stale? `
/// first when it is stale, "checked the last N commits" last when the history is longer than
/// the walk; `None` when every citation is fresh over the whole history, or there is none.
pub fn freshness_note(f: &Freshness, date: Option<&str>) -> Option<String> {
    let what: Vec<String> = f
        .paths
        .iter()
        .filter(|p| p.status != Status::Fresh)
        .map(|p| describe(&p.path, p.status, p.commits, p.new_path.as_deref()))
        .collect();
    let capped =
        (f.capped && !f.paths.is_empty()).then(|| format!("checked the last {} commits", f.bound));
    let since = date.map(|d| format!("since {d}: ")).unwrap_or_default();
    match (what.is_empty(), capped) {
        (true, None) => None,
        (true, Some(capped)) => Some(format!("cited code {since}fresh ({capped})")),
        (false, capped) => Some(format!(
            "{}{since}{}{}",
            if f.stale { "stale? " } else { "cited code " },
            what.join("; "),
            capped.map(|c| format!(" ({c})")).unwrap_or_default()
        )),
    }
}

/// One block per hit — id, kind, date, type, title, topics, file and line, snippet — then the
/// count and how to read one in full; for no match, what was looked for and the nearest topics.
pub fn searched(s: &Searched) -> String {
    searched_marked(s).0
}

/// [`searched`], with the byte ranges of the words in titles and snippets that match the
/// query (highlighted on a terminal).
pub fn searched_marked(s: &Searched) -> (String, Vec<Range<usize>>) {
    let Some(first) = s.results.first() else {
        let mut out = format!("No match for {}.\n", shell_quote(&s.query));
        if !s.suggestions.is_empty() {
            out.push_str(&format!(
                "Nearest topics: {} (megg context --topic TOPIC, or search other words)\n",
                s.suggestions.join(", ")
            ));
        }
        return (out, Vec::new());
    };
    let terms = search::query_terms(&s.query);
    let mut out = String::new();
    let mut marks = Vec::new();
    let mut marked = |out: &mut String, text: &str| {
        let at = out.len();
        marks.extend(
            text::matching(text, &terms)
                .into_iter()
                .map(|r| r.start + at..r.end + at),
        );
        out.push_str(text);
    };
    for r in &s.results {
        let mut head = format!("{}  {}", r.id, r.kind.as_str());
        for part in [&r.date, &r.entry_type].into_iter().flatten() {
            head.push_str("  ");
            head.push_str(part);
        }
        if let Some(next) = &r.superseded_by {
            head.push_str(&format!("  superseded by {next}"));
            if let Some(id) = &r.superseded_by_id {
                head.push_str(&format!(" ({id})"));
            }
        }
        out.push_str(&head);
        out.push_str("\n  ");
        marked(&mut out, &r.title);
        if !r.topics.is_empty() {
            out.push_str(&format!(" [{}]", r.topics.join(", ")));
        }
        out.push('\n');
        out.push_str(&format!("  {}:{}\n", r.path.display(), r.line));
        if let Some(note) = r
            .freshness
            .as_ref()
            .and_then(|f| freshness_note(f, r.date.as_deref()))
        {
            out.push_str(&format!("  {note}\n"));
        }
        if !r.snippet.is_empty() {
            out.push_str("  > ");
            marked(&mut out, &r.snippet);
            out.push('\n');
        }
        out.push('\n');
    }
    let first = &first.id;
    out.push_str(&format!(
        "{} of {} match{} shown; read one in full: megg show {first}\n",
        s.results.len(),
        s.total,
        if s.total == 1 { "" } else { "es" }
    ));
    (out, marks)
}

/// Each document under a header naming its file and line.
pub fn shown(s: &Shown) -> String {
    let mut out = String::new();
    for d in &s.documents {
        out.push_str(&format!(
            "==> {} ({}{}, {}:{})\n",
            d.id,
            d.kind.as_str(),
            d.superseded_by
                .as_deref()
                .map(|n| match &d.superseded_by_id {
                    Some(id) => format!(", superseded by {n} ({id})"),
                    None => format!(", superseded by {n}"),
                })
                .unwrap_or_default(),
            d.path.display(),
            d.line
        ));
        out.push_str(d.text.trim_end());
        out.push('\n');
        if let Some(note) = d
            .freshness
            .as_ref()
            .and_then(|f| freshness_note(f, d.date.as_deref()))
        {
            out.push_str(&format!("-- {note}\n"));
        }
        out.push('\n');
    }
    out
}
