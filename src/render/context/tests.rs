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

mod index {
    use std::path::PathBuf;

    use proptest::prelude::*;

    use super::*;
    use crate::megg::context::Knowledge;
    use crate::megg::recall::index::{Index, Line, Why};

    fn line(id: &str, why: Why, topics: &[&str], archived: bool) -> Line {
        Line {
            id: id.into(),
            date: Some("2026-01-01".into()),
            entry_type: Some("decision".into()),
            title: "Billing exports use CSV".into(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
            why,
            archived,
            freshness: None,
        }
    }

    fn knowledge(index: Index) -> Knowledge {
        Knowledge {
            path: PathBuf::from("/p/.megg/knowledge.md"),
            mode: Mode::Blocked,
            tokens: 17_000,
            tokens_exact: true,
            entries: 4,
            topic: None,
            content: "The seed's blocked message, with Topics: t (4)\n".into(),
            warning: None,
            topics: vec![("t".into(), 4)],
            digest: None,
            conflicted: false,
            index: Some(index),
        }
    }

    /// The index as SPEC §13.5 words it, built from its parts: cut down, the header and the
    /// maintain instruction stay, the rest is counted, and the topic counts go on their own.
    #[test]
    fn the_index_text_keeps_its_header_and_instruction() {
        let k = knowledge(Index {
            lines: vec![
                line("k1", Why::Session, &["t"], false),
                line("k2", Why::Gotcha, &[], false),
                line("k3", Why::Recent, &["t", "u"], true),
            ],
            live: 3,
            archived: 1,
            blocked: true,
        });
        let index = k.index.as_ref().unwrap();
        let text = index_text(&k, index, usize::MAX, true);
        assert!(
            text.starts_with("Knowledge index: 3 entries, 17000 tokens (and 1 archived) — "),
            "{text}"
        );
        for needed in [
            "\nRelevant to this session:\n- k1 2026-01-01 decision: Billing exports use CSV [t]\n",
            "\nGotchas:\n- k2 2026-01-01 decision: Billing exports use CSV\n",
            "- k3 2026-01-01 decision: Billing exports use CSV [t, u] (archived)\n",
            "\n… 1 more: search for them.\n",
            "\nTopics: t (4)\n",
            "\nKnowledge is blocked: /p/.megg/knowledge.md is 17000 tokens (4 entries), over the 16000-token limit.\nRun `megg maintain`",
        ] {
            assert!(text.contains(needed), "no {needed:?} in:\n{text}");
        }
        assert!(!text.contains("seed's"), "{text}");
        let least = index_text(&k, index, 0, false);
        let rest: Vec<&str> = least.lines().filter(|l| !l.is_empty()).skip(1).collect();
        assert_eq!(
            rest,
            [
                "… 4 more: search for them.",
                "Knowledge is blocked: /p/.megg/knowledge.md is 17000 tokens (4 entries), over the 16000-token limit.",
                "Run `megg maintain` to archive or consolidate it, or load one topic with `megg context --topic <topic>`."
            ]
        );
    }

    proptest! {
        /// [`Line::width`], what the domain caps the index by, is the length of the line this
        /// module prints.
        #[test]
        fn a_lines_width_is_its_printed_length(
            id in "k[a-z0-9]{7}(-[a-z0-9]{1,2})?",
            date in proptest::option::of("20[0-9]{2}-[0-9]{2}-[0-9]{2}"),
            kind in proptest::option::of("[a-z]{3,9}"),
            title in "\\PC{0,40}",
            topics in proptest::collection::vec("\\PC{1,12}", 0..4),
            archived in any::<bool>(),
            stale in any::<bool>(),
        ) {
            let freshness = stale.then(|| crate::megg::freshness::Freshness {
                date: String::new(),
                paths: vec![crate::megg::freshness::PathFreshness {
                    path: "a.rs".into(),
                    status: crate::megg::freshness::Status::Gone,
                    commits: 1,
                    new_path: None,
                    touches: Vec::new(),
                }],
                ..Default::default()
            });
            let l = Line { id, date, entry_type: kind, title, topics, why: Why::Recent, archived, freshness };
            prop_assert_eq!(l.width(), index_line(&l).chars().count());
        }
    }
}

mod budget {
    use std::path::PathBuf;

    use proptest::prelude::*;

    use super::*;
    use crate::fsx::Boundary;
    use crate::megg::capture::kept_summary::Kept;
    use crate::megg::capture::summary::{Found, Source};
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
        /// Lines of the host's compaction summary (SPEC §18.1); none when 0.
        summary_lines: usize,
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
            id: "h1234567".into(),
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
            expired_state: None,
            newer_captures: Vec::new(),
            host_summary: (c.summary_lines > 0).then(|| Kept {
                found: Found {
                    source: Source::ClaudePostCompact,
                    text: lines("- decided", c.summary_lines, c.width, c.wide),
                    at: Some("2026-11-22T09:00:00Z".into()),
                    requests_after: 0,
                },
                path: megg.join("../.git/megg/sessions/main/s1.summary"),
                session: "s1".into(),
            }),
            workflow: None,
            removed_worktrees: Vec::new(),
            files: vec![FileEntry {
                name: "notes.md".into(),
                path: megg.join("notes.md"),
                loaded: false,
            }],
            siblings: neighbours.clone(),
            children: neighbours,
            children_cut: false,
            warnings: vec!["a warning about something".into()],
            hidden: Vec::new(),
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
            summary_room: Some(0),
            unit: Unit::Utf16,
        };
        render(ctx, &plan)
    }

    /// `ctx` with blocked knowledge carrying an index of `lines` lines and `topics` topic
    /// counts (SPEC §13.5).
    fn with_index(mut ctx: Context, lines: usize, wide: bool, topics: usize) -> Context {
        use crate::megg::recall::index::{Index, Line, Why};
        let title = if wide { "日本😀 entry" } else { "An entry" };
        let topics: Vec<(String, usize)> = std::iter::once(("misc".to_string(), 300))
            .chain((1..topics).map(|i| (format!("platform-area-{i}"), 1)))
            .collect();
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
                    freshness: None,
                })
                .collect(),
            live: 300,
            archived: 0,
            blocked: true,
        };
        let megg = ctx.domain.as_ref().unwrap().megg.clone();
        ctx.knowledge = Some(Knowledge {
            path: megg.join("knowledge.md"),
            mode: Mode::Blocked,
            tokens: 21_000,
            tokens_exact: true,
            entries: 300,
            topic: None,
            content: "The seed's blocked message.".into(),
            warning: None,
            topics,
            digest: None,
            conflicted: false,
            index: Some(index),
        });
        ctx
    }

    /// The plan every step before knowledge's left when the index had to be cut: what
    /// [`markdown_in`] measured the index's cut on.
    /// The plan of an index cut to `keep` lines, the rest at its smallest but the state, which
    /// keeps the handoff's own bound as the render does.
    fn index_plan(ctx: &Context, unit: Unit, keep: usize, topics: bool) -> Plan {
        Plan {
            excerpts: false,
            chain: false,
            lists: false,
            knowledge: KnowledgeLevel::Index { keep, topics },
            info_lines: None,
            state_lines: handoff_cap(ctx, unit),
            warnings: false,
            warnings_cut: true,
            summary_room: Some(0),
            unit,
        }
    }

    const MAINTAIN: &str = "Run `megg maintain` to archive or consolidate it";

    /// The index lines a render kept.
    fn kept(text: &str) -> usize {
        text.lines().filter(|l| l.starts_with("- k")).count()
    }

    /// Issue: an index cut to no line kept the heading "Knowledge (summary, …)" with no summary
    /// under it, and its note did not name the file (SPEC §3.3: a cut says what to load).
    #[test]
    fn an_index_cut_to_no_line_says_what_it_is_and_names_the_file() {
        let case = Case {
            path_len: 40,
            ancestors: 0,
            info_lines: 0,
            entries: 0,
            state_lines: 140,
            width: 7,
            wide: false,
            neighbours: 0,
            summary_lines: 0,
        };
        let mut ctx = with_index(context(&case), 50, false, 1);
        let k = ctx.knowledge.as_mut().unwrap();
        k.mode = Mode::Summary;
        k.index.as_mut().unwrap().blocked = false;
        let r = markdown_in(&ctx, Some((3_000, Unit::Utf16)), true);
        assert_eq!(kept(&r.text), 0, "{}", r.text);
        let heading = r
            .text
            .lines()
            .find(|l| l.starts_with("## Knowledge"))
            .unwrap();
        assert!(!heading.contains("summary"), "{heading}");
        let path = ctx.knowledge.as_ref().unwrap().path.display().to_string();
        let note = r
            .cuts
            .iter()
            .find(|c| c.contains("knowledge index"))
            .unwrap();
        assert!(note.contains(&path), "{note}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// SPEC §13.5 within §3.3: the index shrinks line by line before the info and the state
        /// are cut, its header and the maintain instruction stay while the state's first line
        /// does, a larger state never leaves more index lines, and the lines kept are the most
        /// that fit — the topic counts go before a line does (issue: past the topic counts'
        /// room no line was tried).
        #[test]
        fn the_index_shrinks_first_and_keeps_its_header(
            info_lines in 0usize..60,
            lines in 0usize..80,
            topics in 1usize..400,
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
                neighbours: 3, summary_lines: 0,
            };
            let small = with_index(context(&case(state_lines)), lines, wide, topics);
            let large = with_index(context(&case(state_lines + more)), lines, wide, topics);
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
                // A state over the handoff's own bound is cut whatever the budget.
                let state_cut = r.text.contains("[… state cut here") && handoff_cap(ctx, unit).is_none();
                let info_cut = r.text.contains("[… info.md cut here");
                if state_cut || info_cut {
                    prop_assert_eq!(kept(&r.text), 0, "cut the info or state with index lines left");
                } else if r.cuts.iter().any(|c| c.contains("knowledge index cut")) {
                    // Maximal: one line more does not fit, nor the topic counts when they went.
                    let k = kept(&r.text);
                    let with_topics = r.text.contains("\nTopics: ");
                    if k < lines {
                        let more = render(ctx, &index_plan(ctx, unit, k + 1, false));
                        prop_assert!(unit.len(&more) > max, "{} of {lines} lines kept at {max}:\n{}", k, r.text);
                    }
                    if !with_topics {
                        let more = render(ctx, &index_plan(ctx, unit, k, true));
                        prop_assert!(unit.len(&more) > max, "the topic counts went at {max}:\n{}", r.text);
                    }
                }
                let mode = if r.cuts.iter().any(|c| c.starts_with("knowledge index cut to 0 ")) {
                    Delivered::IndexHeader
                } else {
                    Delivered::Loaded(Mode::Blocked)
                };
                prop_assert_eq!(r.knowledge_mode, Some(mode));
            }
            prop_assert!(kept(&a.text) >= kept(&b.text), "{} then {}", kept(&a.text), kept(&b.text));
        }
    }

    /// SPEC §18.3: what megg injects for the handoff — the state and the host's summary —
    /// stays within 6,000 units whatever the budget, the summary going first.
    #[test]
    fn the_handoff_and_the_summary_stay_within_six_thousand() {
        for (state_lines, summary_lines, max) in [
            (400, 60, None),
            (400, 60, Some(9_500)),
            (60, 60, None),
            (5, 60, None),
            (400, 0, None),
        ] {
            let ctx = context(&Case {
                path_len: 20,
                ancestors: 0,
                info_lines: 3,
                entries: 0,
                state_lines,
                width: 6,
                wide: false,
                neighbours: 0,
                summary_lines,
            });
            let r = markdown(&ctx, max, false);
            let text = &r.text;
            let state = text.find("## Session State").unwrap();
            let after = text.find("## Also in .megg").unwrap();
            let summary = text
                .find("## Host summary")
                .map_or(0, |at| Unit::Utf16.len(text.get(at..).unwrap()));
            let handoff = Unit::Utf16.len(text.get(state..after).unwrap()) + summary;
            assert!(
                handoff <= 6_000,
                "{state_lines}/{summary_lines}/{max:?}: {handoff}"
            );
            assert!(text.contains(FIRST));
            if state_lines <= 5 {
                assert!(summary > 0, "room left for the summary");
            }
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
            summary_lines in 0usize..80,
            max in 2_000usize..=10_000,
            bytes in any::<bool>(),
        ) {
            // Codex's budget counts UTF-8 bytes; every other host's UTF-16 units.
            let unit = if bytes { Unit::Utf8 } else { Unit::Utf16 };
            let ctx = context(&Case {
                path_len, ancestors, info_lines, entries, state_lines, width, wide, neighbours,
                summary_lines,
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
            // A state over the handoff's own bound (SPEC §18.3) is cut whatever the budget.
            let budget_cut_state = state_cut && handoff_cap(&ctx, unit).is_none();
            if budget_cut_state && ctx.info.as_ref().is_some_and(|i| i.lines().count() > 1) {
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
            // The host's summary goes before info.md and the state are cut (SPEC §18.1), and
            // its fence is always closed.
            if (budget_cut_state || r.text.contains("[… info.md cut here")) && summary_lines > 0 {
                prop_assert!(!r.text.contains("## Host summary"), "summary kept over the handoff:\n{}", r.text);
            }
            if let Some(at) = r.text.find("## Host summary") {
                prop_assert!(r.text.get(at..).unwrap_or_default().trim_end().ends_with("`````"), "fence open:\n{}", r.text);
            }
            if hard {
                prop_assert!(r.cuts.iter().any(|c| c.contains("cut at the limit")));
            }
        }
    }
}
