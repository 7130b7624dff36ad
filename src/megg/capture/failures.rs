//! Failing tests and errors (SPEC §18.2): which shell commands run tests or builds, what their
//! output says failed, and the last failing run a session made.
//!
//! Pure: a command line and a run's output in, the facts out. Every runner's output format is
//! read the way the runner writes it — cargo's `test x ... FAILED`, nextest's `FAIL [ …s]`,
//! pytest's `FAILED path::test - …`, jest's `● Suite › test`, vitest's `FAIL  file > test`,
//! go's `--- FAIL: TestX`, tsc's `file(1,2): error TS…`, maven's `<<< FAILURE!`, gradle's
//! `Class > test() FAILED` — and, for any of them (and `make`), a generic `error:` /
//! `error[E…]` / `FAILED` line. What is kept is redacted (SPEC §12) and bounded: the scan that
//! holds it is saved between captures.

mod output;

use serde::{Deserialize, Serialize};

use output::one_line;
pub use output::{MAX_NAMES, Report, read};

/// Most characters kept of the command as shown.
const COMMAND_CHARS: usize = 200;

/// A test or build command, as [`classify`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The runner: `cargo test`, `pytest`, `npm test`, `go build`, `make`, … (see [`classify`]).
    pub runner: &'static str,
    /// The rest of the command, normalised: the words that choose what runs (packages,
    /// files, filters, targets), without redirections and output-only flags. A later run of
    /// the same runner and scope tells whether what failed passes now.
    pub scope: String,
    /// The command as run (from its runner word on), for people: redacted, on one line, cut.
    pub shown: String,
}

/// The last failing run of a session, as its scan keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailingRun {
    /// The command as run ([`Command::shown`]).
    pub command: String,
    pub runner: String,
    pub scope: String,
    /// The failing tests named, at most [`MAX_NAMES`], redacted and cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// How many distinct failing tests the output named (more than `names` holds, when cut).
    #[serde(default)]
    pub failed: usize,
    /// The first error line, redacted and cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
}

/// Records a test or build command's outcome in `last`: a failing run replaces the one kept;
/// a passing run clears it when it is of the same runner and scope. A command that is no
/// test or build command changes nothing. `exit_ok`: the command exited 0.
///
/// A run that exited non-zero fails whatever its output says: it is kept in `unread` as run,
/// and its output read (and redacted) only by [`Unread::read`], once no later run replaced it
/// — the kept run is `unread`'s when there is one, else `last`'s. A run that exited 0 is read
/// now: its output says whether it failed.
pub fn record(
    (last, unread): (&mut Option<FailingRun>, &mut Option<Unread>),
    command: &str,
    exit_ok: bool,
    output: &str,
) {
    let Some(cmd) = classify(command) else {
        return;
    };
    if !exit_ok {
        *unread = Some(Unread {
            cmd,
            output: output.to_string(),
        });
        return;
    }
    let report = read(output);
    if !report.says_failed {
        let same = |runner: &str, scope: &str| runner == cmd.runner && scope == cmd.scope;
        let kept = match unread {
            Some(u) => same(u.cmd.runner, &u.cmd.scope),
            None => last.as_ref().is_some_and(|l| same(&l.runner, &l.scope)),
        };
        if kept {
            *unread = None;
            *last = None;
        }
        return;
    }
    *unread = None;
    *last = Some(FailingRun::of(cmd, report));
}

/// A run that exited non-zero, its output not read yet ([`record`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    cmd: Command,
    output: String,
}

impl Unread {
    /// The bytes of output it holds.
    pub fn bytes(&self) -> usize {
        self.output.len()
    }

    /// The failing run, its output read and redacted.
    pub fn read(self) -> FailingRun {
        let report = read(&self.output);
        FailingRun::of(self.cmd, report)
    }
}

impl FailingRun {
    fn of(cmd: Command, report: Report) -> Self {
        Self {
            command: cmd.shown,
            runner: cmd.runner.to_string(),
            scope: cmd.scope,
            names: report.names,
            failed: report.failed,
            first_error: report.first_error.or(report.first_line),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Commands

/// Words that run the command after them: skipped to find the runner.
const WRAPPERS: [&str; 7] = ["env", "time", "command", "nice", "nohup", "exec", "sudo"];
/// Two words that run the command after them (`uv run pytest`).
const WRAPPER_PAIRS: [(&str, &str); 12] = [
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("rye", "run"),
    ("bundle", "exec"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("yarn", "dlx"),
    ("npm", "exec"),
    ("dotenv", "--"),
];
/// Flags that change only how a runner reports: not part of the scope.
const QUIET_FLAGS: [&str; 12] = [
    "-q",
    "--quiet",
    "-v",
    "-vv",
    "-vvv",
    "--verbose",
    "--no-color",
    "--color",
    "--colors",
    "--ci",
    "--no-fail-fast",
    "--nocapture",
];

/// The test or build command in a shell command line, if any: the first of its commands
/// (split at `&&`, `||`, `;`, `|`, `&` and newlines; `bash -c '…'` read inside) that runs
/// one of these runners, after environment assignments and wrappers (`env`, `time`,
/// `timeout 60`, `uv run`, `poetry run`, `bundle exec`, `npx`, `pnpm exec`, …):
///
/// - `cargo test|t`, `cargo nextest run`, `cargo build|b`, `cargo check|c`, `cargo clippy`;
/// - `pytest`, `py.test`, `python -m pytest`, `python -m unittest`, `tox`, `mypy`;
/// - `npm|pnpm|yarn|bun [run] test…`, `npm|pnpm|yarn|bun run build|typecheck`, `bun test`,
///   `deno test|check`;
/// - `jest`, `vitest`, `mocha`, `tsc`, `playwright test` (also through `npx`, `yarn`, `pnpm`);
/// - `go test|build|vet`;
/// - `make`/`gmake` (with its targets), `ctest`;
/// - `mvn`/`mvnw`, `gradle`/`gradlew` (with their goals or tasks);
/// - `dotnet test|build`, `swift test|build`, `mix test`, `rspec`, `phpunit`.
pub fn classify(line: &str) -> Option<Command> {
    classify_in(line, 0)
}

fn classify_in(line: &str, depth: u8) -> Option<Command> {
    for segment in segments(line) {
        let words = words(&segment);
        let words = skip_prefix(&words);
        let Some((first, rest)) = words.split_first() else {
            continue;
        };
        let name = base(first);
        // A shell running a script: the script's commands.
        if depth == 0
            && matches!(name, "bash" | "sh" | "zsh" | "dash")
            && let Some(at) = rest
                .iter()
                .position(|w| w.starts_with('-') && w.ends_with('c'))
            && let Some(script) = rest.get(at + 1)
        {
            if let Some(found) = classify_in(script, depth + 1) {
                return Some(found);
            }
            continue;
        }
        if let Some((runner, used)) = runner(name, rest) {
            let scope_words = rest.get(used..).unwrap_or_default();
            return Some(Command {
                runner,
                scope: scope(scope_words),
                shown: one_line(&shown(first, rest).join(" "), COMMAND_CHARS),
            });
        }
    }
    None
}

/// The runner `name` and the words after it make, and how many of those words it took.
fn runner(name: &str, rest: &[String]) -> Option<(&'static str, usize)> {
    // The first word that is no option, and its index.
    let sub = |from: usize| -> Option<(usize, &str)> {
        rest.iter()
            .enumerate()
            .skip(from)
            .find(|(_, w)| !w.starts_with('-') && !w.starts_with('+'))
            .map(|(i, w)| (i, w.as_str()))
    };
    let word = |i: usize| rest.get(i).map(String::as_str);
    Some(match name {
        "cargo" => {
            let (i, s) = sub(0)?;
            match s {
                "test" | "t" => ("cargo test", i + 1),
                "nextest" if word(i + 1) == Some("run") => ("cargo nextest", i + 2),
                "build" | "b" => ("cargo build", i + 1),
                "check" | "c" => ("cargo check", i + 1),
                "clippy" => ("cargo clippy", i + 1),
                _ => return None,
            }
        }
        "pytest" | "py.test" => ("pytest", 0),
        "tox" => ("tox", 0),
        "mypy" => ("mypy", 0),
        "jest" => ("jest", 0),
        "vitest" => ("vitest", usize::from(word(0) == Some("run"))),
        "mocha" => ("mocha", 0),
        "tsc" => ("tsc", 0),
        "ctest" => ("ctest", 0),
        "rspec" => ("rspec", 0),
        "phpunit" => ("phpunit", 0),
        // Linters whose findings the next session has to fix.
        "eslint" => ("eslint", 0),
        "ruff" => ("ruff", 0),
        "flake8" => ("flake8", 0),
        "markdownlint" | "markdownlint-cli2" => ("markdownlint", 0),
        "golangci-lint" => ("golangci-lint", 0),
        "shellcheck" => ("shellcheck", 0),
        "make" | "gmake" => ("make", 0),
        "mvn" | "mvnw" => ("mvn", 0),
        "gradle" | "gradlew" => ("gradle", 0),
        "playwright" if word(0) == Some("test") => ("playwright test", 1),
        _ if name.starts_with("python") => match (word(0), word(1)) {
            (Some("-m"), Some("pytest")) => ("pytest", 2),
            (Some("-m"), Some("unittest")) => ("unittest", 2),
            (Some("-m"), Some("mypy")) => ("mypy", 2),
            _ => return None,
        },
        "npx" | "bunx" => {
            let (i, s) = sub(0)?;
            let (runner, used) = runner(s, rest.get(i + 1..).unwrap_or_default())?;
            (runner, i + 1 + used)
        }
        "npm" | "pnpm" | "yarn" | "bun" => return package_script(name, rest),
        "go" => match word(0)? {
            "test" => ("go test", 1),
            "build" => ("go build", 1),
            "vet" => ("go vet", 1),
            _ => return None,
        },
        "deno" => match word(0)? {
            "test" => ("deno test", 1),
            "check" => ("deno check", 1),
            _ => return None,
        },
        "dotnet" => match word(0)? {
            "test" => ("dotnet test", 1),
            "build" => ("dotnet build", 1),
            _ => return None,
        },
        "swift" => match word(0)? {
            "test" => ("swift test", 1),
            "build" => ("swift build", 1),
            _ => return None,
        },
        "mix" if word(0) == Some("test") => ("mix test", 1),
        _ => return None,
    })
}

/// `npm test`, `npm run test:unit`, `pnpm build`, `yarn jest`, `bun test`: a package
/// manager running a test or build script (or a runner it installed).
fn package_script(manager: &str, rest: &[String]) -> Option<(&'static str, usize)> {
    let (i, first) = rest.iter().enumerate().find(|(_, w)| !w.starts_with('-'))?;
    let (i, script) = if matches!(first.as_str(), "run" | "run-script") {
        let (j, s) = rest
            .iter()
            .enumerate()
            .skip(i + 1)
            .find(|(_, w)| !w.starts_with('-'))?;
        (j, s.as_str())
    } else {
        (i, first.as_str())
    };
    let label = |test: &'static str, build: &'static str| -> Option<&'static str> {
        if script == "t" || script.starts_with("test") {
            Some(test)
        } else if matches!(script, "build" | "typecheck" | "type-check" | "tsc") {
            Some(build)
        } else {
            None
        }
    };
    let found = match manager {
        "npm" => label("npm test", "npm run build"),
        "pnpm" => label("pnpm test", "pnpm run build"),
        "yarn" => label("yarn test", "yarn run build"),
        _ => label("bun test", "bun run build"),
    };
    match found {
        // The script's own name stays in the scope (`test:unit` is not `test:e2e`).
        Some(runner) => Some((runner, i)),
        // `yarn jest`, `pnpm vitest run`: the runner it installed.
        None if manager != "npm" => {
            let (runner, used) = runner(script, rest.get(i + 1..).unwrap_or_default())?;
            Some((runner, i + 1 + used))
        }
        None => None,
    }
}

/// The commands of a command line: split at `&&`, `||`, `;`, `|`, `&` and newlines outside
/// quotes.
fn segments(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '\\') => {
                current.push(c);
                if let Some(n) = chars.next() {
                    current.push(n);
                }
            }
            // `2>&1`, `&>`: a redirection, not a separator.
            (None, '&') if current.ends_with('>') || chars.peek() == Some(&'>') => {
                current.push(c);
            }
            (None, ';' | '|' | '&' | '\n') => {
                out.push(std::mem::take(&mut current));
            }
            (None, c) => current.push(c),
        }
    }
    out.push(current);
    out.retain(|s| !s.trim().is_empty());
    out
}

/// A command's words, quotes removed.
fn words(segment: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = segment.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// The words from the command itself on: without environment assignments (`RUST_LOG=debug`),
/// wrappers (`env`, `time`, `timeout 60`, `uv run`, …) and their options.
fn skip_prefix(words: &[String]) -> &[String] {
    let mut at = 0;
    loop {
        let Some(w) = words.get(at) else {
            return &[];
        };
        let next = words.get(at + 1).map(String::as_str);
        let name = base(w);
        if is_assignment(w) || WRAPPERS.contains(&name) {
            at += 1;
        } else if name == "timeout" {
            // `timeout [-s SIG] [-k 5] 60 cmd`: past its options and its duration.
            at += 1;
            while let Some(w) = words.get(at) {
                at += 1;
                if !w.starts_with('-') {
                    break;
                }
                if matches!(w.as_str(), "-s" | "-k" | "--signal" | "--kill-after") {
                    at += 1;
                }
            }
        } else if next.is_some_and(|n| WRAPPER_PAIRS.contains(&(name, n))) {
            at += 2;
        } else if w.starts_with('-') && at > 0 {
            // A wrapper's option (`env -i`, `nice -n`…): skipped with it.
            at += 1;
        } else {
            return words.get(at..).unwrap_or_default();
        }
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// A program's name without its directory (`./node_modules/.bin/jest` → `jest`).
fn base(word: &str) -> &str {
    word.rsplit(['/', '\\']).next().unwrap_or(word)
}

/// Whether a word redirects (`2>&1`, `>out.txt`, `>>log`, `<in`, `&>/dev/null`), and whether
/// it takes the next word as its file.
fn redirection(word: &str) -> Option<bool> {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix('&').unwrap_or(rest);
    let target = rest
        .strip_prefix(">>")
        .or_else(|| rest.strip_prefix('>'))
        .or_else(|| rest.strip_prefix('<'))?;
    Some(target.is_empty())
}

/// The words that choose what runs: without redirections and output-only flags.
fn scope(words: &[String]) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut skip = false;
    for (i, w) in words.iter().enumerate() {
        if skip {
            skip = false;
            continue;
        }
        if let Some(takes_next) = redirection(w) {
            skip = takes_next;
            continue;
        }
        let flag = w.split_once('=').map_or(w.as_str(), |(f, _)| f);
        if QUIET_FLAGS.contains(&flag) {
            // `--color always`: its value goes too.
            skip = flag == "--color"
                && !w.contains('=')
                && words
                    .get(i + 1)
                    .is_some_and(|v| matches!(v.as_str(), "always" | "never" | "auto"));
            continue;
        }
        if w == "--" && i + 1 == words.len() {
            continue;
        }
        out.push(w);
    }
    out.join(" ")
}

/// The command as shown: from its runner word on, without redirections.
fn shown<'w>(first: &'w str, rest: &'w [String]) -> Vec<&'w str> {
    let mut out = vec![first];
    let mut skip = false;
    for w in rest {
        if skip {
            skip = false;
        } else if let Some(takes_next) = redirection(w) {
            skip = takes_next;
        } else {
            out.push(w);
        }
    }
    out
}

#[cfg(test)]
#[path = "failures_tests.rs"]
mod tests;
