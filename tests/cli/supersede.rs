//! SPEC §17: `megg learn --supersedes ID` moves the entry it replaces to the archive with a line
//! naming its successor (never deleting it), over the CLI and MCP, across a merge of two
//! branches through the §11 driver; and `learn` names an entry the new one duplicates — by
//! title or by a near-identical body — with its id and `--supersedes`, and still writes it.

use serde_json::{Value, json};

use crate::merge::{Team, markers};
use crate::{Git, Project};

const REST: &str = "The public API is REST over HTTPS, versioned in the path (/v1/...), with JSON bodies and cursor pagination on every list endpoint so that clients never page by offset. Errors are problem+json documents with a stable code field that clients switch on.";
const GRPC: &str = "The public API moves to gRPC with protobuf messages; the REST gateway stays for browsers only and is generated from the same proto files.";

fn domain() -> Project {
    let p = Project::new();
    p.domain("", "P");
    p
}

/// `megg learn` at `now` (RFC 3339) with `args` after `learn`; the output whatever the exit.
fn learn_at(p: &Project, rel: &str, now: &str, args: &[&str]) -> std::process::Output {
    p.megg(rel)
        .env("MEGG_NOW", now)
        .arg("learn")
        .args(args)
        .output()
        .unwrap()
}

fn ok_json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    crate::stdout_json(out)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The id `megg search` gives the one hit for `query` titled `title`.
fn id_of(p: &Project, rel: &str, query: &str, title: &str) -> String {
    let v = p.json(rel, &["search", query, "--json"]);
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["title"] == title)
        .unwrap_or_else(|| panic!("no hit titled {title}: {v:#}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A domain with the REST decision learned on 2025-03-01, and its id.
fn with_rest() -> (Project, String) {
    let p = domain();
    ok_json(&learn_at(
        &p,
        "",
        "2025-03-01T09:00:00Z",
        &["Use REST for the API", "decision", "api", REST, "--json"],
    ));
    let id = id_of(&p, "", "REST", "Use REST for the API");
    (p, id)
}

#[test]
fn supersedes_moves_the_old_entry_to_its_year_s_archive_with_its_successor() {
    let (p, id) = with_rest();
    let v = ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api, grpc",
            GRPC,
            "--supersedes",
            &id.to_uppercase(),
            "--json",
        ],
    ));
    let archive = p.path(".megg/archive/knowledge-2025.md");
    assert_eq!(
        v["superseded"],
        json!({
            "id": id,
            "date": "2025-03-01",
            "title": "Use REST for the API",
            "archive": archive.display().to_string(),
        })
    );
    assert_eq!(v["entry"]["title"], "Use gRPC for the API");
    let live = p.read(".megg/knowledge.md");
    assert!(
        !live.contains("## 2025-03-01 - Use REST for the API"),
        "{live}"
    );
    assert!(!live.contains(REST), "{live}");
    // The successor names what it superseded, after its field lines (SPEC §17).
    assert!(
        live.contains("## 2026-11-26 - Use gRPC for the API\n**Type:** decision\n**Topics:** api, grpc\n**Supersedes:** 2025-03-01 - Use REST for the API\n\n"),
        "{live}"
    );
    assert_eq!(
        live.matches("\n---\n").count(),
        2,
        "one separator left: {live}"
    );
    let archived = p.read(".megg/archive/knowledge-2025.md");
    assert!(
        archived.contains(&format!(
            "## 2025-03-01 - Use REST for the API\n**Type:** decision\n**Topics:** api\n**Superseded-by:** 2026-11-26 - Use gRPC for the API\n\n{REST}\n"
        )),
        "{archived}"
    );
    // Its id stays computed from its date and title: `show` still finds it, in the archive.
    let shown = p.json("", &["show", &id, "--json"]);
    assert_eq!(shown["documents"][0]["kind"], "archive", "{shown:#}");
    assert!(
        shown["documents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("**Superseded-by:** 2026-11-26 - Use gRPC for the API"),
        "{shown:#}"
    );
    // And the search finds both.
    let found = p.json("", &["search", "API", "--json"]);
    assert_eq!(found["total"], 2, "{found:#}");
}

#[test]
fn supersede_says_what_moved_and_where_and_json_says_null_without_it() {
    let (p, id) = with_rest();
    let out = learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &id,
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let archive = p.path(".megg/archive/knowledge-2025.md");
    assert!(
        text.contains(&format!(
            "Superseded 'Use REST for the API' ({id}) — moved to {}",
            archive.display()
        )),
        "{text}"
    );
    assert!(text.contains("Learned 'Use gRPC for the API'"), "{text}");
    let v = ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &[
            "Another",
            "fact",
            "x",
            "Unrelated words entirely.",
            "--json",
        ],
    ));
    assert_eq!(v["superseded"], Value::Null);
}

/// An interruption between the archive's write and the live file's leaves the entry in both
/// places, never in neither; running the same command again finishes it, nothing doubled.
#[test]
fn an_interrupted_supersede_loses_nothing_and_a_rerun_finishes_it() {
    let (p, id) = with_rest();
    let before = p.read(".megg/knowledge.md");
    let args = [
        "learn",
        "Use gRPC for the API",
        "decision",
        "api",
        GRPC,
        "--supersedes",
        &id,
    ];
    let out = p
        .megg("")
        .env("MEGG_NOW", "2026-11-26T10:00:00Z")
        .env("MEGG_FAILPOINTS", "fail=supersede-before-live")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(p.read(".megg/knowledge.md"), before);
    let archived = p.read(".megg/archive/knowledge-2025.md");
    assert!(archived.contains("**Superseded-by:**"), "{archived}");
    let out = p
        .megg("")
        .env("MEGG_NOW", "2026-11-26T10:00:00Z")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let live = p.read(".megg/knowledge.md");
    assert!(
        !live.contains("## 2025-03-01 - Use REST for the API"),
        "{live}"
    );
    assert_eq!(live.matches("Use gRPC for the API").count(), 1, "{live}");
    let archived = p.read(".megg/archive/knowledge-2025.md");
    assert_eq!(
        archived.matches("Use REST for the API").count(),
        1,
        "{archived}"
    );
}

#[test]
fn supersedes_refuses_what_is_not_an_entry_of_this_domain_s_knowledge() {
    let (p, rest) = with_rest();
    // An entry of the root, seen from a domain below it.
    p.domain("app", "App");
    let knowledge = p.read(".megg/knowledge.md");
    let refused = |rel: &str, id: &str, args: &[&str]| -> String {
        let mut all = vec!["T", "fact", "x", "Body text here.", "--supersedes", id];
        all.extend_from_slice(args);
        let out = learn_at(&p, rel, "2026-11-26T10:00:00Z", &all);
        assert_eq!(out.status.code(), Some(1), "{id}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
        stderr(&out)
    };
    let err = refused("", "kzzzzzzz", &[]);
    assert!(err.contains("error: no entry with id 'kzzzzzzz'"), "{err}");
    assert!(
        err.contains("hint: ") && err.contains("megg search"),
        "{err}"
    );

    let err = refused("app", &rest, &[]);
    let root_knowledge = p.path(".megg/knowledge.md");
    assert!(
        err.contains(&format!(
            "'Use REST for the API' ({rest}) is an entry of {}",
            root_knowledge.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "megg -C {} learn --supersedes {rest}",
            p.root().display()
        )),
        "{err}"
    );
    assert!(!p.path("app/.megg/knowledge.md").exists());

    // A handoff.
    p.ok(
        "",
        &[
            "state",
            "write",
            "--content",
            "## Working On\nThe gateway\n",
        ],
    );
    let v = p.json("", &["search", "gateway", "--in", "handoff", "--json"]);
    let handoff = v["results"][0]["id"].as_str().unwrap().to_string();
    let err = refused("", &handoff, &[]);
    assert!(err.contains("is a handoff, not a knowledge entry"), "{err}");

    // An entry already in the archive.
    ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &rest,
            "--json",
        ],
    ));
    let knowledge_now = p.read(".megg/knowledge.md");
    let err = refused("", &rest, &[]);
    assert!(err.contains("is already in the archive"), "{err}");
    assert!(err.contains("knowledge-2025.md"), "{err}");
    assert_eq!(p.read(".megg/knowledge.md"), knowledge_now);
    assert_ne!(knowledge, knowledge_now);
}

#[test]
fn supersedes_with_a_file_of_several_entries_is_refused() {
    let (p, id) = with_rest();
    let before = p.read(".megg/knowledge.md");
    p.write(
        "entries.md",
        "## One\n**Type:** fact\n**Topics:** a\n\nFirst.\n\n---\n\n## Two\n**Type:** fact\n**Topics:** b\n\nSecond.\n",
    );
    let out = learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &["--file", "entries.md", "--supersedes", &id],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("holds 2 entries"), "{err}");
    assert!(err.contains("hint: "), "{err}");
    assert_eq!(p.read(".megg/knowledge.md"), before);
    assert!(!p.path(".megg/archive").exists());
    // One entry in the file supersedes.
    p.write(
        "one.md",
        format!("## Use gRPC for the API\n**Type:** decision\n**Topics:** api\n\n{GRPC}\n"),
    );
    let v = ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &["--file", "one.md", "--supersedes", &id, "--json"],
    ));
    assert_eq!(v["superseded"]["id"], id.as_str());
}

#[test]
fn mcp_learn_supersedes() {
    let (p, id) = with_rest();
    let r = crate::mcp::call_tool(
        &p,
        "learn",
        &json!({
            "title": "Use gRPC for the API",
            "type": "decision",
            "topics": ["api"],
            "content": GRPC,
            "supersedes": id,
        }),
    );
    assert_ne!(r["isError"], true, "{r}");
    let doc = &r["structuredContent"];
    assert_eq!(doc["superseded"]["id"], id.as_str(), "{r}");
    assert_eq!(doc["superseded"]["title"], "Use REST for the API", "{r}");
    assert!(
        !p.read(".megg/knowledge.md")
            .contains("## 2025-03-01 - Use REST for the API")
    );
    let archive = p.read(".megg/archive/knowledge-2025.md");
    assert!(
        archive.contains("**Superseded-by:** 2026-11-22 - Use gRPC for the API"),
        "{archive}"
    );
    // An unknown id is a tool error with its hint, nothing written.
    let r = crate::mcp::call_tool(
        &p,
        "learn",
        &json!({"title": "X", "type": "fact", "topics": ["x"], "content": "y", "supersedes": "kzzzzzzz"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("no entry with id 'kzzzzzzz'") && text.contains("\nhint: "),
        "{text}"
    );
}

/// The warning for a duplicate names the entry there and how to supersede it.
fn assert_names(warning: &str, id: &str, title: &str) {
    assert!(warning.contains(id), "no id: {warning}");
    assert!(warning.contains(title), "no title: {warning}");
    assert!(
        warning.contains(&format!("--supersedes {id}")),
        "no --supersedes: {warning}"
    );
}

#[test]
fn a_duplicate_title_is_named_with_its_id_and_still_learned() {
    let (p, id) = with_rest();
    let v = ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &["use  REST for the api", "decision", "api", GRPC, "--json"],
    ));
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v:#}");
    let w = warnings[0].as_str().unwrap();
    assert!(w.contains("the same title"), "{w}");
    assert_names(w, &id, "2025-03-01 - Use REST for the API");
    assert_eq!(p.read(".megg/knowledge.md").matches("\n## ").count(), 2);
    // In text, on stderr.
    let out = learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &[
            "Use REST for the API",
            "decision",
            "api",
            "Third words here for it.",
        ],
    );
    assert!(out.status.success());
    assert!(stderr(&out).starts_with("warning: "), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("--supersedes {id}")));
}

#[test]
fn a_near_identical_body_is_named_with_its_id_and_still_learned() {
    let (p, id) = with_rest();
    // One word changed and a comma dropped: the same entry, under a new title.
    let edited = REST
        .replace("HTTPS,", "HTTPS")
        .replace("cursor pagination", "keyset pagination");
    let v = ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &["API style", "decision", "api", &edited, "--json"],
    ));
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v:#}");
    let w = warnings[0].as_str().unwrap();
    assert!(w.contains("the same text but for "), "{w}");
    assert_names(w, &id, "2025-03-01 - Use REST for the API");
    assert_eq!(p.read(".megg/knowledge.md").matches("\n## ").count(), 2);

    // A different entry on the same topic, with words in common: no warning.
    let v = ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &["Use gRPC for the API", "decision", "api", GRPC, "--json"],
    ));
    assert_eq!(v["warnings"], json!([]), "{v:#}");
}

#[test]
fn a_near_identical_cjk_body_is_named_too() {
    let p = domain();
    let body = "会话令牌保存在仅限HTTP的Cookie中，前端脚本永远无法读取它们；刷新令牌每天轮换一次，过期的令牌在服务器端立即作废。";
    ok_json(&learn_at(
        &p,
        "",
        "2025-03-01T09:00:00Z",
        &["会话令牌", "decision", "auth", body, "--json"],
    ));
    let id = id_of(&p, "", "会话令牌", "会话令牌");
    let edited = body.replace("每天", "每周");
    let v = ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &["令牌存储", "decision", "auth", &edited, "--json"],
    ));
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v:#}");
    assert_names(warnings[0].as_str().unwrap(), &id, "会话令牌");
}

/// A team whose history holds REST and a changelog rule, with branch `bob` at that commit and
/// `alice` checked out, REST superseded by gRPC there (not yet committed).
fn alice_supersedes_rest() -> Team {
    let t = Team::new(true);
    t.learn(
        "2025-03-01T09:00:00Z",
        "Use REST for the API",
        "decision",
        "api",
        REST,
    );
    t.learn(
        "2025-04-01T09:00:00Z",
        "Keep a changelog",
        "rule",
        "docs",
        "Every release has notes.",
    );
    let x = id_of(&t.p, "", "REST", "Use REST for the API");
    t.git(&["branch", "bob"]);
    t.git(&["checkout", "-q", "-b", "alice"]);
    ok_json(&learn_at(
        &t.p,
        "",
        "2026-11-20T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &x,
            "--json",
        ],
    ));
    t
}

/// Supersession merges like any entry (SPEC §11): alice supersedes X while bob learns Y; merged
/// either way through the driver, knowledge.md holds both new entries and not X, and the archive
/// holds X with its successor — no conflict.
#[test]
fn a_supersede_on_one_branch_merges_with_a_learn_on_the_other_both_ways() {
    let t = alice_supersedes_rest();
    t.commit("alice supersedes REST");
    t.git(&["checkout", "-q", "bob"]);
    t.learn(
        "2026-11-21T10:00:00Z",
        "Cache invalidation",
        "gotcha",
        "cache",
        "Purge the CDN after a deploy.",
    );
    let check = |who: &str| {
        let live = t.knowledge();
        assert_eq!(markers(&live), 0, "{who}: {live}");
        assert!(
            !live.contains("## 2025-03-01 - Use REST for the API"),
            "{who}: {live}"
        );
        for title in [
            "Use gRPC for the API",
            "Cache invalidation",
            "Keep a changelog",
        ] {
            assert_eq!(live.matches(title).count(), 1, "{who}: {title}: {live}");
        }
        let archived = t.p.read(".megg/archive/knowledge-2025.md");
        assert_eq!(markers(&archived), 0, "{who}: {archived}");
        assert!(
            archived.contains("**Superseded-by:** 2026-11-20 - Use gRPC for the API"),
            "{who}: {archived}"
        );
        let status = t.git(&["status", "--porcelain"]);
        assert!(status.trim().is_empty(), "{who}: {status}");
    };
    // bob's learn merged into alice's supersede.
    t.git(&["checkout", "-q", "-b", "alice-merged", "alice"]);
    t.git(&["merge", "--no-edit", "bob"]);
    check("bob into alice");
    // alice's supersede merged into bob's learn.
    t.git(&["checkout", "-q", "-b", "bob-merged", "bob"]);
    t.git(&["merge", "--no-edit", "alice"]);
    check("alice into bob");
}

/// Two branches each supersede a different entry of the same year: each creates the year's
/// archive, and the driver merges the two archives (no base) and both removals.
#[test]
fn supersedes_on_both_branches_merge_their_archives() {
    let t = Team::new(true);
    t.learn(
        "2025-03-01T09:00:00Z",
        "Use REST for the API",
        "decision",
        "api",
        REST,
    );
    t.learn(
        "2025-04-01T09:00:00Z",
        "Deploy on Fridays",
        "process",
        "deploy",
        "Deploys go out every Friday afternoon after the weekly sync with the whole team.",
    );
    let rest = id_of(&t.p, "", "REST", "Use REST for the API");
    let friday = id_of(&t.p, "", "Fridays", "Deploy on Fridays");
    t.git(&["branch", "bob"]);
    t.git(&["checkout", "-q", "-b", "alice"]);
    ok_json(&learn_at(
        &t.p,
        "",
        "2026-11-20T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &rest,
            "--json",
        ],
    ));
    t.commit("alice");
    t.git(&["checkout", "-q", "bob"]);
    ok_json(&learn_at(
        &t.p,
        "",
        "2026-11-21T10:00:00Z",
        &[
            "Deploy on Tuesdays",
            "process",
            "deploy",
            "Never deploy before a weekend.",
            "--supersedes",
            &friday,
            "--json",
        ],
    ));
    t.commit("bob");
    t.git(&["merge", "--no-edit", "alice"]);
    let live = t.knowledge();
    assert_eq!(markers(&live), 0, "{live}");
    assert!(
        !live.contains("## 2025-03-01 - Use REST")
            && !live.contains("## 2025-04-01 - Deploy on Fridays"),
        "{live}"
    );
    assert!(
        live.contains("Use gRPC") && live.contains("Tuesdays"),
        "{live}"
    );
    let archived = t.p.read(".megg/archive/knowledge-2025.md");
    assert_eq!(markers(&archived), 0, "{archived}");
    assert!(
        archived.contains("**Superseded-by:** 2026-11-20 - Use gRPC for the API"),
        "{archived}"
    );
    assert!(
        archived.contains("**Superseded-by:** 2026-11-21 - Deploy on Tuesdays"),
        "{archived}"
    );
}

/// Outside git too, and in a git2-built repository: supersede works wherever learn does.
#[test]
fn supersede_in_a_repository_subdirectory() {
    let p = domain();
    Git::init(p.root(), "main");
    p.mkdir("src/deep");
    ok_json(&learn_at(
        &p,
        "src/deep",
        "2025-03-01T09:00:00Z",
        &["Use REST for the API", "decision", "api", REST, "--json"],
    ));
    let id = id_of(&p, "src/deep", "REST", "Use REST for the API");
    let v = ok_json(&learn_at(
        &p,
        "src/deep",
        "2026-11-26T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &id,
            "--json",
        ],
    ));
    assert_eq!(v["superseded"]["id"], id.as_str());
    assert!(
        !p.read(".megg/knowledge.md")
            .contains("## 2025-03-01 - Use REST")
    );
}

/// On a terminal (tmux), `learn` asks about a duplicate before writing: Enter writes it (the
/// preselected answer), the second answer supersedes the entry there, the last writes nothing
/// and exits 0. With `--json` it never asks.
#[test]
fn pty_a_duplicate_is_asked_about_write_supersede_or_nothing() {
    let learn = "learn 'Use REST for the API' decision api 'Other words about it.'";
    for (keys, answer) in [
        (&["Enter"][..], "write"),
        (&["Down", "Enter"], "supersede"),
        (&["Down", "Down", "Enter"], "nothing"),
    ] {
        let (p, id) = with_rest();
        let before = p.read(".megg/knowledge.md");
        let Some(t) = crate::pty::Tmux::start(&p, learn) else {
            return;
        };
        let screen = t.wait_for("Write this one anyway?");
        assert!(
            screen.contains(&format!(
                "An entry like this exists: {id} '2025-03-01 - Use REST for the API' (the same title)."
            )),
            "{screen}"
        );
        assert!(screen.contains(&format!("Supersede {id}")), "{screen}");
        t.keys(keys);
        assert_eq!(crate::pty::exit_code(&p), 0, "{answer}: {}", t.screen());
        let live = p.read(".megg/knowledge.md");
        let screen = t.screen();
        match answer {
            "write" => {
                assert_eq!(live.matches("Use REST for the API").count(), 2, "{live}");
                assert!(
                    screen.contains("Learned 'Use REST for the API'"),
                    "{screen}"
                );
                // Asked, so not warned again.
                assert!(!screen.contains("warning:"), "{screen}");
            }
            "supersede" => {
                assert_eq!(
                    live.matches("## 2026-11-22 - Use REST for the API").count(),
                    1,
                    "{live}"
                );
                assert_eq!(
                    live.matches("## 2025-03-01 - Use REST for the API").count(),
                    0,
                    "{live}"
                );
                assert!(!live.contains(REST), "{live}");
                let archived = p.read(".megg/archive/knowledge-2025.md");
                assert!(
                    archived.contains("**Superseded-by:** 2026-11-22 - Use REST for the API"),
                    "{archived}"
                );
                assert!(screen.contains(&format!("Superseded 'Use REST for the API' ({id})")));
            }
            _ => {
                assert_eq!(live, before);
                assert!(screen.contains("Nothing written"), "{screen}");
            }
        }
    }
}

#[test]
fn pty_json_never_asks() {
    let (p, id) = with_rest();
    let Some(t) = crate::pty::Tmux::start(
        &p,
        "learn 'Use REST for the API' decision api 'Other words.' --json",
    ) else {
        return;
    };
    assert_eq!(crate::pty::exit_code(&p), 0, "{}", t.screen());
    let screen = t.wait_for("\"warnings\"");
    assert!(!screen.contains("Write this one anyway?"), "{screen}");
    assert!(screen.contains(&format!("--supersedes {id}")), "{screen}");
    assert_eq!(p.read(".megg/knowledge.md").matches("Use REST").count(), 2);
}

/// SPEC §17: a superseded entry is still found, labelled with its successor in `search` and
/// `show` (JSON and text), and never listed in the session-start index.
#[test]
fn a_superseded_entry_is_labelled_where_it_is_found_and_never_in_the_index() {
    let (p, id) = with_rest();
    ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api, grpc",
            GRPC,
            "--supersedes",
            &id,
            "--json",
        ],
    ));
    let successor = "2026-11-26 - Use gRPC for the API";
    let found = p.json("", &["search", "REST", "--json"]);
    let hit = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id.as_str())
        .unwrap_or_else(|| panic!("{found:#}"));
    assert_eq!(hit["superseded_by"], successor, "{found:#}");
    let text = p.megg("").args(["search", "REST"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!("superseded by {successor}")),
        "{text}"
    );
    let shown = p.json("", &["show", &id, "--json"]);
    assert_eq!(
        shown["documents"][0]["superseded_by"], successor,
        "{shown:#}"
    );
    let text = p.megg("").args(["show", &id]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!("(archive, superseded by {successor} (k")),
        "{text}"
    );
    // The live entry is not labelled.
    let live = id_of(&p, "", "gRPC", "Use gRPC for the API");
    let shown = p.json("", &["show", &live, "--json"]);
    assert!(
        shown["documents"][0].get("superseded_by").is_none(),
        "{shown:#}"
    );

    // Knowledge past the full-load limit: the index lists entries, archived ones included —
    // but not the superseded one.
    let mut knowledge = p.read(".megg/knowledge.md");
    for i in 0..120 {
        knowledge.push_str(&format!(
            "\n---\n\n## 2026-01-{:02} - Padding entry {i}\n**Type:** fact\n**Topics:** pad\n\n{}\n",
            i % 28 + 1,
            "Words that fill the knowledge file past its full-load limit. ".repeat(4)
        ));
    }
    p.write(".megg/knowledge.md", &knowledge);
    p.write(
        ".megg/archive/knowledge-2024.md",
        "# Archive\n\n## 2024-05-01 - An archived API note\n**Type:** fact\n**Topics:** api\n\nREST API clients retry.\n",
    );
    // The session is about the REST API: the archived note and the superseded entry both match.
    p.ok(
        "",
        &[
            "state",
            "write",
            "--content",
            "## Working On\nREST API pagination and errors\n",
        ],
    );
    let ctx = p.json("", &["context", "--format", "json"]);
    let index = ctx["knowledge"]["index"]
        .as_array()
        .unwrap_or_else(|| panic!("{ctx:#}"));
    let listed = |id: &str| index.iter().any(|i| i["id"] == id);
    assert!(!listed(&id), "{ctx:#}");
    assert!(
        index.iter().any(|i| i["archived"] == true),
        "another archived entry is listed: {ctx:#}"
    );
}

/// Second reader: superseding an entry with one of the same day and title would give both one
/// id (and the archived one would name itself as its successor): refused, nothing written.
#[test]
fn superseding_with_the_same_day_and_title_is_refused() {
    let (p, id) = with_rest();
    let before = p.read(".megg/knowledge.md");
    let out = learn_at(
        &p,
        "",
        "2025-03-01T18:00:00Z",
        &[
            "use rest for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &id,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("same day and title"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("hint: edit that entry"),
        "{}",
        stderr(&out)
    );
    assert_eq!(p.read(".megg/knowledge.md"), before);
    assert!(!p.path(".megg/archive").exists());
}

/// Issue 45: alice supersedes REST while bob edits it. The driver sees only knowledge.md, where
/// alice's side lost REST and gained its successor: before the `**Supersedes:**` line it was a
/// delete, the edit beat it (exit 0), and REST stayed live *and* archived as superseded. Now the
/// successor names REST, and the merge is a conflict on it — the successor and the edit between
/// markers, the successor never also appended — either way, and `megg resolve` (from the index,
/// or from committed markers) never settles it by keeping both.
#[test]
fn a_supersede_and_an_edit_of_one_entry_merge_into_a_conflict_both_ways() {
    let t = alice_supersedes_rest();
    let live = t.knowledge();
    assert!(
        live.contains("**Topics:** api\n**Supersedes:** 2025-03-01 - Use REST for the API\n\n"),
        "{live}"
    );
    t.commit("alice supersedes REST");
    t.git(&["checkout", "-q", "bob"]);
    let edited = REST.replace("cursor pagination", "keyset pagination");
    t.p.write(".megg/knowledge.md", t.knowledge().replace(REST, &edited));
    t.commit("bob edits REST");

    for (into, from) in [("alice", "bob"), ("bob", "alice")] {
        let who = format!("{from} into {into}");
        t.git(&["checkout", "-q", "-f", into]);
        let out = t.run_git(&["merge", "--no-edit", from]);
        let said = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        assert!(
            !out.status.success(),
            "{who}: the merge went through: {said}"
        );
        let live = t.knowledge();
        assert_eq!(markers(&live), 1, "{who}: {live}");
        assert_eq!(
            live.matches("## 2026-11-20 - Use gRPC for the API").count(),
            1,
            "{who}: {live}"
        );
        assert_eq!(
            live.matches("## 2025-03-01 - Use REST for the API").count(),
            1,
            "{who}: {live}"
        );
        assert!(live.contains(&edited), "{who}: {live}");
        // The block holds the successor and the edit, and nothing else.
        let block: String = live
            .split_inclusive('\n')
            .skip_while(|l| !l.starts_with("<<<<<<<"))
            .take_while(|l| !l.starts_with(">>>>>>>"))
            .collect();
        assert!(
            block.contains("Use gRPC for the API") && block.contains(&edited),
            "{who}: {block}"
        );
        assert!(!block.contains("Keep a changelog"), "{who}: {block}");
        assert!(
            said.contains("'## 2025-03-01 - Use REST for the API' was superseded on"),
            "{who}: {said}"
        );
        // From the index's stages: still the conflict, exit 1.
        let (code, v) = {
            let out = t.p.run("", &["resolve", "--json"]);
            (out.status.code(), crate::stdout_json(&out))
        };
        assert_eq!(code, Some(1), "{who}: {v}");
        assert_eq!(
            v["conflicts"][0]["entries"],
            json!(["## 2025-03-01 - Use REST for the API"]),
            "{who}: {v}"
        );
        t.git(&["merge", "--abort"]);
    }

    // Markers committed (a clone without the driver's `megg resolve` after the fact): resolved
    // with no base, the successor and the entry it names are still a conflict.
    t.git(&["checkout", "-q", "-f", "alice"]);
    let _ = t.run_git(&["merge", "--no-edit", "bob"]);
    t.commit("markers committed");
    let out = t.p.run("", &["resolve", "--json"]);
    let v = crate::stdout_json(&out);
    assert_eq!(out.status.code(), Some(1), "{v}");
    let live = t.knowledge();
    assert_eq!(markers(&live), 1, "{live}");
}

/// What an older merge left (issue 45): REST live, edited, and in the archive superseded by
/// gRPC. `doctor` and `maintain` name it — its id and title, both live and superseded — with
/// the way out.
#[test]
fn doctor_and_maintain_name_an_entry_left_both_live_and_superseded() {
    let t = Team::new(true);
    t.learn(
        "2025-03-01T09:00:00Z",
        "Use REST for the API",
        "decision",
        "api",
        REST,
    );
    let x = id_of(&t.p, "", "REST", "Use REST for the API");
    ok_json(&learn_at(
        &t.p,
        "",
        "2026-11-20T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &x,
            "--json",
        ],
    ));
    let healthy = |what: &str| {
        // Not set up for any host here: doctor exits 1 whatever this check says.
        let doctor = crate::stdout_json(&t.p.run("", &["doctor", "--json"]));
        let check = doctor["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "conflicts")
            .cloned()
            .unwrap_or_else(|| panic!("{what}: no conflicts check: {doctor:#}"));
        let maintain = t.p.ok("", &["maintain"]);
        (check, maintain)
    };
    let (check, maintain) = healthy("superseded once");
    assert_eq!(check["ok"], true, "{check:#}");
    assert!(!maintain.contains("both live and superseded"), "{maintain}");

    // An older merge: the successor without its Supersedes line, and bob's edit of REST kept.
    let edited = REST.replace("cursor pagination", "keyset pagination");
    let live = t
        .knowledge()
        .replace("**Supersedes:** 2025-03-01 - Use REST for the API\n", "")
        + &format!(
            "\n---\n\n## 2025-03-01 - Use REST for the API\n**Type:** decision\n**Topics:** api\n\n{edited}\n"
        );
    t.p.write(".megg/knowledge.md", &live);
    t.commit("an older merge");
    let shown = t.p.json("", &["show", &x, "--json"]);
    assert_eq!(shown["documents"][0]["kind"], "knowledge", "{shown:#}");

    let (check, maintain) = healthy("left both");
    assert_eq!(check["ok"], false, "{check:#}");
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!(
            "'Use REST for the API' ({x}) is both live and superseded: live at .megg/knowledge.md:"
        )) && detail.contains(
            "superseded by '2026-11-20 - Use gRPC for the API' in .megg/archive/knowledge-2025.md"
        ),
        "{check:#}"
    );
    let fix = check["fix"].as_str().unwrap();
    assert!(
        fix.contains(&format!("megg learn --supersedes {x}"))
            && fix.contains("delete its live copy"),
        "{fix}"
    );
    assert!(
        maintain.contains(&format!(
            "'Use REST for the API' ({x}) is both live and superseded: live at "
        )) && maintain.contains(&format!(
            "learn --supersedes {x} …`, or delete the live copy"
        )),
        "{maintain}"
    );
    let json = t.p.json("", &["maintain", "--json"]);
    assert!(
        json["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().contains("both live and superseded")),
        "{json:#}"
    );
}

/// SPEC §17: in `search` a superseded entry ranks after its successor — though it matches the
/// query better — and its label carries the successor's id (text and JSON); `show` too.
/// Before: the old REST entry ranked first, labelled with its successor's date and title only.
#[test]
fn a_superseded_entry_ranks_after_its_successor_and_names_its_id() {
    let (p, old) = with_rest();
    ok_json(&learn_at(
        &p,
        "",
        "2026-11-26T10:00:00Z",
        &[
            "Use gRPC for the API",
            "decision",
            "api",
            GRPC,
            "--supersedes",
            &old,
            "--json",
        ],
    ));
    let new = id_of(&p, "", "gRPC", "Use gRPC for the API");
    // "REST API" matches the old entry best (its whole body is about REST).
    let v = p.json(
        "",
        &["search", "REST API", "--in", "knowledge,archive", "--json"],
    );
    let ids: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let (at_new, at_old) = (
        ids.iter()
            .position(|i| *i == new)
            .unwrap_or_else(|| panic!("{v:#}")),
        ids.iter()
            .position(|i| *i == old)
            .unwrap_or_else(|| panic!("{v:#}")),
    );
    assert!(at_new < at_old, "the superseded entry ranks first: {v:#}");
    let superseded = &v["results"][at_old];
    assert_eq!(superseded["superseded_by_id"], new.as_str(), "{v:#}");
    let text = p.ok("", &["search", "REST API", "--in", "knowledge,archive"]);
    assert!(
        text.contains(&format!(
            "superseded by 2026-11-26 - Use gRPC for the API ({new})"
        )),
        "{text}"
    );
    let shown = p.ok("", &["show", &old]);
    assert!(shown.contains(&format!("({new})")), "{shown}");
}

/// SPEC §17: a duplicate of the same day and title (the same id) is not offered `--supersedes`,
/// which refuses it; the warning says to edit the entry there. Before: the warning offered
/// `--supersedes <id>`, which was then refused.
#[test]
fn a_same_day_same_title_duplicate_is_told_to_edit_not_supersede() {
    let (p, id) = with_rest();
    let out = learn_at(
        &p,
        "",
        "2025-03-01T15:00:00Z",
        &[
            "Use REST for the API",
            "decision",
            "api",
            "Another body on the same matter.",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let err = stderr(&out);
    assert!(err.contains("edit it there"), "{err}");
    assert!(!err.contains(&format!("--supersedes {id}")), "{err}");
}
