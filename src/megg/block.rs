//! A block of lines megg keeps in a file people own and commit — the `.gitignore` block
//! (SPEC §4.6) and the `.gitattributes` block (§11): only the missing lines are added, every
//! other byte is kept, and what was added can be taken out again exactly.

/// A comment line and the lines it stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub header: &'static str,
    pub lines: &'static [&'static str],
}

impl Block {
    /// `existing` with the missing lines of the block appended (the header only when it is
    /// missing too); every existing byte is kept, a final newline added first where the text
    /// lacks one, CRLF kept. Returns the new text and the lines added (empty when nothing was
    /// missing).
    pub fn ensure(&self, existing: &str) -> (String, Vec<&'static str>) {
        let has = |wanted: &str| existing.lines().any(|l| l.trim_end() == wanted);
        let missing: Vec<&'static str> = self.lines.iter().copied().filter(|p| !has(p)).collect();
        if missing.is_empty() {
            return (existing.to_string(), Vec::new());
        }
        let mut out = existing.to_string();
        let newline = if existing.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        let mut added = Vec::new();
        if !has(self.header) {
            out.push_str(self.header);
            out.push_str(newline);
            added.push(self.header);
        }
        for p in &missing {
            out.push_str(p);
            out.push_str(newline);
        }
        added.extend(missing);
        (out, added)
    }

    /// Whether every line of the block is in `text`.
    pub fn is_in(&self, text: &str) -> bool {
        self.ensure(text).1.is_empty()
    }
}

/// `text` without the lines setup recorded adding (`added`): the last occurrence of each,
/// since lines are appended. A line that was there before was never recorded, so it stays.
/// `None` when none of them is there.
pub fn remove_lines(text: &str, added: &[String]) -> Option<String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut removed = false;
    for wanted in added {
        if let Some(i) = lines.iter().rposition(|l| l.trim_end() == wanted) {
            lines.remove(i);
            removed = true;
        }
    }
    removed.then(|| lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Block = Block {
        header: "# megg: test",
        lines: &["a", "b c"],
    };

    #[test]
    fn adds_only_missing_lines_and_keeps_every_byte() {
        assert_eq!(
            B.ensure(""),
            ("# megg: test\na\nb c\n".into(), vec![B.header, "a", "b c"])
        );
        let (out, added) = B.ensure("x\r\nb c");
        assert_eq!(out, "x\r\nb c\r\n# megg: test\r\na\r\n");
        assert_eq!(added, [B.header, "a"]);
        assert!(B.is_in(&out));
        assert_eq!(B.ensure(&out), (out.clone(), Vec::new()));
    }

    #[test]
    fn removing_what_was_added_gives_the_text_back() {
        let before = "x\nb c\n";
        let (with, added) = B.ensure(before);
        let added: Vec<String> = added.iter().map(|s| s.to_string()).collect();
        assert_eq!(remove_lines(&with, &added).as_deref(), Some(before));
        assert_eq!(remove_lines(before, &added), None);
        assert_eq!(
            remove_lines(
                &B.ensure("").0,
                &["# megg: test".into(), "a".into(), "b c".into()]
            )
            .as_deref(),
            Some("")
        );
    }
}
