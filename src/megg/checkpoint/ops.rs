//! What each `megg checkpoint` subcommand asks of the domain: a request in, a result struct
//! out, for the renderers. Prompting and printing stay with the command.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::error::{CheckpointError, Occupant};
use super::format::{self, Changes, Kind};
use super::lifecycle::{Phase, WorkflowCommand};
use super::policy::{self, ResumeAction, ResumeOption, ResumeStatus};
use super::shown;
use super::store::{self, Described, Found, MAX_CHECKPOINT_BYTES, Quarantined, Scan, Target};
use crate::error::Result;
use crate::fsx;
use crate::git::Repo;
use crate::megg::project::Project;
use crate::megg::recall::hidden::Hidden;
use crate::megg::{secrets, slug};

/// `save`: the plan file as given and made absolute, and what to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveRequest {
    pub plan: PathBuf,
    pub plan_abs: PathBuf,
    /// [default: plan-complete]
    pub phase: Option<Phase>,
    pub branch: Option<String>,
    /// Replace a file of the same name that is not this plan's checkpoint.
    pub force: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub checkpoint: Described,
    pub created: bool,
    pub gitignored: bool,
    pub announcement: String,
    pub warnings: Vec<String>,
}

/// Writes `.<slug>.local.md` for a plan (SPEC §4.1): a new file, the same plan's checkpoint
/// updated in place, or — with `force` — whatever held the name moved to quarantine first.
pub fn save(project: &Project, req: &SaveRequest, now: DateTime<Utc>) -> Result<Saved> {
    let rel = store::plan_relative(project, &req.plan, &req.plan_abs)?;
    let slug = slug::slug(&rel).ok_or_else(|| CheckpointError::NoSlug(rel.clone()))?;
    let file = slug::file_name(&slug);
    let path = project.root.join(&file);
    let branch = req.branch.as_deref();
    let head = store::tip_of(project.repo.as_ref(), branch);
    let phase = req.phase.unwrap_or(Phase::PlanComplete);
    let mut warnings = Vec::new();

    let lock = project.lock(&path)?;
    // Refuses a file that is not UTF-8: rewriting it would turn those bytes into U+FFFD.
    let existing = fsx::read_for_edit(&project.boundary(), &path, MAX_CHECKPOINT_BYTES)?;
    let (bytes, created) = match existing.as_deref().map(format::classify) {
        Some(Kind::Checkpoint(old)) if store::normalize(&old.plan_file) == rel => {
            warnings.extend(policy::backwards_note(old.phase.as_deref(), phase));
            let changes = Changes {
                phase: Some(phase),
                branch: branch.map(str::to_string),
                head: head.clone(),
                updated: Some(now),
                ..Changes::default()
            };
            (
                format::edit(existing.as_deref().unwrap_or_default(), &changes),
                false,
            )
        }
        Some(other) if !req.force => {
            let occupant = match other {
                Kind::Checkpoint(old) => {
                    Occupant::OtherPlan(secrets::redact(&old.plan_file).into_owned())
                }
                Kind::NotOurs => Occupant::NotOurs,
                Kind::Corrupt(e) => Occupant::Corrupt(e),
            };
            return Err(CheckpointError::Occupied { file, occupant }.into());
        }
        replaced => {
            if replaced.is_some() {
                // --force: keep the old bytes, then start over.
                let moved = store::quarantine(&path, project.repo.as_ref(), now)?;
                warnings.push(format!(
                    "replaced {file}; the old file was moved to {}",
                    moved.display()
                ));
            }
            let head = head.as_deref().unwrap_or("");
            let text = format::render_new(&slug, &rel, phase, branch.unwrap_or(""), head, now);
            (text, true)
        }
    };
    fsx::write_atomic(&project.boundary(), &path, bytes.as_bytes())?;
    drop(lock);

    let gitignored = project.is_ignored(&path);
    // Outside git there is nothing to ignore: no advice that cannot take effect (SPEC §4.1).
    let announcement = if project.repo.is_none() {
        format!("Progress saved to {file} (not in a git repository)")
    } else if gitignored {
        format!("Progress saved to {file} (gitignored)")
    } else {
        format!("Progress saved to {file} (NOT gitignored — run: megg gitignore)")
    };
    let Kind::Checkpoint(checkpoint) = format::classify(&bytes) else {
        return Err(CheckpointError::SavedUnreadable(file).into());
    };
    let found = Found {
        root: project.root.clone(),
        file,
        path,
        checkpoint,
    };
    let checkpoint = store::describe_read(&found, Some(&bytes), now, project.repo.as_ref());
    // A checkpoint saved again keeps what was written into it by hand.
    warnings.extend(checkpoint.secret_warnings());
    Ok(Saved {
        checkpoint,
        created,
        gitignored,
        announcement,
        warnings,
    })
}

/// `list`: every checkpoint described, and the files that are not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub checkpoints: Vec<Described>,
    /// (path, error)
    pub corrupt: Vec<(PathBuf, String)>,
    pub ignored: Vec<PathBuf>,
    /// The scan's, then each checkpoint's.
    pub warnings: Vec<String>,
}

/// Lists the project's checkpoints at `now`. Only reads: corrupt files stay where they are.
pub fn list(project: &Project, now: DateTime<Utc>) -> Listing {
    let scan = store::scan(&project.roots);
    let mut warnings = scan.warnings;
    let checkpoints: Vec<Described> = scan
        .checkpoints
        .iter()
        .map(|f| store::describe(f, now, project.repo.as_ref()))
        .collect();
    for d in &checkpoints {
        warnings.extend(d.warnings.iter().cloned());
    }
    Listing {
        checkpoints,
        corrupt: scan.corrupt,
        ignored: scan.ignored,
        warnings,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// Its warnings name each secret of the file.
    pub checkpoint: Described,
    /// The file's contents, each secret `[redacted]`.
    pub text: String,
}

/// `show`: one checkpoint described, and its file.
pub fn show(project: &Project, target: &Target, now: DateTime<Utc>) -> Result<Shown> {
    let scan = store::scan(&project.roots);
    let found = target.require(&scan)?;
    let text = store::read_text(found)?;
    let checkpoint = store::describe_read(found, Some(&text), now, project.repo.as_ref());
    let text = shown::text(&found.path, text);
    Ok(Shown { checkpoint, text })
}

/// `update`: what to change; `None` / empty leaves it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateRequest {
    pub phase: Option<Phase>,
    pub branch: Option<String>,
    /// Items to check, each matched by the start of its text.
    pub check: Vec<String>,
    pub uncheck: Vec<String>,
}

/// Changes a checkpoint's phase, branch and items under its lock; `head` follows the branch.
pub fn update(
    project: &Project,
    target: &Target,
    req: &UpdateRequest,
    now: DateTime<Utc>,
) -> Result<Described> {
    let scan = store::scan(&project.roots);
    let found = target.require(&scan)?;
    store::edit_under_lock(project, found, now, |current| {
        let pick = |queries: &[String]| -> Result<Vec<usize>> {
            queries
                .iter()
                .map(|q| {
                    format::match_item(&current.items, q).ok_or_else(|| {
                        CheckpointError::NoSuchItem {
                            query: q.clone(),
                            items: current
                                .items
                                .iter()
                                .map(|i| secrets::redact(&i.text).into_owned())
                                .collect(),
                        }
                        .into()
                    })
                })
                .collect()
        };
        let branch_now = req.branch.clone().or(current.branch.clone());
        Ok(Changes {
            phase: req.phase,
            branch: req.branch.clone(),
            head: store::tip_of(project.repo.as_ref(), branch_now.as_deref()),
            check: pick(&req.check)?,
            uncheck: pick(&req.uncheck)?,
            ..Changes::default()
        })
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub file: String,
    /// As shown: each secret `[redacted]`.
    pub feature: String,
    /// One per secret the file held.
    pub warnings: Vec<String>,
}

/// `finish`: the lifecycle is complete; deletes the checkpoint.
pub fn finish(project: &Project, target: &Target) -> Result<Finished> {
    let scan = store::scan(&project.roots);
    let found = target.require(&scan)?;
    let text = store::read_text(found).ok();
    let (shown, hidden) = shown::checkpoint(&found.path, &found.checkpoint, text.as_deref());
    store::remove(project, found)?;
    Ok(Finished {
        file: found.file.clone(),
        feature: shown.feature,
        warnings: hidden.iter().map(Hidden::warning).collect(),
    })
}

/// Which checkpoint `resume` is about (SPEC §4.4 steps 2–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection<'s> {
    One(&'s Found),
    /// Nothing to resume; for a target that matched nothing, the message says so.
    Nothing(Option<&'s str>),
    /// Several checkpoints and no target.
    Several,
}

/// The checkpoint a resume with `target` (or without) is about.
pub fn select<'s>(scan: &'s Scan, target: Option<&'s Target>) -> Selection<'s> {
    match target {
        Some(t) => match t.find(scan) {
            Some(f) => Selection::One(f),
            None => Selection::Nothing(Some(&t.given)),
        },
        None => match scan.checkpoints.as_slice() {
            [] => Selection::Nothing(None),
            [one] => Selection::One(one),
            _ => Selection::Several,
        },
    }
}

/// What `resume` reports and, once a choice was carried out, did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeReport {
    pub status: ResumeStatus,
    pub checkpoint: Option<Described>,
    pub candidates: Vec<Described>,
    pub question: Option<String>,
    pub options: Vec<ResumeOption>,
    pub warnings: Vec<String>,
    pub corrupt: Vec<Quarantined>,
    pub action: Option<ResumeAction>,
    /// What a person reads: the outcome, or the file for `view`.
    pub message: Option<String>,
    /// The workflow command asking (`--for`): follow-up commands megg prints keep it.
    pub asking: Option<WorkflowCommand>,
}

impl ResumeReport {
    /// Nothing found yet: status `none`, with the quarantine's results.
    pub fn new(corrupt: Vec<Quarantined>, warnings: Vec<String>) -> Self {
        Self {
            status: ResumeStatus::None,
            checkpoint: None,
            candidates: Vec::new(),
            question: None,
            options: Vec::new(),
            warnings,
            corrupt,
            action: None,
            message: None,
            asking: None,
        }
    }

    /// No checkpoint to resume.
    pub fn nothing(mut self, target: Option<&str>) -> Self {
        self.message = Some(match target {
            Some(t) => format!("No saved checkpoint for {t}; starting fresh"),
            None => "No saved checkpoint; starting fresh".into(),
        });
        self
    }

    /// Several checkpoints: the caller picks one.
    pub fn multiple(
        mut self,
        all: &[Found],
        now: DateTime<Utc>,
        repo: Option<&Repo>,
        asking: Option<WorkflowCommand>,
    ) -> Self {
        self.status = ResumeStatus::Multiple;
        self.asking = asking;
        self.candidates = all.iter().map(|f| store::describe(f, now, repo)).collect();
        // Their features are printed: the secrets of each are named.
        let named: Vec<String> = self
            .candidates
            .iter()
            .flat_map(Described::secret_warnings)
            .collect();
        self.warnings.extend(named);
        self.message = Some(format!(
            "{} saved sessions; pick one with `megg checkpoint resume <slug>{}`",
            all.len(),
            for_flag(asking)
        ));
        self
    }

    /// The question about one checkpoint: its description, the warnings it earns for the
    /// command `asking` (and for another branch being checked out), and the options for its
    /// tier.
    pub fn found(
        mut self,
        found: &Found,
        now: DateTime<Utc>,
        repo: Option<&Repo>,
        asking: Option<WorkflowCommand>,
    ) -> Self {
        let d = store::describe(found, now, repo);
        self.warnings.extend(d.warnings.iter().cloned());
        if let Some(r) = repo {
            self.warnings.extend(policy::branch_note(
                d.checkpoint.branch.as_deref(),
                r.current_branch().as_deref(),
            ));
        }
        self.warnings.extend(policy::resume_notes(
            &d.checkpoint.plan_file,
            d.plan_exists,
            d.checkpoint.phase.as_deref(),
            asking,
        ));
        self.status = ResumeStatus::Found;
        self.asking = asking;
        self.question = Some(format!(
            "Found previous session for '{}'",
            d.checkpoint.feature
        ));
        self.options = policy::options(d.staleness, d.plan_exists);
        self.checkpoint = Some(d);
        self
    }
}

/// Marks a checkpoint resumed: `updated` now, `head` the branch tip, `plan-complete` → `work`
/// when resumed for work, and `plan_file` relinked when given (already root-relative).
pub fn resume_in_place(
    project: &Project,
    found: &Found,
    asking: Option<WorkflowCommand>,
    plan_file: Option<String>,
    now: DateTime<Utc>,
) -> Result<Described> {
    store::edit_under_lock(project, found, now, |current| {
        Ok(Changes {
            plan_file,
            phase: policy::resumed_phase(current.known_phase(), asking),
            head: store::tip_of(project.repo.as_ref(), current.branch.as_deref()),
            ..Changes::default()
        })
    })
}

/// ` --for <command>` when a workflow command is asking, for the commands megg prints.
pub fn for_flag(asking: Option<WorkflowCommand>) -> String {
    asking.map_or(String::new(), |c| format!(" --for {}", c.as_str()))
}
