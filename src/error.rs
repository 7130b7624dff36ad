//! The error every megg operation returns: what kind of failure it is, what went wrong, and
//! any number of hints on how to fix it (SPEC §1). Domain areas have their own `thiserror`
//! enums (the file gate's `fsx::GateError`, knowledge's `megg::knowledge::EntryError`,
//! checkpoints' errors…) that convert into this one
//! with their kind and hints; the exit code follows from the kind, and [`render`] is the one
//! place `error:` / `hint:` lines are written.

use std::path::Path;

/// What kind of failure: decides the exit code and tells a caller (the MCP server, a test)
/// whether retrying or fixing input can help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Invalid invocation or environment (a flag, a `-C` that is not a directory): exit 2.
    Usage,
    /// The input or the target is wrong (unknown checkpoint, empty content, a refused file): exit 1.
    User,
    /// A file megg reads is not in a shape it can use (invalid JSON, broken frontmatter): exit 1.
    Corrupt,
    /// The operating system said no (permissions, a full disk): exit 1.
    Io,
    /// A bug in megg: exit 1, please report it.
    Internal,
    /// The user interrupted a prompt: exit 130, nothing changed.
    Interrupted,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::Usage => 2,
            Kind::Interrupted => 130,
            Kind::User | Kind::Corrupt | Kind::Io | Kind::Internal => 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub hints: Vec<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            hints: Vec::new(),
        }
    }

    /// The input or target is wrong.
    pub fn user(message: impl Into<String>) -> Self {
        Self::new(Kind::User, message)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Kind::Usage, message)
    }

    pub fn corrupt(message: impl Into<String>) -> Self {
        Self::new(Kind::Corrupt, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Kind::Internal, message)
    }

    pub fn interrupted() -> Self {
        Self::new(Kind::Interrupted, "interrupted; nothing changed")
    }

    /// Adds a hint (an error may carry several).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// An I/O error that names the path it happened on.
    pub fn io(action: &str, path: &Path, err: &std::io::Error) -> Self {
        let e = Self::new(
            Kind::Io,
            format!("cannot {action} {}: {}", path.display(), plain(err)),
        );
        if err.kind() == std::io::ErrorKind::PermissionDenied {
            e.with_hint("check the file's permissions and owner")
        } else {
            e
        }
    }

    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }
}

/// `std::io::Error`'s message without the " (os error N)" suffix.
pub fn plain(err: &std::io::Error) -> String {
    let s = err.to_string();
    match s.split_once(" (os error") {
        Some((message, _)) => message.to_string(),
        None => s,
    }
}

thread_local! {
    /// Where the last panic on this thread happened, for [`panic_message`].
    static PANICKED_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the default panic message on stderr with a note of where the panic happened: a
/// panic megg catches (a part of the context, the merge driver, a command) is reported once,
/// in megg's own words ([`panic_message`]), never as Rust's `thread 'main' panicked` text.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        PANICKED_AT.with(|p| *p.borrow_mut() = at);
    }));
}

/// A caught panic's message, with where it happened when [`quiet_panics`] noted it.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown".into());
    // A message can quote the input it failed on: keep it to one short line.
    let what: String = what.replace(['\n', '\r'], " ").chars().take(300).collect();
    match PANICKED_AT.with(|p| p.borrow_mut().take()) {
        Some(at) => format!("{what} at {at}"),
        None => what,
    }
}

/// The error a caught panic in a command becomes: exit 1, never Rust's 101.
pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Error {
    Error::internal(format!("internal error: {}", panic_message(payload))).with_hint(
        "this is a bug in megg: please report it with the command you ran and `megg --version`",
    )
}

/// The `error:` line and one `hint:` line per hint, with `label` styling each prefix
/// (colour on a terminal) and `clean` making the text safe to print. The CLI and the MCP
/// server both render errors through this.
pub fn render(e: &Error, label: impl Fn(&str) -> String, clean: impl Fn(&str) -> String) -> String {
    let mut out = format!("{} {}\n", label("error:"), clean(&e.message));
    for h in &e.hints {
        out.push_str(&format!("{} {}\n", label("hint:"), clean(h)));
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_kind() {
        assert_eq!(Error::user("x").exit_code(), 1);
        assert_eq!(Error::corrupt("x").exit_code(), 1);
        assert_eq!(Error::internal("x").exit_code(), 1);
        assert_eq!(Error::usage("x").exit_code(), 2);
        assert_eq!(Error::interrupted().exit_code(), 130);
    }

    #[test]
    fn io_errors_name_the_path_without_os_noise() {
        let err = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = Error::io("read", Path::new("/x/state.md"), &err);
        assert!(e.message.starts_with("cannot read /x/state.md: "));
        assert!(!e.message.contains("os error"));
        assert_eq!(e.kind, Kind::Io);
        assert_eq!(e.hints.len(), 1);
    }

    #[test]
    fn every_hint_is_rendered_in_order() {
        let e = Error::user("no checkpoint named x")
            .with_hint("run `megg checkpoint list`")
            .with_hint("or save one");
        assert_eq!(
            render(&e, str::to_string, str::to_string),
            "error: no checkpoint named x\nhint: run `megg checkpoint list`\nhint: or save one\n"
        );
    }
}
