"""The text-fragment check: the passage a link points at (`#:~:text=`, decoded by `resolve`)
is looked up on the page. It checks the citation, not the claim: `citecheck.checks.claim_results`
runs it before the claim's own checks.

A fragment missing from the page is absent, not a contradiction: the page may have changed
since the link was written, or its text extraction may have left that part out (a table, a
sidebar). The judge is told and decides; with the judge off the claim is not verified.
"""

from __future__ import annotations

from citecheck.checks.passages import PageIndex, find_fragment
from citecheck.models import CheckOutcome, CheckResult, DecidedBy


def check_fragment(fragment: str, page: PageIndex) -> CheckResult | None:
    """An absent check when the link's text fragment is not on the page; None when it is."""
    if find_fragment(fragment, page.text) is not None:
        return None
    return CheckResult(
        name=DecidedBy.quote,
        passed=False,
        outcome=CheckOutcome.absent,
        detail=f"the text fragment {fragment!r} in the link does not occur on the page",
    )
