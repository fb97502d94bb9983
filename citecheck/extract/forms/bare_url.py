"""Bare URLs in running text: `https://…`, `http://…`, `www.…` (kind `bare_url`; a URL that
another form canonicalises, such as a doi.org or arxiv.org URL, takes that form's kind)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.extract.forms.base import CitationForm, Hit
from citecheck.extract.urls import trim_url, web_target
from citecheck.models import CitationKind

# A "](" ends it: "[here] (https://a.org/x](https://a.org/x)" is a link written wrong, two URLs.
# An apostrophe inside a word belongs to it ("…/wiki/Dan_O'Bannon", as GitHub links it); one
# after the URL closes a quotation ("'https://a.org/x'").
BARE_URL = re.compile(r"(?<![\w@/])(?:https?://|www\.)(?:[^\s<>\"'`\]]|'(?=\w)|\](?!\())+", re.IGNORECASE)
# The scheme a bare URL opens with, as the inline parse has it before the ":" (`document`'s
# bare-URL rule): at the end of the text read so far, not inside a word or an address.
SCHEME_BEFORE = re.compile(r"(?<![\w@/])https?$", re.IGNORECASE)


def find(text: str) -> Iterator[Hit]:
    for m in BARE_URL.finditer(text):
        raw = trim_url(m.group(0))
        url = web_target(raw)
        if url:
            yield Hit(m.start(), m.start() + len(raw), raw, url)


FORM = CitationForm(
    name="bare_url",
    kind=CitationKind.bare_url,
    gate=(r"https?:", r"www\."),
    find=find,
    needles=("http", "www."),
)
