"""`citecheck eval` (run_eval / render_eval) against local LLM protocol servers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from citecheck.config import Settings
from citecheck.errors import ConfigError, JudgeFailedError
from citecheck.evaluate import load_rows, render_eval, run_eval
from tests.servers.llm_server import (
    LLMServer,
    RecordedRequest,
    Reply,
    error_reply,
    parse_prompt,
    verdict,
    verdicts_reply,
)

SAMPLE = Path(__file__).parents[1] / "data" / "wice_sample.jsonl"
ENV = {"ANTHROPIC_API_KEY": "sk-ant-test", "OPENAI_API_KEY": "sk-test"}
ROWS = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(params=["anthropic", "openai"])
def llm(request: pytest.FixtureRequest) -> Iterator[LLMServer]:
    with LLMServer(request.param) as server:
        yield server


def _words(text: str) -> set[str]:
    return {w.removesuffix("s") for w in re.findall(r"[a-z0-9]{3,}", text.lower())}


def best_line(source: str, claim: str) -> str:
    """The source line sharing the most words with the claim: a quote that carries weight."""
    words = _words(claim)
    return max(source.strip().splitlines(), key=lambda line: len(words & _words(line)))


def scripted(says_supported: set[str]) -> object:
    """A judge that calls a claim supported iff its text is in `says_supported`, quoting the
    source line closest to the claim."""

    def respond(req: RecordedRequest) -> Reply:
        source, claims = parse_prompt(req.user_text)
        verdicts = [verdict(i, text in says_supported, best_line(source, text)) for i, text in claims.items()]
        return verdicts_reply(req.protocol, verdicts, input_tokens=1000, output_tokens=100)

    return respond


def settings_for(server: LLMServer, **kw: object) -> Settings:
    return Settings(judge=server.protocol, base_url=server.base_url, **kw)  # type: ignore[arg-type]


def test_eval_figures_against_the_protocol_server(llm: LLMServer) -> None:
    supported = [r["claim"] for r in ROWS if r["label"] == "supported"]
    partial = [r["claim"] for r in ROWS if r["label"] == "partially_supported"]
    unsupported = [r["claim"] for r in ROWS if r["label"] == "not_supported"]
    # Right on 2 of 3 supported, wrong on 1 partial and on 1 unsupported.
    llm.responder = scripted({supported[0], supported[1], partial[0], unsupported[0]})  # type: ignore[assignment]
    result = run_eval(SAMPLE, settings_for(llm), ENV, None)

    assert result.total == 8 and result.judged == 8 and result.no_verdict == 0
    assert (result.true_positive, result.false_negative) == (2, 1)
    assert (result.false_positive, result.true_negative) == (2, 3)
    assert result.accuracy == pytest.approx(5 / 8)
    assert result.balanced_accuracy == pytest.approx((2 / 3 + 3 / 5) / 2)
    assert result.confusion["partially_supported"] == {"supported": 1, "not_supported": 1, "no_verdict": 0}
    assert result.confusion["not_supported"]["supported"] == 1
    assert result.calls_made == 8 == len(llm.calls)
    assert result.input_tokens == 8000 and result.cost_usd > 0

    text = render_eval(result)
    assert "accuracy: 0.625" in text and "balanced accuracy (supported vs not): 0.633" in text
    assert "partially_supported" in text and f"${result.cost_usd:.4f}" in text


def test_eval_limit_and_bad_lines(llm: LLMServer, tmp_path: Path) -> None:
    data = tmp_path / "set.jsonl"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    data.write_text(
        "\n".join([lines[0], "{not json", json.dumps({"claim": "x", "label": "maybe"}), *lines[1:]])
    )
    result = run_eval(data, settings_for(llm), ENV, 3)
    assert result.total == 3 and len(llm.calls) == 3
    assert [(e.file, e.line) for e in result.errors] == [(str(data), 2), (str(data), 3)]
    assert "label" in result.errors[1].message
    assert f"skipped {data}:2" in render_eval(result)


def test_eval_counts_judge_errors_as_no_verdict(llm: LLMServer) -> None:
    calls = {"n": 0}

    def respond(req: RecordedRequest) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:
            return error_reply(req.protocol, 400, "bad request")
        return scripted(set())(req)  # type: ignore[operator]

    llm.responder = respond
    result = run_eval(SAMPLE, settings_for(llm), ENV, 2)
    assert result.no_verdict == 1 and result.judged == 1 and result.calls_failed == 1


def test_eval_with_every_call_failing_is_an_error(llm: LLMServer) -> None:
    llm.responder = lambda req: error_reply(req.protocol, 401, "bad key")
    with pytest.raises(JudgeFailedError) as info:
        run_eval(SAMPLE, settings_for(llm), ENV, 2)
    assert info.value.code == "judge-failed"


def test_eval_respects_the_cost_cap(llm: LLMServer) -> None:
    llm.responder = scripted(set())  # type: ignore[assignment]
    result = run_eval(SAMPLE, settings_for(llm, max_cost_usd=0), ENV, None)
    assert result.limited == 8 and result.judged == 0 and llm.calls == []
    assert result.accuracy is None and "n/a" in render_eval(result)


def test_eval_needs_a_judge_and_data(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        run_eval(SAMPLE, Settings(judge="none"), {}, None)
    assert info.value.code == "no-judge"
    with pytest.raises(ConfigError, match="not found"):
        load_rows(tmp_path / "missing.jsonl")


def test_sample_has_all_labels() -> None:
    items, errors = load_rows(SAMPLE)
    assert not errors and {i.label for i in items} == {"supported", "partially_supported", "not_supported"}
