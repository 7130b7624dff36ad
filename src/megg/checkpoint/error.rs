//! Why a checkpoint operation refused: each says what went wrong and how to fix it, and
//! converts into a [`crate::error::Error`] with its kind and hints.

use std::path::PathBuf;

use super::policy::Choice;

/// What occupies the file a `save` would write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Occupant {
    /// A checkpoint of another plan with the same slug.
    OtherPlan(String),
    /// Another tool's `.local.md` file.
    NotOurs,
    /// A corrupt checkpoint, with why.
    Corrupt(String),
}

impl std::fmt::Display for Occupant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::OtherPlan(plan) => write!(f, "belongs to another plan ({plan})"),
            Self::NotOurs => f.write_str("is another tool's file"),
            Self::Corrupt(e) => write!(f, "is corrupt ({e})"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// A SLUG|PLAN_FILE argument names no checkpoint; `known` lists the files there are.
    #[error("no checkpoint matches '{target}'")]
    NotFound { target: String, known: Vec<String> },
    #[error("no feature slug can be made from '{0}'")]
    NoSlug(String),
    /// `save` would replace a file that is not this plan's checkpoint.
    #[error("{file} {occupant}; nothing written")]
    Occupied { file: String, occupant: Occupant },
    /// `from_here`: the same plan spelled from the starting directory, when it exists
    /// relative to the project root instead.
    #[error("plan file not found: {}", given.display())]
    PlanNotFound {
        given: PathBuf,
        from_here: Option<String>,
    },
    #[error("plan file {} is outside the project root {}", plan.display(), root.display())]
    PlanOutside { plan: PathBuf, root: PathBuf },
    /// `--check`/`--uncheck` matched no item; `items` are the checklist's texts.
    #[error("no checklist item starts with '{query}'")]
    NoSuchItem { query: String, items: Vec<String> },
    #[error("{0} disappeared")]
    Disappeared(String),
    #[error("{0} is no longer a readable checkpoint")]
    NoLongerCheckpoint(String),
    /// What `save` wrote does not classify as a checkpoint (a bug).
    #[error("{0} did not read back as a checkpoint")]
    SavedUnreadable(String),
    /// What an edit wrote does not classify as a checkpoint (a bug).
    #[error("{0} did not read back")]
    EditedUnreadable(String),
    /// `resume --choice` without a target while there are several checkpoints (SPEC §4.4:
    /// never silently do nothing). `names`: their features; `for_flag`: the call's
    /// ` --for <command>`, kept in the hint.
    #[error(
        "--choice {} needs one checkpoint, and there are {}: {}",
        choice.as_str(),
        names.len(),
        names.join(", ")
    )]
    ChoiceNeedsOne {
        choice: Choice,
        names: Vec<String>,
        for_flag: String,
    },
}

impl CheckpointError {
    pub fn hints(&self) -> Vec<String> {
        match self {
            Self::NotFound { known, .. } if known.is_empty() => {
                vec![
                    "there are no checkpoints; `megg checkpoint save PLAN_FILE` creates one".into(),
                ]
            }
            Self::NotFound { known, .. } => {
                vec![format!("known checkpoints: {}", known.join(", "))]
            }
            Self::Occupied { .. } => {
                vec!["pass --force to replace it (its old bytes are kept in quarantine)".into()]
            }
            Self::PlanNotFound {
                from_here: Some(p), ..
            } => vec![format!(
                "plan paths are relative to where megg runs; it exists relative to the project root: use {p}"
            )],
            Self::PlanNotFound { .. } => {
                vec!["save a checkpoint after the plan file is written".into()]
            }
            Self::PlanOutside { .. } => vec![
                "plans live inside the project; run megg from the project or move the plan".into(),
            ],
            Self::NoSuchItem { items, .. } => {
                let items: Vec<String> = items.iter().map(|i| format!("'{i}'")).collect();
                vec![format!("items: {}", items.join(", "))]
            }
            Self::ChoiceNeedsOne {
                choice,
                names,
                for_flag,
            } => vec![format!(
                "name one: megg checkpoint resume {}{for_flag} --choice {}",
                names.first().map_or("SLUG", String::as_str),
                choice.as_str()
            )],
            Self::NoSlug(_)
            | Self::Disappeared(_)
            | Self::NoLongerCheckpoint(_)
            | Self::SavedUnreadable(_)
            | Self::EditedUnreadable(_) => Vec::new(),
        }
    }
}

impl From<CheckpointError> for crate::error::Error {
    fn from(e: CheckpointError) -> Self {
        let hints = e.hints();
        hints.into_iter().fold(
            crate::error::Error::user(e.to_string()),
            crate::error::Error::with_hint,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_hints() {
        let e = crate::error::Error::from(CheckpointError::NotFound {
            target: "x".into(),
            known: vec![".a.local.md".into(), ".b.local.md".into()],
        });
        assert_eq!(e.message, "no checkpoint matches 'x'");
        assert_eq!(e.hints, ["known checkpoints: .a.local.md, .b.local.md"]);
        assert_eq!(e.exit_code(), 1);
        let e = crate::error::Error::from(CheckpointError::Occupied {
            file: ".a.local.md".into(),
            occupant: Occupant::OtherPlan("p.md".into()),
        });
        assert_eq!(
            e.message,
            ".a.local.md belongs to another plan (p.md); nothing written"
        );
        let e = crate::error::Error::from(CheckpointError::ChoiceNeedsOne {
            choice: Choice::Fresh,
            names: vec!["b".into(), "a".into()],
            for_flag: " --for work".into(),
        });
        assert_eq!(
            e.message,
            "--choice fresh needs one checkpoint, and there are 2: b, a"
        );
        assert_eq!(
            e.hints,
            ["name one: megg checkpoint resume b --for work --choice fresh"]
        );
    }
}
