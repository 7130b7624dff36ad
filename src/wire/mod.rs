//! The public JSON documents (SPEC §3–§7): one output struct per `--json` document and MCP
//! structured result, apart from the domain's structs and converted from them explicitly, so
//! renaming a domain field can never silently change a document. Field order here is the
//! order in the document.

pub mod checkpoint;
pub mod context;
pub mod doctor;
pub mod knowledge;
pub mod misc;
pub mod recall;
pub mod setup;
pub mod state;
