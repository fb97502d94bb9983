"""The verdict rules for the judge's answer (citecheck.policy): a doubt is not a decision, and a
judge that gave no verdict never leaves the run green."""

from __future__ import annotations

import pytest

from citecheck.config import Settings, narrow
from citecheck.errors import ConfigError
from citecheck.models import Cause, Claim, ClaimKind, DecidedBy, JudgeOutcome, JudgeResult, Verdict
from citecheck.policy import (
    DEFAULT_FAIL_ON,
    DEFAULT_MIN_CONFIDENCE,
    JUDGE_DEPENDENT_CATEGORIES,
    assess,
    claim_categories,
    judge_doubt,
    judge_verdict,
    rationale_contradicts,
)

CLAIM = Claim(text="The tower is 330 m tall.", kinds=[ClaimKind.hyperlinked], file="a.md", line=3, column=1)
URL = "https://example.org/tower"


def decide(judged: JudgeResult):
    return judge_verdict(CLAIM, URL, [], judged)


# -- judge_doubt ----------------------------------------------------------------------------------


def test_the_default_threshold_is_an_even_chance_and_a_setting() -> None:
    assert DEFAULT_MIN_CONFIDENCE == 0.5 == Settings().min_confidence


@pytest.mark.parametrize("supported", [True, False])
def test_low_confidence_is_a_doubt_whichever_way_the_judge_leans(supported: bool) -> None:
    doubt = judge_doubt(supported, 0.3, "The page is vague.", 0.5)
    leaning = "supported" if supported else "not supported"
    assert doubt == f"confidence 0.30 is below 0.5 (leaning {leaning}: The page is vague.)"
    assert judge_doubt(supported, 0.5, "The page states it.", 0.5) is None  # at the threshold: decided
    assert judge_doubt(supported, 0.7, "The page states it.", 0.8) is not None  # a stricter setting


@pytest.mark.parametrize(
    "rationale",
    [
        "The source does not support the claim.",
        "The claim is not supported by the page.",
        "The source doesn't directly support the figure.",
        "The height cannot be confirmed from the source.",
        "The page never confirms the height.",
        "Not supporting the height, the page gives only the year.",
        "Unsupported: the page gives no height.",
        "The claim is only partially supported.",
        "The page contradicts the claim: it says 300 metres.",
        "The figure is contradicted by the second paragraph.",
        "It states the year; it does not mention the height, and the page contradicts it.",
    ],
)
def test_a_supported_verdict_whose_rationale_says_otherwise_is_a_doubt(rationale: str) -> None:
    assert rationale_contradicts(rationale)
    doubt = judge_doubt(True, 0.95, rationale, 0.5)
    assert doubt is not None and doubt.startswith("its rationale contradicts its verdict of supported")


@pytest.mark.parametrize(
    "rationale",
    [
        "The source states it.",
        "The page gives the height as 330 metres, which supports the claim.",
        "Nothing in the source contradicts the claim; it states the height.",
        "There is no contradiction: the page says 330 metres.",
        "The page does not contradict it and gives the figure.",
        "It is not only supported but stated twice.",
        "",
    ],
)
def test_an_agreeing_rationale_is_no_doubt(rationale: str) -> None:
    assert not rationale_contradicts(rationale)
    assert judge_doubt(True, 0.95, rationale, 0.5) is None


def test_a_not_supported_verdict_may_say_what_the_page_does_support() -> None:
    # "supports the year but not the height" is how an unsupported verdict is explained.
    assert judge_doubt(False, 0.9, "The page does not support the height; it supports the year.", 0.5) is None


# -- judge_verdict: outcome → verdict and cause ------------------------------------------------------


def test_an_accepted_verdict_passes_or_fails() -> None:
    ok = decide(JudgeResult(model="m", supported=True, evidence="q", outcome=JudgeOutcome.verdict))
    assert (ok.verdict, ok.cause, ok.evidence, ok.decided_by) == (Verdict.pass_, None, "q", DecidedBy.judge)
    no = decide(JudgeResult(model="m", supported=False, rationale="says 300", outcome=JudgeOutcome.verdict))
    assert (no.verdict, no.cause, no.reason) == (Verdict.fail, None, "says 300")


def test_a_claim_the_judge_finds_no_fact_in_is_reported_not_failed() -> None:
    # "This is awesome." beside a link (rbind/simplystats's link roundups, held-out 16)
    opinion = Claim(text="This is awesome.", kinds=[ClaimKind.hyperlinked], file="a.md", line=4, column=1)
    judged = JudgeResult(
        model="m", supported=False, rationale="an appraisal", states_fact=False, outcome=JudgeOutcome.verdict
    )
    r = judge_verdict(opinion, URL, [], judged)
    assert (r.verdict, r.cause, r.decided_by) == (Verdict.not_verified, Cause.no_fact, DecidedBy.judge)
    assert r.reason == "states no fact to check: an appraisal"
    assert claim_categories(r) == ["no-fact", "not-verified"]
    assert "no-fact" not in DEFAULT_FAIL_ON and assess([r], [], DEFAULT_FAIL_ON) == ([], None)
    assert assess([r], [], ["no-fact"]) == (["no-fact"], False)
    # a cited figure is judged on its support, whatever the judge says of it
    fact = CLAIM.model_copy(update={"kinds": [ClaimKind.statistic, ClaimKind.hyperlinked]})
    assert judge_verdict(fact, URL, [], judged).verdict == Verdict.fail
    # and a sentence that states a fact fails as before
    assert (
        judge_verdict(opinion, URL, [], judged.model_copy(update={"states_fact": True})).verdict
        == Verdict.fail
    )
    # a supported verdict passes whatever it says
    passed = judge_verdict(opinion, URL, [], judged.model_copy(update={"supported": True, "evidence": "q"}))
    assert passed.verdict == Verdict.pass_


def test_a_doubt_is_not_verified_judge_unsure() -> None:
    r = decide(JudgeResult(model="m", error="confidence 0.20 is below 0.5", outcome=JudgeOutcome.unsure))
    assert (r.verdict, r.cause, r.decided_by) == (Verdict.not_verified, Cause.unsure, DecidedBy.judge)
    assert r.reason == "judge unsure: confidence 0.20 is below 0.5"
    assert claim_categories(r) == ["unsure", "not-verified"]


@pytest.mark.parametrize(
    "judged",
    [
        JudgeResult(model="m", error="the judge refused to answer", outcome=JudgeOutcome.error),
        JudgeResult(model="m", error="HTTP 500 [judge-server-error]", outcome=JudgeOutcome.error),
        # A result without an outcome (a report from before the field): no verdict is an error.
        JudgeResult(model="m", error="the judge returned malformed output"),
        JudgeResult(model="m"),
    ],
)
def test_no_verdict_is_not_verified_judge_error(judged: JudgeResult) -> None:
    r = decide(judged)
    assert (r.verdict, r.cause) == (Verdict.not_verified, Cause.judge_error)
    assert r.reason is not None and r.reason.startswith("judge error: ")
    assert claim_categories(r) == ["judge-error", "not-verified"]


def test_the_cost_cap_is_a_limit_not_a_judge_error() -> None:
    r = decide(JudgeResult(model="m", limit=True, error="cost cap reached", outcome=JudgeOutcome.limit))
    assert (r.verdict, r.cause, r.limit, r.decided_by) == (Verdict.not_verified, None, True, DecidedBy.policy)
    assert claim_categories(r) == ["limit", "not-verified"]


# -- the run: never green on a claim the judge left unchecked ----------------------------------------


@pytest.mark.parametrize(("outcome", "category"), [("error", "judge-error"), ("unsure", "unsure")])
def test_judge_errors_and_doubts_fail_by_default_and_only_when_named(outcome: str, category: str) -> None:
    passed = decide(JudgeResult(model="m", supported=True, evidence="q", outcome=JudgeOutcome.verdict))
    left = decide(JudgeResult(model="m", error="why", outcome=JudgeOutcome(outcome)))
    assert category in DEFAULT_FAIL_ON and category in JUDGE_DEPENDENT_CATEGORIES
    assert assess([passed, left], [], DEFAULT_FAIL_ON) == ([category], False)
    without = [c for c in DEFAULT_FAIL_ON if c != category]
    assert assess([passed, left], [], without) == ([], True)
    # Errors and doubts are distinct: dropping one keeps failing on the other.
    other = "unsure" if category == "judge-error" else "judge-error"
    assert assess([passed, left], [], [other]) == ([], True)


# -- the setting ----------------------------------------------------------------------------------------


def test_min_confidence_is_validated() -> None:
    with pytest.raises(ValueError):
        Settings(min_confidence=1.5)


def test_a_config_file_may_raise_the_threshold_but_not_lower_it() -> None:
    base = Settings(min_confidence=0.6)
    assert narrow(base, {"min-confidence": 0.8}, ".citecheck.toml").min_confidence == 0.8
    assert narrow(base, {"min_confidence": 0.2}, ".citecheck.toml").min_confidence == 0.6
    with pytest.raises(ConfigError, match="min_confidence must be a number"):
        narrow(base, {"min_confidence": "high"}, ".citecheck.toml")
