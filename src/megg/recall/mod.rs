//! Recall on demand (SPEC §13): every knowledge and archive entry of the chain (and, asked, of
//! the domains below), every `##` section of its `info.md` files and every handoff megg kept —
//! the active state, the captured sessions and the handoff history — as documents with short
//! ids, searched by BM25 and shown by id.
//!
//! - [`text`]: words as a developer types them (stems, identifiers, CJK bigrams);
//! - [`search`]: the ranking, filters, snippets and the nearest topics for no match;
//! - [`ids`]: ids computed from what a document is and the place of its domain ([`place`]),
//!   never written into a file — the same from every directory, so [`resolve`] looks in the
//!   chain before it walks below;
//! - [`history`]: the handoff history every replaced state is kept in first.

mod cache;
pub mod doc;
pub mod hidden;
pub mod history;
pub mod ids;
pub use ids::successor_id;
pub mod index;
pub mod postings;
mod scans;
pub mod search;
pub mod session;
mod shared;
pub mod text;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use doc::Source;
pub use doc::{Corpus, Doc, Kind, Scope};
pub use hidden::Hidden;
pub use postings::Postings;
pub use shared::{Shared, Topics};

use crate::fsx::{self, Boundary};
use crate::megg::capture::{Sessions, kept_summary};
use crate::megg::discovery::{self, Domain, Megg};
use crate::megg::{Deps, knowledge, repos, state};

/// Most bytes a search reads of the knowledge and archives of the domains below its path
/// (`--below`), together: past it, the other domains are not read, and a warning says so.
pub const MAX_BELOW_BYTES: u64 = 32 * 1024 * 1024;

/// Most bytes read of one archive file or session handoff.
pub const MAX_ARCHIVE_BYTES: u64 = 16 * 1024 * 1024;

/// How a corpus reads its files: as they are written (to write them back: `learn`,
/// `maintain`), or as megg shows them — each secret `[redacted]`, and said where (SPEC §12
/// "At injection": `search`, `show`, the session-start index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    AsWritten,
    Shown,
}

/// Reads every document in `scope` as written; ids are assigned once all are read
/// (duplicates told apart by their order).
pub fn collect(deps: &Deps<'_>, scope: &Scope<'_>) -> Corpus {
    collect_as(deps, scope, Read::AsWritten)
}

/// [`collect`], reading the files as `read` says.
fn collect_as(deps: &Deps<'_>, scope: &Scope<'_>, read: Read) -> Corpus {
    let mut warnings = Vec::new();
    let mut hidden = Vec::new();
    let sources = sources(deps, scope, &mut warnings, shown(read, &mut hidden));
    Corpus {
        docs: parse(&sources),
        warnings,
        hidden,
    }
}

/// Where a corpus read as `read` notes the secrets it hides: nowhere when it hides none.
fn shown(read: Read, hidden: &mut Vec<Hidden>) -> Option<&mut Vec<Hidden>> {
    (read == Read::Shown).then_some(hidden)
}

/// Every document in `scope` as megg shows them ([`Read::Shown`]), with the postings a search
/// ranks by — from megg's cache directory when these exact files were indexed before
/// ([`cache`]), else built and kept there — and the new names of the entries' moved
/// citations ([`search::moved`]), which follow git's HEAD and are never kept with them.
pub fn collect_indexed(deps: &Deps<'_>, scope: &Scope<'_>) -> (Corpus, Postings) {
    let mut warnings = Vec::new();
    let mut hidden = Vec::new();
    let sources = sources(deps, scope, &mut warnings, Some(&mut hidden));
    let (corpus, postings) = indexed(&sources, scope.cache, warnings, hidden);
    let moved = search::moved(deps, &corpus.docs, &postings);
    (corpus, postings.with_moved(moved))
}

/// The documents of `sources` and their postings, from `cache` when these exact files were
/// indexed before ([`cache`]), else built and kept there.
fn indexed(
    sources: &[Source],
    cache: Option<&Path>,
    warnings: Vec<String>,
    hidden: Vec<Hidden>,
) -> (Corpus, Postings) {
    let key = cache::key(sources);
    if let Some((docs, postings)) = cache.and_then(|dir| cache::load(dir, &key, sources)) {
        return (
            Corpus {
                docs,
                warnings,
                hidden,
            },
            postings,
        );
    }
    crate::failpoint::log("recall-index");
    let docs = parse(sources);
    let postings = Postings::build(&docs, false);
    if let Some(dir) = cache {
        cache::store(dir, &key, sources, &docs, &postings);
    }
    (
        Corpus {
            docs,
            warnings,
            hidden,
        },
        postings,
    )
}

/// The files of `scope`, in the order their documents are numbered: each domain's knowledge,
/// archives and info, then the handoffs.
/// With `hidden`, they are read as megg shows them ([`Read::Shown`]).
fn sources(
    deps: &Deps<'_>,
    scope: &Scope<'_>,
    warnings: &mut Vec<String>,
    mut hidden: Option<&mut Vec<Hidden>>,
) -> Vec<Source> {
    let mut domains = chain(deps, scope.path, warnings);
    // Session files and the handoff history are keyed (outside git) by the current domain.
    let key = domains
        .last()
        .map_or(scope.path.to_path_buf(), |d| d.dir.clone());
    let chain_len = domains.len();
    if scope.below {
        // Every level §3.1 looks at, without the hook's bound on directories: a search asked
        // for the domains below is asked to find them all.
        let found = discovery::children_all(scope.path, deps.trusted);
        warnings.extend(found.warnings);
        for n in found.domains {
            if let Megg::Domain(d) = discovery::megg_at(&n.dir, deps.trusted) {
                domains.push(d);
            }
        }
    }
    let mut sources = Vec::new();
    // The chain is read whole; the domains below, within MAX_BELOW_BYTES together.
    let (mut chain_left, mut below_left) = (u64::MAX, MAX_BELOW_BYTES);
    for (i, d) in domains.iter().enumerate() {
        let left = if i < chain_len {
            &mut chain_left
        } else {
            &mut below_left
        };
        if *left == 0 {
            warnings.push(format!(
                "stopped reading the domains below {} after {} MB: {} of them not searched (search from a directory nearer the entries)",
                scope.path.display(),
                MAX_BELOW_BYTES / (1024 * 1024),
                domains.len() - i
            ));
            domains.truncate(i);
            break;
        }
        // Root first, a parent before its children: `d`'s chain is among the domains up to it.
        let place = place(deps, d, domains.get(..=i).unwrap_or_default());
        entry_sources(
            d,
            &place,
            &mut sources,
            (warnings, hidden.as_deref_mut()),
            left,
        );
        let info = d.info_path();
        if let Some(s) = source(
            &d.boundary,
            &info,
            (Kind::Info, &d.name, &place),
            discovery::MAX_INFO_BYTES,
            (warnings, hidden.as_deref_mut()),
        ) {
            *left = left.saturating_sub(s.text.len() as u64);
            sources.push(s);
        }
    }
    handoff_sources(
        deps,
        (scope, &key, &domains),
        &mut sources,
        warnings,
        hidden,
    );
    sources
}

/// How ids name domain `d` (SPEC §13.2), the same from wherever megg runs and on every
/// machine: its directory relative to the top of its git work tree (empty for the top itself);
/// outside git (or above the work tree), relative to the topmost domain of its chain — the
/// first of `above` (root first) at or over `d` whose `.megg` holds an `info.md` — or its name
/// when it is that domain. Two domains share a place only in odd trees (a repository nested in
/// another, two unrelated roots of one name below PATH): their documents are then told apart by
/// order, like duplicates in one domain.
pub fn place(deps: &Deps<'_>, d: &Domain, above: &[Domain]) -> String {
    let top = deps
        .repo(&d.dir)
        .filter(|r| r.workdir().is_some())
        .map(|r| repos::top_of(Some(&r), &d.dir));
    if let Some(rel) = top.as_deref().and_then(|t| d.dir.strip_prefix(t).ok()) {
        return slashed(rel);
    }
    let root = above
        .iter()
        .find(|c| d.dir.starts_with(&c.dir) && fsx::kind(&c.boundary, &c.info_path()).is_some());
    match root
        .and_then(|r| d.dir.strip_prefix(&r.dir).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
    {
        Some(rel) => slashed(rel),
        None => d.name.clone(),
    }
}

/// `rel` with `/` between its components, whatever the platform.
fn slashed(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A domain's knowledge file and archive files, its entries named by `place`.
/// Reads at most `left` bytes of them all (what is read is taken from it): at 0, the rest is
/// not read. With `hidden`, as megg shows them ([`Read::Shown`]).
fn entry_sources(
    d: &Domain,
    place: &str,
    sources: &mut Vec<Source>,
    (warnings, mut hidden): (&mut Vec<String>, Option<&mut Vec<Hidden>>),
    left: &mut u64,
) {
    let knowledge = d.knowledge_path();
    let archives = archive_files(d, warnings);
    let files = std::iter::once((knowledge, Kind::Knowledge))
        .chain(archives.into_iter().map(|f| (f, Kind::Archive)));
    for (path, kind) in files {
        if *left == 0 {
            break;
        }
        let read = source(
            &d.boundary,
            &path,
            (kind, &d.name, place),
            discovery::MAX_KNOWLEDGE_BYTES.min(*left),
            (warnings, hidden.as_deref_mut()),
        );
        if let Some(s) = read {
            *left = left.saturating_sub(s.text.len() as u64);
            sources.push(s);
        }
    }
}

/// The documents of `sources`, with their ids.
pub fn parse(sources: &[Source]) -> Vec<Doc> {
    let mut docs = Vec::new();
    for s in sources {
        match s.kind {
            Kind::Knowledge | Kind::Archive => entries(s, &mut docs),
            Kind::Info => info_sections(s, &mut docs),
            Kind::Handoff => handoff(s, &mut docs),
        }
    }
    ids::assign(&mut docs);
    docs
}

/// The domains of `path`'s chain, root first: the first documents of every corpus.
fn chain(deps: &Deps<'_>, path: &Path, warnings: &mut Vec<String>) -> Vec<Domain> {
    let top = deps.top(path);
    let mut domains = deps.walk(&top).domains(path, warnings);
    domains.reverse();
    domains
}

/// The knowledge and archive entries of `d`, with the ids `megg search` and `megg show` give
/// them from any directory: what the session-start index lists (SPEC §13.5). `chain` is `d`'s
/// chain, root first (SPEC §3.1), as the context already found it: outside git it names `d`
/// ([`place`]). Nothing else is read — an id depends on its own domain only. With them, the
/// postings [`index::rank`] ranks them by — from `cache` (megg's cache directory) when these exact files were indexed before, else built and kept there: a
/// session start after the knowledge last changed reads one cache file instead of parsing and
/// indexing every entry again.
pub fn domain_index(
    deps: &Deps<'_>,
    d: &Domain,
    chain: &[Domain],
    cache: Option<&Path>,
) -> (Corpus, Postings) {
    let mut warnings = Vec::new();
    let mut hidden = Vec::new();
    let mut sources = Vec::new();
    entry_sources(
        d,
        &place(deps, d, chain),
        &mut sources,
        (&mut warnings, Some(&mut hidden)),
        &mut { u64::MAX },
    );
    indexed(&sources, cache, warnings, hidden)
}

/// The documents of `scope` that `ids` name: the chain's (and the handoffs'), and only when
/// one of `ids` is not among them and `scope.below`, the domains below as well — a show of a
/// chain entry costs no walk down a large tree.
pub fn resolve(deps: &Deps<'_>, scope: &Scope<'_>, ids: &[String]) -> Corpus {
    resolve_as(deps, scope, ids, Read::AsWritten)
}

/// [`resolve`], reading the files as `read` says (`show`: as megg shows them).
pub fn resolve_as(deps: &Deps<'_>, scope: &Scope<'_>, ids: &[String], read: Read) -> Corpus {
    let chain = collect_as(
        deps,
        &Scope {
            below: false,
            ..scope.clone()
        },
        read,
    );
    let found = |id: &String| {
        let id = id.trim().to_lowercase();
        chain.docs.iter().any(|d| d.id == id)
    };
    if !scope.below || ids.iter().all(found) {
        return chain;
    }
    // The chain's documents come first in every corpus: their ids stay what they were.
    collect_as(deps, scope, read)
}

/// Most archive files, and bytes of them, full mode's count of archived entries reads: the
/// hook costs the same whatever the archive holds (SPEC §14).
pub const COUNT_FILES: usize = 8;
pub const COUNT_BYTES: u64 = 256 * 1024;

/// What full mode says of `d`'s archive (SPEC §13.5): how many entries its files hold — all of
/// them when they are within [`COUNT_FILES`] and [`COUNT_BYTES`], else the entries of what was
/// read, a lower bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Archived {
    pub entries: usize,
    pub files: usize,
    /// Every archive file was read whole: `entries` is the count, not a lower bound.
    pub complete: bool,
}

/// How many entries `d`'s archive files hold, read within [`COUNT_FILES`] and
/// [`COUNT_BYTES`] ([`Archived`]).
pub fn archived_entries(d: &Domain) -> Archived {
    let mut warnings = Vec::new();
    let files = archive_files(d, &mut warnings);
    let mut out = Archived {
        files: files.len(),
        complete: files.len() <= COUNT_FILES,
        ..Archived::default()
    };
    let mut left = COUNT_BYTES;
    for path in files.iter().take(COUNT_FILES) {
        if left == 0 {
            out.complete = false;
            break;
        }
        if let Ok(Some(t)) = fsx::read_text(&d.boundary, path, left) {
            left = left.saturating_sub(t.text.len() as u64);
            out.complete &= !t.truncated;
            out.entries += knowledge::parse(&t.text).len();
        }
    }
    out
}

/// `path` in `b`, read up to `limit` (a cut, binary or refused file reported), as a source of
/// documents of `kind` in the domain named `domain`, at `place` ([`place`]). With `hidden`, as
/// megg shows it ([`Read::Shown`]).
fn source(
    b: &Boundary,
    path: &Path,
    (kind, domain, place): (Kind, &str, &str),
    limit: u64,
    (warnings, hidden): (&mut Vec<String>, Option<&mut Vec<Hidden>>),
) -> Option<Source> {
    if cfg!(feature = "failpoints") {
        // A test holds the hook to its own domain's files.
        crate::failpoint::log(&format!("recall-read {}", path.display()));
    }
    let text = match fsx::read_text(b, path, limit) {
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
            // Scanned as the context reads the file, so the two reads of one run share a scan.
            let text = match hidden {
                Some(hidden) => hidden::redact(path, t.text, hidden),
                None => t.text,
            };
            if has_nul(&text) {
                text.replace('\0', "\u{FFFD}")
            } else {
                text
            }
        }
        Ok(None) => return None,
        Err(e) => {
            warnings.push(format!("skipped {}", e.message));
            return None;
        }
    };
    Some(Source {
        kind,
        path: path.into(),
        domain: domain.to_string(),
        place: place.to_string(),
        text: Arc::new(text),
    })
}

/// Whether `text` holds a NUL. Looked for a block of 64 bytes at a time, which the compiler
/// checks a vector at a time: `str::contains` goes a word at a time, and this runs over every
/// byte a search reads.
fn has_nul(text: &str) -> bool {
    let mut blocks = text.as_bytes().chunks_exact(64);
    blocks
        .by_ref()
        .any(|block| block.iter().fold(false, |nul, &b| nul | (b == 0)))
        || blocks.remainder().contains(&0)
}

/// Line ends in bytes `range` of `text` (all up to its end when the range goes past it).
fn newlines(text: &str, range: std::ops::Range<usize>) -> usize {
    let bytes = text.as_bytes();
    let end = range.end.min(bytes.len());
    bytes
        .get(range.start.min(end)..end)
        .unwrap_or_default()
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The entries of a knowledge or archive file.
fn entries(s: &Source, docs: &mut Vec<Doc>) {
    let text: &str = &s.text;
    // Lines counted once through the file, not from its start for every entry.
    let (mut line, mut counted) = (1, 0);
    for e in knowledge::parse(text) {
        // `e.raw` is a slice of `text`.
        let offset = (e.raw.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        line += newlines(text, counted..offset);
        counted = offset;
        let piece = |part: &str| Shared::piece(&s.text, part);
        docs.push(Doc {
            id: Shared::default(),
            kind: s.kind,
            path: s.path.clone(),
            line,
            date: e.date.map(piece),
            entry_type: e.kind.map(piece),
            title: piece(e.title),
            topics: e.topics.iter().map(|t| piece(t)).collect(),
            text: piece(e.raw),
            // As megg shows the title: an entry's id is the same whether its file was read as
            // written (`learn --supersedes`) or as shown (`search`, the index).
            key: format!(
                "{}\n{}\n{}",
                s.place,
                e.date.unwrap_or(""),
                crate::megg::secrets::redact(e.title).trim()
            ),
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

/// The `##` sections of a domain's `info.md`.
fn info_sections(s: &Source, docs: &mut Vec<Doc>) {
    let text: &str = &s.text;
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
        // Both are where a line starts: character boundaries.
        let section = text.get(start..end).unwrap_or_default().trim_end();
        let heading = section
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("## ")
            .trim();
        docs.push(Doc {
            id: Shared::default(),
            kind: Kind::Info,
            path: s.path.clone(),
            line: newlines(text, 0..start) + 1,
            date: None,
            entry_type: None,
            title: format!("{}: {heading}", s.domain).into(),
            topics: Topics::default(),
            text: Shared::piece(&s.text, section),
            key: format!("{}\n{heading}", s.place),
        });
    }
}

/// The active state of each domain, the captured sessions' handoffs and the handoff history.
fn handoff_sources(
    deps: &Deps<'_>,
    (scope, key, domains): (&Scope<'_>, &Path, &[Domain]),
    sources: &mut Vec<Source>,
    warnings: &mut Vec<String>,
    mut hidden: Option<&mut Vec<Hidden>>,
) {
    let mut add = |b: &Boundary, path: &Path, hidden: Option<&mut Vec<Hidden>>| {
        sources.extend(source(
            b,
            path,
            (Kind::Handoff, "", ""),
            state::MAX_STATE_BYTES,
            (warnings, hidden),
        ));
    };
    for d in domains {
        add(&d.boundary, &d.state_path(), hidden.as_deref_mut());
    }
    let repo = deps.repo(scope.path);
    // Inside git, every worktree's captures — a removed worktree's too (SPEC §18.2).
    let sessions = match &repo {
        Some(r) => Sessions::every_worktree(r)
            .into_iter()
            .map(|(_, s)| s)
            .collect(),
        None => Vec::from_iter(Sessions::locate(None, key, scope.cache)),
    };
    // Each session's kept host summary beside its handoff (SPEC §18.1: search and show reach
    // all of it), as megg shows it: labelled and fenced.
    let mut summaries = Vec::new();
    for s in &sessions {
        for (id, path) in s.captures() {
            add(s.boundary(), &path, hidden.as_deref_mut());
            if let Some(mut found) = kept_summary::read(s, &id) {
                let path = s.summary_path(&id);
                if let Some(hidden) = hidden.as_deref_mut() {
                    found.text = hidden::redact_value(&path, &found.text, hidden);
                }
                summaries.push(Source {
                    kind: Kind::Handoff,
                    path: Arc::from(path),
                    domain: String::new(),
                    place: String::new(),
                    text: Arc::new(kept_summary::as_document(&found, id.as_str())),
                });
            }
        }
    }
    if let Some(h) = history::History::locate(repo.as_ref(), key, scope.cache) {
        for path in h.files() {
            add(h.boundary(), &path, hidden.as_deref_mut());
        }
    }
    sources.extend(summaries);
}

/// One handoff file: titled by its time and first Working On line.
fn handoff(s: &Source, docs: &mut Vec<Doc>) {
    let doc = state::parse(&s.text, &s.path.display().to_string());
    let working = handoff_sections(&doc.content, &["Working On"])
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().trim_start_matches("- ").to_string());
    let summary = doc.content.lines().find_map(|l| {
        l.strip_prefix("## ")
            .filter(|h| h.starts_with(kept_summary::HEADING))
    });
    let title = match (&working, &doc.session) {
        _ if summary.is_some() => format!(
            "{} of session {}",
            summary.unwrap_or_default(),
            doc.session.as_deref().unwrap_or("?")
        ),
        (Some(w), _) => w.clone(),
        (None, Some(sess)) => format!("handoff of session {sess}"),
        (None, None) => "handoff".to_string(),
    };
    docs.push(Doc {
        id: Shared::default(),
        kind: Kind::Handoff,
        path: s.path.clone(),
        line: 1,
        date: doc.updated_raw.clone().map(Shared::from),
        entry_type: None,
        title: title.into(),
        topics: doc.branch.iter().map(|b| b.as_str().into()).collect(),
        // A summary is its session's other document: its own id.
        key: if summary.is_some() {
            format!("{}\nsummary", handoff_key(&doc))
        } else {
            handoff_key(&doc)
        },
        text: Shared::piece(&s.text, &s.text),
    });
}

/// What a handoff's id is made of ([`ids::base_id`]): its time and session.
pub fn handoff_key(doc: &state::StateDoc) -> String {
    format!(
        "{}\n{}",
        doc.updated_raw.as_deref().unwrap_or(""),
        doc.session.as_deref().unwrap_or("")
    )
}

/// The lines under a handoff's `## <name>` sections, for each of `names`, in the file's order.
/// A heading is matched the way megg reads every field: whatever its case, with or without a
/// trailing colon (`## working on:` is Working On).
pub fn handoff_sections<'a>(
    content: &'a str,
    names: &'a [&str],
) -> impl Iterator<Item = &'a str> + 'a {
    let mut inside = false;
    content.lines().filter(move |line| {
        let Some(heading) = line.strip_prefix("## ") else {
            return inside;
        };
        let heading = heading.trim();
        let heading = heading.strip_suffix(':').unwrap_or(heading).trim_end();
        inside = names.iter().any(|n| heading.eq_ignore_ascii_case(n));
        false
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;

    fn write(path: &Path, text: impl AsRef<[u8]>) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn entry(title: &str) -> String {
        format!(
            "# Knowledge\n\n---\n\n## 2026-01-28 - {title}\n**Type:** rule\n**Topics:** t\n\nBody.\n"
        )
    }

    /// Issue: `megg show` walked every directory 3 levels below on every call, for ids of the
    /// chain too. An id of the chain is resolved without reading below; one from below still
    /// is.
    #[test]
    fn ids_of_the_chain_resolve_without_the_domains_below() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("p");
        write(&root.join(".megg/knowledge.md"), entry("Chain entry"));
        let rel: PathBuf = ["svc", "api", ".megg", "knowledge.md"].iter().collect();
        let deep = root.join(rel);
        write(&deep, [entry("Below entry").as_bytes(), b"\xff\n"].concat());
        let (tokens, ceilings) = (
            crate::tokens::Counter::new(None),
            vec![tmp.path().to_path_buf()],
        );
        let repos = crate::megg::repos::Repos::new(&ceilings);
        let deps = Deps {
            now: chrono::Utc::now(),
            tokens: &tokens,
            ceilings: &ceilings,
            trusted: &[],
            repos: &repos,
        };
        let scope = |below| Scope {
            path: &root,
            below,
            cache: None,
        };
        let id_of = |corpus: &Corpus, title: &str| {
            corpus
                .docs
                .iter()
                .find(|d| d.title == title)
                .unwrap()
                .id
                .to_string()
        };
        let chain = id_of(&collect(&deps, &scope(false)), "Chain entry");
        let below = id_of(&collect(&deps, &scope(true)), "Below entry");
        let deep_named = |c: &Corpus| {
            c.warnings
                .iter()
                .any(|w| w.contains(&*deep.to_string_lossy()))
        };
        let found = resolve(
            &deps,
            &scope(true),
            &[format!(" {} ", chain.to_uppercase())],
        );
        assert!(found.docs.iter().any(|d| d.id == chain));
        assert!(
            !deep_named(&found),
            "read below for a chain id: {:?}",
            found.warnings
        );
        let found = resolve(&deps, &scope(true), &[chain.clone(), below.clone()]);
        assert!(found.docs.iter().any(|d| d.id == below), "{:?}", found.docs);
        assert!(deep_named(&found), "{:?} not in {:?}", deep, found.warnings);
        // Without `below`, never.
        let found = resolve(&deps, &scope(false), std::slice::from_ref(&below));
        assert!(!found.docs.iter().any(|d| d.id == below));
    }

    /// Issue: a handoff's `## Working On:` (a colon) or `## working on` gave no title; the
    /// heading is matched like every megg field, whatever its case and trailing colon.
    #[test]
    fn a_handoffs_title_is_its_working_on_however_written() {
        for heading in [
            "## Working On",
            "## Working On:",
            "## working on",
            "## WORKING ON :",
        ] {
            let s = Source {
                kind: Kind::Handoff,
                path: Path::new("/s.md").into(),
                domain: String::new(),
                place: String::new(),
                text: format!(
                    "---\nupdated: 2026-11-22T11:00:00Z\n---\n\n{heading}\n\n- The invoice export\n\n## Next\nmore\n"
                )
                .into(),
            };
            let mut docs = Vec::new();
            handoff(&s, &mut docs);
            assert_eq!(docs[0].title, "The invoice export", "{heading}");
        }
    }

    fn source(kind: Kind, path: &str, text: &str) -> Source {
        Source {
            kind,
            path: Path::new(path).into(),
            domain: "d".into(),
            place: "p".into(),
            text: Arc::new(text.to_string()),
        }
    }

    /// Every field read back is what was stored, wherever it was kept (in its file, in the
    /// table, or absent); and a file made for other sources is not used for them.
    #[test]
    fn a_corpus_reads_back_from_the_cache_as_it_was_stored() {
        let tmp = tempfile::tempdir().unwrap();
        let sources = vec![
            source(
                Kind::Knowledge,
                "/k.md",
                "# Knowledge\n\n---\n\n## 2026-01-28 - Token storage\n**Type:** decision\n**Topics:** auth, web\n\nCookies.\n\n---\n\n## Undated\n\nNo type.\n",
            ),
            source(Kind::Info, "/info.md", "# D\n\n## Context\nWhat it is.\n"),
            source(
                Kind::Handoff,
                "/s.md",
                "---\nupdated: 2026-11-22T11:00:00Z\nbranch: feat/x\n---\n\n## Working On\n- The export\n",
            ),
        ];
        let docs = parse(&sources);
        assert_eq!(docs.len(), 4);
        let postings = Postings::build(&docs, false);
        let key = cache::key(&sources);
        cache::store(tmp.path(), &key, &sources, &docs, &postings);
        let (loaded, read) = cache::load(tmp.path(), &key, &sources).expect("the stored corpus");
        let without_keys: Vec<Doc> = docs
            .iter()
            .map(|d| Doc {
                key: String::new(),
                ..d.clone()
            })
            .collect();
        assert_eq!(loaded, without_keys);
        assert_eq!(read, postings);
        let other = [source(Kind::Knowledge, "/k.md", "# Knowledge\n")];
        assert!(cache::load(tmp.path(), &key, &other).is_none());
    }
}
