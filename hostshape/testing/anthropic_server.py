"""A scripted, loopback Anthropic Messages API for running the real Claude Code CLI offline.

Point the CLI at it with ``ANTHROPIC_BASE_URL=server.base_url``. The server answers the two endpoints the bundled
CLI calls (observed with Claude Code 2.1.332, see ../../shared/HOSTS.md):

- ``POST /v1/messages?beta=true``: with ``"stream": true`` answered as server-sent events (message_start,
  content_block_start, content_block_delta, content_block_stop, message_delta, message_stop), otherwise as one
  JSON message;
- ``POST /v1/messages/count_tokens?beta=true``: ``{"input_tokens": N}`` with N the o200k count of the request's
  text (or whatever ``count_tokens=`` returns).

The model is a script: a list of steps, one consumed per *agent-loop* request (a messages request that offers
tools; side requests without tools get ``side_answer``). A step is a :class:`ToolUse`, a :class:`Text`, or a
callable ``step(server) -> ToolUse | Text`` that decides from what the model has received so far (for example: read
the handle from the envelope of the last tool result, then call the retrieval tool with it). When the script runs
out the model answers ``Text(final)``.

Usage::

    with AnthropicServer([ToolUse("mcp__corpus__fetch", {"name": "x.json"})]) as server:
        ...run the CLI with ANTHROPIC_BASE_URL=server.base_url...
    server.tool_results()      # exact text of every tool_result the model received, in order
    server.requests            # every /v1/messages request body (parsed JSON), in order

Everything the server saw is recorded: ``requests`` (messages bodies), ``count_token_requests`` and ``log``
(method, path, body) for anything else. The server binds 127.0.0.1 on an ephemeral port and serves from a daemon
thread; it is thread-safe and quiet.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "AnthropicServer",
    "Step",
    "Text",
    "ToolUse",
    "tool_result_text",
    "tool_results_in",
]

MODEL = "claude-sonnet-4-5"
_NOT_FOUND = b'{"type":"error","error":{"type":"not_found_error","message":"not found"}}'


@dataclass(frozen=True)
class ToolUse:
    """The model asks for one tool call: ``name`` as the host offers it (``mcp__<server>__<tool>``)."""

    name: str
    input: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Text:
    """The model answers with text and ends its turn."""

    text: str


Reply = ToolUse | Text
Step = ToolUse | Text | Callable[["AnthropicServer"], Reply]


def tool_result_text(block: Mapping[str, Any]) -> str:
    """The exact text of one ``tool_result`` block: its string content, or its text blocks concatenated."""
    content = block.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, Mapping) and part.get("type") == "text")


def tool_results_in(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``tool_result`` blocks of the last user message in one messages request body."""
    messages = body.get("messages") or []
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    return []


def _texts(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)


def _default_count_tokens(body: Mapping[str, Any]) -> int:
    from hostshape.tokens import count_tokens

    return sum(count_tokens(t) for t in _texts(body.get("messages") or []))


class AnthropicServer:
    """A loopback Messages API that plays ``script``; use as a context manager (starts and stops the thread).

    - ``script``: steps consumed one per agent-loop request (see the module docstring).
    - ``final``: the text answer once the script is exhausted.
    - ``side_answer``: the text answer to requests that offer no tools (titles, summaries, ...).
    - ``count_tokens``: ``body -> int`` for the count_tokens endpoint; default counts the messages' text with o200k.
    """

    def __init__(
        self,
        script: Sequence[Step] = (),
        *,
        final: str = "done",
        side_answer: str = "ok",
        count_tokens: Callable[[Mapping[str, Any]], int] | None = None,
    ) -> None:
        self.script: list[Step] = list(script)
        self.final = final
        self.side_answer = side_answer
        self._count_tokens = count_tokens or _default_count_tokens
        self.requests: list[dict[str, Any]] = []
        self.side_requests: list[dict[str, Any]] = []
        self.count_token_requests: list[dict[str, Any]] = []
        self.log: list[tuple[str, str, str]] = []
        self.replies: list[Reply] = []
        self.errors: list[str] = []
        self._step = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> AnthropicServer:
        """Bind 127.0.0.1 on an ephemeral port and serve from a daemon thread."""
        handler = type("_Handler", (_Handler,), {"app": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="anthropic-loopback", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> AnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """Value for ``ANTHROPIC_BASE_URL``."""
        return f"http://127.0.0.1:{self.port}"

    # -- what the model received -------------------------------------------------------------------------------
    def tool_result_blocks(self) -> list[dict[str, Any]]:
        """Every tool_result block the model received, in order (one per tool call)."""
        with self._lock:
            bodies = list(self.requests)
        seen: set[str] = set()
        out: list[dict[str, Any]] = []
        for body in bodies:
            for block in tool_results_in(body):
                key = str(block.get("tool_use_id"))
                if key not in seen:
                    seen.add(key)
                    out.append(block)
        return out

    def tool_results(self) -> list[str]:
        """The exact text of every tool result the model received, in order."""
        return [tool_result_text(b) for b in self.tool_result_blocks()]

    def last_tool_result(self) -> str | None:
        """The text of the most recent tool result, or None before any."""
        results = self.tool_results()
        return results[-1] if results else None

    # -- the scripted model ---------------------------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if not body.get("tools"):
                self.side_requests.append(body)
                return Text(self.side_answer)
            self.requests.append(body)
            if self._step >= len(self.script):
                reply: Step = Text(self.final)
            else:
                reply = self.script[self._step]
                self._step += 1
        if callable(reply) and not isinstance(reply, (ToolUse, Text)):
            try:
                reply = reply(self)
            except Exception as exc:  # a broken step must not hang the CLI: answer and record it
                self.errors.append(f"step raised {exc!r}")
                reply = Text(f"script error: {exc!r}")
        with self._lock:
            self.replies.append(reply)
        return reply

    def _count(self, body: dict[str, Any]) -> int:
        with self._lock:
            self.count_token_requests.append(body)
        try:
            return int(self._count_tokens(body))
        except Exception as exc:
            self.errors.append(f"count_tokens raised {exc!r}")
            return 1


def _message(reply: Reply, model: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The message object and its content blocks for one reply."""
    if isinstance(reply, ToolUse):
        block = {
            "type": "tool_use",
            "id": f"toolu_{uuid.uuid4().hex[:24]}",
            "name": reply.name,
            "input": dict(reply.input),
        }
        stop = "tool_use"
    else:
        block = {"type": "text", "text": reply.text}
        stop = "end_turn"
    message = {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 10,
            "output_tokens": 10,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }
    return message, [block]


def _sse(reply: Reply, model: str) -> bytes:
    message, (block,) = _message(reply, model)
    start = dict(message, content=[], stop_reason=None, usage=dict(message["usage"], output_tokens=1))
    if block["type"] == "tool_use":
        opening = dict(block, input={})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        opening = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    events = [
        ("message_start", {"type": "message_start", "message": start}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": opening}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


class _Handler(BaseHTTPRequestHandler):
    app: AnthropicServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        raw = self._body()
        path = urlsplit(self.path).path
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if path == "/v1/messages/count_tokens":
            tokens = self.app._count(body)
            self._send(200, json.dumps({"input_tokens": tokens}).encode(), "application/json")
        elif path == "/v1/messages":
            reply = self.app._next_reply(body)
            model = str(body.get("model") or MODEL)
            if body.get("stream"):
                self._send(200, _sse(reply, model), "text/event-stream")
            else:
                self._send(200, json.dumps(_message(reply, model)[0]).encode(), "application/json")
        else:
            self.app.log.append(("POST", self.path, raw.decode("utf-8", "replace")[:2000]))
            self._send(404, _NOT_FOUND, "application/json")

    def do_GET(self) -> None:
        self.app.log.append(("GET", self.path, ""))
        self._send(404, _NOT_FOUND, "application/json")

    def do_HEAD(self) -> None:
        self.app.log.append(("HEAD", self.path, ""))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()
