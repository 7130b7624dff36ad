//! Reading a domain's markdown files for the context: within a size limit, every problem a
//! warning, each secret `[redacted]` (SPEC §12); the body after the frontmatter; a chain
//! link's title and excerpt.

use std::path::Path;

use crate::fsx;
use crate::megg::recall::hidden::{self, Hidden};

/// The body of a markdown file without its frontmatter and leading blank lines.
pub fn body_of(text: &str) -> &str {
    crate::frontmatter::split(text)
        .body
        .trim_start_matches(['\n', '\r'])
}

/// Reads a domain file for loading, as megg shows it: every problem is a warning, never an
/// error, and each secret is `[redacted]`, noted in `hidden`. A file over `limit` is cut at
/// its last whole line with a marker saying so.
pub(super) fn read_or_warn(
    b: &fsx::Boundary,
    path: &Path,
    limit: u64,
    (warnings, hidden): (&mut Vec<String>, &mut Vec<Hidden>),
) -> Option<String> {
    match fsx::read_text(b, path, limit) {
        Ok(Some(mut t)) => {
            if t.lossy {
                warnings.push(format!(
                    "{} is not valid UTF-8; invalid bytes shown as U+FFFD",
                    path.display()
                ));
            }
            if t.truncated {
                warnings.push(format!(
                    "{} is over {limit} bytes; read only its first {limit}",
                    path.display()
                ));
                let keep = t.text.rfind('\n').map_or(0, |i| i + 1);
                t.text.truncate(keep);
            }
            let mut text = hidden::redact(path, t.text, hidden);
            if t.truncated {
                text.push_str(&format!("\n[… cut: the file is over {limit} bytes]\n"));
            }
            Some(text)
        }
        Ok(None) => None,
        Err(e) => {
            warnings.push(e.message);
            None
        }
    }
}

/// The first `# ` heading (else the domain name) and the first lines of prose after it.
pub(super) fn title_and_excerpt(body: &str, name: &str) -> (String, String) {
    let mut title = None;
    let mut excerpt = String::new();
    for line in body.lines() {
        let line = line.trim();
        if title.is_none()
            && let Some(t) = line.strip_prefix("# ")
        {
            title = Some(t.trim().to_string());
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            if !excerpt.is_empty() && line.starts_with('#') {
                break;
            }
            continue;
        }
        if !excerpt.is_empty() {
            excerpt.push(' ');
        }
        excerpt.push_str(line);
        if excerpt.chars().count() >= 160 {
            break;
        }
    }
    if excerpt.chars().count() > 160 {
        excerpt = excerpt.chars().take(159).collect::<String>() + "…";
    }
    let mut title = title.unwrap_or_else(|| name.to_string());
    if title.chars().count() > MAX_TITLE_CHARS {
        title = title.chars().take(MAX_TITLE_CHARS - 1).collect::<String>() + "…";
    }
    (title, excerpt)
}

/// Most characters of a domain's title in the chain: a title is a name, not a description.
const MAX_TITLE_CHARS: usize = 120;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_excerpts() {
        let (t, e) = title_and_excerpt(
            "# Acme\n\n## Context\nCompany-wide rules.\nMore.\n## Rules\n1. x",
            "acme",
        );
        assert_eq!(t, "Acme");
        assert_eq!(e, "Company-wide rules. More.");
        let (t, e) = title_and_excerpt("no heading here", "dir");
        assert_eq!((t.as_str(), e.as_str()), ("dir", "no heading here"));
        let (_, e) = title_and_excerpt(&format!("# T\n{}", "word ".repeat(100)), "d");
        assert!(e.chars().count() <= 160 && e.ends_with('…'));
    }

    #[test]
    fn body_of_skips_frontmatter_and_blank_lines() {
        assert_eq!(body_of("---\na: 1\n---\n\n# T\n"), "# T\n");
        assert_eq!(body_of("# T\n"), "# T\n");
    }
}
