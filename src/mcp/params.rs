//! The tools' parameters (SPEC §7 "Schemas a model can use without guessing"): every field has
//! a description, closed sets are the domain's enums (each value's meaning in the schema), and
//! an unknown parameter is an error naming the accepted ones (`deny_unknown_fields`).

use serde::Deserialize;

use crate::megg::checkpoint::{Choice, Phase, WorkflowCommand};
use crate::megg::knowledge::KnowledgeType;

/// What `context` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContextFormat {
    /// The markdown an agent reads, within `max_chars` (the default).
    Markdown,
    /// The markdown plus the structured `megg context --format json` document.
    Json,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    /// Directory to load context for (default: the server's working directory)
    pub path: Option<String>,
    /// Only knowledge entries with this topic (whole word, any case), in full
    pub topic: Option<String>,
    /// Character budget of the markdown, cut in the hook's order (default 9500, at most 10000)
    #[schemars(range(min = 1000, max = 10000))]
    pub max_chars: Option<usize>,
    /// `markdown` (default) or `json`
    pub format: Option<ContextFormat>,
}

/// What `state` does besides reading and writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StateStatus {
    /// Read (or, with `content`, write) the handoff.
    Active,
    /// The task is finished: delete the handoff.
    Done,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateParams {
    /// Directory to act in; its nearest .megg is used (default: the server's working directory)
    pub path: Option<String>,
    /// The handoff to save (markdown: Working On / Progress / Next / Context); omit to read
    pub content: Option<String>,
    /// `done` clears the state; omit (or `active`) to read or write
    pub status: Option<StateStatus>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LearnParams {
    /// Directory whose nearest .megg receives the entry (default: the server's working directory)
    pub path: Option<String>,
    /// One-line title
    pub title: String,
    /// What kind of knowledge it is
    #[serde(rename = "type")]
    pub kind: KnowledgeType,
    /// Topics, e.g. ["auth", "security"]
    pub topics: Vec<String>,
    /// The entry's markdown (no line that is exactly `---`)
    pub content: String,
    /// Save it even though it looks like a secret (refused otherwise), when the user says it is not one
    pub allow_secrets: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitParams {
    /// The directory to make a domain (default: the server's working directory)
    pub path: Option<String>,
    /// The directory to make a domain (alias of path)
    pub project_root: Option<String>,
    /// The info.md text instead of the template
    pub info: Option<String>,
    /// Replace an existing info.md
    pub force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MaintainParams {
    /// Directory to report on, with everything below it (default: the current domain)
    pub path: Option<String>,
    /// Move entries dated before this day (YYYY-MM-DD) into .megg/archive/
    pub archive_before: Option<String>,
    /// Domains per page (default 20)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// Domains to skip (default 0)
    pub offset: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveParams {
    /// The project directory (default: the server's working directory)
    pub path: Option<String>,
    /// The plan file, relative to `path`
    pub plan_file: String,
    /// The phase to record (default: plan-complete)
    pub phase: Option<Phase>,
    /// The branch the work happens on (default: the current branch)
    pub branch: Option<String>,
    /// Replace another plan's checkpoint with the same slug
    pub force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// The project directory (default: the server's working directory)
    pub path: Option<String>,
    /// Checkpoints per page, newest first (default 20)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// Checkpoints to skip (default 0)
    pub offset: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeParams {
    /// The project directory (default: the server's working directory)
    pub path: Option<String>,
    /// Slug or plan file (default: any checkpoint)
    pub target: Option<String>,
    /// The workflow command asking (warns on a phase mismatch)
    #[serde(rename = "for")]
    pub for_command: Option<WorkflowCommand>,
    /// Carry out the user's answer; omit to get the question and options
    pub choice: Option<Choice>,
    /// With choice `resume`: the plan's new path
    pub new_plan_file: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateParams {
    /// The project directory (default: the server's working directory)
    pub path: Option<String>,
    /// Slug or plan file
    pub target: String,
    /// The phase to record
    pub phase: Option<Phase>,
    /// The branch the work happens on
    pub branch: Option<String>,
    /// Items to check, matched case-insensitively by the start of their text
    pub check: Option<Vec<String>>,
    /// Items to uncheck, matched the same way
    pub uncheck: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetParams {
    /// The project directory (default: the server's working directory)
    pub path: Option<String>,
    /// Slug or plan file
    pub target: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitignoreParams {
    /// The project directory (default: the server's working directory)
    pub path: Option<String>,
    /// Change nothing; report whether checkpoints are ignored
    pub check: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// Words to look for, as you would ask (stemmed; identifiers split; "quoted phrases" must
    /// occur as phrases)
    pub query: String,
    /// Directory whose chain is searched (default: the server's working directory)
    pub path: Option<String>,
    /// Kinds of document to search (default: all)
    #[serde(rename = "in")]
    pub kinds: Option<Vec<crate::megg::recall::Kind>>,
    /// Only knowledge entries of this type
    #[serde(rename = "type")]
    pub entry_type: Option<KnowledgeType>,
    /// Only entries with this topic (whole word, any case)
    pub topic: Option<String>,
    /// Only documents dated on or after this day (YYYY-MM-DD)
    pub since: Option<String>,
    /// Also search the domains below `path`
    pub below: Option<bool>,
    /// The most results to page through, best first (default: every match)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// `next_cursor` of the previous page, to get the next (same query, filters and limit)
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// Ids from `search` or the session-start index
    pub ids: Vec<String>,
    /// Directory whose chain (and the domains below it) holds them (default: the server's
    /// working directory)
    pub path: Option<String>,
    /// `next_cursor` of the previous call, to get the next page (same ids)
    pub cursor: Option<String>,
}
