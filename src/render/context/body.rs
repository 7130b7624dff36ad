//! The context as markdown, part by part, following a [`Plan`].

use std::fmt::Write as _;

use super::index::index_text;
use super::plan::{KnowledgeLevel, Plan, cut_notes};
use super::summary::{MAX_HANDOFF_CHARS, MAX_SECTION_CHARS, section};
use super::text::{
    expired_handoff, first_lines, info_marker, push_block, push_cut, state_marker, tokens_text,
};
use crate::megg::context::{Context, Workflow};

pub(super) fn render(ctx: &Context, plan: &Plan) -> String {
    let mut out = String::with_capacity(8 * 1024);
    if ctx.domain.is_none() && ctx.chain.is_empty() {
        let _ = writeln!(
            out,
            "No .megg found at or above {}.\nRun `megg init` to create one.",
            ctx.path.display()
        );
        return out;
    }
    // A conflicted knowledge file is said first, whatever the budget (SPEC §11).
    if let Some(k) = ctx.knowledge.as_ref().filter(|k| k.conflicted) {
        let _ = writeln!(
            out,
            "> **Warning: {}.** Only our side of {} is loaded until then.\n",
            crate::megg::context::CONFLICT_WARNING,
            k.path.display()
        );
    }
    let notes = cut_notes(ctx, plan);
    if !notes.is_empty() {
        out.push_str("> **Context trimmed to fit the size limit.** Left out:\n");
        for n in &notes {
            let _ = writeln!(out, "> - {n}");
        }
        out.push('\n');
    }

    let ancestors: Vec<_> = ctx
        .chain
        .iter()
        .filter(|l| ctx.domain.as_ref().is_none_or(|d| d.dir != l.dir))
        .collect();
    if !plan.chain && !ancestors.is_empty() {
        let _ = writeln!(
            out,
            "## Domain Chain: {} ancestor domain(s) above this one\n",
            ancestors.len()
        );
    } else if !ctx.chain.is_empty() {
        out.push_str("## Domain Chain\n\n");
        for link in &ctx.chain {
            let _ = write!(out, "- **{}**: {}", link.name, link.title);
            // The current domain's info follows in full; ancestors get an excerpt.
            let is_current = ctx.domain.as_ref().is_some_and(|d| d.dir == link.dir);
            if !is_current {
                if !plan.excerpts {
                    let _ = write!(out, " ({})", link.info.display());
                } else if !link.excerpt.is_empty() {
                    let _ = write!(out, " — {}", link.excerpt);
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }

    if let Some(d) = &ctx.domain {
        let _ = writeln!(out, "## Current Context: {}\n", d.name);
        match &ctx.info {
            Some(info) => match plan.info_lines {
                None => push_block(&mut out, info),
                Some(keep) => {
                    let (kept, left) = first_lines(info, keep);
                    push_cut(&mut out, kept);
                    out.push_str(&info_marker(left, &d.info_path().display().to_string()));
                }
            },
            None => {
                let _ = writeln!(
                    out,
                    "(no info.md; run `megg init` to describe this domain)\n"
                );
            }
        }
    }

    if let Some(k) = &ctx.knowledge {
        crate::failpoint::panic_at("render-knowledge");
        match plan.knowledge {
            KnowledgeLevel::AsComputed => {
                let heading = match &k.topic {
                    Some(t) => format!("topic '{t}', {} entries", k.entries),
                    None => format!("{}, {}", k.mode.as_str(), tokens_text(k)),
                };
                let _ = writeln!(out, "## Knowledge ({heading})\n");
                match &k.index {
                    Some(index) => push_block(&mut out, &index_text(k, index, usize::MAX, true)),
                    None => push_block(&mut out, &k.content),
                }
            }
            KnowledgeLevel::Index { keep, topics } => {
                if keep == 0 {
                    // No summary, nor anything blocked, is shown: say what is.
                    let _ = writeln!(
                        out,
                        "## Knowledge (index, no entry listed, {})\n",
                        tokens_text(k)
                    );
                } else {
                    let _ = writeln!(out, "## Knowledge ({}, {})\n", k.mode, tokens_text(k));
                }
                if let Some(index) = &k.index {
                    push_block(&mut out, &index_text(k, index, keep, topics));
                }
            }
            KnowledgeLevel::Summary => {
                let _ = writeln!(out, "## Knowledge (summary, {} tokens)\n", k.tokens);
                push_block(&mut out, k.digest.as_deref().unwrap_or(&k.content));
            }
            KnowledgeLevel::Topics => {
                let _ = writeln!(
                    out,
                    "## Knowledge (topics only, {} tokens, {} entries)\n",
                    k.tokens, k.entries
                );
                let topics = crate::megg::knowledge::topic_list(&k.topics);
                let _ = writeln!(
                    out,
                    "Topics: {}\nFile: {}\nLoad a topic in full: `megg context --topic <topic>`\n",
                    if topics.is_empty() {
                        "(none)".into()
                    } else {
                        topics
                    },
                    k.path.display()
                );
            }
        }
    }

    // What the handoff takes of the context, as rendered: with the summary, at most
    // MAX_HANDOFF_CHARS (SPEC §18.3).
    let mut state_len = 0;
    if let Some(s) = &ctx.state {
        let state_start = out.len();
        out.push_str("## Session State\n\n");
        let mut meta = String::new();
        if let Some(u) = &s.updated {
            let _ = write!(meta, "Last updated: {u}");
            if let Some(age) = s.age_seconds {
                let _ = write!(meta, " ({} ago)", crate::clock::human_age(age));
            }
        }
        if let Some(b) = &s.branch {
            let _ = write!(meta, "; branch {b}");
        }
        if let Some(n) = s.commits_since {
            let _ = write!(meta, "; {n} commit{} since", if n == 1 { "" } else { "s" });
        }
        if s.auto {
            match &s.session {
                Some(id) => {
                    let _ = write!(meta, "; captured automatically from session {id}");
                }
                None => meta.push_str("; captured automatically"),
            }
        }
        if !meta.is_empty() {
            let _ = writeln!(out, "*{meta}*\n");
        }
        match plan.state_lines {
            None => push_block(&mut out, &s.content),
            Some(keep) => {
                let (kept, left) = first_lines(&s.content, keep);
                push_cut(&mut out, kept);
                out.push_str(&state_marker(left, &s.path.display().to_string()));
            }
        }
        state_len = plan.unit.len(out.get(state_start..).unwrap_or_default());
    }

    if ctx.state.is_none()
        && let Some(s) = &ctx.expired_state
    {
        let _ = writeln!(out, "{}\n", expired_handoff(s));
    }

    if let Some(w) = &ctx.workflow {
        let _ = writeln!(out, "{}\n", workflow_line(w));
    }
    for line in &ctx.removed_worktrees {
        let _ = writeln!(out, "{line}\n");
    }

    if let Some(n) = ctx.newer_captures.first() {
        let others = ctx.newer_captures.len() - 1;
        let _ = writeln!(
            out,
            "**A parallel session has a newer handoff.** Session {} captured one at {} that is not in state.md: read {}{}.\n",
            n.session,
            crate::clock::format_timestamp(n.updated),
            n.path.display(),
            if others > 0 {
                format!(
                    " ({others} more session{} too)",
                    if others == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            }
        );
    }

    for (title, list, cut) in [
        ("Other Domains", &ctx.siblings, false),
        ("Subdomains", &ctx.children, ctx.children_cut),
    ] {
        if list.is_empty() {
            continue;
        }
        if plan.lists {
            let _ = writeln!(out, "## {title}\n");
            for n in list {
                let rel = n.dir.strip_prefix(&ctx.path).unwrap_or(&n.dir);
                if rel == std::path::Path::new(&n.name) || !n.dir.starts_with(&ctx.path) {
                    let _ = writeln!(out, "- {}", n.name);
                } else {
                    let _ = writeln!(out, "- {} ({})", n.name, rel.display());
                }
            }
            if cut {
                let _ = writeln!(
                    out,
                    "\n(Only the nearest {} directories below were looked at; for domains deeper down, run `megg context DIR` on a directory nearer them.)",
                    crate::megg::discovery::MAX_CHILD_DIRS
                );
            }
            out.push('\n');
        } else {
            let _ = writeln!(out, "## {title}: {}\n", list.len());
        }
    }

    let unloaded: Vec<_> = ctx.files.iter().filter(|f| !f.loaded).collect();
    if !unloaded.is_empty() && !plan.lists {
        let _ = writeln!(
            out,
            "## Also in .megg (not loaded): {} files\n",
            unloaded.len()
        );
    } else if !unloaded.is_empty() {
        out.push_str("## Also in .megg (not loaded)\n\n");
        for f in unloaded {
            let _ = writeln!(out, "- {}", f.path.display());
        }
        out.push('\n');
    }

    let warnings = if plan.warnings {
        super::text::hook_warnings(ctx)
    } else {
        Vec::new()
    };
    if !warnings.is_empty() {
        out.push_str("## Warnings\n\n");
        for w in &warnings {
            let _ = writeln!(out, "- {w}");
        }
        out.push('\n');
    }

    // The host's summary last, after every section of megg's own (SPEC §18.1).
    if let Some(k) = &ctx.host_summary {
        // What megg injects for the handoff — the state and the summary — stays within
        // MAX_HANDOFF_CHARS, so no host cuts it (SPEC §18.3).
        let room = plan
            .summary_room
            .unwrap_or(MAX_SECTION_CHARS)
            .min(MAX_HANDOFF_CHARS.saturating_sub(state_len));
        if let Some(section) = section(k, room, plan.unit) {
            out.push_str(&section);
            out.push('\n');
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The one line naming a workflow in progress (SPEC §18.2).
pub(super) fn workflow_line(w: &Workflow) -> String {
    let phase = w.phase.as_deref().unwrap_or("no phase saved");
    let progress = if w.items > 0 {
        format!(", {} of {} items done", w.done, w.items)
    } else {
        String::new()
    };
    format!(
        "**Workflow in progress:** {} (`{}`), phase {phase}{progress}: resume it with `{}`.",
        w.feature, w.file, w.command
    )
}
