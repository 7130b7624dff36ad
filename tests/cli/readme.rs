//! README's tour is a test: every `$ …` line in its console block runs against the real
//! binary (or `cat`s a file) in a fixture built here, and its output must be exactly what README shows (with the
//! fixture's root spelled `/tmp/tour` and the binary's directory `~/.cargo/bin`). `MEGG_README_BLESS=1 cargo test --test cli readme`
//! rewrites the block from a real run, for review in the diff.

use std::path::{Path, PathBuf};

use crate::{Git, NOW, Project, epoch};

const START: &str = "## A 60-second tour\n\n```console\n";
const ROOT: &str = "/tmp/tour";

fn megg_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin("megg")
        .parent()
        .unwrap()
        .to_path_buf()
}

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

/// The tour's fixture: what a user has before megg — a company directory holding the shop, a
/// git repository with a plan, and the files the tour shows with `cat` and passes with
/// `--file`. Every `.megg` is made by the tour itself.
fn fixture() -> Project {
    let p = Project::new();
    let git = Git::init(&p.path("acme/shop"), "main");
    p.write(
        "acme/shop/docs/plans/2026-11-20-feat-user-auth-plan.md",
        "# User auth\n\n- [ ] Login form\n",
    );
    git.commit("main", epoch(NOW) - 86_400, "Start the shop");
    p.write(
        "acme/shop/handoff.md",
        "## Working On\nCheckout redesign\n\n## Next\n- Wire the payment form\n",
    );
    p.write(
        "acme/shop/learning.md",
        "## Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\nSessions use JWTs in httpOnly cookies; never localStorage.\n",
    );
    p
}

/// Splits a command line into words: spaces separate, double or single quotes group (a quote
/// of the other kind inside them is a plain character).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quote, mut any): (Option<char>, bool) = (None, false);
    for c in line.chars() {
        match c {
            '"' | '\'' if quote.is_none_or(|q| q == c) => {
                quote = if quote.is_some() { None } else { Some(c) };
                any = true;
            }
            ' ' if quote.is_none() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// Runs the tour's command lines in the fixture; returns the block as it should read.
fn run_tour(commands: &[String]) -> String {
    let p = fixture();
    let root = p.root().to_path_buf();
    let mut cwd = root.clone();
    let mut block = String::new();
    for line in commands {
        block.push_str(&format!("$ {line}\n"));
        let w = words(line.split("  #").next().unwrap().trim());
        if w[0] == "cd" {
            cwd = cwd.join(&w[1]);
            continue;
        }
        let env: Vec<(String, String)> = w
            .iter()
            .take_while(|x| x.contains('=') && !x.starts_with('-'))
            .map(|x| {
                let (k, v) = x.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        let args = &w[env.len()..];
        if args[0] == "cat" {
            // What a file the tour passes holds, as the user would see it.
            let text = std::fs::read_to_string(cwd.join(&args[1])).unwrap();
            block.push_str(&text);
            block.push('\n');
            continue;
        }
        assert_eq!(args[0], "megg", "only megg and cat run in the tour: {line}");
        let out = p
            .megg("")
            .current_dir(&cwd)
            .env("HOME", root.join("home"))
            // megg installed on PATH, as README's first command leaves it; no `claude`.
            .env("PATH", format!("{}:/usr/bin:/bin", megg_dir().display()))
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .args(&args[1..])
            .output()
            .unwrap();
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let text = text
            .replace(&root.display().to_string(), ROOT)
            .replace(&megg_dir().display().to_string(), "~/.cargo/bin");
        block.push_str(&text);
        if !text.is_empty() && !text.ends_with('\n') {
            block.push('\n');
        }
        block.push('\n');
    }
    block.trim_end().to_string() + "\n"
}

#[test]
fn the_readme_tour_is_what_megg_prints() {
    let readme = std::fs::read_to_string(readme_path()).unwrap();
    let start = readme.find(START).expect("README has the tour") + START.len();
    let end = start + readme[start..].find("```\n").unwrap();
    let block = &readme[start..end];
    let commands: Vec<String> = block
        .lines()
        .filter_map(|l| l.strip_prefix("$ "))
        .map(str::to_string)
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    let actual = run_tour(&commands);
    if std::env::var_os("MEGG_README_BLESS").is_some() {
        let updated = format!("{}{actual}{}", &readme[..start], &readme[end..]);
        std::fs::write(readme_path(), updated).unwrap();
        return;
    }
    assert_eq!(
        block, actual,
        "README's tour differs from what megg prints; rerun with MEGG_README_BLESS=1 and review the diff"
    );
}

// ------------------------------------------------------------------------------------------
// README is the front door; the reference lives in docs/, one page per topic.

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README, ARCHITECTURE, CHANGELOG and every page of docs/.
fn markdown_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md"]
        .iter()
        .map(|f| root.join(f))
        .filter(|f| f.is_file())
        .collect();
    files.extend(docs_pages());
    files
}

fn docs_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo_root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

/// The text of `md` outside fenced code blocks.
fn prose(md: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every `[text](target)` of `md`'s prose.
fn links(md: &str) -> Vec<String> {
    let text = prose(md);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation other than `-` and
/// `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(md: &str) -> Vec<String> {
    prose(md)
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn every_markdown_link_resolves() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for link in links(&text) {
            if link.starts_with("http://")
                || link.starts_with("https://")
                || link.starts_with("mailto:")
            {
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let name = file
                .strip_prefix(repo_root())
                .unwrap()
                .display()
                .to_string();
            if !target.exists() {
                broken.push(format!("{name}: {link} (no such file)"));
            } else if !anchor.is_empty()
                && target.extension().is_some_and(|e| e == "md")
                && !anchors(&std::fs::read_to_string(&target).unwrap())
                    .contains(&anchor.to_string())
            {
                broken.push(format!("{name}: {link} (no such heading)"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// README stays a front door: within ~300 lines, and every docs page reachable from it.
#[test]
fn readme_links_every_docs_page() {
    let readme = std::fs::read_to_string(readme_path()).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 320,
        "README has {lines} lines; the reference belongs in docs/"
    );
    let linked = links(&readme);
    let missing: Vec<String> = docs_pages()
        .iter()
        .map(|p| format!("docs/{}", p.file_name().unwrap().to_string_lossy()))
        .filter(|page| {
            !linked
                .iter()
                .any(|l| l.split('#').next() == Some(page.as_str()))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs pages README does not link: {missing:?}"
    );
    for page in [
        "hosts",
        "capture",
        "team",
        "security",
        "file-formats",
        "benchmarks",
        "design",
    ] {
        assert!(
            repo_root().join(format!("docs/{page}.md")).is_file(),
            "docs/{page}.md"
        );
    }
}

/// Every `megg …` command line in the code blocks of README and docs/ is one megg accepts: the
/// text follows the CLI wherever it lives. A line is taken up to a pipe, a redirection (`>`,
/// ` < `), `;`, `&&` or a ` #` comment; a line holding a placeholder (`<ID>`, `…`) before that
/// point is skipped, and named on stderr (none is, today).
#[test]
#[allow(clippy::print_stderr)] // names the lines it could not check
fn every_megg_line_in_the_docs_parses() {
    use clap::Parser;
    let mut bad = Vec::new();
    let mut seen = 0;
    let mut skipped = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let (mut fenced, mut console) = (false, false);
        for line in text.lines() {
            if let Some(lang) = line.trim_start().strip_prefix("```") {
                fenced = !fenced;
                console = fenced && lang.trim() == "console";
                continue;
            }
            // In a console block only the `$ ` lines are commands; the rest is their output.
            let line = line.trim_start();
            let mut line = match line.strip_prefix("$ ") {
                Some(command) => command,
                None if console => continue,
                None => line,
            };
            // `MEGG_NOW=… megg …`: the environment goes before the command.
            while let Some((first, rest)) = line.split_once(' ')
                && first.contains('=')
                && !first.starts_with('-')
            {
                line = rest;
            }
            if !fenced || !line.starts_with("megg ") {
                continue;
            }
            let cut = [" #", "&&", " < "]
                .iter()
                .fold(line, |l, stop| l.split(stop).next().unwrap());
            let cut = cut.split(['|', '>', ';']).next().unwrap();
            if cut.contains('<') || cut.contains('…') {
                skipped.push(format!(
                    "{}: {line}",
                    file.strip_prefix(repo_root()).unwrap().display()
                ));
                continue;
            }
            let argv = words(cut.trim());
            seen += 1;
            if let Err(e) = megg::cli::Cli::try_parse_from(&argv) {
                if e.kind() == clap::error::ErrorKind::DisplayHelp
                    || e.kind() == clap::error::ErrorKind::DisplayVersion
                {
                    continue;
                }
                let name = file
                    .strip_prefix(repo_root())
                    .unwrap()
                    .display()
                    .to_string();
                bad.push(format!(
                    "{name}: {line}\n  {}",
                    e.to_string().lines().next().unwrap_or("")
                ));
            }
        }
    }
    if !skipped.is_empty() {
        eprintln!(
            "megg lines with placeholders, not parsed:\n{}",
            skipped.join("\n")
        );
    }
    assert!(seen > 20, "only {seen} megg lines found");
    assert!(
        bad.is_empty(),
        "megg lines that do not parse:\n{}",
        bad.join("\n")
    );
}
