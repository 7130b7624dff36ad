//! The rules of SPEC §4.4, as pure functions of data: staleness tiers, the resume options,
//! the warnings a checkpoint earns (age, unknown phase, branch divergence, another branch
//! checked out, missing plan, phase mismatch) and what a resume changes. Nothing here reads a
//! file or the clock.

use chrono::{DateTime, Duration, Utc};

use super::format::Checkpoint;
use super::lifecycle::{Phase, WorkflowCommand, closed_set};
use crate::clock::format_timestamp;
use crate::git::Divergence;

/// How old a checkpoint is, as SPEC §4.4's tiers.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Staleness {
    /// Updated less than 24 hours ago: resuming is recommended.
    Fresh,
    /// Updated 24 hours to 7 days ago: nothing is recommended.
    Recent,
    /// Updated 7 to 30 days ago: nothing is recommended, and a warning says it may be outdated.
    Stale,
    /// Updated over 30 days ago, or no valid `updated`: starting fresh is recommended.
    Abandoned,
}

impl Staleness {
    pub const ALL: [Self; 4] = [Self::Fresh, Self::Recent, Self::Stale, Self::Abandoned];

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

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// What the user can answer to the resume question (an option's `id`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum OptionId {
    /// Carry on where the checkpoint left off.
    Resume,
    /// Delete the checkpoint and start over.
    Fresh,
    /// Read the saved file before deciding.
    View,
    /// The plan moved: point the checkpoint at its new path and resume.
    NewPath,
}

impl OptionId {
    pub const ALL: [Self; 4] = [Self::Resume, Self::Fresh, Self::View, Self::NewPath];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Resume => "resume",
            Self::Fresh => "fresh",
            Self::View => "view",
            Self::NewPath => "new-path",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// The `--choice` that carries this option out (`new-path` is a resume with
    /// `--plan-file`).
    pub fn choice(self) -> Choice {
        match self {
            Self::Resume | Self::NewPath => Choice::Resume,
            Self::Fresh => Choice::Fresh,
            Self::View => Choice::View,
        }
    }
}

/// A choice the caller carries out (`resume --choice`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    /// Mark the checkpoint resumed (`updated` now, `head` the branch tip) and say where to
    /// pick up.
    Resume,
    /// Delete the checkpoint.
    Fresh,
    /// Print the saved file; change nothing.
    View,
}

impl Choice {
    pub const ALL: [Self; 3] = [Self::Resume, Self::Fresh, Self::View];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Resume => "resume",
            Self::Fresh => "fresh",
            Self::View => "view",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// What was done once this choice was carried out.
    pub fn action(self) -> ResumeAction {
        match self {
            Self::Resume => ResumeAction::Resumed,
            Self::Fresh => ResumeAction::StartedFresh,
            Self::View => ResumeAction::Viewed,
        }
    }
}

/// What `resume` found (its `status`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ResumeStatus {
    /// One checkpoint: the question and its options follow.
    Found,
    /// No checkpoint (or none for the target): start fresh.
    None,
    /// Several checkpoints and no target: the caller picks one of the candidates.
    Multiple,
}

impl ResumeStatus {
    pub const ALL: [Self; 3] = [Self::Found, Self::None, Self::Multiple];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Found => "found",
            Self::None => "none",
            Self::Multiple => "multiple",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// What `resume` did once a choice was carried out (its `action`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ResumeAction {
    /// The checkpoint was marked resumed.
    Resumed,
    /// The checkpoint was deleted.
    StartedFresh,
    /// The file was printed; nothing changed.
    Viewed,
}

impl ResumeAction {
    pub const ALL: [Self; 3] = [Self::Resumed, Self::StartedFresh, Self::Viewed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Resumed => "resumed",
            Self::StartedFresh => "started-fresh",
            Self::Viewed => "viewed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

closed_set!(Staleness, "staleness");
closed_set!(OptionId, "option");
closed_set!(Choice, "choice");
closed_set!(ResumeStatus, "status");
closed_set!(ResumeAction, "action");

/// One answer to the resume question, shaped for AskUserQuestion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeOption {
    pub id: OptionId,
    pub label: &'static str,
    pub description: &'static str,
    pub recommended: bool,
}

const fn opt(
    id: OptionId,
    label: &'static str,
    description: &'static str,
    recommended: bool,
) -> ResumeOption {
    ResumeOption {
        id,
        label,
        description,
        recommended,
    }
}

/// The options for a checkpoint, recommended first (SPEC §4.4).
pub fn options(tier: Staleness, plan_exists: bool) -> Vec<ResumeOption> {
    use OptionId::{Fresh, NewPath, Resume, View};
    let resume = "Resume from where you left off";
    let fresh = "Discard the saved progress and start over";
    let view = "View the checkpoint before deciding";
    if !plan_exists {
        return vec![
            opt(Fresh, "Start fresh", fresh, true),
            opt(
                NewPath,
                "Enter a new path",
                "Point the checkpoint at the plan's new location",
                false,
            ),
            opt(View, "View", view, false),
        ];
    }
    match tier {
        Staleness::Fresh => vec![
            opt(Resume, "Resume", resume, true),
            opt(Fresh, "Start fresh", fresh, false),
            opt(View, "View", view, false),
        ],
        Staleness::Recent | Staleness::Stale => vec![
            opt(Resume, "Resume", resume, false),
            opt(Fresh, "Start fresh", fresh, false),
            opt(View, "View", view, false),
        ],
        Staleness::Abandoned => vec![
            opt(Fresh, "Start fresh", fresh, true),
            opt(Resume, "Resume anyway", resume, false),
            opt(View, "View", view, false),
        ],
    }
}

/// A checkpoint's age at a moment, its tier, and the warnings they earn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// `now - updated`, never negative; `None` without a valid `updated`.
    pub age: Option<Duration>,
    pub staleness: Staleness,
    pub warnings: Vec<String>,
}

/// Assesses checkpoint `cp` (in file `file`) at `now`, with its branch's divergence when
/// known: the age (a future `updated` counts as 0, with a warning), the tier, and warnings for
/// a stale age, an unknown phase and the branch.
pub fn assess(
    file: &str,
    cp: &Checkpoint,
    now: DateTime<Utc>,
    divergence: Option<&Divergence>,
) -> Assessment {
    let mut warnings = Vec::new();
    let raw_age = cp.updated.map(|u| now - u);
    if raw_age.is_some_and(|a| a < Duration::zero()) {
        warnings.push(format!(
            "'{file}' was updated in the future ({}); treating its age as 0",
            cp.updated.map(format_timestamp).unwrap_or_default()
        ));
    }
    let age = raw_age.map(|a| a.max(Duration::zero()));
    let staleness = Staleness::of(age);
    if matches!(staleness, Staleness::Stale | Staleness::Abandoned) {
        // Seed 004 words this one ("This state is [N] days old…"): the only message here,
        // with the divergence count's, that says "state" for a checkpoint.
        warnings.push(match age {
            Some(a) => format!(
                "This state is {} days old and may be outdated",
                a.num_days()
            ),
            None => {
                format!(
                    "This checkpoint has no valid `updated` time ('{file}') and may be outdated"
                )
            }
        });
    }
    if let Some(p) = &cp.phase
        && cp.known_phase().is_none()
    {
        warnings.push(format!(
            "'{file}' has an unknown phase '{p}' (kept as it is)"
        ));
    }
    if let (Some(d), Some(b)) = (divergence, &cp.branch) {
        warnings.extend(divergence_notes(b, d));
    }
    Assessment {
        age,
        staleness,
        warnings,
    }
}

/// The warnings for branch `b`'s divergence since the checkpoint was saved (SPEC §4.5).
pub fn divergence_notes(b: &str, d: &Divergence) -> Vec<String> {
    let mut notes = Vec::new();
    match d.branch_exists {
        Some(false) => notes.push(format!("Branch '{b}' no longer exists")),
        None => notes.push(format!(
            "Branch '{b}' not found here (it may exist only on a remote, or in a fuller clone)"
        )),
        Some(true) => {}
    }
    match d.rewritten {
        Some(true) => notes.push(format!(
            "Branch '{b}' was rewritten since the checkpoint was saved"
        )),
        None if d.branch_exists == Some(true) => notes.push(format!(
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
        let s = if d.commits == 1 && !d.capped { "" } else { "s" };
        // Seed 004's words, "state" included (manual test 5.7).
        notes.push(format!(
            "Branch '{b}' has {n} new commit{s} since state was saved."
        ));
    }
    notes
}

/// The warning when the checkpoint was saved on branch `saved` and another branch (or a
/// detached HEAD, `None`) is checked out: resuming it here would carry on the work on the
/// wrong branch. No warning for a checkpoint without a branch.
pub fn branch_note(saved: Option<&str>, current: Option<&str>) -> Option<String> {
    let saved = saved.filter(|b| !b.is_empty())?;
    match current {
        Some(current) if current == saved => None,
        Some(current) => Some(format!(
            "Checkpoint was saved on branch '{saved}' but '{current}' is checked out"
        )),
        None => Some(format!(
            "Checkpoint was saved on branch '{saved}' but no branch is checked out (detached HEAD)"
        )),
    }
}

/// The warnings of the resume question beyond the checkpoint's own: a missing plan, and a
/// saved phase that belongs to another command than the one asking (warns, never blocks).
pub fn resume_notes(
    plan_file: &str,
    plan_exists: bool,
    phase: Option<&str>,
    asking: Option<WorkflowCommand>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if !plan_exists {
        notes.push(format!("Plan file not found: {plan_file}"));
    }
    if let (Some(cmd), Some(phase)) = (asking, phase)
        && let Some(expected) = Phase::parse(phase).map(Phase::command)
        && expected != cmd
    {
        notes.push(format!(
            "Checkpoint shows phase '{phase}'. You may want /workflows:{expected}"
        ));
    }
    notes
}

/// The phase a resume moves to: `plan-complete` becomes `work` when resumed for work;
/// otherwise `None` (unchanged).
pub fn resumed_phase(current: Option<Phase>, asking: Option<WorkflowCommand>) -> Option<Phase> {
    (asking == Some(WorkflowCommand::Work) && current == Some(Phase::PlanComplete))
        .then_some(Phase::Work)
}

/// The warning when `save` moves a checkpoint's phase backwards.
pub fn backwards_note(old: Option<&str>, new: Phase) -> Option<String> {
    let old_text = old?;
    let old = Phase::parse(old_text)?;
    (old > new).then(|| format!("phase moves backwards from '{old_text}' to '{new}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        use OptionId::{Fresh, NewPath, Resume, View};
        let ids =
            |o: Vec<ResumeOption>| o.iter().map(|o| (o.id, o.recommended)).collect::<Vec<_>>();
        assert_eq!(
            ids(options(Staleness::Fresh, true)),
            [(Resume, true), (Fresh, false), (View, false)]
        );
        assert_eq!(
            ids(options(Staleness::Recent, true)),
            [(Resume, false), (Fresh, false), (View, false)]
        );
        assert_eq!(
            ids(options(Staleness::Stale, true)),
            [(Resume, false), (Fresh, false), (View, false)]
        );
        assert_eq!(
            ids(options(Staleness::Abandoned, true)),
            [(Fresh, true), (Resume, false), (View, false)]
        );
        assert_eq!(
            ids(options(Staleness::Fresh, false)),
            [(Fresh, true), (NewPath, false), (View, false)]
        );
        for tier in [Staleness::Fresh, Staleness::Abandoned] {
            for o in options(tier, true) {
                let words = o.label.split_whitespace().count();
                assert!((1..=4).contains(&words));
            }
        }
    }

    #[test]
    fn closed_sets_serialize_as_they_display() {
        fn check<T: serde::Serialize + std::fmt::Display>(all: &[T]) {
            for v in all {
                assert_eq!(
                    serde_json::to_value(v).unwrap(),
                    serde_json::Value::from(v.to_string())
                );
            }
        }
        check(&Staleness::ALL);
        check(&OptionId::ALL);
        check(&Choice::ALL);
        check(&ResumeStatus::ALL);
        check(&ResumeAction::ALL);
        assert_eq!("new-path".parse::<OptionId>(), Ok(OptionId::NewPath));
        assert_eq!(
            "started-fresh".parse::<ResumeAction>(),
            Ok(ResumeAction::StartedFresh)
        );
    }

    #[test]
    fn phase_rules() {
        use WorkflowCommand as C;
        assert_eq!(
            resumed_phase(Some(Phase::PlanComplete), Some(C::Work)),
            Some(Phase::Work)
        );
        assert_eq!(
            resumed_phase(Some(Phase::PlanComplete), Some(C::Review)),
            None
        );
        assert_eq!(resumed_phase(Some(Phase::Review), Some(C::Work)), None);
        assert_eq!(
            resume_notes("p.md", true, Some("review"), Some(C::Work)),
            ["Checkpoint shows phase 'review'. You may want /workflows:review"]
        );
        assert!(resume_notes("p.md", true, Some("shipping"), Some(C::Work)).is_empty());
        assert_eq!(
            branch_note(Some("feat/x"), Some("main")).as_deref(),
            Some("Checkpoint was saved on branch 'feat/x' but 'main' is checked out")
        );
        assert_eq!(branch_note(Some("main"), Some("main")), None);
        assert_eq!(branch_note(None, Some("main")), None);
        assert_eq!(branch_note(Some(""), None), None);
        assert!(branch_note(Some("main"), None).is_some_and(|n| n.contains("detached HEAD")));
        assert_eq!(
            backwards_note(Some("review"), Phase::Work).as_deref(),
            Some("phase moves backwards from 'review' to 'work'")
        );
        assert_eq!(backwards_note(Some("shipping"), Phase::Work), None);
    }
}
