"""What the checks read of a claim: its text without citation markup and attribution (issue 32,
point 1), so that a wrong figure is caught however the writer cites its source, and a right one
passes.

Each claim is written as Markdown and read by the real extractor; its checks run on the page
the sets below give, and the verdict is the policy's with the judge off, as `citecheck check
--judge none` decides. The sentences are real:
- Check-COVID (Wang et al., Findings of ACL 2023, posuer/Check-COVID, MIT): claims
  601d70d96bc088b6d218dbfd_1 (SUPPORT; its REFUTE twin _0 states 100 percent) against the
  abstract of corpus 1wdfyypl (Clark et al., The Lancet Global Health 2020), and the pair of
  corpus ok33bqqg ("The study found that …");
- WiCE dev (Kamoi et al. 2023, ryokamoi/wice; annotations ODC-BY, page text from Common Crawl)
  dev02638, a page sentence of media reports on Oregon's exchange;
- COVID-Fact (Saakyan et al. 2021, asaakyan/covidfact) "…, per CNA." (Taiwan News).
The names in the links are the real ones (the study's journal and authors); a source's own
name is never required on the page.
"""

from __future__ import annotations

import pytest

from citecheck import policy
from citecheck.checks import DECIDE_ALONE, CheckedPage, claim_results
from citecheck.checks.attribution import attributions, checked_text
from citecheck.extract.document import extract_text
from citecheck.models import Claim, DecidedBy, Verdict

URL = "https://www.thelancet.com/journals/langlo/article/PIIS2214-109X(20)30264-3/fulltext"

# Check-COVID corpus 1wdfyypl, sentences 9-11 of the abstract
LANCET = CheckedPage.of(
    "FINDINGS: We estimated that 1·7 billion (UI 1·0–2·4) people, comprising 22% (UI 15–28) of the "
    "global population, have at least one underlying condition that puts them at increased risk of "
    "severe COVID-19 if infected (ranging from <5% of those younger than 20 years to >66% of those "
    "aged 70 years or older).\n"
    "We estimated that 349 million (186–787) people (4% [3–9] of the global population) are at high "
    "risk of severe COVID-19 and would require hospital admission if infected (ranging from <1% of "
    "those younger than 20 years to approximately 20% of those aged 70 years or older).\n"
    "We estimated 6% (3–12) of males to be at high risk compared with 3% (2–7) of females.\n"
)
# claim 601d70d96bc088b6d218dbfd_1, its first word as it reads after an attribution
RIGHT = (
    "roughly 1.7 billion people around the world — 22 percent of the global population — fall into "
    "the category of high-risk of severe COVID-19 because of an underlying condition"
)
WRONG = RIGHT.replace("22 percent", "35 percent")  # one figure changed


def _cap(sentence: str) -> str:
    return sentence[0].upper() + sentence[1:]


# The five ways documentation cites (issue 32), and two more of point 1
STYLES = {
    "bare": lambda s: f"{_cap(s)} ([source]({URL})).",
    "named": lambda s: f"{_cap(s)} ([The Lancet Global Health]({URL})).",
    "according": lambda s: f"According to [The Lancet Global Health]({URL}), {s}.",
    "reports": lambda s: f"[The Lancet Global Health reports]({URL}) that {s}.",
    "says": lambda s: f"{_cap(s)}, [Clark and colleagues say]({URL}).",
    "per": lambda s: f"{_cap(s)}, per [The Lancet Global Health]({URL}).",
    "report found": lambda s: f"[The Lancet Global Health's report found]({URL}) that {s}.",
    "footnote": lambda s: f"{_cap(s)}.[^1]\n\n[^1]: {URL}",
    "reference": lambda s: f"{_cap(s)} [1].\n\n[1]: {URL}",
}


def cited(markdown: str) -> Claim:
    claims = [c for c in extract_text(markdown + "\n", "doc.md").claims if c.citations]
    assert len(claims) == 1, [c.text for c in claims]
    return claims[0]


def judged_off(claim: Claim, page: CheckedPage) -> tuple[Verdict, DecidedBy | None, str]:
    citation = claim.citations[0]
    results = claim_results(claim, citation, page)
    verdict = policy.checks_verdict(claim, URL, results, decide_alone=DECIDE_ALONE, judge_on=False)
    assert verdict is not None
    return verdict.verdict, verdict.decided_by, verdict.reason or ""


@pytest.mark.parametrize("style", list(STYLES))
def test_a_wrong_figure_is_caught_however_the_source_is_cited(style: str) -> None:
    verdict, by, reason = judged_off(cited(STYLES[style](WRONG)), LANCET)
    assert (verdict, by) == (Verdict.fail, DecidedBy.number)
    assert "the page gives '22%' where the claim says '35 percent'" in reason


@pytest.mark.parametrize("style", list(STYLES))
def test_the_right_figure_passes_however_the_source_is_cited(style: str) -> None:
    verdict, by, reason = judged_off(cited(STYLES[style](RIGHT)), LANCET)
    assert (verdict, by) == (Verdict.pass_, DecidedBy.number), reason


@pytest.mark.parametrize(
    ("style", "left"),
    [
        ("named", "Roughly"),
        ("according", "roughly"),
        ("reports", "roughly"),
        ("says", "Roughly"),
        ("per", "Roughly"),
        ("report found", "roughly"),
        ("reference", "Roughly"),
    ],
)
def test_the_source_and_its_attribution_are_not_what_the_checks_read(style: str, left: str) -> None:
    read = checked_text(cited(STYLES[style](RIGHT)))
    assert read.split()[0] == left
    for word in ("Lancet", "Clark", "According", "reports", "found", "per", "source", "1."):
        assert word not in read.split(), (word, read)
    assert "22 percent of the global population" in read


# WiCE dev dev02638: a sentence of its page, as a document would cite it under another name
OREGON = CheckedPage.of(
    "According to media reports, the CEO of Oregon's exchange, which still does not have a "
    "functioning website, makes $181,000 annually.\n"
)


@pytest.mark.parametrize(("amount", "want"), [("$181,000", Verdict.pass_), ("$250,000", Verdict.fail)])
def test_according_to_a_name_the_page_never_gives(amount: str, want: Verdict) -> None:
    claim = cited(
        f"According to The Oregonian, the CEO of Oregon's exchange makes {amount} annually [1].\n\n[1]: {URL}"
    )
    assert judged_off(claim, OREGON)[:2] == (want, DecidedBy.number)


# Check-COVID corpus ok33bqqg, sentences 0-1 of the abstract, and its claims' "The study found that"
NYC = CheckedPage.of(
    "By conducting a retrospective, cross-sectional analysis of SARS-CoV-2 seroprevalence in a "
    "sentinel group (enriched for SARS-CoV-2 infections) and a screening group (representative of the "
    "general population) using >5,000 plasma samples from patients at Mount Sinai Hospital in New York "
    "City (NYC), we identified seropositive samples as early as in the week ending February 23, 2020.\n"
    "A stark increase in seropositivity in the sentinel group started the week ending March 22 and in "
    "the screening group in the week ending March 29.\n"
)


@pytest.mark.parametrize(("day", "want"), [("Feb. 23, 2020", "found"), ("Feb. 9, 2020", "contradicted")])
def test_the_study_found_that_is_attribution_not_content(day: str, want: str) -> None:
    claim = cited(
        "The study found that some New Yorkers had antibodies to the coronavirus as early as the week "
        f"ending {day} ([source]({URL}))."
    )
    assert not checked_text(claim).split()[0].lower().startswith(("the", "study"))
    (result,) = claim_results(claim, claim.citations[0], NYC)
    assert result.outcome.value == want


# --- what attribution is, and what it is not -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "attribution"),
    [
        # COVID-Fact, Taiwan News: "…, per CNA."
        ("the goal is to mass-produce a generic version to fight the epidemic, per CNA.", ", per CNA"),
        # WiCE dev dev02638
        (
            "According to media reports, the CEO of Oregon's exchange makes $181,000 annually.",
            "According to media reports,",
        ),
        # Check-COVID ok33bqqg
        ("The study found that some New Yorkers had antibodies to the coronavirus.", "The study found that"),
        # WiCE dev (The Telegraph, Russia's ageing): "…, says the UN."
        ("Based on current trends, 20% of Russians will be over 65 by 2050, says the UN.", ", says the UN"),
        # Check-COVID (a claim of news): "…, according to the researchers, …"
        (
            "About 9 percent of adults hospitalized from March through May with COVID-19 were health care "
            "workers, according to the researchers.",
            ", according to the researchers",
        ),
    ],
)
def test_an_attribution_is_blanked(text: str, attribution: str) -> None:
    spans = attributions(text, [])
    assert [text[s:e].strip() for s, e in spans] == [attribution.strip()]


@pytest.mark.parametrize(
    "text",
    [
        # the subject of the fact, not its source (WiCE dev: Washington Health Benefit Exchange)
        "Most members said that the salary of the exchange's CEO was too high.",
        # a figure in the attribution is the claim's scope (WiCE dev dev00131, Auckland congestion)
        "A 2017 report found congestion costs Auckland between $900m and $1.9 billion a year.",
        # "per" of a rate, "according to" of a rule
        "Revenues are in the range of $50 to $100 million per year.",
        "Patients were grouped according to their age and sex.",
    ],
)
def test_what_looks_like_attribution_but_is_the_fact_stays(text: str) -> None:
    assert attributions(text, []) == []


def test_a_speaker_the_quote_check_needs_stays() -> None:
    # WiCE dev (The Guardian, Richard J Evans): the attribution names whom the quote is of
    text = (
        'According to Gove, I have demeaned the memory of the British soldiers and "attacked the very '
        'idea of honouring their sacrifice".'
    )
    assert attributions(text, []) == []
    # ... unless it is the link's own: the source's name is never required on the page
    linked = (
        'According to The Guardian, Gove said they "attacked the very idea of honouring their sacrifice".'
    )
    assert [linked[s:e] for s, e in attributions(linked, [(13, 25)])] == ["According to The Guardian,"]
