//! The tool calls a transcript's reader hands the scan (`super::transcript`) — edits, task and
//! to-do changes, checkpoints, test runs — and the tasks they make. A task tool's texts are
//! held as read until the task is kept (`super::kept`): a call past the list's bound, or one
//! whose result never comes, is never scanned for secrets — but a call a pass ends with
//! awaiting its result is saved redacted ([`Call::seal`]).

use serde::{Deserialize, Serialize};

use super::kept::{MAX_TASK_CHARS, one_line_cut, task_description, task_subject};

/// A task's status, as Claude Code's task tools and `TodoWrite` spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    InProgress,
    Completed,
}

impl TaskStatus {
    /// Reads a status; `deleted` and unknown values are `None`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "in_progress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }
}

/// One entry of the session's to-do list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// The task tools' id (`TaskCreate` returns it); `None` for `TodoWrite` items.
    pub id: Option<String>,
    pub subject: String,
    pub description: String,
    pub status: TaskStatus,
}

impl Task {
    /// A to-do list item (`TodoWrite`, a host's to-do tool): its text on one line, cut and
    /// redacted; `None` when empty.
    pub fn todo(subject: &str, status: TaskStatus) -> Option<Self> {
        let subject = one_line_cut(subject, MAX_TASK_CHARS);
        (!subject.is_empty()).then_some(Self {
            id: None,
            subject,
            description: String::new(),
            status,
        })
    }
}

/// A tool call that changes the handoff once it succeeds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Call {
    Edit(String),
    TaskCreate {
        subject: String,
        description: String,
        /// The texts as read, not yet redacted and cut ([`Call::seal`]).
        #[serde(skip)]
        held: bool,
    },
    TaskUpdate {
        id: String,
        status: Option<String>,
        subject: Option<String>,
        description: Option<String>,
        #[serde(skip)]
        held: bool,
    },
    TodoWrite(Vec<Task>),
    Checkpoint(String),
    /// A test or build command ([`super::failures::classify`]): its outcome is recorded whether it
    /// passed or failed.
    Run(String),
}

impl Call {
    /// A task's texts redacted and cut, when they were held as read: a task is scanned for
    /// secrets only once it is kept — in the task list, or by a pass that ends with its call
    /// still awaiting its result.
    pub fn seal(&mut self) {
        match self {
            Call::TaskCreate {
                subject,
                description,
                held,
            } if *held => {
                *subject = task_subject(subject);
                *description = task_description(description);
                *held = false;
            }
            Call::TaskUpdate {
                subject,
                description,
                held,
                ..
            } if *held => {
                if let Some(s) = subject {
                    *s = task_subject(s);
                }
                if let Some(d) = description {
                    *d = task_description(d);
                }
                *held = false;
            }
            _ => {}
        }
    }

    /// The bytes of text it holds as read.
    pub fn held_bytes(&self) -> usize {
        match self {
            Call::TaskCreate {
                subject,
                description,
                held: true,
            } => subject.len() + description.len(),
            Call::TaskUpdate {
                subject,
                description,
                held: true,
                ..
            } => {
                subject.as_ref().map_or(0, String::len)
                    + description.as_ref().map_or(0, String::len)
            }
            _ => 0,
        }
    }
}
