//! The entry-level three-way merge of `knowledge.md` and archive files (SPEC §11).
//!
//! A pure function over bytes: `megg merge-driver` (git's merge driver, three temp files) and
//! `megg resolve` (the index's three stages) both call [`merge_knowledge`]. The files are read
//! with knowledge's one parser ([`knowledge::document`], the entries `context` loads); nothing
//! here touches a file, the clock or git.
//!
//! Entries are a multiset of their normalized texts. For each text the result holds as many
//! copies as [`target`] says — OURS' count, minus the base copies THEIRS deleted, plus THEIRS'
//! new copies, an addition or deletion made on both sides counted once — realised on OURS'
//! bytes: OURS' entries in OURS' order, THEIRS' new entries appended as `learn` appends them.
//! Edits (a unique heading removed and added once on a side) land at OURS' position; edits on
//! both sides that differ become one conflict block around that entry. An entry one side
//! superseded (removed, and named by the `**Supersedes:**` line of an entry it added) while the
//! other edited it is a conflict too — the successor and the edit between markers, never both
//! kept (SPEC §17) — and so, with no base, is a successor on one side against the entry it names
//! still held on the other.

mod meta;

use meta::Version;

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::megg::knowledge;

/// Most bytes of each version merged by entry; a larger file gets the fallback (SPEC §9).
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
/// Conflict markers' length when git does not say (its `conflict-marker-size` default).
pub const DEFAULT_MARKER_SIZE: usize = 7;

/// One of the three versions of a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The common ancestor (git's `%O`, stage 1).
    Base,
    /// The version being merged into (git's `%A`, stage 2): the result replaces it.
    Ours,
    /// The version merged in (git's `%B`, stage 3).
    Theirs,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Base => "base",
            Side::Ours => "ours",
            Side::Theirs => "theirs",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a merge fell back to both whole versions between conflict markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// The path is not `.megg/knowledge.md` or `.megg/archive/*.md`.
    NotKnowledge,
    /// A version is over [`MAX_INPUT_BYTES`].
    TooLarge(Side),
    /// A version is not valid UTF-8.
    NotUtf8(Side),
    /// A version's frontmatter is not a YAML mapping (the parser's message).
    Frontmatter(Side, String),
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fallback::NotKnowledge => {
                f.write_str("not a megg knowledge file (.megg/knowledge.md or .megg/archive/*.md)")
            }
            Fallback::TooLarge(s) => write!(f, "{s}'s version is over {MAX_INPUT_BYTES} bytes"),
            Fallback::NotUtf8(s) => write!(f, "{s}'s version is not valid UTF-8"),
            Fallback::Frontmatter(s, e) => write!(f, "{s}'s frontmatter does not parse: {e}"),
        }
    }
}

/// A conflict left in the merged text, between markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    /// Both sides edited the entry with this heading (`## …`, as in OURS), differently.
    Entry(String),
    /// Both sides changed the text before the first entry, differently.
    Preamble,
    /// The whole file: both versions between markers, and why.
    Whole(Fallback),
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Conflict::Entry(h) => write!(f, "both sides edited '{h}' differently"),
            Conflict::Preamble => f.write_str("both sides changed the preamble differently"),
            Conflict::Whole(why) => write!(f, "both whole versions kept: {why}"),
        }
    }
}

/// What a merge produced: the bytes that replace OURS, the conflicts left in them (none: a
/// clean merge, git's exit 0) and warnings for the person merging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub bytes: Vec<u8>,
    pub conflicts: Vec<Conflict>,
    pub warnings: Vec<String>,
}

impl Merged {
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }

    /// The headings of the entries left in conflict.
    pub fn conflicted_entries(&self) -> Vec<&str> {
        self.conflicts
            .iter()
            .filter_map(|c| match c {
                Conflict::Entry(h) => Some(h.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Whether `path` (as git spells it, relative to the work tree's top) is one megg merges by
/// entry: `(^|/)\.megg/knowledge\.md$` or `(^|/)\.megg/archive/[^/]+\.md$`.
pub fn is_knowledge_path(path: &str) -> bool {
    let (dir, name) = match path.rsplit_once('/') {
        Some((d, n)) => (d, n),
        None => ("", path),
    };
    let under = |d: &str, suffix: &str| d == suffix || d.ends_with(&format!("/{suffix}"));
    (name == "knowledge.md" && under(dir, ".megg"))
        || (name.len() > ".md".len() && name.ends_with(".md") && under(dir, ".megg/archive"))
}

/// Merges three versions of the file at `path` (relative to the work tree's top; decides
/// whether it is megg's at all). `base` is `None` (or empty) when both sides created the file.
/// Never fails: what cannot be merged by entry gets the fallback — OURS and THEIRS whole
/// between markers of `marker_size` characters — and counts as a conflict.
pub fn merge_knowledge(
    base: Option<&[u8]>,
    ours: &[u8],
    theirs: &[u8],
    path: &str,
    marker_size: usize,
) -> Merged {
    let marker_size = marker_size.max(1);
    if !is_knowledge_path(path) {
        return fallback(ours, theirs, Fallback::NotKnowledge, marker_size);
    }
    fn text(side: Side, bytes: &[u8]) -> Result<&str, Fallback> {
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(Fallback::TooLarge(side));
        }
        std::str::from_utf8(bytes).map_err(|_| Fallback::NotUtf8(side))
    }
    let texts = (|| {
        let b = base.map(|b| text(Side::Base, b)).transpose()?;
        Ok::<_, Fallback>((b, text(Side::Ours, ours)?, text(Side::Theirs, theirs)?))
    })();
    match texts.and_then(|(b, o, t)| merge(b, o, t, marker_size)) {
        Ok(m) => m,
        Err(why) => fallback(ours, theirs, why, marker_size),
    }
}

/// The entry-level merge of three texts (SPEC §11). `Err` when a frontmatter does not parse
/// (the caller falls back). A `base` that is empty or blank is no base: the union.
// Indexing: every index is a position in one version's parallel vectors — its document's
// `entries` and `gaps`, its `keys`, the plan's `slots` — all built from the same parse, one
// element per entry (the merge tests and the fuzz target check it); and the merge driver
// falls back to git's line merge if it ever failed.
#[allow(clippy::indexing_slicing)]
pub fn merge(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    marker_size: usize,
) -> Result<Merged, Fallback> {
    let base = base.filter(|b| !b.trim().is_empty());
    let base = base.map(|b| read_version(b, Side::Base)).transpose()?;
    let ours = read_version(ours, Side::Ours)?;
    let theirs = read_version(theirs, Side::Theirs)?;
    let mut warnings = Vec::new();
    let mut conflicts = Vec::new();
    let markers = Markers::new(marker_size.max(1));

    let plan = Plan::new(base.as_ref(), &ours, &theirs, &mut warnings);

    // Each gap and the tail start with the rest of the line before them (trailing spaces):
    // that belongs to the text it follows, kept with it when it is OURS', dropped with it.
    let doc = &ours.doc;
    let after = |i: usize| doc.gaps.get(i).copied().unwrap_or(doc.tail);
    let mut out = Out::default();
    out.push(&meta::frontmatter(
        base.as_ref(),
        &ours,
        &theirs,
        &mut warnings,
    ));
    let pick = meta::preamble(base.as_ref(), &ours, &theirs, &mut warnings);
    let has_preamble = match pick {
        meta::Pick::Ours => !doc.preamble.is_empty(),
        meta::Pick::Theirs => !theirs.doc.preamble.is_empty(),
        meta::Pick::Conflict => true,
    };
    match pick {
        meta::Pick::Ours => {
            out.push(doc.preamble);
            out.push(line_rest(after(0)).0);
        }
        meta::Pick::Theirs => out.push(theirs.doc.preamble),
        meta::Pick::Conflict => {
            let (lead, o) = split_leading_blank(doc.preamble);
            let (_, t) = split_leading_blank(theirs.doc.preamble);
            out.push(lead);
            out.block(&markers.around(o, t));
            conflicts.push(Conflict::Preamble);
        }
    }
    let mut first = true;
    for (i, slot) in plan.slots.iter().enumerate() {
        if *slot == Slot::Drop {
            continue;
        }
        let gap = line_rest(doc.gaps[i]).1;
        if first && has_preamble && doc.preamble.is_empty() && !has_separator(gap) {
            // OURS' first entry had no preamble and no `---` above it; under THEIRS' preamble
            // it gets one, as megg and the TypeScript megg write a first entry. (An entry that
            // OURS wrote right under its own title stays as written: it reads back as an
            // entry, SPEC §16.)
            out.push("\n\n---\n\n");
        } else {
            out.push(gap);
        }
        first = false;
        match slot {
            Slot::Drop => {}
            Slot::Keep => {
                out.push(doc.entries[i].raw);
                out.push(line_rest(after(i + 1)).0);
            }
            Slot::Replace(j) => out.push(theirs.doc.entries[*j].raw),
            Slot::Conflict(j) => {
                out.block(&markers.around(doc.entries[i].raw, theirs.doc.entries[*j].raw));
                conflicts.push(Conflict::Entry(doc.entries[i].heading().to_string()));
            }
            Slot::Superseded(j) => {
                out.block(&markers.around(doc.entries[i].raw, theirs.doc.entries[*j].raw));
                conflicts.push(Conflict::Entry(
                    theirs.doc.entries[*j].heading().to_string(),
                ));
            }
        }
    }
    out.push(line_rest(doc.tail).1);
    let mut text = out.text;
    for &j in &plan.appended {
        knowledge::append_raw(&mut text, theirs.doc.entries[j].raw);
    }
    Ok(Merged {
        bytes: text.into_bytes(),
        conflicts,
        warnings,
    })
}

/// OURS whole and THEIRS whole between markers, for `why`: visible, and nothing lost.
pub fn fallback(ours: &[u8], theirs: &[u8], why: Fallback, marker_size: usize) -> Merged {
    let m = Markers::new(marker_size);
    let mut bytes = Vec::with_capacity(ours.len() + theirs.len() + 3 * (marker_size + 8));
    for (marker, side) in [(&m.start, ours), (&m.middle, theirs)] {
        bytes.extend_from_slice(marker.as_bytes());
        bytes.extend_from_slice(side);
        if !side.is_empty() && !side.ends_with(b"\n") {
            bytes.push(b'\n');
        }
    }
    bytes.extend_from_slice(m.end.as_bytes());
    bytes.push(b'\n');
    Merged {
        bytes,
        warnings: Vec::new(),
        conflicts: vec![Conflict::Whole(why)],
    }
}

/// Parses one version of the file (`side` names it when its frontmatter does not parse).
fn read_version(text: &str, side: Side) -> Result<Version<'_>, Fallback> {
    let doc = knowledge::document(text);
    let fields = doc
        .yaml
        .map(crate::frontmatter::parse)
        .transpose()
        .map_err(|e| Fallback::Frontmatter(side, e.0))?;
    let keys = doc
        .entries
        .iter()
        .map(|e| knowledge::normalized(e.raw))
        .collect();
    Ok(Version { doc, fields, keys })
}

/// How many copies of one entry text the result holds, given how many the base, OURS and
/// THEIRS hold: OURS', minus the base copies THEIRS deleted, plus THEIRS' new ones — an
/// addition (or deletion) both sides made is made once. Symmetric in OURS and THEIRS.
pub fn target(base: usize, ours: usize, theirs: usize) -> usize {
    if ours > base && theirs > base {
        ours.max(theirs)
    } else if ours < base && theirs < base {
        ours.min(theirs)
    } else {
        (ours + theirs).saturating_sub(base)
    }
}

/// The heading of a normalized entry text: its first line.
fn heading_of(key: &str) -> &str {
    key.split('\n').next().unwrap_or("")
}

/// What becomes of each of OURS' entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Keep,
    Drop,
    /// THEIRS' edit of this entry, at OURS' position.
    Replace(usize),
    /// Both sides' edits, between markers; THEIRS' entry index.
    Conflict(usize),
    /// OURS' successor of the entry THEIRS edited or still holds (THEIRS' entry index), both
    /// between markers: the conflict is named by THEIRS' heading.
    Superseded(usize),
}

/// An edit on one side: the base entry and the side's entry that replaced it.
#[derive(Debug, Clone, Copy)]
struct Edit {
    base: usize,
    side: usize,
}

/// The merge of the entries: a fate for each of OURS' entries and THEIRS' entries to append.
struct Plan {
    slots: Vec<Slot>,
    appended: Vec<usize>,
}

// Indexing: as in [`merge`], positions in the versions' parallel vectors, one per entry.
#[allow(clippy::indexing_slicing)]
impl Plan {
    fn new(
        base: Option<&Version<'_>>,
        ours: &Version<'_>,
        theirs: &Version<'_>,
        warnings: &mut Vec<String>,
    ) -> Self {
        let b = base.map(Version::counts).unwrap_or_default();
        let o = ours.counts();
        let t = theirs.counts();
        let count = |m: &HashMap<&str, usize>, k: &str| m.get(k).copied().unwrap_or(0);
        let target_of = |k: &str| target(count(&b, k), count(&o, k), count(&t, k));

        // OURS' copies beyond the target go, the first ones first (the base's copies come
        // before a side's additions).
        let mut surplus: HashMap<&str, usize> = o
            .keys()
            .map(|k| (*k, count(&o, k).saturating_sub(target_of(k))))
            .collect();
        let mut slots: Vec<Slot> = ours
            .keys
            .iter()
            .map(|k| match surplus.get_mut(k.as_str()) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    Slot::Drop
                }
                _ => Slot::Keep,
            })
            .collect();
        // Copies the target wants beyond OURS' come from THEIRS.
        let mut needed: HashMap<&str, usize> = t
            .keys()
            .map(|k| (*k, target_of(k).saturating_sub(count(&o, k))))
            .collect();
        let mut used: HashSet<usize> = HashSet::new();

        let (ours_edits, theirs_edits) = match base {
            Some(base) => (edits(base, &b, ours, &o), edits(base, &b, theirs, &t)),
            None => (HashMap::new(), HashMap::new()),
        };
        let show = |v: &Version<'_>, i: usize| v.doc.entries[i].heading().to_string();
        for (h, te) in sorted(&theirs_edits) {
            let theirs_key = theirs.keys[te.side].as_str();
            let base_key = base.map_or("", |bv| bv.keys[te.base].as_str());
            match ours_edits.get(h) {
                // Both edited it: the same text is simply kept (OURS has it); different texts
                // are a conflict around OURS' edit.
                Some(oe) if ours.keys[oe.side] != theirs_key => {
                    if slots[oe.side] == Slot::Keep && !used.contains(&te.side) {
                        slots[oe.side] = Slot::Conflict(te.side);
                        used.insert(te.side);
                        if let Some(n) = needed.get_mut(theirs_key) {
                            *n = n.saturating_sub(1);
                        }
                    }
                }
                Some(_) => {}
                None => {
                    if count(&o, base_key) == 0 {
                        // Superseded on ours: the successor and the edit between markers.
                        let old = base.map(|bv| &bv.doc.entries[te.base]);
                        let successor = old
                            .and_then(|old| successor(ours, &b, old.date, old.title))
                            .filter(|&i| slots[i] == Slot::Keep && !used.contains(&te.side));
                        if let Some(i) = successor {
                            slots[i] = Slot::Superseded(te.side);
                            used.insert(te.side);
                            if let Some(n) = needed.get_mut(theirs_key) {
                                *n = n.saturating_sub(1);
                            }
                            warnings.push(superseded_warning(
                                &show(theirs, te.side),
                                &show(ours, i),
                                Side::Ours,
                                true,
                            ));
                            continue;
                        }
                        warnings.push(format!(
                            "'{}' was edited on theirs and deleted on ours: the edit is kept",
                            show(theirs, te.side)
                        ));
                        continue;
                    }
                    // THEIRS' edit takes the place of the base entry in OURS.
                    let at = (0..slots.len())
                        .find(|&i| ours.keys[i] == base_key && slots[i] == Slot::Drop);
                    if let (Some(i), Some(n)) = (at, needed.get_mut(theirs_key))
                        && *n > 0
                    {
                        *n -= 1;
                        slots[i] = Slot::Replace(te.side);
                        used.insert(te.side);
                    }
                }
            }
        }
        for (h, oe) in sorted(&ours_edits) {
            let base_key = base.map_or("", |bv| bv.keys[oe.base].as_str());
            if !theirs_edits.contains_key(h) && count(&t, base_key) == 0 {
                // Superseded on theirs: the edit and the successor between markers.
                let old = base.map(|bv| &bv.doc.entries[oe.base]);
                let successor = old
                    .and_then(|old| successor(theirs, &b, old.date, old.title))
                    .filter(|&j| slots[oe.side] == Slot::Keep && !used.contains(&j));
                if let Some(j) = successor {
                    slots[oe.side] = Slot::Conflict(j);
                    used.insert(j);
                    if let Some(n) = needed.get_mut(theirs.keys[j].as_str()) {
                        *n = n.saturating_sub(1);
                    }
                    warnings.push(superseded_warning(
                        &show(ours, oe.side),
                        &show(theirs, j),
                        Side::Theirs,
                        true,
                    ));
                    continue;
                }
                warnings.push(format!(
                    "'{}' was edited on ours and deleted on theirs: the edit is kept",
                    show(ours, oe.side)
                ));
            }
        }

        if base.is_none() {
            unbased_supersedes(
                ours,
                theirs,
                (&o, &t),
                &mut slots,
                &mut used,
                &mut needed,
                warnings,
            );
        }

        // THEIRS' new copies, its last ones (its additions come after the base's copies),
        // appended in THEIRS' order.
        let mut appended = Vec::new();
        for j in (0..theirs.keys.len()).rev() {
            if used.contains(&j) {
                continue;
            }
            if let Some(n) = needed.get_mut(theirs.keys[j].as_str())
                && *n > 0
            {
                *n -= 1;
                appended.push(j);
            }
        }
        appended.reverse();
        Plan { slots, appended }
    }
}

/// The entry `side` added (its text is not in the base, counted in `b`) whose `**Supersedes:**`
/// line names the entry dated `date` and titled `title` (SPEC §17): the first, when several do.
fn successor(
    side: &Version<'_>,
    b: &HashMap<&str, usize>,
    date: Option<&str>,
    title: &str,
) -> Option<usize> {
    side.doc.entries.iter().zip(&side.keys).position(|(e, k)| {
        !b.contains_key(k.as_str())
            && knowledge::supersedes(e.raw)
                .is_some_and(|named| knowledge::supersede::names(named, date, title))
    })
}

/// With no base (both sides created the file; `megg resolve` on committed markers), a successor
/// on one side against the one entry it names that the other side still holds — and the side
/// of the successor does not — is a conflict, never both kept: nothing says whether the other
/// side edited it, and keeping both would leave it live and superseded (SPEC §17). `o` and `t`
/// count the sides' entry texts.
// Indexing: positions in the versions' parallel vectors, as in [`Plan::new`].
#[allow(clippy::indexing_slicing)]
fn unbased_supersedes<'k>(
    ours: &'k Version<'_>,
    theirs: &'k Version<'_>,
    (o, t): (&HashMap<&'k str, usize>, &HashMap<&'k str, usize>),
    slots: &mut [Slot],
    used: &mut HashSet<usize>,
    needed: &mut HashMap<&'k str, usize>,
    warnings: &mut Vec<String>,
) {
    // The entries of `v` that `named` names.
    let named_in = |v: &'k Version<'_>, named: &str| -> Vec<usize> {
        (0..v.doc.entries.len())
            .filter(|&i| {
                let e = &v.doc.entries[i];
                knowledge::supersede::names(named, e.date, e.title)
            })
            .collect()
    };
    let show = |v: &Version<'_>, i: usize| v.doc.entries[i].heading().to_string();
    for (i, (e, key)) in ours.doc.entries.iter().zip(&ours.keys).enumerate() {
        let Some(named) = knowledge::supersedes(e.raw) else {
            continue;
        };
        if slots[i] != Slot::Keep || t.contains_key(key.as_str()) {
            continue;
        }
        if !named_in(ours, named).is_empty() {
            continue;
        }
        if let [j] = named_in(theirs, named).as_slice()
            && !used.contains(j)
            && !o.contains_key(theirs.keys[*j].as_str())
        {
            slots[i] = Slot::Superseded(*j);
            used.insert(*j);
            if let Some(n) = needed.get_mut(theirs.keys[*j].as_str()) {
                *n = n.saturating_sub(1);
            }
            warnings.push(superseded_warning(
                &show(theirs, *j),
                &show(ours, i),
                Side::Ours,
                false,
            ));
        }
    }
    for (j, (e, key)) in theirs.doc.entries.iter().zip(&theirs.keys).enumerate() {
        let Some(named) = knowledge::supersedes(e.raw) else {
            continue;
        };
        if used.contains(&j) || o.contains_key(key.as_str()) {
            continue;
        }
        if !named_in(theirs, named).is_empty() {
            continue;
        }
        if let [i] = named_in(ours, named).as_slice()
            && slots[*i] == Slot::Keep
            && !t.contains_key(ours.keys[*i].as_str())
        {
            slots[*i] = Slot::Conflict(j);
            used.insert(j);
            if let Some(n) = needed.get_mut(key.as_str()) {
                *n = n.saturating_sub(1);
            }
            warnings.push(superseded_warning(
                &show(ours, *i),
                &show(theirs, j),
                Side::Theirs,
                false,
            ));
        }
    }
}

/// What the person merging is told of an entry `by` superseded (with `successor`) while the
/// other side `edited` it (or, with no base, still holds it): why they are between markers, and
/// the two ways out.
fn superseded_warning(entry: &str, successor: &str, by: Side, edited: bool) -> String {
    let other = match by {
        Side::Theirs => Side::Ours,
        _ => Side::Theirs,
    };
    let done = if edited { "edited" } else { "still held" };
    format!(
        "'{entry}' was superseded on {by} (by '{successor}') and {done} on {other}: \
         the successor and the entry are between conflict markers, never both kept — keep the \
         successor (folding in what the entry says), or keep the entry and remove its \
         superseded copy from .megg/archive/"
    )
}

/// `edits` in a fixed order (by heading), so warnings come out the same every run.
fn sorted<'m, 'k>(edits: &'m HashMap<&'k str, Edit>) -> Vec<(&'k str, &'m Edit)> {
    let mut v: Vec<(&str, &Edit)> = edits.iter().map(|(h, e)| (*h, e)).collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

/// The entries `side` edited, by heading (SPEC §11): the base entry is gone on that side, the
/// side added exactly one entry with the same heading, and the heading is unique in the base
/// and among the side's removed and added entries. Anything else is a delete plus an add.
fn edits<'k>(
    base: &'k Version<'_>,
    b: &HashMap<&'k str, usize>,
    side: &'k Version<'_>,
    s: &HashMap<&'k str, usize>,
) -> HashMap<&'k str, Edit> {
    let count = |m: &HashMap<&str, usize>, k: &str| m.get(k).copied().unwrap_or(0);
    let mut in_base: HashMap<&str, usize> = HashMap::new();
    for k in &base.keys {
        *in_base.entry(heading_of(k)).or_default() += 1;
    }
    let mut removed: HashMap<&str, usize> = HashMap::new();
    for (k, n) in b {
        let gone = n.saturating_sub(count(s, k));
        if gone > 0 {
            *removed.entry(heading_of(k)).or_default() += gone;
        }
    }
    let mut added: HashMap<&str, usize> = HashMap::new();
    for (k, n) in s {
        let new = n.saturating_sub(count(b, k));
        if new > 0 {
            *added.entry(heading_of(k)).or_default() += new;
        }
    }
    let mut out = HashMap::new();
    for (h, n) in removed {
        if n == 1 && in_base.get(h) == Some(&1) && added.get(h) == Some(&1) {
            let base_i = base.keys.iter().position(|k| heading_of(k) == h);
            let side_i = side
                .keys
                .iter()
                .position(|k| heading_of(k) == h && count(b, k) == 0);
            if let (Some(base), Some(side)) = (base_i, side_i) {
                out.insert(h, Edit { base, side });
            }
        }
    }
    out
}

/// Conflict markers of one size, labelled `ours` and `theirs`.
struct Markers {
    start: String,
    middle: String,
    end: String,
}

impl Markers {
    fn new(size: usize) -> Self {
        Self {
            start: format!("{} ours\n", "<".repeat(size)),
            middle: format!("{}\n", "=".repeat(size)),
            end: format!("{} theirs", ">".repeat(size)),
        }
    }

    /// `ours` and `theirs` (each without a final line end) between markers; the block ends
    /// without a line end.
    fn around(&self, ours: &str, theirs: &str) -> String {
        let mut s = self.start.clone();
        for (text, next) in [(ours, &self.middle), (theirs, &self.end)] {
            if !text.is_empty() {
                s.push_str(text);
                s.push('\n');
            }
            s.push_str(next);
        }
        s
    }
}

/// The merged text as it is built: a marker block is always followed by a line end.
#[derive(Default)]
struct Out {
    text: String,
    after_block: bool,
}

impl Out {
    fn push(&mut self, s: &str) {
        if self.after_block && !s.is_empty() {
            if !s.starts_with(['\n', '\r']) {
                self.text.push('\n');
            }
            self.after_block = false;
        }
        self.text.push_str(s);
    }

    fn block(&mut self, s: &str) {
        self.push(s);
        self.after_block = true;
    }
}

/// `s` cut after its leading spaces and tabs.
fn line_rest(s: &str) -> (&str, &str) {
    s.split_at(s.len() - s.trim_start_matches([' ', '\t']).len())
}

/// Whether `gap` holds a `---` separator line.
fn has_separator(gap: &str) -> bool {
    gap.lines().any(|l| l.trim_end_matches('\r') == "---")
}

/// `s` cut after its leading blank lines.
fn split_leading_blank(s: &str) -> (&str, &str) {
    let mut at = 0;
    for line in s.split_inclusive('\n') {
        if !line.trim().is_empty() || !line.ends_with('\n') {
            break;
        }
        at += line.len();
    }
    s.split_at(at)
}

#[cfg(test)]
mod tests;
