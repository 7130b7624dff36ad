//! Workflow checkpoints `.<slug>.local.md` (SPEC §2.4, §4). The submodules live in
//! `checkpoint/`:
//!
//! - [`lifecycle`]: the phases and the workflow commands (closed sets);
//! - [`format`]: which files are ours, reading one, writing and editing its bytes;
//! - [`policy`]: staleness, resume options and warnings — pure functions of data;
//! - [`store`]: the files on disk — discovery, quarantine, locked edits, descriptions;
//! - [`shown`]: what megg prints of one — each secret `[redacted]` and named (SPEC §12);
//! - [`ops`]: one function per subcommand, request in, result out;
//! - [`error`]: why an operation refused.
//!
//! Nothing here prompts, prints or reads the environment: the caller passes the time, the
//! project and the repository.

pub mod error;
pub mod format;
pub mod lifecycle;
pub mod ops;
pub mod policy;
pub mod shown;
pub mod store;
pub mod tidy;

pub use error::{CheckpointError, Occupant};
pub use format::{Changes, Checkpoint, Item, Kind, classify};
pub use lifecycle::{Phase, UnknownValue, WorkflowCommand};
pub use ops::{
    Finished, Listing, ResumeReport, SaveRequest, Saved, Selection, Shown, UpdateRequest,
};
pub use policy::{Choice, OptionId, ResumeAction, ResumeOption, ResumeStatus, Staleness};
pub use store::{
    Described, Found, MAX_CHECKPOINT_BYTES, MAX_SCANNED, Quarantine, Quarantined, Scan, Target,
    quarantine, quarantine_corrupt, scan,
};
