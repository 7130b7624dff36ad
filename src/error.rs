//! The error every megg operation returns: what went wrong, how to fix it, and which exit
//! code it maps to (SPEC §1).

use std::fmt;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The command could not do its job (bad input, I/O, unknown target): exit 1.
    Failure,
    /// Invalid invocation or environment: exit 2.
    Usage,
    /// The user interrupted a prompt: exit 130, nothing changed.
    Interrupted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            kind: Kind::Failure,
            message: message.into(),
            hint: None,
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            kind: Kind::Usage,
            message: message.into(),
            hint: None,
        }
    }

    pub fn interrupted() -> Self {
        Self {
            kind: Kind::Interrupted,
            message: "interrupted; nothing changed".into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// An I/O error that names the path it happened on.
    pub fn io(action: &str, path: &Path, err: &std::io::Error) -> Self {
        let mut e = Self::failure(format!(
            "cannot {action} {}: {}",
            path.display(),
            plain(err)
        ));
        if err.kind() == std::io::ErrorKind::PermissionDenied {
            e = e.with_hint("check the file's permissions and owner");
        }
        e
    }

    pub fn exit_code(&self) -> u8 {
        match self.kind {
            Kind::Failure => 1,
            Kind::Usage => 2,
            Kind::Interrupted => 130,
        }
    }
}

/// `std::io::Error`'s message without the " (os error N)" suffix.
fn plain(err: &std::io::Error) -> String {
    let s = err.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_spec() {
        assert_eq!(Error::failure("x").exit_code(), 1);
        assert_eq!(Error::usage("x").exit_code(), 2);
        assert_eq!(Error::interrupted().exit_code(), 130);
    }

    #[test]
    fn io_errors_name_the_path_without_os_noise() {
        let err = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = Error::io("read", Path::new("/x/state.md"), &err);
        assert!(e.message.starts_with("cannot read /x/state.md: "));
        assert!(!e.message.contains("os error"));
        assert!(e.hint.is_some());
    }
}
