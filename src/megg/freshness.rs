//! Knowledge checked against the code it cites (SPEC §17). An entry's citations are the paths
//! it names in backticks that are, or were, in the repository — a bare file name (`pool.ts`)
//! the one path of that name — found in its text, never written into a file. Each is checked
//! against the commits after the entry's day: `fresh`, `changed` (N commits touched it, or
//! touched its new place after a move), `moved` (git's rename detection names the new path) or
//! `gone`; an entry without citations is `uncited`, never `fresh`. No model: git knows exactly
//! what changed.
//!
//! The answers are kept per repository in megg's cache directory, valid for one HEAD ([`cache`]):
//! the session-start hook asks git nothing new until a commit is made, nor does a second
//! `maintain --check`.

mod cache;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::git::{Ask, NameAsk, Named, PathHistory, Repo, Touch};
use crate::megg::Deps;
use crate::megg::recall::{Doc, Kind};
use cache::Kept;

/// An entry is stale when one of its paths is gone, or changed in this many commits or more.
pub const STALE_COMMITS: usize = 5;
/// Most citations kept per entry (the first ones written that git has).
pub const MAX_CITATIONS: usize = 8;
/// Most backticked paths of one entry asked about: those with a directory first.
const MAX_CANDIDATES: usize = 16;
/// Longest backticked text taken for a path.
const MAX_PATH_CHARS: usize = 256;
/// Most commits one check walks, newest first: an entry whose commits are more is checked
/// against the newest of them (its counts are lower bounds, and it says so: `capped`).
pub const WALK_CAP: usize = 10_000;
/// Most (path, since) — and most bare names — asked in one walk: the entries shown first, then
/// the domain's others.
const MAX_WALKED_ASKS: usize = 2_048;
/// `maintain --check`'s walk: a command asked for, not every session start.
pub const CHECK_WALK_CAP: usize = crate::git::WALK_CAP;
/// A smaller walk bound for tests (only in builds with the `failpoints` feature): a long
/// history's cap shown on a short one.
#[cfg(feature = "failpoints")]
const TEST_WALK_CAP_ENV: &str = "MEGG_TEST_WALK_CAP";

/// What happened to a cited path since the entry's date; ordered from best to worst (an
/// entry's status is its worst path's). `uncited` is an entry's only: it has no path.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The entry cites no path git has: nothing was checked.
    Uncited,
    /// No commit since the entry's date touched it.
    Fresh,
    /// Renamed since: `new_path` names where it is.
    Moved,
    /// Commits since the entry's date changed it (with `new_path`: changed at its new place
    /// after a move).
    Changed,
    /// Deleted (and not renamed): not at HEAD.
    Gone,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Uncited => "uncited",
            Self::Fresh => "fresh",
            Self::Moved => "moved",
            Self::Changed => "changed",
            Self::Gone => "gone",
        }
    }
}

/// One citation, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathFreshness {
    /// The path from the top of the work tree (without a `:line`).
    pub path: String,
    pub status: Status,
    /// How many commits since the entry's date touched it — for a path moved and then
    /// changed, how many touched its new place after the move.
    pub commits: usize,
    /// Where a moved path is (also when it then changed).
    pub new_path: Option<String>,
    /// The commits counted, newest first — only when asked for ([`Check::touches`]).
    pub touches: Vec<Touch>,
}

/// An entry's citations, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Freshness {
    /// Since when: the entry's date.
    pub date: String,
    pub paths: Vec<PathFreshness>,
    /// The walk stopped at its bound before it had seen all this entry asks about: its counts
    /// are lower bounds over the last [`Freshness::bound`] commits.
    pub capped: bool,
    /// The most commits the check walked.
    pub bound: usize,
}

impl Freshness {
    /// The worst of its paths'; `uncited` without any.
    pub fn status(&self) -> Status {
        self.paths
            .iter()
            .map(|p| p.status)
            .max()
            .unwrap_or(Status::Uncited)
    }

    /// A path is gone, or changed in [`STALE_COMMITS`] commits or more: the index marks it
    /// `stale?` and ranks it after fresh entries of equal relevance.
    pub fn stale(&self) -> bool {
        self.paths.iter().any(|p| {
            p.status == Status::Gone || (p.status == Status::Changed && p.commits >= STALE_COMMITS)
        })
    }

    /// The paths that are not fresh.
    pub fn changed(&self) -> impl Iterator<Item = &PathFreshness> {
        self.paths.iter().filter(|p| p.status != Status::Fresh)
    }
}

/// What happened to one path, in words: "`a.rs` changed in 6 commits", "`a.rs` moved to
/// `b.rs`", "`a.rs` moved to `b.rs`, then changed in 2 commits", "`a.rs` gone" (and "`a.rs`
/// fresh").
pub fn describe(path: &str, status: Status, commits: usize, new_path: Option<&str>) -> String {
    let n = |commits: usize| format!("{commits} commit{}", if commits == 1 { "" } else { "s" });
    match (status, new_path) {
        (Status::Uncited, _) => format!("`{path}` uncited"),
        (Status::Fresh, _) => format!("`{path}` fresh"),
        (Status::Changed, Some(to)) => {
            format!("`{path}` moved to `{to}`, then changed in {}", n(commits))
        }
        (Status::Changed, None) => format!("`{path}` changed in {}", n(commits)),
        (Status::Moved, to) => format!("`{path}` moved to `{}`", to.unwrap_or("?")),
        (Status::Gone, _) => format!("`{path}` gone"),
    }
}

impl PathFreshness {
    pub fn describe(&self) -> String {
        describe(
            &self.path,
            self.status,
            self.commits,
            self.new_path.as_deref(),
        )
    }
}

/// One entry to check.
#[derive(Debug, Clone)]
pub struct Cited<'a> {
    /// `YYYY-MM-DD`; an undated entry is not checked.
    pub date: Option<&'a str>,
    /// Its whole text (title and body).
    pub text: &'a str,
    /// Its file (`…/.megg/knowledge.md` or `…/.megg/archive/*.md`): paths are read from the
    /// top of the work tree, then from the entry's domain.
    pub file: &'a Path,
}

/// How a check runs.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// Most commits walked.
    pub cap: usize,
    /// Name the commits that touched each path (`maintain --check`): its answers are kept in
    /// a cache file of their own.
    pub touches: bool,
}

/// The paths `text` names in backticks that look like a file or a directory, as written but
/// without a leading `./`, a `:line` (or `:line-line`, `#Lline`) or a trailing `/`; at most
/// [`MAX_CANDIDATES`], each once. Whether they are citations is git's to say (the first
/// [`MAX_CITATIONS`] that are count).
pub fn candidates(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Inline code: the text between a backtick and the next one.
        let mut parts = line.split('`');
        parts.next();
        while let (Some(code), Some(_)) = (parts.next(), parts.next()) {
            if let Some(p) = path_like(code)
                && !out.contains(&p)
            {
                out.push(p);
                if out.len() == MAX_CANDIDATES {
                    return out;
                }
            }
        }
    }
    out
}

/// `code` as a repository path, when it looks like one.
fn path_like(code: &str) -> Option<String> {
    let code = code.trim();
    if code.is_empty() || code.chars().count() > MAX_PATH_CHARS {
        return None;
    }
    let mut p = code.strip_prefix("./").unwrap_or(code);
    // `path:42`, `path:42-50`, `path:42:7`, `path#L42`: the file.
    if let Some((file, _)) = p.split_once("#L") {
        p = file;
    }
    while let Some((file, line)) = p.rsplit_once(':')
        && !line.is_empty()
        && line.chars().all(|c| c.is_ascii_digit() || c == '-')
    {
        p = file;
    }
    let dir = p.ends_with('/');
    let p = p.trim_end_matches('/');
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | '@');
    if p.is_empty()
        || p.starts_with('/')
        || p.starts_with('-')
        || !p.chars().all(allowed)
        || p.split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return None;
    }
    // A name with a directory or an extension, or one written as a directory: `Cargo.toml`,
    // `src/lib.rs`, `docs/`; not a bare word, a version (`1.2.3`) or a method call.
    let last = p.rsplit('/').next().unwrap_or(p);
    let has_ext = last.rsplit_once('.').is_some_and(|(_, ext)| {
        // `rs`, `toml`, `d.ts`'s `ts`; not `1.2.3`'s `3` nor `opts.rename_limit`'s field.
        (1..=10).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && !ext.chars().all(|c| c.is_ascii_digit())
    });
    (p.contains('/') || dir || has_ext).then(|| p.to_string())
}

/// The first second after `date`'s day (UTC): that day ends before it.
fn since(date: &str) -> Option<i64> {
    let day = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d").ok()?;
    Some(day.succ_opt()?.and_hms_opt(0, 0, 0)?.and_utc().timestamp())
}

/// The domain directory of an entry file, from the top of the work tree (`""` at the top).
fn domain_of(file: &Path, top: &Path) -> Option<String> {
    let megg = file
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".megg"))?;
    let rel = megg.parent()?.strip_prefix(top).ok()?;
    let rel = rel.to_str()?.replace('\\', "/");
    Some(rel)
}

/// The walk's bound: `cap`, or the smaller one a test sets.
fn walk_bound(cap: usize) -> usize {
    #[cfg(feature = "failpoints")]
    if let Some(n) = std::env::var(TEST_WALK_CAP_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return n.clamp(1, cap.max(1));
    }
    cap
}

/// One candidate citation of an entry.
enum Candidate {
    /// Written with a directory: read from the top of the work tree, then from the domain.
    Path(String),
    /// A bare name (`pool.ts`, `docs/`): the path it names ([`crate::git::NameAsk`]).
    Name(String),
}

/// What one entry asks git.
struct Plan {
    date: String,
    since: Option<i64>,
    domain: String,
    candidates: Vec<Candidate>,
}

impl Plan {
    fn of(e: &Cited<'_>, top: &Path) -> Self {
        let date = e.date.unwrap_or("").trim().to_string();
        let since = since(&date);
        let candidates = match since {
            Some(_) => candidates(e.text)
                .into_iter()
                .map(|c| {
                    if c.contains('/') {
                        Candidate::Path(c)
                    } else {
                        Candidate::Name(c)
                    }
                })
                .collect(),
            None => Vec::new(),
        };
        Self {
            date,
            since,
            domain: domain_of(e.file, top).unwrap_or_default(),
            candidates,
        }
    }

    fn name(&self, name: &str) -> NameAsk {
        NameAsk {
            name: name.to_string(),
            domain: self.domain.clone(),
        }
    }

    /// Its bare names.
    fn names(&self) -> impl Iterator<Item = NameAsk> + '_ {
        self.candidates.iter().filter_map(|c| match c {
            Candidate::Name(n) => Some(self.name(n)),
            Candidate::Path(_) => None,
        })
    }

    /// Per candidate, the asks that may answer it, in order of preference: a path from the top
    /// of the work tree, then from the domain; a bare name, the path it names (none when it
    /// names none, or is not resolved).
    fn asks(&self, names: &HashMap<NameAsk, Named>) -> Vec<Vec<Ask>> {
        let Some(since) = self.since else {
            return Vec::new();
        };
        let ask = |path: String| Ask { path, since };
        self.candidates
            .iter()
            .map(|c| match c {
                Candidate::Path(p) => {
                    let mut asks = vec![ask(p.clone())];
                    if !self.domain.is_empty() {
                        asks.push(ask(format!("{}/{p}", self.domain)));
                    }
                    asks
                }
                Candidate::Name(n) => names
                    .get(&self.name(n))
                    .and_then(|named| named.path.clone())
                    .map(ask)
                    .into_iter()
                    .collect(),
            })
            .collect()
    }

    /// The entry's freshness from the answers: per candidate, the first of its asks at HEAD,
    /// else the first that existed.
    fn judge(
        &self,
        asks: &[Vec<Ask>],
        answers: &HashMap<Ask, PathHistory>,
        names: &HashMap<NameAsk, Named>,
        bound: usize,
    ) -> Freshness {
        let mut out = Freshness {
            date: self.date.clone(),
            paths: Vec::new(),
            capped: false,
            bound,
        };
        for (c, asks) in self.candidates.iter().zip(asks) {
            if out.paths.len() == MAX_CITATIONS {
                break;
            }
            if let Candidate::Name(n) = c {
                out.capped |= names.get(&self.name(n)).is_some_and(|n| n.capped);
            }
            let known: Vec<(&Ask, &PathHistory)> = asks
                .iter()
                .filter_map(|a| Some((a, answers.get(a)?)))
                .collect();
            let chosen = known
                .iter()
                .find(|(_, h)| h.at_head)
                .or_else(|| known.iter().find(|(_, h)| h.is_citation()));
            match chosen {
                Some((a, h)) => {
                    out.capped |= h.capped;
                    if !out.paths.iter().any(|p| p.path == a.path) {
                        out.paths.push(judge(&a.path, h));
                    }
                }
                None => out.capped |= known.iter().any(|(_, h)| h.capped),
            }
        }
        out
    }
}

/// Each of `entries` checked against `repo`'s history, in their order.
///
/// When some answer is not in the cache, the paths and names of `also` (the other entries that
/// may be shown soon: the rest of the domain's) are asked in the same walk, so that the next
/// entry shown finds its answer kept.
pub fn check(
    repo: &Repo,
    top: &Path,
    entries: &[Cited<'_>],
    also: &[Cited<'_>],
    how: Check,
    cache_dir: Option<&Path>,
) -> Vec<Freshness> {
    let bound = walk_bound(how.cap);
    let plans: Vec<Plan> = entries.iter().map(|e| Plan::of(e, top)).collect();
    let blank = |p: &Plan| Freshness {
        date: p.date.clone(),
        paths: Vec::new(),
        capped: false,
        bound,
    };
    let head = plans
        .iter()
        .any(|p| !p.candidates.is_empty())
        .then(|| repo.head_commit())
        .flatten();
    let Some(head) = head else {
        return plans.iter().map(blank).collect();
    };
    // The others' plans, made when a walk needs them.
    let mut others: Option<Vec<Plan>> = None;
    let plan_all = |e: &[Cited<'_>]| -> Vec<Plan> { e.iter().map(|e| Plan::of(e, top)).collect() };
    // The session start's cache. `maintain --check` reads its names and fills them in, and
    // brings its answers up to HEAD; its own deeper walk's answers, which name the commits,
    // are kept apart (for its bound).
    let session = walk_bound(SHOWN.cap);
    let mut kept = Kept::load(
        repo,
        cache_dir,
        &head,
        if how.touches { session } else { bound },
        false,
    );

    // The bare names, then the paths they name with the others.
    let names: Vec<NameAsk> = distinct(plans.iter().flat_map(Plan::names));
    let missing: Vec<NameAsk> = names
        .iter()
        .filter(|n| !kept.names.contains_key(*n))
        .cloned()
        .collect();
    if !missing.is_empty() {
        let mut asked: HashSet<NameAsk> = missing.iter().cloned().collect();
        let mut all = missing;
        for n in others
            .get_or_insert_with(|| plan_all(also))
            .iter()
            .flat_map(Plan::names)
        {
            if all.len() >= MAX_WALKED_ASKS {
                break;
            }
            if !kept.names.contains_key(&n) && asked.insert(n.clone()) {
                all.push(n);
            }
        }
        all.truncate(MAX_WALKED_ASKS);
        let found = repo.paths_named(&head, &all, kept.cap);
        kept.names.extend(all.into_iter().zip(found));
        kept.changed = true;
    }

    let per_plan: Vec<Vec<Vec<Ask>>> = plans.iter().map(|p| p.asks(&kept.names)).collect();
    let asks: Vec<Ask> = distinct(per_plan.iter().flatten().flatten().cloned());
    if how.touches {
        let mut deep = Kept::load(repo, cache_dir, &head, bound, true);
        let missing: Vec<Ask> = asks
            .iter()
            .filter(|a| !deep.asks.contains_key(*a))
            .cloned()
            .collect();
        if !missing.is_empty() {
            let found = repo.path_histories_at(&head, &missing, bound, true);
            deep.asks.extend(missing.into_iter().zip(found));
            deep.changed = true;
        }
        kept.save(&asks, &names);
        deep.save(&asks, &[]);
        return plans
            .iter()
            .zip(&per_plan)
            .map(|(p, asks)| p.judge(asks, &deep.asks, &kept.names, bound))
            .collect();
    }
    let mut missing: Vec<Ask> = asks
        .iter()
        .filter(|a| !kept.asks.contains_key(*a))
        .cloned()
        .collect();
    if !missing.is_empty() {
        // A walk is needed anyway: the others' paths come along, so they need none later.
        let mut asked: HashSet<Ask> = missing.iter().cloned().collect();
        let names = &kept.names;
        for a in others
            .get_or_insert_with(|| plan_all(also))
            .iter()
            .flat_map(|p| p.asks(names))
            .flatten()
        {
            if missing.len() >= MAX_WALKED_ASKS {
                break;
            }
            if !kept.asks.contains_key(&a) && asked.insert(a.clone()) {
                missing.push(a);
            }
        }
        // Bounded whatever the entries cite (SPEC §9): the shown entries' paths first.
        missing.truncate(MAX_WALKED_ASKS);
        let found = repo.path_histories_at(&head, &missing, bound, false);
        kept.asks.extend(missing.into_iter().zip(found));
        kept.changed = true;
    }
    kept.save(&asks, &names);
    plans
        .iter()
        .zip(&per_plan)
        .map(|(p, asks)| p.judge(asks, &kept.asks, &kept.names, bound))
        .collect()
}

/// `items` without repeats, in their order.
fn distinct<T: Clone + Eq + std::hash::Hash>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = HashSet::new();
    items.filter(|i| seen.insert(i.clone())).collect()
}

/// The freshness of each of `docs` that is a knowledge or archive entry (else `None`), in
/// their order: the entries of one repository checked together, from the cache when HEAD
/// answered them before.
pub fn of_docs(deps: &Deps<'_>, docs: &[&Doc]) -> Vec<Option<Freshness>> {
    of_docs_with(deps, docs, &[], SHOWN)
}

/// How entries about to be shown are checked: the walk of a session start, cached.
pub const SHOWN: Check = Check {
    cap: WALK_CAP,
    touches: false,
};

/// The bare names `text` (an entry of the knowledge file `file`) writes that name several
/// paths of the repository, each with two of them (SPEC §17: no citation, and `learn` says so).
pub fn ambiguous_names(deps: &Deps<'_>, file: &Path, text: &str) -> Vec<(String, Vec<String>)> {
    let Some(repo) = file.parent().and_then(|p| deps.repo(p)) else {
        return Vec::new();
    };
    let top = deps.top(file.parent().unwrap_or(Path::new(".")));
    let domain = domain_of(file, &top).unwrap_or_default();
    let asks: Vec<NameAsk> = candidates(text)
        .into_iter()
        .filter(|c| !c.contains('/'))
        .map(|name| NameAsk {
            name,
            domain: domain.clone(),
        })
        .collect();
    let Some(head) = (!asks.is_empty()).then(|| repo.head_commit()).flatten() else {
        return Vec::new();
    };
    let found = repo.paths_named(&head, &asks, walk_bound(WALK_CAP));
    asks.into_iter()
        .zip(found)
        .filter(|(_, n)| n.several)
        .map(|(a, n)| (a.name, n.candidates))
        .collect()
}

/// `learn`'s warnings for the bare names of `entries` (to be written to `file`) that name
/// several paths.
pub fn ambiguous_warnings(
    deps: &Deps<'_>,
    file: &Path,
    entries: &[crate::megg::knowledge::NewEntry],
) -> Vec<String> {
    let mut out = Vec::new();
    for e in entries {
        let text = format!("{}\n{}", e.title, e.content);
        for (name, paths) in ambiguous_names(deps, file, &text) {
            let paths: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
            out.push(format!(
                "'{}': `{name}` names several files ({}, …), so it cites none of them: write the path to have the entry checked against it",
                e.title,
                paths.join(", ")
            ));
        }
    }
    out
}

/// [`of_docs`], checked as `how` says; when a walk is needed, `also`'s paths walked for too
/// ([`check`]).
pub fn of_docs_with(
    deps: &Deps<'_>,
    docs: &[&Doc],
    also: &[&Doc],
    how: Check,
) -> Vec<Option<Freshness>> {
    let mut out: Vec<Option<Freshness>> = vec![None; docs.len()];
    let cache = crate::fsx::user_cache_dir();
    // Grouped by repository, in the order first met (usually one).
    let mut groups: Vec<(Repo, PathBuf, Vec<usize>)> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if !matches!(d.kind, Kind::Knowledge | Kind::Archive) {
            continue;
        }
        let Some(repo) = d.path.parent().and_then(|p| deps.repo(p)) else {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(Freshness {
                    date: d.date.as_deref().unwrap_or("").to_string(),
                    ..Freshness::default()
                });
            }
            continue;
        };
        let dir = repo.git_dir();
        match groups.iter_mut().find(|g| g.1 == dir) {
            Some(g) => g.2.push(i),
            None => groups.push((repo, dir, vec![i])),
        }
    }
    fn cited<'d>(d: &&'d Doc) -> Cited<'d> {
        Cited {
            date: d.date.as_deref(),
            text: d.text.as_str(),
            file: &d.path,
        }
    }
    for (repo, dir, members) in groups {
        // The top of the work tree as the entries' paths spell it (a link on the way, macOS's
        // /var, stays as walked).
        let at = members
            .first()
            .and_then(|&i| docs.get(i))
            .and_then(|d| d.path.parent())
            .unwrap_or(Path::new("."));
        let top = deps.top(at);
        let shown: Vec<Cited<'_>> = members
            .iter()
            .filter_map(|&i| docs.get(i))
            .map(cited)
            .collect();
        let others: Vec<Cited<'_>> = also
            .iter()
            .filter(|d| matches!(d.kind, Kind::Knowledge | Kind::Archive))
            .filter(|d| {
                d.path
                    .parent()
                    .and_then(|p| deps.repo(p))
                    .is_some_and(|r| r.git_dir() == dir)
            })
            .map(cited)
            .collect();
        for (i, f) in
            members
                .into_iter()
                .zip(check(&repo, &top, &shown, &others, how, cache.as_deref()))
        {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(f);
            }
        }
    }
    out
}

/// One path's status from its history: at HEAD, fresh or changed; not at HEAD, never fresh —
/// moved (and changed, when its new place changed after the move) or gone.
fn judge(path: &str, h: &PathHistory) -> PathFreshness {
    let (status, commits) = match (h.at_head, &h.new_path) {
        (true, _) if h.count == 0 => (Status::Fresh, 0),
        (true, _) => (Status::Changed, h.count),
        (false, Some(_)) if h.moved_count > 0 => (Status::Changed, h.moved_count),
        (false, Some(_)) => (Status::Moved, h.count),
        (false, None) => (Status::Gone, h.count),
    };
    PathFreshness {
        path: path.to_string(),
        status,
        commits,
        new_path: if h.at_head { None } else { h.new_path.clone() },
        touches: h.touches.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_backticked_paths_without_their_lines() {
        let text = "## 2026-01-10 - Tax in `src/billing/tax.rs`\n\nSee `src/billing/tax.rs:42` and `./docs/`, `Cargo.toml`, `lib.rs#L7`, `a/b.rs:1-9`.\nNot `cargo test`, `1.2.3`, `foo()`, `x`, `/etc/passwd`, `../up.rs`, `http://x/y`.\n```\n`in/fence.rs`\n```\n「`src/日本.rs`」 é `src/é.rs` 🎉";
        assert_eq!(
            candidates(text),
            [
                "src/billing/tax.rs",
                "docs",
                "Cargo.toml",
                "lib.rs",
                "a/b.rs",
                "src/日本.rs",
                "src/é.rs"
            ]
        );
    }

    #[test]
    fn candidates_are_bounded() {
        let text: String = (0..50).map(|i| format!("`src/f{i}.rs` ")).collect();
        assert_eq!(candidates(&text).len(), MAX_CANDIDATES);
    }

    #[test]
    fn commits_count_from_the_day_after_the_entry() {
        assert_eq!(since("2026-01-10"), Some(1_768_089_600));
        assert_eq!(since("someday"), None);
    }

    fn path(status: Status, commits: usize) -> PathFreshness {
        PathFreshness {
            path: "a".into(),
            status,
            commits,
            new_path: None,
            touches: Vec::new(),
        }
    }

    #[test]
    fn an_entry_is_as_stale_as_its_worst_path() {
        let f = |paths| Freshness {
            date: String::new(),
            paths,
            ..Freshness::default()
        };
        assert_eq!(f(vec![]).status(), Status::Uncited);
        assert_eq!(f(vec![path(Status::Fresh, 0)]).status(), Status::Fresh);
        assert!(!f(vec![]).stale());
        let mixed = f(vec![path(Status::Moved, 1), path(Status::Changed, 2)]);
        assert_eq!(mixed.status(), Status::Changed);
        assert!(!mixed.stale());
        assert!(!f(vec![path(Status::Changed, STALE_COMMITS - 1)]).stale());
        assert!(f(vec![path(Status::Changed, STALE_COMMITS)]).stale());
        assert!(f(vec![path(Status::Gone, 1), path(Status::Fresh, 0)]).stale());
        assert_eq!(
            f(vec![path(Status::Gone, 1), path(Status::Changed, 9)]).status(),
            Status::Gone
        );
    }
}
