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
    /// What an agent reads (the default).
    Markdown,
    /// That plus the structured document.
    Json,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    /// Directory to load context for (default: cwd)
    pub path: Option<String>,
    /// Only knowledge entries with this topic, in full
    pub topic: Option<String>,
    /// Character budget (default 9500)
    #[schemars(range(min = 1000, max = 10000))]
    pub max_chars: Option<usize>,
    /// What to return
    pub format: Option<ContextFormat>,
}

/// What `state` does besides reading and writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StateStatus {
    /// Read or (with `content`) save the handoff.
    Active,
    /// The task is finished: delete the handoff.
    Done,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateParams {
    /// Directory whose nearest .megg is used (default: cwd)
    pub path: Option<String>,
    /// The handoff to save (markdown: Working On / Progress / Next / Context)
    pub content: Option<String>,
    /// Omit to read or save
    pub status: Option<StateStatus>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LearnParams {
    /// Directory whose nearest .megg gets it (default: cwd)
    pub path: Option<String>,
    /// One-line title
    pub title: String,
    /// What kind of knowledge
    #[serde(rename = "type")]
    pub kind: KnowledgeType,
    /// Topics, e.g. ["auth", "security"]
    pub topics: Vec<String>,
    /// The entry's markdown (no line that is exactly `---`)
    pub content: String,
    /// Id (from search) of an entry this one replaces: moved to the archive
    pub supersedes: Option<String>,
    /// Save what looks like a secret (refused otherwise) when the user says it is none
    pub allow_secrets: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InitParams {
    /// Directory to make a domain (default: cwd)
    pub path: Option<String>,
    /// Alias of path
    pub project_root: Option<String>,
    /// The info.md text instead of the template
    pub info: Option<String>,
    /// Replace an existing info.md
    pub force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MaintainParams {
    /// Directory to report on, and below (default: the current domain)
    pub path: Option<String>,
    /// Move entries dated before this day (YYYY-MM-DD) to .megg/archive/
    pub archive_before: Option<String>,
    /// Domains per page (default 10)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// Domains to skip (default 0)
    pub offset: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveParams {
    /// Project directory (default: cwd)
    pub path: Option<String>,
    /// The plan file, relative to `path`
    pub plan_file: String,
    /// Default plan-complete; then work, work-complete, review, review-complete, compound
    pub phase: Option<Phase>,
    /// The work's branch (default: the current one)
    pub branch: Option<String>,
    /// Replace another plan's checkpoint with the same slug
    pub force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Project directory (default: cwd)
    pub path: Option<String>,
    /// Checkpoints per page (default 10)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// Checkpoints to skip (default 0)
    pub offset: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeParams {
    /// Project directory (default: cwd)
    pub path: Option<String>,
    /// Slug or plan file (default: any)
    pub target: Option<String>,
    /// The /workflows command asking: plan, work, review or compound (warns on a phase
    /// mismatch)
    #[serde(rename = "for")]
    pub for_command: Option<WorkflowCommand>,
    /// The user's answer, carried out; omit to get the question
    pub choice: Option<Choice>,
    /// With choice resume: the plan's new path
    pub new_plan_file: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateParams {
    /// Project directory (default: cwd)
    pub path: Option<String>,
    /// Slug or plan file
    pub target: String,
    /// The phase reached: plan-complete, work, work-complete, review, review-complete or
    /// compound
    pub phase: Option<Phase>,
    /// The work's branch
    pub branch: Option<String>,
    /// Items to check, matched by the start of their text (any case)
    pub check: Option<Vec<String>>,
    /// Items to uncheck, matched the same way
    pub uncheck: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TargetParams {
    /// Project directory (default: cwd)
    pub path: Option<String>,
    /// Slug or plan file
    pub target: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GitignoreParams {
    /// Project directory (default: cwd)
    pub path: Option<String>,
    /// Change nothing; report whether they are ignored
    pub check: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// Words, as you would ask; "quoted phrases" must occur as phrases
    pub query: String,
    /// Directory whose chain is searched (default: cwd)
    pub path: Option<String>,
    /// Kinds of document (default: all): knowledge, archive (archived entries), handoff
    /// (session handoffs), info (info.md sections)
    #[serde(rename = "in")]
    pub kinds: Option<Vec<crate::megg::recall::Kind>>,
    /// Only entries of this type: decision, pattern, gotcha, context, rule, fact or process
    #[serde(rename = "type")]
    pub entry_type: Option<KnowledgeType>,
    /// Only entries with this topic
    pub topic: Option<String>,
    /// Only documents dated on or after this day (YYYY-MM-DD)
    pub since: Option<String>,
    /// Also search the domains below `path`
    pub below: Option<bool>,
    /// The most results to page through, best first (default: all)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<usize>,
    /// The last page's next_cursor (same query, filters, limit)
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// Ids from `search` or the session-start index
    pub ids: Vec<String>,
    /// Directory whose chain or domains below hold them (default: cwd)
    pub path: Option<String>,
    /// The last page's next_cursor (same ids)
    pub cursor: Option<String>,
}
