//! `megg checkpoint save | list | show | update | resume | finish` (SPEC §4): workflow
//! checkpoints `.<slug>.local.md` in the project root. Each subcommand has its module: its
//! arguments become a request, the domain (`megg::checkpoint`) returns a result, and
//! `render::checkpoint` prints it.

mod finish;
mod list;
mod resume;
mod save;
mod show;
mod tidy;
mod update;

use std::path::{Path, PathBuf};

use clap::Subcommand;

use crate::env::Env;
use crate::error::Result;
use crate::flow::resume::Request as ResumeRequest;
use crate::megg::checkpoint::{Choice, Phase, Target, UpdateRequest, WorkflowCommand};
use crate::megg::project::Project;
use crate::output::Output;

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
        #[arg(long, value_enum)]
        phase: Option<Phase>,
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
        #[arg(long, value_enum)]
        phase: Option<Phase>,
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
        #[arg(long = "for", value_name = "COMMAND", value_enum)]
        for_command: Option<WorkflowCommand>,
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
    /// Delete abandoned checkpoints (over 30 days old); never corrupt or other plugins' files
    Prune {
        /// Delete those older than DAYS instead
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
        /// List what would be deleted; delete nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// List corrupt checkpoints moved to quarantine; put one back once it is fixed
    Quarantine {
        /// Put this quarantined file back where it came from (refused while still corrupt)
        #[arg(long, value_name = "NAME")]
        restore: Option<String>,
    },
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let project = env.project();
    let json = args.json;
    match &args.action {
        Action::Save {
            plan_file,
            phase,
            branch,
            force,
        } => save::run(
            env,
            project,
            plan_file,
            *phase,
            branch.clone(),
            *force,
            json,
        ),
        Action::List => Ok(list::run(env, project, json)),
        Action::Show { target: given } => {
            show::run(env, project, &target(env, project, given), json)
        }
        Action::Update {
            target: given,
            phase,
            branch,
            check,
            uncheck,
        } => update::run(
            env,
            project,
            &target(env, project, given),
            UpdateRequest {
                phase: *phase,
                branch: branch.clone(),
                check: check.clone(),
                uncheck: uncheck.clone(),
            },
            json,
        ),
        Action::Resume {
            target: given,
            for_command,
            choice,
            plan_file,
        } => resume::run(
            env,
            project,
            &ResumeRequest {
                target: given.as_deref().map(|t| target(env, project, t)),
                for_command: *for_command,
                choice: *choice,
                new_plan: plan_file.clone(),
            },
            json,
        ),
        Action::Finish { target: given } => {
            finish::run(project, &target(env, project, given), json)
        }
        Action::Prune {
            older_than,
            dry_run,
        } => tidy::prune(env, project, *older_than, *dry_run, json),
        Action::Quarantine { restore } => tidy::quarantine(project, restore.as_deref(), json),
    }
}

/// A SLUG|PLAN_FILE argument, also read as a path from the starting directory. The
/// subcommands get it made: they never reach back here.
fn target(env: &Env, project: &Project, given: &str) -> Target {
    Target {
        given: given.to_string(),
        as_plan: project.relative(&env.resolve(Path::new(given.trim()))),
    }
}
