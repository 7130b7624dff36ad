//! Which hosts `megg setup` installed megg for, per scope (SPEC §12): the pieces the hosts
//! share (`.mcp.json`, the gitignore block, the merge driver) are removed only with the last
//! host that uses them. Kept under the git directory (project scope; megg's cache directory
//! outside git) or megg's user configuration directory (user scope) — never in the work tree.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::Scope;
use crate::error::Result;
use crate::fsx;
use crate::host::Agent;
use crate::megg::project::Project;

/// The record of one scope.
pub struct Record {
    place: Option<(fsx::Boundary, PathBuf)>,
}

impl Record {
    /// The record for `scope`: `megg_config` is megg's user configuration directory.
    pub fn at(project: &Project, scope: Scope, megg_config: Option<&Path>) -> Self {
        let place = match scope {
            Scope::Project => super::plan::record_place(project, "hosts"),
            Scope::User => megg_config.map(|dir| {
                (
                    fsx::Boundary::user(dir, "megg's configuration directory"),
                    dir.join("setup/hosts"),
                )
            }),
        };
        Self { place }
    }

    /// The hosts recorded (an unreadable record is empty: what the files show still counts).
    pub fn read(&self) -> BTreeSet<Agent> {
        let Some((b, path)) = &self.place else {
            return BTreeSet::new();
        };
        let Ok(Some(t)) = fsx::read_text(b, path, 4096) else {
            return BTreeSet::new();
        };
        t.text
            .lines()
            .filter_map(|l| clap::ValueEnum::from_str(l.trim(), true).ok())
            .collect()
    }

    /// Why [`Record::write`] of `hosts` would fail, `None` when it would not (or writes
    /// nothing).
    pub fn refusal(&self, hosts: &BTreeSet<Agent>) -> Option<String> {
        let (b, path) = self.place.as_ref()?;
        if self.unchanged(hosts) {
            return None;
        }
        if hosts.is_empty() {
            return fsx::remove_refusal(b, path);
        }
        super::plan::refusal(b, path)
    }

    /// Whether the record already says `hosts` (no record says none).
    fn unchanged(&self, hosts: &BTreeSet<Agent>) -> bool {
        let Some((b, path)) = &self.place else {
            return true;
        };
        match fsx::read_text(b, path, 4096) {
            Ok(Some(t)) => t.text == text(hosts),
            Ok(None) => hosts.is_empty(),
            Err(_) => false,
        }
    }

    /// Records `hosts`; none left deletes the record. A record that already says so is left
    /// as it is: a run with nothing to change writes nothing.
    pub fn write(&self, hosts: &BTreeSet<Agent>) -> Result<()> {
        let Some((b, path)) = &self.place else {
            return Ok(());
        };
        if self.unchanged(hosts) {
            return Ok(());
        }
        if hosts.is_empty() {
            return fsx::remove_file(b, path).map(drop);
        }
        fsx::create_dir_all(b, path.parent().unwrap_or(b.root()))?;
        fsx::write_atomic(b, path, text(hosts).as_bytes())
    }
}

/// The record's text: one host a line.
fn text(hosts: &BTreeSet<Agent>) -> String {
    hosts.iter().map(|a| format!("{}\n", a.as_str())).collect()
}
