"""A changed file that cannot be read never passes (issue 30, point 1): the attack adds a false
cited claim to one file together with something that stops its reading — a NUL byte inside an
HTML comment, an HTML comment over the size cap, a megabyte of links inside `<details>` — and
changes another file that is fine. Before, the bad file was listed under "File errors" and the
run exited 0 (`passed: null`); now it is `unreadable`, a fail-on category of the default, named
in the outcome line, the annotations, SARIF and the exit code, for the CLI and the Action alike.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.e2e.test_action_e2e import PR, REPO, Scenario, pr_payload, report_json, run_action
from tests.servers.github_server import GitHubServer
from tests.servers.gitrepo import Repo
from tests.servers.source_server import SourceServer

# The page states the figure of the good file's claim; the bad file's claim is false.
PAGE = "<html><body><article><p>Sales grew 10% in 2023, the report says.</p></article></body></html>"
FALSE_CLAIM = "Sales grew 90% in 2023 ([report]({url}))."
GOOD_CLAIM = "Sales grew 10% in 2023 ([report]({url}))."
MAX_FILE_BYTES = 5 * 1024 * 1024

# What makes the bad file unreadable, after its false claim: each a form the attack used.
POISONS = {
    "nul-in-comment": "\n<!-- hidden \x00 byte -->\n",
    "huge-comment": "\n<!-- " + "x" * (MAX_FILE_BYTES + 16) + " -->\n",
    "links-in-details": "\n<details>\n\n" + "[a](b) " * 160_000 + "\n\n</details>\n",
}


def _bad(url: str, poison: str) -> str:
    return f"# Bad\n\n{FALSE_CLAIM.format(url=url)}\n{poison}"


@pytest.mark.parametrize("poison", list(POISONS))
def test_the_cli_fails_a_run_with_an_unreadable_file_beside_a_good_one(
    tmp_path: Path, source_server: SourceServer, capsys: pytest.CaptureFixture[str], poison: str
) -> None:
    url = source_server.add("/report", PAGE)
    (tmp_path / "good.md").write_text(f"# Good\n\n{GOOD_CLAIM.format(url=url)}\n", encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(_bad(url, POISONS[poison]).encode("utf-8"))
    sarif, report = tmp_path / "out.sarif", tmp_path / "out.json"
    args = ["check", str(tmp_path / "good.md"), str(tmp_path / "bad.md"), "--judge", "none"]
    args += ["--allow-private-host", source_server.host, "--sarif", str(sarif), "--json", str(report)]

    assert main(args) == 1
    out = capsys.readouterr()
    data = json.loads(report.read_text())
    assert (data["passed"], data["failing"]) == (False, ["unreadable"])
    # The good file's claim was checked and passed: only the unread file fails the run.
    assert [(Path(c["file"]).name, c["verdict"]) for c in data["claims"]] == [("good.md", "pass")]
    assert [Path(e["file"]).name for e in data["errors"] if e["fatal"]] == ["bad.md"]
    # The report says it first: the outcome line, then the file error.
    assert "- Result: failed (fail-on: unreadable)" in out.out
    assert re.search(r"bad\.md(:\d+)?: error:", out.out.split("### File errors", 1)[1])
    assert "bad.md" in out.err
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    unread = [r for r in results if r["ruleId"] == "unreadable"]
    assert len(unread) == 1 and unread[0]["level"] == "error"
    assert unread[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("bad.md")

    # Left out of fail-on, the file still keeps the run from passing (never green by default).
    assert main([*args, "--fail-on", "unsupported"]) == 0
    assert json.loads(report.read_text())["passed"] is None


def _scenario(tmp_path: Path, sources: SourceServer, gh: GitHubServer, poison: str) -> Scenario:
    url = sources.add("/report", PAGE)
    origin = Repo(tmp_path / "origin")
    base = origin.commit({"docs/good.md": "# Good\n", "README.md": "# Docs\n"}, "base")
    head = origin.commit(
        {"docs/good.md": f"# Good\n\n{GOOD_CLAIM.format(url=url)}\n", "docs/bad.md": _bad(url, poison)},
        "head",
    )
    gh.serve_repo(REPO, origin.root)
    gh.set_pull(REPO, PR, head_sha=head, base_sha=base)
    return Scenario(origin, base, head, {"report": url})


@pytest.mark.parametrize("poison", ["nul-in-comment", "links-in-details"])
def test_the_action_fails_a_pr_whose_changed_file_cannot_be_read(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer, poison: str
) -> None:
    s = _scenario(tmp_path, sources, gh, POISONS[poison])
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 1, r.stdout + r.stderr
    assert r.outputs["passed"] == "false"
    report = report_json(r)
    assert report["failing"] == ["unreadable"]
    assert [c["file"] for c in report["claims"]] == ["docs/good.md"]  # type: ignore[index]
    # The comment's and the summary's first line name it; the file carries an error annotation.
    body = gh.comments(REPO, PR)[0]["body"]
    assert body.splitlines()[1].startswith("> **Files not read:** `docs/bad.md` could not be read")
    assert "❌ citecheck failed: 1 file unreadable · $0.00" in body.splitlines()[2:4]
    assert "docs/bad.md" in body.split("### File errors", 1)[1]
    assert r.summary.startswith("> **Files not read:** `docs/bad.md` could not be read")
    assert r.outputs["note"].startswith("Files not read: `docs/bad.md` could not be read")
    assert "(`unreadable`)" in body.splitlines()[1]
    marked = re.findall(r"^::error file=([^,]*),line=(\d+),title=citecheck%3A unreadable::", r.stdout, re.M)
    assert [f for f, _ in marked] == ["docs/bad.md"]
