"""The fast paths of kind detection give what the plain forms gave (docs/ARCHITECTURE.md, the
extract stage): a first-character lookahead before a pattern's alternatives never drops a match,
the gates' word set is the one translate-and-split made, `has_kind` is `bool(detect_kinds)`.
Checked on the committed real documents and on random text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citecheck.extract import kinds
from citecheck.extract.kinds import ClaimKind, detect_kinds, has_kind
from citecheck.extract.phrases import boilerplate, grammar
from citecheck.sentences import split_sentences

DATA = Path(__file__).resolve().parent.parent / "data"
DOCS = sorted(
    p
    for d in (DATA / "markdown", DATA / "realdocs-heldout" / "corpus", DATA / "realdocs-heldout2" / "corpus")
    for p in d.rglob("*")
    if p.suffix in (".md", ".mdx", ".markdown")
)
TEXTS = [p.read_text(encoding="utf-8") for p in DOCS]
SENTENCES = [para[s:e] for text in TEXTS for para in text.split("\n\n") for s, e in split_sentences(para)]

# The patterns that open with a lookahead on their first character, for speed.
LOOKAHEAD = {
    "_STAT_DIGITS": kinds._STAT_DIGITS,
    "_TEMPORAL_DIGITS": kinds._TEMPORAL_DIGITS,
    "_STAT_WORDS": kinds._STAT_WORDS,
    "_ATTRIBUTION": kinds._ATTRIBUTION,
    "_BOILERPLATE_ANY": boilerplate._BOILERPLATE_ANY,
    "STATEMENT": grammar.STATEMENT,
}
_PREFIX = re.compile(r"\(\?=\[[^\]]*\]\)")


def _plain(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The pattern without its first-character lookahead."""
    stripped, n = _PREFIX.subn("", pattern.pattern, count=1)
    assert n == 1, f"{pattern.pattern[:40]}… has no first-character lookahead"
    return re.compile(stripped, pattern.flags)


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def test_there_are_real_documents_to_check() -> None:
    assert len(DOCS) >= 20 and len(SENTENCES) > 2000


@pytest.mark.parametrize("name", LOOKAHEAD)
def test_lookahead_keeps_every_match_on_real_documents(name: str) -> None:
    fast = LOOKAHEAD[name]
    plain = _plain(fast)
    for text in TEXTS:
        for variant in (text, text.upper()):  # upper: the case-insensitive patterns' capitals
            assert _spans(fast, variant) == _spans(plain, variant)


_PROSE = st.text(
    alphabet=st.sampled_from(list("aeiostnrhdlmwfbcgpuyAIQFSTMW0123456789 .,'’\"“”$€£¥₹%-–:;()\n\u00a0")),
    max_size=120,
)


@settings(max_examples=300, deadline=None)
@given(_PROSE)
def test_lookahead_keeps_every_match_on_random_text(text: str) -> None:
    for name, fast in LOOKAHEAD.items():
        assert _spans(fast, text) == _spans(_plain(fast), text), name


# The gates' word set was `set(text.lower().translate(table).split())`, punctuation and digits
# made spaces; `_WORD_RUN` must find the same words, whatever the whitespace.
_TABLE = str.maketrans(dict.fromkeys(kinds._NOT_WORD_CHARS, " "))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | _PROSE)
def test_gate_words_are_the_translate_and_split_words(text: str) -> None:
    assert kinds._gates(text)[1] == set(text.lower().translate(_TABLE).split())


def test_gate_words_on_real_sentences() -> None:
    for sentence in SENTENCES:
        assert kinds._gates(sentence)[1] == set(sentence.lower().translate(_TABLE).split())


def test_has_kind_is_detect_kinds_on_real_text() -> None:
    for text in SENTENCES + [p for t in TEXTS for p in t.split("\n\n")]:
        assert has_kind(text) is bool(detect_kinds(text)), text[:80]


@settings(max_examples=300, deadline=None)
@given(_PROSE)
def test_has_kind_is_detect_kinds_on_random_text(text: str) -> None:
    assert has_kind(text) is bool(detect_kinds(text))


def _every_test(text: str) -> list[ClaimKind]:
    """`detect_kinds` without its shortcut for text that has no gate word, digit or mark."""
    has_digit, lower = kinds._gates(text)
    return [kind for kind, test in kinds._KIND_TESTS if test(text, has_digit, lower)]


def test_the_no_gate_shortcut_drops_no_kind_on_real_text() -> None:
    shortcut = 0
    for text in SENTENCES + [p for t in TEXTS for p in t.split("\n\n")]:
        assert detect_kinds(text) == _every_test(text), text[:80]
        shortcut += not kinds._may_have_kind(text, *kinds._gates(text))
    assert shortcut > 500  # the shortcut is taken, so the comparison means something


@settings(max_examples=300, deadline=None)
@given(_PROSE)
def test_the_no_gate_shortcut_drops_no_kind_on_random_text(text: str) -> None:
    assert detect_kinds(text) == _every_test(text)


def test_each_gate_word_alone_can_make_a_kind() -> None:
    # a gate word missing from `_ANY_GATE` would make the shortcut drop its kind
    for words in (kinds._STAT_WORD_GATE, kinds._MONTH_GATE, kinds._RELATIVE_GATE, kinds._CHANGE_GATE):
        assert words <= kinds._ANY_GATE
    assert (
        kinds._SUPERLATIVE_GATE | kinds._CHANGE_ALWAYS | kinds._TEMPORAL_ALWAYS | {"than"} <= kinds._ANY_GATE
    )
    assert detect_kinds("Sales doubled after the launch.") == [ClaimKind.comparative]
    assert detect_kinds("It is faster than the old one.") == [ClaimKind.comparative]


def test_a_later_quotation_counts_when_the_first_is_a_single_word() -> None:
    # the first quotation ("--no-verify", no space in it) is skipped, not the end of the search
    sentence = 'Pass "--no-verify" only when, as the maintainer said, "every check already ran in CI".'
    assert ClaimKind.quote in detect_kinds(sentence)
    assert has_kind(sentence)


@pytest.mark.parametrize(
    "text",
    ["in May 2021", "since March", "Sept. 3", "3rd of Dec.", "the 5 June release", "you may see March"],
)
def test_every_month_date_holds_a_capitalised_month(text: str) -> None:
    # `_MONTH_NAME` is searched before `_TEMPORAL_MONTH`: it must hold in every match of it
    for m in kinds._TEMPORAL_MONTH.finditer(text):
        assert kinds._MONTH_NAME.search(m.group(0))


def test_month_dates_on_real_documents_hold_a_capitalised_month() -> None:
    found = 0
    for text in TEXTS:
        for m in kinds._TEMPORAL_MONTH.finditer(text):
            found += 1
            assert kinds._MONTH_NAME.search(m.group(0)), m.group(0)
    assert found > 20
