"""The text-fragment check: the passage a link points at (`#:~:text=`, decoded by `resolve`)
must be on the page; when it is not, the citation fails and nothing else is checked against
that page. It checks the citation, not the claim: `citecheck.checks.claim_results` runs it
before the claim's own checks.
"""

from __future__ import annotations

from citecheck.checks.passages import PageIndex, find_fragment
from citecheck.models import CheckResult, DecidedBy


def check_fragment(fragment: str, page: PageIndex) -> CheckResult | None:
    """A failed check when the link's text fragment is not on the page; None when it is."""
    if find_fragment(fragment, page.text) is not None:
        return None
    return CheckResult(
        name=DecidedBy.quote,
        passed=False,
        detail=f"the text fragment {fragment!r} in the link is not on the page",
    )
