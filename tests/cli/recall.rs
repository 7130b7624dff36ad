//! Recall on demand (SPEC §13): `megg search` and `megg show` on real files — knowledge,
//! archives, info sections and every handoff megg kept — and what they do with bad input.

use std::process::Output;

use proptest::prelude::*;
use serde_json::Value;

use crate::{Git, Project};

const KNOWLEDGE: &str = "---\ncreated: 2026-01-01T00:00:00Z\ntype: knowledge\n---\n# Knowledge\n\n---\n\n## 2026-01-17 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\nSessions use JWTs in httpOnly cookies; never localStorage.\n\n---\n\n## 2026-02-01 - Retry payment webhooks\n**Type:** gotcha\n**Topics:** payments\n\nStripe retries webhooks; handlers must be idempotent (parseWebhookEvent).\n\n---\n\n## 2026-03-05 - Money is stored in cents\n**Type:** rule\n**Topics:** payments, db\n\nAmounts are integers in cents; never floats.\n";

const ARCHIVE: &str = "# Archive\n\n---\n\n## 2025-03-01 - Migrations run in CI\n**Type:** decision\n**Topics:** db\n\nMigrations never run at boot: the deploy job runs them.\n";

/// A git repository with one domain: knowledge, an archive, an info file.
fn shop() -> Project {
    let p = Project::new();
    Git::init(p.root(), "main");
    p.domain("", "Shop");
    p.write(".megg/knowledge.md", KNOWLEDGE);
    p.write(".megg/archive/knowledge-2025.md", ARCHIVE);
    p.write(
        ".megg/info.md",
        "---\ntype: context\n---\n\n# Shop\n\n## Context\nAn online tea shop.\n\n## Deploys\nBlue-green deploys from the release branch.\n",
    );
    p
}

fn search(p: &Project, args: &[&str]) -> Value {
    let mut all = vec!["search"];
    all.extend(args);
    all.push("--json");
    p.json("", &all)
}

fn titles(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_string())
        .collect()
}

fn first_id(v: &Value) -> String {
    v["results"][0]["id"].as_str().unwrap().to_string()
}

#[test]
fn search_finds_entries_archives_and_info_the_way_a_developer_types() {
    let p = shop();
    // Stemming: "retried" finds "retries"; identifiers split: "webhook event" finds
    // parseWebhookEvent; archived entries stay searchable.
    assert_eq!(
        titles(&search(&p, &["retried"])),
        ["Retry payment webhooks"]
    );
    assert_eq!(
        titles(&search(&p, &["parse webhook event"]))[0],
        "Retry payment webhooks"
    );
    let v = search(&p, &["do migrations run at boot"]);
    assert_eq!(titles(&v)[0], "Migrations run in CI", "{v}");
    assert_eq!(v["results"][0]["kind"], "archive");
    assert_eq!(v["results"][0]["line"], 5);
    let deploys = search(&p, &["blue-green"]);
    assert_eq!(deploys["results"][0]["kind"], "info", "{deploys}");
    // Every field of a result.
    let v = search(&p, &["cents"]);
    let r = &v["results"][0];
    for key in [
        "id", "kind", "path", "line", "date", "type", "title", "topics", "score", "snippet",
    ] {
        assert!(r.get(key).is_some(), "{key} missing: {r}");
    }
    assert_eq!(r["type"], "rule");
    assert_eq!(r["date"], "2026-03-05");
    assert_eq!(v["total"], 1);
}

#[test]
fn filters_limit_phrases_and_same_bytes_every_time() {
    let p = shop();
    assert_eq!(
        titles(&search(&p, &["payments", "--type", "gotcha"])),
        ["Retry payment webhooks"]
    );
    assert_eq!(
        titles(&search(
            &p,
            &["never", "--topic", "db", "--in", "knowledge"]
        )),
        ["Money is stored in cents"]
    );
    assert_eq!(
        titles(&search(&p, &["never", "--since", "2026-02-01"])),
        ["Money is stored in cents"]
    );
    assert_eq!(
        search(&p, &["never", "--limit", "1"])["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(search(&p, &["never", "--limit", "1"])["total"], 3);
    assert_eq!(
        titles(&search(&p, &["\"httpOnly cookies\""])),
        ["Use JWT in httpOnly cookies"]
    );
    assert_eq!(search(&p, &["\"cookies httpOnly\""])["total"], 0);
    let a = p.run("", &["search", "never"]);
    let b = p.run("", &["search", "never"]);
    assert_eq!(a.stdout, b.stdout);
    assert!(String::from_utf8_lossy(&a.stdout).contains("read one in full: megg show k"));
}

/// On a terminal the words that matched are shown bold red in titles and snippets, as grep
/// does; piped, with `NO_COLOR`, `--color never` or `--json`, the bytes carry no escape.
#[test]
fn matches_are_highlighted_only_where_colour_is_wanted() {
    let p = shop();
    let bold_red = |w: &str| format!("\x1b[1;31m{w}\x1b[0m");
    let out = p.ok("", &["--color", "always", "search", "retried webhook"]);
    assert!(
        out.contains(&format!(
            "  {} payment {} [payments]\n",
            bold_red("Retry"),
            bold_red("webhooks")
        )),
        "{out:?}"
    );
    assert!(out.contains(&bold_red("parseWebhookEvent")), "{out:?}");
    // The rest of the text is as it always is.
    assert_eq!(
        out.replace("\x1b[1;31m", "").replace("\x1b[0m", ""),
        p.ok("", &["search", "retried webhook"])
    );
    for args in [
        &["search", "retried webhook"][..],
        &["--color", "never", "search", "retried webhook"],
        &["--color", "always", "search", "retried webhook", "--json"],
    ] {
        assert!(!p.ok("", args).contains('\x1b'), "{args:?}");
    }
}

/// The files of megg's recall cache (SPEC §13.7), by name.
fn cached(p: &Project) -> Vec<std::path::PathBuf> {
    let dir = p.cache.path().join("recall");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// SPEC §13.7: what a search parsed and indexed is kept in megg's cache directory, keyed by
/// every byte it was built from. The next search reads it instead of indexing again and prints
/// the same bytes; an edit that keeps a file's size and time is never answered from the old
/// index; a cut, altered or unwritable cache only costs the time.
#[test]
fn the_search_cache_saves_the_indexing_and_never_changes_an_answer() {
    let p = shop();
    let log = p.cache.path().join("failpoints.log");
    let indexings = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| *l == "recall-index")
            .count()
    };
    let run = |args: &[&str]| {
        let out = p
            .megg("")
            .args(args)
            .env("MEGG_FAILPOINTS", format!("log={}", log.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        out.stdout
    };
    let queries: [&[&str]; 4] = [
        &["search", "never"],
        &["search", "never", "--json"],
        &["search", "\"httpOnly cookies\"", "--json"],
        &[
            "search",
            "stored",
            "--in",
            "knowledge",
            "--since",
            "2026-02-01",
        ],
    ];
    let cold: Vec<Vec<u8>> = queries.iter().map(|q| run(q)).collect();
    assert_eq!(
        indexings(),
        1,
        "the first search indexes, the others read the cache"
    );
    assert_eq!(cached(&p).len(), 1);
    let warm: Vec<Vec<u8>> = queries.iter().map(|q| run(q)).collect();
    assert_eq!(indexings(), 1);
    assert_eq!(cold, warm);
    // Nothing of it inside the project.
    assert!(
        !tree(p.root())
            .iter()
            .any(|(path, _)| path.contains("recall"))
    );

    // The same size, the same modification time, one word changed.
    let file = p.path(".megg/knowledge.md");
    let modified = std::fs::metadata(&file).unwrap().modified().unwrap();
    p.write(
        ".megg/knowledge.md",
        KNOWLEDGE.replace("never floats", "never ducats"),
    );
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let found = search(&p, &["ducats"]);
    assert_eq!(titles(&found), ["Money is stored in cents"], "{found}");
    assert_eq!(search(&p, &["floats"])["total"], 0);
    p.write(".megg/knowledge.md", KNOWLEDGE);

    // Cut, altered, garbage: each read as no cache, rebuilt, the answer unchanged.
    std::fs::remove_dir_all(p.cache.path().join("recall")).unwrap();
    assert_eq!(run(queries[1]), cold[1]);
    let entry = cached(&p)[0].clone();
    let good = std::fs::read(&entry).unwrap();
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x55;
    for bad in [
        good[..good.len() / 2].to_vec(),
        flipped,
        b"megg recall 1\n\xff\xff".to_vec(),
        Vec::new(),
    ] {
        std::fs::write(&entry, &bad).unwrap();
        assert_eq!(run(queries[1]), cold[1]);
        assert_eq!(std::fs::read(&entry).unwrap(), good, "rebuilt");
    }

    // A cache directory that cannot be written: the same answer, no warning.
    let blocked = tempfile::tempdir().unwrap();
    let file_not_dir = blocked.path().join("cache");
    std::fs::write(&file_not_dir, "").unwrap();
    let out = p
        .megg("")
        .args(queries[1])
        .env("MEGG_CACHE_DIR", &file_not_dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, cold[1]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The cache keeps the newest few corpora, not one file per search ever made.
#[test]
fn the_search_cache_is_bounded() {
    let p = shop();
    for n in 0..12 {
        p.write(
            ".megg/knowledge.md",
            format!(
                "{KNOWLEDGE}\n---\n\n## 2026-04-{:02} - Entry {n}\n\nBody.\n",
                n + 1
            ),
        );
        search(&p, &["entry"]);
    }
    assert_eq!(cached(&p).len(), 8);
}

#[test]
fn no_match_suggests_topics_and_bad_queries_are_refused_or_cut() {
    let p = shop();
    let out = p.run("", &["search", "paymnts zzz"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("No match") && text.contains("Nearest topics: payments"),
        "{text}"
    );
    let out = p.run("", &["search", "  "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: the query is empty"));
    let long = "webhooks ".repeat(12_000);
    let out = p.run("", &["search", &long]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: the query is over 1000 characters"),
        "{stderr}"
    );
    let out = p.run("", &["search", "x", "--in", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn show_prints_each_document_as_it_stands_and_names_the_missing() {
    let p = shop();
    let id = first_id(&search(&p, &["cents"]));
    let archived = first_id(&search(&p, &["migrations", "--in", "archive"]));
    let v = p.json("", &["show", &id, &archived, "--json"]);
    let docs = v["documents"].as_array().unwrap();
    assert_eq!(
        docs[0]["text"],
        "## 2026-03-05 - Money is stored in cents\n**Type:** rule\n**Topics:** payments, db\n\nAmounts are integers in cents; never floats."
    );
    assert_eq!(docs[1]["kind"], "archive");
    assert!(KNOWLEDGE.contains(docs[0]["text"].as_str().unwrap()));
    let out = p.run("", &["show", &id, "kzzzzzzz"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Money is stored in cents"),
        "the found one is printed: {text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("kzzzzzzz") && stderr.contains("megg search"),
        "{stderr}"
    );
    let v = p.json("", &["show", &id, "--max-chars", "20", "--json"]);
    assert_eq!(
        v["documents"][0]["text"].as_str().unwrap().chars().count(),
        20
    );
    assert!(v["warnings"][0].as_str().unwrap().contains("--max-chars"));
}

/// An entry keeps its id when its text is edited, when entries are reordered and when it is
/// archived.
#[test]
fn ids_survive_edits_reordering_and_archiving() {
    let p = shop();
    let id = first_id(&search(&p, &["cents"]));
    p.write(
        ".megg/knowledge.md",
        KNOWLEDGE.replace("never floats", "never floats, ever"),
    );
    assert_eq!(first_id(&search(&p, &["cents"])), id);
    let entry = "## 2026-03-05 - Money is stored in cents\n**Type:** rule\n**Topics:** payments, db\n\nAmounts are integers in cents.\n";
    p.write(".megg/knowledge.md", "# Knowledge\n");
    p.write(
        ".megg/archive/knowledge-2026.md",
        format!("# Archive\n\n---\n\n{entry}"),
    );
    let v = search(&p, &["cents"]);
    assert_eq!(v["results"][0]["kind"], "archive");
    assert_eq!(first_id(&v), id);
}

/// Every state `state write` or `state clear` replaces is kept first: last week's handoff is
/// one search away.
#[test]
fn replaced_handoffs_are_kept_and_searchable() {
    let p = shop();
    let write = |now: &str, text: &str| {
        let out = p
            .megg("")
            .env("MEGG_NOW", now)
            .args(["state", "write", "--content", text])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    write(
        "2026-11-10T09:00:00Z",
        "## Working On\nBilling export to CSV\n\n## Next\n- add the VAT column\n",
    );
    write("2026-11-20T09:00:00Z", "## Working On\nOnboarding emails\n");
    let v = search(&p, &["billing export", "--in", "handoff"]);
    assert_eq!(titles(&v), ["Billing export to CSV"], "{v}");
    assert!(
        v["results"][0]["path"]
            .as_str()
            .unwrap()
            .contains(".git/megg/handoffs/")
    );
    p.ok("", &["state", "clear"]);
    assert_eq!(
        titles(&search(&p, &["onboarding", "--in", "handoff"])),
        ["Onboarding emails"]
    );
    let id = first_id(&search(&p, &["billing export"]));
    assert!(id.starts_with('h'));
    let v = p.json("", &["show", &id, "--json"]);
    assert!(
        v["documents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("add the VAT column")
    );
}

/// Every path below `dir` (links not followed) with its kind and, for files, its bytes.
fn tree(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            let what = if t.is_dir() {
                stack.push(e.path());
                "dir".to_string()
            } else if t.is_file() {
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned()
            } else {
                format!("{t:?}")
            };
            out.push((e.path().display().to_string(), what));
        }
    }
    out.sort();
    out
}

fn run_ok(out: &Output) -> String {
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// SPEC §9 for recall: an archive that is a FIFO or a link out is skipped with a warning, never
/// opened; garbage and NUL bytes in a knowledge file are searched as text; nothing is written.
#[test]
fn hostile_files_are_skipped_or_read_safely() {
    let p = shop();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        ARCHIVE.replace("Migrations", "Secrets"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        p.path(".megg/archive/out.md"),
    )
    .unwrap();
    crate::common::mkfifo(&p.path(".megg/archive/fifo.md"));
    let mut garbage = KNOWLEDGE.as_bytes().to_vec();
    garbage.extend_from_slice(b"\n---\n\n## 2026-04-01 - Bytes \xff\xfe and \0 nul\n**Type:** fact\n**Topics:** x\n\nbody\n");
    p.write(".megg/knowledge.md", garbage);
    let before = tree(p.root());
    let out = p.run("", &["search", "secrets"]);
    let text = run_ok(&out);
    assert!(text.contains("No match"), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for name in ["out.md", "fifo.md"] {
        assert!(
            stderr.contains(&format!("archive/{name}: not a regular file")),
            "{stderr}"
        );
    }
    let out = p.run("", &["search", "nul bytes", "--json"]);
    let v: Value = serde_json::from_str(&run_ok(&out)).unwrap();
    assert_eq!(v["results"][0]["date"], "2026-04-01", "{v}");
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("UTF-8")),
        "{v}"
    );
    assert_eq!(tree(p.root()), before, "nothing written");
}

/// Property: every entry of a generated knowledge + archive set is found by its exact title
/// as the top hit, and `show` of its id returns it byte for byte.
fn title_words() -> Vec<&'static str> {
    vec![
        "cache",
        "token",
        "deploy",
        "webhook",
        "ledger",
        "invoice",
        "tenant",
        "schema",
        "queue",
        "retry",
        "cookie",
        "session",
        "export",
        "import",
        "billing",
        "refund",
        "audit",
        "search",
        "index",
        "shard",
        "replica",
        "backup",
        "metric",
        "alert",
        "budget",
        "locale",
        "upload",
        "thumbnail",
        "preview",
        "checkout",
        "coupon",
        "catalog",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn every_entry_is_found_by_its_title_and_shown_byte_for_byte(
        picks in proptest::collection::vec(proptest::collection::btree_set(0usize..32, 3), 8..40),
        archived in proptest::collection::vec(any::<bool>(), 40),
    ) {
        let words = title_words();
        // Distinct titles, none a subset of another (3 words each, distinct sets).
        let mut sets: Vec<Vec<usize>> = Vec::new();
        for s in picks {
            let v: Vec<usize> = s.into_iter().collect();
            if !sets.contains(&v) {
                sets.push(v);
            }
        }
        let p = Project::new();
        p.domain("", "Gen");
        let (mut live, mut arch) = (String::from("# Knowledge\n"), String::from("# Archive\n"));
        let mut entries = Vec::new();
        for (i, set) in sets.iter().enumerate() {
            let title = set.iter().map(|&w| words[w]).collect::<Vec<_>>().join(" ");
            let entry = format!(
                "## 2026-{:02}-{:02} - {title}\n**Type:** fact\n**Topics:** t{}\n\nFiller text number {i} about nothing in particular.",
                i % 12 + 1, i % 28 + 1, i % 5
            );
            let file = if archived[i % archived.len()] { &mut arch } else { &mut live };
            file.push_str(&format!("\n---\n\n{entry}\n"));
            entries.push((title, entry));
        }
        p.write(".megg/knowledge.md", &live);
        p.write(".megg/archive/knowledge-2026.md", &arch);
        for (title, entry) in &entries {
            // As typed, and as a phrase: the entry itself is the top hit either way.
            let v = search(&p, &[title]);
            prop_assert_eq!(&titles(&v)[0], title);
            let phrase = search(&p, &[&format!("\"{title}\"")]);
            prop_assert_eq!(&titles(&phrase)[0], title);
            prop_assert_eq!(first_id(&phrase), first_id(&v));
            let id = first_id(&v);
            let shown = p.json("", &["show", &id, "--json"]);
            prop_assert_eq!(shown["documents"][0]["text"].as_str().unwrap(), entry.as_str());
        }
    }
}

/// The session-start index (SPEC §13.5): with 300 entries (blocked), every host's hook lists
/// the entries relevant to what the handoff says the session is about first, keeps the
/// instruction to run `megg maintain`, and `--format json` carries `knowledge.index`.
#[test]
fn the_hook_index_leads_with_what_this_session_is_about() {
    let p = Project::new();
    Git::init(p.root(), "main");
    p.domain("", "Big");
    p.write(
        ".megg/knowledge.md",
        crate::recall_index::big_knowledge(300),
    );
    p.write(
        ".megg/state.md",
        "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nThe invoice export: VAT totals are off\n\n## Next\n- fix rounding\n",
    );
    let v = p.json("", &["context", "--format", "json"]);
    let knowledge = &v["knowledge"];
    assert_eq!(knowledge["mode"], "blocked");
    let first = &knowledge["index"][0];
    assert_eq!(
        first["title"], "Invoice export rounds VAT per line",
        "{knowledge}"
    );
    assert_eq!(first["why"], "session");
    let content = knowledge["content"].as_str().unwrap();
    assert!(
        content.contains("megg maintain"),
        "the seed's instruction stays: {content}"
    );
    assert!(
        content.contains("Relevant to this session:\n- k"),
        "{content}"
    );
    // The id in the index is one show resolves.
    let id = first["id"].as_str().unwrap();
    let shown = p.json("", &["show", id, "--json"]);
    assert!(
        shown["documents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("rounds VAT per line")
    );
    // Every host's hook carries it.
    for agent in ["claude", "codex", "gemini", "copilot"] {
        let out = p.run("", &["context", "--format", "hook", "--agent", agent]);
        let doc = String::from_utf8_lossy(&out.stdout);
        assert!(
            doc.contains("Invoice export rounds VAT per line"),
            "{agent}: {doc}"
        );
    }
    // Without a handoff, the workflow checkpoint's feature and plan title say what the
    // session is about.
    std::fs::remove_file(p.path(".megg/state.md")).unwrap();
    let v = p.json("", &["context", "--format", "json"]);
    assert_ne!(
        v["knowledge"]["index"][0]["why"], "session",
        "nothing to rank by yet"
    );
    let plan = "docs/plans/2026-11-20-feat-vat-plan.md";
    p.write(plan, "# Invoice export: VAT per line\n");
    p.ok("", &["checkpoint", "save", plan]);
    let v = p.json("", &["context", "--format", "json"]);
    let first = &v["knowledge"]["index"][0];
    assert_eq!(first["title"], "Invoice export rounds VAT per line", "{v}");
    assert_eq!(first["why"], "session");
}

/// `--below` (SPEC §13.1) adds the domains below PATH: an entry of a child domain is found
/// from its parent only with it, and its id shows from there.
#[test]
fn below_searches_the_domains_underneath() {
    let p = shop();
    p.domain("api", "API");
    p.write(
        "api/.megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-04-01 - Rate limits per tenant\n**Type:** rule\n**Topics:** api\n\nEvery tenant gets 100 requests per second; the gateway enforces it.\n",
    );
    assert_eq!(search(&p, &["tenant gateway"])["total"], 0);
    let v = search(&p, &["tenant gateway", "--below"]);
    assert_eq!(titles(&v), ["Rate limits per tenant"], "{v}");
    assert!(
        v["results"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("api/.megg/knowledge.md")
    );
    let id = first_id(&v);
    let shown = p.json("", &["show", &id, "--json"]);
    assert!(
        shown["documents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("100 requests per second"),
        "{shown}"
    );
}

/// Outside git the handoff history lives in megg's cache directory, keyed by the domain
/// (SPEC §13.1), newest 100 kept, and is searched from the domain.
#[test]
fn outside_git_the_history_is_kept_in_the_cache_and_bounded() {
    let p = Project::new();
    p.domain("", "Loose");
    // Words without digits: a digit run is a word of its own (identifier splitting).
    let word = |i: usize| {
        format!(
            "task{}{}",
            (b'a' + (i / 26) as u8) as char,
            (b'a' + (i % 26) as u8) as char
        )
    };
    for i in 0..103 {
        let now = format!("2026-10-{:02}T{:02}:{:02}:00Z", i / 24 + 1, i % 24, i % 60);
        let out = p
            .megg("")
            .env("MEGG_NOW", &now)
            .args([
                "state",
                "write",
                "--content",
                &format!("## Working On\n{} of the loose project\n", word(i)),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let kept: Vec<_> = walk_files(p.cache.path())
        .into_iter()
        .filter(|f| f.to_string_lossy().contains("handoffs"))
        .collect();
    assert_eq!(kept.len(), 100, "{kept:?}");
    assert!(!p.path(".git").exists());
    // 102 states were replaced; the oldest two went. The newest replaced one is found in the
    // history, the active one as the state.
    let v = search(&p, &[&word(101), "--in", "handoff"]);
    assert_eq!(v["total"], 1, "{v}");
    assert!(
        v["results"][0]["path"]
            .as_str()
            .unwrap()
            .contains("handoffs"),
        "{v}"
    );
    assert_eq!(search(&p, &[&word(0), "--in", "handoff"])["total"], 0);
    assert_eq!(search(&p, &[&word(1), "--in", "handoff"])["total"], 0);
    assert_eq!(search(&p, &[&word(2), "--in", "handoff"])["total"], 1);
}

/// Ids hash the domain's place (SPEC §13.2): outside git the topmost domain is named by its
/// name, in git by its directory in the work tree. A cached search keyed by the files alone
/// gave the old ids once the project became a repository; the cache answers only for the same
/// files in the same places.
#[test]
fn a_cached_search_gives_the_ids_of_the_domains_place() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(".megg/knowledge.md", KNOWLEDGE);
    let outside = first_id(&search(&p, &["cents"]));
    Git::init(p.root(), "main");
    let cached = first_id(&search(&p, &["cents"]));
    let fresh = p
        .megg("")
        .env("MEGG_CACHE_DIR", p.cache.path().join("fresh"))
        .args(["search", "cents", "--json"])
        .output()
        .unwrap();
    let fresh: Value = serde_json::from_slice(&fresh.stdout).unwrap();
    assert_eq!(cached, first_id(&fresh), "the cache answered with old ids");
    assert_ne!(outside, cached, "the domain's place is not in its ids");
}

fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                out.push(e.path());
            }
        }
    }
    out
}

/// CJK text is searchable through the command line (character bigrams), in titles and bodies.
#[test]
fn cjk_entries_are_found_from_the_command_line() {
    let p = Project::new();
    p.domain("", "多言語");
    p.write(
        ".megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-05-01 - 認証トークンの保存場所\n**Type:** decision\n**Topics:** auth\n\nトークンは httpOnly クッキーに保存する。\n\n---\n\n## 2026-05-02 - 数据库迁移\n**Type:** rule\n**Topics:** db\n\n迁移在部署任务中运行，不在启动时运行。\n",
    );
    assert_eq!(
        titles(&search(&p, &["トークン"]))[0],
        "認証トークンの保存場所"
    );
    assert_eq!(titles(&search(&p, &["启动时"])), ["数据库迁移"]);
    let text = p.ok("", &["search", "保存"]);
    assert!(text.contains("認証トークンの保存場所"), "{text}");
}

/// A knowledge set over the hook's budget: 300 entries, two of them about what a branch
/// name or the last commits point at.
fn big_knowledge() -> String {
    let mut k = String::from("# Knowledge\n");
    for i in 0..300 {
        let (title, topics) = match i {
            41 => (
                "Ledger rounding uses banker's rounding".to_string(),
                "ledger",
            ),
            213 => (
                "Thumbnail previews are cached per locale".to_string(),
                "media",
            ),
            _ => (format!("Entry {i} about the platform"), "misc"),
        };
        k.push_str(&format!(
            "\n---\n\n## 2025-{:02}-{:02} - {title}\n**Type:** decision\n**Topics:** {topics}\n\n{}\n",
            i % 12 + 1,
            i % 28 + 1,
            "Why this matters and how it was decided, with the details a newcomer needs. "
                .repeat(3)
        ));
    }
    k
}

/// The index ranks by the branch name and by the paths the last commits changed (SPEC §13.5)
/// when no handoff says what the session is about.
#[test]
fn the_index_ranks_by_the_branch_and_the_paths_of_the_last_commits() {
    let p = Project::new();
    let git = Git::init(p.root(), "fix/thumbnail-previews");
    p.domain("", "Big");
    p.write(".megg/knowledge.md", big_knowledge());
    let v = p.json("", &["context", "--format", "json"]);
    let first = &v["knowledge"]["index"][0];
    assert_eq!(
        first["title"], "Thumbnail previews are cached per locale",
        "{v}"
    );
    assert_eq!(first["why"], "session");

    // On a branch that says nothing, a commit that changed the ledger's files does.
    let p = Project::new();
    let git2 = Git::init(p.root(), "main");
    p.domain("", "Big");
    p.write(".megg/knowledge.md", big_knowledge());
    // A root commit's tree is everything: only what later commits changed counts.
    p.write("README.md", "shop\n");
    let mut index = git2.repo.index().unwrap();
    index.add_path(std::path::Path::new("README.md")).unwrap();
    index.write().unwrap();
    git2.commit("main", 1_700_000_000, "root");
    p.write("src/ledger/rounding.rs", "fn round() {}\n");
    index
        .add_path(std::path::Path::new("src/ledger/rounding.rs"))
        .unwrap();
    index.write().unwrap();
    git2.commit("main", 1_700_000_100, "rounding");
    let v = p.json("", &["context", "--format", "json"]);
    let first = &v["knowledge"]["index"][0];
    assert_eq!(
        first["title"], "Ledger rounding uses banker's rounding",
        "{v}"
    );
    assert_eq!(first["why"], "session");
    drop(git);
}

/// In summary mode the index stands in for the digest; in full mode the knowledge is loaded
/// as it is, plus one line naming the archived entries (SPEC §13.5).
#[test]
fn summary_mode_carries_the_index_and_full_mode_names_the_archive() {
    let p = Project::new();
    p.domain("", "Mid");
    // About 11,000 tokens: summary mode.
    let k: String = big_knowledge()
        .lines()
        .take(1400)
        .collect::<Vec<_>>()
        .join("\n");
    p.write(".megg/knowledge.md", &k);
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(
        v["knowledge"]["mode"], "summary",
        "{}",
        v["knowledge"]["tokens"]
    );
    assert!(!v["knowledge"]["index"].as_array().unwrap().is_empty());
    let content = v["knowledge"]["content"].as_str().unwrap();
    assert!(content.contains("megg search"), "{content}");

    let p = shop();
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["knowledge"]["mode"], "full");
    let hook = p.ok("", &["context", "--json"]);
    assert!(
        hook.contains("archived") && hook.contains("megg search"),
        "full mode names the archived entries: {hook}"
    );
}

/// Entries whose field lines are written every way megg reads them (`**Type:**`,
/// `**Type**:`, any case), among other lines.
const FIELDS: &str = "# Knowledge\n\n---\n\n## 2026-01-17 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\nSessions use JWTs in httpOnly cookies; never localStorage.\n\n---\n\n## 2026-02-01 - Retry payment webhooks\n**type**: gotcha\n**TOPICS**: payments, webhooks\n\nStripe retries them; handlers must be idempotent.\n\n---\n\n## 2026-03-05 - Money is stored in cents\nAmounts are integers.\n**Topics:** payments, db\n**Type:** rule\nIn cents, never floats: the decision of 2025.\n";

/// Issue (SPEC §16): an entry's `**Type:**` and `**Topics:**` lines were body text as well as
/// fields — its topics counted twice, every entry of a type found by the type's name, and
/// snippets starting `**Type:** decision **Topics:** …`. They are fields only, in every form
/// megg reads them.
#[test]
fn type_and_topics_lines_are_fields_not_body_text() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(".megg/knowledge.md", FIELDS);
    for query in [
        "cookies",
        "payments",
        "webhooks",
        "auth security",
        "gotcha",
        "rule",
        "type topics",
        "money",
        "floats",
        "integers",
        "use jwt",
    ] {
        let v = search(&p, &[query]);
        for r in v["results"].as_array().unwrap() {
            let snippet = r["snippet"].as_str().unwrap().to_lowercase();
            assert!(
                !snippet.contains("**type") && !snippet.contains("**topics"),
                "{query}: a field line in the snippet of {}: {snippet:?}",
                r["title"]
            );
        }
    }
    // A type's name finds the entries that say it, not every entry of that type.
    assert_eq!(titles(&search(&p, &["gotcha"])), Vec::<String>::new());
    assert_eq!(
        titles(&search(&p, &["decision"])),
        ["Money is stored in cents"]
    );
    assert_eq!(search(&p, &["type"])["total"], 0);
    // The snippet is the body's best line, whatever the fields' order.
    let v = search(&p, &["cents"]);
    assert_eq!(
        v["results"][0]["snippet"],
        "In cents, never floats: the decision of 2025."
    );
    // Topics rank as topics: one topic word weighs what one topic word does, in every form.
    let v = search(&p, &["payments"]);
    let scores: Vec<f64> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert_eq!(titles(&v).len(), 2, "{v}");
    // The webhook entry names `payment` in its title too: it ranks first.
    assert_eq!(titles(&v)[0], "Retry payment webhooks");
    assert!(scores[0] > scores[1], "{scores:?}");
    // `show` prints the entry whole, its fields included.
    let id = first_id(&search(&p, &["cents"]));
    let shown = p.json("", &["show", &id, "--json"]);
    assert!(
        shown["documents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("**Topics:** payments, db\n**Type:** rule\n")
    );
}

/// Issue (SPEC §16): stopwords were left out of a query by their stems, and the list missed
/// some (`this` → `thi`, `was` → `wa`): `this webhook` ranked every entry that says "this".
/// A stopword is recognised before it is stemmed; alone, it is searched as itself.
#[test]
fn stopwords_are_left_out_before_they_are_stemmed() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(
        ".megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-01-17 - Cookies hold the session\n**Type:** decision\n**Topics:** auth\n\nThis was decided because this is what the team has done.\n\n---\n\n## 2026-02-01 - Retry payment webhooks\n**Type:** gotcha\n**Topics:** payments\n\nHandlers must be idempotent.\n",
    );
    for query in [
        "this webhook",
        "was webhooks",
        "has this webhook",
        "does webhooks",
        "why this webhook",
    ] {
        let v = search(&p, &[query]);
        assert_eq!(titles(&v), ["Retry payment webhooks"], "{query}: {v}");
    }
    // Nothing but stopwords: searched as they are, as ever.
    for query in ["this", "this was", "the"] {
        let v = search(&p, &[query]);
        assert_eq!(titles(&v), ["Cookies hold the session"], "{query}: {v}");
    }
}
