"""The checks stage's seams: the registry of checks, check requests, pages checked where they
are extracted (`preparers`) or here, and a claim's results against the page a citation leads to."""

from __future__ import annotations

import pickle

from citecheck.checks import (
    CHECKS,
    DECIDE_ALONE,
    CheckedPage,
    check_request,
    checked_pages,
    claim_results,
    judge_hints,
    preparers,
    run_checks,
)
from citecheck.models import (
    CheckOutcome,
    Citation,
    CitationKind,
    Claim,
    ClaimKind,
    DecidedBy,
    FetchedSource,
    FetchOutcome,
)

PAGE = (
    "Annual survey of developers\n"
    "The survey found that 35 percent of developers use Rust at work.\n"
    "She added: “We did not expect growth this fast.”\n"
    "The report was published on 5 March 2021.\n"
)


def claim(text: str, *kinds: ClaimKind, fragment: str | None = None) -> Claim:
    citation = Citation(
        raw="[s](https://example.org/s)",
        kind=CitationKind.link,
        url="https://example.org/s",
        text_fragment=fragment,
    )
    return Claim(text=text, kinds=list(kinds), file="doc.md", line=3, column=1, citations=[citation])


def test_each_check_has_its_own_name_and_kinds() -> None:
    assert [c.name for c in CHECKS] == [DecidedBy.number, DecidedBy.quote, DecidedBy.date]
    assert [set(c.kinds) for c in CHECKS] == [{ClaimKind.statistic}, {ClaimKind.quote}, {ClaimKind.temporal}]
    # A figure or a quote found on the page may pass a claim with the judge off; a date may not.
    assert {DecidedBy.number, DecidedBy.quote} == DECIDE_ALONE


def test_a_request_names_the_checks_of_the_claims_kinds() -> None:
    c = claim("In March 2021, 35% of developers used Rust [3].", ClaimKind.temporal, ClaimKind.statistic)
    text, names, watch = check_request(c)  # type: ignore[misc]
    assert names == (DecidedBy.number, DecidedBy.date)  # in the registry's order
    assert watch == (DecidedBy.quote,)  # the others watch for a contradiction
    assert text == c.text  # a link's text is the claim's own
    assert check_request(claim("Developers like Rust.", ClaimKind.hyperlinked)) is None


def test_a_missing_fragment_is_a_hint_and_the_claims_checks_still_run() -> None:
    # It used to fail the claim with nothing else checked. But a fragment missing from the
    # page is absence, not contradiction: the page may have changed since the link was
    # written, or its text extraction left that part out (a table, a sidebar). The judge is
    # told; the claim's own checks still run.
    page = CheckedPage.of(PAGE)
    c = claim("35% of developers use Rust.", ClaimKind.statistic, fragment="nowhere on the page")
    fragment, number = claim_results(c, c.citations[0], page)
    assert (fragment.name, fragment.outcome, fragment.passed) == (DecidedBy.quote, CheckOutcome.absent, False)
    assert fragment.detail == "the text fragment 'nowhere on the page' in the link does not occur on the page"
    assert (number.name, number.outcome) == (DecidedBy.number, CheckOutcome.found)
    assert judge_hints([fragment, number]) == [fragment.detail]
    found = claim("35% of developers use Rust.", ClaimKind.statistic, fragment="35 percent of developers")
    assert claim_results(found, found.citations[0], page) == run_checks(found, CheckedPage.of(PAGE))
    assert [r.name for r in claim_results(found, found.citations[0], page)] == [DecidedBy.number]


def test_the_judge_is_told_only_what_is_absent() -> None:
    page = CheckedPage.of(PAGE)
    c = claim("In 2019, 35% of developers used Rust.", ClaimKind.statistic, ClaimKind.temporal)
    number, date = run_checks(c, page)
    assert (number.outcome, date.outcome) == (CheckOutcome.found, CheckOutcome.absent)
    assert judge_hints([number, date]) == ["the date '2019' does not occur on the page"]
    contradicted = run_checks(claim("45% of developers use Rust at work.", ClaimKind.statistic), page)
    assert [r.outcome for r in contradicted] == [CheckOutcome.contradicted]
    assert judge_hints(contradicted) == []  # a contradiction is decided, not hinted


def test_a_page_prepared_elsewhere_gives_the_results_of_one_checked_here() -> None:
    claims = [
        claim("35% of developers use Rust.", ClaimKind.statistic),
        claim("45% of developers use Rust.", ClaimKind.statistic),
        claim("In 2019, a survey was published.", ClaimKind.temporal),
        claim("Developers like Rust.", ClaimKind.hyperlinked),  # nothing to check
    ]
    prepare = preparers({"https://example.org/s": claims, "https://example.org/none": claims[3:]})
    assert list(prepare) == ["https://example.org/s"]  # no page without a check to run
    # What a worker process runs: the callable and what it makes both travel by pickle.
    prepared = pickle.loads(
        pickle.dumps(pickle.loads(pickle.dumps(prepare["https://example.org/s"]))(PAGE, None))
    )
    assert set(prepared.results) == {check_request(c) for c in claims[:3]}
    here = CheckedPage.of(PAGE)
    for c in claims:
        assert claim_results(c, c.citations[0], prepared) == claim_results(c, c.citations[0], here)
    assert prepared == here
    outcomes = [[r.outcome for r in results] for results in prepared.results.values()]
    assert outcomes == [[CheckOutcome.found], [CheckOutcome.contradicted], [CheckOutcome.absent]]


def test_the_page_date_goes_with_the_page() -> None:
    c = claim("A 2019 survey found most developers like Rust.", ClaimKind.temporal)
    prepared = preparers({"u": [c]})["u"](PAGE, "2019-05-01")
    (result,) = claim_results(c, c.citations[0], prepared)
    assert result.passed and "page's date" in result.detail
    ok = FetchedSource(info={"url": "u"}, outcome=FetchOutcome.ok, text=PAGE, date="2019-05-01")
    failed = FetchedSource(info={"url": "v"}, outcome=FetchOutcome.unreachable, error="HTTP 404")
    pages = checked_pages({"u": ok, "v": failed}, {})
    assert list(pages) == ["u"]  # only pages with text
    assert claim_results(c, c.citations[0], pages["u"]) == [result]
    assert checked_pages({"u": ok}, {"u": prepared})["u"] is prepared
