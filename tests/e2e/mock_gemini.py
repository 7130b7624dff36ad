"""A scripted stand-in for the Gemini API, for driving the real Gemini CLI.

usage: python3 mock_gemini.py LOG_FILE [SCRIPT_FILE]

Listens on 127.0.0.1 on a free port and prints `PORT <n>` on stdout once it accepts
connections. Every request is appended to LOG_FILE as one JSON line:
{"method", "path", "headers", "body"} (body parsed as JSON when it is JSON, else text).

`POST /v1beta/models/<model>:streamGenerateContent` (SSE, `?alt=sse`) and
`POST /v1beta/models/<model>:generateContent` are answered from SCRIPT_FILE, a JSON list of
turns. Each turn is a list of parts: {"text": "..."} or {"functionCall": {"name": "...",
"args": {...}}} (the Gemini API's own part shapes). Only the agent loop's requests (the ones
whose `tools` declare functions) follow the script; the turn answered is the number of
`model` contents already in the request, so turn 0 answers the prompt, turn 1 answers after
the first functionResponse, and so on. Past the end of the script the answer is the text "OK".
Every other request (a helper asking for JSON: the next-speaker check, routing, loop
detection, titles) gets a JSON answer that ends the turn: {"next_speaker": "user", ...} when it
asks for JSON, else the text "OK".

`:countTokens` answers a rough count; any other path answers `{}` (and is logged, so a test
can see what else the client called). The server exits by itself after IDLE_SECONDS without a
request, so a test that dies never leaves it running for long.
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


def offers_tools(body):
    return any(t.get("functionDeclarations") for t in body.get("tools") or [])


def wants_json(body):
    config = body.get("generationConfig") or {}
    return config.get("responseMimeType") == "application/json" or bool(
        config.get("responseJsonSchema") or config.get("responseSchema"))


def reply_parts(body):
    """The parts that answer a generateContent request."""
    if offers_tools(body):
        turn = sum(1 for c in body.get("contents", []) if c.get("role") == "model")
        if turn < len(SCRIPT):
            parts = []
            for p in SCRIPT[turn]:
                if "functionCall" in p:
                    call = p["functionCall"]
                    parts.append({"functionCall": {"id": call.get("id") or next_id("call"),
                                                   "name": call["name"],
                                                   "args": call.get("args", {})}})
                else:
                    parts.append({"text": p["text"]})
            return parts
        return [{"text": "OK"}]
    if wants_json(body):
        answer = {"next_speaker": "user", "reasoning": "The mock always ends the turn.",
                  "model_choice": "flash", "is_loop": False, "title": "Mock session"}
        return [{"text": json.dumps(answer)}]
    return [{"text": "OK"}]


def response(parts, model):
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                        "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                          "totalTokenCount": 15},
        "modelVersion": model,
        "responseId": next_id("resp"),
    }


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
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else None
        path = self.path.split("?", 1)[0]
        log({"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
             "body": body})
        body = body if isinstance(body, dict) else {}
        model = path.rsplit("/", 1)[-1].split(":", 1)[0]
        if self.command == "POST" and path.endswith(":streamGenerateContent"):
            chunk = response(reply_parts(body), model)
            self.send(200, f"data: {json.dumps(chunk)}\r\n\r\n".encode(), "text/event-stream")
        elif self.command == "POST" and path.endswith(":generateContent"):
            self.send(200, response(reply_parts(body), model))
        elif self.command == "POST" and path.endswith(":countTokens"):
            self.send(200, {"totalTokens": max(1, len(json.dumps(body)) // 4)})
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
