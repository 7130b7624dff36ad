//! Unit tests of the context renderer, and the budget's property test (SPEC §3.3).

use super::*;

#[test]
fn utf16_counting() {
    assert_eq!(char_len("abc"), 3);
    assert_eq!(char_len("é"), 1);
    assert_eq!(char_len("😀"), 2);
}

#[test]
fn cut_lines_keeps_whole_lines() {
    assert_eq!(cut_lines("ab\ncd\nef\n", 6, Unit::Utf16), ("ab\ncd\n", 1));
    assert_eq!(cut_lines("ab\ncd\n", 2, Unit::Utf16), ("", 2));
}

#[test]
fn hard_cut_fits() {
    let text = "line\n".repeat(1000);
    let out = hard_cut(&text, 2000, Unit::Utf16);
    assert!(char_len(&out) <= 2000);
    assert!(out.ends_with("for everything]"));
}

mod budget {
    use std::path::PathBuf;

    use proptest::prelude::*;

    use super::*;
    use crate::fsx::Boundary;
    use crate::megg::context::{ChainLink, FileEntry, Knowledge, StateView};
    use crate::megg::discovery::{Domain, Neighbour};

    /// A directory path of at least `len` characters.
    fn dir_of(len: usize) -> PathBuf {
        let mut s = String::from("/p");
        while s.len() < len {
            s.push_str("/developer-company");
        }
        PathBuf::from(s)
    }

    fn lines(prefix: &str, n: usize, width: usize, wide: bool) -> String {
        let filler = if wide { "日本😀" } else { "word " };
        (0..n)
            .map(|i| format!("{prefix} {i} {}\n", filler.repeat(width)))
            .collect()
    }

    struct Case {
        path_len: usize,
        ancestors: usize,
        info_lines: usize,
        entries: usize,
        state_lines: usize,
        width: usize,
        wide: bool,
        neighbours: usize,
    }

    fn context(c: &Case) -> Context {
        let dir = dir_of(c.path_len);
        let megg = dir.join(".megg");
        let link = |name: String, dir: PathBuf| ChainLink {
            info: dir.join(".megg/info.md"),
            title: format!("Title of {name}"),
            excerpt: "An excerpt of the ancestor's description, shortened.".into(),
            name,
            dir,
        };
        let mut chain: Vec<ChainLink> = (0..c.ancestors)
            .map(|i| link(format!("level{i}"), dir.join(format!("../up{i}"))))
            .collect();
        chain.push(link("billing".into(), dir.clone()));
        let info = (c.info_lines > 0).then(|| {
            format!(
                "# Billing\n\n{}",
                lines("- description line", c.info_lines, c.width, c.wide)
            )
        });
        let knowledge = (c.entries > 0).then(|| {
            let entry = |i: usize| {
                format!(
                    "## 2026-01-01 - Entry {i}\n**Type:** rule\n**Topics:** topic{i}\n\nBody.\n"
                )
            };
            let all: Vec<String> = (0..c.entries).map(entry).collect();
            Knowledge {
                path: megg.join("knowledge.md"),
                mode: Mode::Full,
                tokens: c.entries * 20,
                tokens_exact: true,
                entries: c.entries,
                topic: None,
                content: all.join("\n---\n\n"),
                warning: None,
                topics: (0..c.entries).map(|i| (format!("topic{i}"), 1)).collect(),
                digest: Some(all.iter().take(5).cloned().collect()),
                conflicted: false,
                index: None,
            }
        });
        let state = StateView {
            path: megg.join("state.md"),
            status: "active".into(),
            updated: Some("2026-11-22T10:00:00Z".into()),
            tokens: 100,
            branch: Some("feat/export".into()),
            head: None,
            auto: false,
            session: None,
            commits_since: Some(2),
            expired: false,
            content: format!(
                "{FIRST}\n{}",
                lines("- step", c.state_lines.saturating_sub(1), c.width, c.wide)
            ),
            expired_reason: None,
            age_seconds: Some(7200),
            updated_at: None,
        };
        let neighbours: Vec<Neighbour> = (0..c.neighbours)
            .map(|i| Neighbour {
                name: format!("service{i}"),
                dir: dir.join(format!("service{i}")),
            })
            .collect();
        Context {
            path: dir.clone(),
            chain,
            domain: Some(Domain {
                name: "billing".into(),
                boundary: Boundary::new(megg.clone(), "billing .megg"),
                dir,
                megg: megg.clone(),
            }),
            info,
            knowledge,
            state: Some(state),
            newer_captures: Vec::new(),
            files: vec![FileEntry {
                name: "notes.md".into(),
                path: megg.join("notes.md"),
                loaded: false,
            }],
            siblings: neighbours.clone(),
            children: neighbours,
            children_cut: false,
            warnings: vec!["a warning about something".into()],
        }
    }

    const FIRST: &str = "## Working On: ship the billing export";

    /// The smallest render that still holds the state's first line: every other part at its
    /// last degradation, info.md down to its title, the state down to its first line.
    fn floor(ctx: &Context) -> String {
        floor_with(ctx, KnowledgeLevel::Topics)
    }

    /// [`floor`] with knowledge at `knowledge`.
    fn floor_with(ctx: &Context, knowledge: KnowledgeLevel) -> String {
        let info_lines = ctx
            .info
            .as_ref()
            .filter(|i| i.split_inclusive('\n').nth(1).is_some())
            .map(|_| 1);
        let plan = Plan {
            excerpts: false,
            chain: false,
            lists: false,
            knowledge,
            info_lines,
            state_lines: Some(1),
            warnings: false,
            warnings_cut: true,
        };
        render(ctx, &plan)
    }

    /// `ctx` with blocked knowledge carrying an index of `lines` lines (SPEC §13.5).
    fn with_index(mut ctx: Context, lines: usize, wide: bool) -> Context {
        use crate::megg::recall::index::{Index, Line, Why};
        let title = if wide { "日本😀 entry" } else { "An entry" };
        let index = Index {
            lines: (0..lines)
                .map(|i| Line {
                    id: format!("k{i:07}"),
                    date: Some("2026-01-01".into()),
                    entry_type: Some("decision".into()),
                    title: format!("{title} {i}"),
                    topics: vec!["misc".into()],
                    why: [Why::Session, Why::Gotcha, Why::Recent][i * 3 / lines.max(1)],
                    archived: false,
                })
                .collect(),
            live: 300,
            archived: 0,
            tokens: (21_000, true),
            topics: "misc (300), auth (40)".into(),
            blocked: Some(format!("Knowledge is blocked. {MAINTAIN} to archive it.\n")),
        };
        let megg = ctx.domain.as_ref().unwrap().megg.clone();
        ctx.knowledge = Some(Knowledge {
            path: megg.join("knowledge.md"),
            mode: Mode::Blocked,
            tokens: 21_000,
            tokens_exact: true,
            entries: 300,
            topic: None,
            content: index.text(lines, true),
            warning: None,
            topics: vec![("misc".into(), 300), ("auth".into(), 40)],
            digest: None,
            conflicted: false,
            index: Some(index),
        });
        ctx
    }

    const MAINTAIN: &str = "Run `megg maintain`";

    /// The index lines a render kept.
    fn kept(text: &str) -> usize {
        text.lines().filter(|l| l.starts_with("- k")).count()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// SPEC §13.5 within §3.3: the index shrinks line by line before the info and the state
        /// are cut, its header and the maintain instruction stay while the state's first line
        /// does, and a larger state never leaves more index lines.
        #[test]
        fn the_index_shrinks_first_and_keeps_its_header(
            info_lines in 0usize..60,
            lines in 0usize..80,
            state_lines in 1usize..150,
            more in 1usize..60,
            width in 1usize..8,
            wide in any::<bool>(),
            max in 2_000usize..=10_000,
            bytes in any::<bool>(),
        ) {
            let unit = if bytes { Unit::Utf8 } else { Unit::Utf16 };
            let case = |state_lines| Case {
                path_len: 40, ancestors: 1, info_lines, entries: 0, state_lines, width, wide,
                neighbours: 3,
            };
            let small = with_index(context(&case(state_lines)), lines, wide);
            let large = with_index(context(&case(state_lines + more)), lines, wide);
            let (a, b) = (
                markdown_in(&small, Some((max, unit)), true),
                markdown_in(&large, Some((max, unit)), true),
            );
            for (ctx, r) in [(&small, &a), (&large, &b)] {
                prop_assert!(unit.len(&r.text) <= max);
                let least = floor_with(ctx, KnowledgeLevel::Index { keep: 0, topics: false });
                if unit.len(&least) <= max {
                    for needed in ["Knowledge index: 300 entries", "`megg search <words>`", MAINTAIN, FIRST] {
                        prop_assert!(r.text.contains(needed), "no {needed} at {max}:\n{}", r.text);
                    }
                }
                let state_cut = r.text.contains("[… state cut here");
                let info_cut = r.text.contains("[… info.md cut here");
                if state_cut || info_cut {
                    prop_assert_eq!(kept(&r.text), 0, "cut the info or state with index lines left");
                }
                prop_assert_eq!(r.knowledge_mode, Some(Delivered::Loaded(Mode::Blocked)));
            }
            prop_assert!(kept(&a.text) >= kept(&b.text), "{} then {}", kept(&a.text), kept(&b.text));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// SPEC §3.3: within the budget (UTF-16 units), and the state's first line survives
        /// whenever it and the headings fit.
        #[test]
        fn within_budget_and_the_state_survives(
            path_len in 5usize..160,
            ancestors in 0usize..4,
            info_lines in 0usize..700,
            entries in 0usize..150,
            state_lines in 1usize..200,
            width in 1usize..12,
            wide in any::<bool>(),
            neighbours in 0usize..20,
            max in 2_000usize..=10_000,
            bytes in any::<bool>(),
        ) {
            // Codex's budget counts UTF-8 bytes; every other host's UTF-16 units.
            let unit = if bytes { Unit::Utf8 } else { Unit::Utf16 };
            let ctx = context(&Case {
                path_len, ancestors, info_lines, entries, state_lines, width, wide, neighbours,
            });
            let r = markdown_in(&ctx, Some((max, unit)), true);
            prop_assert!(unit.len(&r.text) <= max, "{} over {max}", unit.len(&r.text));
            if unit.len(&floor(&ctx)) <= max {
                prop_assert!(r.text.contains(FIRST), "state lost at {max}:\n{}", r.text);
                prop_assert!(!r.text.contains("cut to fit the context limit"));
            }
            let state_cut = r.text.contains("[… state cut here");
            let hard = r.text.contains("cut to fit the context limit");
            if !hard {
                prop_assert_eq!(
                    state_cut,
                    r.cuts.iter().any(|c| c.contains("session state cut short"))
                );
            }
            if state_cut && ctx.info.as_ref().is_some_and(|i| i.lines().count() > 1) {
                // The state is cut only once info.md is down to its title.
                prop_assert!(
                    r.text.contains("# Billing\n\n[… info.md cut here")
                        || r.text.contains("## Current Context: billing\n\n[… info.md cut here"),
                    "the state was cut while info.md had more than its title:\n{}",
                    r.text
                );
            }
            if r.text.contains("[… info.md cut here") {
                prop_assert!(r.cuts.iter().any(|c| c.contains("info.md cut short")));
            }
            if hard {
                prop_assert!(r.cuts.iter().any(|c| c.contains("cut at the limit")));
            }
        }
    }
}
