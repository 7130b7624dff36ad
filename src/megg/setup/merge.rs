//! megg's merge driver registration (SPEC §11 "Registration"): the `.gitattributes` block that
//! names `merge=megg` for knowledge and archive files, and the two git config keys that say
//! what `megg` runs — planned like every other change setup makes, and read back the way git
//! reads them by `init` (a hint) and `doctor` (a check).

use std::path::{Path, PathBuf};

use super::plan::{self, BlockRecord, ConfigEdit, Planned};
use super::{Action, Scope};
use crate::error::{Error, Result};
use crate::fsx;
use crate::git::{self, Attr, ConfigValue, Repo};
use crate::megg::block::Block;
use crate::megg::project::Project;

/// The `.gitattributes` block (the lines of `templates/gitattributes`).
pub const ATTRIBUTES: Block = Block {
    header: "# megg: merge knowledge entry by entry (megg merge-driver)",
    lines: &[
        "**/.megg/knowledge.md merge=megg",
        "**/.megg/archive/*.md merge=megg",
    ],
};

/// The driver's name: `merge=megg` in attributes, `[merge "megg"]` in config.
pub const DRIVER: &str = "megg";
/// The config key naming the driver (git shows it in messages).
pub const NAME_KEY: &str = "merge.megg.name";
/// The config key holding the command git runs.
pub const DRIVER_KEY: &str = "merge.megg.driver";
/// The config section both keys live in, as libgit2 writes its header.
const SECTION: &str = "[merge \"megg\"]";
/// `merge.megg.name`'s value.
pub const NAME: &str = "megg knowledge entries";
/// What follows the program in the driver command: git's placeholders (gitattributes(5)).
pub const ARGS: &str = "merge-driver --marker-size %L %O %A %B %P";

/// The driver command that runs the megg at `exe`. The absolute path, always single-quoted:
/// git runs the command with `sh` — Git for Windows too, with its own, which takes a quoted
/// `C:\…\megg.exe` as it is — and GUI git clients may not have `~/.cargo/bin` on PATH.
pub fn command(exe: &str) -> String {
    format!("'{}' {ARGS}", exe.replace('\'', r"'\''"))
}

/// The program a driver command runs and the rest of the command, read without a shell: a
/// first word made of single-quoted parts (`'\''` joins them, as [`command`] writes) and plain
/// characters. `None` when it uses anything else a shell would interpret (double quotes, `$`,
/// backslashes, globs…): megg never writes those, and never guesses what they run.
pub fn split(command: &str) -> Option<(String, &str)> {
    let mut rest = command.trim_start();
    let mut program = String::new();
    while let Some(c) = rest.chars().next() {
        match c {
            c if c.is_whitespace() => break,
            '\'' => {
                let (quoted, after) = rest.strip_prefix('\'')?.split_once('\'')?;
                program.push_str(quoted);
                rest = after;
            }
            '\\' if rest.starts_with("\\'") => {
                program.push('\'');
                rest = rest.strip_prefix("\\'").unwrap_or_default();
            }
            c if "\"$`\\;&|<>()*?[]{}~#!".contains(c) => return None,
            c => {
                program.push(c);
                rest = rest.strip_prefix(c).unwrap_or_default();
            }
        }
    }
    (!program.is_empty()).then(|| (program, rest.trim_start()))
}

/// The driver keys as git reads them for a repository, from whichever file sets each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    pub name: Option<ConfigValue>,
    pub driver: Option<ConfigValue>,
    /// Why the user's global git config cannot take the keys (`GIT_CONFIG_GLOBAL=/dev/null`, a
    /// directory the user may not write…): `megg setup --scope user` skips the driver there.
    pub global_refused: Option<String>,
}

impl Effective {
    /// Reads both keys; `global` is the user's global config file (git's, not libgit2's idea
    /// of it: [`git::global_config_path`]).
    pub fn read(repo: &Repo, global: Option<&Path>) -> Self {
        Self {
            name: repo.config_value(NAME_KEY, global),
            driver: repo.config_value(DRIVER_KEY, global),
            global_refused: global.and_then(global_refusal),
        }
    }
}

/// Why megg cannot write the global git config at `path`, `None` when it can.
fn global_refusal(path: &Path) -> Option<String> {
    plan::refusal_beside(path, GLOBAL_DIR)
}

/// What the global git config's directory is called in a refusal.
const GLOBAL_DIR: &str = "your git config's directory";

/// Whether the attribute git applies to `rel` names megg's driver.
pub fn names_megg(repo: &Repo, rel: &Path) -> bool {
    repo.attribute(rel, "merge") == Attr::Value(DRIVER.into())
}

/// Whether git would merge `path` (a knowledge file of `project`) with megg's driver: its
/// `merge` attribute names megg and a driver command is configured. `None` outside git.
pub fn in_effect(project: &Project, path: &Path, global: Option<&Path>) -> Option<bool> {
    let repo = project.repo.as_ref()?;
    repo.workdir()?;
    let rel = project.relative(path)?;
    Some(names_megg(repo, Path::new(&rel)) && Effective::read(repo, global).driver.is_some())
}

/// What setup does about the merge driver.
pub struct Registration {
    pub planned: Vec<Planned>,
    /// The `.gitattributes` lines setup added (project scope).
    pub record: Option<BlockRecord>,
    /// Why nothing is registered (project scope outside git).
    pub note: Option<String>,
}

/// Plans the registration for `scope`: at project scope the `.gitattributes` block at the work
/// tree's top and the keys in the repository's own config; at user scope the keys in the
/// user's global config (`global`), so every repository whose attributes name `merge=megg`
/// uses it. `exe` is the running megg's absolute path. With `uninstall`, the inverse.
pub fn plan(
    project: &Project,
    scope: Scope,
    exe: &str,
    global: Option<PathBuf>,
    uninstall: bool,
) -> Result<Registration> {
    let mut registration = Registration {
        planned: Vec::new(),
        record: None,
        note: None,
    };
    let wanted = command(exe);
    match scope {
        Scope::Project => {
            let Some(repo) = project.repo.as_ref().filter(|r| r.workdir().is_some()) else {
                registration.note = Some(
                    "not inside a git work tree: megg's merge driver is not registered (run megg setup in the repository, or megg setup --scope user)".into(),
                );
                return Ok(registration);
            };
            let (block, record) = plan::plan_block(
                project,
                &ATTRIBUTES,
                ".gitattributes",
                "merge=megg for knowledge files",
                uninstall,
            )?;
            registration.planned.push(block);
            registration.record = record;
            let common = repo.common_dir();
            let b = fsx::Boundary::new(&common, "the git directory");
            let (keys, refused) = plan_keys(&repo.config_path(), b, &wanted, uninstall)?;
            registration.note = refused.map(|why| {
                format!(
                    "skipped megg's merge driver ({why}): git merges knowledge files line by line until it is registered"
                )
            });
            registration.planned.push(keys);
        }
        Scope::User => {
            let path = global.ok_or_else(|| {
                Error::user("HOME is not set: megg cannot find your global git config")
                    .with_hint("set HOME (or GIT_CONFIG_GLOBAL), or use --scope project")
            })?;
            let dir = path.parent().unwrap_or(Path::new("/"));
            let b = fsx::Boundary::user(dir, GLOBAL_DIR);
            let (keys, refused) = plan_keys(&path, b, &wanted, uninstall)?;
            registration.note = refused.map(|why| {
                format!(
                    "skipped megg's merge driver in your global git config ({why}): register it in each repository instead, with `megg setup` there (project scope)"
                )
            });
            registration.planned.push(keys);
        }
    }
    Ok(registration)
}

/// The change to `merge.megg.name` and `merge.megg.driver` in the config file at `path`:
/// both set to megg's (never one without the other: a name without a driver aborts every
/// merge), or both removed.
///
/// A file setup cannot write (a device such as `GIT_CONFIG_GLOBAL=/dev/null`, a directory, a
/// link to nowhere or to a read-only place, a file in a directory this user may not write) is a
/// [`Action::Skipped`] whose `what` says why — planned, so a dry run says what the run will do,
/// and the hosts the user asked for are installed all the same; the reason comes back beside
/// it. Only a regular file is read: libgit2 would block on a FIFO.
fn plan_keys(
    path: &Path,
    b: fsx::Boundary,
    wanted: &str,
    uninstall: bool,
) -> Result<(Planned, Option<String>)> {
    // libgit2 writes a config file by a rename over it, like megg's own writes.
    if let Some(why) = fsx::write_refusal(&b, path, fsx::Landing::Replace) {
        let holds_megg = fsx::is_file(&b, path)
            && git::config_file_values(path, &[NAME_KEY, DRIVER_KEY])
                .is_ok_and(|v| v.iter().any(Option::is_some));
        if uninstall && !holds_megg {
            let planned = Planned {
                action: Action::Unchanged,
                ..plan::skipped(path, "merge driver `megg`: not registered")
            };
            return Ok((planned, None));
        }
        let planned = plan::skipped(path, &format!("merge driver `megg`: {why}"));
        return Ok((planned, Some(why)));
    }
    let values = git::config_file_values(path, &[NAME_KEY, DRIVER_KEY])?;
    let value = |i: usize| values.get(i).and_then(Option::as_deref);
    let (name, driver) = (value(0), value(1));
    let exists = fsx::kind(&b, path).is_some();
    let mut what = "merge driver `megg`: merge.megg.name, merge.megg.driver".to_string();
    let mut edit = ConfigEdit {
        boundary: b.clone(),
        backup_name: match path.file_name().and_then(|n| n.to_str()) {
            Some("config") | None => "git-config".into(),
            Some(name) => name.to_string(),
        },
        set: Vec::new(),
        remove: Vec::new(),
        section: SECTION,
    };
    let action = if uninstall {
        if name.is_none() && driver.is_none() {
            Action::Unchanged
        } else {
            // The name first: a run cut short never leaves a name without its driver.
            edit.remove = vec![NAME_KEY, DRIVER_KEY];
            let text = fsx::read_for_edit(&b, path, plan::MAX_SETTINGS_BYTES).unwrap_or_default();
            if text.as_deref().is_some_and(only_megg) {
                Action::Remove
            } else {
                Action::Update
            }
        }
    } else if name == Some(NAME) && driver == Some(wanted) {
        Action::Unchanged
    } else {
        // The driver first, for the same reason.
        edit.set = vec![(DRIVER_KEY, wanted.into()), (NAME_KEY, NAME.into())];
        if let Some(other) = driver.filter(|d| *d != wanted) {
            what = format!("merge driver `megg`: replaces `{other}`");
        }
        if exists {
            Action::Update
        } else {
            Action::Create
        }
    };
    let planned = Planned {
        path: path.to_path_buf(),
        action,
        what,
        content: None,
        backup: exists,
        original: None,
        config: Some(edit),
    };
    Ok((planned, None))
}

/// Whether a git config text holds nothing but megg's two keys (and blank or comment lines):
/// then removing them leaves nothing, and the file goes.
fn only_megg(text: &str) -> bool {
    let mut in_megg = false;
    text.lines().map(str::trim).all(|line| {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            return true;
        }
        if line.starts_with('[') {
            in_megg = line == SECTION;
            return in_megg;
        }
        let key = line.split('=').next().unwrap_or("").trim();
        in_megg && (key.eq_ignore_ascii_case("name") || key.eq_ignore_ascii_case("driver"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_is_the_template() {
        let lines: Vec<&str> = crate::templates::GITATTRIBUTES.lines().collect();
        let mut want = vec![ATTRIBUTES.header];
        want.extend(ATTRIBUTES.lines);
        assert_eq!(lines, want);
    }

    #[test]
    fn the_command_quotes_the_path_and_split_reads_it_back() {
        assert_eq!(
            command("/usr/local/bin/megg"),
            "'/usr/local/bin/megg' merge-driver --marker-size %L %O %A %B %P"
        );
        for exe in [
            "/usr/bin/megg",
            "/home/o'neil/my bin/megg",
            "/a/$(x)/`y`/megg",
            // Git for Windows runs the driver with its own sh, which takes a quoted Windows
            // path as it is (SPEC §15.1): backslashes inside single quotes are plain.
            r"C:\Users\O'Neil\AppData\Local\Programs\megg\megg.exe",
            r"C:\Program Files\megg\megg.exe",
        ] {
            let written = command(exe);
            let (program, rest) = split(&written).unwrap();
            assert_eq!((program.as_str(), rest), (exe, ARGS), "{exe}");
        }
        assert_eq!(
            split("megg merge-driver %O"),
            Some(("megg".into(), "merge-driver %O"))
        );
        assert_eq!(split("/bin/true"), Some(("/bin/true".into(), "")));
        // What a shell would expand or join differently is not guessed at.
        for odd in [
            "\"/a b/megg\" x",
            "$HOME/megg x",
            "'/unclosed x",
            "a\\ b x",
            "",
        ] {
            assert_eq!(split(odd), None, "{odd}");
        }
    }

    #[test]
    fn an_emptied_section_goes_and_nothing_else() {
        let text = "[core]\n\tbare = false\n[merge \"megg\"]\n[user]\n\tname = x\n";
        assert_eq!(
            plan::drop_empty_section(text, SECTION),
            "[core]\n\tbare = false\n[user]\n\tname = x\n"
        );
        let at_end = "[core]\n\tbare = false\n[merge \"megg\"]\n\n";
        assert_eq!(
            plan::drop_empty_section(at_end, SECTION),
            "[core]\n\tbare = false\n\n"
        );
        let kept = "[merge \"megg\"]\n\tmine = yes\n";
        assert_eq!(plan::drop_empty_section(kept, SECTION), kept);
        assert_eq!(
            plan::drop_empty_section("[merge \"other\"]\n", SECTION),
            "[merge \"other\"]\n"
        );
    }

    #[test]
    fn a_file_of_megg_keys_only_is_removed_whole() {
        assert!(only_megg(
            "[merge \"megg\"]\n\tname = megg knowledge entries\n\tdriver = 'x' merge-driver\n"
        ));
        assert!(!only_megg(
            "[merge \"megg\"]\n\tname = n\n[user]\n\tname = x\n"
        ));
        assert!(!only_megg("[merge \"megg\"]\n\trecursive = binary\n"));
        assert!(!only_megg("[core]\n"));
    }
}
