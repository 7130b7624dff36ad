//! `megg mcp`: driven by the official MCP Python SDK and, independently, the official
//! TypeScript SDK (both pinned, installed on first use into the target directory by
//! `common::provision`; without python3 or npm the two tests skip, under `CI` they fail), and
//! fed malformed JSON-RPC directly.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::provision;
use crate::{Git, NOW, Project};

#[test]
fn the_official_python_sdk_calls_every_tool() {
    let Some(python) = provision::mcp_python() else {
        return;
    };
    let p = Project::new();
    Git::init(p.root(), "main").commit("main", crate::epoch(NOW) - 60, "init");
    let outside = tempfile::tempdir().unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(assert_cmd::cargo::cargo_bin("megg"))
        .arg(p.root())
        .arg(outside.path())
        .env("HOME", p.root())
        .env("MEGG_CEILING_DIRS", p.root().parent().unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"));
}

/// Sends `lines` to a fresh `megg mcp`, closes stdin, and returns every JSON message it wrote.
fn exchange(p: &Project, lines: &[&str]) -> (Vec<Value>, String) {
    let (stdout, stderr) = exchange_raw(p, lines);
    let messages = stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout is protocol only ({e}): {l}"))
        })
        .collect();
    (messages, stderr)
}

/// Sends `lines` to a fresh `megg mcp`, closes stdin, and returns its stdout and stderr as
/// written (a reply's bytes, as a host receives them).
fn exchange_raw(p: &Project, lines: &[&str]) -> (String, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("megg"))
        .arg("mcp")
        .current_dir(p.root())
        .env("MEGG_NOW", NOW)
        .env("MEGG_CACHE_DIR", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for l in lines {
            writeln!(stdin, "{l}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn reply(messages: &[Value], id: u64) -> &Value {
    messages
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no reply to {id}: {messages:?}"))
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[test]
fn malformed_requests_get_errors_and_the_server_keeps_serving() {
    let p = Project::new();
    p.domain("", "P");
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            "this line is not JSON",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"id": 3, "something": "of the wrong shape"}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"learn","arguments":{"title":7,"type":"fact","topics":"x","content":"c"}}}"#,
            r###"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"state","arguments":{"content":"## Working On\nraw"}}}"###,
        ],
    );
    assert_eq!(reply(&messages, 1)["result"]["serverInfo"]["name"], "megg");
    assert_eq!(
        reply(&messages, 1)["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(
        reply(&messages, 2)["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        13,
        "served after garbage"
    );
    assert!(
        messages.iter().any(|m| m["error"]["code"] == -32600),
        "wrong shape → invalid request: {messages:?}"
    );
    assert!(
        reply(&messages, 4)["error"]["code"].is_i64(),
        "unknown tool → protocol error"
    );
    let bad = reply(&messages, 5);
    assert!(
        bad["error"].is_object() || bad["result"]["isError"] == true,
        "{bad}"
    );
    assert_eq!(reply(&messages, 6)["result"]["isError"], false);
    // Calls run concurrently (off the protocol loop): read back in a second session.
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"state","arguments":{}}}"#,
        ],
    );
    // `state` returns text only (what the model reads, SPEC §7).
    let state = &reply(&messages, 7)["result"];
    assert!(state["structuredContent"].is_null(), "{state}");
    assert!(
        state["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("## Working On\nraw"),
        "{state}"
    );
    assert!(p.read(".megg/state.md").ends_with("## Working On\nraw"));
}

#[test]
fn domain_failures_are_error_results_with_the_cli_message() {
    let p = Project::new();
    p.mkdir("empty");
    let (messages, stderr) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"state","arguments":{"content":"x","path":"empty"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"checkpoint_update","arguments":{"target":"x","phase":"shipping"}}}"#,
        ],
    );
    let r = &reply(&messages, 2)["result"];
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("error: no .megg directory at or above"),
        "{text}"
    );
    assert!(text.contains("hint: run `megg init`"), "{text}");
    let r = &reply(&messages, 3)["result"];
    assert_eq!(r["isError"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("shipping")
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Tool calls run off the protocol loop (SPEC §7): a `ping` sent while `maintain` walks a big
/// tree is answered before the walk's result. On one current-thread loop running the call
/// inline, the ping waited for the walk.
#[test]
fn ping_is_answered_while_a_long_call_works() {
    let p = Project::new();
    p.domain("", "P");
    for i in 0..40 {
        for j in 0..50 {
            std::fs::create_dir_all(p.path(&format!("tree/d{i}/e{j}"))).unwrap();
        }
    }
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"maintain","arguments":{"path":"tree"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        ],
    );
    let position = |id: u64| messages.iter().position(|m| m["id"] == id).unwrap();
    assert!(
        position(3) < position(2),
        "the ping waited for the walk: {messages:?}"
    );
}

/// `checkpoint_list` pages (SPEC §7: no result over 10,000 characters): 400 checkpoints gave
/// the model 374k characters; now one page, with `total` and `truncated`.
#[test]
fn checkpoint_list_pages_and_stays_under_ten_thousand_characters() {
    let p = Project::new();
    crate::Git::init(p.root(), "main").commit("main", 1_000_000, "init");
    p.write("docs/plans/p.md", "# plan\n");
    p.ok("", &["checkpoint", "save", "docs/plans/p.md"]);
    let text = p.read(".p.local.md");
    for i in 0..399 {
        p.write(
            &format!(".plan-{i}.local.md"),
            text.replace("p.md", &format!("p{i}.md")),
        );
    }
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"checkpoint_list","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"checkpoint_list","arguments":{"limit":5,"offset":398}}}"#,
        ],
    );
    let first = &reply(&messages, 2)["result"];
    let doc = &first["structuredContent"];
    assert_eq!(doc["total"], 400, "{doc}");
    assert_eq!(doc["truncated"], true);
    let page = doc["checkpoints"].as_array().unwrap().len();
    assert!((1..=10).contains(&page), "{page}");
    let shown = first["content"][0]["text"].as_str().unwrap();
    assert!(shown.chars().count() <= 10_000, "{} chars", shown.len());
    let last = &reply(&messages, 3)["result"]["structuredContent"];
    assert_eq!(last["checkpoints"].as_array().unwrap().len(), 2);
    // The CLI's own document is not paged.
    let v = p.json("", &["checkpoint", "list", "--json"]);
    assert_eq!(v["checkpoints"].as_array().unwrap().len(), 400);
    assert!(v.get("total").is_none());
}

/// Messages out of order never end the server (SPEC §7): a `notifications/initialized` and a
/// request before `initialize` (the request gets "not initialized"), then a normal session.
#[test]
fn messages_before_initialize_never_end_the_server() {
    let p = Project::new();
    p.domain("", "P");
    let (messages, _) = exchange(
        &p,
        &[
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#,
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ],
    );
    assert_eq!(reply(&messages, 9)["error"]["code"], -32002);
    assert_eq!(reply(&messages, 1)["result"]["serverInfo"]["name"], "megg");
    assert_eq!(
        reply(&messages, 2)["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        13
    );
}

/// The official TypeScript SDK (tests/mcp/ts, its package-lock.json installed with `npm ci`
/// under the target directory): every inputSchema and outputSchema compiles as JSON Schema,
/// every tool is called, and every structured result matches the schema its tool declared.
#[test]
fn the_official_typescript_sdk_validates_every_schema_and_result() {
    let Some(dir) = provision::mcp_typescript() else {
        return;
    };
    let p = Project::new();
    Git::init(p.root(), "main").commit("main", crate::epoch(NOW) - 60, "init");
    let out = Command::new("node")
        .arg(dir.join("client.mjs"))
        .arg(assert_cmd::cargo::cargo_bin("megg"))
        .arg(p.root())
        .env("HOME", p.root())
        .env("MEGG_CEILING_DIRS", p.root().parent().unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("every schema and structured result checked")
    );
}

/// Errors speak MCP (SPEC §7): the hint is the next tool call with its parameter names, not a
/// command-line flag.
#[test]
fn errors_name_tool_parameters_not_flags() {
    let p = Project::new();
    p.domain("", "P");
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"init","arguments":{"info":"again"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"checkpoint_finish","arguments":{"target":"nothing"}}}"#,
        ],
    );
    let init = reply(&messages, 2)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(init.contains("`force: true`"), "{init}");
    assert!(!init.contains("--force"), "{init}");
    let finish = reply(&messages, 3)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        finish.contains("`checkpoint_save` tool with `plan_file`"),
        "{finish}"
    );
}

/// `context` with `format: "json"` cuts its content fields to the result limit (SPEC §7): no
/// result over 10,000 characters, even with knowledge just under the `full` limit.
#[test]
fn context_json_cuts_its_content_to_the_result_limit() {
    let p = Project::new();
    p.domain("", "P");
    p.write(".megg/knowledge.md", crate::knowledge_file(7_900));
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context","arguments":{"format":"json"}}}"#,
        ],
    );
    let result = &reply(&messages, 2)["result"];
    let doc = &result["structuredContent"];
    let size = serde_json::to_string(doc).unwrap().chars().count();
    assert!(size <= 10_000, "{size} characters");
    assert!(
        doc["knowledge"]["content"]
            .as_str()
            .unwrap()
            .ends_with("[… cut to fit the result limit]"),
        "{doc}"
    );
    assert_eq!(doc["knowledge"]["mode"], "full");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.chars().count() <= 10_000);
}

/// SPEC §12: the MCP `learn` refuses a secret like the CLI, and `allow_secrets` writes it.
#[test]
fn learn_over_mcp_refuses_secrets_unless_allowed() {
    let p = Project::new();
    p.domain("", "P");
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"learn","arguments":{"title":"T","type":"fact","topics":["x"],"content":"password=hunter2"}}}"#,
        ],
    );
    let r = &reply(&messages, 2)["result"];
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("error: a password, secret or token value in the content, line 1"),
        "{text}"
    );
    assert!(
        text.contains("allow_secrets: true") && !text.contains("hunter2"),
        "{text}"
    );
    assert!(!p.path(".megg/knowledge.md").exists());
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"learn","arguments":{"title":"T","type":"fact","topics":["x"],"content":"password=hunter2","allow_secrets":true}}}"#,
        ],
    );
    assert_eq!(reply(&messages, 2)["result"]["isError"], false);
    assert!(p.read(".megg/knowledge.md").contains("password=hunter2"));
}

/// One `tools/call` of `tool` with `arguments` in a fresh session, through raw JSON-RPC (no SDK,
/// so it runs on every machine): the call's `result`, or `{"error": …}` for a protocol error.
pub(crate) fn call_tool(p: &Project, tool: &str, arguments: &Value) -> Value {
    let call = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    })
    .to_string();
    let (messages, _) = exchange(p, &[INIT, INITIALIZED, &call]);
    let r = reply(&messages, 2);
    r.get("result")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({ "error": r["error"] }))
}

/// A cursor that is no position is refused like every other parameter error (SPEC §7 "errors
/// speak MCP"): what is wrong, then a `hint:` line with the next call. Its hint was inside the
/// message, unlike the other cursor errors'.
#[test]
fn a_cursor_that_does_not_parse_gets_a_hint_line() {
    let p = Project::new();
    p.domain("", "P");
    for (tool, arguments) in [
        ("search", serde_json::json!({"query": "x", "cursor": "x"})),
        (
            "show",
            serde_json::json!({"ids": ["kzzzzzzz"], "cursor": "x:y"}),
        ),
    ] {
        let r = call_tool(&p, tool, &arguments);
        assert_eq!(r["isError"], true, "{r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        let (error, hint) = text.split_once("\nhint: ").unwrap_or((text, ""));
        assert!(error.starts_with("error: cursor: \"x"), "{text}");
        assert!(!error.contains("start again"), "{text}");
        assert_eq!(hint, "start again without a cursor", "{text}");
    }
}

/// What every session pays for megg's tools (issue 38): a host that does not defer MCP tools
/// puts the whole `tools/list` result in the model's context at every start. It was 40,320
/// characters, 9,533 cl100k tokens, half of them output schemas; now the list is at most 3,000
/// tokens and no tool over 450 (docs/mcp.md has the numbers and what was kept).
#[test]
#[allow(clippy::print_stderr)] // prints the table docs/mcp.md quotes (`-- --nocapture`)
fn the_tool_list_costs_at_most_three_thousand_tokens() {
    const MAX_TOTAL: usize = 3_000;
    const MAX_TOOL: usize = 450;
    let p = Project::new();
    p.domain("", "P");
    let (stdout, _) = exchange_raw(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ],
    );
    let line = stdout
        .lines()
        .find(|l| l.contains(r#""id":2"#))
        .unwrap_or_else(|| panic!("no tools/list reply: {stdout}"));
    let reply: Value = serde_json::from_str(line).unwrap();
    // The result as the server wrote it: from `"result":` to the reply's closing brace.
    let result = line
        .split_once(r#""result":"#)
        .and_then(|(_, rest)| rest.strip_suffix('}'))
        .unwrap_or_else(|| panic!("the result is not last: {line}"));
    assert_eq!(
        serde_json::from_str::<Value>(result).unwrap(),
        reply["result"]
    );
    let tokens = megg::tokens::Counter::new(None);
    let mut table = String::new();
    let mut over = Vec::new();
    for tool in reply["result"]["tools"].as_array().unwrap() {
        let text = serde_json::to_string(tool).unwrap();
        let output = serde_json::to_string(&tool["outputSchema"]).unwrap();
        let n = tokens.count(&text);
        table.push_str(&format!(
            "{:<18} {:>6} chars {:>5} tokens (outputSchema {} chars, {} tokens)\n",
            tool["name"].as_str().unwrap(),
            text.chars().count(),
            n,
            output.chars().count(),
            tokens.count(&output),
        ));
        if n > MAX_TOOL {
            over.push(tool["name"].clone());
        }
    }
    let total = tokens.count(result);
    table.push_str(&format!(
        "{:<18} {:>6} chars {total:>5} tokens\n",
        "tools/list",
        result.chars().count()
    ));
    eprint!("{table}");
    assert!(total <= MAX_TOTAL, "tools/list is {total} tokens:\n{table}");
    assert!(over.is_empty(), "over {MAX_TOOL} tokens: {over:?}\n{table}");
}

/// SPEC §7: every closed set is an `enum` whose values are each explained in the parameter's
/// description — in the parameter's own words, or one line per value from the domain's doc
/// comments — now that the schemas are cut to fit the tool list's budget.
#[test]
fn every_enum_value_is_explained_in_its_parameters_description() {
    let p = Project::new();
    p.domain("", "P");
    let (messages, _) = exchange(
        &p,
        &[
            INIT,
            INITIALIZED,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        ],
    );
    let mut sets = 0;
    for tool in reply(&messages, 2)["result"]["tools"].as_array().unwrap() {
        let schema = &tool["inputSchema"];
        assert!(schema.get("$defs").is_none(), "{tool}");
        for (name, param) in schema["properties"].as_object().unwrap() {
            let description = param["description"].as_str().unwrap_or_default();
            assert!(!description.is_empty(), "{}.{name}", tool["name"]);
            let values = param["enum"]
                .as_array()
                .or(param["items"]["enum"].as_array());
            for value in values.into_iter().flatten() {
                let value = value.as_str().unwrap();
                let word = |c: char| c.is_alphanumeric() || c == '-';
                let named = description.split(|c: char| !word(c)).any(|w| w == value);
                assert!(named, "{}.{name}: {value} in {description:?}", tool["name"]);
            }
            sets += usize::from(values.is_some());
        }
    }
    // type ×2, phase ×2, for, choice, status, format, in
    assert_eq!(sets, 9);
}
