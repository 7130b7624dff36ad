//! Whether the plan can be carried out, asked of every change before any is made (SPEC §7: the
//! dry run is the plan, and the run carries out exactly that): what refuses the whole run, what
//! is skipped with a warning, and what the user can do about a refusal.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::host::Agent;

use super::hosts_record::Record;
use super::plan::{self, Places, Planned};
use super::{Action, Scope};

/// What the run was asked to do, as far as a refusal's hint is concerned.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub uninstall: bool,
    pub scope: Scope,
}

/// Asks every change of the plan, before any is made, whether it can be carried out (SPEC §7:
/// the dry run is the plan, and the run carries out exactly that). A host's file, the lock it
/// is changed under, or the record of hosts, that this user cannot write refuses the whole run
/// — the dry run alike — with nothing written; a shared piece (the last group: `.mcp.json`,
/// the gitignore block, the merge driver) is skipped with a warning, and never fails the hosts
/// the user asked for.
pub fn refuse_or_skip(
    groups: &mut [(Places, Vec<Planned>)],
    agents: &[Agent],
    records: &mut Vec<plan::BlockRecord>,
    hosts: &Record,
    after: &BTreeSet<Agent>,
    run: Run,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let Some(((shared_places, shared), hosts_groups)) = groups.split_last_mut() else {
        return Ok(());
    };
    for ((places, planned), agent) in hosts_groups.iter().zip(agents) {
        if let Some(why) = planned.iter().find_map(|p| places.refusal(p)) {
            return Err(Error::user(format!("{why}; nothing was changed"))
                .with_hint(refusal_hint(Some(*agent), agents, run)));
        }
    }
    if let Some(why) = hosts.refusal(after) {
        return Err(Error::user(format!("{why}; nothing was changed"))
            .with_hint(refusal_hint(None, agents, run)));
    }
    for p in shared.iter_mut() {
        let record = records.iter().find(|r| r.file() == p.path);
        let why = shared_places
            .refusal(p)
            .or_else(|| record.and_then(|r| r.refusal(run.uninstall)));
        if let Some(why) = why {
            skip(p, &why, records, warnings);
        }
    }
    Ok(())
}

/// What the user can do about a refusal (of `refused`'s file, or of the record of hosts): make
/// the place the error names writable; installing, also set megg up without that host (the
/// others asked for, or other hosts when it was the only one) or at the other scope;
/// uninstalling, leave that host for later when others were named.
fn refusal_hint(refused: Option<Agent>, agents: &[Agent], run: Run) -> String {
    let again = if run.uninstall {
        "megg setup --uninstall again"
    } else {
        "megg setup again"
    };
    let mut hint = format!("make the place named above writable for you, then run {again}");
    let others: Vec<String> = agents
        .iter()
        .filter(|a| Some(**a) != refused)
        .map(|a| format!("--agent {}", a.as_str()))
        .collect();
    let mut ors = Vec::new();
    if let Some(host) = refused.map(|a| a.host()) {
        if !others.is_empty() {
            let later = if run.uninstall { " for now" } else { "" };
            ors.push(format!(
                "leave {} out{later} ({} only)",
                host.name,
                others.join(" ")
            ));
        } else if !run.uninstall {
            let hosts: Vec<String> = crate::host::all()
                .filter(|h| Some(h.agent) != refused)
                .map(|h| format!("--agent {}", h.agent.as_str()))
                .collect();
            ors.push(format!("choose other hosts ({})", or_list(&hosts)));
        }
    }
    if !run.uninstall {
        let other = match run.scope {
            Scope::Project => Scope::User,
            Scope::User => Scope::Project,
        };
        let name = clap::ValueEnum::to_possible_value(&other)
            .map(|v| v.get_name().to_string())
            .unwrap_or_default();
        ors.push(format!("use the other scope (--scope {name})"));
    }
    if !ors.is_empty() {
        hint.push_str("; or ");
        hint.push_str(&ors.join(", or "));
    }
    hint
}

/// `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Leaves out a shared piece that cannot be written, and the record of the lines it would
/// have added or removed.
pub fn skip(
    p: &mut Planned,
    why: &str,
    records: &mut Vec<plan::BlockRecord>,
    warnings: &mut Vec<String>,
) {
    warnings.push(format!("skipped {}: {why}", p.what));
    p.action = Action::Skipped;
    records.retain(|r| r.file() != p.path);
}
