//! Workflow checkpoints `.<slug>.local.md` (SPEC §2.4, §4): which files are ours, their format,
//! staleness tiers, the resume options, and edits that touch only what megg sets.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::clock::{format_timestamp, parse_timestamp};
use crate::frontmatter;
use crate::fsx::{self, Boundary};
use crate::git::{Divergence, Repo};

/// The lifecycle phases, in order.
pub const PHASES: [&str; 6] = [
    "plan-complete",
    "work",
    "work-complete",
    "review",
    "review-complete",
    "compound",
];

/// The workflow commands `--for` accepts.
pub const COMMANDS: [&str; 4] = ["plan", "work", "review", "compound"];

/// The default checklist after the plan line.
pub const DEFAULT_ITEMS: [&str; 5] = [
    "Branch created",
    "Implementation",
    "Tests passing",
    "Review complete",
    "Compound documented",
];

/// Whether `phase` is one megg knows.
pub fn is_known_phase(phase: &str) -> bool {
    PHASES.contains(&phase)
}

/// Position of a phase in the lifecycle.
pub fn phase_rank(phase: &str) -> Option<usize> {
    PHASES.iter().position(|p| *p == phase)
}

/// The command a saved phase belongs to (SPEC §4.4 "phase mismatch").
pub fn phase_command(phase: &str) -> Option<&'static str> {
    match phase {
        "plan-complete" | "work" => Some("work"),
        "work-complete" | "review" => Some("review"),
        "review-complete" | "compound" => Some("compound"),
        _ => None,
    }
}

/// One `- [ ]` / `- [x]` line of the progress list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub text: String,
    pub done: bool,
}

/// A checkpoint as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub feature: String,
    pub plan_file: String,
    pub phase: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub started: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    pub items: Vec<Item>,
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
    phase: &str,
    branch: &str,
    head: &str,
    now: DateTime<Utc>,
) -> String {
    let mut yaml = String::new();
    for (key, value) in [
        ("feature", feature),
        ("plan_file", plan_file),
        ("phase", phase),
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
    pub phase: Option<String>,
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
        ("plan_file", &changes.plan_file),
        ("phase", &changes.phase),
        ("branch", &changes.branch),
        ("head", &changes.head),
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
            if let Some(m) = mark
                && let Some(open) = line.find("- [")
            {
                let at = open + 3;
                body.push_str(&line[..at]);
                body.push(m);
                body.push_str(&line[at + 1..]);
                continue;
            }
        }
        body.push_str(line);
    }
    frontmatter::join(&yaml, &body, nl)
}

/// How old a checkpoint is, as SPEC §4.4's tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Staleness {
    Fresh,
    Recent,
    Stale,
    Abandoned,
}

impl Staleness {
    /// The tier of an age; `None` (no valid `updated`) is abandoned.
    pub fn of(age: Option<Duration>) -> Self {
        match age {
            None => Staleness::Abandoned,
            Some(a) if a < Duration::hours(24) => Staleness::Fresh,
            Some(a) if a <= Duration::days(7) => Staleness::Recent,
            Some(a) if a <= Duration::days(30) => Staleness::Stale,
            Some(_) => Staleness::Abandoned,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Staleness::Fresh => "fresh",
            Staleness::Recent => "recent",
            Staleness::Stale => "stale",
            Staleness::Abandoned => "abandoned",
        }
    }
}

/// One answer to the resume question, shaped for AskUserQuestion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Opt {
    pub id: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    pub recommended: bool,
}

const fn opt(
    id: &'static str,
    label: &'static str,
    description: &'static str,
    recommended: bool,
) -> Opt {
    Opt {
        id,
        label,
        description,
        recommended,
    }
}

/// The options for a checkpoint, recommended first (SPEC §4.4).
pub fn options(tier: Staleness, plan_exists: bool) -> Vec<Opt> {
    let resume = "Resume from where you left off";
    let fresh = "Discard the saved progress and start over";
    let view = "View the saved state before deciding";
    if !plan_exists {
        return vec![
            opt("fresh", "Start fresh", fresh, true),
            opt(
                "new-path",
                "Enter a new path",
                "Point the saved state at the plan's new location",
                false,
            ),
            opt("view", "View", view, false),
        ];
    }
    match tier {
        Staleness::Fresh => vec![
            opt("resume", "Resume", resume, true),
            opt("fresh", "Start fresh", fresh, false),
            opt("view", "View", view, false),
        ],
        Staleness::Recent | Staleness::Stale => vec![
            opt("resume", "Resume", resume, false),
            opt("fresh", "Start fresh", fresh, false),
            opt("view", "View", view, false),
        ],
        Staleness::Abandoned => vec![
            opt("fresh", "Start fresh", fresh, true),
            opt("resume", "Resume anyway", resume, false),
            opt("view", "View", view, false),
        ],
    }
}

/// A checkpoint file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub root: PathBuf,
    pub file: String,
    pub path: PathBuf,
    pub checkpoint: Checkpoint,
}

/// Everything a scan of the roots found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    pub checkpoints: Vec<Found>,
    /// (path, error)
    pub corrupt: Vec<(PathBuf, String)>,
    pub ignored: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// Most bytes of a checkpoint read (SPEC §9).
pub const MAX_CHECKPOINT_BYTES: u64 = 1024 * 1024;
/// Most `.*.local.md` files read from one root: a listing stays bounded whatever the
/// repository holds.
pub const MAX_SCANNED: usize = 1_000;

/// Scans each root for `.*.local.md` (not recursive). Newest `updated` first.
pub fn scan(roots: &[PathBuf]) -> Scan {
    let mut scan = Scan::default();
    for root in roots {
        let b = Boundary::new(root, "the project");
        let Ok(entries) = fsx::list(&b, root) else {
            scan.warnings
                .push(format!("cannot read {}", root.display()));
            continue;
        };
        let mut names: Vec<String> = entries
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .filter(|n| {
                n.starts_with('.') && n.ends_with(".local.md") && n.len() > ".local.md".len() + 1
            })
            .collect();
        names.sort();
        if names.len() > MAX_SCANNED {
            scan.warnings.push(format!(
                "{} holds {} .*.local.md files; read only the first {MAX_SCANNED}",
                root.display(),
                names.len()
            ));
            names.truncate(MAX_SCANNED);
        }
        for name in names {
            let path = root.join(&name);
            let text = match fsx::read_text(&b, &path, MAX_CHECKPOINT_BYTES) {
                Ok(Some(t)) if t.truncated => {
                    scan.warnings.push(format!(
                        "skipped {}: over the {MAX_CHECKPOINT_BYTES}-byte limit",
                        path.display()
                    ));
                    continue;
                }
                Ok(Some(t)) => t.text,
                Ok(None) => continue,
                Err(e) => {
                    scan.warnings.push(e.message);
                    continue;
                }
            };
            match classify(&text) {
                Kind::Checkpoint(checkpoint) => scan.checkpoints.push(Found {
                    root: root.clone(),
                    file: name,
                    path,
                    checkpoint,
                }),
                Kind::NotOurs => scan.ignored.push(path),
                Kind::Corrupt(e) => scan.corrupt.push((path, e)),
            }
        }
    }
    scan.checkpoints.sort_by(|a, b| {
        b.checkpoint
            .updated
            .cmp(&a.checkpoint.updated)
            .then(a.file.cmp(&b.file))
    });
    scan
}

/// Moves a corrupt checkpoint out of discovery, keeping its bytes: under
/// `.git/megg/quarantine/` inside git, else renamed `<name>.corrupt`. Returns where it went.
pub fn quarantine(path: &Path, repo: Option<&Repo>, now: DateTime<Utc>) -> crate::Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let dir = path.parent().unwrap_or(Path::new("/"));
    let from = Boundary::new(dir, "the project");
    match repo {
        Some(r) => {
            let common = r.common_dir();
            let git = Boundary::new(&common, "the git directory");
            let to = common.join("megg/quarantine");
            fsx::move_unique(&from, path, &git, &to, &format!("{name}.{stamp}"))
        }
        None => fsx::move_unique(&from, path, &from, dir, &format!("{name}.corrupt")),
    }
}

/// The `<checkpoint>` JSON object of SPEC §4.2.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub file: String,
    pub path: PathBuf,
    /// The project root the file lives in (the main worktree's, when found from a linked one).
    pub root: PathBuf,
    pub feature: String,
    pub plan_file: String,
    pub plan_exists: bool,
    pub phase: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub started: Option<String>,
    pub updated: Option<String>,
    pub age_seconds: Option<i64>,
    pub age_days: Option<i64>,
    pub staleness: Staleness,
    pub progress: Progress,
    pub divergence: Option<Divergence>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub items: Vec<Item>,
}

/// Describes a found checkpoint at `now`, with its divergence when `repo` is given. Warnings
/// for the age, the branch and an unknown phase go to `warnings`.
pub fn describe(
    found: &Found,
    now: DateTime<Utc>,
    repo: Option<&Repo>,
    warnings: &mut Vec<String>,
) -> View {
    let cp = &found.checkpoint;
    let raw_age = cp.updated.map(|u| now - u);
    if raw_age.is_some_and(|a| a < Duration::zero()) {
        warnings.push(format!(
            "'{}' was updated in the future ({}); treating its age as 0",
            found.file,
            cp.updated.map(format_timestamp).unwrap_or_default()
        ));
    }
    let age = raw_age.map(|a| a.max(Duration::zero()));
    let tier = Staleness::of(age);
    if matches!(tier, Staleness::Stale | Staleness::Abandoned) {
        warnings.push(match age {
            Some(a) => format!(
                "This state is {} days old and may be outdated",
                a.num_days()
            ),
            None => format!(
                "This state has no valid `updated` time ('{}') and may be outdated",
                found.file
            ),
        });
    }
    if let Some(p) = &cp.phase
        && !is_known_phase(p)
    {
        warnings.push(format!(
            "'{}' has an unknown phase '{p}' (kept as it is)",
            found.file
        ));
    }
    let divergence = match (&cp.branch, repo) {
        (Some(b), Some(r)) => r.divergence(
            b,
            cp.head.as_deref(),
            cp.updated.unwrap_or(now),
            crate::git::WALK_CAP,
        ),
        _ => None,
    };
    if let (Some(d), Some(b)) = (&divergence, &cp.branch) {
        match d.branch_exists {
            Some(false) => warnings.push(format!("Branch '{b}' no longer exists")),
            None => warnings.push(format!(
                "Branch '{b}' not found here (it may exist only on a remote, or in a fuller clone)"
            )),
            Some(true) => {}
        }
        match d.rewritten {
            Some(true) => {
                warnings.push(format!("Branch '{b}' was rewritten since state was saved"))
            }
            None if d.branch_exists == Some(true) => warnings.push(format!(
                "cannot tell whether branch '{b}' was rewritten: the saved head is not in this clone's reach (shallow clone, missing objects or over the walk limit)"
            )),
            _ => {}
        }
        if d.commits > 0 {
            let n = if d.capped {
                format!("{}+", d.commits)
            } else {
                d.commits.to_string()
            };
            warnings.push(format!(
                "Branch '{b}' has {n} new commits since state was saved."
            ));
        }
    }
    let plan_path = found.root.join(&cp.plan_file);
    View {
        file: found.file.clone(),
        path: found.path.clone(),
        root: found.root.clone(),
        feature: cp.feature.clone(),
        plan_file: cp.plan_file.clone(),
        // A plan_file naming something outside the project is never looked at.
        plan_exists: fsx::is_file(&Boundary::new(&found.root, "the project"), &plan_path),
        phase: cp.phase.clone(),
        branch: cp.branch.clone(),
        head: cp.head.clone(),
        started: cp.started.map(format_timestamp),
        updated: cp.updated.map(format_timestamp),
        age_seconds: age.map(|a| a.num_seconds()),
        age_days: age.map(|a| a.num_days()),
        staleness: tier,
        progress: Progress {
            done: cp.items.iter().filter(|i| i.done).count(),
            total: cp.items.len(),
            items: cp.items.clone(),
        },
        divergence,
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
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
            "plan-complete",
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
        assert_eq!(cp.branch, None);
        assert_eq!(cp.items.len(), 6);
        assert!(cp.items[0].done && !cp.items[1].done);
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
    fn tiers_at_every_boundary() {
        let s = |secs: i64| Staleness::of(Some(Duration::seconds(secs)));
        let h = 3600;
        let d = 24 * h;
        assert_eq!(s(0), Staleness::Fresh);
        assert_eq!(s(d - 1), Staleness::Fresh);
        assert_eq!(s(d), Staleness::Recent);
        assert_eq!(s(7 * d), Staleness::Recent);
        assert_eq!(s(7 * d + 1), Staleness::Stale);
        assert_eq!(s(30 * d), Staleness::Stale);
        assert_eq!(s(30 * d + 1), Staleness::Abandoned);
        assert_eq!(Staleness::of(None), Staleness::Abandoned);
    }

    #[test]
    fn options_per_tier() {
        let ids = |o: Vec<Opt>| o.iter().map(|o| (o.id, o.recommended)).collect::<Vec<_>>();
        assert_eq!(
            ids(options(Staleness::Fresh, true)),
            [("resume", true), ("fresh", false), ("view", false)]
        );
        assert_eq!(
            ids(options(Staleness::Recent, true)),
            [("resume", false), ("fresh", false), ("view", false)]
        );
        assert_eq!(
            ids(options(Staleness::Stale, true)),
            [("resume", false), ("fresh", false), ("view", false)]
        );
        assert_eq!(
            ids(options(Staleness::Abandoned, true)),
            [("fresh", true), ("resume", false), ("view", false)]
        );
        assert_eq!(
            ids(options(Staleness::Fresh, false)),
            [("fresh", true), ("new-path", false), ("view", false)]
        );
        for tier in [Staleness::Fresh, Staleness::Abandoned] {
            for o in options(tier, true) {
                let words = o.label.split_whitespace().count();
                assert!((1..=4).contains(&words));
            }
        }
    }

    #[test]
    fn phase_commands() {
        assert_eq!(phase_command("plan-complete"), Some("work"));
        assert_eq!(phase_command("work"), Some("work"));
        assert_eq!(phase_command("work-complete"), Some("review"));
        assert_eq!(phase_command("review"), Some("review"));
        assert_eq!(phase_command("review-complete"), Some("compound"));
        assert_eq!(phase_command("compound"), Some("compound"));
        assert_eq!(phase_command("shipping"), None);
        assert!(phase_rank("work").unwrap() > phase_rank("plan-complete").unwrap());
    }

    #[test]
    fn edit_touches_only_what_changes() {
        let text = "---\nfeature: f\n# a comment\nplan_file: p.md\nphase: plan-complete\ncustom: keep\nupdated: 2026-01-15T10:30:00.123Z\nstarted: 2026-01-15T10:30:00.123Z\n---\n## Progress\n- [x] Plan created: p.md\n- [ ] Branch created\n- [ ] Tests passing\n\nNotes stay.\n";
        let items = parse_items(frontmatter::split(text).body);
        let out = edit(
            text,
            &Changes {
                phase: Some("work".into()),
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
    fn item_matching() {
        let items = parse_items("- [ ] Branch created\n- [X] Tests passing\n* not an item\n");
        assert_eq!(items.len(), 2);
        assert!(items[1].done);
        assert_eq!(match_item(&items, "branch"), Some(0));
        assert_eq!(match_item(&items, "nope"), None);
        assert_eq!(match_item(&items, " "), None);
    }
}
