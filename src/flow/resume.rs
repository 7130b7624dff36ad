//! The resume conversation (SPEC §4.4): find a saved session, move corrupt files aside, then
//! — with a prompter — show the report and every warning, pick a checkpoint when there are
//! several, ask (`view` shows the file and asks again; `new-path` asks for the path) and carry
//! out the choice; without one, report the question and its options, or carry out `--choice`.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::{Error, Result};
use crate::megg::checkpoint::{
    CheckpointError, Choice, Found, OptionId, ResumeReport, Selection, Target, WorkflowCommand,
    ops, store,
};
use crate::megg::discovery;
use crate::megg::project::Project;
use crate::megg::secrets;
use crate::prompt::Prompter;
use crate::render::checkpoint as render;

/// What to resume, and whether the caller already chose.
pub struct Request {
    /// The SLUG|PLAN_FILE argument; `None`: any checkpoint.
    pub target: Option<Target>,
    /// The workflow command asking (`--for`): warns on a phase mismatch.
    pub for_command: Option<WorkflowCommand>,
    /// Act without asking (`--choice`).
    pub choice: Option<Choice>,
    /// With `--choice resume`: the plan's new path, as given (`--plan-file`).
    pub new_plan: Option<PathBuf>,
}

/// The report, and how many of its warnings are already on the terminal above a prompt: the
/// user saw those before choosing, and they are not printed again at the end.
#[derive(Debug)]
pub struct Outcome {
    pub report: ResumeReport,
    pub shown: usize,
}

impl Outcome {
    /// The warnings still to print.
    pub fn unshown(&self) -> &[String] {
        self.report.warnings.get(self.shown..).unwrap_or_default()
    }
}

/// Resume (SPEC §4.4) in the project, at `now`; a relative plan path, given or typed, starts
/// from `cwd`. With a prompter (a terminal and no `--choice`/`--json`) it asks; otherwise it
/// reports the options, or carries out `--choice`.
pub fn resume(
    project: &Project,
    cwd: &Path,
    now: DateTime<Utc>,
    req: &Request,
    mut prompter: Option<&mut dyn Prompter>,
) -> Result<Outcome> {
    let repo = project.repo.as_ref();
    let mut scan = store::scan(&project.roots);
    let mut warnings = std::mem::take(&mut scan.warnings);
    // Step 1: corrupt files leave discovery before anything is offered.
    let quarantine = store::quarantine_corrupt(&mut scan, repo, now);
    warnings.extend(quarantine.warnings);
    let report = ResumeReport::new(quarantine.moved, warnings);
    let mut shown = 0;

    let found: &Found = match ops::select(&scan, req.target.as_ref()) {
        Selection::One(found) => found,
        Selection::Nothing(target) => {
            let report = report.nothing(target);
            return Ok(Outcome { report, shown });
        }
        Selection::Several => {
            let picked = match prompter.as_deref_mut() {
                Some(p) => {
                    shown = warn_unshown(p, &report.warnings, shown);
                    pick_candidate(p, project, &scan.checkpoints, now)?
                }
                None => None,
            };
            match picked {
                Some(found) => found,
                None => {
                    if let Some(choice) = req.choice {
                        // SPEC §4.4: never silently do nothing.
                        return Err(CheckpointError::ChoiceNeedsOne {
                            choice,
                            names: scan
                                .checkpoints
                                .iter()
                                .map(|f| secrets::redact(&f.checkpoint.feature).into_owned())
                                .collect(),
                            for_flag: ops::for_flag(req.for_command),
                        }
                        .into());
                    }
                    let report = report.multiple(&scan.checkpoints, now, repo, req.for_command);
                    return Ok(Outcome { report, shown });
                }
            }
        }
    };
    let mut report = report.found(found, now, repo, req.for_command);

    let mut new_plan = req.new_plan.clone();
    let choice = match (req.choice, prompter) {
        (Some(c), _) => Some(c),
        (None, Some(p)) => {
            // The report and every warning first (SPEC §4.4): nobody chooses blind.
            p.show(&render::prompt_report_text(&report));
            shown = warn_unshown(p, &report.warnings, shown);
            let (choice, path) = ask(p, &report, found)?;
            if path.is_some() {
                new_plan = path;
            }
            Some(choice)
        }
        (None, None) => None,
    };
    let Some(choice) = choice else {
        return Ok(Outcome { report, shown });
    };
    report.message = Some(match choice {
        Choice::View => store::read_shown(found)?,
        Choice::Fresh => {
            store::remove(project, found)?;
            render::fresh_text(&found.file)
        }
        Choice::Resume => {
            let plan_file = new_plan
                .as_deref()
                .map(|p| store::plan_relative(project, p, &discovery::absolute(cwd, p)))
                .transpose()?;
            let resumed = ops::resume_in_place(project, found, req.for_command, plan_file, now)?;
            let text = render::resumed_text(&resumed);
            report.checkpoint = Some(resumed);
            text
        }
    });
    report.action = Some(choice.action());
    Ok(Outcome { report, shown })
}

/// Puts the warnings after the first `shown` on the terminal; returns how many are shown now.
fn warn_unshown(p: &mut dyn Prompter, warnings: &[String], shown: usize) -> usize {
    for w in warnings.get(shown..).unwrap_or_default() {
        p.warn(w);
    }
    warnings.len()
}

/// On a terminal with several checkpoints: the newest four and "Other…", each with its
/// phase, progress and age.
fn pick_candidate<'s>(
    p: &mut dyn Prompter,
    project: &Project,
    all: &'s [Found],
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<&'s Found>> {
    let item = |f: &Found| render::candidate_item(&store::describe(f, now, project.repo.as_ref()));
    let mut items: Vec<String> = all.iter().take(4).map(item).collect();
    let more = all.len() > 4;
    if more {
        items.push("Other…".into());
    }
    let picked = p
        .select("Several saved sessions; which one?", &items, 0)?
        .ok_or_else(Error::interrupted)?;
    if more && picked == 4 {
        let items: Vec<String> = all.iter().map(item).collect();
        let picked = p
            .select("Which saved session?", &items, 0)?
            .ok_or_else(Error::interrupted)?;
        return Ok(all.get(picked));
    }
    Ok(all.get(picked))
}

/// The resume question on a terminal, the recommended option preselected. `view` shows the
/// file and asks again; `new-path` asks for the path. Esc / Ctrl-C: interrupted, nothing
/// changed.
fn ask(
    p: &mut dyn Prompter,
    report: &ResumeReport,
    found: &Found,
) -> Result<(Choice, Option<PathBuf>)> {
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
        let option = report
            .options
            .get(i)
            .ok_or_else(|| Error::internal("the prompt picked no option"))?;
        match option.id {
            OptionId::View => {
                // Each secret `[redacted]`: the report above named them.
                p.show(&store::read_shown(found)?);
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
    use crate::megg::checkpoint::SaveRequest;
    use crate::prompt::Scripted;

    const PLAN: &str = "docs/plans/2026-01-15-feat-auth-plan.md";

    fn at(now: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(now).unwrap().into()
    }

    fn project(dir: &Path) -> Project {
        Project::at(
            dir,
            &crate::megg::repos::Repos::new(&[dir.parent().unwrap().to_path_buf()]),
        )
    }

    /// Saves a checkpoint for `plan` (relative to `dir`) at `now`.
    fn save(dir: &Path, plan: &str, now: &str) {
        let req = SaveRequest {
            plan: PathBuf::from(plan),
            plan_abs: dir.join(plan),
            phase: None,
            branch: None,
            force: false,
        };
        ops::save(&project(dir), &req, at(now)).unwrap();
    }

    /// A project with one checkpoint saved at 2026-01-15T10:00:00Z.
    fn saved() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs/plans")).unwrap();
        std::fs::write(dir.path().join(PLAN), "# plan\n").unwrap();
        save(dir.path(), PLAN, "2026-01-15T10:00:00Z");
        dir
    }

    /// What the command prints: the text, and the warnings not shown above a prompt.
    #[derive(Debug)]
    struct Printed {
        stdout: String,
        warnings: Vec<String>,
    }

    fn ask_with(dir: &Path, now: &str, answers: &[&str]) -> (Result<Printed>, Scripted) {
        ask_for(dir, now, WorkflowCommand::Work, answers)
    }

    fn ask_for(
        dir: &Path,
        now: &str,
        asking: WorkflowCommand,
        answers: &[&str],
    ) -> (Result<Printed>, Scripted) {
        let mut script = Scripted::new(answers);
        let req = Request {
            target: None,
            for_command: Some(asking),
            choice: None,
            new_plan: None,
        };
        let out = resume(&project(dir), dir, at(now), &req, Some(&mut script)).map(|o| Printed {
            stdout: render::resume_text(&o.report),
            warnings: o.unshown().to_vec(),
        });
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
        assert!(script.transcript[0].starts_with("Saved session:\n"));
        assert!(script.transcript[0].contains("  feature:  auth\n"));
        assert!(
            script.transcript[1].starts_with("? Found previous session for 'auth'"),
            "{:?}",
            script.transcript
        );
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
        let question = script.transcript.last().unwrap();
        assert!(
            question.contains("default=Start fresh (recommended)"),
            "{question}"
        );
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
        save(
            dir.path(),
            "docs/plans/2026-01-16-feat-billing-plan.md",
            "2026-01-15T10:30:00Z",
        );
        let (out, script) = ask_with(dir.path(), "2026-01-15T11:00:00Z", &["auth", "Resume"]);
        assert!(out.unwrap().stdout.contains("Resumed 'auth'"));
        assert_eq!(
            script.transcript[0],
            "? Several saved sessions; which one? \
             [billing — plan-complete, 1/6 done, 30 minutes old \
             | auth — plan-complete, 1/6 done, 1 hour old] \
             default=billing — plan-complete, 1/6 done, 30 minutes old",
            "newest first, each with its phase, progress and age"
        );
    }

    /// Saves a checkpoint for `docs/plans/2026-01-15-feat-<name>-plan.md` at `at`.
    fn save_named(dir: &Path, name: &str, at: &str) {
        let plan = format!("docs/plans/2026-01-15-feat-{name}-plan.md");
        std::fs::write(dir.join(&plan), "x").unwrap();
        save(dir, &plan, at);
    }

    /// Issue 14: the prompt came before the warnings (printed only after the answer) and
    /// under the follow-up `--choice` commands meant for agents.
    #[test]
    fn the_report_and_every_warning_come_before_the_first_question() {
        let dir = saved();
        std::fs::remove_file(dir.path().join(PLAN)).unwrap();
        // Ten days later (stale), the plan gone, asked for by review.
        let (out, script) = ask_for(
            dir.path(),
            "2026-01-25T10:00:00Z",
            WorkflowCommand::Review,
            &["<esc>"],
        );
        assert_eq!(out.unwrap_err().exit_code(), 130);
        let t = &script.transcript;
        assert_eq!(t.len(), 5, "{t:#?}");
        assert!(t[0].starts_with("Saved session:\n"), "{t:#?}");
        for line in [
            "  feature:  auth",
            "  phase:    plan-complete",
            "  progress: 1/6 done",
            "  age:      10 days (stale)",
            "  branch:   (none)",
        ] {
            assert!(t[0].contains(line), "{line:?} in {:?}", t[0]);
        }
        assert!(!t[0].contains("--choice"), "no follow-up commands: {t:#?}");
        assert_eq!(
            t[1..4],
            [
                "warning: This state is 10 days old and may be outdated".to_string(),
                format!("warning: Plan file not found: {PLAN}"),
                "warning: Checkpoint shows phase 'plan-complete'. You may want /workflows:work"
                    .to_string(),
            ]
        );
        assert!(
            t[4].starts_with("? Found previous session for 'auth' [Start fresh (recommended)"),
            "the question last, the recommended option first: {t:#?}"
        );
        assert!(t[4].contains("default=Start fresh (recommended)"), "{t:#?}");
    }

    /// Warnings shown above the prompt are not printed again once it is answered.
    #[test]
    fn warnings_shown_before_the_question_are_not_repeated_after_it() {
        let dir = saved();
        let (out, script) = ask_with(dir.path(), "2026-01-25T10:00:00Z", &["Start fresh"]);
        let out = out.unwrap();
        assert_eq!(
            script.transcript[1],
            "warning: This state is 10 days old and may be outdated"
        );
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert!(out.stdout.starts_with("Started fresh"));
    }

    #[test]
    fn more_than_four_checkpoints_offer_the_newest_four_and_other() {
        let dir = saved();
        for (name, at) in [
            ("b", "2026-01-15T10:10:00Z"),
            ("c", "2026-01-15T10:20:00Z"),
            ("d", "2026-01-15T10:30:00Z"),
            ("e", "2026-01-15T10:40:00Z"),
        ] {
            save_named(dir.path(), name, at);
        }
        let (out, script) = ask_with(
            dir.path(),
            "2026-01-15T11:00:00Z",
            &["Other", "auth", "View"],
        );
        assert!(out.is_err(), "the script ran out after View");
        let first = &script.transcript[0];
        assert!(
            first.contains("[e — plan-complete, 1/6 done, 20 minutes old | d — "),
            "{first}"
        );
        assert!(first.contains(" | b — plan-complete, 1/6 done, 50 minutes old | Other…]"));
        assert!(!first.contains("auth —"), "the fifth only under Other…");
        assert!(
            script.transcript[1].contains("| auth — plan-complete, 1/6 done, 1 hour old]"),
            "{}",
            script.transcript[1]
        );
        assert!(script.transcript[2].contains("  feature:  auth\n"));
    }
}
