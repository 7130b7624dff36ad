//! What `megg setup` changes in each host's files (Claude Code, Codex CLI, Gemini CLI, Copilot
//! CLI) and in the pieces they share, as pure functions over JSON values and file texts, so
//! install and uninstall are exact inverses (SPEC §7, §12); the submodules plan each host's
//! part, the shared part and the merge driver, then carry out the plan.

use serde_json::{Map, Value, json};

use crate::host::{Agent, HookLayout, Host, WindowsHooks};

pub mod active;
pub mod claude;
pub mod handler;
pub mod hosts;
pub mod hosts_record;
pub mod merge;
pub mod plan;
pub mod refuse;
pub mod shared;
pub mod toml;
pub mod trust;

pub use handler::{
    CAPTURE_EVENTS, Handler, Hook, MATCHER, PROJECT_CAPTURE, PROJECT_HOOK, Platform,
};

/// Where setup installs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The project (the git top level): each host's project files (.claude/, .codex/,
    /// .gemini/, .github/hooks/), the shared .mcp.json and .gitignore block, and megg's merge
    /// driver in .gitattributes and the repository's git config
    Project,
    /// Your user: each host's files in your home (~/.claude, $CODEX_HOME or ~/.codex,
    /// ~/.gemini, ~/.copilot), and megg's merge driver in your global git config
    User,
}

/// What setup does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The file does not exist yet; setup writes it.
    Create,
    /// The file exists; setup merges megg's entries into it (after a backup).
    Update,
    /// Only megg's entries were in it; setup deletes it.
    Remove,
    /// Already as it should be; nothing is written.
    Unchanged,
    /// A file megg installed that the user then edited: left alone.
    Skipped,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Update => "update",
            Self::Remove => "remove",
            Self::Unchanged => "unchanged",
            Self::Skipped => "skipped",
        }
    }

    /// Whether carrying it out writes or deletes anything.
    pub fn changes(self) -> bool {
        !matches!(self, Self::Unchanged | Self::Skipped)
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The handlers registered for `event` in a hooks file of `host`'s layout.
fn handlers<'v>(settings: &'v Value, host: &Host, event: &str) -> Vec<&'v Value> {
    let list = settings
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    match host.layout {
        HookLayout::Flat => list.collect(),
        HookLayout::Grouped => list
            .filter_map(|entry| entry.get("hooks").and_then(Value::as_array))
            .flatten()
            .collect(),
    }
}

/// [`handlers`], to change in place.
fn handlers_mut<'v>(settings: &'v mut Value, host: &Host, event: &str) -> Vec<&'v mut Value> {
    let list = settings
        .get_mut("hooks")
        .and_then(|h| h.get_mut(event))
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten();
    match host.layout {
        HookLayout::Flat => list.collect(),
        HookLayout::Grouped => list
            .filter_map(|entry| entry.get_mut("hooks").and_then(Value::as_array_mut))
            .flatten()
            .collect(),
    }
}

/// The commands of megg's `hook` registered for `event` in a Claude Code settings value.
pub fn event_commands(settings: &Value, hook: Hook, event: &str) -> Vec<String> {
    event_commands_of(settings, Agent::Claude.host(), hook, event)
}

/// The commands of megg's `hook` registered for `event` in `host`'s hooks file: each shell
/// line as written, an exec form as the POSIX line it stands for (`program args…`).
pub fn event_commands_of(settings: &Value, host: &Host, hook: Hook, event: &str) -> Vec<String> {
    handlers(settings, host, event)
        .into_iter()
        .filter_map(|h| {
            let program = hook.program_in(host, h)?;
            match h.get("args") {
                Some(_) => Some(format!(
                    "{} {}",
                    crate::shell::shell_quote(&program),
                    hook.args(host)
                )),
                None => handler::shell_line(host, h).map(str::to_string),
            }
        })
        .collect()
}

/// megg's `hook` handler objects in `host`'s hooks file, each with its event.
pub fn megg_handlers<'v>(
    settings: &'v Value,
    host: &'static Host,
    hook: Hook,
) -> Vec<(&'static str, &'v Value)> {
    hook.events_of(host)
        .iter()
        .flat_map(|event| {
            handlers(settings, host, event)
                .into_iter()
                .filter(|h| hook.program_in(host, h).is_some())
                .map(|h| (*event, h))
        })
        .collect()
}

/// The commands of megg's `hook` registered in a Claude Code settings value, over all its
/// events.
pub fn hook_commands(settings: &Value, hook: Hook) -> Vec<String> {
    hook_commands_of(settings, Agent::Claude.host(), hook)
}

/// The commands of megg's `hook` registered in `host`'s hooks file, over all its events.
pub fn hook_commands_of(settings: &Value, host: &'static Host, hook: Hook) -> Vec<String> {
    hook.events_of(host)
        .iter()
        .flat_map(|event| event_commands_of(settings, host, hook, event))
        .collect()
}

/// Adds `hook` running `command` to each of its Claude Code events that does not run it yet;
/// `false` when all of them already do.
pub fn add_hook(settings: &mut Value, hook: Hook, command: &str) -> Result<bool, String> {
    add_hook_of(settings, Agent::Claude.host(), hook, command)
}

/// [`add_hook`] in `host`'s hooks file.
pub fn add_hook_of(
    settings: &mut Value,
    host: &'static Host,
    hook: Hook,
    command: &str,
) -> Result<bool, String> {
    add_handler(
        settings,
        host,
        hook,
        &Handler::shell(command),
        Platform::Unix,
    )
}

/// Adds megg's `hook` as `wanted` to each of its events in `host`'s hooks file, as the host
/// runs hooks on `platform`; `false` when every event already has it. An event whose megg
/// handler runs the same line gets the other keys brought up to date in place (a Windows key
/// added beside the POSIX line keeps its place, so Codex's trust of that line holds); one
/// whose megg handler does not run on `platform` has it rewritten in place; a project's
/// handler as setup writes it on another OS, which runs here too, is kept (plain `megg`).
pub fn add_handler(
    settings: &mut Value,
    host: &'static Host,
    hook: Hook,
    wanted: &Handler,
    platform: Platform,
) -> Result<bool, String> {
    let program = wanted.program(host, hook);
    let mut added = false;
    for event in hook.events_of(host) {
        let mut ours: Vec<&mut Value> = handlers_mut(settings, host, event)
            .into_iter()
            .filter(|h| hook.program_in(host, h).is_some())
            .collect();
        if ours.iter().any(|h| wanted.is(host, h)) {
            continue;
        }
        // Claude Code on Windows (SPEC §15.1): setup writes shell lines only for one too old
        // for the exec form, so there an exec form does not run; and the plain `megg` line it
        // writes where megg's path would not read alike in both shells is this hook again.
        let claude_on_windows = platform == Platform::Windows && host.windows == WindowsHooks::Exec;
        let fallback = Handler::both_shells(host, hook, None);
        // The same binary in another form (a shell line become the exec form after a host
        // update) is this hook again, not a second one. A project's plain `megg` may be a
        // teammate's form, kept below.
        let same_binary = |h: &Value| {
            program.as_deref().is_some_and(|p| {
                p != "megg"
                    && ((claude_on_windows && fallback.is(host, h))
                        || hook
                            .program_in(host, h)
                            .is_some_and(|q| handler::same_program(p, &q)))
            })
        };
        let unrunnable_exec =
            |h: &Value| claude_on_windows && wanted.args.is_none() && h.get("args").is_some();
        let replace = ours
            .iter()
            .position(|h| wanted.same_main(host, h))
            .or_else(|| {
                ours.iter()
                    .position(|h| !handler::runs_on(host, h, platform) || unrunnable_exec(h))
            })
            .or_else(|| ours.iter().position(|h| same_binary(h)));
        if let Some(object) = replace
            .and_then(|i| ours.get_mut(i))
            .and_then(|h| h.as_object_mut())
        {
            wanted.put(host, object);
            added = true;
            continue;
        }
        if program.as_deref() == Some("megg") && ours.iter().any(|h| project_form(host, hook, h)) {
            continue;
        }
        let entry = hook.entry(host, event, wanted);
        let root = settings
            .as_object_mut()
            .ok_or("the file is not a JSON object")?;
        if host.layout == HookLayout::Flat && !root.contains_key("version") {
            root.insert("version".into(), json!(1));
        }
        let hooks = root
            .entry("hooks")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or("`hooks` is not an object")?;
        let list = hooks
            .entry(*event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not an array"))?;
        list.push(entry);
        added = true;
    }
    Ok(added)
}

/// Whether `h` is megg's project handler of `hook` as setup writes it on some OS.
fn project_form(host: &'static Host, hook: Hook, h: &Value) -> bool {
    [Platform::Unix, Platform::Windows]
        .into_iter()
        .map(|p| Handler::wanted(host, hook, p, None))
        .chain([Handler::both_shells(host, hook, None)])
        .any(|w| w.is(host, h))
}

/// Removes every `hook` running `command` from its Claude Code events, and the entries, event
/// lists and `hooks` object left empty by that; `false` when there was none.
pub fn remove_hook(settings: &mut Value, hook: Hook, command: &str) -> bool {
    remove_hook_of(settings, Agent::Claude.host(), hook, command)
}

/// [`remove_hook`] in `host`'s hooks file (Copilot's `version` goes with the last hook, as
/// setup added it).
pub fn remove_hook_of(
    settings: &mut Value,
    host: &'static Host,
    hook: Hook,
    command: &str,
) -> bool {
    remove_handler(settings, host, hook, &Handler::shell(command))
}

/// Removes every handler of megg's `hook` that is `wanted` or runs the same program in any
/// form (an older unguarded install, the other OS's form), as [`remove_hook`] does.
pub fn remove_handler(
    settings: &mut Value,
    host: &'static Host,
    hook: Hook,
    wanted: &Handler,
) -> bool {
    let Some(root) = settings.as_object_mut() else {
        return false;
    };
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    let program = wanted.program(host, hook);
    // The same binary in any form, and for Claude Code the plain `megg` line setup writes on
    // Windows where a path would not read alike in both shells ([`Handler::both_shells`]).
    let fallback = Handler::both_shells(host, hook, None);
    let megg = |h: &Value| {
        wanted.is(host, h)
            || program.as_deref().is_some_and(|p| {
                (p != "megg" && host.windows == WindowsHooks::Exec && fallback.is(host, h))
                    || hook
                        .program_in(host, h)
                        .is_some_and(|q| handler::same_program(p, &q))
            })
    };
    let mut removed = false;
    for event in hook.events_of(host) {
        let Some(list) = hooks.get_mut(*event).and_then(Value::as_array_mut) else {
            continue;
        };
        let before = list.len();
        let mut removed_here = false;
        match host.layout {
            HookLayout::Flat => {
                list.retain(|h| !megg(h));
                removed_here = list.len() != before;
            }
            HookLayout::Grouped => list.retain_mut(|entry| {
                let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) else {
                    return true;
                };
                let before = inner.len();
                inner.retain(|h| !megg(h));
                let changed = inner.len() != before;
                removed_here |= changed;
                // An entry megg emptied goes; one the user left empty stays.
                !(changed && inner.is_empty())
            }),
        }
        if removed_here && list.is_empty() {
            hooks.remove(*event);
        }
        removed |= removed_here;
    }
    if removed && hooks.is_empty() {
        root.remove("hooks");
        if host.layout == HookLayout::Flat
            && root.len() == 1
            && root.get("version") == Some(&json!(1))
        {
            root.remove("version");
        }
    }
    removed
}

/// Registers the MCP server `megg` in a `.mcp.json` value; `false` when it already is.
pub fn add_mcp(config: &mut Value, command: &str) -> Result<bool, String> {
    add_mcp_entry(config, mcp_entry(command)?)
}

/// The `mcpServers.megg` entry running `command mcp` (Claude Code's shape, which Gemini CLI
/// and Copilot's `.mcp.json` read as it is).
pub fn mcp_entry(command: &str) -> Result<Value, String> {
    serde_json::from_str(&crate::templates::fill(
        crate::templates::MCP,
        &[("command", &json_escape(command))],
    ))
    .map_err(|e| format!("mcp template: {e}"))
}

/// Copilot's user-scope entry: a local server whose tools are all enabled.
pub fn copilot_mcp_entry(command: &str) -> Result<Value, String> {
    let mut entry = mcp_entry(command)?;
    if let Some(o) = entry.as_object_mut() {
        let mut shaped = Map::new();
        shaped.insert("type".into(), json!("local"));
        shaped.append(o);
        shaped.insert("tools".into(), json!(["*"]));
        *o = shaped;
    }
    Ok(entry)
}

/// Registers `wanted` as the MCP server `megg` under `mcpServers`; `false` when it already is.
pub fn add_mcp_entry(config: &mut Value, wanted: Value) -> Result<bool, String> {
    let root = config
        .as_object_mut()
        .ok_or("the file is not a JSON object")?;
    let servers = root
        .entry("mcpServers")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or("`mcpServers` is not an object")?;
    if servers.get("megg") == Some(&wanted) {
        return Ok(false);
    }
    servers.insert("megg".into(), wanted);
    Ok(true)
}

/// Removes the MCP server `megg`; `false` when it was not there.
pub fn remove_mcp(config: &mut Value) -> bool {
    let Some(root) = config.as_object_mut() else {
        return false;
    };
    let Some(servers) = root.get_mut("mcpServers").and_then(Value::as_object_mut) else {
        return false;
    };
    if servers.remove("megg").is_none() {
        return false;
    }
    if servers.is_empty() {
        root.remove("mcpServers");
    }
    true
}

/// Whether a `.mcp.json`-shaped value registers megg.
pub fn has_mcp(config: &Value) -> bool {
    config
        .get("mcpServers")
        .and_then(|s| s.get("megg"))
        .is_some()
}

fn json_escape(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap_or_default();
    let inside = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"'));
    inside.unwrap_or_default().to_string()
}

/// How megg writes a JSON file: two-space indent, final newline.
pub fn to_text(value: &Value) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// How the last line of a file megg installed is commented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// `<!-- … -->`: markdown (Claude Code's commands and skill).
    Html,
    /// `# …`: TOML (Gemini CLI's commands).
    Hash,
}

impl Marker {
    fn line(self, hash: u64) -> String {
        match self {
            Self::Html => format!("<!-- installed by megg setup; megg-hash: {hash:016x} -->"),
            Self::Hash => format!("# installed by megg setup; megg-hash: {hash:016x}"),
        }
    }

    fn hash_in(self, line: &str) -> Option<&str> {
        match self {
            Self::Html => line
                .strip_prefix("<!-- installed by megg setup; megg-hash: ")?
                .strip_suffix(" -->"),
            Self::Hash => line.strip_prefix("# installed by megg setup; megg-hash: "),
        }
    }
}

/// The last line of a file megg installed: a hash of everything above it, so megg can tell
/// its own unedited files from files the user changed.
pub fn mark(content: &str) -> String {
    mark_with(Marker::Html, content)
}

/// [`mark`] in a file commented with `marker`.
pub fn mark_with(marker: Marker, content: &str) -> String {
    format!("{content}\n{}\n", marker.line(hash(content)))
}

fn hash(s: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(s.as_bytes())
}

/// What an installed-file path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    /// Exactly what this megg installs.
    Current,
    /// Installed by megg (unedited) from another version of the template.
    Stale,
    /// Installed by megg, then edited by the user.
    Edited,
    /// Not megg's file.
    Foreign,
}

/// Classifies an existing file against the `template` this megg would install.
pub fn classify_installed(existing: &str, template: &str) -> Installed {
    classify_installed_with(Marker::Html, existing, template)
}

/// [`classify_installed`] for a file commented with `marker`.
pub fn classify_installed_with(marker: Marker, existing: &str, template: &str) -> Installed {
    if existing == mark_with(marker, template) {
        return Installed::Current;
    }
    let body = existing.trim_end_matches('\n');
    let Some((content, last)) = body.rsplit_once('\n') else {
        return Installed::Foreign;
    };
    let Some(h) = marker.hash_in(last) else {
        return Installed::Foreign;
    };
    if u64::from_str_radix(h, 16).ok() == Some(hash(content)) {
        Installed::Stale
    } else {
        Installed::Edited
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are built with std::fs
mod tests {
    use super::*;
    use crate::megg::setup::handler::GUARD;

    #[test]
    fn hook_add_is_idempotent_and_remove_is_its_inverse() {
        let original = json!({"model": "x", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "other"}]}], "Stop": []}});
        let mut v = original.clone();
        assert!(add_hook(&mut v, Hook::Context, "megg context --json").unwrap());
        assert!(!add_hook(&mut v, Hook::Context, "megg context --json").unwrap());
        assert_eq!(hook_commands(&v, Hook::Context), ["megg context --json"]);
        assert_eq!(v["hooks"]["SessionStart"][1]["matcher"], MATCHER);
        assert!(remove_hook(&mut v, Hook::Context, "megg context --json"));
        assert_eq!(v, original);
        let mut empty = json!({});
        add_hook(&mut empty, Hook::Context, "/abs/megg context --json").unwrap();
        remove_hook(&mut empty, Hook::Context, "/abs/megg context --json");
        assert_eq!(empty, json!({}));
        assert!(add_hook(&mut json!([]), Hook::Context, "megg context --json").is_err());
    }

    #[test]
    fn capture_hooks_join_the_users_own_and_leave_them_as_they_were() {
        let original = json!({"hooks": {
            "SessionStart": [{"matcher": MATCHER, "hooks": [{"type": "command", "command": PROJECT_HOOK}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}, {"hooks": []}],
            "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "echo c"}]}]
        }});
        let mut v = original.clone();
        assert!(add_hook(&mut v, Hook::Capture, PROJECT_CAPTURE).unwrap());
        assert!(!add_hook(&mut v, Hook::Capture, PROJECT_CAPTURE).unwrap());
        let entry = json!({"hooks": [{"type": "command", "command": PROJECT_CAPTURE}]});
        for event in CAPTURE_EVENTS {
            assert_eq!(event_commands(&v, Hook::Capture, event), [PROJECT_CAPTURE]);
            assert_eq!(v["hooks"][event].as_array().unwrap().last(), Some(&entry));
        }
        // Each hook sees only its own commands.
        assert_eq!(hook_commands(&v, Hook::Context), [PROJECT_HOOK]);
        assert_eq!(hook_commands(&v, Hook::Capture).len(), CAPTURE_EVENTS.len());
        assert!(remove_hook(&mut v, Hook::Capture, PROJECT_CAPTURE));
        assert!(!remove_hook(&mut v, Hook::Capture, PROJECT_CAPTURE));
        assert_eq!(v, original, "the user's empty Stop entry stays too");
        // Keys setup created go with it, down to `hooks`.
        let mut v = json!({"model": "x"});
        add_hook(&mut v, Hook::Capture, "'/a b/megg' capture").unwrap();
        add_hook(&mut v, Hook::Context, "'/a b/megg' context --json").unwrap();
        remove_hook(&mut v, Hook::Capture, "'/a b/megg' capture");
        assert_eq!(v["hooks"].as_object().unwrap().len(), 1);
        remove_hook(&mut v, Hook::Context, "'/a b/megg' context --json");
        assert_eq!(v, json!({"model": "x"}));
        let mut bad = json!({"hooks": {"Stop": {}}});
        assert!(add_hook(&mut bad, Hook::Capture, PROJECT_CAPTURE).is_err());
    }

    #[test]
    fn megg_hooks_are_recognised_by_any_path() {
        assert!(Hook::Context.matches("megg context --json"));
        assert_eq!(Hook::Context.program(PROJECT_HOOK).as_deref(), Some("megg"));
        // Uninstalling the guarded hook also removes an older unguarded one.
        let mut v = json!({});
        add_hook(&mut v, Hook::Context, "megg context --json").unwrap();
        assert!(remove_hook(&mut v, Hook::Context, PROJECT_HOOK));
        assert_eq!(v, json!({}));
        assert!(Hook::Context.matches("/home/u/.cargo/bin/megg context --json"));
        assert!(Hook::Context.matches("'/a b/megg' context --json"));
        assert!(!Hook::Context.matches("megg context"));
        assert!(!Hook::Context.matches("notmegg context --json"));
    }

    #[test]
    fn capture_hooks_are_recognised_by_any_path() {
        assert_eq!(
            Hook::Capture.program(PROJECT_CAPTURE).as_deref(),
            Some("megg")
        );
        assert_eq!(
            Hook::Capture.program("'/a b/megg' capture").as_deref(),
            Some("/a b/megg")
        );
        assert!(Hook::Capture.matches("/home/u/.cargo/bin/megg capture"));
        assert!(!Hook::Capture.matches("megg capture --dry-run"));
        assert!(!Hook::Capture.matches("megg context --json"));
        assert!(!Hook::Context.matches(PROJECT_CAPTURE));
        assert!(!Hook::Capture.matches("megg-capture"));
        assert!(!Hook::Capture.matches("notmegg capture"));
        // The project commands are the guard, then what user scope installs with plain `megg`.
        for hook in [Hook::Context, Hook::Capture] {
            assert_eq!(
                hook.project_command(),
                format!("{GUARD}{}", hook.command("megg"))
            );
        }
        // Uninstalling removes any spelling of the same program.
        let mut v = json!({});
        add_hook(&mut v, Hook::Capture, "megg capture").unwrap();
        assert!(remove_hook(&mut v, Hook::Capture, PROJECT_CAPTURE));
        assert_eq!(v, json!({}));
    }

    #[test]
    fn a_handler_is_brought_up_to_date_in_place_and_settles_across_oses() {
        let codex = Agent::Codex.host();
        let wanted = Handler::wanted(codex, Hook::Context, Platform::Unix, None);
        let mut v = json!({"hooks": {"SessionStart": [
            {"hooks": [{"type": "command", "command": "echo first"}]},
            {"hooks": [{"type": "command", "command": wanted.command, "timeout": 30}]}
        ]}});
        // An older install: the Windows line joins the POSIX one, in its place.
        assert!(add_handler(&mut v, codex, Hook::Context, &wanted, Platform::Unix).unwrap());
        let h = &v["hooks"]["SessionStart"][1]["hooks"][0];
        assert_eq!(h["commandWindows"], json!(wanted.windows));
        assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
        assert!(!add_handler(&mut v, codex, Hook::Context, &wanted, Platform::Windows).unwrap());

        let claude = Agent::Claude.host();
        let (unix, windows) = (
            Handler::wanted(claude, Hook::Capture, Platform::Unix, None),
            Handler::wanted(claude, Hook::Capture, Platform::Windows, None),
        );
        let mut v = json!({});
        add_handler(&mut v, claude, Hook::Capture, &unix, Platform::Unix).unwrap();
        // On Windows the POSIX line is rewritten where it is; back on Unix it is kept.
        assert!(add_handler(&mut v, claude, Hook::Capture, &windows, Platform::Windows).unwrap());
        for event in CAPTURE_EVENTS {
            let list = v["hooks"][event].as_array().unwrap();
            assert_eq!(list.len(), 1);
            assert!(windows.is(claude, &list[0]["hooks"][0]), "{v}");
        }
        assert!(!add_handler(&mut v, claude, Hook::Capture, &unix, Platform::Unix).unwrap());
        assert!(remove_handler(&mut v, claude, Hook::Capture, &unix));
        assert_eq!(v, json!({}));
        // A user's own megg elsewhere is not a project's: added beside it, as before.
        let mut v = json!({});
        add_handler(
            &mut v,
            claude,
            Hook::Capture,
            &Handler::shell("/a/megg capture"),
            Platform::Unix,
        )
        .unwrap();
        assert!(add_handler(&mut v, claude, Hook::Capture, &unix, Platform::Unix).unwrap());
        assert_eq!(event_commands(&v, Hook::Capture, "Stop").len(), 2);
    }

    #[test]
    fn mcp_add_and_remove() {
        let original = json!({"mcpServers": {"other": {"command": "x"}}});
        let mut v = original.clone();
        assert!(add_mcp(&mut v, "megg").unwrap());
        assert_eq!(
            v["mcpServers"]["megg"],
            json!({"command": "megg", "args": ["mcp"]})
        );
        assert!(!add_mcp(&mut v, "megg").unwrap());
        assert!(remove_mcp(&mut v));
        assert_eq!(v, original);
        let mut e = json!({});
        add_mcp(&mut e, "megg").unwrap();
        remove_mcp(&mut e);
        assert_eq!(e, json!({}));
    }

    #[test]
    fn installed_files_know_their_state() {
        let t = "---\nname: x\n---\nbody\n";
        assert_eq!(classify_installed(&mark(t), t), Installed::Current);
        assert_eq!(classify_installed(&mark("older\n"), t), Installed::Stale);
        let edited = mark(t).replace("body", "my body");
        assert_eq!(classify_installed(&edited, t), Installed::Edited);
        assert_eq!(
            classify_installed("user's own file\n", t),
            Installed::Foreign
        );
    }

    #[test]
    fn gitignore_block_removal() {
        let (with, added) = super::super::gitignore::ensure("target/\n");
        let added: Vec<String> = added.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            crate::megg::block::remove_lines(&with, &added).unwrap(),
            "target/\n"
        );
        assert_eq!(crate::megg::block::remove_lines("target/\n", &added), None);
        // Lines that were there before setup are not in `added` and stay.
        let before = "# megg: per-developer session state (not shared)\n.*.local.md\n";
        let (with, added) = super::super::gitignore::ensure(before);
        let added: Vec<String> = added.iter().map(|s| s.to_string()).collect();
        assert_eq!(added, ["**/.megg/state.md"]);
        assert_eq!(
            crate::megg::block::remove_lines(&with, &added).unwrap(),
            before
        );
    }
}
