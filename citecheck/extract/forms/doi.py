"""DOIs: `doi:10.…`, `https://doi.org/10.…`, `http://dx.doi.org/10.…` and bare `10.xxxx/…`,
all normalised to `https://doi.org/10.…` (kind `doi`; a link to a DOI URL stays a `link`
with the normalised URL)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.extract.forms.base import CitationForm, Hit
from citecheck.extract.urls import trim_url
from citecheck.models import CitationKind

DOI = re.compile(
    r"(?:(?<![\w/.])(?:https?://(?:dx\.)?doi\.org/|doi:\s?)|(?<![\w/.-]))(10\.\d{4,9}/[^\s\"<>]+)",
    re.IGNORECASE,
)
_PREFIX = "https://doi.org/"
_WRITTEN_PREFIX = re.compile(r"https?://(?:dx\.)?doi\.org/|doi:\s?", re.IGNORECASE)


def normalize_doi(doi: str) -> str:
    """`doi:10.1/x`, `http://dx.doi.org/10.1/x`, `10.1/x` → `https://doi.org/10.1/x`. Idempotent:
    what is no DOI once trimmed ("10.1234/" of "10.1234/)") keeps one prefix, not two."""
    m = DOI.search(doi)
    if m is not None:
        return _PREFIX + trim_url(m.group(1))
    core = doi.strip()
    written = _WRITTEN_PREFIX.match(core)
    return _PREFIX + (core[written.end() :] if written else core)


def is_doi_url(url: str) -> bool:
    low = url.lower()
    return low.startswith(("https://doi.org/10.", "http://doi.org/10.", "https://dx.doi.org/10.")) or (
        low.startswith("http://dx.doi.org/10.")
    )


def canonical(url: str) -> tuple[str, str] | None:
    if not is_doi_url(url):
        return None
    doi_url = normalize_doi(url)
    return doi_url[len(_PREFIX) :], doi_url


def find(text: str) -> Iterator[Hit]:
    for m in DOI.finditer(text):
        raw = trim_url(m.group(0))
        url = normalize_doi(raw)
        yield Hit(m.start(), m.start() + len(raw), raw, url, url[len(_PREFIX) :])


FORM = CitationForm(
    name="doi",
    kind=CitationKind.doi,
    gate=(r"10\.\d", "doi:"),
    find=find,
    needles=("10.",),
    canonical=canonical,
)
