//! Conversations with the user: what a command asks on a terminal, in which order, and what it
//! does with the answers. A flow asks through [`crate::prompt::Prompter`] (dialoguer on a
//! terminal, a script in tests), calls the domain and takes its text from `render::`; the
//! command that starts it turns arguments into the flow's request and its outcome into output.

pub mod learn;
pub mod resume;
