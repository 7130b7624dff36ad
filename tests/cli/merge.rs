//! `megg merge-driver` run by the real `git` CLI (SPEC §11): merges and rebases of knowledge
//! learned on two branches, edit/edit, archive against learn, no common version, and the
//! fallback for a file that is not megg's. The driver is registered by hand here, as `megg
//! setup` registers it; git is isolated from the machine's configuration.

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::Project;

/// A repository shared by alice and bob, on branch `main`.
pub(crate) struct Team {
    pub(crate) p: Project,
    home: tempfile::TempDir,
}

impl Team {
    /// A repository with `megg init` committed; with the driver registered when `driver`.
    pub(crate) fn new(driver: bool) -> Self {
        let t = Self {
            p: Project::new(),
            home: tempfile::tempdir().unwrap(),
        };
        t.git(&["init", "-q", "-b", "main"]);
        if driver {
            t.p.write(
                ".gitattributes",
                "# megg: merge knowledge entry by entry (megg merge-driver)\n**/.megg/knowledge.md merge=megg\n**/.megg/archive/*.md merge=megg\n",
            );
            t.register();
        }
        t.p.ok("", &["init", "--info", "# Shop\n\nA team project."]);
        t.commit("init");
        t
    }

    pub(crate) fn register(&self) {
        let megg = assert_cmd::cargo::cargo_bin("megg");
        self.git(&["config", "merge.megg.name", "megg knowledge entries"]);
        self.git(&[
            "config",
            "merge.megg.driver",
            &format!(
                "'{}' merge-driver --marker-size %L %O %A %B %P",
                megg.display()
            ),
        ]);
    }

    pub(crate) fn root(&self) -> &Path {
        self.p.root()
    }

    /// git in the repository, isolated from the user's and the system's configuration.
    pub(crate) fn run_git(&self, args: &[&str]) -> Output {
        crate::git_cli(self.root(), self.home.path())
            .args(args)
            .output()
            .unwrap()
    }

    pub(crate) fn git(&self, args: &[&str]) -> String {
        let out = self.run_git(args);
        assert!(
            out.status.success(),
            "git {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn commit(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
    }

    /// `megg learn` at `now`, committed; returns the entry as it must read back.
    pub(crate) fn learn(
        &self,
        now: &str,
        title: &str,
        kind: &str,
        topics: &str,
        content: &str,
    ) -> String {
        let out = self
            .p
            .megg("")
            .env("MEGG_NOW", now)
            .args(["learn", title, kind, topics, content])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.commit(&format!("learn {title}"));
        format!(
            "## {} - {title}\n**Type:** {kind}\n**Topics:** {topics}\n\n{}",
            &now[..10],
            content.trim_end()
        )
    }

    pub(crate) fn knowledge(&self) -> String {
        self.p.read(".megg/knowledge.md")
    }
}

/// The entries the TypeScript megg v1.1 reads (`parseKnowledge`): the text split on
/// `\n---\n`, the frontmatter and `# Knowledge` blocks skipped, each block whose first line
/// is a `## [date -] title` header an entry — returned trimmed, as its `raw`.
pub(crate) fn ts_entries(text: &str) -> Vec<String> {
    text.split("\n---\n")
        .filter(|b| !b.trim().is_empty())
        .filter(|b| !(b.trim().starts_with("---") || b.contains("created:") && b.contains("type:")))
        .filter(|b| !(b.trim().starts_with("# Knowledge") && b.trim().split('\n').count() <= 2))
        .filter(|b| {
            let lines: Vec<&str> = b.trim().split('\n').collect();
            let header = lines[0]
                .strip_prefix("##")
                .filter(|r| r.starts_with(char::is_whitespace))
                .map(str::trim);
            lines.len() >= 2 && header.is_some_and(|h| !h.is_empty())
        })
        .map(|b| b.trim().to_string())
        .collect()
}

pub(crate) fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

pub(crate) fn markers(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("<<<<<<<")).count()
}

/// Bodies that share lines, a rule and a code fence: what a line-level merge aligns and drops.
pub(crate) fn content(who: &str, i: usize) -> String {
    format!(
        "Run the checks before pushing.\n\n```sh\ncargo test --all\n```\n\n***\n\nRun the checks before pushing.\n{who} learned this in step {i}."
    )
}

/// main: three learnings; alice and bob: ten each, one heading shared by both (different
/// texts). Returns (base, alice's, bob's) entries.
pub(crate) fn ten_each(t: &Team) -> (Vec<String>, Vec<String>, Vec<String>) {
    ten_each_with(t, content, true)
}

fn ten_each_with(
    t: &Team,
    content: impl Fn(&str, usize) -> String,
    shared_heading: bool,
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let base: Vec<String> = (0..3)
        .map(|i| {
            t.learn(
                &format!("2026-11-0{}T09:00:00Z", i + 1),
                &format!("Base rule {i}"),
                "rule",
                "ci",
                &content("main", i),
            )
        })
        .collect();
    t.git(&["branch", "bob"]);
    t.git(&["checkout", "-q", "-b", "alice"]);
    let branch = |who: &str, hour: u32, kinds: [&str; 2]| -> Vec<String> {
        (0..10)
            .map(|i| {
                let title = if i == 9 && shared_heading {
                    "Release checklist".to_string()
                } else {
                    format!("{who} finding {i}")
                };
                t.learn(
                    &format!("2026-11-{:02}T{hour:02}:00:00Z", 10 + i),
                    &title,
                    kinds[i % 2],
                    &format!("ci, {who}"),
                    &content(who, i),
                )
            })
            .collect()
    };
    let alice = branch("alice", 10, ["gotcha", "pattern"]);
    t.git(&["checkout", "-q", "bob"]);
    let bob = branch("bob", 15, ["decision", "fact"]);
    (base, alice, bob)
}

#[test]
fn ten_learnings_on_each_branch_merge_and_rebase_without_conflict() {
    let t = Team::new(true);
    let (base, alice, bob) = ten_each(&t);
    let expected = sorted([base.clone(), alice.clone(), bob.clone()].concat());
    assert_eq!(expected.len(), 23);

    t.git(&["checkout", "-q", "-b", "merged", "alice"]);
    let out = t.run_git(&["merge", "--no-edit", "bob"]);
    assert!(
        out.status.success(),
        "git merge: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = t.knowledge();
    assert_eq!(markers(&merged), 0);
    // Every entry exactly once, byte for byte, as the TypeScript megg reads them.
    assert_eq!(sorted(ts_entries(&merged)), expected);
    // OURS' order, then THEIRS' new entries in THEIRS' order.
    assert_eq!(
        ts_entries(&merged),
        [base.clone(), alice.clone(), bob.clone()].concat()
    );
    // What megg itself loads.
    let v = t.p.json("", &["maintain", "--json"]);
    assert_eq!(v["domains"][0]["entries"], 23);

    // Rebasing bob onto alice replays ten commits, each merged by the driver.
    t.git(&["checkout", "-q", "bob"]);
    let out = t.run_git(&["rebase", "alice"]);
    assert!(
        out.status.success(),
        "git rebase: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let rebased = t.knowledge();
    assert_eq!(markers(&rebased), 0);
    assert_eq!(sorted(ts_entries(&rebased)), expected);
    assert_eq!(ts_entries(&rebased), [base, alice, bob].concat());
}

/// Without the driver git's line merge sees every append at the same end of the file: a
/// visible conflict, never a silent union — and, now that `learn` leaves the frontmatter
/// alone, one hunk at the end of the file for entries that share no lines (two before: the
/// `updated:` line at the top conflicted too).
#[test]
fn without_the_driver_the_same_learnings_conflict() {
    for shared_lines in [false, true] {
        let t = Team::new(false);
        let (base, _, _) = if shared_lines {
            ten_each(&t)
        } else {
            ten_each_with(
                &t,
                |who, i| format!("{who} learned this in step {i}."),
                false,
            )
        };
        t.git(&["checkout", "-q", "alice"]);
        let out = t.run_git(&["merge", "--no-edit", "bob"]);
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("CONFLICT (content)"));
        let text = t.knowledge();
        let hunks = markers(&text);
        // Nothing above the last common entry is in conflict: the frontmatter is untouched.
        let last_base = text.find(base[2].as_str()).unwrap();
        assert!(text.find("<<<<<<<").unwrap() > last_base, "{text}");
        // Entries that share lines (rules, fences) split it into more hunks: 12 here.
        if shared_lines {
            assert!(hunks > 1, "{hunks}");
        } else {
            assert_eq!(hunks, 1, "{text}");
        }
    }
}

#[test]
fn an_entry_edited_on_both_branches_is_one_hunk_around_that_entry() {
    let t = Team::new(true);
    let base: Vec<String> = ["Use JWT", "Retry uploads", "Staging resets"]
        .iter()
        .enumerate()
        .map(|(i, title)| {
            t.learn(
                &format!("2026-11-0{}T09:00:00Z", i + 1),
                title,
                "decision",
                "auth",
                &content("main", i),
            )
        })
        .collect();
    t.git(&["branch", "bob"]);
    t.git(&["checkout", "-q", "-b", "alice"]);
    let edit = |from: &str, to: &str| {
        let text = t.knowledge().replacen(from, to, 1);
        t.p.write(".megg/knowledge.md", text);
        t.commit("edit");
    };
    let retry_body = "main learned this in step 1.";
    edit(retry_body, "Retry 3 times, alice says.");
    let a = t.learn("2026-11-10T10:00:00Z", "Alice new", "fact", "x", "a");
    t.git(&["checkout", "-q", "bob"]);
    edit(retry_body, "Retry 5 times, bob says.");
    let b = t.learn("2026-11-10T15:00:00Z", "Bob new", "fact", "x", "b");
    t.git(&["checkout", "-q", "alice"]);
    let out = t.run_git(&["merge", "--no-edit", "bob"]);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("CONFLICT (content): Merge conflict in .megg/knowledge.md"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("both sides edited '## 2026-11-02 - Retry uploads' differently"),
        "{stderr}"
    );

    let text = t.knowledge();
    assert_eq!(markers(&text), 1);
    let start = text.find("<<<<<<< ours\n").unwrap();
    let end = text.find(">>>>>>> theirs\n").unwrap() + ">>>>>>> theirs\n".len();
    let ours_side = base[1].replace(retry_body, "Retry 3 times, alice says.");
    let theirs_side = base[1].replace(retry_body, "Retry 5 times, bob says.");
    assert_eq!(
        &text[start..end],
        format!("<<<<<<< ours\n{ours_side}\n=======\n{theirs_side}\n>>>>>>> theirs\n")
    );
    // Everything else merged: both new entries once, the other base entries untouched.
    let outside = format!("{}{}", &text[..start], &text[end..]);
    for e in [&base[0], &base[2], &a, &b] {
        assert_eq!(outside.matches(e.as_str()).count(), 1, "{e}");
    }
}

#[test]
fn archiving_on_one_branch_and_learning_on_the_other_is_clean() {
    let t = Team::new(true);
    let old: Vec<String> = (0..2)
        .map(|i| {
            t.learn(
                &format!("2025-0{}-01T09:00:00Z", i + 3),
                &format!("Old {i}"),
                "fact",
                "db",
                "old",
            )
        })
        .collect();
    let kept = t.learn("2026-10-01T09:00:00Z", "Recent", "fact", "db", "recent");
    t.git(&["branch", "bob"]);
    t.git(&["checkout", "-q", "-b", "alice"]);
    t.p.ok("", &["maintain", "--archive-before", "2026-01-01"]);
    t.commit("archive");
    t.git(&["checkout", "-q", "bob"]);
    let new: Vec<String> = (0..2)
        .map(|i| {
            t.learn(
                &format!("2026-11-1{i}T09:00:00Z"),
                &format!("New {i}"),
                "fact",
                "db",
                "new",
            )
        })
        .collect();
    for (ours, theirs) in [("alice", "bob"), ("bob", "alice")] {
        t.git(&["checkout", "-q", "-B", "merged", ours]);
        let out = t.run_git(&["merge", "--no-edit", theirs]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let live = ts_entries(&t.knowledge());
        let archive = ts_entries(&t.p.read(".megg/archive/knowledge-2025.md"));
        assert_eq!(
            sorted(live),
            sorted(vec![kept.clone(), new[0].clone(), new[1].clone()])
        );
        assert_eq!(archive, old);
    }
}

#[test]
fn both_branches_creating_knowledge_merge_to_the_union() {
    let t = Team::new(true);
    t.git(&["branch", "bob"]);
    t.git(&["checkout", "-q", "-b", "alice"]);
    let a: Vec<String> = (0..2)
        .map(|i| {
            t.learn(
                &format!("2026-11-1{i}T10:00:00Z"),
                &format!("Alice {i}"),
                "fact",
                "x",
                &content("alice", i),
            )
        })
        .collect();
    t.git(&["checkout", "-q", "bob"]);
    let b: Vec<String> = (0..2)
        .map(|i| {
            t.learn(
                &format!("2026-11-0{}T15:00:00Z", i + 1),
                &format!("Bob {i}"),
                "fact",
                "x",
                &content("bob", i),
            )
        })
        .collect();
    t.git(&["checkout", "-q", "alice"]);
    let out = t.run_git(&["merge", "--no-edit", "bob"]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = t.knowledge();
    assert_eq!(ts_entries(&text), [a, b].concat());
    // The earliest `created` (bob's first learn), the latest `updated` (alice's).
    assert!(
        text.starts_with("---\ncreated: 2026-11-01T15:00:00Z\nupdated: 2026-11-10T10:00:00Z\ntype: knowledge\n---\n"),
        "{text}"
    );
}

#[test]
fn another_file_marked_merge_megg_gets_both_versions_between_markers() {
    let t = Team::new(true);
    t.p.write(".gitattributes", "*.md merge=megg\n");
    t.p.write("docs/notes.md", "# Notes\n\nshared\n");
    t.commit("notes");
    t.git(&["branch", "bob"]);
    t.git(&["checkout", "-q", "-b", "alice"]);
    t.p.write("docs/notes.md", "# Notes\n\nshared\nalice\n");
    t.commit("alice");
    t.git(&["checkout", "-q", "bob"]);
    t.p.write("docs/notes.md", "# Notes\n\nshared\nbob\n");
    t.commit("bob");
    t.git(&["checkout", "-q", "alice"]);
    let out = t.run_git(&["merge", "--no-edit", "bob"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("CONFLICT (content): Merge conflict in docs/notes.md")
    );
    assert_eq!(
        t.p.read("docs/notes.md"),
        "<<<<<<< ours\n# Notes\n\nshared\nalice\n=======\n# Notes\n\nshared\nbob\n>>>>>>> theirs\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a megg knowledge file"));
}

/// The driver alone, as git runs it: three files in the work tree's top.
mod driver {
    use super::*;

    fn driver(p: &Project, files: [&str; 3], path: &str) -> Output {
        p.run(
            "",
            &[
                "merge-driver",
                "--marker-size",
                "7",
                files[0],
                files[1],
                files[2],
                path,
            ],
        )
    }

    #[test]
    fn clean_is_0_conflict_is_1_and_stdout_stays_empty() {
        let p = Project::new();
        let head = "---\ntype: knowledge\n---\n\n# Knowledge\n";
        let e =
            |t: &str, b: &str| format!("\n---\n\n## {t}\n**Type:** fact\n**Topics:** x\n\n{b}\n");
        p.write(".merge_file_O", format!("{head}{}", e("A", "a")));
        p.write(
            ".merge_file_A",
            format!("{head}{}{}", e("A", "a"), e("B", "b")),
        );
        p.write(
            ".merge_file_B",
            format!("{head}{}{}", e("A", "a"), e("C", "c")),
        );
        let out = driver(
            &p,
            [".merge_file_O", ".merge_file_A", ".merge_file_B"],
            ".megg/knowledge.md",
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty() && out.stderr.is_empty());
        assert_eq!(
            p.read(".merge_file_A"),
            format!("{head}{}{}{}", e("A", "a"), e("B", "b"), e("C", "c"))
        );
        // The other two are read, never written; no temp file is left behind.
        assert_eq!(
            p.read(".merge_file_B"),
            format!("{head}{}{}", e("A", "a"), e("C", "c"))
        );
        let names: Vec<_> = fs::read_dir(p.root())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");

        p.write(".merge_file_A", format!("{head}{}", e("A", "ours")));
        p.write(".merge_file_B", format!("{head}{}", e("A", "theirs")));
        let out = driver(
            &p,
            [".merge_file_O", ".merge_file_A", ".merge_file_B"],
            "x/.megg/knowledge.md",
        );
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
        assert!(p.read(".merge_file_A").contains("<<<<<<< ours\n## A\n"));
    }

    #[test]
    fn an_empty_base_is_no_base() {
        let p = Project::new();
        let head = "---\ntype: knowledge\n---\n\n# Knowledge\n";
        p.write("O", "");
        p.write("A", format!("{head}\n---\n\n## A\nx\n"));
        p.write("B", format!("{head}\n---\n\n## B\ny\n"));
        let out = driver(&p, ["O", "A", "B"], ".megg/archive/knowledge-2025.md");
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            p.read("A"),
            format!("{head}\n---\n\n## A\nx\n\n---\n\n## B\ny\n")
        );
    }

    #[test]
    fn it_reads_only_regular_files_inside_their_directory() {
        let p = Project::new();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.md");
        fs::write(&secret, "---\ntype: knowledge\n---\nsecret\n").unwrap();
        p.write("O", "");
        p.write("B", "## B\ny\n");
        std::os::unix::fs::symlink(&secret, p.path("A")).unwrap();
        let out = driver(&p, ["O", "A", "B"], ".megg/knowledge.md");
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("link leaves"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            fs::read_to_string(&secret).unwrap(),
            "---\ntype: knowledge\n---\nsecret\n"
        );

        // A FIFO is never opened in a way that blocks.
        fs::remove_file(p.path("A")).unwrap();
        p.write("A", "## A\nx\n");
        let fifo = p.path("O");
        fs::remove_file(&fifo).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let out = driver(&p, ["O", "A", "B"], ".megg/knowledge.md");
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("FIFO"));
        // Without a base to read, git's line merge keeps both sides (SPEC §16).
        assert_eq!(
            p.read("A"),
            "<<<<<<< ours\n## A\nx\n=======\n## B\ny\n>>>>>>> theirs\n"
        );
    }

    #[test]
    fn invalid_utf8_keeps_both_versions_whole() {
        let p = Project::new();
        p.write("O", "## A\nx\n");
        p.write("A", b"## A\nx\n\xff\n".as_slice());
        p.write("B", "## B\ny\n");
        let out = driver(&p, ["O", "A", "B"], ".megg/knowledge.md");
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            fs::read(p.path("A")).unwrap(),
            b"<<<<<<< ours\n## A\nx\n\xff\n=======\n## B\ny\n>>>>>>> theirs\n"
        );
    }
}
