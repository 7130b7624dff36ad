//! Planning and applying `megg setup`: every file's new content is worked out, and every file
//! asked whether this user can write it, before anything is written (an invalid JSON file or a
//! host's file that cannot be written stops the run with nothing changed), then each change is
//! applied under a lock with a backup (SPEC §7, §9). All I/O goes through the file gate.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{self as setup, Action, Installed, Marker};
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::megg::block::{self, Block};
use crate::megg::project::Project;

/// A file setup manages, with its new content worked out before anything is written.
pub struct Planned {
    pub path: PathBuf,
    pub action: Action,
    pub what: String,
    /// New bytes (`None`: delete the file).
    pub content: Option<String>,
    /// Keep the previous bytes in the backup directory before changing it.
    pub backup: bool,
    /// The file's bytes when planned (what a backup keeps).
    pub original: Option<String>,
    /// A git config file: changed through git2 by this edit, not by writing `content`.
    pub config: Option<ConfigEdit>,
}

impl Planned {
    /// Whether carrying it out keeps the file's previous bytes first: planned with a backup,
    /// of a file that was there (a git config file is read when the edit is made).
    pub fn backs_up(&self) -> bool {
        self.backup && (self.original.is_some() || self.config.is_some())
    }
}

/// Backups kept per file (SPEC §7).
pub const BACKUPS_KEPT: usize = 5;

/// Removes all but the newest [`BACKUPS_KEPT`] backups of the file named `base` in `dir`.
/// Their names are `<base>.<stamp>` or `<base>.<stamp>.<n>`; stamps sort by time.
fn prune_backups(b: &fsx::Boundary, dir: &Path, base: &str) {
    let Ok(entries) = fsx::list(b, dir) else {
        return;
    };
    let prefix = format!("{base}.");
    let mut backups: Vec<(String, u32, String)> = entries
        .into_iter()
        .filter(|(_, kind)| *kind == fsx::Kind::File)
        .filter_map(|(name, _)| {
            let name = name.into_string().ok()?;
            let rest = name.strip_prefix(&prefix)?;
            if !rest.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            let (stamp, n) = match rest.split_once('.') {
                Some((stamp, n)) => (stamp.to_string(), n.parse().ok()?),
                None => (rest.to_string(), 1),
            };
            Some((stamp, n, name))
        })
        .collect();
    backups.sort();
    let excess = backups.len().saturating_sub(BACKUPS_KEPT);
    for (_, _, name) in backups.into_iter().take(excess) {
        let _ = fsx::remove_file(b, &dir.join(name));
    }
}

/// A file setup leaves alone (megg is active from another place).
pub fn skipped(path: &Path, what: &str) -> Planned {
    Planned {
        path: path.to_path_buf(),
        action: Action::Skipped,
        what: what.to_string(),
        content: None,
        backup: false,
        original: None,
        config: None,
    }
}

/// Most bytes of a settings file, `.mcp.json`, `.gitignore` or installed markdown read.
pub const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// Where files are written, where their backups go and where the locks are taken: backups
/// never dirty the project (SPEC §7) and are created exclusively, never through a planted link
/// (§9).
pub struct Places<'r> {
    /// The boundary of the Claude Code directory (`.claude/` or `~/.claude/`).
    pub claude: fsx::Boundary,
    /// The project's boundary (`.mcp.json`, `.gitignore`).
    pub project: fsx::Boundary,
    /// Backups: `.git/megg/backups/` (project scope), `~/.claude/.megg-backups/` (user scope),
    /// megg's cache directory outside git; `None` when there is nowhere safe.
    pub backups: Option<(fsx::Boundary, PathBuf)>,
    /// The repository whose git directory keeps the locks (project scope); without one they go
    /// in megg's cache directory ([`crate::megg::lock`]).
    pub repo: Option<&'r crate::git::Repo>,
}

impl Places<'_> {
    pub fn boundary_for(&self, path: &Path) -> &fsx::Boundary {
        if self.claude.contains(path) {
            &self.claude
        } else {
            &self.project
        }
    }

    /// Why carrying out `p` would fail, `None` when it would not: the file (or the directory
    /// it goes in) this user cannot write — or, for a removal, the directory it cannot be
    /// deleted from — the lock [`apply`] takes first, or the backup directory its previous
    /// bytes go to when a backup is taken. Asked of every change while planning, so the dry
    /// run and the run refuse alike and a run never stops after half the files are written
    /// (SPEC §7).
    pub fn refusal(&self, p: &Planned) -> Option<String> {
        if !p.action.changes() {
            return None;
        }
        let (b, base) = match &p.config {
            Some(edit) => (&edit.boundary, edit.backup_name.clone()),
            None => {
                let b = self.boundary_for(&p.path);
                (b, backup_base(b, &p.path))
            }
        };
        let change = if p.action == Action::Remove && p.config.is_none() {
            fsx::remove_refusal(b, &p.path)
        } else {
            refusal(b, &p.path)
        };
        change
            .or_else(|| self.lock_refusal(b, &p.path))
            .or_else(|| {
                let (bb, dir) = self.backups.as_ref().filter(|_| p.backs_up())?;
                refusal(bb, &dir.join(base))
            })
    }

    /// Why the first lock [`apply`] takes to change `path` (inside `b`) could not be had: its
    /// directory (`.git/megg/locks`, megg's cache directory's `locks/`) cannot be made or
    /// written, or the lock file cannot be opened for writing.
    fn lock_refusal(&self, b: &fsx::Boundary, path: &Path) -> Option<String> {
        let (lb, lock) = match crate::megg::lock_place(self.repo, b, first_made(b, path)) {
            Ok(place) => place,
            Err(e) => return Some(e.message),
        };
        refusal_as(&lb, &lock, fsx::Landing::InPlace)
            .map(|why| format!("cannot lock {}: {why}", path.display()))
    }
}

/// What a change to `path` (inside `b`) makes first: the file itself, or the first of its
/// directories that is not there yet.
fn first_made<'p>(b: &fsx::Boundary, path: &'p Path) -> &'p Path {
    // Whether something is at `p`, links not followed.
    let there = |p: &Path| {
        if p != b.root() && b.contains(p) {
            return fsx::kind(b, p).is_some();
        }
        p.parent()
            .is_none_or(|up| fsx::kind(&fsx::Boundary::user(up, b.label()), p).is_some())
    };
    let mut first = path;
    while let Some(up) = first.parent().filter(|up| !there(up)) {
        first = up;
    }
    first
}

/// Why a write to `path` (inside `b`) would fail, `None` when it would not. The directories
/// a write creates are created in the nearest one that is there, so that is the one asked
/// ([`fsx::write_refusal`] refuses a directory that is not there yet).
pub fn refusal(b: &fsx::Boundary, path: &Path) -> Option<String> {
    refusal_as(b, path, fsx::Landing::Replace)
}

/// [`refusal`] for a write that lands as `landing` says.
fn refusal_as(b: &fsx::Boundary, path: &Path, landing: fsx::Landing) -> Option<String> {
    let first = first_made(b, path);
    if first == path {
        return fsx::write_refusal(b, path, landing);
    }
    let why = if first != b.root() && b.contains(first) {
        fsx::write_refusal(b, first, fsx::Landing::Replace)
    } else {
        refusal_beside(first, b.label())
    }?;
    Some(format!("cannot create {}: {why}", path.display()))
}

/// Why a write to `path` would fail, asked in its own directory (`label` names it): for a
/// file outside the boundaries megg holds, such as the user's global git config.
pub fn refusal_beside(path: &Path, label: &str) -> Option<String> {
    let up = path.parent()?;
    fsx::write_refusal(&fsx::Boundary::user(up, label), path, fsx::Landing::Replace)
}

/// What the backups of `path` (inside `b`) are called: its path under the boundary, flat.
fn backup_base(b: &fsx::Boundary, path: &Path) -> String {
    let rel = path.strip_prefix(b.root()).unwrap_or(path);
    rel.to_string_lossy().replace('/', "__")
}

/// Reads a file setup merges into; a file that is not UTF-8 or too large is refused.
pub fn read_existing(b: &fsx::Boundary, path: &Path) -> Result<Option<String>> {
    fsx::read_for_edit(b, path, MAX_SETTINGS_BYTES)
}

pub fn plan_json(
    b: &fsx::Boundary,
    path: &Path,
    uninstall: bool,
    what: &str,
    edit: impl FnOnce(&mut Value) -> std::result::Result<bool, String>,
) -> Result<Planned> {
    let existing = read_existing(b, path)?;
    let mut value = match &existing {
        Some(t) if !t.trim().is_empty() => serde_json::from_str::<Value>(t).map_err(|e| {
            Error::corrupt(format!(
                "{} is not valid JSON ({e}); nothing was changed",
                path.display()
            ))
            .with_hint("fix the file (or move it aside), then run megg setup again")
        })?,
        _ => Value::Object(serde_json::Map::new()),
    };
    let changed = edit(&mut value).map_err(|e| {
        Error::user(format!(
            "cannot merge into {}: {e}; nothing was changed",
            path.display()
        ))
    })?;
    let unchanged = Planned {
        path: path.to_path_buf(),
        action: Action::Unchanged,
        what: what.to_string(),
        content: None,
        backup: false,
        original: existing.clone(),
        config: None,
    };
    if !changed {
        return Ok(unchanged);
    }
    let empty = value.as_object().is_some_and(|o| o.is_empty());
    Ok(match (&existing, uninstall && empty) {
        // What is left is nothing: the file was megg's alone.
        // No backup: nothing of the user's was left in it.
        (Some(_), true) => Planned {
            action: Action::Remove,
            ..unchanged
        },
        (Some(_), false) => Planned {
            action: Action::Update,
            content: Some(setup::to_text(&value)),
            backup: true,
            ..unchanged
        },
        (None, _) => Planned {
            action: Action::Create,
            content: Some(setup::to_text(&value)),
            ..unchanged
        },
    })
}

/// A file megg installs whole (a command, the skill), marked as megg's by its last line.
pub fn plan_markdown(
    b: &fsx::Boundary,
    path: &Path,
    template: &str,
    uninstall: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<Planned>> {
    plan_installed(
        b,
        path,
        template,
        Marker::Html,
        "Claude Code file",
        uninstall,
        warnings,
    )
}

/// [`plan_markdown`] for any file megg installs whole, commented with `marker`.
pub fn plan_installed(
    b: &fsx::Boundary,
    path: &Path,
    template: &str,
    marker: Marker,
    what: &str,
    uninstall: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<Planned>> {
    let existing = read_existing(b, path)?;
    let state = existing
        .as_deref()
        .map(|e| setup::classify_installed_with(marker, e, template));
    let base = |action, content| Planned {
        path: path.to_path_buf(),
        action,
        what: what.into(),
        content,
        backup: false,
        original: None,
        config: None,
    };
    Ok(Some(match (uninstall, state) {
        (false, None) => base(Action::Create, Some(setup::mark_with(marker, template))),
        (false, Some(Installed::Current)) => base(Action::Unchanged, None),
        (false, Some(Installed::Stale)) => {
            base(Action::Update, Some(setup::mark_with(marker, template)))
        }
        (_, Some(Installed::Edited)) => {
            warnings.push(format!(
                "{} was edited after megg installed it; left alone",
                path.display()
            ));
            base(Action::Skipped, None)
        }
        (_, Some(Installed::Foreign)) => {
            warnings.push(format!(
                "{} was not installed by megg; left alone",
                path.display()
            ));
            base(Action::Skipped, None)
        }
        (true, Some(_)) => base(Action::Remove, None),
        (true, None) => return Ok(None),
    }))
}

/// Where setup records the lines it added to a block file (`name`: `gitignore`,
/// `gitattributes`), so `--uninstall` removes exactly those (SPEC §7): under the git directory,
/// else in megg's cache directory keyed by the project directory's identity. Never in the work
/// tree.
pub fn record_place(project: &Project, name: &str) -> Option<(fsx::Boundary, PathBuf)> {
    if let Some(repo) = &project.repo {
        let common = repo.common_dir();
        return Some((
            fsx::Boundary::new(&common, "the git directory"),
            common.join(format!("megg/setup/{name}-added")),
        ));
    }
    let cache = fsx::user_cache_dir()?;
    let (dev, ino) = fsx::identity(&project.root)?;
    Some((
        fsx::Boundary::new(&cache, "megg's cache directory"),
        cache.join(format!("setup/{dev:x}-{ino:x}-{name}-added")),
    ))
}

/// The record's line saying setup created the file (no block line is ever this).
const CREATED: &str = "(megg setup created this file)";
/// The record's line saying the file was there before setup.
const EXISTED: &str = "(this file was there before megg setup)";
/// The record's line saying setup ended the file's last line before adding its own.
const NEWLINE: &str = "(megg setup ended the last line of this file)";

/// What setup recorded adding to a block file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub lines: Vec<String>,
    /// Whether setup created the file; `None` in a record from before megg noted it.
    pub created: Option<bool>,
    /// Setup added a line end to the file's last line before its block.
    pub newline: bool,
}

impl Record {
    fn parse(text: &str) -> Self {
        let mut record = Self::default();
        for line in text.lines() {
            match line {
                CREATED => record.created = Some(true),
                EXISTED => record.created = Some(false),
                NEWLINE => record.newline = true,
                _ => record.lines.push(line.to_string()),
            }
        }
        record
    }

    fn to_text(&self) -> String {
        let mut out = match self.created {
            Some(true) => format!("{CREATED}\n"),
            Some(false) => format!("{EXISTED}\n"),
            None => String::new(),
        };
        if self.newline {
            out.push_str(NEWLINE);
            out.push('\n');
        }
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// A block file's record as it is to be after this run.
pub struct BlockRecord {
    /// The block file it records.
    file: PathBuf,
    place: (fsx::Boundary, PathBuf),
    record: Record,
    added: Vec<String>,
    created_now: bool,
    newline_now: bool,
}

impl BlockRecord {
    /// The block file it records.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Why [`BlockRecord::save`] would fail, `None` when it would not (or writes nothing).
    pub fn refusal(&self, uninstall: bool) -> Option<String> {
        let (b, path) = &self.place;
        if uninstall {
            fsx::remove_refusal(b, path)
        } else if self.added.is_empty() {
            None
        } else {
            refusal(b, path)
        }
    }

    /// Writes it (after the block file was changed): `--uninstall` deletes it; a run that
    /// added lines adds them to it.
    pub fn save(&self, uninstall: bool) -> Result<()> {
        let (b, path) = &self.place;
        if uninstall {
            fsx::remove_file(b, path)?;
            return Ok(());
        }
        if self.added.is_empty() {
            return Ok(());
        }
        let mut record = self.record.clone();
        record.created = if self.created_now {
            Some(true)
        } else if record.lines.is_empty() {
            Some(false)
        } else {
            record.created
        };
        record.newline |= self.newline_now;
        record.lines.extend(self.added.iter().cloned());
        fsx::create_dir_all(b, path.parent().unwrap_or(b.root()))?;
        fsx::write_atomic(b, path, record.to_text().as_bytes())
    }
}

/// Adds `block` to the file `name` at the project root (or, with `uninstall`, takes out the
/// lines setup recorded adding; a file setup created and nothing else is in goes). `what`
/// names it in the report.
pub fn plan_block(
    project: &Project,
    block: &Block,
    name: &str,
    what: &str,
    uninstall: bool,
) -> Result<(Planned, Option<BlockRecord>)> {
    let b = project.boundary();
    let path = project.root.join(name);
    let place = record_place(project, name.trim_start_matches('.'));
    let record = place
        .as_ref()
        .and_then(|(b, path)| fsx::read_text(b, path, 64 * 1024).ok().flatten())
        .map(|t| Record::parse(&t.text))
        .unwrap_or_default();
    let existing = read_existing(&b, &path)?;
    let text = existing.clone().unwrap_or_default();
    let mut added = Vec::new();
    let new = if uninstall {
        let new = block::remove_lines(&text, &record.lines);
        // The line end setup gave the file's last line goes too, when its block still ends
        // the file (else what follows is the user's, and so is that line end).
        let block_ends_file = text
            .lines()
            .next_back()
            .is_some_and(|last| record.lines.iter().any(|l| l == last.trim_end()));
        match new {
            Some(n) if record.newline && block_ends_file => Some(
                n.strip_suffix("\r\n")
                    .or_else(|| n.strip_suffix('\n'))
                    .unwrap_or(&n)
                    .to_string(),
            ),
            other => other,
        }
    } else {
        let (new, lines) = block.ensure(&text);
        added = lines.iter().map(|s| s.to_string()).collect();
        (!lines.is_empty()).then_some(new)
    };
    let action = match (&new, &existing) {
        (None, _) => Action::Unchanged,
        // Emptied: deleted when setup created it (or an older record cannot say).
        (Some(n), Some(_)) if n.is_empty() && uninstall && record.created != Some(false) => {
            Action::Remove
        }
        (Some(_), Some(_)) => Action::Update,
        (Some(_), None) => Action::Create,
    };
    let planned = Planned {
        path: path.clone(),
        action,
        what: what.into(),
        content: new.filter(|_| action != Action::Remove),
        backup: existing.is_some() && action == Action::Update,
        original: existing,
        config: None,
    };
    let newline_now = !added.is_empty() && !text.is_empty() && !text.ends_with('\n');
    let record = place.map(|place| BlockRecord {
        file: path,
        place,
        record,
        added,
        created_now: action == Action::Create,
        newline_now,
    });
    Ok((planned, record))
}

/// A change to git config keys, made through git2 (SPEC §11): the file is git's to write.
#[derive(Debug, Clone)]
pub struct ConfigEdit {
    /// The boundary the file is read in (for its backup and to tidy it).
    pub boundary: fsx::Boundary,
    /// What the file's backups are called.
    pub backup_name: String,
    /// The keys to set, in order; none when removing.
    pub set: Vec<(&'static str, String)>,
    /// The keys to remove.
    pub remove: Vec<&'static str>,
    /// The section header libgit2 leaves behind when its keys are removed, to take out too.
    pub section: &'static str,
}

/// Keeps `bytes` (a file's previous content) in the backup directory as `<base>.<now>`, pruned
/// to the newest [`BACKUPS_KEPT`] of that base.
fn backup(places: &Places, base: &str, bytes: &[u8], now: &str) -> Result<()> {
    if let Some((bb, dir)) = &places.backups {
        fsx::create_unique(bb, dir, &format!("{base}.{now}"), bytes)?;
        prune_backups(bb, dir, base);
    }
    Ok(())
}

fn apply_config(places: &Places, p: &Planned, edit: &ConfigEdit, now: &str) -> Result<()> {
    let b = &edit.boundary;
    let _lock = crate::megg::lock(places.repo, b, &p.path)?;
    crate::failpoint::fail_at("git-config-write")?;
    if p.backs_up()
        && let Some(bytes) = fsx::read_bytes(b, &p.path, MAX_SETTINGS_BYTES)?
    {
        backup(places, &edit.backup_name, &bytes, now)?;
    }
    if !edit.set.is_empty() {
        let set: Vec<(&str, &str)> = edit.set.iter().map(|(k, v)| (*k, v.as_str())).collect();
        crate::git::config_file_set(&p.path, &set)?;
    }
    if !edit.remove.is_empty() {
        crate::git::config_file_remove(&p.path, &edit.remove)?;
        if let Ok(Some(text)) = fsx::read_for_edit(b, &p.path, MAX_SETTINGS_BYTES) {
            let tidy = drop_empty_section(&text, edit.section);
            if p.action == Action::Remove && tidy.trim().is_empty() {
                fsx::remove_file(b, &p.path)?;
            } else if tidy != text {
                fsx::write_atomic(b, &p.path, tidy.as_bytes())?;
            }
        }
    }
    Ok(())
}

/// Carries out `p` under the lock of its file. Nothing is made before a lock is held: the
/// directories a new file needs are made under the lock of the first of them (keyed in the
/// directory that is there), then the file's lock is taken.
pub fn apply(places: &Places, p: &Planned, now: &str) -> Result<()> {
    if !p.action.changes() {
        return Ok(());
    }
    if let Some(edit) = &p.config {
        return apply_config(places, p, edit, now);
    }
    let b = places.boundary_for(&p.path);
    let first = first_made(b, &p.path);
    let _dirs_lock = if p.content.is_some()
        && first != p.path
        && let Some(dir) = p.path.parent()
    {
        let lock = crate::megg::lock(places.repo, b, first)?;
        fsx::create_dir_all(b, dir)?;
        Some(lock)
    } else {
        None
    };
    let _lock = crate::megg::lock(places.repo, b, &p.path)?;
    if p.backs_up()
        && let Some(original) = &p.original
    {
        backup(places, &backup_base(b, &p.path), original.as_bytes(), now)?;
    }
    match &p.content {
        Some(text) => fsx::write_atomic(b, &p.path, text.as_bytes()),
        None => {
            fsx::remove_file(b, &p.path)?;
            // Directories setup made and nothing else uses go too.
            let mut dir = p.path.parent();
            while let Some(d) = dir {
                if d.file_name().is_some_and(|n| {
                    n == ".claude"
                        || n == ".codex"
                        || n == ".gemini"
                        || n == ".github"
                        || n == "hooks"
                        || n == "skills"
                        || n == "commands"
                        || n == "workflows"
                        || n == "megg-state"
                }) && fsx::remove_empty_dir(b, d)
                {
                    dir = d.parent();
                } else {
                    break;
                }
            }
            Ok(())
        }
    }
}
/// `text` without each `section` header that has nothing left under it (blank lines aside)
/// before the next section: libgit2 removes a section's keys but leaves its header.
pub(super) fn drop_empty_section(text: &str, section: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        let empty_after = || {
            lines
                .get(i + 1..)
                .unwrap_or_default()
                .iter()
                .map(|l| l.trim())
                .take_while(|l| !l.starts_with('['))
                .all(str::is_empty)
        };
        if line.trim() == section && empty_after() {
            continue;
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    /// The backup directory is asked only of a change that keeps a backup: creating a file
    /// has nothing to keep, and cannot be refused for where backups would go.
    #[test]
    fn the_backup_directory_is_asked_only_when_a_backup_is_taken() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        // The locks go in this repository's git directory, whoever runs the test.
        git2::Repository::init(root).unwrap();
        let repo = crate::megg::repos::Repos::new(&[]).get(root).unwrap();
        // A file where the backup directory goes: no backup can be kept.
        std::fs::write(root.join("backups"), "").unwrap();
        let b = fsx::Boundary::new(root, "the test directory");
        let places = Places {
            claude: b.clone(),
            project: b.clone(),
            backups: Some((b.clone(), root.join("backups"))),
            repo: Some(&repo),
        };
        let create = Planned {
            path: root.join("settings.json"),
            action: Action::Create,
            what: "settings".into(),
            content: Some("{}\n".into()),
            backup: true,
            original: None,
            config: None,
        };
        assert_eq!(places.refusal(&create), None);
        std::fs::write(root.join("settings.json"), "{\"a\": 1}\n").unwrap();
        let update = Planned {
            action: Action::Update,
            original: Some("{\"a\": 1}\n".into()),
            ..create
        };
        let why = places.refusal(&update).unwrap();
        assert!(why.contains("backups"), "{why}");
    }
}
