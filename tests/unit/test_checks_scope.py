"""Same thing, same scope (issue 32, point 2): two figures or dates are compared only when their
periods, rates, totals and parts agree; a season or a fiscal year is one period that a year
within it states; a year inside a name is a name. Each form both ways: a wrong figure or date of
the same scope is caught, a right one (or one of another scope) is not failed.

The sentences are real:
- issue 32's three false failures, quoted from the fact-checking set it tried ("won 10 trophies
  between 1989 and 2005" against "We've won 47 trophies in our illustrious history", "the
  1904-1905 season" against "in 1904", "The 2021 Annual Conference of the ACL");
- WiCE (Kamoi et al. 2023, ryokamoi/wice; annotations ODC-BY, page text from Common Crawl): test
  rows on the Tour's life vice presidents (O'hUiginn), HS2 (London–Birmingham, Leeds and
  Manchester) and the Ottawa Senators' move to Belleville; dev rows on the Japan Air
  Self-Defense Force (Hyakuri, "fiscal 2020") and Genealogy at Eurovision (ESCToday);
- CLIMATE-FEVER (Diggelmann et al. 2020, tdiggelm/climate-fever-dataset; Wikipedia, CC BY-SA):
  evidence sentences on global warming since 1970, greenhouse-gas emissions in 2010, coal power
  plants' water, Venezuela's car production and the Great Barrier Reef, and two of its
  "supported" claims ("… since 1970.", "Great Barrier Reef may perish by 2030s") that the checks
  once failed.
"""

from __future__ import annotations

import pytest

from citecheck.checks.date import check_dates
from citecheck.checks.number import check_numbers
from citecheck.checks.passages import PageIndex
from citecheck.checks.scope import date_periods, in_name, same_scope, scope_of
from citecheck.models import CheckOutcome, CheckResult
from citecheck.numbers import dates_in, statistics_in

FOUND, ABSENT, CONTRADICTED = CheckOutcome.found, CheckOutcome.absent, CheckOutcome.contradicted


def outcome(result: CheckResult | None) -> CheckOutcome | None:
    return None if result is None else result.outcome


# --- ranges, periods and totals ------------------------------------------------------------------

TROPHIES = PageIndex("We've won 47 trophies in our illustrious history.\n")


def test_a_period_is_not_all_time() -> None:
    # issue 32: "two different scopes read as one thing"
    assert outcome(check_numbers("The club won 10 trophies between 1989 and 2005.", TROPHIES)) == ABSENT
    # all time against all time: the same thing, another count
    result = check_numbers("The club has won 10 trophies in its history.", TROPHIES)
    assert outcome(result) == CONTRADICTED
    assert result is not None and "'47' where the claim says '10'" in result.detail
    assert outcome(check_numbers("The club has won 47 trophies in its history.", TROPHIES)) == FOUND


# WiCE test: the Tour's life vice presidents
TAOISEACH = PageIndex(
    "Pádraig O'hUiginn, who for 11 years between 1982 and 1993 was Secretary of the Department of "
    "the Taoiseach, becomes a Life Vice President of the Tour in recognition of his pivotal role in "
    "cultivating professional golf in Ireland.\n"
)


@pytest.mark.parametrize(("years", "want"), [("11", FOUND), ("14", CONTRADICTED)])
def test_the_same_period_is_the_same_thing(years: str, want: CheckOutcome) -> None:
    claim = (
        f"Pádraig O'hUiginn, who for {years} years between 1982 and 1993 was Secretary of the "
        "Department of the Taoiseach, became a Life Vice President of the Tour."
    )
    assert outcome(check_numbers(claim, TAOISEACH)) == want


def test_scopes_are_read_from_the_figures_clauses() -> None:
    text = "China had 60% of sales in 2023, up from 50% in 2022."
    first, second = statistics_in(text)
    assert scope_of(text, first.start, first.end).years == {2023}
    assert scope_of(text, second.start, second.end).years == {2022}
    between = scope_of("won 10 trophies between 1989 and 2005", 4, 6)
    assert (between.years, between.span, between.total) == ({1989, 2005}, True, False)
    history = scope_of("won 47 trophies in our illustrious history", 4, 6)
    assert history.total and not same_scope(between, history)


# --- rates ---------------------------------------------------------------------------------------

# CLIMATE-FEVER, evidence from Wikipedia's "Coal-fired power station"
COAL = PageIndex(
    "Mining operations require around 250 litres of freshwater per tonne of coal.\n"
    "A typical 500 MW coal power plant then needs another 1,300 million litres of freshwater a day for "
    "the electricity generation process, varies by the exact system.\n"
)


def test_a_rate_is_compared_with_the_same_rate() -> None:
    claim = "A typical 500 MW coal power plant needs 2,000 million litres of freshwater a day."
    assert outcome(check_numbers(claim, COAL)) == CONTRADICTED
    yearly = "A typical 500 MW coal power plant needs 2,000 million litres of freshwater a year."
    assert outcome(check_numbers(yearly, COAL)) == ABSENT


# --- a part of a period --------------------------------------------------------------------------

# CLIMATE-FEVER, evidence from Wikipedia's "Venezuela"
VENEZUELA = PageIndex(
    "By the first half of 2016, only 10 vehicles were manufactured per day in Venezuela with "
    "production dropping 86%.\n"
)


def test_the_first_half_is_not_the_year() -> None:
    half = "By the first half of 2016, only 25 vehicles were manufactured per day in Venezuela."
    assert outcome(check_numbers(half, VENEZUELA)) == CONTRADICTED
    right = "By the first half of 2016, only 10 vehicles were manufactured per day in Venezuela."
    assert outcome(check_numbers(right, VENEZUELA)) == FOUND
    year = "In 2015, only 25 vehicles were manufactured per day in Venezuela."
    assert outcome(check_numbers(year, VENEZUELA)) == ABSENT


# --- since, by ---------------------------------------------------------------------------------

# CLIMATE-FEVER, evidence from Wikipedia's "Global warming"
WARMING = PageIndex(
    "It is a major aspect of climate change, and has been demonstrated by the instrumental "
    "temperature record which shows global warming of around 1 °C since the pre-industrial period, "
    "although the bulk of this (0.9°C) has occurred since 1970.\n"
)
# CLIMATE-FEVER, evidence from Wikipedia's "Greenhouse gas"
EMISSIONS = PageIndex(
    "Global anthropogenic greenhouse gas emissions in 2010 were equivalent to 49 billion tonnes of "
    "carbon dioxide (using the most recent global warming potentials over 100 years from the AR5 "
    "report).\n"
)


def test_since_is_compared_with_since() -> None:
    assert (
        outcome(check_dates("The bulk of the global warming has occurred since 1980.", WARMING))
        == CONTRADICTED
    )
    assert outcome(check_dates("The bulk of the global warming has occurred since 1970.", WARMING)) == FOUND
    # CLIMATE-FEVER's supported claim: the period since 1970 holds 2010 (it failed before)
    since = "Greenhouse gases have been the main contributor of warming since 1970."
    assert outcome(check_dates(since, EMISSIONS)) == ABSENT
    # a point against a point: another year for the same emissions
    point = (
        "Global anthropogenic greenhouse gas emissions were equivalent to 49 billion tonnes of carbon "
        "dioxide in 2012."
    )
    assert outcome(check_dates(point, EMISSIONS)) == CONTRADICTED


# WiCE test: HS2
HS2 = PageIndex(
    "The first segment - between London and Birmingham - is due to open in 2026, with the second - to "
    "Leeds and Manchester - expected to be completed by 2033.\n"
)
# CLIMATE-FEVER, evidence from Wikipedia's "Great Barrier Reef"
REEF = PageIndex(
    "The percentage of baby corals being born on the Great Barrier Reef dropped drastically in 2018 and "
    "scientists are describing it as the early stage of a huge natural selection event unfolding.\n"
)


def test_by_is_compared_with_by() -> None:
    wrong = "The second segment, to Leeds and Manchester, is expected to be completed by 2035."
    assert outcome(check_dates(wrong, HS2)) == CONTRADICTED
    right = "The second segment, to Leeds and Manchester, is expected to be completed by 2033."
    assert outcome(check_dates(right, HS2)) == FOUND
    # CLIMATE-FEVER's supported claim: a forecast is not contradicted by what happened in 2018
    assert outcome(check_dates("Great Barrier Reef may perish by 2030s.", REEF)) == ABSENT
    past = "The percentage of baby corals being born on the Great Barrier Reef dropped drastically in 2016."
    assert outcome(check_dates(past, REEF)) == CONTRADICTED


# --- seasons and fiscal years -------------------------------------------------------------------


def test_a_season_is_stated_by_a_year_within_it() -> None:
    first = PageIndex("The club reached the First Division in 1904.\n")
    season = "The club first reached the First Division in the 1904-1905 season."
    assert outcome(check_dates(season, first)) == FOUND  # issue 32: it failed
    assert outcome(check_dates(season.replace("1904-1905", "1904–05"), first)) == FOUND
    wrong = "The club first reached the First Division in the 1906-1907 season."
    assert outcome(check_dates(wrong, first)) == CONTRADICTED


# WiCE test: the Binghamton Senators
SENATORS = PageIndex(
    "The Ottawa Senators announced earlier this year that they would be relocating their minor league "
    "operations to Belleville, Ontario for the 2017-18 season, leaving the future of hockey in "
    "Binghamton in limbo for several months.\n"
)


@pytest.mark.parametrize(("year", "want"), [("2018", FOUND), ("2017", FOUND), ("2016", CONTRADICTED)])
def test_a_pages_season_holds_its_years(year: str, want: CheckOutcome) -> None:
    claim = f"The Ottawa Senators relocated their minor league operations to Belleville, Ontario in {year}."
    assert outcome(check_dates(claim, SENATORS)) == want


# WiCE dev: the Japan Air Self-Defense Force
HYAKURI = PageIndex(
    "To make way for the arrival of what will then be the newly F-35A Lightning II-equipped 301st Sqn, "
    "current (September 2017) plans call for the 3rd Sqn to relocate south to Hyakuri AB in fiscal "
    "2020.\n"
)


def test_a_fiscal_year_straddles_two_years() -> None:
    held = check_dates("The 3rd Squadron is to relocate south to Hyakuri Air Base in 2019.", HYAKURI)
    assert outcome(held) == FOUND
    assert held is not None and "fiscal year" in held.detail
    # and the plans' own date is another event's, whatever year the claim gives
    assert (
        outcome(check_dates("The 3rd Squadron is to relocate south to Hyakuri Air Base in 2016.", HYAKURI))
        == CONTRADICTED
    )
    text = "Revenue grew 5% in fiscal 2023; in FY2024 it fell."
    dates = dates_in(text)
    assert date_periods(text, dates) == {0: frozenset({2022, 2023})}


# --- a year inside a name ----------------------------------------------------------------------

# WiCE dev: ESCToday on Genealogy (the page's news list names "Eurovision 2020" again and again)
ESC = PageIndex(
    "The 2015 Armenian Eurovision representatives Genealogy had the grand honour of meeting the "
    "president of Armenia in Yerevan.\n"
    "Genealogy were selected via an internal selection by ARMTV in order to represent Armenia at the "
    "2015 Eurovision Song Contest.\n"
    "Armenia debuted in Eurovision Song Contest in 2006 with Andre and is yet to win the event.\n"
    "### Portugal: RTP confirms participation in Eurovision 2020\n"
    "### Eurovision 2020: Host City deliberation: too close to call?\n"
)


def test_a_year_inside_a_name_is_a_name() -> None:
    # issue 32: a conference named by its year, against a page of another year
    acl = PageIndex("The 2023 Annual Conference of the ACL was held in Toronto in July 2023.\n")
    claim = "The 2021 Annual Conference of the ACL is one of the largest conferences in the field."
    assert check_dates(claim, acl) is None  # no date to check
    (year,) = dates_in(claim)
    assert in_name(claim, year)
    assert check_dates("Genealogy represented Armenia at the 2016 Eurovision Song Contest.", ESC) is None
    for text in ("the 2019 World Cup", "coronavirus disease 2019", "Eurovision 2020", "2019-nCoV"):
        assert all(in_name(text, d) for d in dates_in(text)), text
    for text in ("in 2019 Apple released", "a 2019 UNEP study", "the 2007 Kangaroo Island bushfires were"):
        assert not any(in_name(text, d) for d in dates_in(text)), text
    # "Python 3.12", "iPhone 15": versions and models are no figures either
    assert statistics_in("Despite being marketed as the headline feature of the iPhone 16, it failed.") == []
    assert statistics_in("It will accept Python 3.13.") == []


@pytest.mark.parametrize(("year", "want"), [("2006", FOUND), ("2008", CONTRADICTED)])
def test_a_year_that_dates_is_still_checked_beside_names(year: str, want: CheckOutcome) -> None:
    claim = f"Armenia debuted in the Eurovision Song Contest in {year} with Andre."
    assert outcome(check_dates(claim, ESC)) == want


# CLIMATE-FEVER (tdiggelm/climate-fever-dataset), a claim labelled SUPPORTS and its evidence page:
# two statements over periods of other lengths; the length of a period is its scope.
ORBIT = PageIndex(
    "Changes in solar activity, ocean circulation and the Earth's orbit, for the past 2,000 years, "
    "caused a long-term northern hemisphere cooling trend.\n"
    "Sea level rose 15 cm over the past 100 years, the survey found.\n"
)


def test_the_length_of_a_period_is_its_scope_not_a_value() -> None:
    claim = (
        "For the past 4567 million years, the sun and the Earth's orbit have driven climate change cycles."
    )
    assert outcome(check_numbers(claim, ORBIT)) != CheckOutcome.contradicted
    # a value measured over the same period is still compared (written for the test)
    wrong = "Sea level rose 20 cm over the past 100 years, the survey found."
    assert outcome(check_numbers(wrong, ORBIT)) == CheckOutcome.contradicted
    assert outcome(check_numbers(wrong.replace("20 cm", "15 cm"), ORBIT)) == CheckOutcome.found
