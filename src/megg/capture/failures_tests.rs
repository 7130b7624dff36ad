//! The runners' output as they write it (samples of each runner's real output, names and paths
//! of a small example project), and the command lines agents run them with.

use super::*;

/// [`super::record`] with the run read at once, as a scan that is not holding reads it.
fn record(last: &mut Option<FailingRun>, command: &str, exit_ok: bool, output: &str) {
    let mut unread = None;
    super::record((last, &mut unread), command, exit_ok, output);
    if let Some(run) = unread {
        *last = Some(run.read());
    }
}

fn runner_of(line: &str) -> Option<(&'static str, String)> {
    classify(line).map(|c| (c.runner, c.scope))
}

#[test]
fn commands_are_classified_into_runner_and_scope() {
    let cases: &[(&str, Option<(&str, &str)>)] = &[
        ("cargo test", Some(("cargo test", ""))),
        ("cargo test -p core", Some(("cargo test", "-p core"))),
        (
            "cd crates/core && RUST_BACKTRACE=1 cargo test -p core parser 2>&1 | tail -50",
            Some(("cargo test", "-p core parser")),
        ),
        ("cargo +nightly t --lib", Some(("cargo test", "--lib"))),
        (
            "cargo nextest run -p core",
            Some(("cargo nextest", "-p core")),
        ),
        ("cargo build --release", Some(("cargo build", "--release"))),
        ("cargo check -q", Some(("cargo check", ""))),
        (
            "cargo clippy --all-targets -- -D warnings",
            Some(("cargo clippy", "--all-targets -- -D warnings")),
        ),
        ("cargo fmt", None),
        (
            "pytest tests/test_calc.py -x -q",
            Some(("pytest", "tests/test_calc.py -x")),
        ),
        ("python3 -m pytest -k divide", Some(("pytest", "-k divide"))),
        ("uv run pytest tests", Some(("pytest", "tests"))),
        ("poetry run pytest", Some(("pytest", ""))),
        (
            "python -m unittest discover",
            Some(("unittest", "discover")),
        ),
        ("python script.py", None),
        ("npm test", Some(("npm test", "test"))),
        ("npm run test", Some(("npm test", "test"))),
        (
            "npm run test:unit -- --watch=false",
            Some(("npm test", "test:unit -- --watch=false")),
        ),
        ("npm run build", Some(("npm run build", "build"))),
        ("npm install", None),
        ("pnpm test", Some(("pnpm test", "test"))),
        ("yarn test src/sum", Some(("yarn test", "test src/sum"))),
        ("yarn jest src/sum", Some(("jest", "src/sum"))),
        (
            "npx jest src/sum.test.js",
            Some(("jest", "src/sum.test.js")),
        ),
        ("./node_modules/.bin/jest --ci", Some(("jest", ""))),
        (
            "npx vitest run src/sum.test.ts",
            Some(("vitest", "src/sum.test.ts")),
        ),
        ("vitest", Some(("vitest", ""))),
        ("npx tsc --noEmit", Some(("tsc", "--noEmit"))),
        ("go test ./...", Some(("go test", "./..."))),
        ("go build ./cmd/app", Some(("go build", "./cmd/app"))),
        ("go vet ./...", Some(("go vet", "./..."))),
        ("go run .", None),
        ("make", Some(("make", ""))),
        ("make -j4 test", Some(("make", "-j4 test"))),
        ("mvn -q test", Some(("mvn", "test"))),
        (
            "./gradlew test --tests AppTest",
            Some(("gradle", "test --tests AppTest")),
        ),
        ("timeout 600 cargo test", Some(("cargo test", ""))),
        ("env CI=1 npm test", Some(("npm test", "test"))),
        (
            "bash -lc 'cargo test -p core'",
            Some(("cargo test", "-p core")),
        ),
        ("dotnet test", Some(("dotnet test", ""))),
        (
            "bundle exec rspec spec/models",
            Some(("rspec", "spec/models")),
        ),
        ("git status && ls", None),
        ("echo 'cargo test'", None),
    ];
    for (line, want) in cases {
        let got = runner_of(line);
        let want = want.map(|(r, s)| (r, s.to_string()));
        assert_eq!(got, want, "{line}");
    }
}

#[test]
fn the_command_is_shown_from_its_runner_without_redirections() {
    let c = classify("cd core && RUST_LOG=debug cargo test -p core 2>&1 > out.txt | tail").unwrap();
    assert_eq!(c.shown, "cargo test -p core");
    // Redacted.
    let c =
        classify("API_TOKEN=x pytest --token ghp_sidn1pvgidzqh3zmvt45xkrclnhe75eixzn6").unwrap();
    assert!(!c.shown.contains("ghp_sidn1pvg"), "{}", c.shown);
}

const CARGO_FAIL: &str = "   Compiling core v0.1.0 (/work/core)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.52s
     Running unittests src/lib.rs (target/debug/deps/core-1a2b3c4d5e6f7a8b)

running 3 tests
test parser::tests::simple ... ok
test parser::tests::empty ... FAILED
test parser::tests::crlf ... FAILED

failures:

---- parser::tests::empty stdout ----

thread 'parser::tests::empty' panicked at src/parser.rs:42:9:
called `Option::unwrap()` on a `None` value
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

---- parser::tests::crlf stdout ----

thread 'parser::tests::crlf' panicked at src/parser.rs:57:9:
assertion `left == right` failed
  left: 2
 right: 1


failures:
    parser::tests::empty
    parser::tests::crlf

test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass `-p core --lib`
";

const CARGO_PASS: &str = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s
     Running unittests src/lib.rs (target/debug/deps/core-1a2b3c4d5e6f7a8b)

running 3 tests
test parser::tests::crlf ... ok
test parser::tests::empty ... ok
test parser::tests::simple ... ok

test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
";

#[test]
fn cargo_test_names_the_failing_tests_and_the_first_panic() {
    let r = read(CARGO_FAIL);
    assert!(r.says_failed);
    assert_eq!(r.names, ["parser::tests::empty", "parser::tests::crlf"]);
    assert_eq!(r.failed, 2);
    assert_eq!(
        r.first_error.as_deref(),
        Some(
            "thread 'parser::tests::empty' panicked at src/parser.rs:42:9: called `Option::unwrap()` on a `None` value"
        )
    );
    let pass = read(CARGO_PASS);
    assert_eq!(
        (pass.says_failed, pass.names.len(), pass.first_error),
        (false, 0, None)
    );
}

#[test]
fn cargo_build_errors_give_the_first_error_and_its_place() {
    let out = "   Compiling core v0.1.0 (/work/core)
warning: unused variable: `y`
 --> src/lib.rs:2:9
  |
2 |     let y = 1;
  |         ^ help: if this is intentional, prefix it with an underscore: `_y`

error[E0308]: mismatched types
 --> src/lib.rs:4:18
  |
4 |     let x: u32 = \"a\";
  |            ---   ^^^ expected `u32`, found `&str`
  |            |
  |            expected due to this

For more information about this error, try `rustc --explain E0308`.
error: could not compile `core` (lib) due to 1 previous error; 1 warning emitted
";
    let r = read(out);
    assert!(r.names.is_empty());
    assert_eq!(
        r.first_error.as_deref(),
        Some("error[E0308]: mismatched types --> src/lib.rs:4:18")
    );
    // Clippy's denied lints are errors alike.
    let clippy = "    Checking core v0.1.0 (/work/core)
error: this `if` has identical blocks
 --> src/lib.rs:9:5
  |
error: could not compile `core` (lib) due to 1 previous error
";
    assert_eq!(
        read(clippy).first_error.as_deref(),
        Some("error: this `if` has identical blocks --> src/lib.rs:9:5")
    );
}

#[test]
fn nextest_names_tests_without_their_binary() {
    let out = "    Starting 3 tests across 1 binary
        PASS [   0.003s] core parser::tests::simple
        FAIL [   0.004s] core parser::tests::empty
--- STDOUT:              core parser::tests::empty ---

running 1 test
test parser::tests::empty ... FAILED

--- STDERR:              core parser::tests::empty ---
thread 'parser::tests::empty' panicked at src/parser.rs:42:9:
called `Option::unwrap()` on a `None` value

        PASS [   0.004s] core parser::tests::crlf
------------
     Summary [   0.005s] 3 tests run: 2 passed, 1 failed, 0 skipped
        FAIL [   0.004s] core parser::tests::empty
error: test run failed
";
    let r = read(out);
    assert_eq!(r.names, ["parser::tests::empty"]);
    assert!(
        r.first_error
            .unwrap()
            .starts_with("thread 'parser::tests::empty' panicked")
    );
}

#[test]
fn pytest_names_the_failed_tests_from_its_summary() {
    let out = "============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0
rootdir: /work/app
collected 3 items

tests/test_calc.py .F.                                                   [100%]

=================================== FAILURES ===================================
_________________________________ test_divide __________________________________

    def test_divide():
>       assert divide(1, 0) == 0
E       ZeroDivisionError: division by zero

tests/test_calc.py:9: ZeroDivisionError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_divide - ZeroDivisionError: division by zero
========================= 1 failed, 2 passed in 0.03s ==========================
";
    let r = read(out);
    assert_eq!(r.names, ["tests/test_calc.py::test_divide"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("ZeroDivisionError: division by zero")
    );
    let pass = "collected 3 items

tests/test_calc.py ...                                                   [100%]

============================== 3 passed in 0.01s ===============================
";
    assert!(!read(pass).says_failed);
    // Verbose, and a collection error.
    let verbose = "tests/test_calc.py::test_add PASSED                                 [ 50%]
tests/test_calc.py::test_divide FAILED                              [100%]
ERROR tests/test_io.py - ModuleNotFoundError: No module named 'yaml'
";
    assert_eq!(
        read(verbose).names,
        ["tests/test_calc.py::test_divide", "tests/test_io.py"]
    );
}

#[test]
fn jest_names_suite_and_test_and_the_assertion() {
    let out = "FAIL src/sum.test.js
  sum
    ✓ adds 1 + 1 (2 ms)
    ✕ adds 1 + 2 (3 ms)

  ● sum › adds 1 + 2

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 4

      4 |
      5 |   test('adds 1 + 2', () => {
    > 6 |     expect(sum(1, 2)).toBe(3);
        |                       ^
      7 |   });

      at Object.toBe (src/sum.test.js:6:23)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 passed, 2 total
Snapshots:   0 total
Time:        0.512 s
Ran all test suites.
";
    let r = read(out);
    assert_eq!(r.names, ["sum › adds 1 + 2"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("expect(received).toBe(expected) // Object.is equality")
    );
    let pass = "PASS src/sum.test.js
  sum
    ✓ adds 1 + 1 (2 ms)

Test Suites: 1 passed, 1 total
Tests:       1 passed, 1 total
";
    assert!(!read(pass).says_failed);
    // A suite that does not run at all: its file.
    let broken = "FAIL src/io.test.js
  ● Test suite failed to run

    Cannot find module './io' from 'src/io.test.js'

Test Suites: 1 failed, 1 total
";
    let r = read(broken);
    assert_eq!(r.names, ["src/io.test.js"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("Cannot find module './io' from 'src/io.test.js'")
    );
}

#[test]
fn vitest_names_file_and_test_and_the_assertion() {
    let out = " ❯ src/sum.test.ts (2 tests | 1 failed) 4ms
   × sum > adds 1 + 2 3ms
     → expected 4 to be 3 // Object.is equality

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/sum.test.ts > sum > adds 1 + 2
AssertionError: expected 4 to be 3 // Object.is equality

- Expected
+ Received

- 3
+ 4

 ❯ src/sum.test.ts:6:23
      4|
      5|   it('adds 1 + 2', () => {
      6|     expect(sum(1, 2)).toBe(3)
       |                       ^

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed (2)
";
    let r = read(out);
    assert_eq!(r.names, ["src/sum.test.ts > sum > adds 1 + 2"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("AssertionError: expected 4 to be 3 // Object.is equality")
    );
    let pass = " ✓ src/sum.test.ts (2 tests) 2ms

 Test Files  1 passed (1)
      Tests  2 passed (2)
";
    assert!(!read(pass).says_failed);
}

#[test]
fn go_names_the_failing_tests_and_their_message() {
    let out = "--- FAIL: TestAdd (0.00s)
    calc_test.go:8: Add(1, 2) = 4; want 3
--- FAIL: TestParse (0.00s)
    --- FAIL: TestParse/empty (0.00s)
        parse_test.go:21: unexpected EOF
FAIL
FAIL\texample.com/calc\t0.002s
FAIL
";
    let r = read(out);
    assert_eq!(r.names, ["TestAdd", "TestParse", "TestParse/empty"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("calc_test.go:8: Add(1, 2) = 4; want 3")
    );
    let build = "# example.com/calc [example.com/calc.test]
./calc.go:5:9: undefined: y
FAIL\texample.com/calc [build failed]
FAIL
";
    let r = read(build);
    assert_eq!(r.names, ["example.com/calc"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("./calc.go:5:9: undefined: y")
    );
    assert!(!read("ok  \texample.com/calc\t0.002s\n").says_failed);
}

#[test]
fn tsc_gives_its_first_error() {
    let out = "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.
src/util.ts(10,1): error TS2304: Cannot find name 'foo'.
";
    let r = read(out);
    assert!(r.says_failed && r.names.is_empty());
    assert_eq!(
        r.first_error.as_deref(),
        Some("src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.")
    );
    let pretty =
        "src/index.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.

3 const x: number = \"a\";
        ~

Found 1 error in src/index.ts:3
";
    assert!(
        read(pretty)
            .first_error
            .unwrap()
            .starts_with("src/index.ts:3:7 - error TS2322")
    );
}

#[test]
fn maven_and_gradle_name_the_failing_tests() {
    let mvn = "[INFO] Running com.example.AppTest
[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.031 s <<< FAILURE! -- in com.example.AppTest
[ERROR] com.example.AppTest.testAdd -- Time elapsed: 0.005 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <3> but was: <4>
\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)
[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   AppTest.testAdd:14 expected: <3> but was: <4>
[INFO]
[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0
[INFO] BUILD FAILURE
";
    let r = read(mvn);
    assert_eq!(r.names, ["com.example.AppTest.testAdd"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("org.opentest4j.AssertionFailedError: expected: <3> but was: <4>")
    );
    let gradle = "> Task :app:test FAILED

AppTest > testAdd() FAILED
    org.opentest4j.AssertionFailedError at AppTest.java:14

2 tests completed, 1 failed

FAILURE: Build failed with an exception.
";
    let r = read(gradle);
    assert_eq!(r.names, ["AppTest > testAdd()"]);
    assert_eq!(
        r.first_error.as_deref(),
        Some("org.opentest4j.AssertionFailedError at AppTest.java:14")
    );
}

#[test]
fn generic_error_lines_and_make() {
    let out = "cc -c -o main.o main.c
main.c:3:5: error: use of undeclared identifier 'x'
make: *** [Makefile:4: main.o] Error 1
";
    let r = read(out);
    assert_eq!(
        r.first_error.as_deref(),
        Some("main.c:3:5: error: use of undeclared identifier 'x'")
    );
    // Only a summary line: it is the first error, for want of a better one.
    let r = read("make: *** [Makefile:9: test] Error 2\n");
    assert_eq!(
        r.first_error.as_deref(),
        Some("make: *** [Makefile:9: test] Error 2")
    );
    // Colours are not part of the text.
    let coloured = "\u{1b}[1m\u{1b}[31merror\u{1b}[0m\u{1b}[1m: cannot find value `x`\u{1b}[0m\n";
    assert_eq!(
        read(coloured).first_error.as_deref(),
        Some("error: cannot find value `x`")
    );
}

#[test]
fn names_are_bounded_counted_and_redacted() {
    let mut out = String::new();
    for i in 0..25 {
        out.push_str(&format!("test t{i:02} ... FAILED\n"));
    }
    out.push_str("test api::ghp_sidn1pvgidzqh3zmvt45xkrclnhe75eixzn6 ... FAILED\n");
    out.push_str(&format!("test {} ... FAILED\n", "x".repeat(500)));
    let r = read(&out);
    assert_eq!(r.failed, 27);
    assert_eq!(r.names.len(), MAX_NAMES);
    assert_eq!(r.names[0], "t00");
    let r = read(&out.lines().rev().collect::<Vec<_>>().join("\n"));
    assert!(
        r.names[0].chars().count() <= output::NAME_CHARS,
        "{}",
        r.names[0]
    );
    assert!(!r.names[1].contains("ghp_sidn1pvg"), "{}", r.names[1]);
    // A huge output is read at its start and its end, in bounded time.
    let huge = format!(
        "test early ... FAILED\n{}test late ... FAILED\n",
        "noise line\n".repeat(200_000)
    );
    assert_eq!(read(&huge).names, ["early", "late"]);
}

#[test]
fn a_failing_run_is_kept_until_the_same_runner_and_scope_passes() {
    let mut last = None;
    record(&mut last, "cargo test -p core", false, CARGO_FAIL);
    let kept = last.clone().unwrap();
    assert_eq!(kept.command, "cargo test -p core");
    assert_eq!(kept.names, ["parser::tests::empty", "parser::tests::crlf"]);
    // Not a runner: nothing changes.
    record(&mut last, "git status", true, "");
    assert_eq!(last.as_ref(), Some(&kept));
    // Another scope passing: still named.
    record(&mut last, "cargo test -p cli", true, CARGO_PASS);
    assert_eq!(last.as_ref(), Some(&kept));
    // Another runner passing: still named.
    record(&mut last, "cargo build -p core", true, "");
    assert_eq!(last.as_ref(), Some(&kept));
    // A pipe hides the exit code, not the failure.
    record(
        &mut last,
        "cargo test -p core 2>&1 | tail -5",
        true,
        CARGO_FAIL,
    );
    assert_eq!(last.as_ref().map(|l| l.names.len()), Some(2));
    // The same runner and scope passing (with other output flags): cleared.
    record(&mut last, "cargo test -p core -q 2>&1", true, CARGO_PASS);
    assert_eq!(last, None);
    // A failing build with nothing recognisable is still a failing run, said by the first
    // line of its output (a linter's finding reads so).
    record(&mut last, "make", false, "\nsomething went wrong\nmore\n");
    let l = last.unwrap();
    assert_eq!(
        (l.runner.as_str(), l.failed, l.first_error.as_deref()),
        ("make", 0, Some("something went wrong"))
    );
}

/// A run that exited non-zero is read only once no later run replaced it — and meanwhile it
/// is the kept run: a passing run of its runner and scope clears it, another does not.
#[test]
fn a_held_failing_run_is_the_kept_one_until_read() {
    let mut last = None;
    record(&mut last, "cargo test -p core", false, CARGO_FAIL);
    let kept = last.clone().unwrap();
    let mut unread = None;
    // Another scope fails: held, replacing the one read.
    super::record(
        (&mut last, &mut unread),
        "cargo test -p cli",
        false,
        CARGO_FAIL,
    );
    assert!(unread.is_some());
    // `-p core` passing no longer clears anything: the kept run is `-p cli`'s.
    super::record(
        (&mut last, &mut unread),
        "cargo test -p core",
        true,
        CARGO_PASS,
    );
    assert!(unread.is_some());
    assert_eq!(unread.clone().unwrap().read().command, "cargo test -p cli");
    // `-p cli` passing clears it, and the older run with it.
    super::record(
        (&mut last, &mut unread),
        "cargo test -p cli",
        true,
        CARGO_PASS,
    );
    assert_eq!((last, unread), (None, None));
    // A run exiting 0 whose output says it failed is read at once and replaces a held one.
    let mut last = Some(kept);
    let mut unread = None;
    super::record((&mut last, &mut unread), "make", false, "\nboom\n");
    super::record(
        (&mut last, &mut unread),
        "cargo test -p core 2>&1 | tail -5",
        true,
        CARGO_FAIL,
    );
    assert_eq!(unread, None);
    assert_eq!(last.map(|l| l.names.len()), Some(2));
}

#[test]
fn a_linters_finding_is_the_failing_runs_error() {
    let mut last = None;
    record(
        &mut last,
        "npx markdownlint CHANGELOG.md",
        false,
        "CHANGELOG.md:3 MD004/ul-style Unordered list style [Expected: asterisk; Actual: dash]\n",
    );
    let l = last.unwrap();
    assert_eq!(l.runner, "markdownlint");
    assert!(l.first_error.unwrap().contains("MD004"));
}

/// SPEC §12: a run's output is redacted whole before it is read line by line or cut, so a
/// value on the line after its key (gitleaks' own multi-line sample, here as the assertion
/// under a jest heading) never becomes the kept error line.
#[test]
fn a_value_on_the_line_after_its_key_never_reaches_the_error_line() {
    let out = "FAIL src/config.test.js\n  ● config › reads <adafruitToken>\n    _dsmvmrvj3wr4-yc589gxlzfqii5pgtq\n</adafruitToken>\n";
    let r = read(out);
    let error = r.first_error.unwrap_or_default();
    assert!(!error.contains("yc589gxlzfqii5"), "{error}");
    assert_eq!(error, crate::megg::secrets::REDACTED);
    assert_eq!(r.names, ["config › reads <adafruitToken>"]);
}
