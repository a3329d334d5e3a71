"""A scripted stand-in for the Messages API: the real `claude` binary talks to it instead of a model.

It answers `POST /v1/messages` with server-sent events, chooses each reply by what the request
holds (a marker word in the first user message tells the lead from each teammate), and records
every request it receives, one JSON object a line, so tests can assert on what each agent saw.
"""

from __future__ import annotations

import itertools
import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    """One model turn: text and tool calls, in order."""

    text: str = ""
    tools: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # An HTTP error instead of a turn (e.g. 400: Claude Code does not retry it): the API's error body.
    error_status: int = 0

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tools else "end_turn"


Script = Callable[["Request"], Reply]


@dataclass
class Request:
    """One request as the fake model sees it."""

    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        msgs = self.body.get("messages")
        return msgs if isinstance(msgs, list) else []

    @staticmethod
    def block_text(content: Any) -> str:
        if isinstance(content, str):
            return content
        parts = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                parts.append(Request.block_text(block.get("content", "")))
        return "\n".join(parts)

    @property
    def first_user_text(self) -> str:
        for m in self.messages:
            if m.get("role") == "user":
                return self.block_text(m.get("content"))
        return ""

    @property
    def all_text(self) -> str:
        """Every user-side text and tool result, in order."""
        return "\n".join(self.block_text(m.get("content")) for m in self.messages if m.get("role") == "user")

    @property
    def last_user_text(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return self.block_text(users[-1].get("content")) if users else ""

    def tool_calls(self) -> list[str]:
        """Names of the tools this conversation has already called, in order."""
        names = []
        for m in self.messages:
            if m.get("role") != "assistant" or not isinstance(m.get("content"), list):
                continue
            names += [b.get("name", "") for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
        return names

    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.body.get("tools") or [] if isinstance(t, dict)]


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _events(reply: Reply, model: str) -> list[bytes]:
    mid = "msg_" + uuid.uuid4().hex[:24]
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    out = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
            },
        )
    ]
    index = 0
    if reply.text:
        out.append(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
        )
        out.append(
            _sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": reply.text}},
            )
        )
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for name, args in reply.tools:
        block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:22], "name": name, "input": {}}
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": block}))
        out.append(
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(args)},
                },
            )
        )
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    out.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return out


def _whole(reply: Reply, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for name, args in reply.tools:
        content.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:22], "name": name, "input": args})
    return {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class FakeApi:
    """The server, on 127.0.0.1 and a free port, in a thread of this process."""

    def __init__(self, script: Script, record: Path):
        self.script = script
        self.record = Path(record)
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet: the JSONL record is the log
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                self._json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    api._save(self.path, body, None)
                    self._json(200, {"input_tokens": 10} if "count_tokens" in self.path else {})
                    return
                try:
                    reply = api.script(Request(body))
                except Exception as exc:  # a broken script must show in the record, not hang claude
                    reply = Reply(text=f"fake api script error: {exc!r}")
                api._save(self.path, body, reply)
                model = str(body.get("model") or "claude-fake")
                if reply.error_status:
                    self._json(
                        reply.error_status,
                        {
                            "type": "error",
                            "error": {"type": "invalid_request_error", "message": reply.text or "fake api error"},
                        },
                    )
                    return
                if body.get("stream"):
                    chunks = _events(reply, model)
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Content-Length", str(sum(len(c) for c in chunks)))
                    self.end_headers()
                    for c in chunks:
                        self.wfile.write(c)
                    self.wfile.flush()
                else:
                    self._json(200, _whole(reply, model))

            def _json(self, code: int, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-api", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def _save(self, path: str, body: dict[str, Any], reply: Reply | None) -> None:
        row = {
            "seq": next(self._seq),
            "path": path,
            "body": body,
            "reply": None if reply is None else {"text": reply.text, "tools": reply.tools},
        }
        with self._lock, self.record.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")

    def requests(self) -> list[dict[str, Any]]:
        try:
            text = self.record.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        # The server thread may be writing a line right now: a line without its newline is not there yet.
        complete = text[: text.rfind("\n") + 1]
        return [json.loads(line) for line in complete.splitlines() if line.strip()]

    def start(self) -> "FakeApi":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
