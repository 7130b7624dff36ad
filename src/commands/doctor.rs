//! `megg doctor [--json]` (SPEC §7): is megg wired into Claude Code and are its files healthy?
//! Each check says how to fix what it finds.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::megg::context::{MAX_KNOWLEDGE_BYTES, MAX_STATE_BYTES};
use crate::megg::project::Project;
use crate::megg::{checkpoint, setup, state};
use crate::templates::CLAUDE_FILES;
use crate::{Env, Output, Result, fsx};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Serialize)]
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
    fix: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
struct Report {
    ok: bool,
    checks: Vec<Check>,
}

fn check(name: &'static str, ok: bool, detail: impl Into<String>, fix: Option<&str>) -> Check {
    Check {
        name,
        ok,
        detail: detail.into(),
        fix: if ok { None } else { fix.map(str::to_string) },
    }
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let claude_dirs: Vec<PathBuf> = std::iter::once(project.root.join(".claude"))
        .chain(home.iter().map(|h| h.join(".claude")))
        .collect();
    let mut checks = Vec::new();

    // Settings files: each must parse; together they must register the hook.
    let mut settings = Vec::new();
    let mut broken = Vec::new();
    for dir in &claude_dirs {
        for name in ["settings.json", "settings.local.json"] {
            let path = dir.join(name);
            match fsx::read_text(&claude_boundary(&project, dir), &path, MAX_JSON_BYTES) {
                Ok(Some(t)) => match serde_json::from_str::<Value>(&t.text) {
                    Ok(v) => settings.push((path, v)),
                    Err(e) => broken.push(format!("{}: {e}", path.display())),
                },
                Ok(None) => {}
                Err(e) => broken.push(e.message),
            }
        }
    }
    checks.push(check(
        "settings",
        broken.is_empty(),
        if broken.is_empty() {
            format!("{} Claude Code settings file(s) parse", settings.len())
        } else {
            format!("invalid JSON: {}", broken.join("; "))
        },
        Some("fix the JSON by hand (setup keeps the previous bytes under .git/megg/backups/ or ~/.claude/.megg-backups/)"),
    ));
    let plugin = settings.iter().any(|(_, v)| {
        v.get("enabledPlugins")
            .and_then(Value::as_object)
            .is_some_and(|p| {
                p.iter()
                    .any(|(k, on)| k.starts_with("megg@") && on == &Value::Bool(true))
            })
    });
    let hooks: Vec<(PathBuf, String)> = settings
        .iter()
        .flat_map(|(p, v)| {
            setup::hook_commands(v)
                .into_iter()
                .map(move |c| (p.clone(), c))
        })
        .collect();
    checks.push(match hooks.first() {
        Some((path, command)) => {
            let program = setup::hook_program(command).unwrap_or_else(|| "megg".into());
            let found = resolve(&program);
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
    });

    for (name, prefix) in [("skill", "skills/"), ("commands", "commands/")] {
        let missing: Vec<&str> = CLAUDE_FILES
            .iter()
            .filter(|(rel, _)| rel.starts_with(prefix))
            .filter(|(rel, _)| {
                !claude_dirs
                    .iter()
                    .any(|d| fsx::is_file(&claude_boundary(&project, d), &d.join(rel)))
            })
            .map(|(rel, _)| *rel)
            .collect();
        checks.push(if plugin {
            check(name, true, "provided by the megg plugin", None)
        } else {
            check(
                name,
                missing.is_empty(),
                if missing.is_empty() {
                    "installed".to_string()
                } else {
                    format!("missing: {}", missing.join(", "))
                },
                Some("megg setup"),
            )
        });
    }

    let project_mcp = read_json(&project.boundary(), &project.root.join(".mcp.json"))
        .is_some_and(|v| setup::has_mcp(&v));
    let user_mcp = home
        .as_ref()
        .and_then(|h| read_json(&fsx::Boundary::user(h, "~"), &h.join(".claude.json")))
        .is_some_and(|v| {
            setup::has_mcp(&v)
                || v.get("projects")
                    .and_then(|p| p.get(project.root.display().to_string()))
                    .is_some_and(setup::has_mcp)
        });
    checks.push(check(
        "mcp",
        project_mcp || user_mcp,
        if project_mcp {
            "registered in .mcp.json"
        } else if user_mcp {
            "registered in ~/.claude.json"
        } else {
            "the MCP server `megg` is not registered"
        },
        Some("megg setup"),
    ));

    if let Some(repo) = &project.repo {
        let ignored = repo.is_ignored(Path::new(".megg-example.local.md"));
        checks.push(check(
            "gitignore",
            ignored,
            if ignored {
                "checkpoints are ignored by git"
            } else {
                "checkpoint files would show in git status"
            },
            Some("megg gitignore"),
        ));
    }

    let scan = checkpoint::scan(&project.roots);
    checks.push(check(
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
    ));

    let top = env.top(&env.cwd);
    let mut refused = env.config_warnings.clone();
    let domain = env.walk(&top).current_domain(&env.cwd, &mut refused);
    if let Some(domain) = &domain {
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
    checks.push(check(
        "files",
        refused.is_empty(),
        if refused.is_empty() {
            "no file refused (links out, special files, other users' domains)".to_string()
        } else {
            format!("refused: {}", refused.join("; "))
        },
        Some("replace the link or special file with a regular file, or `megg trust <dir>` for a directory you own"),
    ));

    if let Some(domain) = domain {
        let expired = fsx::read_text(&domain.boundary, &domain.state_path(), MAX_STATE_BYTES)
            .ok()
            .flatten()
            .map(|t| state::parse(&t.text, "state.md"))
            .is_some_and(|doc| !state::expiry(&doc, env.clock.now()).is_active());
        checks.push(check(
            "state",
            !expired,
            if expired {
                "state.md is expired (done or over 48 h old)"
            } else {
                "no expired state"
            },
            Some("megg state clear"),
        ));
        let tokens = fsx::read_text(
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
                env.tokens.count(&t.text)
            }
        });
        let over = tokens > crate::megg::knowledge::BLOCKED_ABOVE;
        checks.push(check(
            "knowledge",
            !over,
            format!(
                "knowledge.md is {tokens} tokens{}",
                if over { " (over 16000: blocked)" } else { "" }
            ),
            Some("megg maintain"),
        ));
    }

    let report = Report {
        ok: checks.iter().all(|c| c.ok),
        checks,
    };
    let mut text = String::new();
    for c in &report.checks {
        text.push_str(&format!(
            "{} {:<12} {}\n",
            if c.ok { "ok  " } else { "FAIL" },
            c.name,
            c.detail
        ));
        if let Some(fix) = &c.fix {
            text.push_str(&format!("     {:<12} fix: {fix}\n", ""));
        }
    }
    text.push_str(if report.ok {
        "megg is healthy\n"
    } else {
        "megg needs fixing (see above)\n"
    });
    let mut out = Output::pick(args.json, &report, text, Vec::new());
    out.code = u8::from(!report.ok);
    Ok(out)
}

/// Most bytes of a settings file or `.mcp.json` read.
const MAX_JSON_BYTES: u64 = 1024 * 1024;

/// The project's `.claude` lies inside the project; the user's is the user's own.
fn claude_boundary(project: &Project, dir: &Path) -> fsx::Boundary {
    if dir.starts_with(&project.root) {
        project.boundary()
    } else {
        fsx::Boundary::user(dir, "~/.claude")
    }
}

fn read_json(b: &fsx::Boundary, path: &Path) -> Option<Value> {
    serde_json::from_str(&fsx::read_text(b, path, MAX_JSON_BYTES).ok()??.text).ok()
}

/// Where a hook's program is: an absolute path as it is, else looked up on PATH.
fn resolve(program: &str) -> Option<PathBuf> {
    let executable = |p: &Path| fsx::is_executable_file(p);
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| executable(p))
}
