//! Recall over MCP (SPEC §13.6) and at the edges of `megg search` / `megg show` (§13.3, §13.4),
//! on real files with the real binary. The paging tests drive `megg mcp` through both official
//! SDK clients (`tests/mcp/client.py`, `tests/mcp/ts/client.mjs` with `--pages`), which follow
//! `next_cursor` until none is left; without python3 or npm they skip, under `CI` they fail.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::{Value, json};

use crate::Project;
use crate::common::provision;

/// Entries in the ledger project, and how many of them mention the ledger.
const ENTRIES: usize = 320;
const MATCHING: usize = 295;
const TYPES: [&str; 7] = [
    "decision", "pattern", "gotcha", "context", "rule", "fact", "process",
];
/// The caps of SPEC §13.6, in characters of a result's text.
const SEARCH_CAP: usize = 4_000;
const SHOW_CAP: usize = 9_500;

/// One knowledge entry: `ledger` in the first [`MATCHING`], as often as makes the scores differ
/// (and some tie), with bodies long enough to fill snippets.
fn entry(i: usize) -> String {
    let (month, day) = (1 + i % 12, 1 + i % 28);
    let ty = TYPES[i % TYPES.len()];
    let (title, body) = if i < MATCHING {
        let repeats = "ledger balance ".repeat(1 + i % 5);
        let filler =
            "Postings are reconciled nightly and \"closed\" periods stay closed. ".repeat(i % 4);
        (
            format!("Ledger rule {i}"),
            format!("{repeats}\n{filler}\nSee `src/ledger/post_{i}.rs` — é, ü and tabs\there."),
        )
    } else {
        (
            format!("Other note {i}"),
            "Nothing about the books here.".to_string(),
        )
    };
    format!(
        "## 2025-{month:02}-{day:02} - {title}\n**Type:** {ty}\n**Topics:** books, t{}\n\n{body}\n",
        i % 10
    )
}

/// A domain whose knowledge holds [`ENTRIES`] entries, plus `extra` entries after them.
fn ledger(extra: &[String]) -> Project {
    let p = Project::new();
    crate::Git::init(p.root(), "main");
    p.domain("", "Books");
    let mut entries: Vec<String> = (0..ENTRIES).map(entry).collect();
    entries.extend(extra.iter().cloned());
    p.write(
        ".megg/knowledge.md",
        format!(
            "---\ncreated: 2025-01-01T00:00:00Z\ntype: knowledge\n---\n# Knowledge\n\n---\n\n{}",
            entries.join("\n---\n\n")
        ),
    );
    p
}

fn ids(results: &Value) -> Vec<String> {
    results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// The official SDK clients.
#[derive(Debug, Clone, Copy)]
enum Sdk {
    Python,
    TypeScript,
}

impl Sdk {
    /// Every page of `tool` called with `args` and then with each `next_cursor`, as the client
    /// saw them; `None` when the client cannot be installed here (the test then skips).
    fn pages(self, p: &Project, tool: &str, args: &Value) -> Option<Vec<Value>> {
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut cmd = match self {
            Sdk::Python => {
                let mut c = Command::new(provision::mcp_python()?);
                c.arg(manifest.join("tests/mcp/client.py"));
                c
            }
            Sdk::TypeScript => {
                let mut c = Command::new("node");
                c.arg(provision::mcp_typescript()?.join("client.mjs"));
                c
            }
        };
        let out = cmd
            .arg(assert_cmd::cargo::cargo_bin("megg"))
            .arg(p.root())
            .args(["--pages", tool, &args.to_string()])
            .env("HOME", p.root())
            .env("MEGG_CEILING_DIRS", p.root().parent().unwrap())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{self:?} client failed\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        Some(v["pages"].as_array().unwrap().clone())
    }
}

/// Each page's structured document, after checking that the page is a success, that its text
/// is the same JSON, and that the text is within `cap` characters.
fn documents(sdk: Sdk, pages: &[Value], cap: usize) -> Vec<Value> {
    pages
        .iter()
        .enumerate()
        .map(|(n, page)| {
            assert!(page.get("error").is_none(), "{sdk:?} page {n}: {page}");
            let text = page["text"].as_str().unwrap();
            let chars = text.chars().count();
            assert!(chars <= cap, "{sdk:?} page {n}: {chars} characters > {cap}");
            let doc: Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                doc, page["structured"],
                "{sdk:?} page {n}: text = structured"
            );
            doc
        })
        .collect()
}

/// The ids of every hit of `query`, found through the CLI one type at a time (each type has
/// fewer than 100 hits, the CLI's largest `--limit`).
fn every_hit(p: &Project, query: &str) -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for ty in TYPES {
        let v = p.json(
            "",
            &["search", query, "--type", ty, "--limit", "100", "--json"],
        );
        assert!(v["total"].as_u64().unwrap() < 100, "{ty}: {}", v["total"]);
        all.extend(ids(&v["results"]));
    }
    all
}

/// SPEC §13.6, reviewer's case: 295 matches, and paging stopped at the 100th. Following
/// `next_cursor` from the first page visits every hit exactly once, in rank order; with
/// `limit`, exactly the CLI's top `limit`.
#[test]
fn search_pages_visit_every_hit_once_in_rank_order() {
    let p = ledger(&[]);
    let all = every_hit(&p, "ledger");
    assert_eq!(all.len(), MATCHING);
    let top100 = ids(&p.json("", &["search", "ledger", "--limit", "100", "--json"])["results"]);
    let top37 = ids(&p.json("", &["search", "ledger", "--limit", "37", "--json"])["results"]);
    for sdk in [Sdk::Python, Sdk::TypeScript] {
        let Some(pages) = sdk.pages(&p, "search", &json!({"query": "ledger"})) else {
            continue;
        };
        let docs = documents(sdk, &pages, SEARCH_CAP);
        assert!(docs.len() > 10, "{sdk:?}: {} pages", docs.len());
        let visited: Vec<String> = docs.iter().flat_map(|d| ids(&d["results"])).collect();
        assert_eq!(visited.len(), MATCHING, "{sdk:?}: every hit, once");
        assert_eq!(visited.iter().cloned().collect::<BTreeSet<_>>(), all);
        assert_eq!(visited[..100], top100[..], "{sdk:?}: in rank order");
        let scores: Vec<f64> = docs
            .iter()
            .flat_map(|d| d["results"].as_array().unwrap().clone())
            .map(|r| r["score"].as_f64().unwrap())
            .collect();
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]),
            "{sdk:?}: {scores:?}"
        );
        for d in &docs {
            assert_eq!(d["total"], MATCHING, "{sdk:?}");
            assert!(!d["results"].as_array().unwrap().is_empty(), "{sdk:?}: {d}");
        }
        // `limit` caps the whole walk, not a page.
        let Some(pages) = sdk.pages(&p, "search", &json!({"query": "ledger", "limit": 37})) else {
            continue;
        };
        let docs = documents(sdk, &pages, SEARCH_CAP);
        assert!(docs.len() > 1, "{sdk:?}: {} pages", docs.len());
        let visited: Vec<String> = docs.iter().flat_map(|d| ids(&d["results"])).collect();
        assert_eq!(visited, top37, "{sdk:?}");
    }
}

/// A long entry (quotes, backslashes, tabs and accents, so that its JSON is longer than its
/// text) and a medium one, beside the ledger.
fn long_entries() -> Vec<String> {
    let line =
        |n: usize| format!("Step {n}: export \"rows\" to C:\\audit\\{n}.csv\t— café ü <ok>\n");
    let long: String = (0..420).map(line).collect();
    let medium: String = (0..100).map(line).collect();
    vec![
        format!(
            "## 2026-05-01 - Audit trail export format\n**Type:** process\n**Topics:** audit\n\n{long}"
        ),
        format!(
            "## 2026-05-02 - Reconciliation runbook\n**Type:** process\n**Topics:** audit\n\n{medium}"
        ),
    ]
}

/// SPEC §13.6, reviewer's cases: `show` of many ids paged by documents while its warnings spoke
/// of one the page no longer held; a missing id at the front made the cursor count documents,
/// not ids, so one was shown twice; a document over the cap was cut with no way to the rest.
/// Following `next_cursor` returns every document whole (a long one across pages), in order,
/// exactly once, each page within 9,500 characters and its warnings about itself only.
#[test]
fn show_pages_return_every_document_whole_in_order_once() {
    let p = ledger(&long_entries());
    let first =
        |q: &str| ids(&p.json("", &["search", q, "--limit", "1", "--json"])["results"])[0].clone();
    let (long, medium) = (first("audit trail export"), first("reconciliation runbook"));
    let top = ids(&p.json("", &["search", "ledger", "--limit", "40", "--json"])["results"]);
    let mut asked: Vec<String> = vec!["kzzzzzzz".into()];
    asked.extend(top[..20].iter().cloned());
    asked.push(long.clone());
    asked.push("kyyyyyyy".into());
    asked.push(medium.clone());
    asked.extend(top[20..].iter().cloned());
    // What each id is, whole, from the CLI.
    let mut all = vec!["show", "--json", "--max-chars", "10000000"];
    all.extend(asked.iter().map(String::as_str));
    let out = p.run("", &all);
    assert_eq!(out.status.code(), Some(1));
    let whole: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected: Vec<(String, String)> = whole["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap().into(),
                d["text"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(expected.len(), asked.len() - 2);
    let long_text = &expected.iter().find(|(id, _)| *id == long).unwrap().1;
    assert!(
        long_text.chars().count() > 2 * SHOW_CAP,
        "{}",
        long_text.len()
    );
    for sdk in [Sdk::Python, Sdk::TypeScript] {
        let Some(pages) = sdk.pages(&p, "show", &json!({ "ids": asked })) else {
            continue;
        };
        let docs = documents(sdk, &pages, SHOW_CAP);
        let mut got: Vec<(String, String)> = Vec::new();
        let mut missing = Vec::new();
        let mut long_pages = 0;
        for (n, d) in docs.iter().enumerate() {
            let here: Vec<String> = ids(&d["documents"])
                .into_iter()
                .chain(
                    d["missing"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|m| m.as_str().unwrap().to_string()),
                )
                .collect();
            for w in d["warnings"].as_array().unwrap() {
                let w = w.as_str().unwrap();
                for id in asked.iter().filter(|id| w.contains(id.as_str())) {
                    assert!(
                        here.contains(id),
                        "{sdk:?} page {n} warns of {id}, not on it: {w}"
                    );
                }
            }
            assert_eq!(
                pages[n]["is_error"],
                !d["missing"].as_array().unwrap().is_empty(),
                "{sdk:?} page {n}: an error exactly when an id is missing"
            );
            missing.extend(d["missing"].as_array().unwrap().iter().cloned());
            for doc in d["documents"].as_array().unwrap() {
                let (id, text) = (doc["id"].as_str().unwrap(), doc["text"].as_str().unwrap());
                long_pages += usize::from(id == long);
                match got.last_mut() {
                    // The rest of a document cut at the end of the page before.
                    Some((last, so_far)) if last == id => so_far.push_str(text),
                    _ => got.push((id.to_string(), text.to_string())),
                }
            }
        }
        assert_eq!(
            missing,
            ["kzzzzzzz", "kyyyyyyy"],
            "{sdk:?}: each missing id once"
        );
        assert!(
            long_pages >= 3,
            "{sdk:?}: the long entry spans pages ({long_pages})"
        );
        assert_eq!(got.len(), expected.len(), "{sdk:?}");
        for (n, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g.0, e.0, "{sdk:?}: document {n} in order");
            assert!(
                g.1 == e.1,
                "{sdk:?}: {} whole ({} of {} characters)",
                g.0,
                g.1.len(),
                e.1.len()
            );
        }
    }
}

/// SPEC §13.4: the hint for an id that no longer resolves was printed in text mode only.
#[test]
fn show_json_names_the_missing_id_with_the_hint() {
    let p = ledger(&[]);
    let id =
        ids(&p.json("", &["search", "ledger", "--limit", "1", "--json"])["results"])[0].clone();
    let out = p.run("", &["show", &id, "kzzzzzzz", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["missing"], json!(["kzzzzzzz"]));
    assert_eq!(v["documents"][0]["id"], id.as_str());
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("kzzzzzzz") && warnings.contains("megg search"),
        "{v}"
    );
}

/// SPEC §13.3 `--type` takes §2.2's types: an unknown one was a silent "No match".
#[test]
fn an_unknown_type_is_a_usage_error_naming_the_types() {
    let p = ledger(&[]);
    let out = p.run("", &["search", "ledger", "--type", "idea"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for ty in TYPES {
        assert!(stderr.contains(ty), "{ty}: {stderr}");
    }
    // Any case, as entries written by hand spell them.
    assert_eq!(
        p.json("", &["search", "ledger", "--type", "Gotcha", "--json"])["total"],
        p.json("", &["search", "ledger", "--type", "gotcha", "--json"])["total"]
    );
    for sdk in [Sdk::Python, Sdk::TypeScript] {
        let Some(pages) = sdk.pages(&p, "search", &json!({"query": "ledger", "type": "idea"}))
        else {
            continue;
        };
        assert_eq!(pages.len(), 1, "{sdk:?}");
        let said = match pages[0].get("error") {
            Some(e) => e.to_string(),
            None => {
                assert_eq!(pages[0]["is_error"], true, "{sdk:?}: {}", pages[0]);
                pages[0]["text"].to_string()
            }
        };
        assert!(said.contains("idea"), "{sdk:?}: {said}");
        for ty in TYPES {
            assert!(said.contains(ty), "{sdk:?} {ty}: {said}");
        }
        // A limit out of range and a cursor that is no position are errors naming them.
        for (tool, args, needle) in [
            (
                "search",
                json!({"query": "ledger", "limit": 0}),
                "limit: 0 is not in 1–100",
            ),
            (
                "search",
                json!({"query": "ledger", "cursor": "x"}),
                "cursor: \"x\"",
            ),
            (
                "search",
                json!({"query": "ledger", "cursor": "400"}),
                "past the 295",
            ),
            (
                "show",
                json!({"ids": ["kzzzzzzz"], "cursor": "1"}),
                "cursor: 1 is not",
            ),
            (
                "show",
                json!({"ids": ["kzzzzzzz"], "cursor": "0:5"}),
                "cursor: 0:5 is not",
            ),
        ] {
            let page = &sdk.pages(&p, tool, &args).unwrap()[0];
            assert_eq!(page["is_error"], true, "{sdk:?} {args}: {page}");
            assert!(
                page["text"].as_str().unwrap().contains(needle),
                "{sdk:?}: {page}"
            );
        }
    }
}
