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
        let _ = writeln!(out, "conflict: {} (markers left around:)", c.path);
        for e in &c.entries {
            let _ = writeln!(out, "  - {e}");
        }
    }
    if r.conflicts.is_empty() {
        out.push_str(
            "\nFinish with `git commit` (or `git merge --continue` / `git rebase --continue`).\n",
        );
    } else {
        out.push_str(
            "\nEdit the marked entries (keep one side, or combine them), then `git add` the file and finish the merge.\n",
        );
    }
    out
}
