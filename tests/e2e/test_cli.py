"""The command line as a user runs it: demo, extract, check with a config file, merge."""

from __future__ import annotations

import json
import os
import pty
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.e2e.test_action_cache import entry_name, forged_entry
from tests.leaks import leaks
from tests.servers.gitrepo import Repo
from tests.servers.llm_server import LLMServer, echo_credentials_error, echo_key_judge, request_key
from tests.servers.source_server import SourceServer
from tests.terminal import read_until_closed

PAGE = (
    "<html><body><article><p>The survey collected 14,000 responses in 112 countries.</p>"
    "</article></body></html>"
)


def test_demo_runs_without_key_or_internet() -> None:
    # A subprocess with no API keys in its environment: the README's first command.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    proc = subprocess.run(
        [sys.executable, "-m", "citecheck", "demo"], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    headings = [line for line in out.splitlines() if line.startswith("#")]
    assert headings[:5] == [
        "## Verification Report",
        "### Verified Claims",
        "### Failed Claims",
        "### Unsourced Claims",
        "### Summary",
    ]
    assert "- Total claims: 10" in out
    assert "FAIL (URL not reachable): HTTP 404" in out
    failed = out.split("### Failed Claims")[1].split("### Unsourced")[0]
    # A private address (10.0.0.7) is still a source, so an intranet link in public docs fails
    # loudly (the SSRF guard refuses it) rather than being dropped; the loopback server the
    # demo's sources are on is admitted (allow-private-hosts).
    assert "FAIL (source not allowed): address 10.0.0.7 is private (blocked by the SSRF guard)" in failed
    assert "Links not treated as sources" not in out
    # The demo's wrong statistic and its misquote are contradictions of the bundled sources:
    # the checks fail them without a judge.
    assert "FAIL: the page gives '48%' where the claim says '70%'" in failed
    assert "FAIL: misquote: the page gives the passage as 'people leave when the docs are wrong'" in failed
    assert "twice as many contributors" in out.split("### Unsourced Claims")[1].split("### Summary")[0]
    assert "would exit 1" in proc.stderr


def test_extract_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(
        "# A\n\nSales grew 35% in 2023 [report](https://example.org/r).\n", encoding="utf-8"
    )
    (docs / "b.markdown").write_text("Nothing to check here.\n", encoding="utf-8")
    (docs / "c.txt").write_text("Sales grew 99% [x](https://example.org/x).\n", encoding="utf-8")

    assert main(["extract", str(docs), "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert len(payload["claims"]) == 1
    claim = payload["claims"][0]
    assert claim["file"].endswith("a.md") and claim["line"] == 3
    assert {"statistic", "temporal", "hyperlinked"} <= set(claim["kinds"])
    assert claim["citations"][0]["url"] == "https://example.org/r"

    assert main(["extract", str(docs / "a.md")]) == 0
    text = capsys.readouterr().out
    assert "a.md:3" in text and "https://example.org/r" in text


def test_extract_missing_path_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(tmp_path / "nope.md")]) == 2
    assert "nope.md" in capsys.readouterr().err


def test_bad_flag_value_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("x\n")
    assert main(["check", str(tmp_path), "--judge", "none", "--fail-on", "everything"]) == 2
    assert "fail-on" in capsys.readouterr().err


def test_config_file_may_narrow_but_not_widen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("Sales grew 35% in 2023 [r](https://example.org/r).\n")
    cfg = tmp_path / "cc.toml"
    cfg.write_text('allowed_domains = ["evil.example"]\n')
    code = main(
        ["check", str(doc), "--judge", "none", "--allowed-domain", "example.org", "--config", str(cfg)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "cc.toml" in err and "evil.example" in err


def test_allowlist_blocks_before_any_request(
    tmp_path: Path,
    source_server: SourceServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = source_server.add("/p", PAGE)
    doc = tmp_path / "a.md"
    doc.write_text(f"The survey collected 14,000 responses [s]({url}).\n")
    code = main(
        [
            "check",
            str(doc),
            "--judge",
            "none",
            "--allow-private-host",
            "127.0.0.1",
            "--allowed-domain",
            "example.org",
            "--format",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert report["claims"][0]["verdict"] == "disallowed"
    assert source_server.hits() == 0


def test_shards_merge_to_the_unsharded_report(
    tmp_path: Path,
    source_server: SourceServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = source_server.add("/p", PAGE)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"d{i}.md").write_text(
            f"The survey collected 14,000 responses [s]({url}).\n\n"
            f"The survey collected responses in {100 + i} countries [s]({url}).\n\n"
            f"Revenue doubled last year.\n",
            encoding="utf-8",
        )
    common = ["--judge", "none", "--allow-private-host", "127.0.0.1"]
    main(["check", str(docs), *common, "--json", str(tmp_path / "all.json"), "--format", "json"])
    parts = []
    for i in (1, 2, 3):
        part = tmp_path / f"shard{i}.json"
        main(["check", str(docs), *common, "--shard", f"{i}/3", "--format", "json", "--output", str(part)])
        parts.append(part)
    capsys.readouterr()
    shard_files = [{c["file"] for c in json.loads(p.read_text())["claims"]} for p in parts]
    assert sum(len(s) for s in shard_files) == 6  # each file in exactly one shard
    code = main(["merge", *map(str, parts), "--format", "json"])
    merged = json.loads(capsys.readouterr().out)
    whole = json.loads((tmp_path / "all.json").read_text())
    keys = [k for k in whole if k.startswith("total_")] + ["passed", "overall_score"]
    assert {k: merged[k] for k in keys} == {k: whole[k] for k in keys}
    assert code == 1  # the page contradicts the six countries claims: it gives 112


def test_merge_rejects_a_file_that_is_not_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["merge", str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err


def _run_on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run `python -m citecheck ARGS` with its stdout on a pseudo-terminal; (exit code, output)."""
    main_fd, tty_fd = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "citecheck", *args], stdout=tty_fd, stderr=subprocess.DEVNULL, env=env
    )
    os.close(tty_fd)
    terminal = read_until_closed(main_fd)
    return proc.wait(timeout=300), terminal.decode("utf-8").replace("\r\n", "\n")


def test_text_report_is_coloured_on_a_terminal_only(tmp_path: Path) -> None:
    doc = tmp_path / "guide.md"
    doc.write_text(
        "Revenue doubled last year.\n\nSales grew 35% in 2023 [r](https://acme-research.org/r).\n",
        encoding="utf-8",
    )
    args = ["check", str(doc), "--no-fetch", "--judge", "none", "--fail-on", "unsourced", "--format", "text"]
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}

    piped = subprocess.run(
        [sys.executable, "-m", "citecheck", *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert piped.returncode == 1
    assert "\x1b" not in piped.stdout
    assert piped.stdout.startswith(f"{doc}\n  3  FAIL (not verified)  Sales grew 35% in 2023 r.\n")
    assert "\n  1  UNSOURCED  Revenue doubled last year.\n" in piped.stdout

    code, shown = _run_on_a_terminal([*args, "--text", str(tmp_path / "also.txt")], env)
    assert code == 1
    assert "\x1b[31mUNSOURCED\x1b[0m" in shown and f"\x1b[1m{doc}\x1b[0m" in shown
    assert re.sub(r"\x1b\[[0-9;]*m", "", shown) == piped.stdout
    assert (tmp_path / "also.txt").read_text(encoding="utf-8") == piped.stdout  # a file: never colour

    code, shown = _run_on_a_terminal(args, {**env, "NO_COLOR": "1"})
    assert (code, shown) == (1, piped.stdout)

    code, shown = _run_on_a_terminal([*args, "--output", str(tmp_path / "out.txt")], env)
    assert (code, shown) == (1, "")
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == piped.stdout


CLI_KEY = "sk-proj-" + "Hq3Ld9Xw2Rm7Tz5Kp8Vn" * 2


def test_check_prints_no_key_when_every_judge_call_fails(
    tmp_path: Path,
    source_server: SourceServer,
    openai_server: LLMServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The provider's error body quotes the request's Authorization header back."""
    openai_server.responder = echo_credentials_error
    url = source_server.add("/p", PAGE)
    doc = tmp_path / "a.md"
    doc.write_text(f"The survey was the largest of its kind [s]({url}).\n")
    monkeypatch.setenv("OPENAI_API_KEY", CLI_KEY)
    args = ["check", str(doc), "--judge", "openai", "--base-url", openai_server.base_url]
    code = main([*args, "--allow-private-host", "127.0.0.1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 2 and openai_server.calls
    assert "every judge call failed" in err and "Bearer ***" in err
    assert CLI_KEY not in out + err and CLI_KEY[:16] not in out + err


@pytest.mark.parametrize("fmt", ["markdown", "json", "sarif", "text"])
def test_check_masks_url_credentials_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    doc = tmp_path / "a.md"
    doc.write_text(
        "Usage rose 40% in 2022 per [the report](https://u:p@acme-research.org/x?token=abc&page=2).\n\n"
        "Uptake fell 12% in 2024 per https://acme-research.org/y?X-Amz-Signature=ff00&q=1 this year.\n"
    )
    code = main(["check", str(doc), "--no-fetch", "--judge", "none", "--format", fmt])
    out = capsys.readouterr().out
    assert code == 0 and "40%" in out
    for secret in ("u:p@", "token=abc", "X-Amz-Signature=ff00"):
        assert secret not in out, secret
    assert "acme-research.org/x?token=***&page=2" in out and "X-Amz-Signature=***&q=1" in out


def test_check_leaves_out_links_that_are_not_sources(
    tmp_path: Path,
    source_server: SourceServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = source_server.add("/p", PAGE)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".citecheckignore").write_text("# our wiki\n^https://wiki\\.acme\\.org/\n")
    (tmp_path / ".citecheck.toml").write_text("max_claims = 900\n")
    (tmp_path / "a.md").write_text(
        "The preview server runs at http://localhost:8000 while you edit.\n\n"
        "Uptime was 99.9% in 2024 ([wiki](https://wiki.acme.org/uptime)).\n\n"
        "Latency fell 30% in 2024 ([status](https://status.acme-internal.net/q3)).\n\n"
        f"The survey collected 14,000 responses [s]({url}).\n"
    )
    args = ["check", "a.md", "--judge", "none", "--allow-private-host", "127.0.0.1", "--format", "json"]
    code = main([*args, "--exclude", "acme-internal\\.net"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 0, err
    assert report["links_excluded"] == {"localhost": 1, "pattern": 2} and report["total_links_excluded"] == 3
    assert report["total_citations_found"] == 1 and report["total_unsourced"] == 2
    assert "citecheck: note: max_claims = 900 in .citecheck.toml is above the command line's 200" in err
    # A broken pattern is an error naming it.
    assert main([*args, "--exclude", "(oops"]) == 2
    assert "'(oops' is not a valid regular expression" in capsys.readouterr().err


def test_report_files_are_never_written_through_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30: `citecheck check -o citecheck-report/report.md` run in a checkout a PR can
    write, which commits that path as a link to a file of the runner's (or a folder on the way
    as a link elsewhere). Before, the report was written through the link."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    (work / "out").mkdir(parents=True)
    elsewhere.mkdir()
    (work / "a.md").write_text("Nothing to check here.\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("keep\n")
    (work / "out/report.md").symlink_to(secret)
    (work / "linked").symlink_to(elsewhere)
    monkeypatch.chdir(work)
    args = ["check", "a.md", "--judge", "none", "--output", "out/report.md", "--json", "linked/r.json"]
    code = main([*args, "--sarif", "out/r.sarif"])
    err = capsys.readouterr().err
    assert code == 2
    assert secret.read_text() == "keep\n" and list(elsewhere.iterdir()) == []
    assert "out/report.md is a symbolic link: not written through it" in err
    assert "linked is a symbolic link: not written through it" in err
    assert "[unsafe-path]" in err and "what to do: write the report to a path without" in err
    # The other file is written; the links are left as they were.
    assert json.loads((work / "out/r.sarif").read_text())["version"] == "2.1.0"
    assert (work / "out/report.md").is_symlink() and (work / "linked").is_symlink()


LEAKY_KEY = "sk-proj-" + "Lk7Qw2Ex9Rt4Yu1Io6Pa3Sd8Fg5Hj0ZxCv"


def test_check_redacts_an_echoed_key_and_url_credentials_in_every_format(
    tmp_path: Path,
    source_server: SourceServer,
    openai_server: LLMServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 30: the judge echoes the run's key in its rationale and evidence, raw, encoded, cut
    short, as base64 and with zero-width characters; a claim cites a URL with userinfo, a token
    and the key itself in its query. No format, no line on standard error, holds any of it."""
    openai_server.responder = echo_key_judge
    page = source_server.add("/p", PAGE)
    creds = page.replace("http://", "http://reader:s3cret-pass@") + f"?token=tok-abc-123&q={LEAKY_KEY}"
    doc = tmp_path / "a.md"
    doc.write_text(
        f"The survey collected 14,000 responses [s]({page}).\n\n"
        f"The survey collected responses in 112 countries [t]({creds}).\n"
    )
    monkeypatch.setenv("OPENAI_API_KEY", LEAKY_KEY)
    files = {name: tmp_path / f"report.{name}" for name in ("json", "markdown", "sarif")}
    args = ["check", str(doc), "--judge", "openai", "--base-url", openai_server.base_url]
    args += ["--allow-private-host", "127.0.0.1", "--format", "text"]
    code = main([*args, *(f"--{name}={path}" for name, path in files.items())])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    # The attack took place: the key was sent, and came back in the judge's answers.
    assert {request_key(call) for call in openai_server.calls} == {LEAKY_KEY}
    outputs = {"text": out, "stderr": err, **{name: p.read_text() for name, p in files.items()}}
    for name, text in outputs.items():
        assert leaks(text, LEAKY_KEY) == [], name
        for secret in ("s3cret-pass", "tok-abc-123"):
            assert secret not in text, (name, secret)
    report = json.loads(outputs["json"])
    judged = [c["judge"] for c in report["claims"] if c["judge"]]
    assert judged and all(
        "raw: ***" in j["rationale"] and "zero-width interleaved: ***" in j["rationale"] for j in judged
    )
    urls = [cit["url"] for c in report["claims"] for cit in c["citations"]]
    assert any(u.startswith("http://***@127.0.0.1") and "token=***&q=***" in u for u in urls), urls


def test_extract_skipped_lists_what_a_rule_set_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 31: what extraction leaves out is named, with its rule; a cited description is kept."""
    doc = tmp_path / "a.md"
    doc.write_text(
        "Join the #falco channel on the [Kubernetes Slack](https://slack.k8s.io)\n\n"
        "[Docker](https://docker.com) is a tool for packaging applications.\n",
        encoding="utf-8",
    )
    assert main(["extract", str(doc), "--skipped"]) == 0
    out = capsys.readouterr().out
    assert f"{doc}:3  hyperlinked  Docker is a tool for packaging applications." in out
    assert f"{doc}:1  skipped (pointer, cited)  Join the #falco channel on the Kubernetes Slack" in out
    assert main(["extract", str(doc), "--format", "json", "--skipped"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [(s["line"], s["rule"], s["cited"]) for s in payload["skipped"]] == [(1, "pointer", True)]
    assert main(["extract", str(doc), "--format", "json"]) == 0
    assert "skipped" not in json.loads(capsys.readouterr().out)


# -- the cache: out of the checked tree, signed with the user's secret (issue 30, point 9) --------

REPORT_PAGE = (
    "<html><body><article><p>Sales grew 10% in 2023, the annual report says, after two flat years "
    "in which the company restructured.</p></article></body></html>"
)


def test_check_refuses_a_cache_dir_inside_the_checked_repository(
    tmp_path: Path,
    source_server: SourceServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A change commits a forged entry into the cache folder of the repository the CLI checks;
    before, the CLI read it and the false claim passed."""
    url = source_server.add("/report", REPORT_PAGE)
    repo = Repo(tmp_path / "repo")
    repo.commit(
        {
            "docs/a.md": f"Sales grew 25% in 2023 [report]({url}).\n",
            f".citecheck-cache/{entry_name(url)}": forged_entry(url, fetched_at=time.time()),
        }
    )
    monkeypatch.chdir(repo.root)
    common = ["--judge", "none", "--allow-private-host", "127.0.0.1", "--format", "json"]
    code = main(["check", "docs", "--cache-dir", ".citecheck-cache", *common])
    err = capsys.readouterr().err
    assert code == 2 and source_server.hits() == 0
    assert f"--cache-dir .citecheck-cache is inside {repo.root.resolve()}, which this run checks" in err
    assert "keep the cache outside the repository, e.g. --cache-dir ~/.cache/citecheck" in err
    # Nor by another path to it, nor when the run checks one file, from a subfolder, or a diff.
    (tmp_path / "link").symlink_to(repo.root / ".citecheck-cache")
    monkeypatch.chdir(repo.root / "docs")
    for args in (
        ["a.md", "--cache-dir", str(repo.root / ".citecheck-cache")],
        ["a.md", "--cache-dir", str(tmp_path / "link")],
        ["--diff", "HEAD", "--cache-dir", "../.citecheck-cache"],
    ):
        assert main(["check", *args, *common]) == 2, args
        assert "which this run checks" in capsys.readouterr().err
    # A folder outside any repository is a tree of its own; outside them all, the cache is used.
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "b.md").write_text(f"Sales grew 25% in 2023 [report]({url}).\n", encoding="utf-8")
    assert main(["check", str(loose), "--cache-dir", str(loose / "cache"), *common]) == 2
    assert "which this run checks" in capsys.readouterr().err
    assert main(["check", "a.md", "--cache-dir", str(tmp_path / "cache"), *common]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["claims"][0]["verdict"] == "fail" and source_server.hits() == 1  # the real page


def test_check_signs_its_cache_with_the_users_own_secret(
    tmp_path: Path,
    source_server: SourceServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    own_state_folder: Path,
) -> None:
    url = source_server.add("/report", REPORT_PAGE)
    doc = tmp_path / "a.md"
    doc.write_text(f"Sales grew 10% in 2023 [report]({url}).\n", encoding="utf-8")
    args = ["check", str(doc), "--cache-dir", str(tmp_path / "cache"), "--judge", "none"]
    args += ["--allow-private-host", "127.0.0.1", "--format", "json"]
    assert main(args) == 0 and main(args) == 0
    secret_file = own_state_folder / "citecheck" / "cache-secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(secret_file.parent.stat().st_mode) == 0o700
    assert source_server.hits() == 1  # the second run read the page from the cache
    capsys.readouterr()
    # Another user (another secret) writing or reading the same folder: nothing is shared.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "someone-else"))
    assert main(args) == 0 and source_server.hits() == 2
    report = json.loads(capsys.readouterr().out)
    assert "1 cache entry rejected (1 not signed with this cache's secret)" in " ".join(report["notes"])
    # A cache folder that holds the secret's own file is refused.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "cache" / "state"))
    assert main(args) == 2
    assert "holds the file of the cache's secret" in capsys.readouterr().err
