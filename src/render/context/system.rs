//! The hook's user-facing `systemMessage` (SPEC §3.3).

use super::Rendered;
use super::text::{char_len, tokens_text};
use crate::megg::context::Context;

/// Most characters of the `systemMessage` (SPEC §3.3, §9): it is shown to the user at every
/// session start, whatever the repository holds.
pub const MAX_SYSTEM_MESSAGE: usize = 2_000;

/// Most characters of one line in it.
pub(super) const MAX_LINE: usize = 300;

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
        // Named only when the render carries it, by what it carries.
        let heading = format!("## {}", crate::megg::capture::kept_summary::HEADING);
        if let (Some(k), Some(at)) = (&ctx.host_summary, r.text.find(&heading)) {
            loaded.push(format!(
                "  {} (the host's compaction summary of session {}: {}, {}, {} characters; reference data)",
                k.path.display(),
                k.session,
                k.found.source.label(),
                k.found.at.as_deref().unwrap_or("time unknown"),
                char_len(r.text.get(at..).unwrap_or_default())
            ));
        }
        sections.push((Some("MEGG loaded:".into()), loaded));
    }
    let warnings: Vec<String> = super::text::hook_warnings(ctx)
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
        .map(|f| match &ctx.expired_state {
            Some(s) if s.path == f.path && ctx.state.is_none() => format!(
                "  {} (expired handoff: {})",
                f.path.display(),
                s.expired_reason.as_deref().unwrap_or("expired")
            ),
            _ => format!("  {}", f.path.display()),
        })
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
pub(super) fn one_line(line: &str) -> String {
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

pub(super) fn push_line(out: &mut String, line: &str, budget: usize) {
    let line = one_line(line);
    if char_len(out) + char_len(&line) < budget {
        out.push_str(&line);
        out.push('\n');
    }
}
