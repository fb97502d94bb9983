"""The command line for writers and agents: drafts on standard input (`check -`, `extract -`)
and errors as JSON on stdout with `--format json`."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.llm_server import LLMServer, error_reply
from tests.servers.source_server import SourceServer

PAGE = (
    "<html><body><article><p>The survey collected 14,000 responses in 112 countries.</p>"
    "</article></body></html>"
)


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str | bytes) -> None:
    data = text.encode("utf-8") if isinstance(text, str) else text
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def _error(out: str) -> dict:
    document = json.loads(out)
    assert set(document) == {"error"}
    assert set(document["error"]) == {"code", "message", "recovery"}
    assert isinstance(document["error"]["recovery"], list)
    return document["error"]


# ------------------------------------------------------------------ drafts from standard input


def test_check_reads_a_draft_piped_to_it(tmp_path: Path, source_server: SourceServer) -> None:
    # The README's first command for a writer, in a real process with a real pipe.
    url = source_server.add("/survey", PAGE)
    draft = f"# Draft\n\nThe survey collected 14,000 responses [s]({url}).\n\nRevenue doubled last year.\n"
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    args = ["check", "-", "--stdin-name", "posts/draft.md", "--judge", "none"]
    args += ["--allow-private-host", source_server.host, "--format", "json"]
    proc = subprocess.run(
        [sys.executable, "-m", "citecheck", *args],
        input=draft,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [(c["file"], c["line"], c["verdict"]) for c in report["claims"]] == [
        ("posts/draft.md", 3, "pass"),
        ("posts/draft.md", 5, "unsourced"),
    ]
    assert source_server.hits("/survey") == 1


def test_extract_reads_standard_input_with_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("Sales grew 35% in 2023 [r](https://example.org/r).\n", encoding="utf-8")
    # A relative link has no folder to resolve against in a draft: it is not a source.
    _stdin(
        monkeypatch,
        "Revenue doubled in 2022, see [the guide](../guide.md).\n\nIt grew 12% [x](https://example.org/x).\n",
    )
    assert main(["extract", str(doc), "-", "--format", "json"]) == 0
    claims = json.loads(capsys.readouterr().out)["claims"]
    assert [(c["file"], c["line"]) for c in claims] == [(str(doc), 1), ("stdin.md", 1), ("stdin.md", 3)]
    assert [(c["kind"], c["identifier"], c["url"]) for c in claims[1]["citations"]] == [
        ("internal", "../guide.md", None)
    ]
    assert claims[2]["citations"][0]["url"] == "https://example.org/x"


def test_stdin_name_decides_how_the_draft_is_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = "import Chart from './chart'\n\nSales grew 35% in 2023 [r](https://example.org/r).\n"
    _stdin(monkeypatch, draft)
    assert main(["extract", "-", "--stdin-name", "post.mdx", "--format", "json"]) == 0
    claims = json.loads(capsys.readouterr().out)["claims"]
    assert [(c["file"], c["line"]) for c in claims] == [("post.mdx", 3)]  # the MDX import is not prose


def test_check_of_an_empty_draft_verifies_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, "")
    assert main(["check", "-", "--judge", "none", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["total_claims"] == 0 and report["passed"] is None


def test_a_draft_over_the_size_limit_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, "Sales grew 35% in 2023.\n" * 10)
    assert main(["extract", "-", "--max-file-bytes", "100", "--format", "json"]) == 2
    captured = capsys.readouterr()
    assert _error(captured.out)["code"] == "no-input"
    assert "stdin.md" in captured.err and "100-byte limit" in captured.err


def test_stdin_cannot_be_combined_with_diff(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, "x\n")
    assert main(["check", "-", "--diff", "main", "--judge", "none", "--format", "json"]) == 2
    assert _error(capsys.readouterr().out)["code"] == "usage"


# ------------------------------------------------------------------ errors as JSON


def test_no_key_is_a_json_error_on_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_keys(monkeypatch)
    _stdin(monkeypatch, "Sales grew 35% in 2023 [r](https://example.org/r).\n")
    assert main(["check", "-", "--format", "json"]) == 2
    captured = capsys.readouterr()
    error = _error(captured.out)
    assert error["code"] == "no-api-key"
    assert "ANTHROPIC_API_KEY" in error["message"]
    assert any("--judge none" in step for step in error["recovery"])
    assert "no-api-key" in captured.err  # the line for a person stays on stderr


def test_without_json_an_error_prints_nothing_on_stdout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_keys(monkeypatch)
    _stdin(monkeypatch, "Sales grew 35% in 2023 [r](https://example.org/r).\n")
    assert main(["check", "-"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "no-api-key" in captured.err


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--format", "json", "--judge", "acme"],
        ["check", "--format=json", "--no-such-flag"],
        ["check", "--judge", "acme", "--form", "json"],  # argparse takes a prefix of --format
        ["merge", "--format", "json"],  # a required argument missing
    ],
)
def test_a_usage_error_is_json_when_json_was_asked_for(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    error = _error(captured.out)
    assert error["code"] == "usage"
    assert error["message"] in captured.err  # argparse's own message, as on stderr
    # The parser that refused it says where to look (the whole command's, for a flag no
    # sub-command knows).
    assert error["recovery"] in ([f"see `citecheck {args[0]} --help`"], ["see `citecheck --help`"])


def test_a_usage_error_without_json_is_argparse_s(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--judge", "acme", "--format", "markdown"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: citecheck check")
    assert "citecheck check: error: argument --judge: invalid choice: 'acme'" in captured.err


def test_unreadable_inputs_and_bad_reports_are_json_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", str(tmp_path / "nope.md"), "--format", "json"]) == 2
    assert _error(capsys.readouterr().out)["code"] == "no-input"

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["merge", str(bad), "--format", "json"]) == 2
    error = _error(capsys.readouterr().out)
    assert error["code"] == "config" and "bad.json" in error["message"] and error["recovery"]

    (tmp_path / "a.md").write_text("x\n")
    assert (
        main(["check", str(tmp_path), "--judge", "none", "--fail-on", "everything", "--format", "json"]) == 2
    )
    assert "fail-on" in _error(capsys.readouterr().out)["message"]


def test_every_judge_call_failing_is_a_json_error(
    tmp_path: Path,
    source_server: SourceServer,
    anthropic_server: LLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-e2e")
    anthropic_server.responder = lambda req: error_reply(
        req.protocol, 500, "down", headers={"retry-after-ms": "1"}
    )
    url = source_server.add("/survey", PAGE)
    _stdin(monkeypatch, f"The survey ran in many countries, as [the survey]({url}) says.\n")
    code = main(
        [
            "check",
            "-",
            "--allow-private-host",
            source_server.host,
            "--judge",
            "anthropic",
            "--base-url",
            anthropic_server.base_url,
            "--format",
            "json",
        ]
    )
    assert code == 2 and anthropic_server.calls
    error = _error(capsys.readouterr().out)
    assert error["code"] == "judge-failed" and "every judge call failed" in error["message"]
