//! `megg checkpoint save | list | show | update | resume | finish` (SPEC §4): workflow
//! checkpoints `.<slug>.local.md` in the project root.

use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};

use crate::megg::checkpoint::{self as cp, Changes, Found, Kind, Scan, View};
use crate::megg::project::Project;
use crate::megg::slug;
use crate::prompt::{Prompter, Terminal};
use crate::render::checkpoint as render;
use crate::{Env, Error, Output, Result, fsx};

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,

    /// Print one JSON document
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Action {
    /// Save a checkpoint for a finished plan (/workflows:plan)
    Save {
        /// The plan file
        plan_file: PathBuf,
        /// Phase to record [default: plan-complete]
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(cp::PHASES))]
        phase: Option<String>,
        /// Branch the work happens on
        #[arg(long)]
        branch: Option<String>,
        /// Replace a checkpoint of another plan with the same slug
        #[arg(long)]
        force: bool,
    },
    /// List every checkpoint, newest first
    List,
    /// Show one checkpoint
    Show {
        /// Slug or plan file
        target: String,
    },
    /// Change phase, branch or checklist items
    Update {
        /// Slug or plan file
        target: String,
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(cp::PHASES))]
        phase: Option<String>,
        #[arg(long)]
        branch: Option<String>,
        /// Check the item whose text starts with ITEM (case-insensitive); repeatable
        #[arg(long = "check", value_name = "ITEM")]
        check: Vec<String>,
        /// Uncheck an item; repeatable
        #[arg(long = "uncheck", value_name = "ITEM")]
        uncheck: Vec<String>,
    },
    /// Find a saved session and offer to resume it (/workflows:work)
    Resume {
        /// Slug or plan file [default: any checkpoint]
        target: Option<String>,
        /// The workflow command asking (warns on a phase mismatch)
        #[arg(long = "for", value_name = "COMMAND", value_parser = clap::builder::PossibleValuesParser::new(cp::COMMANDS))]
        for_command: Option<String>,
        /// Act without asking
        #[arg(long, value_enum)]
        choice: Option<Choice>,
        /// With --choice resume: the plan's new path (relinks the checkpoint)
        #[arg(long, value_name = "NEW")]
        plan_file: Option<PathBuf>,
    },
    /// The lifecycle is complete: delete the checkpoint
    Finish {
        /// Slug or plan file
        target: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Choice {
    Resume,
    Fresh,
    View,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    match &args.action {
        Action::Save {
            plan_file,
            phase,
            branch,
            force,
        } => save(
            env,
            &project,
            plan_file,
            phase.as_deref(),
            branch.as_deref(),
            *force,
            args.json,
        ),
        Action::List => list(env, &project, args.json),
        Action::Show { target } => show(env, &project, target, args.json),
        Action::Update {
            target,
            phase,
            branch,
            check,
            uncheck,
        } => update(
            env,
            &project,
            target,
            phase.as_deref(),
            branch.as_deref(),
            check,
            uncheck,
            args.json,
        ),
        Action::Resume {
            target,
            for_command,
            choice,
            plan_file,
        } => {
            let req = ResumeRequest {
                target: target.clone(),
                for_command: for_command.clone(),
                choice: *choice,
                new_plan: plan_file.clone(),
                json: args.json,
            };
            if env.interactive && choice.is_none() && !args.json {
                resume(env, &project, &req, Some(&mut Terminal::new()))
            } else {
                resume(env, &project, &req, None)
            }
        }
        Action::Finish { target } => finish(env, &project, target, args.json),
    }
}

/// The checkpoint a SLUG|PLAN_FILE argument names.
fn find<'s>(env: &Env, project: &Project, scan: &'s Scan, target: &str) -> Option<&'s Found> {
    let target = target.trim();
    let as_plan = project.relative(&env.resolve(Path::new(target)));
    let as_slug = slug::slug(target);
    scan.checkpoints.iter().find(|f| {
        let c = &f.checkpoint;
        f.file == slug::file_name(target)
            || c.feature == target
            || normalize(&c.plan_file) == normalize(target)
            || as_plan
                .as_deref()
                .is_some_and(|p| normalize(&c.plan_file) == p)
            || (target.ends_with(".md") && as_slug.is_some() && slug::slug(&c.plan_file) == as_slug)
    })
}

/// A stored `plan_file` with `./` and `\` noise removed.
fn normalize(plan: &str) -> String {
    let p = plan.replace('\\', "/");
    p.trim_start_matches("./").to_string()
}

fn not_found(target: &str, scan: &Scan) -> Error {
    let known: Vec<&str> = scan.checkpoints.iter().map(|f| f.file.as_str()).collect();
    let hint = if known.is_empty() {
        "there are no checkpoints; `megg checkpoint save PLAN_FILE` creates one".to_string()
    } else {
        format!("known checkpoints: {}", known.join(", "))
    };
    Error::user(format!("no checkpoint matches '{target}'")).with_hint(hint)
}

fn scan_project(project: &Project) -> Scan {
    cp::scan(&project.roots)
}

#[allow(clippy::too_many_arguments)]
fn save(
    env: &Env,
    project: &Project,
    plan_file: &Path,
    phase: Option<&str>,
    branch: Option<&str>,
    force: bool,
    json: bool,
) -> Result<Output> {
    let rel = plan_relative(env, project, plan_file)?;
    let slug = slug::slug(&rel)
        .ok_or_else(|| Error::user(format!("no feature slug can be made from '{rel}'")))?;
    let file = slug::file_name(&slug);
    let path = project.root.join(&file);
    let now = env.clock.now();
    let head = tip_of(project, branch);
    let mut warnings = Vec::new();

    let _lock = project.lock(&path)?;
    // Refuses a file that is not UTF-8: rewriting it would turn those bytes into U+FFFD.
    let existing = fsx::read_for_edit(&project.boundary(), &path, cp::MAX_CHECKPOINT_BYTES)?;
    let (bytes, created) = match existing.as_deref().map(cp::classify) {
        Some(Kind::Checkpoint(old)) if normalize(&old.plan_file) == rel => {
            let new_phase = phase.unwrap_or("plan-complete");
            if let (Some(old_phase), Some(new_rank)) = (&old.phase, cp::phase_rank(new_phase))
                && cp::phase_rank(old_phase).is_some_and(|r| r > new_rank)
            {
                warnings.push(format!(
                    "phase moves backwards from '{old_phase}' to '{new_phase}'"
                ));
            }
            let changes = Changes {
                phase: Some(new_phase.to_string()),
                branch: branch.map(str::to_string),
                head: head.clone(),
                updated: Some(now),
                ..Changes::default()
            };
            (
                cp::edit(existing.as_deref().unwrap_or_default(), &changes),
                false,
            )
        }
        Some(other) if !force => {
            let what = match other {
                Kind::Checkpoint(old) => format!("belongs to another plan ({})", old.plan_file),
                Kind::NotOurs => "is another tool's file".to_string(),
                Kind::Corrupt(e) => format!("is corrupt ({e})"),
            };
            return Err(Error::user(format!("{file} {what}; nothing written"))
                .with_hint("pass --force to replace it (its old bytes are kept in quarantine)"));
        }
        replaced => {
            if replaced.is_some() {
                // --force: keep the old bytes, then start over.
                let moved = cp::quarantine(&path, project.repo.as_ref(), now)?;
                warnings.push(format!(
                    "replaced {file}; the old file was moved to {}",
                    moved.display()
                ));
            }
            let phase = phase.unwrap_or("plan-complete");
            let head = head.as_deref().unwrap_or("");
            let text = cp::render_new(&slug, &rel, phase, branch.unwrap_or(""), head, now);
            (text, true)
        }
    };
    fsx::write_atomic(&project.boundary(), &path, bytes.as_bytes())?;
    drop(_lock);

    let gitignored = project.is_ignored(&path);
    let announcement = if gitignored {
        format!("Progress saved to {file} (gitignored)")
    } else {
        format!("Progress saved to {file} (NOT gitignored — run: megg gitignore)")
    };
    let Kind::Checkpoint(checkpoint) = cp::classify(&bytes) else {
        return Err(Error::user(format!(
            "{file} did not read back as a checkpoint"
        )));
    };
    let found = Found {
        root: project.root.clone(),
        file,
        path,
        checkpoint,
    };
    let view = cp::describe(&found, now, project.repo.as_ref(), &mut Vec::new());
    let result = render::Saved {
        checkpoint: view,
        created,
        gitignored,
        announcement,
        warnings,
    };
    let text = format!("{}\n", result.announcement);
    Ok(Output::pick(json, &result, text, result.warnings.clone()))
}

fn list(env: &Env, project: &Project, json: bool) -> Result<Output> {
    let scan = scan_project(project);
    let mut warnings = scan.warnings.clone();
    let views: Vec<View> = scan
        .checkpoints
        .iter()
        .map(|f| cp::describe(f, env.clock.now(), project.repo.as_ref(), &mut warnings))
        .collect();
    let result = render::Listed {
        checkpoints: views,
        corrupt: scan
            .corrupt
            .iter()
            .map(|(p, e)| render::CorruptFile {
                file: p.display().to_string(),
                error: e.clone(),
            })
            .collect(),
        ignored: scan
            .ignored
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        warnings,
    };
    let text = render::listed_text(&result);
    Ok(Output::pick(json, &result, text, result.warnings.clone()))
}

fn show(env: &Env, project: &Project, target: &str, json: bool) -> Result<Output> {
    let scan = scan_project(project);
    let found = find(env, project, &scan, target).ok_or_else(|| not_found(target, &scan))?;
    let mut warnings = Vec::new();
    let view = cp::describe(found, env.clock.now(), project.repo.as_ref(), &mut warnings);
    let text = read_shown(found)?;
    let shown = render::Shown {
        checkpoint: view,
        text: text.clone(),
        warnings: warnings.clone(),
    };
    Ok(Output::pick(json, &shown, text, warnings))
}

#[allow(clippy::too_many_arguments)]
fn update(
    env: &Env,
    project: &Project,
    target: &str,
    phase: Option<&str>,
    branch: Option<&str>,
    check: &[String],
    uncheck: &[String],
    json: bool,
) -> Result<Output> {
    let scan = scan_project(project);
    let found = find(env, project, &scan, target).ok_or_else(|| not_found(target, &scan))?;
    let mut warnings = Vec::new();
    let view = edit_under_lock(env, project, found, &mut warnings, |current| {
        let pick = |queries: &[String]| -> Result<Vec<usize>> {
            queries
                .iter()
                .map(|q| {
                    cp::match_item(&current.items, q).ok_or_else(|| {
                        let items: Vec<String> = current
                            .items
                            .iter()
                            .map(|i| format!("'{}'", i.text))
                            .collect();
                        Error::user(format!("no checklist item starts with '{q}'"))
                            .with_hint(format!("items: {}", items.join(", ")))
                    })
                })
                .collect()
        };
        let branch_now = branch.map(str::to_string).or(current.branch.clone());
        Ok(Changes {
            phase: phase.map(str::to_string),
            branch: branch.map(str::to_string),
            head: tip_of(project, branch_now.as_deref()),
            check: pick(check)?,
            uncheck: pick(uncheck)?,
            ..Changes::default()
        })
    })?;
    let result = render::Updated {
        checkpoint: view,
        warnings,
    };
    let text = render::updated_text(&result.checkpoint);
    Ok(Output::pick(json, &result, text, result.warnings.clone()))
}

fn finish(env: &Env, project: &Project, target: &str, json: bool) -> Result<Output> {
    let scan = scan_project(project);
    let found = find(env, project, &scan, target).ok_or_else(|| not_found(target, &scan))?;
    {
        let _lock = project.lock(&found.path)?;
        fsx::remove_file(&Project::boundary_of(&found.root), &found.path)?;
    }
    let text = format!(
        "Workflow complete: removed {} ('{}')\n",
        found.file, found.checkpoint.feature
    );
    Ok(Output::pick(
        json,
        &serde_json::json!({ "finished": found.file }),
        text,
        Vec::new(),
    ))
}

pub struct ResumeRequest {
    pub target: Option<String>,
    pub for_command: Option<String>,
    pub choice: Option<Choice>,
    pub new_plan: Option<PathBuf>,
    pub json: bool,
}

/// Resume (SPEC §4.4). With a prompter (a terminal and no `--choice`/`--json`) it asks;
/// otherwise it reports the options, or carries out `--choice`.
pub fn resume(
    env: &Env,
    project: &Project,
    req: &ResumeRequest,
    mut prompter: Option<&mut dyn Prompter>,
) -> Result<Output> {
    let now = env.clock.now();
    let mut scan = scan_project(project);
    let mut warnings = std::mem::take(&mut scan.warnings);
    let mut corrupt = Vec::new();
    for (path, error) in std::mem::take(&mut scan.corrupt) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let repo = project.repo.as_ref();
        match cp::quarantine(&path, repo, now) {
            Ok(to) => {
                warnings.push(format!(
                    "State file '{name}' is corrupt (invalid YAML) — moved to {}; starting fresh",
                    to.display()
                ));
                corrupt.push(render::CorruptFile { file: name, error });
            }
            Err(e) => warnings.push(format!(
                "State file '{name}' is corrupt and could not be moved: {}",
                e.message
            )),
        }
    }

    let mut report = render::Resumed {
        status: "none",
        checkpoint: None,
        candidates: Vec::new(),
        question: None,
        options: Vec::new(),
        warnings: Vec::new(),
        corrupt,
        action: None,
        message: None,
    };

    let chosen: Option<&Found> = match &req.target {
        Some(t) => match find(env, project, &scan, t) {
            Some(f) => Some(f),
            None => {
                report.message = Some(format!("No saved state for {t}; starting fresh"));
                None
            }
        },
        None => match scan.checkpoints.len() {
            0 => None,
            1 => scan.checkpoints.first(),
            _ => {
                let picked = match prompter.as_deref_mut() {
                    Some(p) => pick_candidate(p, &scan.checkpoints)?,
                    None => None,
                };
                if picked.is_none() {
                    report.status = "multiple";
                    report.candidates = scan
                        .checkpoints
                        .iter()
                        .map(|f| cp::describe(f, now, project.repo.as_ref(), &mut Vec::new()))
                        .collect();
                    report.message = Some(format!(
                        "{} saved sessions; pick one with `megg checkpoint resume <slug>`",
                        scan.checkpoints.len()
                    ));
                    report.warnings = warnings;
                    return Ok(finish_output(report, req.json));
                }
                picked
            }
        },
    };
    let Some(found) = chosen else {
        report
            .message
            .get_or_insert_with(|| "No saved state; starting fresh".into());
        report.warnings = warnings;
        return Ok(finish_output(report, req.json));
    };

    let view = cp::describe(found, now, project.repo.as_ref(), &mut warnings);
    if !view.plan_exists {
        warnings.push(format!("Plan file not found: {}", view.plan_file));
    }
    if let (Some(cmd), Some(phase)) = (&req.for_command, &view.phase)
        && cp::phase_command(phase).is_some_and(|expected| expected != cmd)
    {
        let expected = cp::phase_command(phase).unwrap_or("work");
        warnings.push(format!(
            "State file shows phase '{phase}'. You may want /workflows:{expected}"
        ));
    }
    report.status = "found";
    report.question = Some(format!("Found previous session for '{}'", view.feature));
    report.options = cp::options(view.staleness, view.plan_exists);
    report.warnings = warnings;
    report.checkpoint = Some(view);

    let mut new_plan = req.new_plan.clone();
    let choice = match (req.choice, prompter) {
        (Some(c), _) => Some(c),
        (None, Some(p)) => {
            let picked = ask(p, &report, found)?;
            if let Some((_, Some(path))) = &picked {
                new_plan = Some(path.clone());
            }
            picked.map(|(c, _)| c)
        }
        (None, None) => None,
    };
    match choice {
        None => Ok(finish_output(report, req.json)),
        Some(Choice::View) => {
            let text = read_shown(found)?;
            report.action = Some("viewed");
            report.message = Some(text);
            Ok(finish_output(report, req.json))
        }
        Some(Choice::Fresh) => {
            {
                let _lock = project.lock(&found.path)?;
                fsx::remove_file(&Project::boundary_of(&found.root), &found.path)?;
            }
            report.action = Some("started-fresh");
            report.message = Some(format!("Started fresh: removed {}", found.file));
            Ok(finish_output(report, req.json))
        }
        Some(Choice::Resume) => {
            let view = resume_in_place(
                env,
                project,
                found,
                req.for_command.as_deref(),
                new_plan.as_deref(),
            )?;
            report.message = Some(render::resumed_text(&view));
            report.checkpoint = Some(view);
            report.action = Some("resumed");
            Ok(finish_output(report, req.json))
        }
    }
}

/// Marks a checkpoint resumed: `updated` now, `head` the branch tip, `plan-complete` → `work`
/// when resumed for work, and a relinked plan file when given.
fn resume_in_place(
    env: &Env,
    project: &Project,
    found: &Found,
    for_command: Option<&str>,
    new_plan: Option<&Path>,
) -> Result<View> {
    let plan_file = new_plan
        .map(|p| plan_relative(env, project, p))
        .transpose()?;
    edit_under_lock(env, project, found, &mut Vec::new(), |current| {
        let resumed_for_work =
            for_command == Some("work") && current.phase.as_deref() == Some("plan-complete");
        Ok(Changes {
            plan_file,
            phase: resumed_for_work.then(|| "work".to_string()),
            head: tip_of(project, current.branch.as_deref()),
            ..Changes::default()
        })
    })
}

/// `head` for a checkpoint on `branch`: the branch's tip (empty when it has none yet);
/// `None` (key untouched) without a branch.
fn tip_of(project: &Project, branch: Option<&str>) -> Option<String> {
    branch.map(|b| {
        project
            .repo
            .as_ref()
            .and_then(|r| r.branch_tip(b))
            .unwrap_or_default()
    })
}

/// The read-modify-write every checkpoint change goes through: under the file's lock,
/// re-read it (another agent may have changed it since the scan), apply the changes `make`
/// computes from the current content plus `updated` = now, write atomically, and describe
/// the result.
fn edit_under_lock(
    env: &Env,
    project: &Project,
    found: &Found,
    warnings: &mut Vec<String>,
    make: impl FnOnce(&cp::Checkpoint) -> Result<Changes>,
) -> Result<View> {
    let bytes = {
        let _lock = project.lock(&found.path)?;
        let fb = Project::boundary_of(&found.root);
        let text = fsx::read_for_edit(&fb, &found.path, cp::MAX_CHECKPOINT_BYTES)?
            .ok_or_else(|| Error::user(format!("{} disappeared", found.file)))?;
        let Kind::Checkpoint(current) = cp::classify(&text) else {
            return Err(Error::user(format!(
                "{} is no longer a readable checkpoint",
                found.file
            )));
        };
        let changes = Changes {
            updated: Some(env.clock.now()),
            ..make(&current)?
        };
        let bytes = cp::edit(&text, &changes);
        fsx::write_atomic(
            &Project::boundary_of(&found.root),
            &found.path,
            bytes.as_bytes(),
        )?;
        bytes
    };
    let Kind::Checkpoint(checkpoint) = cp::classify(&bytes) else {
        return Err(Error::user(format!("{} did not read back", found.file)));
    };
    let found = Found {
        checkpoint,
        ..found.clone()
    };
    Ok(cp::describe(
        &found,
        env.clock.now(),
        project.repo.as_ref(),
        warnings,
    ))
}

/// A checkpoint's text for people to read.
fn read_shown(found: &Found) -> Result<String> {
    let fb = Project::boundary_of(&found.root);
    Ok(fsx::read_text(&fb, &found.path, cp::MAX_CHECKPOINT_BYTES)?
        .map(|t| t.text)
        .unwrap_or_default())
}

/// A plan file argument as stored: it must exist and lie inside the project root.
fn plan_relative(env: &Env, project: &Project, plan_file: &Path) -> Result<String> {
    let abs = env.resolve(plan_file);
    let not_found = || {
        Error::user(format!("plan file not found: {}", plan_file.display()))
            .with_hint("save a checkpoint after the plan file is written")
    };
    let Some(rel) = project.relative(&abs) else {
        if !fsx::is_dir(abs.parent().unwrap_or(Path::new("/"))) {
            return Err(not_found());
        }
        return Err(Error::user(format!(
            "plan file {} is outside the project root {}",
            abs.display(),
            project.root.display()
        ))
        .with_hint("plans live inside the project; run megg from the project or move the plan"));
    };
    // Looked at only inside the project: a plan path that leads out is never opened.
    if !fsx::is_file(&project.boundary(), &project.root.join(&rel)) {
        return Err(not_found());
    }
    Ok(rel)
}

/// On a terminal with several checkpoints: the newest four and "Other…".
fn pick_candidate<'s>(p: &mut dyn Prompter, all: &'s [Found]) -> Result<Option<&'s Found>> {
    let label = |f: &Found| format!("{} ({})", f.checkpoint.feature, f.file);
    let mut items: Vec<String> = all.iter().take(4).map(label).collect();
    let more = all.len() > 4;
    if more {
        items.push("Other…".into());
    }
    let picked = p
        .select("Several saved sessions; which one?", &items, 0)?
        .ok_or_else(Error::interrupted)?;
    if more && picked == 4 {
        let items: Vec<String> = all.iter().map(label).collect();
        let picked = p
            .select("Which saved session?", &items, 0)?
            .ok_or_else(Error::interrupted)?;
        return Ok(all.get(picked));
    }
    Ok(all.get(picked))
}

/// The resume question on a terminal. `view` shows the file and asks again; `new-path` asks
/// for the path. Esc / Ctrl-C: interrupted, nothing changed.
fn ask(
    p: &mut dyn Prompter,
    report: &render::Resumed,
    found: &Found,
) -> Result<Option<(Choice, Option<PathBuf>)>> {
    p.show(&render::report_text(report));
    let items: Vec<String> = report
        .options
        .iter()
        .map(|o| {
            if o.recommended {
                format!("{} (recommended) — {}", o.label, o.description)
            } else {
                format!("{} — {}", o.label, o.description)
            }
        })
        .collect();
    let default = report
        .options
        .iter()
        .position(|o| o.recommended)
        .unwrap_or(0);
    loop {
        let question = report.question.as_deref().unwrap_or("Resume?");
        let i = p
            .select(question, &items, default)?
            .ok_or_else(Error::interrupted)?;
        match report.options[i].id {
            "view" => {
                let text = read_shown(found)?;
                p.show(&text);
            }
            "new-path" => {
                let path = p
                    .input("New plan file path")?
                    .ok_or_else(Error::interrupted)?;
                return Ok(Some((Choice::Resume, Some(PathBuf::from(path)))));
            }
            "fresh" => return Ok(Some((Choice::Fresh, None))),
            _ => return Ok(Some((Choice::Resume, None))),
        }
    }
}

fn finish_output(report: render::Resumed, json: bool) -> Output {
    let mut text = match report.action {
        Some(_) => report.message.clone().unwrap_or_default(),
        None => render::report_text(&report),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Output::pick(json, &report, text, report.warnings.clone())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::prompt::Scripted;
    use crate::tokens::Counter;

    const PLAN: &str = "docs/plans/2026-01-15-feat-auth-plan.md";

    fn env_at(dir: &Path, now: &str) -> Env {
        Env {
            cwd: dir.to_path_buf(),
            clock: Clock::fixed(chrono::DateTime::parse_from_rfc3339(now).unwrap().into()),
            tokens: Counter::new(None),
            ceilings: vec![dir.parent().unwrap().to_path_buf()],
            stdin_is_tty: true,
            interactive: true,
            trusted: Vec::new(),
            config_warnings: Vec::new(),
        }
    }

    /// A project with one checkpoint saved at 2026-01-15T10:00:00Z.
    fn saved() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs/plans")).unwrap();
        std::fs::write(dir.path().join(PLAN), "# plan\n").unwrap();
        let env = env_at(dir.path(), "2026-01-15T10:00:00Z");
        save(
            &env,
            &env.project(),
            Path::new(PLAN),
            None,
            None,
            false,
            false,
        )
        .unwrap();
        dir
    }

    fn ask_with(dir: &Path, now: &str, answers: &[&str]) -> (Result<Output>, Scripted) {
        let env = env_at(dir, now);
        let mut script = Scripted::new(answers);
        let req = ResumeRequest {
            target: None,
            for_command: Some("work".into()),
            choice: None,
            new_plan: None,
            json: false,
        };
        let out = resume(&env, &env.project(), &req, Some(&mut script));
        (out, script)
    }

    fn file(dir: &Path) -> String {
        std::fs::read_to_string(dir.join(".auth.local.md")).unwrap()
    }

    #[test]
    fn view_shows_the_file_and_asks_again_then_resume() {
        let dir = saved();
        let before = file(dir.path());
        let (out, script) = ask_with(dir.path(), "2026-01-15T11:00:00Z", &["View", "Resume"]);
        let out = out.unwrap();
        assert!(
            out.stdout.starts_with("Resumed 'auth' (phase work)"),
            "{}",
            out.stdout
        );
        assert!(script.transcript[0].contains("Found previous session for 'auth'"));
        assert!(script.transcript[1].contains("default=Resume (recommended)"));
        assert_eq!(script.transcript[2], before, "view shows the file");
        assert!(
            script.transcript[3].starts_with("? Found previous session for 'auth'"),
            "asks again"
        );
        assert!(file(dir.path()).contains("phase: work\n"));
    }

    #[test]
    fn escape_changes_nothing_and_is_an_interruption() {
        let dir = saved();
        let before = file(dir.path());
        let (out, _) = ask_with(dir.path(), "2026-01-15T11:00:00Z", &["<esc>"]);
        let err = out.unwrap_err();
        assert_eq!(err.exit_code(), 130);
        assert_eq!(file(dir.path()), before);
    }

    #[test]
    fn start_fresh_deletes_and_abandoned_preselects_it() {
        let dir = saved();
        let (out, script) = ask_with(dir.path(), "2026-03-01T00:00:00Z", &["Start fresh"]);
        assert!(out.unwrap().stdout.starts_with("Started fresh"));
        assert!(script.transcript[1].contains("default=Start fresh (recommended)"));
        assert!(!dir.path().join(".auth.local.md").exists());
    }

    #[test]
    fn a_new_path_relinks_a_moved_plan() {
        let dir = saved();
        std::fs::rename(dir.path().join(PLAN), dir.path().join("docs/moved.md")).unwrap();
        let (out, _) = ask_with(
            dir.path(),
            "2026-01-15T11:00:00Z",
            &["Enter a new path", "docs/moved.md"],
        );
        out.unwrap();
        assert!(file(dir.path()).contains("plan_file: docs/moved.md\n"));
    }

    #[test]
    fn several_checkpoints_ask_which_one_first() {
        let dir = saved();
        std::fs::write(
            dir.path()
                .join("docs/plans/2026-01-16-feat-billing-plan.md"),
            "x",
        )
        .unwrap();
        let env = env_at(dir.path(), "2026-01-15T10:30:00Z");
        save(
            &env,
            &env.project(),
            Path::new("docs/plans/2026-01-16-feat-billing-plan.md"),
            None,
            None,
            false,
            false,
        )
        .unwrap();
        let (out, script) = ask_with(dir.path(), "2026-01-15T11:00:00Z", &["auth", "Resume"]);
        assert!(out.unwrap().stdout.contains("Resumed 'auth'"));
        assert!(
            script.transcript[0].contains("billing (.billing.local.md) | auth (.auth.local.md)"),
            "newest first"
        );
    }
}
