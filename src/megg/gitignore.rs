//! The `.gitignore` block that keeps per-developer state out of git (SPEC §4.6).

use super::block::Block;

/// The block's comment line (the first line of `templates/gitignore`).
pub const HEADER: &str = "# megg: per-developer session state (not shared)";
/// The patterns the block ensures (the other lines of `templates/gitignore`).
pub const PATTERNS: [&str; 2] = [".*.local.md", "**/.megg/state.md"];

/// The block itself.
pub const BLOCK: Block = Block {
    header: HEADER,
    lines: &PATTERNS,
};

/// `existing` with the missing lines of the block appended; every existing byte is kept.
/// Returns the new text and the lines added (empty when nothing was missing).
pub fn ensure(existing: &str) -> (String, Vec<&'static str>) {
    BLOCK.ensure(existing)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_template() {
        let lines: Vec<&str> = crate::templates::GITIGNORE.lines().collect();
        assert_eq!(lines, [HEADER, PATTERNS[0], PATTERNS[1]]);
    }

    #[test]
    fn adds_the_block_to_an_empty_file() {
        let (out, added) = ensure("");
        assert_eq!(out, format!("{HEADER}\n.*.local.md\n**/.megg/state.md\n"));
        assert_eq!(added.len(), 3);
    }

    #[test]
    fn keeps_every_byte_and_adds_a_newline_first() {
        let (out, _) = ensure("target/\n*.log");
        assert!(out.starts_with("target/\n*.log\n# megg"));
        let (again, added) = ensure(&out);
        assert_eq!(again, out);
        assert!(added.is_empty());
    }

    #[test]
    fn only_missing_lines_are_added() {
        let (out, added) = ensure("node_modules\n.*.local.md\n");
        assert_eq!(added, [HEADER, "**/.megg/state.md"]);
        assert_eq!(
            out,
            format!("node_modules\n.*.local.md\n{HEADER}\n**/.megg/state.md\n")
        );
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let (out, _) = ensure("a\r\n");
        assert!(out.ends_with(".*.local.md\r\n**/.megg/state.md\r\n"));
    }
}
