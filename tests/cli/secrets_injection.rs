//! No secrets in what megg injects (SPEC §12 "At injection"): a secret already in a file —
//! written by hand, or by an older megg — is printed as `[redacted]` by `context` (markdown and
//! JSON), every host's SessionStart hook, `search`, `show`, `state`, `megg checkpoint`,
//! `doctor` and the MCP tools, with a warning naming the file and line. One true positive of each of gitleaks' 217 text rules
//! (`../shared/secrets/`) is written by hand into `info.md`, `knowledge.md` (entry bodies and
//! titles), an archive, `state.md` and a checkpoint; no 12 characters of any survive anywhere
//! megg prints, a line marked `gitleaks:allow` is printed as written, and gitleaks' false
//! positives are printed unchanged. `state write` and MCP `state` redact before writing.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::capture::Repo;
use crate::mcp::call_tool;
use crate::secret_samples::{Sample, false_positives, survivor, true_positives};
use crate::{Git, NOW, Project, epoch};

/// The first true positive of each rule, in rule order.
fn one_per_rule() -> Vec<Sample> {
    let mut seen = BTreeMap::new();
    for s in true_positives() {
        seen.entry(s.rule.clone()).or_insert(s);
    }
    let samples: Vec<Sample> = seen.into_values().collect();
    assert!(samples.len() >= 217, "{} rules", samples.len());
    samples
}

/// Where a sample was written: a file (relative to the project) and its lines there.
#[derive(Debug)]
struct Placed {
    file: &'static str,
    lines: std::ops::RangeInclusive<usize>,
    sample: Sample,
}

/// A text file being written line by line, remembering where each sample went.
struct Doc {
    file: &'static str,
    text: String,
}

impl Doc {
    fn new(file: &'static str, head: &str) -> Self {
        Self {
            file,
            text: head.to_string(),
        }
    }

    fn line(&self) -> usize {
        self.text.matches('\n').count() + 1
    }

    fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// `before`, the sample, `after`; the sample's lines noted in `placed`.
    fn sample(&mut self, before: &str, s: &Sample, after: &str, placed: &mut Vec<Placed>) {
        self.push(before);
        let first = self.line();
        self.push(&s.text);
        placed.push(Placed {
            file: self.file,
            lines: first..=self.line(),
            sample: s.clone(),
        });
        self.push(after);
    }
}

/// The line every test finds printed as written: it holds `gitleaks:allow`.
const ALLOWED: &str =
    "The sandbox deploy key is glpat-R7tKq2mXw9LpZ4vNc8Yb, on purpose (gitleaks:allow)";

/// A git project whose domain `app` (below the domain `org`) holds one sample of each rule,
/// written by hand.
struct Fixture {
    p: Project,
    placed: Vec<Placed>,
}

impl Fixture {
    fn new() -> Self {
        let p = Project::new();
        Git::init(p.root(), "main").commit("main", epoch(NOW) - 3600, "init");
        let samples = one_per_rule();
        let one_line: Vec<&Sample> = samples.iter().filter(|s| !s.text.contains('\n')).collect();
        let mut placed = Vec::new();

        // The parent's title and the excerpt the chain shows of it.
        let mut org = Doc::new(".megg/info.md", "");
        org.sample("# Org ", one_line[0], "\n\n", &mut placed);
        org.sample(
            "## Context\nThe org's shared account: ",
            one_line[1],
            "\n",
            &mut placed,
        );
        p.write(org.file, &org.text);
        // Checkpoints live at the work tree's top: the workflow line names their feature.
        p.write(
            ".feat-x.local.md",
            format!(
                "---\nfeature: {}\nplan_file: docs/plans/feat-x.md\nphase: work\n---\n- [ ] x\n",
                serde_json::to_string(&format!("ship with {}", one_line[2].text)).unwrap()
            ),
        );
        placed.push(Placed {
            file: ".feat-x.local.md",
            lines: 2..=2,
            sample: one_line[2].clone(),
        });

        let mut info = Doc::new(
            "app/.megg/info.md",
            "---\ntype: context\n---\n\n# App\n\n## Context\nThe app.\n\n",
        );
        info.push(&format!("{ALLOWED}\n\n"));
        let mut knowledge = Doc::new("app/.megg/knowledge.md", "# Knowledge\n");
        let mut archive = Doc::new("app/.megg/archive/2025.md", "# Archive\n");
        let mut state = Doc::new(
            "app/.megg/state.md",
            "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nRotating every credential\n\n## Context\n",
        );
        // Titles take one-line samples; the rest go round the files.
        let titles: Vec<&Sample> = one_line.iter().skip(3).step_by(9).copied().collect();
        let mut entry = 0;
        for (i, s) in samples.iter().enumerate() {
            if placed.iter().any(|p| p.sample.rule == s.rule) {
                continue;
            }
            entry += 1;
            let head = |title: &str| {
                format!(
                    "\n---\n\n## 2026-11-{:02} - {title}\n**Type:** fact\n**Topics:** credentials\n\nWhere the {} credential lives:\n\n",
                    entry % 28 + 1,
                    s.rule
                )
            };
            if titles.iter().any(|t| t.rule == s.rule) {
                knowledge.sample(
                    &format!("\n---\n\n## 2026-11-{:02} - Note ", entry % 28 + 1),
                    s,
                    &format!(
                        "\n**Type:** fact\n**Topics:** credentials\n\nThe {} credential note.\n",
                        s.rule
                    ),
                    &mut placed,
                );
                continue;
            }
            match i % 5 {
                0 => info.sample("A credential:\n\n", s, "\n\n", &mut placed),
                1 | 2 => {
                    knowledge.sample(&head(&format!("Credential {entry}")), s, "\n", &mut placed)
                }
                3 => state.sample("- a credential:\n\n", s, "\n\n", &mut placed),
                _ => archive.sample(
                    &head(&format!("Old credential {entry}")),
                    s,
                    "\n",
                    &mut placed,
                ),
            }
        }
        for d in [&info, &knowledge, &archive, &state] {
            p.write(d.file, &d.text);
        }
        assert_eq!(placed.len(), samples.len());
        Self { p, placed }
    }

    /// A git project whose checkpoint [`CHECKPOINT`], written by hand, holds one sample of
    /// each rule: in its feature, its branch and an item (one-line ones, each on a line of its
    /// own), and the rest in its notes.
    fn checkpoint() -> Self {
        let p = Project::new();
        Git::init(p.root(), "main").commit("main", epoch(NOW) - 3600, "init");
        p.write(PLAN, "# Rotate\n");
        let samples = one_per_rule();
        // YAML takes them as JSON strings: those that need no escape stay as they are.
        let plain: Vec<&Sample> = samples
            .iter()
            .filter(|s| {
                !s.text.contains('\n')
                    && serde_json::to_string(&s.text).unwrap() == format!("\"{}\"", s.text)
            })
            .take(3)
            .collect();
        let mut placed = Vec::new();
        let mut file = Doc::new(CHECKPOINT, "---\n");
        file.sample("feature: \"ship with ", plain[0], "\"\n", &mut placed);
        file.push(&format!("plan_file: {PLAN}\nphase: work\n"));
        file.sample("branch: \"", plain[1], "\"\n", &mut placed);
        // Every key an edit sets is there already: the samples stay on their lines.
        file.push(
            "head: \"\"\nstarted: 2026-11-22T10:00:00Z\nupdated: 2026-11-22T11:00:00Z\n---\n",
        );
        file.push("## Progress\n- [x] Plan created\n");
        file.sample("- [ ] Rotate ", plain[2], "\n", &mut placed);
        file.push(&format!("- [ ] Implementation\n\n## Notes\n{ALLOWED}\n"));
        for s in &samples {
            if !placed.iter().any(|p| p.sample.rule == s.rule) {
                file.sample("\nA credential:\n\n", s, "\n", &mut placed);
            }
        }
        p.write(file.file, &file.text);
        assert_eq!(placed.len(), samples.len());
        Self { p, placed }
    }

    /// Exit 0; stdout and stderr.
    fn run(&self, args: &[&str]) -> (String, String) {
        self.run_in("app", args)
    }

    /// [`Fixture::run`] in `rel`.
    fn run_in(&self, rel: &str, args: &[&str]) -> (String, String) {
        let out = self.p.run(rel, args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        assert_eq!(out.status.code(), Some(0), "megg {args:?}: {stderr}");
        (stdout, stderr)
    }

    /// No sample's secret survives in `out`, anywhere `what` printed it. A rule's id (a
    /// warning names it; the fixture's text does) is no secret, though one shares 12
    /// characters with its secret's fixed prefix (`bedrock-api-key-`).
    fn none_survive(&self, what: &str, out: &str) {
        let mut out = out.to_string();
        for p in &self.placed {
            out = out.replace(&p.sample.rule, "");
        }
        // `survivor`'s question, with each 12 characters of the output gathered once: a
        // checkpoint's 70 kB document against every rule's pieces took seconds.
        let chars: Vec<char> = out.chars().collect();
        let pieces: std::collections::HashSet<String> =
            chars.windows(12).map(|w| w.iter().collect()).collect();
        let survived: Vec<String> = self
            .placed
            .iter()
            .filter_map(|p| {
                let piece = p.sample.cores.iter().find_map(|core| {
                    let chars: Vec<char> = core.chars().collect();
                    chars
                        .windows(12)
                        .map(|w| w.iter().collect::<String>())
                        .find(|piece| pieces.contains(piece))
                })?;
                Some(format!("{} ({}): {piece}", p.sample.rule, p.file))
            })
            .collect();
        assert!(
            survived.is_empty(),
            "{what}: {} samples survive: {survived:#?}",
            survived.len()
        );
    }

    /// Each `warnings` line naming a secret names a line of a sample; and every sample of the
    /// files in `files` is named (by a line of its own). Returns how many were named.
    fn named(&self, what: &str, warnings: &[String], files: &[&str]) -> usize {
        let required = self
            .placed
            .iter()
            .filter(|p| files.contains(&p.file))
            .collect();
        self.named_of(what, warnings, required)
    }

    /// The samples in the documents of a `show --json` or MCP `show` document.
    fn in_documents(&self, doc: &Value) -> Vec<&Placed> {
        let root = format!("{}/", self.p.root().display());
        let shown: Vec<(String, std::ops::RangeInclusive<usize>)> = doc["documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let path = d["path"].as_str().unwrap();
                let first = d["line"].as_u64().unwrap() as usize;
                let last = first + d["text"].as_str().unwrap().matches('\n').count();
                (
                    path.strip_prefix(&root).unwrap_or(path).to_string(),
                    first..=last,
                )
            })
            .collect();
        self.placed
            .iter()
            .filter(|p| {
                shown.iter().any(|(file, lines)| {
                    file == p.file
                        && lines.contains(p.lines.start())
                        && lines.contains(p.lines.end())
                })
            })
            .collect()
    }

    /// [`Fixture::named`], every sample of `required` named.
    fn named_of(&self, what: &str, warnings: &[String], required: Vec<&Placed>) -> usize {
        let root = self.p.root().display().to_string();
        let mut found: Vec<(String, Option<usize>)> = Vec::new();
        for w in warnings.iter().filter(|w| w.contains("holds a secret (")) {
            assert!(
                w.contains("shown as [redacted]") && w.contains("git history"),
                "{w}"
            );
            let at = w.split(" holds a secret").next().unwrap();
            let at = at.strip_prefix(&format!("{root}/")).unwrap_or(at);
            let (file, line) = match at.rsplit_once(':') {
                Some((f, l)) if l.parse::<usize>().is_ok() => (f.to_string(), l.parse().ok()),
                _ => (at.to_string(), None),
            };
            let ok = self
                .placed
                .iter()
                .any(|p| p.file == file && line.is_none_or(|l| p.lines.contains(&l)));
            assert!(ok, "{what}: a warning names no sample's line: {w}");
            found.push((file, line));
        }
        for p in required {
            assert!(
                found
                    .iter()
                    .any(|(f, l)| *f == p.file && l.is_none_or(|l| p.lines.contains(&l))),
                "{what}: {} at {}:{:?} is not named in {warnings:#?}",
                p.sample.rule,
                p.file,
                p.lines
            );
        }
        found.len()
    }
}

fn lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("warning: "))
        .map(str::to_string)
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

/// The checkpoint of [`Fixture::checkpoint`], and its plan.
const CHECKPOINT: &str = ".rotate.local.md";
const PLAN: &str = "docs/plans/2026-11-01-feat-rotate-plan.md";

/// The lines of `text` a sample was placed on (from 1).
fn placed_lines<'t>(text: &'t str, p: &Placed) -> Vec<&'t str> {
    text.lines()
        .skip(p.lines.start() - 1)
        .take(p.lines.end() - p.lines.start() + 1)
        .collect()
}

/// `megg checkpoint` prints a checkpoint written by hand with each secret `[redacted]` — its
/// file (`show`, `resume --choice view`), and what megg reads out of it: its feature, branch
/// and items (`list`, `resume`, `update`, `save`, `prune`, `finish`), text and `--json` — and names
/// each on stderr or in `warnings` by the file's line. What a resume, an update or a save
/// writes back is the file as it was, secrets included: the user's to remove.
#[test]
fn checkpoint_commands_print_each_secret_redacted_and_name_where_it_is() {
    if !super::secret_samples::present() {
        return;
    }
    let f = Fixture::checkpoint();
    let written = f.p.read(CHECKPOINT);
    let all = [CHECKPOINT];
    // The file: each secret redacted on its own lines, every other line as written.
    let (text, stderr) = f.run_in("", &["checkpoint", "show", "rotate"]);
    f.none_survive("checkpoint show", &format!("{text}{stderr}"));
    assert!(
        text.contains(&format!("{ALLOWED}\n")),
        "as written:\n{text}"
    );
    assert_eq!(text.lines().count(), written.lines().count(), "{text}");
    for p in &f.placed {
        assert!(
            placed_lines(&text, p)
                .iter()
                .any(|l| l.contains("[redacted]")),
            "{} at {:?}: {:?}",
            p.sample.rule,
            p.lines,
            placed_lines(&text, p)
        );
    }
    f.named("checkpoint show", &lines(&stderr), &all);
    let (json, stderr) = f.run_in("", &["checkpoint", "show", "rotate", "--json"]);
    f.none_survive("checkpoint show --json", &format!("{json}{stderr}"));
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["text"].as_str().unwrap(), text);
    f.named("checkpoint show --json", &strings(&doc["warnings"]), &all);
    assert_eq!(
        lines(&stderr),
        Vec::<String>::new(),
        "the document carries them"
    );

    for args in [
        &["checkpoint", "list"][..],
        // Before a save makes it an hour younger.
        &["checkpoint", "prune", "--older-than", "0", "--dry-run"],
        &["checkpoint", "resume"],
        &["checkpoint", "resume", "rotate", "--choice", "view"],
        &[
            "checkpoint",
            "update",
            "rotate",
            "--check",
            "Implementation",
        ],
        &["checkpoint", "save", PLAN],
        &["checkpoint", "resume", "rotate", "--choice", "resume"],
    ] {
        let what = args.join(" ");
        let (text, stderr) = f.run_in("", args);
        f.none_survive(&what, &format!("{text}{stderr}"));
        f.named(&what, &lines(&stderr), &all);
        let json = [args, &["--json"]].concat();
        let (json, stderr) = f.run_in("", &json);
        f.none_survive(&format!("{what} --json"), &format!("{json}{stderr}"));
        assert!(json.contains("[redacted]"), "{what} --json: {json}");
        let doc: Value = serde_json::from_str(&json).unwrap();
        f.named(&what, &strings(&doc["warnings"]), &all);
    }
    let after = f.p.read(CHECKPOINT);
    for p in &f.placed {
        assert!(
            after.contains(&p.sample.text),
            "{}: written back as it was",
            p.sample.rule
        );
    }
    let (text, stderr) = f.run_in("", &["checkpoint", "finish", "rotate"]);
    f.none_survive("checkpoint finish", &format!("{text}{stderr}"));
    assert!(text.contains("('ship with [redacted]')"), "{text}");
    f.named("checkpoint finish", &lines(&stderr), &all);
}

/// The MCP `checkpoint_*` tools return what the commands print: each secret `[redacted]`,
/// named in `warnings`.
#[test]
fn the_mcp_checkpoint_tools_return_each_secret_redacted_with_a_warning() {
    if !super::secret_samples::present() {
        return;
    }
    let f = Fixture::checkpoint();
    let root = f.p.root().display().to_string();
    for (tool, args) in [
        ("checkpoint_list", json!({"path": root})),
        ("checkpoint_resume", json!({"path": root})),
        (
            "checkpoint_resume",
            json!({"path": root, "target": "rotate", "choice": "view"}),
        ),
        (
            "checkpoint_update",
            json!({"path": root, "target": "rotate", "check": ["Implementation"]}),
        ),
        ("checkpoint_save", json!({"path": root, "plan_file": PLAN})),
        (
            "checkpoint_resume",
            json!({"path": root, "target": "rotate", "choice": "resume"}),
        ),
    ] {
        let r = call_tool(&f.p, tool, &args);
        assert_eq!(r["isError"], false, "{tool}: {r}");
        f.none_survive(tool, &r.to_string());
        assert!(r.to_string().contains("[redacted]"), "{tool}: {r}");
        bounded_and_named(&f, tool, &r);
    }
    let r = call_tool(
        &f.p,
        "checkpoint_finish",
        &json!({"path": root, "target": "rotate"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    f.none_survive("checkpoint_finish", &r.to_string());
}

/// An MCP result naming hundreds of secrets keeps its `warnings` within a quarter of SPEC §7's
/// 10,000 characters: the first places (each a sample's own line), then how many more there are.
fn bounded_and_named(f: &Fixture, what: &str, r: &Value) {
    let doc = &r["structuredContent"];
    let chars = doc["warnings"].to_string().chars().count();
    assert!(chars <= 2_600, "{what}: warnings of {chars} characters");
    let warnings = strings(&doc["warnings"]);
    assert!(f.named(what, &warnings, &[]) > 0, "{what}: {r}");
    assert!(
        warnings
            .last()
            .is_some_and(|w| w.contains(" more warnings")),
        "{what}: {warnings:?}"
    );
}

/// Every file the context shows is scanned whole: its secrets are named at their own lines.
const SHOWN: [&str; 5] = [
    ".megg/info.md",
    "app/.megg/info.md",
    "app/.megg/knowledge.md",
    "app/.megg/state.md",
    ".feat-x.local.md",
];

#[test]
fn context_and_every_hook_show_each_secret_redacted_and_name_where_it_is() {
    if !super::secret_samples::present() {
        return;
    }
    let f = Fixture::new();
    // Markdown: each secret named on stderr, by file and line.
    let (md, stderr) = f.run(&["context"]);
    f.none_survive("context", &format!("{md}{stderr}"));
    assert!(md.contains("[redacted]"), "{md}");
    assert!(
        md.contains(&format!("{ALLOWED}\n")),
        "left as written:\n{md}"
    );
    let named = f.named("context", &lines(&stderr), &SHOWN);
    // JSON: the same warnings in the document.
    let (json, stderr) = f.run(&["context", "--format", "json"]);
    f.none_survive("context --format json", &format!("{json}{stderr}"));
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["knowledge"]["mode"], "full", "entry bodies shown");
    assert!(doc["info"].as_str().unwrap().contains(ALLOWED));
    assert_eq!(
        f.named("context --format json", &strings(&doc["warnings"]), &SHOWN),
        named
    );

    // The hooks: nothing on stderr, and the secrets said once, in one sentence.
    for agent in ["claude", "codex", "gemini", "copilot"] {
        let (out, stderr) = f.run(&["context", "--format", "hook", "--agent", agent]);
        assert_eq!(stderr, "", "{agent}");
        f.none_survive(agent, &out);
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert!(
            !out.contains("holds a secret"),
            "{agent}: one sentence, not a line each"
        );
        if agent == "claude" {
            let message = doc["systemMessage"].as_str().unwrap();
            let said: Vec<&str> = message
                .lines()
                .filter(|l| l.contains("[redacted]"))
                .collect();
            assert_eq!(said.len(), 1, "{message}");
            assert!(
                said[0].starts_with(&format!("warning: {named} secrets in "))
                    && said[0].contains("app/.megg/knowledge.md")
                    && said[0].contains("git history"),
                "{message}"
            );
        }
    }
}

#[test]
fn search_and_show_print_each_secret_redacted_and_name_where_it_is() {
    if !super::secret_samples::present() {
        return;
    }
    let f = Fixture::new();
    let mut ids = Vec::new();
    for kinds in ["knowledge", "archive", "handoff,info"] {
        let (text, stderr) = f.run(&["search", "credential", "--in", kinds, "--limit", "100"]);
        f.none_survive("search", &format!("{text}{stderr}"));
        assert!(
            f.named("search", &lines(&stderr), &[]) > 0,
            "{kinds}: {stderr}"
        );
        let (json, stderr) = f.run(&[
            "search",
            "credential",
            "--in",
            kinds,
            "--limit",
            "100",
            "--json",
        ]);
        f.none_survive("search --json", &format!("{json}{stderr}"));
        let doc: Value = serde_json::from_str(&json).unwrap();
        assert!(doc["total"].as_u64().unwrap() > 0, "{kinds}: {doc}");
        assert!(
            f.named("search --json", &strings(&doc["warnings"]), &[]) > 0,
            "{kinds}: {doc}"
        );
        assert_eq!(
            lines(&stderr).len(),
            0,
            "the JSON document carries them: {stderr}"
        );
        ids.extend(
            doc["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string()),
        );
    }
    let mut args = vec!["show", "--max-chars", "10000000"];
    args.extend(ids.iter().map(String::as_str));
    let (text, stderr) = f.run(&args);
    f.none_survive("show", &format!("{text}{stderr}"));
    assert!(text.contains(ALLOWED), "left as written");
    args.push("--json");
    let (json, stderr) = f.run(&args);
    f.none_survive("show --json", &format!("{json}{stderr}"));
    let doc: Value = serde_json::from_str(&json).unwrap();
    // The sample of each document shown is named, at its line: the entries, the archive's,
    // the handoff and the info sections.
    let shown = f.in_documents(&doc);
    assert!(shown.len() > 150, "{} samples shown", shown.len());
    for file in [
        "app/.megg/info.md",
        "app/.megg/archive/2025.md",
        "app/.megg/state.md",
    ] {
        assert!(shown.iter().any(|p| p.file == file), "{file}");
    }
    f.named_of("show --json", &strings(&doc["warnings"]), shown.clone());
    args.pop();
    f.named_of("show", &lines(&f.run(&args).1), shown);
    // `megg state` shows the handoff as the context does.
    let (text, stderr) = f.run(&["state"]);
    f.none_survive("state", &format!("{text}{stderr}"));
    f.named("state", &lines(&stderr), &["app/.megg/state.md"]);
}

#[test]
fn the_mcp_tools_return_each_secret_redacted_with_a_warning() {
    if !super::secret_samples::present() {
        return;
    }
    let f = Fixture::new();
    let app = f.p.path("app").display().to_string();
    let text = |r: &Value| r["content"][0]["text"].as_str().unwrap().to_string();

    let r = call_tool(&f.p, "context", &json!({"path": app}));
    f.none_survive("MCP context", &r.to_string());
    assert!(f.named("MCP context", &lines(&text(&r)), &[]) > 0, "{r}");
    let r = call_tool(&f.p, "context", &json!({"path": app, "format": "json"}));
    f.none_survive("MCP context json", &r.to_string());
    bounded_and_named(&f, "MCP context json", &r);
    // A text result carries its warnings within a quarter of it, then how many more.
    let r = call_tool(&f.p, "state", &json!({"path": app}));
    f.none_survive("MCP state", &r.to_string());
    assert!(f.named("MCP state", &lines(&text(&r)), &[]) > 0, "{r}");
    let r = call_tool(
        &f.p,
        "search",
        &json!({"path": app, "query": "credential", "limit": 100}),
    );
    f.none_survive("MCP search", &r.to_string());
    let doc = &r["structuredContent"];
    assert!(
        f.named("MCP search", &strings(&doc["warnings"]), &[]) > 0,
        "{r}"
    );
    let ids: Vec<Value> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].clone())
        .collect();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"path": app, "ids": ids});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = call_tool(&f.p, "show", &args);
        f.none_survive("MCP show", &r.to_string());
        let doc = &r["structuredContent"];
        f.named_of("MCP show", &strings(&doc["warnings"]), f.in_documents(doc));
        match doc["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
}

/// gitleaks' false positives (but those megg's own `k=v` rules name on purpose) are printed as
/// written, and named in no warning — each in a file of its own, as gitleaks scans each (a
/// keyword of one sample in the same file would switch on a rule for the next).
#[test]
fn gitleaks_false_positives_are_printed_unchanged() {
    if !super::secret_samples::present() {
        return;
    }
    let p = Project::new();
    let fps: Vec<String> = false_positives()
        .into_iter()
        .filter(|s| !s.spec12)
        .map(|s| s.text.replace("\r\n", "\n"))
        .collect();
    assert!(fps.len() > 200, "{}", fps.len());
    let mut changed = Vec::new();
    for fp in &fps {
        p.write(
            ".megg/info.md",
            format!("# Samples\n\n## Context\n\n{fp}\n"),
        );
        let out = p.run("", &["context"]);
        let (md, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{stderr}");
        // Control characters are made safe for a terminal, whatever the scan says.
        let printable = !fp.chars().any(|c| c.is_control() && c != '\n' && c != '\t');
        if md.contains("[redacted]")
            || stderr.contains("holds a secret")
            // The render ends a block at its last character that is not blank.
            || (printable && !md.contains(fp.trim_end()))
        {
            changed.push(fp);
        }
    }
    assert!(
        changed.is_empty(),
        "{} changed: {changed:#?}",
        changed.len()
    );
}

/// `megg state write` (and MCP `state`) write each secret as `[redacted]`, saying which rule
/// and which line of the new state, and exit 0.
#[test]
fn state_write_redacts_every_rule_and_says_where() {
    if !super::secret_samples::present() {
        return;
    }
    let p = Project::new();
    Git::init(p.root(), "main").commit("main", epoch(NOW) - 3600, "init");
    p.domain("", "Shop");
    p.ok("", &["gitignore"]);
    let samples = one_per_rule();
    // A handoff is at most 2,000 tokens: a few samples per write.
    for (n, chunk) in samples.chunks(12).enumerate() {
        let mut content = String::from("## Working On\nRotating the credentials\n\n## Context\n");
        for s in chunk {
            content.push_str(&format!("\n- {}:\n\n{}\n", s.rule, s.text));
        }
        let out = if n % 2 == 0 {
            let out = p.run("", &["state", "write", "--content", &content]);
            assert_eq!(out.status.code(), Some(0), "{out:?}");
            String::from_utf8_lossy(&out.stderr).into_owned()
        } else {
            let r = call_tool(&p, "state", &json!({"content": content}));
            assert_eq!(r["isError"], false, "{r}");
            r["content"][0]["text"].as_str().unwrap().to_string()
        };
        let written = p.read(".megg/state.md");
        assert!(!written.contains("…"), "not cut: {written}");
        let said: Vec<&str> = out
            .lines()
            .filter_map(|l| l.strip_prefix("warning: a secret ("))
            .collect();
        // A rule's id (the content names it, a warning too) is no secret.
        let without_ids = |text: &str| {
            samples
                .iter()
                .fold(text.to_string(), |t, s| t.replace(&s.rule, ""))
        };
        let (written_, out_) = (without_ids(&written), without_ids(&out));
        for s in chunk {
            assert!(
                survivor(&written_, &s.cores).is_none() && survivor(&out_, &s.cores).is_none(),
                "{}: {written}\n{out}",
                s.rule
            );
        }
        assert!(said.len() >= chunk.len(), "one each:\n{out}");
        let file: Vec<&str> = written.lines().collect();
        for w in &said {
            assert!(
                w.contains(") in the state is written as [redacted] ("),
                "{w}"
            );
            let line: usize = w
                .trim_end_matches(')')
                .rsplit(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(
                file[line - 1].contains("[redacted]"),
                "{w}: line {line} of\n{written}"
            );
        }
    }
}

/// A session `s1` whose host summary was kept, then written with a sample of every 20th
/// rule, as an older megg (before capture redacted it) may have kept it: where it is, and the
/// samples.
fn kept_with_secrets(r: &Repo) -> (std::path::PathBuf, Vec<Sample>) {
    r.start("s1", "startup");
    r.work("s1", "Build the parser");
    let mut input: Value = serde_json::from_str(&r.input("s1", "PostCompact")).unwrap();
    input["trigger"] = json!("auto");
    input["compact_summary"] = json!("<summary>\nThe parser is half done.\n</summary>");
    assert!(
        r.with_input(&["capture"], &input.to_string(), &[])
            .status
            .success()
    );
    r.capture("s1", &[]);
    let path = r.sessions().join("s1.summary");
    let mut kept: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let samples: Vec<Sample> = one_per_rule().into_iter().step_by(20).collect();
    let mut text = String::from("The parser is half done. The credentials:\n");
    for s in &samples {
        text.push_str(&format!("{}\n", s.text));
    }
    kept["text"] = json!(text);
    std::fs::write(&path, kept.to_string()).unwrap();
    (path, samples)
}

/// A host summary kept by an older megg (before capture redacted it) is injected redacted, and
/// the hook names its file.
#[test]
fn a_host_summary_kept_with_a_secret_is_injected_redacted() {
    if !super::secret_samples::present() {
        return;
    }
    let r = Repo::new();
    let (_, samples) = kept_with_secrets(&r);
    let input = json!({"session_id": "s2", "cwd": r.p.root(), "hook_event_name": "SessionStart", "source": "startup", "transcript_path": r.transcript("s2")});
    let out = r.with_input(&["context", "--json"], &input.to_string(), &[]);
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let context = doc["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("The parser is half done. The credentials:"),
        "{context}"
    );
    for s in &samples {
        assert_eq!(survivor(&doc.to_string(), &s.cores), None, "{}", s.rule);
    }
    let message = doc["systemMessage"].as_str().unwrap();
    assert!(
        message
            .lines()
            .any(|l| l.contains("s1.summary") && l.contains("shown as [redacted]")),
        "{message}"
    );
}

/// `megg doctor` names the host summary kept last (SPEC §18.1): one kept by an older megg,
/// its text and its time holding secrets, is named without them — its time `[redacted]`, and
/// the file named on stderr.
#[test]
fn doctor_names_a_kept_summary_without_its_secrets() {
    if !super::secret_samples::present() {
        return;
    }
    let r = Repo::new();
    let (path, samples) = kept_with_secrets(&r);
    let mut kept: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let at = samples.iter().find(|s| !s.text.contains('\n')).unwrap();
    kept["at"] = json!(at.text);
    std::fs::write(&path, kept.to_string()).unwrap();

    for json in [false, true] {
        let mut args = vec!["doctor"];
        if json {
            args.push("--json");
        }
        let out = r.p.run("", &args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        for s in &samples {
            assert_eq!(
                survivor(&format!("{stdout}{stderr}"), &s.cores),
                None,
                "{}: {stdout}{stderr}",
                s.rule
            );
        }
        assert!(
            stdout.contains("last host summary kept: ") && stdout.contains("[redacted]"),
            "{stdout}"
        );
        let named: Vec<String> = lines(&stderr);
        assert!(
            named.iter().any(
                |w| w.starts_with(&format!("{} holds a secret (", path.display()))
                    && w.contains("shown as [redacted]")
            ),
            "json {json}: {stderr}"
        );
    }
}

/// SPEC §8: a hook on files that did not change scans nothing — what the scan found is kept in
/// megg's cache directory by each text's hash — and prints the same bytes; a file edited, or a
/// cache cut or altered, is scanned again.
#[test]
fn a_hook_on_unchanged_files_scans_nothing_and_prints_the_same() {
    if !super::secret_samples::present() {
        return;
    }
    let p = Project::new();
    p.domain("", "Shop");
    p.write(
        ".megg/state.md",
        "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nRotate glpat-R7tKq2mXw9LpZ4vNc8Yb\n",
    );
    let log = p.cache.path().join("failpoints.log");
    let scans = || {
        let n = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| *l == "secret-scan")
            .count();
        let _ = std::fs::remove_file(&log);
        n
    };
    let hook = || {
        let out = p
            .megg("")
            .args(["context", "--format", "hook"])
            .env("MEGG_FAILPOINTS", format!("log={}", log.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("R7tKq2mXw9LpZ4vNc8Yb"));
        out.stdout
    };
    let first = hook();
    assert!(scans() > 0);
    assert_eq!(hook(), first);
    assert_eq!(scans(), 0, "nothing changed: nothing scanned");
    let file = p.cache.path().join("secrets/scans");
    for garbage in ["", "megg secret scans 1 0.0.0\n", "\u{0}\u{0}\t1\t2"] {
        std::fs::write(&file, garbage).unwrap();
        assert_eq!(hook(), first, "{garbage:?}");
        assert!(scans() > 0, "{garbage:?}");
    }
    p.write(
        ".megg/info.md",
        "# Shop\n\n## Context\nThe shop, renamed.\n",
    );
    let edited = hook();
    assert_eq!(scans(), 1, "only the file that changed");
    assert!(String::from_utf8_lossy(&edited).contains("renamed"));
}
