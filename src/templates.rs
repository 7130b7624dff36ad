//! The text of every file megg generates, kept in `templates/` and embedded in the binary.
//! `{{key}}` placeholders are filled in one pass: a value is never re-expanded.

pub const STATE: &str = include_str!("../templates/state.md");
pub const CHECKPOINT: &str = include_str!("../templates/checkpoint.md");
pub const INFO: &str = include_str!("../templates/info.md");
pub const INFO_BODY: &str = include_str!("../templates/info-body.md");
pub const KNOWLEDGE: &str = include_str!("../templates/knowledge.md");
pub const KNOWLEDGE_ENTRY: &str = include_str!("../templates/knowledge-entry.md");
pub const KNOWLEDGE_ARCHIVE: &str = include_str!("../templates/knowledge-archive.md");
pub const GITIGNORE: &str = include_str!("../templates/gitignore");
pub const GITATTRIBUTES: &str = include_str!("../templates/gitattributes");
pub const MCP: &str = include_str!("../templates/mcp.json");

/// The files `megg setup` installs for Claude Code, by their path under `.claude/`.
pub const CLAUDE_FILES: [(&str, &str); 5] = [
    (
        "skills/megg-state/SKILL.md",
        include_str!("../skills/megg-state/SKILL.md"),
    ),
    (
        "commands/workflows/plan.md",
        include_str!("../commands/workflows/plan.md"),
    ),
    (
        "commands/workflows/work.md",
        include_str!("../commands/workflows/work.md"),
    ),
    (
        "commands/workflows/review.md",
        include_str!("../commands/workflows/review.md"),
    ),
    (
        "commands/workflows/compound.md",
        include_str!("../commands/workflows/compound.md"),
    ),
];

/// The files `megg setup --agent gemini` installs for Gemini CLI, by their path under `.gemini/`:
/// the same workflow commands and `/megg-state` as Gemini CLI custom commands (TOML with a
/// `description` and a `prompt`; `commands/workflows/plan.toml` is `/workflows:plan`), worded
/// for Gemini's tools.
pub const GEMINI_FILES: [(&str, &str); 5] = [
    (
        "commands/megg-state.toml",
        include_str!("../templates/gemini/commands/megg-state.toml"),
    ),
    (
        "commands/workflows/plan.toml",
        include_str!("../templates/gemini/commands/workflows/plan.toml"),
    ),
    (
        "commands/workflows/work.toml",
        include_str!("../templates/gemini/commands/workflows/work.toml"),
    ),
    (
        "commands/workflows/review.toml",
        include_str!("../templates/gemini/commands/workflows/review.toml"),
    ),
    (
        "commands/workflows/compound.toml",
        include_str!("../templates/gemini/commands/workflows/compound.toml"),
    ),
];

/// `template` with each `{{key}}` replaced by its value. Unknown keys stay as written.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some((before, after)) = rest.split_once("{{") {
        out.push_str(before);
        match after.split_once("}}") {
            Some((key, tail)) => {
                match values.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push_str("{{");
                        out.push_str(key);
                        out.push_str("}}");
                    }
                }
                rest = tail;
            }
            None => {
                out.push_str("{{");
                out.push_str(after);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn fills_once_and_keeps_unknown_keys() {
        assert_eq!(
            fill("a {{x}} b {{y}}", &[("x", "{{y}}"), ("y", "2")]),
            "a {{y}} b 2"
        );
        assert_eq!(fill("{{unknown}} {{", &[]), "{{unknown}} {{");
    }

    #[test]
    fn multi_byte_text_around_and_in_keys_is_kept() {
        assert_eq!(
            fill("Café {{x}} — {{é}} ü{{", &[("x", "☕")]),
            "Café ☕ — {{é}} ü{{"
        );
        assert_eq!(fill("{{é}}", &[("é", "e")]), "e");
    }

    #[test]
    fn every_template_placeholder_is_known() {
        for (t, keys) in [
            (STATE, &["updated", "git", "content"][..]),
            (CHECKPOINT, &["frontmatter", "now", "plan_file"][..]),
            (INFO, &["now", "body"][..]),
            (INFO_BODY, &["name", "context"][..]),
            (KNOWLEDGE, &["now"][..]),
            (
                KNOWLEDGE_ENTRY,
                &["date", "title", "type", "topics", "content"][..],
            ),
            (KNOWLEDGE_ARCHIVE, &["now", "year"][..]),
            (MCP, &["command"][..]),
        ] {
            let values: Vec<(&str, &str)> = keys.iter().map(|k| (*k, "v")).collect();
            assert!(!fill(t, &values).contains("{{"), "{t}");
        }
    }

    #[test]
    fn gemini_templates_are_toml_commands_for_every_claude_file() {
        assert_eq!(GEMINI_FILES.len(), CLAUDE_FILES.len());
        for (path, text) in GEMINI_FILES {
            let doc: toml_edit::DocumentMut = text.parse().unwrap();
            for key in ["description", "prompt"] {
                let v = doc.get(key).and_then(|i| i.as_str()).unwrap_or_default();
                assert!(!v.trim().is_empty(), "{path}: {key}");
            }
            // commands/workflows/plan.toml mirrors commands/workflows/plan.md; megg-state.toml
            // the skill.
            let twin = match path.strip_suffix(".toml").unwrap() {
                "commands/megg-state" => "skills/megg-state/SKILL.md".to_string(),
                stem => format!("{stem}.md"),
            };
            assert!(CLAUDE_FILES.iter().any(|(p, _)| *p == twin), "{path}");
        }
    }

    #[test]
    fn the_json_template_is_json() {
        let filled = fill(MCP, &[("command", "megg")]);
        serde_json::from_str::<serde_json::Value>(&filled).unwrap();
    }
}
