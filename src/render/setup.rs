//! `megg setup`'s report for people.

use crate::megg::setup::Scope;
use crate::wire::setup::Report;

/// What setup changed (or would change), one line per file.
pub fn text(r: &Report) -> String {
    let agents: String = match r.agents.as_slice() {
        [crate::host::Agent::Claude] => String::new(),
        agents => agents
            .iter()
            .map(|a| format!(" --agent {}", a.as_str()))
            .collect(),
    };
    let mut out = format!(
        "megg setup{agents}{} ({} scope, {}){}:\n",
        if r.uninstall { " --uninstall" } else { "" },
        match r.scope {
            Scope::Project => "project",
            Scope::User => "user",
        },
        r.root.display(),
        if r.dry_run {
            ", dry run: nothing written"
        } else {
            ""
        }
    );
    for c in &r.changes {
        let action = if r.dry_run && c.action.changes() {
            format!("would {}", c.action)
        } else {
            c.action.to_string()
        };
        out.push_str(&format!(
            "  {action:<10} {} ({})\n",
            c.path.display(),
            c.what
        ));
    }
    if r.changes.iter().all(|c| !c.action.changes()) {
        out.push_str("Nothing to change.\n");
    }
    if let Some(cmd) = &r.mcp_command {
        out.push_str(&format!("MCP server: run `{cmd}`\n"));
    }
    if !r.trust.is_empty() {
        out.push_str("Trust (megg changes no host's trust settings; these steps are yours):\n");
        for line in &r.trust {
            out.push_str(&format!("  - {line}\n"));
        }
    }
    out
}
