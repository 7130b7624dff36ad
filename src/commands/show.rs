//! `megg show ID... [--json] [--max-chars N]` (SPEC §13.4): documents by the ids `megg search`
//! and the session-start index give, whole, as they stand in their files — and, for MCP
//! `show` (§13.6), one page of them at a time.

use std::path::PathBuf;

use crate::env::Env;
use crate::error::{Error, Result};
use crate::fsx;
use crate::megg::freshness::{self, Freshness};
use crate::megg::recall::{self, Doc};
use crate::output::Output;
use crate::wire::recall::{Shown, ShownDoc};

use super::page;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Ids from `megg search` or the session-start index
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,

    /// Directory whose chain (and the domains below it) holds the documents [default: the
    /// current directory]
    #[arg(long, value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// Most characters printed in all (the rest is left out, and said so)
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_chars: usize,

    /// Print one JSON document
    #[arg(long)]
    pub json: bool,

    /// MCP only: one page of the documents instead of `max_chars` of them.
    #[arg(skip)]
    pub page: Option<Page>,
}

/// One page of the documents (MCP `show`, SPEC §13.6): from `from` on, in the order the ids
/// were given, as much as fits in `max_chars` characters of JSON. A document that does not fit
/// starts the next page; one longer than a page is cut at a line and goes on in the next.
/// Following `next_cursor` from the start returns every document whole, in order, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub from: Position,
    pub max_chars: usize,
}

/// Where a page starts: the index of an id among those given and, inside its document, how
/// many characters earlier pages held. Written `3`, or `3:9012` within a document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    pub id: usize,
    pub offset: usize,
}

impl Position {
    /// The start of the next id's document.
    fn next_id(self) -> Self {
        Self {
            id: self.id + 1,
            offset: 0,
        }
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.offset {
            0 => write!(f, "{}", self.id),
            offset => write!(f, "{}:{offset}", self.id),
        }
    }
}

impl std::str::FromStr for Position {
    type Err = std::num::ParseIntError;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let (id, offset) = s.trim().split_once(':').unwrap_or((s.trim(), "0"));
        Ok(Self {
            id: id.parse()?,
            offset: offset.parse()?,
        })
    }
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let path = env.dir_arg(args.path.as_deref())?;
    let cache = fsx::user_cache_dir();
    let scope = recall::Scope {
        path: &path,
        below: true,
        cache: cache.as_deref(),
    };
    let corpus = recall::resolve_as(&env.deps(), &scope, &args.ids, recall::Read::Shown);
    let found: Vec<(String, Option<&Doc>)> = args
        .ids
        .iter()
        .map(|id| {
            let id = id.trim().to_lowercase();
            let doc = corpus.docs.iter().find(|d| d.id == id);
            (id, doc)
        })
        .collect();
    // Each entry's citations checked against git (SPEC §17).
    let docs: Vec<&Doc> = found.iter().filter_map(|(_, d)| *d).collect();
    let mut fresh = freshness::of_docs(&env.deps(), &docs).into_iter();
    let asked: Vec<Asked<'_>> = found
        .into_iter()
        .map(|(id, doc)| {
            let f = doc.and_then(|_| fresh.next().flatten());
            (id, doc, f)
        })
        .collect();
    let mut warnings = corpus.warnings.clone();
    // The secrets the documents show as `[redacted]`, each named (SPEC §12).
    warnings.extend(corpus.hidden_in(&docs));
    let mut shown = match args.page {
        Some(page) => page.of(&asked, warnings)?,
        None => bounded(&asked, warnings, args.max_chars),
    };
    for d in &mut shown.documents {
        d.superseded_by_id = recall::successor_id(&corpus.docs, &d.id);
    }
    // Nothing to show at all: in text, a failure (SPEC §1) whose hints say how to find an id;
    // the JSON document (SPEC §13.4) lists the missing ids with the same hints.
    if !args.json && args.page.is_none() && shown.documents.is_empty() && !shown.missing.is_empty()
    {
        return Err(nothing_found(&shown.missing));
    }
    let human = crate::render::recall::shown(&shown);
    let mut out = Output::pick(args.json, &shown, human, shown.warnings.clone());
    if !shown.missing.is_empty() {
        out.code = 1;
    }
    Ok(out)
}

/// An id asked for, the document it names and that document's freshness (SPEC §17).
type Asked<'a> = (String, Option<&'a Doc>, Option<Freshness>);

/// Every document asked for, within `max_chars` characters of text in all (the CLI).
fn bounded(asked: &[Asked<'_>], mut warnings: Vec<String>, max: usize) -> Shown {
    let (mut documents, mut missing) = (Vec::new(), Vec::new());
    let mut budget = max;
    let mut left_out = Vec::new();
    for (id, doc, fresh) in asked {
        let Some(doc) = doc else {
            missing.push(echoed(id));
            continue;
        };
        if budget == 0 {
            left_out.push(id.as_str());
            continue;
        }
        let len = doc.text.chars().count();
        if len > budget {
            warnings.push(format!(
                "{id}: {budget} of its {len} characters shown (--max-chars {max}); read the rest at {}:{}",
                doc.path.display(),
                doc.line
            ));
            documents.push(ShownDoc::of(
                doc,
                doc.text.chars().take(budget).collect(),
                fresh.as_ref(),
            ));
            budget = 0;
            continue;
        }
        budget -= len;
        documents.push(ShownDoc::of(doc, doc.text.to_string(), fresh.as_ref()));
    }
    if !left_out.is_empty() {
        warnings.push(format!(
            "left out (over --max-chars {max}): {}; show them in another call",
            left_out.join(" ")
        ));
    }
    warnings.extend(missing_hints(&missing, "megg search <words>"));
    Shown {
        documents,
        missing,
        warnings,
        next_cursor: None,
    }
}

/// The error when none of the ids resolves: a hint for each kind of id, as
/// [`missing_hints`] tells them apart, then how to find one.
fn nothing_found(missing: &[String]) -> Error {
    let (ids, others): (Vec<&str>, Vec<&str>) = missing
        .iter()
        .map(String::as_str)
        .partition(|id| recall::ids::is_id(id));
    let mut e = Error::user(match missing {
        [one] => format!("no document with id {one}"),
        _ => format!("no document with any of the ids {}", missing.join(", ")),
    });
    if !ids.is_empty() {
        e = e.with_hint(format!(
            "{}: its title or date changed, or it is in a domain below another directory (--path)?",
            ids.join(", ")
        ));
    }
    if !others.is_empty() {
        e = e.with_hint(format!("{}: ids look like k3f9a2xq", others.join(", ")));
    }
    e.with_hint("find ids with `megg search <words>`")
}

/// An id as `missing` and the hints echo it: cut, marked `…`, when long.
fn echoed(id: &str) -> String {
    page::clip(id, page::ECHOED_CHARS).into_owned()
}

/// What to say of ids that resolve to nothing, each by what it looks like: an id whose document
/// changed, or something that is no id; both with how to find one (`search`).
fn missing_hints(missing: &[String], search: &str) -> Vec<String> {
    let (ids, others): (Vec<&str>, Vec<&str>) = missing
        .iter()
        .map(String::as_str)
        .partition(|id| recall::ids::is_id(id));
    let mut hints = Vec::new();
    if !ids.is_empty() {
        hints.push(format!(
            "no document with id {}; its title or date changed, or it is in a domain below another directory? find it again: {search}",
            ids.join(", ")
        ));
    }
    if !others.is_empty() {
        hints.push(format!(
            "no document with id {}: ids look like k3f9a2xq; find one: {search}",
            others.join(", ")
        ));
    }
    hints
}

impl Page {
    /// This page of `asked`; its warnings speak of what it holds (and of the files read).
    fn of(self, asked: &[Asked<'_>], warnings: Vec<String>) -> Result<Shown> {
        let Position { id: first, offset } = self.from;
        let starts_inside = |(_, doc, _): &Asked<'_>| {
            offset == 0 || doc.is_some_and(|d| offset < d.text.chars().count())
        };
        if !asked.get(first).is_some_and(starts_inside) {
            return Err(Error::usage(format!(
                "cursor: {} is not a position in these {} ids",
                self.from,
                asked.len()
            ))
            .with_hint("pass the next_cursor of the previous call, with the same ids"));
        }
        let base = page::bounded_warnings(warnings, self.max_chars);
        let mut page = Shown {
            documents: Vec::new(),
            missing: Vec::new(),
            warnings: base.clone(),
            // The longest cursor this page can give, while it is measured.
            next_cursor: Some(format!("{}:{}", asked.len(), usize::MAX)),
        };
        // The files' warnings, then what the page says of its documents, then its missing ids.
        let mut notes: Vec<String> = Vec::new();
        let say = |page: &mut Shown, notes: &[String]| {
            page.warnings = base.iter().chain(notes).cloned().collect();
            page.warnings
                .extend(missing_hints(&page.missing, "the `search` tool"));
        };
        let mut at = Position { id: first, offset };
        while let Some((id, doc, fresh)) = asked.get(at.id) {
            let empty = page.documents.is_empty() && page.missing.is_empty();
            let Some(doc) = doc else {
                page.missing.push(echoed(id));
                say(&mut page, &notes);
                if !empty && page::json_chars(&page) > self.max_chars {
                    page.missing.pop();
                    say(&mut page, &notes);
                    break;
                }
                at = at.next_id();
                continue;
            };
            let len = doc.text.chars().count();
            let rest: String = doc.text.chars().skip(at.offset).collect();
            let rest_len = len - at.offset;
            let path = page::clip_path(&doc.path, self.max_chars / 8);
            let piece = |n: usize, page: &mut Shown, notes: &mut Vec<String>| {
                let end = at.offset + n;
                if at.offset > 0 || end < len {
                    notes.push(format!(
                        "{id}: characters {}–{end} of {len} here{}",
                        at.offset + 1,
                        if end < len {
                            format!("; the rest with cursor \"{}:{end}\"", at.id)
                        } else {
                            ", the rest of it".to_string()
                        }
                    ));
                }
                page.documents.push(ShownDoc {
                    path: path.clone(),
                    ..ShownDoc::of(doc, rest.chars().take(n).collect(), fresh.as_ref())
                });
                say(page, notes);
            };
            let fits = |n: usize| {
                let (mut p, mut w) = (page.clone(), notes.clone());
                piece(n, &mut p, &mut w);
                page::json_chars(&p) <= self.max_chars
            };
            if fits(rest_len) || (empty && rest_len <= 1) {
                piece(rest_len, &mut page, &mut notes);
                at = at.next_id();
                continue;
            }
            if !empty {
                // It starts the next page.
                break;
            }
            // Alone and longer than a page: as much as fits (at least a character, so that the
            // walk goes on), cut after a line.
            let n = page::longest_lines(&rest, |p| fits(p.chars().count()))
                .map_or(0, |p| p.chars().count())
                .max(1);
            piece(n, &mut page, &mut notes);
            at = if n < rest_len {
                Position {
                    id: at.id,
                    offset: at.offset + n,
                }
            } else {
                at.next_id()
            };
            break;
        }
        page.next_cursor = (at.id < asked.len()).then(|| at.to_string());
        Ok(page)
    }
}
