"""The verdict and exit policy, table-driven: every verdict (and cause) × every fail-on category."""

from __future__ import annotations

import pytest

from citecheck.errors import ExitCode
from citecheck.models import (
    Cause,
    CheckOutcome,
    CheckResult,
    Citation,
    CitationKind,
    Claim,
    ClaimKind,
    ClaimResult,
    DecidedBy,
    FetchedSource,
    FetchOutcome,
    FileError,
    JudgeResult,
    Report,
    ResolveStatus,
    SourceInfo,
    Verdict,
)
from citecheck.policy import (
    DEFAULT_FAIL_ON,
    FAIL_ON_CATEGORIES,
    Triage,
    assess,
    checks_verdict,
    claim_categories,
    exit_code,
    fail_on_without_judge,
    fetch_verdict,
    judge_verdict,
    pick,
    triage,
    unreadable_files,
)

CLAIM = Claim(text="42% of people agree.", kinds=[ClaimKind.statistic], file="a.md", line=1, column=1)
URL = "https://example.com/survey"


def claim_result(verdict: Verdict, cause: Cause | None = None, *, limit: bool = False) -> ClaimResult:
    return ClaimResult(**CLAIM.model_dump(), verdict=verdict, cause=cause, limit=limit)


# Every verdict a claim can end with, with each cause it can carry, and the categories it hits.
TABLE: list[tuple[Verdict, Cause | None, bool, list[str]]] = [
    (Verdict.pass_, None, False, []),
    (Verdict.fail, None, False, ["unsupported"]),
    (Verdict.unreachable, None, False, ["unreachable", "not-verified"]),
    (Verdict.unreachable, Cause.blocked, False, ["blocked", "not-verified"]),
    (Verdict.not_extractable, None, False, ["not-extractable", "not-verified"]),
    (Verdict.disallowed, None, False, ["disallowed", "not-verified"]),
    (Verdict.not_verified, None, False, ["not-verified"]),
    (Verdict.not_verified, None, True, ["limit", "not-verified"]),
    (Verdict.not_verified, Cause.limit, False, ["limit", "not-verified"]),
    (Verdict.not_verified, Cause.judge_error, False, ["judge-error", "not-verified"]),
    (Verdict.not_verified, Cause.unsure, False, ["unsure", "not-verified"]),
    (Verdict.not_verified, Cause.no_fact, False, ["no-fact", "not-verified"]),
    (Verdict.unsourced, None, False, ["unsourced"]),
]


def test_the_table_covers_every_verdict_and_cause() -> None:
    assert {v for v, _, _, _ in TABLE} == set(Verdict)
    assert {c for _, c, _, _ in TABLE if c is not None} == set(Cause)
    # `unreadable` is a file's category, not a claim's (test_an_unreadable_file_fails_the_run).
    assert {cat for *_, cats in TABLE for cat in cats} == set(FAIL_ON_CATEGORIES) - {"unreadable"}


@pytest.mark.parametrize(("verdict", "cause", "limit", "categories"), TABLE)
def test_claim_categories(verdict: Verdict, cause: Cause | None, limit: bool, categories: list[str]) -> None:
    assert claim_categories(claim_result(verdict, cause, limit=limit)) == categories


@pytest.mark.parametrize("fail_on", FAIL_ON_CATEGORIES)
@pytest.mark.parametrize(("verdict", "cause", "limit", "categories"), TABLE)
def test_each_verdict_under_each_fail_on_category(
    verdict: Verdict, cause: Cause | None, limit: bool, categories: list[str], fail_on: str
) -> None:
    claim = claim_result(verdict, cause, limit=limit)
    failing, passed = assess([claim], [], [fail_on])
    report = Report(passed=passed, overall_score=None, claims=[claim], fail_on=[fail_on], failing=failing)
    if fail_on in categories:
        assert (failing, passed) == ([fail_on], False)
        assert exit_code(report) == ExitCode.FAILED
    else:
        assert failing == []
        # True only when the claim was decided (pass / fail) and nothing failed.
        assert passed is (True if verdict in (Verdict.pass_, Verdict.fail) else None)
        assert exit_code(report) == ExitCode.PASSED


@pytest.mark.parametrize(("verdict", "cause", "limit", "categories"), TABLE)
def test_the_default_fail_on_fails_everything_left_unchecked(
    verdict: Verdict, cause: Cause | None, limit: bool, categories: list[str]
) -> None:
    _, passed = assess([claim_result(verdict, cause, limit=limit)], [], DEFAULT_FAIL_ON)
    # Only a pass, a plain not-verified (the judge off), a sentence the judge found no fact in and
    # an unsourced claim leave it green.
    green = verdict in (Verdict.pass_, Verdict.unsourced) or categories in (
        ["not-verified"],
        ["no-fact", "not-verified"],
    )
    assert (passed is not False) == green


def test_an_unreadable_file_fails_the_run() -> None:
    """Another file's clean result never makes a run green over a file nobody read."""
    error = FileError(file="b.md", message="cannot read")
    ok = claim_result(Verdict.pass_)
    assert "unreadable" in DEFAULT_FAIL_ON
    assert assess([ok], [error], DEFAULT_FAIL_ON) == (["unreadable"], False)
    assert assess([], [error], DEFAULT_FAIL_ON) == (["unreadable"], False)
    # Left out of fail-on, it still never lets the run pass.
    assert assess([ok], [error], ["unsupported"]) == ([], None)
    assert assess([ok], [error], ["not-verified"]) == (["not-verified"], False)
    assert assess([ok], [error.model_copy(update={"fatal": False})], DEFAULT_FAIL_ON) == ([], True)
    assert unreadable_files(
        [error, error.model_copy(update={"line": 4}), FileError(file="c.md", message="x")]
    ) == [
        "b.md",
        "c.md",
    ]


def test_nothing_verified_is_never_a_pass() -> None:
    assert assess([], [], DEFAULT_FAIL_ON) == ([], None)
    assert assess([claim_result(Verdict.unsourced)], [], DEFAULT_FAIL_ON) == ([], None)


def test_a_fork_run_without_a_judge_does_not_fail_on_what_needs_the_judge() -> None:
    assert fail_on_without_judge(DEFAULT_FAIL_ON) == [
        "unsupported",
        "unreadable",
        "unreachable",
        "blocked",
        "not-extractable",
        "disallowed",
    ]


# ---------------------------------------------------------------- per-claim rules


def cited(*citations: Citation) -> Claim:
    return CLAIM.model_copy(update={"citations": list(citations)})


OK = Citation(raw="[s](u)", kind=CitationKind.link, url=URL)
IGNORED = OK.model_copy(update={"resolve_status": ResolveStatus.skipped})
BROKEN = Citation(
    raw="[9]", kind=CitationKind.numbered, resolve_status=ResolveStatus.error, resolve_error="no [9]"
)


def test_triage() -> None:
    unsourced = triage(CLAIM, over_limit=False)
    assert isinstance(unsourced, ClaimResult) and unsourced.verdict == Verdict.unsourced
    assert triage(cited(IGNORED), over_limit=False) is Triage.ignored
    unresolved = triage(cited(BROKEN), over_limit=False)
    assert isinstance(unresolved, ClaimResult) and unresolved.verdict == Verdict.not_verified
    assert unresolved.reason == "citation not resolved: no [9]"
    limited = triage(cited(OK), over_limit=True)
    assert (
        isinstance(limited, ClaimResult)
        and limited.limit
        and claim_categories(limited)
        == [
            "limit",
            "not-verified",
        ]
    )
    assert triage(cited(OK, BROKEN), over_limit=False) is Triage.check


@pytest.mark.parametrize(
    ("outcome", "verdict"),
    [
        (FetchOutcome.unreachable, Verdict.unreachable),
        (FetchOutcome.blocked, Verdict.unreachable),
        (FetchOutcome.not_extractable, Verdict.not_extractable),
        (FetchOutcome.disallowed, Verdict.disallowed),
        (FetchOutcome.skipped, Verdict.not_verified),
    ],
)
def test_a_failed_fetch_decides(outcome: FetchOutcome, verdict: Verdict) -> None:
    source = FetchedSource(info=SourceInfo(url=URL), outcome=outcome, error="why")
    decided = fetch_verdict(CLAIM, URL, source)
    assert decided is not None and decided.verdict == verdict and decided.decided_by == DecidedBy.fetch
    assert fetch_verdict(CLAIM, URL, FetchedSource(info=SourceInfo(url=URL), outcome=FetchOutcome.ok)) is None


def test_a_blocked_source_falls_in_blocked_not_unreachable() -> None:
    outcome_cause = {FetchOutcome.blocked: Cause.blocked, FetchOutcome.unreachable: None}
    for outcome, cause in outcome_cause.items():
        source = FetchedSource(
            info=SourceInfo(url=URL), outcome=outcome, error="blocked by the site (HTTP 403)"
        )
        decided = fetch_verdict(CLAIM, URL, source)
        assert decided is not None and decided.verdict == Verdict.unreachable and decided.cause == cause
        assert decided.reason == "blocked by the site (HTTP 403)"
        expected = "blocked" if cause else "unreachable"
        assert claim_categories(decided) == [expected, "not-verified"]
    assert "blocked" in DEFAULT_FAIL_ON


FOUND = CheckResult(name=DecidedBy.number, passed=True, detail="found 42%", evidence="42% agree")
CONTRADICTED = CheckResult(
    name=DecidedBy.number,
    passed=False,
    outcome=CheckOutcome.contradicted,
    detail="the page gives '24%' where the claim says '42%'",
    evidence="24% agree",
)
ABSENT = CheckResult(
    name=DecidedBy.date,
    passed=False,
    outcome=CheckOutcome.absent,
    detail="the date '2018' does not occur on the page",
    evidence="Retrieved January 15, 2022",
)
ALONE = frozenset({DecidedBy.number, DecidedBy.quote})  # as checks.DECIDE_ALONE
DATE_FOUND = CheckResult(name=DecidedBy.date, passed=True, detail="2020 found")


def test_checks_decide_a_contradiction_alone_and_a_pass_only_with_the_judge_off() -> None:
    failed = checks_verdict(CLAIM, URL, [FOUND, CONTRADICTED], judge_on=True, decide_alone=ALONE)
    assert failed is not None and failed.verdict == Verdict.fail and failed.decided_by == DecidedBy.number
    assert failed.reason == CONTRADICTED.detail and failed.evidence == "24% agree"
    # ... with the judge off too, and before an absent figure
    off = checks_verdict(CLAIM, URL, [ABSENT, CONTRADICTED], judge_on=False, decide_alone=ALONE)
    assert off is not None and off.verdict == Verdict.fail
    assert checks_verdict(CLAIM, URL, [FOUND], judge_on=True, decide_alone=ALONE) is None
    passed = checks_verdict(CLAIM, URL, [FOUND], judge_on=False, decide_alone=ALONE)
    assert passed is not None and passed.verdict == Verdict.pass_ and passed.evidence == "42% agree"
    # A date found on the page is not enough to pass a claim without the judge.
    off = checks_verdict(
        CLAIM, URL, [DATE_FOUND], judge_on=False, decide_alone=ALONE, judge_off_reason="no key"
    )
    assert off is not None and off.verdict == Verdict.not_verified and off.reason == "no key"


def test_an_absent_figure_is_never_a_failure() -> None:
    # Before outcomes, a figure missing from the page failed its claim at no cost: 2–3 % of
    # supported WiCE claims and 15 of 83 Check-COVID ones failed so. Now the judge decides ...
    assert checks_verdict(CLAIM, URL, [FOUND, ABSENT], judge_on=True, decide_alone=ALONE) is None
    # ... and with the judge off the claim is not verified, saying what was not found, even
    # when another check found its figure.
    off = checks_verdict(
        CLAIM, URL, [FOUND, ABSENT], judge_on=False, decide_alone=ALONE, judge_off_reason="no key"
    )
    assert off is not None and off.verdict == Verdict.not_verified
    assert off.reason == "the date '2018' does not occur on the page; no key"
    assert off.decided_by == DecidedBy.policy and off.evidence == "Retrieved January 15, 2022"
    assert claim_categories(off) == ["not-verified"]  # not in the default fail-on
    assert "not-verified" not in DEFAULT_FAIL_ON


def test_a_check_result_without_an_outcome_reads_as_before() -> None:
    # Reports written before `outcome` existed: a failed check had failed its claim.
    assert CheckResult(name=DecidedBy.number, passed=False, detail="x").outcome == CheckOutcome.contradicted
    assert CheckResult(name=DecidedBy.number, passed=True, detail="x").outcome == CheckOutcome.found
    with pytest.raises(ValueError, match="disagrees"):
        CheckResult(name=DecidedBy.number, passed=True, detail="x", outcome=CheckOutcome.absent)


def test_judge_verdicts() -> None:
    yes = judge_verdict(CLAIM, URL, [], JudgeResult(model="m", supported=True, evidence="e"))
    no = judge_verdict(CLAIM, URL, [], JudgeResult(model="m", supported=False, rationale="says 40%"))
    capped = judge_verdict(CLAIM, URL, [], JudgeResult(model="m", limit=True, error="cost cap reached"))
    assert (yes.verdict, no.verdict, no.reason) == (Verdict.pass_, Verdict.fail, "says 40%")
    assert capped.verdict == Verdict.not_verified and "limit" in claim_categories(capped)


def test_pick_prefers_a_pass_then_the_most_telling_failure() -> None:
    verdicts = [claim_result(v) for v in (Verdict.not_verified, Verdict.unreachable, Verdict.fail)]
    assert pick(verdicts).verdict == Verdict.fail
    assert pick([*verdicts, claim_result(Verdict.pass_)]).verdict == Verdict.pass_
    assert pick(verdicts[:2]).verdict == Verdict.unreachable
