//! `megg resolve`'s text: what was merged and staged, what still holds markers, and how to
//! finish.

use std::fmt::Write as _;

use crate::megg::resolve::Report;

pub fn resolved(r: &Report) -> String {
    let mut out = String::new();
    if r.resolved.is_empty() && r.conflicts.is_empty() {
        out.push_str(
            "Nothing to resolve: no megg knowledge file is unmerged or holds conflict markers.\n",
        );
        return out;
    }
    for path in &r.resolved {
        let _ = writeln!(out, "resolved: {path} (merged by entry, staged)");
    }
    for c in &r.conflicts {
        let _ = writeln!(out, "conflict: {} (left for you:)", c.path);
        for e in &c.entries {
            let _ = writeln!(out, "  - {e}");
        }
    }
    for b in &r.backups {
        let _ = writeln!(out, "backup: {b}");
    }
    if !r.others.is_empty() {
        let _ = writeln!(
            out,
            "\nStill unmerged, not megg's: {} (settle them with git).",
            r.others.join(", ")
        );
    }
    if r.conflicts.is_empty() && r.others.is_empty() {
        out.push_str(
            "\nFinish with `git commit` (or `git merge --continue` / `git rebase --continue`).\n",
        );
    } else if !r.conflicts.is_empty() {
        out.push_str(
            "\nSettle what is left (for marked entries: keep one side or combine them), `git add` the file, then finish the merge.\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megg::resolve::Remaining;

    #[test]
    fn finish_is_advised_only_when_nothing_is_left() {
        let mut r = Report {
            resolved: vec![".megg/knowledge.md".into()],
            ..Report::default()
        };
        assert!(resolved(&r).contains("Finish with `git commit`"));
        r.others = vec!["README.md".into()];
        let text = resolved(&r);
        assert!(
            text.contains("Still unmerged, not megg's: README.md"),
            "{text}"
        );
        assert!(!text.contains("Finish with"), "{text}");
        r.conflicts = vec![Remaining {
            path: "a/.megg/knowledge.md".into(),
            entries: vec!["## Deploys".into()],
        }];
        assert!(
            resolved(&r).contains("conflict: a/.megg/knowledge.md (left for you:)\n  - ## Deploys")
        );
    }
}
