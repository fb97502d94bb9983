"""arXiv identifiers: `arXiv:2301.01234`, `arXiv:2301.01234v2`, old-style
`arXiv:hep-th/9901001` (also pandoc/manubot's `@arxiv:…`, and `arxiv.org/abs/…` written without
a scheme), and `https://arxiv.org/abs/…` URLs, all normalised to `https://arxiv.org/abs/<id>`
(kind `arxiv`; a link to an arXiv URL stays a `link` with the normalised URL). The id keeps its
version: the author cited that one.

The abstract page is the canonical one for an identifier: it is HTML (title, authors, abstract,
dates) and links every version. A link to the `/pdf/` is kept as written: the author pointed at
the full text, where a figure the abstract lacks may be (the fetcher reads PDFs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.extract.forms.base import CitationForm, Hit
from citecheck.extract.urls import text_fragment_suffix
from citecheck.models import CitationKind

# New-style ids (2007 on: YYMM.NNNN, from 2015 YYMM.NNNNN) and old-style archive/YYMMNNN ids,
# whose archive may carry a subject class ("math.GT/0309136").
_ID = r"(?:\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]{2})?/\d{7})(?:v\d+)?"
# How authors spell it (arXiv recommends "arXiv:"; pandoc/manubot keys are lower case). Literal
# spellings, not a case-insensitive pattern: the parse gate tests them on every block, and
# literals keep it as fast as before (a case-insensitive alternative made it several times slower).
SPELLINGS = ("arXiv", "arxiv", "ArXiv", "ARXIV")
_NAME = "|".join(SPELLINGS)
# Not inside a URL or a word.
ARXIV = re.compile(rf"(?<![\w/.-])(?:(?:{_NAME}):\s?|(?:{_NAME})\.org/(?:abs|pdf)/)({_ID})(?:\.pdf)?(?!\w)")
_URL = re.compile(rf"https?://(?:www\.|export\.)?arxiv\.org/abs/({_ID})/?(?=[?#]|$)", re.I)


def abs_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/abs/{arxiv_id}"


def canonical(url: str) -> tuple[str, str] | None:
    m = _URL.match(url)
    if m is None:
        return None
    return m.group(1), abs_url(m.group(1)) + text_fragment_suffix(url)


def find(text: str) -> Iterator[Hit]:
    for m in ARXIV.finditer(text):
        yield Hit(m.start(), m.end(), m.group(0), abs_url(m.group(1)), m.group(1))


FORM = CitationForm(
    name="arxiv",
    kind=CitationKind.arxiv,
    gate=SPELLINGS,
    find=find,
    needles=("arxiv",),
    canonical=canonical,
    marker=ARXIV,
)
