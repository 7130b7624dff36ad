//! A gitleaks rule and the way gitleaks applies it to text without a file name (SPEC §12): a
//! rule runs when one of its keywords is in the text, its regex finds a match, the secret is
//! its secret group (else the first non-empty group, else the match), the secret's Shannon
//! entropy is above the rule's floor (a `generic…` rule's secret also holds a digit), and no
//! allowlist — the global one, then the rule's — passes it.
//!
//! The regexes run as [`Pattern`]s, which search a [`Folded`] text.

use std::ops::Range;
use std::sync::OnceLock;

use super::pattern::{Folded, Pattern, Words};

/// gitleaks' rule, as the generated table holds it.
#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub description: &'static str,
    pub regex: &'static str,
    /// The capture group holding the secret; 0: the first non-empty group, else the match.
    pub secret_group: usize,
    /// The entropy the secret must exceed; 0: none asked.
    pub entropy: f64,
    /// Lower-case words one of which the text must hold for the rule to run.
    pub keywords: &'static [&'static str],
    pub allowlists: &'static [Allowlist],
}

/// Text that passes a finding though a rule matched it.
#[derive(Debug)]
pub struct Allowlist {
    pub condition: Condition,
    pub target: Target,
    pub regexes: &'static [&'static str],
    /// Words that, in the lower-cased secret, pass it.
    pub stopwords: &'static [&'static str],
}

/// Whether one criterion of an allowlist passes a finding, or all of them must.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    Or,
    And,
}

/// What an allowlist's regexes are tried on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Secret,
    Match,
    Line,
}

/// A rule ready to run: its regex and its allowlists, each compiled when first needed.
pub struct Compiled {
    rule: &'static Rule,
    regex: Pattern,
    allowlists: Vec<CompiledAllowlist>,
}

struct CompiledAllowlist {
    list: &'static Allowlist,
    /// Compiled when a match first asks: most rules never match, and the allowlists of the
    /// generic rule alone cost more than its regex.
    regexes: OnceLock<Vec<Pattern>>,
    /// The stopwords by their first byte (the generic rule has some 1,400, tried on the few
    /// secrets it finds: cheaper than building an automaton of them).
    stopwords: OnceLock<Words>,
}

impl CompiledAllowlist {
    fn new(list: &'static Allowlist) -> Self {
        Self {
            list,
            regexes: OnceLock::new(),
            stopwords: OnceLock::new(),
        }
    }

    /// Whether the allowlist passes this finding.
    fn passes(&self, found: &Candidate<'_>) -> bool {
        let target = match self.list.target {
            Target::Secret => found.secret,
            Target::Match => found.whole,
            Target::Line => found.line,
        };
        // The cheap criterion first: the other is asked only when it can still change the answer.
        let stopword = (!self.list.stopwords.is_empty()).then(|| {
            self.stopwords
                .get_or_init(|| Words::new(self.list.stopwords))
                .any_in(found.secret.as_bytes())
        });
        let decided = match (self.list.condition, stopword) {
            (Condition::Or, Some(true)) => Some(true),
            (Condition::And, Some(false)) => Some(false),
            _ => None,
        };
        if let Some(answer) = decided {
            return answer;
        }
        let regex = (!self.list.regexes.is_empty()).then(|| {
            let target = Folded::new(target);
            self.regexes
                .get_or_init(|| {
                    self.list
                        .regexes
                        .iter()
                        .copied()
                        .map(Pattern::test)
                        .collect::<Vec<_>>()
                })
                .iter()
                .any(|r| r.is_match(&target))
        });
        let criteria = [regex, stopword].into_iter().flatten();
        match self.list.condition {
            Condition::Or => criteria.into_iter().any(|c| c),
            Condition::And => {
                let all: Vec<bool> = criteria.collect();
                !all.is_empty() && all.into_iter().all(|c| c)
            }
        }
    }
}

/// What a match offers the allowlists.
struct Candidate<'a> {
    secret: &'a str,
    whole: &'a str,
    line: &'a str,
}

/// The global allowlist, compiled once.
fn global(list: &'static Allowlist) -> &'static CompiledAllowlist {
    static GLOBAL: OnceLock<CompiledAllowlist> = OnceLock::new();
    GLOBAL.get_or_init(|| CompiledAllowlist::new(list))
}

/// Whether gitleaks' global allowlist passes `secret` (`$PASS`, `${VAR}`, `{{ … }}`, `true`).
pub fn global_allows(list: &'static Allowlist, secret: &str) -> bool {
    global(list).passes(&Candidate {
        secret,
        whole: secret,
        line: secret,
    })
}

impl Compiled {
    /// The rule, or `None` when neither engine compiles its regex.
    pub fn new(rule: &'static Rule) -> Option<Self> {
        let regex = Pattern::rule(rule.regex);
        regex.compiles().then(|| Self {
            rule,
            regex,
            allowlists: rule.allowlists.iter().map(CompiledAllowlist::new).collect(),
        })
    }

    /// The byte ranges of this rule's findings in `text` (on character boundaries): the secret,
    /// or the whole match when the secret is shorter than [`MIN_SECRET`].
    pub fn findings(
        &self,
        global_list: &'static Allowlist,
        text: &Folded<'_>,
    ) -> Vec<Range<usize>> {
        let rule = self.rule;
        let mut out = Vec::new();
        for spans in self.regex.captures(text) {
            let Some(Some(whole)) = spans.first().cloned() else {
                continue;
            };
            let secret = if rule.secret_group > 0 {
                spans.get(rule.secret_group).cloned().flatten()
            } else {
                spans
                    .iter()
                    .skip(1)
                    .flatten()
                    .find(|m| !m.is_empty())
                    .cloned()
            }
            .unwrap_or_else(|| whole.clone());
            let (whole, secret) = (text.original(whole), text.original(secret));
            let s = text.text.get(secret.clone()).unwrap_or_default();
            let w = text.text.get(whole.clone()).unwrap_or_default();
            if rule.entropy > 0.0 {
                if entropy(s.as_bytes()) <= rule.entropy {
                    continue;
                }
                if rule.id.starts_with("generic") && !s.bytes().any(|b| b.is_ascii_digit()) {
                    continue;
                }
            }
            let line = lines_around(text.text, whole.clone());
            if line.contains("gitleaks:allow") {
                continue;
            }
            let found = Candidate {
                secret: s,
                whole: w,
                line,
            };
            if global(global_list).passes(&found)
                || self.allowlists.iter().any(|a| a.passes(&found))
            {
                continue;
            }
            out.push(if s.len() < MIN_SECRET { whole } else { secret });
        }
        out
    }
}

/// A secret shorter than this stands for its whole match (SPEC §12).
pub const MIN_SECRET: usize = 12;

/// The lines `range` spans, without their line breaks.
pub(super) fn lines_around(text: &str, range: Range<usize>) -> &str {
    let start = text
        .get(..range.start)
        .and_then(|b| b.rfind('\n'))
        .map_or(0, |i| i + 1);
    let end = text
        .get(range.end..)
        .and_then(|b| b.find('\n'))
        .map_or(text.len(), |i| range.end + i);
    text.get(start..end).unwrap_or_default()
}

/// Shannon entropy as gitleaks computes it: per character, over the length in bytes.
pub fn entropy(secret: &[u8]) -> f64 {
    let text = String::from_utf8_lossy(secret);
    if secret.is_empty() {
        return 0.0;
    }
    let mut counts: Vec<(char, usize)> = Vec::new();
    for c in text.chars() {
        match counts.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c, 1)),
        }
    }
    let len = secret.len() as f64;
    counts.iter().fold(0.0, |e, &(_, n)| {
        let f = n as f64 / len;
        e - f * f.log2()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_is_gitleaks_shannon() {
        assert_eq!(entropy(b""), 0.0);
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert!((entropy(b"ab") - 1.0).abs() < 1e-9);
        assert!((entropy(b"abcd") - 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_lines_around_a_range() {
        let t = "one\ntwo three\nfour";
        assert_eq!(lines_around(t, 4..7), "two three");
        assert_eq!(lines_around(t, 0..3), "one");
        assert_eq!(lines_around(t, 8..16), "two three\nfour");
    }
}
