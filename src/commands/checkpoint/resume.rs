//! `megg checkpoint resume [SLUG|PLAN_FILE]` (SPEC §4.4): find a saved session, move corrupt
//! files aside, ask — on a terminal — or report the question and its options, and carry out
//! the choice.

use std::path::PathBuf;

use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::megg::checkpoint::{
    Choice, Found, OptionId, ResumeReport, Selection, WorkflowCommand, ops, store,
};
use crate::megg::project::Project;
use crate::output::Output;
use crate::prompt::{Prompter, Terminal};
use crate::render::checkpoint as render;
use crate::wire::checkpoint as wire;

pub struct ResumeRequest {
    pub target: Option<String>,
    pub for_command: Option<WorkflowCommand>,
    pub choice: Option<Choice>,
    pub new_plan: Option<PathBuf>,
    pub json: bool,
}

pub(super) fn run(env: &Env, project: &Project, req: ResumeRequest) -> Result<Output> {
    if env.interactive && req.choice.is_none() && !req.json {
        resume(env, project, &req, Some(&mut Terminal::new()))
    } else {
        resume(env, project, &req, None)
    }
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
    let repo = project.repo.as_ref();
    let mut scan = store::scan(&project.roots);
    let mut warnings = std::mem::take(&mut scan.warnings);
    // Step 1: corrupt files leave discovery before anything is offered.
    let quarantine = store::quarantine_corrupt(&mut scan, repo, now);
    warnings.extend(quarantine.warnings);
    let report = ResumeReport::new(quarantine.moved, warnings);

    let target = req
        .target
        .as_deref()
        .map(|t| super::target(env, project, t));
    let found: &Found = match ops::select(&scan, target.as_ref()) {
        Selection::One(found) => found,
        Selection::Nothing(target) => return Ok(output(&report.nothing(target), req.json)),
        Selection::Several => {
            let picked = match prompter.as_deref_mut() {
                Some(p) => pick_candidate(p, &scan.checkpoints)?,
                None => None,
            };
            match picked {
                Some(found) => found,
                None => {
                    if let Some(choice) = req.choice {
                        // SPEC §4.4: never silently do nothing.
                        let names: Vec<&str> = scan
                            .checkpoints
                            .iter()
                            .map(|f| f.checkpoint.feature.as_str())
                            .collect();
                        return Err(Error::user(format!(
                            "--choice {} needs one checkpoint, and there are {}: {}",
                            choice.as_str(),
                            names.len(),
                            names.join(", ")
                        ))
                        .with_hint(format!(
                            "name one: megg checkpoint resume {}{} --choice {}",
                            names[0],
                            ops::for_flag(req.for_command),
                            choice.as_str()
                        )));
                    }
                    let report = report.multiple(&scan.checkpoints, now, repo, req.for_command);
                    return Ok(output(&report, req.json));
                }
            }
        }
    };
    let mut report = report.found(found, now, repo, req.for_command);

    let mut new_plan = req.new_plan.clone();
    let choice = match (req.choice, prompter) {
        (Some(c), _) => Some(c),
        (None, Some(p)) => {
            let (choice, path) = ask(p, &report, found)?;
            if path.is_some() {
                new_plan = path;
            }
            Some(choice)
        }
        (None, None) => None,
    };
    let Some(choice) = choice else {
        return Ok(output(&report, req.json));
    };
    report.message = Some(match choice {
        Choice::View => store::read_text(found)?,
        Choice::Fresh => {
            store::remove(project, found)?;
            format!("Started fresh: removed {}", found.file)
        }
        Choice::Resume => {
            let plan_file = new_plan
                .as_deref()
                .map(|p| store::plan_relative(project, p, &env.resolve(p)))
                .transpose()?;
            let resumed = ops::resume_in_place(project, found, req.for_command, plan_file, now)?;
            let text = render::resumed_text(&resumed);
            report.checkpoint = Some(resumed);
            text
        }
    });
    report.action = Some(choice.action());
    Ok(output(&report, req.json))
}

fn output(report: &ResumeReport, json: bool) -> Output {
    Output::pick(
        json,
        &wire::ResumeDocument::from(report),
        render::resume_text(report),
        report.warnings.clone(),
    )
}

/// On a terminal with several checkpoints: the newest four and "Other…".
fn pick_candidate<'s>(p: &mut dyn Prompter, all: &'s [Found]) -> Result<Option<&'s Found>> {
    let label = |f: &Found| render::candidate_item(&f.checkpoint.feature, &f.file);
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
    report: &ResumeReport,
    found: &Found,
) -> Result<(Choice, Option<PathBuf>)> {
    p.show(&render::report_text(report));
    let items: Vec<String> = report
        .options
        .iter()
        .map(|o| render::option_item(o.label, o.description, o.recommended))
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
            OptionId::View => {
                let text = store::read_text(found)?;
                p.show(&text);
            }
            OptionId::NewPath => {
                let path = p
                    .input("New plan file path")?
                    .ok_or_else(Error::interrupted)?;
                return Ok((Choice::Resume, Some(PathBuf::from(path))));
            }
            id => return Ok((id.choice(), None)),
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use std::path::Path;

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
            capture_off: false,
        }
    }

    /// A project with one checkpoint saved at 2026-01-15T10:00:00Z.
    fn saved() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs/plans")).unwrap();
        std::fs::write(dir.path().join(PLAN), "# plan\n").unwrap();
        let env = env_at(dir.path(), "2026-01-15T10:00:00Z");
        super::super::save::run(
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
            for_command: Some(WorkflowCommand::Work),
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
        super::super::save::run(
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
