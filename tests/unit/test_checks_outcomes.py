"""The checks' three outcomes: found (in any equivalent form), absent (a hint for the judge,
never a failure) and contradicted (the page gives another value for the same thing).

The real snippets are quoted from the evaluation data (ISSUE 17's cases): WiCE dev (Kamoi et
al. 2023; annotations ODC-BY, page text from Wikipedia's cited sources via Common Crawl) and
Check-COVID (Wang et al. 2023, MIT); each names its row.
"""

from __future__ import annotations

import pytest

from citecheck.checks.date import check_dates
from citecheck.checks.number import check_numbers
from citecheck.checks.passages import STAMP_BYLINE, PageIndex, stamp_of
from citecheck.checks.quote import check_quotes
from citecheck.models import CheckOutcome, CheckResult
from citecheck.numbers import dates_in

FOUND, ABSENT, CONTRADICTED = CheckOutcome.found, CheckOutcome.absent, CheckOutcome.contradicted


def outcome(result: CheckResult | None) -> CheckOutcome:
    assert result is not None
    assert result.passed == (result.outcome == FOUND)  # `passed` keeps meaning "found"
    return result.outcome


# --- equivalent forms count as found ----------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        # pairs and doubles
        ("A pig has 38 chromosomes.", "Pigs have 19 chromosome pairs."),
        ("A pig has 38 chromosomes.", "The pig has 19 pairs of chromosomes."),
        ("Pigs have 19 pairs of chromosomes.", "A pig has 38 chromosomes in all."),
        # fractions and percentages
        ("One in four adults uses it.", "25% of adults use it."),
        ("25 % of adults use it.", "A quarter of adults use it."),
        ("Two thirds of voters agreed.", "67% of voters agreed."),
        ("Over half a million dollars went to vendors.", "It paid $560,000 in overdue bills to vendors."),
        # rounding and hedges
        ("About 14 million people live there.", "The city has 13.8 million inhabitants."),
        ("14 million people live there.", "The city has 13.8 million inhabitants."),
        ("More than 300 homes were lost.", "The fire destroyed 450 homes."),
        ("Stay six feet apart.", "Keep 2 metres apart."),
    ],
)
def test_an_equivalent_figure_is_found(claim: str, page: str) -> None:
    assert outcome(check_numbers(claim, PageIndex(page))) == FOUND


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        # decades: any year of the decade, however the decade is written
        ("He gave up control of the station in the 2000's.", "He sold the station in 2004."),
        ("He gave up control of the station in the 2000’s.", "He sold the station in 2004."),
        ("He gave up control of the station in the 2000s.", "He sold the station in 2009."),
        ("They met in the 1970s.", "They met in the 1970's, at a party."),
        # date formats
        ("He served from 11 June 2003 until his death.", "He took office on June 11, 2003."),
        ("He served from 11 June 2003 until his death.", "Took office: 2003-06-11."),
        ("He served from June 11, 2003 until his death.", "He took office on 11 June 2003."),
        # ranges of days and spans of years
        ("The summit opened on 11 June 2003.", "The summit was held on 11–13 June 2003."),
        ("The summit closed on 13 June 2003.", "The summit was held June 11–13, 2003."),
        ("The summit opened on June 11, 2003.", "The summit was held June 11-13, 2003."),
        ("He won the title in 2019.", "He won it in the 2018–19 season."),
    ],
)
def test_an_equivalent_date_is_found(claim: str, page: str) -> None:
    result = check_dates(claim, PageIndex(page))
    assert outcome(result) == FOUND, result


def test_a_year_written_with_s_is_its_possessive_unless_it_ends_a_decade() -> None:
    assert [(d.year, d.decade) for d in dates_in("2019's best film; the 1980's; the 1980s")] == [
        (2019, False),
        (1980, True),
        (1980, True),
    ]


# --- page furniture is no evidence ------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "kind"),
    [
        ("Smith, J. Museum news. Retrieved January 15, 2022.", "retrieval stamp"),
        ("Retrieved on 15 January 2022", "retrieval stamp"),
        ("Archived from the original on 5 March 2016.", "archive stamp"),
        ("Accessed 3 March 2020.", "access stamp"),
        ("Access date: 2020-03-03", "access stamp"),
        ("© 2024 Example Docs Research Group. All rights reserved.", "copyright line"),
        ("Copyright © 2019–2024 Example Inc.", "copyright line"),
        ("This page was last edited on 5 May 2021, at 10:00.", "last-updated stamp"),
        ("Last updated: March 3, 2020", "last-updated stamp"),
        ("Updated 3:45 PM ET, Mon March 2, 2020", "last-updated stamp"),
        ("Published 12 June 2024 by the Example Docs Research Group.", STAMP_BYLINE),
        ("By Jane Doe | Posted on May 3, 2019", STAMP_BYLINE),
        ("(meta data) PUBLISHED DATETIME: 2009-07-07T21:22:00+00:00", STAMP_BYLINE),
        # what pages report is no stamp
        ("The museum was updated in 2018.", ""),
        ("The book was published in 2018.", ""),
        ("He was appointed in 2018 and retrieved the files in 2019.", ""),
    ],
)
def test_stamps_are_told_from_reported_dates(page: str, kind: str) -> None:
    assert {stamp_of(page, d) for d in dates_in(page)} == {kind}


def test_a_date_only_in_a_retrieval_stamp_is_absent_and_the_stamp_contradicts_nothing() -> None:
    # ISSUE 17: "appointed … in 2018" against a page whose only date is a retrieval stamp.
    page = PageIndex(
        "Smith was appointed director of the city museum.\n"
        "Smith, J. The city museum director was appointed. Retrieved January 15, 2022.\n"
    )
    result = check_dates("Smith was appointed director of the city museum in 2018.", page)
    assert outcome(result) == ABSENT
    assert result is not None and result.detail == "the date '2018' does not occur on the page"
    # ... and the stamp finds nothing either: a date only in furniture is absent, and said so
    result = check_dates("Smith was appointed director of the city museum in 2022.", page)
    assert outcome(result) == ABSENT
    assert result is not None
    assert (
        result.detail
        == "the date '2022' does not occur on the page (only in a retrieval stamp, which is not evidence)"
    )


@pytest.mark.parametrize("stamp", ["© 2016 The City Museum", "Last updated: 12 May 2016"])
def test_furniture_neither_finds_nor_contradicts(stamp: str) -> None:
    page = PageIndex(f"The city museum reopened its east wing. {stamp}\n")
    assert outcome(check_dates("The city museum reopened its east wing in 2016.", page)) == ABSENT
    assert outcome(check_dates("The city museum reopened its east wing in 2019.", page)) == ABSENT


def test_a_byline_finds_a_date_like_the_page_date_but_contradicts_none() -> None:
    page = PageIndex("Published 12 June 2024 by the group.\nOur survey of developers is out.\n")
    assert outcome(check_dates("A 2024 survey of developers is out.", page)) == FOUND
    assert outcome(check_dates("A 2019 survey of developers is out.", page)) == ABSENT


# --- contradiction and absence on real snippets -----------------------------------------------

# WiCE dev, non_supported_tokens_dev.jsonl dev01696-1 (The Guardian's obituary)
PENDLETON = PageIndex(
    "(meta data) TITLE: Obituary: Brian Pendleton | News | The Guardian\n"
    "The guitarist Brian Pendleton, who has died of lung cancer aged 57, was a member of the 1960s "
    "rock group, the Pretty Things.\n"
    "When interest at home faded too, Pendleton was the first to quit.\n"
    " Brian Pendleton, musician, born April 13 1944; died May 25 2001.\n"
)
# WiCE dev dev00710-1 (The Straits Times)
DAVIS = PageIndex(
    "Singaporean Ben Davis signed a professional contract with Fulham of the English Premier League "
    "on July 13, 2018.\n"
    "Debutant Ben Davis of Fulham FC under-18's trains with the national team on March 20, 2018.ST\n"
)
# WiCE dev dev04441-0 (a page on Los Campesinos!)
BROMLEY = PageIndex(
    "Tom Bromley: I'm Tom, and I play guitar.\n"
    "In June 2006 the band put the songs from their demo on their MySpace page, and alerted "
    "alternative music site DrownedinSound to their presence.\n"
)


def test_a_date_the_same_event_gives_otherwise_is_contradicted() -> None:
    # Of the sentence's two dates, the one of the same event (died, not born).
    result = check_dates("Brian Pendleton died on 16 May 2001.", PENDLETON)
    assert outcome(result) == CONTRADICTED
    assert (
        result is not None
        and result.detail == "the page gives 'May 25 2001' where the claim says '16 May 2001'"
    )
    assert result.evidence == "Brian Pendleton, musician, born April 13 1944; died May 25 2001."
    result = check_dates(
        "Ben Davis signed a professional contract with Fulham Football Club (FC) in 2017.", DAVIS
    )
    assert outcome(result) == CONTRADICTED
    assert result is not None and "'July 13, 2018' where the claim says '2017'" in result.detail
    # The claim's own date found is found, whatever else the page dates.
    assert outcome(check_dates("Brian Pendleton died on 25 May 2001.", PENDLETON)) == FOUND


def test_a_date_of_another_event_is_no_contradiction() -> None:
    # It used to fail ("never names the month"); the page's June is when the band's songs went
    # online, not when Bromley joined: absent, for the judge.
    result = check_dates("In March 2006, Tom Bromley joined the band.", BROMLEY)
    assert outcome(result) == ABSENT
    # The 1960s were when he was in the group: they contradict no year of it, whatever it dates.
    assert outcome(check_dates("Brian Pendleton was in the group in 1968.", PENDLETON)) == ABSENT
    # His death is dated on the page, and otherwise: a year between his birth and his death is
    # no span the page gives (it once spared "died in 1968" as if "1944 … 2001" were one).
    result = check_dates("Brian Pendleton died in 1968.", PENDLETON)
    assert outcome(result) == CONTRADICTED
    assert result is not None and "'May 25 2001' where the claim says '1968'" in result.detail


# Check-COVID, corpus vxavox24 (Vo, Italy), claim 600e372a6bc088b6d218dbe4_0 (REFUTE)
VO = PageIndex(
    "Notably, 43.2% (95% CI 32.2-54.7%) of the confirmed SARS-CoV-2 infections detected across the "
    "two surveys were asymptomatic.\n"
)
# Check-COVID, corpus o77nnu3f (Long COVID), claim 60adb407f9b9e03ea4d8e697_1 (SUPPORT)
LONG_COVID = PageIndex(
    "45.2% (42.9% to 47.2%) reported requiring a reduced work schedule compared to pre-illness and "
    "22.3% (20.5% to 24.3%) were not working at the time of survey due to their health conditions.\n"
)
# Check-COVID, corpus zozvt5y1 (Skagit choir), claim 609486a6f9b9e03ea4d8e52b_5 (SUPPORT)
CHOIR = PageIndex(
    "Among 61 persons who attended a March 10 choir practice at which one person was known to be "
    "symptomatic, 53 cases were identified, including 33 confirmed and 20 probable cases (secondary "
    "attack rates of 53.3% among confirmed cases and 86.7% among all cases).\n"
)
# Check-COVID, corpus veeavho5 (intervention timing), claim 5f76a244e95347460249fc2d_1 (SUPPORT)
TIMING = PageIndex(
    "Specifically, nationwide, 56.5% [95% Cl: 48.1%−65.9%] of reported infections and 54.0% [95% Cl: "
    "43.6%−63.8%] of reported deaths as of May 3, 2020 could have been avoided if the same control "
    "measures had been implemented just one week earlier.\n"
)


def test_a_figure_the_context_gives_otherwise_is_contradicted() -> None:
    result = check_numbers(
        "Only 12 percent of people with confirmed SARS-CoV-2 infections have no symptoms.", VO
    )
    assert outcome(result) == CONTRADICTED
    assert result is not None and result.detail == "the page gives '43.2%' where the claim says '12 percent'"


def test_supported_claims_whose_figure_is_absent_are_not_contradicted() -> None:
    # These failed the number check before (Check-COVID SUPPORT false failures): the abstract
    # gives other figures of the same unit nearby, for other things or in another sum.
    claim = (
        "In a survey of individuals who had COVID-19 and illness lasting over 28 days (Long COVID), "
        "67 percent of those surveyed were either not working or working reduced hours due to their "
        "health conditions."
    )
    assert outcome(check_numbers(claim, LONG_COVID)) == ABSENT  # 45.2 + 22.3
    claim = (
        "Afterward, 85% of those singers apparently contracted the coronavirus, with 32 confirmed and "
        "20 probable COVID-19 cases."
    )
    # "33 confirmed" would contradict "32 confirmed", but the sentence speaks of persons at a
    # choir practice, not of singers who contracted the coronavirus: too little of the claim
    assert outcome(check_numbers(claim, CHOIR)) == ABSENT
    claim = (
        "If the United States had imposed social-distancing measures one week earlier, 36,000 fewer "
        "people would have died from the coronavirus."
    )
    result = check_numbers(claim, TIMING)
    assert outcome(result) == ABSENT
    assert result is not None and result.detail == "the figure '36,000' does not occur on the page"


def test_a_misquote_of_the_same_person_is_contradicted() -> None:
    # The bundled demo: the interview is with Dr. Ada Example, and she said "wrong".
    page = PageIndex(
        "Interview with Dr. Ada Example, lead author of the 2024 Example Developer Survey\n"
        "A: Because documentation is the front door of a project. We saw it in the numbers: people leave "
        "when the docs are wrong.\n"
    )
    result = check_quotes("Dr. Example also said that “people leave when the docs are long”.", page)
    assert outcome(result) == CONTRADICTED
    assert result is not None
    assert result.detail == (
        "misquote: the page gives the passage as 'people leave when the docs are wrong', "
        "not 'people leave when the docs are long' (and names Example beside it)"
    )
    assert (
        outcome(check_quotes("Dr. Example also said that “people leave when the docs are wrong”.", page))
        == FOUND
    )
    # Someone the page does not name, or no one: absent.
    assert outcome(check_quotes("Dr. Smith said that “people leave when the docs are long”.", page)) == ABSENT
    assert outcome(check_quotes("She said that “people leave when the docs are long”.", page)) == ABSENT
