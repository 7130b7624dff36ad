//! The plan → work → review → compound lifecycle (SPEC §2.4, §4.4): the phases a checkpoint
//! records and the workflow commands that ask for one. Each set is spelled here only.

/// A phase of the lifecycle, in order. A file may hold a phase megg does not know (written by
/// hand or by a newer megg): [`super::Checkpoint::phase`] keeps that text as it is, and
/// [`super::Checkpoint::known_phase`] is `None` for it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// The plan is written; work has not started (`/workflows:plan` saved it).
    PlanComplete,
    /// The work is under way.
    Work,
    /// The work is done and waits for review.
    WorkComplete,
    /// The review is under way.
    Review,
    /// The review is done; what was learned waits to be written down.
    ReviewComplete,
    /// What was learned is being written down (the last phase before `finish`).
    Compound,
}

impl Phase {
    /// Every phase, in lifecycle order.
    pub const ALL: [Self; 6] = [
        Self::PlanComplete,
        Self::Work,
        Self::WorkComplete,
        Self::Review,
        Self::ReviewComplete,
        Self::Compound,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::PlanComplete => "plan-complete",
            Self::Work => "work",
            Self::WorkComplete => "work-complete",
            Self::Review => "review",
            Self::ReviewComplete => "review-complete",
            Self::Compound => "compound",
        }
    }

    /// The phase spelled exactly `s` (the file format and `--phase` are case-sensitive).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The workflow command a saved phase belongs to (SPEC §4.4 "phase mismatch").
    pub fn command(self) -> WorkflowCommand {
        match self {
            Self::PlanComplete | Self::Work => WorkflowCommand::Work,
            Self::WorkComplete | Self::Review => WorkflowCommand::Review,
            Self::ReviewComplete | Self::Compound => WorkflowCommand::Compound,
        }
    }
}

/// A workflow command, as `resume --for` names the one asking.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum WorkflowCommand {
    /// `/workflows:plan`: writes the plan and saves the checkpoint.
    Plan,
    /// `/workflows:work`: carries out the plan.
    Work,
    /// `/workflows:review`: reviews the work.
    Review,
    /// `/workflows:compound`: writes down what was learned.
    Compound,
}

impl WorkflowCommand {
    pub const ALL: [Self; 4] = [Self::Plan, Self::Work, Self::Review, Self::Compound];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plan => "plan",
            Self::Work => "work",
            Self::Review => "review",
            Self::Compound => "compound",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// A value that is not one of a closed set's spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{value}'")]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
}

/// Display, `FromStr` and clap's `ValueEnum` from `ALL` and `as_str`. `ValueEnum` is written
/// out rather than derived: the derive would turn the variants' doc comments into help for
/// each possible value and change `--help`.
macro_rules! closed_set {
    ($t:ty, $what:literal) => {
        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $t {
            type Err = $crate::megg::checkpoint::lifecycle::UnknownValue;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s).ok_or_else(|| $crate::megg::checkpoint::lifecycle::UnknownValue {
                    what: $what,
                    value: s.to_string(),
                })
            }
        }

        impl clap::ValueEnum for $t {
            fn value_variants<'a>() -> &'a [Self] {
                &Self::ALL
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(clap::builder::PossibleValue::new(self.as_str()))
            }
        }
    };
}

pub(crate) use closed_set;

closed_set!(Phase, "phase");
closed_set!(WorkflowCommand, "workflow command");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip_and_map_to_their_command() {
        for p in Phase::ALL {
            assert_eq!(p.as_str().parse::<Phase>(), Ok(p));
            assert_eq!(
                serde_json::to_value(p).unwrap(),
                serde_json::Value::from(p.as_str())
            );
        }
        let cmd = |s: &str| Phase::parse(s).map(Phase::command);
        assert_eq!(cmd("plan-complete"), Some(WorkflowCommand::Work));
        assert_eq!(cmd("work"), Some(WorkflowCommand::Work));
        assert_eq!(cmd("work-complete"), Some(WorkflowCommand::Review));
        assert_eq!(cmd("review"), Some(WorkflowCommand::Review));
        assert_eq!(cmd("review-complete"), Some(WorkflowCommand::Compound));
        assert_eq!(cmd("compound"), Some(WorkflowCommand::Compound));
        assert_eq!(cmd("shipping"), None);
        assert!(Phase::Work > Phase::PlanComplete);
    }

    #[test]
    fn commands_round_trip() {
        for c in WorkflowCommand::ALL {
            assert_eq!(c.as_str().parse::<WorkflowCommand>(), Ok(c));
            assert_eq!(
                serde_json::to_value(c).unwrap(),
                serde_json::Value::from(c.as_str())
            );
        }
        assert!("Work".parse::<WorkflowCommand>().is_err());
    }
}
