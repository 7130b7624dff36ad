//! Words for `megg maintain`'s findings.

use crate::megg::knowledge::{FULL_BELOW, KnowledgeType};
use crate::megg::maintain::{Advice, STALE_AFTER_DAYS};
use crate::render::shell_quote;

/// One line of advice, naming the domain and the command that acts on it.
pub fn advice(a: &Advice) -> String {
    let quoted = |dir: &std::path::Path| shell_quote(&dir.display().to_string());
    match a {
        Advice::Archive {
            dir,
            tokens,
            before,
        } => {
            let dir = quoted(dir);
            format!(
                "{dir}: knowledge is {tokens} tokens (over {FULL_BELOW}): archive old entries with `megg maintain {dir} --archive-before {before}` or consolidate topics"
            )
        }
        Advice::Review { dir, count, before } => {
            let dir = quoted(dir);
            format!(
                "{dir}: {count} entries are older than {STALE_AFTER_DAYS} days: review them, or archive with `megg maintain {dir} --archive-before {before}`"
            )
        }
        Advice::Consolidate { dir, topic, count } => {
            let dir = quoted(dir);
            format!(
                "{dir}: consolidate the {count} entries on '{topic}' (`megg context {dir} --topic {}`)",
                shell_quote(topic)
            )
        }
        Advice::UnknownTypes { dir, types } => format!(
            "{}: unknown types {} (valid: {})",
            quoted(dir),
            types.join(", "),
            KnowledgeType::list()
        ),
        Advice::FixProblems { dir, count } => format!(
            "{}: fix {count} parse problem(s) in knowledge.md",
            quoted(dir)
        ),
        Advice::ClearState { dir } => {
            let dir = quoted(dir);
            format!("{dir}: remove the expired state with `megg -C {dir} state clear`")
        }
    }
}
