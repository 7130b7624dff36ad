//! Secrets hidden from what megg shows (SPEC §12 "At injection"): a file written by hand, or
//! by an older megg, may hold one. `context`, the hook, `search`, `show`, `state` and MCP print
//! it as `[redacted]` and say where it is, so that the person removes it — and from git
//! history, which keeps every committed version.
//!
//! A file is scanned whole when it is read to be shown, so the line a warning names is the
//! file's own; what the scan found is remembered by the text's hash ([`super::scans`]), so a
//! file read twice in a run, or again by the next run, is not scanned again.

use std::path::{Path, PathBuf};

use super::scans;
use crate::megg::secrets::{self, REDACTED};

/// A secret shown as `[redacted]`: where it is and which rule found it — never the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    pub path: PathBuf,
    /// Its line (from 1) in the file; `None` in a value megg read out of the file (a
    /// checkpoint's feature, a host summary kept as JSON), whose lines are not the file's.
    pub line: Option<usize>,
    /// gitleaks' rule id, or megg's words for its own rule.
    pub rule: String,
}

impl Hidden {
    /// What the CLI prints on stderr, and JSON and MCP carry in `warnings`.
    pub fn warning(&self) -> String {
        let at = match self.line {
            Some(line) => format!("{}:{line}", self.path.display()),
            None => self.path.display().to_string(),
        };
        format!(
            "{at} holds a secret ({}), shown as {REDACTED}; remove it, and from git history, which keeps it",
            self.rule
        )
    }

    /// Whether it is in a document of the file at `path` whose `text` starts at line `first`
    /// (one whose line is unknown is in every document of its file).
    pub fn is_in(&self, path: &Path, first: usize, text: &str) -> bool {
        if self.path != path {
            return false;
        }
        let Some(line) = self.line else { return true };
        (first..=first + text.matches('\n').count()).contains(&line)
    }
}

/// `text`, the whole of the file at `path`, as megg shows it: each secret `[redacted]` (on
/// as many lines as it took), and where each was added to `hidden`. Returned as it came when
/// it holds none.
///
/// Again until nothing changes (at most [`secrets::MAX_PASSES`] more times), as
/// [`secrets::redact`]: what one redaction takes can be what kept a secret before it from
/// reading as one. Lines stay where they were, so a later pass names the file's own lines.
pub fn redact(path: &Path, text: String, hidden: &mut Vec<Hidden>) -> String {
    let (mut out, mut changed) = redact_once(path, text, hidden);
    for _ in 0..secrets::MAX_PASSES {
        if !changed {
            break;
        }
        (out, changed) = redact_once(path, out, hidden);
    }
    out
}

/// One pass of [`redact`]: the text, and whether it changed.
fn redact_once(path: &Path, text: String, hidden: &mut Vec<Hidden>) -> (String, bool) {
    let found = scans::find(&text);
    if found.is_empty() {
        return (text, false);
    }
    // Lines counted once through the text, not from its start for every secret.
    let (mut line, mut counted) = (1, 0);
    for f in found.iter() {
        line += text
            .get(counted..f.range.start)
            .map_or(0, |between| between.matches('\n').count());
        counted = f.range.start.max(counted);
        hidden.push(Hidden {
            path: path.to_path_buf(),
            line: Some(line),
            rule: f.rule.clone(),
        });
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in found.iter() {
        out.push_str(text.get(at..f.range.start).unwrap_or_default());
        out.push_str(REDACTED);
        // A secret over lines (a key block) keeps them, blank: every line after it is still
        // the file's own, where `search` and `show` say it is.
        let lines = text
            .get(f.range.clone())
            .map_or(0, |s| s.matches('\n').count());
        out.extend(std::iter::repeat_n('\n', lines));
        at = f.range.end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    (out, true)
}

/// `value`, read out of the file at `path` (its lines are not the file's), as megg shows it.
pub fn redact_value(path: &Path, value: &str, hidden: &mut Vec<Hidden>) -> String {
    let (shown, found) = secrets::redact_found(value);
    hidden.extend(found.iter().map(|f| Hidden {
        path: path.to_path_buf(),
        line: None,
        rule: f.source.name().to_string(),
    }));
    shown.into_owned()
}

/// `hidden` without repeats, in its order (a file read twice in one run is named once).
pub fn dedup(hidden: &mut Vec<Hidden>) {
    let mut seen = std::collections::HashSet::new();
    hidden.retain(|h| seen.insert((h.path.clone(), h.line, h.rule.clone())));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What megg injects is redacted to the fixpoint, as `secrets::redact`: the second pass's
    /// secret (a token whose closing quote a private key took) is gone, named at its line.
    #[test]
    fn a_secret_only_a_second_pass_sees_is_redacted_at_injection() {
        let text =
            "# T\n\ntoken=\"sk------END PRIVATE KEY----------BEGIN PRIVATE KEY-----token\"\n";
        let mut hidden = Vec::new();
        let shown = redact(Path::new("/k.md"), text.to_string(), &mut hidden);
        assert!(!shown.contains("sk------END"), "{shown}");
        // The same text as secrets::redact, but for the line ends a redaction keeps.
        assert_eq!(shown.trim_end(), secrets::redact(text).trim_end());
        assert!(hidden.iter().all(|h| h.line == Some(3)), "{hidden:?}");
        assert!(hidden.len() >= 2, "{hidden:?}");
    }

    #[test]
    fn each_secret_is_named_by_its_files_line() {
        let key = format!("glpat-{}", "R7tKq2mXw9LpZ4vNc8Yb");
        let text = format!("# T\n\nnothing\n\ntoken {key} here\nand AKIAIOSFODNN7EXAMPLQ\n");
        let mut hidden = Vec::new();
        let shown = redact(Path::new("/k.md"), text, &mut hidden);
        assert!(!shown.contains(&key), "{shown}");
        assert!(shown.contains("token [redacted] here"), "{shown}");
        let lines: Vec<Option<usize>> = hidden.iter().map(|h| h.line).collect();
        assert_eq!(lines, [Some(5), Some(6)], "{hidden:?}");
        let w = hidden[0].warning();
        assert!(w.starts_with("/k.md:5 holds a secret ("), "{w}");
        assert!(w.contains("git history") && !w.contains(&key), "{w}");
    }

    #[test]
    fn a_key_block_keeps_its_lines_so_the_next_ones_stay_where_they_are() {
        let key = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n{}\n-----END PRIVATE KEY-----",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDAC4AWkdwKYSd8",
            "Ks14IReLcYgADhoXk56ZzXI="
        );
        let text = format!("a\n{key}\nb\npassword=hunter2hunter2\n");
        let mut hidden = Vec::new();
        let shown = redact(Path::new("/k.md"), text.clone(), &mut hidden);
        assert_eq!(shown.lines().count(), text.lines().count(), "{shown}");
        assert!(shown.starts_with("a\n[redacted]\n\n\n\nb\n"), "{shown:?}");
        let lines: Vec<Option<usize>> = hidden.iter().map(|h| h.line).collect();
        assert_eq!(lines, [Some(2), Some(7)]);
    }

    #[test]
    fn a_text_without_secrets_comes_back_as_it_was() {
        let mut hidden = Vec::new();
        let text = "# Knowledge\n\nThe token expires after an hour.\n".to_string();
        assert_eq!(redact(Path::new("/k.md"), text.clone(), &mut hidden), text);
        assert!(hidden.is_empty());
    }

    #[test]
    fn a_text_scanned_again_gives_the_same_findings() {
        let text = "password=hunter2hunter2\n".repeat(3);
        let (mut first, mut second) = (Vec::new(), Vec::new());
        let a = redact(Path::new("/a.md"), text.clone(), &mut first);
        let b = redact(Path::new("/a.md"), text, &mut second);
        assert_eq!((a, first.len()), (b, second.len()));
        assert_eq!(first.len(), 3);
        let mut both = [first, second].concat();
        dedup(&mut both);
        assert_eq!(both.len(), 3);
    }

    /// What megg wrote redacted (capture, `state write`) and shows again is not named again:
    /// `[redacted]` is no secret, whatever rule found the one it replaced.
    #[test]
    #[allow(clippy::disallowed_methods, clippy::print_stderr)] // the samples beside the project, read where they are; a skip is said
    fn a_redacted_text_holds_nothing_to_name() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/secrets/gitleaks-samples.json"
        );
        // Absent in a lone clone away from this workplace's checkouts: said, and skipped.
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("skipped: SPEC §12's samples are not at {path}");
            return;
        };
        let samples: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut again = Vec::new();
        for key in ["tps", "shapes"] {
            for t in samples[key].as_array().unwrap() {
                let once = secrets::redact(t["text"].as_str().unwrap()).into_owned();
                let found = secrets::find(&once);
                if let Some(f) = found.first() {
                    again.push(format!("{}: {once:?} ({})", t["rule"], f.source.name()));
                }
            }
        }
        assert!(again.is_empty(), "{} named again: {again:#?}", again.len());
    }
}
