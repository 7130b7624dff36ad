//! README's tour is a test: every `$ …` line in its console block runs against the real
//! binary in a fixture built here, and its output must be exactly what README shows (with the
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

/// The tour's fixture: a company domain, a project (a git repository) with knowledge and a
/// plan, a sibling project, and the files the tour passes with `--file`.
fn fixture() -> Project {
    let p = Project::new();
    p.write(
        "acme/.megg/info.md",
        "---\ncreated: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\ntype: context\n---\n\n# Acme\n\nCompany-wide conventions for Acme services.\n",
    );
    p.write(
        "acme/billing/.megg/info.md",
        "---\ntype: context\n---\n\n# Billing\n",
    );
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

/// Splits a command line into words: spaces separate, double quotes group.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
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
        assert_eq!(
            args[0], "megg",
            "only megg commands run in the tour: {line}"
        );
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
