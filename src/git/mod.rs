//! Everything megg asks git, answered with git2 (no network, never by running `git`). The only
//! module that touches git2; it returns plain values. One [`Repo`] per repository a run opens
//! ([`crate::megg::repos::Repos`]), its methods in rooms of their own:
//!
//! - [`repo`]: discovery and identity — work tree, git directories, HEAD, branch, ignore rules;
//! - [`citations`]: what happened to the paths knowledge entries cite (SPEC §17) — [`asks`]
//!   the questions and answers, [`walk`] the one walk behind them, [`citations_after`] answers
//!   brought up to a new HEAD, [`renames`] where a path that left went, [`names`] which path a
//!   bare file name names;
//! - [`history`]: branch tips, divergence since a save, commits since a head (capped walks);
//! - [`index`]: the work tree's status and the index — tracked and changed paths, unmerged
//!   stages, marking a path resolved;
//! - [`config`]: config files and attributes (the merge driver's registration, SPEC §11);
//! - [`text_merge`]: git's own line merge of one file, the merge driver's fallback (SPEC §16).

mod asks;
mod citations;
mod citations_after;
mod config;
mod history;
mod index;
mod names;
mod renames;
mod repo;
mod text_merge;
mod walk;

#[cfg(test)]
mod citations_merge_tests;
#[cfg(test)]
mod citations_tests;
#[cfg(test)]
mod names_tests;
#[cfg(test)]
mod tests;

pub use asks::{Ask, MAX_TOUCHES, PathHistory, Touch};
pub use config::{
    Attr, ConfigError, ConfigLevel, ConfigValue, config_file_remove, config_file_set,
    config_file_values, global_config_path,
};
pub use history::{Basis, Commits, Divergence, HOOK_WALK_CAP, WALK_CAP};
pub use index::{Changed, Stage, Unmerged};
pub use names::{NameAsk, Named};
pub use repo::{Linked, MAIN_WORKTREE, Repo, worktree_key};
pub use text_merge::{TextMerge, text_merge};
