"""Publish stage: workflow-command escaping, outputs, annotations, summary, sticky PR comment."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from citecheck.github.publish import (
    COMMENT_MARKER,
    ActionLog,
    PullRequestClient,
    annotation_commands,
    comment_body,
    escape_data,
    escape_property,
    format_outputs,
    mask_commands,
    summary_markdown,
    workflow_command,
    write_outputs,
)
from citecheck.models import ClaimKind, ClaimResult, Report, Verdict
from citecheck.output.common import GITHUB_COMMENT_LIMIT, STEP_SUMMARY_LIMIT_BYTES
from tests.servers.github_server import GitHubServer
from tests.servers.gitrepo import Repo

REPO = "octo/docs"


@pytest.fixture
def gh() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        yield server


def _unescape_data(text: str) -> str:
    # What the runner does (ActionCommand.UnescapeData).
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _unescape_property(text: str) -> str:
    return _unescape_data(text.replace("%3A", ":").replace("%2C", ","))


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """Parse one workflow command line the way the runner's v2 parser does."""
    assert line.startswith("::")
    end = line.index("::", 2)
    head, message = line[2:end], line[end + 2 :]
    name, _, props_text = head.partition(" ")
    props = {}
    for pair in filter(None, props_text.split(",")):
        key, _, value = pair.partition("=")
        props[key] = _unescape_property(value)
    return name, props, _unescape_data(message)


def _claim(
    text: str, verdict: Verdict, *, file: str = "docs/a.md", line: int = 3, **kw: object
) -> ClaimResult:
    return ClaimResult(
        text=text, kinds=[ClaimKind.statistic], file=file, line=line, column=1, verdict=verdict, **kw
    )


def _report(claims: list[ClaimResult], fail_on: list[str] | None = None) -> Report:
    from citecheck.config import Settings
    from citecheck.output.report import build_report

    settings = Settings() if fail_on is None else Settings(fail_on=fail_on)
    return build_report(claims, settings=settings)


def test_escaping_round_trips_and_cannot_break_out() -> None:
    nasty = "50% of :: users,\r\nsaid ::set-output name=x::y\n::add-mask::z"
    line = workflow_command("error", nasty, file="docs/we,ird:name.md", line=4, title="a::b, c\nd")
    assert "\n" not in line and "\r" not in line
    name, props, message = _parse_command(line)
    assert name == "error" and message == nasty
    assert props == {"file": "docs/we,ird:name.md", "line": "4", "title": "a::b, c\nd"}
    assert escape_data("100%") == "100%25"
    assert escape_property("a:b,c") == "a%3Ab%2Cc"


def test_masks_every_line_of_secrets() -> None:
    lines = mask_commands(["sk-ant-123456", "line-one-secret\nline-two-secret", "", None, "ab"])
    assert "::add-mask::sk-ant-123456" in lines
    assert "::add-mask::line-one-secret" in lines and "::add-mask::line-two-secret" in lines
    assert not any(line.endswith("::ab") for line in lines)  # too short to mask usefully


def test_untrusted_text_is_fenced_by_stop_commands() -> None:
    out = io.StringIO()
    log = ActionLog(out)
    log.untrusted("claim text\n::error::pwned\n::add-mask::x")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("::stop-commands::")
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) >= 32 and token not in "claim text ::error::pwned"
    assert lines[-1] == f"::{token}::"
    assert lines[1:-1] == ["claim text", "::error::pwned", "::add-mask::x"]
    log.info("::not-a-command")
    assert out.getvalue().splitlines()[-1] == " ::not-a-command"


def test_outputs_use_heredoc_delimiters_for_multiline_values(tmp_path: Path) -> None:
    path = tmp_path / "out"
    write_outputs(path, {"passed": "false", "notes": "line1\nEOF\nline3"})
    text = path.read_text()
    parsed: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        name, delim = lines[i].split("<<")
        j = lines.index(delim, i + 1)
        parsed[name] = "\n".join(lines[i + 1 : j])
        i = j + 1
    assert parsed == {"passed": "false", "notes": "line1\nEOF\nline3"}
    assert re.fullmatch(
        r"passed<<ghadelimiter_[0-9a-f-]{36}\nfalse\nghadelimiter_[0-9a-f-]{36}\n",
        format_outputs({"passed": "false"}),
    )


def test_annotations_name_file_and_line_first_ten_only() -> None:
    claims = [
        _claim(
            f"Claim {i} has 5% growth",
            Verdict.fail,
            line=i,
            reason="page says 7%",
            source_url="https://e.x/a",
        )
        for i in range(1, 14)
    ]
    claims.append(_claim("Fine 1%", Verdict.pass_, line=40))
    claims.append(_claim("No source 2%", Verdict.unsourced, line=41))  # unsourced not in fail-on
    report = _report(claims)
    lines, rest = annotation_commands(report)
    assert len(lines) == 10 and rest == 3
    name, props, message = _parse_command(lines[0])
    assert name == "error" and props["file"] == "docs/a.md" and props["line"] == "1"
    assert props["title"] == "citecheck: unsupported"
    assert "page says 7%" in message and "Claim 1 has 5% growth" in message
    lines, rest = annotation_commands(_report(claims, fail_on=["unsourced"]))
    assert [(_parse_command(x)[1]["line"]) for x in lines] == ["41"] and rest == 0


def test_comment_body_fits_github_limit_and_points_to_summary() -> None:
    claims = [_claim(f"Claim number {i} says 12% " + "x" * 300, Verdict.fail, line=i) for i in range(400)]
    report = _report(claims)
    body = comment_body(report, hint="the [job summary](https://github.com/o/r/actions/runs/1)")
    assert body.startswith(COMMENT_MARKER + "\n")
    assert len(body) <= GITHUB_COMMENT_LIMIT
    assert "job summary" in body and "### Summary" in body and "- Total claims: 400" in body
    full = summary_markdown(report, preface="> note\n\n")
    assert full.startswith("> note\n\n## Verification Report")
    assert len(full.encode()) <= STEP_SUMMARY_LIMIT_BYTES and "Claim number 399" in full


def test_claim_text_cannot_mention_or_inject_html_in_comment() -> None:
    report = _report([_claim("@octocat says <img src=x onerror=alert(1)> 40% ## heading", Verdict.fail)])
    body = comment_body(report, hint="the job summary")
    assert "@octocat" not in body and "<img" not in body


def _client(gh: GitHubServer, number: int = 7) -> PullRequestClient:
    return PullRequestClient(token=gh.token, api_url=gh.url, repository=REPO, number=number)


def test_sticky_comment_created_then_updated(gh: GitHubServer) -> None:
    gh.add_comment(REPO, 7, "LGTM", user={"login": "alice", "id": 1, "type": "User"})
    client = _client(gh)
    assert client.upsert_comment(COMMENT_MARKER + "\nfirst") == "created"
    assert client.upsert_comment(COMMENT_MARKER + "\nsecond") == "updated"
    comments = gh.comments(REPO, 7)
    assert [c["body"] for c in comments] == ["LGTM", COMMENT_MARKER + "\nsecond"]
    assert len(gh.requests("POST")) == 1 and len(gh.requests("PATCH")) == 1
    assert all(r.authorization == f"token {gh.token}" for r in gh.requests())


def test_sticky_comment_found_across_pages_and_prefers_bot(gh: GitHubServer) -> None:
    gh.add_comment(REPO, 7, f"quoting {COMMENT_MARKER}", user={"login": "mallory", "id": 2, "type": "User"})
    for i in range(145):  # two pages of 100
        gh.add_comment(REPO, 7, f"chatter {i}", user={"login": "bob", "id": 3, "type": "User"})
    ours = gh.add_comment(REPO, 7, COMMENT_MARKER + "\nold")
    assert _client(gh).upsert_comment(COMMENT_MARKER + "\nnew") == "updated"
    bodies = {c["id"]: c["body"] for c in gh.comments(REPO, 7)}
    assert bodies[ours["id"]] == COMMENT_MARKER + "\nnew"
    assert sum(COMMENT_MARKER in b for b in bodies.values()) == 2  # mallory's untouched, none added
    assert len([r for r in gh.requests("GET") if r.path.endswith("/comments")]) >= 2  # followed Link


def test_no_comment_created_when_told_not_to(gh: GitHubServer) -> None:
    assert _client(gh).upsert_comment("x", create=False) is None
    assert gh.comments(REPO, 7) == []


def test_forbidden_comment_raises_for_the_caller_to_warn(gh: GitHubServer) -> None:
    from github import GithubException

    gh.state.forbid_writes = True
    with pytest.raises(GithubException) as info:
        _client(gh).upsert_comment(COMMENT_MARKER + "\nx")
    assert info.value.status == 403


def test_pr_files_from_api(gh: GitHubServer) -> None:
    gh.add_pr_files(
        REPO,
        7,
        [
            {"filename": f"docs/{i}.md", "status": "modified", "patch": "@@ -1 +1 @@\n-a\n+b"}
            for i in range(135)  # two pages of 100
        ]
        + [{"filename": "new.md", "status": "renamed", "previous_filename": "old.md"}],
    )
    listing = _client(gh).pr_files()
    assert len(listing.files) == 136 and listing.changed_files == 136
    assert listing.files[0].filename == "docs/0.md" and listing.files[0].patch.startswith("@@")
    assert listing.files[-1].previous_filename == "old.md" and listing.files[-1].patch is None
    # GitHub lists at most 3,000 files; the pull object still counts them all.
    gh.state.files_cap = 120
    listing = _client(gh).pr_files()
    assert len(listing.files) == 120 and listing.changed_files == 136


def test_pr_files_and_contents_from_a_real_repository(gh: GitHubServer, tmp_path: Path) -> None:
    repo = Repo(tmp_path / "origin")
    base = repo.commit({"docs/a.md": "one\ntwo\n", ".citecheck.toml": 'fail_on = ["unsourced"]\n'})
    head = repo.commit({"docs/a.md": "one\n2\n", "docs/new.md": "new\n", ".citecheck.toml": None})
    gh.serve_repo(REPO, repo.root)
    gh.set_pull(REPO, 7, head_sha=head, base_sha=base)
    client = _client(gh)
    listing = client.pr_files()
    got = {f.filename: (f.status, f.patch) for f in listing.files}
    assert got["docs/a.md"] == ("modified", "@@ -1,2 +1,2 @@\n one\n-two\n+2")
    assert got["docs/new.md"][0] == "added" and got[".citecheck.toml"][0] == "removed"
    assert client.file_at(".citecheck.toml", base) == 'fail_on = ["unsourced"]\n'
    assert client.file_at(".citecheck.toml", head) is None  # 404: no such file there
    with pytest.raises(ValueError, match="docs is a folder"):
        client.file_at("docs", base)


def test_commands_off_block_covers_library_output_and_errors() -> None:
    out = io.StringIO()
    log = ActionLog(out)
    with pytest.raises(RuntimeError), log.commands_off():
        out.write("::error::printed by a library quoting a page\n")
        raise RuntimeError("boom")
    lines = out.getvalue().splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert lines[0].startswith("::stop-commands::") and len(token) == 32
    assert lines[-1] == f"::{token}::"  # resumed even though the block raised
