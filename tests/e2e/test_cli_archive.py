"""`citecheck check --archive wayback` as a user runs it, against the archive stand-in (its
availability API) and the source stand-in (the dead pages and their snapshots): the report
names the snapshot to cite, `--archive-check` verifies the claim against it and says so, and a
fault of the archive changes no verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.archive_server import ArchiveServer, closed_port_url, snapshot_path
from tests.servers.source_server import SourceServer

TS = "20230501093000"
SNAPSHOT_PAGE = (
    "<html><head><title>Survey 2023</title></head><body><article><p>The 2023 survey collected "
    "14,000 responses from developers in 112 countries.</p><p>Only 48% of contributors reported "
    "being paid for their open source work.</p></article></body></html>"
)


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .citecheck.toml of the repository's


def document(tmp_path: Path, dead: str) -> Path:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "# Survey\n\n"
        f"The survey collected 14,000 responses [survey]({dead}).\n\n"
        f"Most contributors, 71%, are paid for their work [survey]({dead}).\n",
        encoding="utf-8",
    )
    return doc


def snapshot_of(sources: SourceServer, archive: ArchiveServer, dead: str) -> str:
    snapshot = sources.url(snapshot_path(TS, dead))
    sources.add(snapshot_path(TS, dead, raw=True), SNAPSHOT_PAGE)
    archive.snapshot(dead, snapshot, TS)
    return snapshot


def check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check", *args, "--judge", "none", "--allow-private-host", "127.0.0.1", "--no-progress"])
    return code, capsys.readouterr().out


def by_text(report: dict, start: str) -> dict:
    (claim,) = [c for c in report["claims"] if c["text"].startswith(start)]
    return claim


def test_a_dead_source_is_reported_with_its_snapshot(
    tmp_path: Path,
    source_server: SourceServer,
    archive_server: ArchiveServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dead = source_server.url("/survey-2023.html")
    snapshot = snapshot_of(source_server, archive_server, dead)
    doc = document(tmp_path, dead)
    report_md = tmp_path / "report.md"
    archive = ["--archive", "wayback", "--archive-url", archive_server.api_url]

    code, out = check([str(doc), *archive, "--format", "json", "--markdown", str(report_md)], capsys)

    assert code == 1
    report = json.loads(out)
    claim = by_text(report, "The survey collected")
    # The verdict is the dead link's, as without the archive; the snapshot is the link to cite.
    assert (claim["verdict"], claim["reason"]) == ("unreachable", "HTTP 404 Not Found")
    source = claim["citations"][0]["source"]
    assert source["archived"] == {
        "url": snapshot,
        "timestamp": TS,
        "link_error": "HTTP 404 Not Found",
        "checked": False,
    }
    assert source["archive_error"] is None
    markdown = report_md.read_text(encoding="utf-8")
    line = next(x for x in markdown.splitlines() if x.startswith("- The survey collected"))
    assert line == (
        f"- The survey collected 14,000 responses survey. | Source: <{dead}> | FAIL (URL not reachable): "
        f"HTTP 404 Not Found; cite the archived copy of 2023-05-01 instead: <{snapshot}> | doc.md:3"
    )
    notes = markdown.split("### Notes")[1]
    assert (
        "archive: wayback — a source that could not be fetched is looked up in the archive "
        "(127.0.0.1, admitted past allowed-domains by the archive option" in notes
    )
    assert "archive: 1 unreachable source(s) looked up: 1 with a snapshot, 0 without" in notes
    assert archive_server.looked_up == [dead]  # once for both claims


def test_archive_check_verifies_against_the_snapshot_and_says_so(
    tmp_path: Path,
    source_server: SourceServer,
    archive_server: ArchiveServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dead = source_server.url("/survey-2023.html")
    snapshot = snapshot_of(source_server, archive_server, dead)
    doc = document(tmp_path, dead)
    report_md = tmp_path / "report.md"
    archive = ["--archive", "wayback", "--archive-check", "--archive-url", archive_server.api_url]

    code, out = check([str(doc), *archive, "--format", "json", "--markdown", str(report_md)], capsys)

    report = json.loads(out)
    found = by_text(report, "The survey collected")
    assert (found["verdict"], found["decided_by"]) == ("pass", "number")
    assert "14,000 responses" in found["evidence"]
    assert found["citations"][0]["source"]["archived"]["checked"] is True
    # The number check reads the snapshot too: its 48% contradicts the claim's 71%.
    wrong = by_text(report, "Most contributors")
    assert (wrong["verdict"], wrong["decided_by"]) == ("fail", "number")
    assert code == 1
    lines = report_md.read_text(encoding="utf-8").splitlines()
    passed = next(x for x in lines if x.startswith("- The survey collected"))
    assert passed.endswith(
        f"; verified against the archived copy of 2023-05-01: <{snapshot}> "
        "(the link itself: HTTP 404 Not Found) | doc.md:3"
    )
    failed = next(x for x in lines if x.startswith("- Most contributors"))
    assert f"; checked against the archived copy of 2023-05-01: <{snapshot}>" in failed

    # The console report says it too.
    code, text = check([str(doc), *archive, "--format", "text"], capsys)
    assert (
        f"archive: verified against the archived copy of 2023-05-01: {snapshot} (the link itself: "
        "HTTP 404 Not Found)" in text
    )


@pytest.mark.parametrize("fault", ["none", "429", "down"])
def test_a_fault_of_the_archive_changes_no_verdict(
    tmp_path: Path,
    source_server: SourceServer,
    archive_server: ArchiveServer,
    capsys: pytest.CaptureFixture[str],
    fault: str,
) -> None:
    dead = source_server.url("/survey-2023.html")
    doc = document(tmp_path, dead)
    api = closed_port_url() if fault == "down" else archive_server.api_url
    if fault == "429":
        snapshot_of(source_server, archive_server, dead)
        archive_server.answer_with(429)
    report_md = tmp_path / "report.md"

    code, out = check([str(doc), "--format", "json"], capsys)
    without = json.loads(out)
    archive = ["--archive", "wayback", "--archive-check", "--archive-url", api]
    code_with, out = check([str(doc), *archive, "--format", "json", "--markdown", str(report_md)], capsys)
    report = json.loads(out)

    assert code_with == code == 1
    assert [(c["verdict"], c["reason"]) for c in report["claims"]] == [
        (c["verdict"], c["reason"]) for c in without["claims"]
    ]
    why = report["claims"][0]["citations"][0]["source"]["archive_error"]
    expected = {
        "none": "no snapshot in the archive",
        "429": "the archive answered HTTP 429 Too Many Requests",
        "down": "the archive could not be reached: connection failed",
    }[fault]
    assert why.startswith(expected)
    line = next(x for x in report_md.read_text(encoding="utf-8").splitlines() if x.startswith("- The survey"))
    assert f"FAIL (URL not reachable): HTTP 404 Not Found; no archived copy: {expected}" in line


def test_archive_check_needs_the_archive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = document(tmp_path, "https://example.org/x")
    code = main(["check", str(doc), "--archive-check", "--no-fetch"])
    assert code == 2
    assert (
        "--archive-check: archive-check checks claims against archived copies: it needs archive: wayback"
    ) in capsys.readouterr().err
