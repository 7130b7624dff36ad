//! One module per command: its arguments and a `run(env, args)` that calls the domain and a
//! renderer. No file-format logic lives here.

pub mod capture;
pub mod checkpoint;
pub mod completions;
pub mod context;
pub mod doctor;
pub mod gitignore;
pub mod init;
pub mod learn;
pub mod maintain;
pub mod merge_driver;
pub mod page;
pub mod resolve;
pub mod search;
pub mod setup;
pub mod show;
pub mod state;
pub mod trust;
