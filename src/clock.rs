//! The one clock megg reads "now" from, and the timestamp formats it reads and writes.
//!
//! `MEGG_NOW=<RFC 3339>` fixes the clock so tests and reproducible runs never depend on the
//! wall clock (SPEC §1).

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Utc};

use crate::error::Error;

/// Environment variable that fixes the clock.
pub const NOW_ENV: &str = "MEGG_NOW";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    now: DateTime<Utc>,
}

impl Clock {
    /// The clock for this process: `MEGG_NOW` when set, else the system time.
    pub fn from_env() -> Result<Self, Error> {
        match std::env::var_os(NOW_ENV) {
            None => Ok(Self::system()),
            Some(raw) => {
                let raw = raw.to_string_lossy();
                match parse_timestamp(&raw) {
                    Some(Parsed { at, exact: true }) => Ok(Self::fixed(at)),
                    _ => Err(Error::usage(format!("invalid {NOW_ENV} value '{raw}'"))
                        .with_hint("use RFC 3339, e.g. MEGG_NOW=2026-01-17T10:30:00Z")),
                }
            }
        }
    }

    pub fn system() -> Self {
        Self { now: Utc::now() }
    }

    pub fn fixed(now: DateTime<Utc>) -> Self {
        Self { now }
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }
}

/// A timestamp read from a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parsed {
    pub at: DateTime<Utc>,
    /// False when the text had no offset (read as UTC; callers warn) or was a date alone.
    pub exact: bool,
}

/// Formats a timestamp the way megg writes them: RFC 3339 UTC, `Z`, second precision.
pub fn format_timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Reads RFC 3339 with an offset (fractional seconds allowed), a date-time without offset
/// (taken as UTC, `exact: false`), or a date alone (00:00 UTC, `exact: true`: a date is a
/// complete statement, not a missing offset).
pub fn parse_timestamp(text: &str) -> Option<Parsed> {
    let text = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(Parsed {
            at: at.with_timezone(&Utc),
            exact: true,
        });
    }
    // RFC 3339 allows a space for `T`; YAML timestamps do too.
    if let Ok(at) = DateTime::parse_from_rfc3339(&text.replacen(' ', "T", 1)) {
        return Some(Parsed {
            at: at.with_timezone(&Utc),
            exact: true,
        });
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, format) {
            return Some(Parsed {
                at: Utc.from_utc_datetime(&naive),
                exact: false,
            });
        }
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(Parsed {
        at: Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0)?),
        exact: true,
    })
}

/// A human age: `45s`, `12m`, `5h`, `52h`, `3d`. Hours up to 72 so that "52 h old" reads
/// the way the 48-hour expiry is stated.
pub fn human_age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..259_200 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn writes_utc_z_second_precision() {
        let t = at("2026-01-17T10:30:00.999+02:00");
        assert_eq!(format_timestamp(t), "2026-01-17T08:30:00Z");
    }

    #[test]
    fn reads_offsets_and_fractions() {
        let p = parse_timestamp("2026-11-22T09:43:11.616Z").unwrap();
        assert!(p.exact);
        assert_eq!(
            p.at,
            at("2026-11-22T09:43:11Z") + chrono::Duration::milliseconds(616)
        );
        let p = parse_timestamp("2026-01-17T12:30:00+02:00").unwrap();
        assert_eq!(p.at, at("2026-01-17T10:30:00Z"));
    }

    #[test]
    fn no_offset_is_utc_but_inexact() {
        let p = parse_timestamp("2026-01-17T10:30:00").unwrap();
        assert_eq!(p.at, at("2026-01-17T10:30:00Z"));
        assert!(!p.exact);
    }

    #[test]
    fn date_alone_is_midnight_utc() {
        let p = parse_timestamp("2026-01-17").unwrap();
        assert_eq!(p.at, at("2026-01-17T00:00:00Z"));
        assert!(p.exact);
    }

    #[test]
    fn garbage_is_none() {
        for s in ["", "yesterday", "2026-13-01", "17/01/2026"] {
            assert!(parse_timestamp(s).is_none(), "{s}");
        }
    }

    #[test]
    fn ages_read_naturally() {
        assert_eq!(human_age(-5), "0s");
        assert_eq!(human_age(59), "59s");
        assert_eq!(human_age(3599), "59m");
        assert_eq!(human_age(52 * 3600), "52h");
        assert_eq!(human_age(8 * 86_400), "8d");
    }
}
