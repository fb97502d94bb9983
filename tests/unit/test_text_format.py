"""The console report (`--format text`): grouping, order, content, and colour only when asked."""

from __future__ import annotations

import io
import os
import pty
import re

import pytest

from citecheck.models import FileError, Verdict
from citecheck.output.common import color_allowed
from citecheck.output.text import render_text
from tests.unit.report_samples import claim, mixed_claims, report_of

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def claim_rows(text: str) -> list[tuple[str, int, str]]:
    """(file, line, tag) of every claim's first line, in the order shown."""
    rows: list[tuple[str, int, str]] = []
    file = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            file = line
        elif m := re.match(r"  +(\d+)  (PASS|UNSOURCED|FAIL(?: \([^)]*\))?)  ", line):
            rows.append((file, int(m[1]), m[2]))
    return rows


def test_claims_are_grouped_by_file_failures_first() -> None:
    claims = [
        claim(Verdict.pass_, line=3, file="docs/b.md"),
        claim(Verdict.unsourced, "Most teams ship twice as fast.", line=4, url=None, file="docs/b.md"),
        claim(Verdict.fail, reason="the page says 12 million", line=9, file="docs/b.md"),
        claim(Verdict.pass_, line=1, file="docs/a.md"),
        claim(Verdict.unreachable, reason="HTTP 404", line=30, file="docs/a.md"),
        claim(Verdict.not_verified, reason="judge disabled", line=2, file="docs/a.md"),
    ]
    out = render_text(report_of(claims))
    assert claim_rows(out) == [
        ("docs/a.md", 2, "FAIL (not verified)"),
        ("docs/a.md", 30, "FAIL (URL not reachable)"),
        ("docs/a.md", 1, "PASS"),
        ("docs/b.md", 9, "FAIL"),
        ("docs/b.md", 4, "UNSOURCED"),
        ("docs/b.md", 3, "PASS"),
    ]
    lines = out.splitlines()
    assert lines.count("docs/a.md") == 1 and lines.count("docs/b.md") == 1


def test_each_claim_shows_its_source_and_reason() -> None:
    out = render_text(report_of(mixed_claims()))
    block = out.split("  20  FAIL  ", 1)[1].splitlines()
    assert block[0] == "The library handles 14 million requests a day."
    assert block[1] == "      source: https://example.com/stats"
    assert block[2] == "      reason: the page says 12 million, not 14 million"
    passed = out.split("   3  PASS  ", 1)[1].splitlines()
    assert passed[2] == "      evidence: “handles 14 million requests each day”"
    assert "  40  UNSOURCED  Most teams ship twice as fast with it.\n" in out
    assert "source: [7] (unresolved)" in out
    assert "reason: reference [7] not found" in out


def test_summary_comes_last() -> None:
    r = report_of(
        mixed_claims(),
        notes=["judge: none — only the number, quote and date checks ran"],
        errors=[FileError(file="docs/broken.md", line=7, message="unreadable file")],
    )
    lines = render_text(r).splitlines()
    assert lines[-2:] == [
        "11 claims: 3 verified, 7 failed, 1 unsourced",
        "Result: failed (fail-on: " + ", ".join(r.failing) + ")",
    ]
    assert "docs/broken.md:7: error: unreadable file" in lines
    assert "note: judge: none — only the number, quote and date checks ran" in lines


def test_an_empty_report_says_so() -> None:
    out = render_text(report_of([]))
    assert out.startswith("No verifiable claims found.\n")
    assert out.endswith(
        "0 claims: 0 verified, 0 failed, 0 unsourced\nResult: nothing verified, nothing failed\n"
    )


def test_no_colour_unless_asked() -> None:
    out = render_text(report_of(mixed_claims()))
    assert "\x1b" not in out


def test_colour_when_asked_changes_nothing_else() -> None:
    r = report_of(mixed_claims())
    coloured = render_text(r, color=True)
    assert ANSI.sub("", coloured) == render_text(r)
    assert "\x1b[1mdocs/guide.md\x1b[0m" in coloured
    assert "\x1b[32mPASS\x1b[0m" in coloured
    # Red when the claim hits the run's fail-on list, yellow when it is only reported.
    assert "  20  \x1b[31mFAIL\x1b[0m  " in coloured
    assert "  34  \x1b[33mFAIL (not verified)\x1b[0m  " in coloured
    assert "  40  \x1b[33mUNSOURCED\x1b[0m  " in coloured
    strict = render_text(report_of(mixed_claims(), fail_on=["unsourced"]), color=True)
    assert "  40  \x1b[31mUNSOURCED\x1b[0m  " in strict
    assert "Result: \x1b[31mfailed" in coloured


def test_text_from_documents_and_pages_cannot_drive_the_terminal() -> None:
    evil = "\x1b]0;owned\x07Sales grew 35%\x1b[2J in 2023\u202e."
    c = claim(Verdict.fail, text=evil, reason="page: \x1b[31mred\x1b[0m", file="docs/\x1b[8mx.md")
    plain = render_text(report_of([c]))
    assert "\x1b" not in plain and "\x07" not in plain and "\u202e" not in plain
    assert "Sales grew 35%[2J in 2023." in plain
    coloured = render_text(report_of([c]), color=True)
    # Every escape sequence left is one of ours (SGR colour), none from the claim or page.
    assert set(re.findall(r"\x1b[^m]*m", coloured)) <= {f"\x1b[{code}m" for code in (0, 1, 2, 31, 32, 33)}
    assert "\x1b]" not in coloured and "\x1b[2J" not in coloured and "\x1b[8m" not in coloured


def test_colour_only_on_a_terminal_without_no_color() -> None:
    assert not color_allowed(io.StringIO(), {})
    main_fd, tty_fd = pty.openpty()
    try:
        with open(tty_fd, "w", closefd=True) as tty:
            assert color_allowed(tty, {})
            assert color_allowed(tty, {"NO_COLOR": ""})  # set but empty does not count (no-color.org)
            assert not color_allowed(tty, {"NO_COLOR": "1"})
        assert not color_allowed(tty, {})  # closed
    finally:
        os.close(main_fd)


@pytest.mark.parametrize("verdict", list(Verdict))
def test_every_verdict_has_a_tag(verdict: Verdict) -> None:
    url = None if verdict == Verdict.unsourced else "https://example.com/stats"
    rows = claim_rows(render_text(report_of([claim(verdict, url=url)])))
    assert len(rows) == 1 and rows[0][1] == 12


def test_sentences_the_screen_set_aside_are_listed_after_the_notes() -> None:
    from citecheck.models import ClaimKind, Dismissed

    dismissed = Dismissed(
        text="Tokio is an asynchronous runtime for Rust.",
        kinds=[ClaimKind.hyperlinked],
        file="docs/runtimes.md",
        line=5,
        column=1,
        reason="describes the linked tool",
        model="claude-sonnet-4-6",
    )
    out = render_text(report_of(mixed_claims(), dismissed=[dismissed]))
    lines = out.splitlines()
    at = lines.index("set aside by the screen (no fact stated):")
    assert (
        lines[at + 1]
        == "  docs/runtimes.md:5  Tokio is an asynchronous runtime for Rust.  (describes the linked tool)"
    )
    assert lines[at + 3].startswith(f"{len(mixed_claims())} claims:")  # not counted among them
    assert "set aside by the screen" not in render_text(report_of(mixed_claims()))
