"""Verdict and exit policy, in one place: how what the stages found becomes one verdict per
claim, which fail-on categories a verdict falls in, whether the run passed, and its exit code.

Per claim (the pipeline calls these in order):
- `triage`, before anything is fetched: a claim with a fact kind and no citation is
  `unsourced`; one whose every citation is marked `citecheck-ignore` is left out; one with no
  resolvable citation is `not_verified` (the resolve errors say why); past `max-claims` a
  claim is `not_verified` with `limit`. The rest are checked.
- per cited source: a failed fetch decides (`fetch_verdict`: `disallowed` / `unreachable` —
  with cause `blocked` when the site refused us — / `not_extractable`, or `not_verified` when
  fetching is off); then the deterministic checks (`checks_verdict`): a check the page
  contradicts fails the claim on its own, at no cost (a figure, date or quote merely absent
  from the page fails nothing: it is a hint for the judge); with the judge off, a figure or
  date absent leaves the claim `not_verified`, and when everything was found a check that may
  decide alone (a number or quote found on the page, see `citecheck.checks`) passes it with
  that page text as evidence and anything else is `not_verified`; otherwise the judge decides
  (`judge_verdict`). A judge that gave no verdict leaves the claim `not_verified`: with cause
  `judge-error` after a refusal, an API error or malformed output; with cause `unsure` when it
  abstained (`judge_doubt`: a confidence below `Settings.min_confidence`, a rationale that
  contradicts its verdict; or an evidence quote that is not on the page or carries no weight,
  see citecheck.judge.quotes); with `limit` when the cost cap stopped the call.
- `pick`: a claim passes when one of its sources supports it; otherwise the most telling
  failure is reported (a source that contradicts the claim, then a fetch failure, then
  "not verified").

Per run (`assess`): every claim falls in the fail-on categories of `claim_categories`; a
fatal file error (a changed file that could not be read, or whose extraction stopped) is
`unreadable`, a category of its own and in the default fail-on: its claims were never checked,
so another file's clean result must not make the run green. `passed` is
False when a category of the run's fail-on list is hit, True only when at least one claim got
a pass/fail verdict, nothing failed and every file was read, and None otherwise — never True
by default. `exit_code`: 1 when a fail-on category was hit, else 0; 2 belongs to errors
(`citecheck.errors`), raised before a report exists.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum

from citecheck.errors import ExitCode
from citecheck.models import (
    Cause,
    CheckOutcome,
    CheckResult,
    Citation,
    CitationKind,
    Claim,
    ClaimResult,
    DecidedBy,
    FetchedSource,
    FetchOutcome,
    FileError,
    JudgeOutcome,
    JudgeResult,
    Report,
    ResolveStatus,
    Verdict,
)

FAIL_ON_CATEGORIES = (
    "unsupported",
    "unreadable",
    "unreachable",
    "blocked",
    "not-extractable",
    "disallowed",
    "limit",
    "judge-error",
    "unsure",
    "no-fact",
    "not-verified",
    "unsourced",
)
# Everything but `not-verified`, `no-fact` and `unsourced`: a required status never goes green on
# a claim that a budget, a site or the judge left unchecked. A `no-fact` claim is one the judge
# read and found nothing in to check (an opinion, a pointer: "This is awesome." beside a link):
# reported, not failed, unless a team asks.
DEFAULT_FAIL_ON = [c for c in FAIL_ON_CATEGORIES if c not in ("not-verified", "no-fact", "unsourced")]
# What a run that cannot judge (a fork PR's, without secrets) does not fail on: the claims
# that needed the judge are reported as not verified instead.
JUDGE_DEPENDENT_CATEGORIES = frozenset({"limit", "judge-error", "unsure", "not-verified"})

JUDGE_OFF_REASON = "needs the LLM judge, which is off (judge: none)"
# How the reason of a claim the judge left undecided begins: "FAIL (not verified): judge
# unsure: …" reads as a doubt, "… judge error: …" as a failure of the judge itself.
JUDGE_UNSURE = "judge unsure"
JUDGE_NO_FACT = "states no fact to check"
JUDGE_ERROR = "judge error"
# A verdict the judge gives with less confidence than this is a doubt, not a decision
# (`Settings.min_confidence`). The prompt asks for "how sure you are, from 0 to 1": below an
# even chance the verdict is the judge's guess, and a guess must neither pass nor fail a claim.
DEFAULT_MIN_CONFIDENCE = 0.5
CLAIM_LIMIT_REASON = "claim limit reached (max-claims)"
UNSOURCED_REASON = "No citation provided"

# Verdicts whose claim's support could not be decided (counted as "not verified").
NOT_VERIFIED_VERDICTS = frozenset(
    {Verdict.not_verified, Verdict.unreachable, Verdict.not_extractable, Verdict.disallowed}
)
# The fail-on category of each verdict (besides `not-verified` and `limit`).
VERDICT_CATEGORY: dict[Verdict, str] = {
    Verdict.fail: "unsupported",
    Verdict.unreachable: "unreachable",
    Verdict.not_extractable: "not-extractable",
    Verdict.disallowed: "disallowed",
    Verdict.not_verified: "not-verified",
    Verdict.unsourced: "unsourced",
}
# Which failure to report when no source supports a claim: lower is more telling.
_FAILURE_RANK = {
    Verdict.fail: 0,
    Verdict.disallowed: 1,
    Verdict.unreachable: 2,
    Verdict.not_extractable: 3,
    Verdict.not_verified: 4,
}
_FETCH_VERDICT = {
    FetchOutcome.disallowed: Verdict.disallowed,
    FetchOutcome.unreachable: Verdict.unreachable,
    # A site that refuses robots is "not reachable" to a reader of the report too; its own
    # fail-on category (`blocked`, through the cause) lets a team fail on dead links only.
    FetchOutcome.blocked: Verdict.unreachable,
    FetchOutcome.not_extractable: Verdict.not_extractable,
    FetchOutcome.skipped: Verdict.not_verified,
}


class Triage(StrEnum):
    check = "check"  # fetch its sources and decide
    ignored = "ignored"  # every citation carries `citecheck-ignore`: the author opted out


def result(claim: Claim, verdict: Verdict, **fields: object) -> ClaimResult:
    """`claim` with its verdict (and `reason`, `decided_by`, … as given)."""
    return ClaimResult(**claim.model_dump(), verdict=verdict, **fields)  # type: ignore[arg-type]


def checkable(citation: Citation) -> bool:
    """A citation the run fetches: resolved, with a URL or a file of the checkout."""
    return citation.resolve_status == ResolveStatus.ok and bool(citation.url or citation.path)


def triage(claim: Claim, *, over_limit: bool) -> ClaimResult | Triage:
    """What happens to a claim before any fetch (`over_limit`: `max-claims` claims are
    already being checked)."""
    if not claim.citations:
        return result(claim, Verdict.unsourced, decided_by=DecidedBy.policy, reason=UNSOURCED_REASON)
    live = [c for c in claim.citations if c.resolve_status != ResolveStatus.skipped]
    if not live:
        return Triage.ignored
    if not any(checkable(c) for c in live):
        # an internal link's error says what it is ("internal link not resolved: set site-root …")
        internal = [
            c.resolve_error or "internal link not resolved" for c in live if c.kind == CitationKind.internal
        ]
        others = [c.resolve_error or "unresolved" for c in live if c.kind != CitationKind.internal]
        reasons = [f"citation not resolved: {'; '.join(others)}"] if others else []
        return result(
            claim,
            Verdict.not_verified,
            decided_by=DecidedBy.policy,
            reason="; ".join([*reasons, *internal]),
        )
    if over_limit:
        return result(
            claim, Verdict.not_verified, decided_by=DecidedBy.policy, reason=CLAIM_LIMIT_REASON, limit=True
        )
    return Triage.check


def fetch_verdict(claim: Claim, url: str, source: FetchedSource) -> ClaimResult | None:
    """The verdict a failed fetch gives (None: the page was fetched and has text)."""
    if source.outcome == FetchOutcome.ok:
        return None
    verdict = _FETCH_VERDICT[source.outcome]
    cause = Cause.blocked if source.outcome == FetchOutcome.blocked else None
    return result(
        claim, verdict, decided_by=DecidedBy.fetch, reason=source.error, source_url=url, cause=cause
    )


def checks_verdict(
    claim: Claim,
    url: str,
    checks: list[CheckResult],
    *,
    decide_alone: Collection[DecidedBy],
    judge_on: bool,
    judge_off_reason: str = "",
) -> ClaimResult | None:
    """The verdict the deterministic checks give on their own (None: the judge decides).

    Only a contradiction decides at no cost: a check whose outcome is `contradicted` (the page
    gives another value for the same thing, or quotes the same person otherwise) fails the
    claim. A figure, date or quote that is merely `absent` from the page fails nothing: the
    judge decides, told what was not found (`citecheck.checks.judge_hints`), and with the
    judge off the claim is `not_verified`, saying what was not found. With the judge off and
    every check `found`, a check that may decide alone (`decide_alone`, i.e.
    `citecheck.checks.DECIDE_ALONE`: a number or quote found on the page) passes the claim
    with that page text as evidence; anything else is `not_verified`."""
    common = {"source_url": url, "checks": checks}
    contradicted = next((c for c in checks if c.outcome == CheckOutcome.contradicted), None)
    if contradicted is not None:
        return result(
            claim,
            Verdict.fail,
            decided_by=contradicted.name,
            reason=contradicted.detail,
            evidence=contradicted.evidence,
            **common,
        )
    if judge_on:
        return None
    off = judge_off_reason or JUDGE_OFF_REASON
    absent = next((c for c in checks if c.outcome == CheckOutcome.absent), None)
    if absent is not None:
        return result(
            claim,
            Verdict.not_verified,
            decided_by=DecidedBy.policy,
            reason=f"{absent.detail}; {off}",
            evidence=absent.evidence,
            **common,
        )
    found = [c for c in checks if c.name in decide_alone]
    if found:
        return result(
            claim,
            Verdict.pass_,
            decided_by=found[0].name,
            reason=found[0].detail,
            evidence=found[0].evidence,
            **common,
        )
    return result(claim, Verdict.not_verified, decided_by=DecidedBy.policy, reason=off, **common)


# A "supported" verdict whose rationale says the opposite: support negated ("does not
# support", "is not supported", "cannot be confirmed", "unsupported", "only partially
# supported") or a contradiction stated ("the page contradicts the claim"). Kept small on
# purpose: each phrase is one a fact-checker writes only about a claim it does not accept.
# Only this direction is read: "supports the year but not the figure" is normal wording for
# a verdict of not supported.
_NEGATED_SUPPORT = re.compile(
    r"(?:\bnot|n't|\bcannot|\bnever)\s+(?:be\s+)?(?:(?!only\b)\w+ly\s+)?(?:support|confirm)(?:s|ed|ing)?\b"
    r"|\bunsupported\b|\b(?:partially|partly)\s+supported\b",
    re.IGNORECASE,
)
_CONTRADICT = re.compile(r"(?<![\w-])contradict\w*", re.IGNORECASE)
# "nothing in the source contradicts it", "there is no contradiction": a negation among the
# few words before "contradict", in the same sentence, turns it round.
_NEGATION = re.compile(r"\b(?:no|not|nothing|never|none|without|cannot)\b|n't\b", re.IGNORECASE)
_NEGATION_REACH_WORDS = 4
_SENTENCE_END = re.compile(r"[.!?;]")


def rationale_contradicts(rationale: str) -> bool:
    """Whether a rationale given with a "supported" verdict says the source does not support
    the claim, or contradicts it (see `_NEGATED_SUPPORT`)."""
    if _NEGATED_SUPPORT.search(rationale):
        return True
    for m in _CONTRADICT.finditer(rationale):
        before = _SENTENCE_END.split(rationale[: m.start()])[-1].split()[-_NEGATION_REACH_WORDS:]
        if not _NEGATION.search(" ".join(before)):
            return True
    return False


def judge_doubt(supported: bool, confidence: float, rationale: str, min_confidence: float) -> str | None:
    """Why the judge's verdict is a doubt rather than a decision (None: it decides).

    The judge abstains rather than guesses: a confidence below `min_confidence`, or a
    "supported" verdict whose rationale says the source does not support or contradicts the
    claim. Evidence rules (the quote must be on the page and carry weight) are applied where
    the page is, in citecheck.judge.quotes.
    """
    leaning = "supported" if supported else "not supported"
    said = f": {rationale.strip()}" if rationale.strip() else ""
    if confidence < min_confidence:
        return f"confidence {confidence:.2f} is below {min_confidence:g} (leaning {leaning}{said})"
    if supported and rationale_contradicts(rationale):
        return f"its rationale contradicts its verdict of supported{said}"
    return None


def states_no_fact(claim: Claim, judged: JudgeResult) -> bool:
    """Whether the judge, not finding the claim supported, read it as stating nothing to check.
    Heeded only for a claim with no cited figure, date, quotation or comparison: no wording in a
    PR can talk the judge out of checking a cited fact (the screen's rule too)."""
    return judged.supported is False and not judged.states_fact and not claim.is_fact


def judge_verdict(claim: Claim, url: str, checks: list[CheckResult], judged: JudgeResult) -> ClaimResult:
    """The verdict of the judge's answer for one source: pass or fail on an accepted verdict,
    else not verified with the cause (`limit`, `unsure`, `judge-error`, `no-fact`) that says why."""
    common = {"source_url": url, "checks": checks, "judge": judged}
    if judged.limit or judged.outcome == JudgeOutcome.limit:
        return result(
            claim,
            Verdict.not_verified,
            decided_by=DecidedBy.policy,
            reason=judged.error or "cost cap reached",
            limit=True,
            **common,
        )
    if judged.outcome == JudgeOutcome.unsure:
        return result(
            claim,
            Verdict.not_verified,
            decided_by=DecidedBy.judge,
            reason=f"{JUDGE_UNSURE}: {judged.error or 'no reason given'}",
            cause=Cause.unsure,
            **common,
        )
    if judged.supported is None or judged.error or judged.outcome == JudgeOutcome.error:
        # Whatever kept the judge from a verdict, the claim was left unchecked by the judge:
        # never a pass, and a fail-on category of its own.
        return result(
            claim,
            Verdict.not_verified,
            decided_by=DecidedBy.judge,
            reason=f"{JUDGE_ERROR}: {judged.error or 'the judge gave no verdict'}",
            cause=Cause.judge_error,
            **common,
        )
    if states_no_fact(claim, judged):
        return result(
            claim,
            Verdict.not_verified,
            decided_by=DecidedBy.judge,
            reason=f"{JUDGE_NO_FACT}: {judged.rationale or 'no reason given'}",
            cause=Cause.no_fact,
            **common,
        )
    verdict = Verdict.pass_ if judged.supported else Verdict.fail
    return result(
        claim,
        verdict,
        decided_by=DecidedBy.judge,
        reason=judged.rationale,
        evidence=judged.evidence,
        **common,
    )


def pick(results: Sequence[ClaimResult]) -> ClaimResult:
    """One verdict from a claim's per-source verdicts."""
    passing = next((r for r in results if r.verdict == Verdict.pass_), None)
    if passing is not None:
        return passing
    return min(results, key=lambda r: _FAILURE_RANK.get(r.verdict, 9))


# --------------------------------------------------------------------------- the run


def claim_categories(claim: ClaimResult) -> list[str]:
    """The fail-on categories a claim falls in, in the canonical order: its verdict's (a
    `blocked` source replaces `unreachable`), its cause's, and `not-verified` for every
    claim whose support could not be decided."""
    hit: set[str] = set()
    category = VERDICT_CATEGORY.get(claim.verdict)
    if claim.cause is Cause.blocked and claim.verdict == Verdict.unreachable:
        category = Cause.blocked.value
    if category is not None and category != "not-verified":
        hit.add(category)
    if claim.verdict in NOT_VERIFIED_VERDICTS:
        hit.add("not-verified")
        if claim.cause in (Cause.judge_error, Cause.unsure, Cause.limit, Cause.no_fact):
            hit.add(claim.cause.value)
    if claim.verdict not in (Verdict.pass_, Verdict.fail) and (
        claim.limit or (claim.judge is not None and claim.judge.limit)
    ):
        hit.add("limit")
    return [c for c in FAIL_ON_CATEGORIES if c in hit]


def assess(
    claims: Iterable[ClaimResult], errors: Iterable[FileError], fail_on: Sequence[str]
) -> tuple[list[str], bool | None]:
    """The fail-on categories the run hit, and `passed`."""
    claims = list(claims)
    fatal = bool(unreadable_files(errors))
    hit: set[str] = {cat for c in claims for cat in claim_categories(c)}
    if fatal:
        # Also `not-verified`, which names every claim left unchecked: a team's strict list
        # from before `unreadable` existed still fails on it.
        hit.update(("unreadable", "not-verified"))
    failing = [c for c in FAIL_ON_CATEGORIES if c in hit and c in fail_on]
    judged = any(c.verdict in (Verdict.pass_, Verdict.fail) for c in claims)
    if failing:
        return failing, False
    if judged and not fatal:
        return failing, True
    return failing, None


def unreadable_files(errors: Iterable[FileError]) -> list[str]:
    """The files a run could not read (a fatal error each), once each, in report order."""
    return list(dict.fromkeys(e.file for e in errors if e.fatal))


def failing_claims(report: Report) -> list[ClaimResult]:
    """Claims in a fail-on category of this report (what fails the check)."""
    fail_on = set(report.fail_on)
    return [c for c in report.claims if fail_on.intersection(claim_categories(c))]


def fail_on_without_judge(fail_on: Sequence[str]) -> list[str]:
    """The fail-on list of a run that degrades to no judge (a fork PR without secrets)."""
    return [c for c in fail_on if c not in JUDGE_DEPENDENT_CATEGORIES]


def exit_code(report: Report) -> ExitCode:
    """FAILED when a fail-on category was hit, else PASSED (passed True, or None: nothing
    verified and nothing failed)."""
    return ExitCode.FAILED if report.failing or report.passed is False else ExitCode.PASSED
