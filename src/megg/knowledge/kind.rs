//! The knowledge entry types.

/// A knowledge entry's type: those of the TypeScript megg v1.1 and v1.2. The one place the
/// set is spelled; `learn`, `maintain`, the summary digest and the MCP schema use it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum KnowledgeType {
    /// A choice made and why.
    Decision,
    /// A way of doing things that works here.
    Pattern,
    /// A mistake that is easy to make again.
    Gotcha,
    /// Background that explains the code.
    Context,
    /// A rule every change must follow.
    Rule,
    /// A fact about the system.
    Fact,
    /// A procedure to follow.
    Process,
}

impl KnowledgeType {
    pub const ALL: [Self; 7] = [
        Self::Decision,
        Self::Pattern,
        Self::Gotcha,
        Self::Context,
        Self::Rule,
        Self::Fact,
        Self::Process,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decision => "decision",
            Self::Pattern => "pattern",
            Self::Gotcha => "gotcha",
            Self::Context => "context",
            Self::Rule => "rule",
            Self::Fact => "fact",
            Self::Process => "process",
        }
    }

    /// The type named `s`, in any case (files written by hand say `Decision`).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// "decision, pattern, …" for messages.
    pub fn list() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

impl std::fmt::Display for KnowledgeType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
