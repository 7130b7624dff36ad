//! `megg doctor --json` (SPEC §7).

use serde::Serialize;

use crate::megg::doctor::Check;

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// Every check passed.
    pub ok: bool,
    pub checks: Vec<CheckDoc>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckDoc {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
    pub fix: Option<String>,
}

impl From<&[Check]> for Report {
    fn from(checks: &[Check]) -> Self {
        Self {
            ok: checks.iter().all(|c| c.ok),
            checks: checks
                .iter()
                .map(|c| CheckDoc {
                    name: c.name,
                    ok: c.ok,
                    detail: c.detail.clone(),
                    fix: c.fix.clone(),
                })
                .collect(),
        }
    }
}
