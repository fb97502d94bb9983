"""SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import json

import pytest

from citecheck.models import Cause, Verdict
from citecheck.output.sarif import render_sarif
from citecheck.policy import DEFAULT_FAIL_ON, FAIL_ON_CATEGORIES
from tests.unit.report_samples import claim, mixed_claims, report_of

# --------------------------------------------------------------------------- SARIF


def test_sarif_shape() -> None:
    r = report_of(mixed_claims())
    sarif = json.loads(render_sarif(r))
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "citecheck"
    rule_ids = [rule["id"] for rule in driver["rules"]]
    # One rule per fail-on category, in their canonical order.
    assert rule_ids == list(FAIL_ON_CATEGORIES)
    assert all(rule["help"]["text"] and rule["shortDescription"]["text"] for rule in driver["rules"])
    results = run["results"]
    assert len(results) == 8  # every claim but the three passes
    for res in results:
        assert res["ruleId"] in rule_ids
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "docs/guide.md"
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] == 3
        assert res["message"]["text"]
    by_line = {res["locations"][0]["physicalLocation"]["region"]["startLine"]: res for res in results}
    assert by_line[20]["ruleId"] == "unsupported" and by_line[20]["level"] == "error"
    # cost cap: under its own rule, and `limit` is in the default fail-on
    assert by_line[33]["ruleId"] == "limit" and by_line[33]["level"] == "error"
    assert by_line[34]["ruleId"] == "not-verified"
    assert by_line[34]["level"] == "warning"  # judge disabled: not-verified is not in fail-on
    assert by_line[40]["ruleId"] == "unsourced" and by_line[40]["level"] == "warning"
    fingerprints = [res["partialFingerprints"]["citecheckClaim/v1"] for res in results]
    assert len(set(fingerprints)) == len(fingerprints)


def test_sarif_fingerprint_survives_a_moved_line() -> None:
    a = json.loads(render_sarif(report_of([claim(Verdict.fail, line=10)])))
    b = json.loads(render_sarif(report_of([claim(Verdict.fail, line=50)])))
    fa = a["runs"][0]["results"][0]["partialFingerprints"]
    fb = b["runs"][0]["results"][0]["partialFingerprints"]
    assert fa == fb


def test_sarif_of_a_clean_run_has_no_results() -> None:
    sarif = json.loads(render_sarif(report_of([claim(Verdict.pass_)])))
    assert sarif["runs"][0]["results"] == []


@pytest.mark.parametrize(
    ("verdict", "cause", "rule"),
    [
        (Verdict.not_verified, Cause.judge_error, "judge-error"),
        (Verdict.not_verified, Cause.unsure, "unsure"),
        (Verdict.unreachable, Cause.blocked, "blocked"),
        (Verdict.unreachable, None, "unreachable"),
    ],
)
def test_sarif_result_takes_the_rule_of_its_cause(verdict: Verdict, cause: Cause | None, rule: str) -> None:
    sarif = json.loads(render_sarif(report_of([claim(verdict, reason="why", cause=cause)])))
    run = sarif["runs"][0]
    [result] = run["results"]
    assert result["ruleId"] == rule
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == rule
    assert rule in result["properties"]["categories"]
    assert result["level"] == "error"  # every one of these is in the default fail-on
    assert rule in DEFAULT_FAIL_ON


def test_sarif_rule_level_follows_the_run_fail_on() -> None:
    report = report_of([claim(Verdict.not_verified, cause=Cause.unsure)], ["unsupported"])
    sarif = json.loads(render_sarif(report))
    run = sarif["runs"][0]
    levels = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in run["tool"]["driver"]["rules"]}
    assert levels["unsure"] == levels["judge-error"] == "warning" and levels["unsupported"] == "error"
    assert run["results"][0]["level"] == "warning"
