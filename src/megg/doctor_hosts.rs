//! `megg doctor` for the hosts besides Claude Code (SPEC §12): for each host megg was set up
//! for, its hook registered once (recognised by the entries setup writes), its command
//! resolvable, its files parsing, its MCP server registered, and the trust megg can see in the
//! host's own files — "cannot tell" when unsure, never a false "trusted".

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::doctor::Check;
use super::project::Project;
use super::setup::hosts_record::Record;
use super::setup::trust::{self, Seen};
use super::setup::{self, Hook, Platform, Scope, handler, hosts};
use crate::fsx;
use crate::host::{Agent, Homes, Host, McpPlace, WindowsHooks};

/// One registration of megg's hook.
struct Found {
    file: PathBuf,
    scope: Scope,
    command: String,
    at: Option<trust::HookAt>,
}

/// How often each capture event runs megg's capture, and where.
#[derive(Default)]
struct Captures {
    /// (event, files registering it)
    events: Vec<(&'static str, Vec<PathBuf>)>,
    /// Each capture handler, with its scope and file (Codex trusts each by its own hash).
    handlers: Vec<(Scope, PathBuf, trust::HookAt)>,
}

/// The checks of every host (Claude Code aside) megg is set up for in either scope, as the
/// hosts run hooks on `platform`.
pub fn checks(
    project: &Project,
    homes: &Homes,
    which: impl Fn(&str) -> Option<PathBuf>,
    platform: Platform,
) -> Vec<Check> {
    let recorded: Vec<Agent> = [Scope::Project, Scope::User]
        .into_iter()
        .flat_map(|s| Record::at(project, s, homes.megg.as_deref()).read())
        .collect();
    let mut out = Vec::new();
    for host in crate::host::all().filter(|h| h.agent != Agent::Claude) {
        let home = homes.of(host.agent);
        let (found, broken, captures) = registrations(host, project, home);
        if found.is_empty() && broken.is_empty() && !recorded.contains(&host.agent) {
            continue; // never set up for this host
        }
        let [hook_name, mcp_name, trust_name] = names(host.agent);
        let fix_setup = format!("megg setup --agent {}", host.agent.as_str());
        out.push(hook_check(
            host, hook_name, &found, &broken, &fix_setup, &which,
        ));
        out.push(capture_check(host, &captures, &fix_setup));
        out.push(mcp_check(host, mcp_name, project, home, &fix_setup));
        if let (Some(f), Some(home)) = (found.first(), home) {
            let t = Trust {
                project,
                home,
                homes,
                platform,
            };
            out.push(t.check(host, trust_name, f, &captures.handlers));
        }
    }
    out
}

fn capture_name(agent: Agent) -> &'static str {
    match agent {
        Agent::Codex => "codex capture",
        Agent::Gemini => "gemini capture",
        _ => "copilot capture",
    }
}

/// megg's capture hooks for `host`: each event once, or none at all (`--no-capture`).
fn capture_check(host: &'static Host, captures: &Captures, fix_setup: &str) -> Check {
    let name = capture_name(host.agent);
    let registered: Vec<&(&str, Vec<PathBuf>)> = captures
        .events
        .iter()
        .filter(|(_, f)| !f.is_empty())
        .collect();
    if registered.is_empty() {
        return check(
            name,
            true,
            format!(
                "off: megg's capture hooks are not registered ({} sessions leave no automatic handoff)",
                host.name
            ),
            None,
        );
    }
    let missing: Vec<String> = captures
        .events
        .iter()
        .filter(|(_, files)| files.is_empty())
        .map(|(event, _)| format!("{event} missing"))
        .collect();
    // Registered twice: both run, and the capture answers each event once (SPEC §7).
    let twice: Vec<String> = captures
        .events
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(event, files)| {
            let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            format!("{event} {} times ({})", files.len(), files.join(" and "))
        })
        .collect();
    if missing.is_empty() && !twice.is_empty() {
        return warning(
            name,
            format!(
                "megg's {} capture hooks: {} — both run, and megg captures each event once",
                host.name,
                twice.join(", ")
            ),
            format!(
                "keep one: `{fix_setup} --no-capture` in one of the scopes (add `--scope user` for user scope)"
            ),
        );
    }
    let wrong = missing;
    if wrong.is_empty() {
        let files: Vec<String> = registered
            .iter()
            .flat_map(|(_, f)| f.iter().map(|f| f.display().to_string()))
            .fold(Vec::new(), |mut acc, f| {
                if !acc.contains(&f) {
                    acc.push(f);
                }
                acc
            });
        check(
            name,
            true,
            format!(
                "{} registered in {}",
                host.capture_events.join(", "),
                files.join(" and ")
            ),
            None,
        )
    } else {
        check(
            name,
            false,
            format!("megg's {} capture hooks: {}", host.name, wrong.join(", ")),
            Some(format!(
                "`{fix_setup}` (add `--scope user` for user scope); remove a second registration with `--uninstall` in its scope"
            )),
        )
    }
}

fn names(agent: Agent) -> [&'static str; 3] {
    match agent {
        Agent::Codex => ["codex hook", "codex mcp", "codex trust"],
        Agent::Gemini => ["gemini hook", "gemini mcp", "gemini trust"],
        _ => ["copilot hook", "copilot mcp", "copilot trust"],
    }
}

fn check(name: &'static str, ok: bool, detail: String, fix: Option<String>) -> Check {
    Check {
        name,
        ok,
        detail,
        fix: if ok { None } else { fix },
    }
}

/// The hooks files of `host` in both scopes ([`hosts::hook_files`] of each).
fn hooks_files(
    host: &'static Host,
    project: &Project,
    home: Option<&Path>,
) -> Vec<(Scope, fsx::Boundary, PathBuf)> {
    let mut places = vec![(
        Scope::Project,
        project.boundary(),
        project.root.join(host.project_hooks),
    )];
    if let Some(h) = home {
        places.push((
            Scope::User,
            fsx::Boundary::user(h, host.name),
            h.join(host.user_hooks),
        ));
    }
    places
        .into_iter()
        .flat_map(|(scope, b, file)| {
            hosts::hook_files(host, &b, &file)
                .into_iter()
                .map(move |f| (scope, b.clone(), f))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// megg's hook registrations for `host`, the hooks files that do not parse, and megg's capture
/// hooks.
fn registrations(
    host: &'static Host,
    project: &Project,
    home: Option<&Path>,
) -> (Vec<Found>, Vec<String>, Captures) {
    let mut found = Vec::new();
    let mut broken = Vec::new();
    let mut captures = Captures {
        events: host
            .capture_events
            .iter()
            .map(|e| (*e, Vec::new()))
            .collect(),
        handlers: Vec::new(),
    };
    for (scope, b, file) in hooks_files(host, project, home) {
        let text = match fsx::read_text(&b, &file, setup::plan::MAX_SETTINGS_BYTES) {
            Ok(Some(t)) => t.text,
            Ok(None) => continue,
            Err(e) => {
                broken.push(e.message);
                continue;
            }
        };
        let value: Value = match serde_json::from_str(&text).or_else(|e| {
            hosts::strip_comments(&text)
                .filter(|_| host.agent == Agent::Gemini)
                .and_then(|t| serde_json::from_str(&t).ok())
                .ok_or(e)
        }) {
            Ok(v) => v,
            Err(e) => {
                broken.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let at = trust::find_hook(&value, host);
        for at in trust::find_hooks(&value, host, Hook::Capture) {
            captures.handlers.push((scope, file.clone(), at));
        }
        for (event, files) in &mut captures.events {
            for _ in setup::event_commands_of(&value, host, Hook::Capture, event) {
                files.push(file.clone());
            }
        }
        for command in setup::hook_commands_of(&value, host, Hook::Context) {
            found.push(Found {
                file: file.clone(),
                scope,
                command,
                at: at.clone(),
            });
        }
    }
    (found, broken, captures)
}

fn hook_check(
    host: &'static Host,
    name: &'static str,
    found: &[Found],
    broken: &[String],
    fix_setup: &str,
    which: &impl Fn(&str) -> Option<PathBuf>,
) -> Check {
    if !broken.is_empty() {
        return check(
            name,
            false,
            format!("{} file(s) do not parse: {}", host.name, broken.join("; ")),
            Some("fix the file by hand (setup keeps the previous bytes in its backups)".into()),
        );
    }
    match found {
        [] => check(
            name,
            false,
            format!("megg's {} hook is not registered", host.name),
            Some(fix_setup.to_string()),
        ),
        [one] => {
            let program = Hook::Context
                .program_of(host, &one.command)
                .unwrap_or_else(|| "megg".into());
            match which(&program) {
                Some(bin) => check(
                    name,
                    true,
                    format!(
                        "registered once in {}; runs {}",
                        one.file.display(),
                        bin.display()
                    ),
                    None,
                ),
                None => check(
                    name,
                    false,
                    format!(
                        "megg's {} hook in {} runs {program}, which is not found",
                        host.name,
                        one.file.display()
                    ),
                    Some(format!("install megg on PATH, or run `{fix_setup}` again")),
                ),
            }
        }
        // Both run; the hook answers each session once (SPEC §7): a warning with its fix.
        many => {
            let places: Vec<String> = many.iter().map(|f| f.file.display().to_string()).collect();
            warning(
                name,
                format!(
                    "megg's {} hook is registered {} times: {} — both run, and megg answers each session once",
                    host.name,
                    many.len(),
                    places.join(" and ")
                ),
                format!(
                    "keep one: `{fix_setup} --uninstall` or `{fix_setup} --scope user --uninstall`"
                ),
            )
        }
    }
}

/// A check that passes with something to fix all the same.
fn warning(name: &'static str, detail: String, fix: String) -> Check {
    Check {
        name,
        ok: true,
        detail,
        fix: Some(fix),
    }
}

fn mcp_check(
    host: &'static Host,
    name: &'static str,
    project: &Project,
    home: Option<&Path>,
    fix_setup: &str,
) -> Check {
    let mut places = Vec::new();
    for (i, place) in host.mcp.iter().enumerate() {
        let user = i == 1;
        let Some(dir) = (if user {
            home.map(Path::to_path_buf)
        } else {
            Some(project.root.clone())
        }) else {
            continue;
        };
        let b = if user {
            fsx::Boundary::user(&dir, host.name)
        } else {
            project.boundary()
        };
        let file = match (place, user) {
            (McpPlace::CodexToml, false) => dir.join(".codex/config.toml"),
            (McpPlace::CodexToml, true) => dir.join("config.toml"),
            (McpPlace::GeminiSettings, _) => host.hooks_file(user, &project.root, &dir),
            (McpPlace::ProjectMcpJson, _) => dir.join(".mcp.json"),
            (McpPlace::CopilotConfig, _) => dir.join("mcp-config.json"),
            (McpPlace::ClaudeCli, _) => continue,
        };
        let registered = if *place == McpPlace::CodexToml {
            fsx::read_text(&b, &file, setup::plan::MAX_SETTINGS_BYTES)
                .ok()
                .flatten()
                .and_then(|t| t.text.parse::<toml_edit::DocumentMut>().ok())
                .is_some_and(|d| setup::toml::has_mcp(&d))
        } else {
            hosts::read_lenient(&b, &file).is_some_and(|v| setup::has_mcp(&v))
        };
        if registered {
            places.push(file.display().to_string());
        }
    }
    if places.is_empty() {
        check(
            name,
            false,
            format!("megg's MCP server is not registered for {}", host.name),
            Some(fix_setup.to_string()),
        )
    } else {
        check(
            name,
            true,
            format!("registered in {}", places.join(" and ")),
            None,
        )
    }
}

/// Where a host's trust is read from.
struct Trust<'a> {
    project: &'a Project,
    home: &'a Path,
    homes: &'a Homes,
    /// Codex trusts the line it runs: `commandWindows` on Windows.
    platform: Platform,
}

impl Trust<'_> {
    /// What the host's files say of the trust of megg's hook `f` — for Codex, of every capture
    /// handler too (each trusted by its own hash, in its own file and scope).
    fn check(
        &self,
        host: &'static Host,
        name: &'static str,
        f: &Found,
        captures: &[(Scope, PathBuf, trust::HookAt)],
    ) -> Check {
        let Trust {
            project,
            home,
            homes,
            platform,
        } = *self;
        let gemini_file = homes.gemini_trusted_folders.as_deref();
        let seen = |scope: Scope, file: &Path, at: Option<&trust::HookAt>| {
            let at = at.cloned().map(|at| at.on(platform));
            trust::seen(
                host,
                scope,
                &project.root,
                home,
                file,
                at.as_ref(),
                gemini_file,
            )
        };
        let mut verdict = seen(f.scope, &f.file, f.at.as_ref());
        if host.agent == Agent::Codex && matches!(verdict, Seen::Trusted(_)) {
            for (scope, file, at) in captures {
                if let v @ (Seen::NotTrusted(_) | Seen::CannotTell(_)) =
                    seen(*scope, file, Some(at))
                {
                    verdict = v;
                    break;
                }
            }
        }
        trust_verdict(host, name, project, f, verdict)
    }
}

fn trust_verdict(
    host: &'static Host,
    name: &'static str,
    project: &Project,
    f: &Found,
    verdict: Seen,
) -> Check {
    match verdict {
        Seen::Trusted(why) => check(name, true, why, None),
        Seen::CannotTell(why) => check(name, true, format!("cannot tell: {why}"), None),
        Seen::NotTrusted(why) => {
            let mut fix = trust::steps(host, f.scope, &project.root).join("; ");
            if f.scope == Scope::Project {
                fix.push_str(&format!(
                    "; {}",
                    trust::reach(&trust::others(host, project))
                ));
            }
            check(name, false, why, Some(fix))
        }
    }
}

/// How `host` runs a hook on Windows, for a report.
fn runs_hooks(host: &Host) -> String {
    match host.windows {
        WindowsHooks::Exec => {
            "spawns the exec form (`command` + `args`) with no shell, and runs a shell line in Git Bash where it is installed, else in PowerShell".into()
        }
        WindowsHooks::Key(key) => format!("runs a handler's `{key}` line in PowerShell"),
        WindowsHooks::PowerShell => {
            "runs `command` in PowerShell (pwsh, else Windows PowerShell 5.1: no `&&` or `||`)"
                .into()
        }
    }
}

fn windows_name(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "claude windows",
        Agent::Codex => "codex windows",
        Agent::Gemini => "gemini windows",
        Agent::Copilot => "copilot windows",
    }
}

/// On Windows, whether megg's hooks are in the form each host runs there (SPEC §15.1), one
/// check per host megg has a hook for in either scope: a POSIX-only line fails with the setup
/// that rewrites it; a project's plain `megg` passes, saying what a teammate without megg sees
/// where the host has one command for every OS, and when `megg` on PATH is only npm's shim.
pub fn windows_forms(
    project: &Project,
    homes: &Homes,
    which: impl Fn(&str) -> Option<PathBuf>,
    platform: Platform,
) -> Vec<Check> {
    if platform != Platform::Windows {
        return Vec::new();
    }
    let mut out = Vec::new();
    for host in crate::host::all() {
        let (mut found, mut unix_only, mut bare) = (0, Vec::new(), false);
        for (scope, b, file) in hooks_files(host, project, homes.of(host.agent)) {
            let Some(v) = hosts::read_lenient(&b, &file) else {
                continue;
            };
            for hook in [Hook::Context, Hook::Capture] {
                for (event, h) in setup::megg_handlers(&v, host, hook) {
                    found += 1;
                    if !handler::runs_on(host, h, Platform::Windows) {
                        unix_only.push((scope, format!("{event} in {}", file.display())));
                    } else if hook.program_in(host, h).as_deref() == Some("megg") {
                        bare = true;
                    }
                }
            }
        }
        if found == 0 {
            continue;
        }
        let name = windows_name(host.agent);
        let setup = format!("megg setup --agent {}", host.agent.as_str());
        if !unix_only.is_empty() {
            let mut fixes: Vec<String> = Vec::new();
            for (scope, _) in &unix_only {
                let fix = match scope {
                    Scope::Project => format!("`{setup}` in the project"),
                    Scope::User => format!("`{setup} --scope user`"),
                };
                if !fixes.contains(&fix) {
                    fixes.push(fix);
                }
            }
            let places: Vec<&str> = unix_only.iter().map(|(_, p)| p.as_str()).collect();
            out.push(check(
                name,
                false,
                format!(
                    "megg's {} hook line(s) run only in a POSIX shell ({}), and on Windows {} {}: they fail there",
                    host.name,
                    places.join("; "),
                    host.name,
                    runs_hooks(host)
                ),
                Some(format!(
                    "{} rewrites them in the form {} runs on Windows",
                    fixes.join(" and "),
                    host.name
                )),
            ));
            continue;
        }
        let mut detail = format!(
            "megg's {} hooks are in the form it runs on Windows (it {})",
            host.name,
            runs_hooks(host)
        );
        if bare && matches!(host.windows, WindowsHooks::Exec | WindowsHooks::PowerShell) {
            detail.push_str(&format!(
                "; the project's hooks name plain `megg` (one command for every OS): a teammate on Windows without megg sees a {} hook error, not a silent no-op",
                host.name
            ));
        }
        if bare && let Some(shim) = which("megg").filter(|p| is_shim(p)) {
            detail.push_str(&format!(
                "; `megg` on PATH is {}, a shim npm installs: {} — install megg.exe on PATH (install.ps1), or `{setup} --scope user`, which names the real megg.exe",
                shim.display(),
                match host.windows {
                    WindowsHooks::Exec => "the exec form cannot run it",
                    _ => "Windows PowerShell 5.1's default policy blocks megg.ps1",
                }
            ));
        }
        out.push(check(name, true, detail, None));
    }
    out
}

/// Whether `path` is a script npm puts on PATH in place of a program (`.cmd`, `.ps1`, `.bat`).
fn is_shim(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["cmd", "ps1", "bat"]
            .iter()
            .any(|s| e.eq_ignore_ascii_case(s))
    })
}
