//! megg's MCP server in a Codex `config.toml` (SPEC §12), edited with toml_edit so the user's
//! comments, order and formatting stay as they were.

use toml_edit::{Array, DocumentMut, Item, Table, value};

/// Parses a `config.toml`. toml_edit 0.23 panics on some malformed input (`=={\r.`, found by
/// the fuzzer): that is a parse error here too, never a panic (SPEC §16).
pub fn parse(text: &str) -> Result<DocumentMut, String> {
    std::panic::catch_unwind(|| text.parse::<DocumentMut>())
        .map_err(|_| "the TOML parser failed on it".to_string())?
        .map_err(|e| e.to_string())
}

/// Registers `[mcp_servers.megg]` running `command mcp`; `false` when it already does.
pub fn add_mcp(doc: &mut DocumentMut, command: &str) -> Result<bool, String> {
    if has_mcp_running(doc, command) {
        return Ok(false);
    }
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_mut()
        .ok_or("`mcp_servers` is not a table")?;
    let mut megg = Table::new();
    megg.insert("command", value(command));
    megg.insert("args", value(Array::from_iter(["mcp"])));
    servers.insert("megg", Item::Table(megg));
    Ok(true)
}

/// Removes `[mcp_servers.megg]` (and `mcp_servers`, when megg's was its only server and it
/// has no header of its own); `false` when it was not there.
pub fn remove_mcp(doc: &mut DocumentMut) -> bool {
    // A table or an inline one (`mcp_servers = { megg = { … } }`): wherever `has_mcp` finds it.
    let Some(servers) = doc.get_mut("mcp_servers").and_then(Item::as_table_like_mut) else {
        return false;
    };
    if servers.remove("megg").is_none() {
        return false;
    }
    let implicit_and_empty = doc
        .get("mcp_servers")
        .and_then(Item::as_table)
        .is_some_and(|t| t.is_empty() && t.is_implicit());
    if implicit_and_empty {
        doc.remove("mcp_servers");
    }
    true
}

/// Whether `[mcp_servers.megg]` is there (whatever it runs).
pub fn has_mcp(doc: &DocumentMut) -> bool {
    doc.get("mcp_servers")
        .and_then(Item::as_table_like)
        .is_some_and(|s| s.contains_key("megg"))
}

/// The program `[mcp_servers.megg]` runs, when it is there.
pub fn mcp_command(doc: &DocumentMut) -> Option<String> {
    doc.get("mcp_servers")?
        .as_table_like()?
        .get("megg")?
        .as_table_like()?
        .get("command")?
        .as_str()
        .map(str::to_string)
}

fn has_mcp_running(doc: &DocumentMut, command: &str) -> bool {
    let Some(megg) = doc
        .get("mcp_servers")
        .and_then(Item::as_table_like)
        .and_then(|s| s.get("megg"))
        .and_then(Item::as_table_like)
    else {
        return false;
    };
    let args: Option<Vec<&str>> = megg
        .get("args")
        .and_then(Item::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect());
    megg.get("command").and_then(Item::as_str) == Some(command) && args == Some(vec!["mcp"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_joins_the_users_file_and_leaves_it_as_it_was() {
        let original = "# my codex settings\nmodel = \"o3\" # inline\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let mut doc: DocumentMut = original.parse().unwrap();
        assert!(add_mcp(&mut doc, "megg").unwrap());
        assert!(!add_mcp(&mut doc, "megg").unwrap());
        let text = doc.to_string();
        assert!(text.starts_with(original), "{text}");
        assert!(text.contains("[mcp_servers.megg]\ncommand = \"megg\"\nargs = [\"mcp\"]\n"));
        assert_eq!(mcp_command(&doc).as_deref(), Some("megg"));
        // Another program is replaced, not added twice.
        assert!(add_mcp(&mut doc, "/abs/megg").unwrap());
        assert_eq!(text.matches("[mcp_servers.megg]").count(), 1);
        assert!(remove_mcp(&mut doc));
        assert!(!remove_mcp(&mut doc));
        assert_eq!(doc.to_string(), original);
        let mut empty = DocumentMut::new();
        add_mcp(&mut empty, "megg").unwrap();
        assert_eq!(
            empty.to_string(),
            "[mcp_servers.megg]\ncommand = \"megg\"\nargs = [\"mcp\"]\n"
        );
        remove_mcp(&mut empty);
        assert_eq!(empty.to_string(), "");
        let mut bad: DocumentMut = "mcp_servers = 1\n".parse().unwrap();
        assert!(add_mcp(&mut bad, "megg").is_err());
    }
}
