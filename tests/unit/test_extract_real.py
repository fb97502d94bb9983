"""The extractor over real articles (opensource.guide, CC-BY-4.0, see tests/data/markdown)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citecheck.extract.document import extract_file
from citecheck.models import CitationKind, ClaimKind, ExtractedDocument, ResolveStatus
from citecheck.select import find_markdown_files

SAMPLE = Path(__file__).parents[1] / "data" / "markdown"
FILES, _ = find_markdown_files([SAMPLE])


def _fenced_lines(text: str) -> set[int]:
    """1-based lines inside ``` fences or front matter."""
    inside: set[int] = set()
    fence = False
    lines = text.split("\n")
    front = lines[0].strip() == "---"
    for n, line in enumerate(lines, start=1):
        if front:
            inside.add(n)
            if n > 1 and line.strip() == "---":
                front = False
            continue
        if line.lstrip().startswith("```"):
            fence = not fence
            inside.add(n)
            continue
        if fence:
            inside.add(n)
    return inside


def _definitions(text: str) -> str:
    """Link reference definitions and footnote bodies: where a citation's URL may live instead."""
    return "\n".join(
        line for line in text.split("\n") if re.match(r"\s*\[[^\]]+\]:", line) or line.startswith("    ")
    )


@pytest.fixture(scope="module", params=FILES, ids=[f.name for f in FILES])
def article(request: pytest.FixtureRequest) -> tuple[str, ExtractedDocument]:
    path: Path = request.param
    return path.read_text(encoding="utf-8"), extract_file(path, display=path.name)


def test_sample_is_present() -> None:
    assert len(FILES) >= 5
    assert (SAMPLE / "LICENSE").exists()


def test_citation_urls_are_near_the_claim_or_defined(article: tuple[str, ExtractedDocument]) -> None:
    text, doc = article
    lines = text.split("\n")
    defs = _definitions(text)
    for claim in doc.claims:
        # a sentence spans at most a few source lines; a block quote's attribution may follow it
        window = "\n".join(lines[max(0, claim.line - 8) : claim.line + 12])
        for cit in claim.citations:
            if cit.resolve_status != ResolveStatus.ok:
                continue
            if cit.kind == CitationKind.internal:  # a link to the site's own pages, as written
                assert cit.identifier and cit.identifier in window, (claim.line, claim.text, cit.identifier)
                continue
            assert cit.url
            bare = cit.url.split("#:~:")[0]
            assert bare in window or bare in defs, (claim.line, claim.text, cit.url)


def test_claim_text_starts_at_its_line_and_column(article: tuple[str, ExtractedDocument]) -> None:
    text, doc = article
    lines = text.split("\n")
    for claim in doc.claims:
        source = lines[claim.line - 1][claim.column - 1 :]
        assert source[:1] == claim.text[:1] or source[:1] in "[*_<`", (claim.line, claim.column, claim.text)
        first_word = re.search(r"[\w@$'’]+", claim.text)
        assert first_word, claim.text
        word = first_word.group(0)
        assert word in source[: len(word) + 4], (claim.line, claim.column, claim.text)


def test_nothing_from_code_blocks_or_front_matter(article: tuple[str, ExtractedDocument]) -> None:
    text, doc = article
    fenced = _fenced_lines(text)
    assert all(c.line not in fenced for c in doc.claims)


def test_no_link_markup_in_claim_text(article: tuple[str, ExtractedDocument]) -> None:
    _, doc = article
    for claim in doc.claims:
        assert "](" not in claim.text and "<a " not in claim.text and "**" not in claim.text, claim.text


def test_headings_and_questions_are_not_claims(article: tuple[str, ExtractedDocument]) -> None:
    text, doc = article
    lines = text.split("\n")
    for claim in doc.claims:
        assert not lines[claim.line - 1].lstrip().startswith("#")
        assert not claim.text.rstrip('"”)*_').endswith("?")


def test_the_sample_yields_each_kind_and_known_claims() -> None:
    docs = {f.name: extract_file(f, display=f.name) for f in FILES}
    kinds = {k for d in docs.values() for c in d.claims for k in c.kinds}
    assert kinds == set(ClaimKind)
    assert all(not d.errors for d in docs.values())

    balance = docs["maintaining-balance-for-open-source-maintainers.md"]
    workshop = next(c for c in balance.claims if "40 members" in c.text)
    assert ClaimKind.statistic in workshop.kinds
    assert workshop.citations[0].url == "http://maintainers.github.com/"
    rockwood = next(c for c in balance.claims if "Rockwood" in c.text)
    assert rockwood.citations[0].text_fragment is not None
    assert rockwood.citations[0].text_fragment.startswith("personal ecology: maintaining balance")

    django = next(c for c in docs["finding-users.md"].claims if "Django" in c.text and "said" in c.text)
    assert ClaimKind.quote in django.kinds
    assert django.citations[0].kind == CitationKind.link

    # The contributor list at the end of the balance article is navigation, not claims.
    assert not any(c.line > 183 for c in balance.claims)


def test_statistic_claims_carry_a_figure_the_number_check_can_find() -> None:
    # The evidence stage looks up a statistic's figure (citecheck.numbers); a claim marked
    # `statistic` must hold one it recognises.
    from citecheck.numbers import statistics_in

    for f in FILES:
        for claim in extract_file(f, display=f.name).claims:
            if ClaimKind.statistic in claim.kinds:
                assert statistics_in(claim.text), claim.text
