"""PubMed ids: `PMID: 12345678`, `PMID 12345678`, `PMID:12345678` (also pandoc/manubot's
`@pmid:…`), `pubmed.ncbi.nlm.nih.gov/12345678` written without a scheme, and the PubMed URLs
(`https://pubmed.ncbi.nlm.nih.gov/…`, the older `https://www.ncbi.nlm.nih.gov/pubmed/…`), all
normalised to `https://pubmed.ncbi.nlm.nih.gov/<id>/` (kind `pmid`; a link to a PubMed URL
stays a `link` with the normalised URL)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from citecheck.extract.forms.base import CitationForm, Hit
from citecheck.extract.urls import text_fragment_suffix
from citecheck.models import CitationKind

# Literal spellings, not a case-insensitive pattern: the parse gate tests them on every block
# (see forms/arxiv.py). PMIDs are 1-8 digits (38 million records in 2025).
SPELLINGS = ("PMID", "pmid", "Pmid")
_HOST = "pubmed"  # pubmed.ncbi.nlm.nih.gov, as written in running text
PMID = re.compile(
    rf"(?<![\w/.-])(?:(?:{'|'.join(SPELLINGS)}):?\s?(\d{{1,8}})|{_HOST}\.ncbi\.nlm\.nih\.gov/(\d{{1,8}})/?)(?![\w-])"
)
_URL = re.compile(
    r"https?://(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(\d{1,8})/?(?=[?#]|$)",
    re.I,
)


def pubmed_url(pmid: str) -> str:
    return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"


def canonical(url: str) -> tuple[str, str] | None:
    m = _URL.match(url)
    if m is None:
        return None
    return m.group(1), pubmed_url(m.group(1)) + text_fragment_suffix(url)


def find(text: str) -> Iterator[Hit]:
    for m in PMID.finditer(text):
        pmid = m.group(1) or m.group(2)
        yield Hit(m.start(), m.end(), m.group(0), pubmed_url(pmid), pmid)


FORM = CitationForm(
    name="pubmed",
    kind=CitationKind.pmid,
    gate=(*SPELLINGS, _HOST),
    find=find,
    needles=("pmid", "pubmed"),
    canonical=canonical,
    marker=PMID,
)
