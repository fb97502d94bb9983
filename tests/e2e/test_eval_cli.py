"""`citecheck eval` as a team runs it: the bundled set or their own file, models side by side, a
gate on the figures; against the Anthropic stand-in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.llm_server import LLMServer, verdict, verdicts_reply

HAIKU, SONNET = "claude-haiku-4-5", "claude-sonnet-4-6"


def test_bundled_two_models_from_the_command_line(anthropic_server: LLMServer, tmp_path: Path) -> None:
    # The README's command, with the stand-in for the API and a few rows.
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-test"}
    env.pop("OPENAI_API_KEY", None)
    out = tmp_path / "eval.json"
    proc = subprocess.run(
        [
            sys.executable, "-m", "citecheck", "eval", "--bundled", "--limit", "8",
            "--model", HAIKU, "--model", SONNET, "--base-url", anthropic_server.base_url,
            "--max-cost-usd", "5", "--format", "json", "--output", str(out),
        ],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [m["model"] for m in report["models"]] == [HAIKU, SONNET]
    assert report["data"] == ["bundled"] and report["decision"] == "full" and len(report["rows"]) == 8
    assert {m["max_cost_usd"] for m in report["models"]} == {2.5}
    called = {r.body["model"] for r in anthropic_server.calls}
    assert called == {HAIKU, SONNET}
    for m in report["models"]:
        assert m["calls_made"] == sum(r.body["model"] == m["model"] for r in anthropic_server.calls)
        assert set(m["by_kind"]) and m["overall"]["claims"] == 8


def test_team_file_markdown_gate_and_bad_rows(
    anthropic_server: LLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    data = tmp_path / "ours.jsonl"
    page = "Backups are kept for thirty days."
    rows = [
        {"claim": "Backups are kept for thirty days.", "text": page, "label": "supported"},
        "{oops",
        {"claim": "Backups are kept for ninety days.", "text": page, "label": "REFUTE"},
    ]
    data.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows), encoding="utf-8")
    base = ["eval", "--data", str(data), "--judge", "anthropic", "--base-url", anthropic_server.base_url]

    # The stand-in's word-overlap judge passes the first claim and fails the second: no false
    # failure, everything caught — the gate holds.
    assert main([*base, "--model", HAIKU, "--max-false-failures", "0", "--min-catch-rate", "1"]) == 0
    captured = capsys.readouterr()
    assert f"{data}:2: error: row skipped: not JSON" in captured.err
    assert f"## citecheck eval: {HAIKU}" in captured.out
    assert "| false failures: supported claims failed | 0.0 % (0/1) |" in captured.out
    assert (
        "**Gate** (max false failure rate 0.0 %, min catch rate 100.0 %): met by every model" in captured.out
    )

    # A model that false-fails more than the team allows: exit 1, and why.
    anthropic_server.responder = lambda req: verdicts_reply(req.protocol, [verdict(1, False)])
    assert main([*base, "--model", HAIKU, "--max-false-failures", "0.5"]) == 1
    captured = capsys.readouterr()
    assert f"gate missed: {HAIKU}: false failures 100.0 % > 50.0 % allowed" in captured.err

    # Mistakes cost nothing: a threshold that is not a rate, no judge.
    calls = len(anthropic_server.calls)
    assert main([*base, "--min-catch-rate", "80"]) == 2
    assert "not a rate" in capsys.readouterr().err
    assert main(["eval", "--data", str(data), "--judge", "none"]) == 2
    assert "eval needs a judge" in capsys.readouterr().err
    assert len(anthropic_server.calls) == calls


def test_data_and_bundled_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    # main() answers a usage error with exit 2 (and a JSON error with --format json), not SystemExit.
    assert main(["eval", "--bundled", "--data", "x.jsonl"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert main(["eval"]) == 2
    assert "one of the arguments --data --bundled is required" in capsys.readouterr().err
