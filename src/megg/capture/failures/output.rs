//! Reading a run's output (SPEC §18.2): the failing tests it names, in each runner's own
//! format, and its first error line.

use crate::megg::secrets::redact;

/// Most failing test names kept of a run (SPEC §18.2: at most 10).
pub const MAX_NAMES: usize = 10;
/// Most characters kept of a test name.
pub(super) const NAME_CHARS: usize = 160;
/// Most characters kept of the first error line.
const ERROR_CHARS: usize = 300;
/// Most bytes of a run's output read: its start and, mostly, its end (where runners sum up).
const OUTPUT_HEAD: usize = 32 * 1024;
const OUTPUT_TAIL: usize = 224 * 1024;
/// Most characters of one output line read.
const LINE_CHARS: usize = 4 * 1024;
/// Most distinct names counted in one output.
const MAX_COUNTED: usize = 1_000;

/// What a run's output says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The output itself says something failed (a runner's failure summary, a failing test),
    /// whatever the exit code (a run piped into `tail` exits 0).
    pub says_failed: bool,
    /// The failing tests named, in the order first named, each once, at most [`MAX_NAMES`].
    pub names: Vec<String>,
    /// How many distinct failing tests were named.
    pub failed: usize,
    pub first_error: Option<String>,
    /// The output's first non-empty line: what a failed run says went wrong when no line
    /// reads as an error (a linter's finding, a tool whose format megg does not know).
    pub first_line: Option<String>,
}

/// How much an error line says, best first: a runner's own error (a panic, a compiler error,
/// an assertion), an exception line, then a generic summary line (`error: test failed`,
/// `make: *** … Error 1`) used only when nothing better was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Specific,
    Exception,
    Summary,
}

/// What the next non-empty line is, after a line that announces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The message of a panic (`thread 'x' panicked at file:1:2:`).
    PanicMessage,
    /// The location (` --> src/lib.rs:4:18`) of a compiler error.
    Location,
    /// The first line under a jest `●` or vitest `FAIL` heading: the assertion.
    Message,
}

#[derive(Default)]
struct Reading {
    says_failed: bool,
    names: Vec<String>,
    /// Names of files or packages that failed (jest's `FAIL path`, go's `FAIL pkg`) and test
    /// titles without their suite (`✕ title`): used when nothing names the tests better.
    fallback: Vec<String>,
    error: Option<(Rank, String)>,
    expect: Option<Expect>,
    first_line: Option<String>,
}

impl Reading {
    fn name(&mut self, name: &str) {
        add(&mut self.names, name);
    }

    fn error(&mut self, rank: Rank, line: &str) {
        if self.error.as_ref().is_none_or(|(r, _)| rank < *r) {
            self.error = Some((rank, line.trim().to_string()));
        }
    }

    /// Adds to the error line kept (its message, its location).
    fn extend_error(&mut self, more: &str) {
        if let Some((_, e)) = &mut self.error {
            e.push(' ');
            e.push_str(more.trim());
        }
    }
}

fn add(list: &mut Vec<String>, name: &str) {
    let name = name.trim();
    if !name.is_empty() && list.len() < MAX_COUNTED && !list.iter().any(|n| n == name) {
        list.push(name.to_string());
    }
}

/// What a run's output says failed: the failing tests' names and the first error line.
pub fn read(output: &str) -> Report {
    // Redacted whole before it is bounded, cut to lines or lines cut (SPEC §12): a key block
    // across lines, or a value on the line after its key, is a secret only in the whole text.
    let output = redact(output);
    let mut r = Reading::default();
    for raw in bounded(&output).lines() {
        let line = plain(raw);
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(expect) = r.expect.take() {
            match expect {
                Expect::PanicMessage => {
                    r.extend_error(t);
                    continue;
                }
                Expect::Location => {
                    if t.starts_with("--> ") {
                        r.extend_error(t);
                        continue;
                    }
                }
                Expect::Message => {
                    if !t.starts_with('●') && !t.starts_with("FAIL ") {
                        r.error(Rank::Specific, t);
                        continue;
                    }
                }
            }
        }
        if r.first_line.is_none() {
            r.first_line = Some(t.to_string());
        }
        line_of(&mut r, &line, t);
    }
    let names = if r.names.is_empty() {
        r.fallback
    } else {
        r.names
    };
    Report {
        says_failed: r.says_failed || !names.is_empty(),
        failed: names.len(),
        names: names
            .iter()
            .take(MAX_NAMES)
            .map(|n| one_line(n, NAME_CHARS))
            .collect(),
        first_error: r.error.map(|(_, e)| one_line(&e, ERROR_CHARS)),
        first_line: r.first_line.map(|l| one_line(&l, ERROR_CHARS)),
    }
}

/// Reads one line (`t`: trimmed) of a run's output.
fn line_of(r: &mut Reading, line: &str, t: &str) {
    // cargo test (libtest): `test parser::tests::empty ... FAILED`.
    if let Some(name) = t
        .strip_prefix("test ")
        .and_then(|n| n.strip_suffix(" ... FAILED"))
    {
        r.name(name);
        return;
    }
    if t.starts_with("test result: FAILED") {
        r.says_failed = true;
        return;
    }
    // A panic: `thread 'x' panicked at src/lib.rs:5:9:` and its message on the next line
    // (Rust before 1.73: `panicked at 'message', src/lib.rs:5:9`, one line).
    if t.starts_with("thread '") && t.contains("' panicked at ") {
        if r.error
            .as_ref()
            .is_none_or(|(rank, _)| *rank > Rank::Specific)
        {
            r.error(Rank::Specific, t);
            if t.ends_with(':') {
                r.expect = Some(Expect::PanicMessage);
            }
        }
        return;
    }
    // nextest: `FAIL [   0.004s] (1/3) core parser::tests::empty` (binary, then test).
    for status in [
        "FAIL [",
        "SIGSEGV [",
        "SIGABRT [",
        "TIMEOUT [",
        "LEAK-FAIL [",
    ] {
        if let Some(rest) = t.strip_prefix(status) {
            if let Some((_, rest)) = rest.split_once(']') {
                let rest = rest.trim_start();
                let rest = match rest.strip_prefix('(') {
                    Some(counted) => counted.split_once(')').map_or(rest, |(_, r)| r),
                    None => rest,
                };
                let rest = rest.trim();
                r.name(rest.split_once(' ').map_or(rest, |(_, test)| test));
            }
            return;
        }
    }
    // pytest: `FAILED tests/test_x.py::test_y - AssertionError: …`, `ERROR tests/x.py - …`.
    for status in ["FAILED ", "ERROR "] {
        if let Some(rest) = t.strip_prefix(status) {
            let (name, message) = rest.split_once(" - ").unwrap_or((rest, ""));
            if name.contains("::") || name.ends_with(".py") {
                r.name(name);
                if !message.is_empty() {
                    r.error(Rank::Exception, message);
                }
                return;
            }
        }
    }
    // pytest's assertion lines: `E       assert 2 == 3`.
    if let Some(message) = line.strip_prefix("E ") {
        r.error(Rank::Specific, message);
        return;
    }
    // pytest's summary: `==== 1 failed, 2 passed in 0.03s ====`.
    if t.starts_with("==") && (t.contains(" failed") || t.contains(" error")) {
        r.says_failed = true;
        return;
    }
    // unittest: `FAIL: test_add (test_calc.TestCalc.test_add)`, then `FAILED (failures=1)`.
    for status in ["FAIL: ", "ERROR: "] {
        if let Some(rest) = t.strip_prefix(status)
            && rest.contains(" (")
            && rest.ends_with(')')
        {
            r.name(rest);
            return;
        }
    }
    if t.starts_with("FAILED (") {
        r.says_failed = true;
        return;
    }
    // go: `--- FAIL: TestParse/empty (0.00s)`.
    if let Some(rest) = t.strip_prefix("--- FAIL: ") {
        r.name(rest.rsplit_once(" (").map_or(rest, |(name, _)| name));
        return;
    }
    // jest: `● Suite › test` (a failing test's heading, its assertion below).
    if let Some(rest) = t.strip_prefix("● ") {
        if !rest.starts_with("Test suite failed to run") && !rest.starts_with("Console") {
            r.name(rest);
        }
        r.expect = Some(Expect::Message);
        return;
    }
    // jest `FAIL src/a.test.js`, vitest `FAIL  src/a.test.ts > suite > test`, go
    // `FAIL\texample.com/pkg\t0.01s` and a bare `FAIL`.
    if t == "FAIL" {
        r.says_failed = true;
        return;
    }
    if let Some(rest) = t
        .strip_prefix("FAIL")
        .filter(|r| r.starts_with([' ', '\t']))
    {
        let rest = rest.trim();
        if rest.contains(" > ") {
            r.name(rest);
            r.expect = Some(Expect::Message);
        } else {
            let first = rest.split(['\t', ' ']).next().unwrap_or(rest);
            add(&mut r.fallback, first);
        }
        r.says_failed = true;
        return;
    }
    // jest `✕ adds 1 + 2 (3 ms)`, vitest `× suite > adds 3ms`, mocha-like `✗ title`.
    for mark in ["✕ ", "× ", "✗ ", "✖ "] {
        if let Some(title) = t.strip_prefix(mark) {
            add(&mut r.fallback, without_timing(title));
            r.says_failed = true;
            return;
        }
    }
    // vitest's assertion under a `×` title: `→ expected 4 to be 3`.
    if let Some(message) = t.strip_prefix("→ ") {
        r.error(Rank::Exception, message);
        return;
    }
    // jest `Tests:       1 failed, 1 passed, 2 total`; vitest `Tests  1 failed | 1 passed (2)`.
    if (t.starts_with("Tests:") || t.starts_with("Tests ") || t.starts_with("Test Files "))
        && t.contains(" failed")
    {
        r.says_failed = true;
        return;
    }
    // maven surefire: `[ERROR] com.example.AppTest.testAdd -- Time elapsed: 0.005 s <<< FAILURE!`
    // (older: `testAdd(com.example.AppTest)  Time elapsed: 0.005 sec  <<< FAILURE!`).
    if t.ends_with("<<< FAILURE!") || t.ends_with("<<< ERROR!") {
        let body = t.strip_prefix("[ERROR] ").unwrap_or(t);
        if !body.starts_with("Tests run:") {
            let name = body
                .split_once(" -- Time elapsed")
                .or_else(|| body.split_once("  Time elapsed"))
                .map_or(body, |(n, _)| n);
            r.name(name);
        }
        r.says_failed = true;
        return;
    }
    if t == "BUILD FAILURE" || t.starts_with("BUILD FAILED") || t.starts_with("FAILURE: ") {
        r.says_failed = true;
        return;
    }
    // gradle `AppTest > testAdd() FAILED`, pytest -v `tests/x.py::test_y FAILED [ 50%]`.
    let without_percent = t
        .rsplit_once(" [")
        .filter(|(_, p)| p.ends_with("%]"))
        .map_or(t, |(before, _)| before.trim_end());
    if let Some(name) = without_percent.strip_suffix(" FAILED") {
        if !name.starts_with("> Task ") {
            r.name(name);
        }
        r.says_failed = true;
        return;
    }
    error_line(r, t);
}

/// A line that reports an error, ranked.
fn error_line(r: &mut Reading, t: &str) {
    // tsc `src/a.ts(3,7): error TS2322: …` / `src/a.ts:3:7 - error TS2322: …`.
    if t.split_once("error TS")
        .is_some_and(|(_, code)| code.starts_with(|c: char| c.is_ascii_digit()))
    {
        r.says_failed = true;
        r.error(Rank::Specific, t);
        return;
    }
    // rustc `error[E0308]: mismatched types`, then ` --> src/lib.rs:4:18`.
    if t.starts_with("error[") {
        if r.error
            .as_ref()
            .is_none_or(|(rank, _)| *rank > Rank::Specific)
        {
            r.error(Rank::Specific, t);
            r.expect = Some(Expect::Location);
        }
        return;
    }
    let lower = t.to_lowercase();
    if lower.starts_with("error:") {
        const SUMMARIES: [&str; 7] = [
            "error: test failed",
            "error: could not compile",
            "error: aborting due to",
            "error: test run failed",
            "error: process didn't exit successfully",
            "error: recipe",
            "error: command failed",
        ];
        if SUMMARIES.iter().any(|s| lower.starts_with(s)) {
            r.error(Rank::Summary, t);
        } else if r
            .error
            .as_ref()
            .is_none_or(|(rank, _)| *rank > Rank::Specific)
        {
            r.error(Rank::Specific, t);
            r.expect = Some(Expect::Location);
        }
        return;
    }
    // gcc, mypy, go vet: `main.c:3:5: error: …`, `app.py:3: error: …`.
    if t.contains(": error: ") || t.contains(": fatal error: ") {
        r.error(Rank::Specific, t);
        return;
    }
    // go: `calc_test.go:8: Add(1, 2) = 4; want 3`, `./calc.go:5:9: undefined: y`, `panic: …`.
    if go_location(t) || t.starts_with("panic: ") {
        r.error(Rank::Specific, t);
        return;
    }
    // An exception: `AssertionError: …`, `org.opentest4j.AssertionFailedError at X.java:14`.
    let head = t.split([':', ' ']).next().unwrap_or("");
    if (head.ends_with("Error") || head.ends_with("Exception"))
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '$')
        && head.len() > 5
    {
        r.error(Rank::Exception, t);
        return;
    }
    // Generic: `Error: …`, `ERROR: …`, `[ERROR] …`, `npm error …`, `make: *** … Error 1`.
    if lower.starts_with("[error]")
        || lower.starts_with("npm err")
        || lower.starts_with("make: ***")
        || lower.starts_with("make[")
    {
        r.error(Rank::Summary, t);
    }
}

/// `x_test.go:8: …`, `./calc.go:5:9: …`: a go file and line, then a message.
fn go_location(t: &str) -> bool {
    let Some((file, rest)) = t.split_once(".go:") else {
        return false;
    };
    !file.contains(' ')
        && rest.split_once(": ").is_some_and(|(at, _)| {
            !at.is_empty() && at.chars().all(|c| c.is_ascii_digit() || c == ':')
        })
}

/// A test title without the time jest or vitest adds: `adds (3 ms)`, `adds 3ms`.
fn without_timing(title: &str) -> &str {
    let title = title.trim();
    if let Some((before, last)) = title.rsplit_once(" (")
        && last.ends_with("ms)")
    {
        return before;
    }
    if let Some((before, last)) = title.rsplit_once(' ')
        && last.ends_with("ms")
        && last
            .trim_end_matches("ms")
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.')
    {
        return before;
    }
    title
}

/// At most [`OUTPUT_HEAD`] bytes of the start and [`OUTPUT_TAIL`] of the end of `text`, cut at
/// line boundaries.
fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= OUTPUT_HEAD + OUTPUT_TAIL {
        return text.into();
    }
    let head_end = floor(text, OUTPUT_HEAD);
    let head = text.get(..head_end).unwrap_or_default();
    let head = head.rsplit_once('\n').map_or(head, |(h, _)| h);
    let tail_start = floor(text, text.len() - OUTPUT_TAIL);
    let tail = text.get(tail_start..).unwrap_or_default();
    let tail = tail.split_once('\n').map_or(tail, |(_, t)| t);
    format!("{head}\n{tail}").into()
}

/// The largest character boundary at or before `at`.
fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A line without its terminal escapes (colours), at most [`LINE_CHARS`] characters.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len().min(LINE_CHARS));
    let mut chars = line.chars();
    let mut n = 0;
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: `ESC [` parameters, then one final byte in `@`..`~`.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        if c == '\r' {
            continue;
        }
        out.push(c);
        n += 1;
        if n >= LINE_CHARS {
            break;
        }
    }
    out
}

/// Redacted, on one line, at most `max` characters with `…` when cut.
pub(super) fn one_line(text: &str, max: usize) -> String {
    let text = redact(text);
    let mut joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Scanned again only when joining changed it: a value on the line after its key.
    if joined != *text {
        joined = redact(&joined).into_owned();
    }
    if joined.chars().count() <= max {
        return joined;
    }
    let kept: String = joined.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}
