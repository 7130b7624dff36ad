//! What `megg setup` changes in Claude Code's files, as pure functions over JSON values and
//! file texts, so install and uninstall are exact inverses (SPEC §7).

use serde_json::{Map, Value, json};

pub mod active;
pub mod merge;
pub mod plan;

/// Where setup installs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The project (the git top level): .claude/, .mcp.json, .gitignore, and megg's merge
    /// driver in .gitattributes and the repository's git config
    Project,
    /// Your user: ~/.claude/, `claude mcp add --scope user`, and megg's merge driver in your
    /// global git config
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

/// The hook entry's matcher.
pub const MATCHER: &str = "startup|resume|clear|compact";

/// The project-scope hook command. It lives in a committed file, so for a teammate without
/// megg it is a silent no-op instead of a hook error in every session (SPEC §7).
pub const PROJECT_HOOK: &str =
    "command -v megg >/dev/null 2>&1 || exit 0; exec megg context --json";

/// The project-scope capture command, guarded like [`PROJECT_HOOK`] (SPEC §10).
pub const PROJECT_CAPTURE: &str = "command -v megg >/dev/null 2>&1 || exit 0; exec megg capture";

/// The guard before `exec` in [`PROJECT_HOOK`] and [`PROJECT_CAPTURE`].
const GUARD: &str = "command -v megg >/dev/null 2>&1 || exit 0; exec ";

/// The Claude Code events megg's capture hooks run on (SPEC §10).
pub const CAPTURE_EVENTS: [&str; 3] = ["PreCompact", "SessionEnd", "Stop"];

/// One of megg's hooks in Claude Code's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// SessionStart runs `megg context --json`: the context the session starts with (SPEC §3.3).
    Context,
    /// PreCompact, SessionEnd and Stop run `megg capture`: the session's handoff (SPEC §10).
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

    /// The events it is registered for.
    pub fn events(self) -> &'static [&'static str] {
        match self {
            Self::Context => &["SessionStart"],
            Self::Capture => &CAPTURE_EVENTS,
        }
    }

    /// megg's arguments, after the binary.
    fn args(self) -> &'static str {
        match self {
            Self::Context => "context --json",
            Self::Capture => "capture",
        }
    }

    /// The project-scope command: plain `megg`, guarded.
    pub fn project_command(self) -> &'static str {
        match self {
            Self::Context => PROJECT_HOOK,
            Self::Capture => PROJECT_CAPTURE,
        }
    }

    /// The command running `program` (already shell-quoted), as user scope installs it.
    pub fn command(self, program: &str) -> String {
        format!("{program} {}", self.args())
    }

    /// The settings entry one event gets, `{{command}}` to fill.
    fn template(self) -> &'static str {
        match self {
            Self::Context => crate::templates::HOOK,
            Self::Capture => crate::templates::CAPTURE_HOOK,
        }
    }

    /// The binary `command` runs (unquoted), or `None` when the command is not this megg hook
    /// (megg with this hook's arguments, any path to the binary, guarded or not).
    pub fn program(self, command: &str) -> Option<String> {
        let command = command.trim();
        let command = command.strip_prefix(GUARD).unwrap_or(command);
        let program = command.strip_suffix(self.args())?.strip_suffix(' ')?.trim();
        let program = match program
            .strip_prefix('\'')
            .and_then(|p| p.strip_suffix('\''))
        {
            Some(quoted) => quoted.replace("'\\''", "'"),
            None => program.trim_matches('"').to_string(),
        };
        (program == "megg" || program.ends_with("/megg")).then_some(program)
    }

    /// Whether a hook command is this megg hook (any spelling of the binary).
    pub fn matches(self, command: &str) -> bool {
        self.program(command).is_some()
    }
}

impl std::fmt::Display for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn entries<'v>(settings: &'v Value, event: &str) -> impl Iterator<Item = &'v Value> {
    settings
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The commands of megg's `hook` registered for `event` in a settings value.
pub fn event_commands(settings: &Value, hook: Hook, event: &str) -> Vec<String> {
    entries(settings, event)
        .filter_map(|entry| entry.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str))
        .filter(|c| hook.matches(c))
        .map(str::to_string)
        .collect()
}

/// The commands of megg's `hook` registered in a settings value, over all its events.
pub fn hook_commands(settings: &Value, hook: Hook) -> Vec<String> {
    hook.events()
        .iter()
        .flat_map(|event| event_commands(settings, hook, event))
        .collect()
}

/// Adds `hook` running `command` to each of its events that does not run it yet; `false` when
/// all of them already do.
pub fn add_hook(settings: &mut Value, hook: Hook, command: &str) -> Result<bool, String> {
    let entry: Value = serde_json::from_str(&crate::templates::fill(
        hook.template(),
        &[("command", &json_escape(command))],
    ))
    .map_err(|e| format!("hook template: {e}"))?;
    let mut added = false;
    for event in hook.events() {
        if event_commands(settings, hook, event)
            .iter()
            .any(|c| c == command)
        {
            continue;
        }
        let root = settings
            .as_object_mut()
            .ok_or("the settings file is not a JSON object")?;
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
        list.push(entry.clone());
        added = true;
    }
    Ok(added)
}

/// Removes every `hook` running `command` from its events, and the entries, event lists and
/// `hooks` object left empty by that; `false` when there was none.
pub fn remove_hook(settings: &mut Value, hook: Hook, command: &str) -> bool {
    let Some(root) = settings.as_object_mut() else {
        return false;
    };
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    // Any spelling of the same program: an older unguarded install goes too.
    let program = hook.program(command);
    let megg = |h: &Value| {
        let c = h.get("command").and_then(Value::as_str);
        c == Some(command) || (program.is_some() && c.and_then(|c| hook.program(c)) == program)
    };
    let mut removed = false;
    for event in hook.events() {
        let Some(list) = hooks.get_mut(*event).and_then(Value::as_array_mut) else {
            continue;
        };
        let mut removed_here = false;
        list.retain_mut(|entry| {
            let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let before = inner.len();
            inner.retain(|h| !megg(h));
            let changed = inner.len() != before;
            removed_here |= changed;
            // An entry megg emptied goes; one the user left empty stays.
            !(changed && inner.is_empty())
        });
        if removed_here && list.is_empty() {
            hooks.remove(*event);
        }
        removed |= removed_here;
    }
    if removed && hooks.is_empty() {
        root.remove("hooks");
    }
    removed
}

/// Registers the MCP server `megg` in a `.mcp.json` value; `false` when it already is.
pub fn add_mcp(config: &mut Value, command: &str) -> Result<bool, String> {
    let wanted: Value = serde_json::from_str(&crate::templates::fill(
        crate::templates::MCP,
        &[("command", &json_escape(command))],
    ))
    .map_err(|e| format!("mcp template: {e}"))?;
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
    quoted[1..quoted.len() - 1].to_string()
}

/// How megg writes a JSON file: two-space indent, final newline.
pub fn to_text(value: &Value) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// The last line of a file megg installed: a hash of everything above it, so megg can tell
/// its own unedited files from files the user changed.
pub fn mark(content: &str) -> String {
    format!(
        "{content}\n<!-- installed by megg setup; megg-hash: {:016x} -->\n",
        hash(content)
    )
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
    if existing == mark(template) {
        return Installed::Current;
    }
    let body = existing.trim_end_matches('\n');
    let Some((content, last)) = body.rsplit_once('\n') else {
        return Installed::Foreign;
    };
    let Some(h) = last
        .strip_prefix("<!-- installed by megg setup; megg-hash: ")
        .and_then(|r| r.strip_suffix(" -->"))
    else {
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
        assert_eq!(hook_commands(&v, Hook::Capture).len(), 3);
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
