"""The skip rules (`citecheck.extract.skip`, issue 31): each one sets aside its real example, a
rule about meaning never sets aside a cited sentence, and what each removes on the committed
labelled sets is what docs/benchmarks.md's table says (`bench/skiprules.py`). A change to a rule
that moves these counts changes the table too: the diff says which claims it moved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.realdocs import HELD_OUT
from bench.skiprules import COLUMNS, count_set, totals
from citecheck.extract.document import extract_text
from citecheck.extract.skip import ALL_RULES, SkipRule

# Per rule, over tests/data/realdocs-heldout*: (cited real, cited not real, cited unlabelled,
# uncited real, uncited not real, uncited unlabelled). "real" is a claim the labels call real, or a
# cited sentence labelled as asserting something (cited.jsonl). No rule removes a cited one.
# Issue 34 moved sentences whose only links are to the site's own pages from uncited to cited:
# title (12 not real and 107 unlabelled), and they now meet the rules for cited sentences
# (pointer +5 not real and +85 unlabelled, link-only +19, lead-in +3, metadata +2), and no
# longer the rules that pass over a cited sentence (nothing-checkable -6, addresses-reader -1).
# Cross-reference roles ({doc}, :numref:, \ref{}) are such links too: pointer and lead-in +1 each.
COUNTS = {
    "question": (0, 0, 0, 0, 12, 60),
    "title": (0, 60, 1672, 0, 0, 37),
    "pointer": (0, 67, 594, 0, 3, 12),
    "call-to-action": (0, 0, 7, 0, 0, 0),
    "describes-resource": (0, 0, 0, 0, 0, 2),
    "thanks": (0, 0, 0, 0, 1, 1),
    "note-label": (0, 0, 0, 0, 0, 5),
    "credit": (0, 3, 9, 0, 0, 0),
    "byline": (0, 0, 0, 0, 0, 0),
    "date-stamp": (0, 0, 0, 0, 0, 1),
    "metadata": (0, 0, 12, 0, 8, 24),
    "meta-note": (0, 2, 1, 0, 0, 0),
    "copyright": (0, 0, 0, 0, 0, 0),
    "agenda": (0, 27, 19, 0, 11, 16),
    "addresses-reader": (0, 0, 0, 1, 0, 18),
    "lead-in": (0, 0, 48, 0, 0, 0),
    "sentiment": (0, 0, 0, 0, 0, 2),
    "api-entry": (0, 0, 0, 0, 0, 4),
    "reading-list-entry": (0, 0, 0, 0, 0, 0),
    "credited-title": (0, 3, 39, 0, 0, 0),
    "link-only": (0, 5, 266, 0, 0, 0),
    "event-listing": (0, 17, 68, 0, 0, 0),
    "ignored": (0, 0, 0, 0, 0, 0),
    "change-reference": (0, 2, 402, 0, 0, 0),
    "change-title": (0, 2, 14, 0, 0, 0),
    "advice-or-opinion": (0, 0, 0, 1, 1, 169),
    "nothing-checkable": (0, 0, 0, 6, 23, 215),
}


def _skipped_by(md: str) -> list[str]:
    return [s.rule for s in extract_text(md + "\n", "doc.md").skipped]


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.name)
def test_each_rule_sets_aside_its_real_example(rule: SkipRule) -> None:
    assert rule.source and rule.example
    assert rule.name in _skipped_by(rule.example), (rule.source, rule.example)


UNCITED_ONLY = [r for r in ALL_RULES if not r.cited]


@pytest.mark.parametrize("rule", UNCITED_ONLY, ids=lambda r: r.name)
def test_a_rule_about_meaning_never_sets_aside_a_cited_sentence(rule: SkipRule) -> None:
    """Its example with a citation of its own is a claim the judge reads (issue 31)."""
    md = rule.example.rstrip(" .") + " ([source](https://www.example.net/source))."
    doc = extract_text(md + "\n", "doc.md")
    assert [s.rule for s in doc.skipped if s.rule == rule.name] == []
    assert any(c.citations for c in doc.claims), md


def test_the_table_names_every_rule_once() -> None:
    names = [r.name for r in ALL_RULES]
    assert len(names) == len(set(names)) and set(names) == set(COUNTS)


def test_what_each_rule_removes_on_the_labelled_sets() -> None:
    sets = [d for d in HELD_OUT if d.exists()]
    assert len(sets) == 38
    per_set = {d.name: count_set(Path(d)) for d in sets}
    table = {name: tuple(row.get(c, 0) for c in COLUMNS) for name, row in totals(per_set).items()}
    lost = [item for counts in per_set.values() for rc in counts.values() for item in rc.real_cited]
    assert lost == [], lost
    assert table == COUNTS


# bench/contradictions.py's sentences (WiCE test, CLIMATE-FEVER evidence) written in the five ways
# documentation cites: how the writer cites changes nothing of what the sentence's form says
# (issue 32). A pointer stays a pointer, a statement stays a statement, whichever style.
STYLES = (
    "{s} ([source](https://example.org/r)).",
    "{s} ([Reuters](https://example.org/r)).",
    "According to [Reuters](https://example.org/r), {s}.",
    "[Reuters reports](https://example.org/r) that {s}.",
    "{s}, [Reuters says](https://example.org/r).",
)


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        (
            "Here are the top 15 oldest but most important players in the ICC Cricket World Cup 2019",
            "pointer",
        ),
        ("Released: June 15, 2017 • Available in US & Canada", "date-stamp"),
        (
            "Further, we compared deaths in each region during 2021, the most recent year for which "
            "data are available",
            None,
        ),
        ("Share Findings from serological surveys (in December 2020) in three cities of Odisha", None),
    ],
)
def test_the_form_is_read_whatever_the_citation_style(sentence: str, rule: str | None) -> None:
    for style in STYLES:
        md = style.format(s=sentence)
        doc = extract_text(md + "\n", "doc.md")
        assert [s.rule for s in doc.skipped] == ([rule] if rule else []), md
        assert bool(doc.claims) is (rule is None), md
