"""Drive `megg mcp` with the official MCP Python SDK: initialize, list the tools, call every
tool, and check the results against the files on disk and against the CLI.

usage: python3 client.py MEGG_BINARY PROJECT_DIR OUTSIDE_DIR
       python3 client.py MEGG_BINARY PROJECT_DIR --pages TOOL ARGUMENTS_JSON

With --pages: call TOOL with ARGUMENTS_JSON, then again with each `next_cursor` it returns
until none is left, and print the pages as one JSON document on stdout:
{"pages": [{"text", "structured", "is_error"} | {"error"}]} (the Rust test checks them).
"""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

MEGG, ROOT, OUTSIDE = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
# A paging run never calls more than this (a cursor that never ends is a failure).
MAX_PAGES = 500
ENV = {**os.environ, "MEGG_NOW": "2026-11-22T12:00:00Z", "MEGG_CACHE_DIR": "", "NO_COLOR": "1"}
PLAN = "docs/plans/2026-01-15-feat-user-auth-plan.md"
TOOLS = {
    "context", "state", "learn", "init", "maintain", "checkpoint_save", "checkpoint_list",
    "checkpoint_resume", "checkpoint_update", "checkpoint_finish", "gitignore", "search", "show",
}


def cli(*args):
    done = subprocess.run([MEGG, *args], cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, (args, done.stderr)
    return json.loads(done.stdout) if "--json" in args else done.stdout


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    params = StdioServerParameters(command=MEGG, args=["mcp"], env=ENV, cwd=str(ROOT))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "megg", init.server_info
            assert init.server_info.version == cli("--version").split()[1], init.server_info

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == TOOLS, set(tools) ^ TOOLS
            for t in tools.values():
                assert len(t.description) > 40, t.name
                assert t.input_schema["type"] == "object", t.name
                assert "path" in t.input_schema.get("properties", {}) or t.name == "init", t.name
            assert set(tools["learn"].input_schema["required"]) == {"title", "type", "topics", "content"}

            # What the model reads (SPEC §7): context and state are text only (markdown); every
            # other tool declares an outputSchema and returns structuredContent with the same JSON
            # as text.
            TEXT_ONLY = {"context", "state"}
            for name, t in tools.items():
                assert t.title, name
                assert t.annotations is not None and t.annotations.read_only_hint is not None, name
                assert t.annotations.destructive_hint is not None, name
                assert t.annotations.idempotent_hint is not None, name
                assert (t.output_schema is None) == (name in TEXT_ONLY), name
                for param, schema in t.input_schema.get("properties", {}).items():
                    assert schema.get("description"), (name, param)
            assert tools["context"].annotations.read_only_hint is True
            assert tools["checkpoint_finish"].annotations.destructive_hint is True

            async def ok(name, **arguments):
                result = await session.call_tool(name, arguments)
                assert not result.is_error, (name, text_of(result))
                if name in TEXT_ONLY and arguments.get("format") != "json":
                    assert result.structured_content is None, name
                else:
                    assert result.structured_content is not None, name
                    if name not in TEXT_ONLY:
                        assert json.loads(text_of(result)) == result.structured_content, name
                return result

            async def fails(name, needle, **arguments):
                result = await session.call_tool(name, arguments)
                assert result.is_error, (name, arguments)
                assert needle in text_of(result), (name, text_of(result))
                return result

            # init: creates info.md.
            await ok("init", info="# Shop\n\nThe storefront.")
            assert (ROOT / ".megg/info.md").read_text().endswith("# Shop\n\nThe storefront.\n")
            await fails("init", "`force: true`", info="again")

            # state: MCP writes, the CLI reads; the CLI writes, MCP reads.
            r = await ok("state", content="## Working On\nFrom MCP\n")
            assert "State saved to" in text_of(r), text_of(r)
            assert cli("state", "show", "--json")["state"]["content"] == "## Working On\nFrom MCP\n"
            cli("state", "write", "--content", "## Working On\nFrom the CLI\n")
            r = await ok("state")
            assert "## Working On\nFrom the CLI" in text_of(r), text_of(r)

            # learn → knowledge.md on disk; context with a topic returns it.
            r = await ok("learn", title="Use JWT in httpOnly cookies", type="decision",
                         topics=["auth", "security"], content="- never localStorage")
            assert r.structured_content["entry"]["topics"] == ["auth", "security"]
            knowledge = (ROOT / ".megg/knowledge.md").read_text()
            assert "## 2026-11-22 - Use JWT in httpOnly cookies\n**Type:** decision\n**Topics:** auth, security\n\n- never localStorage\n" in knowledge
            r = await ok("context", topic="auth")
            assert "## Knowledge" in text_of(r) and "Use JWT in httpOnly cookies" in text_of(r)
            assert len(text_of(r)) <= 9500
            r = await ok("context", topic="auth", format="json")
            assert r.structured_content["knowledge"]["entries"] == 1
            assert r.structured_content["chain"][0]["title"] == "Shop"
            assert "## Knowledge" in text_of(r)
            # An unknown parameter is an error naming the accepted ones, not silently ignored.
            await fails("context", "unknown field `pth`", pth="/elsewhere")
            await fails("learn", "expected one of `decision`", title="T", type="idea", topics=["x"], content="c")

            # search finds it the way an agent asks; show returns it as it stands; both read-only.
            assert tools["search"].annotations.read_only_hint is True
            assert tools["show"].annotations.read_only_hint is True
            assert "before" in tools["search"].description
            r = await ok("search", query="where do sessions keep JWTs", limit=5)
            hit = r.structured_content["results"][0]
            assert hit["title"] == "Use JWT in httpOnly cookies", r.structured_content
            assert hit["kind"] == "knowledge" and hit["id"].startswith("k"), hit
            assert len(text_of(r)) <= 4000
            r = await ok("show", ids=[hit["id"]])
            doc = r.structured_content["documents"][0]
            assert doc["text"] in knowledge and doc["text"].startswith("## 2026-11-22 - Use JWT"), doc
            r = await session.call_tool("show", {"ids": ["kzzzzzzz"]})
            assert r.is_error and r.structured_content["missing"] == ["kzzzzzzz"], r
            await fails("search", "empty", query="  ")

            # maintain counts it.
            r = await ok("maintain")
            assert r.structured_content["domains"][0]["entries"] == 1

            # gitignore writes the block; check passes afterwards.
            await ok("gitignore")
            assert ".*.local.md" in (ROOT / ".gitignore").read_text()
            await ok("gitignore", check=True)

            # The checkpoint lifecycle.
            (ROOT / "docs/plans").mkdir(parents=True, exist_ok=True)
            (ROOT / PLAN).write_text("# plan\n")
            r = await ok("checkpoint_save", plan_file=PLAN)
            assert r.structured_content["announcement"] == "Progress saved to .user-auth.local.md (gitignored)"
            checkpoint = ROOT / ".user-auth.local.md"
            assert checkpoint.exists()
            r = await ok("checkpoint_list")
            assert [c["feature"] for c in r.structured_content["checkpoints"]] == ["user-auth"]
            r = await ok("checkpoint_resume", target="user-auth", **{"for": "work"})
            assert r.structured_content["status"] == "found"
            assert r.structured_content["options"][0] == {
                "id": "resume", "label": "Resume",
                "description": "Resume from where you left off", "recommended": True,
            }
            r = await ok("checkpoint_resume", target="user-auth", choice="resume", **{"for": "work"})
            assert r.structured_content["action"] == "resumed"
            assert "phase: work\n" in checkpoint.read_text()
            await ok("checkpoint_update", target="user-auth", check=["tests passing"], phase="work-complete")
            assert "- [x] Tests passing" in checkpoint.read_text()
            assert "phase: work-complete\n" in checkpoint.read_text()
            await fails("checkpoint_update", "no checklist item", target="user-auth", check=["deploy"])
            await fails("checkpoint_update", "expected one of `plan-complete`", target="user-auth", phase="shipping")
            r = await ok("checkpoint_finish", target="user-auth")
            assert r.structured_content == {"finished": ".user-auth.local.md"}
            assert not checkpoint.exists()

            # state done clears.
            await ok("state", status="done")
            assert not (ROOT / ".megg/state.md").exists()

            # Domain errors are results with isError and the CLI's message; the server goes on.
            await fails("state", "no .megg directory", path=str(OUTSIDE), content="x")
            await fails("checkpoint_finish", "no checkpoint matches", target="nothing")
            # Wrong parameter types: an error (result or protocol), never a crash.
            try:
                r = await session.call_tool("learn", {"title": 1, "type": "fact", "topics": "x", "content": "c"})
                assert r.is_error
            except Exception:  # a JSON-RPC error is as good
                pass
            try:
                r = await session.call_tool("no_such_tool", {})
                assert r.is_error
            except Exception:
                pass
            r = await ok("checkpoint_list")
            assert r.structured_content["checkpoints"] == []
    print("mcp client: every tool called, all checks passed")


async def pages(tool, arguments):
    params = StdioServerParameters(command=MEGG, args=["mcp"], env=ENV, cwd=str(ROOT))
    out = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            while len(out) < MAX_PAGES:
                try:
                    result = await session.call_tool(tool, arguments)
                except Exception as e:  # a JSON-RPC error
                    out.append({"error": str(e)})
                    break
                structured = result.structured_content
                out.append({"text": text_of(result), "structured": structured,
                            "is_error": bool(result.is_error)})
                cursor = (structured or {}).get("next_cursor")
                if cursor is None:
                    break
                arguments = {**arguments, "cursor": cursor}
    print(json.dumps({"pages": out}))


if sys.argv[3] == "--pages":
    asyncio.run(pages(sys.argv[4], json.loads(sys.argv[5])))
else:
    asyncio.run(main())
