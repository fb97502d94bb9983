"""What bounds extraction on hostile input (docs/ARCHITECTURE.md): caps on what one bracket or
parenthesis cites, the narrative names' window, the per-file time budget and the per-block
parse limit. The inputs that were slow are timed in tests/e2e/test_hostile_markdown.py."""

from __future__ import annotations

import re

from citecheck.extract import resolve
from citecheck.extract.document import extract_text
from citecheck.extract.parser import BRACKET_COST, EMPHASIS_COST, MAX_BLOCK_COST, block_cost
from citecheck.models import Citation, CitationKind, ResolveStatus

CLAIM = "The survey found 42% of people agree"


def citations(md: str) -> list[Citation]:
    doc = extract_text(md, "doc.md")
    assert doc.errors == []
    [claim] = doc.claims
    return claim.citations


def references(n: int) -> str:
    return "\n\n## References\n\n" + "".join(f"{i}. https://example.com/{i}\n" for i in range(1, n + 1))


def test_a_range_expands_to_at_most_max_range_references() -> None:
    assert resolve.MAX_RANGE == 20
    widest = citations(f"{CLAIM} [3-22]." + references(30))
    assert [c.identifier for c in widest] == [str(i) for i in range(3, 23)]
    # a wider range is not expanded: it stays one label, which no entry has
    [wide] = citations(f"{CLAIM} [1-9999]." + references(30))
    assert (wide.identifier, wide.resolve_status) == ("1-9999", ResolveStatus.error)
    assert wide.resolve_error == "reference [1-9999] not found in the reference list"
    # and a label has at most four digits: "[1-100000]" is not a citation
    assert citations(f"{CLAIM} [1-100000]." + references(30)) == []


def test_a_bracket_cites_at_most_max_references_per_bracket_distinct_labels() -> None:
    cap = resolve.MAX_REFERENCES_PER_BRACKET
    assert cap == 50
    listed = ", ".join(str(i) for i in range(1, 121))
    cited = citations(f"{CLAIM} [{listed}]." + references(120))
    assert [c.identifier for c in cited] == [str(i) for i in range(1, cap + 1)]
    assert [c.url for c in cited] == [f"https://example.com/{i}" for i in range(1, cap + 1)]


def test_repeated_labels_collapse_and_every_mention_shares_the_bracket() -> None:
    bracket = "[" + ",".join(["2", "1", "2", "1-3"] * 1000) + "]"
    mentions = resolve.find_mentions(f"{CLAIM} {bracket}.")
    assert [m.identifier for m in mentions] == ["2", "1", "3"]
    assert mentions[0].raw == bracket
    assert all(m.raw is mentions[0].raw for m in mentions)  # one string, not a copy per number


def test_an_author_year_parenthesis_cites_at_most_the_cap_and_repeats_collapse() -> None:
    items = "; ".join(f"Author{chr(65 + i % 26)}{i} et al. 2020" for i in range(200))
    mentions = resolve.find_mentions(f"{CLAIM} ({items}; {items}).")
    assert len(mentions) == resolve.MAX_REFERENCES_PER_BRACKET
    assert mentions[0].identifier == "AuthorA0 et al. 2020"
    assert len({m.raw for m in mentions}) == len(mentions)


def test_one_sentence_cites_a_repeated_reference_once() -> None:
    cited = citations(f"{CLAIM} [1] and [1], [1] again." + references(1))
    assert [(c.identifier, c.start) for c in cited] == [("1", len(CLAIM) + 1)]


def test_narrative_names_are_read_within_a_window_before_the_year() -> None:
    assert resolve.NARRATIVE_WINDOW == 200
    names = ", ".join(f"Author{chr(65 + i % 26)}" for i in range(40))  # 360 characters of names
    [mention] = resolve.find_mentions(f"As {names} and Lee (2020) found.")
    assert mention.kind == CitationKind.author_year
    assert mention.raw.endswith("and Lee (2020)")
    assert len(mention.raw) <= resolve.NARRATIVE_WINDOW + len(" (2020)")
    # within the window, the whole list of names is the citation, as before
    [short] = resolve.find_mentions("As Smith, Jones and Lee (2020) found.")
    assert short.raw == "Smith, Jones and Lee (2020)"


def test_a_file_over_its_time_budget_gives_an_error_and_no_claims() -> None:
    md = "# Title\n\n" + "".join(f"{CLAIM} ({i}).\n\n" for i in range(50))
    assert len(extract_text(md, "doc.md").claims) == 50
    doc = extract_text(md, "doc.md", budget_s=1e-9)  # spent before the first block is read
    assert doc.claims == [] and doc.references == []
    [error] = doc.errors
    assert (error.file, error.line, error.fatal) == ("doc.md", 3, True)
    assert re.fullmatch(
        r"extraction stopped after \d+\.\d s at line 3: over the 1e-09-second time budget for one"
        r" file; none of the file's claims are checked",
        error.message,
    )


def test_a_blocks_cost_counts_closed_brackets_and_emphasis_markers() -> None:
    assert block_cost("plain text") == 10
    assert block_cost("[a][b] [c") == 9 + 2 * BRACKET_COST  # the last "[" has no "]" after it
    assert block_cost("[" * 1000) == 1000  # nothing to walk to: markdown-it's rules skip them
    assert block_cost("]" + "[" * 10) == 11
    assert block_cost("*a* __b__") == 9 + 6 * EMPHASIS_COST


def test_a_block_too_costly_to_parse_stops_the_file_before_it_is_parsed() -> None:
    spans = MAX_BLOCK_COST // BRACKET_COST // 2  # "[a][": two "[" a "]" follows, per span
    costly = "[a][" * spans + "]"
    assert block_cost(costly) > MAX_BLOCK_COST
    doc = extract_text(f"{CLAIM}.\n\n> {costly}\n", "doc.md")
    assert doc.claims == []
    [error] = doc.errors
    assert error.line == 3
    assert error.message == (
        f"extraction stopped at line 3: a block of {len(costly):,} characters with {2 * spans:,}"
        f" bracketed spans and 0 emphasis markers is too costly to parse (limit: {MAX_BLOCK_COST:,}"
        f" characters, a bracket counting as {BRACKET_COST}, a marker as {EMPHASIS_COST}); none of"
        " the file's claims are checked"
    )
