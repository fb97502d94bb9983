"""Is the site refusing us? Bot-blocking answers, told apart from dead links.

A site that answers robots with 401/403/429, or with a bot-protection "challenge" page
instead of the content, has not shown us whether its page supports the claim; neither is the
link dead. Such a source is `FetchOutcome.blocked` (the fail-on category `blocked`,
docs/ARCHITECTURE.md), so a team can fail on dead links but not on sites that refuse robots.

The challenge pages recognised (a small list on purpose: each pattern is specific to the
vendor's challenge or block page, not to the scripts those vendors put on ordinary pages):

- Cloudflare: the header `cf-mitigated: challenge`; the title "Just a moment..." or
  "Attention Required! | Cloudflare"; its challenge script's `_cf_chl_opt`.
- DataDome: its captcha frame from `captcha-delivery.com`.
- PerimeterX (HUMAN): the `px-captcha` element.
- Akamai: its error reference link to `errors.edgesuite.net`.
- Imperva / Distil: the title "Pardon Our Interruption"; "Incapsula incident ID" (short
  pages only).
- Any vendor: "verify you are human", "checking your browser before accessing", "enable
  JavaScript and cookies to continue", the title "Access denied" (short pages only).

"Short pages only": phrases an article could quote count only on a page under
`SHORT_PAGE_BYTES`, the size of a challenge page, not of an article. Only the first
`SNIFF_BYTES` of a body are searched, and only where an ordinary page is unlikely: a 503 (a
challenge there must not be retried), or a 2xx page with no extractable text or less than
`CHALLENGE_TEXT_CHARS` of it — a challenge page shows a sentence or two — so an article costs
nothing here.
"""

from __future__ import annotations

import re

import httpx

# Statuses that mean "not for robots": 401/403 refuse, 429 throttles (after the retries it
# allows); 999 is LinkedIn's answer to every robot.
BLOCKED_STATUSES = frozenset({401, 403, 429, 999})
SNIFF_BYTES = 32 * 1024
SHORT_PAGE_BYTES = 32 * 1024
CHALLENGE_TEXT_CHARS = 1000

# Searched in the lower-cased head of the body as plain substrings, ~15 us for a short page:
# a case-insensitive regular expression of the same marks took ~0.5-1 ms on a 32 KB head, and
# one of them all on the lower-cased head ~30 us on a short one (Python's `re` scans each
# alternative in turn).
_VENDOR_MARKERS: tuple[tuple[str, tuple[bytes, ...]], ...] = (
    ("Cloudflare", (b"_cf_chl_opt",)),
    ("DataDome", (b"captcha-delivery.com",)),
    ("PerimeterX", (b'id="px-captcha"', b"id='px-captcha'", b"id=px-captcha")),
    ("Akamai", (b"errors.edgesuite.net",)),
)
_VENDOR_TITLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Cloudflare", ("just a moment...", "just a moment…", "attention required! | cloudflare")),
    ("Imperva", ("pardon our interruption",)),
)
_SHORT_PAGE_MARKERS: tuple[tuple[str, tuple[bytes, ...]], ...] = (
    ("Imperva", (b"incapsula incident id",)),
    (
        "bot-check",
        (
            b"verify you are human",
            b"verify that you are human",
            b"verify you are a human",
            b"checking your browser before accessing",
            b"enable javascript and cookies to continue",
        ),
    ),
)
_SHORT_PAGE_TITLES: tuple[tuple[str, tuple[str, ...]], ...] = (("bot-check", ("access denied",)),)
_TITLE = re.compile(rb"<title[^>]{0,200}>([^<]{0,200})")


def _title(head: bytes) -> str:
    """The page's `<title>`, lower-cased, whitespace collapsed ("" when there is none)."""
    at = head.find(b"<title")
    if at < 0:
        return ""
    m = _TITLE.match(head, at)
    return " ".join(m.group(1).decode("utf-8", "replace").split()) if m else ""


def challenge_page(headers: httpx.Headers, body: bytes) -> str | None:
    """What names the answer as a bot-protection challenge or block page ("Cloudflare
    challenge page"), or None for an ordinary answer. `body` may be only the first bytes."""
    if headers.get("cf-mitigated", "").strip().lower() == "challenge":
        return "Cloudflare challenge page"
    head = body[:SNIFF_BYTES].lower()
    title = _title(head)
    rules = [(_VENDOR_TITLES, _VENDOR_MARKERS)]
    if len(body) < SHORT_PAGE_BYTES:
        rules.append((_SHORT_PAGE_TITLES, _SHORT_PAGE_MARKERS))
    # The vendors' own marks first: they name who is asking.
    for titles, markers in rules:
        for vendor, starts in titles:
            if title and title.startswith(starts):
                return f"{vendor} challenge page"
        for vendor, needles in markers:
            if any(n in head for n in needles):
                return f"{vendor} challenge page"
    return None


def blocked_reason(status: int, page: str = "", *, after: str = "") -> str:
    """The reason a blocked source reports: "blocked by the site (HTTP 403)", naming the
    challenge page (`page`) or the retries (`after`) when there are some."""
    named = f"{page}, " if page else ""
    then = f" {after}" if after else ""
    return f"blocked by the site ({named}HTTP {status}{then})"
