//! Recall on demand (SPEC §13): every knowledge and archive entry of the chain (and, asked, of
//! the domains below), every `##` section of its `info.md` files and every handoff megg kept —
//! the active state, the captured sessions and the handoff history — as documents with short
//! ids, searched by BM25 and shown by id.
//!
//! - [`text`]: words as a developer types them (stems, identifiers, CJK bigrams);
//! - [`search`]: the ranking, filters, snippets and the nearest topics for no match;
//! - [`ids`]: ids computed from what a document is, never written into a file;
//! - [`history`]: the handoff history every replaced state is kept in first.

mod doc;
pub mod history;
pub mod ids;
pub mod index;
pub mod search;
pub mod text;

use std::path::{Path, PathBuf};

pub use doc::{Corpus, Doc, Kind, Scope};

use crate::fsx::{self, Boundary};
use crate::megg::discovery::{self, Domain, Megg};
use crate::megg::{Deps, knowledge, state};

/// Most bytes read of one archive file or session handoff.
pub const MAX_ARCHIVE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads every document in `scope`; ids are assigned once all are read (duplicates told apart
/// by their order).
pub fn collect(deps: &Deps<'_>, scope: &Scope<'_>) -> Corpus {
    let mut corpus = Corpus::default();
    let top = deps.top(scope.path);
    let mut domains = deps.walk(&top).domains(scope.path, &mut corpus.warnings);
    domains.reverse();
    // Session files and the handoff history are keyed (outside git) by the current domain.
    let key = domains
        .last()
        .map_or(scope.path.to_path_buf(), |d| d.dir.clone());
    if scope.below {
        let found = discovery::children(scope.path, deps.trusted);
        corpus.warnings.extend(found.warnings);
        for n in found.domains {
            if let Megg::Domain(d) = discovery::megg_at(&n.dir, deps.trusted) {
                domains.push(d);
            }
        }
    }
    for d in &domains {
        entries_of(d, &d.knowledge_path(), Kind::Knowledge, &mut corpus);
        for file in archive_files(d, &mut corpus.warnings) {
            entries_of(d, &file, Kind::Archive, &mut corpus);
        }
        info_sections(d, &mut corpus);
    }
    handoffs(deps, scope, &key, &domains, &mut corpus);
    ids::assign(&mut corpus.docs);
    corpus
}

/// The knowledge and archive entries of one domain, with their ids: what the session-start
/// index lists (SPEC §13.5).
pub fn entries_of_domain(d: &Domain) -> Corpus {
    let mut corpus = Corpus::default();
    entries_of(d, &d.knowledge_path(), Kind::Knowledge, &mut corpus);
    for file in archive_files(d, &mut corpus.warnings) {
        entries_of(d, &file, Kind::Archive, &mut corpus);
    }
    ids::assign(&mut corpus.docs);
    corpus
}

/// Reads `path` in `b` up to `limit`, reporting a cut, binary or refused file.
fn read(b: &Boundary, path: &Path, limit: u64, warnings: &mut Vec<String>) -> Option<String> {
    match fsx::read_text(b, path, limit) {
        Ok(Some(t)) => {
            if t.truncated {
                warnings.push(format!(
                    "{} is over {} bytes: searched up to there",
                    path.display(),
                    limit
                ));
            }
            if t.lossy {
                warnings.push(format!(
                    "{} is not valid UTF-8: its other bytes are searched as replacement characters",
                    path.display()
                ));
            }
            Some(t.text.replace('\0', "\u{FFFD}"))
        }
        Ok(None) => None,
        Err(e) => {
            warnings.push(format!("skipped {}", e.message));
            None
        }
    }
}

/// 1-based line of byte `offset` in `text`.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset].bytes().filter(|&b| b == b'\n').count() + 1
}

/// The entries of a knowledge or archive file.
fn entries_of(d: &Domain, path: &Path, kind: Kind, corpus: &mut Corpus) {
    let Some(text) = read(
        &d.boundary,
        path,
        discovery::MAX_KNOWLEDGE_BYTES,
        &mut corpus.warnings,
    ) else {
        return;
    };
    // Lines counted once through the file, not from its start for every entry.
    let (mut line, mut counted) = (1, 0);
    for e in knowledge::parse(&text) {
        let offset = e.raw.as_ptr() as usize - text.as_ptr() as usize;
        line += text[counted..offset]
            .bytes()
            .filter(|&b| b == b'\n')
            .count();
        counted = offset;
        corpus.docs.push(Doc {
            id: String::new(),
            kind,
            path: path.to_path_buf(),
            line,
            date: e.date.map(str::to_string),
            entry_type: e.kind.map(str::to_string),
            title: e.title.to_string(),
            topics: e.topics.iter().map(|t| t.to_string()).collect(),
            text: e.raw.to_string(),
            key: format!("{}\n{}", e.date.unwrap_or(""), e.title.trim()),
        });
    }
}

/// `.megg/archive/*.md`, by name.
fn archive_files(d: &Domain, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let dir = d.megg.join("archive");
    if fsx::kind(&d.boundary, &dir) != Some(fsx::Kind::Dir) {
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = match fsx::list(&d.boundary, &dir) {
        Ok(entries) => entries
            .into_iter()
            .filter(|(name, _)| Path::new(name).extension().is_some_and(|e| e == "md"))
            .filter(|(name, kind)| {
                let regular = *kind == fsx::Kind::File;
                if !regular {
                    // A link (in or out), a FIFO, a device: never opened (SPEC §9).
                    warnings.push(format!(
                        "skipped {}: not a regular file",
                        dir.join(name).display()
                    ));
                }
                regular
            })
            .map(|(name, _)| dir.join(name))
            .collect(),
        Err(e) => {
            warnings.push(format!("skipped {}", e.message));
            Vec::new()
        }
    };
    files.sort();
    files
}

/// The `##` sections of the domain's `info.md`.
fn info_sections(d: &Domain, corpus: &mut Corpus) {
    let path = d.info_path();
    let Some(text) = read(
        &d.boundary,
        &path,
        discovery::MAX_INFO_BYTES,
        &mut corpus.warnings,
    ) else {
        return;
    };
    let mut starts: Vec<usize> = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("## ") {
            starts.push(pos);
        }
        pos += line.len();
    }
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let section = text[start..end].trim_end();
        let heading = section
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("## ")
            .trim();
        corpus.docs.push(Doc {
            id: String::new(),
            kind: Kind::Info,
            path: path.clone(),
            line: line_at(&text, start),
            date: None,
            entry_type: None,
            title: format!("{}: {heading}", d.name),
            topics: Vec::new(),
            text: section.to_string(),
            key: format!("{}\n{heading}", d.name),
        });
    }
}

/// The active state of each domain, the captured sessions' handoffs and the handoff history.
fn handoffs(
    deps: &Deps<'_>,
    scope: &Scope<'_>,
    key: &Path,
    domains: &[Domain],
    corpus: &mut Corpus,
) {
    for d in domains {
        handoff(&d.boundary, &d.state_path(), corpus);
    }
    let repo = deps.repo(scope.path);
    if let Some(sessions) = super::capture::Sessions::locate(repo.as_ref(), key, scope.cache) {
        let b = Boundary::new(
            sessions.dir.parent().unwrap_or(&sessions.dir),
            "megg's session files",
        );
        for (_, path) in sessions.captures() {
            handoff(&b, &path, corpus);
        }
    }
    if let Some(h) = history::History::locate(repo.as_ref(), key, scope.cache) {
        for path in h.files() {
            handoff(h.boundary(), &path, corpus);
        }
    }
}

/// One handoff file: titled by its time and first Working On line.
fn handoff(b: &Boundary, path: &Path, corpus: &mut Corpus) {
    let Some(text) = read(b, path, state::MAX_STATE_BYTES, &mut corpus.warnings) else {
        return;
    };
    let doc = state::parse(&text, &path.display().to_string());
    let working = section_first_line(&doc.content, "Working On");
    let title = match (&working, &doc.session) {
        (Some(w), _) => w.clone(),
        (None, Some(s)) => format!("handoff of session {s}"),
        (None, None) => "handoff".to_string(),
    };
    corpus.docs.push(Doc {
        id: String::new(),
        kind: Kind::Handoff,
        path: path.to_path_buf(),
        line: 1,
        date: doc.updated_raw.clone(),
        entry_type: None,
        title,
        topics: doc.branch.iter().cloned().collect(),
        key: format!(
            "{}\n{}",
            doc.updated_raw.as_deref().unwrap_or(""),
            doc.session.as_deref().unwrap_or("")
        ),
        text,
    });
}

/// The first non-blank line under `## name`.
fn section_first_line(content: &str, name: &str) -> Option<String> {
    let mut inside = false;
    for line in content.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            inside = h.trim() == name;
            continue;
        }
        if inside && !line.trim().is_empty() {
            return Some(line.trim().trim_start_matches("- ").to_string());
        }
    }
    None
}
