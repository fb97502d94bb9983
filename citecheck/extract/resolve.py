"""Resolve stage: turn what a sentence cites into the URL of the source to check (see
docs/ARCHITECTURE.md).

The citation forms and their URLs are registered in `citecheck.extract.citations`; this
module resolves the structural ones the document walk finds:

- inline links, autolinks and `<a href>`: the link target as written, canonicalised by the
  form that knows it (a DOI link → `https://doi.org/…`, an arXiv link → `https://arxiv.org/abs/…`);
  a `citecheck-ignore` link title marks it skipped;
- reference-style links `[text][id]`: the definition (markdown-it applies it); an undefined
  one is an error;
- footnotes `[^1]`: one citation per source the footnote body names (`citations.urls_in`),
  plus what the body's own `[N]` / author-year references resolve to; a body with none is an
  error;
- numbered references `[N]` (also `[1, 2]`, `[3-5]`) and author-year `(Smith, 2020)`,
  `(Smith et al. 2020; Lee & Ng, 2019)`, `Smith (2020)`: looked up in the document's reference
  list (a References / Sources / Bibliography / Notes / Works cited section, numbered or
  not); a numbered citation uses the entry with that label, an author-year citation the first
  entry whose text names the author and the year; the entry's first source is the URL.

A text fragment (`#:~:text=…`) stays in the URL as written; its decoded `textStart` goes to
`Citation.text_fragment` (see `citecheck.extract.urls.parse_text_fragment`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from citecheck.extract.bibliography import Bibliography
from citecheck.extract.citations import urls_in, web_url
from citecheck.extract.forms import pandoc
from citecheck.extract.urls import internal_target, parse_text_fragment
from citecheck.models import Citation, CitationKind, Reference, ResolveStatus

# --- citations ---------------------------------------------------------------------------------


def link_citation(
    raw: str, kind: CitationKind, href: str, title: str | None = None, identifier: str | None = None
) -> Citation | None:
    """A citation for a link target: a web source, or one of the project's own pages (kind
    `internal`, its target as written, resolved by `citecheck.fetch.site`); None for what is
    neither (mailto:, an in-page anchor alone, which the walk follows)."""
    url = web_url(href)
    if url is None:
        target = internal_target(href)
        if target is None:
            return None
        cit = Citation(raw=raw, kind=CitationKind.internal, identifier=target)
    else:
        cit = Citation(
            raw=raw, kind=kind, identifier=identifier, url=url, text_fragment=parse_text_fragment(url)
        )
    if title and "citecheck-ignore" in title:
        cit.resolve_status = ResolveStatus.skipped
        cit.resolve_error = "link title says citecheck-ignore"
    return cit


# --- numbered and author-year mentions ----------------------------------------------------------

# Not a regular expression's character class: "[0-9]+", "\\d[1-3]{2}" (a quantifier follows).
_NUMBERED = re.compile(r"\[(?<!\\\[)(\d{1,4}(?:\s*[,–-]\s*\d{1,4})*)\](?![(\[:+*?{])")
_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
    ]
)
# A surname may open with particles: "van der See", "de Souza", "Ludwig von Mises"
_PARTICLE = r"(?:van|von|de|der|den|da|di|du|le|la|del|dos)"
_NAME = rf"(?:{_PARTICLE}\s+){{0,2}}[A-Z][\w'’-]+(?:\s+{_PARTICLE}(?:\s+{_PARTICLE})?\s+[A-Z][\w'’-]+)?"
_AUTHORS = rf"{_NAME}(?:\s+et\s+al\.?|\s*(?:,\s*{_NAME})*\s*(?:,?\s*(?:&|and)\s+{_NAME}))?"
_YEAR = r"(?:1[5-9]\d\d|20\d\d)[a-z]?"
# Hostile input is bounded (docs/ARCHITECTURE.md): the patterns below run on any text a file
# holds, so none may try a long stretch of it from each of many starting points.
# "(… 2020 …)": the text between a "(" and the next ")" when no other "(" comes first, holding
# a year. Matching the parentheses first and looking for the year inside is linear; the year
# inside the pattern (a lazy scan, then a scan to the ")") made "(2000 2000 2000 …" quadratic.
_PAREN = re.compile(r"\(([^()]*)\)")
_PAREN_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
_PAREN_ITEM = re.compile(
    rf"^\s*(?:(?:see|e\.g\.,?|cf\.|also)\s+)*({_AUTHORS})(,?)\s+({_YEAR})(?:,\s*(?:p|pp)\.?\s*[\d–-]+)?\s*$"
)
_YEAR_IN_PARENS = re.compile(r"\((?:1[5-9]|20)\d\d[a-z]?\)")
# "Smith (2020)" is found from its "(2020)": the names stand before it, after the "(" before
# it, and within `NARRATIVE_WINDOW` characters. Searched for at every word of the text, the
# names made a long run of capitalised words or hyphenated letters ("A-A-A-…") quadratic.
_NARRATIVE = re.compile(rf"\b({_AUTHORS})\s+\(({_YEAR})\)")
_NARRATIVE_YEAR = re.compile(rf"\((?<=\s\()(?:{_YEAR})\)")  # a space before the "("
NARRATIVE_WINDOW = 200  # characters of names before "(2020)"; real author lists take under 100

# Caps on what one bracket or parenthesis can cite (distinct references, after ranges are
# expanded; repeats collapse): "[1-9999]" or "[1,2,…,50000]" must not become a citation (and a
# copy of the bracket) per number. The same cap holds for the sources of one footnote and of
# one quotation's attribution, which every sentence pointing at them cites again.
MAX_RANGE = 20  # "[3-22]" expands to 20 references; a wider range stays one label, "3-9999"
MAX_REFERENCES_PER_BRACKET = 50  # distinct labels of one "[…]" or "(…; …)"; the rest are dropped


@dataclass(frozen=True)
class Mention:
    """A reference-list citation found in sentence text, not yet resolved."""

    raw: str  # shared by every mention of one bracket, never copied per number
    kind: CitationKind  # numbered or author_year
    identifier: str  # "7" or "Smith 2020"
    start: int
    end: int
    strong: bool  # True when the form is unmistakable even without a reference list
    superscript: bool = False  # "<sup>1</sup>": a note marker, found by the walk, not in the text


def expand_numbers(spec: str) -> list[str]:
    """The distinct labels of a bracket's "1, 3-5" (ranges of up to `MAX_RANGE`), in order,
    at most `MAX_REFERENCES_PER_BRACKET`."""
    out: dict[str, None] = {}
    for part in re.split(r"\s*,\s*", spec):
        if len(out) >= MAX_REFERENCES_PER_BRACKET:
            break
        if re.fullmatch(r"\d+\s*[–-]\s*\d+", part):
            a, b = (int(x) for x in re.split(r"\s*[–-]\s*", part))
            if a <= b and b - a < MAX_RANGE:
                out.update((str(i), None) for i in range(a, b + 1))
                continue
        out[part.strip()] = None
    return list(out)[:MAX_REFERENCES_PER_BRACKET]


def _narrative(text: str) -> list[re.Match[str]]:
    """The matches of `_NARRATIVE`, in linear time: each "(year)" is tried with the names in
    the stretch before it that holds no "(" and no earlier match."""
    found: list[re.Match[str]] = []
    done = 0  # where the last match ended
    for y in _NARRATIVE_YEAR.finditer(text):
        paren = y.start()
        lo = max(done, paren - NARRATIVE_WINDOW)
        lo = max(lo, text.rfind("(", lo, paren) + 1)
        m = _NARRATIVE.search(text, lo, y.end())
        if m is not None:
            found.append(m)
            done = m.end()
    return found


def find_mentions(text: str) -> list[Mention]:
    """Numbered `[N]` and author-year citations in visible sentence text, in text order."""
    found: list[Mention] = []
    for m in _NUMBERED.finditer(text):
        raw = m.group(0)
        for n in expand_numbers(m.group(1)):
            found.append(Mention(raw, CitationKind.numbered, n, m.start(), m.end(), True))
    for m in _PAREN.finditer(text):
        inside = m.group(1)
        if _PAREN_YEAR.search(inside) is None:
            continue
        seen: set[str] = set()
        for item in inside.split(";"):
            if len(seen) >= MAX_REFERENCES_PER_BRACKET:
                break
            im = _PAREN_ITEM.match(item)
            if not im or im.group(1).split()[0].lower() in _MONTHS:
                continue
            raw = f"({item.strip()})"
            if raw in seen:
                continue  # the same reference again: it would cite the same source
            seen.add(raw)
            authors, comma, year = im.group(1), im.group(2), im.group(3)
            strong = bool(comma) or "et al" in authors or "&" in authors or " and " in authors
            found.append(
                Mention(raw, CitationKind.author_year, f"{authors} {year}", m.start(), m.end(), strong)
            )
    if not _YEAR_IN_PARENS.search(text):
        found.sort(key=lambda x: x.start)
        return found
    for m in _narrative(text):
        if m.group(1).split()[0].lower() in _MONTHS:
            continue
        found.append(
            Mention(
                m.group(0), CitationKind.author_year, f"{m.group(1)} {m.group(2)}", m.start(), m.end(), False
            )
        )
    found.sort(key=lambda x: x.start)
    return found


def _surname(authors: str) -> str:
    return re.split(r"\s+et\s+al|,|\s+&\s+|\s+and\s+", authors)[0].strip().split()[-1]


class ReferenceIndex:
    """A document's reference list, for looking mentions up: by label through a dict, and by
    author and year once per distinct pair, so that many mentions of a long list cost one
    pass each rather than a pass over the list per mention."""

    def __init__(self, references: list[Reference]) -> None:
        self.references = references
        self._labels: dict[str, Reference] = {}
        for ref in references:
            if ref.label is not None:
                self._labels.setdefault(ref.label, ref)  # the first entry with that label
        self._lower = [ref.text.lower() for ref in references]
        self._author_year: dict[str, Reference | None] = {}

    def find(self, mention: Mention) -> Reference | None:
        if mention.kind == CitationKind.numbered:
            return self._labels.get(mention.identifier)
        key = mention.identifier
        if key not in self._author_year:
            self._author_year[key] = self._by_author_year(key)
        return self._author_year[key]

    def _by_author_year(self, identifier: str) -> Reference | None:
        """The first entry naming the author and the year; else the first naming the author
        and the year without its letter ("2020" for "2020a")."""
        authors, year = identifier.rsplit(" ", 1)
        surname = _surname(authors).lower()
        year_re = re.compile(rf"(?<!\d){re.escape(year)}(?![\da-z])")
        bare_year_re = re.compile(rf"(?<!\d){re.escape(year[:4])}(?!\d)")
        fallback: Reference | None = None
        for ref, low in zip(self.references, self._lower, strict=True):
            if surname not in low:
                continue
            if year_re.search(ref.text):
                return ref
            if fallback is None and bare_year_re.search(ref.text):
                fallback = ref
        return fallback


def mention_citation(mention: Mention, references: ReferenceIndex) -> Citation:
    """Resolve a numbered / author-year mention against the document's reference list."""
    if mention.superscript:
        label = f"note <sup>{mention.identifier}</sup>"
    elif mention.kind == CitationKind.numbered:
        label = f"reference [{mention.identifier}]"
    else:
        label = f"reference {mention.raw}"
    cit = Citation(
        raw=mention.raw,
        kind=mention.kind,
        identifier=mention.identifier,
        start=mention.start,
        end=mention.end,
    )
    ref = references.find(mention)
    if ref is None:
        cit.resolve_status = ResolveStatus.error
        cit.resolve_error = (
            f"{label} not found in the reference list"
            if references.references
            else f"{label} not found: the document has no reference list "
            "(a References, Sources, Bibliography or Notes section)"
        )
    elif not ref.urls:
        cit.resolve_status = ResolveStatus.error
        cit.resolve_error = f"{label} (line {ref.line}) has no URL or DOI"
    else:
        cit.url = ref.urls[0]
        cit.text_fragment = parse_text_fragment(cit.url)
    return cit


def _error(raw: str, kind: CitationKind, identifier: str, reason: str) -> Citation:
    return Citation(
        raw=raw, kind=kind, identifier=identifier, resolve_status=ResolveStatus.error, resolve_error=reason
    )


def footnote_citations(
    raw: str, label: str, body_urls: list[str] | None, body_mentions: Iterable[Citation] = ()
) -> list[Citation]:
    """One citation per source a footnote body points to (each once, at most
    `MAX_REFERENCES_PER_BRACKET`: a footnote is cited by every sentence that points at it); an
    error citation if none."""
    if body_urls is None:
        return [_error(raw, CitationKind.footnote, label, f"footnote [^{label}] is not defined")]
    out: list[Citation] = []
    named: set[str] = set()
    for u in body_urls:
        if len(out) >= MAX_REFERENCES_PER_BRACKET:
            return out
        if u not in named:
            named.add(u)
            out.append(
                Citation(
                    raw=raw,
                    kind=CitationKind.footnote,
                    identifier=label,
                    url=u,
                    text_fragment=parse_text_fragment(u),
                )
            )
    for m in body_mentions:
        if len(out) >= MAX_REFERENCES_PER_BRACKET:
            return out
        if m.url and m.url not in named:
            named.add(m.url)
            update = {
                "raw": raw,
                "kind": CitationKind.footnote,
                "identifier": label,
                "start": None,
                "end": None,
            }
            out.append(m.model_copy(update=update))
    return out or [_error(raw, CitationKind.footnote, label, f"footnote {raw} cites no URL or DOI")]


def attribution_citations(found: Iterable[Citation]) -> list[Citation]:
    """The sources a quotation's attribution links (each once, at most
    `MAX_REFERENCES_PER_BRACKET`: they are cited by every sentence of the quotation)."""
    out: list[Citation] = []
    named: set[str | None] = set()
    for c in found:
        if len(out) >= MAX_REFERENCES_PER_BRACKET:
            break
        if c.url not in named:
            named.add(c.url)
            out.append(c)
    return out


def pandoc_citation(key: str, bib: Bibliography, *, role: str | None = None) -> Citation:
    """What a pandoc citation key names (see `citecheck.extract.forms.pandoc` for the order),
    or an error citation saying why it names nothing. `role`: the key comes from a bibliography
    role as written (`{cite:p}`a,b``, `citecheck.extract.forms.roles`), which names no aliases."""
    raw = role or f"@{key}"
    form = CitationKind.role if role else CitationKind.pandoc
    found = pandoc.identifier_url(key)
    if found is None and role is None:
        target = bib.alias(key)
        if target is not None:
            found = pandoc.identifier_url(target) or (
                (CitationKind.pandoc, key, url) if (url := web_url(target)) else None
            )
            if found is None:
                return _error(
                    raw,
                    CitationKind.pandoc,
                    key,
                    f"citation alias [@{key}] names {target!r}, not a URL or identifier",
                )
    if found is None:
        known, url = bib.entry(key)
        if known and url:
            found = (form, key, url)
        elif known:
            where = ", ".join(bib.files)
            return _error(raw, form, key, f"bibliography entry {key} ({where}) has no URL or identifier")
    if found is None and role is None:
        found = pandoc.inferred_url(key)
    if found is None:
        if bib.files:
            label = key if role else f"[@{key}]"
            reason = f"citation key {label} not found in the bibliography ({', '.join(bib.files)})"
        elif role:
            reason = (
                f"citation key {key} not found: the project configures no bibliography (bibtex_bibfiles"
                " in _config.yml or conf.py, bibfile in config.ini, bibliography in myst.yml)"
            )
        else:
            reason = (
                f"citation key [@{key}] not found: the document names no bibliography"
                f" and defines no [@{key}]: alias"
            )
        if bib.problems:
            reason += f"; {'; '.join(bib.problems)}"
        return _error(raw, form, key, reason)
    kind, identifier, url = found
    return Citation(
        raw=raw, kind=kind, identifier=identifier, url=url, text_fragment=parse_text_fragment(url)
    )


def undefined_reference(raw: str, label: str) -> Citation:
    """A reference-style link `[text][label]` whose definition is missing from the file."""
    return _error(raw, CitationKind.reference, label, f"link reference [{label}] is not defined in the file")


# --- reference lists ---------------------------------------------------------------------------

REFERENCE_HEADINGS: frozenset[str] = frozenset(
    {
        "references",
        "reference",
        "sources",
        "source",
        "bibliography",
        "notes",
        "works cited",
        "citations",
        "endnotes",
        "literature",
        "footnotes",
        "reference list",
        "sources and notes",
        "notes and references",
        # a reading list holds the entries author-year citations name ("(Mary Budd Rowe, 1986)")
        "further reading",
        "additional reading",
        "recommended reading",
        "reading list",
        "references and further reading",
        "further reading and references",
        "literature cited",
    }
)


_HEADING_NUMBER = re.compile(r"[\d.\s]+")


def _heading_words(text: str) -> str:
    r"""A heading without its number ("2.1 ") and trailing colon: what `^[\d.\s]+|[:\s]+$`
    removed, but without trying each character of a long run of colons to the end of the run
    (the pattern did, which was quadratic)."""
    text = text.strip()
    number = _HEADING_NUMBER.match(text)
    if number is not None:
        text = text[number.end() :]
    while text and (text[-1] == ":" or text[-1].isspace()):
        text = text.rstrip().rstrip(":")
    return text


def is_reference_heading(text: str) -> bool:
    return _heading_words(text).lower() in REFERENCE_HEADINGS


def is_notes_heading(text: str) -> bool:
    """ "Notes": endnotes, or an article's closing remarks in prose (DataFusion's blog, Prettier's
    docs). Its numbered or listed entries are references; a paragraph of prose there is prose."""
    return _heading_words(text).lower() == "notes"


def opens_with_label(text: str) -> bool:
    """Whether an entry opens with its label: "[3] …", "3. …", "3) …"."""
    return _LABEL.match(text) is not None


_LABEL = re.compile(r"^\s*(?:\[(\w{1,8})\]|(\d{1,4})[.)])\s*")
_LABEL_AT = re.compile(r"\s*(?:\[\w{1,8}\]|\d{1,4}[.)])")


def make_reference(text: str, urls: list[str], line: int, label: str | None = None) -> Reference:
    """A reference-list entry; a leading `[N]` / `N.` in the text is its label."""
    m = _LABEL.match(text)
    if m:
        label = label or m.group(1) or m.group(2)
        text = text[m.end() :]
    all_urls = list(urls)
    named = set(urls)
    for u in urls_in(text):
        if u not in named:
            named.add(u)
            all_urls.append(u)
    return Reference(label=label, text=text.strip(), urls=all_urls, line=line)


def starts_with_label(text: str, pos: int = 0) -> bool:
    """Whether `text` from `pos` starts with a reference label ("[3]", "3.", "3)")."""
    return _LABEL_AT.match(text, pos) is not None


def dedupe(citations: list[Citation]) -> list[Citation]:
    """Drop repeated citations of the same URL (keeping the first), and keep every error."""
    seen: set[str] = set()
    out: list[Citation] = []
    for c in citations:
        key = c.url or f"{c.kind}:{c.raw}:{c.identifier}"
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
    return out
