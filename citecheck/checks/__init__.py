"""The checks stage: deterministic checks of a claim against a fetched page, at no cost.

For the claim's kinds (see docs/ARCHITECTURE.md):
- number (statistic, `checks.number`): every figure of the claim is looked up on the page;
- quote (`checks.quote`): each quoted passage, exactly or as a close match;
- date (temporal, `checks.date`): each date of the claim, at its precision;
and for the citation, first: the link's `#:~:text=` passage (`checks.fragment`).

Each result has an outcome (`CheckResult.outcome`): `found`; `contradicted`, when the claim's
context on the page gives another value for the same thing, or quotes the same person
otherwise (`checks.context`): only that fails a claim on its own (`policy.checks_verdict`);
or `absent`, when what was looked for is merely not on the page: the judge is told
(`judge_hints`) and decides. Either carries the page text that bears on it as `evidence`.
The passages that reach the judge are chosen in `checks.passages`.

A check is a `Check`: its name, the claim kinds it applies to, `run`, and whether its pass
may decide a claim alone (with the judge off). `CHECKS` lists them, one line each. On a claim
of other kinds that holds a digit or a quotation mark, a check still watches for a
contradiction (`check_request`): what the page contradicts fails the claim whatever the
extractor read it as; its other outcomes are left out there (no pass, no note to the judge).

What the checks read of a claim is its text without citation markup and attribution
(`attribution.checked_text`): "According to [Gartner](…)," and "([IEA](…))" are where the
fact comes from, not part of it. Two figures or dates are of the same thing only when their
scopes agree (`scope`: periods, rates, totals, seasons, years inside names).

Pages checked where they are extracted: a run's checks may run in the fetch stage's worker
processes, as each page arrives. This stage hands the fetch stage, per page, a picklable
callable (`preparers`: `prepare_page` with the check requests of the claims citing the page)
and gets back the `CheckedPage` it made there. A page prepared nowhere (a cache hit, text
extracted in a thread, a run too small for workers) gets its `CheckedPage` here
(`checked_pages`), its results computed as the claims ask for them (`claim_results`): the
same checks on the same text and date under the same request key (`check_request`), so the
results are the same either way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from citecheck.checks.attribution import checked_text
from citecheck.checks.date import DateCheck
from citecheck.checks.fragment import check_fragment
from citecheck.checks.number import NumberCheck
from citecheck.checks.passages import PageIndex
from citecheck.checks.quote import QuoteCheck
from citecheck.models import (
    CheckOutcome,
    CheckResult,
    Citation,
    Claim,
    ClaimKind,
    DecidedBy,
    FetchedSource,
    FetchOutcome,
)


class Check(Protocol):
    """A deterministic check of a claim against a page."""

    name: DecidedBy  # the name of its results (`CheckResult.name`, a claim's `decided_by`)
    kinds: frozenset[
        ClaimKind
    ]  # its results count for a claim of these kinds; elsewhere only a contradiction
    decides_alone: bool  # its pass may pass the claim with the judge off (a contradiction always fails it)

    def run(self, claim_text: str, page: PageIndex) -> CheckResult | None:
        """Its result for the claim's text (`attribution.checked_text`); None: nothing to check."""
        ...


# The checks, in the order their results are reported.
CHECKS: tuple[Check, ...] = (
    NumberCheck(),
    QuoteCheck(),
    DateCheck(),
)

# The names of the checks whose pass may decide a claim with the judge off.
DECIDE_ALONE = frozenset(check.name for check in CHECKS if check.decides_alone)


# What a process checking a page needs of a claim: its text as the checks read it (without
# citation markup and attribution, `attribution.checked_text`), the names of the checks its kinds
# call for, and of those that only watch for a contradiction (a `Claim` would cost ten times as
# much to send to a worker). A claim's results on a page depend on nothing else: the request is
# what they are kept under.
CheckRequest = tuple[str, tuple[DecidedBy, ...], tuple[DecidedBy, ...]]

# What a check could look for in a claim its kinds do not call it for: a digit or a quotation mark
_WATCHABLE = re.compile(r"[0-9\"“”«»]")


def check_request(claim: Claim) -> CheckRequest | None:
    """What `run_request` needs to check the claim (None: nothing to check).

    The checks its kinds call for run in full. The others watch: a figure, date or quotation
    the extractor did not read as the claim's kind ("a 240-year-old law", a count in a
    sentence it read as a definition) fails the claim when the page contradicts it — a
    contradiction costs nothing to settle, whatever the kinds — and is otherwise left out: no
    pass, no note to the judge."""
    text = checked_text(claim)
    names = tuple(check.name for check in CHECKS if not check.kinds.isdisjoint(claim.kinds))
    watch: tuple[DecidedBy, ...] = ()
    if _WATCHABLE.search(text):
        watch = tuple(check.name for check in CHECKS if check.name not in names)
    return (text, names, watch) if names or watch else None


def run_request(request: CheckRequest, page: PageIndex) -> list[CheckResult]:
    """The results of the requested checks on the page, in `CHECKS` order: every result of the
    checks called for, and the contradictions of those that watch."""
    text, names, watch = request
    results: list[CheckResult] = []
    for check in CHECKS:
        if check.name not in names and check.name not in watch:
            continue
        result = check.run(text, page)
        if result is not None and (check.name in names or result.outcome == CheckOutcome.contradicted):
            results.append(result)
    return results


@dataclass
class CheckedPage:
    """A page (`index`) and the results of the claims' checks on it, by `check_request`."""

    index: PageIndex
    results: dict[CheckRequest, list[CheckResult]] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str, date: str | None = None) -> CheckedPage:
        """A page with nothing checked yet (`date`: the page's own, from its metadata)."""
        return cls(PageIndex(text, date))

    def results_for(self, request: CheckRequest) -> list[CheckResult]:
        """The request's results, run now unless they are here already (each request runs once
        per page, wherever that happened first)."""
        found = self.results.get(request)
        if found is None:
            found = self.results[request] = run_request(request, self.index)
        return list(found)


def prepare_page(requests: tuple[CheckRequest, ...], text: str, date: str | None) -> CheckedPage:
    """The page of `text` with every request run on it: what a `preparers` callable makes of a
    page where it is extracted (module-level, so that it pickles to a worker process)."""
    page = CheckedPage.of(text, date)
    for request in requests:
        page.results_for(request)
    return page


def preparers(citing: Mapping[str, Iterable[Claim]]) -> dict[str, Callable[[str, str | None], CheckedPage]]:
    """For each page (keyed as given) whose citing claims have checks to run, the callable that
    runs them on the page's text and date where it is extracted: the fetch stage's `prepare`.
    Picklable (`prepare_page` with the requests), so a worker process can run it."""
    out: dict[str, Callable[[str, str | None], CheckedPage]] = {}
    for key, claims in citing.items():
        requests = tuple(dict.fromkeys(r for claim in claims if (r := check_request(claim)) is not None))
        if requests:
            out[key] = partial(prepare_page, requests)
    return out


def checked_pages(
    sources: Mapping[str, FetchedSource], prepared: Mapping[str, CheckedPage]
) -> dict[str, CheckedPage]:
    """Every fetched page with text, by URL: the `CheckedPage` made where it was extracted, or
    a new one whose checks run when a claim asks (`claim_results`)."""
    return {
        url: prepared.get(url) or CheckedPage.of(source.text, source.date)
        for url, source in sources.items()
        if source.outcome == FetchOutcome.ok
    }


def run_checks(claim: Claim, page: CheckedPage) -> list[CheckResult]:
    """The checks the claim's kinds call for, on the page; [] when none applies."""
    request = check_request(claim)
    return [] if request is None else page.results_for(request)


def claim_results(claim: Claim, citation: Citation, page: CheckedPage) -> list[CheckResult]:
    """The deterministic checks of `claim` against the page `citation` leads to: the link's own
    text fragment first (a result only when the page lacks it), then the checks the claim's
    kinds call for."""
    if citation.text_fragment and (missing := check_fragment(citation.text_fragment, page.index)):
        return [missing, *run_checks(claim, page)]
    return run_checks(claim, page)


def judge_hints(results: Iterable[CheckResult]) -> list[str]:
    """What the judge is told of a claim's checks on a page: each figure, date, quote or text
    fragment that does not occur on it ("the figure '2018' does not occur on the page")."""
    return [r.detail for r in results if r.outcome == CheckOutcome.absent]
