//! The `.<slug>.local.md` file (SPEC §2.4): which files are checkpoints, reading one, the bytes
//! of a new one, and edits that touch only the keys and item marks megg sets.

use chrono::{DateTime, Utc};

use super::lifecycle::Phase;
use crate::clock::{format_timestamp, parse_timestamp};
use crate::frontmatter;

/// One `- [ ]` / `- [x]` line of the progress list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub text: String,
    pub done: bool,
}

/// A checkpoint as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub feature: String,
    pub plan_file: String,
    /// The `phase:` text as written: usually a [`Phase`], but an unknown one is kept as it is
    /// (and warned about) rather than lost.
    pub phase: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub started: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    pub items: Vec<Item>,
}

impl Checkpoint {
    /// The saved phase when megg knows it.
    pub fn known_phase(&self) -> Option<Phase> {
        self.phase.as_deref().and_then(Phase::parse)
    }
}

/// What a `.*.local.md` file is to megg.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Checkpoint(Checkpoint),
    /// Another plugin's file: listed as ignored, never touched.
    NotOurs,
    /// Frontmatter that names a checkpoint but does not parse.
    Corrupt(String),
}

/// Classifies a `.*.local.md` file's text (SPEC §2.4).
pub fn classify(text: &str) -> Kind {
    let split = frontmatter::split(text);
    let Some(yaml) = split.yaml else {
        return Kind::NotOurs;
    };
    let names_checkpoint = yaml.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("feature:") || l.starts_with("plan_file:")
    });
    let fields = match frontmatter::parse(yaml) {
        Ok(f) => f,
        Err(e) if names_checkpoint => return Kind::Corrupt(format!("invalid YAML: {e}")),
        Err(_) => return Kind::NotOurs,
    };
    if !(fields.contains("feature") && fields.contains("plan_file")) {
        return Kind::NotOurs;
    }
    let (Some(feature), Some(plan_file)) = (fields.get_str("feature"), fields.get_str("plan_file"))
    else {
        return Kind::Corrupt("`feature` and `plan_file` must be text".into());
    };
    let time = |key: &str| {
        fields
            .get_str(key)
            .and_then(|v| parse_timestamp(&v))
            .map(|p| p.at)
    };
    Kind::Checkpoint(Checkpoint {
        feature,
        plan_file,
        phase: fields.get_str("phase").filter(|p| !p.is_empty()),
        branch: fields.get_str("branch").filter(|b| !b.is_empty()),
        head: fields.get_str("head").filter(|h| !h.is_empty()),
        started: time("started"),
        updated: time("updated"),
        items: parse_items(split.body),
    })
}

/// The checklist lines of a body.
pub fn parse_items(body: &str) -> Vec<Item> {
    body.lines().filter_map(item_of).collect()
}

fn item_of(line: &str) -> Option<Item> {
    let rest = line.trim_start().strip_prefix("- [")?;
    let (mark, text) = rest.split_at_checked(1)?;
    let text = text.strip_prefix("] ")?;
    let done = match mark {
        "x" | "X" => true,
        " " => false,
        _ => return None,
    };
    Some(Item {
        text: text.trim_end().to_string(),
        done,
    })
}

/// The index of the first item whose text starts with `query`, case-insensitively.
pub fn match_item(items: &[Item], query: &str) -> Option<usize> {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return None;
    }
    items
        .iter()
        .position(|i| i.text.to_lowercase().starts_with(&q))
}

/// The bytes of a new checkpoint.
pub fn render_new(
    feature: &str,
    plan_file: &str,
    phase: Phase,
    branch: &str,
    head: &str,
    now: DateTime<Utc>,
) -> String {
    let mut yaml = String::new();
    for (key, value) in [
        ("feature", feature),
        ("plan_file", plan_file),
        ("phase", phase.as_str()),
        ("branch", branch),
        ("head", head),
    ] {
        yaml = frontmatter::set(&yaml, key, value, "\n");
    }
    crate::templates::fill(
        crate::templates::CHECKPOINT,
        &[
            ("frontmatter", &yaml),
            ("now", &format_timestamp(now)),
            ("plan_file", plan_file),
        ],
    )
}

/// Changes to an existing checkpoint; `None` leaves a key as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub plan_file: Option<String>,
    pub phase: Option<Phase>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub updated: Option<DateTime<Utc>>,
    pub check: Vec<usize>,
    pub uncheck: Vec<usize>,
}

/// Applies `changes` to a checkpoint's text, touching only those keys and item marks.
pub fn edit(text: &str, changes: &Changes) -> String {
    let split = frontmatter::split(text);
    let Some(mut yaml) = split.yaml.map(str::to_string) else {
        return text.to_string();
    };
    let nl = split.newline;
    for (key, value) in [
        ("plan_file", changes.plan_file.as_deref()),
        ("phase", changes.phase.map(Phase::as_str)),
        ("branch", changes.branch.as_deref()),
        ("head", changes.head.as_deref()),
    ] {
        if let Some(v) = value {
            yaml = frontmatter::set(&yaml, key, v, nl);
        }
    }
    if let Some(at) = changes.updated {
        yaml = frontmatter::set(&yaml, "updated", &format_timestamp(at), nl);
    }
    let mut body = String::with_capacity(split.body.len());
    let mut index = 0;
    for line in split.body.split_inclusive('\n') {
        if item_of(line).is_some() {
            let mark = if changes.check.contains(&index) {
                Some('x')
            } else if changes.uncheck.contains(&index) {
                Some(' ')
            } else {
                None
            };
            index += 1;
            // An item's line is `- [`, one ASCII mark, `] …` after its indent.
            if let Some(m) = mark
                && let Some((indent, after)) = line.split_once("- [")
                && let Some((_, rest)) = after.split_at_checked(1)
            {
                body.push_str(indent);
                body.push_str("- [");
                body.push(m);
                body.push_str(rest);
                continue;
            }
        }
        body.push_str(line);
    }
    frontmatter::join(&yaml, &body, nl)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    const PLAN: &str = "docs/plans/2026-01-15-feat-user-authentication-flow-plan.md";

    #[test]
    fn new_checkpoint_has_the_seed_format() {
        let text = render_new(
            "user-authentication-flow",
            PLAN,
            Phase::PlanComplete,
            "",
            "",
            at("2026-01-15T10:30:00Z"),
        );
        assert_eq!(
            text,
            format!(
                "---\nfeature: user-authentication-flow\nplan_file: {PLAN}\nphase: plan-complete\nbranch: \"\"\nhead: \"\"\nstarted: 2026-01-15T10:30:00Z\nupdated: 2026-01-15T10:30:00Z\n---\n## Progress\n- [x] Plan created: {PLAN}\n- [ ] Branch created\n- [ ] Implementation\n- [ ] Tests passing\n- [ ] Review complete\n- [ ] Compound documented\n"
            )
        );
        let Kind::Checkpoint(cp) = classify(&text) else {
            panic!()
        };
        assert_eq!(cp.feature, "user-authentication-flow");
        assert_eq!(cp.known_phase(), Some(Phase::PlanComplete));
        assert_eq!(cp.branch, None);
        assert_eq!(cp.items.len(), 6);
        assert!(cp.items[0].done && !cp.items[1].done);
    }

    #[test]
    fn an_unknown_phase_is_kept_as_written() {
        let Kind::Checkpoint(cp) =
            classify("---\nfeature: x\nplan_file: p.md\nphase: shipping\n---\n")
        else {
            panic!()
        };
        assert_eq!(cp.phase.as_deref(), Some("shipping"));
        assert_eq!(cp.known_phase(), None);
    }

    #[test]
    fn classification() {
        assert_eq!(classify("no frontmatter"), Kind::NotOurs);
        assert_eq!(classify("---\nsetting: true\n---\nbody"), Kind::NotOurs);
        assert_eq!(classify("---\n: [bad\n---\n"), Kind::NotOurs);
        assert!(matches!(
            classify("---\nfeature: x\nplan_file: [bad\n---\n"),
            Kind::Corrupt(_)
        ));
        assert!(matches!(
            classify("---\nfeature: [a]\nplan_file: p.md\n---\n"),
            Kind::Corrupt(_)
        ));
        assert!(matches!(
            classify("---\nfeature: x\nplan_file: p.md\n---\n"),
            Kind::Checkpoint(_)
        ));
    }

    #[test]
    fn edit_touches_only_what_changes() {
        let text = "---\nfeature: f\n# a comment\nplan_file: p.md\nphase: plan-complete\ncustom: keep\nupdated: 2026-01-15T10:30:00.123Z\nstarted: 2026-01-15T10:30:00.123Z\n---\n## Progress\n- [x] Plan created: p.md\n- [ ] Branch created\n- [ ] Tests passing\n\nNotes stay.\n";
        let items = parse_items(frontmatter::split(text).body);
        let out = edit(
            text,
            &Changes {
                phase: Some(Phase::Work),
                updated: Some(at("2026-01-16T00:00:00Z")),
                check: vec![match_item(&items, "tests PASS").unwrap()],
                uncheck: vec![0],
                ..Changes::default()
            },
        );
        assert_eq!(
            out,
            "---\nfeature: f\n# a comment\nplan_file: p.md\nphase: work\ncustom: keep\nupdated: 2026-01-16T00:00:00Z\nstarted: 2026-01-15T10:30:00.123Z\n---\n## Progress\n- [ ] Plan created: p.md\n- [ ] Branch created\n- [x] Tests passing\n\nNotes stay.\n"
        );
    }

    #[test]
    fn edit_marks_indented_multi_byte_items() {
        let text = "---\nfeature: f\n---\n  - [ ] Café — ☕\n\t- [x] ünïcode - [ ] inside\n";
        let out = edit(
            text,
            &Changes {
                check: vec![0],
                uncheck: vec![1],
                ..Changes::default()
            },
        );
        assert_eq!(
            out,
            "---\nfeature: f\n---\n  - [x] Café — ☕\n\t- [ ] ünïcode - [ ] inside\n"
        );
    }

    #[test]
    fn item_matching() {
        let items = parse_items("- [ ] Branch created\n- [X] Tests passing\n* not an item\n");
        assert_eq!(items.len(), 2);
        assert!(items[1].done);
        assert_eq!(match_item(&items, "branch"), Some(0));
        assert_eq!(match_item(&items, "nope"), None);
        assert_eq!(match_item(&items, " "), None);
    }
}
