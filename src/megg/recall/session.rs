//! What megg knows of the session a context is for (SPEC §13.5): the items the session-start
//! index is ranked by, each a query of its own — so that every thing the session is about
//! brings its own best entries, not only the one whose words are the most frequent.

use crate::fsx;
use crate::git::Repo;
use crate::megg::checkpoint;

/// Most items taken from a handoff: a longer one is a list of steps, not of subjects, and each
/// item costs the hook one ranking.
pub const MAX_HANDOFF_ITEMS: usize = 12;
/// Most paths of the last commits taken (one item together).
const MAX_PATHS: usize = 50;

/// What megg knows of the session a context is for, as queries to rank the index by, in this
/// order: each item of the last handoff's (active or expired) Working On, then of its Next
/// (what the session is about, not what it did; at most [`MAX_HANDOFF_ITEMS`]); the newest
/// workflow checkpoint's feature and plan title; the branch; the paths the last commits
/// changed (one item). None is empty.
pub fn items(
    handoff: Option<&str>,
    checkpoint: Option<&checkpoint::store::Found>,
    repo: Option<&Repo>,
) -> Vec<String> {
    let mut items: Vec<String> = handoff.map(handoff_items).unwrap_or_default();
    items.truncate(MAX_HANDOFF_ITEMS);
    if let Some(found) = checkpoint {
        let c = &found.checkpoint;
        let mut item = c.feature.replace(['-', '_'], " ");
        let root = &found.root;
        let plan = root.join(&c.plan_file);
        if let Ok(Some(t)) =
            fsx::read_text(&fsx::Boundary::new(root, "the project"), &plan, 64 * 1024)
            && let Some(title) = t.text.lines().find(|l| l.starts_with("# "))
        {
            item.push('\n');
            item.push_str(title.trim_start_matches("# "));
        }
        items.push(item);
    }
    if let Some(r) = repo {
        if let Some(b) = r.current_branch() {
            items.push(b.replace(['/', '-', '_'], " "));
        }
        let paths: Vec<String> = r
            .recent_paths(3, MAX_PATHS)
            .iter()
            .map(|p| p.replace(['/', '.', '-', '_'], " "))
            .collect();
        items.push(paths.join("\n"));
    }
    items.retain(|i| !i.trim().is_empty());
    items
}

/// The items of a handoff's `## Working On` and `## Next` sections, in the file's order: each
/// list item (`-`, `*`, `+`, `1.`, a checkbox after it) with the lines that continue it, each
/// paragraph that is not a list.
pub fn handoff_items(content: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    let mut open = false;
    for line in super::handoff_sections(content, &["Working On", "Next"]) {
        let text = line.trim();
        if text.is_empty() {
            open = false;
            continue;
        }
        match list_item(text) {
            Some(rest) => {
                items.push(rest.to_string());
                open = true;
            }
            None if open => {
                if let Some(last) = items.last_mut() {
                    last.push('\n');
                    last.push_str(text);
                }
            }
            None => {
                items.push(text.to_string());
                open = true;
            }
        }
    }
    items.retain(|i| !i.trim().is_empty());
    items
}

/// A list item's line without its marker (`- `, `* `, `+ `, `12. `, `3) `); `None` for a line
/// that is not one. The handoff's lists are read so wherever megg reads them.
pub fn without_list_marker(line: &str) -> Option<&str> {
    ["- ", "* ", "+ "]
        .iter()
        .find_map(|m| line.strip_prefix(m))
        .or_else(|| {
            let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let after = line.get(digits..)?;
            (digits > 0)
                .then(|| {
                    after
                        .strip_prefix(". ")
                        .or_else(|| after.strip_prefix(") "))
                })
                .flatten()
        })
}

/// The text of a list item's line without its marker (`- `, `* `, `+ `, `12. `, `3) `) and
/// checkbox; `None` for a line that is not one.
fn list_item(line: &str) -> Option<&str> {
    if matches!(line, "-" | "*" | "+") {
        return Some("");
    }
    let rest = without_list_marker(line)?.trim_start();
    Some(
        ["[ ] ", "[x] ", "[X] "]
            .iter()
            .find_map(|b| rest.strip_prefix(b))
            .unwrap_or(rest),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_item_of_working_on_and_next_is_a_query_of_its_own() {
        let handoff = "## Working On\n- The duplicate-refund webhook\n  seen twice in prod\n\n## Progress\n- [x] reproduced it\n\n## Next\n1. [ ] handle the carrier API answering 429 during checkout\n2) rename the column\n* [x] ship\n\nA paragraph\nthat goes on\n\n## Context\nnot this\n";
        assert_eq!(
            handoff_items(handoff),
            [
                "The duplicate-refund webhook\nseen twice in prod",
                "handle the carrier API answering 429 during checkout",
                "rename the column",
                "ship",
                "A paragraph\nthat goes on",
            ]
        );
        assert_eq!(handoff_items("## Next\n-\n- \n"), Vec::<String>::new());
        assert_eq!(
            handoff_items("## Next\n-x\n12.5 is a number\n"),
            ["-x\n12.5 is a number"]
        );
    }
}
