//! Small text pieces every part of the context render shares: lengths as Claude Code counts
//! them, the knowledge's token count in words, blocks, line cuts and the markers that say where
//! a block was cut.

use crate::megg::context::Knowledge;

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

/// "12034 tokens", or "over 16,000 tokens" when the count is a bound the byte size proves.
pub(super) fn tokens_text(k: &Knowledge) -> String {
    if k.tokens_exact {
        format!("{} tokens", k.tokens)
    } else {
        "over 16,000 tokens".to_string()
    }
}
