//! What a regex's text guarantees about its matches, read from its syntax alone: the literal
//! names every match starts with ([`names`]) and the texts one of which every match holds
//! ([`needs`]) — as far as [`Pattern`](super::pattern::Pattern)'s shortcuts need, reading its
//! tokens, groups and alternatives. A regex, or a part of one, that this does not read gets no
//! answer (`None`), never a wrong one. Pure.

/// Where the token at `at` ends: an escape, a class, a group, or one character.
pub(super) fn token_end(chars: &[char], at: usize) -> Option<usize> {
    match chars.get(at)? {
        '\\' => escape_end(chars, at),
        '[' => class_end(chars, at).map(|end| end + 1),
        '(' => group_end(chars, at).map(|end| end + 1),
        _ => Some(at + 1),
    }
}

/// Where the escape at `at` ends: `\x41`, `\x{41}`, `\u0041`, `\pL`, `\p{Greek}`, `\n`, `\.`.
fn escape_end(chars: &[char], at: usize) -> Option<usize> {
    let digits = match chars.get(at + 1)? {
        'x' => 2,
        'u' => 4,
        'U' => 8,
        'p' | 'P' => 1,
        _ => return Some(at + 2),
    };
    let end = if chars.get(at + 2) == Some(&'{') {
        chars.iter().skip(at + 2).position(|&c| c == '}')? + at + 3
    } else {
        at + 2 + digits
    };
    (end <= chars.len()).then_some(end)
}

/// Whether `regex` sets the `x` flag, which makes its spaces and `#` mean nothing: not read.
pub(super) fn verbose(regex: &str) -> bool {
    regex.match_indices("(?").any(|(at, _)| {
        regex
            .get(at + 2..)
            .unwrap_or_default()
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '-')
            .any(|c| c == 'x')
    })
}

/// Where the class opening at `open` closes (`[^]]`, `[[:alpha:]x]` and escapes included).
fn class_end(chars: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    loop {
        match chars.get(i)? {
            '\\' => i = escape_end(chars, i)?,
            '[' if chars.get(i + 1) == Some(&':') => {
                let close = chars.get(i..)?.windows(2).position(|w| w == [':', ']'])?;
                i += close + 2;
            }
            '[' => i = class_end(chars, i)? + 1,
            ']' => return Some(i),
            _ => i += 1,
        }
    }
}

/// Where the group opening at `open` closes.
pub(super) fn group_end(chars: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    loop {
        match chars.get(i)? {
            ')' => return Some(i),
            _ => i = token_end(chars, i)?,
        }
    }
}

/// `chars` cut at each `|` outside groups and classes; `None` if it does not read.
pub(super) fn alternation(chars: &[char]) -> Option<Vec<&[char]>> {
    let (mut out, mut from, mut i) = (Vec::new(), 0, 0);
    while i < chars.len() {
        if chars.get(i) == Some(&'|') {
            out.push(chars.get(from..i)?);
            from = i + 1;
            i += 1;
        } else {
            i = token_end(chars, i)?;
        }
    }
    out.push(chars.get(from..)?);
    Some(out)
}

/// Whether the group at `open` only sets flags (`(?i)`): they hold to the end of the
/// enclosing group, across its `|`.
pub(super) fn sets_flags(chars: &[char], open: usize) -> bool {
    let Some(end) = group_end(chars, open) else {
        return false;
    };
    chars.get(open + 1) == Some(&'?')
        && chars
            .get(open + 2..end)
            .is_some_and(|f| f.iter().all(|c| c.is_ascii_alphabetic() || *c == '-'))
}

/// Whether a group among the tokens of `chars` only sets flags (`a(?i)b`).
pub(super) fn sets_flags_at_top(chars: &[char]) -> bool {
    let mut i = 0;
    while i < chars.len() {
        if chars.get(i) == Some(&'(') && sets_flags(chars, i) {
            return true;
        }
        let Some(next) = token_end(chars, i) else {
            return true;
        };
        i = next;
    }
    false
}

/// The most texts [`spell`] spells out before it cuts them short.
const MAX_NAMES: usize = 64;

/// What the tokens in `chars` match, spelt out: texts, each whole or only how the matches
/// along it start (a token this does not spell out — a class with a range, a repetition, an
/// escape like `\w`, an assertion — cuts it). Every match starts with one of them.
fn spell(chars: &[char]) -> Vec<(String, bool)> {
    let mut texts = vec![(String::new(), true)];
    let mut i = 0;
    while i < chars.len() {
        let Some((atom, next)) = spell_atom(chars, i) else {
            break;
        };
        let (atom, next) = match chars.get(next) {
            Some('*' | '+' | '{') => break,
            Some('?') if chars.get(next + 1) == Some(&'?') => break,
            Some('?') => (
                atom.into_iter().chain([(String::new(), true)]).collect(),
                next + 1,
            ),
            _ => (atom, next),
        };
        let mut longer = Vec::new();
        for (text, whole) in &texts {
            if !whole {
                longer.push((text.clone(), false));
                continue;
            }
            for (more, more_whole) in &atom {
                longer.push((format!("{text}{more}"), *more_whole));
            }
        }
        if longer.len() > MAX_NAMES {
            break;
        }
        texts = longer;
        i = next;
    }
    if i < chars.len() {
        for text in &mut texts {
            text.1 = false;
        }
    }
    texts
}

/// The character a token stands for: a plain one, an escaped sign, or `\n`, `\r`, `\t`.
fn literal(token: &[char]) -> Option<char> {
    match token {
        ['\\', 'n'] => Some('\n'),
        ['\\', 'r'] => Some('\r'),
        ['\\', 't'] => Some('\t'),
        ['\\', c] if !c.is_ascii_alphanumeric() => Some(*c),
        [c] if !matches!(
            c,
            '.' | '^' | '$' | '*' | '+' | '?' | '{' | '|' | '(' | ')' | '[' | '\\'
        ) =>
        {
            Some(*c)
        }
        _ => None,
    }
}

/// The inside of a group token without its `?:` (or case flag), or `None` for another kind.
fn group_inner(token: &[char]) -> Option<&[char]> {
    let ['(', inner @ .., ')'] = token else {
        return None;
    };
    let inner = [&['?', ':'][..], &['?', '-', 'i', ':'], &['?', 'i', ':']]
        .iter()
        .find_map(|flags| inner.strip_prefix(*flags))
        .unwrap_or(inner);
    (inner.first() != Some(&'?')).then_some(inner)
}

/// The texts the token at `at` matches, and where it ends; `None` for one [`spell`] does not
/// spell out.
fn spell_atom(chars: &[char], at: usize) -> Option<(Vec<(String, bool)>, usize)> {
    let end = token_end(chars, at)?;
    let token = chars.get(at..end)?;
    if let Some(c) = literal(token) {
        return Some((vec![(c.to_string(), true)], end));
    }
    let texts = match token {
        ['[', set @ .., ']'] => {
            let plain = set.iter().enumerate().all(|(k, &c)| {
                !matches!(c, '\\' | '[' | ']')
                    && (c != '^' || k > 0)
                    && (c != '-' || k == 0 || k + 1 == set.len())
            });
            if !plain {
                return None;
            }
            set.iter().map(|c| (c.to_string(), true)).collect()
        }
        _ => {
            let mut texts = Vec::new();
            for branch in alternation(group_inner(token)?)? {
                texts.extend(spell(branch));
            }
            if texts.len() > MAX_NAMES {
                return None;
            }
            texts
        }
    };
    Some((texts, end))
}

/// Texts one of which each match of `chars` holds (in any case); `None` when none is certain.
pub(super) fn needs(chars: &[char]) -> Option<Vec<String>> {
    alternation(chars)?
        .into_iter()
        .map(needs_in_sequence)
        .try_fold(Vec::new(), |mut all, found| {
            all.extend(found?);
            Some(all)
        })
}

/// [`needs`] of one alternative: the longest found of a run of characters, or of one text
/// from each alternative of a group.
fn needs_in_sequence(chars: &[char]) -> Option<Vec<String>> {
    fn keep(best: &mut Option<Vec<String>>, found: Vec<String>) {
        let shortest = |texts: &[String]| texts.iter().map(String::len).min().unwrap_or(0);
        if found.iter().all(|t| !t.is_empty())
            && best.as_ref().is_none_or(|b| shortest(&found) > shortest(b))
        {
            *best = Some(found);
        }
    }
    let mut best = None;
    let mut run = String::new();
    let mut i = 0;
    while i < chars.len() {
        let end = token_end(chars, i)?;
        let token = chars.get(i..end)?;
        let (at_least_once, repeats, mut next) = match chars.get(end) {
            Some('?' | '*') => (false, true, end + 1),
            Some('{') => (
                false,
                true,
                chars.iter().skip(end).position(|&c| c == '}')? + end + 1,
            ),
            Some('+') => (true, true, end + 1),
            _ => (true, false, end),
        };
        if repeats && chars.get(next) == Some(&'?') {
            next += 1;
        }
        match literal(token) {
            Some(c) if at_least_once => run.push(c),
            _ => {}
        }
        if repeats || !at_least_once || literal(token).is_none() {
            keep(&mut best, vec![std::mem::take(&mut run)]);
            if let Some(found) = group_inner(token).filter(|_| at_least_once).and_then(needs) {
                keep(&mut best, found);
            }
        }
        i = next;
    }
    keep(&mut best, vec![run]);
    best
}

/// Lower-case texts one of which each match of `chars` starts with; `None` when some match may
/// start with none (an empty text).
pub(super) fn names(chars: &[char]) -> Option<Vec<String>> {
    let names: Vec<String> = spell(chars)
        .into_iter()
        .map(|(text, _)| text.to_ascii_lowercase())
        .collect();
    (!names.iter().any(String::is_empty)).then_some(names)
}
