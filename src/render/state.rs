//! What `megg state` prints for people; its `--json` documents are in [`crate::wire::state`].

use std::fmt::Write as _;

use crate::clock::human_age;
use crate::megg::context::StateView;
use crate::wire::state::{Cleared, Written};

pub fn written_text(w: &Written) -> String {
    format!(
        "State saved to {} ({} tokens)\n",
        w.path.display(),
        w.tokens
    )
}

pub fn cleared_text(c: &Cleared) -> String {
    if c.cleared {
        "State cleared\n".into()
    } else {
        "State cleared (there was no state)\n".into()
    }
}

pub fn shown_text(view: Option<&StateView>) -> String {
    let Some(s) = view else {
        return "No active state\n".into();
    };
    if s.expired {
        let why = s.expired_reason.as_deref().unwrap_or("expired");
        return format!(
            "No active state ({why}: {})\nRead it anyway with `megg show {}`; `megg state clear` removes it.\n",
            s.path.display(),
            s.id
        );
    }
    let mut out = String::new();
    let _ = write!(out, "Active state: {}", s.path.display());
    out.push('\n');
    let mut notes = Vec::new();
    if let Some(u) = &s.updated {
        let age = s.age_seconds.map(human_age).unwrap_or_default();
        notes.push(format!("updated {u} ({age} ago)"));
    }
    if let Some(b) = &s.branch {
        notes.push(format!("branch {b}"));
    }
    if let Some(n) = s.commits_since {
        notes.push(format!("{n} commit{} since", if n == 1 { "" } else { "s" }));
    }
    notes.push(format!("{} tokens", s.tokens));
    if s.auto {
        notes.push(match &s.session {
            Some(id) => format!("captured automatically from session {id}"),
            None => "captured automatically".into(),
        });
    }
    let _ = writeln!(out, "{}\n", notes.join(", "));
    out.push_str(s.content.trim_end());
    out.push('\n');
    out
}
