//! `state.md`: the ephemeral handoff (SPEC §2.3) — reading, the expiry rule, and the file
//! megg writes.

use chrono::{DateTime, Duration, Utc};

use crate::clock::{format_timestamp, parse_timestamp};
use crate::frontmatter;

/// Most bytes of a `state.md` (or a capture) read; a longer one is cut (its content holds
/// 2,000 tokens).
pub const MAX_STATE_BYTES: u64 = 64 * 1024;
/// Most tokens a state's content may have.
pub const MAX_TOKENS: usize = 2_000;
/// A state older than this is expired; exactly this old is still active (SPEC §2.3), unless
/// the domain sets its own [`Lifetime`].
pub const EXPIRES_AFTER: Duration = Duration::hours(48);

/// The `info.md` frontmatter key a domain sets its handoffs' lifetime with
/// (`state_expires_after: 7d`).
pub const LIFETIME_KEY: &str = "state_expires_after";

/// How long a handoff stays active: [`EXPIRES_AFTER`] unless the domain's `info.md` says
/// otherwise ([`LIFETIME_KEY`]), within [`Lifetime::SHORTEST`] and [`Lifetime::LONGEST`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetime(Duration);

impl Default for Lifetime {
    fn default() -> Self {
        Self(EXPIRES_AFTER)
    }
}

impl Lifetime {
    /// An hour: a handoff is for the next session, not the next minute.
    pub const SHORTEST: Duration = Duration::hours(1);
    /// Ninety days: past that, what a handoff says is history (`megg show` still reads it).
    pub const LONGEST: Duration = Duration::days(90);

    /// `72h`, `7d` (a whole number of hours or days, spaces and case aside), within
    /// [`Self::SHORTEST`]..=[`Self::LONGEST`]; `Err` says what is accepted.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim().to_ascii_lowercase();
        let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
        let n: i64 = digits.parse().map_err(|_| Self::accepted(text))?;
        let d = match unit.trim() {
            "h" => Duration::try_hours(n),
            "d" => Duration::try_days(n),
            _ => None,
        }
        .ok_or_else(|| Self::accepted(text))?;
        if d < Self::SHORTEST || d > Self::LONGEST {
            return Err(Self::accepted(text));
        }
        Ok(Self(d))
    }

    fn accepted(text: &str) -> String {
        format!(
            "`{LIFETIME_KEY}: {}` is not a lifetime megg accepts (whole hours or days from 1h to 90d, like 72h or 7d); handoffs expire after {}",
            text.trim(),
            Self::default()
        )
    }

    pub fn duration(self) -> Duration {
        self.0
    }
}

impl std::fmt::Display for Lifetime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hours = self.0.num_hours();
        if hours % 24 == 0 && hours > 48 {
            write!(f, "{} days", hours / 24)
        } else {
            write!(f, "{hours} h")
        }
    }
}

/// A `state.md` as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDoc {
    pub status: Option<String>,
    pub updated: Option<DateTime<Utc>>,
    /// `updated` exactly as written, for display.
    pub updated_raw: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// `auto` for a capture (SPEC §10); `None` (manual) when absent.
    pub source: Option<String>,
    /// The session a capture came from.
    pub session: Option<String>,
    /// The domain directory a capture was taken for.
    pub domain: Option<String>,
    /// The content as the caller gave it (the body without the blank line after the fence).
    pub content: String,
    pub warnings: Vec<String>,
}

impl StateDoc {
    /// What recall knows this handoff by (SPEC §13.2): its time and session, so `megg show`
    /// finds it under the same id wherever a copy of it is kept.
    pub fn recall_key(&self) -> String {
        format!(
            "{}\n{}",
            self.updated_raw.as_deref().unwrap_or(""),
            self.session.as_deref().unwrap_or("")
        )
    }
}

/// Why a state is not active.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    Active,
    Done,
    /// Older than its lifetime: the age in seconds, and the lifetime.
    Stale(i64, Lifetime),
    /// `updated` missing or unreadable.
    Undated,
    /// `updated` more than [`FUTURE_TOLERANCE`] after now (a clock or edit error); the date.
    Future(DateTime<Utc>),
}

/// How far in the future `updated` may be before the state counts as expired: clocks drift
/// a little, but a date far ahead would keep a state alive forever.
pub const FUTURE_TOLERANCE: Duration = Duration::hours(1);

impl Expiry {
    pub fn is_active(self) -> bool {
        self == Expiry::Active
    }

    /// Why an expired state is not loaded, for people.
    pub fn reason(self) -> Option<String> {
        match self {
            Expiry::Active => None,
            Expiry::Done => Some("marked done".into()),
            Expiry::Stale(age, after) => {
                Some(format!("{} h old; states expire after {after}", age / 3600))
            }
            Expiry::Undated => Some("it has no valid `updated` timestamp".into()),
            Expiry::Future(at) => Some(format!(
                "its `updated` ({}) is more than an hour in the future, a clock or edit error",
                format_timestamp(at)
            )),
        }
    }
}

/// Reads a state file. Never fails: a file megg cannot make sense of reads as an undated,
/// hence expired, state with a warning, and is left as it is.
pub fn parse(text: &str, path: &str) -> StateDoc {
    let split = frontmatter::split(text);
    let mut doc = StateDoc {
        status: None,
        updated: None,
        updated_raw: None,
        branch: None,
        head: None,
        source: None,
        session: None,
        domain: None,
        content: String::new(),
        warnings: Vec::new(),
    };
    let body = split.body;
    doc.content = body
        .strip_prefix("\r\n")
        .or_else(|| body.strip_prefix('\n'))
        .unwrap_or(body)
        .to_string();
    let Some(yaml) = split.yaml else {
        doc.warnings
            .push(format!("{path} has no frontmatter; treating it as expired"));
        return doc;
    };
    let fields = match frontmatter::parse(yaml) {
        Ok(f) => f,
        Err(e) => {
            doc.warnings.push(format!(
                "{path} has invalid frontmatter ({e}); treating it as expired"
            ));
            return doc;
        }
    };
    doc.status = fields.get_str("status");
    doc.branch = fields.get_str("branch").filter(|b| !b.is_empty());
    doc.head = fields.get_str("head").filter(|h| !h.is_empty());
    doc.source = fields.get_str("source").filter(|s| !s.is_empty());
    doc.session = fields.get_str("session").filter(|s| !s.is_empty());
    doc.domain = fields.get_str("domain").filter(|s| !s.is_empty());
    doc.updated_raw = fields.get_str("updated");
    if let Some(raw) = &doc.updated_raw {
        match parse_timestamp(raw) {
            Some(p) => {
                doc.updated = Some(p.at);
                if !p.exact {
                    doc.warnings.push(format!(
                        "{path}: `updated: {raw}` has no time zone; read as UTC"
                    ));
                }
            }
            None => doc
                .warnings
                .push(format!("{path}: `updated: {raw}` is not a timestamp")),
        }
    }
    if let Some(s) = &doc.status
        && s != "active"
        && s != "done"
    {
        doc.warnings.push(format!(
            "{path}: unknown status '{s}' (expected active or done); treated as active"
        ));
    }
    doc
}

/// The expiry rule with SPEC §2.3's 48 hours: done, undated, more than 48 hours old, or more
/// than an hour ahead.
pub fn expiry(doc: &StateDoc, now: DateTime<Utc>) -> Expiry {
    expiry_within(doc, now, Lifetime::default())
}

/// The expiry rule for a domain whose handoffs live `lifetime`: done, undated, older than it,
/// or more than an hour ahead.
pub fn expiry_within(doc: &StateDoc, now: DateTime<Utc>, lifetime: Lifetime) -> Expiry {
    if doc.status.as_deref() == Some("done") {
        return Expiry::Done;
    }
    let Some(updated) = doc.updated else {
        return Expiry::Undated;
    };
    let age = now - updated;
    if age > lifetime.0 {
        Expiry::Stale(age.num_seconds(), lifetime)
    } else if -age > FUTURE_TOLERANCE {
        Expiry::Future(updated)
    } else {
        Expiry::Active
    }
}

/// The bytes of a new `state.md` written by hand (CLI, skill, MCP): no `source` key, which
/// reads as `manual` (and is what the TypeScript megg writes).
pub fn render(
    content: &str,
    now: DateTime<Utc>,
    branch: Option<&str>,
    head: Option<&str>,
) -> String {
    render_from(content, now, branch, head, None)
}

/// The bytes of a `state.md`; with `session`, one captured automatically from that session
/// for that domain's directory (`source: auto`, `session: <id>`, `domain: <dir>`, SPEC §2.3,
/// §10).
pub fn render_from(
    content: &str,
    now: DateTime<Utc>,
    branch: Option<&str>,
    head: Option<&str>,
    session: Option<(&str, &std::path::Path)>,
) -> String {
    let mut git = String::new();
    if let Some(b) = branch {
        git = frontmatter::set(&git, "branch", b, "\n");
    }
    if let Some(h) = head {
        git = frontmatter::set(&git, "head", h, "\n");
    }
    if let Some((id, domain)) = session {
        git = frontmatter::set(&git, "source", "auto", "\n");
        git = frontmatter::set(&git, "session", id, "\n");
        git = frontmatter::set(&git, "domain", &domain.display().to_string(), "\n");
    }
    crate::templates::fill(
        crate::templates::STATE,
        &[
            ("updated", &format_timestamp(now)),
            ("git", &git),
            ("content", content),
        ],
    )
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    const TS_STATE: &str = "---\nupdated: 2026-11-22T09:43:11.616Z\nstatus: active\n---\n\n## Working On\nCheckout redesign\n\n## Context\nFiles: api/src/cart.rs";

    #[test]
    fn reads_the_typescript_format() {
        let d = parse(TS_STATE, "state.md");
        assert_eq!(d.status.as_deref(), Some("active"));
        assert_eq!(d.updated_raw.as_deref(), Some("2026-11-22T09:43:11.616Z"));
        assert!(d.content.starts_with("## Working On\n"));
        assert!(d.content.ends_with("cart.rs"));
        assert_eq!(d.branch, None);
        assert!(d.warnings.is_empty());
    }

    #[test]
    fn expiry_boundary_is_exactly_48_hours() {
        let d = parse(&render("x", at("2026-01-17T10:30:00Z"), None, None), "s");
        assert_eq!(expiry(&d, at("2026-01-19T10:30:00Z")), Expiry::Active);
        assert_eq!(
            expiry(&d, at("2026-01-19T10:30:01Z")),
            Expiry::Stale(48 * 3600 + 1, Lifetime::default())
        );
        assert_eq!(expiry(&d, at("2026-01-17T10:30:00Z")), Expiry::Active);
    }

    #[test]
    fn done_and_undated_are_expired() {
        let mut d = parse(TS_STATE, "s");
        d.status = Some("done".into());
        assert_eq!(expiry(&d, at("2026-11-22T10:00:00Z")), Expiry::Done);
        let d = parse("---\nstatus: active\n---\nx", "s");
        assert_eq!(expiry(&d, at("2026-11-22T10:00:00Z")), Expiry::Undated);
        let d = parse("---\nupdated: [broken\n---\nx", "s");
        assert_eq!(d.warnings.len(), 1);
        assert_eq!(expiry(&d, at("2026-11-22T10:00:00Z")), Expiry::Undated);
    }

    #[test]
    fn render_round_trips_content_and_git_fields() {
        let text = render(
            "## Working On\nA\n",
            at("2026-01-17T10:30:00Z"),
            Some("yes"),
            Some("abc"),
        );
        assert!(text.starts_with("---\nupdated: 2026-01-17T10:30:00Z\nstatus: active\nbranch: \"yes\"\nhead: abc\n---\n\n"));
        let d = parse(&text, "s");
        assert_eq!(d.content, "## Working On\nA\n");
        assert_eq!(d.branch.as_deref(), Some("yes"));
        assert_eq!(d.head.as_deref(), Some("abc"));
    }

    #[test]
    fn empty_branch_values_are_no_branch() {
        for b in ["branch: \"\"", "branch: null", "branch:"] {
            let d = parse(
                &format!("---\nupdated: 2026-01-17T10:30:00Z\n{b}\n---\nx"),
                "s",
            );
            assert_eq!(d.branch, None, "{b}");
        }
    }
}
