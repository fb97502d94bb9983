"""Secrets out of every text that leaves a run (docs/ARCHITECTURE.md, "Security").

Two kinds of text must never reach a report, a PR comment, an annotation, a log line, a stored
evaluation or a model prompt:

- the run's own secrets: the judge's API key(s) and the GitHub token. A provider's error
  body may echo the `Authorization` header, an SDK's message may quote a request, a model may
  be talked into writing the key in its rationale, encoded or cut short; so every such text
  passes through the run's one `Redactor`, built from the run's secret values
  (`citecheck.judge.providers.run_redactor`), which puts `***` in place of every copy of one
  it can read (see the class);
- secret-looking parts of URLs (`mask_url`): userinfo (`user:password@`) and the values of
  query and fragment parameters whose names look secret (`token`, `api_key`, `sig`,
  `X-Amz-Signature`, `client_secret`, …). The URL stays recognisable:
  `https://***@example.com/a?token=***&page=2`.

Everything here is plain string work: no URL is parsed by a library that could reject it
(an invalid port, an IDN that does not encode), so masking never fails, and every pattern
runs in linear time on hostile text.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from typing import Any, NamedTuple, TypeVar
from urllib.parse import quote, quote_plus, unquote_plus

from pydantic import BaseModel

MASK = "***"
# A shorter "secret" (a placeholder, a test value) would blank out ordinary words wherever they
# occur, in every report; real API keys and tokens are 20 characters and more. Such a value
# is not redacted at all.
MIN_SECRET_CHARS = 8
# A secret cut short (a message truncated before it was redacted, a model quoting a start of
# it) is masked from its label (`sk-ant-api03-`, `ghs_`: fixed, public) and this many more
# characters on, so prose that names the label is left alone and at most 7 of the key's random
# characters remain readable; never from fewer than PARTIAL_CHARS characters, so no short
# common start (`sk-`) is masked, nor from more than half the secret (`partial_chars`).
PAST_LABEL_CHARS = 8
PARTIAL_CHARS = 12
_LABEL = re.compile(r"(?:[a-z0-9]{1,12}[-_])+")
_URLSAFE = str.maketrans("+/", "-_")
# What a reader does not see, or a renderer drops after redaction (`output.common`'s
# `strip_invisible`: control and bidi characters): C0 and C1 controls but tab and newline,
# soft hyphen, zero-width and joiner characters, bidi marks, embeddings, overrides and
# isolates, line and paragraph separators, invisible operators, variation selectors, the
# Hangul fillers, BOM, interlinear annotation marks, tags. A secret with these inside is
# still found, and masked with them.
_IGNORABLE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
_INVISIBLE_RUN = re.compile(f"[{_IGNORABLE}]+")
# What reading a text (`_read`) changes: a percent escape of an ASCII character, a run of
# invisible characters, a fullwidth ASCII character; in ASCII text, the first two only.
_READING = re.compile(f"%[0-7][0-9A-Fa-f]|[{_IGNORABLE}]+|[\uff01-\uff5e]")
_ASCII_READING = re.compile("%[0-7][0-9A-Fa-f]|[\x00-\x08\x0b-\x1f\x7f]+")

# Words that make a parameter name secret-looking: `token`, `access_token`, `apiKey`,
# `X-Amz-Signature`, `client_secret`, `sig` (Azure SAS), `X-Goog-Credential`, …
_SECRET_WORDS = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "bearer",
        "credential",
        "credentials",
        "hmac",
        "jwt",
        "key",
        "passwd",
        "password",
        "pwd",
        "secret",
        "session",
        "sessionid",
        "sid",
        "sig",
        "signature",
        "token",
    }
)
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_SCHEME_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{0,30}://")
# A URL in running text: a web scheme, then everything up to whitespace or a character that
# cannot be in a URL as written in prose or Markdown. One character class: linear time.
_URL_IN_TEXT = re.compile(r"(?i)\b(?:https?|ftps?|wss?)://[^\s<>\"'`]+")

_M = TypeVar("_M", bound=BaseModel)


def secret_name(name: str) -> bool:
    """Whether a query parameter's name looks like it holds a secret."""
    name = _INVISIBLE_RUN.sub("", unquote_plus(name))
    return any(w.lower() in _SECRET_WORDS for w in _WORD_SPLIT.split(name) if w)


def _mask_params(params: str) -> str:
    """`a=1&token=x` → `a=1&token=***`; a value keeps the `)` or `]` that closes the prose
    or Markdown around the URL."""
    parts = params.split("&")
    for i, part in enumerate(parts):
        name, eq, value = part.partition("=")
        if eq and value and secret_name(name):
            cut = len(value)
            for closer in (")", "]"):
                at = value.find(closer)
                if at != -1:
                    cut = min(cut, at)
            parts[i] = f"{name}={MASK}{value[cut:]}"
    return "&".join(parts)


def mask_url(url: str) -> str:
    """`url` with its userinfo and its secret-looking parameter values replaced by `***`;
    everything else kept byte for byte (never raises, whatever the URL)."""
    if "@" not in url and "=" not in url:
        return url
    head = ""
    rest = url
    scheme = _SCHEME_AUTHORITY.match(url)
    if scheme:
        head, rest = url[: scheme.end()], url[scheme.end() :]
        end = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i != -1), default=len(rest))
        authority, rest = rest[:end], rest[end:]
        userinfo, at, host = authority.rpartition("@")
        head += f"{MASK}@{host}" if at and userinfo else authority
    before_fragment, hash_, fragment = rest.partition("#")
    path, question, query = before_fragment.partition("?")
    if question:
        path += "?" + _mask_params(query)
    if hash_:
        # OAuth's implicit flow puts `access_token=` in the fragment; a text fragment
        # (`#:~:text=`) has no secret-looking name and is kept.
        path += "#" + (_mask_params(fragment) if "=" in fragment else fragment)
    return head + path


def mask_urls(text: str) -> str:
    """Every http(s)/ftp/ws URL in running text masked by `mask_url`."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0)), text)


class _Needle(NamedTuple):
    """One written form of a secret: masked where the text holds it, or its first `head`
    characters and as many more of it as follow (a copy cut short)."""

    text: str
    head: int


def partial_chars(secret: str) -> int:
    """From how many of its first characters a cut-off start of `secret` is masked: its label
    (`sk-ant-api03-`, `ghs_`: lower-case words ending in `-` or `_`, within its first 16
    characters) and PAST_LABEL_CHARS more, at least PARTIAL_CHARS, at most half the secret."""
    label = _LABEL.match(secret, 0, 16)
    past_label = (label.end() if label else 0) + PAST_LABEL_CHARS
    return max(PARTIAL_CHARS, min(past_label, len(secret) // 2))


def _needles(secret: str) -> list[_Needle]:
    """The forms of one secret (one line of it) a text may hold once read (`_read`): itself,
    its `quote_plus` form (a space as `+`; percent escapes are decoded when reading), and base64
    of it at each of the three alignments in both alphabets."""
    partial = partial_chars(secret)
    cut_short = len(secret) > partial

    def head(text: str, chars: int) -> int:
        return min(chars, len(text)) if cut_short else len(text)

    # As written, and as read: a secret holding `%41` is read as holding `A`.
    forms = {secret, secret.replace(" ", "+"), _read(secret)[0]}
    if not secret.isascii():  # percent escapes of non-ASCII bytes are not decoded when reading
        forms |= {quote(secret, safe=""), quote_plus(secret)}
    needles = [_Needle(form, head(form, partial)) for form in forms]
    data = secret.encode()
    for skip in range(3):
        # A key at a byte offset o of a larger blob, skip = -o mod 3: its bytes from `skip` on,
        # in whole groups of three, encode to the same characters whatever surrounds them.
        chunk = data[skip:]
        chunk = chunk[: len(chunk) // 3 * 3]
        if not chunk:
            continue
        encoded = base64.b64encode(chunk).decode()
        # A cut-short copy holds the encoding of its whole groups of three.
        b64_head = 4 * max(1, (partial - skip) // 3)
        for form in {encoded, encoded.translate(_URLSAFE)}:
            needles.append(_Needle(form, head(form, b64_head)))
    return needles


def _as_read(m: re.Match[str]) -> str:
    token = m.group()
    if token[0] == "%":
        return chr(int(token[1:], 16))
    if "\uff01" <= token <= "\uff5e":
        return chr(ord(token) - 0xFEE0)
    return ""  # invisible


def _read(text: str) -> tuple[str, re.Pattern[str] | None]:
    """`text` as a reader sees it: invisible characters (`_IGNORABLE`) left out, percent escapes
    of ASCII decoded, fullwidth ASCII folded; and the pattern that read it (None: `text` reads
    as it is written)."""
    if text.isascii():
        # Most text: only escapes and control characters to read, often neither.
        if "%" not in text and text.isprintable():
            return text, None
        pattern = _ASCII_READING
    else:
        pattern = _READING
    read, changes = pattern.subn(_as_read, text)
    return (read, pattern) if changes else (text, None)


def _positions(text: str, pattern: re.Pattern[str]) -> list[int]:
    """Where each character of `text` as read by `pattern` starts in `text`, and one more
    entry: the end. Made only for a text a secret was found in."""
    starts: list[int] = []
    pos = 0
    for m in pattern.finditer(text):
        starts.extend(range(pos, m.start()))
        if _as_read(m):
            starts.append(m.start())
        pos = m.end()
    starts.extend(range(pos, len(text) + 1))
    return starts


class Redactor:
    """The run's secrets out of a text, and URLs masked: `redactor(text)`.

    Built from the secret values themselves (API keys, the GitHub token), once per run; empty
    values and those shorter than MIN_SECRET_CHARS are ignored. A multi-line secret is redacted
    line by line too. What is masked, wherever a text holds it:

    - a secret as written, percent-encoded (`quote`, `quote_plus`, any mix of escapes and
      characters, hex in either case), or cut short after its first `partial_chars`;
    - its base64 (standard or URL-safe), alone or inside a larger blob such as an HTTP Basic
      header's `user:key`: the secret's whole groups of three bytes encode to the same
      characters at its alignment, so each of the three alignments is one fixed string;
    - any of these with invisible characters inside (zero-width, format and control characters,
      which a renderer may drop after redaction) or in fullwidth letters: the text is read
      without them, and the span they cover in the text is masked.
    """

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        parts: set[str] = set()
        for secret in secrets:
            if not secret:
                continue
            for part in {secret.strip(), *secret.splitlines()}:
                part = part.strip()
                if len(part) >= MIN_SECRET_CHARS:
                    parts.add(part)
        found = {n for part in parts for n in _needles(part)}
        # (head, whole form): every form whose head is at a match is followed as far as it goes.
        self._needles = sorted((n.text[: n.head], n.text) for n in found)
        # Longest first, so that of two heads at one place the longer is the match.
        heads = sorted({head for head, _ in self._needles}, key=lambda h: (-len(h), h))
        self._pattern = re.compile("|".join(map(re.escape, heads))) if heads else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def _spans(self, read: str) -> list[tuple[int, int]]:
        """Where the secrets are in the text as read: a needle's head, then as many more of its
        characters as follow; the longest of the needles found at a place."""
        assert self._pattern is not None
        spans: list[tuple[int, int]] = []
        pos = 0
        while (m := self._pattern.search(read, pos)) is not None:
            at, end = m.start(), m.end()
            for head, needle in self._needles:
                if read.startswith(head, at):
                    k, limit = len(head), min(len(needle), len(read) - at)
                    while k < limit and read[at + k] == needle[k]:
                        k += 1
                    end = max(end, at + k)
            spans.append((at, end))
            pos = end
        return spans

    def secrets(self, text: str) -> str:
        """`text` with every copy of a secret (see the class) as `***`."""
        if self._pattern is None or not text:
            return text
        read, pattern = _read(text)
        spans = self._spans(read)
        if not spans:
            return text
        starts = _positions(text, pattern) if pattern is not None else None
        out: list[str] = []
        pos = 0
        for a, b in spans:
            if starts is not None:
                a, b = starts[a], starts[b]
            out.append(text[pos:a])
            out.append(MASK)
            pos = b
        out.append(text[pos:])
        return "".join(out)

    def __call__(self, text: str) -> str:
        """`text` with the secrets redacted and its URLs masked."""
        return mask_urls(self.secrets(text))

    def data(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, strings) with every string redacted; keys kept."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {k: self.data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(v) for v in value]
        return value

    def changes(self, value: Any) -> bool:
        """Whether `data(value)` would change any string in a JSON-like value (nothing copied)."""
        # Without secrets only URLs are masked, and a string without "://" holds none.
        urls_only = self._pattern is None
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                if (not urls_only or "://" in item) and self(item) != item:
                    return True
            elif isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return False

    def model(self, model: _M) -> _M:
        """A pydantic model (a Report) with every string in it redacted: a copy, or the model
        itself when redacting would change none of its strings."""
        dumped = model.model_dump(mode="json")
        # The usual report has nothing to redact: looking is ~25 ms for 1,000 claims, where
        # rebuilding the data and validating it again into a copy took ~70 ms (CheckResult's
        # validators run per check), on every format rendered.
        if not self.changes(dumped):
            return model
        return type(model).model_validate(self.data(dumped))
