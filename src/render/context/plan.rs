//! How much of each part of the context a render shows: the plan the budget degrades step by
//! step (SPEC §3.3), and what a plan leaves out, said in words.

use super::unit::Unit;
use crate::megg::context::Context;
use crate::shell::shell_quote;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KnowledgeLevel {
    AsComputed,
    Summary,
    Topics,
    /// The index (summary and blocked mode) with its first `keep` lines, and the topic list
    /// when `topics`.
    Index {
        keep: usize,
        topics: bool,
    },
}

/// How much of each part to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) excerpts: bool,
    /// The ancestor list itself; when false, a count.
    pub(super) chain: bool,
    /// Siblings, children and the "also in .megg" files; when false, counts.
    pub(super) lists: bool,
    pub(super) knowledge: KnowledgeLevel,
    /// Lines of the info body kept (at least its title), when cut.
    pub(super) info_lines: Option<usize>,
    /// Lines of the state content kept, when cut.
    pub(super) state_lines: Option<usize>,
    /// Warnings shown to the model (hook format).
    pub(super) warnings: bool,
    /// The budget dropped the warnings (they were to be shown).
    pub(super) warnings_cut: bool,
    /// Room for the host's compaction summary when the budget cut it (SPEC §18.1); `None`:
    /// its own bound only.
    pub(super) summary_room: Option<usize>,
    /// What lengths are counted in.
    pub(super) unit: Unit,
}

pub(super) const FULL_PLAN: Plan = Plan {
    excerpts: true,
    chain: true,
    lists: true,
    knowledge: KnowledgeLevel::AsComputed,
    info_lines: None,
    state_lines: None,
    warnings: false,
    warnings_cut: false,
    summary_room: None,
    unit: Unit::Utf16,
};

/// What `plan` leaves out of `ctx`, each with the command that shows it (said inside the
/// context and in the `systemMessage`).
pub(super) fn cut_notes(ctx: &Context, plan: &Plan) -> Vec<String> {
    let target = shell_quote(&ctx.path.display().to_string());
    let mut notes = Vec::new();
    let ancestors = ctx
        .chain
        .len()
        .saturating_sub(usize::from(ctx.info.is_some()));
    if !plan.chain && ancestors > 0 {
        notes.push(format!(
            "the {ancestors} ancestor domain(s) shown as a count; run `megg context {target}` to see them"
        ));
    } else if !plan.excerpts && ancestors > 0 {
        notes.push(format!(
            "ancestor domains shown by title only; their info.md files are listed in Domain Chain (run `megg context {target}`)"
        ));
    }
    let unloaded = ctx.files.iter().filter(|f| !f.loaded).count();
    if !plan.lists && (!ctx.siblings.is_empty() || !ctx.children.is_empty() || unloaded > 0) {
        notes.push(format!(
            "sibling and child domains and the other .megg files shown as counts; run `megg context {target} --format json` to list them"
        ));
    }
    if let Some(k) = &ctx.knowledge {
        let path = shell_quote(&k.path.display().to_string());
        match plan.knowledge {
            KnowledgeLevel::AsComputed => {}
            KnowledgeLevel::Summary => notes.push(format!(
                "knowledge delivered as a summary instead of in full ({} tokens): {path}; run `megg context {target} --topic <topic>` for a topic in full",
                k.tokens
            )),
            KnowledgeLevel::Topics => notes.push(format!(
                "knowledge delivered as topics only ({} tokens): {path}; run `megg context {target} --topic <topic>` for a topic in full",
                k.tokens
            )),
            KnowledgeLevel::Index { keep, topics } => {
                let all = k.index.as_ref().map_or(0, |i| i.lines.len());
                notes.push(format!(
                    "knowledge index cut to {keep} of its {all} lines{} ({path}): find the others with `megg search <words>`, or list them all with `megg context {target} --format json`",
                    if topics { "" } else { ", without its topic counts" }
                ));
            }
        }
    }
    if plan.info_lines.is_some()
        && let Some(d) = &ctx.domain
    {
        notes.push(format!(
            "info.md cut short: read {} for all of it",
            shell_quote(&d.info_path().display().to_string())
        ));
    }
    if plan.state_lines.is_some()
        && let Some(d) = &ctx.domain
    {
        notes.push(format!(
            "session state cut short: run `megg -C {} state show` for all of it",
            shell_quote(&d.dir.display().to_string())
        ));
    }
    if let (Some(_), Some(k)) = (plan.summary_room, &ctx.host_summary) {
        let path = shell_quote(&k.path.display().to_string());
        // One wording whether it was cut or left out: the room it gets is measured with it.
        notes.push(format!(
            "the host's compaction summary cut to fit: read {path} for all of it"
        ));
    }
    let warnings = || super::text::hook_warnings(ctx).len();
    if plan.warnings_cut && warnings() > 0 {
        notes.push(format!("{} warning(s) left out", warnings()));
    }
    notes
}
