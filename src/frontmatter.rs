//! `---` YAML frontmatter: split it from a markdown body and edit single keys, losslessly.
//!
//! Reading goes through serde-saphyr. Editing is line-based on purpose: megg changes only the
//! keys it sets, so unknown keys, key order, comments, the other timestamps' formats and the
//! body survive byte for byte (SPEC §1 "user data").

use serde_json::{Map, Value};

/// A markdown file cut at its frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the fences (each line with its newline), `None` without frontmatter.
    pub yaml: Option<&'a str>,
    /// Everything after the closing fence's line ending (the whole text without frontmatter).
    pub body: &'a str,
    /// `"\r\n"` when the opening fence ends that way, else `"\n"`.
    pub newline: &'static str,
}

/// Cuts `text` at its frontmatter. A block must open on the first line with `---` and close
/// with a line that is exactly `---` or `...`; an unclosed block is not frontmatter.
pub fn split(text: &str) -> Split<'_> {
    let plain = Split {
        yaml: None,
        body: text,
        newline: "\n",
    };
    let text_no_bom = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, newline) = if let Some(rest) = text_no_bom.strip_prefix("---\r\n") {
        (rest, "\r\n")
    } else if let Some(rest) = text_no_bom.strip_prefix("---\n") {
        (rest, "\n")
    } else {
        return plain;
    };
    let mut pos = 0;
    for line in first.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            let (yaml, rest) = first.split_at_checked(pos).unwrap_or((first, ""));
            return Split {
                yaml: Some(yaml),
                body: rest.get(line.len()..).unwrap_or_default(),
                newline,
            };
        }
        pos += line.len();
    }
    // A fence at the very end without a newline.
    plain
}

/// Joins YAML and a body into a file: `---\n<yaml>---\n<body>`.
pub fn join(yaml: &str, body: &str, newline: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + body.len() + 8);
    out.push_str("---");
    out.push_str(newline);
    out.push_str(yaml);
    if !yaml.is_empty() && !yaml.ends_with('\n') {
        out.push_str(newline);
    }
    out.push_str("---");
    out.push_str(newline);
    out.push_str(body);
    out
}

/// Parsed frontmatter: the keys in file order, plus the raw text for exact scalar recovery.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields<'a> {
    map: Map<String, Value>,
    raw: &'a str,
}

/// A frontmatter block that is not a YAML mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses a frontmatter block as a YAML mapping. Empty YAML is an empty mapping.
pub fn parse(yaml: &str) -> Result<Fields<'_>, ParseError> {
    // Blank by YAML's rule (spaces, tabs, line breaks), not Rust's: a vertical tab or a form
    // feed is text YAML refuses, not an empty mapping (found by the fuzzer).
    if yaml.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
        return Ok(Fields {
            map: Map::new(),
            raw: yaml,
        });
    }
    match serde_saphyr::from_str::<Map<String, Value>>(yaml) {
        Ok(map) => Ok(Fields { map, raw: yaml }),
        Err(e) => {
            // serde-saphyr appends a source snippet; the first line says what is wrong.
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("invalid YAML");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            Err(ParseError(first.to_string()))
        }
    }
}

impl Fields<'_> {
    pub fn contains(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// The keys in file order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    /// A key's value as read (for comparing two versions of a block).
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// A scalar value as text: strings as they are, numbers and booleans as written in the
    /// file (so `head: 1e10` stays `1e10`), `null`/empty/missing/non-scalars as `None`.
    pub fn get_str(&self, key: &str) -> Option<String> {
        match self.map.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(_) | Value::Bool(_) => raw_scalar(self.raw, key),
            _ => None,
        }
    }
}

/// The unquoted text after `key:` on its top-level line.
fn raw_scalar(yaml: &str, key: &str) -> Option<String> {
    yaml_lines(yaml).find_map(|line| {
        let rest = after_key(line, key)?;
        let value = rest.split_once(" #").map_or(rest, |(value, _)| value);
        Some(value.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// Renders a string as a YAML scalar, quoted when YAML would read it as another type
/// (`yes`, `null`, `1.0`, `on`, `""`).
pub fn scalar(value: &str) -> String {
    if is_plain_timestamp(value) {
        // RFC 3339 timestamps are written plainly, as the TypeScript megg does.
        return value.to_string();
    }
    if value.starts_with(char::is_whitespace) || value.ends_with(char::is_whitespace) {
        // A plain scalar loses the spaces at its ends, Unicode ones too (`main\u{a0}`, found
        // by the fuzzer): quoted, they read back.
        return double_quoted(value);
    }
    match serde_saphyr::to_string(&value) {
        Ok(s) if !s.contains('\n') || s.trim_end().lines().count() == 1 => s.trim_end().to_string(),
        // Multi-line values never come from megg; keep them on one line, JSON-quoted
        // (valid YAML double-quoted scalar).
        _ => serde_json::to_string(value).unwrap_or_else(|_| "\"\"".into()),
    }
}

/// `value` as a YAML double-quoted scalar: `"` and `\` escaped, and every control character
/// (which YAML does not allow raw, DEL included) as `\UXXXXXXXX`.
fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            // What YAML does not print raw (c-printable), and the byte-order mark.
            c if !matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
                || c == '\u{feff}' =>
            {
                out.push_str(&format!("\\U{:08X}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn is_plain_timestamp(value: &str) -> bool {
    value.len() >= 20
        && value.ends_with('Z')
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || b"-:TZ.".contains(&b))
}

/// Sets `key` to an already-rendered YAML value (`None` removes the key), leaving every
/// other line untouched. A new key goes at the end. The block's continuation lines (an
/// indented or multi-line value) are replaced with it.
pub fn set_raw(yaml: &str, key: &str, value: Option<&str>, newline: &str) -> String {
    let line = value.map(|v| format!("{key}: {v}{newline}"));
    set_block(yaml, key, line.as_deref(), newline)
}

/// `key`'s top-level line and its continuation lines exactly as written, when `yaml` has it
/// (what [`set_block`] takes to copy a key from one version of a file into another).
pub fn key_block<'a>(yaml: &'a str, key: &str) -> Option<&'a str> {
    let lines: Vec<&str> = yaml_lines(yaml).collect();
    let start = lines.iter().position(|l| is_key_line(l, key))?;
    let end = block_end(&lines, start);
    let from: usize = lines.iter().take(start).map(|l| l.len()).sum();
    let len: usize = lines.get(start..end)?.iter().map(|l| l.len()).sum();
    yaml.get(from..from + len)
}

/// Replaces `key`'s block (its line and continuation lines) with `block` — whole lines, as
/// [`key_block`] returns them — or removes it (`None`); a new key goes at the end.
pub fn set_block(yaml: &str, key: &str, block: Option<&str>, newline: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 32);
    let lines: Vec<&str> = yaml_lines(yaml).collect();
    let found = lines.iter().position(|l| is_key_line(l, key));
    let skip = found.map_or(0..0, |start| start..block_end(&lines, start));
    // YAML's document end (`...`) after the document's first content: a new key goes before
    // it, or it would start a second document. One before any content ends no document: the
    // key goes at the end (both found by the fuzz gate).
    let content = lines.iter().position(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && !is_document_end(l)
    });
    let end = content.and_then(|c| {
        lines
            .iter()
            .skip(c)
            .position(|l| is_document_end(l))
            .map(|p| p + c)
    });
    for (i, line) in lines.iter().enumerate() {
        if i == skip.start
            && found.is_some()
            && let Some(b) = block
        {
            push_lines(&mut out, b, newline);
        }
        if found.is_none()
            && end == Some(i)
            && let Some(b) = block
        {
            push_lines(&mut out, b, newline);
        }
        if !skip.contains(&i) {
            out.push_str(line);
        }
    }
    if found.is_none()
        && end.is_none()
        && let Some(b) = block
    {
        if !out.is_empty() && !out.ends_with(['\n', '\r']) {
            out.push_str(newline);
        }
        push_lines(&mut out, b, newline);
    }
    out
}

/// The lines of YAML text, each with its line break: `\n`, `\r\n` or a lone `\r` (YAML
/// reads all three as one, so a key after a lone `\r` is a key).
fn yaml_lines(yaml: &str) -> impl Iterator<Item = &str> {
    let mut rest = yaml;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let bytes = rest.as_bytes();
        let mut end = rest.len();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                end = i + 1;
                break;
            }
            if b == b'\r' {
                end = if bytes.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                break;
            }
        }
        let (line, after) = rest.split_at_checked(end).unwrap_or((rest, ""));
        rest = after;
        Some(line)
    })
}

/// A YAML document end marker line: `...`, alone or before a comment.
fn is_document_end(line: &str) -> bool {
    line.strip_prefix("...").is_some_and(|rest| {
        let rest = rest.trim_end_matches(['\r', '\n']);
        rest.is_empty() || rest.starts_with([' ', '\t'])
    })
}

/// Where the block of the key line `lines[start]` ends: after its last indented continuation
/// line. Blank and comment lines belong to it only when an indented line follows them (YAML
/// folds blanks into the value and skips comments, even ones at the line's start).
fn block_end(lines: &[&str], start: usize) -> usize {
    let mut end = start + 1;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            end = i + 1;
        } else {
            break;
        }
    }
    end
}

fn push_lines(out: &mut String, block: &str, newline: &str) {
    out.push_str(block);
    if !block.ends_with('\n') {
        out.push_str(newline);
    }
}

/// Sets `key` to a string value, quoted as needed.
pub fn set(yaml: &str, key: &str, value: &str, newline: &str) -> String {
    set_raw(yaml, key, Some(&scalar(value)), newline)
}

/// The text after `key:` when `line` is `key`'s top-level line, the key plain or quoted
/// (`phase:`, `"phase":`, `'phase' :`) — a quoted key is the same key to YAML.
fn after_key<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
        .iter()
        .find_map(|k| {
            let rest = line
                .strip_prefix(k.as_str())?
                .trim_start_matches([' ', '\t'])
                .strip_prefix(':')?;
            // YAML's `:` ends a key only before a space or the line's end: `phase:le: x` is
            // the key `phase:le` (found by the fuzzer: an edit wrote a second `phase`).
            (rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n'])).then_some(rest)
        })
}

fn is_key_line(line: &str, key: &str) -> bool {
    after_key(line, key).is_some()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn split_keeps_the_body_byte_for_byte() {
        let text = "---\nupdated: 2026-01-17T10:30:00Z\nstatus: active\n---\n\n## Working On\nX";
        let s = split(text);
        assert_eq!(
            s.yaml,
            Some("updated: 2026-01-17T10:30:00Z\nstatus: active\n")
        );
        assert_eq!(s.body, "\n## Working On\nX");
        assert_eq!(join(s.yaml.unwrap(), s.body, s.newline), text);
    }

    #[test]
    fn split_handles_crlf_and_bom() {
        let text = "\u{feff}---\r\na: 1\r\n---\r\nbody\r\n";
        let s = split(text);
        assert_eq!(s.yaml, Some("a: 1\r\n"));
        assert_eq!(s.body, "body\r\n");
        assert_eq!(s.newline, "\r\n");
    }

    #[test]
    fn no_or_unclosed_frontmatter_is_all_body() {
        assert_eq!(split("# Title\n").yaml, None);
        assert_eq!(split("---\na: 1\nno close").yaml, None);
        assert_eq!(split("---\na: 1\nno close").body, "---\na: 1\nno close");
        // A `---` later in the file is a rule, not frontmatter.
        assert_eq!(split("x\n---\ny\n").yaml, None);
    }

    #[test]
    fn empty_frontmatter_is_an_empty_mapping() {
        let s = split("---\n---\nbody");
        assert_eq!(s.yaml, Some(""));
        assert!(parse(s.yaml.unwrap()).unwrap().get_str("x").is_none());
    }

    #[test]
    fn parse_reads_scalars_as_written() {
        let f = parse("head: 1e10\nn: 12\nbranch:\nq: \"yes\"\nt: 2026-01-17T10:30:00Z\n").unwrap();
        assert_eq!(f.get_str("head").as_deref(), Some("1e10"));
        assert_eq!(f.get_str("n").as_deref(), Some("12"));
        assert_eq!(f.get_str("branch"), None);
        assert!(f.contains("branch"));
        assert_eq!(f.get_str("q").as_deref(), Some("yes"));
        assert_eq!(f.get_str("t").as_deref(), Some("2026-01-17T10:30:00Z"));
    }

    #[test]
    fn parse_errors_are_one_line() {
        let e = parse("feature: x\nplan_file: [unclosed\n").unwrap_err();
        assert!(!e.0.contains('\n'), "{e}");
        assert!(e.0.contains("line 2"), "{e}");
        assert!(parse("just text").is_err());
    }

    #[test]
    fn scalars_that_yaml_would_retype_are_quoted() {
        for (v, want) in [
            ("yes", "\"yes\""),
            ("null", "\"null\""),
            ("1.0", "\"1.0\""),
            ("on", "\"on\""),
            ("", "\"\""),
            ("feat/auth", "feat/auth"),
            ("2026-01-17T10:30:00Z", "2026-01-17T10:30:00Z"),
            ("a: b", "\"a: b\""),
        ] {
            assert_eq!(scalar(v), want, "{v}");
            let yaml = format!("k: {}\n", scalar(v));
            assert_eq!(parse(&yaml).unwrap().get_str("k").unwrap_or_default(), v);
        }
    }

    #[test]
    fn set_changes_only_its_key() {
        let yaml =
            "custom: keep me\nupdated: 2026-01-01T00:00:00.123Z\nstatus: active\n# comment\n";
        let out = set(yaml, "status", "done", "\n");
        assert_eq!(
            out,
            "custom: keep me\nupdated: 2026-01-01T00:00:00.123Z\nstatus: done\n# comment\n"
        );
        let out = set(&out, "branch", "main", "\n");
        assert!(out.ends_with("# comment\nbranch: main\n"));
        let out = set_raw(&out, "custom", None, "\n");
        assert!(!out.contains("custom"));
    }

    #[test]
    fn set_replaces_multiline_values_and_similar_prefixes_survive() {
        let yaml = "tags:\n  - a\n  - b\ntagsx: 1\n";
        let out = set(yaml, "tags", "none", "\n");
        assert_eq!(out, "tags: none\ntagsx: 1\n");
    }

    #[test]
    fn a_value_on_the_lines_after_a_comment_is_replaced_with_its_key() {
        // `phase:`'s value is `more`: YAML skips the comment and the blank line between (found
        // by the fuzz gate: the edit kept `  more` under `phase: work`, which YAML refuses).
        let yaml = "# comment\nphase: \n#kwo- w\n\n  more\nnext: 1\n";
        assert_eq!(
            parse(yaml).unwrap().get_str("phase").as_deref(),
            Some("more")
        );
        let out = set(yaml, "phase", "work", "\n");
        assert_eq!(out, "# comment\nphase: work\nnext: 1\n");
        // A comment with no indented line after it is not the key's: it stays.
        let out = set(
            "phase: plan\n# about next\nnext: 1\n",
            "phase",
            "work",
            "\n",
        );
        assert_eq!(out, "phase: work\n# about next\nnext: 1\n");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// A frontmatter line: `key: value`, the key plain or quoted, the value plain or quoted.
        fn line() -> impl Strategy<Value = (String, String)> {
            (
                "[a-z][a-z_]{0,8}",
                prop_oneof![
                    "[A-Za-z0-9 ./:-]{0,20}",
                    "\"[A-Za-z0-9 #:]{0,12}\"",
                    Just("[a, b]".to_string()),
                ],
                0..3usize,
            )
                .prop_map(|(k, v, quote)| {
                    let key = match quote {
                        0 => k.clone(),
                        1 => format!("\"{k}\""),
                        _ => format!("'{k}'"),
                    };
                    (k, format!("{key}: {v}"))
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn arbitrary_text_never_panics(text in any::<String>(), key in "[a-z_]{1,8}", value in any::<String>()) {
                let s = split(&text);
                if let Some(yaml) = s.yaml {
                    let _ = parse(yaml);
                    let edited = set(yaml, &key, &value, s.newline);
                    let _ = parse(&edited);
                    let _ = set_raw(yaml, &key, None, s.newline);
                }
                let _ = join(s.yaml.unwrap_or(""), s.body, s.newline);
            }

            #[test]
            fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
                let text = String::from_utf8_lossy(&bytes);
                if let Some(yaml) = split(&text).yaml {
                    let _ = parse(yaml);
                    let _ = set(yaml, "updated", "2026-01-01T00:00:00Z", "\n");
                }
            }

            #[test]
            fn an_edit_changes_only_its_key(
                lines in proptest::collection::vec(line(), 1..8).prop_filter("one line per key", |ls| {
                    let mut keys: Vec<&String> = ls.iter().map(|(k, _)| k).collect();
                    keys.sort();
                    keys.dedup();
                    keys.len() == ls.len()
                }),
                pick in any::<prop::sample::Index>(),
                value in "[A-Za-z0-9 ./:#-]{0,20}",
                body in any::<String>(),
            ) {
                let yaml: String = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
                let key = lines[pick.index(lines.len())].0.clone();
                let text = join(&yaml, &body, "\n");
                let s = split(&text);
                prop_assert_eq!(s.yaml, Some(yaml.as_str()));
                let edited = set(s.yaml.unwrap(), &key, &value, "\n");
                // Every line of another key is kept, in order; the key appears once.
                let others: Vec<&str> = lines
                    .iter()
                    .filter(|(k, _)| *k != key)
                    .map(|(_, l)| l.as_str())
                    .collect();
                let kept: Vec<&str> = edited
                    .lines()
                    .filter(|l| !is_key_line(l, &key))
                    .collect();
                prop_assert_eq!(kept, others);
                prop_assert_eq!(edited.lines().filter(|l| is_key_line(l, &key)).count(), 1);
                // The body survives byte for byte and the value reads back.
                let whole = join(&edited, s.body, "\n");
                prop_assert_eq!(split(&whole).body, body.as_str());
                if let Ok(fields) = parse(&edited) {
                    let got = fields.get_str(&key).unwrap_or_default();
                    prop_assert_eq!(got.trim(), value.trim());
                }
            }
        }
    }
}
