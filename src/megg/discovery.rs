//! Finding megg domains: the walk up (current domain, chain), the walk across (siblings) and
//! the walk down (children), as SPEC §2.1 and §3.1 define them.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use crate::config;
use crate::fsx::{self, Boundary, Kind};
use crate::megg::state;

/// Directories never descended into when looking for domains.
pub const HEAVY_DIRS: [&str; 11] = [
    "node_modules",
    "target",
    "dist",
    "build",
    "vendor",
    ".git",
    "venv",
    ".venv",
    "__pycache__",
    "coverage",
    ".megg",
];

/// Most bytes of an `info.md` read (SPEC §9); a longer one is cut with a marker.
pub const MAX_INFO_BYTES: u64 = 256 * 1024;
/// Most bytes of `knowledge.md` (or an archive file) read; beyond, "too large to summarise".
pub const MAX_KNOWLEDGE_BYTES: u64 = 16 * 1024 * 1024;

/// How deep below PATH children are looked for.
pub const CHILD_DEPTH: usize = 3;

/// A directory `D` holding `D/.megg/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    pub name: String,
    pub dir: PathBuf,
    pub megg: PathBuf,
    /// Where every file of this domain must stay: its `.megg` as resolved (SPEC §9).
    pub boundary: Boundary,
}

impl Domain {
    pub fn info_path(&self) -> PathBuf {
        self.megg.join("info.md")
    }
    pub fn knowledge_path(&self) -> PathBuf {
        self.megg.join("knowledge.md")
    }
    pub fn state_path(&self) -> PathBuf {
        self.megg.join("state.md")
    }

    /// How long this domain's handoffs stay active: its `info.md` frontmatter's
    /// `state_expires_after` (SPEC §2.3's 48 h when absent or unreadable; a warning and 48 h
    /// when it is not a lifetime megg accepts).
    pub fn state_lifetime(&self, warnings: &mut Vec<String>) -> state::Lifetime {
        let path = self.info_path();
        let Ok(Some(t)) = fsx::read_text(&self.boundary, &path, MAX_INFO_BYTES) else {
            return state::Lifetime::default();
        };
        let Some(value) = crate::frontmatter::split(&t.text)
            .yaml
            .and_then(|yaml| crate::frontmatter::parse(yaml).ok())
            .and_then(|f| f.get_str(state::LIFETIME_KEY))
        else {
            return state::Lifetime::default();
        };
        state::Lifetime::parse(&value).unwrap_or_else(|why| {
            warnings.push(format!("{}: {why}", path.display()));
            state::Lifetime::default()
        })
    }
}

/// A sibling or child, for navigation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbour {
    pub name: String,
    pub dir: PathBuf,
}

/// The basename, or `/` for the root.
pub fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.to_string_lossy().into_owned())
}

/// What `dir/.megg` is, under the rules of SPEC §9.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Megg {
    /// No `.megg` here.
    Absent,
    /// A domain: `.megg` is a directory, a link to one inside `dir`, or to a trusted one.
    Domain(Domain),
    /// A `.megg` megg will not use, and why (a warning for the user).
    Refused(String),
}

/// Whether `dir/.megg` makes `dir` a domain. A `.megg` that is a link may point only to a
/// directory inside `dir` or to one the user trusts; anything else is refused, never opened.
pub fn megg_at(dir: &Path, trusted: &[PathBuf]) -> Megg {
    let megg = dir.join(".megg");
    let domain = |boundary| {
        Megg::Domain(Domain {
            name: dir_name(dir),
            dir: dir.to_path_buf(),
            megg: megg.clone(),
            boundary,
        })
    };
    match fsx::lstat_kind(&megg) {
        None => Megg::Absent,
        Some(Kind::Dir) => domain(Boundary::new(&megg, ".megg")),
        Some(Kind::Link) => {
            let real = fsx::canonical(&megg).filter(|r| fsx::is_dir(r));
            let inside = real
                .as_ref()
                .is_some_and(|r| fsx::canonical(dir).is_some_and(|d| r.starts_with(&d) && *r != d));
            match real {
                Some(real) if inside || config::is_trusted(&real, trusted) => {
                    domain(Boundary::aliased(&megg, real, ".megg"))
                }
                _ => {
                    let target = fsx::link_target(&megg).unwrap_or_default();
                    Megg::Refused(format!(
                        "skipped {}: link leaves {} (→ {}); to use it, run: megg trust {}",
                        megg.display(),
                        dir.display(),
                        target.display(),
                        target.display()
                    ))
                }
            }
        }
        Some(_) => Megg::Absent,
    }
}

/// Whether `dir/.megg` makes `dir` a domain (navigation: siblings, children, maintain).
pub fn has_megg(dir: &Path, trusted: &[PathBuf]) -> bool {
    matches!(megg_at(dir, trusted), Megg::Domain(_))
}

/// `path` made absolute against `base` and cleaned of `.` and `..` lexically (not
/// canonicalized: symlinks stay as the user walked them).
pub fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `start` and its ancestors, nearest first, stopping before any ceiling.
pub fn ancestors<'a>(start: &'a Path, ceilings: &'a [PathBuf]) -> impl Iterator<Item = &'a Path> {
    let canonical: Vec<PathBuf> = ceilings.iter().filter_map(|c| fsx::canonical(c)).collect();
    start.ancestors().take_while(move |dir| {
        !ceilings.iter().any(|c| c == dir)
            && (canonical.is_empty() || fsx::canonical(dir).is_none_or(|d| !canonical.contains(&d)))
    })
}

/// What the walk up needs to know: where it stops, what the user trusts, and the project the
/// user opened (ancestors above it must be the user's own, SPEC §9 "Ownership").
#[derive(Debug, Clone, Copy)]
pub struct Walk<'a> {
    pub ceilings: &'a [PathBuf],
    pub trusted: &'a [PathBuf],
    /// The project root (git top level, else the starting directory).
    pub top: &'a Path,
}

impl Walk<'_> {
    /// The user whose domains count as their own: the current user, or when running as root
    /// (containers) the owner of the project directory.
    fn me(&self) -> fsx::Owner {
        let me = fsx::current_user();
        if fsx::is_administrator(&me) {
            fsx::owner(self.top).unwrap_or(me)
        } else {
            me
        }
    }

    /// A domain above the project owned by someone else is not the user's: skipped unless
    /// trusted, like git's safe.directory.
    fn foreign(&self, d: &Domain) -> Option<String> {
        if d.dir.starts_with(self.top) {
            return None;
        }
        let me = self.me();
        let stranger = [&d.dir, &d.megg]
            .into_iter()
            .find_map(|p| fsx::owner(p).filter(|o| *o != me && !fsx::is_administrator(o)));
        let owner = fsx::describe_owner(&stranger?);
        let real = fsx::canonical(&d.dir).unwrap_or_else(|| d.dir.clone());
        if config::is_trusted(&real, self.trusted) {
            return None;
        }
        Some(format!(
            "skipped {}: owned by another user ({owner}); to use it, run: megg trust {}",
            d.megg.display(),
            d.dir.display()
        ))
    }

    /// The domains at and above `start`, nearest first, with warnings for those refused.
    pub fn domains(&self, start: &Path, warnings: &mut Vec<String>) -> Vec<Domain> {
        let mut out = Vec::new();
        for dir in ancestors(start, self.ceilings) {
            match megg_at(dir, self.trusted) {
                Megg::Absent => {}
                Megg::Refused(why) => warnings.push(why),
                Megg::Domain(d) => match self.foreign(&d) {
                    Some(why) => warnings.push(why),
                    None => out.push(d),
                },
            }
        }
        out
    }

    /// The nearest directory at or above `start` that has a usable `.megg/`.
    pub fn current_domain(&self, start: &Path, warnings: &mut Vec<String>) -> Option<Domain> {
        self.domains(start, warnings).into_iter().next()
    }

    /// The current domain and the chain: every domain at or above `start` whose `.megg/`
    /// holds `info.md`, root first.
    pub fn chain(&self, start: &Path, warnings: &mut Vec<String>) -> (Option<Domain>, Vec<Domain>) {
        let all = self.domains(start, warnings);
        let current = all.first().cloned();
        let mut chain: Vec<Domain> = all
            .into_iter()
            // Any `info.md` entry counts: one megg refuses to read (a link out, a FIFO) stays in
            // the chain by name, and reading it says why it was skipped.
            .filter(|d| fsx::kind(&d.boundary, &d.info_path()).is_some())
            .collect();
        chain.reverse();
        (current, chain)
    }
}

/// Result of a walk across or down: the domains found and the directories that could not be
/// read (reported, never fatal).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    pub domains: Vec<Neighbour>,
    pub warnings: Vec<String>,
    /// The walk stopped at its bound ([`MAX_CHILD_DIRS`]) before it had looked everywhere:
    /// domains may lie further down.
    pub cut: bool,
}

/// Directories next to `dir` (in its parent) that hold `.megg/`, by name.
pub fn siblings(dir: &Path, trusted: &[PathBuf]) -> Found {
    let mut found = Found::default();
    let Some(parent) = dir.parent() else {
        return found;
    };
    let Some((listed, names)) = subdirs(parent, true, &mut found.warnings) else {
        return found;
    };
    for name in names {
        let child = parent.join(&name);
        if child != dir && is_domain(&listed, &name, trusted, || child.clone()) {
            found.domains.push(Neighbour {
                name: dir_name(&child),
                dir: child,
            });
        }
    }
    found
}

/// Directories below `path`, up to [`CHILD_DEPTH`] levels, that hold `.megg/`, in walk order
/// (sorted by name at each level, parents before their children). At most
/// [`MAX_CHILD_DIRS`] directories are looked at, nearest levels first: the hook of a
/// 100,000-file monorepo costs what a small one's does (SPEC §14), and the domains a large tree
/// keeps near its top are all found. [`Found::cut`] says when the bound stopped the walk.
pub fn children(path: &Path, trusted: &[PathBuf]) -> Found {
    walk_down(path, trusted, MAX_CHILD_DIRS)
}

/// [`children`] without the bound: every directory of the [`CHILD_DEPTH`] levels (what a
/// search asked to look below PATH looks at).
pub fn children_all(path: &Path, trusted: &[PathBuf]) -> Found {
    walk_down(path, trusted, usize::MAX)
}

fn walk_down(path: &Path, trusted: &[PathBuf], bound: usize) -> Found {
    let mut found = Found::default();
    // Each level's directories as their parent (an index into the level above) and name: a
    // path is joined only for a directory listed or found a domain, not for each looked at.
    let mut above = vec![path.to_path_buf()];
    let mut level: Vec<(usize, OsString)> = vec![(0, OsString::new())];
    let mut looked = 0;
    'levels: for depth in 1..=CHILD_DEPTH {
        let (mut listed_dirs, mut next) = (Vec::new(), Vec::new());
        for (parent, name) in &level {
            // `parent` indexes the level above, which this loop built.
            let Some(up) = above.get(if depth == 1 { 0 } else { *parent }) else {
                continue;
            };
            let dir = if depth == 1 {
                up.clone()
            } else {
                up.join(name)
            };
            let Some((listed, names)) = subdirs(&dir, depth == 1, &mut found.warnings) else {
                continue;
            };
            for name in names {
                if looked == bound {
                    found.cut = true;
                    break 'levels;
                }
                looked += 1;
                if is_domain(&listed, &name, trusted, || dir.join(&name)) {
                    found.domains.push(Neighbour {
                        name: name.to_string_lossy().into_owned(),
                        dir: dir.join(&name),
                    });
                }
                // The last level's directories are looked at, never listed.
                if depth < CHILD_DEPTH {
                    next.push((listed_dirs.len(), name));
                }
            }
            listed_dirs.push(dir);
        }
        (above, level) = (listed_dirs, next);
    }
    // Walk order: by name at each level, a parent before its children.
    found
        .domains
        .sort_by(|a, b| a.dir.components().cmp(b.dir.components()));
    found
}

/// Most directories [`children`] looks at below PATH.
pub const MAX_CHILD_DIRS: usize = 128;

/// The real (non-symlink), non-hidden, non-heavy subdirectories of `dir` by name, with `dir`
/// open to look below them; `None` with a warning when it cannot be read. `start`: `dir` is
/// where the walk starts (a path the user named, links followed), not a directory it went into.
fn subdirs(
    dir: &Path,
    start: bool,
    warnings: &mut Vec<String>,
) -> Option<(fsx::Below, Vec<OsString>)> {
    let open = if start {
        fsx::Below::open_start
    } else {
        fsx::Below::open
    };
    let listed = open(dir).and_then(|listed| {
        let names = listed.subdirs(|name| {
            let name = name.to_string_lossy();
            !name.starts_with('.') && !HEAVY_DIRS.contains(&name.as_ref())
        })?;
        Ok((listed, names))
    });
    match listed {
        Ok(listed) => Some(listed),
        Err(e) => {
            warnings.push(format!(
                "skipped unreadable directory {}: {}",
                dir.display(),
                e.kind()
            ));
            None
        }
    }
}

/// Whether the subdirectory `name` of the `listed` directory (at `path()`) is a domain: most
/// are not, and asking below the open directory whether `name/.megg` exists costs no path
/// walk; one that has a `.megg` is looked at by [`megg_at`]'s rules.
fn is_domain(
    listed: &fsx::Below,
    name: &OsStr,
    trusted: &[PathBuf],
    path: impl FnOnce() -> PathBuf,
) -> bool {
    let mut megg = PathBuf::from(name);
    megg.push(".megg");
    listed.kind_at(megg.as_os_str()).is_some() && has_megg(&path(), trusted)
}

/// `root` and every directory below it, up to `max_depth` levels, that holds `.megg/`, in walk
/// order. Skips what [`children`] skips. Each directory is listed once: `.megg` is seen in its
/// parent's listing, so the walk costs one `read_dir` per directory and no extra `stat`.
pub fn domains_below(root: &Path, max_depth: usize) -> Found {
    let mut found = Found::default();
    walk_all(root, 0, max_depth, &mut found);
    found
}

fn walk_all(dir: &Path, depth: usize, max_depth: usize, found: &mut Found) {
    let entries = match fsx::list_dir_of(dir, &[Kind::Dir, Kind::Link]) {
        Ok(e) => e,
        Err(e) => {
            found.warnings.push(format!(
                "skipped unreadable directory {}: {}",
                dir.display(),
                e.kind()
            ));
            return;
        }
    };
    let mut subdirs = Vec::new();
    let mut is_domain = false;
    for (name, kind) in entries {
        if name == ".megg" {
            // A link is followed only where SPEC §9 allows (maintain resolves it again).
            is_domain = kind == Kind::Dir || kind == Kind::Link;
            continue;
        }
        let shown = name.to_string_lossy();
        if kind == Kind::Dir && !shown.starts_with('.') && !HEAVY_DIRS.contains(&shown.as_ref()) {
            subdirs.push(dir.join(&name));
        }
    }
    if is_domain {
        found.domains.push(Neighbour {
            name: dir_name(dir),
            dir: dir.to_path_buf(),
        });
    }
    if depth < max_depth {
        subdirs.sort();
        for sub in subdirs {
            walk_all(&sub, depth + 1, max_depth, found);
        }
    }
}

/// Most `*.md` names listed from one `.megg/` (SPEC §9).
pub const MAX_LISTED_FILES: usize = 200;

/// The `*.md` files in a domain's `.megg/` (regular files, or links that stay inside it),
/// sorted by name: at most [`MAX_LISTED_FILES`], plus how many there were in all.
pub fn megg_files(d: &Domain) -> (Vec<PathBuf>, usize) {
    let Ok(entries) = fsx::list(&d.boundary, &d.megg) else {
        return (Vec::new(), 0);
    };
    let mut names: Vec<_> = entries
        .into_iter()
        .filter(|(name, kind)| {
            Path::new(name).extension().is_some_and(|x| x == "md")
                && matches!(kind, Kind::File | Kind::Link)
        })
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    let mut files = Vec::new();
    let mut total = 0;
    for (name, kind) in names {
        let path = d.megg.join(&name);
        // The listing already says what a plain entry is; only a link needs resolving.
        if kind == Kind::File || fsx::is_file(&d.boundary, &path) {
            total += 1;
            if files.len() < MAX_LISTED_FILES {
                files.push(path);
            }
        }
    }
    (files, total)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::fs;

    fn walk(top: &Path, ceilings: &[PathBuf]) -> (Option<String>, Vec<String>) {
        let w = Walk {
            ceilings,
            trusted: &[],
            top,
        };
        let (cur, chain) = w.chain(top, &mut Vec::new());
        (
            cur.map(|d| d.name),
            chain.into_iter().map(|d| d.name).collect(),
        )
    }

    fn tree(paths: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for p in paths {
            let full = dir.path().join(p);
            if p.ends_with(".md") {
                fs::create_dir_all(full.parent().unwrap()).unwrap();
                fs::write(&full, "# T\n").unwrap();
            } else {
                fs::create_dir_all(&full).unwrap();
            }
        }
        dir
    }

    #[test]
    fn absolute_is_lexical() {
        let base = Path::new("/a/b");
        assert_eq!(
            absolute(base, Path::new("../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(absolute(base, Path::new("/x/../y")), PathBuf::from("/y"));
        assert_eq!(absolute(base, Path::new(".")), PathBuf::from("/a/b"));
    }

    #[test]
    fn multi_level_hierarchy_chain_is_root_first() {
        let t = tree(&[
            "projects/.megg/info.md",
            "projects/client/.megg/info.md",
            "projects/client/feature",
        ]);
        let start = t.path().join("projects/client/feature");
        let (cur, names) = walk(&start, &[]);
        assert_eq!(names, ["projects", "client"]);
        assert_eq!(cur.unwrap(), "client");
    }

    #[test]
    fn current_domain_needs_no_info_but_chain_does() {
        let t = tree(&["p/.megg/info.md", "p/q/.megg/knowledge.md"]);
        let start = t.path().join("p/q");
        let (cur, names) = walk(&start, &[]);
        assert_eq!(cur.unwrap(), "q");
        assert_eq!(names, ["p"]);
    }

    #[test]
    fn ceiling_is_not_searched() {
        let t = tree(&["p/.megg/info.md", "p/q/r"]);
        let start = t.path().join("p/q/r");
        assert!(walk(&start, &[t.path().join("p")]).0.is_none());
        assert!(walk(&start, &[t.path().join("p/q/r")]).0.is_none());
        assert!(walk(&start, &[t.path().join("other")]).0.is_some());
    }

    #[test]
    fn siblings_and_children_skip_hidden_heavy_and_symlinks() {
        let t = tree(&[
            "acme/.megg/info.md",
            "acme/shop/.megg/info.md",
            "acme/billing/.megg/info.md",
            "acme/plain",
            "acme/shop/checkout/.megg/info.md",
            "acme/shop/a/b/c/.megg/info.md",
            "acme/shop/a/b/c/d/.megg/info.md",
            "acme/shop/node_modules/x/.megg/info.md",
            "acme/shop/.hidden/.megg/info.md",
        ]);
        #[cfg(unix)]
        std::os::unix::fs::symlink(t.path().join("acme"), t.path().join("acme/shop/loop")).unwrap();
        let shop = t.path().join("acme/shop");
        let sib: Vec<_> = siblings(&shop, &[])
            .domains
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(sib, ["billing"]);
        let found = children(&shop, &[]);
        assert!(!found.cut);
        let kids: Vec<_> = found.domains.into_iter().map(|d| d.name).collect();
        assert_eq!(kids, ["c", "checkout"]);
    }

    /// A monorepo with more directories than the walk looks at: every domain of the first two
    /// levels is found (nearest levels first), in walk order; the deep ones past the bound are
    /// not looked for.
    #[test]
    fn children_look_at_the_nearest_levels_first_and_stop_at_the_bound() {
        let mut paths: Vec<String> = (0..40)
            .flat_map(|m| (0..10).map(move |s| format!("r/src/m{m:02}/s{s}")))
            .collect();
        paths.extend([
            "r/apps/web/.megg/info.md".to_string(),
            "r/apps/.megg/info.md".to_string(),
            "r/src/m39/s9/.megg/info.md".to_string(),
            "r/src/m00/s0/.megg/info.md".to_string(),
            "r/zed/.megg/info.md".to_string(),
        ]);
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let t = tree(&refs);
        // Relative dirs spelled with `/` whatever the OS separates them with.
        let rel = |found: Found| -> Vec<String> {
            found
                .domains
                .into_iter()
                .map(|d| {
                    let rel = d.dir.strip_prefix(t.path()).unwrap();
                    let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy()).collect();
                    parts.join("/")
                })
                .collect()
        };
        let bounded = children(&t.path().join("r"), &[]);
        assert!(bounded.cut, "the walk stopped at the bound");
        // Level 1 (3 dirs) and level 2 (2 + 40) fit in the bound; of level 3 only the first
        // ones do: m00/s0 is found, m39/s9 lies past the bound.
        assert_eq!(
            rel(bounded),
            ["r/apps", "r/apps/web", "r/src/m00/s0", "r/zed"]
        );
        let all = children_all(&t.path().join("r"), &[]);
        assert!(!all.cut);
        assert_eq!(
            rel(all),
            [
                "r/apps",
                "r/apps/web",
                "r/src/m00/s0",
                "r/src/m39/s9",
                "r/zed"
            ]
        );
    }

    #[test]
    fn domains_below_walks_to_the_depth_limit() {
        let t = tree(&[
            "r/.megg/info.md",
            "r/a/.megg/info.md",
            "r/a/b/c/.megg/x.md",
            "r/node_modules/p/.megg/info.md",
        ]);
        let names = |depth| {
            domains_below(&t.path().join("r"), depth)
                .domains
                .into_iter()
                .map(|d| d.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(10), ["r", "a", "c"]);
        assert_eq!(names(1), ["r", "a"]);
    }

    #[test]
    fn megg_files_lists_markdown_only() {
        let t = tree(&[".megg/info.md", ".megg/custom.md", ".megg/notes.txt"]);
        let Megg::Domain(d) = megg_at(t.path(), &[]) else {
            panic!("a domain")
        };
        let names: Vec<_> = megg_files(&d).0.into_iter().map(|p| dir_name(&p)).collect();
        assert_eq!(names, ["custom.md", "info.md"]);
    }
}
