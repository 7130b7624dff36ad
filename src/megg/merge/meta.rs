//! What surrounds the entries: the frontmatter, merged key by key (`created` the earliest and
//! `updated` the latest, compared as times; any other key three-way), and the preamble, merged
//! three-way as one block (SPEC §11).

use chrono::{DateTime, Utc};

use crate::clock::parse_timestamp;
use std::collections::HashMap;

use crate::frontmatter::{self, Fields};
use crate::megg::knowledge::Document;

/// Which side's text a part of the result takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pick {
    Ours,
    Theirs,
    /// Both changed it differently: both between markers.
    Conflict,
}

/// The merged frontmatter block: OURS' bytes, with THEIRS' text for each key THEIRS wins.
pub(super) fn frontmatter(
    base: Option<&Version<'_>>,
    ours: &Version<'_>,
    theirs: &Version<'_>,
    warnings: &mut Vec<String>,
) -> String {
    let none = match frontmatter::parse("") {
        Ok(f) => f,
        Err(_) => return ours.doc.frontmatter.to_string(),
    };
    let o = ours.fields.as_ref().unwrap_or(&none);
    let t = theirs.fields.as_ref().unwrap_or(&none);
    let b = base.map(|b| b.fields.as_ref().unwrap_or(&none));
    let ours_yaml = ours.doc.yaml.unwrap_or("");
    let theirs_yaml = theirs.doc.yaml.unwrap_or("");

    let mut keys: Vec<&str> = o.keys().collect();
    for k in t.keys() {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut yaml = ours_yaml.to_string();
    for key in keys {
        let by_time = match key {
            "created" => later_wins(o, t, key, false),
            "updated" => later_wins(o, t, key, true),
            _ => None,
        };
        let take_theirs = by_time.unwrap_or_else(|| three_way(b, o, t, key, warnings));
        if take_theirs {
            let block = frontmatter::key_block(theirs_yaml, key);
            yaml = frontmatter::set_block(&yaml, key, block, ours.doc.newline);
        }
    }
    if yaml == ours_yaml {
        return ours.doc.frontmatter.to_string();
    }
    match ours.doc.yaml {
        Some(y) => {
            let fm = ours.doc.frontmatter;
            // `y` is a slice of `fm`: the fences around it are what lies before and after.
            let start = y.as_ptr() as usize - fm.as_ptr() as usize;
            let before = fm.get(..start).unwrap_or_default();
            let after = fm.get(start + y.len()..).unwrap_or_default();
            format!("{before}{yaml}{after}")
        }
        None => frontmatter::join(&yaml, "", theirs.doc.newline),
    }
}

/// Whether THEIRS' value of a time key wins: the later (`updated`) or the earlier (`created`)
/// time; `None` unless both sides hold a time (then the key merges three-way).
fn later_wins(o: &Fields<'_>, t: &Fields<'_>, key: &str, later: bool) -> Option<bool> {
    let time = |f: &Fields<'_>| -> Option<DateTime<Utc>> {
        f.get_str(key)
            .and_then(|s| parse_timestamp(&s))
            .map(|p| p.at)
    };
    let (ours, theirs) = (time(o)?, time(t)?);
    Some(if later { theirs > ours } else { theirs < ours })
}

/// Whether THEIRS' value of `key` wins: THEIRS changed it and OURS did not. Changed on both
/// sides differently, or no base to tell: OURS, with a warning.
fn three_way(
    base: Option<&Fields<'_>>,
    o: &Fields<'_>,
    t: &Fields<'_>,
    key: &str,
    warnings: &mut Vec<String>,
) -> bool {
    let (ov, tv) = (o.value(key), t.value(key));
    if ov == tv {
        return false;
    }
    match base {
        None => {
            warnings.push(format!(
                "no common version: kept ours' frontmatter `{key}` (theirs differs)"
            ));
            false
        }
        Some(b) if b.value(key) == ov => true,
        Some(b) if b.value(key) == tv => false,
        Some(_) => {
            warnings.push(format!(
                "frontmatter `{key}` changed differently on both sides: kept ours"
            ));
            false
        }
    }
}

/// Which preamble the result takes, compared with blank lines normalised.
pub(super) fn preamble(
    base: Option<&Version<'_>>,
    ours: &Version<'_>,
    theirs: &Version<'_>,
    warnings: &mut Vec<String>,
) -> Pick {
    let (o, t) = (
        normalized(ours.doc.preamble),
        normalized(theirs.doc.preamble),
    );
    if o == t {
        return Pick::Ours;
    }
    match base.map(|b| normalized(b.doc.preamble)) {
        None => {
            warnings.push(
                "no common version: kept ours' preamble (the text before the first entry; theirs differs)"
                    .into(),
            );
            Pick::Ours
        }
        Some(b) if b == o => Pick::Theirs,
        Some(b) if b == t => Pick::Ours,
        Some(_) => Pick::Conflict,
    }
}

/// A preamble as compared: lines without trailing whitespace, no blank lines at either end,
/// runs of blank lines as one.
fn normalized(text: &str) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank {
                out.push('\n');
            }
        }
        blank = false;
        out.push_str(line);
    }
    out
}

/// One version of the file, parsed, with its entries' normalized texts.
pub(super) struct Version<'a> {
    pub(super) doc: Document<'a>,
    pub(super) fields: Option<Fields<'a>>,
    pub(super) keys: Vec<String>,
}

impl Version<'_> {
    /// How many times each normalized entry text occurs.
    pub(super) fn counts(&self) -> HashMap<&str, usize> {
        let mut m: HashMap<&str, usize> = HashMap::new();
        for k in &self.keys {
            *m.entry(k.as_str()).or_default() += 1;
        }
        m
    }
}
