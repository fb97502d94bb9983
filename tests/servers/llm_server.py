"""Real HTTP stand-ins for the Anthropic Messages API and the OpenAI Chat Completions API.

The real SDK clients talk to them through their base URL (`server.base_url`). Each server
records every request (`server.requests`, parsed JSON bodies) and answers from a script:
replies queued with `server.queue(...)` are used first, in order; then `server.responder`
(a callable on the request) if set; then a small deterministic judge (`auto_judge`) that
reads citecheck's prompt and says "supported" when every word and number of the claim
occurs in the source, quoting the best matching source sentence.

Usage in a test:

    from tests.servers.llm_server import anthropic_server, anthropic_verdicts, verdict  # fixtures

    def test_x(anthropic_server):
        anthropic_server.queue(anthropic_verdicts([verdict(1, True, "a quote")]))
        ... Settings(judge="anthropic", base_url=anthropic_server.base_url) ...
        assert len(anthropic_server.requests) == 1

Error replies carry the providers' real error bodies and status codes; `Reply.delay_s`
makes a slow answer (for timeouts). Everything binds to 127.0.0.1 only.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

Protocol = Literal["anthropic", "openai"]


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list → JSON; str → sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class RecordedRequest:
    protocol: Protocol
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON

    @property
    def prompt(self) -> str:
        """All message text of the request (system + messages), for asserting on the prompt."""
        if not isinstance(self.body, dict):
            return str(self.body)
        parts: list[str] = []
        system = self.body.get("system")
        if isinstance(system, str):
            parts.append(system)
        elif isinstance(system, list):
            parts += [b.get("text", "") for b in system if isinstance(b, dict)]
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts += [b.get("text", "") for b in content if isinstance(b, dict)]
        return "\n".join(parts)

    @property
    def user_text(self) -> str:
        """The text of the last user message."""
        messages = self.body.get("messages", []) if isinstance(self.body, dict) else []
        for message in reversed(messages):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
        return ""


Responder = Callable[[RecordedRequest], Reply]

# ---------------------------------------------------------------------------------------
# reply builders


def verdict(
    id: int, supported: bool, evidence: str = "", rationale: str = "", confidence: float = 0.9
) -> dict[str, Any]:
    return {
        "id": id,
        "supported": supported,
        "confidence": confidence,
        "rationale": rationale or ("The source states it." if supported else "The source does not say this."),
        "evidence": evidence,
    }


def anthropic_message(
    content: list[dict[str, Any]],
    *,
    stop_reason: str = "end_turn",
    input_tokens: int = 1000,
    output_tokens: int = 100,
    model: str = "claude-sonnet-4-6",
) -> Reply:
    return Reply(
        body={
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        },
        headers={"request-id": f"req_{uuid.uuid4().hex[:24]}"},
    )


def anthropic_tool_use(tool_input: Any, *, name: str = "record_verdicts", **kw: Any) -> Reply:
    block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:24]}", "name": name, "input": tool_input}
    return anthropic_message([block], stop_reason="tool_use", **kw)


def anthropic_verdicts(verdicts: list[dict[str, Any]], **kw: Any) -> Reply:
    return anthropic_tool_use({"verdicts": verdicts}, **kw)


def anthropic_text(text: str, *, stop_reason: str = "end_turn", **kw: Any) -> Reply:
    return anthropic_message([{"type": "text", "text": text}], stop_reason=stop_reason, **kw)


def anthropic_refusal(text: str = "I can't help with that request.", **kw: Any) -> Reply:
    return anthropic_text(text, stop_reason="refusal", **kw)


_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def anthropic_error(status: int, message: str = "error", *, headers: dict[str, str] | None = None) -> Reply:
    kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_test"},
        headers=headers or {},
    )


def openai_completion(
    content: str | None,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    prompt_tokens: int = 1000,
    completion_tokens: int = 100,
    model: str = "gpt-4o-mini",
) -> Reply:
    return Reply(
        body={
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": refusal},
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        },
        headers={"x-request-id": f"req_{uuid.uuid4().hex[:24]}"},
    )


def openai_verdicts(verdicts: list[dict[str, Any]], **kw: Any) -> Reply:
    return openai_completion(json.dumps({"verdicts": verdicts}), **kw)


def openai_refusal(text: str = "I'm sorry, I can't assist with that.", **kw: Any) -> Reply:
    return openai_completion(None, refusal=text, **kw)


_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
}


def openai_error(
    status: int, message: str = "error", *, code: str | None = None, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status=status,
        body={
            "error": {
                "message": message,
                "type": _OPENAI_ERROR_TYPES.get(status, "server_error"),
                "param": None,
                "code": code,
            }
        },
        headers=headers or {},
    )


def error_reply(protocol: Protocol, status: int, message: str = "error", **kw: Any) -> Reply:
    return (
        anthropic_error(status, message, **kw)
        if protocol == "anthropic"
        else openai_error(status, message, **kw)
    )


def echo_credentials_error(request: RecordedRequest, status: int = 400) -> Reply:
    """The provider's error reply quoting the request's credentials back, as a misbehaving
    provider or proxy does (`Authorization: Bearer …`, Anthropic's `x-api-key`)."""
    creds = {k: v for k, v in request.headers.items() if k in ("authorization", "x-api-key")}
    message = "invalid request; received headers: " + ", ".join(f"{k}: {v}" for k, v in creds.items())
    return error_reply(request.protocol, status, message)


def verdicts_reply(protocol: Protocol, verdicts: list[dict[str, Any]], **kw: Any) -> Reply:
    if protocol == "anthropic":
        return anthropic_verdicts(verdicts, **kw)
    renamed = {
        "prompt_tokens" if k == "input_tokens" else "completion_tokens" if k == "output_tokens" else k: v
        for k, v in kw.items()
    }
    return openai_verdicts(verdicts, **renamed)


# ---------------------------------------------------------------------------------------
# a deterministic judge reading citecheck's prompt format

_FENCE = r"(@@[0-9a-f]+@@)"
_SOURCE_RE = re.compile(_FENCE + r" SOURCE BEGIN\n(.*?)\n\1 SOURCE END", re.S)
_WORD_RE = re.compile(r"[A-Za-z]{4,}|\d+(?:[.,]\d+)*")
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]?")


def parse_prompt(text: str) -> tuple[str, dict[int, str]]:
    """(source excerpt, {claim id: claim text}) from a citecheck judge prompt."""
    m = _SOURCE_RE.search(text)
    if not m:
        return "", {}
    marker = re.escape(m.group(1))
    body = m.group(2)
    # Drop the URL/Title header lines (up to the first blank line).
    source = body.split("\n\n", 1)[1] if "\n\n" in body else body
    claims = {
        int(c.group(1)): c.group(2)
        for c in re.finditer(marker + r" CLAIM (\d+) BEGIN\n(.*?)\n" + marker + r" CLAIM \1 END", text, re.S)
    }
    return source, claims


def judge_text(source: str, claims: dict[int, str]) -> list[dict[str, Any]]:
    lowered = source.lower()
    sentences = [s.strip() for s in _SENTENCE_RE.findall(source) if s.strip()]
    out = []
    for cid, claim in sorted(claims.items()):
        words = {w.lower() for w in _WORD_RE.findall(claim)}
        missing = sorted(w for w in words if w not in lowered)
        best = max(sentences, key=lambda s: sum(w in s.lower() for w in words), default="")
        if missing:
            out.append(
                verdict(cid, False, best, f"The source does not mention: {', '.join(missing[:5])}.", 0.8)
            )
        else:
            out.append(verdict(cid, True, best, "Every part of the claim is stated in the source.", 0.9))
    return out


def auto_judge(request: RecordedRequest) -> Reply:
    source, claims = parse_prompt(request.user_text)
    verdicts = judge_text(source, claims)
    tokens_in = max(1, len(request.prompt) // 4)
    return verdicts_reply(
        request.protocol, verdicts, input_tokens=tokens_in, output_tokens=60 * max(1, len(claims))
    )


# ---------------------------------------------------------------------------------------
# the server


class LLMServer:
    """An Anthropic- or OpenAI-protocol HTTP server on 127.0.0.1 in a background thread."""

    def __init__(self, protocol: Protocol, responder: Responder | None = None) -> None:
        self.protocol = protocol
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply | Responder] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        return "/v1/messages" if self.protocol == "anthropic" else "/v1/chat/completions"

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """What to give the SDK (and citecheck's --base-url): the OpenAI SDK expects `/v1`."""
        root = f"http://127.0.0.1:{self.port}"
        return root if self.protocol == "anthropic" else root + "/v1"

    def queue(self, *replies: Reply | Responder) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def calls(self) -> list[RecordedRequest]:
        """Requests to the model endpoint (what a judge call is)."""
        return [r for r in self.requests if r.path.split("?")[0] == self.endpoint]

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            item = self._queue.popleft() if self._queue else None
        if request.path.split("?")[0] != self.endpoint or request.method != "POST":
            return error_reply(self.protocol, 404, f"no route {request.method} {request.path}")
        if item is None:
            item = self.responder or auto_judge
        return item(request) if callable(item) else item

    def start(self) -> LLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; without this, Nagle + delayed ACK
            # stall each keep-alive response by tens of milliseconds.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                headers = {k.lower(): v for k, v in self.headers.items()}
                request = RecordedRequest(server.protocol, self.command, self.path, headers, body)
                reply = server._next_reply(request)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            do_POST = _handle
            do_GET = _handle

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name=f"llm-{self.protocol}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def anthropic_server() -> Iterator[LLMServer]:
    with LLMServer("anthropic") as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[LLMServer]:
    with LLMServer("openai") as server:
        yield server
