//! Which request is the user's latest instruction (SPEC §18.2): an acknowledgement ("ok go
//! ahead", "👍", "vale") never replaces the substantive request before it — it is kept after
//! it, so a correction followed by "ok" reaches the next session.

/// The acknowledgements that never replace the request before them (SPEC §18.2), compared
/// case- and punctuation-insensitively ([`is_acknowledgement`]). Besides these, a request of at
/// most [`ACK_MAX_WORDS`] words all of which are [`ACK_WORDS`] is one ("yes that works",
/// "ok thanks, go on").
#[rustfmt::skip]
pub const ACKNOWLEDGEMENTS: &[&str] = &[
    // English
    "ok", "okay", "k", "kk", "yes", "y", "yep", "yeah", "yup", "sure", "go", "go ahead",
    "go on", "continue", "proceed", "sounds good", "looks good", "lgtm", "do it", "ship it",
    "thanks", "thank you", "great", "perfect", "nice", "cool", "ok go ahead", "okay go ahead",
    "yes go ahead", "yes please", "yes do it", "ok do it", "ok continue", "please continue",
    "please proceed", "please go ahead", "keep going", "carry on", "sounds good to me",
    "looks good to me", "yes please go ahead", "ok sounds good go ahead", "go ahead and do it",
    "yes go ahead and do it", "ok go ahead and do it", "ok let's do it", "let's do it",
    "that makes sense go ahead", "ok that works for me",
    // Spanish, Portuguese, Italian
    "dale", "sí", "si", "vale", "claro", "adelante", "de acuerdo", "sigue", "continúa", "sim",
    "pode", "vai", "va bene", "procedi", "sí dale", "ok dale", "vale sigue",
    // French
    "oui", "vas-y", "allez-y", "d'accord", "ok vas-y", "c'est bon", "oui vas-y",
    // German, Dutch
    "ja", "passt", "genau", "weiter", "mach weiter", "mach das", "klar", "prima", "ja mach",
    "ja bitte", "oké", "ga door",
    // Japanese, Chinese, Korean
    "はい", "うん", "お願いします", "続けて", "好的", "好", "继续", "可以", "行", "네", "좋아",
    // Signs
    "👍", "✅", "👌",
];

/// The words a short acknowledgement is made of (any [`ACKNOWLEDGEMENTS`] word counts too):
/// assent, thanks, and the words that go with them — none that names a thing or an action of
/// its own ("fix the greeting", "no, use postgres" are requests).
#[rustfmt::skip]
pub const ACK_WORDS: &[&str] = &[
    "ok", "okay", "k", "kk", "yes", "y", "ya", "yeah", "yep", "yup", "sure", "fine", "alright",
    "right", "correct", "exactly", "agreed", "great", "good", "perfect", "nice", "cool",
    "awesome", "excellent", "thanks", "thank", "you", "ty", "thx", "please", "pls", "go",
    "ahead", "on", "continue", "proceed", "do", "it", "that", "this", "sounds", "looks",
    "seems", "lgtm", "now", "then", "and", "so", "just", "let's", "lets", "makes", "sense",
    "me", "to", "for", "works", "all", "got", "understood", "approved", "keep", "going",
    "carry", "ship",
];

/// Most words of a request that is an acknowledgement without being one of
/// [`ACKNOWLEDGEMENTS`].
pub const ACK_MAX_WORDS: usize = 4;

/// Whether a request only acknowledges (SPEC §18.2): one of [`ACKNOWLEDGEMENTS`], or at most
/// [`ACK_MAX_WORDS`] words each of [`ACK_WORDS`] or of an acknowledgement — case and
/// punctuation aside. A word with a path, an identifier or a digit is none of them.
pub fn is_acknowledgement(request: &str) -> bool {
    let norm = ack_form(request);
    if norm.is_empty() {
        return false;
    }
    if ACKNOWLEDGEMENTS.iter().any(|a| ack_form(a) == norm) {
        return true;
    }
    let words: Vec<&str> = norm.split(' ').collect();
    words.len() <= ACK_MAX_WORDS
        && words.iter().all(|w| {
            ACK_WORDS
                .iter()
                .chain(ACKNOWLEDGEMENTS)
                .any(|a| ack_form(a).split(' ').any(|word| word == *w))
        })
}

/// Lowercase, punctuation as spaces, single spaces, emoji modifiers dropped.
fn ack_form(text: &str) -> String {
    const PUNCTUATION: &str = "。、！？，．…—–「」『』¡¿«»“”‘’·";
    let spaced: String = text
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, '\u{fe0f}' | '\u{1f3fb}'..='\u{1f3ff}'))
        .map(|c| {
            if c.is_ascii_punctuation() || PUNCTUATION.contains(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The latest request and the acknowledgement after it, from a transcript's (`latest`, `ack`)
/// and the latest `prompt` a host's hook handed over (newer than the transcript when it lags,
/// Copilot's `userPromptSubmitted`) with its `first_prompt`: an acknowledgement there does not
/// replace the substantive request before it either.
pub fn latest(
    (latest, ack): (Option<&str>, Option<&str>),
    prompt: Option<&str>,
    first_prompt: Option<&str>,
) -> (Option<String>, Option<String>) {
    let before = latest.or(first_prompt).map(str::to_string);
    let ack = ack.map(str::to_string);
    match prompt {
        None => (before, ack),
        Some(p) if is_acknowledgement(p) => {
            match before.filter(|b| b != p && !is_acknowledgement(b)) {
                Some(b) => (Some(b), Some(p.to_string())),
                None => (Some(p.to_string()), None),
            }
        }
        // The transcript has caught up with the prompt: what it read after it holds.
        Some(p) if latest == Some(p) => (Some(p.to_string()), ack),
        Some(p) => (Some(p.to_string()), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements_are_short_and_name_nothing_or_on_the_list() {
        for ack in [
            "ok",
            "OK!",
            "Okay.",
            "ok go ahead",
            "Ok, Go Ahead!",
            "yes",
            "y",
            "continue",
            "sounds good",
            "LGTM",
            "👍",
            "👍🏽",
            "dale",
            "Sí",
            "vale",
            "vas-y",
            "D'accord.",
            "passt",
            "ja",
            "はい",
            "好的",
            "好",
            "yes please go ahead",
            "ok go ahead and do it",
            "do it now",
            "makes sense, proceed",
        ] {
            assert!(is_acknowledgement(ack), "{ack:?}");
        }
        for request in [
            "",
            "  ",
            "no — use Postgres, not SQLite",
            "fix src/parser.rs",
            "use Postgres",
            "rename parse_line",
            "bump it to 3",
            "run cargo-nextest",
            "call parseLine instead",
            "try `cargo test`",
            "fix the greeting",
            "write the notes",
            "no, use postgres",
            "no",
            "stop",
            "ok but first write the migration for the sessions table",
            "now add tests for the parser too",
        ] {
            assert!(!is_acknowledgement(request), "{request:?}");
        }
    }

    #[test]
    fn a_prompt_the_hooks_handed_over_follows_the_same_rule() {
        let s = |x: &str| Some(x.to_string());
        let transcript = (Some("no — use Postgres"), None);
        // The transcript lags: the hook's latest prompt is an acknowledgement.
        assert_eq!(
            latest(transcript, Some("ok go ahead"), Some("Build it")),
            (s("no — use Postgres"), s("ok go ahead"))
        );
        // A substantive prompt is the latest.
        assert_eq!(
            latest(transcript, Some("and add tests for it"), Some("Build it")),
            (s("and add tests for it"), None)
        );
        // Nothing in the transcript yet: the first prompt is the request before it, unless
        // it is the acknowledgement itself.
        assert_eq!(
            latest((None, None), Some("ok"), Some("Build it")),
            (s("Build it"), s("ok"))
        );
        assert_eq!(
            latest((None, None), Some("ok"), Some("ok")),
            (s("ok"), None)
        );
        // No prompt from the hooks: the transcript's; the transcript caught up: the same.
        let acked = (Some("Build it"), Some("sounds good"));
        assert_eq!(latest(acked, None, None), (s("Build it"), s("sounds good")));
        assert_eq!(
            latest(acked, Some("Build it"), None),
            (s("Build it"), s("sounds good"))
        );
        assert_eq!(
            latest((None, None), None, Some("Build it")),
            (s("Build it"), None)
        );
    }
}
