"""A block's visible text with its source positions (`Block`): what the inline scan
(`citecheck.extract.inline`) and the HTML prose reader (`citecheck.extract.htmlblocks`) hand to
sentence splitting (`citecheck.extract.drafts`), with its links, masked spans and citation
markers."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from citecheck.extract import citations, resolve
from citecheck.models import Citation


@dataclass
class Link:
    """A link of a block's visible text, and what it cites."""

    start: int  # offsets in the block's visible text
    end: int
    citation: Citation | None  # None: not a web source (relative link, mailto:)
    # "[text](#id)": an in-document anchor, followed once the file is read; "page.md#id" when the
    # link names a page (`drafts._own_anchor`: an anchor only if the page is this file)
    anchor: str | None = None


# An in-page link that only moves the reader: "[top](#table-of-contents)", "[↑ Back to top](#)".
_NAVIGATION = re.compile(
    r"\s*(?:(?:(?:back|return|go|scroll)\s+)?(?:up\s+)?(?:to\s+)?(?:the\s+)?"
    r"(?:top|contents|table\s+of\s+contents|toc)(?:\s+of\s+(?:the\s+)?page)?\s*[↑⬆]?|[↑⬆⇧^]+"
    r"(?:\s*(?:back\s+to\s+)?top)?)\s*",
    re.IGNORECASE,
)


def navigation(text: str) -> bool:
    """Whether an in-page link's text says it only moves the reader (to the top, to the
    contents): navigation, no citation of the part it leads to."""
    return len(text) < 40 and _NAVIGATION.fullmatch(text) is not None


@dataclass(frozen=True)
class Anchor:
    """A link to an in-document anchor, resolved to the entry there once the file is read."""

    id: str
    raw: str


@dataclass(frozen=True)
class PandocKeys:
    """The keys of one pandoc citation bracket or bibliography role, resolved once the file is
    read."""

    keys: tuple[str, ...]
    role: str | None = None  # the role as written (`{cite:p}`a,b``); None for a pandoc bracket


@dataclass
class Block:
    """The visible text of one inline run (a paragraph, a cell), with its source positions."""

    text: str = ""
    seg_v: list[int] = field(default_factory=list)  # visible offset where a segment starts
    seg_line: list[int] = field(default_factory=list)  # 1-based file line of that offset
    seg_col: list[int] = field(default_factory=list)  # 1-based file column of that offset
    # Column of the text itself when markup (a link's "[", emphasis) starts at the same offset.
    seg_text_col: list[int] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    masked: list[tuple[int, int]] = field(default_factory=list)  # code and URL spans
    footnotes: list[tuple[int, str]] = field(default_factory=list)  # (offset, label or "#id")
    pandoc: list[tuple[int, PandocKeys]] = field(default_factory=list)  # (offset, a bracket's keys)
    anchors: list[str] = field(default_factory=list)  # ids declared here (<a name="x">, id="x")
    # superscript note markers left out of the text: (offset, their numbers, opens a line)
    sups: list[tuple[int, str, bool]] = field(default_factory=list)
    breaks: list[int] = field(default_factory=list)  # offsets of line breaks
    ignore: bool = False  # an inline citecheck-ignore marker
    toggles: list[bool] = field(default_factory=list)  # inline disable (False) / enable (True)

    def position(self, offset: int) -> tuple[int, int]:
        """The file line and column of a visible offset."""
        i = bisect_right(self.seg_v, offset) - 1
        if i < 0:
            return (self.seg_line[0], self.seg_col[0]) if self.seg_line else (1, 1)
        if offset == self.seg_v[i]:
            return self.seg_line[i], self.seg_col[i]
        return self.seg_line[i], self.seg_text_col[i] + (offset - self.seg_v[i])


def apply_mask(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span written over by a placeholder word of its length ("Xxxx"), so what
    it held (code, a URL, a citation) is never read as a figure, a year or a sentence's end."""
    if not spans:
        return text
    out: list[str] = []
    prev = 0
    for s, e in sorted(spans):
        if s < prev:
            s = prev
        if e <= s:
            continue
        out.append(text[prev:s])
        # a capital first letter: a sentence may start with a code span ("`Intl` is a huge set")
        out.append("X" + "x" * (e - s - 1))
        prev = e
    out.append(text[prev:])
    return "".join(out)


def sup_numbers(inner: str) -> list[str]:
    """The note numbers a superscript marker holds: "1" → ["1"], "[1],[2]" → ["1", "2"], "3-5"."""
    return resolve.expand_numbers(inner.translate(_SUP_PUNCTUATION).strip(" ,"))


_SUP_PUNCTUATION = str.maketrans("", "", "[]. ")


_URL_ONLY = re.compile(r"(?:https?://|www\.)\S{1,2000}")


def block_urls(block: Block) -> list[str]:
    """The sources a block names, in order: its links' and the URLs of its text (a footnote
    body's, a reference entry's)."""
    urls = [lk.citation.url for lk in block.links if lk.citation is not None and lk.citation.url]
    seen = set(urls)
    link_spans = {(lk.start, lk.end) for lk in block.links}
    # a code span that is nothing but a URL names it (`[^1]: `http://…``); other code is code
    hidden = [
        (a, b)
        for a, b in block.masked
        if (a, b) not in link_spans and not _URL_ONLY.fullmatch(block.text[a:b].strip())
    ]
    for u in citations.urls_in(apply_mask(block.text, hidden)):
        if u not in seen:
            seen.add(u)
            urls.append(u)
    return urls
