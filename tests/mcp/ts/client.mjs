// megg's MCP server driven by the official MCP TypeScript SDK — a second, independent client
// beside the Python one. Lists the tools, compiles every inputSchema and outputSchema as JSON
// Schema (ajv, draft 2020-12), calls each tool, and checks every structured result against the
// schema its tool declared.
//
// usage: node client.mjs MEGG_BINARY PROJECT_DIR
//        node client.mjs MEGG_BINARY PROJECT_DIR --pages TOOL ARGUMENTS_JSON
//
// With --pages: call TOOL with ARGUMENTS_JSON, then again with each `next_cursor` it returns
// until none is left, checking every structured result against the tool's outputSchema, and
// print the pages as one JSON document on stdout:
// {"pages": [{"text", "structured", "is_error"} | {"error"}]} (the Rust test checks them).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";

const [megg, root, mode, pagedTool, pagedArgs] = process.argv.slice(2);
// A paging run never calls more than this (a cursor that never ends is a failure).
const MAX_PAGES = 500;
const env = { ...process.env, MEGG_NOW: "2026-11-22T12:00:00Z", MEGG_CACHE_DIR: "", NO_COLOR: "1" };
const TEXT_ONLY = new Set(["context", "state"]);

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// schemars marks Rust integer widths as formats; the numbers' own bounds carry the meaning.
for (const f of ["uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64", "double", "float"]) {
  ajv.addFormat(f, true);
}

const transport = new StdioClientTransport({ command: megg, args: ["mcp"], cwd: root, env, stderr: "inherit" });
const client = new Client({ name: "megg-ts-test", version: "0" });
await client.connect(transport);
assert.equal(client.getServerVersion().name, "megg");

const { tools } = await client.listTools();
assert.equal(tools.length, 13);
const validators = {};
for (const t of tools) {
  assert.ok(t.title, `${t.name} has a title`);
  assert.equal(typeof t.annotations?.readOnlyHint, "boolean", `${t.name} readOnlyHint`);
  assert.equal(typeof t.annotations?.destructiveHint, "boolean", `${t.name} destructiveHint`);
  assert.equal(typeof t.annotations?.idempotentHint, "boolean", `${t.name} idempotentHint`);
  ajv.compile(t.inputSchema); // a valid JSON Schema
  for (const [param, schema] of Object.entries(t.inputSchema.properties ?? {})) {
    assert.ok(schema.description, `${t.name}.${param} has a description`);
  }
  if (TEXT_ONLY.has(t.name)) {
    assert.equal(t.outputSchema, undefined, `${t.name} is text only`);
  } else {
    assert.ok(t.outputSchema, `${t.name} declares an outputSchema`);
    validators[t.name] = ajv.compile(t.outputSchema);
  }
}

const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");

if (mode === "--pages") {
  const pages = [];
  let args = JSON.parse(pagedArgs);
  while (pages.length < MAX_PAGES) {
    let r;
    try {
      r = await client.callTool({ name: pagedTool, arguments: args });
    } catch (e) {
      pages.push({ error: e.message });
      break;
    }
    if (r.structuredContent !== undefined) {
      const valid = validators[pagedTool](r.structuredContent);
      assert.ok(valid, `${pagedTool}: ${JSON.stringify(validators[pagedTool].errors)}`);
    }
    pages.push({ text: text(r), structured: r.structuredContent ?? null, is_error: Boolean(r.isError) });
    const cursor = r.structuredContent?.next_cursor;
    if (cursor === undefined) break;
    args = { ...args, cursor };
  }
  await client.close();
  // Written in full before exiting: the pages can be long.
  await new Promise((done) => process.stdout.write(JSON.stringify({ pages }) + "\n", done));
  process.exit(0);
}

async function call(name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(!r.isError, `${name}: ${text(r)}`);
  if (TEXT_ONLY.has(name) && args.format !== "json") {
    assert.equal(r.structuredContent, undefined, `${name} returns text only`);
  } else if (!TEXT_ONLY.has(name)) {
    const valid = validators[name](r.structuredContent);
    assert.ok(valid, `${name}: ${JSON.stringify(validators[name].errors)}`);
    assert.deepEqual(JSON.parse(text(r)), r.structuredContent, `${name}: the text is the same JSON`);
  }
  assert.ok(text(r).length <= 10000, `${name}: ${text(r).length} characters`);
  return r;
}

await call("init", { info: "# Shop\n\nThe storefront." });
await call("state", { content: "## Working On\nFrom TypeScript\n" });
assert.match(text(await call("state")), /From TypeScript/);
await call("learn", { title: "Use JWT", type: "decision", topics: ["auth"], content: "- cookies" });
assert.match(text(await call("context", { topic: "auth" })), /Use JWT/);
const asJson = await call("context", { format: "json" });
assert.equal(asJson.structuredContent.chain[0].title, "Shop");
await call("maintain", { limit: 5 });
const hits = await call("search", { query: "jwt", in: ["knowledge", "archive"], limit: 1 });
assert.equal(hits.structuredContent.results[0].title, "Use JWT");
const shown = await call("show", { ids: [hits.structuredContent.results[0].id] });
assert.match(shown.structuredContent.documents[0].text, /^## 2026-11-22 - Use JWT/);
await call("gitignore");
await call("gitignore", { check: true });
const plan = "docs/plans/2026-01-15-feat-ts-plan.md";
mkdirSync(join(root, "docs/plans"), { recursive: true });
writeFileSync(join(root, plan), "# plan\n");
await call("checkpoint_save", { plan_file: plan });
const list = await call("checkpoint_list", { limit: 5 });
assert.equal(list.structuredContent.total, 1);
const found = await call("checkpoint_resume", { target: "ts", for: "work" });
assert.equal(found.structuredContent.status, "found");
await call("checkpoint_resume", { target: "ts", for: "work", choice: "resume" });
await call("checkpoint_update", { target: "ts", phase: "work-complete" });
await call("checkpoint_finish", { target: "ts" });
assert.ok(!existsSync(join(root, ".ts.local.md")));
await call("state", { status: "done" });

// Errors: an unknown parameter names the accepted ones; a wrong enum value lists the allowed.
const said = (r) => (r instanceof Error ? r.message : text(r));
const unknown = await client.callTool({ name: "context", arguments: { pth: "/x" } }).catch((e) => e);
assert.ok(unknown instanceof Error || unknown.isError);
assert.match(said(unknown), /unknown field `pth`, expected one of `path`/);
const badPhase = await client.callTool({ name: "checkpoint_update", arguments: { target: "x", phase: "shipping" } }).catch((e) => e);
assert.ok(badPhase instanceof Error || badPhase.isError);
assert.match(said(badPhase), /expected one of `plan-complete`/);

await client.close();
console.log("ts client: every tool called, every schema and structured result checked");
