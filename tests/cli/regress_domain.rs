//! Regression tests for defects in the domain's pure functions (knowledge, state, frontmatter,
//! maintain, init), each named after the defect it pins.

use crate::Project;

#[test]
fn learn_with_a_newline_in_topics_does_not_split_its_entry() {
    let p = Project::new();
    p.domain("", "P");
    for topics in ["auth\n---\n## Injected\n**Type:** rule", "auth\nsecurity"] {
        let out = p.run("", &["learn", "Title", "fact", topics, "body"]);
        assert_eq!(out.status.code(), Some(1), "{topics:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("topics must be on one line"));
    }
    assert!(!p.path(".megg/knowledge.md").exists(), "nothing written");
}

#[test]
fn learn_file_checks_its_entry_like_the_arguments() {
    let p = Project::new();
    p.domain("", "P");
    p.write("bad.md", "no header\n**Type:** fact\n");
    let out = p.run("", &["learn", "--file", "bad.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`## Title`"));
    p.write("e.md", "## T\n**Type:** nonsense\n**Topics:** a\n\nx\n");
    let out = p.run("", &["learn", "--file", "e.md"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown type 'nonsense'"));
    // --file and the positional form exclude each other (a usage error).
    let out = p.run("", &["learn", "--file", "e.md", "T", "fact", "a", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!p.path(".megg/knowledge.md").exists());
}
