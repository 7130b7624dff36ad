//! The shape ARCHITECTURE.md promises, checked on the source: no two files import each other
//! (nor any longer circle of files), the domain (`src/megg/`) imports no edge layer, no command
//! module and no file of `src/git/` is long, no source file at all is past its limit, and only
//! `megg/repos.rs` discovers a repository.
//!
//! The scan is a small Rust tokenizer (comments, strings and attributes dropped) that follows
//! the module tree from `src/lib.rs` (`mod x;`, `mod x { … }`, `#[path]`), records each
//! module's items and re-exports, and resolves every path that names the crate — `crate::…`,
//! `super::…`, `self::…`, or a child module — to the file that defines what it names. The rule
//! (ARCHITECTURE.md, "Imports"):
//!
//! - a path is an edge from the file it is written in to the file defining what it names —
//!   through re-exports, to where the item is defined (`crate::Env` is `env.rs`);
//! - `mod child;` and re-exports (`pub use child::X`) only shape the tree: they are not edges;
//! - so a child naming its parent's own items (`super::helper`) while the parent's code calls
//!   the child (`child::run`) is a circle, as is any longer loop.

#![allow(clippy::disallowed_methods)]
// reads megg's source tree with std::fs, not through fsx
// SPEC §16's panic lints guard megg's own code from its input; a test panicking is how it fails.
#![allow(
    clippy::string_slice,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Most code lines (neither blank nor comment) a module in `src/commands/` may have.
const MAX_COMMAND_LINES: usize = 300;

/// Most code lines any source file under `src/` may have (its tests apart): past it, a file
/// is split by what it computes.
const MAX_FILE_LINES: usize = 700;

/// Most code lines a file of `src/git/` may have.
const MAX_GIT_LINES: usize = 400;

/// Most code lines a file of `src/render/` may have (its tests apart): a renderer past it is
/// split by what it renders.
const MAX_RENDER_LINES: usize = 400;

/// The edge layers: presentation, the commands and the CLI, the MCP server, prompts. The
/// domain (`src/megg/`) takes plain values and gives plain values back; it never imports them.
const EDGE_LAYERS: [&str; 5] = ["render/", "commands/", "cli.rs", "mcp/", "prompt.rs"];

/// The same layers by their module names, for paths written through them.
const EDGE_MODULES: [&str; 5] = ["render", "commands", "cli", "mcp", "prompt"];

#[test]
fn the_domain_imports_no_edge_layer() {
    let crate_ = Crate::scan(&src());
    let mut bad = Vec::new();
    for (from, tos) in &crate_.edges() {
        if !from.starts_with("megg/") {
            continue;
        }
        for (to, why) in tos {
            if EDGE_LAYERS.iter().any(|edge| to.starts_with(edge)) {
                bad.push(format!("  {from} → {to} ({why})"));
            }
        }
    }
    // A path written through an edge layer is an import of it too, even when the layer only
    // re-exports a neutral item (`crate::render::shell_quote` after `pub use crate::shell::…`
    // in render), and so is a domain module re-exporting an edge layer's item.
    let through_edge = |path: &ModPath| {
        path.first()
            .is_some_and(|m| EDGE_MODULES.contains(&m.as_str()))
    };
    for r in &crate_.references {
        if r.file.starts_with("megg/") && through_edge(&r.path) {
            bad.push(format!(
                "  {}:{}: crate::{}",
                r.file,
                r.line + 1,
                r.path.join("::")
            ));
        }
    }
    for m in crate_
        .modules
        .values()
        .filter(|m| m.file.starts_with("megg/"))
    {
        for path in m
            .reexports
            .values()
            .chain(&m.globs)
            .filter(|p| through_edge(p))
        {
            bad.push(format!("  {}: pub use crate::{}", m.file, path.join("::")));
        }
    }
    bad.sort();
    bad.dedup();
    assert!(
        bad.is_empty(),
        "the domain imports an edge layer:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_git_file_is_long() {
    let root = src();
    let files = rust_files(&root.join("git"));
    assert!(files.len() > 1, "src/git/ is a folder of files");
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, code_lines(&std::fs::read_to_string(f).unwrap())))
        .filter(|(_, n)| *n > MAX_GIT_LINES)
        .map(|(f, n)| format!("  {} ({n})", rel(&root, f)))
        .collect();
    assert!(
        long.is_empty(),
        "git files over {MAX_GIT_LINES} code lines:\n{}",
        long.join("\n")
    );
}

/// Test files — `tests.rs`, `*_tests.rs`, and files under a `tests/` directory — are not held
/// to [`MAX_FILE_LINES`], nor is data a generator writes (a first line `// @generated`).
#[test]
fn no_source_file_is_long() {
    let root = src();
    let long: Vec<String> = rust_files(&root)
        .iter()
        .filter(|f| !is_test_file(&rel(&root, f)))
        .map(|f| std::fs::read_to_string(f).map(|text| (f, text)).unwrap())
        .filter(|(_, text)| !text.starts_with("// @generated"))
        .map(|(f, text)| (f, code_lines(&text)))
        .filter(|(_, n)| *n > MAX_FILE_LINES)
        .map(|(f, n)| format!("  {} ({n})", rel(&root, f)))
        .collect();
    assert!(
        long.is_empty(),
        "source files over {MAX_FILE_LINES} code lines:\n{}",
        long.join("\n")
    );
}

/// Whether `rel` (a path under `src/`) is a file of tests.
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || rel.starts_with("tests/")
        || rel.contains("/tests/")
}

/// One repository open per run (SPEC §14): every discovery goes through `Repos`, which
/// shares what it opened.
#[test]
fn only_repos_discovers_a_repository() {
    let root = src();
    let callers: Vec<String> = rust_files(&root)
        .iter()
        .filter(|f| {
            let r = rel(&root, f);
            r != "megg/repos.rs" && !r.starts_with("git/")
        })
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains("Repo::discover("))
        })
        .map(|f| format!("  {}", rel(&root, f)))
        .collect();
    assert!(
        callers.is_empty(),
        "Repo::discover called outside megg/repos.rs:\n{}",
        callers.join("\n")
    );
}

#[test]
fn no_files_import_each_other() {
    let crate_ = Crate::scan(&src());
    let edges = crate_.edges();
    let mut pairs = Vec::new();
    for (from, tos) in &edges {
        for (to, why) in tos {
            if from < to
                && let Some(back) = edges.get(to).and_then(|t| t.get(from))
            {
                pairs.push(format!(
                    "  {from} ↔ {to}\n    {from}: {why}\n    {to}: {back}"
                ));
            }
        }
    }
    let longer: Vec<String> = cycles(&edges)
        .into_iter()
        .filter(|c| c.len() > 2)
        .map(|c| format!("  {{{}}}", c.join(", ")))
        .collect();
    assert!(
        pairs.is_empty() && longer.is_empty(),
        "files that import each other:\n{}\nlonger circles (each set of files reaches itself):\n{}",
        pairs.join("\n"),
        longer.join("\n")
    );
}

#[test]
fn no_command_module_is_long() {
    let root = src();
    let mut long = Vec::new();
    for file in rust_files(&root.join("commands")) {
        let n = code_lines(&std::fs::read_to_string(&file).unwrap());
        if n > MAX_COMMAND_LINES {
            long.push(format!("  {} ({n})", rel(&root, &file)));
        }
    }
    assert!(
        long.is_empty(),
        "command modules over {MAX_COMMAND_LINES} code lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_renderer_is_long() {
    let root = src();
    let mut long = Vec::new();
    for file in rust_files(&root.join("render")) {
        if file.to_string_lossy().ends_with("tests.rs") {
            continue;
        }
        let n = code_lines(&std::fs::read_to_string(&file).unwrap());
        if n > MAX_RENDER_LINES {
            long.push(format!("  {} ({n})", rel(&root, &file)));
        }
    }
    assert!(
        long.is_empty(),
        "renderers over {MAX_RENDER_LINES} code lines:\n{}",
        long.join("\n")
    );
}

/// The scanner finds what it should: edges through `super`, re-exports and child paths; none
/// for `mod` or a re-export alone; and a circle between a parent and a child.
#[test]
fn the_scanner_sees_a_circle_through_super_and_ignores_declarations() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "lib.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub use b::Thing;\n",
        ),
        // a/mod.rs calls its child; the child uses its parent's helper: a circle.
        (
            "a/mod.rs",
            "mod kid;\npub use kid::Kid;\npub fn helper() {}\npub fn go() { kid::run() }\n",
        ),
        (
            "a/kid.rs",
            "// crate::b::nothing in a comment\npub struct Kid;\npub fn run() { super::helper(); let _ = \"crate::b\"; }\n",
        ),
        // b uses a's re-export: an edge to a/kid.rs, not to a/mod.rs.
        (
            "b.rs",
            "use crate::a::Kid;\npub struct Thing;\n#[cfg(test)]\nmod tests { use super::Thing; }\n",
        ),
        // c names a module through the name a `use` bound.
        ("c.rs", "use crate::a;\nfn f() { a::go() }\n"),
    ];
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let edges = Crate::scan(dir.path()).edges();
    let names = |from: &str| -> Vec<&str> {
        edges
            .get(from)
            .map(|t| t.keys().map(String::as_str).collect())
            .unwrap_or_default()
    };
    assert_eq!(names("lib.rs"), Vec::<&str>::new(), "declarations only");
    assert_eq!(names("a/mod.rs"), ["a/kid.rs"]);
    assert_eq!(names("a/kid.rs"), ["a/mod.rs"]);
    assert_eq!(names("b.rs"), ["a/kid.rs"]);
    assert_eq!(names("c.rs"), ["a/mod.rs"]);
    assert_eq!(cycles(&edges), [vec!["a/kid.rs", "a/mod.rs"]]);
}

#[test]
fn code_lines_skip_blanks_and_comments() {
    let text = "//! doc\n\nfn a() {} // trailing\n/* one\n   two */\nlet s = \"// not a comment\";\nlet t = \"a\n\n// b\";\n  /// doc\n";
    assert_eq!(code_lines(text), 5);
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rel(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Lines that are neither blank nor only comment.
fn code_lines(text: &str) -> usize {
    let mut code = vec![false; text.lines().count() + 1];
    for t in tokens(text) {
        // A string spans its lines.
        let last = match &t.tok {
            Tok::Str(s) => t.line + s.matches('\n').count(),
            _ => t.line,
        };
        code[t.line..=last].fill(true);
    }
    code.iter().filter(|c| **c).count()
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Punct(char),
    Str(String),
    /// Any other literal (numbers, chars).
    Lit,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    /// 0-based line it starts on.
    line: usize,
}

/// Rust source as tokens, comments dropped; string contents kept only for `#[path = "…"]`.
fn tokens(text: &str) -> Vec<Token> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 0);
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        let start = line;
        let mut push = |tok| out.push(Token { tok, line: start });
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&c, i) {
            // r"…", r#"…"#, br#"…"#
            let mut j = i;
            while c[j] != '"' {
                j += 1;
            }
            j += 1;
            let body = j;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                    break;
                }
                line += usize::from(c[j] == '\n');
                j += 1;
            }
            push(Tok::Str(c[body..j.min(c.len())].iter().collect()));
            i = j + 1 + hashes;
        } else if ch == '"' || (ch == 'b' && at(i + 1) == '"') {
            let mut j = if ch == 'b' { i + 2 } else { i + 1 };
            let body = j;
            while j < c.len() && c[j] != '"' {
                if c[j] == '\\' {
                    j += 1;
                }
                line += usize::from(at(j) == '\n');
                j += 1;
            }
            push(Tok::Str(c[body..j.min(c.len())].iter().collect()));
            i = j + 1;
        } else if ch == '\'' || (ch == 'b' && at(i + 1) == '\'') {
            let q = if ch == 'b' { i + 1 } else { i };
            if at(q + 1) == '\\' {
                // An escaped char literal: '\n', '\'', '\u{…}'.
                let mut j = q + 2;
                while j < c.len() && !(c[j] == '\'' && j > q + 2) {
                    j += 1;
                }
                push(Tok::Lit);
                i = j + 1;
            } else if at(q + 2) == '\'' {
                push(Tok::Lit);
                i = q + 3;
            } else {
                // A lifetime or label: 'a, 'static.
                let mut j = q + 1;
                while j < c.len() && (c[j].is_alphanumeric() || c[j] == '_') {
                    j += 1;
                }
                push(Tok::Lit);
                i = j;
            }
        } else if ch.is_alphabetic() || ch == '_' {
            // `r#type`: a raw identifier, `type`.
            let start = if ch == 'r' && at(i + 1) == '#' {
                i + 2
            } else {
                i
            };
            let mut j = start;
            while j < c.len() && (c[j].is_alphanumeric() || c[j] == '_') {
                j += 1;
            }
            push(Tok::Ident(c[start..j].iter().collect()));
            i = j;
        } else if ch.is_ascii_digit() {
            let mut j = i;
            while j < c.len() && (c[j].is_alphanumeric() || c[j] == '_' || c[j] == '.') {
                if c[j] == '.' && !at(j + 1).is_ascii_digit() {
                    break;
                }
                j += 1;
            }
            push(Tok::Lit);
            i = j;
        } else if ch == ':' && at(i + 1) == ':' {
            push(Tok::Path);
            i += 2;
        } else if ch == '$' && c[i + 1..].starts_with(&['c', 'r', 'a', 't', 'e']) {
            // `$crate` in a macro is `crate`.
            push(Tok::Ident("crate".into()));
            i += 6;
        } else {
            push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// How many `#` a raw string starting at `i` has, if one starts there.
fn raw_string_start(c: &[char], i: usize) -> Option<usize> {
    let prev_ident = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
    if prev_ident {
        return None;
    }
    let mut j = i;
    if c.get(j) == Some(&'b') {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (c.get(j) == Some(&'"')).then_some(hashes)
}

// ---------------------------------------------------------------------------------------------
// The module tree

type ModPath = Vec<String>;

#[derive(Debug, Default)]
struct Module {
    /// The file it is written in, relative to `src/`.
    file: String,
    /// Child modules (declared with `mod`).
    children: BTreeSet<String>,
    /// Items defined here.
    items: BTreeSet<String>,
    /// `pub use`: the name it is known by here → the path it names (absolute).
    reexports: BTreeMap<String, ModPath>,
    /// `pub use path::*`: the modules whose names are known here too (absolute).
    globs: Vec<ModPath>,
    /// Every name a `use` binds here → the path it names (absolute), so that `alias::x` is
    /// followed too.
    aliases: BTreeMap<String, ModPath>,
}

/// A path written in a file, absolute, with where it was written for the report.
#[derive(Debug)]
struct Reference {
    file: String,
    path: ModPath,
    line: usize,
}

#[derive(Debug, Default)]
struct Crate {
    /// The `src` directory.
    root: PathBuf,
    modules: BTreeMap<ModPath, Module>,
    references: Vec<Reference>,
}

impl Crate {
    fn scan(root: &Path) -> Self {
        let mut c = Crate {
            root: root.to_path_buf(),
            ..Crate::default()
        };
        c.file(Path::new("lib.rs"), Vec::new());
        c
    }

    /// Reads the file of module `path` and every module declared in it.
    fn file(&mut self, file: &Path, path: ModPath) {
        let text = std::fs::read_to_string(self.root.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let name = file.to_string_lossy().replace('\\', "/");
        // Where this module's `mod x;` files live: beside lib.rs / mod.rs, else in a
        // directory named after the file.
        let stem = file.file_stem().unwrap().to_string_lossy();
        let dir = if stem == "lib" || stem == "mod" {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        let toks = tokens(&text);
        let mut files = Vec::new();
        self.parse(&toks, &name, &dir, path, &mut files);
        for (file, path) in files {
            self.file(&file, path);
        }
    }

    /// Walks one file's tokens: modules (inline and declared), items, `use` trees and paths.
    fn parse(
        &mut self,
        toks: &[Token],
        file: &str,
        dir: &Path,
        top: ModPath,
        files: &mut Vec<(PathBuf, ModPath)>,
    ) {
        // The module stack: (module path, its directory for `mod x;`, brace depth of its body).
        let mut stack: Vec<(ModPath, PathBuf, usize)> = vec![(top.clone(), dir.to_path_buf(), 0)];
        self.modules.entry(top).or_default().file = file.to_string();
        let mut depth = 0;
        let mut path_attr: Option<String> = None;
        let mut i = 0;
        let ident = |i: usize| match toks.get(i).map(|t| &t.tok) {
            Some(Tok::Ident(s)) => Some(s.as_str()),
            _ => None,
        };
        let punct = |i: usize, p: char| toks.get(i).map(|t| &t.tok) == Some(&Tok::Punct(p));
        while i < toks.len() {
            let (module, mdir, mdepth) = stack.last().cloned().unwrap();
            let at_top = depth == mdepth;
            match &toks[i].tok {
                Tok::Punct('#') => {
                    // An attribute: skipped, but `#[path = "x.rs"]` is kept for the next `mod`.
                    let mut j = i + 1;
                    if punct(j, '!') {
                        j += 1;
                    }
                    if punct(j, '[') {
                        let end = matching(toks, j);
                        if ident(j + 1) == Some("path")
                            && let Some(Tok::Str(s)) = toks.get(j + 3).map(|t| &t.tok)
                        {
                            path_attr = Some(s.clone());
                        }
                        i = end + 1;
                        continue;
                    }
                    i += 1;
                }
                Tok::Punct('{') => {
                    depth += 1;
                    i += 1;
                }
                Tok::Punct('}') => {
                    depth -= 1;
                    if stack.len() > 1 && depth == stack.last().unwrap().2 - 1 {
                        stack.pop();
                    }
                    i += 1;
                }
                Tok::Ident(kw) if kw == "mod" && ident(i + 1).is_some() => {
                    let name = ident(i + 1).unwrap().to_string();
                    let mut child = module.clone();
                    child.push(name.clone());
                    self.modules
                        .entry(module.clone())
                        .or_default()
                        .children
                        .insert(name.clone());
                    let cdir = mdir.join(&name);
                    if punct(i + 2, ';') {
                        // `#[path]` outside an inline module is relative to this file's directory.
                        let cfile = match path_attr.take() {
                            Some(p) if stack.len() == 1 => Path::new(file).with_file_name(p),
                            Some(p) => mdir.join(p),
                            None if self.root.join(&mdir).join(format!("{name}.rs")).exists() => {
                                mdir.join(format!("{name}.rs"))
                            }
                            None => cdir.join("mod.rs"),
                        };
                        files.push((cfile, child));
                        i += 3;
                    } else {
                        path_attr = None;
                        self.modules.entry(child.clone()).or_default().file = file.to_string();
                        depth += 1;
                        stack.push((child, cdir, depth));
                        i += 3;
                    }
                }
                Tok::Ident(kw) if kw == "use" => {
                    let end = (i..toks.len()).find(|&j| punct(j, ';')).unwrap();
                    let public = i > 0 && is_pub(toks, i);
                    let mut leaves = Vec::new();
                    use_tree(&toks[i + 1..end], Vec::new(), &mut leaves);
                    for (path, leaf) in leaves {
                        let Some(abs) = self.absolute(&module, &path) else {
                            continue;
                        };
                        let m = self.modules.entry(module.clone()).or_default();
                        if let Leaf::Name(n) = &leaf {
                            m.aliases.insert(n.clone(), abs.clone());
                        }
                        match (&leaf, public) {
                            (Leaf::Glob, true) => m.globs.push(abs),
                            (Leaf::Name(n), true) => {
                                m.reexports.insert(n.clone(), abs);
                            }
                            _ => self.references.push(Reference {
                                file: file.to_string(),
                                path: abs,
                                line: toks[i].line,
                            }),
                        }
                    }
                    i = end + 1;
                }
                Tok::Ident(kw)
                    if at_top
                        && matches!(
                            kw.as_str(),
                            "fn" | "struct"
                                | "enum"
                                | "trait"
                                | "const"
                                | "static"
                                | "type"
                                | "union"
                                | "macro_rules"
                        ) =>
                {
                    let mut j = i + 1;
                    if punct(j, '!') {
                        j += 1;
                    }
                    if let Some(name) = ident(j).filter(|n| *n != "fn" && *n != "_") {
                        self.modules
                            .entry(module.clone())
                            .or_default()
                            .items
                            .insert(name.to_string());
                    }
                    i += 1;
                }
                Tok::Ident(first) => {
                    // A path: `a::b::c`, unless it continues one (`x::a::b`).
                    let continues = i > 0 && toks[i - 1].tok == Tok::Path;
                    let mut segs = vec![first.clone()];
                    let mut j = i + 1;
                    while toks.get(j).map(|t| &t.tok) == Some(&Tok::Path) {
                        match ident(j + 1) {
                            Some(s) => segs.push(s.to_string()),
                            None => break, // `::<T>` or `::{`
                        }
                        j += 2;
                    }
                    if !continues
                        && segs.len() > 1
                        && let Some(abs) = self.absolute(&module, &segs)
                    {
                        self.references.push(Reference {
                            file: file.to_string(),
                            path: abs,
                            line: toks[i].line,
                        });
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }

    /// `path` as written in `module`, made absolute; `None` for another crate's path.
    fn absolute(&self, module: &ModPath, path: &[String]) -> Option<ModPath> {
        let mut abs = module.clone();
        let mut rest = path;
        match path.first().map(String::as_str) {
            Some("crate") => {
                abs.clear();
                rest = &path[1..];
            }
            Some("self") => rest = &path[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    abs.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let m = self.modules.get(module)?;
                if !m.children.contains(first) {
                    // A name a `use` bound: `use crate::commands;` then `commands::x::Args`.
                    abs = m.aliases.get(first)?.clone();
                    rest = &path[1..];
                }
            }
            None => return None,
        }
        abs.extend(rest.iter().filter(|s| *s != "self").cloned());
        Some(abs)
    }

    /// The file defining what `path` names: its deepest module, then through re-exports.
    fn resolve(&self, path: &[String], seen: &mut BTreeSet<ModPath>) -> Option<String> {
        if !seen.insert(path.to_vec()) {
            return None;
        }
        let k = (0..=path.len())
            .rev()
            .find(|&k| self.modules.contains_key(&path[..k]))?;
        let module = &self.modules[&path[..k]];
        let Some(name) = path.get(k) else {
            return Some(module.file.clone());
        };
        if module.items.contains(name) {
            return Some(module.file.clone());
        }
        if let Some(target) = module.reexports.get(name) {
            let mut t = target.clone();
            t.extend(path[k + 1..].iter().cloned());
            if let Some(f) = self.resolve(&t, seen) {
                return Some(f);
            }
        }
        for g in &module.globs {
            let Some(gm) = self.modules.get(g) else {
                continue;
            };
            if gm.items.contains(name) || gm.reexports.contains_key(name) {
                let mut t = g.clone();
                t.extend(path[k..].iter().cloned());
                return self.resolve(&t, seen);
            }
        }
        Some(module.file.clone())
    }

    /// File → the files it names, each with one place it does so.
    fn edges(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for r in &self.references {
            let Some(to) = self.resolve(&r.path, &mut BTreeSet::new()) else {
                continue;
            };
            if to != r.file {
                edges
                    .entry(r.file.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| {
                        format!("line {}: crate::{}", r.line + 1, r.path.join("::"))
                    });
            }
        }
        edges
    }
}

fn is_pub(toks: &[Token], use_at: usize) -> bool {
    // `pub use`, `pub(crate) use`, `pub(super) use`, `pub(in path) use`.
    let mut j = use_at;
    if j > 0 && toks[j - 1].tok == Tok::Punct(')') {
        while j > 0 && toks[j - 1].tok != Tok::Punct('(') {
            j -= 1;
        }
        j = j.saturating_sub(1);
    }
    j > 0 && toks[j - 1].tok == Tok::Ident("pub".into())
}

/// The index of the bracket closing the one at `open`.
fn matching(toks: &[Token], open: usize) -> usize {
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct('[' | '(' | '{') => depth += 1,
            Tok::Punct(']' | ')' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    toks.len() - 1
}

#[derive(Debug, PartialEq, Eq)]
enum Leaf {
    /// The name it is bound to (`as` applied).
    Name(String),
    Glob,
}

/// The leaves of a `use` tree: each full path with the name it binds, or a glob.
fn use_tree(toks: &[Token], prefix: Vec<String>, out: &mut Vec<(Vec<String>, Leaf)>) {
    // Split on top-level commas.
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (j, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                parts.push(&toks[start..j]);
                start = j + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[start..]);
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        let mut path = prefix.clone();
        let mut j = 0;
        // A leading `::` (2015 style) names another crate.
        if part.first().map(|t| &t.tok) == Some(&Tok::Path) {
            continue;
        }
        while j < part.len() {
            match &part[j].tok {
                Tok::Ident(s) if s == "as" => {
                    if let Some(Tok::Ident(alias)) = part.get(j + 1).map(|t| &t.tok) {
                        out.push((path.clone(), Leaf::Name(alias.clone())));
                    }
                    path.clear();
                    break;
                }
                Tok::Ident(s) => {
                    path.push(s.clone());
                    j += 1;
                }
                Tok::Path => j += 1,
                Tok::Punct('*') => {
                    out.push((path.clone(), Leaf::Glob));
                    path.clear();
                    break;
                }
                Tok::Punct('{') => {
                    let end = matching(part, j);
                    use_tree(&part[j + 1..end], path.clone(), out);
                    path.clear();
                    break;
                }
                _ => j += 1,
            }
        }
        if let Some(last) = path.last() {
            // `use a::b::{self}` binds `b`.
            let name = if last == "self" {
                path.pop();
                path.last().cloned().unwrap_or_default()
            } else {
                last.clone()
            };
            out.push((path, Leaf::Name(name)));
        }
    }
}

/// The strongly connected components with more than one file (Tarjan), each sorted.
fn cycles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        on: BTreeSet<&'a str>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> T<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.edges.get(v).into_iter().flat_map(|t| t.keys()) {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[w].min(self.low[v]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.index[w].min(self.low[v]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    comp.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on: BTreeSet::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}
