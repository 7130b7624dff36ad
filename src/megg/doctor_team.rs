//! `megg doctor`'s checks of team knowledge (SPEC §11): the merge driver where the attributes
//! name it, and no knowledge file left holding a conflict — nor an entry a merge left both live
//! and superseded (SPEC §17).

use std::path::{Path, PathBuf};

use super::discovery::{self, Domain, Megg};
use super::doctor::{Check, check};
use super::maintain::{self, LiveSuperseded};
use super::project::Project;
use super::setup::merge;
use crate::fsx;

/// A knowledge or archive file doctor asks git about (SPEC §11), relative to the work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeggFile {
    pub rel: String,
    /// In the index or on disk — not only the place the current domain's knowledge would go.
    pub exists: bool,
    /// The `merge` attribute git applies to it names megg's driver.
    pub merge_megg: bool,
}

/// The knowledge and archive files of a repository: those in the index, and the current
/// domain's knowledge file (whether or not it exists yet) and archive files, each with the
/// `merge` attribute git applies to it (every attribute source: the `.gitattributes` files,
/// `.git/info/attributes`, `core.attributesFile`).
pub fn megg_files(project: &Project, domain: Option<&Domain>) -> Vec<MeggFile> {
    let Some(repo) = &project.repo else {
        return Vec::new();
    };
    let mut found: Vec<(String, bool)> = repo
        .index_paths(crate::megg::merge::is_knowledge_path)
        .into_iter()
        .map(|rel| (rel, true))
        .collect();
    if let Some(domain) = domain {
        let archive = domain.megg.join("archive");
        let archived = fsx::list(&domain.boundary, &archive)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, kind)| *kind == fsx::Kind::File)
            .map(|(name, _)| archive.join(name));
        for path in std::iter::once(domain.knowledge_path()).chain(archived) {
            let Some(rel) = project
                .relative(&path)
                .filter(|r| crate::megg::merge::is_knowledge_path(r))
            else {
                continue;
            };
            let exists = fsx::kind(&domain.boundary, &path).is_some();
            match found.iter_mut().find(|(r, _)| *r == rel) {
                Some(known) => known.1 |= exists,
                None => found.push((rel, exists)),
            }
        }
    }
    found
        .into_iter()
        .map(|(rel, exists)| MeggFile {
            merge_megg: merge::names_megg(repo, Path::new(&rel)),
            rel,
            exists,
        })
        .collect()
}

/// Knowledge and archive files left holding a merge conflict (SPEC §11 "Seen, not hidden"):
/// unmerged in the index, or with conflict markers in the work tree; and entries a merge left
/// both live and superseded (SPEC §17: an edit kept against a supersede by a megg before the
/// `**Supersedes:**` line), each by its id and title. `None` when the repository has no such
/// file to look at.
pub fn conflicts(project: &Project, repo: &crate::git::Repo, files: &[MeggFile]) -> Option<Check> {
    let present: Vec<&MeggFile> = files.iter().filter(|f| f.exists).collect();
    if present.is_empty() {
        return None;
    }
    let b = project.boundary();
    let conflicted: Vec<&str> = present
        .iter()
        .filter(|f| {
            repo.is_unmerged(Path::new(&f.rel))
                || fsx::read_text(
                    &b,
                    &project.root.join(&f.rel),
                    crate::megg::merge::MAX_INPUT_BYTES as u64,
                )
                .ok()
                .flatten()
                .is_some_and(|t| crate::megg::conflict::count(&t.text) > 0)
        })
        .map(|f| f.rel.as_str())
        .collect();
    let both = live_superseded(project, &present);
    let mut found: Vec<String> = Vec::new();
    let mut fixes: Vec<String> = Vec::new();
    if !conflicted.is_empty() {
        found.push(format!(
            "unresolved merge conflicts in {}",
            conflicted.join(", ")
        ));
        fixes.push("megg resolve".into());
    }
    let rel = |p: &Path| {
        project
            .relative(p)
            .unwrap_or_else(|| p.display().to_string())
    };
    for e in &both {
        found.push(format!(
            "'{}' ({}) is both live and superseded: live at {}:{}, superseded by '{}' in {} (a merge kept both)",
            e.title,
            e.id,
            rel(&e.live),
            e.line,
            e.successor,
            rel(&e.archive)
        ));
        fixes.push(format!(
            "supersede {} again (`megg learn --supersedes {} …`) or delete its live copy",
            e.id, e.id
        ));
    }
    let fix = fixes.join("; ");
    Some(check(
        "conflicts",
        found.is_empty(),
        if found.is_empty() {
            format!("no merge conflicts in {} knowledge file(s)", present.len())
        } else {
            found.join("; ")
        },
        Some(&fix),
    ))
}

/// The entries of the domains whose `knowledge.md` is among `present` that a merge left both
/// live and superseded, their ids as `search` gives them (a domain's place is its directory
/// relative to the work tree's top).
fn live_superseded(project: &Project, present: &[&MeggFile]) -> Vec<LiveSuperseded> {
    let mut out = Vec::new();
    for f in present {
        let Some(place) = f.rel.strip_suffix(".megg/knowledge.md") else {
            continue;
        };
        if !(place.is_empty() || place.ends_with('/')) {
            continue;
        }
        let place = place.trim_end_matches('/');
        let dir = if place.is_empty() {
            project.root.clone()
        } else {
            project.root.join(place)
        };
        if let Megg::Domain(d) = discovery::megg_at(&dir, &[]) {
            out.extend(maintain::find_live_superseded(&d, place));
        }
    }
    out
}

/// Whether megg's merge driver is in effect where the attributes name it (SPEC §11 "Seen, not
/// hidden"): fails when a file's attribute is `merge=megg` and the driver is missing, half
/// configured, or runs something that is not a megg with `merge-driver`; a hint (not a
/// failure) when knowledge files exist that git would merge line by line. `which` finds the
/// executable a program names (a path as it is, a bare name on PATH); `probe` runs it as
/// `<it> merge-driver --help` and says why it is not megg's driver.
pub fn merge_driver(
    files: &[MeggFile],
    effective: &merge::Effective,
    which: impl Fn(&str) -> Option<PathBuf>,
    probe: impl Fn(&Path) -> Result<(), String>,
) -> Check {
    use crate::git::ConfigLevel;
    let named: Vec<&MeggFile> = files.iter().filter(|f| f.merge_megg).collect();
    let unnamed: Vec<&str> = files
        .iter()
        .filter(|f| f.exists && !f.merge_megg)
        .map(|f| f.rel.as_str())
        .collect();
    // Where the fix goes: the file a broken key came from.
    let fix_for = |v: &crate::git::ConfigValue| match v.level {
        ConfigLevel::User => "megg setup --scope user",
        ConfigLevel::Repository | ConfigLevel::Other => "megg setup",
    };
    let [first, more @ ..] = named.as_slice() else {
        return match unnamed.as_slice() {
            [] => check(
                "merge",
                true,
                "no knowledge files in this repository yet",
                None,
            ),
            some => Check {
                name: "merge",
                ok: true,
                detail: format!(
                    "no merge=megg attribute for {}: git merges knowledge line by line (learnings on two branches conflict){}",
                    some.join(", "),
                    global_note(effective)
                ),
                fix: Some("megg setup".into()),
            },
        };
    };
    let which_files = if more.is_empty() {
        first.rel.clone()
    } else {
        format!("{} and {} more", first.rel, more.len())
    };
    let fail = |detail: String, fix: &str| {
        check(
            "merge",
            false,
            format!("merge=megg applies to {which_files}, but {detail}"),
            Some(fix),
        )
    };
    let (name, driver) = (&effective.name, &effective.driver);
    let driver = match (name, driver) {
        (None, None) => {
            return fail(
                format!(
                    "no merge driver `megg` is configured: git merges it line by line{}",
                    global_note(effective)
                ),
                "megg setup",
            );
        }
        (Some(n), None) => {
            return fail(
                format!(
                    "{} is set without {}: git aborts the merge",
                    merge::NAME_KEY,
                    merge::DRIVER_KEY
                ),
                fix_for(n),
            );
        }
        (None, Some(d)) => {
            return fail(
                format!("{} is set without {}", merge::DRIVER_KEY, merge::NAME_KEY),
                fix_for(d),
            );
        }
        (Some(_), Some(d)) => d,
    };
    let fix = fix_for(driver);
    let command = &driver.value;
    let Some((program, args)) = merge::split(command) else {
        return fail(format!("the driver `{command}` is not one megg wrote"), fix);
    };
    if args != merge::ARGS {
        return fail(
            format!(
                "the driver `{command}` does not pass megg's arguments (`{}`)",
                merge::ARGS
            ),
            fix,
        );
    }
    // Only a program called megg is run: doctor never runs whatever a config file names.
    if Path::new(&program).file_name().is_none_or(|n| n != "megg") {
        return fail(
            format!("the driver runs `{program}`, which is not megg"),
            fix,
        );
    }
    let Some(path) = which(&program) else {
        return fail(
            format!(
                "the driver runs `{program}`, which is not there: git leaves the file unmerged"
            ),
            fix,
        );
    };
    if let Err(why) = probe(&path) {
        return fail(
            format!(
                "the driver runs {}, which is not a megg with merge-driver ({why})",
                path.display()
            ),
            fix,
        );
    }
    let mut c = check(
        "merge",
        true,
        format!(
            "git merges {which_files} entry by entry with {}",
            path.display()
        ),
        None,
    );
    if !unnamed.is_empty() {
        c.detail.push_str(&format!(
            "; no merge=megg attribute for {}",
            unnamed.join(", ")
        ));
        c.fix = Some("megg setup".into());
    }
    c
}

/// Why the driver is not in the user's global git config, when that file cannot take it (setup
/// skipped it there): the fix is the repository's own config.
fn global_note(effective: &merge::Effective) -> String {
    match (
        &effective.global_refused,
        &effective.name,
        &effective.driver,
    ) {
        (Some(why), None, None) => format!(
            "; `megg setup --scope user` cannot register it in your global git config ({why}): run `megg setup` in this repository"
        ),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::{ConfigLevel, ConfigValue};

    fn file(rel: &str, exists: bool, merge_megg: bool) -> MeggFile {
        MeggFile {
            rel: rel.into(),
            exists,
            merge_megg,
        }
    }

    fn value(value: &str, level: ConfigLevel) -> Option<ConfigValue> {
        Some(ConfigValue {
            value: value.into(),
            level,
        })
    }

    fn run(files: &[MeggFile], name: Option<ConfigValue>, driver: Option<ConfigValue>) -> Check {
        let effective = merge::Effective {
            name,
            driver,
            global_refused: None,
        };
        merge_driver(
            files,
            &effective,
            |p| Some(PathBuf::from("/bin").join(p)).filter(|_| p != "/gone/megg"),
            |p| {
                (p == Path::new("/opt/megg"))
                    .then_some(())
                    .ok_or_else(|| "no".to_string())
            },
        )
    }

    #[test]
    fn the_merge_check_names_the_failure_and_where_to_fix_it() {
        let named = [file(".megg/knowledge.md", true, true)];
        let good = merge::command("/opt/megg");
        let c = run(
            &named,
            value(merge::NAME, ConfigLevel::User),
            value(&good, ConfigLevel::User),
        );
        assert!(c.ok && c.fix.is_none(), "{c:?}");
        let c = run(&named, None, None);
        assert_eq!((c.ok, c.fix.as_deref()), (false, Some("megg setup")));
        let c = run(&named, value("n", ConfigLevel::User), None);
        assert_eq!(c.fix.as_deref(), Some("megg setup --scope user"), "{c:?}");
        let c = run(
            &named,
            value("n", ConfigLevel::Repository),
            value("'/x/megg' merge-driver", ConfigLevel::Repository),
        );
        assert!(c.detail.contains("megg's arguments"), "{c:?}");
        let gone = merge::command("/gone/megg");
        let c = run(
            &named,
            value("n", ConfigLevel::Repository),
            value(&gone, ConfigLevel::Repository),
        );
        assert!(
            c.detail.contains("`/gone/megg`, which is not there"),
            "{c:?}"
        );
        // A bare `megg` is looked up on PATH, then run.
        let c = run(
            &named,
            value("n", ConfigLevel::Repository),
            value(&format!("megg {}", merge::ARGS), ConfigLevel::Repository),
        );
        let found = PathBuf::from("/bin").join("megg");
        assert!(
            c.detail.contains(&format!(
                "{}, which is not a megg with merge-driver (no)",
                found.display()
            )),
            "{c:?}"
        );
    }

    #[test]
    fn knowledge_without_the_attribute_is_a_hint() {
        let c = run(&[file("a/.megg/knowledge.md", true, false)], None, None);
        assert_eq!((c.ok, c.fix.as_deref()), (true, Some("megg setup")));
        // The current domain's knowledge file that does not exist yet is no reason for a hint.
        let c = run(&[file(".megg/knowledge.md", false, false)], None, None);
        assert_eq!((c.ok, c.fix), (true, None));
        // Covered and not covered at once: healthy, with the hint.
        let good = merge::command("/opt/megg");
        let files = [
            file(".megg/knowledge.md", true, true),
            file(".megg/archive/2024.md", true, false),
        ];
        let c = run(
            &files,
            value("n", ConfigLevel::Repository),
            value(&good, ConfigLevel::Repository),
        );
        assert!(
            c.ok && c
                .detail
                .contains("no merge=megg attribute for .megg/archive/2024.md"),
            "{c:?}"
        );
        assert_eq!(c.fix.as_deref(), Some("megg setup"));
    }
}
