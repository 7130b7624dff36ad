//! `megg doctor`'s checks (SPEC §7): is megg wired into Claude Code, and are its files healthy?
//! Each check is a function from what it inspects to a [`Check`] that says how to fix what it
//! finds. The command gathers the inputs (HOME, PATH) and renders the results.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::claude::{EXEC_FORM_SINCE, Version};
use crate::fsx;
use crate::megg::context::MAX_KNOWLEDGE_BYTES;
use crate::megg::discovery::Domain;
use crate::megg::project::Project;
use crate::megg::setup::{self, Hook};
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

pub(super) fn check(
    name: &'static str,
    ok: bool,
    detail: impl Into<String>,
    fix: Option<&str>,
) -> Check {
    Check {
        name,
        ok,
        detail: detail.into(),
        fix: if ok { None } else { fix.map(str::to_string) },
    }
}

/// Whether the Claude Code on PATH runs the exec form (`"command"` + `"args"`) megg's hooks in
/// `settings` use (SPEC §15.1): one older than [`EXEC_FORM_SINCE`] drops `args` and runs
/// `megg` alone. `None` where no hook of megg's uses the form, or no version could be read
/// (`version` is asked only when one does).
pub fn exec_form(
    settings: &[(PathBuf, Value)],
    version: impl FnOnce() -> Option<Version>,
) -> Option<Check> {
    let claude = crate::host::Agent::Claude.host();
    let files: Vec<String> = settings
        .iter()
        .filter(|(_, v)| {
            [Hook::Context, Hook::Capture].into_iter().any(|hook| {
                setup::megg_handlers(v, claude, hook)
                    .iter()
                    .any(|(_, h)| h.get("args").is_some())
            })
        })
        .map(|(p, _)| p.display().to_string())
        .collect();
    if files.is_empty() {
        return None;
    }
    let version = version()?;
    let ok = version >= EXEC_FORM_SINCE;
    let detail = if ok {
        format!("Claude Code {version} runs the exec form of megg's hooks")
    } else {
        format!(
            "megg's hooks in {} use the exec form, which Claude Code {version} does not run: it drops `args` and runs `megg` alone (the form needs Claude Code {EXEC_FORM_SINCE})",
            files.join(", ")
        )
    };
    Some(check(
        "claude exec form",
        ok,
        detail,
        Some(
            "`claude update`; or, on Windows, run `megg setup` again (for that scope) to write shell lines this Claude Code runs",
        ),
    ))
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
                        "PreCompact, PostCompact, SessionEnd and Stop registered in {}",
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

/// The project's `.claude` lies inside the project; the user's is the user's own.
fn claude_boundary(project: &Project, dir: &Path) -> fsx::Boundary {
    if dir.starts_with(&project.root) {
        project.boundary()
    } else {
        fsx::Boundary::user(dir, "~/.claude")
    }
}
