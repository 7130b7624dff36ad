//! `megg setup [--scope project|user] [--uninstall] [--dry-run] [--json]` (SPEC §7): install
//! the SessionStart hook, the skill, the workflow commands, the MCP registration and the
//! gitignore block — merged into what is there, idempotent, backed up, and exactly undoable.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde::Serialize;
use serde_json::Value;

use crate::megg::gitignore;
use crate::megg::project::Project;
use crate::megg::setup::{self, Action, Installed};
use crate::render::shell_quote;
use crate::templates::CLAUDE_FILES;
use crate::{Env, Error, Output, Result, fsx};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Where to install
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    pub scope: Scope,
    /// Remove exactly what setup added
    #[arg(long)]
    pub uninstall: bool,
    /// Print what would change; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The project (the git top level): .claude/, .mcp.json, .gitignore
    Project,
    /// Your user: ~/.claude/ and `claude mcp add --scope user`
    User,
}

#[derive(Debug, Clone, Serialize)]
struct Change {
    path: PathBuf,
    action: Action,
    what: String,
}

#[derive(Debug, Clone, Serialize)]
struct Report {
    scope: Scope,
    root: PathBuf,
    uninstall: bool,
    dry_run: bool,
    changes: Vec<Change>,
    /// The command that registers (or removes) the MCP server at user scope, when megg could
    /// not run it itself.
    mcp_command: Option<String>,
    warnings: Vec<String>,
}

/// A file setup manages, with its new content worked out before anything is written.
struct Planned {
    path: PathBuf,
    action: Action,
    what: String,
    /// New bytes (`None`: delete the file).
    content: Option<String>,
    /// Keep the previous bytes in the backup directory before changing it.
    backup: bool,
    /// The file's bytes when planned (what a backup keeps).
    original: Option<String>,
}

/// Most bytes of a settings file, `.mcp.json`, `.gitignore` or installed markdown read.
const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// Where files are written and where their backups go: backups never dirty the project
/// (SPEC §7) and are created exclusively, never through a planted link (§9).
struct Places {
    /// The boundary of the Claude Code directory (`.claude/` or `~/.claude/`).
    claude: fsx::Boundary,
    /// The project's boundary (`.mcp.json`, `.gitignore`).
    project: fsx::Boundary,
    /// Backups: `.git/megg/backups/` (project scope), `~/.claude/.megg-backups/` (user scope),
    /// megg's cache directory outside git; `None` when there is nowhere safe.
    backups: Option<(fsx::Boundary, PathBuf)>,
}

impl Places {
    fn boundary_for(&self, path: &Path) -> &fsx::Boundary {
        if self.claude.contains(path) {
            &self.claude
        } else {
            &self.project
        }
    }
}

/// Reads a file setup merges into; a file that is not UTF-8 or too large is refused.
fn read_existing(b: &fsx::Boundary, path: &Path) -> Result<Option<String>> {
    fsx::read_for_edit(b, path, MAX_SETTINGS_BYTES)
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    let mut exe_path = String::new();
    let (root, hook_command, mcp_command) = match args.scope {
        Scope::Project => (
            project.root.join(".claude"),
            "megg context --json".to_string(),
            "megg".to_string(),
        ),
        Scope::User => {
            let home = std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::user("HOME is not set").with_hint("set HOME, or use --scope project")
                })?;
            let exe = std::env::current_exe()
                .map_err(|e| Error::user(format!("cannot find megg's own path: {e}")))?;
            exe_path = exe.display().to_string();
            let exe = shell_quote(&exe_path);
            (home.join(".claude"), format!("{exe} context --json"), exe)
        }
    };
    let places = Places {
        claude: match args.scope {
            Scope::Project => project.boundary(),
            Scope::User => fsx::Boundary::user(&root, "~/.claude"),
        },
        project: project.boundary(),
        backups: match (args.scope, &project.repo) {
            (Scope::Project, Some(repo)) => {
                let common = repo.common_dir();
                Some((
                    fsx::Boundary::new(&common, "the git directory"),
                    common.join("megg/backups"),
                ))
            }
            (Scope::User, _) => Some((
                fsx::Boundary::user(&root, "~/.claude"),
                root.join(".megg-backups"),
            )),
            (Scope::Project, None) => fsx::user_cache_dir().map(|c| {
                (
                    fsx::Boundary::new(&c, "megg's cache directory"),
                    c.join("backups"),
                )
            }),
        },
    };
    let mut warnings = Vec::new();
    let mut planned = Vec::new();

    // Plan everything first: an invalid JSON file stops the run before anything is written.
    planned.push(plan_json(
        &places.claude,
        &root.join("settings.json"),
        args.uninstall,
        "SessionStart hook",
        |v| {
            if args.uninstall {
                Ok(setup::remove_hook(v, &hook_command))
            } else {
                setup::add_hook(v, &hook_command)
            }
        },
    )?);
    for (rel, template) in CLAUDE_FILES {
        let path = root.join(rel);
        if let Some(p) = plan_markdown(
            &places.claude,
            &path,
            template,
            args.uninstall,
            &mut warnings,
        )? {
            planned.push(p);
        }
    }
    let mut mcp_note = None;
    // Where setup records the .gitignore lines it added, and what to record after this run.
    let mut gitignore_change = None;
    match args.scope {
        Scope::Project => {
            planned.push(plan_json(
                &places.project,
                &project.root.join(".mcp.json"),
                args.uninstall,
                "MCP server `megg`",
                |v| {
                    if args.uninstall {
                        Ok(setup::remove_mcp(v))
                    } else {
                        setup::add_mcp(v, &mcp_command)
                    }
                },
            )?);
            let record = gitignore_record(&project);
            let recorded = record.as_ref().map(read_record).unwrap_or_default();
            let (p, added) = plan_gitignore(
                &places.project,
                &project.root.join(".gitignore"),
                args.uninstall,
                &recorded,
            )?;
            if let Some(r) = record {
                gitignore_change = Some((r, recorded, added));
            }
            planned.push(p);
        }
        Scope::User => {
            mcp_note = Some(if args.uninstall {
                "claude mcp remove --scope user megg".to_string()
            } else {
                format!("claude mcp add --scope user megg -- {mcp_command} mcp")
            });
        }
    }

    if !args.dry_run {
        let now = env.clock.now().format("%Y%m%dT%H%M%SZ").to_string();
        // User-scope files are the user's, not the project's: their locks never go into this
        // repository's git directory.
        let repo = match args.scope {
            Scope::Project => project.repo.as_ref(),
            Scope::User => None,
        };
        for p in &planned {
            apply(&places, repo, p, &now)?;
        }
        if let Some(((b, path), mut recorded, added)) = gitignore_change {
            if args.uninstall {
                fsx::remove_file(&b, &path)?;
            } else if !added.is_empty() {
                recorded.extend(added);
                fsx::create_dir_all(&b, path.parent().unwrap_or(b.root()))?;
                fsx::write_atomic(&b, &path, (recorded.join("\n") + "\n").as_bytes())?;
            }
        }
        if mcp_note.is_some() {
            let argv: Vec<&str> = if args.uninstall {
                vec!["mcp", "remove", "--scope", "user", "megg"]
            } else {
                vec![
                    "mcp", "add", "--scope", "user", "megg", "--", &exe_path, "mcp",
                ]
            };
            if run_claude(&argv) {
                mcp_note = None;
            }
        }
    }
    let report = Report {
        scope: args.scope,
        root: match args.scope {
            Scope::Project => project.root.clone(),
            Scope::User => root.clone(),
        },
        uninstall: args.uninstall,
        dry_run: args.dry_run,
        changes: planned
            .into_iter()
            .map(|p| Change {
                path: p.path,
                action: p.action,
                what: p.what,
            })
            .collect(),
        mcp_command: mcp_note,
        warnings,
    };
    let human = text(&report);
    Ok(Output::pick(
        args.json,
        &report,
        human,
        report.warnings.clone(),
    ))
}

fn plan_json(
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

fn plan_markdown(
    b: &fsx::Boundary,
    path: &Path,
    template: &str,
    uninstall: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<Planned>> {
    let existing = read_existing(b, path)?;
    let state = existing
        .as_deref()
        .map(|e| setup::classify_installed(e, template));
    let base = |action, content| Planned {
        path: path.to_path_buf(),
        action,
        what: "Claude Code file".into(),
        content,
        backup: false,
        original: None,
    };
    Ok(Some(match (uninstall, state) {
        (false, None) => base(Action::Create, Some(setup::mark(template))),
        (false, Some(Installed::Current)) => base(Action::Unchanged, None),
        (false, Some(Installed::Stale)) => base(Action::Update, Some(setup::mark(template))),
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

/// Where setup records the `.gitignore` lines it added, so `--uninstall` removes exactly those
/// (SPEC §7): under the git directory, else in megg's cache directory keyed by the project
/// directory's identity. Never in the work tree.
fn gitignore_record(project: &Project) -> Option<(fsx::Boundary, PathBuf)> {
    if let Some(repo) = &project.repo {
        let common = repo.common_dir();
        return Some((
            fsx::Boundary::new(&common, "the git directory"),
            common.join("megg/setup/gitignore-added"),
        ));
    }
    let cache = fsx::user_cache_dir()?;
    let (dev, ino) = fsx::identity(&project.root)?;
    Some((
        fsx::Boundary::new(&cache, "megg's cache directory"),
        cache.join(format!("setup/{dev:x}-{ino:x}-gitignore-added")),
    ))
}

fn read_record((b, path): &(fsx::Boundary, PathBuf)) -> Vec<String> {
    fsx::read_text(b, path, 64 * 1024)
        .ok()
        .flatten()
        .map(|t| t.text.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

fn plan_gitignore(
    b: &fsx::Boundary,
    path: &Path,
    uninstall: bool,
    recorded: &[String],
) -> Result<(Planned, Vec<String>)> {
    let existing = read_existing(b, path)?;
    let text = existing.clone().unwrap_or_default();
    let mut added_lines = Vec::new();
    let new = if uninstall {
        setup::remove_gitignore_lines(&text, recorded)
    } else {
        let (new, added) = gitignore::ensure(&text);
        added_lines = added.iter().map(|s| s.to_string()).collect();
        (!added.is_empty()).then_some(new)
    };
    let action = match (&new, &existing) {
        (None, _) => Action::Unchanged,
        (Some(n), Some(_)) if n.is_empty() && uninstall => Action::Remove,
        (Some(_), Some(_)) => Action::Update,
        (Some(_), None) => Action::Create,
    };
    Ok((
        Planned {
            path: path.to_path_buf(),
            action,
            what: "gitignore block".into(),
            content: new.filter(|n| !n.is_empty()),
            backup: existing.is_some() && action == Action::Update,
            original: existing,
        },
        added_lines,
    ))
}

fn apply(places: &Places, repo: Option<&crate::git::Repo>, p: &Planned, now: &str) -> Result<()> {
    if !p.action.changes() {
        return Ok(());
    }
    let b = places.boundary_for(&p.path);
    if let Some(dir) = p.path.parent()
        && p.content.is_some()
    {
        fsx::create_dir_all(b, dir)?;
    }
    let _lock = crate::megg::lock(repo, b, &p.path)?;
    if p.backup
        && let (Some(original), Some((bb, dir))) = (&p.original, &places.backups)
    {
        let rel = p.path.strip_prefix(b.root()).unwrap_or(&p.path);
        let name = format!("{}.{now}", rel.to_string_lossy().replace('/', "__"));
        fsx::create_unique(bb, dir, &name, original.as_bytes())?;
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

/// Runs `claude ARGS` when `claude` is on PATH; `true` when it succeeded. megg never edits
/// `~/.claude.json` itself.
fn run_claude(argv: &[&str]) -> bool {
    std::process::Command::new("claude")
        .args(argv)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn text(r: &Report) -> String {
    let mut out = format!(
        "megg setup{} ({} scope, {}){}:\n",
        if r.uninstall { " --uninstall" } else { "" },
        match r.scope {
            Scope::Project => "project",
            Scope::User => "user",
        },
        r.root.display(),
        if r.dry_run {
            ", dry run: nothing written"
        } else {
            ""
        }
    );
    for c in &r.changes {
        let action = if r.dry_run && c.action.changes() {
            format!("would {}", c.action)
        } else {
            c.action.to_string()
        };
        out.push_str(&format!(
            "  {action:<10} {} ({})\n",
            c.path.display(),
            c.what
        ));
    }
    if r.changes.iter().all(|c| !c.action.changes()) {
        out.push_str("Nothing to change.\n");
    }
    if let Some(cmd) = &r.mcp_command {
        out.push_str(&format!("MCP server: run `{cmd}`\n"));
    }
    out
}
