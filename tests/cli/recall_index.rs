//! The session-start index (SPEC §13.5) as the hook delivers it: it shrinks line by line to
//! the budget before anything else of knowledge goes, its ids are the ones `megg show` opens,
//! it is ranked by the active handoff only — and the walk down that finds child domains says
//! when it stopped (SPEC §3.1, §14).

use serde_json::Value;

use crate::{Project, reference_tokens, stdout_json};

/// A `knowledge.md` of `n` entries (300 ≈ 21k tokens: blocked), every 7th a gotcha; entry 137
/// is about the invoice export, the others about nothing this session does.
pub(crate) fn big_knowledge(n: usize) -> String {
    let mut k = String::from("# Knowledge\n");
    for i in 0..n {
        let (title, topics) = match i {
            137 => (
                "Invoice export rounds VAT per line".to_string(),
                "billing, export",
            ),
            _ => (format!("Entry {i} about the platform"), "misc"),
        };
        k.push_str(&format!(
            "\n---\n\n## 2026-{:02}-{:02} - {title}\n**Type:** {}\n**Topics:** {topics}\n\n{}\n",
            i % 12 + 1,
            i % 28 + 1,
            if i % 7 == 0 { "gotcha" } else { "decision" },
            "Why this matters and how it was decided, with the details a newcomer needs. "
                .repeat(3)
        ));
    }
    k
}

/// An active `state.md` whose content is about `tokens` cl100k tokens.
fn state_of(tokens: usize) -> String {
    let mut content = String::from("## Working On\nThe platform upgrade\n\n## Progress\n");
    let mut i = 0;
    while reference_tokens(&content) < tokens {
        content.push_str(&format!(
            "- [x] step {i}: moved the service to the new runtime and checked its alerts\n"
        ));
        i += 1;
    }
    format!("---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n{content}")
}

/// The hook's `additionalContext` for `agent`.
fn hook_context(p: &Project, agent: &str) -> String {
    let args: &[&str] = if agent == "claude" {
        &["context", "--json"]
    } else {
        &["context", "--format", "hook", "--agent", agent]
    };
    let v = stdout_json(&p.run("", args));
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{agent}: no additionalContext in {v}"))
        .to_string()
}

/// The index lines of a context: `- <id> <date> …`.
fn index_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            let mut words = l.split(' ');
            words.next() == Some("-")
                && words
                    .next()
                    .is_some_and(|id| id.starts_with('k') && id.len() <= 10)
                && words
                    .next()
                    .is_some_and(|d| d.len() == 10 && d.starts_with("20"))
        })
        .collect()
}

/// Issue: with 300 entries blocked and a handoff of ~900 tokens, the hook dropped the whole
/// index (no `megg search`, no `megg maintain`) while thousands of characters stayed free.
/// Across handoff sizes, every host's hook keeps the index header, both commands and the
/// maintain instruction, stays within its budget, and lists fewer entries as the state grows.
#[test]
fn the_index_shrinks_line_by_line_as_the_handoff_grows() {
    let p = Project::new();
    p.domain("", "Big");
    p.write(".megg/knowledge.md", big_knowledge(300));
    // Claude Code counts UTF-16 units, Codex bytes; both 9,500.
    for (agent, len) in [
        (
            "claude",
            (|s: &str| s.encode_utf16().count()) as fn(&str) -> usize,
        ),
        ("codex", |s: &str| s.len()),
    ] {
        let mut previous = usize::MAX;
        let mut counts = Vec::new();
        for tokens in (300..=1_900).step_by(200) {
            p.write(".megg/state.md", state_of(tokens));
            let text = hook_context(&p, agent);
            let at = format!("{agent}, a state of {tokens} tokens");
            assert!(len(&text) <= 9_500, "{at}: {} over 9,500", len(&text));
            assert!(
                text.contains("Knowledge index: 300 entries"),
                "{at}: no index header:\n{text}"
            );
            for needed in ["`megg search <words>`", "`megg show <id>`", "megg maintain"] {
                assert!(text.contains(needed), "{at}: no {needed}:\n{text}");
            }
            assert!(text.contains("## Working On"), "{at}: the handoff went");
            let n = index_lines(&text).len();
            assert!(n <= previous, "{at}: {n} index lines, more than {previous}");
            previous = n;
            counts.push(n);
        }
        assert!(
            counts[0] > 0,
            "{agent}: a small handoff leaves room: {counts:?}"
        );
        assert!(
            counts.first() > counts.last(),
            "{agent}: the index never shrank: {counts:?}"
        );
    }
}

/// A domain whose knowledge is large enough (summary mode) for the index, holding "Deploy
/// rules" of 2026-01-10 as a gotcha among `n` other entries.
fn with_deploy_rules(n: usize, body: &str) -> String {
    let mut k = format!(
        "# Knowledge\n\n---\n\n## 2026-01-10 - Deploy rules\n**Type:** gotcha\n**Topics:** deploy\n\n{body}\n"
    );
    for i in 0..n {
        k.push_str(&format!(
            "\n---\n\n## 2026-02-{:02} - Entry {i} of this domain\n**Type:** decision\n**Topics:** misc\n\n{}\n",
            i % 28 + 1,
            "Why this matters and how it was decided, with the details a newcomer needs. "
                .repeat(3)
        ));
    }
    k
}

/// Issue: the index numbered ids over the current domain alone, search and show over the
/// whole chain; a parent and a child each holding "Deploy rules" of the same date made the
/// index's id open the parent's entry. Every id the index prints opens the entry it names, in
/// its own domain.
#[test]
fn every_index_id_opens_the_entry_it_names() {
    let p = Project::new();
    p.domain("", "Parent");
    p.write(
        ".megg/knowledge.md",
        with_deploy_rules(3, "PARENT: deploys go out on Tuesdays."),
    );
    p.domain("api", "Api");
    p.write(
        "api/.megg/knowledge.md",
        with_deploy_rules(160, "CHILD: the api deploys behind a flag."),
    );
    let v = p.json("api", &["context", "--format", "json"]);
    let knowledge = &v["knowledge"];
    assert_ne!(knowledge["mode"], "full", "{knowledge}");
    let index = knowledge["index"].as_array().unwrap();
    assert!(
        index.iter().any(|l| l["title"] == "Deploy rules"),
        "{knowledge}"
    );
    let child = p.path("api/.megg/knowledge.md");
    for line in index {
        let id = line["id"].as_str().unwrap();
        let shown = p.json("api", &["show", id, "--json"]);
        let doc = &shown["documents"][0];
        assert_eq!(
            doc["path"].as_str(),
            child.to_str(),
            "{id} ({}) opens another domain's entry: {shown}",
            line["title"]
        );
        let text = doc["text"].as_str().unwrap();
        let title = line["title"].as_str().unwrap();
        assert!(
            text.starts_with(&format!(
                "## {} - {title}\n",
                line["date"].as_str().unwrap()
            )),
            "{id} names {title} but opens {text}"
        );
    }
    // The search's id for the child's entry is the index's.
    let found = p.json("api", &["search", "deploy rules", "--json"]);
    let child_hit = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"].as_str() == child.to_str())
        .unwrap_or_else(|| panic!("{found}"));
    let indexed = index.iter().find(|l| l["title"] == "Deploy rules").unwrap();
    assert_eq!(child_hit["id"], indexed["id"]);
}

/// A small domain whose knowledge is summary-sized, with one entry about the invoice export.
fn invoice_project() -> Project {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(".megg/knowledge.md", big_knowledge(160));
    p
}

fn first_why(p: &Project, now: &str) -> Value {
    let out = p
        .megg("")
        .env("MEGG_NOW", now)
        .args(["context", "--format", "json"])
        .output()
        .unwrap();
    let v = stdout_json(&out);
    let first = &v["knowledge"]["index"][0];
    serde_json::json!([first["why"], first["title"]])
}

fn state(updated: &str, status: &str, body: &str) -> String {
    format!("---\nupdated: {updated}\nstatus: {status}\n---\n\n{body}")
}

/// Issue: the session query read every section of `state.md`. Only the last handoff's Working
/// On and Next say what this session is about — an expired or done one's too (issue 38 item 1).
#[test]
fn the_session_query_is_the_active_handoffs_working_on_and_next() {
    let p = invoice_project();
    let now = "2026-11-22T12:00:00Z";
    let session = serde_json::json!(["session", "Invoice export rounds VAT per line"]);
    let about_invoices = "## Working On\nThe invoice export: VAT totals are off\n";
    // Active, in Working On: ranked first.
    p.write(
        ".megg/state.md",
        state("2026-11-22T11:00:00Z", "active", about_invoices),
    );
    assert_eq!(first_why(&p, now), session);
    // Active, in Next: ranked first.
    p.write(
        ".megg/state.md",
        state(
            "2026-11-22T11:00:00Z",
            "active",
            "## Working On\nSomething else\n\n## Next\n- the invoice export VAT rounding\n",
        ),
    );
    assert_eq!(first_why(&p, now), session);
    // Only in Progress or Context: not what the session is about.
    p.write(
        ".megg/state.md",
        state(
            "2026-11-22T11:00:00Z",
            "active",
            "## Working On\nSomething else\n\n## Progress\n- the invoice export VAT rounding\n\n## Context\ninvoice export VAT\n",
        ),
    );
    assert_ne!(first_why(&p, now)[0], "session");
    // Done, or older than 48 hours: not loaded, yet still what the last session was about —
    // the index is ranked by it (issue 38 item 1).
    p.write(
        ".megg/state.md",
        state("2026-11-22T11:00:00Z", "done", about_invoices),
    );
    assert_eq!(first_why(&p, now), session);
    p.write(
        ".megg/state.md",
        state("2026-11-22T11:00:00Z", "active", about_invoices),
    );
    assert_eq!(first_why(&p, "2026-11-24T12:00:00Z"), session);
}

/// A tree of `n` top-level directories with a domain at `d000` (found) and one at `deep`.
fn wide_tree(n: usize, deep: &str) -> Project {
    let p = Project::new();
    p.domain("", "Mono");
    for i in 0..n {
        p.mkdir(&format!("d{i:03}"));
    }
    p.domain("d000", "First");
    p.domain(deep, "Deep");
    p.write(
        &format!("{deep}/.megg/knowledge.md"),
        "# Knowledge\n\n---\n\n## 2026-01-10 - Quokka rollout order\n**Type:** decision\n**Topics:** deploy\n\nThe quokka service rolls out last.\n",
    );
    p
}

/// Issue: the walk down stops after 128 directories and said nothing. `--format json` carries
/// `children_cut`, and the markdown's Subdomains section says how to see deeper ones.
#[test]
fn the_children_walk_says_when_it_stopped() {
    let p = wide_tree(200, "d150/api");
    let v = p.json("", &["context", "--format", "json"]);
    assert_eq!(v["children_cut"], true, "{v}");
    let names: Vec<&str> = v["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["d000"]);
    let md = p.ok("", &["context"]);
    let subdomains = md
        .split("## Subdomains\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{md}"));
    let section = subdomains.split("\n## ").next().unwrap().trim_end();
    let last = section.lines().last().unwrap();
    assert!(
        last.contains("128") && last.contains("megg context"),
        "the Subdomains section does not say the walk stopped: {section}"
    );
    // A walk that saw everything says nothing.
    let small = wide_tree(5, "d004/api");
    let v = small.json("", &["context", "--format", "json"]);
    assert!(v.get("children_cut").is_none(), "{v}");
    assert!(!small.ok("", &["context"]).contains("128"));
}

/// Issue: `search --below` used the hook's capped walk, so a domain past the first 128
/// directories was never searched.
#[test]
fn search_below_walks_every_level_without_the_hooks_bound() {
    let p = wide_tree(200, "d150/api");
    let v = p.json("", &["search", "quokka", "--below", "--json"]);
    assert_eq!(v["results"][0]["title"], "Quokka rollout order", "{v}");
}

/// An entry of 2026-01-28 titled `title`, with `body`.
fn dated(title: &str, kind: &str, body: &str) -> String {
    format!("\n---\n\n## 2026-01-28 - {title}\n**Type:** {kind}\n**Topics:** shared\n\n{body}\n")
}

/// `megg search QUERY --json --limit 100` (and `extra`) in `dir`: each hit's id by its file and
/// line.
fn ids_in(
    p: &Project,
    dir: &str,
    query: &str,
    extra: &[&str],
) -> std::collections::BTreeMap<(String, u64), String> {
    let mut args = vec!["search", query, "--json", "--limit", "100"];
    args.extend(extra);
    let v = p.json(dir, &args);
    let hits = v["results"].as_array().unwrap_or_else(|| panic!("{v}"));
    let ids: std::collections::BTreeMap<_, _> = hits
        .iter()
        .map(|h| {
            let at = (
                h["path"].as_str().unwrap().to_string(),
                h["line"].as_u64().unwrap(),
            );
            (at, h["id"].as_str().unwrap().to_string())
        })
        .collect();
    let unique: std::collections::HashSet<_> = ids.values().collect();
    assert_eq!(unique.len(), ids.len(), "{dir}: ids repeat: {ids:?}");
    ids
}

/// Issue: duplicates (same date and title) were numbered across everything a run read, so an
/// id's suffix depended on the directory megg ran in: from b/ the index gave `k…-2` for b's
/// "Shared title 55", which from the parent opened a's. An id now hashes the domain with the
/// date and title; from every directory that reaches a document (its domain, a subdirectory,
/// the parent with `--below`, a sibling's parent), it has the same id and opens it — info
/// sections of two domains with one name included.
#[test]
fn an_id_names_the_same_document_from_every_directory() {
    let p = Project::new();
    p.domain("", "Root");
    p.domain("a", "A");
    p.domain("b", "B");
    p.mkdir("b/src");
    p.domain("x/api", "Api");
    p.domain("y/api", "Api");
    let title = "Shared title 55";
    p.write(
        ".megg/knowledge.md",
        format!("# Knowledge\n{}", dated(title, "decision", "ROOT copy.")),
    );
    p.write(
        "a/.megg/knowledge.md",
        format!("# Knowledge\n{}", dated(title, "decision", "A copy.")),
    );
    p.write(
        "b/.megg/knowledge.md",
        format!(
            "# Knowledge\n{}{}",
            dated(title, "decision", "B first."),
            dated(title, "decision", "B second.")
        ),
    );
    p.write(
        "b/.megg/archive/knowledge-2026.md",
        format!("# Archive\n{}", dated(title, "decision", "B archived.")),
    );
    let everywhere = [
        ("", vec!["--below"]),
        ("a", vec![]),
        ("a", vec!["--below"]),
        ("b", vec![]),
        ("b/src", vec![]),
        ("x/api", vec![]),
        ("y/api", vec![]),
    ];
    for query in ["shared title", "about api"] {
        let seen: Vec<_> = everywhere
            .iter()
            .map(|(dir, extra)| (dir, ids_in(&p, dir, query, extra)))
            .collect();
        let (_, all) = &seen[0];
        for (dir, ids) in &seen[1..] {
            for (at, id) in ids {
                assert_eq!(
                    all.get(at),
                    Some(id),
                    "{query}: {at:?} is {id} from {dir:?} but {:?} from the parent",
                    all.get(at)
                );
            }
        }
    }
    // b's index ids open b's entries from the parent, the domain and below it.
    let from_b = ids_in(&p, "b", "shared title", &[]);
    let b_file = p.path("b/.megg/knowledge.md").display().to_string();
    let b_first = &from_b[&(b_file.clone(), 5)];
    for dir in ["", "b", "b/src"] {
        let shown = p.json(dir, &["show", b_first, "--json"]);
        let doc = &shown["documents"][0];
        assert_eq!(
            doc["path"].as_str(),
            Some(b_file.as_str()),
            "{dir}: {shown}"
        );
        assert!(
            doc["text"].as_str().unwrap().contains("B first."),
            "{shown}"
        );
    }
}

/// A summary-sized knowledge file (160 entries) with gotchas `Shared rule 0` … `4` of
/// 2026-01-28 (each also in the parent and a sibling).
fn with_shared_rules(n: usize) -> String {
    let mut k = big_knowledge(n);
    for j in 0..5 {
        k.push_str(&dated(
            &format!("Shared rule {j}"),
            "gotcha",
            "THIS domain's rule.",
        ));
    }
    k
}

/// Issue: the hook numbered the index's ids over every ancestor's knowledge and archives
/// (0.6 s under a 16 MB parent) and walked the chain a second time. The index's ids are the
/// current domain's alone, and they are search's from the domain, its parent (`--below`) and
/// a subdirectory; the hook reads no other domain's knowledge.
#[test]
fn the_index_ids_are_searchs_and_the_hook_reads_only_its_domains_entries() {
    let p = Project::new();
    p.domain("", "Root");
    p.domain("a", "A");
    p.domain("b", "B");
    p.mkdir("b/src");
    let rules: String = (0..5)
        .map(|j| {
            dated(
                &format!("Shared rule {j}"),
                "gotcha",
                "Another domain's rule.",
            )
        })
        .collect();
    p.write(".megg/knowledge.md", format!("# Knowledge\n{rules}"));
    p.write("a/.megg/knowledge.md", format!("# Knowledge\n{rules}"));
    p.write("b/.megg/knowledge.md", with_shared_rules(160));
    let log = p.cache.path().join("failpoints.log");
    let out = p
        .megg("b")
        .env("MEGG_FAILPOINTS", format!("log={}", log.display()))
        .args(["context", "--format", "json"])
        .output()
        .unwrap();
    let v = stdout_json(&out);
    let read = std::fs::read_to_string(&log).unwrap_or_default();
    let parent = p.path(".megg/knowledge.md").display().to_string();
    assert!(
        !read.lines().any(|l| l.ends_with(&parent)),
        "the hook read the parent's knowledge:\n{read}"
    );
    let index = v["knowledge"]["index"].as_array().unwrap();
    let indexed: Vec<(&str, &str)> = index
        .iter()
        .filter(|l| l["title"].as_str().unwrap().starts_with("Shared rule"))
        .map(|l| (l["title"].as_str().unwrap(), l["id"].as_str().unwrap()))
        .collect();
    assert_eq!(indexed.len(), 5, "{index:?}");
    let b_file = p.path("b/.megg/knowledge.md").display().to_string();
    for (dir, extra) in [("b", vec![]), ("", vec!["--below"]), ("b/src", vec![])] {
        let mut args = vec!["search", "shared rule", "--json", "--limit", "100"];
        args.extend(&extra);
        let found = p.json(dir, &args);
        for (title, id) in &indexed {
            let hit = found["results"]
                .as_array()
                .unwrap()
                .iter()
                .find(|h| h["path"].as_str() == Some(&b_file) && h["title"] == *title)
                .unwrap_or_else(|| panic!("{dir}: no {title} of b in {found}"));
            assert_eq!(hit["id"], *id, "{dir}: {title}");
        }
    }
    // Every id of the index opens the entry it names, from each of them.
    let ids: Vec<&str> = index.iter().map(|l| l["id"].as_str().unwrap()).collect();
    for dir in ["", "b", "b/src"] {
        let mut args = vec!["show", "--json", "--max-chars", "1000000"];
        args.extend(&ids);
        let shown = p.json(dir, &args);
        let docs = shown["documents"].as_array().unwrap();
        assert_eq!(docs.len(), ids.len(), "{dir}: {}", shown["missing"]);
        for (line, doc) in index.iter().zip(docs) {
            assert_eq!(doc["path"].as_str(), Some(b_file.as_str()), "{dir}: {line}");
            let head = format!(
                "## {} - {}\n",
                line["date"].as_str().unwrap(),
                line["title"].as_str().unwrap()
            );
            assert!(
                doc["text"].as_str().unwrap().starts_with(&head),
                "{dir}: {line} opens {doc}"
            );
        }
    }
}

/// A blocked `knowledge.md` of 300 entries, each with a topic of its own: 300 topic counts.
fn many_topics() -> String {
    big_knowledge(300)
        .split("**Topics:** misc\n")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part.to_string()
            } else {
                format!("**Topics:** platform-area-{i}\n{part}")
            }
        })
        .collect::<Vec<_>>()
        .join("")
}

/// Issue: when the bare index with its topic counts did not fit, the hook kept no index line
/// and never tried lines without the topics (300 topics: 990 units left over, 0 of 53 lines).
/// Lines come before topic counts (SPEC §13.5 lists the entries first): whatever the
/// handoff's size, the hook shows as many lines as fit, and a line more would not.
#[test]
fn the_index_keeps_its_lines_before_its_topic_counts() {
    let p = Project::new();
    p.domain("", "Big");
    p.write(".megg/knowledge.md", many_topics());
    let line = |l: &Value| {
        format!(
            "- {} {} {}: {} [{}]",
            l["id"].as_str().unwrap(),
            l["date"].as_str().unwrap(),
            l["type"].as_str().unwrap(),
            l["title"].as_str().unwrap(),
            l["topics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut lines_without_topics = false;
    for tokens in (100..=1_900).step_by(100) {
        p.write(".megg/state.md", state_of(tokens));
        let text = hook_context(&p, "claude");
        // The whole index, ranked for this handoff.
        let v = p.json("", &["context", "--format", "json"]);
        let all = v["knowledge"]["index"].as_array().unwrap();
        let len = text.encode_utf16().count();
        let at = format!("a state of {tokens} tokens");
        assert!(len <= 9_500, "{at}: {len}");
        if text.contains("[… state cut here") || text.contains("[… info.md cut here") {
            continue;
        }
        let shown = index_lines(&text).len();
        if shown > 0 && !text.contains("\nTopics: ") {
            lines_without_topics = true;
        }
        if let Some(next) = all.get(shown) {
            // One line more (and the heading of its group) would not fit.
            let more = line(next).encode_utf16().count() + "\nRelevant to this session:\n".len();
            assert!(
                9_500 - len < more,
                "{at}: {} units left, yet {shown} of {} lines shown:\n{text}",
                9_500 - len,
                all.len()
            );
        }
    }
    assert!(
        lines_without_topics,
        "no handoff size left lines but not topics"
    );
}

/// Issue: a handoff's `## Working On:` (with a colon) or `## working on` was not the session's
/// subject, where every other megg field is matched whatever its case and colon.
#[test]
fn a_working_on_heading_is_matched_like_every_field() {
    let p = invoice_project();
    let now = "2026-11-22T12:00:00Z";
    let session = serde_json::json!(["session", "Invoice export rounds VAT per line"]);
    for heading in ["## Working On:", "## working on", "## WORKING ON :"] {
        p.write(
            ".megg/state.md",
            state(
                "2026-11-22T11:00:00Z",
                "active",
                &format!("{heading}\nThe invoice export: VAT totals are off\n"),
            ),
        );
        assert_eq!(first_why(&p, now), session, "{heading}");
    }
}

/// A knowledge file over its 16 MB bound: the index stands in for the blocked message that
/// said the file was read only in part, so the hook says it apart (it said nothing once the
/// index was built from parts).
#[test]
fn a_knowledge_file_over_its_bound_is_said_to_be_read_in_part() {
    let p = Project::new();
    p.domain("", "Huge");
    p.write(".megg/knowledge.md", "x".repeat(17 * 1024 * 1024));
    let out = p.ok("", &["context", "--json"]);
    assert!(out.contains("Knowledge index: 0 entries"), "{out}");
    assert!(out.contains("is over 16777216 bytes"), "{out}");
}

/// Issue (SPEC §16): the session's words were read as query syntax — a `"` in the handoff
/// (`Rename "Save" to "Submit"`, `5" screens`) made phrases no entry's title holds, and the
/// index lost every session line. Text megg builds a query from itself is taken word for word:
/// whatever quotes, dashes or `OR` the handoff holds, the related entry stays first.
#[test]
fn quotes_in_the_handoff_never_empty_the_sessions_ranking() {
    let p = invoice_project();
    let now = "2026-11-22T12:00:00Z";
    let session = serde_json::json!(["session", "Invoice export rounds VAT per line"]);
    for working_on in [
        "Rename \"Save\" to \"Submit\" on the invoice export: VAT totals are off",
        "The invoice export on 5\" screens: VAT totals are off",
        "\"The invoice export: VAT totals are off",
        "The invoice export: VAT totals are off \"",
        "The \"\"invoice\" export\": VAT \"totals\"\" OR -off",
        "“Invoice export” — VAT totals are off, «rounding»",
    ] {
        p.write(
            ".megg/state.md",
            state(
                "2026-11-22T11:00:00Z",
                "active",
                &format!("## Working On\n{working_on}\n\n## Next\n- check \"rounding\n"),
            ),
        );
        assert_eq!(first_why(&p, now), session, "{working_on}");
    }
}

/// A blocked knowledge of 500 entries: 60 about payment webhooks (refunds, duplicates), 60
/// about the checkout form, one retry policy for the shipping API, the rest about nothing
/// this session does.
fn webhooks_and_checkout() -> String {
    let mut k = String::from("# Knowledge\n");
    for i in 0..500 {
        let (title, topics, body) = match i {
            0..60 => (
                format!("Stripe webhook: duplicate refund events, case {i}"),
                "payments, webhooks",
                "The refund webhook may arrive twice; handlers dedupe on the event id.",
            ),
            60..120 => (
                format!("checkout form: field {i} is validated on blur"),
                "checkout, frontend",
                "The form shows the error under the field; the submit button stays enabled.",
            ),
            120 => (
                "Retry policy for the shipping API".to_string(),
                "shipping, http",
                "When the carrier API answers 429 (rate limited) during checkout, wait for its Retry-After, then back off exponentially; never more than 3 tries.",
            ),
            _ => (
                format!("Entry {i} about the platform"),
                "misc",
                "Why this matters and how it was decided, with the details a newcomer needs.",
            ),
        };
        k.push_str(&format!(
            "\n---\n\n## 2025-{:02}-{:02} - {title}\n**Type:** decision\n**Topics:** {topics}\n\n{body}\n",
            i % 12 + 1,
            i % 28 + 1,
        ));
    }
    k
}

/// Issue 38 item 12: the session was one bag of words. With a handoff whose Working On is a
/// duplicate-refund webhook and whose Next is the carrier API answering 429 during checkout,
/// the webhook entries (their words the most frequent in the handoff) took every line of the
/// session, and the retry policy `megg search` ranks first for the Next line alone was never
/// listed. Each item of the handoff now brings its own best entries, in turns.
#[test]
fn each_item_of_the_handoff_brings_its_own_entries_to_the_index() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(".megg/knowledge.md", webhooks_and_checkout());
    let next = "handle the carrier API answering 429 during checkout";
    p.write(
        ".megg/state.md",
        state(
            "2026-11-22T11:00:00Z",
            "active",
            &format!(
                "## Working On\n- Fix the duplicate-refund webhook: Stripe sends the refund event twice\n\n## Next\n- {next}\n"
            ),
        ),
    );
    let found = p.json("", &["search", next, "--in", "knowledge", "--json"]);
    assert_eq!(
        found["results"][0]["title"], "Retry policy for the shipping API",
        "{found}"
    );
    let out = p
        .megg("")
        .env("MEGG_NOW", "2026-11-22T12:00:00Z")
        .args(["context", "--format", "json"])
        .output()
        .unwrap();
    let v = stdout_json(&out);
    assert_eq!(v["knowledge"]["mode"], "blocked");
    let index = v["knowledge"]["index"].as_array().unwrap();
    let session: Vec<&str> = index
        .iter()
        .filter(|l| l["why"] == "session")
        .map(|l| l["title"].as_str().unwrap())
        .collect();
    assert!(
        session
            .first()
            .is_some_and(|t| t.starts_with("Stripe webhook")),
        "{session:#?}"
    );
    assert_eq!(
        session.get(1),
        Some(&"Retry policy for the shipping API"),
        "{session:#?}"
    );
}

/// Issue 38 item 10: `search --below` read every domain below in full, however much they held.
/// It reads at most 32 MB of their knowledge and archives together, and says where it stopped.
#[test]
fn search_below_stops_at_its_bound_and_says_so() {
    let p = Project::new();
    p.domain("", "Mono");
    // Three domains of 12 MB (blank text: cheap to read, nothing to find), then a small one.
    let blank = format!(
        "# Knowledge\n\n---\n\n## 2026-01-10 - Blank\n**Type:** fact\n**Topics:** misc\n\n{}\n",
        " ".repeat(12 * 1024 * 1024)
    );
    for d in ["a", "b", "c"] {
        p.domain(d, d);
        p.write(&format!("{d}/.megg/knowledge.md"), &blank);
    }
    p.domain("d", "D");
    p.write(
        "d/.megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-01-10 - Quokka rollout order\n**Type:** decision\n**Topics:** deploy\n\nThe quokka service rolls out last.\n",
    );
    let v = p.json("", &["search", "quokka", "--below", "--json"]);
    assert_eq!(v["total"], 0, "{v}");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("stopped reading the domains below") && warnings.contains("32 MB"),
        "{warnings}"
    );
    // From the domain itself, nothing is cut.
    let v = p.json("d", &["search", "quokka", "--json"]);
    assert_eq!(v["results"][0]["title"], "Quokka rollout order", "{v}");
}

/// Issue 38 item 10: in full mode every session start parsed every archive file to print a
/// count. Within 8 files it still counts them all; past that, what the first 8 hold is a lower
/// bound, with the number of files.
#[test]
fn full_mode_counts_the_archive_within_a_bound() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(
        ".megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-01-10 - Live\n**Type:** fact\n**Topics:** misc\n\nLive.\n",
    );
    let archive = (0..3)
        .map(|i| {
            format!(
                "\n---\n\n## 2025-01-0{} - Old {i}\n**Type:** fact\n**Topics:** misc\n\nOld.\n",
                i + 1
            )
        })
        .collect::<String>();
    for f in 0..8 {
        p.write(
            &format!(".megg/archive/{f:02}.md"),
            format!("# Archive\n{archive}"),
        );
    }
    let hook = p.ok("", &["context", "--json"]);
    assert!(
        hook.contains("(24 archived entries are not loaded"),
        "{hook}"
    );
    for f in 8..50 {
        p.write(
            &format!(".megg/archive/{f:02}.md"),
            format!("# Archive\n{archive}"),
        );
    }
    let hook = p.ok("", &["context", "--json"]);
    assert!(
        hook.contains("(24+ archived entries, in 50 archive files, are not loaded"),
        "{hook}"
    );
}
