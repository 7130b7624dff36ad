//! What megg knows of the session a context is for (SPEC §13.5): the words the session-start
//! index is ranked by.

use std::path::Path;

use crate::fsx;
use crate::git::Repo;
use crate::megg::checkpoint;

/// What megg knows of the session a context is for, as words to rank the index by: the last
/// handoff's (active or expired) Working On and Next (what the session is about, not what it did), the branch, the
/// newest workflow checkpoint's feature and plan title, and the paths the last commits changed.
pub fn words(handoff: Option<&str>, top: &Path, repo: Option<&Repo>) -> String {
    let mut words = String::new();
    if let Some(found) = checkpoint::store::scan(&[top.to_path_buf()])
        .checkpoints
        .first()
    {
        let c = &found.checkpoint;
        words.push_str(&c.feature.replace(['-', '_'], " "));
        words.push('\n');
        let plan = top.join(&c.plan_file);
        if let Ok(Some(t)) =
            fsx::read_text(&fsx::Boundary::new(top, "the project"), &plan, 64 * 1024)
            && let Some(title) = t.text.lines().find(|l| l.starts_with("# "))
        {
            words.push_str(title.trim_start_matches("# "));
            words.push('\n');
        }
    }
    if let Some(content) = handoff {
        words.push_str(&session_sections(content));
    }
    if let Some(r) = repo {
        if let Some(b) = r.current_branch() {
            words.push_str(&b.replace(['/', '-', '_'], " "));
            words.push('\n');
        }
        for p in r.recent_paths(3, 50) {
            words.push_str(&p.replace(['/', '.', '-', '_'], " "));
            words.push('\n');
        }
    }
    words
}

/// The lines of a handoff's `## Working On` and `## Next` sections.
fn session_sections(content: &str) -> String {
    super::handoff_sections(content, &["Working On", "Next"])
        .flat_map(|line| [line, "\n"])
        .collect()
}
