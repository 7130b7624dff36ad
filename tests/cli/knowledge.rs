//! `megg learn`, `megg init` and `megg maintain`: TypeScript megg parity without its bugs.

use std::process::Stdio;

use crate::capture::Hold;
use crate::{Git, NOW, Project};

fn domain() -> Project {
    let p = Project::new();
    p.domain("", "P");
    p
}

fn entries_of(p: &Project, rel: &str) -> Vec<String> {
    let text = p.read(rel);
    let body = text
        .split_once("\n---\n")
        .map_or(text.as_str(), |(_, b)| b)
        .to_string();
    body.split("\n---\n")
        .filter(|c| c.trim_start().starts_with("## "))
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn learn_then_context_topic_returns_the_entry_verbatim() {
    let p = domain();
    let content = "Sessions use JWTs in httpOnly cookies.\n\n- never localStorage\n  created: this line is content\n\n***\n\ntype: also content";
    let v = p.json(
        "",
        &[
            "learn",
            "Use JWT in httpOnly cookies",
            "decision",
            "auth, security",
            content,
            "--json",
        ],
    );
    assert_eq!(v["entry"]["date"], "2026-11-22");
    assert_eq!(v["entry"]["type"], "decision");
    assert_eq!(
        v["entry"]["topics"],
        serde_json::json!(["auth", "security"])
    );
    assert_eq!(
        v["path"],
        p.path(".megg/knowledge.md").display().to_string()
    );
    let ctx = p.json("", &["context", "--topic", "auth", "--format", "json"]);
    assert_eq!(
        ctx["knowledge"]["content"],
        format!(
            "## 2026-11-22 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\n{content}"
        )
    );
    assert_eq!(ctx["knowledge"]["entries"], 1);
}

#[test]
fn learn_then_maintain_counts_it() {
    let p = domain();
    for i in 0..3 {
        p.ok("", &["learn", &format!("Entry {i}"), "fact", "db", "text"]);
    }
    let v = p.json("", &["maintain", "--json"]);
    let d = &v["domains"][0];
    assert_eq!(d["entries"], 3);
    assert_eq!(d["topics"]["db"], 3);
    assert_eq!(
        d["knowledge"],
        p.path(".megg/knowledge.md").display().to_string()
    );
}

#[test]
fn learn_creates_the_file_with_frontmatter_and_never_rewrites_it() {
    let p = domain();
    p.ok("", &["learn", "First", "gotcha", "x", "one"]);
    let text = p.read(".megg/knowledge.md");
    assert!(
        text.starts_with(&format!(
            "---\ncreated: {NOW}\nupdated: {NOW}\ntype: knowledge\n---\n\n# Knowledge\n"
        )),
        "{text}"
    );
    let later = "2026-11-23T08:00:00Z";
    let out = p
        .megg("")
        .env("MEGG_NOW", later)
        .args(["learn", "Second", "rule", "x", "two"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // SPEC §6, §11: an existing frontmatter is not rewritten, so two branches' learns touch
    // only the end of the file.
    let after = p.read(".megg/knowledge.md");
    assert!(after.starts_with(&text), "{after}");
    assert!(after.contains(&format!("created: {NOW}\nupdated: {NOW}\n")));
    assert_eq!(entries_of(&p, ".megg/knowledge.md").len(), 2);
}

#[test]
fn learn_rejects_bad_input_and_writes_nothing() {
    let p = domain();
    for (args, needle) in [
        (
            vec!["learn", "T", "idea", "x", "c"],
            "decision, pattern, gotcha, context, rule, fact, process",
        ),
        (
            vec!["learn", "T", "fact", " , ", "c"],
            "comma-separated topics",
        ),
        (vec!["learn", "T", "fact", "x", "a\n---\nb"], "***"),
    ] {
        let out = p.run("", &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
    assert!(!p.path(".megg/knowledge.md").exists());
}

#[test]
fn learn_reads_stdin_for_dash_and_needs_a_domain() {
    let p = domain();
    let out = p
        .megg("")
        .args(["learn", "From stdin", "process", "ops", "-"])
        .write_stdin("step one\nstep two\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        p.read(".megg/knowledge.md")
            .contains("**Topics:** ops\n\nstep one\nstep two\n")
    );
    let none = Project::new();
    let out = none.run("", &["learn", "T", "fact", "x", "c"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("megg init"));
}

#[test]
fn learn_warns_when_maintain_is_due() {
    let p = domain();
    p.write(".megg/knowledge.md", crate::knowledge_file(12_500));
    let v = p.json("", &["learn", "One more", "fact", "x", "c", "--json"]);
    assert!(v["warnings"][0].as_str().unwrap().contains("megg maintain"));
}

/// 8 processes × 25 `learn` at once: exactly 200 entries, all parse. Then two that certainly
/// overlap ([`overlapping_learns`]): both entries kept, the second having waited for the
/// first's lock; [`concurrent_learns_lose_entries_without_the_lock`] runs that with the lock
/// switched off and sees an entry lost.
#[test]
fn concurrent_learns_lose_nothing() {
    assert_eq!(concurrent_learns(8, 25), 200);
    let (entries, waited) = overlapping_learns(true);
    assert!(waited, "the second learn never waited for the first's lock");
    assert_eq!(entries, 2);
}

/// The test above can fail: with `no-lock`, the first learn writes back what it read before
/// the second appended, and the second's entry is gone.
#[test]
fn concurrent_learns_lose_entries_without_the_lock() {
    let (entries, waited) = overlapping_learns(false);
    assert!(!waited);
    assert_eq!(entries, 1);
}

/// Two `learn`s that certainly overlap: the first is held ([`Hold`]) with knowledge.md read and
/// its new text written beside it, not yet in place; the second starts then, and the first is
/// let go once the second waits for the lock (or, without it, is done). The entries found, and
/// whether the second waited.
fn overlapping_learns(lock: bool) -> (u64, bool) {
    let p = domain();
    Git::init(p.root(), "main");
    let hold = Hold::new();
    let off = if lock { "" } else { ",no-lock" };
    let learn = |n: &str, failpoints: String| {
        let mut cmd = p.megg("");
        cmd.env("MEGG_FAILPOINTS", failpoints).args([
            "learn",
            &format!("Entry {n}"),
            "fact",
            "shared",
            "text",
        ]);
        cmd
    };
    let mut first = learn("one", format!("{}{off}", hold.at(".megg/knowledge.md")));
    let first = std::thread::spawn(move || first.output().unwrap());
    hold.wait_held(&first);
    let mut second = learn("two", format!("{}{off}", hold.log()));
    let second = std::thread::spawn(move || second.output().unwrap());
    let waited = hold.wait_second(&second, "knowledge.md");
    hold.release();
    for out in [first.join().unwrap(), second.join().unwrap()] {
        assert!(out.status.success(), "{out:?}");
    }
    let v = p.json("", &["maintain", "--json"]);
    assert_eq!(v["domains"][0]["problems"], serde_json::json!([]));
    (v["domains"][0]["entries"].as_u64().unwrap(), waited)
}

/// `workers` processes each running `learn` `each` times at once; returns the entries found.
fn concurrent_learns(workers: usize, each: usize) -> u64 {
    let p = domain();
    Git::init(p.root(), "main");
    let bin = assert_cmd::cargo::cargo_bin("megg");
    let threads: Vec<_> = (0..workers)
        .map(|w| {
            let bin = bin.clone();
            let root = p.root().to_path_buf();
            std::thread::spawn(move || {
                for i in 0..each {
                    let status = std::process::Command::new(&bin)
                        .args([
                            "learn",
                            &format!("Worker {w} entry {i}"),
                            "fact",
                            &format!("w{w}, shared"),
                            "text",
                        ])
                        .current_dir(&root)
                        .env("MEGG_NOW", NOW)
                        .env("MEGG_CACHE_DIR", "")
                        .env_remove("MEGG_FAILPOINTS")
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .unwrap();
                    assert!(status.success());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let v = p.json("", &["maintain", "--json"]);
    assert_eq!(v["domains"][0]["problems"], serde_json::json!([]));
    let entries = v["domains"][0]["entries"].as_u64().unwrap();
    if entries as usize == workers * each {
        let ctx = p.json("", &["context", "--topic", "w3", "--format", "json"]);
        assert_eq!(ctx["knowledge"]["entries"], each as u64);
    }
    entries
}

/// The TypeScript megg's own files, quirks included, parse to the right entries.
#[test]
fn typescript_knowledge_parses_to_the_right_entries() {
    let p = Project::new();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ts-megg-v1.1/acme/shop/.megg/knowledge.md");
    p.write(".megg/knowledge.md", std::fs::read(src).unwrap());
    p.write(".megg/info.md", "# Shop\n");
    let v = p.json("", &["maintain", "--json"]);
    assert_eq!(v["domains"][0]["entries"], 4);
    assert_eq!(v["domains"][0]["problems"], serde_json::json!([]));
    assert_eq!(v["domains"][0]["unknown_types"], serde_json::json!([]));
    for (topic, title, kind) in [
        ("security", "Use JWT in httpOnly cookies", "decision"),
        ("stripe", "Stripe webhooks retry", "gotcha"),
        ("db", "Repository pattern for DB", "pattern"),
        ("deploy", "Deploy on merge", "context"),
    ] {
        let c = p.json("", &["context", "--topic", topic, "--format", "json"]);
        let content = c["knowledge"]["content"].as_str().unwrap();
        assert!(
            content.starts_with(&format!("## 2026-11-22 - {title}\n**Type:** {kind}\n")),
            "{content}"
        );
        assert_eq!(c["knowledge"]["entries"], 1);
    }
}

#[test]
fn typescript_quirks_v12_types_undated_crlf_and_body_keys() {
    let p = Project::new();
    p.write(".megg/info.md", "# P\n");
    p.write(
        ".megg/knowledge.md",
        "---\r\ncreated: 2026-01-01T00:00:00.000Z\r\nupdated: 2026-01-02T00:00:00.000Z\r\ntype: knowledge\r\n---\r\n\r\n# Knowledge\r\n\r\n\r\n\r\n---\r\n\r\n## Undated rule\r\n**Type:** rule\r\n**Topics:** style\r\n\r\nAlways rustfmt.\r\n\r\n---\r\n\r\n## 2026-01-02 - A process\r\n**Type:** process\r\n**Topics:** release, style\r\n\r\ncreated: 2026-01-01\r\ntype: knowledge\r\nStill this entry's body.\r\n",
    );
    let v = p.json("", &["maintain", "--json"]);
    assert_eq!(v["domains"][0]["entries"], 2);
    let c = p.json("", &["context", "--topic", "release", "--format", "json"]);
    let content = c["knowledge"]["content"].as_str().unwrap();
    assert!(
        content.contains("type: knowledge\nStill this entry's body.") && !content.contains('\r'),
        "{content:?}"
    );
    let c = p.json("", &["context", "--topic", "style", "--format", "json"]);
    assert_eq!(c["knowledge"]["entries"], 2);
}

/// SPEC §15.1: a CRLF `knowledge.md` (Git for Windows checks text out so) stays CRLF when
/// `learn` adds to it — no line of the new entry ends in a bare `\n` — and reads back whole.
#[test]
fn learn_into_a_crlf_file_writes_crlf() {
    let p = Project::new();
    p.write(".megg/info.md", "# P\n");
    p.write(
        ".megg/knowledge.md",
        "---\r\ncreated: 2026-01-01T00:00:00.000Z\r\nupdated: 2026-01-01T00:00:00.000Z\r\ntype: knowledge\r\n---\r\n\r\n# Knowledge\r\n\r\n---\r\n\r\n## 2026-01-01 - Old rule\r\n**Type:** rule\r\n**Topics:** style\r\n\r\nAlways rustfmt.\r\n",
    );
    p.ok(
        "",
        &[
            "learn",
            "Nova regra",
            "rule",
            "style",
            "Sempre clippy, ação e 日本語.",
        ],
    );
    let text = p.read(".megg/knowledge.md");
    let bare = text.replace("\r\n", "").matches('\n').count();
    assert_eq!(bare, 0, "{text:?}");
    assert!(text.contains("## 2026-11-22 - Nova regra\r\n"), "{text:?}");
    let c = p.json("", &["context", "--topic", "style", "--format", "json"]);
    assert_eq!(c["knowledge"]["entries"], 2);
    assert!(!c["knowledge"]["content"].as_str().unwrap().contains('\r'));
}

#[test]
fn init_writes_the_detected_template() {
    let p = Project::new();
    p.write(
        "Cargo.toml",
        "[package]\nname = \"shop-api\"\ndescription = \"The storefront API\"\n",
    );
    let git = Git::init(p.root(), "main");
    git.repo
        .remote("origin", "https://deploy:s3cr3t@example.com/acme/shop.git")
        .unwrap();
    let v = p.json("", &["init", "--json"]);
    assert_eq!(v["created"], true);
    let text = p.read(".megg/info.md");
    assert!(
        text.starts_with(&format!(
            "---\ncreated: {NOW}\nupdated: {NOW}\ntype: context\n---\n\n# shop-api\n"
        )),
        "{text}"
    );
    for part in [
        "## Context\nThe storefront API (from Cargo.toml)\nRepository: https://example.com/acme/shop.git\n",
        "## Rules\n",
        "## Learning\n",
        "## Files\n",
    ] {
        assert!(text.contains(part), "{part}\n{text}");
    }
    assert!(!text.contains("s3cr3t"));
    let ctx = p.json("", &["context", "--format", "json"]);
    assert_eq!(ctx["chain"][0]["title"], "shop-api");
}

#[test]
fn init_never_overwrites_without_force() {
    let p = Project::new();
    p.mkdir("sub");
    p.ok("", &["init", "sub", "--info", "My notes"]);
    assert!(p.read("sub/.megg/info.md").ends_with("# sub\n\nMy notes\n"));
    let out = p.run("", &["init", "sub", "--info", "other"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert!(p.read("sub/.megg/info.md").ends_with("My notes\n"));
    let v = p.json(
        "",
        &["init", "sub", "--info", "# Replaced", "--force", "--json"],
    );
    assert_eq!(v["created"], false);
    assert!(p.read("sub/.megg/info.md").ends_with("# Replaced\n"));
}

#[test]
fn maintain_reports_every_domain_below_with_actions() {
    let p = domain();
    p.write(".megg/knowledge.md", crate::knowledge_file(9_000));
    p.domain("a/b", "B");
    p.write(
        "a/b/.megg/knowledge.md",
        "## 2026-01-01 - Odd\n**Type:** idea\n**Topics:** x\n\nbody\n",
    );
    p.write(
        "a/b/.megg/state.md",
        "---\nupdated: 2026-01-01T00:00:00Z\nstatus: active\n---\nold\n",
    );
    p.domain("node_modules/x", "Skipped");
    let v = p.json("", &["maintain", "--json"]);
    let dirs: Vec<&str> = v["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["dir"].as_str().unwrap())
        .collect();
    assert_eq!(
        dirs,
        [p.root().to_str().unwrap(), p.path("a/b").to_str().unwrap()]
    );
    let top = &v["domains"][0];
    assert_eq!(top["bloated"], true);
    assert_eq!(top["tokens"], 9_000);
    assert!(top["topics"]["auth"].as_u64().unwrap() >= 3);
    let b = &v["domains"][1];
    assert_eq!(b["unknown_types"], serde_json::json!(["idea"]));
    assert_eq!(b["stale"][0]["title"], "Odd");
    assert_eq!(b["expired_state"], true);
    let actions: Vec<&str> = v["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(actions.iter().any(|a| a.contains("--archive-before")));
    assert!(actions.iter().any(|a| a.contains("state clear")));
    let text = p.ok("", &["maintain"]);
    assert!(text.contains("Suggested actions:"));
}

fn archive_fixture() -> (Project, Vec<String>) {
    let p = domain();
    let mut text = String::from(
        "---\ncreated: 2024-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: knowledge\n---\n\n# Knowledge\n",
    );
    for (date, title) in [
        ("2024-03-01", "Old A"),
        ("2024-07-09", "Old B"),
        ("2025-02-02", "Old C"),
        ("2026-06-01", "Recent D"),
    ] {
        text.push_str(&format!(
            "\n---\n\n## {date} - {title}\n**Type:** fact\n**Topics:** t\n\nBody of {title}.\n"
        ));
    }
    text.push_str("\n---\n\n## Undated E\n**Type:** fact\n**Topics:** t\n\nstays\n");
    p.write(".megg/knowledge.md", &text);
    let before = entries_of(&p, ".megg/knowledge.md");
    assert_eq!(before.len(), 5);
    (p, before)
}

fn all_entries(p: &Project) -> Vec<String> {
    let mut all = entries_of(p, ".megg/knowledge.md");
    for year in [2024, 2025] {
        let rel = format!(".megg/archive/knowledge-{year}.md");
        if p.path(&rel).exists() {
            all.extend(entries_of(p, &rel));
        }
    }
    all.sort();
    all
}

#[test]
fn archive_before_moves_entries_byte_for_byte() {
    let (p, mut before) = archive_fixture();
    let v = p.json(
        "",
        &["maintain", "--archive-before", "2026-01-01", "--json"],
    );
    let moved: Vec<&str> = v["archived"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(moved, ["Old A", "Old B", "Old C"]);
    assert_eq!(
        v["archived"][0]["to"],
        p.path(".megg/archive/knowledge-2024.md")
            .display()
            .to_string()
    );
    let live = entries_of(&p, ".megg/knowledge.md");
    assert_eq!(live.len(), 2);
    assert!(live.iter().all(|e| !e.contains("Old")));
    before.sort();
    assert_eq!(
        all_entries(&p),
        before,
        "every entry in exactly one place, unchanged"
    );
    assert_eq!(v["domains"][0]["entries"], 2);
    // Nothing left to move: a second run changes nothing.
    let live_text = p.read(".megg/knowledge.md");
    let v = p.json(
        "",
        &["maintain", "--archive-before", "2026-01-01", "--json"],
    );
    assert_eq!(v["archived"], serde_json::json!([]));
    assert_eq!(p.read(".megg/knowledge.md"), live_text);
}

#[test]
fn archive_interrupted_between_writes_loses_nothing_and_reruns_cleanly() {
    let (p, mut before) = archive_fixture();
    let out = p
        .megg("")
        .env("MEGG_FAILPOINTS", "fail=archive-before-live")
        .args(["maintain", "--archive-before", "2026-01-01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // The archives were written, the live file not: every entry is in at least one place.
    assert_eq!(entries_of(&p, ".megg/knowledge.md").len(), 5);
    assert_eq!(entries_of(&p, ".megg/archive/knowledge-2024.md").len(), 2);
    p.ok("", &["maintain", "--archive-before", "2026-01-01"]);
    before.sort();
    assert_eq!(all_entries(&p), before, "no entry duplicated by the re-run");
}

#[test]
fn maintain_rejects_a_bad_date() {
    let p = domain();
    let out = p.run("", &["maintain", "--archive-before", "last year"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Rewriting a file with invalid UTF-8 would replace its bytes with U+FFFD for good: learn
/// and gitignore refuse, and the file keeps every byte.
#[test]
fn non_utf8_files_are_refused_and_kept() {
    let p = domain();
    let bad = b"# Knowledge\n\n---\n\n## Caf\xe9\n**Type:** fact\n**Topics:** x\n".to_vec();
    p.write(".megg/knowledge.md", &bad);
    let out = p.run("", &["learn", "T", "fact", "x", "c"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid UTF-8"));
    assert_eq!(std::fs::read(p.path(".megg/knowledge.md")).unwrap(), bad);

    Git::init(p.root(), "main");
    p.write(".gitignore", b"caf\xe9/\n");
    let out = p.run("", &["gitignore"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(p.path(".gitignore")).unwrap(), b"caf\xe9/\n");
}

/// SPEC §12: entries are shared through git, so `learn` refuses what looks like a secret,
/// names what and where (never the secret), and writes nothing — unless `--allow-secrets`.
#[test]
fn learn_refuses_secrets_unless_allowed() {
    let p = domain();
    let github = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF2gH4");
    let content = format!("Deploys use the bot account.\n\nIts token is {github} for now.");
    p.write(
        "entry.md",
        "## Deploys\n**Type:** fact\n**Topics:** ops\n\nKey AKIAIOSFODNN7EXAMPLE\n",
    );
    for (args, needle) in [
        (
            vec!["learn", "Deploys", "fact", "ops", content.as_str()],
            "error: a GitHub token in the content, line 3; nothing written",
        ),
        (
            vec!["learn", "DB password=hunter2", "fact", "ops", "c"],
            "error: a password, secret or token value in the title; nothing written",
        ),
        (
            vec!["learn", "--file", "entry.md"],
            "error: an AWS access key in the content, line 1; nothing written",
        ),
    ] {
        let out = p.run("", &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(
            stderr.contains("hint: remove it; if it is not a secret, pass --allow-secrets"),
            "{stderr}"
        );
        for secret in [github.as_str(), "hunter2", "AKIAIOSFODNN7EXAMPLE"] {
            assert!(!stderr.contains(secret), "{stderr}");
        }
        assert!(out.stdout.is_empty());
        assert!(!p.path(".megg/knowledge.md").exists());
    }
    // Ordinary words are not secrets.
    p.ok(
        "",
        &[
            "learn",
            "Task list",
            "fact",
            "tokenizer",
            "the token expires; see the task-list sketch",
        ],
    );
    // Told it is not a secret: written as given.
    p.ok(
        "",
        &[
            "learn",
            "Deploys",
            "fact",
            "ops",
            content.as_str(),
            "--allow-secrets",
        ],
    );
    assert!(p.read(".megg/knowledge.md").contains(&github));
}
