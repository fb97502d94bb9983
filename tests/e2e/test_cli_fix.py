"""`citecheck check --fix`: the suggested changes applied to the files, against a source server:
the diff shown first, then asked about on a terminal (or applied at once with `--yes`)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.source_server import SourceServer
from tests.terminal import read_until_closed

SURVEY = (
    "<html><body><article><p>Only 48% of contributors reported being paid for any of their open "
    "source work; the share was higher among maintainers of large projects.</p></article></body></html>"
)
INTERVIEW = (
    "<html><body><article><p>Interview with Dr. Ada Example, lead author of the survey.</p><p>We saw it "
    "in the numbers: people leave when the docs are wrong.</p></article></body></html>"
)
DOC = """# Guide

About **70%** of contributors are paid for their open source work, [the survey found]({survey}).

Dr. Ada Example said that “people leave when the docs
are long” ([interview]({interview})).

Unchanged: the survey ran in 2024 ([survey]({survey})).
"""


def write_doc(tmp_path: Path, sources: SourceServer) -> tuple[Path, str]:
    urls = {"survey": sources.add("/survey", SURVEY), "interview": sources.add("/interview", INTERVIEW)}
    doc = tmp_path / "guide.md"
    text = DOC.format(**urls)
    doc.write_text(text, encoding="utf-8")
    return doc, text


def fixed(text: str) -> str:
    return text.replace("**70%**", "**48%**").replace("are long”", "are wrong”")


def args(doc: Path, sources: SourceServer, *more: str) -> list[str]:
    return [
        "check",
        str(doc),
        "--judge",
        "none",
        "--allow-private-host",
        sources.host,
        "--no-progress",
        *more,
    ]


def test_fix_yes_applies_the_suggestions_and_reports_the_file_as_checked(
    tmp_path: Path, source_server: SourceServer, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, text = write_doc(tmp_path, source_server)
    code = main(args(doc, source_server, "--fix", "--yes", "--format", "json"))
    out, err = capsys.readouterr()
    assert code == 1  # the report is of the file as it was checked
    assert doc.read_text(encoding="utf-8") == fixed(text)
    # The diff was shown: only the claims' words changed (the quote's on its second line).
    assert "-About **70%** of contributors" in err and "+About **48%** of contributors" in err
    assert "-are long” ([interview](" in err and "+are wrong” ([interview](" in err
    assert "citecheck: --fix: applied 2 changes to 1 file" in err
    report = json.loads(out)
    assert [c["suggestion"]["replacement"] for c in report["claims"] if c["suggestion"]] == ["48%", "wrong"]

    # Checked again, the claims pass: nothing left to fix.
    assert main(args(doc, source_server, "--fix", "--yes")) == 0
    assert "no suggested change to apply" in capsys.readouterr().err
    assert doc.read_text(encoding="utf-8") == fixed(text)


def test_fix_without_a_terminal_shows_the_diff_and_writes_nothing(
    tmp_path: Path, source_server: SourceServer
) -> None:
    doc, text = write_doc(tmp_path, source_server)
    proc = subprocess.run(
        [sys.executable, "-m", "citecheck", *args(doc, source_server, "--fix")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert "+About **48%** of contributors" in proc.stderr
    assert "2 changes to 1 file not applied: no terminal to ask on (add --yes)" in proc.stderr
    assert doc.read_text(encoding="utf-8") == text


def _answer_on_a_terminal(argv: list[str], answer: str) -> tuple[int, str]:
    """Run citecheck with its standard input and error on a pseudo-terminal, typing `answer`."""
    main_fd, tty_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "citecheck", *argv],
        stdin=tty_fd,
        stdout=subprocess.DEVNULL,
        stderr=tty_fd,
        env={**os.environ, "NO_COLOR": "1"},
    )
    os.close(tty_fd)
    os.write(main_fd, answer.encode() + b"\n")
    shown = read_until_closed(main_fd).decode("utf-8").replace("\r\n", "\n")
    return proc.wait(timeout=300), shown


@pytest.mark.parametrize("answer", ["y", "n"])
def test_fix_asks_on_a_terminal_after_the_diff(
    tmp_path: Path, source_server: SourceServer, answer: str
) -> None:
    doc, text = write_doc(tmp_path, source_server)
    code, shown = _answer_on_a_terminal(args(doc, source_server, "--fix"), answer)
    assert code == 1
    assert shown.index("+About **48%**") < shown.index("Apply 2 changes to 1 file? [y/N]")
    if answer == "y":
        assert "applied 2 changes to 1 file" in shown
        assert doc.read_text(encoding="utf-8") == fixed(text)
    else:
        assert "nothing applied" in shown
        assert doc.read_text(encoding="utf-8") == text


def test_fix_leaves_a_changed_line_alone_and_yes_needs_fix(
    tmp_path: Path, source_server: SourceServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fix whose line the report does not hold as the file has it (here: the report masks the
    link's token) is not applied; the others are."""
    doc, text = write_doc(tmp_path, source_server)
    secret = text.replace("/survey)", "/survey?token=abcdef0123456789)", 1)
    doc.write_text(secret, encoding="utf-8")
    assert main(args(doc, source_server, "--fix", "--yes")) == 1
    err = capsys.readouterr().err
    assert f"{doc}:3: not applied: the line does not read as the report has it" in err
    assert doc.read_text(encoding="utf-8") == secret.replace("are long”", "are wrong”")

    assert main(args(doc, source_server, "--yes")) == 2
    assert "--yes only goes with --fix" in capsys.readouterr().err
