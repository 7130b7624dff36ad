//! SPEC §17's measured row: 300 knowledge entries citing 2 paths each, on a generated history
//! of 10,000 commits and one of 1,000,000 (SPEC §14), whose commits after the entries' day edit
//! (2 or 6 times), rename and delete some of the cited paths and leave the others alone. Warm
//! medians of `megg --version`, the Claude Code SessionStart hook (`megg context --json`, the
//! index of a blocked knowledge) and `megg maintain --check --json`, interleaved, each with its
//! ratio to `--version` (§8: the hook ≤ 3 ×); the first (uncached) run of each; and whether
//! every entry's status is the one its history gives.
//!
//!     cargo bench --bench freshness
//!     MEGG_BENCH_BIN=/path/to/megg cargo bench --bench freshness
//!
//! The histories are built as packs with `git fast-import` (needs `git` on PATH); the
//! 1,000,000-commit one in about a minute: its commits between the events touch one file that
//! cycles through a few contents, so its trees repeat and the pack stays small.

// SPEC §16's panic lints guard megg's own code from its input; a benchmark panicking is how it
// fails.
#![allow(
    clippy::string_slice,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]
#![allow(clippy::disallowed_methods)] // fixtures are built with std::fs
#![allow(clippy::print_stdout)] // a benchmark reports on stdout

mod common;

use common::{NOW, median, ms, time};

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 21;
const ENTRIES: usize = 300;
/// The entries' day, and the first commit's (before it) and the events' (after it) times.
const DAY: &str = "2026-01-10";
const BEFORE: i64 = 1_767_603_600; // 2026-01-05T09:00:00Z
const AFTER: i64 = 1_769_904_000; // 2026-02-01T00:00:00Z

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("skipped: run with `cargo bench --bench freshness`");
        return;
    }
    let megg = common::megg_binary();
    let tmp = tempfile::tempdir().unwrap();
    let plan = Plan::new();

    let repos: Vec<(String, PathBuf)> = [10_000usize, 1_000_000]
        .into_iter()
        .map(|commits| {
            let dir = tmp.path().join(format!("history-{commits}"));
            let started = Instant::now();
            plan.build(&dir, commits);
            println!(
                "built {} commits with git fast-import in {:.1} s",
                thousands(commits),
                started.elapsed().as_secs_f64()
            );
            (thousands(commits), dir)
        })
        .collect();
    println!();

    let cache = |dir: &Path| dir.join(".bench-cache");
    let hook: &[&str] = &["context", "--json"];
    let check: &[&str] = &["maintain", "--check", "--json"];

    // The first run of each, nothing cached (neither megg's cache nor anything in the repository).
    let mut first = Vec::new();
    for (name, dir) in &repos {
        first.push((
            format!("hook, {name} commits"),
            time(|| {
                run(&megg, dir, &cache(dir), hook);
            }),
        ));
        first.push((
            format!("`maintain --check --json`, {name} commits"),
            time(|| {
                run(&megg, dir, &cache(dir), check);
            }),
        ));
    }

    // Whether each entry's status is its history's.
    println!("| history | statuses as generated | stale entries |");
    println!("|---|---|---|");
    for (name, dir) in &repos {
        let (right, wrong, stale) = plan.verify(&megg, dir, &cache(dir));
        println!(
            "| {name} commits | {right} of {ENTRIES}{} | {stale} (expected {}) |",
            if wrong.is_empty() {
                String::new()
            } else {
                format!("; first wrong: {}", wrong.join("; "))
            },
            plan.expected_stale()
        );
    }
    println!();

    // Warm medians, interleaved.
    let mut cases: Vec<(String, &Path, &[&str])> = vec![(
        "`megg --version`".to_string(),
        repos[0].1.as_path(),
        &["--version"],
    )];
    for (name, dir) in &repos {
        cases.push((
            format!("SessionStart hook (`megg context --json`, blocked index), {name} commits"),
            dir.as_path(),
            hook,
        ));
        cases.push((
            format!("`megg maintain --check --json`, {name} commits"),
            dir.as_path(),
            check,
        ));
    }
    for (_, dir, args) in &cases {
        run(&megg, dir, &cache(dir), args);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for _ in 0..RUNS {
        for (i, (_, dir, args)) in cases.iter().enumerate() {
            times[i].push(time(|| {
                run(&megg, dir, &cache(dir), args);
            }));
        }
    }
    let m: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
    let version = m[0].as_secs_f64();
    println!(
        "megg freshness benchmark: {ENTRIES} entries × 2 citations ({RUNS} interleaved runs, warm medians)\n"
    );
    println!("| case | median | ratio | target |");
    println!("|---|---|---|---|");
    for (i, (what, _, args)) in cases.iter().enumerate() {
        let target = if args == &hook {
            "≤ 3 × --version (§8, §17)"
        } else {
            "—"
        };
        println!(
            "| {what} | {} | {:.2} × --version | {target} |",
            ms(m[i]),
            m[i].as_secs_f64() / version
        );
    }
    println!("\nfirst run, nothing cached\n");
    println!("| case | time | ratio |");
    println!("|---|---|---|");
    for (what, took) in first {
        println!(
            "| {what} | {} | {:.1} × --version |",
            ms(took),
            took.as_secs_f64() / version
        );
    }
}

/// `megg ARGS` in `dir`; a check that lists entries exits 1, anything else must succeed.
fn run(megg: &Path, dir: &Path, cache: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(megg)
        .args(args)
        .current_dir(dir)
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let listed = args.first() == Some(&"maintain") && out.status.code() == Some(1);
    assert!(out.status.success() || listed, "megg {args:?}: {out:?}");
    out.stdout
}

/// What happens to a cited path after the entries' day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Fresh,
    Edited(usize),
    Moved,
    Deleted,
}

/// The entries, the paths each cites and what happens to them.
struct Plan {
    /// Per entry: its two paths' indices (into `fates`), its expected status and staleness.
    entries: Vec<([usize; 2], &'static str, bool)>,
    fates: Vec<Fate>,
}

/// A cited file's path.
fn cited(i: usize) -> String {
    format!("app/c{:02}/p{:02}.rs", i / 20, i % 20)
}

/// Where a moved file goes (the same bytes: git's rename detection finds it).
fn moved(i: usize) -> String {
    format!("app/c{:02}/moved_p{:02}.rs", i / 20, i % 20)
}

fn content(i: usize, edit: usize) -> String {
    format!(
        "// {}\npub fn f{i}() -> u64 {{\n    {}\n}}\n",
        cited(i),
        i * 1000 + edit
    )
}

impl Plan {
    /// Entry `i` is one of six kinds, 50 of each: both fresh; one edited twice (changed); one
    /// edited 6 times (changed, stale); one moved (moved); one moved and one deleted (gone,
    /// stale); one edited twice and one moved (changed).
    fn new() -> Self {
        use Fate::*;
        let mut entries = Vec::new();
        let mut fates = Vec::new();
        for i in 0..ENTRIES {
            let (pair, status, stale) = match i % 6 {
                0 => ([Fresh, Fresh], "fresh", false),
                1 => ([Fresh, Edited(2)], "changed", false),
                2 => ([Fresh, Edited(6)], "changed", true),
                3 => ([Fresh, Moved], "moved", false),
                4 => ([Moved, Deleted], "gone", true),
                _ => ([Edited(2), Moved], "changed", false),
            };
            let at = fates.len();
            fates.extend(pair);
            entries.push(([at, at + 1], status, stale));
        }
        Self { entries, fates }
    }

    fn expected_stale(&self) -> usize {
        self.entries.iter().filter(|e| e.2).count()
    }

    fn title(i: usize) -> String {
        const WORDS: [&str; 12] = [
            "invoice", "ledger", "webhook", "tenant", "refund", "session", "export", "cache",
            "audit", "upload", "locale", "budget",
        ];
        format!(
            "Bench entry {i}: the {} {} path",
            WORDS[i % 12],
            WORDS[(i * 5 + 3) % 12]
        )
    }

    /// `.megg/` (info, a blocked knowledge of the entries, an active state) and the history:
    /// every cited file in a first commit before the entries' day, then `commits` commits
    /// after it, the events (edits, renames, deletions) spread evenly among commits that
    /// touch one uncited file.
    fn build(&self, root: &Path, commits: usize) {
        std::fs::create_dir_all(root).unwrap();
        let git = |args: &[&str]| {
            let ok = common::git_command(root)
                .args(args)
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q", "-b", "main"]);
        let mut events: Vec<(usize, Fate)> = Vec::new();
        for (i, fate) in self.fates.iter().enumerate() {
            match fate {
                Fate::Fresh => {}
                Fate::Edited(n) => events.extend((1..=*n).map(|e| (i, Fate::Edited(e)))),
                other => events.push((i, *other)),
            }
        }
        // Spread the events: an edit of one file, then of another, not one file's run at once.
        events.sort_by_key(|&(i, f)| {
            let n = match f {
                Fate::Edited(e) => e,
                _ => 7,
            };
            (n, i)
        });
        assert!(events.len() < commits);
        let mut child = common::git_command(root)
            .args(["fast-import", "--quiet"])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, child.stdin.take().unwrap());
            let data = |w: &mut dyn Write, bytes: &str| {
                write!(w, "data {}\n{bytes}\n", bytes.len()).unwrap();
            };
            write!(
                w,
                "commit refs/heads/main\ncommitter B <b@example.com> {BEFORE} +0000\n"
            )
            .unwrap();
            data(&mut w, "initial");
            for i in 0..self.fates.len() {
                writeln!(w, "M 100644 inline {}", cited(i)).unwrap();
                data(&mut w, &content(i, 0));
            }
            writeln!(w, "M 100644 inline README.md").unwrap();
            data(&mut w, "bench\n");
            writeln!(w).unwrap();
            let mut next = events.iter().peekable();
            for c in 0..commits {
                let due = |k: usize| (k + 1) * commits / (events.len() + 1);
                let t = AFTER + c as i64;
                write!(
                    w,
                    "commit refs/heads/main\ncommitter B <b@example.com> {t} +0000\n"
                )
                .unwrap();
                let done = events.len() - next.len();
                match next.peek() {
                    Some(&&(i, fate)) if due(done) <= c => {
                        next.next();
                        match fate {
                            Fate::Edited(e) => {
                                data(&mut w, &format!("edit {} ({e})", cited(i)));
                                writeln!(w, "M 100644 inline {}", cited(i)).unwrap();
                                data(&mut w, &content(i, e));
                            }
                            Fate::Moved => {
                                data(&mut w, &format!("move {}", cited(i)));
                                writeln!(w, "R {} {}", cited(i), moved(i)).unwrap();
                            }
                            Fate::Deleted => {
                                data(&mut w, &format!("delete {}", cited(i)));
                                writeln!(w, "D {}", cited(i)).unwrap();
                            }
                            Fate::Fresh => unreachable!(),
                        }
                    }
                    _ => {
                        // A few contents in turn: the trees repeat, fast-import stores each once.
                        data(&mut w, &format!("churn {c}"));
                        writeln!(w, "M 100644 inline churn/log.txt").unwrap();
                        data(&mut w, &format!("{}\n", c % 97));
                    }
                }
                writeln!(w).unwrap();
            }
            assert!(next.peek().is_none(), "every event written");
        }
        assert!(child.wait().unwrap().success(), "git fast-import");
        git(&["reset", "-q", "--hard", "main"]);

        let megg = root.join(".megg");
        std::fs::create_dir_all(&megg).unwrap();
        std::fs::write(
            megg.join("info.md"),
            "---\ntype: context\n---\n\n# Bench\n\n## Context\nA history of edits, renames and deletions.\n",
        )
        .unwrap();
        let kinds = ["decision", "gotcha", "rule", "fact", "pattern"];
        let mut k =
            String::from("---\ncreated: 2026-01-10T09:00:00Z\ntype: knowledge\n---\n# Knowledge\n");
        for (i, ([a, b], _, _)) in self.entries.iter().enumerate() {
            // Every fifth cites its second path at a line.
            let second = if i % 5 == 0 {
                format!("{}:12", cited(*b))
            } else {
                cited(*b)
            };
            k.push_str(&format!(
                "\n---\n\n## {DAY} - {}\n**Type:** {}\n**Topics:** bench, area-{}\n\nThe logic lives in `{}` and calls `{second}`; why it matters and how it was decided, with the details a newcomer needs to change it safely.\n",
                Self::title(i),
                kinds[i % kinds.len()],
                i % 9,
                cited(*a),
            ));
        }
        std::fs::write(megg.join("knowledge.md"), k).unwrap();
        std::fs::write(
            megg.join("state.md"),
            "---\nupdated: 2026-11-22T11:00:00Z\nstatus: active\n---\n\n## Working On\nThe invoice ledger path\n\n## Next\n- the refund webhook\n",
        )
        .unwrap();
    }

    /// `maintain --check --json` against the plan: how many entries have the status and the
    /// staleness their history gives (an entry not listed is fresh), the first few that do
    /// not, and how many are stale (a path gone, or changed in 5 commits or more).
    fn verify(&self, megg: &Path, dir: &Path, cache: &Path) -> (usize, Vec<String>, usize) {
        let out = run(megg, dir, cache, &["maintain", "--check", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_else(|e| {
            panic!(
                "maintain --check --json: {e}: {}",
                String::from_utf8_lossy(&out)
            )
        });
        let listed: BTreeMap<String, (String, bool)> = v["entries"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        let stale = e["paths"].as_array().is_some_and(|paths| {
                            paths.iter().any(|p| {
                                p["status"] == "gone"
                                    || (p["status"] == "changed"
                                        && p["commits"].as_u64().is_some_and(|n| n >= 5))
                            })
                        });
                        (
                            e["title"].as_str().unwrap_or_default().to_string(),
                            (e["status"].as_str().unwrap_or_default().to_string(), stale),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let (mut right, mut wrong, mut stale) = (0, Vec::new(), 0);
        for (i, (_, status, is_stale)) in self.entries.iter().enumerate() {
            let (got, got_stale) = listed
                .get(&Self::title(i))
                .map_or(("fresh", false), |(s, st)| (s.as_str(), *st));
            stale += usize::from(got_stale);
            if got == *status && got_stale == *is_stale {
                right += 1;
            } else if wrong.len() < 3 {
                wrong.push(format!(
                    "entry {i}: {got} (stale {got_stale}), not {status} (stale {is_stale})"
                ));
            }
        }
        (right, wrong, stale)
    }
}

/// `1,000,000`.
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
