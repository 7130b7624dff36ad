//! Issue 45, `megg search` and the paths entries cite (SPEC §13.3, §17): a moved file's new name
//! finds the entries citing its old one; a bare word (`ts`, `src`) never matches an entry only
//! through the directories or extension of a path it cites — the file's name does. Real git
//! repositories, built with git2 at fixed times.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::*;

/// The day every entry is dated: the commits after it are the ones freshness counts.
const DAY: &str = "2026-01-10";

/// A repository whose domain, at its top, holds `entries` (`(title, body)`, dated [`DAY`]),
/// with `files` committed before that day.
struct Repo {
    p: Project,
    git: Git,
}

impl Repo {
    fn new(entries: &[(&str, &str)], files: &[&str]) -> Self {
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        p.domain("", "Shop");
        let mut knowledge = String::from("# Knowledge\n");
        for (title, body) in entries {
            knowledge.push_str(&format!(
                "\n---\n\n## {DAY} - {title}\n**Type:** fact\n**Topics:** code\n\n{body}\n"
            ));
        }
        p.write(".megg/knowledge.md", &knowledge);
        let r = Self { p, git };
        for f in files {
            r.put(f, &lines(f));
        }
        r.commit("2026-01-05T09:00:00Z", "initial");
        r
    }

    fn put(&self, path: &str, content: &str) {
        self.p.write(path, content);
        let mut index = self.git.repo.index().unwrap();
        index.add_path(Path::new(path)).unwrap();
        index.write().unwrap();
    }

    /// `git mv from to`: the same bytes under the new name.
    fn rename(&self, from: &str, to: &str) {
        let content = self.p.read(from);
        std::fs::remove_file(self.p.path(from)).unwrap();
        let mut index = self.git.repo.index().unwrap();
        index.remove_path(Path::new(from)).unwrap();
        index.write().unwrap();
        self.put(to, &content);
    }

    fn commit(&self, at: &str, msg: &str) {
        self.git.commit("main", epoch(at), msg);
    }

    fn search(&self, query: &str) -> Value {
        self.p.json("", &["search", query, "--json"])
    }

    fn titles(&self, query: &str) -> Vec<String> {
        self.search(query)["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["title"].as_str().unwrap().to_string())
            .collect()
    }
}

/// Forty lines no other file shares, so that git's rename detection pairs only a true rename.
fn lines(path: &str) -> String {
    (1..=40)
        .map(|n| {
            format!(
                "// {path}: line {n} of {}\n",
                path.len() * 7919 + n * 104_729
            )
        })
        .collect()
}

/// Before: `megg show` printed "`src/billing/tax.ts` moved to `src/billing/vat.ts`", yet
/// `megg search vat` found nothing. The new name (and its path) finds the entry, which says
/// where: the move under the hit, the snippet at the line citing the old path; a path moved
/// and then changed there is found by its new name too.
#[test]
fn a_moved_files_new_name_finds_the_entry_citing_its_old_one() {
    let r = Repo::new(
        &[
            (
                "Rates are kept in cents",
                "Rounding happens once, at checkout.\nEvery rate in `src/billing/tax.ts` is an integer.",
            ),
            (
                "Pool per worker",
                "The pool in `src/db/pool.ts` is sized per worker.",
            ),
            (
                "Routes in one table",
                "Every route is in `src/api/routes.ts`.",
            ),
        ],
        &["src/billing/tax.ts", "src/db/pool.ts", "src/api/routes.ts"],
    );
    assert_eq!(r.search("vat")["total"], 0, "nothing is called vat yet");
    r.rename("src/billing/tax.ts", "src/billing/vat.ts");
    r.rename("src/db/pool.ts", "src/db/conn.ts");
    r.commit("2026-02-01T09:00:00Z", "rename");
    r.put(
        "src/db/conn.ts",
        &format!("{}// edited\n", r.p.read("src/db/conn.ts")),
    );
    r.commit("2026-02-02T09:00:00Z", "edit conn");

    for query in ["vat", "vat.ts", "src/billing/vat.ts", "tax"] {
        let v = r.search(query);
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "{query}: {v:#}");
        let hit = &results[0];
        assert_eq!(hit["title"], "Rates are kept in cents", "{query}: {v:#}");
        let cited = &hit["freshness"]["paths"][0];
        assert_eq!(
            (&cited["path"], &cited["status"], &cited["new_path"]),
            (
                &json!("src/billing/tax.ts"),
                &json!("moved"),
                &json!("src/billing/vat.ts")
            ),
            "{query}: {v:#}"
        );
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(
            snippet.starts_with("Every rate in `src/billing/tax.ts`"),
            "{query}: the snippet shows the line citing the old path: {snippet}"
        );
    }
    let text = r.p.ok("", &["search", "vat"]);
    assert!(
        text.contains("`src/billing/tax.ts` moved to `src/billing/vat.ts`"),
        "{text}"
    );
    // Moved, then changed at its new place: its new name finds it all the same.
    assert_eq!(r.titles("conn"), ["Pool per worker"]);
    // The old names still find their entries; other words are unchanged.
    assert_eq!(r.titles("pool"), ["Pool per worker"]);
    assert_eq!(r.titles("routes"), ["Routes in one table"]);
}

/// The cost of it: git is asked only about entries citing a file that is no longer where they
/// say. With every cited file in place a search walks no history (here: a query nothing
/// matches, so that no hit's freshness is checked either); with one moved, its entries are
/// checked once, and the answer is kept for the next search at the same HEAD.
#[test]
fn a_search_asks_git_only_about_entries_citing_a_file_not_in_place() {
    let r = Repo::new(
        &[
            (
                "Rates are kept in cents",
                "Every rate in `src/billing/tax.ts`.",
            ),
            ("Pool per worker", "The pool in `src/db/pool.ts`."),
        ],
        &["src/billing/tax.ts", "src/db/pool.ts"],
    );
    let log = r.p.cache.path().join("walks.log");
    let walks = || {
        let _ = std::fs::remove_file(&log);
        let out =
            r.p.megg("")
                .args(["search", "zebra", "--json"])
                .env("MEGG_FAILPOINTS", format!("log={}", log.display()))
                .output()
                .unwrap();
        assert!(out.status.success(), "{out:?}");
        let events = std::fs::read_to_string(&log).unwrap_or_default();
        events.lines().filter(|l| *l == "citations-walk").count()
    };
    assert_eq!(walks(), 0, "every cited file is in place");
    r.rename("src/billing/tax.ts", "src/billing/vat.ts");
    r.commit("2026-02-01T09:00:00Z", "rename");
    assert_eq!(walks(), 1, "a cited file moved");
    assert_eq!(walks(), 0, "kept for the same HEAD");
    assert_eq!(r.titles("vat"), ["Rates are kept in cents"]);
}

/// Before: `megg search ts` (or `src`, `md`, `rs`) matched every entry citing code, through
/// the directories and extensions of the paths it cites. A bare word matches an entry through
/// its text and the names of the files it cites; a path's directories and extension only for
/// a query that writes them as a path (`src/db/`, `billing/`).
#[test]
fn a_bare_word_never_matches_through_the_directories_or_extension_of_a_cited_path() {
    let r = Repo::new(
        &[
            (
                "Rates are kept in cents",
                "Every rate in `src/billing/tax.ts` is an integer.",
            ),
            (
                "Pool per worker",
                "The pool in `src/db/pool.ts` is sized per worker; see `docs/pool.md`.",
            ),
            (
                "Routes in one table",
                "Every route is in `./src/api/routes.rs:12`.",
            ),
            (
                "Strict mode everywhere",
                "All TS code compiles with strict on: no implicit any.",
            ),
        ],
        &[
            "src/billing/tax.ts",
            "src/db/pool.ts",
            "docs/pool.md",
            "src/api/routes.rs",
        ],
    );
    // The entry whose text says "TS"; none of those citing `.ts` files.
    assert_eq!(r.titles("ts"), ["Strict mode everywhere"]);
    for word in ["src", "md", "rs", "docs", "billing", "api"] {
        let v = r.search(word);
        assert_eq!(v["total"], 0, "{word}: {v:#}");
    }
    // A file's name finds the entry citing it, with or without its extension.
    assert_eq!(r.titles("tax"), ["Rates are kept in cents"]);
    assert_eq!(r.titles("pool.ts"), ["Pool per worker"]);
    assert_eq!(r.titles("pool"), ["Pool per worker"]);
    assert_eq!(r.titles("routes.rs"), ["Routes in one table"]);
    assert_eq!(r.titles("src/billing/tax.ts"), ["Rates are kept in cents"]);
    // A directory asked for as one reaches the files in it.
    assert_eq!(r.titles("src/db/"), ["Pool per worker"]);
    assert_eq!(r.titles("billing/"), ["Rates are kept in cents"]);
    let mut all = r.titles("src/");
    all.sort();
    assert_eq!(
        all,
        [
            "Pool per worker",
            "Rates are kept in cents",
            "Routes in one table"
        ]
    );
}
