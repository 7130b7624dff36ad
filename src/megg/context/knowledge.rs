//! The knowledge part of the context (SPEC §3.1): `knowledge.md` in the mode its size allows,
//! OURS' side of a conflicted file, the session-start index in summary and blocked mode, and in
//! full mode the entries whose cited code changed.

use std::path::{Path, PathBuf};

use super::read::body_of;
use crate::fsx;
use crate::megg::Deps;
use crate::megg::conflict;
use crate::megg::discovery::{Domain, MAX_KNOWLEDGE_BYTES};
use crate::megg::knowledge::{self, BLOCKED_ABOVE, FULL_BELOW};
use crate::megg::recall::hidden::{self, Hidden};

/// Files above this many bytes are blocked without tokenizing (a token is at most 128 bytes).
const BLOCKED_BYTES: u64 = BLOCKED_ABOVE as u64 * crate::tokens::MAX_TOKEN_BYTES;

/// How knowledge loads, by its token count (SPEC §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Under [`FULL_BELOW`] tokens: the whole file.
    Full,
    /// Up to [`BLOCKED_ABOVE`] tokens: the summary digest.
    Summary,
    /// Over [`BLOCKED_ABOVE`] tokens: nothing but a message saying how to fix it.
    Blocked,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Summary => "summary",
            Mode::Blocked => "blocked",
        }
    }

    /// The mode knowledge of `tokens` tokens loads in (SPEC §3.1).
    pub fn for_tokens(tokens: usize) -> Self {
        if tokens < FULL_BELOW {
            Mode::Full
        } else if tokens <= BLOCKED_ABOVE {
            Mode::Summary
        } else {
            Mode::Blocked
        }
    }
}

#[derive(Debug, Clone)]
pub struct Knowledge {
    pub path: PathBuf,
    pub mode: Mode,
    pub tokens: usize,
    /// `tokens` was counted; when false it is the bound the byte size proves (SPEC §3.1).
    pub tokens_exact: bool,
    pub entries: usize,
    pub topic: Option<String>,
    pub content: String,
    pub warning: Option<String>,
    /// Every topic with its entry count, most used first.
    pub topics: Vec<(String, usize)>,
    /// The summary digest when `content` is the full file and a budget may need it.
    pub digest: Option<String>,
    /// The file holds merge conflicts (markers, or unmerged in the index): only OURS' side is
    /// loaded, and every render says so whatever its budget (SPEC §11).
    pub conflicted: bool,
    /// The session-start index in summary and blocked mode (SPEC §13.5), most relevant first:
    /// every render shows it in place of `content` (the seed's digest or blocked message), and
    /// a budget may cut it line by line.
    pub index: Option<crate::megg::recall::index::Index>,
}

/// What `context` and the hook say about a knowledge file with merge conflicts (SPEC §11).
pub const CONFLICT_WARNING: &str = "knowledge.md has unresolved merge conflicts: run megg resolve";

/// The domain's `knowledge.md` in the mode its size allows, or the entries of `topic`; OURS'
/// side when it holds merge conflicts. `with_fallbacks` adds the digest a budget may need.
/// Each secret is `[redacted]`, noted in `hidden` (SPEC §12).
pub(super) fn load_knowledge(
    deps: &Deps<'_>,
    repo: Option<&crate::git::Repo>,
    d: &Domain,
    (topic, with_fallbacks): (Option<&str>, bool),
    (warnings, hidden): (&mut Vec<String>, &mut Vec<Hidden>),
) -> Option<Knowledge> {
    let path = d.knowledge_path();
    let shown = path.display().to_string();
    let mut read = match fsx::read_text(&d.boundary, &path, MAX_KNOWLEDGE_BYTES) {
        Ok(t) => t?,
        Err(e) => {
            warnings.push(e.message);
            return None;
        }
    };
    // Scanned whole, so a warning names the file's own line; a file cut at the bound shows
    // none of its text.
    if !read.truncated {
        read.text = hidden::redact(&path, read.text, hidden);
    }
    if read.lossy {
        warnings.push(format!(
            "{shown} is not valid UTF-8; invalid bytes shown as U+FFFD"
        ));
    }
    let too_big = read.truncated || read.len > BLOCKED_BYTES;
    if too_big && (topic.is_none() || read.truncated) {
        // Blocked by size alone: no tokenizer, and the count shown is the bound the size
        // proves, never an exact number. Topics come from the headers when the file is small
        // enough to read.
        let (lower, _) = crate::tokens::bounds(read.len);
        let lower = lower.max(BLOCKED_ABOVE as u64 + 1) as usize;
        let entries = if read.truncated {
            Vec::new()
        } else {
            knowledge::parse(body_of(&read.text))
        };
        let mut content = knowledge::blocked_message(&entries, lower, &shown, false);
        if read.truncated {
            // Said apart from the content too: the session-start index replaces it.
            warnings.push(format!(
                "{shown} is over {MAX_KNOWLEDGE_BYTES} bytes; read only its first {MAX_KNOWLEDGE_BYTES}"
            ));
            content.push_str(&format!(
                "\nThe file is over {MAX_KNOWLEDGE_BYTES} bytes: too large to summarise its topics.\n"
            ));
        }
        return Some(Knowledge {
            mode: Mode::Blocked,
            tokens: lower,
            tokens_exact: false,
            entries: entries.len(),
            topic: topic.map(str::to_string),
            content,
            warning: Some(format!(
                "knowledge is over {BLOCKED_ABOVE} tokens: loading blocked; run `megg maintain`"
            )),
            topics: knowledge::topic_counts(&entries),
            digest: None,
            conflicted: false,
            index: None,
            path,
        });
    }
    // OURS' side: git's stage 2 while the file is unmerged, else the text outside markers.
    let (text, conflicted) = match repo.and_then(|r| unmerged(r, &path)) {
        Some(Some(ours)) => (hidden::redact(&path, ours, hidden), true),
        Some(None) => (conflict::ours(&read.text), true),
        None if conflict::count(&read.text) > 0 => (conflict::ours(&read.text), true),
        None => (read.text, false),
    };
    if conflicted {
        warnings.push(format!(
            "{CONFLICT_WARNING} (only our side of {shown} is loaded)"
        ));
    }
    let tokens = deps.tokens.count(&text);
    let body = body_of(&text);
    let entries = knowledge::parse(body);
    let topics = knowledge::topic_counts(&entries);
    if let Some(topic) = topic {
        let picked = knowledge::filter(&entries, topic);
        let content = if picked.is_empty() {
            format!("No entries found for topic: {topic}")
        } else {
            knowledge::join(&picked)
        };
        return Some(Knowledge {
            path,
            mode: Mode::Full,
            tokens,
            tokens_exact: true,
            entries: picked.len(),
            topic: Some(topic.to_string()),
            content,
            warning: conflicted.then(|| CONFLICT_WARNING.to_string()),
            topics,
            digest: None,
            conflicted,
            index: None,
        });
    }
    let mode = Mode::for_tokens(tokens);
    let (content, warning, digest) = match mode {
        Mode::Full => {
            let digest = (with_fallbacks && body.len() > 2_000)
                .then(|| knowledge::summary(&entries, tokens, deps.tokens));
            (body.trim_end().to_string(), None, digest)
        }
        Mode::Summary => (
            knowledge::summary(&entries, tokens, deps.tokens),
            Some(format!(
                "knowledge is {tokens} tokens ({FULL_BELOW}-{BLOCKED_ABOVE}): showing a summary; load a topic in full with `megg context --topic <topic>`"
            )),
            None,
        ),
        Mode::Blocked => (
            knowledge::blocked_message(&entries, tokens, &shown, true),
            Some(format!(
                "knowledge is {tokens} tokens (over {BLOCKED_ABOVE}): loading blocked; run `megg maintain`"
            )),
            None,
        ),
    };
    Some(Knowledge {
        path,
        mode,
        tokens,
        tokens_exact: true,
        entries: entries.len(),
        topic: None,
        content,
        warning: if conflicted {
            Some(CONFLICT_WARNING.to_string())
        } else {
            warning
        },
        topics,
        digest,
        conflicted,
        index: None,
    })
}

/// In summary and blocked mode, the index (SPEC §13.5) replaces the digest, each secret of
/// its files `[redacted]` and noted in `hidden`; in full mode, a line names the archived
/// entries when there are any.
pub(super) fn with_index(
    k: &mut Knowledge,
    (deps, d, chain): (&Deps<'_>, &Domain, &[Domain]),
    session: impl FnOnce() -> Vec<String>,
    hidden: &mut Vec<Hidden>,
) {
    use crate::megg::recall::{self, index};
    if k.mode == Mode::Full {
        let archived = recall::archived_entries(d);
        // Counted within a bound (SPEC §14): past it, a lower bound and the number of files.
        let named = match archived {
            recall::Archived {
                entries: 0,
                complete: true,
                ..
            } => None,
            recall::Archived {
                entries,
                complete: true,
                ..
            } => Some(if entries == 1 {
                "1 archived entry is".to_string()
            } else {
                format!("{entries} archived entries are")
            }),
            recall::Archived { entries, files, .. } => Some(format!(
                "{entries}+ archived entries, in {files} archive files, are"
            )),
        };
        if let Some(named) = named {
            k.content.push_str(&format!(
                "\n\n({named} not loaded: `megg search <words> --in archive`, then `megg show <id>`.)"
            ));
        }
        if let Some(note) = cited_code_changed(deps, d, &k.content) {
            k.content.push_str(&note);
        }
        return;
    }
    let cache = crate::fsx::user_cache_dir();
    let (mut corpus, postings) = recall::domain_index(deps, d, chain, cache.as_deref());
    hidden.append(&mut corpus.hidden);
    let archived = corpus
        .docs
        .iter()
        .filter(|doc| doc.kind == recall::Kind::Archive)
        .count();
    k.index = Some(index::Index {
        lines: index::rank(&corpus.docs, &postings, &session(), &|docs| {
            // The domain's other entries are walked for with them when a walk is needed: an
            // entry the index lists next time then finds its answer kept (SPEC §14).
            let all: Vec<&recall::Doc> = corpus.docs.iter().collect();
            crate::megg::freshness::of_docs_with(deps, docs, &all, crate::megg::freshness::SHOWN)
        }),
        live: corpus.docs.len() - archived,
        archived,
        blocked: k.mode == Mode::Blocked,
    });
}

/// Most entries full mode names whose cited code changed; `maintain --check` lists them all.
const MAX_CHANGED_NAMED: usize = 10;

/// Full mode (SPEC §17): the entries loaded whole whose cited code changed since their date,
/// one line each — what happened to which path — so the agent checks before relying on them.
fn cited_code_changed(deps: &Deps<'_>, d: &Domain, content: &str) -> Option<String> {
    use crate::megg::freshness::{self, Check, Cited};
    let repo = deps.repo(&d.dir)?;
    let file = d.knowledge_path();
    let doc = knowledge::document(content);
    let cited: Vec<Cited<'_>> = doc
        .entries
        .iter()
        .map(|e| Cited {
            date: e.date,
            text: e.raw,
            file: &file,
        })
        .collect();
    let how = Check {
        cap: freshness::WALK_CAP,
        touches: false,
    };
    let cache = crate::fsx::user_cache_dir();
    let top = deps.top(&d.dir);
    let checked = freshness::check(&repo, &top, &cited, &[], how, cache.as_deref());
    let changed: Vec<String> = doc
        .entries
        .iter()
        .zip(&checked)
        .filter_map(|(e, f)| {
            let what: Vec<String> = f
                .changed()
                .map(freshness::PathFreshness::describe)
                .collect();
            (!what.is_empty()).then(|| {
                format!(
                    "- {}: {}{}",
                    e.title,
                    if f.stale() { "stale? " } else { "" },
                    what.join("; ")
                )
            })
        })
        .collect();
    // A walk stopped at its bound is said, as `search`, `show` and `maintain --check` say it.
    let capped = checked
        .iter()
        .filter(|f| f.capped && !f.paths.is_empty())
        .map(|f| f.bound)
        .max()
        .map(|bound| {
            format!("The history is longer than the walk: checked the last {bound} commits.")
        });
    if changed.is_empty() {
        return capped.map(|c| format!("\n\n(No cited code changed as far as checked. {c})"));
    }
    let mut note = String::from(
        "\n\n(Code these entries cite changed after they were written; check it before relying on them:\n",
    );
    for line in changed.iter().take(MAX_CHANGED_NAMED) {
        note.push_str(line);
        note.push('\n');
    }
    if changed.len() > MAX_CHANGED_NAMED {
        note.push_str(&format!(
            "- and {} more: `megg maintain --check`\n",
            changed.len() - MAX_CHANGED_NAMED
        ));
    }
    if let Some(c) = capped {
        note.push_str(&c);
        note.push('\n');
    }
    note.push(')');
    Some(note)
}

/// `Some` when git has `path` unmerged, with OURS' version (stage 2) when git has one within
/// the bound. Only looked up while a merge, rebase, cherry-pick or revert is under way, so the
/// hook never reads a large index for nothing (markers in the file are found either way).
fn unmerged(repo: &crate::git::Repo, path: &Path) -> Option<Option<String>> {
    let rel = path.strip_prefix(repo.workdir()?).ok()?.to_path_buf();
    if !repo.is_operation_in_progress() || !repo.is_unmerged(&rel) {
        return None;
    }
    Some(match repo.ours_stage(&rel, MAX_KNOWLEDGE_BYTES) {
        Some(crate::git::Stage::Blob(b)) => Some(String::from_utf8_lossy(&b).into_owned()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_boundaries_are_exact() {
        assert_eq!(Mode::for_tokens(0), Mode::Full);
        assert_eq!(Mode::for_tokens(7_999), Mode::Full);
        assert_eq!(Mode::for_tokens(8_000), Mode::Summary);
        assert_eq!(Mode::for_tokens(16_000), Mode::Summary);
        assert_eq!(Mode::for_tokens(16_001), Mode::Blocked);
    }
}
