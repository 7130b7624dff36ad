//! SPEC §12 at write, for `learn` (CLI and MCP), measured on gitleaks' own samples and the
//! corpus people wrote: every true positive, plain or in another shape, is refused with the
//! rule and the line named and the secret never printed; gitleaks' false positives and the
//! corpus are learned; `--allow-secrets` writes the secret as given, its line marked
//! `gitleaks:allow` so that every scanner — megg's at injection, gitleaks in the user's hooks —
//! leaves it alone.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::secret_samples::*;
use crate::{NOW, Project};

/// What `--allow-secrets` appends to a line holding a secret.
const MARK: &str = " <!-- gitleaks:allow -->";

fn domain() -> Project {
    let p = Project::new();
    p.domain("", "P");
    p
}

/// `f` of each item, on up to 8 threads (each runs a `megg` process), in the items' order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    let next = AtomicUsize::new(0);
    let mut out: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// `megg learn TITLE fact secrets CONTENT`, the content as given (`--` keeps a leading `-`).
fn learn(p: &Project, title: &str, content: &str, extra: &[&str]) -> Output {
    let mut args = vec!["learn"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", title, "fact", "secrets", content]);
    p.run("", &args)
}

/// Why `out` is not a refusal of a secret as SPEC §12 asks one ("exit 1, naming the rule's
/// description and the line, a hint", the secret never printed), or `None` when it is.
fn not_refused(out: &Output, sample: &Sample) -> Option<String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(piece) = survivor(
        &named_rule_out(&format!("{stdout}{stderr}"), sample),
        &sample.cores,
    ) {
        return Some(format!("printed {piece:?}: {stderr}"));
    }
    // gitleaks' rule by its id and description, or megg's own in its words.
    let first = stderr.lines().next().unwrap_or_default();
    let rule = (first.contains("the content, line ")
        && first.contains(", holds what gitleaks' rule ")
        && first.contains(" takes for a secret (\""))
        || first.contains(" in the content, line ");
    let named = first.starts_with("error: ")
        && rule
        && first.ends_with("; nothing written")
        && stderr.contains("\nhint: remove it; if it is not a secret, pass --allow-secrets");
    if out.status.code() != Some(1) || !named {
        return Some(format!(
            "exit {:?}: {}{stdout}",
            out.status.code(),
            stderr.trim()
        ));
    }
    None
}

/// `out` without the sample's rule id, which a refusal names: some rules' ids hold the fixed
/// start of their secret (`aws-amazon-bedrock-api-key-short-lived`, `bedrock-api-key-…`),
/// which is no part of what varies.
fn named_rule_out(out: &str, sample: &Sample) -> String {
    out.replace(sample.rule.as_str(), "")
}

/// Asserts that at least 95 % of `rules` had every sample refused (SPEC §12), printing the
/// others with what went wrong (`failures`, by rule).
#[allow(clippy::print_stderr)] // the rules that failed, by name (`-- --nocapture`)
fn coverage(what: &str, failures: &BTreeMap<String, Vec<String>>, rules: &BTreeSet<String>) {
    let caught = rules.iter().filter(|r| !failures.contains_key(*r)).count();
    eprintln!(
        "{what}: {caught} of {} rules refused every sample",
        rules.len()
    );
    for (rule, why) in failures {
        eprintln!("  {rule}:");
        for w in why {
            eprintln!("    {w}");
        }
    }
    assert!(
        caught * 100 >= rules.len() * 95,
        "{what}: {caught} of {} rules (SPEC §12 asks ≥ 95 %)",
        rules.len()
    );
}

/// The refusal reads as a sentence with gitleaks' long descriptions: where, which rule and its
/// description (quoted, as gitleaks words it), that nothing was written, and the way out.
#[test]
fn a_refusal_names_the_place_the_rule_and_its_description() {
    if !super::secret_samples::present() {
        return;
    }
    let p = domain();
    let token = format!("glpat-{}", "R7tKq2mXw9LpZ4vNc8Yb");
    let out = learn(
        &p,
        "Deploys",
        &format!("The bot deploys.\n\nIts token is {token}."),
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: the content, line 3, holds what gitleaks' rule gitlab-pat takes for a secret \
         (\"Identified a GitLab Personal Access Token, risking unauthorized access to GitLab \
         repositories and codebase exposure.\"); nothing written\n\
         hint: remove it; if it is not a secret, pass --allow-secrets (MCP: allow_secrets: true) \
         to write it as given, its line marked `gitleaks:allow`\n"
    );
    let out = learn(&p, &format!("Bot token {token}"), "c", &[]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("error: the title holds what gitleaks' rule gitlab-pat takes"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!p.path(".megg/knowledge.md").exists());
}

/// Every true positive of gitleaks' rules, as people paste it and in the JSON-escaped and
/// multi-line shapes, put in `learn`'s content: refused, nothing written, the secret never
/// printed.
#[test]
fn every_true_positive_and_shape_is_refused() {
    if !super::secret_samples::present() {
        return;
    }
    let p = domain();
    let samples: Vec<Sample> = true_positives().into_iter().chain(shapes()).collect();
    let outs = parallel(&samples, |s| learn(&p, "Sample", &s.text, &[]));
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (s, out) in samples.iter().zip(&outs) {
        if let Some(why) = not_refused(out, s) {
            failures
                .entry(s.rule.clone())
                .or_default()
                .push(format!("{:?} → {why}", s.text));
        }
    }
    let rules: BTreeSet<String> = samples.iter().map(|s| s.rule.clone()).collect();
    assert!(rules.len() >= 215, "{} rules", rules.len());
    coverage(
        &format!("learn, {} samples", samples.len()),
        &failures,
        &rules,
    );
    assert!(!p.path(".megg/knowledge.md").exists(), "something written");
}

/// `megg mcp` in `p`, sent `calls` (tool name, arguments) over one session; the reply to each,
/// in order, and what it wrote on stderr. The replies are read as they come (a reader thread),
/// and stdin closed only once every call is answered.
fn mcp_session(p: &Project, calls: &[(&str, Value)]) -> (Vec<Value>, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("megg"))
        .arg("mcp")
        .current_dir(p.root())
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", p.cache.path())
        .env("HOME", p.cache.path())
        .env("MEGG_CEILING_DIRS", p.root().parent().unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout is protocol only ({e}): {line}"));
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    writeln!(stdin, "{init}").unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    for (i, (tool, arguments)) in calls.iter().enumerate() {
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        writeln!(stdin, "{call}").unwrap();
    }
    stdin.flush().unwrap();
    let mut replies: BTreeMap<u64, Value> = BTreeMap::new();
    while replies.len() < calls.len() {
        let v = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|e| panic!("{e}: {} of {} answered", replies.len(), calls.len()));
        if let Some(id) = v["id"].as_u64().filter(|&id| id > 0) {
            replies.insert(id, v);
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    drop(rx);
    reader.join().unwrap();
    let stderr = errors.join().unwrap();
    (replies.into_values().collect(), stderr)
}

/// The first true positive of each rule, sent to MCP `learn` in one session: each an error
/// result naming the line, with the hint, never holding the secret.
#[test]
fn mcp_learn_refuses_a_sample_of_every_rule() {
    if !super::secret_samples::present() {
        return;
    }
    let p = domain();
    let mut seen = BTreeSet::new();
    let samples: Vec<Sample> = true_positives()
        .into_iter()
        .filter(|s| seen.insert(s.rule.clone()))
        .collect();
    let calls: Vec<(&str, Value)> = samples
        .iter()
        .map(|s| {
            let args = json!({"title": "Sample", "type": "fact", "topics": ["secrets"],
                "content": s.text});
            ("learn", args)
        })
        .collect();
    let (replies, stderr) = mcp_session(&p, &calls);
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (s, reply) in samples.iter().zip(&replies) {
        let result = &reply["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let why = if let Some(piece) = survivor(&named_rule_out(&reply.to_string(), s), &s.cores) {
            Some(format!("the reply holds {piece:?}"))
        } else if result["isError"] != true
            || !text.starts_with("error: ")
            || !text.contains("the content, line ")
            || !text.contains("allow_secrets: true")
        {
            Some(format!("{reply}"))
        } else {
            None
        };
        if let Some(why) = why {
            failures
                .entry(s.rule.clone())
                .or_default()
                .push(format!("{:?} → {why}", s.text));
        }
    }
    for s in &samples {
        assert!(
            survivor(&stderr, &s.cores).is_none(),
            "{}: {stderr}",
            s.rule
        );
    }
    coverage(
        &format!("MCP learn, {} samples", samples.len()),
        &failures,
        &seen,
    );
    assert!(!p.path(".megg/knowledge.md").exists(), "something written");
}

/// gitleaks' false positives are learned, all of them, but those megg's own `k=v` rules name
/// on purpose (`spec12`: `password = "…"` and the like), which may be refused.
#[test]
fn gitleaks_false_positives_are_learned() {
    if !super::secret_samples::present() {
        return;
    }
    let p = domain();
    let samples: Vec<Sample> = false_positives()
        .into_iter()
        .filter(|s| !s.spec12)
        .collect();
    assert!(samples.len() >= 200, "{}", samples.len());
    let titles: Vec<String> = (0..samples.len())
        .map(|i| format!("False positive {i}"))
        .collect();
    let outs = parallel(&titles, |t| {
        let i: usize = t.rsplit(' ').next().unwrap().parse().unwrap();
        learn(&p, t, &samples[i].text, &[])
    });
    let refused: Vec<String> = samples
        .iter()
        .zip(&outs)
        .filter(|(_, out)| !out.status.success())
        .map(|(s, out)| {
            format!(
                "{}: {:?} → {}",
                s.rule,
                s.text,
                String::from_utf8_lossy(&out.stderr).trim()
            )
        })
        .collect();
    assert!(
        refused.is_empty(),
        "{} of {} false positives refused:\n{}",
        refused.len(),
        samples.len(),
        refused.join("\n")
    );
    let written = p.read(".megg/knowledge.md");
    for s in &samples {
        assert!(written.contains(s.text.trim_end()), "{:?}", s.text);
    }
    assert!(
        !written.contains("gitleaks:allow"),
        "marked without a secret"
    );
}

/// The markdown people wrote (`shared/corpus/`, READMEs, ADRs, handoffs…), each file learned
/// as an entry's content in one domain: at most one refusal per 100 files. A line that is
/// exactly `---` is written `***`, as learn's own hint says (it would split the entry); the
/// content goes through stdin, which takes up to 1 MiB (every file is smaller).
#[test]
#[allow(clippy::print_stderr)] // the files refused, by name (`-- --nocapture`)
fn the_corpus_is_learned_with_at_most_one_refusal_per_100_files() {
    if !super::secret_samples::present() {
        return;
    }
    let p = domain();
    let files = corpus();
    assert!(files.len() >= 300, "{} files", files.len());
    let mut learned = 0;
    let mut refused = Vec::new();
    for (i, (path, text)) in files.iter().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        let content: String = text
            .split_inclusive('\n')
            .map(|l| {
                if l.trim_end_matches(['\n', '\r']) == "---" {
                    l.replacen("---", "***", 1)
                } else {
                    l.to_string()
                }
            })
            .collect();
        assert!(content.len() < 1024 * 1024, "{}", path.display());
        let out = p
            .megg("")
            .args(["learn", &format!("Corpus {i}"), "fact", "corpus", "-"])
            .write_stdin(content)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            learned += 1;
            // Each file is learned on its own: a knowledge.md of every file (2.8 MB) would
            // make each write cost its size, and the file is not what is measured here.
            std::fs::remove_file(p.path(".megg/knowledge.md")).unwrap();
        } else {
            assert!(
                stderr.contains("--allow-secrets"),
                "{} refused for another reason: {stderr}",
                path.display()
            );
            refused.push(format!("{}: {}", path.display(), stderr.trim()));
        }
    }
    let files = learned + refused.len();
    eprintln!("corpus: {} of {files} files refused", refused.len());
    for r in &refused {
        eprintln!("  {r}");
    }
    assert!(
        refused.len() * 100 <= files,
        "{} of {files} files refused (SPEC §12: at most 1 in 100)",
        refused.len()
    );
}

/// The lines of `text` that hold `secret`.
fn lines_holding<'t>(text: &'t str, secret: &str) -> Vec<&'t str> {
    text.lines().filter(|l| l.contains(secret)).collect()
}

/// `--allow-secrets` (MCP `allow_secrets: true`) writes the secret as given and marks each
/// line holding one — the title's too — `<!-- gitleaks:allow -->`, and nothing else; what megg
/// prints of the entry (`context`, `show`) holds the secret as written.
#[test]
fn allow_secrets_writes_verbatim_and_marks_the_lines() {
    if !super::secret_samples::present() {
        return;
    }
    let p = domain();
    let pat = format!("glpat-{}", "R7tKq2mXw9LpZ4vNc8Yb");
    let stripe = format!("sk_live_{}", "51Habcdefghijklmnopqrstuvwx");
    let content = format!(
        "The deploy bot's key, a test fixture:\nSTRIPE_KEY={stripe}\nrotated yearly\n\nand {pat} too"
    );
    let out = learn(&p, "Deploy fixtures", &content, &["--allow-secrets"]);
    assert!(out.status.success(), "{out:?}");
    let out = learn(
        &p,
        &format!("Fixture token {pat}"),
        "the title holds it",
        &["--allow-secrets"],
    );
    assert!(out.status.success(), "{out:?}");
    let written = p.read(".megg/knowledge.md");
    assert!(
        written.replace(MARK, "").contains(&content),
        "verbatim:\n{written}"
    );
    for secret in [&stripe, &pat] {
        let lines = lines_holding(&written, secret);
        assert!(!lines.is_empty());
        for l in lines {
            assert!(l.ends_with(MARK), "{l:?} in\n{written}");
        }
    }
    assert_eq!(written.matches("gitleaks:allow").count(), 3, "{written}");
    for plain in [
        "rotated yearly",
        "The deploy bot's key",
        "the title holds it",
    ] {
        assert!(!lines_holding(&written, plain)[0].contains("gitleaks:allow"));
    }
    assert!(
        megg::megg::secrets::find(&written).is_empty(),
        "megg's scan leaves every marked line alone:\n{written}"
    );

    // MCP's `allow_secrets: true` takes the same path.
    let (replies, _) = mcp_session(
        &p,
        &[(
            "learn",
            json!({"title": "Over MCP", "type": "fact", "topics": ["x"],
                "content": format!("mcp key: {pat}"), "allow_secrets": true}),
        )],
    );
    assert_eq!(replies[0]["result"]["isError"], false, "{}", replies[0]);
    let written = p.read(".megg/knowledge.md");
    assert!(
        written.contains(&format!("mcp key: {pat}{MARK}\n")),
        "{written}"
    );

    // What megg injects and prints holds the secret as written, on its marked line.
    let context = p.ok("", &["context"]);
    assert!(
        context.contains(&format!("STRIPE_KEY={stripe}{MARK}")),
        "{context}"
    );
    assert!(
        context.contains(&format!("and {pat} too{MARK}")),
        "{context}"
    );
    let found = p.json("", &["search", "deploy fixtures", "--json"]);
    let id = found["results"][0]["id"].as_str().unwrap();
    let show = p.ok("", &["show", id]);
    assert!(
        show.contains(&format!("STRIPE_KEY={stripe}{MARK}")),
        "{show}"
    );
    let found = p.json("", &["search", "fixture token", "--json"]);
    let id = found["results"][0]["id"].as_str().unwrap();
    let show = p.ok("", &["show", id]);
    assert!(
        show.contains(&format!("Fixture token {pat}{MARK}")),
        "{show}"
    );
}

/// A sample of every rule learned with `--allow-secrets` in one domain: each written as given,
/// and the file left alone by megg's own scan — the line holding each secret marked, whatever
/// its shape (a key block's first line, a JSON-escaped value, an XML element across lines).
#[test]
fn allow_secrets_marks_a_sample_of_every_rule() {
    if !super::secret_samples::present() {
        return;
    }
    let p = domain();
    let mut seen = BTreeSet::new();
    let samples: Vec<Sample> = true_positives()
        .into_iter()
        .chain(shapes())
        .filter(|s| seen.insert(s.rule.clone()))
        .collect();
    let titles: Vec<String> = (0..samples.len()).map(|i| format!("Allowed {i}")).collect();
    let outs = parallel(&titles, |t| {
        let i: usize = t.rsplit(' ').next().unwrap().parse().unwrap();
        learn(&p, t, &samples[i].text, &["--allow-secrets"])
    });
    for (s, out) in samples.iter().zip(&outs) {
        assert!(out.status.success(), "{}: {out:?}", s.rule);
    }
    let written = p.read(".megg/knowledge.md");
    let plain = written.replace(MARK, "");
    for s in &samples {
        assert!(
            plain.contains(s.text.trim_end()),
            "{}: {:?}",
            s.rule,
            s.text
        );
    }
    let left: Vec<String> = megg::megg::secrets::find(&written)
        .iter()
        .map(|f| {
            let line = f.line(&written);
            format!(
                "{} line {line} {:?}: {:?}",
                f.source.name(),
                &f.range,
                written.lines().nth(line - 1).unwrap_or_default()
            )
        })
        .collect();
    assert!(
        left.is_empty(),
        "{} findings left unmarked:\n{}",
        left.len(),
        left.join("\n")
    );
}
