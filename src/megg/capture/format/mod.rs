//! Each host's transcript format (SPEC §12 "Capture for every host"), read one line at a time
//! into the same [`Scan`]: Claude Code's JSON lines ([`Scan::feed`]), Codex's rollout
//! (`{timestamp, type, payload}`), Gemini's chat records with `$set` patches, Copilot's
//! `events.jsonl` (`{type, data, id, timestamp}`).
//!
//! Every reader is defensive like Claude Code's: a line that is not JSON, of a kind it does not
//! know, or with a field of the wrong type is skipped, never an error; and the user-role text
//! a host writes that the user never typed (the table's row, megg's own injected context above
//! all) is never a request.

mod codex;
mod copilot;
mod gemini;

use super::transcript::{Origin, Scan};
use crate::host::Agent;

/// Reads one line of `agent`'s transcript into `scan`.
pub fn feed(scan: &mut Scan, agent: Agent, line: &str, origin: Origin) {
    match agent {
        Agent::Claude => scan.feed(line, origin),
        Agent::Codex => codex::feed(scan, line),
        Agent::Gemini => gemini::feed(scan, line),
        Agent::Copilot => copilot::feed(scan, line),
    }
}
