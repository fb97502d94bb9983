"""Web URLs as written in Markdown: trimming, the fetchable form, text fragments (see
docs/ARCHITECTURE.md). Shared by the citation forms; which URLs a form canonicalises is the
form's business (`citecheck.extract.citations`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

_TRAILING = ".,;:!?'\"”’*_"


def trim_url(url: str) -> str:
    """Drop sentence punctuation stuck to a URL, keeping balanced closing parentheses."""
    # The brackets are counted once and kept count of as they go: counted again for each
    # character dropped, a URL ending in many ")" took quadratic time.
    opened, closed = url.count("("), url.count(")")
    square_opened, square_closed = url.count("["), url.count("]")
    end = len(url)
    while end:
        last = url[end - 1]
        if last in _TRAILING:
            end -= 1
        elif last == ")" and closed > opened:
            closed -= 1
            end -= 1
        elif last == "]" and square_closed > square_opened:
            square_closed -= 1
            end -= 1
        else:
            break
    return url[:end]


def is_web_url(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


# A link target that names a host without its scheme ("ssci.io/sci-notes", "doi.org/10/gc5sjd"):
# the author meant that site (a renderer reads it as a relative path, which is broken). Only
# common web domains, so that a file name ("notes.md", "setup.py") stays a relative link.
_SCHEMELESS_HOST = re.compile(
    r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|org|net|io|dev|edu|gov|ai|app|info)(?:[/?#]|$)",
    re.IGNORECASE,
)


def web_target(href: str) -> str | None:
    """A link target as a fetchable URL (scheme added to `//host`, `www.` and a common web
    domain written without it), or None for mailto:, relative links and anchors. Not
    canonicalised: see `citations.web_url`."""
    href = href.strip()
    if href.startswith("//"):
        return "https:" + href
    if href.lower().startswith("www."):
        return "http://" + href
    if is_web_url(href):
        return href
    return "https://" + href if _SCHEMELESS_HOST.match(href) else None


# A scheme: "mailto:", "tel:", "javascript:", "data:", "ftp:" (a web one is read by `web_target`).
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}:")
# What no path of a checkout holds: a blanked template ("{{ site.baseurl }}"), spaces, brackets
# of an unparsed expression.
_NOT_A_PATH = re.compile(r"[\s<>{}|\\^`\[\]\ue000]")
# An address written without its "mailto:" ("recovac@gu.se"): no page of the site.
_EMAIL = re.compile(r"[^/@#?]+@[^/@#?]+\.[A-Za-z]{2,}")


# What a link to the project's own files names when it is no page but an asset: an image, a
# video, a sound, an archive, a font (a figure's zoom link, a download): no source of text.
_ASSET = re.compile(
    r"\.(?:png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|mp4|webm|mov|m4v|mp3|wav|ogg|zip|tar|gz|tgz|bz2|xz|7z|"
    r"woff2?|ttf|otf|eot)$",
    re.IGNORECASE,
)


def internal_target(href: str) -> str | None:
    """A link target that names one of the project's own pages, as written: a relative link
    ("../reference/config.md#timeout", "sp800-63a.html"), a site path ("/rules/x",
    "/settings#allowbuilds"); None for a web URL, another scheme (mailto:, tel:), an in-page
    anchor alone ("#id", read apart), an asset (an image, an archive: `_ASSET`), an e-mail
    address, or what is no path (a blanked template, an expression, a link in a link)."""
    href = href.strip()
    if not href or href[0] in "#?" or web_target(href) is not None or _SCHEME.match(href):
        return None
    if _NOT_A_PATH.search(href) is not None or _EMAIL.fullmatch(href) is not None:
        return None
    if _ASSET.search(href.split("#", 1)[0].split("?", 1)[0]) is not None:
        return None
    return href


def text_fragment_suffix(url: str) -> str:
    """The URL's `#…` fragment when it holds a `:~:` directive (kept when a URL is
    canonicalised: it is the author's pointer into the page), else ""."""
    hash_pos = url.find("#")
    return url[hash_pos:] if hash_pos >= 0 and ":~:" in url[hash_pos:] else ""


@dataclass(frozen=True)
class TextFragment:
    """A decoded `#:~:text=[prefix-,]start[,end][,-suffix]` directive."""

    start: str
    end: str | None = None
    prefix: str | None = None
    suffix: str | None = None


def parse_text_fragment_full(url: str) -> TextFragment | None:
    hash_pos = url.find("#")
    if hash_pos < 0:
        return None
    frag = url[hash_pos + 1 :]
    directive_pos = frag.find(":~:")
    if directive_pos < 0:
        return None
    for part in frag[directive_pos + 3 :].split("&"):
        if not part.startswith("text="):
            continue
        pieces = part[5:].split(",")  # literal commas separate the parts; %2C is text
        prefix = suffix = None
        if len(pieces) > 1 and pieces[0].endswith("-"):
            prefix = unquote(pieces.pop(0)[:-1])
        if len(pieces) > 1 and pieces[-1].startswith("-"):
            suffix = unquote(pieces.pop()[1:])
        if not pieces or not pieces[0]:
            continue
        start = unquote(pieces[0]).strip()
        end = unquote(pieces[1]).strip() if len(pieces) > 1 and pieces[1] else None
        if start:
            return TextFragment(start=start, end=end, prefix=prefix, suffix=suffix)
    return None


def parse_text_fragment(url: str) -> str | None:
    """The decoded `textStart` of a URL's first `#:~:text=` directive: the author's pointer."""
    tf = parse_text_fragment_full(url)
    return tf.start if tf else None


# A change on a code host: a pull or merge request, an issue, a commit, a comparison of two tags.
_CHANGE_PATH = re.compile(
    r"https?://[^/\s]+/[^/\s]+/[^/\s]+/(?:-/)?(?:pulls?|issues|commits?|merge_requests|compare)/[\w.~^-]+/?(?:#\S*)?",
    re.IGNORECASE,
)
# How a change log names one: "#123", "!45", "GH-123", "PR #12", a commit hash.
_CHANGE_NAME = re.compile(r"(?:(?:PR|pull|issue|MR|GH)[\s-]?)?[#!]?\d+|[0-9a-f]{7,40}", re.IGNORECASE)


def is_change_path(url: str) -> bool:
    """Whether a URL is a change on a code host: a pull or merge request, an issue, a commit."""
    return _CHANGE_PATH.fullmatch(url) is not None


def is_change_reference(raw: str, url: str) -> bool:
    """Whether a citation is a change log's cross-reference: a link named by its number or hash
    ("[#14172](https://github.com/astral-sh/uv/pull/14172)", "([abc1234](…/commit/abc1234))") or
    a bare URL of a pull request, issue or commit. It says where a change was made, not where a
    fact is stated."""
    if not is_change_path(url):
        return False
    if not raw.startswith("["):
        return True  # a bare URL or an autolink
    end = raw.find("]")
    return end > 0 and _CHANGE_NAME.fullmatch(raw[1:end].strip().strip("`")) is not None
