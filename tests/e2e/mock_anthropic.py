"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code CLI.

usage: python3 mock_anthropic.py LOG_FILE [SCRIPT_FILE]

Listens on 127.0.0.1 on a free port and prints `PORT <n>` on stdout once it accepts
connections. Every request is appended to LOG_FILE as one JSON line:
{"method", "path", "headers", "body"} (body parsed as JSON when it is JSON, else text).

`POST /v1/messages` is answered from SCRIPT_FILE, a JSON list of turns. Each turn is a list of
content blocks: {"type": "text", "text": "..."} or {"type": "tool_use", "name": "...",
"input": {...}}. Only the agent loop's requests (the ones that offer tools) follow the script;
the turn answered is the number of assistant messages already in the request, so turn 0 answers
the prompt, turn 1 answers after the first tool_result, and so on. Past the end of the script,
and for every other request (titles, summaries, probes), the answer is the text "OK".

SCRIPT_FILE may instead hold an object {"turns": [...], "summary": "..."}: `turns` is the list
above, and `summary` the text that answers a compaction request — the one whose last user
message asks to "create a detailed summary of the conversation so far" (Claude Code's
`/compact` and auto-compaction; as measured with 2.1.332 it offers tools too). Without a
`summary`, a compaction request is answered like any other.
Streaming (`"stream": true`) answers with the SSE events message_start, content_block_start,
content_block_delta, content_block_stop, message_delta and message_stop.

`POST /v1/messages/count_tokens` answers a rough count; any other path answers `{}` (and is
logged, so a test can see what else the client called). The server exits by itself after
IDLE_SECONDS without a request, so a test that dies never leaves it running for long.
"""

import json
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
COMPACT_PROMPT = "create a detailed summary of the conversation so far"

lock = threading.Lock()
counter = [0]
last_request = [time.monotonic()]


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


def is_compaction(body):
    """Whether the request's last user message is a compaction prompt."""
    messages = body.get("messages") if isinstance(body, dict) else None
    users = [m for m in messages or [] if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        return False
    content = users[-1].get("content")
    if isinstance(content, list):
        content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return isinstance(content, str) and COMPACT_PROMPT in content


def reply_blocks(body):
    """The content blocks that answer a /v1/messages request."""
    if SUMMARY is not None and is_compaction(body):
        return [{"type": "text", "text": SUMMARY}]
    if isinstance(body, dict) and body.get("tools"):
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        if turn < len(SCRIPT):
            blocks = []
            for b in SCRIPT[turn]:
                if b["type"] == "tool_use":
                    blocks.append({"type": "tool_use", "id": b.get("id") or next_id("toolu"),
                                   "name": b["name"], "input": b.get("input", {})})
                else:
                    blocks.append({"type": "text", "text": b["text"]})
            return blocks
    return [{"type": "text", "text": "OK"}]


def usage():
    return {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the JSON log is the record
        pass

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def send(self, status, payload, content_type="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", next_id("req"))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else None
        path = self.path.split("?", 1)[0]
        log({"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
             "body": body})
        if self.command == "POST" and path == "/v1/messages":
            self.messages(body)
        elif self.command == "POST" and path == "/v1/messages/count_tokens":
            size = len(json.dumps(body)) if body is not None else 0
            self.send(200, {"input_tokens": max(1, size // 4)})
        else:
            self.send(200, {})

    do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = handle_any

    def messages(self, body):
        body = body if isinstance(body, dict) else {}
        blocks = reply_blocks(body)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        model = body.get("model", "claude-mock")
        message = {"id": next_id("msg"), "type": "message", "role": "assistant", "model": model,
                   "content": blocks, "stop_reason": stop, "stop_sequence": None,
                   "usage": usage()}
        if not body.get("stream"):
            self.send(200, message)
            return
        events = [("message_start", {"type": "message_start",
                                     "message": {**message, "content": [], "stop_reason": None}})]
        for i, b in enumerate(blocks):
            if b["type"] == "tool_use":
                start = {**b, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": b["text"]}
            events.append(("content_block_start",
                           {"type": "content_block_start", "index": i, "content_block": start}))
            events.append(("content_block_delta",
                           {"type": "content_block_delta", "index": i, "delta": delta}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(("message_delta", {"type": "message_delta",
                                         "delta": {"stop_reason": stop, "stop_sequence": None},
                                         "usage": {"output_tokens": 5}}))
        events.append(("message_stop", {"type": "message_stop"}))
        data = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events)
        self.send(200, data.encode(), "text/event-stream")


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
