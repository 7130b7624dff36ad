//! `learn`'s write (SPEC §6, §17): the new entries appended to the current domain's
//! `knowledge.md` under its lock, the entry they supersede moved to its year's archive with the
//! line naming its successor (and the successor with the line naming it) — the archive written first, then `knowledge.md`, each atomically,
//! so an interruption leaves at worst a copy, never a loss — and the entries already there that
//! a new one duplicates, named by the ids recall gives them; and what `--allow-secrets` marks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fsx;
use crate::git::Repo;
use crate::megg::discovery::{Domain, MAX_KNOWLEDGE_BYTES};
use crate::megg::recall::{Corpus, Doc, Kind};
use crate::megg::{conflict, maintain, secrets};
use crate::shell::shell_quote;

use super::similar::{self, Likeness};
use super::{Document, Entry, NewEntry, supersede};

/// An entry of the current domain's `knowledge.md`, as recall names it: what `--supersedes`
/// points at, and what a new entry duplicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub id: String,
    pub date: Option<String>,
    pub title: String,
    /// The entry's text as it stands in the file, from its heading on.
    pub text: String,
    /// 1-based line of its heading.
    pub line: usize,
}

impl Target {
    fn of(doc: &Doc) -> Self {
        Self {
            id: doc.id.to_string(),
            date: doc.date.as_ref().map(ToString::to_string),
            title: doc.title.to_string(),
            text: doc.text.to_string(),
            line: doc.line,
        }
    }

    /// `2026-01-17 - Title`, or the title of an undated entry.
    pub fn heading(&self) -> String {
        match &self.date {
            Some(d) => format!("{d} - {}", self.title),
            None => self.title.clone(),
        }
    }
}

/// The entry of `knowledge` (this domain's `knowledge.md`) that `id` names in `corpus` (what
/// `megg show` resolves it in); an error saying what the id is instead — nothing, an archived
/// entry, a handoff or an `info.md` section, an entry of another domain (and from where to run).
pub fn target(corpus: &Corpus, id: &str, knowledge: &Path) -> Result<Target> {
    let id = id.trim().to_lowercase();
    let Some(doc) = corpus.docs.iter().find(|d| d.id == id) else {
        return Err(Error::user(format!("no entry with id '{id}'")).with_hint(
            "find the entry it replaces with `megg search <words>` (MCP `search`) and pass its id",
        ));
    };
    let at = format!("{}:{}", doc.path.display(), doc.line);
    let named = format!("'{}' ({id})", doc.title);
    let not_entry = |what: &str| {
        Err(
            Error::user(format!("{id} is {what}, not a knowledge entry ({at})")).with_hint(
                "--supersedes takes the id of an entry of this domain's knowledge.md: `megg search <words> --in knowledge`",
            ),
        )
    };
    match doc.kind {
        Kind::Handoff => not_entry("a handoff"),
        Kind::Info => not_entry("an info.md section"),
        Kind::Archive => Err(Error::user(format!(
            "{named} is already in the archive ({at}): nothing to supersede"
        ))
        .with_hint("supersede the entry that replaced it: `megg search <words> --in knowledge`")),
        Kind::Knowledge if *doc.path != *knowledge => {
            let megg = doc.path.parent().unwrap_or(&doc.path);
            let dir = megg.parent().unwrap_or(megg);
            Err(Error::user(format!(
                "{named} is an entry of {}, not of this domain's {}",
                doc.path.display(),
                knowledge.display()
            ))
            .with_hint(format!(
                "learn there: `megg -C {} learn --supersedes {id} …`",
                shell_quote(&dir.display().to_string())
            )))
        }
        Kind::Knowledge => Ok(Target::of(doc)),
    }
}

/// Refuses to supersede `t` with an entry of the same date and title: ids are computed from
/// them (SPEC §13.2), so the two would swap ids and the archived one would name itself as its
/// successor.
pub fn refuse_same_id(t: &Target, new: &NewEntry) -> Result<()> {
    let same_title = t.title.trim().to_lowercase() == new.title.trim().to_lowercase();
    if same_title && t.date.as_deref() == Some(new.date.as_str()) {
        return Err(Error::user(format!(
            "'{}' would supersede an entry of the same day and title ({}): both would have one id; nothing written",
            new.title, t.id
        ))
        .with_hint("edit that entry in knowledge.md instead, or give the new one a title that says what changed"));
    }
    Ok(())
}

/// 1-based line of `raw` (a slice of `text`) in `text`, as recall numbers it.
fn line_of(text: &str, raw: &str) -> usize {
    let offset = (raw.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    text.as_bytes()
        .get(..offset)
        .unwrap_or_default()
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Which of `doc`'s entries (of `text`) `t` is: the one with its text at its line, else the
/// only one with its text.
fn locate(doc: &Document<'_>, text: &str, t: &Target) -> Option<usize> {
    let same: Vec<usize> = (0..doc.entries.len())
        // The target was read as LF (`fsx::read_text`); the file to edit keeps its CRLF.
        .filter(|&i| doc.entries.get(i).is_some_and(|e| fsx::lf(e.raw) == t.text))
        .collect();
    let at_line = same.iter().copied().find(|&i| {
        doc.entries
            .get(i)
            .is_some_and(|e| line_of(text, e.raw) == t.line)
    });
    match (at_line, same.as_slice()) {
        (Some(i), _) | (None, &[i]) => Some(i),
        _ => None,
    }
}

/// A new entry like one already there ([`similar`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Which of the new entries.
    pub new: usize,
    pub likeness: Likeness,
    /// The entry there: `2026-01-17 - Title`.
    pub heading: String,
    /// The entry there with its id, when recall names it (it does unless the file is past
    /// recall's bounds).
    pub target: Option<Target>,
}

impl Found {
    /// The warning for an entry like one already in `path`: its id and how to supersede it. Never a
    /// prompt here: agents run `learn` without a terminal (SPEC §17).
    pub fn warning(&self, entries: &[NewEntry], path: &Path) -> String {
        let f = self;
        let title = entries.get(f.new).map_or("", |e| e.title.as_str());
        if f.same_id(entries) {
            let at = f
                .target
                .as_ref()
                .map_or(String::new(), |t| format!(":{}", t.line));
            return format!(
                "'{title}' has the date and title of '{}' ({}) in {}{at}, so its id too; learned anyway — to change what that entry says, edit it there (`--supersedes` cannot replace an entry of the same day and title)",
                f.heading,
                f.likeness,
                path.display()
            );
        }
        match &f.target {
            Some(t) => format!(
                "'{title}' is like {} '{}' ({}) in {}; learned anyway (when a new entry replaces an old one, `megg learn --supersedes {} …` moves the old one to the archive)",
                t.id,
                f.heading,
                f.likeness,
                path.display(),
                t.id
            ),
            None => format!(
                "'{title}' is like '{}' ({}) in {}; learned anyway (if they say the same, edit or remove one)",
                f.heading,
                f.likeness,
                path.display()
            ),
        }
    }

    /// Whether the entry found has the new one's date and title, so the same id: `--supersedes`
    /// refuses it (SPEC §17), and the way out is to edit the entry there.
    pub fn same_id(&self, entries: &[NewEntry]) -> bool {
        entries
            .get(self.new)
            .is_some_and(|e| super::supersede::names(&self.heading, Some(&e.date), &e.title))
    }
}

/// The entries of `domain`'s `knowledge.md` that the new `entries` are like, but `except` (the
/// entry they supersede), each with its id from `corpus` — called only when there are any. Read
/// before the lock: what the user is told, or asked, before anything is written.
pub fn duplicates(
    domain: &Domain,
    entries: &[NewEntry],
    except: Option<&Target>,
    corpus: impl FnOnce() -> Corpus,
) -> Result<Vec<Found>> {
    let knowledge = domain.knowledge_path();
    let Some(read) = fsx::read_text(&domain.boundary, &knowledge, MAX_KNOWLEDGE_BYTES)? else {
        return Ok(Vec::new());
    };
    let text = read.text.as_str();
    let doc = super::document(text);
    let except = except.and_then(|t| locate(&doc, text, t));
    let found = similar::duplicates(&doc.entries, entries, except);
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let corpus = corpus();
    Ok(found
        .into_iter()
        .filter_map(|d| {
            let old = doc.entries.get(d.old)?;
            let line = line_of(text, old.raw);
            let target = corpus
                .docs
                .iter()
                .find(|c| {
                    c.kind == Kind::Knowledge
                        && *c.path == *knowledge.as_path()
                        && c.line == line
                        && c.text.as_str() == old.raw
                })
                .map(Target::of);
            Some(Found {
                new: d.new,
                likeness: d.likeness,
                heading: match old.date {
                    Some(date) => format!("{date} - {}", old.title),
                    None => old.title.to_string(),
                },
                target,
            })
        })
        .collect())
}

/// What `learn` writes: where, the new entries, the entry they supersede.
pub struct Learn<'a> {
    pub domain: &'a Domain,
    pub repo: Option<&'a Repo>,
    pub entries: &'a [NewEntry],
    pub supersedes: Option<&'a Target>,
    /// The time a new file's frontmatter is stamped with.
    pub now: &'a str,
}

/// What `learn` wrote: the new `knowledge.md`, and the archive file the superseded entry went
/// to.
#[derive(Debug)]
pub struct Written {
    pub text: String,
    pub archive: Option<PathBuf>,
}

/// Writes `l`'s entries under the lock of the domain's `knowledge.md` (a read-modify-write),
/// after moving the entry they supersede to its archive.
pub fn learn(l: &Learn<'_>) -> Result<Written> {
    let path = l.domain.knowledge_path();
    let b = &l.domain.boundary;
    let _lock = crate::megg::lock(l.repo, b, &path)?;
    // Refuses invalid UTF-8: rewriting would turn those bytes into U+FFFD for good.
    let existing = fsx::read_for_edit(b, &path, MAX_KNOWLEDGE_BYTES)?;
    // Edited as LF; written back with the file's own line endings (SPEC §15.1).
    let crlf = existing.as_deref().is_some_and(fsx::mostly_crlf);
    let existing = existing.map(|t| fsx::lf(&t).into_owned());
    if let Some(why) = existing.as_deref().and_then(super::unparsable) {
        return Err(super::refuse_unparsable(&path, &why));
    }
    let (mut text, archive) = match l.supersedes {
        Some(t) => {
            let (rest, file) = move_out(l, t, existing.as_deref().unwrap_or_default(), &path)?;
            (rest, Some(file))
        }
        None => (existing.unwrap_or_default(), None),
    };
    for (i, entry) in l.entries.iter().enumerate() {
        text = match l.supersedes.filter(|_| i == 0) {
            Some(t) => successor(&text, entry, t, l.now),
            None => super::append(Some(&text), entry, l.now),
        };
    }
    fsx::write_atomic(b, &path, fsx::with_endings(&text, crlf).as_bytes())?;
    Ok(Written { text, archive })
}

/// `existing` with `entry` appended as the successor of `t`: as [`super::append`] writes it,
/// with `**Supersedes:** <t's date> - <t's title>` after its field lines (SPEC §17), the line
/// that lets the merge driver tell this supersede from a delete.
fn successor(existing: &str, entry: &NewEntry, t: &Target, now: &str) -> String {
    let appended = super::append(Some(existing), entry, now);
    let plain = super::entry_text(entry);
    match appended.strip_suffix(plain.as_str()) {
        Some(head) => format!("{head}{}", supersede::successor_text(&plain, &t.heading())),
        None => appended,
    }
}

/// An entry as `learn --allow-secrets` writes it (SPEC §12), and where it holds what looks like
/// a secret (`the title`, `the topics`, `the content, line 3`): as given, but each line holding
/// one ends with `<!-- gitleaks:allow -->` — the line of the title or the topics too, for want
/// of another place on it — so that megg, whose scan at injection leaves such a line alone, prints
/// it as written, and gitleaks in the person's own hooks passes it. An HTML comment, so that
/// rendered markdown does not show it.
pub fn allow_secrets(entry: &NewEntry) -> (NewEntry, Vec<String>) {
    let comment = format!(" <!-- {} -->", secrets::ALLOW_MARKER);
    let mut out = entry.clone();
    let mut places = Vec::new();
    if !secrets::find(&entry.title).is_empty() {
        out.title.push_str(&comment);
        places.push("the title".to_string());
    }
    if !secrets::find(&entry.topics.join(", ")).is_empty() {
        if let Some(last) = out.topics.last_mut() {
            last.push_str(&comment);
        }
        places.push("the topics".to_string());
    }
    let found = secrets::find(&entry.content);
    let lines: BTreeSet<usize> = found.iter().map(|f| f.line(&entry.content)).collect();
    if !lines.is_empty() {
        let marked: Vec<String> = entry
            .content
            .split('\n')
            .enumerate()
            .map(|(i, line)| {
                if !lines.contains(&(i + 1)) {
                    return line.to_string();
                }
                // Before a CRLF line's `\r`: the line keeps its ending.
                match line.strip_suffix('\r') {
                    Some(bare) => format!("{bare}{comment}\r"),
                    None => format!("{line}{comment}"),
                }
            })
            .collect();
        out.content = marked.join("\n");
        let numbers: Vec<String> = lines.iter().map(ToString::to_string).collect();
        let (word, numbers) = match numbers.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                ("lines", format!("{} and {last}", rest.join(", ")))
            }
            _ => ("line", numbers.join("")),
        };
        places.push(format!("the content, {word} {numbers}"));
    }
    (out, places)
}

/// Every entry of `entries` as [`allow_secrets`] marks it, and a warning for each that holds
/// what looks like a secret (`learn --allow-secrets`, SPEC §12).
pub fn allow_secrets_all(entries: &[NewEntry]) -> (Vec<NewEntry>, Vec<String>) {
    let mut warnings = Vec::new();
    let marked = entries
        .iter()
        .map(|entry| {
            let (marked, places) = allow_secrets(entry);
            if !places.is_empty() {
                warnings.push(format!(
                    "'{}': what looks like a secret ({}) is written as given (--allow-secrets), each line holding it marked `<!-- {} -->` so that megg prints it and gitleaks passes it",
                    entry.title,
                    places.join("; "),
                    crate::megg::secrets::ALLOW_MARKER
                ));
            }
            marked
        })
        .collect();
    (marked, warnings)
}

/// Moves entry `t` of `existing` (the text of `path`) to its year's archive, marked with its
/// successor (the first new entry); returns `existing` without it, and the archive file.
fn move_out(l: &Learn<'_>, t: &Target, existing: &str, path: &Path) -> Result<(String, PathBuf)> {
    if conflict::count(existing) > 0 {
        return Err(Error::user(format!(
            "{} has unresolved merge conflicts: nothing written",
            path.display()
        ))
        .with_hint("run `megg resolve` first, then supersede"));
    }
    let doc = super::document(existing);
    let (Some(i), Some(new)) = (locate(&doc, existing, t), l.entries.first()) else {
        return Err(Error::user(format!(
            "{} ({}) is no longer at {}:{}: nothing written",
            t.heading(),
            t.id,
            path.display(),
            t.line
        ))
        .with_hint("it changed meanwhile; find it again with `megg search <words>`"));
    };
    let Some(old) = doc.entries.get(i) else {
        return Err(Error::internal("supersede: the entry found is gone"));
    };
    let b = &l.domain.boundary;
    let (year, file) = supersede::archive_file(&l.domain.megg, old.date, &new.date);
    let marked = supersede::mark(old.raw, &supersede::successor(new));
    let moved = Entry {
        raw: &marked,
        ..old.clone()
    };
    fsx::create_dir_all(b, &l.domain.megg.join("archive"))?;
    let prior = fsx::read_for_edit(b, &file, MAX_KNOWLEDGE_BYTES)?;
    if let Some(why) = prior.as_deref().and_then(super::unparsable) {
        return Err(super::refuse_unparsable(&file, &why));
    }
    // Skips an entry already there: a run interrupted after this write, run again, adds none.
    let (archived, _) = maintain::append_to_archive(prior.as_deref(), year, &[moved], l.now);
    fsx::write_atomic(b, &file, archived.as_bytes())?;
    // A test-only failure here proves an interruption between the writes loses nothing.
    crate::failpoint::fail_at("supersede-before-live")?;
    Ok((supersede::without(&doc, i), file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megg::knowledge::KnowledgeType;

    fn entry(title: &str, topics: &[&str], content: &str) -> NewEntry {
        NewEntry {
            date: "2026-11-22".into(),
            title: title.into(),
            kind: KnowledgeType::Fact,
            topics: topics.iter().map(|t| t.to_string()).collect(),
            content: content.into(),
        }
    }

    #[test]
    fn allow_secrets_marks_the_lines_holding_one_and_only_those() {
        let pat = format!("glpat-{}", "R7tKq2mXw9LpZ4vNc8Yb");
        let given = entry(
            &format!("Token {pat}"),
            &["ci", &pat],
            &format!("first\r\nkey {pat}\r\nthird\nand {pat}"),
        );
        let (marked, places) = allow_secrets(&given);
        let mark = " <!-- gitleaks:allow -->";
        assert_eq!(marked.title, format!("Token {pat}{mark}"));
        assert_eq!(
            marked.topics,
            vec!["ci".to_string(), format!("{pat}{mark}")]
        );
        // A CRLF line keeps its ending after the marker.
        assert_eq!(
            marked.content,
            format!("first\r\nkey {pat}{mark}\r\nthird\nand {pat}{mark}")
        );
        assert_eq!(
            places,
            ["the title", "the topics", "the content, lines 2 and 4"]
        );
        assert!(secrets::find(&super::super::entry_text(&marked)).is_empty());
        // Nothing to mark: the entry as given.
        let plain = entry("Deploys", &["ops"], "the token expires");
        assert_eq!(allow_secrets(&plain), (plain.clone(), Vec::new()));
    }
}
