//! The feature slug of a plan file (SPEC §2.4): what names its `.<slug>.local.md` checkpoint.

/// The slug of `plan_file`, or `None` when nothing is left (an empty slug is an error).
/// The result only ever holds `[a-z0-9-]`, so it can never name a path outside the root.
pub fn slug(plan_file: &str) -> Option<String> {
    let base = plan_file.rsplit(['/', '\\']).next().unwrap_or(plan_file);
    let mut s = base.strip_suffix(".md").unwrap_or(base);
    if let Some(rest) = strip_date(s) {
        s = rest;
        // An optional `NNN-` sequence or `HHMM-` time after the date.
        if let Some(rest) = strip_digits_dash(s, 3).or_else(|| strip_digits_dash(s, 4)) {
            s = rest;
        }
    }
    for kind in ["feat-", "fix-", "refactor-"] {
        if let Some(rest) = s.strip_prefix(kind) {
            s = rest;
            break;
        }
    }
    let owned;
    if let Some(rest) = s.strip_suffix("-plan") {
        s = rest;
    } else if let Some((head, n)) = s.rsplit_once("-plan-")
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        owned = format!("{head}-{n}");
        s = &owned;
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-').to_string();
    (!out.is_empty()).then_some(out)
}

/// The checkpoint file name for a slug.
pub fn file_name(slug: &str) -> String {
    format!(".{slug}.local.md")
}

/// `s` without a leading `YYYY-MM-DD-`.
fn strip_date(s: &str) -> Option<&str> {
    let (date, rest) = s.split_at_checked(11)?;
    let ok = !rest.is_empty()
        && date.bytes().enumerate().all(|(i, c)| match i {
            4 | 7 | 10 => c == b'-',
            _ => c.is_ascii_digit(),
        });
    ok.then_some(rest)
}

/// `s` without a leading run of exactly `n` digits and a `-`.
fn strip_digits_dash(s: &str, n: usize) -> Option<&str> {
    let (head, rest) = s.split_at_checked(n + 1)?;
    let digits = head.strip_suffix('-')?;
    (!rest.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(rest)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn the_spec_table() {
        for (plan, want) in [
            (
                "docs/plans/2026-01-15-feat-user-authentication-flow-plan.md",
                "user-authentication-flow",
            ),
            (
                "docs/plans/2026-03-08-001-fix-login-redirect-plan.md",
                "login-redirect",
            ),
            (
                "plans/2026-08-13-1405-refactor-db-layer-plan.md",
                "db-layer",
            ),
            ("docs/plans/2026-01-15-feat-search-plan-2.md", "search-2"),
            ("notes/My Big_Idea.md", "my-big-idea"),
        ] {
            assert_eq!(slug(plan).as_deref(), Some(want), "{plan}");
        }
    }

    #[test]
    fn prefixes_only_come_off_in_order_and_once() {
        assert_eq!(slug("feat-fix-x-plan.md").as_deref(), Some("fix-x"));
        assert_eq!(slug("2026-01-15-x.md").as_deref(), Some("x"));
        // A sequence needs a date before it.
        assert_eq!(slug("001-thing.md").as_deref(), Some("001-thing"));
        assert_eq!(slug("2026-01-15-12-x.md").as_deref(), Some("12-x"));
        assert_eq!(slug("plan.md").as_deref(), Some("plan"));
        assert_eq!(slug("x-plan-v2.md").as_deref(), Some("x-plan-v2"));
    }

    #[test]
    fn hostile_names_cannot_escape() {
        for plan in [
            "../../etc/passwd.md",
            "a/../../..md",
            "..",
            "x/.hidden.md",
            "É t é.md",
        ] {
            if let Some(s) = slug(plan) {
                assert!(
                    s.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                    "{plan} -> {s}"
                );
                assert!(!s.starts_with('-') && !s.ends_with('-'));
            }
        }
        assert_eq!(slug("../../etc/passwd.md").as_deref(), Some("passwd"));
        assert_eq!(slug("..").as_deref(), None);
        assert_eq!(slug("---.md"), None);
        assert_eq!(slug("2026-01-15-feat--plan.md"), None);
    }

    #[test]
    fn multi_byte_characters_where_a_date_or_sequence_would_be() {
        assert_eq!(slug("2026-01-1é-x.md").as_deref(), Some("2026-01-1-x"));
        assert_eq!(slug("2026-01-15-00é-x.md").as_deref(), Some("00-x"));
        assert_eq!(slug("2026-01-15-é.md"), None);
        assert_eq!(slug("é").as_deref(), None);
        assert_eq!(slug("2026-01-15-1234é.md").as_deref(), Some("1234"));
    }

    #[test]
    fn file_names() {
        assert_eq!(file_name("db-layer"), ".db-layer.local.md");
    }
}
