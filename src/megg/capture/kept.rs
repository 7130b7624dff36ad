//! What a capture keeps of the text it reads (SPEC §12): redacted first, then cut — so no
//! secret reaches a handoff, a session file, a scan or the log, and none escapes by being cut
//! in half first.
//!
//! What a pass may still replace — the latest request and the acknowledgement after it, the
//! assistant's last message, the last failing run, a task past the list's bound — is held as
//! read ([`Held`]) and redacted only once kept: a first capture of a long session scans the few
//! texts it ends with, not every one it read.

use super::failures::{FailingRun, Unread};
use crate::megg::secrets::redact;

/// Most characters kept of a request (SPEC §10: the first and latest, each at most 300).
pub const MAX_REQUEST_CHARS: usize = 300;
/// Most characters kept of the assistant's last message.
pub const MAX_MESSAGE_CHARS: usize = 500;
/// Most characters kept of a task's subject or description.
pub const MAX_TASK_CHARS: usize = 300;
/// Most bytes of a request, message or run's output a pass holds as read: a longer one is
/// redacted at once, so what a pass holds stays small.
pub const MAX_HELD_BYTES: usize = 1024 * 1024;
/// Most bytes of one task call's texts a pass holds as read (it holds at most 128 calls).
pub const MAX_HELD_TASK_BYTES: usize = 16 * 1024;

/// The texts a pass read for a scan's requests, last message and failing run, as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Held {
    pub first_request: Option<String>,
    pub latest_request: Option<String>,
    pub ack: Option<String>,
    pub last_message: Option<String>,
    pub failing: Option<Unread>,
}

/// [`Held`] texts as kept: each redacted and cut.
pub struct Sealed {
    pub first_request: Option<String>,
    pub latest_request: Option<String>,
    pub ack: Option<String>,
    pub last_message: Option<String>,
    pub failing: Option<FailingRun>,
}

impl Held {
    pub fn seal(self) -> Sealed {
        let request = |text: &String| one_line_cut(text, MAX_REQUEST_CHARS);
        let first_request = self.first_request.as_ref().map(request);
        // The first request is often the latest too: scanned once.
        let latest_request = match (self.latest_request, &first_request) {
            (Some(latest), Some(done)) if self.first_request.as_ref() == Some(&latest) => {
                Some(done.clone())
            }
            (latest, _) => latest.as_ref().map(request),
        };
        Sealed {
            first_request,
            latest_request,
            ack: self.ack.as_ref().map(request),
            last_message: self.last_message.map(|m| cut_chars(&m, MAX_MESSAGE_CHARS)),
            failing: self.failing.map(Unread::read),
        }
    }
}

/// A task's subject as kept: redacted, on one line, cut.
pub fn task_subject(text: &str) -> String {
    one_line_cut(text, MAX_TASK_CHARS)
}

/// A task's description as kept: redacted and cut.
pub fn task_description(text: &str) -> String {
    cut_chars(text, MAX_TASK_CHARS)
}

/// At most `max` characters, with `…` when cut — of the text with its secrets redacted
/// first (SPEC §12). Every text a capture keeps (requests, messages, task text) is cut here
/// or in [`one_line_cut`], before it is saved or written anywhere.
pub fn cut_chars(text: &str, max: usize) -> String {
    cut(&redact(text), max)
}

/// Redacted, whitespace runs (newlines included) as single spaces, then cut like [`cut_chars`].
pub fn one_line_cut(text: &str, max: usize) -> String {
    let text = redact(text);
    let joined = one_line(&text);
    // Again once on one line: `password:` and its value on the next line are now a pair. A
    // text already on one line, spaced once, is the one just scanned: not scanned twice.
    if joined == *text {
        return cut(&joined, max);
    }
    cut(&redact(&joined), max)
}

/// Whitespace runs (newlines included) as single spaces, without any at either end.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => {
            // Both ends come from `char_indices`: character boundaries.
            let kept = text.get(..end).unwrap_or(text).trim_end();
            let kept = kept
                .char_indices()
                .nth(max.saturating_sub(1))
                .and_then(|(i, _)| kept.get(..i))
                .unwrap_or(kept);
            format!("{kept}…")
        }
    }
}
