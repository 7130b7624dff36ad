//! What every host reader's tests check alike (each reader's test module includes this file):
//! reading a whole transcript, resuming from a saved scan, and surviving damaged input.
#![allow(clippy::string_slice)] // tests slice their own ASCII fixtures
#![allow(dead_code)] // each reader's tests use their share

use crate::megg::capture::transcript::Scan;

/// One reader's `feed`.
pub type Feed = fn(&mut Scan, &str);

/// `text` read line by line from a fresh scan.
pub fn read(feed: Feed, text: &str) -> Scan {
    let mut s = Scan::default();
    for line in text.lines() {
        feed(&mut s, line);
    }
    s
}

/// The lines of `text` up to and including the first that holds every one of `needles`.
pub fn upto<'t>(text: &'t str, needles: &[&str]) -> Vec<&'t str> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| needles.iter().all(|n| l.contains(n)))
        .unwrap_or_else(|| panic!("no line holds {needles:?}"));
    lines[..=at].to_vec()
}

/// `lines` read from a fresh scan.
pub fn read_lines(feed: Feed, lines: &[&str]) -> Scan {
    let mut s = Scan::default();
    for line in lines {
        feed(&mut s, line);
    }
    s
}

/// Reading part of `text`, saving the scan as JSON, reading it back and going on with the
/// rest gives the same scan as reading it all at once, wherever it is cut.
pub fn resumes_identically(feed: Feed, text: &str) {
    let all = read(feed, text);
    let lines: Vec<&str> = text.lines().collect();
    for cut in 0..=lines.len() {
        let first = read_lines(feed, &lines[..cut]);
        let saved = serde_json::to_string(&first).unwrap();
        let mut resumed: Scan = serde_json::from_str(&saved).unwrap();
        assert_eq!(
            resumed, first,
            "a scan survives its JSON round trip (cut {cut})"
        );
        for line in &lines[cut..] {
            feed(&mut resumed, line);
        }
        assert_eq!(resumed, all, "cut after line {cut}");
    }
}

/// Nothing at all was found: no request, file, task, checkpoint or message.
pub fn assert_nothing(s: &Scan) {
    assert_eq!(s.first_request, None, "{s:?}");
    assert_eq!(s.latest_request, None, "{s:?}");
    assert!(s.files.is_empty(), "{s:?}");
    assert!(s.tasks.is_empty() && s.todos.is_empty(), "{s:?}");
    assert_eq!(s.checkpoint, None, "{s:?}");
    assert_eq!(s.last_message, None, "{s:?}");
}

/// Every line of `text` cut in half (at a character boundary) is read without a panic and
/// gives nothing; so does an empty transcript, and so do lines of garbage.
pub fn survives_damage(feed: Feed, text: &str) {
    let mut s = Scan::default();
    for line in text.lines() {
        let mut half = line.len() / 2;
        while !line.is_char_boundary(half) {
            half -= 1;
        }
        feed(&mut s, &line[..half]);
    }
    assert_nothing(&s);
    assert_eq!(s.lines, text.lines().count() as u64);

    let empty = read(feed, "");
    assert_eq!(empty, Scan::default());

    let huge = format!(
        "{{\"type\":\"{}\",\"x\":\"{}\"",
        "user",
        "a".repeat(2_000_000)
    );
    let garbage = [
        "",
        "\n",
        "\r\n",
        "{",
        "}",
        "null",
        "[]",
        "[1,2,3]",
        "\"user\"",
        "42",
        "not json at all \"user\" \"gemini\" \"item_completed\" \"user.message\"",
        "{\"type\": 5, \"payload\": 6, \"data\": 7}",
        "{\"type\": \"user\", \"content\": {\"text\": 5}}",
        "\u{feff}{\"type\":\"user\"}",
        "\u{0}\u{1}\u{2}",
        &huge,
    ];
    let mut g = Scan::default();
    for line in garbage {
        feed(&mut g, line);
    }
    assert_nothing(&g);
}
