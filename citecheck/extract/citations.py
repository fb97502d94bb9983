"""The registry of citation forms: every way a Markdown sentence can cite a source (see
docs/ARCHITECTURE.md).

Each form is a `CitationForm` (`citecheck.extract.forms.base`): its `CitationKind`, the gate
its raw Markdown needs, how it is found in running text, how its URLs canonicalise, and
whether its text is the claim's content or a marker. Everything that varies by form is
derived from `FORMS`:
- `parse_gate`: the cheap test that decides whether a block is parsed at all (a form's gate is
  part of it by construction, so a registered form is never dropped unparsed);
- `running_forms` / `citation`: the forms found in a block's visible text and the citations
  they make (`citecheck.extract.drafts` masks what they cover before kinds are detected);
- `web_url` / `identify`: a link target or bare URL made canonical by the form that knows it
  (a doi.org URL → `https://doi.org/…`, an arXiv abstract URL → `https://arxiv.org/abs/<id>`);
- `urls_in`: the sources named in plain text (footnote bodies, reference entries);
- `text_without_citations`: a claim's text with its citation markers blanked, for the checks.

Adding a form with its own syntax: write `forms/<name>.py` with a `FORM` (a finder, a gate,
needles, a canonicaliser, a marker pattern if its digits could pass for a year or figure), add
one line to `FORMS`, and its tests; a new `CitationKind` value also goes in `citecheck.models`.
Structural forms (links, footnotes, `[N]`, superscript markers, author-year) are found by the
document walk and `citecheck.extract.resolve`; their entries here carry their gate and marker
behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citecheck.extract.forms import arxiv, bare_url, doi, isbn, pandoc, pubmed, roles
from citecheck.extract.forms.base import CitationForm, Hit
from citecheck.extract.markup import blank_spans
from citecheck.extract.urls import parse_text_fragment, web_target
from citecheck.models import Citation, CitationKind

# "(Smith, 2020)", "(Smith et al. 2020; Lee 2019)": where a claim comes from, not a date it states.
_AUTHOR_YEAR_MARKER = re.compile(
    r"\((?:[A-Z][^()]{0,100}?),?\s+(?:1[5-9]|20)[0-9]{2}[a-z]?(?:\s*[;,][^()]*)?\)"
)

FORMS: tuple[CitationForm, ...] = (
    # Structural forms, found by the walk. Links: [text](url), [text][id], <https://…>, <a href>.
    CitationForm("link", CitationKind.link, gate=(r"\[", r"<[aAhH]"), content=True),
    CitationForm("reference", CitationKind.reference, gate=(r"\[",), content=True),
    # A link to the project's own pages (relative, site path, in-page anchor): resolved with the
    # checkout (`citecheck.fetch.site`).
    CitationForm("internal", CitationKind.internal, gate=(r"\[", r"<[aAhH]"), content=True),
    CitationForm("footnote", CitationKind.footnote, gate=(r"\[\^", r"\^\[")),
    CitationForm("numbered", CitationKind.numbered, gate=(r"\[",)),
    # "indicators<sup>1</sup>", "<sup>[3]</sup>", "<sup><a href="#fn1">1</a></sup>": an HTML
    # superscript marker, resolved to the note or reference-list entry with that number.
    CitationForm("superscript", CitationKind.numbered, gate=(r"<[sS][uU][pP]\b",)),
    # [@key], [see @doi:10.…, p. 3; @tag:name]: the parser's pandoc_cite rule (forms/pandoc.py).
    pandoc.FORM,
    # {cite}`key`, :cite:`a,b`: the parser's cite_role rule (forms/roles.py).
    roles.FORM,
    # {doc}`page`, {ref}`label`, :ref:`title <label>`: links written as roles (forms/roles.py).
    roles.XREF_FORM,
    # "(…2020…)": a year inside parentheses; "Smith (2020)" too.
    CitationForm(
        "author_year",
        CitationKind.author_year,
        gate=(r"\([^()]*?(?:1[5-9]|20)\d\d",),
        marker=_AUTHOR_YEAR_MARKER,
    ),
    # Forms with a syntax of their own, found in running text (in this order: a DOI inside a
    # bare URL belongs to the URL).
    bare_url.FORM,
    doi.FORM,
    arxiv.FORM,
    pubmed.FORM,
    isbn.FORM,
)

_RUNNING = tuple(f for f in FORMS if f.find is not None)
_CANONICAL = tuple(f for f in FORMS if f.canonical is not None)
_CONTENT_KINDS = frozenset(f.kind for f in FORMS if f.content)
_MARKERS = tuple(f.marker for f in FORMS if f.marker is not None)


def parse_gate(*extra: str) -> re.Pattern[str]:
    """One pattern matching a block's raw Markdown wherever any registered form may be in it
    (plus the walk's own `extra` alternatives)."""
    alternatives = dict.fromkeys([*(alt for f in FORMS for alt in f.gate), *extra])
    return re.compile("|".join(alternatives))


# Any running-text form's needle: most blocks hold none, and one search says so.
_ANY_NEEDLE = re.compile("|".join(re.escape(n) for f in _RUNNING for n in f.needles))


def running_forms(text: str) -> list[CitationForm]:
    """The running-text forms that may occur in `text` (their cheap test passes), in order."""
    lower = text.lower()
    if _ANY_NEEDLE.search(lower) is None:
        return []
    return [f for f in _RUNNING if f.may_occur(lower)]


def identify(url: str) -> tuple[CitationForm, str, str] | None:
    """The form that knows this web URL, with the URL's identifier and canonical URL."""
    for form in _CANONICAL:
        found = form.canonical(url) if form.canonical is not None else None
        if found is not None:
            return form, found[0], found[1]
    return None


def web_url(href: str) -> str | None:
    """The canonical fetchable URL of a link target, or None for mailto:, relative links,
    anchors."""
    url = web_target(href)
    if url is None:
        return None
    known = identify(url)
    return known[2] if known else url


def citation(form: CitationForm, hit: Hit) -> Citation:
    """The citation a running-text form found; a bare URL that another form knows takes that
    form's kind, identifier and canonical URL."""
    known = identify(hit.url)
    if known is not None:
        kind, identifier, url = known[0].kind, known[1], known[2]
    else:
        kind, identifier, url = form.kind, hit.identifier, hit.url
    return Citation(
        raw=hit.raw, kind=kind, identifier=identifier, url=url, text_fragment=parse_text_fragment(url)
    )


def urls_in(text: str) -> list[str]:
    """Every source a piece of plain text names (a footnote body, a reference entry), form by
    form in registry order, each URL once."""
    found: dict[str, None] = {}  # ordered, and a set: a text may name thousands
    for form in running_forms(text):
        for hit in form.hits(text):
            known = identify(hit.url)
            found.setdefault(known[2] if known else hit.url)
    return list(found)


def text_without_citations(text: str, citations: Iterable[Citation]) -> str:
    """`text` (a claim's text) with its citation markers blanked, same length: "(Smith, 2020)"
    is where the claim comes from, not a date it states; "[3]" is not a figure; nor are an
    arXiv id's or a PMID's digits, even as a link's text. A link's text is what the claim says
    ("[93% of respondents](…)") and stays."""
    spans = [m.span() for marker in _MARKERS for m in marker.finditer(text)]
    for c in citations:
        if c.kind in _CONTENT_KINDS:
            continue
        if c.start is not None and c.end is not None and 0 <= c.start < c.end <= len(text):
            spans.append((c.start, c.end))
        elif c.raw:
            pos = text.find(c.raw)
            if pos >= 0:
                spans.append((pos, pos + len(c.raw)))
    return blank_spans(text, spans) if spans else text
