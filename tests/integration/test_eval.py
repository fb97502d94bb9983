"""`citecheck eval` against the stand-ins: the real SDKs reach the LLM protocol servers, `url` rows
are fetched from the source server through the guarded fetcher."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from citecheck.config import Settings
from citecheck.errors import ConfigError
from citecheck.evaluate import EvalReport, failure_error, render_json, render_markdown, run_eval, with_gate
from citecheck.judge.pricing import PRICES, cost_usd
from citecheck.output.common import escape_markdown
from tests.servers.llm_server import (
    LLMServer,
    RecordedRequest,
    Reply,
    error_reply,
    parse_prompt,
    verdict,
    verdicts_reply,
)
from tests.servers.source_server import SourceServer

ENV = {"ANTHROPIC_API_KEY": "sk-ant-test", "OPENAI_API_KEY": "sk-test"}
HAIKU, SONNET = "claude-haiku-4-5", "claude-sonnet-4-6"
TOKENS_IN, TOKENS_OUT = 1000, 100

# The claims of the team file below, by what they test.
BACKUPS = "The service keeps nightly backups for thirty days."
LINKS = "The checker reads every link in the documentation."
CONTRIBUTORS = "The project has 4,000 contributors on GitHub."
ARCHIVE = "The archive lists every release since the first one."
CACHE = "The cache holds pages for a week and verdicts forever."
FORMATS = "Reports are written in Markdown and in JSON."
CAP = "The judge runs under a cost cap for every run."
SHARDS = "Shards are merged into one report by the merge command."

PAGE = (
    "<html><head><title>Checker</title></head><body><article><h1>How the checker works</h1>"
    "<p>The checker reads every link in the documentation, once per run, and fetches each page "
    "through a guarded client.</p><p>Pages that cannot be read are reported as such.</p>"
    "</article></body></html>"
)


def team_rows(page_url: str, missing_url: str) -> list[object]:
    """A team's labelled file: text and url rows, labels in WiCE's and Check-COVID's words, two
    rows that cannot be used (lines 4 and 5)."""
    return [
        {"claim": BACKUPS, "text": f"About backups.\n{BACKUPS}\nRestores take an hour.", "label": "supported",
         "kind": "ops"},
        {"claim": LINKS, "url": page_url, "label": "SUPPORT"},
        {"claim": CONTRIBUTORS, "text": "Community.\nThe project has 3,000 contributors on GitHub.",
         "label": "REFUTE"},
        "{not json",
        {"claim": "Something happened.", "text": "Nothing did.", "label": "maybe"},
        {"claim": ARCHIVE, "url": missing_url, "label": "supported"},
        {"claim": CACHE, "evidence": ["Caching.", "The cache holds pages for a week."],
         "label": "partially_supported", "kind": ["ops", "cache"]},
        {"claim": FORMATS, "text": f"Output.\n{FORMATS}", "label": "Supported"},
        {"claim": CAP, "text": f"Costs.\n{CAP}", "label": "supported"},
        {"claim": SHARDS, "text": "Sharding.\nShards are merged into one report.", "label": "NOTENOUGHINFO"},
    ]  # fmt: skip


def write_rows(path: Path, rows: list[object]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8"
    )
    return path


def _words(text: str) -> set[str]:
    return {w.removesuffix("s") for w in re.findall(r"[a-z0-9]{3,}", text.lower())}


def best_line(source: str, claim: str) -> str:
    """The source line sharing the most words with the claim: a quote that carries weight."""
    words = _words(claim)
    return max(source.strip().splitlines(), key=lambda line: len(words & _words(line)))


# What each model says of a claim: yes (supported), no, unsure (confidence 0.3), error (HTTP 400).
# A claim a model's plan does not name is supported.
PLANS = {
    HAIKU: {CACHE: "no", FORMATS: "unsure", CAP: "error", SHARDS: "no", CONTRIBUTORS: "yes"},
    SONNET: {BACKUPS: "no", CACHE: "yes", SHARDS: "no"},
}


def scripted(plans: dict[str, dict[str, str]]) -> Callable[[RecordedRequest], Reply]:
    def respond(req: RecordedRequest) -> Reply:
        plan = plans.get(req.body["model"], {})
        source, claims = parse_prompt(req.user_text)
        verdicts = []
        for i, text in claims.items():
            says = plan.get(text, "yes")
            if says == "error":
                return error_reply(req.protocol, 400, "bad request")
            confidence = 0.3 if says == "unsure" else 0.9
            verdicts.append(verdict(i, says != "no", best_line(source, text), confidence=confidence))
        return verdicts_reply(req.protocol, verdicts, input_tokens=TOKENS_IN, output_tokens=TOKENS_OUT)

    return respond


@pytest.fixture
def llm() -> Iterator[LLMServer]:
    with LLMServer("anthropic", scripted(PLANS)) as server:
        yield server


@pytest.fixture
def team_file(tmp_path: Path, source_server: SourceServer) -> Path:
    page = source_server.add("/checker.html", PAGE, "text/html; charset=utf-8")
    return write_rows(tmp_path / "team.jsonl", team_rows(page, source_server.url("/gone.html")))


def settings_for(server: LLMServer, source: SourceServer | None = None, **kw: object) -> Settings:
    hosts = [source.host] if source else []
    return Settings(judge=server.protocol, base_url=server.base_url, allow_private_hosts=hosts, **kw)  # type: ignore[arg-type]


def outcome(report: EvalReport, claim: str, model: str) -> tuple[str, str | None, str | None]:
    [row] = [r for r in report.rows if r.claim == claim]
    o = row.outcomes[model]
    return o.verdict, o.cause, o.decided_by


def calls_for(server: LLMServer, model: str) -> list[RecordedRequest]:
    return [r for r in server.calls if r.body["model"] == model]


def test_team_file_two_models_side_by_side(
    llm: LLMServer, source_server: SourceServer, team_file: Path
) -> None:
    report = run_eval(settings_for(llm, source_server), ENV, data=[team_file], models=[HAIKU, SONNET])
    assert [c.model for c in report.models] == [HAIKU, SONNET] and report.decision == "full"

    # The bad rows are reported with file:line, and the run went on without them.
    assert [(e.file, e.line) for e in report.errors] == [(str(team_file), 4), (str(team_file), 5)]
    assert "not JSON" in report.errors[0].message and "`label`" in report.errors[1].message
    assert len(report.rows) == 8

    # The number check fails the contradicted figure with no judge call, for both models alike;
    # the page that is gone abstains; the url row is judged on the fetched page.
    for model in (HAIKU, SONNET):
        assert outcome(report, CONTRIBUTORS, model) == ("fail", None, "number")
        assert outcome(report, ARCHIVE, model)[:2] == ("abstained", "source")
        assert outcome(report, LINKS, model) == ("pass", None, "judge")
    assert source_server.hits("/checker.html") == 1  # fetched once for both models
    assert outcome(report, FORMATS, HAIKU)[:2] == ("abstained", "unsure")
    assert outcome(report, CAP, HAIKU)[:2] == ("abstained", "judge-error")
    assert outcome(report, BACKUPS, SONNET) == ("fail", None, "judge")

    haiku, sonnet = (c.overall for c in report.models)
    # haiku: supported BACKUPS, LINKS pass; ARCHIVE, FORMATS, CAP abstain. Unsupported all caught.
    assert (haiku.supported, haiku.passed_supported, haiku.false_failures) == (5, 2, 0)
    assert (haiku.not_supported, haiku.caught, haiku.caught_by_check, haiku.missed) == (3, 3, 1, 0)
    assert haiku.abstained == {"unsure": 1, "no-fact": 0, "judge-error": 1, "cost-cap": 0, "source": 1}
    assert haiku.false_failure_rate == 0 and haiku.catch_rate == 1
    assert haiku.balanced_accuracy == pytest.approx((2 / 5 + 3 / 3) / 2)
    assert haiku.abstention_rate == pytest.approx(3 / 8)
    # sonnet: fails BACKUPS (a false failure), passes CACHE (a miss).
    assert (sonnet.passed_supported, sonnet.false_failures, sonnet.false_failures_by_check) == (3, 1, 0)
    assert (sonnet.caught, sonnet.missed) == (2, 1)
    assert sonnet.false_failure_rate == pytest.approx(1 / 5) and sonnet.catch_rate == pytest.approx(2 / 3)
    assert sonnet.balanced_accuracy == pytest.approx((3 / 5 + 2 / 3) / 2)
    assert sonnet.abstained == {"unsure": 0, "no-fact": 0, "judge-error": 0, "cost-cap": 0, "source": 1}

    # One call per judged row and model (the checked and the unfetchable rows make none); the
    # cost is the stand-in's usage at each model's list price.
    for column in report.models:
        calls = calls_for(llm, column.model)
        assert column.calls_made == len(calls) == 6
        ok = column.calls_made - column.calls_failed
        unit = cost_usd(PRICES[column.model], TOKENS_IN, TOKENS_OUT)
        assert column.overall.cost_usd == pytest.approx(ok * unit)
        assert column.overall.cost_per_claim_usd == pytest.approx(ok * unit / 8)
        assert column.overall.judge_calls == 6 and column.overall.latency_median_ms is not None
    assert report.models[0].calls_failed == 1 and report.models[1].calls_failed == 0
    assert report.models[1].overall.cost_usd > report.models[0].overall.cost_usd  # sonnet costs more

    # Per kind: the row's own `kind`, else the kinds citecheck detects in the claim.
    ops_h, ops_s = (c.by_kind["ops"] for c in report.models)
    assert (ops_h.supported, ops_h.not_supported, ops_h.false_failures, ops_h.caught) == (1, 1, 0, 1)
    assert (ops_s.false_failures, ops_s.caught, ops_s.missed) == (1, 0, 1)
    assert report.models[0].by_kind["cache"].claims == 1
    assert report.models[0].by_kind["statistic"].caught_by_check == 1  # CONTRIBUTORS
    assert "hyperlinked" in report.models[0].by_kind  # LINKS: no fact kind
    # Per gold label as first written ("Supported" joins "supported"), supported ones first.
    assert list(report.models[0].by_label) == [
        "supported", "SUPPORT", "NOTENOUGHINFO", "REFUTE", "partially_supported"
    ]  # fmt: skip
    assert report.models[0].by_label["supported"].claims == 4

    md = render_markdown(report)
    assert f"## citecheck eval: {HAIKU} vs {SONNET}" in md
    assert f"| | {HAIKU} | {SONNET} |" in md
    assert "| false failures: supported claims failed | 0.0 % (0/5) | 20.0 % (1/5) |" in md
    assert "| catch rate: unsupported claims failed | 100.0 % (3/3) | 66.7 % (2/3) |" in md
    assert "| balanced accuracy | 0.700 | 0.633 |" in md
    assert "| abstained: neither pass nor fail | 37.5 % (3/8): unsure 1, judge error 1, source 1 |" in md
    assert "| kind | model | claims (supported / not) |" in md
    assert f"| ops | {HAIKU} | 1 / 1 | 0.0 % (0/1) | 100.0 % (1/1) | 1.000 |" in md
    assert f"|  | {SONNET} | 1 / 1 | 100.0 % (1/1) | 0.0 % (0/1) | 0.000 |" in md
    assert "### By gold label" in md and "partially\\_supported (not supported)" in md
    where = escape_markdown(str(team_file))  # a file name is text in the Markdown, escaped
    assert f"- {where}:4: row skipped: not JSON" in md
    assert f"- {where}:5: row skipped: \\`label\\` must be one of" in md
    assert f"{SONNET}: supported claims it failed (1)" in md and "by judge" in md
    assert "Decided as `citecheck check` decides" in md

    data = json.loads(render_json(report))
    assert data["models"][1]["overall"]["false_failure_rate"] == pytest.approx(0.2)
    assert data["rows"][0]["outcomes"][SONNET]["verdict"] == "fail"
    assert failure_error(report) is None


def test_judge_only_sends_every_claim_to_the_judge(
    llm: LLMServer, source_server: SourceServer, team_file: Path
) -> None:
    report = run_eval(
        settings_for(llm, source_server), ENV, data=[team_file], models=[HAIKU], judge_only=True
    )
    assert report.decision == "judge-only"
    # The figure the number check contradicts is the judge's to decide: haiku passes it.
    assert outcome(report, CONTRIBUTORS, HAIKU) == ("pass", None, "judge")
    assert outcome(report, ARCHIVE, HAIKU)[:2] == ("abstained", "source")  # no page, no judge
    assert report.models[0].calls_made == len(llm.calls) == 7
    assert report.models[0].overall.caught_by_check == 0
    md = render_markdown(report)
    assert "Decided by the judge alone" in md and "of which by a check" not in md


def test_cost_cap_covers_the_whole_run(llm: LLMServer, tmp_path: Path) -> None:
    text = "Notes.\n" + "The tool reads the page and checks it line by line. " * 40
    claims = [
        f"Claim {w} says the tool reads the page." for w in ("one", "two", "three", "four", "five", "six")
    ]
    data = write_rows(
        tmp_path / "set.jsonl", [{"claim": c, "text": text, "label": "supported"} for c in claims]
    )
    # $0.04 a model: a few calls' worst case (the whole prompt at one token a byte, plus the
    # output limit) on sonnet, all six on haiku, a third of sonnet's price.
    cap = 0.08
    report = run_eval(settings_for(llm, max_cost_usd=cap), ENV, data=[data], models=[HAIKU, SONNET])
    spent = sum(c.overall.cost_usd for c in report.models)
    assert 0 < spent <= cap
    for column in report.models:
        assert column.max_cost_usd == pytest.approx(cap / 2)
        assert column.overall.cost_usd <= cap / 2
        assert column.calls_made == len(calls_for(llm, column.model))
        assert column.overall.abstained["cost-cap"] == 6 - column.calls_made
    haiku, sonnet = report.models
    assert 0 < sonnet.calls_made < 6 and haiku.calls_made > sonnet.calls_made
    note = next(
        n for n in report.notes if n.startswith(f"{SONNET} reached its share of the cost cap ($0.04)")
    )
    assert f"**Note**: {escape_markdown(note)}" in render_markdown(report)

    # A cap of 0: no call at all; every claim abstains, none passes.
    llm.requests.clear()
    report = run_eval(settings_for(llm, max_cost_usd=0), ENV, data=[data], models=[HAIKU])
    assert llm.calls == [] and report.models[0].overall.passed_supported == 0
    assert "| abstained: neither pass nor fail | 100.0 % (6/6): cost cap 6 |" in render_markdown(report)


@pytest.mark.parametrize("protocol", ["anthropic", "openai"])
def test_bundled_set_through_both_sdks(protocol: str) -> None:
    # The stand-in's word-overlap judge; the bundled set's first rows alternate the labels.
    with LLMServer(protocol) as server:  # type: ignore[arg-type]
        report = run_eval(settings_for(server), ENV, bundled=True, limit=6)
    column = report.models[0]
    assert report.data == ["bundled"] and len(report.rows) == 6 and not report.errors
    assert (column.overall.supported, column.overall.not_supported) == (3, 3)
    assert column.calls_made == len(server.calls) > 0 and column.overall.cost_usd > 0
    assert {r.file for r in report.rows} == {"bundled"}
    assert "the bundled set (6 claims: 3 supported, 3 not supported" in render_markdown(report)


def test_gate_thresholds(llm: LLMServer, source_server: SourceServer, team_file: Path) -> None:
    report = run_eval(settings_for(llm, source_server), ENV, data=[team_file], models=[HAIKU, SONNET])
    gated = with_gate(report, max_false_failure_rate=0.1, min_catch_rate=0.9)
    assert gated.gate_failures == [
        f"{SONNET}: false failures 20.0 % > 10.0 % allowed",
        f"{SONNET}: catch rate 66.7 % < 90.0 % required",
    ]
    assert "**Gate** (max false failure rate 10.0 %, min catch rate 90.0 %): missed" in render_markdown(gated)
    assert with_gate(report, max_false_failure_rate=0.25).gate_failures == []
    with pytest.raises(ConfigError, match="not a rate"):
        with_gate(report, min_catch_rate=80)


def test_a_model_whose_every_call_fails(source_server: SourceServer, team_file: Path) -> None:
    def respond(req: RecordedRequest) -> Reply:
        if req.body["model"] == SONNET:
            return error_reply(req.protocol, 404, "model not found")
        return scripted(PLANS)(req)

    with LLMServer("anthropic", respond) as server:
        report = run_eval(settings_for(server, source_server), ENV, data=[team_file], models=[HAIKU, SONNET])
    assert report.models[0].failure is None
    assert report.models[1].failure and "every judge call failed" in report.models[1].failure
    error = failure_error(report)
    assert error is not None and error.code == "judge-failed" and SONNET in error.message


def test_eval_refuses_before_any_call(tmp_path: Path, llm: LLMServer) -> None:
    data = write_rows(tmp_path / "set.jsonl", [{"claim": "A b c.", "text": "A b c.", "label": "supported"}])
    with pytest.raises(ConfigError) as info:
        run_eval(Settings(judge="none"), {}, data=[data])
    assert info.value.code == "no-judge"
    with pytest.raises(ConfigError) as info:
        run_eval(settings_for(llm), ENV, data=[data], models=[HAIKU, "claude-unknown-9"])
    assert info.value.code == "unknown-model"
    with pytest.raises(ConfigError, match="given twice"):
        run_eval(settings_for(llm), ENV, data=[data], models=[HAIKU, HAIKU])
    with pytest.raises(ConfigError, match="not found"):
        run_eval(settings_for(llm), ENV, data=[tmp_path / "missing.jsonl"])
    bad = write_rows(tmp_path / "bad.jsonl", ["[1, 2]", {"claim": "x"}])
    with pytest.raises(ConfigError, match="no usable row"):
        run_eval(settings_for(llm), ENV, data=[bad])
    assert llm.calls == []


def test_limit_counts_usable_rows_across_files(llm: LLMServer, tmp_path: Path) -> None:
    rows = [
        {"claim": f"Row {i} is here.", "text": f"Row {i} is here.", "label": "supported"} for i in range(4)
    ]
    a = write_rows(tmp_path / "a.jsonl", ["{bad", *rows[:2]])
    b = write_rows(tmp_path / "b.jsonl", rows[2:])
    report = run_eval(settings_for(llm), ENV, data=[a, b], limit=3)
    assert [(r.file, r.line) for r in report.rows] == [(str(a), 2), (str(a), 3), (str(b), 1)]
    assert set(report.models[0].by_set) == {str(a), str(b)}  # a row's set defaults to its file
    assert "### By set" in render_markdown(report)
