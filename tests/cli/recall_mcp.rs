//! Recall over MCP (SPEC §13.6) and at the edges of `megg search` / `megg show` (§13.3, §13.4),
//! on real files with the real binary. The paging tests drive `megg mcp` through raw JSON-RPC
//! (`mcp::call_tool`, on every machine) and both official SDK clients (`tests/mcp/client.py`,
//! `tests/mcp/ts/client.mjs` with `--pages`), each following `next_cursor` until none is left;
//! without python3 or npm the SDK clients skip, under `CI` they fail.

use std::collections::BTreeSet;
use std::process::Command;

use proptest::prelude::*;
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

/// The clients that walk the pages: raw JSON-RPC and the official SDKs.
#[derive(Debug, Clone, Copy)]
enum Client {
    Raw,
    Python,
    TypeScript,
}

/// Most pages one walk may take (a cursor that never ends is a failure).
const MAX_PAGES: usize = 500;

impl Client {
    const ALL: [Client; 3] = [Client::Raw, Client::Python, Client::TypeScript];

    /// Every page of `tool` called with `args` and then with each `next_cursor`, as the client
    /// saw them (`{"text", "structured", "is_error"}` or `{"error"}`); `None` when an SDK client
    /// cannot be installed here (the test then skips it).
    fn pages(self, p: &Project, tool: &str, args: &Value) -> Option<Vec<Value>> {
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut cmd = match self {
            Client::Raw => return Some(raw_pages(p, tool, args)),
            Client::Python => {
                let mut c = Command::new(provision::mcp_python()?);
                c.arg(manifest.join("tests/mcp/client.py"));
                c
            }
            Client::TypeScript => {
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

/// [`Client::pages`] through raw JSON-RPC, one fresh session per page.
fn raw_pages(p: &Project, tool: &str, args: &Value) -> Vec<Value> {
    let mut args = args.clone();
    let mut pages = Vec::new();
    while pages.len() < MAX_PAGES {
        let r = crate::mcp::call_tool(p, tool, &args);
        if r.get("error").is_some() {
            pages.push(r);
            break;
        }
        let structured = r.get("structuredContent").cloned().unwrap_or(Value::Null);
        pages.push(json!({
            "text": r["content"][0]["text"],
            "structured": structured,
            "is_error": r["isError"] == true,
        }));
        let Some(cursor) = structured.get("next_cursor") else {
            break;
        };
        args["cursor"] = cursor.clone();
    }
    pages
}

/// Each page's structured document, after checking that the page is a success, that its text
/// is the same JSON, and that the text is within `cap` characters.
fn documents(client: Client, pages: &[Value], cap: usize) -> Vec<Value> {
    pages
        .iter()
        .enumerate()
        .map(|(n, page)| {
            assert!(page.get("error").is_none(), "{client:?} page {n}: {page}");
            let text = page["text"].as_str().unwrap();
            let chars = text.chars().count();
            assert!(
                chars <= cap,
                "{client:?} page {n}: {chars} characters > {cap}"
            );
            let doc: Value = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("{client:?} page {n} ({e}): {text}"));
            assert_eq!(
                doc, page["structured"],
                "{client:?} page {n}: text = structured"
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
    for client in Client::ALL {
        let Some(pages) = client.pages(&p, "search", &json!({"query": "ledger"})) else {
            continue;
        };
        let docs = documents(client, &pages, SEARCH_CAP);
        assert!(docs.len() > 10, "{client:?}: {} pages", docs.len());
        let visited: Vec<String> = docs.iter().flat_map(|d| ids(&d["results"])).collect();
        assert_eq!(visited.len(), MATCHING, "{client:?}: every hit, once");
        assert_eq!(visited.iter().cloned().collect::<BTreeSet<_>>(), all);
        assert_eq!(visited[..100], top100[..], "{client:?}: in rank order");
        let scores: Vec<f64> = docs
            .iter()
            .flat_map(|d| d["results"].as_array().unwrap().clone())
            .map(|r| r["score"].as_f64().unwrap())
            .collect();
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]),
            "{client:?}: {scores:?}"
        );
        for d in &docs {
            assert_eq!(d["total"], MATCHING, "{client:?}");
            assert!(
                !d["results"].as_array().unwrap().is_empty(),
                "{client:?}: {d}"
            );
        }
        // `limit` caps the whole walk, not a page.
        let Some(pages) = client.pages(&p, "search", &json!({"query": "ledger", "limit": 37}))
        else {
            continue;
        };
        let docs = documents(client, &pages, SEARCH_CAP);
        assert!(docs.len() > 1, "{client:?}: {} pages", docs.len());
        let visited: Vec<String> = docs.iter().flat_map(|d| ids(&d["results"])).collect();
        assert_eq!(visited, top37, "{client:?}");
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
    for client in Client::ALL {
        let Some(pages) = client.pages(&p, "show", &json!({ "ids": asked })) else {
            continue;
        };
        let docs = documents(client, &pages, SHOW_CAP);
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
                        "{client:?} page {n} warns of {id}, not on it: {w}"
                    );
                }
            }
            assert_eq!(
                pages[n]["is_error"],
                !d["missing"].as_array().unwrap().is_empty(),
                "{client:?} page {n}: an error exactly when an id is missing"
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
            "{client:?}: each missing id once"
        );
        assert!(
            long_pages >= 3,
            "{client:?}: the long entry spans pages ({long_pages})"
        );
        assert_eq!(got.len(), expected.len(), "{client:?}");
        for (n, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g.0, e.0, "{client:?}: document {n} in order");
            assert!(
                g.1 == e.1,
                "{client:?}: {} whole ({} of {} characters)",
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
    for client in Client::ALL {
        let Some(pages) = client.pages(&p, "search", &json!({"query": "ledger", "type": "idea"}))
        else {
            continue;
        };
        assert_eq!(pages.len(), 1, "{client:?}");
        let said = match pages[0].get("error") {
            Some(e) => e.to_string(),
            None => {
                assert_eq!(pages[0]["is_error"], true, "{client:?}: {}", pages[0]);
                pages[0]["text"].to_string()
            }
        };
        assert!(said.contains("idea"), "{client:?}: {said}");
        for ty in TYPES {
            assert!(said.contains(ty), "{client:?} {ty}: {said}");
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
            let page = &client.pages(&p, tool, &args).unwrap()[0];
            assert_eq!(page["is_error"], true, "{client:?} {args}: {page}");
            assert!(
                page["text"].as_str().unwrap().contains(needle),
                "{client:?}: {page}"
            );
        }
    }
}

/// A domain whose knowledge holds these entries, `(title, topics, body)`, in this order.
fn entries(list: &[(String, Vec<String>, String)]) -> Project {
    let p = Project::new();
    crate::Git::init(p.root(), "main");
    p.domain("", "Books");
    let body: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(i, (title, topics, body))| {
            format!(
                "## 2025-01-{:02} - {title}\n**Type:** fact\n**Topics:** {}\n\n{body}\n",
                1 + i % 28,
                topics.join(", ")
            )
        })
        .collect();
    p.write(
        ".megg/knowledge.md",
        format!(
            "---\ncreated: 2025-01-01T00:00:00Z\ntype: knowledge\n---\n# Knowledge\n\n---\n\n{}",
            body.join("\n---\n\n")
        ),
    );
    p
}

/// Each document's id and text.
fn texts(documents: &Value) -> Vec<(String, String)> {
    documents
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["id"].as_str().unwrap().into(),
                d["text"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// Characters of a string as a page's JSON holds it (quotes, `\"`, `\u0001` counted).
fn json_len(s: &str) -> usize {
    Value::from(s).to_string().chars().count() - 2
}

/// Every page's documents, after checking each is a success within `cap`, for each of
/// `clients` that runs here.
fn walk(
    clients: &[Client],
    p: &Project,
    tool: &str,
    args: &Value,
    cap: usize,
) -> Vec<(Client, Vec<Value>, Vec<Value>)> {
    clients
        .iter()
        .filter_map(|&client| {
            let pages = client.pages(p, tool, args)?;
            assert!(
                pages.len() < MAX_PAGES,
                "{client:?}: the cursor never ended"
            );
            let docs = documents(client, &pages, cap);
            Some((client, pages, docs))
        })
        .collect()
}

/// SPEC §7, §13.6, reviewer's case: a missing id was echoed whole twice, in `missing` and in
/// the hint — an id of 20,000 characters gave a `show` page of 40,199. Echoed ids are cut to 64
/// characters of JSON (`…`), and a page of many missing ids holds as many as fit, the rest on the
/// next; each is named once over the walk, the document between them shown once.
#[test]
fn show_pages_stay_within_the_cap_whatever_the_ids() {
    let p = entries(&[("Ledger rule".into(), vec!["books".into()], "ledger".into())]);
    let real = ids(&p.json("", &["search", "ledger", "--json"])["results"])[0].clone();
    for (_, _, docs) in walk(
        &Client::ALL,
        &p,
        "show",
        &json!({"ids": ["x".repeat(20_000)]}),
        SHOW_CAP,
    ) {
        assert_eq!(docs.len(), 1);
        let missing = docs[0]["missing"][0].as_str().unwrap();
        assert!(
            missing.starts_with("xxxx") && missing.ends_with('…'),
            "{missing}"
        );
        assert!(json_len(missing) <= 64, "{missing}");
    }
    let hostile = |i: usize| format!("k{i}\u{1}\"\\{}", "\u{7}é".repeat(20));
    let mut asked: Vec<String> = (0..200).map(hostile).collect();
    asked.insert(120, real.clone());
    for (client, _, docs) in walk(&Client::ALL, &p, "show", &json!({ "ids": asked }), SHOW_CAP) {
        assert!(docs.len() > 1, "{client:?}: {} pages", docs.len());
        let missing: Vec<&str> = docs
            .iter()
            .flat_map(|d| d["missing"].as_array().unwrap())
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(missing.len(), 200, "{client:?}: each missing id once");
        for (i, m) in missing.iter().enumerate() {
            assert!(m.starts_with(&format!("k{i}\u{1}")), "{client:?} {i}: {m}");
            assert!(json_len(m) <= 64 && m.ends_with('…'), "{client:?}: {m}");
        }
        let shown: Vec<String> = docs.iter().flat_map(|d| ids(&d["documents"])).collect();
        assert_eq!(shown, std::slice::from_ref(&real), "{client:?}");
    }
}

/// SPEC §13.6, reviewer's cases: the echoed query was never shortened (a query of control
/// characters, 6 characters each in JSON, gave a page of 6,227), nor were topics (an entry with
/// 600 gave 7,443); and a long title was cut by its length in characters for an overflow
/// measured in JSON, snippet first, so a title of `q"\` × 2,000 came back empty, with an empty
/// snippet and no `…`, where some 2,000 characters fit. Every page is within 4,000 characters;
/// what is cut is marked `…` and keeps what fits.
#[test]
fn search_pages_stay_within_the_cap_whatever_the_query_and_entries() {
    let topics: Vec<String> = (0..600).map(|i| format!("topic{i}")).collect();
    let p = entries(&[
        (
            format!("{} doc", "q\"\\".repeat(2_000)),
            vec!["a".into()],
            "doc body here, the first lines of it".into(),
        ),
        ("Many topics doc".into(), topics, "doc body".into()),
    ]);
    let query = format!("doc {}", "\u{1}".repeat(996));
    for (client, _, docs) in walk(
        &Client::ALL,
        &p,
        "search",
        &json!({ "query": query }),
        SEARCH_CAP,
    ) {
        let results: Vec<&Value> = docs
            .iter()
            .flat_map(|d| d["results"].as_array().unwrap())
            .collect();
        assert_eq!(results.len(), 2, "{client:?}: every hit once");
        for d in &docs {
            let q = d["query"].as_str().unwrap();
            assert!(
                q.starts_with("doc \u{1}") && q.ends_with('…'),
                "{client:?}: {q:?}"
            );
        }
        let long = results
            .iter()
            .find(|r| r["title"].as_str().unwrap().starts_with("q\"\\"))
            .unwrap_or_else(|| panic!("{client:?}: {results:?}"));
        let (title, snippet) = (
            long["title"].as_str().unwrap(),
            long["snippet"].as_str().unwrap(),
        );
        assert!(title.ends_with('…'), "{client:?}: {title}");
        assert!(
            json_len(title) >= 1_000,
            "{client:?}: {} characters",
            json_len(title)
        );
        assert!(snippet.contains("doc body"), "{client:?}: {snippet:?}");
        let many = results
            .iter()
            .find(|r| r["title"] == "Many topics doc")
            .unwrap();
        let topics = many["topics"].as_array().unwrap();
        assert!(
            (1..600).contains(&topics.len()) && topics[0] == "topic0",
            "{client:?}: {} topics",
            topics.len()
        );
        assert!(
            topics.last().unwrap().as_str().unwrap().starts_with('…'),
            "{client:?}: {topics:?}"
        );
    }
}

/// SPEC §13.4: "ids look like k3f9a2xq" was added or not by the first missing id alone, so
/// `show kzzzzzzz bogus` never said it of `bogus`. Each id gets the hint that fits it.
#[test]
fn the_missing_id_hint_is_decided_per_id() {
    let p = entries(&[("Ledger rule".into(), vec!["books".into()], "ledger".into())]);
    let hints = |warnings: &Value| -> (String, String) {
        let w: Vec<&str> = warnings
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        let find = |needle: &str| {
            w.iter()
                .find(|w| w.contains(needle))
                .unwrap_or_else(|| panic!("{needle}: {w:?}"))
                .to_string()
        };
        (find("kzzzzzzz"), find("bogus"))
    };
    for order in [["kzzzzzzz", "bogus"], ["bogus", "kzzzzzzz"]] {
        let out = p.run("", &["show", order[0], order[1], "--json"]);
        assert_eq!(out.status.code(), Some(1));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let (well_formed, bogus) = hints(&v["warnings"]);
        assert!(
            bogus.contains("ids look like k3f9a2xq"),
            "{order:?}: {bogus}"
        );
        assert!(
            !well_formed.contains("ids look like"),
            "{order:?}: {well_formed}"
        );
        assert!(
            well_formed.contains("title or date changed"),
            "{order:?}: {well_formed}"
        );
        let r = crate::mcp::call_tool(&p, "show", &json!({ "ids": order }));
        let (well_formed, bogus) = hints(&r["structuredContent"]["warnings"]);
        assert!(
            bogus.contains("ids look like k3f9a2xq"),
            "{order:?}: {bogus}"
        );
        assert!(
            !well_formed.contains("ids look like"),
            "{order:?}: {well_formed}"
        );
    }
}

/// Text of up to `max` characters an agent or a hostile file might hold: quotes, backslashes,
/// control characters (6 characters each in JSON), accents, CJK, spaces and letters.
fn hostile_text(max: usize) -> impl Strategy<Value = String> {
    let c = prop_oneof![
        3 => proptest::char::range('a', 'z'),
        1 => Just(' '),
        1 => Just('"'),
        1 => Just('\\'),
        1 => proptest::char::range('\u{1}', '\u{8}'),
        1 => Just('\u{1f}'),
        1 => Just('é'),
        1 => Just('字'),
    ];
    proptest::collection::vec(c, 0..max).prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// SPEC §7, §13.6 over hostile inputs: long and escaped queries, titles, topics lists and ids.
    /// Every `search` page is within 4,000 characters and following `next_cursor` visits each hit
    /// of the CLI's search once, in its order; every `show` page is within 9,500 and the walk
    /// returns each document whole, in order, and names each missing id once.
    #[test]
    fn every_page_is_within_its_cap_and_the_walk_visits_each_once(
        list in proptest::collection::vec(
            (
                hostile_text(3_000),
                proptest::collection::vec("[a-z\"\\\\\u{1}é]{1,12}", 0..700),
                hostile_text(600),
            ),
            1..5,
        ),
        query in hostile_text(1_200),
        bogus in proptest::collection::vec(
            prop_oneof![hostile_text(2_000).prop_map(|b| format!("x{b}")), "[khi][a-z0-9]{7}"],
            0..6,
        ),
    ) {
        let list: Vec<(String, Vec<String>, String)> = list
            .into_iter()
            .map(|(title, topics, body)| (format!("{title} zebra"), topics, format!("zebra {body}")))
            .collect();
        let p = entries(&list);
        // Quotes around `zebra` only: a phrase of random words would match nothing.
        let query = format!("\"zebra\" {}", query.replace('"', "\\"));
        p.write("query.txt", &query);
        let cli = p.json("", &["search", "--query-file", "query.txt", "--limit", "100", "--json"]);
        let hits = ids(&cli["results"]);
        prop_assert!(cli["total"].as_u64().unwrap() <= 100);
        for (client, _, docs) in walk(&[Client::Raw], &p, "search", &json!({ "query": query }), SEARCH_CAP) {
            let visited: Vec<String> = docs.iter().flat_map(|d| ids(&d["results"])).collect();
            prop_assert_eq!(&visited, &hits, "{:?}", client);
        }
        let mut whole = vec!["show", "--json", "--max-chars", "10000000"];
        whole.extend(hits.iter().map(String::as_str));
        let expected: Vec<(String, String)> = if hits.is_empty() {
            Vec::new()
        } else {
            texts(&p.json("", &whole)["documents"])
        };
        let mut asked: Vec<String> = hits.clone();
        for (i, b) in bogus.iter().enumerate() {
            asked.insert((i * 2).min(asked.len()), b.clone());
        }
        if asked.is_empty() {
            return Ok(());
        }
        for (client, _, docs) in walk(&[Client::Raw], &p, "show", &json!({ "ids": asked }), SHOW_CAP) {
            let missing: usize = docs.iter().map(|d| d["missing"].as_array().unwrap().len()).sum();
            prop_assert_eq!(missing, bogus.len(), "{:?}", client);
            let mut got: Vec<(String, String)> = Vec::new();
            for (id, text) in docs.iter().flat_map(|d| texts(&d["documents"])) {
                match got.last_mut() {
                    // The rest of a document cut at the end of the page before.
                    Some((last, so_far)) if *last == id => so_far.push_str(&text),
                    _ => got.push((id, text)),
                }
            }
            prop_assert!(got == expected, "{:?}: documents whole, in order, once", client);
        }
    }
}
