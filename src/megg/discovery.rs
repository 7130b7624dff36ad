//! Finding megg domains: the walk up (current domain, chain), the walk across (siblings) and
//! the walk down (children), as SPEC §2.1 and §3.1 define them.

use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

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

/// How deep below PATH children are looked for.
pub const CHILD_DEPTH: usize = 3;

/// A directory `D` holding `D/.megg/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Domain {
    pub name: String,
    pub dir: PathBuf,
    pub megg: PathBuf,
}

impl Domain {
    fn at(dir: &Path) -> Self {
        Self {
            name: dir_name(dir),
            dir: dir.to_path_buf(),
            megg: dir.join(".megg"),
        }
    }

    pub fn info_path(&self) -> PathBuf {
        self.megg.join("info.md")
    }
    pub fn knowledge_path(&self) -> PathBuf {
        self.megg.join("knowledge.md")
    }
    pub fn state_path(&self) -> PathBuf {
        self.megg.join("state.md")
    }
}

/// A sibling or child, for navigation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// Whether `dir/.megg` is a directory (or a symlink to one).
pub fn has_megg(dir: &Path) -> bool {
    dir.join(".megg").is_dir()
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

/// `MEGG_CEILING_DIRS`: colon-separated absolute directories the upward walks never enter.
pub fn ceilings_from_env() -> Vec<PathBuf> {
    std::env::var_os("MEGG_CEILING_DIRS")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| p.is_absolute())
                .collect()
        })
        .unwrap_or_default()
}

/// `start` and its ancestors, nearest first, stopping before any ceiling.
pub fn ancestors<'a>(start: &'a Path, ceilings: &'a [PathBuf]) -> impl Iterator<Item = &'a Path> {
    let canonical: Vec<PathBuf> = ceilings
        .iter()
        .filter_map(|c| fs::canonicalize(c).ok())
        .collect();
    start.ancestors().take_while(move |dir| {
        !ceilings.iter().any(|c| c == dir)
            && (canonical.is_empty()
                || fs::canonicalize(dir).map_or(true, |d| !canonical.contains(&d)))
    })
}

/// The nearest directory at or above `start` that has `.megg/`.
pub fn current_domain(start: &Path, ceilings: &[PathBuf]) -> Option<Domain> {
    ancestors(start, ceilings)
        .find(|d| has_megg(d))
        .map(Domain::at)
}

/// Every directory at or above `start` whose `.megg/` holds `info.md`, root first.
pub fn chain(start: &Path, ceilings: &[PathBuf]) -> Vec<Domain> {
    let mut chain: Vec<Domain> = ancestors(start, ceilings)
        .filter(|d| d.join(".megg/info.md").is_file())
        .map(Domain::at)
        .collect();
    chain.reverse();
    chain
}

/// Result of a walk across or down: the domains found and the directories that could not be
/// read (reported, never fatal).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    pub domains: Vec<Neighbour>,
    pub warnings: Vec<String>,
}

/// Directories next to `dir` (in its parent) that hold `.megg/`, by name.
pub fn siblings(dir: &Path) -> Found {
    let mut found = Found::default();
    let Some(parent) = dir.parent() else {
        return found;
    };
    for child in subdirs(parent, &mut found.warnings) {
        if child != dir && has_megg(&child) {
            found.domains.push(Neighbour {
                name: dir_name(&child),
                dir: child,
            });
        }
    }
    found
}

/// Directories below `path`, up to [`CHILD_DEPTH`] levels, that hold `.megg/`, in walk order
/// (sorted by name at each level, parents before their children).
pub fn children(path: &Path) -> Found {
    let mut found = Found::default();
    walk_down(path, 1, &mut found);
    found
}

fn walk_down(dir: &Path, depth: usize, found: &mut Found) {
    if depth > CHILD_DEPTH {
        return;
    }
    for child in subdirs(dir, &mut found.warnings) {
        if has_megg(&child) {
            found.domains.push(Neighbour {
                name: dir_name(&child),
                dir: child.clone(),
            });
        }
        walk_down(&child, depth + 1, found);
    }
}

/// Real (non-symlink), non-hidden, non-heavy subdirectories of `dir`, sorted by name.
/// Unreadable directories add a warning.
fn subdirs(dir: &Path, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            warnings.push(format!(
                "skipped unreadable directory {}: {}",
                dir.display(),
                e.kind()
            ));
            return Vec::new();
        }
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && !HEAVY_DIRS.contains(&name.as_ref())
        })
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
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
    let entries = match fs::read_dir(dir) {
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
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if name == ".megg" {
            is_domain = kind.is_dir() || (kind.is_symlink() && entry.path().is_dir());
            continue;
        }
        let name = name.to_string_lossy();
        if kind.is_dir() && !name.starts_with('.') && !HEAVY_DIRS.contains(&name.as_ref()) {
            subdirs.push(entry.path());
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

/// Every `*.md` file in a `.megg/` directory, sorted by name.
pub fn megg_files(megg: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(megg) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let names: Vec<_> = chain(&start, &[]).into_iter().map(|d| d.name).collect();
        assert_eq!(names, ["projects", "client"]);
        assert_eq!(current_domain(&start, &[]).unwrap().name, "client");
    }

    #[test]
    fn current_domain_needs_no_info_but_chain_does() {
        let t = tree(&["p/.megg/info.md", "p/q/.megg/knowledge.md"]);
        let start = t.path().join("p/q");
        assert_eq!(current_domain(&start, &[]).unwrap().name, "q");
        let names: Vec<_> = chain(&start, &[]).into_iter().map(|d| d.name).collect();
        assert_eq!(names, ["p"]);
    }

    #[test]
    fn ceiling_is_not_searched() {
        let t = tree(&["p/.megg/info.md", "p/q/r"]);
        let start = t.path().join("p/q/r");
        assert!(current_domain(&start, &[t.path().join("p")]).is_none());
        assert!(current_domain(&start, &[t.path().join("p/q/r")]).is_none());
        assert!(current_domain(&start, &[t.path().join("other")]).is_some());
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
        std::os::unix::fs::symlink(t.path().join("acme"), t.path().join("acme/shop/loop")).unwrap();
        let shop = t.path().join("acme/shop");
        let sib: Vec<_> = siblings(&shop)
            .domains
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(sib, ["billing"]);
        let kids: Vec<_> = children(&shop)
            .domains
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(kids, ["c", "checkout"]);
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
        let names: Vec<_> = megg_files(&t.path().join(".megg"))
            .into_iter()
            .map(|p| dir_name(&p))
            .collect();
        assert_eq!(names, ["custom.md", "info.md"]);
    }
}
