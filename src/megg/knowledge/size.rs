//! What a knowledge file's size in tokens means: how `megg context` loads it (SPEC §3.1) and
//! when `maintain` and `learn` speak up (SPEC §6).

/// Below this many knowledge tokens the file loads in full; from it on, only its summary
/// digest (SPEC §3.1). Over it, `maintain` calls the file bloated (SPEC §6).
pub const FULL_BELOW: usize = 8_000;
/// Above this many knowledge tokens loading is blocked.
pub const BLOCKED_ABOVE: usize = 16_000;
/// Past this many knowledge tokens `learn` warns that `megg maintain` is due (SPEC §6): the
/// file already loads as a summary, and the block is near.
pub const MAINTAIN_DUE: usize = 12_000;

/// How `megg context` loads a knowledge file by its size, and when `maintain` and `learn`
/// speak up, in the words every message about the thresholds uses, from the constants above.
pub fn thresholds() -> String {
    format!(
        "`megg context` loads knowledge in full below {FULL_BELOW} tokens, only a summary from {FULL_BELOW} to {BLOCKED_ABOVE}, and none of it over {BLOCKED_ABOVE}; `megg maintain` calls it bloated over {FULL_BELOW}, and `megg learn` says maintenance is due past {MAINTAIN_DUE}"
    )
}

/// Whether `maintain` calls a knowledge file of `tokens` bloated (SPEC §6: over
/// [`FULL_BELOW`]).
pub fn bloated(tokens: usize) -> bool {
    tokens > FULL_BELOW
}

/// Whether `learn` warns, after writing, that `megg maintain` is due (SPEC §6: past
/// [`MAINTAIN_DUE`]).
pub fn maintain_due(tokens: usize) -> bool {
    tokens > MAINTAIN_DUE
}
