//! What every bounded MCP result shares (SPEC §7: none over 10,000 characters; §13.6: `search`
//! and `show` pages): measuring a document as the text a result holds, and cutting text, echoed
//! strings, paths and lists to a size measured that way — never guessed from a length in
//! characters, since JSON spends two characters on a quote and six on a control character.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// What marks a cut string.
const CUT: char = '…';

/// Most characters of JSON a short string is echoed with: an id or a cursor given back, a
/// type, date or topic from a file (a real id has at most 10).
pub const ECHOED_CHARS: usize = 64;

/// Characters of `value` as compact JSON: what an MCP result's text holds.
pub fn json_chars(value: &impl serde::Serialize) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |s| s.chars().count())
}

/// Characters of `s` inside a JSON document: its escapes counted, its quotes not.
pub fn json_len(s: &str) -> usize {
    json_chars(&s).saturating_sub(2)
}

/// The longest prefix of `text` that `fits` (which, true of a prefix, must be true of every
/// shorter one), found by bisection over its characters; `None` when not even `""` fits.
pub fn longest_prefix(text: &str, fits: impl Fn(&str) -> bool) -> Option<&str> {
    let ends: Vec<usize> = std::iter::once(0)
        .chain(text.char_indices().map(|(i, c)| i + c.len_utf8()))
        .collect();
    if !fits("") {
        return None;
    }
    // Every end is a char boundary (`char_indices`), so each prefix is `Some`.
    let prefix = |i: usize| {
        ends.get(i)
            .and_then(|&end| text.get(..end))
            .unwrap_or_default()
    };
    let (mut lo, mut hi) = (0, ends.len().saturating_sub(1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(prefix(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(prefix(lo))
}

/// [`longest_prefix`], ending after a line when one ends in its second half: what a document
/// or a result cut to fit keeps.
pub fn longest_lines(text: &str, fits: impl Fn(&str) -> bool) -> Option<&str> {
    let prefix = longest_prefix(text, fits)?;
    Some(match prefix.rsplit_once('\n') {
        Some((head, _)) if (head.len() + 1) * 2 > prefix.len() => {
            prefix.get(..=head.len()).unwrap_or(prefix)
        }
        _ => prefix,
    })
}

/// `s` within `max` characters of JSON ([`json_len`]), cut and marked `…` when longer.
pub fn clip(s: &str, max: usize) -> Cow<'_, str> {
    if json_len(s) <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Owned(String::new());
    }
    // Room for `…`, one character in JSON too.
    let kept = longest_prefix(s, |p| json_len(p) < max).unwrap_or("");
    Cow::Owned(format!("{kept}{CUT}"))
}

/// `path` within `max` characters of JSON: its end (the file's name) kept, `…` in front.
pub fn clip_path(path: &Path, max: usize) -> PathBuf {
    let text = path.to_string_lossy();
    if json_len(&text) <= max {
        return path.to_path_buf();
    }
    let reversed: String = text.chars().rev().collect();
    let tail: String = clip(&reversed, max).chars().rev().collect();
    PathBuf::from(tail)
}

/// `items` within `max` characters of JSON as a list: each cut to `each` ([`clip`]), the
/// first that fit, then `more(n)` saying how many were left out.
pub fn bounded_list(
    items: Vec<String>,
    max: usize,
    each: usize,
    more: impl Fn(usize) -> String,
) -> Vec<String> {
    let items: Vec<String> = items
        .into_iter()
        .map(|i| match clip(&i, each) {
            Cow::Borrowed(_) => i,
            Cow::Owned(cut) => cut,
        })
        .collect();
    if json_chars(&items) <= max {
        return items;
    }
    let total = items.len();
    // `[` `]`, the note (its count no longer than `total`) and a comma before it.
    let mut used = 2 + json_chars(&more(total)) + 1;
    let mut kept = Vec::new();
    for item in items {
        let cost = json_chars(&item) + 1;
        if used + cost > max {
            break;
        }
        used += cost;
        kept.push(item);
    }
    let left = total - kept.len();
    kept.push(more(left));
    kept
}

/// A page's `warnings` within a quarter of it: the first that fit, then how many more there
/// are (a hostile tree can give one per file).
pub fn bounded_warnings(warnings: Vec<String>, max_chars: usize) -> Vec<String> {
    let budget = max_chars / 4;
    bounded_list(warnings, budget, budget / 2, |n| {
        format!("… and {n} more warnings (megg on the command line lists them)")
    })
}
