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

/// [`terminal_safe`] text with the byte ranges `marks` (in order, not overlapping) shown bold red
/// when `color` — what grep does with a match. The text is made safe piece by piece, so a
/// file's bytes still cannot move the cursor.
pub fn highlighted(text: &str, marks: &[std::ops::Range<usize>], color: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for m in marks {
        let (Some(before), Some(word)) = (text.get(at..m.start), text.get(m.clone())) else {
            continue;
        };
        if !color || m.start < at {
            continue;
        }
        out.push_str(&terminal_safe(before));
        out.push_str("\x1b[1;31m");
        out.push_str(&terminal_safe(word));
        out.push_str("\x1b[0m");
        at = m.end;
    }
    out.push_str(&terminal_safe(text.get(at..).unwrap_or("")));
    out
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

    #[test]
    fn highlighted_marks_words_and_keeps_the_text_safe() {
        let text = "Retry \x1b[2J webhooks";
        let marks = [0..5, 11..19];
        assert_eq!(
            super::highlighted(text, &marks, true),
            "\x1b[1;31mRetry\x1b[0m \u{FFFD}[2J \x1b[1;31mwebhooks\x1b[0m"
        );
        assert_eq!(
            super::highlighted(text, &marks, false),
            "Retry \u{FFFD}[2J webhooks"
        );
        // Ranges out of the text, inside a character or overlapping are left out.
        assert_eq!(super::highlighted("é!", &[1..2, 0..9], true), "é!");
        assert_eq!(
            super::highlighted("abc", &[0..2, 1..3], true),
            "\x1b[1;31mab\x1b[0mc"
        );
    }
}
