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

    /// Records `hosts`; none left deletes the record.
    pub fn write(&self, hosts: &BTreeSet<Agent>) -> Result<()> {
        let Some((b, path)) = &self.place else {
            return Ok(());
        };
        if hosts.is_empty() {
            return fsx::remove_file(b, path).map(drop);
        }
        let text: String = hosts.iter().map(|a| format!("{}\n", a.as_str())).collect();
        fsx::create_dir_all(b, path.parent().unwrap_or(b.root()))?;
        fsx::write_atomic(b, path, text.as_bytes())
    }
}
