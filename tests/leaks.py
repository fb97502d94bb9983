"""How a secret leaks, for tests of redaction (not a server: what a leaking judge writes, and a
reader that finds a secret in what citecheck wrote).

`key_forms(key)` are the copies of a key a provider, a proxy or a prompt-injected model may
echo: raw, percent-encoded (upper and lower case hex), cut short, base64 (standard and URL-safe,
the key at each of the three alignments inside a larger blob, as in an HTTP Basic header),
interleaved with zero-width or control characters, in fullwidth letters, and as a URL's `q=`.

`leaks(text, key)` is the oracle: the names of the views of `text` in which some run of
`WINDOW` consecutive characters of the key can be read — the text itself, the text with
invisible characters taken out (and JSON's `\\u` escapes of them), percent-decoded, folded by
NFKC, and every base64 run decoded at each of its four alignments in both alphabets. It knows
nothing of how citecheck finds a key: it reads the output the way someone harvesting it would.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from urllib.parse import unquote_to_bytes

WINDOW = 16  # consecutive characters of a key that count as a leak (citecheck's cut-short bound)

_INVISIBLE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]"
    r"|\\u(?:00[01][0-9a-fA-F]|007[fF]|200[b-fB-F]|206[0-4]|[fF][eE][fF][fF])"
)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}")


def key_forms(key: str) -> dict[str, str]:
    """Each way of echoing `key`, by name."""
    raw = key.encode()

    def b64(data: bytes, *, urlsafe: bool = False) -> str:
        return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()

    return {
        "raw": key,
        "percent-encoded": "".join(f"%{b:02X}" for b in raw),
        "percent-encoded, lower case": "".join(f"%{b:02x}" for b in raw),
        "cut short": key[: max(WINDOW, len(key) * 2 // 3)],
        # `x-access-token:` is 15 bytes: the key at alignment 0; `Bearer ` 7: alignment 1.
        "base64, Basic header": b64(b"x-access-token:" + raw),
        "base64, alignment 1": b64(b"Bearer " + raw + b" trailing"),
        "base64, alignment 2": b64(b"k=" + raw),
        "base64url, alignment 1": b64(b"Bearer " + raw, urlsafe=True),
        "zero-width interleaved": "\u200b".join(key),
        "control characters interleaved": "\x07".join(key),
        "fullwidth": "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in key),
        "in a URL's q=": f"https://search.example/?q={key}&page=2",
    }


def echo_text(key: str) -> str:
    """Every form of `key` in one text, as a leaking model's rationale would carry them."""
    return " | ".join(f"{name}: {form}" for name, form in key_forms(key).items())


def _windows(key: str) -> set[str]:
    return {key[i : i + WINDOW] for i in range(len(key) - WINDOW + 1)}


def _decoded_base64(text: str) -> str:
    out: list[str] = []
    for run in _BASE64_RUN.findall(text):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) // 4 * 4]
            for alt in (b"+/", b"-_"):
                try:
                    data = base64.b64decode(chunk.encode(), altchars=alt, validate=False)
                except (binascii.Error, ValueError):
                    continue
                out.append(data.decode("latin-1"))
    return "\n".join(out)


def leaks(text: str, key: str) -> list[str]:
    """The views of `text` that show `WINDOW` consecutive characters of `key` (empty: none)."""
    visible = _INVISIBLE.sub("", text)
    views = {
        "as written": text,
        "invisible characters removed": visible,
        "percent-decoded": unquote_to_bytes(visible).decode("latin-1"),
        "NFKC": unicodedata.normalize("NFKC", visible),
        "base64-decoded": _decoded_base64(visible),
    }
    windows = _windows(key)
    return [name for name, view in views.items() if any(w in view for w in windows)]
