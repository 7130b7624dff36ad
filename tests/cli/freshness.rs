//! SPEC §17: citations checked against git (generated histories). Entries dated 2026-01-10 cite
//! paths that the commits after that day leave alone, edit, rename or delete (a clear gap: the
//! commits that count start in February); `show`, `search`, the session-start index, full-mode
//! context, MCP and `maintain --check` all say what happened to each path, and none of them
//! writes a byte of `knowledge.md`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::*;

/// The day every entry of the main fixture is dated.
const DAY: &str = "2026-01-10";

/// A git repository built commit by commit with git2, at fixed times, and the domain at its top.
struct History {
    p: Project,
    git: Git,
    /// Each commit's id by its message.
    commits: BTreeMap<String, String>,
    /// The newest commit's time: each commit is later than the one before (a walk may stop at
    /// the first commit older than what it looks for, as `git log --since` does).
    last: i64,
}

impl History {
    fn new() -> Self {
        let p = Project::new();
        let git = Git::init(p.root(), "main");
        Self {
            p,
            git,
            commits: BTreeMap::new(),
            last: i64::MIN,
        }
    }

    /// Writes `path` (repository-relative) and stages it.
    fn put(&self, path: &str, content: &str) {
        self.p.write(path, content);
        let mut index = self.git.repo.index().unwrap();
        index.add_path(Path::new(path)).unwrap();
        index.write().unwrap();
    }

    /// Deletes `path` from the work tree and the index.
    fn remove(&self, path: &str) {
        std::fs::remove_file(self.p.path(path)).unwrap();
        let mut index = self.git.repo.index().unwrap();
        index.remove_path(Path::new(path)).unwrap();
        index.write().unwrap();
    }

    /// Renames `from` to `to` as `git mv` does: the same bytes under the new name.
    fn rename(&self, from: &str, to: &str) {
        let content = self.p.read(from);
        self.remove(from);
        self.put(to, &content);
    }

    /// Commits the index on `main` at `at` (RFC 3339, UTC).
    fn commit(&mut self, at: &str, msg: &str) -> String {
        let secs = epoch(at);
        assert!(
            secs > self.last,
            "{msg}: {at} is not after the commit before"
        );
        self.last = secs;
        let id = self.git.commit("main", secs, msg);
        self.commits.insert(msg.to_string(), id.clone());
        id
    }

    /// Edits line `line` of `path` (the `n`th edit) and commits it at `at`.
    fn edit(&mut self, path: &str, line: usize, n: usize, at: &str, msg: &str) {
        let text = self.p.read(path);
        let edited: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i + 1 == line {
                    format!("{l} /* edit {n} */\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        self.put(path, &edited);
        self.commit(at, msg);
    }
}

/// Sixty lines no other file shares (so that git's rename detection pairs only a true rename).
fn source(path: &str) -> String {
    (1..=60)
        .map(|n| {
            format!(
                "// {path}: line {n} of {}\n",
                path.len() * 7919 + n * 104_729
            )
        })
        .collect()
}

/// `2026-02-DDTHH:00:00Z`.
fn feb(day: u32, hour: u32) -> String {
    format!("2026-02-{day:02}T{hour:02}:00:00Z")
}

/// The knowledge of the main fixture: one entry per case, each found by its animal.
const KNOWLEDGE: &str = "---
created: 2026-01-10T09:00:00Z
type: knowledge
---
# Knowledge

---

## 2026-01-10 - Aardvark keeps the anchor
**Type:** fact
**Topics:** code

The anchor lives in `src/keep.rs`; the routes under `./src/api`.

---

## 2026-01-10 - Badger edits twice
**Type:** fact
**Topics:** code

Parsing is in `src/twice.rs`.

---

## 2026-01-10 - Cheetah edits four times
**Type:** fact
**Topics:** code

See `src/four.rs`.

---

## 2026-01-10 - Dingo edits five times
**Type:** fact
**Topics:** code

See `src/five.rs`.

---

## 2026-01-10 - Emu edits six times
**Type:** fact
**Topics:** code

See `src/six.rs` for the details.

---

## 2026-01-10 - Ferret follows a rename
**Type:** fact
**Topics:** code

The module is `src/old_name.rs`.

---

## 2026-01-10 - Gecko cites a deleted file
**Type:** gotcha
**Topics:** code

The handler is `src/doomed.rs`.

---

## 2026-01-10 - Heron cites a line
**Type:** fact
**Topics:** code

The check is at `src/lines.rs:42`.

---

## 2026-01-10 - Ibis cites a directory
**Type:** fact
**Topics:** code

Everything about money is under `src/billing/`.

---

## 2026-01-10 - Jackal names no path that exists
**Type:** fact
**Topics:** code

Run `cargo test`, then `megg show --json`; the old plan named `src/ghost.rs` and `docs/never/there.md`; see `Option<T>`, `HashMap::new()` and `v1.2.3`.

---

## 2026-01-10 - Koala edited before its day
**Type:** fact
**Topics:** code

Early work is in `src/early.rs`.

---

## 2026-01-10 - Lemur cites four paths
**Type:** decision
**Topics:** code

`src/keep.rs`, `src/twice.rs`, `src/old_name.rs` and `src/doomed.rs` together.

---

## 2026-01-10 - Marmot cites a rename and an edit
**Type:** decision
**Topics:** code

`src/old_name.rs` calls `src/twice.rs`.

---

## 2026-01-10 - Narwhal cites a rename and a stable file
**Type:** decision
**Topics:** code

`src/keep.rs` calls `src/old_name.rs`.

---

## 2026-01-10 - Ocelot parsing lives in `src/six.rs`
**Type:** fact
**Topics:** code

The title says where.

---

## 2026-01-10 - Pangolin 決定: 認証は 🚀 Café
**Type:** decision
**Topics:** i18n

Voir «`src/twice.rs`»—très utile 🚀; 決定は`src/doomed.rs`に保存。naïve·`src/keep.rs`…

---

## 2026-01-10 - Raven edited the next day
**Type:** fact
**Topics:** code

The edge case is `src/boundary.rs`.
";

const ARCHIVE: &str = "# Archive

---

## 2026-01-12 - Quail archived six edits
**Type:** fact
**Topics:** code

Archived, and still about `src/six.rs`.
";

/// Every file of the first commit.
const FILES: [&str; 16] = [
    "README.md",
    "src/keep.rs",
    "src/api/mod.rs",
    "src/twice.rs",
    "src/four.rs",
    "src/five.rs",
    "src/six.rs",
    "src/old_name.rs",
    "src/doomed.rs",
    "src/lines.rs",
    "src/billing/tax.rs",
    "src/billing/rates.rs",
    "src/early.rs",
    "src/boundary.rs",
    "src/untouched/a.rs",
    "src/untouched/b.rs",
];

/// The main fixture: a domain at the top of a repository whose history (each commit later than
/// the one before), after the entries' day, leaves `keep`, `api` and `early` alone, edits `twice` 2 times, `four` 4, `five` 5, `six`
/// 6, `lines` and `billing/tax` once, `boundary` once just after midnight UTC; renames
/// `old_name` to `new_name`, deletes `doomed`. `early` is edited before and on the day itself.
fn fixture() -> History {
    let mut h = History::new();
    h.p.domain("", "Shop");
    h.p.write(".megg/knowledge.md", KNOWLEDGE);
    h.p.write(".megg/archive/knowledge-2026.md", ARCHIVE);
    h.p.write(
        ".megg/info.md",
        "---\ntype: context\n---\n\n# Shop\n\n## Context\nAn online shop.\n\n## Zeppelin notes\nThe zeppelin handler was `src/doomed.rs`.\n",
    );
    for f in FILES {
        h.put(f, &source(f));
    }
    h.commit("2026-01-05T09:00:00Z", "initial");
    h.edit(
        "src/early.rs",
        3,
        1,
        "2026-01-08T12:00:00Z",
        "early: before",
    );
    h.edit(
        "src/early.rs",
        4,
        2,
        "2026-01-10T23:30:00Z",
        "early: on the day",
    );
    h.edit(
        "src/boundary.rs",
        5,
        1,
        "2026-01-11T00:30:00Z",
        "boundary: next day",
    );
    h.edit("src/twice.rs", 10, 1, &feb(1, 10), "twice: edit 1");
    h.edit("src/twice.rs", 11, 2, &feb(3, 10), "twice: edit 2");
    for n in 1..=4 {
        let msg = format!("four: edit {n}");
        h.edit("src/four.rs", n, n, &feb(3, 10 + n as u32), &msg);
    }
    for n in 1..=5 {
        let msg = format!("five: edit {n}");
        h.edit("src/five.rs", n, n, &feb(4, 10 + n as u32), &msg);
    }
    for n in 1..=6 {
        let msg = format!("six: edit {n}");
        h.edit("src/six.rs", n, n, &feb(5, 10 + n as u32), &msg);
    }
    h.rename("src/old_name.rs", "src/new_name.rs");
    h.commit(&feb(10, 10), "move old_name to new_name");
    h.remove("src/doomed.rs");
    h.commit(&feb(11, 10), "delete doomed");
    h.edit("src/lines.rs", 42, 1, &feb(12, 10), "lines: edit line 42");
    h.edit(
        "src/billing/tax.rs",
        7,
        1,
        &feb(13, 10),
        "billing: tax rates",
    );
    h
}

/// A path as the test compares it: no `./`, no trailing `/`, no `:LINE`.
fn norm(path: &str) -> String {
    let p = path.strip_prefix("./").unwrap_or(path);
    let p = p.trim_end_matches('/');
    match p.rsplit_once(':') {
        Some((file, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => {
            file.to_string()
        }
        _ => p.to_string(),
    }
}

/// What one cited path should say: its path, status, `commits` (when it is asserted) and
/// `new_path`.
type PathWant = (
    &'static str,
    &'static str,
    Option<u64>,
    Option<&'static str>,
);

/// What an entry's `freshness` should say.
struct Want {
    status: &'static str,
    stale: bool,
    paths: &'static [PathWant],
}

const MOVED: PathWant = ("src/old_name.rs", "moved", None, Some("src/new_name.rs"));
const GONE: PathWant = ("src/doomed.rs", "gone", None, None);
const TWICE: PathWant = ("src/twice.rs", "changed", Some(2), None);
const SIX: PathWant = ("src/six.rs", "changed", Some(6), None);

/// Each entry of the main fixture, by the word that finds it, and its freshness.
fn cases() -> Vec<(&'static str, Want)> {
    vec![
        (
            "aardvark",
            Want {
                status: "fresh",
                stale: false,
                paths: &[
                    ("src/keep.rs", "fresh", Some(0), None),
                    ("src/api", "fresh", Some(0), None),
                ],
            },
        ),
        (
            "badger",
            Want {
                status: "changed",
                stale: false,
                paths: &[TWICE],
            },
        ),
        (
            "cheetah",
            Want {
                status: "changed",
                stale: false,
                paths: &[("src/four.rs", "changed", Some(4), None)],
            },
        ),
        (
            "dingo",
            Want {
                status: "changed",
                stale: true,
                paths: &[("src/five.rs", "changed", Some(5), None)],
            },
        ),
        (
            "emu",
            Want {
                status: "changed",
                stale: true,
                paths: &[SIX],
            },
        ),
        (
            "ferret",
            Want {
                status: "moved",
                stale: false,
                paths: &[MOVED],
            },
        ),
        (
            "gecko",
            Want {
                status: "gone",
                stale: true,
                paths: &[GONE],
            },
        ),
        (
            "heron",
            Want {
                status: "changed",
                stale: false,
                paths: &[("src/lines.rs", "changed", Some(1), None)],
            },
        ),
        (
            "ibis",
            Want {
                status: "changed",
                stale: false,
                paths: &[("src/billing", "changed", Some(1), None)],
            },
        ),
        (
            "jackal",
            Want {
                status: "uncited",
                stale: false,
                paths: &[],
            },
        ),
        (
            "koala",
            Want {
                status: "fresh",
                stale: false,
                paths: &[("src/early.rs", "fresh", Some(0), None)],
            },
        ),
        (
            "lemur",
            Want {
                status: "gone",
                stale: true,
                paths: &[("src/keep.rs", "fresh", Some(0), None), TWICE, MOVED, GONE],
            },
        ),
        (
            "marmot",
            Want {
                status: "changed",
                stale: false,
                paths: &[MOVED, TWICE],
            },
        ),
        (
            "narwhal",
            Want {
                status: "moved",
                stale: false,
                paths: &[("src/keep.rs", "fresh", Some(0), None), MOVED],
            },
        ),
        (
            "ocelot",
            Want {
                status: "changed",
                stale: true,
                paths: &[SIX],
            },
        ),
        (
            "pangolin",
            Want {
                status: "gone",
                stale: true,
                paths: &[TWICE, GONE, ("src/keep.rs", "fresh", Some(0), None)],
            },
        ),
        (
            "raven",
            Want {
                status: "changed",
                stale: false,
                paths: &[("src/boundary.rs", "changed", Some(1), None)],
            },
        ),
        (
            "quail",
            Want {
                status: "changed",
                stale: true,
                paths: &[SIX],
            },
        ),
    ]
}

/// Asserts `freshness` says what `want` does.
fn check(freshness: &Value, want: &Want, at: &str) {
    assert!(
        freshness.is_object(),
        "{at}: no freshness object: {freshness}"
    );
    assert_eq!(freshness["status"], want.status, "{at}: {freshness}");
    assert_eq!(freshness["stale"], want.stale, "{at}: {freshness}");
    assert_eq!(freshness["capped"], false, "{at}: {freshness}");
    let paths = freshness["paths"]
        .as_array()
        .unwrap_or_else(|| panic!("{at}: no paths: {freshness}"));
    let got: BTreeMap<String, &Value> = paths
        .iter()
        .map(|p| {
            for key in ["path", "status", "commits", "new_path"] {
                assert!(p.get(key).is_some(), "{at}: {key} missing from {p}");
            }
            (norm(p["path"].as_str().unwrap()), p)
        })
        .collect();
    assert_eq!(got.len(), paths.len(), "{at}: a path twice: {freshness}");
    let mut sorted: Vec<String> = want.paths.iter().map(|w| w.0.to_string()).collect();
    sorted.sort();
    assert_eq!(
        got.keys().cloned().collect::<Vec<_>>(),
        sorted,
        "{at}: the citations: {freshness}"
    );
    for (path, status, commits, new_path) in want.paths {
        let p = got[*path];
        assert_eq!(p["status"], *status, "{at}: {path}: {p}");
        if let Some(n) = commits {
            assert_eq!(p["commits"], *n, "{at}: {path}: {p}");
        }
        match new_path {
            Some(to) => assert_eq!(
                norm(p["new_path"].as_str().unwrap_or_default()),
                *to,
                "{at}: {path}: {p}"
            ),
            None => assert!(p["new_path"].is_null(), "{at}: {path}: {p}"),
        }
    }
}

/// The top hit of `megg search WORD --json`, checked to be the entry `word` names.
fn hit(p: &Project, dir: &str, word: &str) -> Value {
    let v = p.json(dir, &["search", word, "--json"]);
    let top = v["results"][0].clone();
    assert!(
        top["title"]
            .as_str()
            .is_some_and(|t| t.to_lowercase().contains(word)),
        "{word}: {v}"
    );
    top
}

/// `megg show ID --json`'s one document.
fn shown(p: &Project, dir: &str, id: &str) -> Value {
    let v = p.json(dir, &["show", id, "--json"]);
    v["documents"][0].clone()
}

/// What `megg show ID` prints after the document itself.
fn show_note(p: &Project, dir: &str, id: &str) -> String {
    let doc = shown(p, dir, id);
    let text = doc["text"].as_str().unwrap().to_string();
    let out = p.ok(dir, &["show", id]);
    let (_, tail) = out
        .split_once(&text)
        .unwrap_or_else(|| panic!("the document is not in {out}"));
    tail.to_string()
}

/// Every file below the project's root but `.git`, with its bytes.
fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".git" {
                continue;
            }
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else {
                out.push((
                    e.path().display().to_string(),
                    std::fs::read(e.path()).unwrap_or_default(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// `knowledge.md` and the archive are as the fixture wrote them.
fn untouched(h: &History) {
    assert_eq!(h.p.read(".megg/knowledge.md"), KNOWLEDGE, "knowledge.md");
    assert_eq!(
        h.p.read(".megg/archive/knowledge-2026.md"),
        ARCHIVE,
        "the archive"
    );
}

/// Every case of the generated history, in `show --json`'s documents: fresh, changed with its
/// count (stale from 5 commits on), moved with its new path, gone; `path:42` as its file; a
/// directory by the files in it; a backticked path that never existed is no citation (an entry
/// with none is `uncited`); commits
/// on or before the entry's day do not count, one just after midnight UTC does; the worst path
/// is the entry's status; CJK, accents and emoji around a path, a path in the title, an
/// archived entry.
#[test]
fn show_json_says_what_happened_to_every_cited_path() {
    let h = fixture();
    for (word, want) in cases() {
        let id = hit(&h.p, "", word)["id"].as_str().unwrap().to_string();
        let doc = shown(&h.p, "", &id);
        check(&doc["freshness"], &want, &format!("show {word}"));
    }
    untouched(&h);
}

/// `search --json` carries each result's freshness, the same as `show`'s; the text says under
/// the hit which path went or changed, since the entry's date, and `stale?` when it is stale.
/// Info sections and kept handoffs carry none.
#[test]
fn search_carries_the_same_freshness_and_says_it_under_the_hit() {
    let h = fixture();
    for (word, want) in cases() {
        let top = hit(&h.p, "", word);
        check(&top["freshness"], &want, &format!("search {word}"));
        let doc = shown(&h.p, "", top["id"].as_str().unwrap());
        assert_eq!(top["freshness"], doc["freshness"], "{word}");
    }
    let gecko = h.p.ok("", &["search", "gecko"]);
    for needed in ["`src/doomed.rs` gone", "stale?", "since 2026-01-10"] {
        assert!(gecko.contains(needed), "{needed} not in:\n{gecko}");
    }
    let badger = h.p.ok("", &["search", "badger"]);
    assert!(
        badger.contains("`src/twice.rs` changed in 2 commits")
            && badger.contains("since 2026-01-10"),
        "{badger}"
    );
    assert!(
        !badger.contains("stale?"),
        "2 commits is not stale: {badger}"
    );
    let emu = h.p.ok("", &["search", "emu"]);
    assert!(
        emu.contains("`src/six.rs` changed in 6 commits") && emu.contains("stale?"),
        "{emu}"
    );
    let aardvark = h.p.ok("", &["search", "aardvark"]);
    for word in ["stale?", " gone", "changed in", "moved to"] {
        assert!(
            !aardvark.contains(word),
            "a fresh hit says {word}: {aardvark}"
        );
    }

    // Only entries: an info section and a kept handoff citing the same path carry none.
    let info = h.p.json("", &["search", "zeppelin", "--json"]);
    assert_eq!(info["results"][0]["kind"], "info", "{info}");
    assert!(
        info["results"][0]
            .get("freshness")
            .is_none_or(Value::is_null),
        "{info}"
    );
    for text in [
        "## Working On\nThe yodel cleanup in `src/doomed.rs`\n",
        "## Working On\nSomething else\n",
    ] {
        h.p.ok("", &["state", "write", "--content", text]);
    }
    let handoff =
        h.p.json("", &["search", "yodel", "--in", "handoff", "--json"]);
    assert_eq!(handoff["total"], 1, "{handoff}");
    assert!(
        handoff["results"][0]
            .get("freshness")
            .is_none_or(Value::is_null),
        "{handoff}"
    );
    let id = handoff["results"][0]["id"].as_str().unwrap();
    assert!(
        shown(&h.p, "", id)
            .get("freshness")
            .is_none_or(Value::is_null)
    );
    untouched(&h);
}

/// `show` prints, after the document, each path that is not fresh and what happened to it
/// since the entry's date, and `stale?` for a stale entry; a fresh entry gets no such note.
#[test]
fn show_text_names_each_path_and_what_happened_since_the_entrys_date() {
    let h = fixture();
    let id = |word: &str| hit(&h.p, "", word)["id"].as_str().unwrap().to_string();

    let lemur = show_note(&h.p, "", &id("lemur"));
    for needed in [
        "stale?",
        "`src/doomed.rs` gone",
        "`src/twice.rs` changed in 2 commits",
        "`src/old_name.rs` moved to `src/new_name.rs`",
        "since 2026-01-10",
    ] {
        assert!(lemur.contains(needed), "{needed} not in:\n{lemur}");
    }
    assert!(
        !lemur.contains("src/keep.rs"),
        "a fresh path is named: {lemur}"
    );

    let badger = show_note(&h.p, "", &id("badger"));
    assert!(
        badger.contains("`src/twice.rs` changed in 2 commits")
            && badger.contains("since 2026-01-10"),
        "{badger}"
    );
    assert!(!badger.contains("stale?"), "{badger}");
    let emu = show_note(&h.p, "", &id("emu"));
    assert!(
        emu.contains("`src/six.rs` changed in 6 commits") && emu.contains("stale?"),
        "{emu}"
    );
    let dingo = show_note(&h.p, "", &id("dingo"));
    assert!(
        dingo.contains("changed in 5 commits") && dingo.contains("stale?"),
        "5 commits is stale: {dingo}"
    );
    let cheetah = show_note(&h.p, "", &id("cheetah"));
    assert!(
        cheetah.contains("changed in 4 commits") && !cheetah.contains("stale?"),
        "4 commits is not: {cheetah}"
    );
    let ferret = show_note(&h.p, "", &id("ferret"));
    assert!(
        ferret.contains("`src/old_name.rs` moved to `src/new_name.rs`")
            && !ferret.contains("stale?"),
        "{ferret}"
    );
    let heron = show_note(&h.p, "", &id("heron"));
    assert!(
        heron.contains("src/lines.rs") && heron.contains("changed in 1 commit"),
        "{heron}"
    );
    let ibis = show_note(&h.p, "", &id("ibis"));
    assert!(
        ibis.contains("src/billing") && ibis.contains("changed in 1 commit"),
        "{ibis}"
    );
    let pangolin = show_note(&h.p, "", &id("pangolin"));
    assert!(
        pangolin.contains("`src/doomed.rs` gone") && pangolin.contains("stale?"),
        "{pangolin}"
    );
    for word in ["aardvark", "jackal", "koala"] {
        let note = show_note(&h.p, "", &id(word));
        for said in ["stale?", " gone", "changed in", "moved to"] {
            assert!(!note.contains(said), "{word} is fresh, yet: {note}");
        }
    }
    untouched(&h);
}

/// In full mode (small knowledge) the context says which entries' cited code went: the
/// markdown and the hook's `additionalContext` alike.
#[test]
fn full_mode_context_says_which_entries_cite_code_that_went() {
    let h = fixture();
    let v = h.p.json("", &["context", "--format", "json"]);
    assert_eq!(v["knowledge"]["mode"], "full", "{v}");
    let md = h.p.ok("", &["context"]);
    let hook = stdout_json(&h.p.run("", &["context", "--json"]));
    let additional = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{hook}"))
        .to_string();
    for (what, text) in [("markdown", &md), ("hook", &additional)] {
        assert!(
            text.lines()
                .any(|l| l.contains("src/doomed.rs") && l.contains("gone")),
            "{what}: no line names src/doomed.rs as gone:\n{text}"
        );
    }
    untouched(&h);
}

/// MCP's `search` and `show` carry the same freshness in their structured content.
#[test]
fn mcp_search_and_show_carry_freshness() {
    let h = fixture();
    for word in ["gecko", "badger", "aardvark", "ferret"] {
        let cli = hit(&h.p, "", word);
        let r = crate::mcp::call_tool(&h.p, "search", &json!({ "query": word }));
        let top = &r["structuredContent"]["results"][0];
        assert_eq!(top["id"], cli["id"], "{word}: {r}");
        assert!(top["freshness"].is_object(), "{word}: {r}");
        assert_eq!(top["freshness"], cli["freshness"], "{word}");
        let r = crate::mcp::call_tool(&h.p, "show", &json!({ "ids": [cli["id"]] }));
        let doc = &r["structuredContent"]["documents"][0];
        assert_eq!(doc["freshness"], cli["freshness"], "{word}: {r}");
    }
    let (_, want) = cases().into_iter().find(|(w, _)| *w == "gecko").unwrap();
    let r = crate::mcp::call_tool(&h.p, "search", &json!({ "query": "gecko" }));
    check(
        &r["structuredContent"]["results"][0]["freshness"],
        &want,
        "mcp gecko",
    );
    untouched(&h);
}

/// The entries `maintain --check` must list (in the live knowledge file), by their word.
const LISTED: [&str; 14] = [
    "badger", "cheetah", "dingo", "emu", "ferret", "gecko", "heron", "ibis", "lemur", "marmot",
    "narwhal", "ocelot", "pangolin", "raven",
];

/// `megg maintain --check` lists every entry whose citations moved, went or changed, one object
/// per entry with the commits that touched each path (newest first), exits 1, and changes
/// nothing; its text names the same entries.
#[test]
fn maintain_check_lists_what_changed_exits_1_and_changes_nothing() {
    let h = fixture();
    let before = tree(h.p.root());
    let out = h.p.run("", &["maintain", "--check", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = stdout_json(&out);
    assert!(v["warnings"].is_array(), "{v}");
    let knowledge = h.p.path(".megg/knowledge.md");
    let entries: Vec<&Value> = v["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .filter(|e| {
            let path = e["path"].as_str().unwrap_or_default();
            Path::new(path) == knowledge || path.ends_with(".megg/knowledge.md")
        })
        .collect();
    let mut listed: Vec<String> = entries
        .iter()
        .map(|e| {
            let title = e["title"].as_str().unwrap().to_lowercase();
            title.split(' ').next().unwrap().to_string()
        })
        .collect();
    listed.sort();
    assert_eq!(listed, LISTED, "{v}");
    let by_word = |word: &str| -> &Value {
        entries
            .iter()
            .find(|e| {
                e["title"]
                    .as_str()
                    .unwrap()
                    .to_lowercase()
                    .starts_with(word)
            })
            .unwrap()
    };
    for (word, want) in cases() {
        if !LISTED.contains(&word) {
            continue;
        }
        let e = by_word(word);
        let top = hit(&h.p, "", word);
        assert_eq!(e["id"], top["id"], "{word}: {e}");
        assert_eq!(e["date"], DAY, "{word}: {e}");
        assert_eq!(e["status"], want.status, "{word}: {e}");
        for p in e["paths"].as_array().unwrap() {
            for key in ["path", "status", "commits", "new_path", "touched_by"] {
                assert!(p.get(key).is_some(), "{word}: {key} missing from {p}");
            }
        }
    }
    // The commits that touched each path, newest first: id, day, first line of the message.
    let touched = |word: &str, path: &str| -> Vec<(String, String, String)> {
        let e = by_word(word);
        let p = e["paths"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| norm(p["path"].as_str().unwrap()) == path)
            .unwrap_or_else(|| panic!("{word}: no {path} in {e}"));
        p["touched_by"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let commit = t["commit"].as_str().unwrap().to_string();
                assert!(
                    commit.len() >= 7 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                    "{t}"
                );
                let summary = t["summary"].as_str().unwrap().to_string();
                let full = h
                    .commits
                    .get(&summary)
                    .unwrap_or_else(|| panic!("{summary:?} is no commit's message: {t}"));
                assert!(
                    full.starts_with(&commit),
                    "{commit} is not {summary}'s {full}"
                );
                (commit, t["date"].as_str().unwrap().to_string(), summary)
            })
            .collect()
    };
    let summaries = |v: Vec<(String, String, String)>| -> Vec<String> {
        v.into_iter().map(|(_, _, s)| s).collect()
    };
    let twice = touched("badger", "src/twice.rs");
    assert_eq!(
        twice
            .iter()
            .map(|(_, d, s)| (d.as_str(), s.as_str()))
            .collect::<Vec<_>>(),
        [
            ("2026-02-03", "twice: edit 2"),
            ("2026-02-01", "twice: edit 1")
        ]
    );
    assert_eq!(
        summaries(touched("emu", "src/six.rs")),
        (1..=6)
            .rev()
            .map(|n| format!("six: edit {n}"))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        summaries(touched("gecko", "src/doomed.rs"))[0],
        "delete doomed"
    );
    assert_eq!(
        summaries(touched("ferret", "src/old_name.rs"))[0],
        "move old_name to new_name"
    );
    assert_eq!(
        summaries(touched("raven", "src/boundary.rs")),
        ["boundary: next day"]
    );
    assert_eq!(
        summaries(touched("ibis", "src/billing")),
        ["billing: tax rates"]
    );

    // The text names the same entries and their paths, and no fresh one.
    let out = h.p.run("", &["maintain", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
    for word in LISTED {
        assert!(text.contains(word), "{word} not listed:\n{text}");
    }
    for path in ["src/doomed.rs", "src/old_name.rs", "src/six.rs"] {
        assert!(text.contains(path), "{path} not named:\n{text}");
    }
    for word in ["aardvark", "jackal", "koala"] {
        assert!(
            !text.contains(word),
            "a fresh entry is listed: {word}\n{text}"
        );
    }
    assert_eq!(tree(h.p.root()), before, "maintain --check wrote something");
    untouched(&h);
}

/// Every citation fresh: `maintain --check` lists nothing and exits 0.
#[test]
fn maintain_check_exits_0_when_every_citation_is_fresh() {
    let mut h = History::new();
    h.p.domain("", "Calm");
    let knowledge = "# Knowledge\n\n---\n\n## 2026-01-10 - Nothing moved\n**Type:** fact\n**Topics:** code\n\nSee `src/keep.rs` and `src/api/`.\n";
    h.p.write(".megg/knowledge.md", knowledge);
    for f in ["src/keep.rs", "src/api/mod.rs", "README.md"] {
        h.put(f, &source(f));
    }
    h.commit("2026-01-05T09:00:00Z", "initial");
    h.edit("README.md", 1, 1, &feb(1, 10), "readme");
    let before = tree(h.p.root());
    let out = h.p.run("", &["maintain", "--check", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = stdout_json(&out);
    assert_eq!(v["entries"], json!([]), "{v}");
    let out = h.p.run("", &["maintain", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(tree(h.p.root()), before);
    assert_eq!(h.p.read(".megg/knowledge.md"), knowledge);
}

/// Cached by HEAD and the entry's content, never stale itself: a second run answers the same;
/// a new commit touching a cited path counts at once; HEAD moved back counts it no more; an
/// entry edited to cite another path is checked for that path.
#[test]
fn the_check_is_cached_yet_follows_head_and_the_entry() {
    let mut h = fixture();
    let id = hit(&h.p, "", "badger")["id"].as_str().unwrap().to_string();
    let commits = |h: &History| -> Value {
        let doc = shown(&h.p, "", &id);
        doc["freshness"]["paths"][0]["commits"].clone()
    };
    let first = h.p.json("", &["show", &id, "--json"]);
    let second = h.p.json("", &["show", &id, "--json"]);
    assert_eq!(first, second);
    assert_eq!(commits(&h), 2, "{first}");
    let check_before = h.p.run("", &["maintain", "--check", "--json"]).stdout;
    assert_eq!(
        h.p.run("", &["maintain", "--check", "--json"]).stdout,
        check_before
    );

    let before = h.commits["billing: tax rates"].clone();
    h.edit(
        "src/twice.rs",
        12,
        3,
        "2026-03-01T10:00:00Z",
        "twice: edit 3",
    );
    assert_eq!(commits(&h), 3, "a new commit is not counted");
    let hit_now = hit(&h.p, "", "badger");
    assert_eq!(hit_now["freshness"]["paths"][0]["commits"], 3, "{hit_now}");
    let v = stdout_json(&h.p.run("", &["maintain", "--check", "--json"]));
    let badger = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id.as_str())
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(
        badger["paths"][0]["touched_by"][0]["summary"], "twice: edit 3",
        "{badger}"
    );
    assert_eq!(
        badger["paths"][0]["touched_by"].as_array().unwrap().len(),
        3
    );

    // HEAD back where it was: the commit no longer counts.
    let oid = git2::Oid::from_str(&before).unwrap();
    h.git
        .repo
        .reference("refs/heads/main", oid, true, "back")
        .unwrap();
    assert_eq!(commits(&h), 2, "HEAD moved back");

    // The same id, now citing another path.
    h.p.write(
        ".megg/knowledge.md",
        KNOWLEDGE.replace(
            "Parsing is in `src/twice.rs`.",
            "Parsing is in `src/six.rs`.",
        ),
    );
    let doc = shown(&h.p, "", &id);
    let (_, want) = cases().into_iter().find(|(w, _)| *w == "emu").unwrap();
    check(&doc["freshness"], &want, "badger citing six");
}

/// An entry `megg learn` wrote is dated by `MEGG_NOW`, and only the commits after that day count.
#[test]
fn an_entry_learn_wrote_counts_the_commits_after_its_day() {
    let h = fixture();
    for (now, title, count) in [
        ("2026-01-20T10:00:00Z", "Wombat learned in January", 2),
        ("2026-02-02T10:00:00Z", "Yak learned in February", 1),
    ] {
        let out =
            h.p.megg("")
                .env("MEGG_NOW", now)
                .args([
                    "learn",
                    title,
                    "fact",
                    "code",
                    "Parsing is in `src/twice.rs`.",
                ])
                .output()
                .unwrap();
        assert!(out.status.success(), "{out:?}");
        let word = title.split(' ').next().unwrap().to_lowercase();
        let top = hit(&h.p, "", &word);
        let f = &top["freshness"];
        assert_eq!(f["status"], "changed", "{word}: {top}");
        assert_eq!(f["paths"][0]["commits"], count, "{word}: {top}");
    }
}

/// A citation is tried relative to the repository's root and to the domain's directory: a
/// domain in `svc/` citing `src/main.rs` means `svc/src/main.rs`.
#[test]
fn a_citation_relative_to_the_domains_directory_is_checked() {
    let mut h = History::new();
    h.p.domain("svc", "Service");
    h.p.write(
        "svc/.megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-01-10 - Walrus service entry point\n**Type:** fact\n**Topics:** svc\n\nStarts in `src/main.rs`; helpers in `svc/src/util.rs`.\n",
    );
    for f in ["README.md", "svc/src/main.rs", "svc/src/util.rs"] {
        h.put(f, &source(f));
    }
    h.commit("2026-01-05T09:00:00Z", "initial");
    h.edit("svc/src/main.rs", 2, 1, &feb(1, 10), "main: edit 1");
    h.edit("svc/src/main.rs", 3, 2, &feb(2, 10), "main: edit 2");
    h.remove("svc/src/util.rs");
    h.commit(&feb(3, 10), "delete util");
    let top = hit(&h.p, "svc", "walrus");
    let f = &top["freshness"];
    assert_eq!(f["status"], "gone", "{top}");
    let paths = f["paths"].as_array().unwrap();
    assert_eq!(paths.len(), 2, "{top}");
    let main = paths
        .iter()
        .find(|p| p["path"].as_str().unwrap().ends_with("main.rs"))
        .unwrap_or_else(|| panic!("{top}"));
    assert_eq!(main["status"], "changed", "{top}");
    assert_eq!(main["commits"], 2, "{top}");
    let util = paths
        .iter()
        .find(|p| p["path"].as_str().unwrap().ends_with("util.rs"))
        .unwrap_or_else(|| panic!("{top}"));
    assert_eq!(util["status"], "gone", "{top}");
}

/// The index entry of `title` in `index` and its position.
fn indexed<'v>(index: &'v [Value], title: &str) -> (usize, &'v Value) {
    index
        .iter()
        .enumerate()
        .find(|(_, l)| l["title"] == title)
        .unwrap_or_else(|| panic!("{title} not in the index: {index:?}"))
}

/// The line of the index text that carries `id`.
fn index_line<'t>(text: &'t str, id: &str) -> (usize, &'t str) {
    text.lines()
        .enumerate()
        .find(|(_, l)| l.starts_with(&format!("- {id} ")))
        .unwrap_or_else(|| panic!("no index line for {id} in:\n{text}"))
}

/// A summary-sized knowledge (160 entries without citations) plus two entries of `kind` with
/// the same words, the same day and the same topic, citing `src/tie/alpha.rs` and
/// `src/tie/gamma.rs`, and one citing `src/tie/beta.rs`; with `handoff`, a state saying the
/// session is about their words. All three files in a first commit.
fn tie(kind: &str, handoff: bool) -> (History, String) {
    let mut h = History::new();
    h.p.domain("", "Big");
    let entry = |title: &str, file: &str| {
        format!(
            "\n---\n\n## 2026-01-10 - {title}\n**Type:** {kind}\n**Topics:** ledger\n\nRounding happens in `src/tie/{file}.rs` per line.\n"
        )
    };
    let knowledge = format!(
        "{}{}{}\n---\n\n## 2026-01-10 - Ledger audit trail\n**Type:** {kind}\n**Topics:** audit\n\nThe trail is written by `src/tie/beta.rs`.\n",
        crate::recall_index::big_knowledge(160),
        entry("Ledger tax rounding", "alpha"),
        entry("Tax ledger rounding", "gamma"),
    );
    h.p.write(".megg/knowledge.md", &knowledge);
    if handoff {
        h.p.write(
            ".megg/state.md",
            "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nLedger tax rounding\n",
        );
    }
    for f in [
        "README.md",
        "src/tie/alpha.rs",
        "src/tie/gamma.rs",
        "src/tie/beta.rs",
    ] {
        h.put(f, &source(f));
    }
    h.commit("2026-01-05T09:00:00Z", "initial");
    (h, knowledge)
}

/// `context --format json`'s index (summary mode), every item with its freshness.
fn index_of(h: &History) -> Vec<Value> {
    let v = h.p.json("", &["context", "--format", "json"]);
    assert_ne!(
        v["knowledge"]["mode"], "full",
        "{}",
        v["knowledge"]["tokens"]
    );
    let index = v["knowledge"]["index"].as_array().unwrap().clone();
    for line in &index {
        assert!(line["freshness"].is_object(), "no freshness on {line}");
    }
    index
}

/// Of the two entries of equal relevance in [`tie`]'s index, the file of the one ranked first is
/// deleted, `beta` is edited twice, and three commits about neither follow (the last commits'
/// paths rank the index too). Returns the index after, and the two as they were before: the
/// one now stale, the one still fresh.
fn break_the_tie(h: &mut History, why: &str) -> (Vec<Value>, Value, Value) {
    let before = index_of(h);
    let (a, first) = indexed(&before, "Ledger tax rounding");
    let (b, second) = indexed(&before, "Tax ledger rounding");
    for line in [first, second] {
        assert_eq!(line["why"], why, "{line}");
        assert_eq!(line["freshness"]["status"], "fresh", "{line}");
    }
    let (stale, fresh, file) = if a < b {
        (first.clone(), second.clone(), "src/tie/alpha.rs")
    } else {
        (second.clone(), first.clone(), "src/tie/gamma.rs")
    };
    h.remove(file);
    h.commit(&feb(1, 10), "delete the first one's file");
    h.edit("src/tie/beta.rs", 2, 1, &feb(2, 10), "beta: edit 1");
    h.edit("src/tie/beta.rs", 3, 2, &feb(3, 10), "beta: edit 2");
    for n in 1..=3 {
        h.edit(
            "README.md",
            n,
            n,
            &feb(4, 9 + n as u32),
            &format!("readme {n}"),
        );
    }
    (index_of(h), stale, fresh)
}

/// The session-start index (summary mode): each item carries its freshness (an entry without
/// citations: uncited, no paths), the same as `show`'s; a stale entry's line ends with ` stale?`
/// in the hook and in `megg context`, and it ranks after a fresh entry of equal relevance — two
/// gotchas of the same words and day: the one that ranked first before its file was deleted
/// ranks second after.
#[test]
fn the_index_marks_stale_entries_and_ranks_them_after_fresh_ones() {
    let (mut h, knowledge) = tie("gotcha", false);
    let (after, stale, fresh) = break_the_tie(&mut h, "gotcha");
    let title = |l: &Value| l["title"].as_str().unwrap().to_string();
    let (stale_at, stale) = indexed(&after, &title(&stale));
    let (fresh_at, fresh) = indexed(&after, &title(&fresh));
    assert_eq!(stale["freshness"]["status"], "gone", "{stale}");
    assert_eq!(stale["freshness"]["stale"], true, "{stale}");
    assert_eq!(fresh["freshness"]["status"], "fresh", "{fresh}");
    assert!(
        fresh_at < stale_at,
        "the stale entry still ranks first: {after:?}"
    );
    let (_, audit) = indexed(&after, "Ledger audit trail");
    assert_eq!(audit["freshness"]["status"], "changed", "{audit}");
    assert_eq!(audit["freshness"]["stale"], false, "{audit}");
    // Entries without citations: uncited, no paths.
    let mine = [title(stale), title(fresh), title(audit)];
    for plain in after.iter().filter(|l| !mine.contains(&title(l))) {
        assert_eq!(
            plain["freshness"],
            json!({"status": "uncited", "stale": false, "capped": false, "paths": []}),
            "{plain}"
        );
    }
    // Each index item says what show says.
    for line in [stale, fresh, audit] {
        let doc = shown(&h.p, "", line["id"].as_str().unwrap());
        assert_eq!(doc["freshness"], line["freshness"], "{line}");
    }

    let hook = stdout_json(&h.p.run("", &["context", "--json"]));
    let additional = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{hook}"))
        .to_string();
    let md = h.p.ok("", &["context"]);
    for (what, text) in [("hook", &additional), ("markdown", &md)] {
        let (s, stale_line) = index_line(text, stale["id"].as_str().unwrap());
        let (f, fresh_line) = index_line(text, fresh["id"].as_str().unwrap());
        let (_, audit_line) = index_line(text, audit["id"].as_str().unwrap());
        assert!(stale_line.ends_with(" stale?"), "{what}: {stale_line}");
        assert!(!fresh_line.contains("stale?"), "{what}: {fresh_line}");
        assert!(!audit_line.contains("stale?"), "{what}: {audit_line}");
        assert!(f < s, "{what}: the stale line comes first:\n{text}");
    }
    assert_eq!(h.p.read(".megg/knowledge.md"), knowledge);
}

/// The same among the session's hits: two entries that one item of the handoff finds with
/// the same score (the same words, the same day) are of equal relevance; once the one ranked
/// first is stale, the fresh one comes first — in the JSON and in the hook.
#[test]
fn a_stale_session_hit_ranks_after_a_fresh_one_of_the_same_score() {
    let (mut h, knowledge) = tie("decision", true);
    let (after, stale, fresh) = break_the_tie(&mut h, "session");
    let title = |l: &Value| l["title"].as_str().unwrap().to_string();
    let (stale_at, stale) = indexed(&after, &title(&stale));
    let (fresh_at, fresh) = indexed(&after, &title(&fresh));
    assert_eq!(stale["why"], "session", "{stale}");
    assert_eq!(fresh["why"], "session", "{fresh}");
    assert_eq!(stale["freshness"]["stale"], true, "{stale}");
    assert!(
        fresh_at < stale_at,
        "the stale session hit still ranks first: {after:?}"
    );
    let hook = stdout_json(&h.p.run("", &["context", "--json"]));
    let text = hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{hook}"));
    let (s, stale_line) = index_line(text, stale["id"].as_str().unwrap());
    let (f, _) = index_line(text, fresh["id"].as_str().unwrap());
    assert!(stale_line.ends_with(" stale?"), "{stale_line}");
    assert!(f < s, "the stale line comes first:\n{text}");
    assert_eq!(h.p.read(".megg/knowledge.md"), knowledge);
}

/// SPEC §14, §17: a session start walks the history once. The first check walks for every
/// entry of the domain, not only those the index shows, so a session about other entries
/// walks nothing; a new commit is walked alone; a warm start walks nothing.
#[test]
fn one_walk_answers_every_entry_and_a_new_commit_costs_only_itself() {
    let mut h = History::new();
    let mut knowledge = String::from("# Knowledge\n");
    let mut entry = |i: usize, date: &str, word: &str| {
        h.put(&format!("src/f{i}.rs"), &source(&format!("src/f{i}.rs")));
        knowledge.push_str(&format!(
            "\n---\n\n## {date} - {word} entry {i}\n**Type:** fact\n**Topics:** {word}\n\nThe {word} rule lives in `src/f{i}.rs`; {}\n",
            "keep the callers in step with it, test both sides, and say why in the commit. ".repeat(3)
        ));
    };
    for i in 0..100 {
        entry(i, "2026-01-10", "padding");
    }
    for i in 100..110 {
        entry(i, "2026-01-05", "alpha");
    }
    for i in 110..120 {
        entry(i, "2026-01-02", "omega");
    }
    h.commit("2026-01-01T00:00:00Z", "start");
    h.p.write(".megg/knowledge.md", &knowledge);
    h.edit("src/f115.rs", 3, 1, &feb(1, 9), "omega edit");
    let log = h.p.cache.path().join("walks.log");
    fn walks(h: &History, log: &Path, session: &str) -> (usize, usize, Vec<Value>) {
        h.p.write(
            ".megg/state.md",
            format!("---\nupdated: 2026-02-02T09:00:00Z\nstatus: active\n---\n## Working On\n{session}\n"),
        );
        let _ = std::fs::remove_file(log);
        let out =
            h.p.megg("")
                .args(["context", "--format", "json"])
                .env("MEGG_NOW", "2026-02-02T10:00:00Z")
                .env("MEGG_FAILPOINTS", format!("log={}", log.display()))
                .output()
                .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let events = std::fs::read_to_string(log).unwrap_or_default();
        let count = |e: &str| events.lines().filter(|l| *l == e).count();
        let index = v["knowledge"]["index"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        (
            count("citations-walk"),
            count("citations-new-commits"),
            index,
        )
    }
    let listed = |index: &[Value], word: &str| {
        index
            .iter()
            .filter(|l| l["title"].as_str().unwrap().starts_with(word))
            .count()
    };
    let (walked, _, index) = walks(&h, &log, "alpha");
    assert_eq!(walked, 1, "a cold start walks once");
    let first: Vec<Value> = index.iter().map(|l| l["id"].clone()).collect();
    assert!(listed(&index, "alpha") >= 5, "{index:#?}");
    assert_eq!(walks(&h, &log, "alpha").0, 0, "a warm start walks nothing");
    // A session about entries the first index did not show: their answers were kept then.
    let (walked, _, index) = walks(&h, &log, "omega");
    let new_ones = index.iter().filter(|l| !first.contains(&l["id"])).count();
    assert!(
        listed(&index, "omega") >= 5 && new_ones >= 4,
        "the index lists entries the first did not: {index:#?}"
    );
    assert_eq!(
        walked, 0,
        "the omega entries were walked for with the first"
    );
    let stale = index
        .iter()
        .find(|l| l["title"] == "omega entry 115")
        .unwrap_or_else(|| panic!("{index:#?}"));
    assert_eq!(stale["freshness"]["paths"][0]["commits"], 1, "{stale}");
    // A new commit: walked alone, and counted.
    h.edit("src/f115.rs", 4, 2, &feb(3, 9), "omega edit again");
    let (walked, new_commits, index) = walks(&h, &log, "omega");
    assert_eq!((walked, new_commits), (0, 1));
    let stale = index
        .iter()
        .find(|l| l["title"] == "omega entry 115")
        .unwrap();
    assert_eq!(stale["freshness"]["paths"][0]["commits"], 2, "{stale}");
}

// Issue 45: `fresh` means checked (SPEC §17 as corrected on 2026-11-29).

/// A repository whose domain, at its top, holds `entries` (`(title, body)`, each dated
/// [`DAY`]), with `files` in a first commit on 2026-01-05.
fn small(entries: &[(&str, &str)], files: &[&str]) -> History {
    let mut h = History::new();
    h.p.domain("", "Small");
    let mut knowledge = String::from("# Knowledge\n");
    for (title, body) in entries {
        knowledge.push_str(&format!(
            "\n---\n\n## {DAY} - {title}\n**Type:** fact\n**Topics:** code\n\n{body}\n"
        ));
    }
    h.p.write(".megg/knowledge.md", &knowledge);
    h.put("README.md", &source("README.md"));
    for f in files {
        h.put(f, &source(f));
    }
    h.commit("2026-01-05T09:00:00Z", "initial");
    h
}

/// The freshness `show --json` gives the entry `search` finds first for `word`.
fn freshness_of(h: &History, word: &str) -> Value {
    let id = hit(&h.p, "", word)["id"].as_str().unwrap().to_string();
    shown(&h.p, "", &id)["freshness"].clone()
}

/// An entry without citations is `uncited` with no paths, never `fresh` — in `show`, `search`
/// and MCP alike; `maintain --check` does not list it. Before: `fresh`, `paths: []`.
#[test]
fn an_entry_without_citations_is_uncited_never_fresh() {
    let h = fixture();
    let want = json!({"status": "uncited", "stale": false, "capped": false, "paths": []});
    let top = hit(&h.p, "", "jackal");
    assert_eq!(top["freshness"], want, "search: {top}");
    assert_eq!(freshness_of(&h, "jackal"), want, "show");
    let r = crate::mcp::call_tool(&h.p, "search", &json!({ "query": "jackal" }));
    assert_eq!(
        r["structuredContent"]["results"][0]["freshness"], want,
        "mcp: {r}"
    );
    let text = h.p.run("", &["maintain", "--check"]).stdout;
    let text = String::from_utf8_lossy(&text).to_lowercase();
    assert!(
        !text.contains("jackal"),
        "an uncited entry is listed:\n{text}"
    );
    let aardvark = freshness_of(&h, "aardvark");
    assert_eq!(aardvark["status"], "fresh", "{aardvark}");
    assert_eq!(aardvark["capped"], false, "{aardvark}");
    untouched(&h);
}

/// A bare file name as people write it (`pool.ts`) cites the one path of the repository that
/// has that name — at HEAD, else in its history; a name several paths have cites nothing.
/// Before: `fresh`, `paths: []`, while `src/db/pool.ts` changed 6 times.
#[test]
fn a_bare_file_name_cites_the_one_path_of_that_name() {
    let mut h = small(
        &[
            (
                "Kiwi pool size",
                "The pool is sized per worker in `pool.ts`.",
            ),
            (
                "Lynx migrations",
                "Run `migrate.ts` before the server starts.",
            ),
            ("Mole cache", "`cache.ts` warms lazily."),
            ("Newt legacy queue", "The old queue was `legacy.ts`."),
        ],
        &[
            "src/db/pool.ts",
            "src/db/migrate.ts",
            "scripts/migrate.ts",
            "src/cache.ts",
            "src/legacy.ts",
        ],
    );
    h.remove("src/legacy.ts");
    h.commit("2026-01-07T09:00:00Z", "drop the legacy queue");
    for n in 1..=6 {
        h.edit(
            "src/db/pool.ts",
            n,
            n,
            &feb(1, 9 + n as u32),
            &format!("pool {n}"),
        );
    }
    h.remove("src/cache.ts");
    h.commit(&feb(2, 10), "drop the cache");

    let kiwi = freshness_of(&h, "kiwi");
    assert_eq!(kiwi["status"], "changed", "{kiwi}");
    assert_eq!(kiwi["stale"], true, "{kiwi}");
    assert_eq!(kiwi["paths"].as_array().unwrap().len(), 1, "{kiwi}");
    assert_eq!(kiwi["paths"][0]["path"], "src/db/pool.ts", "{kiwi}");
    assert_eq!(kiwi["paths"][0]["commits"], 6, "{kiwi}");

    let lynx = freshness_of(&h, "lynx");
    assert_eq!(
        lynx["status"], "uncited",
        "two paths are named migrate.ts: {lynx}"
    );
    assert_eq!(lynx["paths"], json!([]), "{lynx}");

    let mole = freshness_of(&h, "mole");
    assert_eq!(mole["status"], "gone", "{mole}");
    assert_eq!(mole["paths"][0]["path"], "src/cache.ts", "{mole}");

    // Only in the history (deleted before the entry's day): still that path, and not at HEAD.
    let newt = freshness_of(&h, "newt");
    assert_eq!(newt["status"], "gone", "{newt}");
    assert_eq!(newt["paths"][0]["path"], "src/legacy.ts", "{newt}");

    let text = h.p.ok("", &["search", "kiwi"]);
    assert!(
        text.contains("`src/db/pool.ts` changed in 6 commits") && text.contains("stale?"),
        "{text}"
    );
}

/// A cited path that is not at HEAD is never fresh: renamed or deleted later the same day the
/// entry was written, it is `moved` (with its new path) or `gone`. Before: `fresh`, no paths.
#[test]
fn a_path_renamed_or_deleted_the_same_day_is_moved_or_gone() {
    let mut h = small(
        &[
            ("Okapi keeps the router", "The router is `src/a.rs`."),
            ("Puffin keeps the parser", "The parser is `src/d.rs`."),
        ],
        &["src/a.rs", "src/d.rs"],
    );
    h.rename("src/a.rs", "src/b.rs");
    h.commit("2026-01-10T15:00:00Z", "move a to b");
    h.remove("src/d.rs");
    h.commit("2026-01-10T16:00:00Z", "delete d");
    h.edit("README.md", 1, 1, &feb(1, 10), "readme");

    let okapi = freshness_of(&h, "okapi");
    assert_eq!(
        okapi,
        json!({"status": "moved", "stale": false, "capped": false, "paths": [
            {"path": "src/a.rs", "status": "moved", "commits": 0, "new_path": "src/b.rs"}
        ]})
    );
    let puffin = freshness_of(&h, "puffin");
    assert_eq!(puffin["status"], "gone", "{puffin}");
    assert_eq!(puffin["stale"], true, "{puffin}");
    assert_eq!(puffin["paths"][0]["path"], "src/d.rs", "{puffin}");
    let note = show_note(&h.p, "", hit(&h.p, "", "okapi")["id"].as_str().unwrap());
    assert!(note.contains("`src/a.rs` moved to `src/b.rs`"), "{note}");
}

/// A moved path is checked on at its new place: moved, then edited 9 times there, it is
/// `changed` with its `new_path` and the 9 commits after the move (stale); 4 are not stale; a
/// new commit there counts at once (the cache brought up to the new HEAD). Before: `moved`.
#[test]
fn a_path_moved_then_changed_is_changed_at_its_new_place() {
    let mut h = small(
        &[
            ("Quokka handles payments", "Payments are in `src/m.rs`."),
            ("Robin handles refunds", "Refunds are in `src/p.rs`."),
        ],
        &["src/m.rs", "src/p.rs"],
    );
    h.rename("src/m.rs", "src/n.rs");
    h.rename("src/p.rs", "src/q.rs");
    h.commit(&feb(1, 10), "move m to n, p to q");
    for n in 1..=9 {
        h.edit("src/n.rs", n, n, &feb(2, 9 + n as u32), &format!("n {n}"));
    }
    for n in 1..=4 {
        h.edit("src/q.rs", n, n, &feb(3, 9 + n as u32), &format!("q {n}"));
    }
    let quokka = freshness_of(&h, "quokka");
    assert_eq!(
        quokka,
        json!({"status": "changed", "stale": true, "capped": false, "paths": [
            {"path": "src/m.rs", "status": "changed", "commits": 9, "new_path": "src/n.rs"}
        ]})
    );
    let robin = freshness_of(&h, "robin");
    assert_eq!(
        robin,
        json!({"status": "changed", "stale": false, "capped": false, "paths": [
            {"path": "src/p.rs", "status": "changed", "commits": 4, "new_path": "src/q.rs"}
        ]})
    );
    let note = show_note(&h.p, "", hit(&h.p, "", "quokka")["id"].as_str().unwrap());
    assert!(
        note.contains("`src/m.rs` moved to `src/n.rs`, then changed in 9 commits")
            && note.contains("stale?"),
        "{note}"
    );
    h.edit("src/n.rs", 20, 10, &feb(4, 10), "n 10");
    let quokka = freshness_of(&h, "quokka");
    assert_eq!(quokka["paths"][0]["commits"], 10, "{quokka}");
    let out = h.p.run("", &["maintain", "--check", "--json"]);
    let v = stdout_json(&out);
    let e = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "Quokka handles payments")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(e["paths"][0]["commits"], 10, "{e}");
    assert_eq!(e["paths"][0]["touched_by"][0]["summary"], "n 10", "{e}");
}

/// Commits reached only through a merge count: a path deleted, and another edited, on a branch
/// before the entry's day and merged after it are `gone` and `changed` (the commits reachable
/// from HEAD and not from the last first-parent commit of the entry's day). Before: the
/// branch's commits, older than the day, were not seen (`fresh`).
#[test]
fn commits_reached_only_through_a_merge_count() {
    let mut h = small(
        &[(
            "Sloth merges the branch",
            "It reads `src/x.rs` and `src/y.rs`.",
        )],
        &["src/x.rs", "src/y.rs"],
    );
    let initial = h.commits["initial"].clone();
    {
        let base = h
            .git
            .repo
            .find_commit(git2::Oid::from_str(&initial).unwrap())
            .unwrap();
        h.git.repo.branch("side", &base, false).unwrap();
    }
    let edited_y: String = source("src/y.rs").replace("line 3 ", "line 3 (side) ");
    // The branch: x deleted on the 8th, y edited on the 9th.
    h.remove("src/x.rs");
    let side = |h: &History, at: &str, msg: &str| h.git.commit("side", epoch(at), msg);
    side(&h, "2026-01-08T10:00:00Z", "side: delete x");
    h.put("src/y.rs", &edited_y);
    side(&h, "2026-01-09T10:00:00Z", "side: edit y");
    // main on the entry's day, without the branch.
    h.put("src/x.rs", &source("src/x.rs"));
    h.put("src/y.rs", &source("src/y.rs"));
    h.edit("README.md", 2, 1, "2026-01-10T12:00:00Z", "main: readme");
    // The merge, after the day: main's README, the branch's x and y.
    h.remove("src/x.rs");
    h.put("src/y.rs", &edited_y);
    let repo = &h.git.repo;
    let tree = repo
        .find_tree(repo.index().unwrap().write_tree().unwrap())
        .unwrap();
    let tip = |b: &str| {
        repo.find_branch(b, git2::BranchType::Local)
            .unwrap()
            .get()
            .peel_to_commit()
            .unwrap()
    };
    let sig = git2::Signature::new(
        "Test",
        "test@example.com",
        &git2::Time::new(epoch(&feb(1, 10)), 0),
    )
    .unwrap();
    repo.commit(
        Some("refs/heads/main"),
        &sig,
        &sig,
        "merge side",
        &tree,
        &[&tip("main"), &tip("side")],
    )
    .unwrap();

    let sloth = freshness_of(&h, "sloth");
    assert_eq!(sloth["status"], "gone", "{sloth}");
    assert_eq!(sloth["stale"], true, "{sloth}");
    let paths = sloth["paths"].as_array().unwrap();
    let by = |p: &str| {
        paths
            .iter()
            .find(|x| x["path"] == p)
            .unwrap_or_else(|| panic!("{p} not cited: {sloth}"))
    };
    assert_eq!(by("src/x.rs")["status"], "gone", "{sloth}");
    assert_eq!(by("src/y.rs")["status"], "changed", "{sloth}");
    assert_eq!(by("src/y.rs")["commits"], 1, "{sloth}");
}

/// A history longer than the walk's bound is said: `"capped": true` in the freshness JSON and
/// "checked the last N commits" in the text (the bound made small for the test). Before: no
/// `capped`, nothing said.
#[test]
fn a_history_longer_than_the_walk_is_said_capped() {
    let mut h = small(
        &[("Tapir edits a lot", "All of it is in `src/c.rs`.")],
        &["src/c.rs"],
    );
    for n in 1..=40 {
        h.edit(
            "src/c.rs",
            n,
            n,
            &feb(1 + n as u32 / 10, n as u32 % 10 + 8),
            &format!("c {n}"),
        );
    }
    let full = freshness_of(&h, "tapir");
    assert_eq!(full["capped"], false, "{full}");
    assert_eq!(full["paths"][0]["commits"], 40, "{full}");

    let bounded = |args: &[&str]| -> String {
        let out =
            h.p.megg("")
                .args(args)
                .env("MEGG_TEST_WALK_CAP", "30")
                .output()
                .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let v: Value = serde_json::from_str(&bounded(&["search", "tapir", "--json"])).unwrap();
    let f = &v["results"][0]["freshness"];
    assert_eq!(f["capped"], true, "{v}");
    assert_eq!(f["status"], "changed", "{v}");
    assert_eq!(f["stale"], true, "{v}");
    let id = v["results"][0]["id"].as_str().unwrap().to_string();
    let v: Value = serde_json::from_str(&bounded(&["show", &id, "--json"])).unwrap();
    assert_eq!(v["documents"][0]["freshness"]["capped"], true, "{v}");
    for args in [&["search", "tapir"][..], &["show", &id]] {
        let text = bounded(args);
        assert!(
            text.contains("checked the last 30 commits"),
            "{args:?}:\n{text}"
        );
    }
    // Unbounded again: the whole history, nothing said.
    assert_eq!(freshness_of(&h, "tapir"), full);
    let text = h.p.ok("", &["show", &id]);
    assert!(!text.contains("checked the last"), "{text}");
}

/// `maintain --check` (SPEC §17): grouped by path — each path's commits once, then the entries
/// citing it; `--stale` lists only the stale ones; exit 1 only when one is stale, never for a
/// move or a few commits. Before: every entry printed its path's commits again, and a move
/// alone exited 1.
#[test]
fn maintain_check_groups_by_path_lists_stale_alone_and_fails_only_on_stale() {
    let mut h = small(
        &[
            ("Otter pool", "The pool lives in `src/pool.rs`."),
            ("Panda pool size", "`src/pool.rs` sizes it per worker."),
            ("Quail route", "Routes are in `src/route.rs`."),
        ],
        &["src/pool.rs", "src/route.rs"],
    );
    h.rename("src/route.rs", "src/routes.rs");
    h.commit("2026-01-12T09:00:00Z", "rename route to routes");
    // A move alone: listed, not stale, exit 0.
    let out = h.p.run("", &["maintain", "--check"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("src/route.rs") && text.contains("Quail"),
        "{text}"
    );
    for n in 1..=6 {
        h.put(
            "src/pool.rs",
            &format!("{}\n// edit {n}\n", source("src/pool.rs")),
        );
        h.commit(
            &format!("2026-01-{:02}T09:00:00Z", 12 + n),
            &format!("pool: edit {n}"),
        );
    }
    let out = h.p.run("", &["maintain", "--check"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    // Each commit once, though two entries cite the path; both entries named under it.
    for n in 1..=6 {
        assert_eq!(
            text.matches(&format!("pool: edit {n}\n")).count(),
            1,
            "{text}"
        );
    }
    let at = text
        .find("`src/pool.rs` changed in 6 commits")
        .unwrap_or_else(|| panic!("{text}"));
    let below = &text[at..];
    assert!(
        below.contains("Otter pool") && below.contains("Panda pool size"),
        "{text}"
    );
    // JSON keeps one object per entry and adds the groups.
    let v = stdout_json(&h.p.run("", &["maintain", "--check", "--json"]));
    assert_eq!(v["entries"].as_array().unwrap().len(), 3, "{v}");
    let pool = v["by_path"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["path"] == "src/pool.rs")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(pool["commits"], 6, "{v}");
    assert_eq!(pool["entries"].as_array().unwrap().len(), 2, "{v}");
    // --stale: only the stale ones.
    let out = h.p.run("", &["maintain", "--check", "--stale"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Otter pool") && !text.contains("Quail"),
        "{text}"
    );
    let v = stdout_json(&h.p.run("", &["maintain", "--check", "--stale", "--json"]));
    assert!(
        v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["stale"] == true),
        "{v}"
    );
}

/// SPEC §17: a bare name several paths have is no citation, and `learn` says so with the
/// candidates; a bare name one path has, or a path, draws no such warning. Before: silent.
#[test]
fn learn_names_the_candidates_of_a_bare_name_several_paths_have() {
    let h = small(
        &[],
        &["src/db/migrate.ts", "scripts/migrate.ts", "src/db/pool.ts"],
    );
    let learn = |title: &str, body: &str| {
        let out =
            h.p.megg("")
                .args(["learn", title, "fact", "code", body])
                .output()
                .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let err = learn(
        "Run migrations first",
        "Run `migrate.ts` before the server starts.",
    );
    assert!(err.contains("`migrate.ts` names several files"), "{err}");
    assert!(
        err.contains("`src/db/migrate.ts`") && err.contains("`scripts/migrate.ts`"),
        "{err}"
    );
    let err = learn(
        "Pool sizing",
        "The pool is sized in `pool.ts` and `src/db/migrate.ts`.",
    );
    assert!(!err.contains("names several"), "{err}");
}

/// SPEC §17: a query that is a path finds the entries citing that file, not every entry citing
/// code — its directory and extension words (`src`, `ts`) weigh like stopwords. Before: the
/// pool and routes entries matched `src/billing/tax.ts` through `src` and `ts`.
#[test]
fn a_path_query_finds_the_file_not_every_entry_citing_code() {
    let h = small(
        &[
            (
                "Rates are kept in cents",
                "Every rate in `src/billing/tax.ts` is an integer.",
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
    let v = h.p.json("", &["search", "src/billing/tax.ts", "--json"]);
    let titles: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Rates are kept in cents"], "{v:#}");
}

/// What one run of megg in `h` printed (stdout), and how many of each walk it made: the whole
/// walk of the paths (`citations-walk`) and the walk of the commits since a kept HEAD
/// (`citations-new-commits`). `cache` replaces megg's cache directory (a cold one).
fn walked(h: &History, args: &[&str], cache: Option<&Path>) -> (String, usize, usize) {
    let log = h.p.cache.path().join("walked.log");
    let _ = std::fs::remove_file(&log);
    let mut cmd = h.p.megg("");
    cmd.args(args)
        .env("MEGG_FAILPOINTS", format!("log={}", log.display()));
    if let Some(dir) = cache {
        cmd.env("MEGG_CACHE_DIR", dir);
    }
    let out = cmd.output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {out:?}"
    );
    let events = std::fs::read_to_string(&log).unwrap_or_default();
    let count = |e: &str| events.lines().filter(|l| *l == e).count();
    (
        String::from_utf8(out.stdout).unwrap(),
        count("citations-walk"),
        count("citations-new-commits"),
    )
}

/// Issue 45: `maintain --check` keeps the answers of its deeper walk (with the commits it
/// names): a second check at the same HEAD walks nothing and prints the same; a new commit is
/// walked alone, and listed as a cold check lists it; another bound walks again. Before: every
/// check walked the whole history again (2.1 s on 1,000,000 commits).
#[test]
fn maintain_check_keeps_its_walk_and_walks_only_new_commits() {
    let mut h = fixture();
    let check = ["maintain", "--check", "--json"];
    let (first, walks, _) = walked(&h, &check, None);
    assert!(walks >= 1, "a cold check walks");
    let (second, walks, new) = walked(&h, &check, None);
    assert_eq!(
        (walks, new),
        (0, 0),
        "a second check at the same HEAD walks"
    );
    assert_eq!(second, first);
    let (text, walks, _) = walked(&h, &["maintain", "--check"], None);
    assert_eq!(walks, 0, "the text is the same check:\n{text}");

    h.edit(
        "src/twice.rs",
        12,
        3,
        "2026-03-01T10:00:00Z",
        "twice: edit 3",
    );
    let (third, walks, new) = walked(&h, &check, None);
    assert_eq!(walks, 0, "a new commit walks the whole history again");
    assert!(new >= 1, "the new commit is not walked");
    let cold = tempfile::tempdir().unwrap();
    let (whole, walks, _) = walked(&h, &check, Some(cold.path()));
    assert!(walks >= 1);
    assert_eq!(third, whole, "brought up to HEAD, not as a cold check says");
    assert!(third.contains("twice: edit 3"), "{third}");

    // A smaller bound: the kept answers are another walk's, so it walks.
    let log = h.p.cache.path().join("bound.log");
    let out =
        h.p.megg("")
            .args(check)
            .env("MEGG_TEST_WALK_CAP", "5")
            .env("MEGG_FAILPOINTS", format!("log={}", log.display()))
            .output()
            .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["capped"], true, "{v}");
    let events = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(events.lines().any(|l| l == "citations-walk"), "{events}");
    untouched(&h);
}

/// Issue 45: plain `maintain` says in one line how many entries cite code that changed since
/// they were written, from the session start's walk (kept; never `--check`'s deeper one), and
/// its JSON carries the counts. Before: nothing but age.
#[test]
fn plain_maintain_counts_the_entries_whose_cited_code_changed() {
    let h = fixture();
    let (text, walks, _) = walked(&h, &["maintain"], None);
    assert_eq!(walks, 1, "a cold cache: the session start's walk");
    let said: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("megg maintain --check"))
        .collect();
    assert_eq!(
        said,
        [
            "14 entries cite code that changed since they were written (6 stale?): `megg maintain --check` lists them."
        ],
        "{text}"
    );
    // The session start's answers are kept: the next run walks nothing.
    let (again, walks, _) = walked(&h, &["maintain"], None);
    assert_eq!((walks, again.as_str()), (0, text.as_str()));
    let v = h.p.json("", &["maintain", "--json"]);
    assert_eq!(
        v["cited_code"],
        json!({"checked": 17, "changed": 14, "stale": 6, "capped": false, "bound": 10000}),
        "{v}"
    );
    untouched(&h);
}

/// Issue 45: a walk stopped at its bound is said in full-mode context (after the entries whose
/// code changed) and in the session-start index, as `search`, `show` and `maintain --check`
/// say it. Before: only those three said it.
#[test]
fn context_and_the_index_say_a_capped_walk() {
    let mut h = small(
        &[("Tapir edits a lot", "All of it is in `src/c.rs`.")],
        &["src/c.rs"],
    );
    for n in 1..=40 {
        h.edit(
            "src/c.rs",
            n,
            n,
            &feb(1 + n as u32 / 10, n as u32 % 10 + 8),
            &format!("c {n}"),
        );
    }
    let context = |h: &History, args: &[&str], cap: Option<&str>| -> String {
        let mut cmd = h.p.megg("");
        cmd.args(args);
        if let Some(cap) = cap {
            cmd.env("MEGG_TEST_WALK_CAP", cap);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let md = context(&h, &["context"], Some("30"));
    assert!(md.contains("`src/c.rs` changed in 30 commits"), "{md}");
    assert!(
        md.contains("checked the last 30 commits"),
        "full mode:\n{md}"
    );
    let md = context(&h, &["context"], None);
    assert!(!md.contains("checked the last"), "{md}");

    // Summary mode: the index lists the entry, and says the walk's bound.
    let mut knowledge = h.p.read(".megg/knowledge.md");
    for i in 0..150 {
        knowledge.push_str(&format!(
            "\n---\n\n## 2025-12-{:02} - Padding {i}\n**Type:** fact\n**Topics:** pad{}\n\n{}\n",
            i % 28 + 1,
            i % 7,
            "Words that cite nothing and fill the file up to summary mode. ".repeat(3)
        ));
    }
    h.p.write(".megg/knowledge.md", &knowledge);
    let v = h.p.json("", &["context", "--format", "json"]);
    assert_ne!(v["knowledge"]["mode"], "full", "{v}");
    let md = context(&h, &["context"], Some("30"));
    let line = md
        .lines()
        .find(|l| l.contains("Tapir edits a lot"))
        .unwrap_or_else(|| panic!("the index does not list it:\n{md}"));
    assert!(line.ends_with(" stale?"), "{line}");
    assert!(md.contains("checked the last 30 commits"), "index:\n{md}");
    let md = context(&h, &["context"], None);
    assert!(!md.contains("checked the last"), "{md}");
}

/// Issue 45, SPEC §12: `maintain --check` prints a secret in an entry's title as `[redacted]`
/// and says where it is (file and line), as `search` and `show` do. Before: printed as
/// written.
#[test]
fn maintain_check_prints_a_secret_in_a_title_redacted() {
    let key = format!("glpat-{}", "R7tKq2mXw9LpZ4vNc8Yb");
    let title = format!("Rotate {key} weekly");
    let mut h = small(
        &[(title.as_str(), "The token is read in `src/token.rs`.")],
        &["src/token.rs"],
    );
    h.edit("src/token.rs", 3, 1, &feb(1, 9), "token: edit");
    let at = format!(
        "{}:5 holds a secret",
        h.p.path(".megg/knowledge.md").display()
    );
    let out = h.p.run("", &["maintain", "--check"]);
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!text.contains(&key) && !err.contains(&key), "{text}{err}");
    assert!(text.contains("Rotate [redacted] weekly"), "{text}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning:") && l.contains(&at)),
        "{err}"
    );
    let out = h.p.run("", &["maintain", "--check", "--json"]);
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(!json.contains(&key), "{json}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["entries"][0]["title"], "Rotate [redacted] weekly", "{v}");
    // Its id is the one `search` gives, which `show` reads.
    let found = h.p.json("", &["search", "rotate", "--json"]);
    assert_eq!(v["entries"][0]["id"], found["results"][0]["id"], "{found}");
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains(&at)),
        "{v}"
    );
}
