//! A checkpoint as megg shows it (SPEC §12 "At injection"): a file written by hand may hold a
//! secret — in its notes, an item, even its feature or branch. What `megg checkpoint` and the
//! MCP `checkpoint_*` tools print or return of it has each one `[redacted]`, named by the
//! file's line; what megg writes back to the file (a resume, an update, a save) is the file as
//! it is, the user's to clean.

use std::path::Path;

use super::format::{Checkpoint, Item};
use crate::megg::recall::hidden::{self, Hidden};

/// The file's `text` as megg shows it: each secret `[redacted]`, on as many lines as it took
/// (every other line stays where it is). [`checkpoint`] names where each is.
pub fn text(path: &Path, text: String) -> String {
    hidden::redact(path, text, &mut Vec::new())
}

/// `cp`, read out of the file at `path`, as megg shows it: each secret in its values
/// `[redacted]` — and every secret of the file named, by its line in `text` (the file as read,
/// when it could be). One a value holds that the scan of the whole file did not find (a YAML
/// escape can hide one) is named by the file alone.
pub fn checkpoint(path: &Path, cp: &Checkpoint, text: Option<&str>) -> (Checkpoint, Vec<Hidden>) {
    let mut hidden = Vec::new();
    if let Some(text) = text {
        hidden::redact(path, text.to_string(), &mut hidden);
    }
    let mut value = |v: &str| {
        let mut found = Vec::new();
        let shown = hidden::redact_value(path, v, &mut found);
        for h in found {
            if !hidden.iter().any(|named| named.rule == h.rule) {
                hidden.push(h);
            }
        }
        shown
    };
    let shown = Checkpoint {
        feature: value(&cp.feature),
        plan_file: value(&cp.plan_file),
        phase: cp.phase.as_deref().map(&mut value),
        branch: cp.branch.as_deref().map(&mut value),
        head: cp.head.as_deref().map(&mut value),
        started: cp.started,
        updated: cp.updated,
        items: cp
            .items
            .iter()
            .map(|i| Item {
                text: value(&i.text),
                done: i.done,
            })
            .collect(),
    };
    (shown, hidden)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megg::checkpoint::format::{Kind, classify};

    const KEY: &str = "glpat-R7tKq2mXw9LpZ4vNc8Yb";

    fn parsed(text: &str) -> Checkpoint {
        let Kind::Checkpoint(cp) = classify(text) else {
            panic!("{text}")
        };
        cp
    }

    #[test]
    fn every_value_is_shown_redacted_and_named_by_its_line() {
        let text = format!(
            "---\nfeature: ship {KEY}\nplan_file: p.md\nbranch: b\n---\n- [ ] rotate {KEY}\n\nNotes: password=hunter2hunter2\n"
        );
        let (shown, hidden) = checkpoint(Path::new("/c.md"), &parsed(&text), Some(&text));
        assert_eq!(shown.feature, "ship [redacted]");
        assert_eq!(shown.items[0].text, "rotate [redacted]");
        assert_eq!(
            (shown.plan_file.as_str(), shown.branch.as_deref()),
            ("p.md", Some("b"))
        );
        let lines: Vec<Option<usize>> = hidden.iter().map(|h| h.line).collect();
        assert_eq!(lines, [Some(2), Some(6), Some(8)], "{hidden:?}");
    }

    #[test]
    fn a_value_whose_secret_the_file_scan_missed_is_named_by_the_file() {
        let text = format!("---\nfeature: ship {KEY}\nplan_file: p.md\n---\n");
        let cp = parsed(&text);
        let (shown, hidden) = checkpoint(Path::new("/c.md"), &cp, None);
        assert_eq!(shown.feature, "ship [redacted]");
        assert_eq!(hidden.len(), 1);
        assert_eq!(hidden[0].line, None);
    }

    #[test]
    fn a_checkpoint_without_secrets_is_shown_as_it_is() {
        let text = "---\nfeature: f\nplan_file: p.md\nphase: work\n---\n- [x] done\n";
        let cp = parsed(text);
        let (shown, hidden) = checkpoint(Path::new("/c.md"), &cp, Some(text));
        assert_eq!(shown, cp);
        assert!(hidden.is_empty());
        assert_eq!(super::text(Path::new("/c.md"), text.to_string()), text);
    }
}
