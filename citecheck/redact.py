"""Secrets out of every text that leaves a run (docs/ARCHITECTURE.md, "Security").

Two kinds of text must never reach a report, a PR comment, an annotation, a log line or a
model prompt:

- the run's own secrets: the judge's API key(s) and the GitHub token. A provider's error
  body may echo the `Authorization` header, an SDK's message may quote a request; so every
  such text passes through a `Redactor` built from the run's secret values, which puts
  `***` in place of each (and of a cut-off start of one: a message shortened before it was
  redacted keeps no recognisable piece of a key);
- secret-looking parts of URLs (`mask_url`): userinfo (`user:password@`) and the values of
  query and fragment parameters whose names look secret (`token`, `api_key`, `sig`,
  `X-Amz-Signature`, `client_secret`, …). The URL stays recognisable:
  `https://***@example.com/a?token=***&page=2`.

Everything here is plain string work: no URL is parsed by a library that could reject it
(an invalid port, an IDN that does not encode), so masking never fails, and every pattern
runs in linear time on hostile text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypeVar
from urllib.parse import quote, unquote_plus

from pydantic import BaseModel

MASK = "***"
# Masking shorter strings would blank out ordinary words wherever they occur.
MIN_SECRET_CHARS = 4
# A secret cut short (a message truncated before it was redacted) is still masked from this
# many of its first characters on. Keys often start with a fixed prefix (`sk-ant-api03-` is
# 13 characters): 16 takes in a few random ones, so prose that names the prefix is left alone.
PARTIAL_CHARS = 16

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
    name = unquote_plus(name)
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


class Redactor:
    """The run's secrets out of a text, and URLs masked: `redactor(text)`.

    Built from the secret values themselves (API keys, the GitHub token); empty and very
    short values are ignored. A multi-line secret is redacted line by line too, and its
    percent-encoded form as well (an error message may quote a URL that carries it).
    """

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        values: set[str] = set()
        for secret in secrets:
            if not secret:
                continue
            for part in {secret.strip(), *secret.splitlines()}:
                part = part.strip()
                if len(part) >= MIN_SECRET_CHARS:
                    values.add(part)
                    values.add(quote(part, safe=""))
        # Longest first, so a secret that contains another is replaced whole.
        ordered = sorted(values, key=lambda v: (-len(v), v))
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._long = [v for v in ordered if len(v) > PARTIAL_CHARS]

    def __bool__(self) -> bool:
        return self._pattern is not None

    def secrets(self, text: str) -> str:
        """`text` with every secret (whole, or cut short after its first PARTIAL_CHARS) as `***`."""
        if self._pattern is None or not text:
            return text
        text = self._pattern.sub(MASK, text)
        for secret in self._long:
            head = secret[:PARTIAL_CHARS]
            start = text.find(head)
            while start != -1:
                n = PARTIAL_CHARS
                while n < len(secret) and start + n < len(text) and text[start + n] == secret[n]:
                    n += 1
                text = text[:start] + MASK + text[start + n :]
                start = text.find(head, start + len(MASK))
        return text

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
