//! SPEC §16 "Fuzzed, not hoped", on stable: every input the fuzz targets start from
//! (`fuzz/seeds/<target>/`), every crash they ever found (`fuzz/regressions/<target>/`) and the
//! recorded test fixtures, run through the same functions the targets call (`megg::fuzz`); and
//! property tests that generate the text people write — markdown with headings, bold non-ASCII
//! words, CJK, RTL, emoji with joiners, combining marks, CRLF, BOMs — for the knowledge parser,
//! the merge and the other readers of it.
//!
//! A crash found by `cargo fuzz` becomes a test here by copying its input into
//! `fuzz/regressions/<target>/` (docs/fuzzing.md).

#![allow(clippy::disallowed_methods)]
// reads the seeds, regressions and fixtures with std::fs
// SPEC §16's panic lints guard megg's own code from its input; a test panicking is how it fails.
#![allow(
    clippy::string_slice,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use proptest::prelude::*;

type Target = fn(&[u8]);

/// Every fuzz target, by its name in `fuzz/fuzz_targets/`.
const TARGETS: [(&str, Target); 13] = [
    ("knowledge", megg::fuzz::knowledge),
    ("frontmatter", megg::fuzz::frontmatter),
    ("state", megg::fuzz::state),
    ("checkpoint", megg::fuzz::checkpoint),
    ("hook_input", megg::fuzz::hook_input),
    ("transcript_claude", megg::fuzz::transcript_claude),
    ("transcript_codex", megg::fuzz::transcript_codex),
    ("transcript_gemini", megg::fuzz::transcript_gemini),
    ("transcript_copilot", megg::fuzz::transcript_copilot),
    ("settings_json", megg::fuzz::settings_json),
    ("settings_toml", megg::fuzz::settings_toml),
    ("merge", megg::fuzz::merge),
    ("recall", megg::fuzz::recall),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn target(name: &str) -> Target {
    match TARGETS.iter().find(|(n, _)| *n == name) {
        Some((_, f)) => *f,
        None => panic!("no fuzz target {name}"),
    }
}

/// The files of `dir`, by name; none when it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

/// What a panic said.
fn message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs each of `inputs` through `f`; the ones that panic, with what they said.
fn failures(f: Target, inputs: &[PathBuf]) -> Vec<String> {
    inputs
        .iter()
        .filter_map(|path| {
            let data = std::fs::read(path).unwrap();
            catch_unwind(AssertUnwindSafe(|| f(&data)))
                .err()
                .map(|p| format!("{}: {}", path.display(), message(&*p)))
        })
        .collect()
}

/// The seeds and the regressions of the target `name` pass.
fn check(name: &str) {
    let fuzz = root().join("fuzz");
    let mut inputs = files(&fuzz.join("seeds").join(name));
    assert!(!inputs.is_empty(), "fuzz/seeds/{name}/ is empty");
    inputs.extend(files(&fuzz.join("regressions").join(name)));
    let failed = failures(target(name), &inputs);
    assert!(
        failed.is_empty(),
        "{} of {} inputs of fuzz target {name} panic:\n{}",
        failed.len(),
        inputs.len(),
        failed.join("\n")
    );
}

macro_rules! seeds_and_regressions {
    ($($name:ident),* $(,)?) => {
        mod seeds_and_regressions {
            $(
                #[test]
                fn $name() {
                    super::check(stringify!($name));
                }
            )*
        }
    };
}

seeds_and_regressions!(
    knowledge,
    frontmatter,
    state,
    checkpoint,
    hook_input,
    transcript_claude,
    transcript_codex,
    transcript_gemini,
    transcript_copilot,
    settings_json,
    settings_toml,
    merge,
    recall,
);

/// Every target in `fuzz/fuzz_targets/` is one of [`TARGETS`] (and tested above), and the
/// other way round.
#[test]
fn every_fuzz_target_is_run_here() {
    let mut on_disk: Vec<String> = files(&root().join("fuzz/fuzz_targets"))
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .collect();
    on_disk.sort();
    let mut here: Vec<String> = TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    here.sort();
    assert_eq!(on_disk, here);
    for name in &here {
        let body =
            std::fs::read_to_string(root().join(format!("fuzz/fuzz_targets/{name}.rs"))).unwrap();
        assert!(
            body.contains(&format!("megg::fuzz::{name}(data)")),
            "fuzz/fuzz_targets/{name}.rs does not call megg::fuzz::{name}"
        );
    }
}

/// The recorded fixtures, whole: hook inputs, transcripts (by the host that wrote them) and the
/// TypeScript megg's files.
#[test]
fn the_recorded_fixtures_pass() {
    let fixtures = root().join("tests/fixtures");
    let mut failed = Vec::new();
    failed.extend(failures(
        target("hook_input"),
        &files(&fixtures.join("hook-inputs")),
    ));
    for path in files(&fixtures.join("transcripts")) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let host = ["claude", "codex", "gemini", "copilot"]
            .into_iter()
            .find(|h| name.starts_with(h));
        if let Some(host) = host {
            failed.extend(failures(
                target(&format!("transcript_{host}")),
                std::slice::from_ref(&path),
            ));
        }
    }
    let shop = fixtures.join("ts-megg-v1.1/acme/shop/.megg");
    for (name, file) in [
        ("knowledge", "knowledge.md"),
        ("merge", "knowledge.md"),
        ("frontmatter", "knowledge.md"),
        ("state", "state.md"),
        ("frontmatter", "state.md"),
    ] {
        failed.extend(failures(target(name), &[shop.join(file)]));
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The pieces people's markdown is made of, ASCII and not.
fn piece() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "## ",
        "# ",
        "---",
        "...",
        "**",
        "##",
        "**Café** au lait",
        "**注意**",
        "**⚠️ Important**",
        "**Ñandú**",
        "**Ünïcödé**:",
        "**Тип:**",
        "**Type:** decision",
        "**Type**: Gotcha",
        "**Topics:** café, 数据库, 🚀",
        "2026-01-17 - ",
        "2026-01-17 — ",
        "数据库迁移必须先备份",
        "日本語のテキスト",
        "한국어",
        "שלום עולם",
        "مرحبا بالعالم",
        "👩‍💻",
        "👨‍👩‍👧‍👦",
        "🏳️‍🌈",
        "🇯🇵",
        "e\u{301}",
        "Z\u{335}\u{30c}",
        "\u{feff}",
        "\u{200d}",
        "\u{2028}",
        "\0",
        "\t",
        " ",
        "\n",
        "\r\n",
        "\r",
        "```",
        "~~~",
        "| a | b |",
        "|---|---|",
        "- [ ] ",
        "- [x] ",
        "<<<<<<< ours",
        "=======",
        ">>>>>>> theirs",
        "created: 2026-01-10T09:00:00Z",
        "updated: 2026-01-17T10:30:00Z",
        "key: value",
        "\"",
    ])
    .prop_map(str::to_string);
    prop_oneof![
        8 => fixed,
        1 => any::<char>().prop_map(String::from),
        1 => prop::collection::vec(any::<char>(), 1..6).prop_map(|c| c.into_iter().collect()),
    ]
}

/// Text made of those pieces, lines more often than not.
fn markdownish() -> impl Strategy<Value = String> {
    prop::collection::vec((piece(), prop::bool::weighted(0.4)), 0..40).prop_map(|v| {
        v.into_iter()
            .map(|(p, newline)| if newline { p + "\n" } else { p })
            .collect()
    })
}

/// A knowledge entry as people write it: a header, a bold non-ASCII first line, the fields,
/// and a body of that text.
fn an_entry() -> impl Strategy<Value = String> {
    let bold = prop::sample::select(vec![
        "**Café** au lait",
        "**注意** 必须先备份",
        "**⚠️ Important** read this",
        "**Ñandú** corre",
        "**日本語:** テキスト",
        "plain first line",
    ]);
    (
        prop::collection::vec(piece(), 1..4),
        bold,
        markdownish(),
        any::<bool>(),
    )
        .prop_map(|(title, bold, body, dated)| {
            let title: String = title.concat().replace(['\n', '\r'], " ");
            let date = if dated { "2026-01-17 - " } else { "" };
            format!("## {date}{title}\n{bold}\n**Type:** fact\n**Topics:** t, 注意\n\n{body}")
        })
}

/// A knowledge file of such entries, the way `learn` separates them, maybe with CRLF.
fn a_file() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(an_entry(), 0..5),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(entries, crlf, bom)| {
            let mut s = String::from(
                "---\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-01-17T10:30:00Z\ntype: knowledge\n---\n\n# Knowledge\n",
            );
            for e in entries {
                s.push_str("\n---\n\n");
                s.push_str(&e);
                s.push('\n');
            }
            if crlf {
                s = s.replace('\n', "\r\n");
            }
            if bom {
                s.insert(0, '\u{feff}');
            }
            s
        })
}

/// Three versions split the way the merge target reads them.
fn versions(base: &str, ours: &str, theirs: &str) -> Vec<u8> {
    [base.as_bytes(), ours.as_bytes(), theirs.as_bytes()].join(&0xFF)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn people_text_through_every_text_reader(text in markdownish()) {
        for (name, f) in TARGETS {
            if name != "merge" && name != "recall" {
                f(text.as_bytes());
            }
        }
    }

    #[test]
    fn knowledge_files_people_write(file in a_file()) {
        megg::fuzz::knowledge(file.as_bytes());
        megg::fuzz::frontmatter(file.as_bytes());
    }

    #[test]
    fn the_merge_of_files_people_write(
        base in a_file(),
        ours in a_file(),
        theirs in a_file(),
        extra in an_entry(),
    ) {
        megg::fuzz::merge(&versions(&base, &ours, &theirs));
        // Each side adds an entry of its own to the base.
        let add = |s: &str| format!("{s}\n---\n\n{extra}\n");
        megg::fuzz::merge(&versions(&base, &add(&base), &theirs));
        megg::fuzz::merge(ours.as_bytes());
    }

    #[test]
    fn searches_people_write(query in markdownish(), file in a_file(), topic in piece()) {
        megg::fuzz::recall(query.as_bytes());
        let input = [query.as_bytes(), file.as_bytes(), topic.as_bytes()].join(&0xFF);
        megg::fuzz::recall(&input);
    }
}
