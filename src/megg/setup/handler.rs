//! megg's hook handlers as each host runs them, on Unix and on Windows (SPEC §7, §12, §15.1):
//! the events of each hook, the handler setup writes for a scope and a platform, and how one of
//! megg's handlers is recognised in a hooks file whatever spelling of the binary it names.
//!
//! The platform is an input here, never read from the build: the command passes
//! [`Platform::current`], and the tests plan Windows files on Linux.

use serde_json::{Map, Value, json};

use crate::host::{Agent, HookLayout, Host, WindowsHooks};
use crate::shell::{is_powershell_single_quote, powershell_quote, shell_quote};

/// The hook entry's matcher.
pub const MATCHER: &str = "startup|resume|clear|compact";

/// The project-scope hook command. It lives in a committed file, so for a teammate without
/// megg it is a silent no-op instead of a hook error in every session (SPEC §7).
pub const PROJECT_HOOK: &str =
    "command -v megg >/dev/null 2>&1 || exit 0; exec megg context --json";

/// The project-scope capture command, guarded like [`PROJECT_HOOK`] (SPEC §10).
pub const PROJECT_CAPTURE: &str = "command -v megg >/dev/null 2>&1 || exit 0; exec megg capture";

/// The guard before `exec` in [`PROJECT_HOOK`] and [`PROJECT_CAPTURE`].
pub const GUARD: &str = "command -v megg >/dev/null 2>&1 || exit 0; exec ";

/// The same guard in PowerShell (5.1 has no `||`): a project's Windows line where the host has a
/// key of its own for one (Codex `commandWindows`, Copilot `powershell`).
pub const POWERSHELL_GUARD: &str = "if (Get-Command megg -ErrorAction SilentlyContinue) { ";

/// What closes [`POWERSHELL_GUARD`].
const POWERSHELL_GUARD_END: &str = " }";

/// The Claude Code events megg's capture hooks run on (SPEC §10).
/// `PostCompact` hands over the host's own compaction summary (SPEC §18.1).
pub const CAPTURE_EVENTS: [&str; 4] = ["PreCompact", "PostCompact", "SessionEnd", "Stop"];

/// The operating system whose hosts run the hooks setup writes and doctor reads (SPEC §15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// Linux and macOS: every host runs a hook's line with a POSIX shell.
    Unix,
    /// Windows: each host runs hooks its own way ([`WindowsHooks`]).
    Windows,
}

impl Platform {
    /// The platform megg runs on. The tests switch to Windows on Linux with the failure point
    /// `windows-hooks` (a build with the `failpoints` feature only).
    pub fn current() -> Self {
        if cfg!(windows) || crate::failpoint::off("windows-hooks") {
            Self::Windows
        } else {
            Self::Unix
        }
    }
}

/// One of megg's hooks in a host's hooks file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// The session-start hook runs `megg context`: the context the session starts with
    /// (SPEC §3.3, §12).
    Context,
    /// Claude Code's PreCompact, PostCompact, SessionEnd and Stop run `megg capture`: the session's handoff
    /// (SPEC §10).
    Capture,
}

impl Hook {
    /// What setup's report and warnings call it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Context => "SessionStart hook",
            Self::Capture => "capture hooks",
        }
    }

    /// The events it is registered for in Claude Code.
    pub fn events(self) -> &'static [&'static str] {
        self.events_of(Agent::Claude.host())
    }

    /// The events it is registered for in `host`.
    pub fn events_of(self, host: &'static Host) -> &'static [&'static str] {
        match self {
            Self::Context => std::slice::from_ref(&host.start_event),
            Self::Capture => host.capture_events,
        }
    }

    /// megg's arguments, after the binary, in `host`'s hooks.
    pub fn args(self, host: &Host) -> String {
        match self {
            Self::Context => host.context_args(),
            Self::Capture => match host.agent {
                Agent::Claude => "capture".into(),
                a => format!("capture --agent {}", a.as_str()),
            },
        }
    }

    /// Claude Code's project-scope command: plain `megg`, guarded.
    pub fn project_command(self) -> &'static str {
        match self {
            Self::Context => PROJECT_HOOK,
            Self::Capture => PROJECT_CAPTURE,
        }
    }

    /// The project-scope command in `host`'s hooks: plain `megg`, guarded (a committed file:
    /// a silent no-op for a teammate without megg, SPEC §7).
    pub fn project_command_of(self, host: &Host) -> String {
        format!("{GUARD}{}", self.command_of(host, "megg"))
    }

    /// The command running `program` (already shell-quoted), as user scope installs it.
    pub fn command(self, program: &str) -> String {
        self.command_of(Agent::Claude.host(), program)
    }

    /// The command running `program` (already shell-quoted) in `host`'s hooks.
    pub fn command_of(self, host: &Host, program: &str) -> String {
        format!("{program} {}", self.args(host))
    }

    /// The binary `command` runs (unquoted), or `None` when the command is not this megg hook
    /// of Claude Code (megg with this hook's arguments, any path to the binary, guarded or not).
    pub fn program(self, command: &str) -> Option<String> {
        self.program_of(Agent::Claude.host(), command)
    }

    /// [`Hook::program`] for `host`'s hooks: a POSIX line or a PowerShell one.
    pub fn program_of(self, host: &Host, command: &str) -> Option<String> {
        let line = Line::parse(command)?;
        (line.args == self.args(host) && is_megg(&line.program)).then_some(line.program)
    }

    /// Whether a hook command is this megg hook of Claude Code (any spelling of the binary).
    pub fn matches(self, command: &str) -> bool {
        self.program(command).is_some()
    }

    /// The program one handler object of `host`'s hooks file runs, when it is this megg hook:
    /// the exec form (`command` + `args`), else its shell line (the POSIX key, else the
    /// Windows one).
    pub fn program_in(self, host: &Host, handler: &Value) -> Option<String> {
        if let Some(args) = handler.get("args") {
            let args: Vec<&str> = args
                .as_array()?
                .iter()
                .map(Value::as_str)
                .collect::<Option<_>>()?;
            let program = handler.get("command")?.as_str()?;
            return (args.join(" ") == self.args(host) && is_megg(program))
                .then(|| program.to_string());
        }
        shell_line(host, handler).and_then(|c| self.program_of(host, c))
    }

    /// The entry `event` gets in `host`'s hooks file.
    pub fn entry(self, host: &Host, event: &str, handler: &Handler) -> Value {
        let mut object = Map::new();
        object.insert("type".into(), json!("command"));
        if let Some(name) = host.handler_name {
            object.insert("name".into(), json!(name));
        }
        handler.put(host, &mut object);
        if let Some((key, value)) = host.timeout {
            let short = host.short_timeouts.iter().find(|(e, _)| *e == event);
            object.insert(key.into(), json!(short.map_or(value, |(_, s)| *s)));
        }
        match host.layout {
            HookLayout::Flat => Value::Object(object),
            HookLayout::Grouped => {
                let mut entry = Map::new();
                if let (Self::Context, Some(m)) = (self, host.start_matcher) {
                    entry.insert("matcher".into(), json!(m));
                }
                entry.insert("hooks".into(), json!([object]));
                Value::Object(entry)
            }
        }
    }
}

impl std::fmt::Display for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of megg's handlers as setup writes it: the keys beside `type`, the host's `name` and
/// its timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    /// The host's main key (`command`; Copilot's `bash`): a POSIX shell line, or — with
    /// `args` — the program the exec form spawns.
    pub command: String,
    /// Claude Code's exec form: the arguments, passed with no shell.
    pub args: Option<Vec<String>>,
    /// The PowerShell line under the host's Windows key (Codex `commandWindows`, Copilot
    /// `powershell`): written only where it differs from `command`.
    pub windows: Option<String>,
}

impl Handler {
    /// A handler with one shell line.
    pub fn shell(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            args: None,
            windows: None,
        }
    }

    /// megg's `hook` for `host` as setup writes it on `platform`: `exe` (megg's absolute path)
    /// at user scope, `None` at project scope, where a committed file names plain `megg` —
    /// guarded where the shell allows, and with each host's per-OS key where it has one, so
    /// the same file serves a team on every OS (SPEC §15.1).
    pub fn wanted(host: &Host, hook: Hook, platform: Platform, exe: Option<&str>) -> Self {
        let args = hook.args(host);
        let posix = match exe {
            Some(exe) => format!("{} {args}", shell_quote(exe)),
            None => format!("{GUARD}megg {args}"),
        };
        let powershell = match exe {
            Some(exe) => format!("& {} {args}", powershell_quote(exe)),
            None => format!("{POWERSHELL_GUARD}megg {args}{POWERSHELL_GUARD_END}"),
        };
        match (host.windows, platform, exe) {
            (WindowsHooks::Exec, Platform::Windows, _) => Self {
                command: exe.unwrap_or("megg").to_string(),
                args: Some(args.split(' ').map(String::from).collect()),
                windows: None,
            },
            // A user's own file on Unix never runs on Windows: no key for it.
            (WindowsHooks::Key(_), Platform::Unix, Some(_)) => Self::shell(posix),
            (WindowsHooks::Key(_), _, _) => Self {
                windows: (powershell != posix).then_some(powershell),
                ..Self::shell(posix)
            },
            // One command for every OS: a line PowerShell 5.1 and bash both run.
            (WindowsHooks::PowerShell, Platform::Windows, None) => {
                Self::shell(format!("megg {args}"))
            }
            (WindowsHooks::PowerShell, Platform::Windows, Some(_)) => Self::shell(powershell),
            (_, Platform::Unix, _) => Self::shell(posix),
        }
    }

    /// megg's `hook` for a Claude Code too old for the exec form ([`crate::claude::EXEC_FORM_SINCE`])
    /// on Windows: one shell line that Git Bash and PowerShell both run (SPEC §15.1) — `exe`
    /// with forward slashes when every character of it reads alike in both ([`both_shells_word`]),
    /// else plain `megg` from PATH.
    pub fn both_shells(host: &Host, hook: Hook, exe: Option<&str>) -> Self {
        let program = exe
            .map(|e| e.replace('\\', "/"))
            .filter(|p| both_shells_word(p))
            .unwrap_or_else(|| "megg".to_string());
        Self::shell(format!("{program} {}", hook.args(host)))
    }

    /// The program it runs, when it is megg's `hook` of `host`.
    pub fn program(&self, host: &Host, hook: Hook) -> Option<String> {
        match &self.args {
            Some(args) => (args.join(" ") == hook.args(host) && is_megg(&self.command))
                .then(|| self.command.clone()),
            None => hook.program_of(host, &self.command),
        }
    }

    /// How a hint shows it: the shell line, or the exec form as `program args…`.
    pub fn display(&self) -> String {
        match &self.args {
            Some(args) => format!("{} {}", shell_quote(&self.command), args.join(" ")),
            None => self.command.clone(),
        }
    }

    /// Whether the handler object `v` holds exactly these keys.
    pub fn is(&self, host: &Host, v: &Value) -> bool {
        self.same_main(host, v)
            && windows_key(host)
                .and_then(|k| v.get(k))
                .and_then(Value::as_str)
                == self.windows.as_deref()
    }

    /// Whether `v` runs the same main line (or exec form), whatever its Windows key.
    pub fn same_main(&self, host: &Host, v: &Value) -> bool {
        let args = v.get("args").map(|a| {
            a.as_array()
                .map(|a| a.iter().map(|w| w.as_str().map(String::from)).collect())
        });
        v.get(main_key(host)).and_then(Value::as_str) == Some(self.command.as_str())
            && args.flatten().flatten() == self.args
            && (self.args.is_some() || v.get("args").is_none())
    }

    /// Puts its keys into `object` where the keys of the handler it replaces were (the rest
    /// of the object — `type`, a name, a timeout, keys megg does not know — stays as it was).
    pub fn put(&self, host: &Host, object: &mut Map<String, Value>) {
        let ours = [Some(main_key(host)), Some("args"), windows_key(host)];
        let old = std::mem::take(object);
        let mut placed = false;
        for (key, value) in old {
            if ours.contains(&Some(key.as_str())) {
                if !placed {
                    self.insert(host, object);
                    placed = true;
                }
                continue;
            }
            object.insert(key, value);
        }
        if !placed {
            self.insert(host, object);
        }
    }

    fn insert(&self, host: &Host, object: &mut Map<String, Value>) {
        object.insert(main_key(host).into(), json!(self.command));
        if let Some(args) = &self.args {
            object.insert("args".into(), json!(args));
        }
        if let (Some(key), Some(line)) = (windows_key(host), &self.windows) {
            object.insert(key.into(), json!(line));
        }
    }
}

/// The key of a handler's main command: `command` (Claude Code, Codex, Gemini) or `bash`
/// (Copilot).
fn main_key(host: &Host) -> &'static str {
    match host.layout {
        HookLayout::Grouped => "command",
        HookLayout::Flat => "bash",
    }
}

/// The key of the host's own Windows line, where it has one.
fn windows_key(host: &Host) -> Option<&'static str> {
    match host.windows {
        WindowsHooks::Key(key) => Some(key),
        WindowsHooks::Exec | WindowsHooks::PowerShell => None,
    }
}

/// The shell line of one handler object: its `command` or `bash`, else its Windows line.
pub fn shell_line<'v>(host: &Host, handler: &'v Value) -> Option<&'v str> {
    handler
        .get("command")
        .or_else(|| handler.get("bash"))
        .or_else(|| windows_key(host).and_then(|k| handler.get(k)))
        .and_then(Value::as_str)
}

/// Whether one of megg's handler objects runs as `host` runs hooks on `platform`: on Unix a
/// POSIX line or the exec form; on Windows the exec form, the host's Windows key, or a line
/// its shell there runs — Claude Code's shell form must run in Git Bash and in PowerShell
/// both, Copilot runs only its `powershell` key (SPEC §15.1).
pub fn runs_on(host: &Host, handler: &Value, platform: Platform) -> bool {
    if handler.get("args").is_some() {
        return true; // the exec form: no shell on any OS
    }
    let syntax = |line: &str| Line::parse(line).map(|l| l.syntax);
    match platform {
        Platform::Unix => handler
            .get(main_key(host))
            .and_then(Value::as_str)
            .and_then(syntax)
            .is_some_and(|s| s != Syntax::PowerShell),
        Platform::Windows => {
            let own = windows_key(host).and_then(|k| handler.get(k));
            // Codex falls back to `command` in PowerShell; Copilot never runs `bash` there.
            let line = match (own, host.layout) {
                (Some(line), _) => line.as_str(),
                (None, HookLayout::Grouped) => handler.get("command").and_then(Value::as_str),
                (None, HookLayout::Flat) => None,
            };
            let wanted: &[Syntax] = match host.windows {
                WindowsHooks::Exec => &[Syntax::Both],
                WindowsHooks::Key(_) | WindowsHooks::PowerShell => {
                    &[Syntax::Both, Syntax::PowerShell]
                }
            };
            line.and_then(syntax).is_some_and(|s| wanted.contains(&s))
        }
    }
}

/// Whether `word` is a program path Git Bash and PowerShell both run as written, unquoted: a
/// drive letter, forward slashes, and ASCII letters, digits, `_`, `.`, `-`, `+`, `~` — nothing
/// either shell would expand, split or read as an operator, and nothing a code page could
/// change on its way to Windows PowerShell 5.1.
pub fn both_shells_word(word: &str) -> bool {
    let mut chars = word.chars();
    let drive = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.next() == Some(':')
        && chars.next() == Some('/');
    drive
        && chars
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+' | '/' | '~'))
}

/// Whether two spellings of a program are the same path: Windows reads `/` as `\`.
pub fn same_program(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.chars()
            .zip(b.chars())
            .all(|(x, y)| x == y || (matches!(x, '/' | '\\') && matches!(y, '/' | '\\')))
}

/// Whether `program` names megg: `megg` or `megg.exe`, bare or at the end of a path.
fn is_megg(program: &str) -> bool {
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    base == "megg"
        || (base.len() == 8
            && base
                .get(..4)
                .is_some_and(|s| s.eq_ignore_ascii_case("megg"))
            && base
                .get(4..)
                .is_some_and(|e| e.eq_ignore_ascii_case(".exe")))
}

/// Which shell a line of megg's is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    /// A POSIX shell's only (`command -v`, `'…'\''…'`, `/dev/null`).
    Posix,
    /// PowerShell's only (`& '…'`, `if (Get-Command …)`).
    PowerShell,
    /// Both read it alike: plain `megg` and plain words.
    Both,
}

/// One of megg's hook lines taken apart: a program, then its arguments.
#[derive(Debug)]
struct Line {
    syntax: Syntax,
    program: String,
    args: String,
}

impl Line {
    /// The forms setup writes and older megg wrote: `program args`, with the program plain,
    /// POSIX single-quoted, double-quoted, or after PowerShell's `&` as a verbatim string, the
    /// whole maybe inside the POSIX or the PowerShell guard. `None` for anything else.
    fn parse(line: &str) -> Option<Self> {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(GUARD) {
            return Self::parse(rest).map(|l| Self {
                syntax: Syntax::Posix,
                ..l
            });
        }
        if let Some(rest) = line
            .strip_prefix(POWERSHELL_GUARD)
            .and_then(|r| r.strip_suffix(POWERSHELL_GUARD_END))
        {
            return Self::parse(rest).map(|l| Self {
                syntax: Syntax::PowerShell,
                ..l
            });
        }
        let (syntax, program, rest) = if let Some(rest) = line.strip_prefix("& ") {
            let (program, rest) = powershell_word(rest.trim_start())?;
            (Syntax::PowerShell, program, rest)
        } else if line.starts_with('\'') {
            let (program, rest) = posix_word(line)?;
            (Syntax::Posix, program, rest)
        } else if let Some(rest) = line.strip_prefix('"') {
            let (program, rest) = rest.split_once('"')?;
            (Syntax::Posix, program.to_string(), rest)
        } else {
            let (program, rest) = line.split_at(line.find(' ').unwrap_or(line.len()));
            let syntax = if program.contains('\\') {
                Syntax::PowerShell
            } else if is_megg(program) && (!program.contains('/') || both_shells_word(program)) {
                Syntax::Both
            } else {
                Syntax::Posix
            };
            (syntax, program.to_string(), rest)
        };
        if !(rest.is_empty() || rest.starts_with(' ')) {
            return None;
        }
        Some(Self {
            syntax,
            program,
            args: rest.trim().to_string(),
        })
    }
}

/// A POSIX word of single-quoted parts joined by `\'` (as [`shell_quote`] writes it), and the
/// rest of the line.
fn posix_word(s: &str) -> Option<(String, &str)> {
    let mut rest = s;
    let mut word = String::new();
    loop {
        if let Some(r) = rest.strip_prefix('\'') {
            let (quoted, after) = r.split_once('\'')?;
            word.push_str(quoted);
            rest = after;
        } else if let Some(r) = rest.strip_prefix("\\'") {
            word.push('\'');
            rest = r;
        } else {
            return Some((word, rest));
        }
    }
}

/// A PowerShell verbatim string (quotes doubled inside, as [`powershell_quote`] writes it),
/// and the rest of the line.
fn powershell_word(s: &str) -> Option<(String, &str)> {
    let mut chars = s.char_indices().peekable();
    let (_, open) = chars.next()?;
    if !is_powershell_single_quote(open) {
        return None;
    }
    let mut word = String::new();
    while let Some((i, c)) = chars.next() {
        if !is_powershell_single_quote(c) {
            word.push(c);
            continue;
        }
        match chars.peek() {
            Some(&(_, next)) if is_powershell_single_quote(next) => {
                word.push(c);
                chars.next();
            }
            _ => return Some((word, s.get(i + c.len_utf8()..)?)),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(agent: Agent) -> &'static Host {
        agent.host()
    }

    #[test]
    fn each_host_gets_its_form_per_scope_and_platform() {
        let exe = r"C:\Users\Zoë\it's\megg.exe";
        let claude = host(Agent::Claude);
        let w = Handler::wanted(claude, Hook::Context, Platform::Windows, Some(exe));
        assert_eq!(w.command, exe);
        assert_eq!(w.args, Some(vec!["context".into(), "--json".into()]));
        assert_eq!(w.windows, None);
        let w = Handler::wanted(claude, Hook::Capture, Platform::Windows, None);
        assert_eq!(
            (w.command.as_str(), w.args),
            ("megg", Some(vec!["capture".into()]))
        );
        // Unix: as before.
        let w = Handler::wanted(claude, Hook::Context, Platform::Unix, None);
        assert_eq!(w, Handler::shell(PROJECT_HOOK));
        let w = Handler::wanted(claude, Hook::Capture, Platform::Unix, Some("/a b/megg"));
        assert_eq!(w, Handler::shell("'/a b/megg' capture"));

        let codex = host(Agent::Codex);
        let w = Handler::wanted(codex, Hook::Context, Platform::Windows, Some(exe));
        assert_eq!(
            w.command,
            r"'C:\Users\Zoë\it'\''s\megg.exe' context --format hook --agent codex"
        );
        assert_eq!(
            w.windows.as_deref(),
            Some(r"& 'C:\Users\Zoë\it''s\megg.exe' context --format hook --agent codex")
        );
        // Project scope: the same file whichever OS wrote it.
        for platform in [Platform::Unix, Platform::Windows] {
            let w = Handler::wanted(codex, Hook::Capture, platform, None);
            assert_eq!(
                w.command,
                format!("{GUARD}megg capture --agent codex"),
                "{platform:?}"
            );
            assert_eq!(
                w.windows.as_deref(),
                Some(
                    "if (Get-Command megg -ErrorAction SilentlyContinue) { megg capture --agent codex }"
                )
            );
        }
        // A user's own file on Unix has no Windows key.
        let w = Handler::wanted(codex, Hook::Context, Platform::Unix, Some("/u/megg"));
        assert_eq!(w.windows, None);

        let gemini = host(Agent::Gemini);
        let w = Handler::wanted(gemini, Hook::Context, Platform::Windows, Some(exe));
        assert_eq!(
            w,
            Handler::shell(r"& 'C:\Users\Zoë\it''s\megg.exe' context --format hook --agent gemini")
        );
        let w = Handler::wanted(gemini, Hook::Capture, Platform::Windows, None);
        assert_eq!(w, Handler::shell("megg capture --agent gemini"));

        let copilot = host(Agent::Copilot);
        let w = Handler::wanted(copilot, Hook::Context, Platform::Unix, None);
        assert!(w.windows.as_deref().unwrap().starts_with(POWERSHELL_GUARD));
    }

    #[test]
    fn every_form_is_recognised_and_placed_by_where_it_runs() {
        let exe = r"C:\Program Files\it's\megg.exe";
        for agent in [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Copilot] {
            let host = host(agent);
            for hook in [Hook::Context, Hook::Capture] {
                for platform in [Platform::Unix, Platform::Windows] {
                    for program in [Some(exe), Some("/home/u/.cargo/bin/megg"), None] {
                        let wanted = Handler::wanted(host, hook, platform, program);
                        let entry = hook.entry(host, "E", &wanted);
                        let object = entry.get("hooks").and_then(|h| h.get(0)).unwrap_or(&entry);
                        let name = program.unwrap_or("megg");
                        assert_eq!(
                            hook.program_in(host, object).as_deref(),
                            Some(name),
                            "{agent:?} {hook:?} {platform:?} {object}"
                        );
                        assert_eq!(wanted.program(host, hook).as_deref(), Some(name));
                        assert!(wanted.is(host, object));
                        // The other hook is not this one.
                        let other = [Hook::Context, Hook::Capture]
                            .into_iter()
                            .find(|h| *h != hook);
                        assert_eq!(other.unwrap().program_in(host, object), None);
                        if program != Some("/home/u/.cargo/bin/megg") {
                            assert!(runs_on(host, object, platform), "{object}");
                        }
                    }
                }
            }
        }
        // A POSIX line in a Windows user's file runs nowhere there but Git Bash.
        let codex = host(Agent::Codex);
        let posix = json!({"type": "command", "command": "'C:\\megg.exe' context --format hook --agent codex"});
        assert!(!runs_on(codex, &posix, Platform::Windows));
        assert!(runs_on(codex, &posix, Platform::Unix));
        let guarded = json!({"command": PROJECT_HOOK});
        assert!(!runs_on(host(Agent::Claude), &guarded, Platform::Windows));
        // Copilot never runs `bash` on Windows, whatever the line.
        let copilot = host(Agent::Copilot);
        let bare = json!({"bash": "megg context --format hook --agent copilot"});
        assert!(!runs_on(copilot, &bare, Platform::Windows));
        // Plain `megg` runs in both shells; PowerShell's forms only in PowerShell.
        let gemini = host(Agent::Gemini);
        let bare = json!({"command": "megg capture --agent gemini"});
        assert!(
            runs_on(gemini, &bare, Platform::Windows) && runs_on(gemini, &bare, Platform::Unix)
        );
        let amp = json!({"command": "& 'C:\\megg.exe' capture --agent gemini"});
        assert!(!runs_on(gemini, &amp, Platform::Unix));
    }

    /// A Claude Code too old for the exec form gets one line both Windows shells read alike:
    /// megg's path with forward slashes where nothing in it is special to either, else `megg`.
    #[test]
    fn the_line_for_both_shells_names_a_plain_path_or_megg() {
        let claude = host(Agent::Claude);
        let line = |exe| Handler::both_shells(claude, Hook::Context, exe).command;
        assert_eq!(
            line(Some(r"C:\Users\zoe\AppData\Local\Programs\megg\megg.exe")),
            "C:/Users/zoe/AppData/Local/Programs/megg/megg.exe context --json"
        );
        for odd in [
            r"C:\Users\Zoë\megg.exe",
            r"C:\Program Files\megg\megg.exe",
            r"C:\it's\megg.exe",
            r"C:\a$b\megg.exe",
            r"C:\(x)\megg.exe",
            r"C:\a;b\megg.exe",
            r"\\server\share\megg.exe",
            "/usr/local/bin/megg",
        ] {
            assert_eq!(line(Some(odd)), "megg context --json", "{odd}");
        }
        assert_eq!(line(None), "megg context --json");
        assert_eq!(
            Handler::both_shells(claude, Hook::Capture, None).command,
            "megg capture"
        );
        // Either line runs on Windows for Claude Code (Git Bash or PowerShell), and is megg's.
        for l in [
            "megg context --json",
            "C:/Users/zoe/megg.exe context --json",
        ] {
            let v = json!({ "type": "command", "command": l });
            assert!(runs_on(claude, &v, Platform::Windows), "{l}");
            assert!(Hook::Context.program_in(claude, &v).is_some(), "{l}");
        }
        assert!(same_program(r"C:\a\megg.exe", "C:/a/megg.exe"));
        assert!(!same_program(r"C:\a\megg.exe", "C:/b/megg.exe"));
        assert!(!same_program("megg", "megg.exe"));
    }

    #[test]
    fn megg_is_named_by_any_path_on_either_os() {
        for yes in [
            "megg",
            "megg.exe",
            "MEGG.EXE",
            "/a/megg",
            r"C:\x\megg.exe",
            "C:/x/megg.Exe",
        ] {
            assert!(is_megg(yes), "{yes}");
        }
        for no in [
            "notmegg",
            "megg-capture",
            "megg.cmd",
            r"C:\x\megg.ps1",
            ".exe",
            "",
        ] {
            assert!(!is_megg(no), "{no}");
        }
        let h = Hook::Context;
        assert_eq!(
            h.program(r"& 'C:\it''s\megg.exe' context --json")
                .as_deref(),
            Some(r"C:\it's\megg.exe")
        );
        assert_eq!(h.program("megg context --json --x"), None);
        assert_eq!(h.program("& 'C:\\megg.exe'context --json"), None);
        assert_eq!(h.program("& 'C:\\megg.exe context --json"), None);
        // An exec form with other arguments is not this hook.
        let v = json!({"command": "megg", "args": ["context"]});
        assert_eq!(h.program_in(host(Agent::Claude), &v), None);
        let v = json!({"command": "megg", "args": ["context", 1]});
        assert_eq!(h.program_in(host(Agent::Claude), &v), None);
    }

    #[test]
    fn put_keeps_the_place_of_the_keys_it_replaces() {
        let codex = host(Agent::Codex);
        let mut object = Map::new();
        for (k, v) in [
            ("type", json!("command")),
            ("command", json!("x")),
            ("timeout", json!(30)),
            ("mine", json!(1)),
        ] {
            object.insert(k.into(), v);
        }
        let h = Handler {
            windows: Some("w".into()),
            ..Handler::shell("c")
        };
        h.put(codex, &mut object);
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["type", "command", "commandWindows", "timeout", "mine"]
        );
        Handler::shell("c").put(codex, &mut object);
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(keys, ["type", "command", "timeout", "mine"]);
    }
}
