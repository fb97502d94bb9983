"""A claim's fix (`citecheck.checks.fix`): the words a check says are wrong, found where the file
writes them, and the page's in their place; refused wherever that place is not certain. And the
same fix applied to a text (`citecheck.output.fixes`) and rendered as a review comment
(`citecheck.github.review`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citecheck.checks.attribution import checked_text
from citecheck.checks.date import check_dates
from citecheck.checks.fix import locate, suggestion_for, with_suggestions
from citecheck.checks.number import check_numbers
from citecheck.checks.passages import PageIndex
from citecheck.checks.quote import check_quotes
from citecheck.extract.document import extract_text
from citecheck.github.review import comment_text, review_comments, suggestion_key
from citecheck.models import CheckOutcome, ClaimResult, DecidedBy, Report, SelectedFile, Verdict
from citecheck.output.fixes import fix_text
from citecheck.select import PRFile

SURVEY = PageIndex(
    "Only 48% of contributors reported being paid for any of their open source work; the share was "
    "higher among maintainers of large projects."
)
HEDGED = PageIndex("Less than 48% of contributors reported being paid for their open source work.")
PENDLETON = PageIndex("Brian Pendleton, musician, born April 13 1944; died May 25 2001.")
INTERVIEW = PageIndex(
    "Interview with Dr. Ada Example, lead author of the 2024 Example Developer Survey\n"
    "We saw it in the numbers: people leave when the docs are wrong.\n"
)


def failed(markdown: str, page: PageIndex, *, nth: int = 0) -> tuple[ClaimResult, list[str]]:
    """The `nth` claim of `markdown` failed as the pipeline fails it: by its checks on `page`
    (the first contradiction decides), with the file's lines."""
    claim = extract_text(markdown, "doc.md").claims[nth]
    text = checked_text(claim)
    results = [
        r for check in (check_numbers, check_quotes, check_dates) if (r := check(text, page)) is not None
    ]
    decider = next(r for r in results if r.outcome == CheckOutcome.contradicted)
    result = ClaimResult(
        **claim.model_dump(),
        verdict=Verdict.fail,
        decided_by=decider.name,
        reason=decider.detail,
        evidence=decider.evidence,
        checks=results,
    )
    return result, markdown.split("\n")


# ---------------------------------------------------------------- what the checks give


def test_a_contradiction_names_the_claims_words_and_the_pages() -> None:
    claim = "About 70% of contributors are paid for their open source work."
    result = check_numbers(claim, SURVEY)
    assert result is not None and result.outcome == CheckOutcome.contradicted
    assert (result.claim_span, result.claim_value, result.page_value) == ((6, 9), "70%", "48%")
    # A page's figure with another hedge cannot stand in ("about 70%" → "about 48%" would say
    # other than "less than 48%").
    hedged = check_numbers(claim, HEDGED)
    assert hedged is not None and hedged.outcome == CheckOutcome.contradicted
    assert hedged.claim_value == "70%" and hedged.page_value is None

    died = check_dates("Brian Pendleton died on 16 May 2001.", PENDLETON)
    assert died is not None and (died.claim_value, died.page_value) == ("16 May 2001", "May 25 2001")
    # A year's claim gets the page's year, not its whole date.
    year = check_dates("Brian Pendleton died in 2003, it says.", PageIndex("Brian Pendleton died in 2001."))
    assert year is not None and (year.claim_value, year.page_value) == ("2003", "2001")

    quote = "Dr. Example also said that “people leave when the docs are long”."
    misquote = check_quotes(quote, INTERVIEW)
    assert misquote is not None and misquote.claim_span is not None
    assert (misquote.claim_value, misquote.page_value) == ("long", "wrong")
    assert quote[slice(*misquote.claim_span)] == "long"
    # Absent or found: nothing to replace.
    absent = check_numbers("Sales grew 25% in 2023.", SURVEY)
    assert absent is not None and absent.outcome == CheckOutcome.absent and absent.page_value is None


# ---------------------------------------------------------------- where the file writes them


def test_the_span_is_found_inside_the_markdown_around_it() -> None:
    claim, lines = failed(
        "# T\n\nAbout **70%** of [contributors](https://ex.org/a) are paid for their open source work.\n",
        SURVEY,
    )
    fix = suggestion_for(claim, lines)
    assert fix is not None
    assert (fix.line, fix.column, fix.end_line, fix.end_column) == (3, 9, 3, 12)
    assert (fix.original, fix.replacement, fix.check) == ("70%", "48%", DecidedBy.number)
    assert fix.fixed_lines() == [
        "About **48%** of [contributors](https://ex.org/a) are paid for their open source work."
    ]
    assert fix.evidence.startswith("Only 48% of contributors")


def test_the_claims_second_figure_maps_to_the_lines_second() -> None:
    claim, lines = failed(
        "In 2020 some 70% of maintainers were unpaid, and\nabout 70% of contributors are paid for their "
        "open source work.\n",
        SURVEY,
    )
    fix = suggestion_for(claim, lines)
    assert fix is not None and (fix.line, fix.column, fix.original) == (2, 7, "70%")
    assert fix.fixed_lines() == ["about 48% of contributors are paid for their open source work."]


@pytest.mark.parametrize(
    "markdown",
    [
        # The same words before them where the claim has none (an image's text): the two
        # readings disagree.
        "About ![70%](c.png) 70% of contributors are paid for their open source work.\n",
        # Not written as the claim reads them.
        "About **70**% of contributors are paid for their open source work.\n",
        # A bidi control on the line: a suggestion would carry it.
        "About 70% of contributors are paid for their open source work.\u202e\n",
    ],
)
def test_no_fix_where_the_place_is_not_certain(markdown: str) -> None:
    claim, lines = failed(markdown, SURVEY)
    assert suggestion_for(claim, lines) is None


@pytest.mark.parametrize(
    "markdown",
    [
        "[About](https://ex.org/?share=70% 'the 70% share') 70% of contributors are paid for their open "
        "source work.\n",
        "<span title='70%'>About</span> 70% of contributors are paid for their open source work.\n",
        "About <!-- 70%? --> 70% of contributors are paid for their open source work.\n",
    ],
)
def test_words_a_reader_does_not_see_are_not_counted(markdown: str) -> None:
    """A link's target and title, an HTML tag or comment: not where the claim's words are."""
    claim, lines = failed(markdown, SURVEY)
    fix = suggestion_for(claim, lines)
    assert fix is not None
    assert fix.column == markdown.index(" 70% of") + 2 and fix.original == "70%"


def test_the_place_is_found_in_bounded_time_whatever_the_text() -> None:
    """Repetitive text with Markdown between every character: the alignment works on windows
    around the span, so its cost does not grow with the claim's length."""
    body = "a b " * 5000
    text = f"{body}About 70% of contributors are paid for their open source work. {body}"
    raw = "".join(f"{c}*" for c in body) + " About 70% of contributors are paid for their open source work."
    claim = ClaimResult(text=text, kinds=[], file="d.md", line=1, column=1, verdict=Verdict.fail)
    start = text.index("70%")
    assert locate(claim, (start, start + 3), [raw]) == (1, 2 * len(body) + 8, 1, 2 * len(body) + 11)


def test_a_span_across_a_soft_break_replaces_both_lines() -> None:
    page = PageIndex(
        "Interview with Dr. Ada Example, lead author of the survey.\n"
        "We saw it in the numbers: people leave the project when the docs are wrong.\n"
    )
    # The wrong word on the second line of the sentence: that line alone.
    claim, lines = failed(
        "Dr. Ada Example said that “people leave the project when the\ndocs are long”.\n", page
    )
    fix = suggestion_for(claim, lines)
    assert fix is not None
    assert (fix.line, fix.column, fix.end_line, fix.original, fix.replacement) == (2, 10, 2, "long", "wrong")
    # Changed words on both lines: the span crosses the break, and both lines are replaced.
    claim, lines = failed(
        "Dr. Ada Example said that “people quit the project when the\ndocs are long”.\n", page
    )
    fix = suggestion_for(claim, lines)
    assert fix is not None
    assert (fix.line, fix.column, fix.end_line, fix.end_column) == (1, 35, 2, 14)
    assert fix.original == "quit the project when the\ndocs are long"
    assert fix.replacement == "leave the project when the docs are wrong"
    assert fix.lines == lines[:2]
    assert fix.fixed_lines() == [
        "Dr. Ada Example said that “people leave the project when the docs are wrong”."
    ]


def test_no_fix_for_a_judges_verdict_or_a_check_that_read_another_text() -> None:
    claim, lines = failed("About 70% of contributors are paid for their open source work.\n", SURVEY)
    assert suggestion_for(claim, lines) is not None
    assert suggestion_for(claim.model_copy(update={"decided_by": DecidedBy.judge}), lines) is None
    assert suggestion_for(claim.model_copy(update={"verdict": Verdict.pass_}), lines) is None
    other = claim.model_copy(update={"text": claim.text.replace("70%", "71%")})
    assert suggestion_for(other, lines) is None
    no_words = [c.model_copy(update={"page_value": None}) for c in claim.checks]
    assert suggestion_for(claim.model_copy(update={"checks": no_words}), lines) is None


def test_the_file_is_read_where_the_run_read_it_and_only_as_utf8(tmp_path: Path) -> None:
    markdown = "About 70% of contributors are paid for their open source work.\n"
    claim, _ = failed(markdown, SURVEY)
    doc = tmp_path / "doc.md"
    doc.write_text(markdown, encoding="utf-8")
    files = [SelectedFile(path=str(doc), display="doc.md")]
    [fixed] = with_suggestions([claim], files, 1000)
    assert fixed.suggestion is not None and fixed.suggestion.replacement == "48%"
    doc.write_bytes(markdown.encode("utf-8") + b"\xff")
    assert with_suggestions([claim], files, 1000)[0].suggestion is None
    assert with_suggestions([claim], files, 10)[0].suggestion is None  # over the size limit


# ---------------------------------------------------------------- applied, and rendered


def test_fixes_apply_where_the_text_still_reads_as_they_say() -> None:
    markdown = "About 70% of contributors are paid for their open source work.\r\nNext line.\r\n"
    claim, lines = failed(markdown, SURVEY)
    fix = suggestion_for(claim, lines)
    assert fix is not None and fix.lines == [
        "About 70% of contributors are paid for their open source work.\r"
    ]
    done = fix_text("doc.md", markdown, [fix, fix])  # the second overlaps the first
    assert done.after == markdown.replace("70%", "48%")  # line ends kept
    assert (len(done.applied), len(done.skipped)) == (1, 1)
    assert "-About 70%" in done.diff() and "+About 48%" in done.diff()
    moved = fix_text("doc.md", "New first line.\n" + markdown, [fix])
    assert moved.applied == [] and moved.after == moved.before


def test_the_review_comment_is_the_line_with_the_span_replaced(tmp_path: Path) -> None:
    markdown = "# T\n\nAbout 70% of contributors are paid for their open source work (`paid`, ```x```).\n"
    claim, lines = failed(markdown, SURVEY)
    fix = suggestion_for(claim, lines)
    assert fix is not None
    claim = claim.model_copy(update={"suggestion": fix, "source_url": "https://ex.org/s"})
    key = suggestion_key(claim, fix)
    body = comment_text(claim, fix, key)
    assert body.splitlines()[0] == f"<!-- citecheck-suggestion {key} -->"
    # A fence longer than the line's own run of backticks.
    fixed = "About 48% of contributors are paid for their open source work (`paid`, ```x```)."
    assert f"````suggestion\n{fixed}\n````" in body
    assert "The source (<https://ex.org/s>) says: “Only 48% of contributors" in body

    (tmp_path / "doc.md").write_text(markdown, encoding="utf-8")
    report = Report(passed=False, overall_score=None, claims=[claim])
    patch = "@@ -1,2 +1,3 @@\n # T\n \n+" + lines[2]
    added = [PRFile("doc.md", "modified", patch)]
    [comment] = review_comments(report, pr_files=added, tree=tmp_path)
    assert (comment.path, comment.line, comment.start_line) == ("doc.md", 3, None)
    # A line the PR did not add, or one the tree does not hold as the fix says: no comment.
    context_only = [PRFile("doc.md", "modified", "@@ -1,3 +1,4 @@\n # T\n+x\n \n " + lines[2])]
    assert review_comments(report, pr_files=context_only, tree=tmp_path) == []
    (tmp_path / "doc.md").write_text(markdown.replace("open source", "open-source"), encoding="utf-8")
    assert review_comments(report, pr_files=added, tree=tmp_path) == []


def test_a_fix_over_two_lines_is_one_comment_over_both(tmp_path: Path) -> None:
    page = PageIndex(
        "Interview with Dr. Ada Example, lead author of the survey.\n"
        "We saw it in the numbers: people leave the project when the docs are wrong.\n"
    )
    markdown = "# T\n\nDr. Ada Example said that “people quit the project when the\ndocs are long”.\n"
    claim, lines = failed(markdown, page)
    fix = suggestion_for(claim, lines)
    assert fix is not None and (fix.line, fix.end_line) == (3, 4)
    claim = claim.model_copy(update={"suggestion": fix})
    (tmp_path / "doc.md").write_text(markdown, encoding="utf-8")
    report = Report(passed=False, overall_score=None, claims=[claim])
    # The PR added both lines, its head's first two: the checkout is a test merge whose base
    # added the title above them.
    patch = "@@ -0,0 +1,2 @@\n+" + lines[2] + "\n+" + lines[3]
    [comment] = review_comments(report, pr_files=[PRFile("doc.md", "added", patch)], tree=tmp_path)
    assert (comment.start_line, comment.line) == (1, 2)
    assert comment.api() == {
        "path": "doc.md",
        "line": 2,
        "side": "RIGHT",
        "body": comment.body,
        "start_line": 1,
        "start_side": "RIGHT",
    }
    assert (
        "```suggestion\nDr. Ada Example said that “people leave the project when the docs are wrong”.\n```"
        in comment.body
    )
    # Only one of the two lines added: no comment.
    patch = "@@ -1,3 +1,4 @@\n # T\n \n " + lines[2] + "\n+" + lines[3]
    assert review_comments(report, pr_files=[PRFile("doc.md", "modified", patch)], tree=tmp_path) == []
