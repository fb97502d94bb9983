"""Pandoc citations: `[@key]`, `[see @key, p. 3; @other]`, `[-@key]` (kind: the form of the
identifier a key names, else `pandoc`), including manubot's persistent-identifier keys.

A bracket is a citation when each of its `;`-separated items holds one `@key` (a key starts with
a letter, digit or `_` and holds alphanumerics and the internal punctuation `:.#$%&-+?<>~/`, or
is written in braces, `@{https://…}`), and no `(` or `[` follows it (that is a link). The bracket
is a marker, not text: the walk drops it from the claim's text and cites what each key names.

What a key names (`citecheck.extract.resolve.pandoc_citation`), in this order:
1. manubot's prefixes: `@doi:10.…` → `https://doi.org/…`; `@arxiv:ID`; `@pmid:N` / `@pubmed:N`;
   `@pmc:PMCN` / `@pmcid:PMCN`; `@isbn:N`; `@url:URL`, `@https://…`; `@wikidata:QN`;
2. an alias: a `[@key]: target` definition (in the document, or in another Markdown file of its
   folder: a manubot manuscript keeps them in one file, e.g. `@tag:name` keys) or a
   `citation-tags.tsv` row; the target is a URL or a prefixed key;
3. the bibliography the document names (`citecheck.extract.bibliography`): the entry's DOI,
   URL, PMID, PMCID, arXiv id or ISBN;
4. manubot's inferred prefixes: `@10.…` (DOI), `@PMC…`, an arXiv id, `@Q…` (Wikidata), digits (PMID).
A key none of these resolves is kept as an error citation with the reason, as an undefined
`[N]` is. Cross-reference keys (`@fig:…`, `@tbl:…`, `@eq:…`, `@sec:…`, `@lst:…`) cite nothing.
"""

from __future__ import annotations

import re

from citecheck.extract.forms import arxiv, doi, isbn, pubmed
from citecheck.extract.forms.base import CitationForm
from citecheck.extract.urls import web_target
from citecheck.models import CitationKind

MAX_BRACKET = 1000  # characters: a longer "[…]" is not a citation bracket
MAX_KEYS = 50  # keys of one bracket (as `resolve.MAX_REFERENCES_PER_BRACKET`)
_KEY = r"(?:\{([^{}\n]{1,300})\}|(\w(?:[\w:.#$%&+?<>~/-]{0,300}[\w/])?))"
_ITEM_KEY = re.compile(rf"(?<![\w@.\\])-?@{_KEY}")
CROSSREF = frozenset({"fig", "tbl", "eq", "sec", "lst", "table", "figure"})


def bracket_keys(inner: str) -> list[str] | None:
    """The keys of a citation bracket's content (between "[" and "]"), or None when it is not
    a citation bracket. Cross-reference keys are dropped (a bracket of only those gives [])."""
    if "@" not in inner or len(inner) > MAX_BRACKET:
        return None
    keys: list[str] = []
    for item in inner.split(";"):
        if not item.strip():
            continue  # "[@a;; @b]": a stray separator
        m = _ITEM_KEY.search(item)
        if m is None:
            return None
        key = m.group(1) or m.group(2)
        if len(keys) < MAX_KEYS and not is_crossref(key):
            keys.append(key)
    return keys


def is_crossref(key: str) -> bool:
    prefix, sep, _ = key.partition(":")
    return bool(sep) and prefix.lower() in CROSSREF


_PMC = re.compile(r"PMC\d{1,9}", re.I)
_WIKIDATA = re.compile(r"Q\d{1,12}")
_ARXIV_ID = re.compile(rf"{arxiv._ID}")


def identifier_url(key: str) -> tuple[CitationKind, str, str] | None:
    """(kind, identifier, URL) of a key with a persistent-identifier prefix (`doi:`, `arxiv:`,
    `pmid:`/`pubmed:`, `pmc:`/`pmcid:`, `isbn:`, `url:`, `http(s)://`, `wikidata:`), or None."""
    prefix, sep, rest = key.partition(":")
    low = prefix.lower()
    if not sep or not rest:
        return None
    if low in ("http", "https"):
        url = web_target(key)
        return (CitationKind.pandoc, key, url) if url else None
    if low == "url":
        url = web_target(rest)
        return (CitationKind.pandoc, rest, url) if url else None
    if low == "doi":
        url = doi.normalize_doi(rest)
        return CitationKind.doi, url[len("https://doi.org/") :], url
    if low == "arxiv" and _ARXIV_ID.fullmatch(rest):
        return CitationKind.arxiv, rest, arxiv.abs_url(rest)
    if low in ("pmid", "pubmed") and rest.isdigit() and len(rest) <= 8:
        return CitationKind.pmid, rest, pubmed.pubmed_url(rest)
    if low in ("pmc", "pmcid") and _PMC.fullmatch(rest):
        return CitationKind.pandoc, rest.upper(), pmc_url(rest)
    if low == "isbn":
        number = isbn.normalize(rest)
        return (CitationKind.isbn, number, isbn.isbn_url(number)) if number else None
    if low == "wikidata" and _WIKIDATA.fullmatch(rest):
        return CitationKind.pandoc, rest, f"https://www.wikidata.org/wiki/{rest}"
    return None


def inferred_url(key: str) -> tuple[CitationKind, str, str] | None:
    """Manubot's prefix inference for a key without a prefix: `10.…` or `10/…` (DOI), `PMC…`,
    an arXiv id, `Q…` (Wikidata), digits (PubMed)."""
    if key.startswith(("10.", "10/")):
        return identifier_url(f"doi:{key}")
    if _PMC.fullmatch(key):
        return identifier_url(f"pmc:{key}")
    if _ARXIV_ID.fullmatch(key) and "." in key:
        return identifier_url(f"arxiv:{key}")
    if _WIKIDATA.fullmatch(key):
        return identifier_url(f"wikidata:{key}")
    if key.isdigit() and len(key) <= 8:
        return identifier_url(f"pmid:{key}")
    return None


def pmc_url(pmcid: str) -> str:
    return f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid.upper()}/"


# Structural: the parser's `pandoc_cite` rule finds the brackets (a "[" is its gate).
FORM = CitationForm(name="pandoc", kind=CitationKind.pandoc, gate=(r"\[",))
