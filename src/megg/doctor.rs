//! `megg doctor`'s checks (SPEC §7): is megg wired into Claude Code, and are its files healthy?
//! Each check is a function from what it inspects to a [`Check`] that says how to fix what it
//! finds. The command gathers the inputs (HOME, PATH) and renders the results.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::fsx;
use crate::megg::context::MAX_KNOWLEDGE_BYTES;
use crate::megg::discovery::Domain;
use crate::megg::project::Project;
use crate::megg::setup::{self, Hook, merge};
use crate::megg::state::MAX_STATE_BYTES;
use crate::megg::{checkpoint, state};
use crate::templates::CLAUDE_FILES;
use crate::tokens::Counter;

/// Most bytes of a settings file or `.mcp.json` read.
const MAX_JSON_BYTES: u64 = 1024 * 1024;

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
    /// What to run or do: on a failed check, or on an optional part that is not set up.
    pub fix: Option<String>,
}

fn check(name: &'static str, ok: bool, detail: impl Into<String>, fix: Option<&str>) -> Check {
    Check {
        name,
        ok,
        detail: detail.into(),
        fix: if ok { None } else { fix.map(str::to_string) },
    }
}

/// The Claude Code settings files that parse, and the check that they all do.
pub fn settings(project: &Project, claude_dirs: &[PathBuf]) -> (Check, Vec<(PathBuf, Value)>) {
    let mut settings = Vec::new();
    let mut broken = Vec::new();
    for dir in claude_dirs {
        for name in ["settings.json", "settings.local.json"] {
            let path = dir.join(name);
            match fsx::read_text(&claude_boundary(project, dir), &path, MAX_JSON_BYTES) {
                Ok(Some(t)) => match serde_json::from_str::<Value>(&t.text) {
                    Ok(v) => settings.push((path, v)),
                    Err(e) => broken.push(format!("{}: {e}", path.display())),
                },
                Ok(None) => {}
                Err(e) => broken.push(e.message),
            }
        }
    }
    let c = check(
        "settings",
        broken.is_empty(),
        if broken.is_empty() {
            format!("{} Claude Code settings file(s) parse", settings.len())
        } else {
            format!("invalid JSON: {}", broken.join("; "))
        },
        Some(
            "fix the JSON by hand (setup keeps the previous bytes under .git/megg/backups/ or ~/.claude/.megg-backups/)",
        ),
    );
    (c, settings)
}

/// Whether a settings file enables the megg plugin (which provides hook, skill and commands).
pub fn plugin_enabled(settings: &[(PathBuf, Value)]) -> bool {
    settings
        .iter()
        .any(|(_, v)| setup::active::plugin_enabled(v))
}

/// The SessionStart hook is registered and its program exists (`which` finds a program).
pub fn hook(
    settings: &[(PathBuf, Value)],
    plugin: bool,
    active: &[setup::active::Source],
    which: impl Fn(&str) -> Option<PathBuf>,
) -> Check {
    // Every registration with the program it runs: the first that finds its program is the
    // one that answers (a project's guarded `megg` is a no-op where a user hook runs megg's
    // absolute path).
    let all: Vec<(PathBuf, String, Option<PathBuf>)> = settings
        .iter()
        .flat_map(|(p, v)| {
            setup::hook_commands(v, Hook::Context)
                .into_iter()
                .map(|c| (p.clone(), c))
        })
        .map(|(p, command)| {
            let program = Hook::Context
                .program(&command)
                .unwrap_or_else(|| "megg".into());
            let found = which(&program);
            (p, command, found)
        })
        .collect();
    let first = all
        .iter()
        .find(|(_, _, found)| found.is_some())
        .or(all.first())
        .cloned();
    let c = match first {
        Some((path, command, found)) => {
            let program = Hook::Context
                .program(&command)
                .unwrap_or_else(|| "megg".into());
            check(
                "hook",
                found.is_some(),
                match &found {
                    Some(bin) => {
                        format!("`{command}` in {} runs {}", path.display(), bin.display())
                    }
                    None => format!(
                        "`{command}` in {}: `{program}` is not on PATH",
                        path.display()
                    ),
                },
                Some("megg setup --scope user"),
            )
        }
        None if plugin => check("hook", true, "provided by the megg plugin", None),
        None => check(
            "hook",
            false,
            "no SessionStart hook runs `megg context --json`",
            Some("megg setup"),
        ),
    };
    twice(c, active, KEEP_ONE_HOOK)
}

/// The fix for megg's hook registered in two places.
const KEEP_ONE_HOOK: &str = "keep one: `megg setup --uninstall`, `megg setup --scope user --uninstall`, or disable the megg plugin";

/// One megg per session (SPEC §7): registered in two places (the user's scope and a
/// project's, the plugin), megg's hooks both run; the hook answers each session once, so this
/// is a warning with its fix, not a failure.
fn twice(mut c: Check, active: &[setup::active::Source], fix: &str) -> Check {
    if active.len() > 1 && c.ok {
        let names: Vec<String> = active.iter().map(ToString::to_string).collect();
        c.detail = format!(
            "{}; registered {} times: {} — both run, and megg answers each session once",
            c.detail,
            active.len(),
            names.join(" and ")
        );
        c.fix = Some(fix.into());
    }
    c
}

/// What doctor says when no capture hook is registered.
const CAPTURE_NOT_INSTALLED: &str =
    "capture hooks not installed: the next session starts from the last hand-written state only";

/// megg's capture hooks (SPEC §10) run once each: `active` are the places [`setup::active`]
/// found them, `off` is `MEGG_CAPTURE=off`. Capture is optional (`megg setup --no-capture`), so
/// hooks that are not installed are not a failure, but the fix is still shown. `last_capture`
/// is the capture log's last line, shown when there is one.
pub fn capture(
    project: &Project,
    settings: &[(PathBuf, Value)],
    active: &[setup::active::Source],
    off: bool,
    last_capture: Option<String>,
) -> Check {
    use setup::active::Source;
    let mut c = match active {
        _ if off => check("capture", true, "capture is off (MEGG_CAPTURE=off)", None),
        [] => Check {
            name: "capture",
            ok: true,
            detail: CAPTURE_NOT_INSTALLED.into(),
            fix: Some("megg setup".into()),
        },
        [Source::Settings(path)] => {
            // Once each: every event there, none twice.
            let value = settings.iter().find(|(p, _)| p == path).map(|(_, v)| v);
            let wrong: Vec<String> = setup::CAPTURE_EVENTS
                .iter()
                .filter_map(|event| {
                    let n =
                        value.map_or(0, |v| setup::event_commands(v, Hook::Capture, event).len());
                    match n {
                        1 => None,
                        0 => Some(format!("{event} missing")),
                        n => Some(format!("{event} {n} times")),
                    }
                })
                .collect();
            check(
                "capture",
                wrong.is_empty(),
                if wrong.is_empty() {
                    format!(
                        "PreCompact, SessionEnd and Stop registered in {}",
                        path.display()
                    )
                } else {
                    format!(
                        "megg's capture hooks in {}: {}",
                        path.display(),
                        wrong.join(", ")
                    )
                },
                Some(if path.starts_with(&project.root) {
                    "megg setup"
                } else {
                    "megg setup --scope user"
                }),
            )
        }
        [_] => check("capture", true, "provided by the megg plugin", None),
        // Two registrations: both run; the capture answers each event once (SPEC §7).
        [first, ..] => twice(
            match first {
                Source::Settings(path) => check(
                    "capture",
                    true,
                    format!("megg's capture hooks in {}", path.display()),
                    None,
                ),
                _ => check("capture", true, "provided by the megg plugin", None),
            },
            active,
            "keep one: `megg setup --no-capture`, `megg setup --scope user --no-capture`, or disable the megg plugin",
        ),
    };
    if let Some(line) = last_capture {
        c.detail.push_str(&format!("; last capture: {line}"));
    }
    c
}

/// The skill and the workflow commands are installed in one of `claude_dirs`. A file at one
/// of their paths that megg did not install (the user's own `plan.md`, which setup leaves
/// alone) is not megg's command: a warning naming it, with its fix.
pub fn installed(project: &Project, claude_dirs: &[PathBuf], plugin: bool) -> Vec<Check> {
    let mut checks = Vec::new();
    for (name, prefix) in [("skill", "skills/"), ("commands", "commands/")] {
        let mut missing: Vec<&str> = Vec::new();
        let mut foreign: Vec<PathBuf> = Vec::new();
        for (rel, template) in CLAUDE_FILES.iter().filter(|(r, _)| r.starts_with(prefix)) {
            let mut theirs = None;
            let ours = claude_dirs.iter().any(|d| {
                let b = claude_boundary(project, d);
                let path = d.join(rel);
                match fsx::read_text(&b, &path, MAX_JSON_BYTES) {
                    Ok(Some(t)) => {
                        let mine = setup::classify_installed(&t.text, template)
                            != setup::Installed::Foreign;
                        if !mine {
                            theirs.get_or_insert(path);
                        }
                        mine
                    }
                    _ => false,
                }
            });
            match (ours, theirs) {
                (true, _) => {}
                (false, Some(path)) => foreign.push(path),
                (false, None) => missing.push(rel),
            }
        }
        checks.push(if plugin {
            check(name, true, "provided by the megg plugin", None)
        } else if !missing.is_empty() {
            check(
                name,
                false,
                format!("missing: {}", missing.join(", ")),
                Some("megg setup"),
            )
        } else if !foreign.is_empty() {
            let files: Vec<String> = foreign.iter().map(|p| p.display().to_string()).collect();
            Check {
                name,
                ok: true,
                detail: format!(
                    "installed, except where a file megg did not install is in the way (setup left it alone): {}",
                    files.join(", ")
                ),
                fix: Some(format!(
                    "to get megg's, move {} aside and run `megg setup` (in the scope it is in) again",
                    files.join(" and ")
                )),
            }
        } else {
            check(name, true, "installed", None)
        });
    }
    checks
}

/// The MCP server is registered: `servers` are the places [`setup::active`] found it.
pub fn mcp(servers: &[setup::active::Source], fix: &str) -> Check {
    use setup::active::Source;
    let detail = match servers.first() {
        Some(Source::Mcp(p)) if p.ends_with(".mcp.json") => "registered in .mcp.json",
        Some(Source::Mcp(_)) => "registered in ~/.claude.json",
        Some(_) => "provided by the megg plugin",
        None => "the MCP server `megg` is not registered",
    };
    check("mcp", !servers.is_empty(), detail, Some(fix))
}

/// Whether megg's hook was installed in user scope (a settings file outside the project):
/// then a missing MCP server's fix is `claude mcp add --scope user`, not `megg setup`.
pub fn hooks_in_user_scope(project: &Project, hooks: &[setup::active::Source]) -> bool {
    hooks
        .iter()
        .any(|h| matches!(h, setup::active::Source::Settings(p) if !p.starts_with(&project.root)))
}

/// A `.megg` domain exists at or above the starting directory; without one there is no
/// context to load (SPEC §7: else `megg init`).
pub fn domain(domain: Option<&Domain>, cwd: &Path) -> Check {
    match domain {
        Some(d) => check("domain", true, format!("{}", d.megg.display()), None),
        None => check(
            "domain",
            false,
            format!(
                "no .megg at or above {}: sessions start with no project context",
                cwd.display()
            ),
            Some("megg init"),
        ),
    }
}

/// Git ignores checkpoints (only inside a repository).
pub fn gitignore(project: &Project) -> Option<Check> {
    let repo = project.repo.as_ref()?;
    let ignored = repo.is_ignored(Path::new(".megg-example.local.md"));
    Some(check(
        "gitignore",
        ignored,
        if ignored {
            "checkpoints are ignored by git"
        } else {
            "checkpoint files would show in git status"
        },
        Some("megg gitignore"),
    ))
}

/// No checkpoint is corrupt.
pub fn checkpoints(project: &Project) -> Check {
    let scan = checkpoint::scan(&project.roots);
    check(
        "checkpoints",
        scan.corrupt.is_empty(),
        if scan.corrupt.is_empty() {
            format!("{} checkpoint(s), none corrupt", scan.checkpoints.len())
        } else {
            let names: Vec<String> = scan
                .corrupt
                .iter()
                .map(|(p, e)| format!("{} ({e})", p.display()))
                .collect();
            format!("corrupt: {}", names.join("; "))
        },
        Some("megg checkpoint resume"),
    )
}

/// No file of the current domain was refused (SPEC §9); `refused` holds what discovery
/// already refused.
pub fn files(domain: Option<&Domain>, mut refused: Vec<String>) -> Check {
    if let Some(domain) = domain {
        for path in [
            domain.state_path(),
            domain.knowledge_path(),
            domain.info_path(),
        ] {
            if let Err(e) = fsx::read_text(&domain.boundary, &path, 0) {
                refused.push(e.message);
            }
        }
    }
    check(
        "files",
        refused.is_empty(),
        if refused.is_empty() {
            "no file refused (links out, special files, other users' domains)".to_string()
        } else {
            format!("refused: {}", refused.join("; "))
        },
        Some(
            "replace the link or special file with a regular file, or `megg trust <dir>` for a directory you own",
        ),
    )
}

/// No `state.md` is left that megg does not load: expired (done, too old, undated), or one
/// whose frontmatter does not parse — each named as what it is, with the fix that fits.
pub fn expired_state(domain: &Domain, now: DateTime<Utc>) -> Check {
    let doc = fsx::read_text(&domain.boundary, &domain.state_path(), MAX_STATE_BYTES)
        .ok()
        .flatten()
        .map(|t| state::parse(&t.text, "state.md"));
    let Some(doc) = doc else {
        return check("state", true, "no expired state", None);
    };
    // The parser's warning says what it could not read (no frontmatter, a YAML error and where).
    if let Some(why) = doc.warnings.first() {
        let why = why.trim_end_matches("; treating it as expired");
        return check(
            "state",
            false,
            format!("{why}, so it is not loaded"),
            Some(
                "repair the frontmatter between the `---` lines, or `megg state clear` to drop the handoff",
            ),
        );
    }
    match state::expiry_within(&doc, now, domain.state_lifetime(&mut Vec::new())).reason() {
        None => check("state", true, "no expired state", None),
        Some(reason) => check(
            "state",
            false,
            format!("state.md is expired ({reason})"),
            Some("megg state clear"),
        ),
    }
}

/// Knowledge is small enough to load.
pub fn knowledge(domain: &Domain, tokens: &Counter) -> Check {
    let count = fsx::read_text(
        &domain.boundary,
        &domain.knowledge_path(),
        MAX_KNOWLEDGE_BYTES,
    )
    .ok()
    .flatten()
    .map_or(0, |t| {
        if t.truncated {
            usize::MAX
        } else {
            tokens.count(&t.text)
        }
    });
    let over = count > crate::megg::knowledge::BLOCKED_ABOVE;
    check(
        "knowledge",
        !over,
        format!(
            "knowledge.md is {count} tokens{}",
            if over {
                format!(" (over {}: blocked)", crate::megg::knowledge::BLOCKED_ABOVE)
            } else {
                String::new()
            }
        ),
        Some("megg maintain"),
    )
}

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
/// unmerged in the index, or with conflict markers in the work tree. `None` when the
/// repository has no such file to look at.
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
    Some(check(
        "conflicts",
        conflicted.is_empty(),
        if conflicted.is_empty() {
            format!("no merge conflicts in {} knowledge file(s)", present.len())
        } else {
            format!("unresolved merge conflicts in {}", conflicted.join(", "))
        },
        Some("megg resolve"),
    ))
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

/// The project's `.claude` lies inside the project; the user's is the user's own.
fn claude_boundary(project: &Project, dir: &Path) -> fsx::Boundary {
    if dir.starts_with(&project.root) {
        project.boundary()
    } else {
        fsx::Boundary::user(dir, "~/.claude")
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
        assert!(
            c.detail
                .contains("/bin/megg, which is not a megg with merge-driver (no)"),
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
