"""A scripted stand-in for the OpenAI Responses API, for driving the real Codex CLI offline.

usage: python3 mock_openai.py LOG_FILE [SCRIPT_FILE]

Listens on 127.0.0.1 on a free port and prints `PORT <n>` on stdout once it accepts
connections. Every request is appended to LOG_FILE as one JSON line:
{"method", "path", "headers", "body"} (body parsed as JSON when it is JSON, else text).

`POST /v1/responses` is answered from SCRIPT_FILE, a JSON list of turns. Each turn is a list of
output items: {"type": "text", "text": "..."} (an assistant message) or
{"type": "function_call", "name": "...", "arguments": {...}} (a call of one of the tools the
request offers, e.g. `exec_command` with {"cmd": "..."}, or an MCP tool by the name Codex gives
it in `tools`; `arguments` may also be a JSON string, sent as is; any other key, such as
`namespace`, is passed on in the item). The mock names its calls
`call_t<turn>_<i>`, so the turn answered is one past the highest turn among the call ids in the
request's `input` (0 when there is none): turn 0 answers the prompt, turn 1 answers after the
outputs of turn 0's calls, and so on. Past the end of the script the answer is the text "OK".

A compaction request (Codex marks it `"request_kind": "compaction"` in its
`x-codex-turn-metadata` header; its last message asks for a CONTEXT CHECKPOINT COMPACTION) is
answered with a summary that says `[mock turns done: N]`; the mock reads that marker back, so the
script carries on where it was after Codex replaces the history with the summary.

SCRIPT_FILE may instead hold an object {"turns": [...], "summary": "..."}: `turns` is the list
above, and `summary` the exact text that answers every compaction request, without the marker;
the mock then remembers how many turns were done when it answered, and a later request whose
input holds that text carries on from there.

The answer is always streamed as server-sent events (Codex asks with `"stream": true`):
response.created, response.in_progress, then per item response.output_item.added,
(for a message) response.content_part.added, response.output_text.delta,
response.output_text.done, response.content_part.done, (for a call)
response.function_call_arguments.delta / .done, then response.output_item.done, and last
response.completed carrying every item and a token usage.

`GET /v1/models` answers an empty list; any other path answers `{}` (and is logged, so a test
can see what else the client called). The server exits by itself after IDLE_SECONDS without a
request, so a test that dies never leaves it running for long.
"""

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

IDLE_SECONDS = 300
LOG_FILE = sys.argv[1]
SCRIPT = []
SUMMARY = None
if len(sys.argv) > 2:
    with open(sys.argv[2], encoding="utf-8") as f:
        SCRIPT = json.load(f)
    if isinstance(SCRIPT, dict):
        SUMMARY = SCRIPT.get("summary")
        SCRIPT = SCRIPT.get("turns", [])
# The turns done when the scripted summary was last given, read back by turn_of.
summary_turns = [0]

lock = threading.Lock()
counter = [0]
last_request = [time.monotonic()]
CALL_ID = re.compile(r"^call_t(\d+)_\d+$")
TURNS_DONE = re.compile(r"\[mock turns done: (\d+)\]")


def next_id(prefix):
    with lock:
        counter[0] += 1
        return f"{prefix}_mock{counter[0]:06d}"


def log(entry):
    with lock:
        last_request[0] = time.monotonic()
        with open(LOG_FILE, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()


def turn_of(body):
    """Which scripted turn a request asks for: one past the last turn whose calls it holds."""
    turn = 0
    items = body.get("input") if isinstance(body, dict) else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            m = CALL_ID.match(str(item.get("call_id", "")))
            if m:
                turn = max(turn, int(m.group(1)) + 1)
            content = json.dumps(item.get("content", ""))
            for m in TURNS_DONE.finditer(content):
                turn = max(turn, int(m.group(1)))
            if SUMMARY is not None and json.dumps(SUMMARY)[1:-1] in content:
                turn = max(turn, summary_turns[0])
    return turn


def is_compaction(headers):
    try:
        meta = json.loads(headers.get("x-codex-turn-metadata") or "{}")
    except ValueError:
        return False
    return isinstance(meta, dict) and meta.get("request_kind") == "compaction"


def reply_items(body, compaction=False):
    """The output items that answer a /v1/responses request."""
    turn = turn_of(body)
    if compaction and SUMMARY is not None:
        with lock:
            summary_turns[0] = max(summary_turns[0], turn)
        script = [{"type": "text", "text": SUMMARY}]
    elif compaction:
        script = [{"type": "text", "text": f"Summary of the work so far. [mock turns done: {turn}]"}]
    elif turn < len(SCRIPT):
        script = SCRIPT[turn]
    else:
        script = [{"type": "text", "text": "OK"}]
    items = []
    for i, b in enumerate(script):
        if b["type"] == "function_call":
            args = b.get("arguments", {})
            extra = {k: v for k, v in b.items() if k not in ("type", "arguments", "call_id")}
            items.append({"type": "function_call", "id": next_id("fc"), "status": "completed",
                          "call_id": b.get("call_id") or f"call_t{turn}_{i}", **extra,
                          "arguments": args if isinstance(args, str) else json.dumps(args)})
        else:
            items.append({"type": "message", "id": next_id("msg"), "status": "completed",
                          "role": "assistant",
                          "content": [{"type": "output_text", "text": b["text"],
                                       "annotations": []}]})
    return items


def usage():
    return {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15}


def events(body, items):
    """The SSE events of one streamed response holding `items`."""
    rid = next_id("resp")
    model = body.get("model", "mock-model") if isinstance(body, dict) else "mock-model"
    base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model,
            "status": "in_progress", "output": []}
    out = [("response.created", {"type": "response.created", "response": base}),
           ("response.in_progress", {"type": "response.in_progress", "response": base})]
    for i, item in enumerate(items):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            out.append(("response.output_item.added",
                        {"type": "response.output_item.added", "output_index": i,
                         "item": {**item, "status": "in_progress", "content": []}}))
            part = {"type": "output_text", "text": "", "annotations": []}
            out.append(("response.content_part.added",
                        {"type": "response.content_part.added", "item_id": item["id"],
                         "output_index": i, "content_index": 0, "part": part}))
            out.append(("response.output_text.delta",
                        {"type": "response.output_text.delta", "item_id": item["id"],
                         "output_index": i, "content_index": 0, "delta": text}))
            out.append(("response.output_text.done",
                        {"type": "response.output_text.done", "item_id": item["id"],
                         "output_index": i, "content_index": 0, "text": text}))
            out.append(("response.content_part.done",
                        {"type": "response.content_part.done", "item_id": item["id"],
                         "output_index": i, "content_index": 0, "part": {**part, "text": text}}))
        else:
            out.append(("response.output_item.added",
                        {"type": "response.output_item.added", "output_index": i,
                         "item": {**item, "status": "in_progress", "arguments": ""}}))
            out.append(("response.function_call_arguments.delta",
                        {"type": "response.function_call_arguments.delta", "item_id": item["id"],
                         "output_index": i, "delta": item["arguments"]}))
            out.append(("response.function_call_arguments.done",
                        {"type": "response.function_call_arguments.done", "item_id": item["id"],
                         "output_index": i, "arguments": item["arguments"]}))
        out.append(("response.output_item.done",
                    {"type": "response.output_item.done", "output_index": i, "item": item}))
    done = {**base, "status": "completed", "output": items, "usage": usage()}
    out.append(("response.completed", {"type": "response.completed", "response": done}))
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in out)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the JSON log is the record
        pass

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("Content-Encoding", "").lower() == "zstd":
            return {"undecoded": "zstd", "bytes": len(raw)}
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def send(self, status, payload, content_type="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", next_id("req"))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else None
        path = self.path.split("?", 1)[0]
        log({"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
             "body": body})
        if self.command == "POST" and path == "/v1/responses":
            body = body if isinstance(body, dict) else {}
            items = reply_items(body, is_compaction(self.headers))
            self.send(200, events(body, items).encode(), "text/event-stream")
        elif self.command == "GET" and path == "/v1/models":
            self.send(200, {"object": "list", "data": [], "models": []})
        else:
            self.send(200, {})

    do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = handle_any


def watchdog(server):
    while time.monotonic() - last_request[0] < IDLE_SECONDS:
        time.sleep(1)
    server.shutdown()


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=watchdog, args=(server,), daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


main()
