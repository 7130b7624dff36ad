//! Small text pieces every part of the context render shares: lengths as Claude Code counts
//! them, the knowledge's token count in words, blocks, line cuts and the markers that say where
//! a block was cut.

use crate::megg::context::{Context, Knowledge, StateView};
use crate::megg::knowledge::BLOCKED_ABOVE;
use crate::megg::recall::Hidden;

/// Characters as Claude Code counts them: UTF-16 code units.
pub fn char_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// A cut block: its kept lines as [`push_block`] writes them, or nothing when none is left
/// (only the marker follows the heading).
pub(super) fn push_cut(out: &mut String, kept: &str) {
    if !kept.trim().is_empty() {
        push_block(out, kept);
    }
}

pub(super) fn info_marker(left: usize, path: &str) -> String {
    format!("[… info.md cut here: {left} more lines in {path}]\n\n")
}

pub(super) fn state_marker(left: usize, path: &str) -> String {
    format!("[… state cut here: {left} more lines in {path}]\n\n")
}

/// The first `keep` lines of `s`, and how many lines are left.
pub(super) fn first_lines(s: &str, keep: usize) -> (&str, usize) {
    let end = s
        .split_inclusive('\n')
        .take(keep)
        .map(str::len)
        .sum::<usize>();
    let (kept, rest) = s.split_at_checked(end).unwrap_or((s, ""));
    (kept, rest.lines().count())
}

pub(super) fn push_block(out: &mut String, block: &str) {
    out.push_str(block.trim_end());
    out.push_str("\n\n");
}

/// "12034 tokens", or "over 16000 tokens" ([`BLOCKED_ABOVE`]) when the count is a bound the byte
/// size proves.
pub(super) fn tokens_text(k: &Knowledge) -> String {
    if k.tokens_exact {
        format!("{} tokens", k.tokens)
    } else {
        format!("over {BLOCKED_ABOVE} tokens")
    }
}

/// The one line a context says about a handoff that expired by age or date (issue 38): where
/// it is, why it is not loaded, what it was about, and how to read it.
pub(super) fn expired_handoff(s: &StateView) -> String {
    let about = crate::megg::recall::handoff_sections(&s.content, &["Working On"])
        .map(|l| l.trim().trim_start_matches("- ").trim())
        .find(|l| !l.is_empty())
        .map(|l| {
            let mut short: String = l.chars().take(MAX_ABOUT).collect();
            if l.chars().count() > MAX_ABOUT {
                short.push('…');
            }
            format!(" It was about: {short}.")
        })
        .unwrap_or_default();
    format!(
        "**The last handoff expired and is not loaded:** {} ({}).{about} If it still applies, read it with `megg show {}`; `megg state clear` removes it.",
        s.path.display(),
        s.expired_reason.as_deref().unwrap_or("expired"),
        s.id,
    )
}

/// Most characters of the Working On line quoted by [`expired_handoff`].
const MAX_ABOUT: usize = 160;

/// The warnings a hook gives (its markdown and its `systemMessage`): the context's, then one
/// sentence for the secrets it shows as `[redacted]` (SPEC §12).
pub(super) fn hook_warnings(ctx: &Context) -> Vec<String> {
    let mut out = ctx.warnings.clone();
    out.extend(hidden_sentence(&ctx.hidden));
    out
}

/// The one sentence a hook gives the secrets it shows as `[redacted]`: how many, and in which
/// files — `megg context` names each line.
fn hidden_sentence(hidden: &[Hidden]) -> Option<String> {
    let mut files: Vec<String> = Vec::new();
    for h in hidden {
        let file = h.path.display().to_string();
        if !files.contains(&file) {
            files.push(file);
        }
    }
    let (n, them) = match hidden.len() {
        0 => return None,
        1 => ("a secret".to_string(), "it"),
        n => (format!("{n} secrets"), "them"),
    };
    Some(format!(
        "{n} in {} shown as [redacted]: remove {them}, and from git history (`megg context` names each line)",
        files.join(", ")
    ))
}
