"""Passage selection and the number / quote / date checks, on small texts written here."""

from __future__ import annotations

from citecheck.checks import CheckedPage, run_checks
from citecheck.checks.date import check_dates
from citecheck.checks.number import check_numbers
from citecheck.checks.passages import PageIndex, find_fragment, find_verbatim, select_evidence, split_passages
from citecheck.checks.quote import check_quotes, find_quote, is_title
from citecheck.models import CheckOutcome, Citation, CitationKind, Claim, ClaimKind, DecidedBy

FILLER = " ".join(
    f"Paragraph {i} talks about gardening, weather and the price of tea in town." for i in range(200)
)
PAGE = (
    "Annual survey of developers\n"
    + FILLER
    + "\nThe survey found that 35 percent of developers use Rust at work. "
    + "Dr. Jane Smith, who led it, said the figure had doubled. "
    + "She added: “We did not expect growth this fast.”\n"
    + FILLER
    + "\nThe report was published on 5 March 2021.\n"
)


def claim(text: str, *kinds: ClaimKind) -> Claim:
    return Claim(text=text, kinds=list(kinds), file="doc.md", line=3, column=1)


# --- sentences and passages --------------------------------------------------------------


def test_split_passages_respects_abbreviations_initials_and_lines() -> None:
    text = "Dr. Smith met Thomas K. Arnold in the U.S. capital. It rained! Did it?\nA heading\nLast one."
    got = [p.text for p in split_passages(text)]
    assert got == [
        "Dr. Smith met Thomas K. Arnold in the U.S. capital.",
        "It rained!",
        "Did it?",
        "A heading",
        "Last one.",
    ]
    for p in split_passages(text):
        assert text[p.start : p.end] == p.text


def test_overlong_sentence_is_cut() -> None:
    text = "word " * 1000
    passages = split_passages(text)
    assert len(passages) > 1
    assert all(len(p.text) <= 600 for p in passages)


def test_whole_text_when_it_fits() -> None:
    text = "Short page. It says 35 percent."
    (p,) = select_evidence("35% of developers", text, budget_chars=4000)
    assert (p.start, p.end, p.text) == (0, len(text), text)


def test_budget_order_and_relevance() -> None:
    passages = select_evidence("35% of developers use Rust at work", PAGE, budget_chars=1000)
    total = sum(len(p.text) for p in passages)
    assert total <= 1000
    starts = [p.start for p in passages]
    assert starts == sorted(starts)
    assert all(PAGE[p.start : p.end] == p.text for p in passages)
    joined = "\n".join(p.text for p in passages)
    assert "35 percent of developers use Rust" in joined
    # a neighbour comes along for context
    assert "said the figure had doubled" in joined


def test_fragment_always_included() -> None:
    passages = select_evidence(
        "35% of developers use Rust at work",
        PAGE,
        budget_chars=600,
        text_fragment="The report was published",
    )
    joined = "\n".join(p.text for p in passages)
    assert "The report was published on 5 March 2021." in joined
    assert sum(len(p.text) for p in passages) <= 600


def test_find_fragment_range_and_prefix_suffix() -> None:
    text = "Alpha beta. The survey found that 35 percent of developers use Rust. Gamma."
    span = find_fragment("The survey,use Rust", text)
    assert (
        span is not None
        and text[span[0] : span[1]] == "The survey found that 35 percent of developers use Rust"
    )
    span = find_fragment("beta. -,The survey found,-that", text)
    assert span is not None and text[span[0] : span[1]] == "The survey found"
    assert find_fragment("not on the page", text) is None
    # a decoded fragment whose text holds a comma is looked up as it is
    text = "He said: first, we test. Then we ship."
    span = find_fragment("first, we test", text)
    assert span is not None and text[span[0] : span[1]] == "first, we test"


# --- numbers -------------------------------------------------------------------------------


def test_number_found_with_evidence() -> None:
    result = check_numbers("35% of developers use Rust at work.", PageIndex(PAGE))
    assert result is not None and result.passed
    assert result.name == DecidedBy.number
    assert result.evidence == "The survey found that 35 percent of developers use Rust at work."


def test_number_contradicted_names_what_the_page_says() -> None:
    # The sentence sharing the claim's words gives another percentage of the same developers.
    result = check_numbers("45% of developers use Rust at work.", PageIndex(PAGE))
    assert result is not None and (result.outcome, result.passed) == (CheckOutcome.contradicted, False)
    assert result.detail == "the page gives '35 percent' where the claim says '45%'"
    assert result.evidence == "The survey found that 35 percent of developers use Rust at work."


def test_number_absent_is_no_contradiction() -> None:
    # Nothing on the page speaks of what the claim counts: absent (it used to fail the claim).
    result = check_numbers("12,000 developers answered the survey.", PageIndex(PAGE))
    assert result is not None and (result.outcome, result.passed) == (CheckOutcome.absent, False)
    assert result.detail == "the figure '12,000' does not occur on the page"
    # Of another thing, however alike: Python is not Rust.
    result = check_numbers("12% of developers use Python at work.", PageIndex(PAGE))
    assert result is not None and result.outcome == CheckOutcome.absent


def test_no_number_no_check() -> None:
    assert check_numbers("Developers like Rust [3].", PageIndex(PAGE)) is None


# --- quotes --------------------------------------------------------------------------------


def test_quote_exact_tolerates_case_space_and_quote_style() -> None:
    result = check_quotes('Smith said: "we did not  expect growth this fast."', PageIndex(PAGE))
    assert result is not None and result.passed and "verbatim" in result.detail
    assert result.evidence == "We did not expect growth this fast."


def test_quote_with_ellipsis() -> None:
    assert find_quote("We did not … this fast", PAGE) is not None


def test_quote_close_match() -> None:
    result = check_quotes("Smith said “We didn’t expect growth this fast.”", PageIndex(PAGE))
    assert result is not None and result.passed and "close match" in result.detail


def test_quote_missing_is_absent() -> None:
    result = check_quotes("Smith said “Rust will replace every other language.”", PageIndex(PAGE))
    assert result is not None and (result.outcome, result.passed) == (CheckOutcome.absent, False)
    assert result.detail.startswith(
        "the quote 'Rust will replace every other language.' does not occur on the page"
    )


def test_a_word_changed_is_a_misquote_not_a_close_match() -> None:
    # Dr. Jane Smith is named beside the quotation: the page quotes her otherwise.
    claim_text = "Dr. Smith added: “We did not expect growth this slow.”"
    result = check_quotes(claim_text, PageIndex(PAGE))
    assert result is not None and result.outcome == CheckOutcome.contradicted
    assert "'We did not expect growth this fast.', not 'We did not expect growth this slow.'" in result.detail
    assert "Smith" in result.detail
    # Without a name beside the quote, whom the page should quote is not the check's to guess.
    result = check_quotes("She added: “We did not expect growth this slow.”", PageIndex(PAGE))
    assert result is not None and result.outcome == CheckOutcome.absent
    # A quote set off without anyone saying it is not attributed: "the case “…”".
    result = check_quotes(
        "It ruled on “We did not expect growth this slow” in Smith v. Doe.", PageIndex(PAGE)
    )
    assert result is not None and result.outcome == CheckOutcome.absent


def test_find_verbatim_span() -> None:
    text = "Hello   World, again"
    assert find_verbatim("hello world", text) == (0, 13)
    assert find_verbatim("absent", text) is None


# --- dates ---------------------------------------------------------------------------------


def test_date_found_in_another_format() -> None:
    result = check_dates("The report came out on March 5, 2021.", PageIndex(PAGE))
    assert result is not None and result.passed
    assert result.evidence == "The report was published on 5 March 2021."


def test_date_missing_is_absent() -> None:
    result = check_dates("The report came out on 7 March 2019.", PageIndex(PAGE))
    assert result is not None and (result.outcome, result.passed) == (CheckOutcome.absent, False)
    assert result.detail == "the date '7 March 2019' does not occur on the page"
    assert result.evidence == "The report was published on 5 March 2021."


def test_date_contradicted_by_the_sentence_of_the_same_event() -> None:
    # The sentence of the claim's event gives another date for it.
    page = PageIndex("Annual report\nThe society's annual report was published on 5 March 2021 in London.\n")
    result = check_dates("The society's annual report was published on 7 March 2019.", page)
    assert result is not None and result.outcome == CheckOutcome.contradicted
    assert result.detail == "the page gives '5 March 2021' where the claim says '7 March 2019'"
    assert result.evidence == "The society's annual report was published on 5 March 2021 in London."


def test_finer_date_left_to_the_judge_when_the_year_is_there() -> None:
    # Pages say "on Monday" or carry their own date: only a missing year fails the check.
    result = check_dates("The report came out on 7 March 2021.", PageIndex(PAGE))
    assert result is not None and result.passed
    assert "not the day itself" in result.detail
    result = check_dates("It was published in April 2021.", PageIndex(PAGE + "Work on it began in April.\n"))
    assert result is not None and result.passed and "not the month itself" in result.detail
    result = check_dates("It was published on 20 July.", PageIndex(PAGE + "It was reprinted in July.\n"))
    assert result is not None and result.passed and "no year" in result.detail


def test_month_named_nowhere_on_the_page_is_absent() -> None:
    # WiCE dev: "In March 2006, Tom Bromley joined the band" against a page saying June 2006.
    # It used to fail the claim; the page's June is another event's (the band's songs went
    # online): absent, and the judge is told.
    result = check_dates("It was published in April 2021.", PageIndex(PAGE))
    assert result is not None and (result.outcome, result.passed) == (CheckOutcome.absent, False)
    assert "has the year, never the month" in result.detail
    assert result.evidence == "The report was published on 5 March 2021."
    # a day of a month the page names, undated, is still left to the judge
    result = check_dates("The report came out on 7 March 2021.", PageIndex(PAGE))
    assert result is not None and result.passed
    # a month-day without a year: the same, when the page never names the month
    result = check_dates("It was published on 20 July.", PageIndex(PAGE))
    assert result is not None and result.outcome == CheckOutcome.absent and "20 July" in result.detail
    result = check_dates("It was published on 20 March.", PageIndex(PAGE))
    assert result is not None and result.passed and "no year" in result.detail


def test_year_and_month_year() -> None:
    for text in ("It was published in 2021.", "It was published in March 2021.", "Out by the 2020s."):
        result = check_dates(text, PageIndex(PAGE))
        assert result is not None and result.passed and "not the" not in result.detail, text
    result = check_dates("It was published in 2019.", PageIndex(PAGE))
    assert result is not None and result.outcome == CheckOutcome.absent


# --- run_checks ----------------------------------------------------------------------------


def test_run_checks_follows_kinds() -> None:
    c = claim("In March 2021, 35% of developers used Rust.", ClaimKind.statistic, ClaimKind.temporal)
    results = run_checks(c, CheckedPage.of(PAGE))
    assert [r.name for r in results] == [DecidedBy.number, DecidedBy.date]
    assert all(r.passed for r in results)
    assert run_checks(claim("Developers like Rust.", ClaimKind.hyperlinked), CheckedPage.of(PAGE)) == []
    # a statistic kind with no figure on the claim yields no check
    assert run_checks(claim("Most developers like Rust.", ClaimKind.statistic), CheckedPage.of(PAGE)) == []


def test_quoted_titles_are_left_to_the_judge() -> None:
    assert is_title("The Hunger Games: Mockingjay – Part 2")
    assert is_title("Master of Puppets")
    assert not is_title("we did not expect growth this fast")
    assert check_quotes('He starred in "The Hunger Games: Mockingjay – Part 2".', PageIndex(PAGE)) is None


def test_page_date_counts_for_the_date_check() -> None:
    text = "Our survey of developers is out. Most of them like Rust."
    absent = check_dates("A 2019 survey found most developers like Rust.", PageIndex(text))
    assert absent is not None and absent.outcome == CheckOutcome.absent
    result = check_dates("A 2019 survey found most developers like Rust.", PageIndex(text, "2019-05-01"))
    assert result is not None and result.passed and "page's date" in result.detail
    result = check_dates("In May 2019, a survey found this.", PageIndex(text, "2019-05-01"))
    assert result is not None and result.passed
    c = claim("A 2019 survey found most developers like Rust.", ClaimKind.temporal)
    assert run_checks(c, CheckedPage.of(text, "2019"))[0].passed


def test_budget_smaller_than_any_sentence() -> None:
    text = ("A very long sentence about Rust adoption " * 20 + ". ") * 3
    (p,) = select_evidence("Rust adoption", text, budget_chars=100)
    assert len(p.text) == 100 and text[p.start : p.end] == p.text


def test_citation_markers_are_not_checked() -> None:
    c = claim("In 2021, 35% of developers used Rust (Smith, 2019).", ClaimKind.statistic, ClaimKind.temporal)
    c.citations = [Citation(raw="(Smith, 2019)", kind=CitationKind.author_year)]
    results = run_checks(c, CheckedPage.of(PAGE))
    assert [r.passed for r in results] == [True, True]  # 2019 is not looked for
    c = claim("35% of developers used Rust (Smith et al., 2019; Doe 2020).", ClaimKind.temporal)
    assert run_checks(c, CheckedPage.of(PAGE)) == []


def test_link_text_is_claim_content_not_a_marker() -> None:
    # "[35% of developers](url)": the figure is in the link text and must still be checked.
    c = claim("Rust was used by 35% of developers.", ClaimKind.statistic)
    c.citations = [
        Citation(raw="[35% of developers](https://x.org)", kind=CitationKind.link, start=17, end=34)
    ]
    assert c.text[17:34] == "35% of developers"
    (result,) = run_checks(c, CheckedPage.of(PAGE))
    assert result.passed
    c.text = "Rust was used by 47% of developers."
    (result,) = run_checks(c, CheckedPage.of(PAGE))
    assert not result.passed and result.outcome == CheckOutcome.contradicted


def test_fragment_tolerates_quote_style() -> None:
    text = "The maintainers said “we ship when it’s ready” in 2020."
    span = find_fragment("we ship when it's ready", text)
    assert span is not None and text[span[0] : span[1]] == "we ship when it’s ready"


def test_strict_dates_report_a_missing_day() -> None:
    result = check_dates("The report came out on 7 March 2021.", PageIndex(PAGE), strict=True)
    assert result is not None and result.outcome == CheckOutcome.absent
    assert check_dates("The report came out on 5 March 2021.", PageIndex(PAGE), strict=True).passed  # type: ignore[union-attr]
