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

The account behind the stand-in (`Account`, the `account=` argument) speaks the providers'
rate-limit protocols: every model response carries the rate-limit headers
(`anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
the reset an RFC 3339 time; OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`,
the reset a duration like `6m0s`), read from token buckets that refill continuously; a request
the buckets cannot hold is answered 429 with `retry-after` (whole seconds) and is not served.
`latency_s` delays every model answer (a real model's seconds). Anthropic's prompt cache: a
block marked `cache_control` makes its prefix a cache entry once the answer is sent (as the
real one, not before), later reads are reported as `cache_read_input_tokens`; OpenAI's
automatic cache reports a repeated prefix of 1,024 tokens or more as `cached_tokens`.

The batch APIs, reached by the SDKs' own batch calls: Anthropic's /v1/messages/batches
(create, retrieve, results as JSONL from `results_url`, cancel) and OpenAI's /v1/files (a
multipart upload, the content of a file) and /v1/batches (create, retrieve, cancel; an
output file of `{"custom_id", "response": {"status_code", "body"}}` lines). A batch's requests
are answered like single calls (the queue, the responder, `auto_judge`; recorded in
`batch_requests`), and it ends at the `account.batch_polls`-th retrieve.
"""

from __future__ import annotations

import datetime
import email.parser
import email.policy
import hashlib
import json
import math
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Literal

import pytest

from tests.leaks import echo_text

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
    received_at: float = 0.0  # time.monotonic() when it arrived
    answered_at: float | None = None  # when its answer was written
    status: int = 0  # the answer's status

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
                # Blocks (a cached source part, then the claims) are one text split in two.
                return "".join(b.get("text", "") for b in content if isinstance(b, dict))
        return ""


Responder = Callable[[RecordedRequest], Reply]

# ---------------------------------------------------------------------------------------
# reply builders


def verdict(
    id: int,
    supported: bool,
    evidence: str = "",
    rationale: str = "",
    confidence: float = 0.9,
    states_fact: bool = True,
) -> dict[str, Any]:
    return {
        "id": id,
        "supported": supported,
        "confidence": confidence,
        "rationale": rationale or ("The source states it." if supported else "The source does not say this."),
        "evidence": evidence,
        "states_fact": states_fact,
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


# The screen's stand-in reading: a sentence that opens with one of these words states no fact.
_NOT_A_FACT_RE = re.compile(r"(?i)(see|read|check out|thanks|thank you|learn|follow|join|watch|visit|try)\b")


def parse_screen_prompt(text: str) -> dict[int, str]:
    """{sentence id: text} from a citecheck screen prompt (empty: not a screen prompt)."""
    return {
        int(m.group(2)): m.group(3)
        for m in re.finditer(_FENCE + r" SENTENCE (\d+) BEGIN\n(.*?)\n\1 SENTENCE \2 END", text, re.S)
    }


def screen_answer(id: int, fact: bool, reason: str = "") -> dict[str, Any]:
    return {"id": id, "fact": fact, "reason": reason or ("states a fact" if fact else "states no fact")}


def screen_reply(protocol: Protocol, answers: list[dict[str, Any]], **kw: Any) -> Reply:
    """The screen's answer as each provider gives it: a `record_screen` tool call, or JSON text."""
    if protocol == "anthropic":
        return anthropic_tool_use({"sentences": answers}, name="record_screen", **kw)
    return openai_completion(json.dumps({"sentences": answers}), **kw)


def auto_screen(sentences: dict[int, str]) -> list[dict[str, Any]]:
    out = []
    for i, text in sorted(sentences.items()):
        pointer = bool(_NOT_A_FACT_RE.match(text.strip()))
        out.append(screen_answer(i, not pointer, "pointer or call to action" if pointer else ""))
    return out


def auto_judge(request: RecordedRequest, *, echo: str = "") -> Reply:
    """The deterministic judge's answer; `echo` is appended to each verdict's rationale and
    evidence (see `echo_key_judge`)."""
    sentences = parse_screen_prompt(request.user_text)
    if sentences:
        tokens_in = max(1, len(request.prompt) // 4)
        if request.protocol == "anthropic":
            usage = {"input_tokens": tokens_in, "output_tokens": 20 * len(sentences)}
        else:
            usage = {"prompt_tokens": tokens_in, "completion_tokens": 20 * len(sentences)}
        return screen_reply(request.protocol, auto_screen(sentences), **usage)
    source, claims = parse_prompt(request.user_text)
    verdicts = judge_text(source, claims)
    if echo:
        verdicts = [
            {**v, "rationale": f"{v['rationale']} {echo}", "evidence": f"{v['evidence']} {echo}"}
            for v in verdicts
        ]
    tokens_in = max(1, len(request.prompt) // 4)
    return verdicts_reply(
        request.protocol, verdicts, input_tokens=tokens_in, output_tokens=60 * max(1, len(claims))
    )


def request_key(request: RecordedRequest) -> str:
    """The API key a request was sent with (Anthropic's `x-api-key`, or a bearer token)."""
    bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    return request.headers.get("x-api-key") or bearer


def echo_key_judge(request: RecordedRequest) -> Reply:
    """`auto_judge`, but every verdict's rationale and evidence carry the request's own key in
    every form of `tests.leaks.key_forms` (raw, percent-encoded, cut short, base64, with
    zero-width characters, in a URL): a model talked into it, or a proxy that writes what it
    was sent into its answers."""
    return auto_judge(request, echo=echo_text(request_key(request)))


# ---------------------------------------------------------------------------------------
# the server


@dataclass
class Account:
    """The stand-in's account: its rate limits (per `window_s`, refilled continuously, as both
    providers' token buckets are) and how its batches behave.

    None for a limit: not enforced, and stated in the headers as `UNLIMITED` (an established
    account whose limits a run never reaches). `tokens_limit`: OpenAI's TPM (input + output
    budget); Anthropic's `tokens` header is stated as input + output.
    """

    requests_limit: float | None = None
    input_tokens_limit: float | None = None
    output_tokens_limit: float | None = None
    tokens_limit: float | None = None
    window_s: float = 60.0
    batch_polls: int = 1  # a batch ends at this retrieve
    headers: bool = True  # state the rate limits in every response's headers

    UNLIMITED: ClassVar[float] = 1_000_000.0


class _Bucket:
    def __init__(self, limit: float, window_s: float) -> None:
        self.limit = limit
        self.rate = limit / window_s
        self.level = limit
        self.stamp = time.monotonic()

    def refill(self, now: float) -> None:
        self.level = min(self.limit, self.level + self.rate * (now - self.stamp))
        self.stamp = now

    def wait_for(self, amount: float) -> float:
        short = min(amount, self.limit) - self.level
        return max(0.0, short / self.rate)

    def reset_s(self) -> float:
        return (self.limit - self.level) / self.rate


def _rfc3339(seconds_from_now: float) -> str:
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=seconds_from_now)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def _duration(seconds: float) -> str:
    """OpenAI's reset format: 12ms, 1.5s, 6m0s."""
    if seconds < 1:
        return f"{max(0, round(seconds * 1000))}ms"
    minutes, rest = divmod(seconds, 60)
    rest = round(rest, 3)
    return f"{int(minutes)}m{rest:g}s" if minutes else f"{rest:g}s"


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class LLMServer:
    """An Anthropic- or OpenAI-protocol HTTP server on 127.0.0.1 in a background thread."""

    def __init__(
        self,
        protocol: Protocol,
        responder: Responder | None = None,
        *,
        account: Account | None = None,
        latency_s: float = 0.0,
    ) -> None:
        self.protocol = protocol
        self.responder = responder
        self.account = account or Account()
        self.latency_s = latency_s
        self.requests: list[RecordedRequest] = []
        self.batch_requests: list[RecordedRequest] = []  # the requests of batches, as answered
        self.throttled = 0  # model requests answered 429 by the account's buckets
        self.cache_read_tokens = 0  # prompt-cache tokens reported, summed (Anthropic reads, OpenAI cached)
        self.cache_write_tokens = 0
        self.answered = threading.Event()  # set once a model call has been answered (200)
        self._queue: deque[Reply | Responder] = deque()
        self._lock = threading.Lock()
        self._buckets = self._make_buckets()
        self._cache: set[str] = set()  # Anthropic: prefixes written to the prompt cache
        self._prefixes: dict[str, list[str]] = {}  # OpenAI: prompts by their first 1,024 tokens
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, dict[str, Any]] = {}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _make_buckets(self) -> dict[str, _Bucket]:
        a = self.account
        limits = {
            "requests": a.requests_limit,
            "input-tokens": a.input_tokens_limit,
            "output-tokens": a.output_tokens_limit,
            "tokens": a.tokens_limit,
        }
        return {name: _Bucket(limit, a.window_s) for name, limit in limits.items() if limit is not None}

    @property
    def endpoint(self) -> str:
        return "/v1/messages" if self.protocol == "anthropic" else "/v1/chat/completions"

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What to give the SDK (and citecheck's --base-url): the OpenAI SDK expects `/v1`."""
        return self.root if self.protocol == "anthropic" else self.root + "/v1"

    def queue(self, *replies: Reply | Responder) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def calls(self) -> list[RecordedRequest]:
        """Requests to the model endpoint (what a judge call is)."""
        return [r for r in self.requests if r.path.split("?")[0] == self.endpoint]

    # -- the account's rate limits ---------------------------------------------------------

    def _costs(self, request: RecordedRequest) -> dict[str, float]:
        body = request.body if isinstance(request.body, dict) else {}
        tokens_in = float(_tokens(request.prompt))
        tokens_out = float(body.get("max_tokens") or body.get("max_completion_tokens") or 0)
        return {
            "requests": 1.0,
            "input-tokens": tokens_in,
            "output-tokens": tokens_out,
            "tokens": tokens_in + tokens_out,
        }

    def _admit(self, request: RecordedRequest) -> tuple[float, dict[str, str]]:
        """Take the request's cost from the buckets: (0, the headers of the state it left), or
        (the seconds until it would fit, the headers) when it does not."""
        costs = self._costs(request)
        with self._lock:
            now = time.monotonic()
            for bucket in self._buckets.values():
                bucket.refill(now)
            wait = max((b.wait_for(costs[n]) for n, b in self._buckets.items()), default=0.0)
            if wait <= 0:
                for name, bucket in self._buckets.items():
                    bucket.level -= costs[name]
            return wait, self._limit_headers()

    def _limit_headers(self) -> dict[str, str]:
        if not self.account.headers:
            return {}
        state: dict[str, tuple[float, float, float]] = {}
        for name in ("requests", "input-tokens", "output-tokens", "tokens"):
            bucket = self._buckets.get(name)
            if bucket is None:
                state[name] = (Account.UNLIMITED, Account.UNLIMITED, 0.0)
            else:
                state[name] = (bucket.limit, max(0.0, bucket.level), bucket.reset_s())
        headers: dict[str, str] = {}
        if self.protocol == "anthropic":
            for name, (limit, remaining, reset) in state.items():
                prefix = f"anthropic-ratelimit-{name}-"
                headers[prefix + "limit"] = str(int(limit))
                headers[prefix + "remaining"] = str(int(remaining))
                headers[prefix + "reset"] = _rfc3339(reset)
        else:
            for name in ("requests", "tokens"):
                limit, remaining, reset = state[name]
                headers[f"x-ratelimit-limit-{name}"] = str(int(limit))
                headers[f"x-ratelimit-remaining-{name}"] = str(int(remaining))
                headers[f"x-ratelimit-reset-{name}"] = _duration(reset)
        return headers

    def _throttle(self, wait: float, headers: dict[str, str]) -> Reply:
        self.throttled += 1
        message = "This request would exceed the rate limit for your organization. Please try again later."
        reply = error_reply(self.protocol, 429, message)
        if self.protocol == "openai":
            reply.body["error"]["code"] = "rate_limit_exceeded"
        reply.headers.update(headers)
        reply.headers["retry-after"] = str(max(1, math.ceil(wait)))
        return reply

    # -- prompt caches ------------------------------------------------------------------------

    def _apply_cache(self, request: RecordedRequest, reply: Reply) -> Callable[[], None] | None:
        """Report the request's cache use in its reply's usage; what to store once it is sent."""
        body = request.body if isinstance(request.body, dict) else {}
        usage = reply.body.get("usage") if isinstance(reply.body, dict) else None
        if reply.status != 200 or not isinstance(usage, dict):
            return None
        if self.protocol == "anthropic":
            prefix = self._anthropic_prefix(body)
            if prefix is None:
                return None
            material, text = prefix
            key = hashlib.sha256(material.encode()).hexdigest()
            tokens = _tokens(text)
            total = usage.get("input_tokens", 0)
            hit = key in self._cache
            with self._lock:
                if hit:
                    self.cache_read_tokens += tokens
                else:
                    self.cache_write_tokens += tokens
            usage["cache_read_input_tokens" if hit else "cache_creation_input_tokens"] = tokens
            usage["cache_creation_input_tokens" if hit else "cache_read_input_tokens"] = 0
            usage["input_tokens"] = max(0, total - tokens)
            return None if hit else (lambda: self._cache.add(key))
        text = request.prompt
        head = text[: 1024 * 4]
        if len(text) < 1024 * 4:
            return None
        best = 0
        for earlier in self._prefixes.get(head, []):
            n = 0
            for a, b in zip(earlier, text, strict=False):
                if a != b:
                    break
                n += 1
            best = max(best, n)
        cached = 1024 + (best // 4 - 1024) // 128 * 128 if best >= 1024 * 4 else 0
        cached = min(cached, usage.get("prompt_tokens", 0))
        with self._lock:
            self.cache_read_tokens += cached
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
        return lambda: self._prefixes.setdefault(head, []).append(text)

    @staticmethod
    def _anthropic_prefix(body: dict[str, Any]) -> tuple[str, str] | None:
        """What the cache entry is keyed on (tools, system and the messages' blocks up to the
        last one marked cache_control), and the prompt text it holds."""
        system = body.get("system")
        parts = [json.dumps(body.get("tools")), json.dumps(system)]
        texts = [system if isinstance(system, str) else json.dumps(system)]
        marked: int | None = None
        blocks: list[tuple[str, str]] = []
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, list):
                for block in content:
                    plain = {k: v for k, v in block.items() if k != "cache_control"}
                    blocks.append((json.dumps(plain), str(block.get("text", ""))))
                    if block.get("cache_control"):
                        marked = len(blocks)
            else:
                blocks.append((json.dumps(content), str(content)))
        if marked is None:
            return None
        return "".join(parts + [m for m, _ in blocks[:marked]]), "".join(
            texts + [t for _, t in blocks[:marked]]
        )

    # -- answering --------------------------------------------------------------------------

    def _model_reply(self, request: RecordedRequest, *, from_queue: bool = True) -> Reply:
        with self._lock:
            item = self._queue.popleft() if from_queue and self._queue else None
        if item is None:
            item = self.responder or auto_judge
        return item(request) if callable(item) else item

    def _next_reply(self, request: RecordedRequest) -> tuple[Reply, Callable[[], None] | None]:
        with self._lock:
            self.requests.append(request)
        path = request.path.split("?")[0]
        if path != self.endpoint:
            return self._api_reply(request, path), None
        if request.method != "POST":
            return error_reply(self.protocol, 404, f"no route {request.method} {request.path}"), None
        wait, headers = self._admit(request)
        if wait > 0:
            return self._throttle(wait, headers), None
        reply = self._model_reply(request)
        reply = Reply(reply.status, reply.body, {**headers, **reply.headers}, reply.delay_s + self.latency_s)
        return reply, self._apply_cache(request, reply)

    def _api_reply(self, request: RecordedRequest, path: str) -> Reply:
        handler = self._anthropic_batches if self.protocol == "anthropic" else self._openai_batches
        try:
            reply = handler(request, path)
        except KeyError:
            reply = None
        return reply or error_reply(self.protocol, 404, f"no route {request.method} {request.path}")

    # -- Anthropic's Message Batches API -----------------------------------------------------

    def _anthropic_batches(self, request: RecordedRequest, path: str) -> Reply | None:
        m = re.fullmatch(r"/v1/messages/batches(?:/([\w-]+)(?:/(results|cancel))?)?", path)
        if m is None:
            return None
        batch_id, action = m.groups()
        if batch_id is None and request.method == "POST":
            batch = {
                "id": f"msgbatch_{uuid.uuid4().hex[:24]}",
                "requests": request.body["requests"],
                "created_at": time.time(),
                "polls": 0,
                "state": "in_progress",
                "results": None,
                "canceled": False,
            }
            self._batches[batch["id"]] = batch
            return Reply(body=self._anthropic_batch_json(batch))
        batch = self._batches[batch_id]
        if action == "cancel" and request.method == "POST":
            batch["canceled"] = True
            self._end_batch(batch)
            return Reply(body=self._anthropic_batch_json(batch))
        if action == "results":
            lines = [json.dumps(r) for r in batch["results"] or []]
            return Reply(body="\n".join(lines) + "\n", headers={"content-type": "application/binary"})
        batch["polls"] += 1
        if batch["polls"] >= self.account.batch_polls:
            self._end_batch(batch)
        return Reply(body=self._anthropic_batch_json(batch))

    def _end_batch(self, batch: dict[str, Any]) -> None:
        if batch["state"] == "ended":
            return
        batch["state"] = "ended"
        results = []
        for item in batch["requests"] if self.protocol == "anthropic" else batch["lines"]:
            body = item["params"] if self.protocol == "anthropic" else item["body"]
            cid = item["custom_id"]
            if batch["canceled"]:
                results.append((cid, None))
                continue
            recorded = RecordedRequest(
                self.protocol, "POST", self.endpoint, {}, body, received_at=time.monotonic()
            )
            reply = self._model_reply(recorded)
            recorded.answered_at, recorded.status = time.monotonic(), reply.status
            with self._lock:
                self.batch_requests.append(recorded)
            results.append((cid, reply))
        batch["results"] = [self._batch_result(cid, reply) for cid, reply in results]

    def _batch_result(self, cid: str, reply: Reply | None) -> dict[str, Any]:
        if self.protocol == "anthropic":
            if reply is None:
                return {"custom_id": cid, "result": {"type": "canceled"}}
            if reply.status == 200:
                return {"custom_id": cid, "result": {"type": "succeeded", "message": reply.body}}
            return {"custom_id": cid, "result": {"type": "errored", "error": reply.body}}
        if reply is None:
            return {
                "custom_id": cid,
                "response": None,
                "error": {"code": "batch_cancelled", "message": "cancelled"},
            }
        return {
            "id": f"batch_req_{uuid.uuid4().hex[:16]}",
            "custom_id": cid,
            "response": {"status_code": reply.status, "request_id": uuid.uuid4().hex, "body": reply.body},
            "error": None,
        }

    def _anthropic_batch_json(self, batch: dict[str, Any]) -> dict[str, Any]:
        results = batch["results"]
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if results is None:
            counts["processing"] = len(batch["requests"])
        else:
            for r in results:
                counts[r["result"]["type"]] += 1
        ended = batch["state"] == "ended"
        created = datetime.datetime.fromtimestamp(batch["created_at"], datetime.UTC)
        return {
            "id": batch["id"],
            "type": "message_batch",
            "processing_status": batch["state"],
            "request_counts": counts,
            "created_at": created.isoformat(),
            "expires_at": (created + datetime.timedelta(hours=24)).isoformat(),
            "ended_at": datetime.datetime.now(datetime.UTC).isoformat() if ended else None,
            "cancel_initiated_at": datetime.datetime.now(datetime.UTC).isoformat()
            if batch["canceled"]
            else None,
            "archived_at": None,
            "results_url": f"{self.root}/v1/messages/batches/{batch['id']}/results" if ended else None,
        }

    # -- OpenAI's Files and Batch APIs -------------------------------------------------------

    def _openai_batches(self, request: RecordedRequest, path: str) -> Reply | None:
        if path == "/v1/files" and request.method == "POST":
            return self._upload(request)
        m = re.fullmatch(r"/v1/files/([\w-]+)/content", path)
        if m is not None:
            return Reply(
                body=self._files[m.group(1)].decode("utf-8"), headers={"content-type": "application/jsonl"}
            )
        m = re.fullmatch(r"/v1/batches(?:/([\w-]+)(?:/(cancel))?)?", path)
        if m is None:
            return None
        batch_id, action = m.groups()
        if batch_id is None and request.method == "POST":
            body = request.body
            content = self._files[body["input_file_id"]].decode("utf-8")
            lines = [json.loads(line) for line in content.splitlines() if line.strip()]
            if any(line.get("url") != body["endpoint"] for line in lines):
                return openai_error(400, "every line's url must be the batch's endpoint")
            batch = {
                "id": f"batch_{uuid.uuid4().hex[:24]}",
                "input_file_id": body["input_file_id"],
                "endpoint": body["endpoint"],
                "completion_window": body["completion_window"],
                "lines": lines,
                "created_at": int(time.time()),
                "polls": 0,
                "state": "in_progress",
                "results": None,
                "canceled": False,
            }
            self._batches[batch["id"]] = batch
            return Reply(body=self._openai_batch_json(batch))
        batch = self._batches[batch_id]
        if action == "cancel":
            batch["canceled"] = True
            self._end_openai_batch(batch)
        else:
            batch["polls"] += 1
            if batch["polls"] >= self.account.batch_polls:
                self._end_openai_batch(batch)
        return Reply(body=self._openai_batch_json(batch))

    def _upload(self, request: RecordedRequest) -> Reply:
        raw = request.body if isinstance(request.body, bytes) else str(request.body).encode()
        message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
            b"Content-Type: " + request.headers["content-type"].encode() + b"\r\n\r\n" + raw
        )
        fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}  # type: ignore[attr-defined]
        content = fields["file"].get_payload(decode=True)
        purpose = fields["purpose"].get_payload(decode=True).decode()
        file_id = f"file-{uuid.uuid4().hex[:24]}"
        self._files[file_id] = content
        filename = fields["file"].get_filename() or "upload"
        return Reply(
            body={
                "id": file_id,
                "object": "file",
                "bytes": len(content),
                "created_at": int(time.time()),
                "filename": filename,
                "purpose": purpose,
                "status": "processed",
            }
        )

    def _end_openai_batch(self, batch: dict[str, Any]) -> None:
        if batch["state"] in ("completed", "cancelled"):
            return
        self._end_batch(batch)
        batch["state"] = "cancelled" if batch["canceled"] else "completed"
        done = [r for r in batch["results"] if r.get("response")]
        failed = [r for r in batch["results"] if not r.get("response")]
        for kind, rows in (("output", done), ("error", failed)):
            if rows:
                file_id = f"file-{uuid.uuid4().hex[:24]}"
                self._files[file_id] = ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
                batch[f"{kind}_file_id"] = file_id

    def _openai_batch_json(self, batch: dict[str, Any]) -> dict[str, Any]:
        results = batch["results"]
        ok = sum(1 for r in results or [] if r.get("response") and r["response"]["status_code"] == 200)
        return {
            "id": batch["id"],
            "object": "batch",
            "endpoint": batch["endpoint"],
            "errors": None,
            "input_file_id": batch["input_file_id"],
            "completion_window": batch["completion_window"],
            "status": batch["state"],
            "output_file_id": batch.get("output_file_id"),
            "error_file_id": batch.get("error_file_id"),
            "created_at": batch["created_at"],
            "request_counts": {
                "total": len(batch["lines"]),
                "completed": ok,
                "failed": len(results) - ok if results is not None else 0,
            },
        }

    # -- HTTP --------------------------------------------------------------------------------

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
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                body: Any
                if headers.get("content-type", "").startswith("multipart/"):
                    body = raw
                else:
                    text = raw.decode("utf-8", "replace")
                    try:
                        body = json.loads(text) if text else None
                    except ValueError:
                        body = text
                request = RecordedRequest(
                    server.protocol, self.command, self.path, headers, body, received_at=time.monotonic()
                )
                try:
                    reply, after = server._next_reply(request)
                except Exception as exc:  # a bug of the stand-in: an answer, not a dropped connection
                    reply, after = error_reply(server.protocol, 500, f"stand-in error: {exc!r}"), None
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    reply_headers = {"content-type": "application/json", **reply.headers}
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply_headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)
                finally:
                    request.answered_at, request.status = time.monotonic(), reply.status
                    if after is not None:
                        after()
                    if reply.status == 200 and request.path.split("?")[0] == server.endpoint:
                        server.answered.set()

            do_POST = _handle
            do_GET = _handle

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # a run's judge calls connect at once (the listen backlog)
            daemon_threads = True
            block_on_close = False

        httpd = Server(("127.0.0.1", 0), Handler)
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
