"""`citecheck check --changed [BASE]` as a user runs it in a working copy: the claims on the
lines the branch changed, a clear error when there is no upstream to compare with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.gitrepo import Repo, git
from tests.servers.source_server import SourceServer

PAGE = "<html><body><article><p>Only 48% of contributors are paid for their work.</p></article></body></html>"


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_changed_checks_the_branch_lines_only(
    tmp_path: Path,
    source_server: SourceServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    page = source_server.add("/paid.html", PAGE)
    origin = Repo(tmp_path / "origin")
    origin.commit({"docs/a.md": f"# A\n\nAn old line: 90% are paid [s]({page}).\n"}, "base")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", f"file://{origin.root}", str(work))
    with (work / "docs/a.md").open("a", encoding="utf-8") as f:
        f.write(f"\nMost contributors, 71%, are paid [s]({page}).\n")
    (work / "docs/b.md").write_text(f"Just 48% of contributors are paid [s]({page}).\n", encoding="utf-8")
    monkeypatch.chdir(work)
    flags = ["--judge", "none", "--allow-private-host", "127.0.0.1", "--no-progress", "--format", "json"]

    code = main(["check", "--changed", *flags])

    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert sorted((c["file"], c["line"], c["verdict"]) for c in report["claims"]) == [
        ("docs/a.md", 5, "fail"),
        ("docs/b.md", 1, "pass"),
    ]
    # A base written with `=` comes before the paths it is not to swallow.
    code = main(["check", "--changed=origin/main", "docs/b.md", *flags])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and [c["file"] for c in report["claims"]] == ["docs/b.md"]


def test_changed_without_an_upstream_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"a.md": "x\n"})
    monkeypatch.chdir(repo.root)
    code = main(["check", "--changed", "--judge", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert (
        ".: error: --changed @{upstream}: the branch main has no upstream to compare with: name the base, "
        "e.g. --changed=origin/main (or set one: git branch --set-upstream-to=origin/main)"
    ) in err
    assert "what to do: check the paths and the git base (--changed) you gave" in err
    assert main(["check", "--changed", "--diff", "HEAD"]) == 2  # one base or the other
    assert "not allowed with argument" in capsys.readouterr().err
