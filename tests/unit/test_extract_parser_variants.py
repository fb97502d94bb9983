"""A file's parser variant gives the tokens the full parser gives (docs/ARCHITECTURE.md, the
extract stage): a rule left out for a file that lacks its markers could never have matched
there, and the link-destination search reads what markdown-it's character loop read. Checked on
the committed real documents, on each of them with one rule's markers removed (so that every
variant is built from real structure), and on random Markdown-like text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.helpers import parseLinkDestination
from markdown_it.token import Token

from citecheck.extract.parser import (
    _PARSER_KEY,
    _RULE_MARKERS,
    _disabled_rules,
    _link_destination,
    _parser,
)

DATA = Path(__file__).resolve().parent.parent / "data"
DOCS = sorted(
    p
    for d in (
        DATA / "markdown",
        DATA / "realdocs",
        DATA / "realdocs-heldout" / "corpus",
        DATA / "realdocs-heldout2" / "corpus",
        DATA / "realdocs-heldout3" / "corpus",
    )
    for p in d.rglob("*")
    if p.suffix in (".md", ".mdx", ".markdown")
)
TEXTS = [p.read_text(encoding="utf-8") for p in DOCS]


def _tree(tokens: list[Token]) -> list[tuple[Any, ...]]:
    return [
        (
            t.type,
            t.tag,
            t.nesting,
            t.level,
            tuple(t.map) if t.map else None,
            t.content,
            t.markup,
            t.info,
            repr(sorted(t.attrs.items())),
            repr(t.meta),
            t.block,
            t.hidden,
            _tree(t.children) if t.children else None,
        )
        for t in tokens
    ]


def _parse(text: str, disabled: frozenset[str]) -> tuple[list[tuple[Any, ...]], str]:
    """Every token of `text` (each block's inline parse included, as the walk does it) and the env."""
    md = _parser(disabled)
    env: dict[str, Any] = {_PARSER_KEY: md}
    tokens = md.parse(text, env)
    for tok in tokens:
        if tok.type == "inline" and tok.content:
            tok.children = []
            md.inline.parse(tok.content, md, env, tok.children)
    env.pop(_PARSER_KEY)
    notes = env.pop("footnotes", None) or {}
    if notes.get("list") or notes.get("refs"):  # an empty table is what a rule that saw no note left
        env["footnotes"] = notes
    env.pop("citecheck: closing brackets", None)
    return _tree(tokens), repr(env)


def _same_as_full(text: str) -> None:
    disabled = _disabled_rules(text)
    assert _parse(text, disabled) == _parse(text, frozenset())


def test_there_are_real_documents_to_check() -> None:
    assert len(DOCS) >= 40


def test_variants_give_the_full_parsers_tokens_on_real_documents() -> None:
    for text in TEXTS:
        _same_as_full(text)


@pytest.mark.parametrize("names,markers", _RULE_MARKERS, ids=[names[0] for names, _ in _RULE_MARKERS])
def test_each_rule_left_out_changes_nothing_where_its_markers_are_absent(
    names: tuple[str, ...], markers: tuple[str, ...]
) -> None:
    dropped = 0
    for text in TEXTS:
        for m in markers:
            text = text.replace(m, " " * len(m))
        if names[0] == "front_matter":
            text = " " + text
        disabled = _disabled_rules(text)
        assert set(names) <= disabled
        dropped += 1
        _same_as_full(text)
    assert dropped == len(TEXTS)


def test_the_comparison_sees_a_rule_that_would_have_matched() -> None:
    # the check above can fail: leaving out a rule whose marker is there changes the tokens
    text = "| a | b |\n| - | - |\n| 1 | 2 |\n\nSee [x](https://example.org/a_(b)) and `c` &amp; <b>d</b>.\n"
    for names, _ in _RULE_MARKERS:
        if names[0] in ("table", "backticks", "entity", "html_block"):
            assert _parse(text, frozenset(names)) != _parse(text, frozenset())


_MARKDOWNISH = st.text(
    alphabet=st.sampled_from([*"ab 1\n\n-*_~`|>#:![]()^@<>&;\\/\"'=+.\t", "é", "\x7f", "\x01"]),
    max_size=120,
)


@settings(max_examples=400, deadline=None)
@given(_MARKDOWNISH)
def test_variants_give_the_full_parsers_tokens_on_random_text(text: str) -> None:
    _same_as_full(text)


def _destination(result: Any) -> tuple[bool, int, str]:
    return result.ok, result.pos, result.str


def test_link_destination_reads_what_markdown_it_reads_on_real_documents() -> None:
    checked = 0
    for text in TEXTS:
        pos = text.find("](")
        while pos >= 0:
            for start in (pos + 2, pos + 3):
                for end in (len(text), min(len(text), start + 40)):
                    got = _destination(_link_destination(text, start, end))
                    assert got == _destination(parseLinkDestination(text, start, end))
                    checked += 1
            pos = text.find("](", pos + 1)
    assert checked > 1000


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from([*"ab()\\ <>\n\t/:é", "\x7f", "\x01"]), max_size=40), st.data())
def test_link_destination_reads_what_markdown_it_reads_on_random_text(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert _destination(_link_destination(text, start, end)) == _destination(
        parseLinkDestination(text, start, end)
    )


def test_deeply_nested_parentheses_are_refused_as_markdown_it_refuses_them() -> None:
    for depth in (32, 33, 40):
        text = "(" * depth + "x" + ")" * depth
        assert _destination(_link_destination(text, 0, len(text))) == _destination(
            parseLinkDestination(text, 0, len(text))
        )
