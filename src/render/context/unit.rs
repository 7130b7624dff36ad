//! What a context budget counts: UTF-16 units (Claude Code) or bytes (Codex).

use super::text::char_len;

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

    pub(super) fn of(self, c: char) -> usize {
        match self {
            Unit::Utf16 => c.len_utf16(),
            Unit::Utf8 => c.len_utf8(),
        }
    }
}
