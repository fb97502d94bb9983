"""`citecheck check`'s progress on standard error: a bar on a terminal (a real pseudo-terminal),
plain lines elsewhere, nothing when turned off; standard output keeps the report alone."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

from tests.servers.source_server import SourceServer
from tests.terminal import read_until_closed

PAGE = (
    "<html><body><article><p>The survey collected {n},000 responses in 112 countries."
    "</p></article></body></html>"
)
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BAR = "━"  # rich's bar


def _doc(tmp_path: Path, sources: SourceServer, pages: int = 3) -> Path:
    lines = []
    for n in range(1, pages + 1):
        url = sources.add(f"/survey-{n}", PAGE.format(n=n))
        lines.append(f"The survey collected {n},000 responses [survey]({url}).\n\n")
    doc = tmp_path / "guide.md"
    doc.write_text("".join(lines), encoding="utf-8")
    return doc


def _args(doc: Path, *extra: str) -> list[str]:
    return [
        "check",
        str(doc),
        "--judge",
        "none",
        "--allow-private-host",
        "127.0.0.1",
        "--format",
        "json",
        *extra,
    ]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CITECHECK_PROGRESS", "TERM")}
    return {**env, "TERM": "xterm-256color", **extra}


def _on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """`python -m citecheck ARGS` with standard error on a pseudo-terminal (120 columns) and
    standard output on a pipe: (exit code, stdout, what the terminal got)."""
    main_fd, tty_fd = pty.openpty()
    fcntl.ioctl(tty_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "citecheck", *args], stdout=subprocess.PIPE, stderr=tty_fd, env=env
    )
    os.close(tty_fd)
    out: list[bytes] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read() if proc.stdout else b""))
    reader.start()  # the report may be larger than a pipe holds
    terminal = read_until_closed(main_fd)
    reader.join(timeout=300)
    return proc.wait(timeout=300), out[0].decode("utf-8"), terminal.decode("utf-8", "replace")


def _piped(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citecheck", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_terminal_shows_a_bar_on_stderr_and_stdout_stays_pure_json(
    tmp_path: Path, source_server: SourceServer
) -> None:
    doc = _doc(tmp_path, source_server)
    code, out, shown = _on_a_terminal(_args(doc), _env())
    report = json.loads(out)  # nothing but the report
    assert code == 0 and report["total_claims"] == 3 and report["total_supported"] == 3
    assert BAR in shown and ESCAPE.search(shown)  # drawn (and redrawn) on the terminal
    text = ESCAPE.sub("", shown)
    for row in ("extract", "fetch + checks", "report"):
        assert row in text
    assert "3/3" in text and "3 claims" in text  # the sources fetched of all, the claims found
    assert "citecheck: [" not in text  # a bar, not the plain lines

    # Colours go with NO_COLOR; the bar stays.
    code, out, shown = _on_a_terminal(_args(doc), _env(NO_COLOR="1"))
    assert code == 0 and json.loads(out)["claims"] == report["claims"]
    assert BAR in shown and not re.search(r"\x1b\[[0-9;]*m", shown.replace("\x1b[0m", ""))

    # Turned off on the terminal too.
    for args, env in ((_args(doc, "--no-progress"), _env()), (_args(doc), _env(CITECHECK_PROGRESS="0"))):
        code, out, shown = _on_a_terminal(args, env)
        assert code == 0 and json.loads(out)["total_claims"] == 3
        assert shown == "", args


def test_elsewhere_plain_lines_unless_turned_off(tmp_path: Path, source_server: SourceServer) -> None:
    doc = _doc(tmp_path, source_server)
    quiet = _piped(_args(doc, "--no-progress"), _env())
    assert quiet.returncode == 0 and quiet.stderr == ""
    claims = json.loads(quiet.stdout)["claims"]
    assert len(claims) == 3
    off = _piped(_args(doc), _env(CITECHECK_PROGRESS="0"))
    assert off.returncode == 0 and off.stderr == "" and json.loads(off.stdout)["claims"] == claims

    runs = [
        (_args(doc), _env()),  # the default on a pipe
        (_args(doc, "--progress"), _env(CITECHECK_PROGRESS="0")),  # the flag wins over the variable
    ]
    for args, env in runs:
        shown = _piped(args, env)
        assert shown.returncode == 0 and json.loads(shown.stdout)["claims"] == claims  # stdout: the report
        lines = shown.stderr.splitlines()
        assert "\x1b" not in shown.stderr and BAR not in shown.stderr
        # A short run: one line as each stage ends, in order, with the run's counts.
        assert [line.split("]")[0] for line in lines] == [
            "citecheck: [extract",
            "citecheck: [fetch + checks",
            "citecheck: [report",
        ], lines
        assert lines[0].startswith("citecheck: [extract] done: files 1/1, claims 3 (")
        assert lines[1].startswith(
            "citecheck: [fetch + checks] done: files 1/1, claims 3, sources 3/3 fetched ("
        )

    # A dumb terminal gets the lines, not a bar.
    code, out, shown = _on_a_terminal(_args(doc), _env(TERM="dumb"))
    assert code == 0 and json.loads(out)["claims"] == claims
    assert BAR not in shown and "citecheck: [fetch + checks] done:" in shown
    code, out, shown = _on_a_terminal(_args(doc, "--no-progress"), _env(TERM="dumb"))
    assert (code, shown) == (0, "") and json.loads(out)["claims"] == claims


def test_progress_flags_exclude_each_other(tmp_path: Path) -> None:
    proc = _piped(["check", str(tmp_path), "--progress", "--no-progress"], _env())
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr
