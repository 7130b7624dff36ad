//! Renders a computed [`Context`] as markdown, optionally within a character budget, and as
//! the Claude Code SessionStart hook document (SPEC §3.3).
//!
//! The budget exists because Claude Code silently replaces an `additionalContext` over 10,000
//! characters with a 2 KB preview. When everything does not fit, parts are degraded in a fixed
//! order, and the context itself says what was left out and the command that shows it.

use std::fmt::Write as _;

use crate::megg::context::{Context, Knowledge, Mode};
use crate::megg::recall::index::{Index, Line, Why};
use crate::shell::shell_quote;

/// Default hook budget, in UTF-16 code units.
pub const DEFAULT_MAX_CHARS: usize = 9_500;
/// Smallest budget accepted.
pub const MIN_MAX_CHARS: usize = 2_000;
/// Claude Code's own limit; budgets above it defeat the purpose.
pub const CLAUDE_CODE_LIMIT: usize = 10_000;

/// Characters as Claude Code counts them: UTF-16 code units.
pub fn char_len(s: &str) -> usize {
    s.encode_utf16().count()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KnowledgeLevel {
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
struct Plan {
    excerpts: bool,
    /// The ancestor list itself; when false, a count.
    chain: bool,
    /// Siblings, children and the "also in .megg" files; when false, counts.
    lists: bool,
    knowledge: KnowledgeLevel,
    /// Lines of the info body kept (at least its title), when cut.
    info_lines: Option<usize>,
    /// Lines of the state content kept, when cut.
    state_lines: Option<usize>,
    /// Warnings shown to the model (hook format).
    warnings: bool,
    /// The budget dropped the warnings (they were to be shown).
    warnings_cut: bool,
}

const FULL_PLAN: Plan = Plan {
    excerpts: true,
    chain: true,
    lists: true,
    knowledge: KnowledgeLevel::AsComputed,
    info_lines: None,
    state_lines: None,
    warnings: false,
    warnings_cut: false,
};

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

/// The marker that ends a hard cut, the last resort when the state alone cannot fit.
const HARD_CUT_MARKER: &str =
    "\n[… cut to fit the context limit; run `megg context` for everything]";

/// What a budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// UTF-16 code units, as Claude Code counts characters.
    Utf16,
    /// UTF-8 bytes, as Codex's preview threshold counts (never fewer than UTF-16 units, so a
    /// byte budget also holds the character budget).
    Utf8,
}

impl Unit {
    pub fn len(self, s: &str) -> usize {
        match self {
            Unit::Utf16 => char_len(s),
            Unit::Utf8 => s.len(),
        }
    }

    fn of(self, c: char) -> usize {
        match self {
            Unit::Utf16 => c.len_utf16(),
            Unit::Utf8 => c.len_utf8(),
        }
    }
}

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
        ..FULL_PLAN
    };
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
        // Then the info body, then the state, each cut at a line boundary to exactly what is
        // left: one render at the smallest cut measures everything else (markers and the
        // notes that name the cut included), and the lengths of the candidate cuts follow.
        if !fits(&text)
            && let (Some(info), Some(d)) = (&ctx.info, &ctx.domain)
            && info.split_inclusive('\n').nth(1).is_some()
        {
            let path = d.info_path().display().to_string();
            text = cut_to_fit(ctx, &mut plan, (max, unit), Part::Info, info, |left| {
                unit.len(&info_marker(left, &path))
            });
        }
        let state = ctx.state.as_ref().filter(|s| !s.content.trim().is_empty());
        let cut_state = |plan: &mut Plan, s: &crate::megg::context::StateView| {
            let path = s.path.display().to_string();
            cut_to_fit(ctx, plan, (max, unit), Part::State, &s.content, |left| {
                unit.len(&state_marker(left, &path))
            })
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
/// keeps the smallest cut (the next part, or the hard cut, takes over from there).
fn cut_to_fit(
    ctx: &Context,
    plan: &mut Plan,
    (max, unit): (usize, Unit),
    part: Part,
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
    let best = (least..lines.len())
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

/// A cut block: its kept lines as [`push_block`] writes them, or nothing when none is left
/// (only the marker follows the heading).
fn push_cut(out: &mut String, kept: &str) {
    if !kept.trim().is_empty() {
        push_block(out, kept);
    }
}

fn info_marker(left: usize, path: &str) -> String {
    format!("[… info.md cut here: {left} more lines in {path}]\n\n")
}

fn state_marker(left: usize, path: &str) -> String {
    format!("[… state cut here: {left} more lines in {path}]\n\n")
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

fn cut_notes(ctx: &Context, plan: &Plan) -> Vec<String> {
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
    if plan.warnings_cut && !ctx.warnings.is_empty() {
        notes.push(format!("{} warning(s) left out", ctx.warnings.len()));
    }
    notes
}

fn render(ctx: &Context, plan: &Plan) -> String {
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

    if let Some(s) = &ctx.state {
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

    if plan.warnings && !ctx.warnings.is_empty() {
        out.push_str("## Warnings\n\n");
        for w in &ctx.warnings {
            let _ = writeln!(out, "- {w}");
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The session-start index (SPEC §13.5) as the knowledge part of a context: the header (how
/// many entries, how to reach any of them), its first `keep` lines by group, how many are not
/// listed, the topic counts with `topics`, and in blocked mode the seed's instruction to run
/// `megg maintain`. The header and the instruction stay whatever is cut.
pub fn index_text(k: &Knowledge, index: &Index, keep: usize, topics: bool) -> String {
    let (live, archived) = (index.live, index.archived);
    let mut out = format!(
        "Knowledge index: {live} entries, {}{} — too many to load whole. Find any entry with `megg search <words>` and read it with `megg show <id>` (MCP: `search`, `show`). Search before re-deciding something or adding an entry.\n",
        tokens_text(k),
        if archived > 0 {
            format!(" (and {archived} archived)")
        } else {
            String::new()
        }
    );
    let lines = index.lines.get(..keep).unwrap_or(&index.lines);
    for (why, head) in [
        (Why::Session, "Relevant to this session:"),
        (Why::Gotcha, "Gotchas:"),
        (Why::Recent, "Newest:"),
    ] {
        let mut mine = lines.iter().filter(|l| l.why == why).peekable();
        if mine.peek().is_none() {
            continue;
        }
        let _ = writeln!(out, "\n{head}");
        for l in mine {
            let _ = writeln!(out, "{}", index_line(l));
        }
    }
    if lines.len() < live + archived {
        let _ = writeln!(
            out,
            "\n… {} more: search for them.",
            live + archived - lines.len()
        );
    }
    if topics && !k.topics.is_empty() {
        let _ = writeln!(
            out,
            "\nTopics: {}",
            crate::megg::knowledge::topic_list(&k.topics)
        );
    }
    if index.blocked {
        // The seed's blocked message (`knowledge::blocked_message`), without its topic counts:
        // the index says them once, and gives them up before its lines.
        let size = if k.tokens_exact {
            format!("{} tokens", k.tokens)
        } else {
            format!("at least {} tokens", k.tokens)
        };
        let _ = write!(
            out,
            "\nKnowledge is blocked: {} is {size} ({} entries), over the 16000-token limit.\n\
             Run `megg maintain` to archive or consolidate it, or load one topic with \
             `megg context --topic <topic>`.\n",
            k.path.display(),
            k.entries
        );
    }
    out
}

/// One line of the index: `- id date type: title [topics]`, and ` (archived)` for an archived
/// entry. [`Line::width`] is its length.
pub fn index_line(l: &Line) -> String {
    let mut s = format!("- {}", l.id);
    if let Some(d) = &l.date {
        let _ = write!(s, " {d}");
    }
    s.push(' ');
    if let Some(t) = &l.entry_type {
        let _ = write!(s, "{t}: ");
    }
    s.push_str(&l.title);
    if !l.topics.is_empty() {
        let _ = write!(s, " [{}]", l.topics.join(", "));
    }
    if l.archived {
        s.push_str(" (archived)");
    }
    s
}

/// The first `keep` lines of `s`, and how many lines are left.
fn first_lines(s: &str, keep: usize) -> (&str, usize) {
    let end = s
        .split_inclusive('\n')
        .take(keep)
        .map(str::len)
        .sum::<usize>();
    let (kept, rest) = s.split_at_checked(end).unwrap_or((s, ""));
    (kept, rest.lines().count())
}

fn push_block(out: &mut String, block: &str) {
    out.push_str(block.trim_end());
    out.push_str("\n\n");
}

/// Most characters of the `systemMessage` (SPEC §3.3, §9): it is shown to the user at every
/// session start, whatever the repository holds.
pub const MAX_SYSTEM_MESSAGE: usize = 2_000;
/// Most characters of one line in it.
const MAX_LINE: usize = 300;

/// "12034 tokens", or "over 16,000 tokens" when the count is a bound the byte size proves.
fn tokens_text(k: &crate::megg::context::Knowledge) -> String {
    if k.tokens_exact {
        format!("{} tokens", k.tokens)
    } else {
        "over 16,000 tokens".to_string()
    }
}

/// The user-facing `systemMessage`: what was loaded and how, what is available, trims,
/// warnings, and the collaborative learning reminder — at most [`MAX_SYSTEM_MESSAGE`]
/// characters, each list ending `… and N more` where it had to stop.
pub fn system_message(ctx: &Context, r: &Rendered, extra: &[String]) -> String {
    const REMINDER: &str = "\nGood teams remember what works: when something is worth keeping, the agent asks before saving it with `megg learn`.";
    let mut sections: Vec<(Option<String>, Vec<String>)> = Vec::new();
    if ctx.domain.is_none() && ctx.chain.is_empty() {
        sections.push((
            Some(format!(
                "MEGG: no .megg found at or above {} (run `megg init` to create one)",
                ctx.path.display()
            )),
            Vec::new(),
        ));
    } else {
        let mut loaded: Vec<String> = ctx
            .chain
            .iter()
            .map(|l| format!("  {}", l.info.display()))
            .collect();
        if let (Some(k), Some(mode)) = (&ctx.knowledge, r.knowledge_mode) {
            loaded.push(format!(
                "  {} ({mode}, {})",
                k.path.display(),
                tokens_text(k)
            ));
        }
        if let Some(s) = &ctx.state {
            let how = if s.auto {
                "state, captured automatically"
            } else {
                "state"
            };
            loaded.push(format!(
                "  {} ({how}, {} tokens)",
                s.path.display(),
                s.tokens
            ));
        }
        sections.push((Some("MEGG loaded:".into()), loaded));
    }
    let warnings: Vec<String> = ctx
        .warnings
        .iter()
        .chain(extra)
        .map(|w| format!("warning: {w}"))
        .collect();
    sections.push((None, warnings));
    if !r.cuts.is_empty() {
        let cuts = r.cuts.iter().map(|c| format!("  - {c}")).collect();
        sections.push((Some("Trimmed to fit the hook limit:".into()), cuts));
    }
    let unloaded: Vec<String> = ctx
        .files
        .iter()
        .filter(|f| !f.loaded)
        .map(|f| format!("  {}", f.path.display()))
        .collect();
    if !unloaded.is_empty() {
        sections.push((Some("Available (not loaded):".into()), unloaded));
    }

    let budget = MAX_SYSTEM_MESSAGE - char_len(REMINDER);
    let mut out = String::new();
    for (heading, items) in sections {
        if let Some(h) = heading {
            push_line(&mut out, &h, budget);
        }
        for (i, item) in items.iter().enumerate() {
            let more = format!("  … and {} more", items.len() - i);
            // Keep room to say how many are left out.
            if char_len(&out) + char_len(&one_line(item)) + 1 + char_len(&more) + 1 > budget {
                push_line(&mut out, &more, budget);
                break;
            }
            push_line(&mut out, item, budget);
        }
    }
    out.push_str(REMINDER);
    out
}

/// `line` shortened to [`MAX_LINE`] characters.
fn one_line(line: &str) -> String {
    if char_len(line) <= MAX_LINE {
        return line.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in line.chars() {
        used += c.len_utf16();
        if used > MAX_LINE - 1 {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

fn push_line(out: &mut String, line: &str, budget: usize) {
    let line = one_line(line);
    if char_len(out) + char_len(&line) < budget {
        out.push_str(&line);
        out.push('\n');
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
