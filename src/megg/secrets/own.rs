//! megg's own secret rules (SPEC §12), beside gitleaks': private-key blocks, tokens with
//! well-known prefixes, the values of secret-named keys, passwords in URLs.
//!
//! A hand-written scanner, one pass over the bytes: prefixed tokens and keys are tried only
//! where a word starts, and every attempt reads at most the word (or value) it starts, so the
//! time is linear in the input whatever it holds. Pure: no I/O.

use std::ops::Range;

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// The kind of a secret found, for messages (the secret itself is never repeated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `-----BEGIN … PRIVATE KEY-----` through its `-----END … PRIVATE KEY-----`.
    PrivateKey,
    /// `AKIA…` / `ASIA…`.
    AwsKey,
    /// `ghp_`, `gho_`, `ghs_`, `ghu_`, `github_pat_`.
    GitHubToken,
    /// `sk-…` (OpenAI, Anthropic `sk-ant-…`, `sk-proj-…`), Stripe's `sk_live_…`/`rk_live_…`
    /// (and `_test_`).
    ApiKey,
    /// `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-`.
    SlackToken,
    /// `AIza…`.
    GoogleApiKey,
    /// `eyJ….eyJ….…`.
    Jwt,
    /// The value of a `password`, `passwd`, `secret`, `token`, `api_key` or `apikey` key.
    Value,
    /// `user:pass` in `scheme://user:pass@host`.
    UrlUserinfo,
}

impl Kind {
    /// The kind, for people: "a GitHub token".
    pub fn describe(self) -> &'static str {
        match self {
            Kind::PrivateKey => "a private key",
            Kind::AwsKey => "an AWS access key",
            Kind::GitHubToken => "a GitHub token",
            Kind::ApiKey => "an API key (sk-…, sk_live_…)",
            Kind::SlackToken => "a Slack token",
            Kind::GoogleApiKey => "a Google API key",
            Kind::Jwt => "a JSON Web Token",
            Kind::Value => "a password, secret or token value",
            Kind::UrlUserinfo => "credentials in a URL",
        }
    }
}

/// A secret: its kind and where it is (byte range of the part [`redact`] replaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    pub range: Range<usize>,
}

/// The secrets in `text`, in order, never overlapping.
pub fn secrets(text: &str) -> Vec<Finding> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut ends = Ends::default();
    let mut i = 0;
    // Whether a word may start at `i`. After a secret it may: `]` ends the replacement, so
    // a second pass over the redacted text sees what this one did.
    let mut boundary = true;
    while let Some(&c) = b.get(i) {
        let found = if c == b'-' && tail(b, i).starts_with(BEGIN) {
            private_key(text, i, &mut ends)
        } else if boundary && is_word(c) {
            token(b, i).or_else(|| assignment(b, i))
        } else if c == b':' {
            userinfo(b, i)
        } else {
            None
        };
        match found {
            Some(f) => {
                i = f.range.end;
                out.push(f);
                boundary = true;
            }
            None => {
                boundary = !is_word(c);
                i += 1;
            }
        }
    }
    out
}

const BEGIN: &[u8] = b"-----BEGIN ";
const END: &str = "-----END ";
/// Longest label between `BEGIN ` and `-----` (`ENCRYPTED PRIVATE KEY`, `PGP PRIVATE KEY BLOCK`).
const MAX_LABEL: usize = 64;
/// Longest quoted value looked at for its closing quote.
const MAX_QUOTED: usize = 4096;
/// Keys whose value is a secret, also as the end of a longer key (`DB_PASSWORD`).
const KEYS: [&str; 7] = [
    "password", "passwd", "secret", "token", "api_key", "api-key", "apikey",
];

/// A character of a word: tokens and keys start only where a word starts.
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// The bytes of `b` from `at` on (none past its end).
fn tail(b: &[u8], at: usize) -> &[u8] {
    b.get(at..).unwrap_or_default()
}

/// The end of the run of bytes from `start` that satisfy `ok`.
fn run(b: &[u8], start: usize, ok: impl Fn(u8) -> bool) -> usize {
    tail(b, start)
        .iter()
        .position(|&c| !ok(c))
        .map_or(b.len(), |n| start + n)
}

/// Whether a word ends at `at` (the text ends, or a non-word character follows).
fn word_ends(b: &[u8], at: usize) -> bool {
    b.get(at).is_none_or(|&c| !is_word(c))
}

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// A token with a well-known prefix starting at `i`, at least its real length, ending a word.
fn token(b: &[u8], i: usize) -> Option<Finding> {
    let rest = tail(b, i);
    let upper_digit = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let (kind, body, min, ok): (Kind, usize, usize, &dyn Fn(u8) -> bool) =
        if rest.starts_with(b"AKIA") || rest.starts_with(b"ASIA") {
            (Kind::AwsKey, 4, 16, &upper_digit)
        } else if [b"ghp_", b"gho_", b"ghs_", b"ghu_"]
            .iter()
            .any(|p| rest.starts_with(*p))
        {
            (Kind::GitHubToken, 4, 36, &alnum)
        } else if rest.starts_with(b"github_pat_") {
            (Kind::GitHubToken, 11, 22, &|c| alnum(c) || c == b'_')
        } else if rest.starts_with(b"sk-") {
            (Kind::ApiKey, 3, 20, &is_word)
        } else if [b"sk_live_", b"sk_test_", b"rk_live_", b"rk_test_"]
            .iter()
            .any(|p| rest.starts_with(*p))
        {
            // Stripe's secret and restricted keys.
            (Kind::ApiKey, 8, 24, &alnum)
        } else if rest.starts_with(b"xox")
            && matches!(rest.get(3), Some(b'a' | b'b' | b'p' | b'r' | b's'))
            && rest.get(4) == Some(&b'-')
        {
            (Kind::SlackToken, 5, 10, &|c| alnum(c) || c == b'-')
        } else if rest.starts_with(b"AIza") {
            (Kind::GoogleApiKey, 4, 35, &is_word)
        } else if rest.starts_with(b"eyJ") {
            return jwt(b, i);
        } else {
            return None;
        };
    let start = i + body;
    let end = run(b, start, ok);
    // A Google API key is `AIza` and exactly 35 characters.
    let exact = kind == Kind::GoogleApiKey && end - start != min;
    if end - start < min || exact || !word_ends(b, end) {
        return None;
    }
    // Hyphenated words after `sk-` (`sk-learn-is-a-python-library`) are not keys: a key's
    // random part has a digit or a capital.
    if kind == Kind::ApiKey
        && !b
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
    {
        return None;
    }
    Some(Finding {
        kind,
        range: i..end,
    })
}

/// `eyJ<b64url>.eyJ<b64url>.<b64url>` starting at `i`.
fn jwt(b: &[u8], i: usize) -> Option<Finding> {
    let b64 = is_word;
    let seg = |at: usize, lead: &[u8]| -> Option<usize> {
        if !tail(b, at).starts_with(lead) {
            return None;
        }
        let end = run(b, at + lead.len(), b64);
        (end > at + lead.len()).then_some(end)
    };
    let one = seg(i, b"eyJ")?;
    (b.get(one) == Some(&b'.')).then_some(())?;
    let two = seg(one + 1, b"eyJ")?;
    (b.get(two) == Some(&b'.')).then_some(())?;
    let three = seg(two + 1, b"")?;
    Some(Finding {
        kind: Kind::Jwt,
        range: i..three,
    })
}

/// `key=value`, `key: value`, `"key": "value"` where the key (the word at `i`) ends with a
/// secret's name: the value.
fn assignment(b: &[u8], i: usize) -> Option<Finding> {
    let key_end = run(b, i, is_word);
    let key = b.get(i..key_end)?.to_ascii_lowercase();
    if !KEYS.iter().any(|k| key.ends_with(k.as_bytes())) {
        return None;
    }
    let spaces = |from: usize| run(b, from, |c| c == b' ' || c == b'\t');
    let mut j = key_end;
    if matches!(b.get(j), Some(b'"' | b'\'')) {
        j += 1;
    }
    j = spaces(j);
    match b.get(j) {
        // `==` compares, it does not assign.
        Some(b'=') if b.get(j + 1) != Some(&b'=') => j += 1,
        // `:=` declares a variable in code: gitleaks' rules judge that, not this one.
        Some(b':') if b.get(j + 1) != Some(&b'=') => j += 1,
        _ => return None,
    }
    j = spaces(j);
    let value = match b.get(j) {
        Some(&q @ (b'"' | b'\'')) => {
            let quoted = tail(b, j + 1);
            let quoted = quoted.get(..MAX_QUOTED).unwrap_or(quoted);
            match quoted.iter().position(|&c| c == q || c == b'\n') {
                Some(n) if quoted.get(n) == Some(&q) => j + 1..j + 1 + n,
                // No closing quote on the line: the value as if unquoted.
                _ => j + 1..unquoted_end(b, j + 1),
            }
        }
        // `**Secret:** text` is markdown, not a value.
        Some(b'*') | None => return None,
        Some(_) => j..unquoted_end(b, j),
    };
    let text = b.get(value.clone()).unwrap_or_default();
    // A private key is found whole where it starts; what was redacted stays as it is.
    if placeholder(text)
        || tail(b, value.start).starts_with(BEGIN)
        || text.starts_with(REDACTED.as_bytes())
        || matches!(text, b"null" | b"true" | b"false")
    {
        return None;
    }
    // A known token as the value is named as that token.
    let kind = token(b, value.start)
        .filter(|t| t.range == value)
        .map_or(Kind::Value, |t| t.kind);
    Some(Finding { kind, range: value })
}

/// A value that stands for a secret rather than being one, as people write them in docs and
/// examples: a flag (`PuttyPassword=0`), a short word (`dev`, `pwd`), one naming itself
/// (`your-secure-password`, `<token>`, `changeme`), a reference to another name
/// (`config.database.password`). gitleaks' own allowlist (`$PASS`, `${VAR}`, `{{ … }}`) is
/// applied to every finding besides.
fn placeholder(value: &[u8]) -> bool {
    // Placeholders are short; a long value is never one, which also keeps a scan over a long
    // run of rejected values linear.
    if value.len() > MAX_PLACEHOLDER {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    let names_itself = [
        "password",
        "passwd",
        "secret",
        "token",
        "your",
        "example",
        "placeholder",
        "changeme",
        "redacted",
    ]
    .iter()
    .any(|w| lower.windows(w.len()).any(|x| x == w.as_bytes()));
    let word = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    let reference = value.contains(&b'.')
        && value.split(|&c| c == b'.').all(|part| {
            part.first()
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                && part.iter().all(word)
        });
    value.len() < 2
        || (value.len() <= 4 && value.iter().all(u8::is_ascii_lowercase))
        || (value.first() == Some(&b'<') && value.last() == Some(&b'>'))
        || names_itself
        || reference
}

/// The longest value [`placeholder`] considers.
const MAX_PLACEHOLDER: usize = 64;

/// Where an unquoted value starting at `from` ends.
fn unquoted_end(b: &[u8], from: usize) -> usize {
    run(b, from, |c| {
        !c.is_ascii_whitespace() && !b"\"'`,;&<>)}".contains(&c)
    })
}

/// The userinfo of `scheme://userinfo@host` when `i` is at `://`.
fn userinfo(b: &[u8], i: usize) -> Option<Finding> {
    let before = i.checked_sub(1).and_then(|p| b.get(p));
    if !tail(b, i).starts_with(b"://") || !before.is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let start = i + 3;
    let end = run(b, start, |c| {
        !c.is_ascii_whitespace() && !b"/?#@<>\"'`".contains(&c)
    });
    let info = b.get(start..end).unwrap_or_default();
    let redacted = info
        .windows(REDACTED.len())
        .any(|w| w == REDACTED.as_bytes());
    let password = info
        .iter()
        .position(|&c| c == b':')
        .map_or(info, |at| info.get(at + 1..).unwrap_or_default());
    let real = !info.is_empty() && !redacted && !placeholder(password);
    (b.get(end) == Some(&b'@') && real).then_some(Finding {
        kind: Kind::UrlUserinfo,
        range: start..end,
    })
}

/// The end (after `-----`) of a `… PRIVATE KEY …-----` label starting at `start`.
fn key_label(b: &[u8], start: usize) -> Option<usize> {
    let rest = b.get(start..)?;
    let window = rest.get(..MAX_LABEL).unwrap_or(rest);
    let n = window
        .iter()
        .position(|&c| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '))
        .unwrap_or(window.len());
    let (label, after) = rest.split_at_checked(n)?;
    let private = label.windows(11).any(|w| w == b"PRIVATE KEY");
    (private && after.starts_with(b"-----")).then_some(start + n + 5)
}

/// A private-key block starting at `i`: through its END line, or to the end of the text
/// when it has none (what follows a BEGIN line is the key).
fn private_key(text: &str, i: usize, ends: &mut Ends) -> Option<Finding> {
    let b = text.as_bytes();
    let header = key_label(b, i + BEGIN.len())?;
    let end = ends.after(text, header).unwrap_or(b.len());
    Some(Finding {
        kind: Kind::PrivateKey,
        range: i..end,
    })
}

/// The next private-key END line, remembered so that many BEGIN lines without an END do not
/// search the rest of the text again each (the scan only moves forward).
#[derive(Default)]
struct Ends {
    /// Searched from here: the END found (its start and end), or none at all.
    searched: Option<(usize, Option<(usize, usize)>)>,
}

impl Ends {
    fn after(&mut self, text: &str, from: usize) -> Option<usize> {
        if let Some((at, found)) = self.searched
            && from >= at
            && found.is_none_or(|(start, _)| start >= from)
        {
            return found.map(|(_, end)| end);
        }
        let b = text.as_bytes();
        let mut k = from;
        let found = loop {
            let Some(n) = text.get(k..).and_then(|rest| rest.find(END)) else {
                break None;
            };
            let start = k + n;
            if let Some(end) = key_label(b, start + END.len()) {
                break Some((start, end));
            }
            k = start + 1;
        };
        self.searched = Some((from, found));
        found.map(|(_, end)| end)
    }
}

#[cfg(test)]
#[path = "own_tests.rs"]
mod tests;
