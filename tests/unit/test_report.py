"""Report assembly: totals and verdict policy, the JSON report read back, merging shards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.errors import ConfigError
from citecheck.models import CheckResult, ClaimResult, DecidedBy, FileError, JudgeResult, Verdict
from citecheck.output.json_format import render_json
from citecheck.output.markdown import claim_line, render_markdown
from citecheck.output.report import merge_reports, read_report, with_errors
from citecheck.policy import DEFAULT_FAIL_ON, claim_categories, exit_code
from tests.unit.report_samples import claim, many_claims, mixed_claims, report_of

# --------------------------------------------------------------------------- totals and policy


def test_totals_follow_the_verdicts() -> None:
    r = report_of(mixed_claims(), judge_model="claude-haiku-4-5")
    assert r.total_claims == 11
    assert r.total_supported == 3
    assert r.total_unsupported == 1
    assert r.total_judged == 4
    assert r.total_unsourced == 1
    assert r.total_not_verified == 6  # unreachable, not extractable, disallowed, 3 not verified
    assert (
        r.total_claims == r.total_supported + r.total_unsupported + r.total_unsourced + r.total_not_verified
    )
    assert r.overall_score == 0.75
    assert r.total_citations_found == 10  # one per sourced claim
    assert r.total_resolved == 9  # "[7]" did not resolve
    assert r.total_cost_usd == pytest.approx(0.003)  # the cached verdict cost nothing this run
    assert r.failing == ["unsupported", "unreachable", "not-extractable", "disallowed", "limit"]
    assert r.passed is False
    assert exit_code(r) == 1
    assert r.judge_model == "claude-haiku-4-5"
    assert r.version


def test_citations_found_can_be_given_by_the_pipeline() -> None:
    r = report_of(mixed_claims(), total_citations_found=25)
    assert r.total_citations_found == 25
    assert r.total_resolved == 9


@pytest.mark.parametrize(
    ("c", "expected"),
    [
        (claim(Verdict.pass_), []),
        (claim(Verdict.fail), ["unsupported"]),
        (claim(Verdict.unreachable), ["unreachable", "not-verified"]),
        (claim(Verdict.not_extractable), ["not-extractable", "not-verified"]),
        (claim(Verdict.disallowed), ["disallowed", "not-verified"]),
        (claim(Verdict.not_verified, limit=True), ["limit", "not-verified"]),
        (claim(Verdict.not_verified, judge=JudgeResult(model="m", limit=True)), ["limit", "not-verified"]),
        (claim(Verdict.not_verified), ["not-verified"]),
        (claim(Verdict.unsourced, url=None), ["unsourced"]),
    ],
)
def test_claim_categories(c: ClaimResult, expected: list[str]) -> None:
    assert claim_categories(c) == expected


def test_nothing_verified_is_never_a_pass() -> None:
    r = report_of([claim(Verdict.not_verified, reason="judge disabled"), claim(Verdict.unsourced, url=None)])
    assert r.passed is None
    assert r.failing == []
    assert r.overall_score is None
    assert exit_code(r) == 0


def test_empty_report_is_not_a_pass() -> None:
    r = report_of([])
    assert r.passed is None
    assert r.overall_score is None
    assert r.total_claims == 0
    assert exit_code(r) == 0


def test_all_supported_passes() -> None:
    r = report_of([claim(Verdict.pass_), claim(Verdict.pass_, line=20)])
    assert r.passed is True
    assert r.overall_score == 1.0
    assert exit_code(r) == 0


def test_unsourced_fails_only_when_named() -> None:
    claims = [claim(Verdict.pass_), claim(Verdict.unsourced, url=None, line=20)]
    assert report_of(claims).passed is True
    strict = report_of(claims, fail_on=[*DEFAULT_FAIL_ON, "unsourced"])
    assert strict.passed is False
    assert strict.failing == ["unsourced"]
    assert exit_code(strict) == 1


def test_not_verified_fails_only_when_named() -> None:
    claims = [claim(Verdict.pass_), claim(Verdict.not_verified, reason="judge disabled", line=20)]
    assert report_of(claims).passed is True
    strict = report_of(claims, fail_on=["not-verified"])
    assert (strict.passed, strict.failing) == (False, ["not-verified"])


def test_unsupported_outside_fail_on_does_not_fail() -> None:
    r = report_of([claim(Verdict.fail, reason="no")], fail_on=["unreachable"])
    assert r.passed is True  # something was judged, and nothing named in fail-on was hit
    assert exit_code(r) == 0


def test_cost_cap_fails_by_default() -> None:
    r = report_of([claim(Verdict.pass_), claim(Verdict.not_verified, reason="cost cap reached", limit=True)])
    assert r.failing == ["limit"]
    assert exit_code(r) == 1


def test_fatal_file_error_blocks_a_pass() -> None:
    claims = [claim(Verdict.pass_)]
    bad = FileError(file="docs/huge.md", message="file is larger than 5 MB")
    warning = FileError(file="docs/latin1.md", message="invalid UTF-8, decoded with replacement", fatal=False)
    assert report_of(claims, errors=[warning]).passed is True
    r = report_of(claims, errors=[bad])
    assert (r.passed, r.failing) == (False, ["unreadable"])
    assert report_of(claims, errors=[bad], fail_on=["unsupported"]).passed is None
    assert exit_code(r) == 1
    assert report_of(claims, errors=[bad], fail_on=["not-verified"]).failing == ["not-verified"]


# --------------------------------------------------------------------------- JSON


def test_json_has_the_contract_fields_and_round_trips(tmp_path: Path) -> None:
    r = report_of(mixed_claims(), judge_model="claude-haiku-4-5")
    data = json.loads(render_json(r))
    for key in (
        "passed",
        "overall_score",
        "total_claims",
        "total_citations_found",
        "total_resolved",
        "total_judged",
        "total_supported",
        "total_unsupported",
        "total_unsourced",
        "total_not_verified",
        "total_cost_usd",
        "claims",
    ):
        assert key in data, key
    first = data["claims"][0]
    for key in ("text", "kinds", "file", "line", "column", "citations", "verdict", "reason", "decided_by"):
        assert key in first, key
    assert first["verdict"] == "pass"
    assert first["citations"][0]["source"]["url"] == "https://example.com/stats"
    path = tmp_path / "r.json"
    path.write_text(render_json(r), encoding="utf-8")
    assert read_report(path) == r


def test_read_report_names_the_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "shard-2.json"
    bad.write_text('{"claims": "nope"}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"shard-2\.json"):
        read_report(bad)
    with pytest.raises(ConfigError, match=r"missing\.json"):
        read_report(tmp_path / "missing.json")


# --------------------------------------------------------------------------- merge


def test_merge_of_shards_equals_the_unsharded_report(tmp_path: Path) -> None:
    claims = many_claims(40) + mixed_claims()
    errors = [FileError(file="docs/x.md", message="unreadable", fatal=False)]
    note = "allowlist empty: any public host"
    whole = report_of(claims, errors=errors, notes=[note], judge_model="claude-haiku-4-5")
    shards = []
    for i in range(3):
        part = claims[i::3]
        shard = report_of(part, errors=errors, notes=[note], judge_model="claude-haiku-4-5")
        path = tmp_path / f"shard-{i}.json"
        path.write_text(render_json(shard), encoding="utf-8")
        shards.append(read_report(path))
    merged = merge_reports(shards, fail_on=list(DEFAULT_FAIL_ON))
    assert merged == whole
    assert merged.notes == [note] and len(merged.errors) == 1
    assert render_markdown(merged) == render_markdown(whole)


def test_merging_a_report_twice_counts_it_once() -> None:
    r = report_of(mixed_claims(), total_citations_found=12)
    assert merge_reports([r, r], fail_on=r.fail_on) == merge_reports([r], fail_on=r.fail_on)
    assert merge_reports([r, r], fail_on=r.fail_on).total_citations_found == 12
    # Overlapping shards: the shared claim counts once, and so do its citations.
    a = report_of(mixed_claims()[:6])
    b = report_of(mixed_claims()[5:])
    merged = merge_reports([a, b], fail_on=a.fail_on)
    assert merged == report_of(mixed_claims())


def test_merge_recomputes_passed_under_new_fail_on() -> None:
    a = report_of([claim(Verdict.pass_)])
    b = report_of([claim(Verdict.unsourced, url=None, line=40)])
    assert merge_reports([a, b], fail_on=list(DEFAULT_FAIL_ON)).passed is True
    strict = merge_reports([a, b], fail_on=["unsourced"])
    assert (strict.passed, strict.failing) == (False, ["unsourced"])


def test_merge_rejects_unknown_fail_on() -> None:
    with pytest.raises(ConfigError, match="typo"):
        merge_reports([report_of([])], fail_on=["typo"])


def test_added_file_errors_recompute_the_verdict() -> None:
    r = report_of([claim(Verdict.pass_)], fail_on=["unsupported", "unreadable"])
    assert r.passed is True
    bad = FileError(file="docs/gone.md", message="file not found")
    r2 = with_errors(r, [bad])
    assert r2.errors == [bad]
    assert (r2.passed, r2.failing) == (False, ["unreadable"])
    assert r2.claims == r.claims


def test_merge_of_nothing_is_empty() -> None:
    m = merge_reports([], fail_on=list(DEFAULT_FAIL_ON))
    assert (m.total_claims, m.passed) == (0, None)


def test_check_results_appear_in_json() -> None:
    c = claim(Verdict.pass_)
    c.checks.append(
        CheckResult(name=DecidedBy.number, passed=True, detail="14,000,000 found", evidence="14 million")
    )
    data = json.loads(render_json(report_of([c])))
    assert data["claims"][0]["checks"][0]["name"] == "number"
    assert "PASS: “14 million”" in claim_line(c)  # no evidence on the claim: the check's page text
