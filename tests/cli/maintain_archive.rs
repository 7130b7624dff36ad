//! `megg maintain --archive-before DATE` on a large file (issue 38 item 7): one line per
//! archived entry, then a summary (how many, to which file, how many tokens remain);
//! `--quiet` prints the summary alone. The titles people write survive either way.

use crate::Project;

/// Titles in the languages and symbols people write.
const TITLES: [&str; 4] = [
    "決定: 認証は httpOnly クッキー",
    "배포 전에 캐시 비우기 🚀",
    "Ünïcødé café — naïve façade",
    "👩🏽‍💻 pair on the 支付 flow",
];

/// A domain whose knowledge holds `old` entries dated 2024 (cycling through [`TITLES`]) and
/// one dated 2026.
fn large(old: usize) -> Project {
    let p = Project::new();
    p.domain("", "Shop");
    let mut text = String::from(
        "---\ncreated: 2024-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\ntype: knowledge\n---\n\n# Knowledge\n",
    );
    for i in 0..old {
        let title = TITLES[i % TITLES.len()];
        let day = i % 28 + 1;
        text.push_str(&format!(
            "\n---\n\n## 2024-03-{day:02} - {title} #{i}\n**Type:** fact\n**Topics:** t\n\nBody {i}.\n"
        ));
    }
    text.push_str(
        "\n---\n\n## 2026-06-01 - 最近の決定 ✅\n**Type:** fact\n**Topics:** t\n\nstays\n",
    );
    p.write(".megg/knowledge.md", text);
    p
}

fn remaining_tokens(p: &Project) -> u64 {
    p.json("", &["maintain", "--json"])["domains"][0]["tokens"]
        .as_u64()
        .unwrap()
}

/// The summary `p` should end with once its 2024 entries are archived.
fn summary(p: &Project, moved: &str) -> String {
    format!(
        "Archived {moved} entries to {}; {} tokens remain in {} (1 entry)",
        p.path(".megg/archive/knowledge-2024.md").display(),
        remaining_tokens(p),
        p.path(".megg/knowledge.md").display()
    )
}

#[test]
fn archive_ends_with_a_summary_and_quiet_prints_only_it() {
    let p = large(1_200);
    let out = p.ok("", &["maintain", "--archive-before", "2026-01-01"]);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("archived: ")).count(),
        1_200,
        "every entry is still named without --quiet"
    );
    let expected = summary(&p, "1,200");
    assert!(
        out.lines().any(|l| l == expected),
        "{expected:?} in:\n{out}"
    );
    // The titles people wrote survive, in what is printed and in the archive.
    let archive = p.read(".megg/archive/knowledge-2024.md");
    for (i, title) in TITLES.iter().enumerate() {
        assert!(
            out.contains(&format!("archived: 2024-03-{:02} {title} #{i} → ", i + 1)),
            "{title}"
        );
        assert!(archive.contains(&format!("## 2024-03-{:02} - {title} #{i}\n", i + 1)));
    }
    assert!(
        p.read(".megg/knowledge.md")
            .contains("## 2026-06-01 - 最近の決定 ✅")
    );

    let p = large(1_200);
    let out = p.ok(
        "",
        &["maintain", "--archive-before", "2026-01-01", "--quiet"],
    );
    assert_eq!(
        out,
        format!("{}\n", summary(&p, "1,200")),
        "only the summary"
    );
    assert_eq!(p.read(".megg/archive/knowledge-2024.md"), archive);
}

#[test]
fn quiet_archive_across_years_and_with_nothing_to_move() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(
        ".megg/knowledge.md",
        "---\ntype: knowledge\n---\n\n# Knowledge\n\n---\n\n## 2024-05-01 - 古い 🐢\n**Type:** fact\n**Topics:** t\n\nold\n\n---\n\n## 2025-05-01 - Older ☕\n**Type:** fact\n**Topics:** t\n\nold\n",
    );
    let out = p.ok(
        "",
        &["maintain", "--archive-before", "2026-01-01", "--quiet"],
    );
    let archive = p.path(".megg/archive");
    assert_eq!(
        out,
        format!(
            "Archived 2 entries to {}/knowledge-2024.md and knowledge-2025.md; {} tokens remain in {} (0 entries)\n",
            archive.display(),
            remaining_tokens(&p),
            p.path(".megg/knowledge.md").display()
        )
    );
    assert!(
        p.read(".megg/archive/knowledge-2024.md")
            .contains("## 2024-05-01 - 古い 🐢")
    );
    assert!(
        p.read(".megg/archive/knowledge-2025.md")
            .contains("## 2025-05-01 - Older ☕")
    );
    // A second run has nothing left to move, and says so in one line.
    let out = p.ok(
        "",
        &["maintain", "--archive-before", "2026-01-01", "--quiet"],
    );
    assert_eq!(
        out,
        "Archived nothing: no entry is dated before 2026-01-01\n"
    );
}

#[test]
fn quiet_needs_archive_before() {
    let p = Project::new();
    p.domain("", "Shop");
    let out = p.run("", &["maintain", "--quiet"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--archive-before"));
}
