//! Every rule of SPEC §11 on the pure merge, one named test each, and the property that no
//! entry is lost or duplicated and that the merge is symmetric in its sides.
#![allow(clippy::string_slice)] // tests slice their own ASCII fixtures

use std::collections::BTreeMap;

use super::*;

const HEAD: &str = "---\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-01-17T10:30:00Z\ntype: knowledge\n---\n\n# Knowledge\n";
const PATH: &str = ".megg/knowledge.md";

/// An entry as `learn` writes it, without its final line end.
fn entry(title: &str, body: &str) -> String {
    format!("## 2026-01-17 - {title}\n**Type:** fact\n**Topics:** t\n\n{body}")
}

/// A file of `entries` after `head`, each appended the way `learn` appends.
fn file_with(head: &str, entries: &[&str]) -> String {
    let mut s = head.to_string();
    for e in entries {
        knowledge::append_raw(&mut s, e);
    }
    s
}

fn file(entries: &[&str]) -> String {
    file_with(HEAD, entries)
}

fn run(base: &str, ours: &str, theirs: &str) -> Merged {
    merge(Some(base), ours, theirs, DEFAULT_MARKER_SIZE).unwrap()
}

fn text(m: &Merged) -> &str {
    std::str::from_utf8(&m.bytes).unwrap()
}

/// The entries a merged text holds, conflict blocks opened up: both sides' entries count.
fn held(text: &str) -> Vec<String> {
    let mut flat = String::new();
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare.starts_with("<<<<<<<") || bare.starts_with(">>>>>>>") {
            continue;
        }
        if !bare.is_empty() && bare.chars().all(|c| c == '=') {
            flat.push_str("\n---\n\n");
            continue;
        }
        flat.push_str(line);
    }
    knowledge::document(&flat)
        .entries
        .iter()
        .map(|e| knowledge::normalized(e.raw))
        .collect()
}

fn multiset(keys: &[String]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for k in keys {
        *m.entry(k.clone()).or_default() += 1;
    }
    m
}

fn titles(text: &str) -> Vec<String> {
    knowledge::document(text)
        .entries
        .iter()
        .map(|e| e.title.to_string())
        .collect()
}

#[test]
fn only_megg_paths_merge_by_entry() {
    for p in [
        ".megg/knowledge.md",
        "app/.megg/knowledge.md",
        ".megg/archive/knowledge-2025.md",
        "a/b/.megg/archive/x.md",
    ] {
        assert!(is_knowledge_path(p), "{p}");
    }
    for p in [
        "docs/notes.md",
        "knowledge.md",
        "x.megg/knowledge.md",
        ".megg/knowledge.md.orig",
        ".megg/info.md",
        ".megg/archive/.md",
        ".megg/archive/sub/x.md",
        ".megg/archive/x.txt",
        "my.megg/archive/x.md",
    ] {
        assert!(!is_knowledge_path(p), "{p}");
    }
}

#[test]
fn any_other_path_gets_the_fallback() {
    let base = file(&[&entry("A", "a")]);
    let ours = file(&[&entry("A", "a"), &entry("B", "b")]);
    let theirs = file(&[&entry("A", "a"), &entry("C", "c")]);
    let m = merge_knowledge(
        Some(base.as_bytes()),
        ours.as_bytes(),
        theirs.as_bytes(),
        "docs/notes.md",
        7,
    );
    assert_eq!(m.conflicts, [Conflict::Whole(Fallback::NotKnowledge)]);
    assert_eq!(
        text(&m),
        format!("<<<<<<< ours\n{ours}=======\n{theirs}>>>>>>> theirs\n")
    );
}

#[test]
fn input_that_does_not_parse_gets_the_fallback() {
    let good = file(&[&entry("A", "a")]);
    let not_utf8 = [good.as_bytes(), b"\xff\xfe"].concat();
    let m = merge_knowledge(Some(good.as_bytes()), good.as_bytes(), &not_utf8, PATH, 7);
    assert_eq!(
        m.conflicts,
        [Conflict::Whole(Fallback::NotUtf8(Side::Theirs))]
    );
    assert!(
        m.bytes.ends_with(b"\xff\xfe\n>>>>>>> theirs\n"),
        "both whole"
    );

    let bad_yaml = "---\ncreated: [unclosed\n---\n# Knowledge\n";
    let m = merge_knowledge(
        Some(bad_yaml.as_bytes()),
        good.as_bytes(),
        good.as_bytes(),
        PATH,
        7,
    );
    assert!(matches!(
        &m.conflicts[..],
        [Conflict::Whole(Fallback::Frontmatter(Side::Base, _))]
    ));

    let huge = vec![b'a'; MAX_INPUT_BYTES + 1];
    let m = merge_knowledge(None, &huge, good.as_bytes(), PATH, 3);
    assert_eq!(
        m.conflicts,
        [Conflict::Whole(Fallback::TooLarge(Side::Ours))]
    );
    assert!(m.bytes.starts_with(b"<<< ours\naaa"));
    assert_eq!(
        m.bytes.len(),
        huge.len() + good.len() + "<<< ours\n\n=== \n>>> theirs\n".len() - 1
    );
}

#[test]
fn entries_split_only_on_a_line_that_is_exactly_three_dashes() {
    let a = entry("A", "top\n----\n--- not a separator\n***\nbottom");
    let base = file(&[&a]);
    let theirs = file(&[&a, &entry("B", "b")]);
    let m = run(&base, &base, &theirs);
    assert!(m.is_clean());
    assert_eq!(text(&m), theirs);
    assert_eq!(held(text(&m)).len(), 2);
}

#[test]
fn a_chunk_without_heading_belongs_to_the_entry_before() {
    // The TypeScript megg let a `---` rule inside an entry through: the text after it is
    // still that entry's, deleted with it and never a separate entry.
    let a = entry("A", "before the rule\n\n---\n\nafter the rule");
    let base = file(&[&a, &entry("B", "b")]);
    let theirs = file(&[&entry("B", "b")]);
    let ours = file(&[&a, &entry("B", "b"), &entry("C", "c")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(text(&m), file(&[&entry("B", "b"), &entry("C", "c")]));
    assert!(!text(&m).contains("after the rule"));
}

#[test]
fn lines_compare_after_crlf_and_trailing_whitespace() {
    let base = file(&[&entry("A", "a\nsecond")]);
    let ours = base.replace("second", "second   ").replace('\n', "\r\n");
    let theirs = file(&[&entry("A", "a\nsecond"), &entry("B", "b")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean(), "{:?}", m.conflicts);
    // OURS' bytes kept (CRLF, trailing spaces), THEIRS' new entry appended once.
    assert!(text(&m).starts_with(&ours));
    assert_eq!(
        &text(&m)[ours.len()..],
        format!("\n---\n\n{}\n", entry("B", "b"))
    );
}

#[test]
fn entries_are_a_multiset() {
    let a = entry("A", "a");
    let base = file(&[&a, &a, &entry("B", "b")]);
    // THEIRS deletes one of the two copies; OURS adds C.
    let theirs = file(&[&a, &entry("B", "b")]);
    let ours = file(&[&a, &a, &entry("B", "b"), &entry("C", "c")]);
    let m = run(&base, &ours, &theirs);
    assert_eq!(titles(text(&m)), ["A", "B", "C"]);
    // An entry duplicated in the base and kept on both sides stays duplicated.
    let m = run(&base, &ours, &base);
    assert_eq!(titles(text(&m)), ["A", "A", "B", "C"]);
}

#[test]
fn the_heading_is_the_first_line_normalised() {
    // OURS added trailing spaces to the heading and changed the body: still an edit of A.
    let base = file(&[&entry("A", "old"), &entry("B", "b")]);
    let ours_a = entry("A", "new").replacen('\n', "  \n", 1);
    let ours = file(&[&ours_a, &entry("B", "b")]);
    let theirs = file(&[&entry("A", "old"), &entry("B", "b"), &entry("C", "c")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(
        text(&m),
        file(&[&ours_a, &entry("B", "b"), &entry("C", "c")])
    );
}

#[test]
fn result_is_ours_order_minus_theirs_deletions_plus_theirs_additions() {
    let (a, b, c) = (entry("A", "a"), entry("B", "b"), entry("C", "c"));
    let base = file(&[&a, &b, &c]);
    let ours = file(&[&c, &a, &b, &entry("O1", "o"), &entry("O2", "o")]);
    let theirs = file(&[&a, &c, &entry("T1", "t"), &entry("T2", "t")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert_eq!(titles(text(&m)), ["C", "A", "O1", "O2", "T1", "T2"]);
}

#[test]
fn unchanged_text_keeps_ours_bytes() {
    let base_text = "---\ncreated: 2026-01-10T09:00:00.123Z\ntype: knowledge\n---\n\n# Knowledge\n\n\n---\n\n## A\n**Type:** fact\n\na  \n\n\n---\n\n## B\nb\n";
    let theirs = file_with(base_text, &[&entry("C", "c")]);
    let m = run(base_text, base_text, &theirs);
    assert_eq!(text(&m), theirs);
    // Deleting B keeps every byte around A.
    let ours = base_text.to_string();
    let theirs = base_text.replace("\n\n\n---\n\n## B\nb", "");
    let m = run(base_text, &ours, &theirs);
    assert_eq!(text(&m), theirs);
}

#[test]
fn inserted_entries_are_written_as_learn_writes_them() {
    // Learning on both sides and merging gives what learning the same entries one after the
    // other on one branch gives, byte for byte.
    let base = HEAD.to_string();
    let mut ours = base.clone();
    let mut theirs = base.clone();
    let mut sequential = base.clone();
    let now = "2026-01-17T10:30:00Z";
    let e = |t: &str, c: &str| knowledge::new_entry("2026-01-17", t, "fact", "t", c).unwrap();
    for (t, c) in [("O1", "x"), ("O2", "```\ncode\n```")] {
        ours = knowledge::append(Some(&ours), &e(t, c), now);
        sequential = knowledge::append(Some(&sequential), &e(t, c), now);
    }
    let mut theirs_entries = Vec::new();
    for (t, c) in [("T1", "shared\nline"), ("T2", "```\ncode\n```")] {
        theirs = knowledge::append(Some(&theirs), &e(t, c), now);
        theirs_entries.push(e(t, c));
    }
    for entry in &theirs_entries {
        sequential = knowledge::append(Some(&sequential), entry, now);
    }
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(text(&m), sequential);
}

#[test]
fn a_rebase_holds_the_same_entries_as_a_merge() {
    let base = file(&[&entry("A", "a"), &entry("B", "b")]);
    let ours = file(&[&entry("A", "a2"), &entry("B", "b"), &entry("O", "o")]);
    let theirs = file(&[&entry("B", "b"), &entry("T", "t")]);
    let merged = run(&base, &ours, &theirs);
    let rebased = run(&base, &theirs, &ours);
    assert_eq!(
        multiset(&held(text(&merged))),
        multiset(&held(text(&rebased)))
    );
    assert_eq!(titles(text(&merged)), ["A", "B", "O", "T"]);
    // THEIRS' edit of A, which OURS deleted, comes in THEIRS' order with its new entries.
    assert_eq!(titles(text(&rebased)), ["B", "T", "A", "O"]);
}

#[test]
fn an_edit_on_theirs_lands_at_ours_position() {
    let base = file(&[&entry("A", "a"), &entry("B", "old"), &entry("C", "c")]);
    let ours = file(&[
        &entry("A", "a"),
        &entry("B", "old"),
        &entry("C", "c"),
        &entry("O", "o"),
    ]);
    let theirs = file(&[&entry("A", "a"), &entry("B", "new"), &entry("C", "c")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(
        text(&m),
        file(&[
            &entry("A", "a"),
            &entry("B", "new"),
            &entry("C", "c"),
            &entry("O", "o")
        ])
    );
}

#[test]
fn an_edit_on_ours_is_kept() {
    let base = file(&[&entry("A", "a"), &entry("B", "old")]);
    let ours = file(&[&entry("A", "a"), &entry("B", "new")]);
    let theirs = file(&[&entry("A", "a"), &entry("B", "old"), &entry("T", "t")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(
        text(&m),
        file(&[&entry("A", "a"), &entry("B", "new"), &entry("T", "t")])
    );
}

#[test]
fn the_same_edit_on_both_sides_is_clean() {
    let base = file(&[&entry("A", "old")]);
    let ours = file(&[&entry("A", "new")]);
    let theirs = file(&[&entry("A", "new  ")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(text(&m), ours);
}

#[test]
fn different_edits_on_both_sides_conflict_around_that_entry_only() {
    let base = file(&[&entry("A", "a"), &entry("B", "old"), &entry("C", "c")]);
    let ours = file(&[
        &entry("A", "a"),
        &entry("B", "ours"),
        &entry("C", "c"),
        &entry("O", "o"),
    ]);
    let theirs = file(&[
        &entry("A", "a"),
        &entry("B", "theirs"),
        &entry("C", "c"),
        &entry("T", "t"),
    ]);
    let m = run(&base, &ours, &theirs);
    assert_eq!(m.conflicts, [Conflict::Entry("## 2026-01-17 - B".into())]);
    assert_eq!(m.conflicted_entries(), ["## 2026-01-17 - B"]);
    let block = format!(
        "<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs",
        entry("B", "ours"),
        entry("B", "theirs")
    );
    assert_eq!(
        text(&m),
        file(&[
            &entry("A", "a"),
            &block,
            &entry("C", "c"),
            &entry("O", "o"),
            &entry("T", "t")
        ])
    );
}

#[test]
fn markers_are_n_characters() {
    let base = file(&[&entry("A", "old")]);
    let m = merge(
        Some(&base),
        &file(&[&entry("A", "ours")]),
        &file(&[&entry("A", "theirs")]),
        10,
    )
    .unwrap();
    let t = text(&m);
    assert!(t.contains("\n<<<<<<<<<< ours\n## 2026-01-17 - A\n"), "{t}");
    assert!(t.contains("\n==========\n## 2026-01-17 - A\n"), "{t}");
    assert!(t.ends_with("\n>>>>>>>>>> theirs\n"), "{t}");
}

#[test]
fn an_edit_against_a_delete_keeps_the_edit_and_warns() {
    let base = file(&[&entry("A", "old"), &entry("B", "b")]);
    let edited = file(&[&entry("A", "new"), &entry("B", "b")]);
    let deleted = file(&[&entry("B", "b")]);
    let m = run(&base, &edited, &deleted);
    assert!(m.is_clean());
    assert_eq!(text(&m), edited);
    assert_eq!(
        m.warnings,
        ["'## 2026-01-17 - A' was edited on ours and deleted on theirs: the edit is kept"]
    );
    let m = run(&base, &deleted, &edited);
    assert!(m.is_clean());
    assert_eq!(titles(text(&m)), ["B", "A"]);
    assert!(text(&m).contains("new"));
    assert_eq!(
        m.warnings,
        ["'## 2026-01-17 - A' was edited on theirs and deleted on ours: the edit is kept"]
    );
}

/// A successor as `learn --supersedes` writes it: its `**Supersedes:**` line after its fields.
fn successor(title: &str, of: &str, body: &str) -> String {
    format!(
        "## 2026-11-20 - {title}\n**Type:** fact\n**Topics:** t\n**Supersedes:** 2026-01-17 - {of}\n\n{body}"
    )
}

/// Issue 45: one side supersedes A (A leaves, its successor S is appended) while the other
/// edits A. "An edit beats a delete" would keep the edit and append S: A live and superseded.
/// It is a conflict on A instead — S and the edit between markers at S's place (OURS') or the
/// edit's (THEIRS'), S never appended besides — both ways.
#[test]
fn a_supersede_against_an_edit_is_a_conflict_on_that_entry_both_ways() {
    let s = successor("S", "A", "new");
    let base = file(&[&entry("A", "old"), &entry("B", "b")]);
    let superseded = file(&[&entry("B", "b"), &s]);
    let edited = file(&[&entry("A", "edited"), &entry("B", "b")]);

    let m = run(&base, &superseded, &edited);
    assert_eq!(m.conflicts, [Conflict::Entry("## 2026-01-17 - A".into())]);
    let block = format!(
        "<<<<<<< ours\n{s}\n=======\n{}\n>>>>>>> theirs",
        entry("A", "edited")
    );
    assert_eq!(text(&m), file(&[&entry("B", "b"), &block]));
    assert_eq!(
        m.warnings,
        [
            "'## 2026-01-17 - A' was superseded on ours (by '## 2026-11-20 - S') and edited on theirs: the successor and the entry are between conflict markers, never both kept — keep the successor (folding in what the entry says), or keep the entry and remove its superseded copy from .megg/archive/"
        ]
    );

    let m = run(&base, &edited, &superseded);
    assert_eq!(m.conflicts, [Conflict::Entry("## 2026-01-17 - A".into())]);
    let block = format!(
        "<<<<<<< ours\n{}\n=======\n{s}\n>>>>>>> theirs",
        entry("A", "edited")
    );
    assert_eq!(text(&m), file(&[&block, &entry("B", "b")]));
    assert_eq!(
        m.warnings,
        [
            "'## 2026-01-17 - A' was superseded on theirs (by '## 2026-11-20 - S') and edited on ours: the successor and the entry are between conflict markers, never both kept — keep the successor (folding in what the entry says), or keep the entry and remove its superseded copy from .megg/archive/"
        ]
    );
}

/// A supersede against a side that left the entry alone, or deleted it, is clean: the entry
/// goes, its successor stays. Only a successor naming the entry makes a delete a supersede: a
/// plain delete against an edit keeps the edit, as ever.
#[test]
fn a_supersede_against_no_edit_is_clean_and_a_plain_delete_still_loses_to_an_edit() {
    let s = successor("S", "A", "new");
    let base = file(&[&entry("A", "old"), &entry("B", "b")]);
    let superseded = file(&[&entry("B", "b"), &s]);
    for other in [base.clone(), file(&[&entry("B", "b")])] {
        for m in [
            run(&base, &superseded, &other),
            run(&base, &other, &superseded),
        ] {
            assert!(m.is_clean(), "{:?}", m.conflicts);
            assert_eq!(titles(text(&m)), ["B", "S"]);
        }
    }
    // A successor naming another entry (or another day) is no supersede of A.
    let edited = file(&[&entry("A", "edited"), &entry("B", "b")]);
    for named in [
        successor("S", "Z", "new"),
        s.replace("2026-01-17 - A", "2026-01-18 - A"),
    ] {
        let m = run(&base, &file(&[&entry("B", "b"), &named]), &edited);
        assert!(m.is_clean(), "{:?}", m.conflicts);
        assert_eq!(titles(text(&m)), ["B", "S", "A"]);
    }
}

/// With no base (`megg resolve` on committed markers, both sides creating the file), a
/// successor on one side and the entry it names on the other are a conflict, never both kept.
#[test]
fn with_no_base_a_successor_against_the_entry_it_names_is_a_conflict_both_ways() {
    let s = successor("S", "a", "new");
    let superseded = file(&[&entry("B", "b"), &s]);
    let holds = file(&[&entry("A", "edited"), &entry("B", "b")]);
    let m = merge(None, &superseded, &holds, DEFAULT_MARKER_SIZE).unwrap();
    assert_eq!(m.conflicts, [Conflict::Entry("## 2026-01-17 - A".into())]);
    assert_eq!(held(text(&m)).len(), 3, "{}", text(&m));
    assert!(text(&m).contains(&format!(
        "<<<<<<< ours\n{s}\n=======\n{}\n>>>>>>> theirs",
        entry("A", "edited")
    )));
    let m = merge(None, &holds, &superseded, DEFAULT_MARKER_SIZE).unwrap();
    assert_eq!(m.conflicts, [Conflict::Entry("## 2026-01-17 - A".into())]);
    assert!(text(&m).contains(&format!(
        "<<<<<<< ours\n{}\n=======\n{s}\n>>>>>>> theirs",
        entry("A", "edited")
    )));
    assert_eq!(text(&m).matches("## 2026-11-20 - S").count(), 1);
    // Both sides holding the successor, or the side of the successor still holding the entry:
    // the union, as ever.
    let both = file(&[&entry("A", "edited"), &entry("B", "b"), &s]);
    for (o, t) in [(&superseded, &both), (&both, &superseded), (&both, &holds)] {
        assert!(merge(None, o, t, DEFAULT_MARKER_SIZE).unwrap().is_clean());
    }
}

#[test]
fn a_heading_not_unique_in_the_base_is_a_delete_plus_an_add() {
    let base = file(&[&entry("A", "one"), &entry("A", "two")]);
    let ours = file(&[&entry("A", "one"), &entry("A", "two"), &entry("O", "o")]);
    let theirs = file(&[&entry("A", "one"), &entry("A", "changed")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    // Not an edit: "two" is deleted where it was, "changed" appended at the end.
    assert_eq!(
        text(&m),
        file(&[&entry("A", "one"), &entry("O", "o"), &entry("A", "changed")])
    );
}

#[test]
fn a_heading_added_twice_on_a_side_is_a_delete_plus_adds() {
    let base = file(&[&entry("A", "old"), &entry("B", "b")]);
    let ours = file(&[&entry("A", "ours"), &entry("B", "b")]);
    let theirs = file(&[
        &entry("A", "first"),
        &entry("B", "b"),
        &entry("A", "second"),
    ]);
    let m = run(&base, &ours, &theirs);
    // THEIRS did not edit A, it replaced it with two entries: no conflict, all three kept.
    assert!(m.is_clean());
    assert_eq!(
        text(&m),
        file(&[
            &entry("A", "ours"),
            &entry("B", "b"),
            &entry("A", "first"),
            &entry("A", "second")
        ])
    );
}

#[test]
fn the_same_entry_added_on_both_sides_is_kept_once() {
    let base = file(&[&entry("A", "a")]);
    let ours = file(&[&entry("A", "a"), &entry("N", "same")]);
    let theirs = file(&[&entry("A", "a"), &entry("T", "t"), &entry("N", "same")]);
    let m = run(&base, &ours, &theirs);
    assert_eq!(titles(text(&m)), ["A", "N", "T"]);
}

#[test]
fn different_entries_with_one_heading_are_both_kept() {
    let base = file(&[&entry("A", "a")]);
    let ours = file(&[&entry("A", "a"), &entry("N", "ours")]);
    let theirs = file(&[&entry("A", "a"), &entry("N", "theirs")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(
        text(&m),
        file(&[&entry("A", "a"), &entry("N", "ours"), &entry("N", "theirs")])
    );
}

#[test]
fn deletions_are_honoured_archive_against_learn() {
    let (a, b, c) = (entry("A", "a"), entry("B", "b"), entry("C", "c"));
    let base = file(&[&a, &b, &c]);
    // THEIRS archived A and B; OURS learned D and deleted C.
    let theirs = file(&[&c]);
    let ours = file(&[&a, &b, &entry("D", "d")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert_eq!(text(&m), file(&[&entry("D", "d")]));
    // A deletion on both sides stays a deletion.
    let m = run(&base, &theirs, &theirs);
    assert_eq!(text(&m), theirs);
}

#[test]
fn created_is_the_earliest_and_updated_the_latest_compared_as_times() {
    let head = |created: &str, updated: &str| {
        format!(
            "---\ncreated: {created}\nupdated: {updated}\ntype: knowledge\n---\n\n# Knowledge\n"
        )
    };
    let base = file_with(&head("2026-01-10T09:00:00Z", "2026-01-10T09:00:00Z"), &[]);
    // As text "2026-01-17T12:00:00+02:00" sorts after "2026-01-17T11:00:00Z"; as times it is
    // earlier. Each winner keeps its own spelling.
    let ours = file_with(
        &head("2026-01-09T00:00:00.000Z", "2026-01-17T12:00:00+02:00"),
        &[&entry("O", "o")],
    );
    let theirs = file_with(
        &head("2026-01-09T01:00:00+02:00", "2026-01-17T11:00:00Z"),
        &[&entry("T", "t")],
    );
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert!(
        text(&m).starts_with(&head("2026-01-09T01:00:00+02:00", "2026-01-17T11:00:00Z")),
        "{}",
        text(&m)
    );
    let m = run(&base, &theirs, &ours);
    assert!(text(&m).starts_with(&head("2026-01-09T01:00:00+02:00", "2026-01-17T11:00:00Z")));
}

#[test]
fn a_time_only_one_side_holds_merges_three_way() {
    let fm =
        |created: &str| format!("---\ncreated: {created}\ntype: knowledge\n---\n\n# Knowledge\n");
    let base = fm("2026-01-10T09:00:00Z");
    // THEIRS wrote something that is not a time; OURS kept the base's: THEIRS changed it.
    let m = run(&base, &base, &fm("soon"));
    assert_eq!(text(&m), fm("soon"));
    // Changed on both sides, one not a time: OURS, with a warning.
    let m = run(&base, &fm("2026-01-01T00:00:00Z"), &fm("soon"));
    assert_eq!(text(&m), fm("2026-01-01T00:00:00Z"));
    assert_eq!(
        m.warnings,
        ["frontmatter `created` changed differently on both sides: kept ours"]
    );
}

#[test]
fn other_frontmatter_keys_merge_three_way() {
    let fm = |extra: &str| {
        format!("---\ncreated: 2026-01-10T09:00:00Z\ntype: knowledge\n{extra}---\n\n# Knowledge\n")
    };
    let base = fm("owner: team\ngone: x\n");
    // THEIRS changed `owner`, removed `gone`, added `new` (with a continuation line).
    let theirs = fm("owner: platform\nnew:\n  - a\n");
    let ours = fm("owner: team\ngone: x\n# a comment of ours\n");
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert_eq!(
        text(&m),
        fm("owner: platform\n# a comment of ours\nnew:\n  - a\n")
    );
    // Changed differently on both sides: OURS, with a warning.
    let ours = fm("owner: infra\ngone: x\n");
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    assert!(text(&m).contains("owner: infra\n"));
    assert_eq!(
        m.warnings,
        ["frontmatter `owner` changed differently on both sides: kept ours"]
    );
}

#[test]
fn the_preamble_merges_three_way_as_one_block() {
    let a = entry("A", "a");
    let base = file_with("---\ntype: knowledge\n---\n\n# Knowledge\n", &[&a]);
    let changed = file_with(
        "---\ntype: knowledge\n---\n\n# Knowledge\n\nTeam rules first.\n",
        &[&a],
    );
    // Blank lines around the preamble are no change.
    let spaced = file_with("---\ntype: knowledge\n---\n\n\n# Knowledge   \n\n\n", &[&a]);
    let m = run(&base, &spaced, &changed);
    assert!(m.is_clean());
    // THEIRS' preamble in OURS' file: OURS' spacing after it.
    assert_eq!(
        text(&m),
        format!(
            "---\ntype: knowledge\n---\n\n# Knowledge\n\nTeam rules first.\n\n\n\n---\n\n{a}\n"
        )
    );
    let m = run(&base, &changed, &spaced);
    assert_eq!(text(&m), changed);
}

#[test]
fn preambles_changed_differently_conflict_around_the_preamble() {
    let a = entry("A", "a");
    let base = file_with("---\ntype: knowledge\n---\n\n# Knowledge\n", &[&a]);
    let ours = file_with("---\ntype: knowledge\n---\n\n# Our knowledge\n", &[&a]);
    let theirs = file_with(
        "---\ntype: knowledge\n---\n\n# Their knowledge\n",
        &[&a, &entry("T", "t")],
    );
    let m = run(&base, &ours, &theirs);
    assert_eq!(m.conflicts, [Conflict::Preamble]);
    assert_eq!(
        text(&m),
        file_with(
            "---\ntype: knowledge\n---\n\n<<<<<<< ours\n# Our knowledge\n=======\n# Their knowledge\n>>>>>>> theirs\n",
            &[&a, &entry("T", "t")]
        )
    );
}

#[test]
fn no_base_is_the_union_with_ours_frontmatter_and_preamble() {
    let ours = file_with(
        "---\ncreated: 2026-01-12T00:00:00Z\nupdated: 2026-01-12T00:00:00Z\ntype: knowledge\n---\n\n# Knowledge\n",
        &[&entry("O", "o"), &entry("Same", "s")],
    );
    let theirs = file_with(
        "---\ncreated: 2026-01-11T00:00:00Z\nupdated: 2026-01-11T00:00:00Z\ntype: knowledge\nowner: them\n---\n\n# Their Knowledge\n",
        &[&entry("Same", "s"), &entry("T", "t")],
    );
    for base in [None, Some(""), Some("\n")] {
        let m = merge(base, &ours, &theirs, 7).unwrap();
        assert!(m.is_clean());
        assert_eq!(titles(text(&m)), ["O", "Same", "T"]);
        assert!(text(&m).starts_with(
            "---\ncreated: 2026-01-11T00:00:00Z\nupdated: 2026-01-12T00:00:00Z\ntype: knowledge\n---\n\n# Knowledge\n"
        ), "{}", text(&m));
        assert_eq!(
            m.warnings,
            [
                "no common version: kept ours' frontmatter `owner` (theirs differs)",
                "no common version: kept ours' preamble (the text before the first entry; theirs differs)"
            ]
        );
    }
    // Both sides' first learn on a new file: the union, no warning.
    let one = knowledge::append(
        None,
        &knowledge::new_entry("2026-01-17", "A", "fact", "t", "a").unwrap(),
        "2026-01-17T10:00:00Z",
    );
    let two = knowledge::append(
        None,
        &knowledge::new_entry("2026-01-18", "B", "fact", "t", "b").unwrap(),
        "2026-01-18T10:00:00Z",
    );
    let m = merge(None, &one, &two, 7).unwrap();
    assert!(m.is_clean() && m.warnings.is_empty(), "{:?}", m.warnings);
    assert_eq!(titles(text(&m)), ["A", "B"]);
    assert!(
        text(&m).starts_with("---\ncreated: 2026-01-17T10:00:00Z\nupdated: 2026-01-18T10:00:00Z\n")
    );
}

#[test]
fn never_aligns_dedups_or_reorders_lines_inside_an_entry() {
    // Bodies that share lines and fences: a line merge would keep the shared lines once.
    let fenced = |s: &str| {
        entry(
            s,
            &format!(
                "Use this:\n\n```sh\nmake test\n```\n\n```sh\nmake test\n```\nshared line\nshared line\n{s}"
            ),
        )
    };
    let base = file(&[&fenced("A")]);
    let ours = file(&[&fenced("A"), &fenced("B"), &fenced("C")]);
    let theirs = file(&[&fenced("A"), &fenced("D"), &fenced("E")]);
    let m = run(&base, &ours, &theirs);
    assert!(m.is_clean());
    let expected = file(&[
        &fenced("A"),
        &fenced("B"),
        &fenced("C"),
        &fenced("D"),
        &fenced("E"),
    ]);
    assert_eq!(text(&m), expected);
}

#[test]
fn an_entry_that_comes_first_under_a_new_preamble_keeps_its_separator() {
    let a = entry("A", "a");
    let base = format!("---\ntype: knowledge\n---\n{a}\n");
    let theirs = format!("---\ntype: knowledge\n---\n# Knowledge\n\n---\n\n{a}\n");
    let m = run(&base, &base, &theirs);
    assert_eq!(
        text(&m),
        format!("---\ntype: knowledge\n---\n# Knowledge\n\n---\n\n{a}\n")
    );
    assert_eq!(titles(text(&m)), ["A"]);
}

#[test]
fn archive_files_merge_by_entry() {
    let head = "---\ncreated: 2026-01-10T09:00:00Z\nupdated: 2026-01-10T09:00:00Z\ntype: knowledge-archive\n---\n\n# Knowledge archive 2025\n";
    let ours = file_with(head, &[&entry("A", "a")]);
    let theirs = file_with(head, &[&entry("B", "b")]);
    let m = merge_knowledge(
        None,
        ours.as_bytes(),
        theirs.as_bytes(),
        "x/.megg/archive/knowledge-2025.md",
        7,
    );
    assert!(m.is_clean());
    assert_eq!(
        text(&m),
        file_with(head, &[&entry("A", "a"), &entry("B", "b")])
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// What a side does to one base entry.
    #[derive(Debug, Clone)]
    enum Fate {
        Keep,
        Delete,
        Edit(String),
    }

    fn body() -> impl Strategy<Value = String> {
        // Lines entries share (rules, fences, field-like lines) so a line merge would fail.
        let line = prop::sample::select(vec![
            "shared line",
            "```",
            "cargo test",
            "**Type:** fact",
            "",
            "- item",
            "***",
            "created: 2026-01-01",
        ]);
        (prop::collection::vec(line, 1..5), 0u8..20).prop_map(|(lines, n)| {
            let mut s = lines.join("\n");
            s.push_str(&format!("\nnote {n}"));
            s
        })
    }

    fn an_entry() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec!["Alpha", "Beta", "Gamma", "Delta"]),
            body(),
        )
            .prop_map(|(t, b)| entry(t, &b))
    }

    fn fate() -> impl Strategy<Value = Fate> {
        prop_oneof![
            3 => Just(Fate::Keep),
            1 => Just(Fate::Delete),
            1 => body().prop_map(Fate::Edit),
        ]
    }

    /// A side: the base's entries with their fates, plus new entries inserted anywhere.
    fn side(base: &[String], fates: &[Fate], added: &[(usize, String)]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (e, f) in base.iter().zip(fates) {
            match f {
                Fate::Keep => out.push(e.clone()),
                Fate::Delete => {}
                Fate::Edit(b) => {
                    let heading = e.lines().next().unwrap_or("");
                    let title = heading.trim_start_matches("## 2026-01-17 - ");
                    out.push(entry(title, b));
                }
            }
        }
        for (at, e) in added {
            let at = at % (out.len() + 1);
            out.insert(at, e.clone());
        }
        out
    }

    fn counts(entries: &[String]) -> BTreeMap<String, usize> {
        multiset(
            &entries
                .iter()
                .map(|e| knowledge::normalized(e))
                .collect::<Vec<_>>(),
        )
    }

    /// Text made of the pieces a knowledge file is made of, in any order.
    fn knowledgeish() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "---\n",
            "---\r\n",
            "\n",
            "  \n",
            "## A\n",
            "## B  \n",
            "# Knowledge\n",
            "created: 2026-01-01T00:00:00Z\n",
            "updated: x\n",
            "body\n",
            "<<<<<<< ours\n",
            "=======\n",
            "```\n",
            "\u{feff}",
            "**Type:** fact\n",
            "no newline",
            // What people write (SPEC §16): bold words in any script, emoji with joiners,
            // combining marks, RTL, CJK, tables.
            "**Café** is spelled with an accent.\n",
            "**注意** 本番では使わない。\n",
            "**⚠️ Important**\n",
            "## 2026-11-20 - Ñandú 👩‍💻\n",
            "e\u{301}\u{301} שלום عربي\r\n",
            "| 列 | é |\n|---|---|\n",
            "**Tÿpe:** fact\n",
            "**Topics:** 日本, ü\n",
        ]);
        prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_input_merges_without_panicking_and_keeps_ours_when_theirs_changed_nothing(
            base in knowledgeish(),
            ours in knowledgeish(),
            theirs in knowledgeish(),
            size in 1usize..12,
        ) {
            let m = merge_knowledge(Some(base.as_bytes()), ours.as_bytes(), theirs.as_bytes(), PATH, size);
            let _ = std::str::from_utf8(&m.bytes);
            // THEIRS changed nothing: everything after the frontmatter (whose times still go
            // to the earliest and latest) is OURS, byte for byte.
            let m = merge_knowledge(Some(base.as_bytes()), ours.as_bytes(), base.as_bytes(), PATH, size);
            if m.is_clean() {
                let body = |t: &str| crate::frontmatter::split(t).body.to_string();
                prop_assert_eq!(body(text(&m)), body(&ours));
            }
        }

        #[test]
        fn nothing_lost_nothing_duplicated_and_symmetric(
            base in prop::collection::vec(an_entry(), 0..6),
            fates_a in prop::collection::vec(fate(), 6),
            fates_b in prop::collection::vec(fate(), 6),
            added_a in prop::collection::vec((0usize..8, an_entry()), 0..4),
            added_b in prop::collection::vec((0usize..8, an_entry()), 0..4),
            crlf in any::<bool>(),
        ) {
            let a = side(&base, &fates_a, &added_a);
            let b = side(&base, &fates_b, &added_b);
            let refs = |v: &[String]| file(&v.iter().map(String::as_str).collect::<Vec<_>>());
            let (base_text, a_text) = (refs(&base), refs(&a));
            let b_text = if crlf { refs(&b).replace('\n', "\r\n") } else { refs(&b) };
            let ab = run(&base_text, &a_text, &b_text);
            let ba = run(&base_text, &b_text, &a_text);
            let (held_ab, held_ba) = (multiset(&held(text(&ab))), multiset(&held(text(&ba))));
            prop_assert_eq!(&held_ab, &held_ba, "merge(O,A,B) and merge(O,B,A) differ");

            let (cb, ca, cc) = (counts(&base), counts(&a), counts(&b));
            let n = |m: &BTreeMap<String, usize>, k: &str| m.get(k).copied().unwrap_or(0);
            let mut all: Vec<&String> = cb.keys().chain(ca.keys()).chain(cc.keys()).collect();
            all.sort();
            all.dedup();
            for k in all {
                let (o, x, y, r) = (n(&cb, k), n(&ca, k), n(&cc, k), n(&held_ab, k));
                // Present on a side and not deleted by the other: kept.
                if (x > 0 && y >= o) || (y > 0 && x >= o) {
                    prop_assert!(r >= 1, "lost {k:?}: base {o}, a {x}, b {y}");
                }
                // Added on a side: kept.
                if x > o || y > o {
                    prop_assert!(r > o.min(x).min(y), "lost an addition of {k:?}");
                }
                // Never more copies than either side holds.
                prop_assert!(r <= x.max(y), "duplicated {k:?}: base {o}, a {x}, b {y}, merged {r}");
                prop_assert_eq!(r, target(o, x, y), "{:?}", k);
            }
            // A conflict is only ever an entry both sides edited differently.
            for c in &ab.conflicts {
                prop_assert!(matches!(c, Conflict::Entry(_)), "{:?}", c);
            }
        }
    }
}
