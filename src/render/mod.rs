//! Human and JSON renderers of the result structs the domain computes.

pub mod checkpoint;
pub mod context;
pub mod state;
