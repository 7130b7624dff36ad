"""A scripted stand-in for the OpenAI Chat Completions API, for driving the real GitHub Copilot
CLI in its offline provider mode (`COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL`).

usage: python3 mock_chat.py LOG_FILE [SCRIPT_FILE]

Listens on 127.0.0.1 on a free port and prints `PORT <n>` on stdout once it accepts
connections. Every request is appended to LOG_FILE as one JSON line:
{"method", "path", "headers", "body"} (body parsed as JSON when it is JSON, else text).

`POST .../chat/completions` is answered from SCRIPT_FILE, a JSON list of turns. Each turn is a
list of items: {"type": "text", "text": "..."} or {"type": "tool_call", "name": "...",
"arguments": {...}} (the function the model calls, by the name the request offers it under).
Only the agent loop's requests (the ones that offer tools) follow the script; the turn
answered is the number of assistant messages already in the request, so turn 0 answers the
prompt, turn 1 answers after the first tool result, and so on. Past the end of the script,
and for every other request (titles), the answer is the text "OK"; Copilot's compaction
requests (header `x-interaction-type: conversation-compaction`, which also offer tools) get
the summary `<summary>OK</summary>`. A request with
`"stream": true` is answered with `chat.completion.chunk` SSE events (the role, each text,
each tool call, the finish reason, a usage chunk) and `data: [DONE]`; without, with one
`chat.completion` document.

`GET .../models` lists the requested model names seen so far plus `mock-model`; any other path
answers `{}` (and is logged, so a test can see what else the client called). The server exits
by itself after IDLE_SECONDS without a request, so a test that dies never leaves it running
for long.
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

IDLE_SECONDS = 300
LOG_FILE = sys.argv[1]
SCRIPT = []
if len(sys.argv) > 2:
    with open(sys.argv[2], encoding="utf-8") as f:
        SCRIPT = json.load(f)

lock = threading.Lock()
counter = [0]
last_request = [time.monotonic()]
models = ["mock-model"]


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


def reply_items(body, interaction):
    """The text and tool calls that answer a chat completions request."""
    if interaction == "conversation-compaction":
        return [{"type": "text", "text": "<summary>OK</summary>"}]
    if isinstance(body, dict) and body.get("tools"):
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        if turn < len(SCRIPT):
            items = []
            for item in SCRIPT[turn]:
                if item["type"] == "tool_call":
                    args = item.get("arguments", {})
                    items.append({"type": "tool_call", "id": item.get("id") or next_id("call"),
                                  "name": item["name"],
                                  "arguments": args if isinstance(args, str) else json.dumps(args)})
                else:
                    items.append({"type": "text", "text": item["text"]})
            return items
    return [{"type": "text", "text": "OK"}]


def usage(body):
    """A rough count: a quarter of the request's JSON size, so a client's compaction, which
    goes by the reported usage, sees the conversation grow."""
    prompt = max(10, len(json.dumps(body)) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": prompt + 5}


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
        self.send_header("x-request-id", next_id("req"))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else None
        path = self.path.split("?", 1)[0]
        log({"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
             "body": body})
        if self.command == "POST" and path.endswith("/chat/completions"):
            self.completions(body if isinstance(body, dict) else {},
                             self.headers.get("x-interaction-type", ""))
        elif self.command == "GET" and path.endswith("/models"):
            self.send(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "mock"} for m in models]})
        else:
            self.send(200, {})

    do_GET = do_POST = do_HEAD = do_PUT = do_PATCH = do_DELETE = handle_any

    def completions(self, body, interaction):
        model = body.get("model") or "mock-model"
        if model not in models:
            models.append(model)
        items = reply_items(body, interaction)
        calls = [i for i in items if i["type"] == "tool_call"]
        text = "".join(i["text"] for i in items if i["type"] == "text")
        finish = "tool_calls" if calls else "stop"
        cid = next_id("chatcmpl")
        tool_calls = [{"id": c["id"], "type": "function",
                       "function": {"name": c["name"], "arguments": c["arguments"]}}
                      for c in calls]
        if not body.get("stream"):
            message = {"role": "assistant", "content": text or None}
            if tool_calls:
                message["tool_calls"] = tool_calls
            self.send(200, {"id": cid, "object": "chat.completion", "created": int(time.time()),
                            "model": model, "usage": usage(body),
                            "choices": [{"index": 0, "message": message,
                                         "finish_reason": finish}]})
            return

        def chunk(delta, finish_reason=None, **extra):
            return {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": model, "choices": [{"index": 0, "delta": delta,
                                                 "finish_reason": finish_reason}], **extra}

        chunks = [chunk({"role": "assistant", "content": ""})]
        if text:
            chunks.append(chunk({"content": text}))
        for i, c in enumerate(tool_calls):
            chunks.append(chunk({"tool_calls": [{"index": i, **c}]}))
        chunks.append(chunk({}, finish))
        chunks.append({"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                       "model": model, "choices": [], "usage": usage(body)})
        data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
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
