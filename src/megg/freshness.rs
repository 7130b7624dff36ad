//! Knowledge checked against the code it cites (SPEC §17). An entry's citations are the paths
//! it names in backticks that are, or were, in the repository — found in its text, never
//! written into a file. Each is checked against the commits after the entry's date: `fresh`,
//! `changed` (N commits touched it), `moved` (git's rename detection names the new path) or
//! `gone`. No model: git knows exactly what changed.
//!
//! The answers are kept per repository in megg's cache directory, valid for one HEAD ([`cache`]):
//! the session-start hook asks git nothing new until a commit is made.

mod cache;

use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::git::{Ask, PathHistory, Repo, Touch};
use crate::megg::Deps;
use crate::megg::recall::{Doc, Kind};

/// An entry is stale when one of its paths is gone, or changed in this many commits or more.
pub const STALE_COMMITS: usize = 5;
/// Most citations kept per entry (the first ones written that git has).
pub const MAX_CITATIONS: usize = 8;
/// Most backticked paths of one entry asked about: those with a directory first.
const MAX_CANDIDATES: usize = 16;
/// Longest backticked text taken for a path.
const MAX_PATH_CHARS: usize = 256;
/// Most commits one check walks, newest first: an entry older than this many commits is
/// checked against the newest of them (its counts are lower bounds).
pub const WALK_CAP: usize = 10_000;
/// Most new commits walked to bring kept answers up to a new HEAD; past it, they are
/// computed again.
const INCREMENTAL_CAP: usize = 1_000;
/// Most (path, since) asked in one walk: the entries shown first, then the domain's others.
const MAX_WALKED_ASKS: usize = 2_048;
/// `maintain --check`'s walk: a command asked for, not every session start.
pub const CHECK_WALK_CAP: usize = crate::git::WALK_CAP;

/// What happened to a cited path since the entry's date; ordered from best to worst (an
/// entry's status is its worst path's).
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
    /// No commit since the entry's date touched it.
    Fresh,
    /// Renamed since: `new_path` names where it is.
    Moved,
    /// Commits since the entry's date changed it.
    Changed,
    /// Deleted since (and not renamed).
    Gone,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
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
    /// How many commits since the entry's date touched it.
    pub commits: usize,
    pub new_path: Option<String>,
    /// The commits that touched it, newest first — only when asked for ([`Check::touches`]).
    pub touches: Vec<Touch>,
}

/// An entry's citations, checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Freshness {
    /// Since when: the entry's date.
    pub date: String,
    pub paths: Vec<PathFreshness>,
}

impl Freshness {
    /// The worst of its paths'; `fresh` without any.
    pub fn status(&self) -> Status {
        self.paths
            .iter()
            .map(|p| p.status)
            .max()
            .unwrap_or(Status::Fresh)
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
/// `b.rs`", "`a.rs` gone" (and "`a.rs` fresh").
pub fn describe(path: &str, status: Status, commits: usize, new_path: Option<&str>) -> String {
    match status {
        Status::Fresh => format!("`{path}` fresh"),
        Status::Changed => format!(
            "`{path}` changed in {commits} commit{}",
            if commits == 1 { "" } else { "s" }
        ),
        Status::Moved => format!("`{path}` moved to `{}`", new_path.unwrap_or("?")),
        Status::Gone => format!("`{path}` gone"),
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
    /// Name the commits that touched each path (`maintain --check`); not cached.
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

/// The first second after `date`'s day (UTC): commits from it on count.
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

/// Each of `entries` checked against `repo`'s history, in their order.
///
/// When some answer is not in the cache, the paths of `also` (the other entries that may be
/// shown soon: the rest of the domain's) are walked for in the same walk, so that the next
/// entry shown finds its answer kept.
pub fn check(
    repo: &Repo,
    top: &Path,
    entries: &[Cited<'_>],
    also: &[Cited<'_>],
    how: Check,
    cache_dir: Option<&Path>,
) -> Vec<Freshness> {
    let top = top.to_path_buf();
    // Each candidate asked from the top, and from its entry's domain when that is not the top.
    struct Plan {
        date: String,
        /// (candidate from the top, from the domain), as indices into `asks`.
        candidates: Vec<(usize, Option<usize>)>,
    }
    let mut asks: Vec<Ask> = Vec::new();
    let mut seen: std::collections::HashMap<Ask, usize> = std::collections::HashMap::new();
    let mut ask = |path: String, since: i64| {
        let a = Ask { path, since };
        *seen.entry(a).or_insert_with_key(|a| {
            asks.push(a.clone());
            asks.len() - 1
        })
    };
    let plans: Vec<Plan> = entries
        .iter()
        .map(|e| {
            let date = e.date.unwrap_or("").trim().to_string();
            let candidates = asks_of(e, &top, &mut ask);
            Plan { date, candidates }
        })
        .collect();
    let more = || {
        let mut more = Vec::new();
        for e in also {
            asks_of(e, &top, &mut |path, since| {
                more.push(Ask { path, since });
                0
            });
        }
        more
    };
    let answers = answer(repo, &asks, &more, how, cache_dir);
    plans
        .into_iter()
        .map(|plan| Freshness {
            paths: plan
                .candidates
                .iter()
                .filter_map(|&(root, local)| {
                    [Some(root), local]
                        .into_iter()
                        .flatten()
                        .find_map(|i| {
                            Some((asks.get(i)?, answers.get(i)?)).filter(|(_, h)| h.is_citation())
                        })
                        .map(|(a, h)| judge(&a.path, h))
                })
                .take(MAX_CITATIONS)
                .collect(),
            date: plan.date,
        })
        .collect()
}

/// The asks of `e`'s candidates, made through `ask` (which numbers them): each from the top of
/// the work tree, and from the entry's domain when that is not the top. None for an undated
/// entry.
fn asks_of(
    e: &Cited<'_>,
    top: &Path,
    ask: &mut impl FnMut(String, i64) -> usize,
) -> Vec<(usize, Option<usize>)> {
    let Some(since) = since(e.date.unwrap_or("")) else {
        return Vec::new();
    };
    let domain = domain_of(e.file, top).unwrap_or_default();
    candidates(e.text)
        .into_iter()
        .map(|c| {
            let local = (!domain.is_empty()).then(|| ask(format!("{domain}/{c}"), since));
            (ask(c, since), local)
        })
        .collect()
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
                *slot = Some(Freshness::default());
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

/// One path's status from its history.
fn judge(path: &str, h: &PathHistory) -> PathFreshness {
    let status = match (h.at_head, &h.new_path, h.count) {
        (true, _, 0) => Status::Fresh,
        (true, _, _) => Status::Changed,
        (false, Some(_), _) => Status::Moved,
        (false, None, _) => Status::Gone,
    };
    PathFreshness {
        path: path.to_string(),
        status,
        commits: h.count,
        new_path: h.new_path.clone(),
        touches: h.touches.clone(),
    }
}

/// The history of each of `asks`: from the cache when this HEAD answered it before.
fn answer(
    repo: &Repo,
    asks: &[Ask],
    more: &dyn Fn() -> Vec<Ask>,
    how: Check,
    cache_dir: Option<&Path>,
) -> Vec<PathHistory> {
    if asks.is_empty() {
        return Vec::new();
    }
    if how.touches {
        return repo.path_histories(asks, how.cap, true);
    }
    let Some(head) = repo.head_commit() else {
        return Vec::new();
    };
    // A shallow clone's history grows under the same HEAD (`git fetch --deepen`): not kept.
    let file: Option<PathBuf> = cache_dir
        .filter(|_| !repo.is_shallow())
        .map(|d| cache::file(d, repo));
    let (mut kept, old_head) = file
        .as_deref()
        .map(|f| cache::read(f, how.cap))
        .unwrap_or_default();
    let mut changed = false;
    // HEAD moved since the answers were kept: brought up to it by the new commits alone.
    if old_head.as_deref().is_some_and(|old| old != head) {
        let (known_asks, known): (Vec<Ask>, Vec<PathHistory>) = kept.drain().unzip();
        let old = old_head.as_deref().unwrap_or_default();
        if let Some(now) =
            repo.path_histories_after(&known_asks, &known, old, &head, INCREMENTAL_CAP)
        {
            kept = known_asks.into_iter().zip(now).collect();
        }
        changed = true;
    }
    let mut missing: Vec<Ask> = asks
        .iter()
        .filter(|a| !kept.contains_key(*a))
        .cloned()
        .collect();
    if !missing.is_empty() {
        // A walk is needed anyway: the others' paths come along, so they need none later.
        let mut asked: std::collections::HashSet<Ask> = missing.iter().cloned().collect();
        for a in more() {
            if missing.len() >= MAX_WALKED_ASKS {
                break;
            }
            if !kept.contains_key(&a) && asked.insert(a.clone()) {
                missing.push(a);
            }
        }
        // Bounded whatever the entries cite (SPEC §9): the shown entries' paths first.
        missing.truncate(MAX_WALKED_ASKS);
        let found = repo.path_histories_at(&head, &missing, how.cap, false);
        kept.extend(missing.into_iter().zip(found));
        changed = true;
    }
    if changed && let Some(f) = &file {
        // The answers this run needed are kept first, whatever else is dropped.
        cache::write(f, &head, how.cap, asks, &kept);
    }
    asks.iter()
        .map(|a| {
            kept.get(a).cloned().unwrap_or(PathHistory {
                at_head: false,
                touches: Vec::new(),
                count: 0,
                new_path: None,
                capped: false,
            })
        })
        .collect()
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
        };
        assert_eq!(f(vec![]).status(), Status::Fresh);
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
