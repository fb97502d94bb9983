"""Property tests of extraction on random input (hypothesis): the extractor never raises and
its positions stay inside the file and the claim; the URL helpers and the citation forms never
raise and normalise idempotently; and every pattern that was made linear (issue 14, hostile
input is bounded: docs/ARCHITECTURE.md) gives exactly what the pattern it replaced gave, which
is kept here as the oracle."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from citecheck.extract import citations, resolve
from citecheck.extract.document import extract_text
from citecheck.extract.drafts import _Spans, _undefined_footnotes, _undefined_references
from citecheck.extract.forms import arxiv, bare_url, doi, pubmed
from citecheck.extract.inline import _skip_link_tail
from citecheck.extract.kinds import _quotations, _scan_quotations
from citecheck.extract.urls import parse_text_fragment, text_fragment_suffix, trim_url, web_target
from citecheck.sentences import (
    _CANDIDATE,
    ABBREVIATIONS,
    _inside_brackets_or_quotes,
    _opens_sentence,
    _Words,
    split_sentences,
)

# Short runs that stay deterministic and fast: the suite runs them every time.
QUICK = settings(max_examples=100, deadline=None, derandomize=True, database=None)
SLOWER = settings(max_examples=60, deadline=None, derandomize=True, database=None)


def pieces(*alphabet: str, max_size: int = 60) -> st.SearchStrategy[str]:
    """Text made of these pieces (characters or short strings), in any order."""
    return st.lists(st.sampled_from(alphabet), max_size=max_size).map("".join)


# --- the extractor ---------------------------------------------------------------------------

MARKDOWN = (
    " ", " ", "\n", "\n\n", "word", "The", "survey", "found", "42%", "2020", "(2021)", "Smith", "et al.",
    "[", "]", "(", ")", "[^1]", "[^1]: ", "^[note]", "[1]", "[1, 2]", "[3-5]", "[a]", "[a]: ", "![", "*",
    "_", "**", "`", "```\n", "~~", "#", "# ", "> ", "- ", "1. ", "| ", " |", "|---|", "\\", "&amp;", "&#",
    "<", ">", "<a href='https://e.com/a'>", "</a>", "<!-- citecheck-ignore -->", "<br>", "https://e.com/x",
    "www.e.org", "10.1234/abc", "doi:10.5555/x", "arXiv:2301.01234", "PMID: 123", '"', "“", "”", "‘", "’",
    ".", "!", "?", "…", ":", ";", ",", "said", "References", "\t", "é", "\u00a0", "+++\n", "---\n",
)  # fmt: skip


@SLOWER
@given(pieces(*MARKDOWN, max_size=120))
def test_extraction_never_raises_and_positions_stay_in_the_file(md: str) -> None:
    doc = extract_text(md, "doc.md")
    lines = md.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for claim in doc.claims:
        assert claim.text and claim.text == claim.text.strip()
        assert 1 <= claim.line <= len(lines)
        assert 1 <= claim.column <= len(lines[claim.line - 1]) + 1
        for c in claim.citations:
            if c.start is not None or c.end is not None:
                assert c.start is not None and c.end is not None
                assert 0 <= c.start <= c.end <= len(claim.text)
    for error in doc.errors:
        assert error.line is None or 1 <= error.line <= len(lines)


# --- URL helpers and citation forms: never raise, idempotent -----------------------------------

URLISH = pieces(
    "http://", "https://", "//", "www.", "HTTP://", "e.com", "/", "a", "Z", "9", "(", ")", "[", "]", ".", ",",
    ";", ":", "!", "?", "'", '"', "”", "’", "*", "_", "#", ":~:", "text=", "-", "%2C", "%", "&", "=", " ",
    "doi.org/", "10.1234/", "dx.", "arxiv.org/abs/", "arxiv.org/pdf/", "2301.01234", "v2", "hep-th/9901001",
    "pubmed.ncbi.nlm.nih.gov/", "ncbi.nlm.nih.gov/pubmed/", "123", "\u00e9", "\ud7ff", "\n",
    max_size=30,
)  # fmt: skip


@QUICK
@given(URLISH)
def test_url_helpers_never_raise_and_trimming_is_idempotent(url: str) -> None:
    trimmed = trim_url(url)
    assert url.startswith(trimmed)
    assert trim_url(trimmed) == trimmed
    target = web_target(url)
    if target is not None:
        assert web_target(target) == target
    parse_text_fragment(url)
    suffix = text_fragment_suffix(url)
    assert url.endswith(suffix)


@QUICK
@given(URLISH)
def test_canonical_urls_are_idempotent(url: str) -> None:
    canonical = citations.web_url(url)
    if canonical is not None:
        assert citations.web_url(canonical) == canonical
    known = citations.identify(url)
    if known is not None:
        form, identifier, again = known
        assert citations.identify(again) == (form, identifier, again)


@QUICK
@given(URLISH)
def test_doi_normalisation_is_idempotent(text: str) -> None:
    if doi.DOI.search(text) is not None:
        normal = doi.normalize_doi(text)
        assert doi.normalize_doi(normal) == normal


@QUICK
@given(URLISH)
def test_running_text_forms_never_raise_and_hits_are_what_the_text_says(text: str) -> None:
    for form in (bare_url.FORM, doi.FORM, arxiv.FORM, pubmed.FORM):
        for hit in form.hits(text):
            assert text[hit.start : hit.end] == hit.raw
            citations.citation(form, hit)
    citations.urls_in(text)
    citations.text_without_citations(text, [])


# --- the linear replacements give what the old patterns gave ----------------------------------


@QUICK
@given(pieces("[", "]", "^", "a", "b", " ", "\n", "\t"))
def test_undefined_footnotes_match_the_old_pattern(text: str) -> None:
    old = [(m.start(), m.end(), m.group(1)) for m in re.finditer(r"\[\^([^\]\s]+)\]", text)]
    assert list(_undefined_footnotes(text)) == old


@QUICK
@given(pieces("[", "]", "a", "b", " ", "\n", "^"))
def test_undefined_references_match_the_old_pattern(text: str) -> None:
    pattern = r"\[([^\]]+)\]\[([^\]]*)\]"
    old = [(m.start(), m.end(), m.group(1), m.group(2)) for m in re.finditer(pattern, text)]
    assert list(_undefined_references(text)) == old


@QUICK
@given(pieces("“", "”", '"', "‘", "’", "a", "abcd", " ", "\n", max_size=40))
def test_quotations_match_the_old_pattern(text: str) -> None:
    old = [m.span() for m in re.finditer(r"“[^”]{8,}”|\"[^\"]{8,}\"|‘[^’]{8,}’", text)]
    assert list(_scan_quotations(text)) == old
    assert list(_quotations(text)) == old  # the pattern itself while the quotes are few


@QUICK
@given(pieces("1", "٣", ".", ":", " ", "\t", "\n", "\u2003", "References", "a", "Notes"))
def test_heading_words_match_the_old_pattern(text: str) -> None:
    old = re.sub(r"^[\d.\s]+|[:\s]+$", "", text.strip()).lower() in resolve.REFERENCE_HEADINGS
    assert resolve.is_reference_heading(text) == old
    assert resolve._heading_words(text) == re.sub(r"^[\d.\s]+|[:\s]+$", "", text.strip())


@QUICK
@given(pieces(".", "!", "?", "…", '"', "'", "”", "’", ")", "]", "*", "_", " ", "\n", "a", "A"))
def test_sentence_candidates_match_the_old_pattern(text: str) -> None:
    old = [m.span() for m in re.finditer(r"[.!?…]+[\"'”’)\]*_]*\s+", text)]
    assert [m.span() for m in _CANDIDATE.finditer(text)] == old


def _old_is_abbreviation(text: str, dot: int) -> bool:
    start = max(text.rfind(" ", 0, dot), text.rfind("\n", 0, dot), text.rfind("(", 0, dot)) + 1
    word = text[start : dot + 1].lstrip("\"'“‘[")
    if len(word) == 2 and word[0].isupper():
        return True
    if re.fullmatch(r"(?:[A-Za-z]\.){2,}", word):
        return True
    return word[:-1].lower() in ABBREVIATIONS


@QUICK
@given(
    pieces(
        ".", "a", "A", "e", "g", "Dr", "etc", " ", "\n", "\t", "(", '"', "“", "[", "'", "’", "é", "x" * 70
    ),
    st.data(),
)
def test_abbreviations_match_the_old_word_search(text: str, data: st.DataObject) -> None:
    dots = [i for i, ch in enumerate(text) if ch == "."]
    asked = sorted(data.draw(st.sets(st.sampled_from(dots))) if dots else [])
    words = _Words(text)
    assert [words.is_abbreviation(d) for d in asked] == [_old_is_abbreviation(text, d) for d in asked]


def _old_split_sentences(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for m in re.finditer(r"[.!?…]+[\"'”’)\]*_]*\s+", text):
        nxt = m.end()
        if nxt >= n or not _opens_sentence(text, nxt):
            continue
        punct_end = m.start()
        while punct_end < n and text[punct_end] in ".!?…":
            punct_end += 1
        single_dot = text[m.start()] == "." and punct_end - m.start() == 1
        if single_dot and _old_is_abbreviation(text, m.start()):
            continue
        end = m.end()
        if _inside_brackets_or_quotes(text, start, end):
            continue
        spans.append((start, end))
        start = end
    spans.append((start, n))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


@QUICK
@given(
    pieces(
        ".", "a", "A", "J", "U.S.", "e.g.", "Dr", " ", "\n", "\t", "(", ")", '"', "“", "”", "!", "?", "…",
        "B", "*", "_", "x" * 70,
    )
)  # fmt: skip
def test_sentences_split_as_before(text: str) -> None:
    assert split_sentences(text) == _old_split_sentences(text)


def _old_trim_url(url: str) -> str:
    while url:
        last = url[-1]
        if (
            last in ".,;:!?'\"”’*_"
            or (last == ")" and url.count(")") > url.count("("))
            or (last == "]" and url.count("]") > url.count("["))
        ):
            url = url[:-1]
        else:
            break
    return url


@QUICK
@given(pieces("(", ")", "[", "]", ".", ",", "'", "a", "/", "*"))
def test_trim_url_matches_the_old_loop(url: str) -> None:
    assert trim_url(url) == _old_trim_url(url)


def _old_skip_link_tail(line: str, pos: int) -> int:
    n = len(line)
    if pos < n and line[pos] == "(":
        close = line.find(")", pos)
        while close >= 0 and line.count("(", pos, close + 1) > line.count(")", pos, close + 1):
            close = line.find(")", close + 1)
        return close + 1 if close >= 0 else n
    if pos < n and line[pos] == "[":
        close = line.find("]", pos)
        return close + 1 if close >= 0 else n
    return pos


@QUICK
@given(pieces("(", ")", "[", "]", "a"), st.integers(min_value=0, max_value=70))
def test_link_tail_matches_the_old_count(line: str, pos: int) -> None:
    assert _skip_link_tail(line, pos) == _old_skip_link_tail(line, pos)


@QUICK
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=12),
    st.lists(st.integers(-2, 42), max_size=20),
)
def test_spans_cover_what_any_span_covers(spans: list[tuple[int, int]], points: list[int]) -> None:
    built = _Spans(spans)
    added = _Spans()
    for s, e in spans:
        added.add(s, e)
    for p in points:
        expected = any(s <= p < e for s, e in spans)
        assert built.covers(p) == expected
        assert added.covers(p) == expected


# find_mentions, as it was: the same patterns but for the parenthesis (a year inside the
# pattern) and the narrative form (searched at every word), every label of a bracket kept.
_OLD_PAREN = re.compile(r"\(([^()]*?(?:1[5-9]\d\d|20\d\d)[a-z]?[^()]*)\)")


def _old_find_mentions(text: str) -> list[tuple[str, str, str, int, int, bool]]:
    found: list[tuple[str, str, str, int, int, bool]] = []
    for m in resolve._NUMBERED.finditer(text):
        for part in re.split(r"\s*,\s*", m.group(1)):
            if re.fullmatch(r"\d+\s*[–-]\s*\d+", part):
                a, b = (int(x) for x in re.split(r"\s*[–-]\s*", part))
                if a <= b and b - a < 20:
                    found.extend(
                        (m.group(0), "numbered", str(i), m.start(), m.end(), True) for i in range(a, b + 1)
                    )
                    continue
            found.append((m.group(0), "numbered", part.strip(), m.start(), m.end(), True))
    for m in _OLD_PAREN.finditer(text):
        for item in m.group(1).split(";"):
            im = resolve._PAREN_ITEM.match(item)
            if not im or im.group(1).split()[0].lower() in resolve._MONTHS:
                continue
            authors, comma, year = im.group(1), im.group(2), im.group(3)
            strong = bool(comma) or "et al" in authors or "&" in authors or " and " in authors
            found.append(
                (f"({item.strip()})", "author_year", f"{authors} {year}", m.start(), m.end(), strong)
            )
    if resolve._YEAR_IN_PARENS.search(text):
        for m in resolve._NARRATIVE.finditer(text):
            if m.group(1).split()[0].lower() not in resolve._MONTHS:
                found.append(
                    (m.group(0), "author_year", f"{m.group(1)} {m.group(2)}", m.start(), m.end(), False)
                )
    found.sort(key=lambda x: x[3])
    # what the caps change: a label repeated in one bracket or parenthesis is kept once
    seen: set[tuple[str, str, str, int]] = set()
    out = []
    for f in found:
        if f[:4] not in seen:
            seen.add(f[:4])
            out.append(f)
    return out


CITING = (
    "[", "]", "(", ")", "1", "12", ",", ", ", "-", "–", " ", "Smith", "Lee", "Van", "van", "de", "Le",
    "et al.", "&", " and ", "2020", "1999", "2020a", ";", "see ", "e.g. ", "May", ", pp. 3", "'", "’",
    "O’Neil", "A-", "\n",
)  # fmt: skip


@QUICK
@given(pieces(*CITING, max_size=40))
def test_mentions_match_the_old_patterns(text: str) -> None:
    new = [(m.raw, m.kind.value, m.identifier, m.start, m.end, m.strong) for m in resolve.find_mentions(text)]
    assert new == _old_find_mentions(text)


@QUICK
@given(st.text(alphabet="{}%<>/*#:.@[]() \nAaxe1\"'=`-", max_size=300), st.booleans())
def test_template_blanking_keeps_every_character_in_place(text: str, mdx: bool) -> None:
    # citecheck.extract.markup: positions stay exact because blanking never moves a character
    from citecheck.extract.markup import FILL, blank_markup

    out = blank_markup(text, mdx=mdx)
    assert len(out) == len(text)
    assert [i for i, ch in enumerate(out) if ch == "\n"] == [i for i, ch in enumerate(text) if ch == "\n"]
    assert all(o == t or o in (FILL, " ") for o, t in zip(out, text, strict=True))
