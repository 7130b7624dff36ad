//! Renders a computed [`Context`] as markdown, optionally within a character budget, and as
//! the Claude Code SessionStart hook document (SPEC §3.3).
//!
//! The budget exists because Claude Code silently replaces an `additionalContext` over 10,000
//! characters with a 2 KB preview. When everything does not fit, parts are degraded in a fixed
//! order, and the context itself says what was left out and the command that shows it.

mod body;
mod index;
mod plan;
pub mod summary;
mod system;
#[cfg(test)]
mod tests;
mod text;
mod unit;

use body::render;
pub use index::{index_line, index_text};
use plan::{FULL_PLAN, KnowledgeLevel, Plan, cut_notes};
pub use system::{MAX_SYSTEM_MESSAGE, system_message};
pub use text::char_len;
use text::{info_marker, state_marker};
pub use unit::Unit;

use crate::megg::context::{Context, Mode};

/// Default hook budget, in UTF-16 code units.
pub const DEFAULT_MAX_CHARS: usize = 9_500;

/// Smallest budget accepted.
pub const MIN_MAX_CHARS: usize = 2_000;

/// Claude Code's own limit; budgets above it defeat the purpose.
pub const CLAUDE_CODE_LIMIT: usize = 10_000;

/// The knowledge a render delivered: as loaded, or cut down to its topic list (SPEC §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivered {
    /// In the mode its size chose, or the summary a budget fell back to.
    Loaded(Mode),
    /// Only the topic list.
    Topics,
    /// The session-start index without any of its lines: how many entries there are and how
    /// to search and show them (SPEC §13.5).
    IndexHeader,
}

impl std::fmt::Display for Delivered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Loaded(mode) => mode.fmt(f),
            Self::Topics => f.write_str("topics"),
            Self::IndexHeader => f.write_str("index, no entry listed"),
        }
    }
}

/// What a render delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    /// The knowledge mode actually delivered.
    pub knowledge_mode: Option<Delivered>,
    /// What was left out, in words, for the user-facing message.
    pub cuts: Vec<String>,
}

/// The lines of the state kept so that what megg injects for the handoff stays within
/// [`summary::MAX_HANDOFF_CHARS`]; `None` when all of it does.
fn handoff_cap(ctx: &Context, unit: Unit) -> Option<usize> {
    let s = ctx.state.as_ref()?;
    // The heading and the line of facts take their share too.
    let room = summary::MAX_HANDOFF_CHARS.saturating_sub(HANDOFF_OVERHEAD);
    if unit.len(&s.content) <= room {
        return None;
    }
    let lines: Vec<&str> = s.content.split_inclusive('\n').collect();
    let kept = kept_lengths(&lines, unit);
    let path = s.path.display().to_string();
    let keep = (0..lines.len())
        .rev()
        .find(|&k| {
            kept.get(k).copied().unwrap_or_default()
                + unit.len(&state_marker(lines.len() - k, &path))
                <= room
        })
        .unwrap_or(0);
    Some(keep)
}

/// What the state's heading and its line of facts (updated, branch, session) take, at most.
const HANDOFF_OVERHEAD: usize = 400;

/// The marker that ends a hard cut, the last resort when the state alone cannot fit.
const HARD_CUT_MARKER: &str =
    "\n[… cut to fit the context limit; run `megg context` for everything]";

/// Renders markdown; with `max_chars`, degrades in the order of SPEC §3.3 until it fits.
pub fn markdown(ctx: &Context, max_chars: Option<usize>, with_warnings: bool) -> Rendered {
    markdown_in(ctx, max_chars.map(|m| (m, Unit::Utf16)), with_warnings)
}

/// [`markdown`] within `limit` counted in its unit.
pub fn markdown_in(ctx: &Context, limit: Option<(usize, Unit)>, with_warnings: bool) -> Rendered {
    let unit = limit.map_or(Unit::Utf16, |(_, u)| u);
    let max_chars = limit.map(|(m, _)| m);
    let mut plan = Plan {
        warnings: with_warnings,
        unit,
        ..FULL_PLAN
    };
    // The handoff alone stays within MAX_HANDOFF_CHARS whatever the budget (SPEC §18.3): a
    // longer state is cut at a line boundary first, and a budget's cut never keeps more.
    let state_cap = handoff_cap(ctx, unit);
    plan.state_lines = state_cap;
    let mut text = render(ctx, &plan);
    let mut hard = false;
    if let Some(max) = max_chars {
        let fits = |t: &str| unit.len(t) <= max;
        let k = ctx.knowledge.as_ref();
        let can_summarize = k.is_some_and(|k| k.mode == Mode::Full && k.digest.is_some());
        // SPEC §3.3: ancestors, then lists, then knowledge, then info, and the state last.
        let steps: [&dyn Fn(&mut Plan) -> bool; 5] = [
            &|p| std::mem::replace(&mut p.excerpts, false),
            &|p| std::mem::replace(&mut p.chain, false),
            &|p| std::mem::replace(&mut p.lists, false),
            &|p| {
                p.warnings_cut = std::mem::replace(&mut p.warnings, false);
                p.warnings_cut
            },
            &|p| {
                if can_summarize && p.knowledge == KnowledgeLevel::AsComputed {
                    p.knowledge = KnowledgeLevel::Summary;
                    true
                } else {
                    false
                }
            },
        ];
        for step in steps {
            if fits(&text) {
                break;
            }
            if step(&mut plan) {
                text = render(ctx, &plan);
            }
        }
        // Knowledge last: an index shrinks line by line (its header, commands and the
        // maintain instruction stay, SPEC §13.5); anything else goes down to its topics.
        if !fits(&text)
            && let Some(k) = k
        {
            text = match &k.index {
                Some(index) => cut_index(ctx, &mut plan, (max, unit), index.lines.len()),
                None => {
                    plan.knowledge = KnowledgeLevel::Topics;
                    render(ctx, &plan)
                }
            };
        }
        // The host's summary before the info body and the state (SPEC §18.1): to the room
        // the rest leaves it, or out.
        if !fits(&text) && ctx.host_summary.is_some() {
            plan.summary_room = Some(0);
            let rest = unit.len(&render(ctx, &plan));
            // The section and the blank line before it (the render's last newlines go).
            plan.summary_room = Some(max.saturating_sub(rest + 2));
            text = render(ctx, &plan);
        }
        // Then the info body, then the state, each cut at a line boundary to exactly what is
        // left: one render at the smallest cut measures everything else (markers and the
        // notes that name the cut included), and the lengths of the candidate cuts follow.
        if !fits(&text)
            && let (Some(info), Some(d)) = (&ctx.info, &ctx.domain)
            && info.split_inclusive('\n').nth(1).is_some()
        {
            let path = d.info_path().display().to_string();
            text = cut_to_fit(
                ctx,
                &mut plan,
                (max, unit),
                (Part::Info, None),
                info,
                |left| unit.len(&info_marker(left, &path)),
            );
        }
        let state = ctx.state.as_ref().filter(|s| !s.content.trim().is_empty());
        let cut_state = |plan: &mut Plan, s: &crate::megg::context::StateView| {
            let path = s.path.display().to_string();
            cut_to_fit(
                ctx,
                plan,
                (max, unit),
                (Part::State, state_cap),
                &s.content,
                |left| unit.len(&state_marker(left, &path)),
            )
        };
        if !fits(&text)
            && let Some(s) = state
        {
            text = cut_state(&mut plan, s);
            // A title too long to leave room for the state goes too, before the hard cut.
            if !fits(&text) && plan.info_lines == Some(1) {
                plan.info_lines = Some(0);
                text = cut_state(&mut plan, s);
            }
        }
        if !fits(&text) {
            text = hard_cut(&text, max, unit);
            hard = true;
        }
    }
    let mut cuts = cut_notes(ctx, &plan);
    if hard {
        cuts.push(
            "the rest cut at the limit even with the state shortened: run `megg context` for everything"
                .to_string(),
        );
    }
    Rendered {
        knowledge_mode: ctx
            .knowledge
            .as_ref()
            .map(|k| delivered_mode(k.mode, &plan)),
        cuts,
        text,
    }
}

/// The two blocks the budget cuts by lines, in the order it cuts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The current info.md body; its first line (the title) always stays.
    Info,
    /// The active state, cut last; it may keep no line at all, only its marker.
    State,
}

/// Cuts `block` (the `part` of `ctx`) to the most whole lines for which the render stays
/// within `max`, and returns that render. When even the smallest cut does not fit, the plan
/// keeps the smallest cut (the next part, or the hard cut, takes over from there). `most`: the
/// most lines it may keep, when fewer than all.
fn cut_to_fit(
    ctx: &Context,
    plan: &mut Plan,
    (max, unit): (usize, Unit),
    (part, most): (Part, Option<usize>),
    block: &str,
    marker_len: impl Fn(usize) -> usize,
) -> String {
    let lines: Vec<&str> = block.split_inclusive('\n').collect();
    let least = match part {
        Part::Info => 1,
        Part::State => 0,
    };
    let set = |plan: &mut Plan, keep: usize| match part {
        Part::Info => plan.info_lines = Some(keep),
        Part::State => plan.state_lines = Some(keep),
    };
    set(plan, least);
    let smallest = render(ctx, plan);
    // Everything but the block's kept text and its marker, measured on a real render.
    let kept = kept_lengths(&lines, unit);
    // `kept` has one length per number of lines kept, 0 to all of them.
    let kept_at = |k: usize| kept.get(k).copied().unwrap_or_default();
    let rest = unit.len(&smallest) - kept_at(least) - marker_len(lines.len() - least);
    // Keeping every line is no cut; it did not fit without a marker, so not with one either.
    let best = (least..most.map_or(lines.len(), |m| (m + 1).min(lines.len())))
        .rev()
        .find(|&k| rest + kept_at(k) + marker_len(lines.len() - k) <= max);
    match best {
        Some(k) if k > least => {
            set(plan, k);
            let text = render(ctx, plan);
            debug_assert!(unit.len(&text) <= max, "computed cut does not fit");
            text
        }
        _ => smallest,
    }
}

/// The render with the most index lines (`lines` in all) that fits within `max`, then the topic
/// counts if they fit beside them: SPEC §13.5 lists the entries first, so a line stays before
/// the topic counts do. When not even the bare index fits, the bare index (the info and state
/// cuts take over from there). The length grows with the lines kept, so the most that fit are
/// found by bisection, each candidate measured on a real render.
fn cut_index(ctx: &Context, plan: &mut Plan, (max, unit): (usize, Unit), lines: usize) -> String {
    let at = |plan: &mut Plan, keep: usize, topics: bool| {
        plan.knowledge = KnowledgeLevel::Index { keep, topics };
        render(ctx, plan)
    };
    let least = at(plan, 0, false);
    if unit.len(&least) > max {
        return least;
    }
    // `fits` always fits; past `lines` there is nothing to keep.
    let (mut fits, mut over) = (0, lines + 1);
    while over - fits > 1 {
        let mid = fits + (over - fits) / 2;
        if unit.len(&at(plan, mid, false)) <= max {
            fits = mid;
        } else {
            over = mid;
        }
    }
    let with_topics = at(plan, fits, true);
    if unit.len(&with_topics) <= max {
        return with_topics;
    }
    let text = at(plan, fits, false);
    debug_assert!(unit.len(&text) <= max, "computed index cut does not fit");
    text
}

/// `kept[k]`: characters the first `k` lines take as rendered by [`push_cut`]: trimmed at the
/// end and followed by a blank line, or nothing at all when they are blank.
fn kept_lengths(lines: &[&str], unit: Unit) -> Vec<usize> {
    let mut kept = Vec::with_capacity(lines.len() + 1);
    kept.push(0);
    let (mut total, mut trimmed) = (0, 0);
    for line in lines {
        if !line.trim().is_empty() {
            trimmed = total + unit.len(line.trim_end());
        }
        total += unit.len(line);
        kept.push(if trimmed > 0 { trimmed + 2 } else { 0 });
    }
    kept
}

fn delivered_mode(computed: Mode, plan: &Plan) -> Delivered {
    match plan.knowledge {
        KnowledgeLevel::AsComputed => Delivered::Loaded(computed),
        KnowledgeLevel::Summary => Delivered::Loaded(Mode::Summary),
        KnowledgeLevel::Topics => Delivered::Topics,
        KnowledgeLevel::Index { keep: 0, .. } => Delivered::IndexHeader,
        KnowledgeLevel::Index { .. } => Delivered::Loaded(computed),
    }
}

/// The longest prefix of `s` made of whole lines within `max` units.
fn cut_lines(s: &str, max: usize, unit: Unit) -> (&str, usize) {
    let mut used = 0;
    let mut end = 0;
    for line in s.split_inclusive('\n') {
        let n = unit.len(line);
        if used + n > max {
            break;
        }
        used += n;
        end += line.len();
    }
    // `end` is where a line ends: a char boundary.
    let (kept, rest) = s.split_at_checked(end).unwrap_or((s, ""));
    (kept, rest.lines().count())
}

/// Last resort when even the degraded parts do not fit: whole lines, plus a marker.
fn hard_cut(text: &str, max: usize, unit: Unit) -> String {
    let marker = HARD_CUT_MARKER;
    let room = max.saturating_sub(unit.len(marker));
    let (kept, _) = cut_lines(text, room, unit);
    let mut out = kept.trim_end().to_string();
    if unit.len(&out) > room {
        let mut used = 0;
        out = out
            .chars()
            .take_while(|c| {
                used += unit.of(*c);
                used <= room
            })
            .collect();
    }
    out.push_str(marker);
    out
}
