//! `Env`: what every command runs against — the starting directory, the clock, the token
//! counter, ceilings, trust and whether a person is at the terminal — read from the process
//! once. Commands pass the domain only what it needs ([`crate::megg::Deps`]).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::tokens::Counter;
use crate::{config, fsx, megg};

/// What every command runs against: where, when, and the shared services.
#[derive(Debug)]
pub struct Env {
    /// The starting directory (after `-C`), absolute, symlinks as walked.
    pub cwd: PathBuf,
    pub clock: Clock,
    pub tokens: Counter,
    /// `MEGG_CEILING_DIRS`.
    pub ceilings: Vec<PathBuf>,
    pub stdin_is_tty: bool,
    /// stdin and stderr are both terminals: prompts may ask.
    pub interactive: bool,
    /// Directories the user trusts (canonical), from the user's config file only (SPEC §9).
    pub trusted: Vec<PathBuf>,
    /// Why the config file could not be used, if it could not.
    pub config_warnings: Vec<String>,
    /// `MEGG_CAPTURE=off`: automatic capture is turned off (SPEC §10).
    pub capture_off: bool,
    /// `MEGG_HOST_SUMMARY=off` (or the user's config `host_summary = false`): the hosts'
    /// compaction summaries are neither kept nor injected (SPEC §18.1).
    pub host_summary_off: bool,
    /// Every repository this run opens, each once.
    pub repos: megg::repos::Repos,
    /// The project of the starting directory, found on first use.
    project: std::cell::OnceCell<megg::project::Project>,
}

impl Env {
    /// The environment of this process, started in `dir` (relative to the working directory).
    pub fn from_process(dir: Option<&Path>) -> Result<Self> {
        Self::with_clock(dir, Clock::from_env()?)
    }

    /// Like [`Env::from_process`] with a given clock.
    pub fn with_clock(dir: Option<&Path>, clock: Clock) -> Result<Self> {
        let base = current_dir()?;
        let cwd = match dir {
            Some(d) => megg::discovery::absolute(&base, d),
            None => base,
        };
        if !fsx::is_dir(&cwd) {
            return Err(Error::user(format!(
                "cannot change to {}: not a directory",
                cwd.display()
            ))
            .with_hint("check the -C argument"));
        }
        let config::UserConfig {
            trusted,
            host_summary,
            warnings: config_warnings,
        } = config::load(&cwd);
        let ceilings = ceilings_from_env();
        let host_summary_off = off_in_env("MEGG_HOST_SUMMARY") || !host_summary;
        Ok(Self {
            host_summary_off,
            repos: megg::repos::Repos::new(&ceilings),
            project: std::cell::OnceCell::new(),
            cwd,
            trusted,
            config_warnings,
            clock,
            tokens: Counter::from_env(),
            ceilings,
            capture_off: capture_off_from_env(),
            stdin_is_tty: std::io::stdin().is_terminal(),
            interactive: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
        })
    }

    /// What the domain needs from this environment (SPEC: the domain never sees `Env`).
    pub fn deps(&self) -> megg::Deps<'_> {
        megg::Deps {
            now: self.clock.now(),
            tokens: &self.tokens,
            ceilings: &self.ceilings,
            trusted: &self.trusted,
            repos: &self.repos,
        }
    }

    /// The project this command runs in (SPEC §2.4).
    pub fn project(&self) -> &megg::project::Project {
        self.project
            .get_or_init(|| megg::project::Project::at(&self.cwd, &self.repos))
    }

    /// The project top for a directory: its git work tree's top as walked, else itself.
    pub fn top(&self, at: &Path) -> PathBuf {
        self.repos.top(at)
    }

    /// SPEC §9 "No writing up", from this command's starting directory.
    pub fn refuse_writing_up(&self, d: &megg::discovery::Domain) -> Result<()> {
        megg::project::refuse_writing_up(&self.cwd, &self.repos, d)
    }

    /// The git repository containing `at`, if any.
    pub fn repo(&self, at: &Path) -> Option<Repo> {
        self.repos.get(at)
    }

    /// The walk up from a directory in the project whose top is `top` (SPEC §2.1, §9).
    pub fn walk<'a>(&'a self, top: &'a Path) -> megg::discovery::Walk<'a> {
        megg::discovery::Walk {
            ceilings: &self.ceilings,
            trusted: &self.trusted,
            top,
        }
    }

    /// A path argument made absolute against the starting directory.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        megg::discovery::absolute(&self.cwd, path)
    }

    /// A command's optional directory argument (the starting directory without one), made
    /// absolute; an error with a hint when it is not an existing directory.
    pub fn dir_arg(&self, path: Option<&Path>) -> Result<PathBuf> {
        let path = path.map_or_else(|| self.cwd.clone(), |p| self.resolve(p));
        if !fsx::is_dir(&path) {
            return Err(
                Error::user(format!("{} is not a directory", path.display()))
                    .with_hint("pass an existing directory"),
            );
        }
        Ok(path)
    }
}

/// The working directory as the user's shell sees it: `$PWD` when it names the same
/// directory (keeps symlinks as walked, like git and the shell), else the physical one.
fn current_dir() -> Result<PathBuf> {
    let physical = fsx::current_dir()
        .map_err(|e| Error::user(format!("cannot read the current directory: {e}")))?;
    if let Some(pwd) = std::env::var_os("PWD").map(PathBuf::from)
        && pwd.is_absolute()
        && let Some(id) = fsx::identity(&pwd)
        && fsx::identity(&physical) == Some(id)
    {
        return Ok(pwd);
    }
    Ok(physical)
}

/// `MEGG_CEILING_DIRS`: absolute directories the upward walks never enter, separated as the
/// OS separates `PATH` (`:`, on Windows `;`: a drive letter's colon is part of a path there).
fn ceilings_from_env() -> Vec<PathBuf> {
    std::env::var_os("MEGG_CEILING_DIRS")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| p.is_absolute())
                .collect()
        })
        .unwrap_or_default()
}

/// `MEGG_CAPTURE` set to `off` (or `0`, `false`, `no`): automatic capture is turned off.
fn capture_off_from_env() -> bool {
    off_in_env("MEGG_CAPTURE")
}

/// `var` set to `off`, `0`, `false` or `no`.
fn off_in_env(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no"
        )
    })
}
