//! Human and JSON renderers of the result structs the domain computes.

pub mod capture;
pub mod checkpoint;
pub mod context;
pub mod doctor;
pub mod maintain;
pub mod recall;
pub mod resolve;
pub mod setup;
pub mod state;
pub mod tidy;

/// Text for a terminal with control characters (C0 and C1, DEL) replaced by U+FFFD, newline
/// and tab kept: a file's bytes cannot move the cursor, retitle the terminal or hide text
/// (SPEC §9). JSON output needs nothing: serde escapes them.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char =
        |c: char| (c.is_control() && c != '\n' && c != '\t') || ('\u{80}'..='\u{9f}').contains(&c);
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| if unsafe_char(c) { '\u{FFFD}' } else { c })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_replaced_newlines_and_tabs_kept() {
        let s = super::terminal_safe("a\x1b[2J\tb\nc\x07\u{9b}d\r");
        assert_eq!(s, "a\u{FFFD}[2J\tb\nc\u{FFFD}\u{FFFD}d\u{FFFD}");
        assert!(matches!(
            super::terminal_safe("plain\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
