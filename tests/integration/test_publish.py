"""Publish stage: workflow-command escaping, outputs, annotations, summary, sticky PR comment."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from citecheck.errors import ConfigError
from citecheck.github.publish import (
    COMMENT_LIMIT_BYTES,
    COMMENT_LIMIT_CHARS,
    COMMENT_MARKER,
    ActionLog,
    Annotation,
    CheckRunError,
    CheckRunPosted,
    DiffLinks,
    GitHubAPIError,
    Identity,
    PullRequestClient,
    RepoClient,
    StageLog,
    annotation_commands,
    annotations,
    body_too_long,
    check_comment_id,
    check_run_text,
    comment_body,
    comment_marker,
    escape_data,
    escape_property,
    format_outputs,
    log_failures,
    mask_commands,
    per_step,
    shown_lines,
    summary_markdown,
    workflow_command,
    write_outputs,
)
from citecheck.models import ClaimKind, ClaimResult, Report, Verdict
from citecheck.output.common import STEP_SUMMARY_LIMIT_BYTES
from citecheck.progress import Counts, EventKind, ProgressEvent, Stage
from citecheck.select import PRFile
from tests.runner_log import read_log
from tests.servers.github_server import BOT, GitHubServer
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
    # The runner trims leading whitespace before it looks for a command: the colons are parted.
    log.info("  ::not-a-command")
    assert out.getvalue().splitlines()[-1] == "  : :not-a-command"


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


def test_annotations_name_file_and_line_ten_of_each_kind() -> None:
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
    claims += [
        _claim(f"Unsure {i}%", Verdict.not_verified, line=50 + i, reason="judge off") for i in range(12)
    ]
    report = _report(claims, fail_on=["unsupported"])
    lines, rest = annotation_commands(report)
    parsed = [_parse_command(x) for x in lines]
    assert [name for name, _, _ in parsed] == ["error"] * 10 + ["warning"] + ["notice"] * 10
    assert rest == 3 + 2  # the runner would show no more than 10 errors and 10 notices of a step
    name, props, message = parsed[0]
    assert name == "error" and props["file"] == "docs/a.md" and props["line"] == "1"
    assert props["title"] == "citecheck: unsupported"
    assert "page says 7%" in message and "Claim 1 has 5% growth" in message
    assert parsed[10][1]["line"] == "41" and parsed[10][1]["title"] == "citecheck: unsourced"
    assert parsed[11][1]["line"] == "50" and parsed[11][1]["title"] == "citecheck: not-verified"
    # What fails the check is an error, whatever its verdict.
    lines, rest = annotation_commands(_report(claims, fail_on=["unsourced"]))
    errors = [_parse_command(x) for x in lines if x.startswith("::error")]
    assert [props["line"] for _, props, _ in errors] == ["41"] and rest == 3 + 2
    every = annotations(report)
    assert [a.level for a in every].count("error") == 13 and len(every) == 26
    assert per_step(every, 10) == [a for a in every if a.level != "error" or a.line <= 10][:21]


def test_comment_body_fits_github_limit_and_points_to_summary() -> None:
    # Two-byte characters: a limit counted in characters would let this body past GitHub's bytes.
    claims = [_claim(f"Claim number {i} says 12% " + "é" * 300, Verdict.fail, line=i) for i in range(1000)]
    report = _report(claims)
    body = comment_body(report, hint="the [job summary](https://github.com/o/r/actions/runs/1)")
    headline = "❌ citecheck failed: 1000 of 1000 claims unsupported · $0.00"
    assert body.startswith(f"{COMMENT_MARKER}\n{headline}\n\n## Verification Report\n")
    assert COMMENT_LIMIT_BYTES - 1000 < len(body.encode("utf-8")) <= COMMENT_LIMIT_BYTES
    assert "job summary" in body and "### Summary" in body and "- Total claims: 1000" in body
    assert "\n\n*… " in body  # the count of lines left out is a paragraph of its own
    documented = comment_body(report, hint="the job summary", max_bytes=None, max_chars=COMMENT_LIMIT_CHARS)
    assert COMMENT_LIMIT_CHARS - 1000 < len(documented) <= COMMENT_LIMIT_CHARS
    full = summary_markdown(report, preface="> note\n\n")
    assert full.startswith("> note\n\n## Verification Report")
    assert len(full.encode()) <= STEP_SUMMARY_LIMIT_BYTES and "Claim number 999" in full


def test_a_first_line_opens_the_comment_before_its_outcome_and_survives_the_cut() -> None:
    # A fork PR's "not judged" note: the first line a reader sees, on the comment and the check run.
    claims = [_claim(f"Claim number {i} says 12% " + "é" * 300, Verdict.fail, line=i) for i in range(1000)]
    report = _report(claims)
    note = "> **Claims were not judged:** this pull request comes from a fork, …"
    outcome = "❌ citecheck (docs) failed: 1000 of 1000 claims unsupported · $0.00"
    body = comment_body(report, hint="the job summary", comment_id="docs", first_line=note, max_bytes=30_000)
    assert body.splitlines()[:5] == [comment_marker("docs"), note, "", outcome, ""]
    assert 28_000 < len(body.encode("utf-8")) <= 30_000 and "shortened to fit" in body
    assert comment_body(report, hint="h").splitlines()[1].startswith("❌ citecheck failed")  # none: outcome
    _, summary = check_run_text(report, name="citecheck (docs)", hint="h", link=None, first_line=note)
    assert summary.splitlines()[:3] == [note, "", outcome]


def test_claim_text_cannot_mention_or_inject_html_in_comment() -> None:
    report = _report([_claim("@octocat says <img src=x onerror=alert(1)> 40% ## heading", Verdict.fail)])
    body = comment_body(report, hint="the job summary")
    assert "@octocat" not in body and "<img" not in body


def test_claim_text_cannot_link_or_cross_reference_in_comment() -> None:
    """A full issue URL in a comment cross-references that issue, and GitHub links bare
    `https://` and `www.` text: in claim text they are shown, not linked."""
    text = "As https://github.com/o/r/issues/1 and HTTP://github.com/o/r/pull/2 and www.evil.example say, 40%"
    body = comment_body(_report([_claim(text, Verdict.fail)]), hint="the job summary")
    line = next(x for x in body.splitlines() if "40%" in x)
    assert "https://" not in line.lower() and "www." not in line.lower()
    assert "github.com/o/r/issues/1" in line and "evil.example" in line  # still readable
    visible_text = line.replace("\u200b", "").replace("\\", "")
    assert "https://github.com/o/r/issues/1" in visible_text and "www.evil.example" in visible_text


def test_log_lines_redact_secrets_mask_urls_and_drop_controls() -> None:
    from citecheck.redact import Redactor

    key, token = "sk-proj-" + "Q7w8E9r0T1y2U3i4O5p6" * 2, "ghs_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"
    out = io.StringIO()
    log = ActionLog(out, Redactor([key, token]))
    log.error(f"every judge call failed; last error: Authorization: Bearer {key}")
    log.warning(f"could not post the PR comment (HTTP 403 Bad credentials (Authorization: token {token}))")
    log.info(f"fetching https://u:p@h/x?token=abc for {key[:30]}")
    log.untrusted(f"docs/a.md:3: fail: \u202egnp.exe\u202c 40% \x1b[31mred\x1b[0m {token}")
    log.emit(workflow_command("error", f"reason {token}", file="docs/a.md", line=3))
    text = out.getvalue()
    assert key not in text and key[:20] not in text and token not in text
    assert "u:p@" not in text and "token=abc" not in text and "https://***@h/x?token=***" in text
    assert "\u202e" not in text and "\u202c" not in text and "\x1b" not in text
    assert "gnp.exe" in text and "Bearer ***" in text and text.count("***") >= 6


def test_annotations_carry_no_control_or_bidi_characters() -> None:
    claim = _claim(
        "Revenue \u202erose\u202c 5%\x1b]8;;https://evil\x07 in \u2066 2023\u2069",
        Verdict.fail,
        reason="page says \u200f7%\x00",
        source_url="https://e.x/\u202ea",
    )
    lines, _ = annotation_commands(_report([claim]))
    _, props, message = _parse_command(lines[0])
    for bad in ("\u202e", "\u202c", "\u2066", "\u2069", "\u200f", "\x1b", "\x07", "\x00"):
        assert bad not in lines[0], repr(bad)
    assert "Revenue rose 5%" in message and "page says 7%" in message and props["file"] == "docs/a.md"


def _client(gh: GitHubServer, number: int = 7) -> PullRequestClient:
    return PullRequestClient(token=gh.token, api_url=gh.url, repository=REPO, number=number)


MALLORY = {"login": "mallory", "id": 2, "type": "User"}
OTHER_APP = {"login": "other-app[bot]", "id": 77, "type": "Bot"}
OCTOCAT = {"login": "octocat", "id": 583231, "type": "User"}


def _upsert(gh: GitHubServer, body: str, **kw: bool) -> str | None:
    client = _client(gh)
    return client.upsert_comment(body, client.identity(), **kw)


def test_sticky_comment_created_then_updated(gh: GitHubServer) -> None:
    gh.add_comment(REPO, 7, "LGTM", user={"login": "alice", "id": 1, "type": "User"})
    assert _upsert(gh, COMMENT_MARKER + "\nfirst") == "created"
    assert _upsert(gh, COMMENT_MARKER + "\nsecond") == "updated"
    comments = gh.comments(REPO, 7)
    assert [c["body"] for c in comments] == ["LGTM", COMMENT_MARKER + "\nsecond"]
    assert comments[1]["user"] == BOT  # the token's own account wrote it
    assert len(gh.requests("POST")) == 1 + 2 and len(gh.requests("PATCH")) == 1  # + 2 GraphQL viewer
    assert all(r.authorization == f"token {gh.token}" for r in gh.requests())


def test_token_identity_from_graphql_viewer_else_rest_user(gh: GitHubServer) -> None:
    client = _client(gh)
    # GITHUB_TOKEN: GraphQL names its bot; REST GET /user is refused to an installation token.
    assert client.identity() == Identity("github-actions[bot]", 41898282)
    assert [r.path for r in gh.requests()] == ["/graphql"]
    gh.state.graphql = False
    assert client.identity() is None  # GET /user: 403 for an App's token, so nobody is known
    assert [r.path for r in gh.requests()][-1] == "/user"
    gh.state.identity = dict(OCTOCAT)  # a personal access token
    assert client.identity() == Identity("octocat", 583231)
    gh.state.graphql = True
    assert client.identity() == Identity("octocat", 583231)


def test_identity_matches_by_id_else_by_login_without_the_bot_suffix() -> None:
    from types import SimpleNamespace as User

    me = Identity("github-actions[bot]", 41898282)
    assert me.authored(User(login="github-actions[bot]", id=41898282, type="Bot"))
    assert not me.authored(User(login="github-actions[bot]", id=666, type="Bot"))  # the id decides
    assert not me.authored(None)
    by_login = Identity("github-actions")  # GraphQL's short form of a bot's login, no id
    assert by_login.authored(User(login="github-actions[bot]", id=None, type="Bot"))
    assert not by_login.authored(User(login="github-actions-fan", id=None, type="User"))


def test_sticky_comment_is_only_ever_the_tokens_own(gh: GitHubServer) -> None:
    """A marker in a comment by another user or another App does not capture the report."""
    theirs = [
        gh.add_comment(REPO, 7, f"quoting {COMMENT_MARKER}", user=MALLORY),
        gh.add_comment(REPO, 7, COMMENT_MARKER + "\nfake report", user=OTHER_APP),
    ]
    for i in range(145):  # two pages of 100
        gh.add_comment(REPO, 7, f"chatter {i}", user={"login": "bob", "id": 3, "type": "User"})
    # Only others' marked comments: none is edited, ours is created.
    assert _upsert(gh, COMMENT_MARKER + "\nfirst") == "created"
    assert gh.requests("PATCH") == []
    bodies = {c["id"]: c["body"] for c in gh.comments(REPO, 7)}
    assert [bodies[c["id"]] for c in theirs] == [c["body"] for c in theirs]
    ours = gh.comments(REPO, 7)[-1]
    assert ours["user"] == BOT and ours["body"] == COMMENT_MARKER + "\nfirst"
    # The next run finds ours (past two pages) and updates it, and only it.
    assert _upsert(gh, COMMENT_MARKER + "\nsecond") == "updated"
    bodies = {c["id"]: c["body"] for c in gh.comments(REPO, 7)}
    assert bodies[ours["id"]] == COMMENT_MARKER + "\nsecond"
    assert [bodies[c["id"]] for c in theirs] == [c["body"] for c in theirs]
    assert [r.path for r in gh.requests("PATCH")] == [f"/repos/{REPO}/issues/comments/{ours['id']}"]
    assert len([r for r in gh.requests("GET") if r.path.endswith("/comments")]) >= 4  # followed Link


def test_a_user_tokens_comment_is_its_users_own(gh: GitHubServer) -> None:
    gh.state.identity = dict(OCTOCAT)
    bot = gh.add_comment(REPO, 7, COMMENT_MARKER + "\nby the Actions bot", user=BOT)
    mine = gh.add_comment(REPO, 7, COMMENT_MARKER + "\nold", user=OCTOCAT)
    assert _upsert(gh, COMMENT_MARKER + "\nnew") == "updated"
    bodies = {c["id"]: c["body"] for c in gh.comments(REPO, 7)}
    assert bodies == {bot["id"]: bot["body"], mine["id"]: COMMENT_MARKER + "\nnew"}


def test_unknown_identity_edits_nothing(gh: GitHubServer) -> None:
    ours = gh.add_comment(REPO, 7, COMMENT_MARKER + "\nold")
    assert _client(gh).upsert_comment(COMMENT_MARKER + "\nnew", None) == "created"
    assert gh.requests("PATCH") == [] and gh.comments(REPO, 7)[0]["body"] == ours["body"]
    assert _client(gh).upsert_comment("x", None, create=False) is None


def test_no_comment_created_when_told_not_to(gh: GitHubServer) -> None:
    assert _upsert(gh, "x", create=False) is None
    assert gh.comments(REPO, 7) == []


def test_forbidden_comment_raises_for_the_caller_to_warn(gh: GitHubServer) -> None:
    gh.state.forbid_writes = True
    with pytest.raises(GitHubAPIError) as info:
        _upsert(gh, COMMENT_MARKER + "\nx")
    # Which request failed, and GitHub's answer: the caller's warning says both.
    assert info.value.status == 403 and info.value.call == f"POST /repos/{REPO}/issues/7/comments"
    assert (
        str(info.value)
        == f"HTTP 403 Resource not accessible by integration (POST /repos/{REPO}/issues/7/comments)"
    )


def test_an_api_call_that_gets_no_answer_names_the_request() -> None:
    client = PullRequestClient("t0ken", "http://127.0.0.1:9", REPO, 7, timeout_s=2)
    with pytest.raises(GitHubAPIError) as info:
        client.pr_files()
    assert info.value.status is None and info.value.call == f"GET /repos/{REPO}/pulls/7/files"
    assert "ConnectionError" in info.value.message


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
    # A commit GitHub does not have is not a commit without the file.
    with pytest.raises(GitHubAPIError, match="No commit found") as info:
        client.file_at(".citecheck.toml", "f" * 40)
    assert info.value.status == 404
    assert info.value.call == f"GET /repos/{REPO}/contents/.citecheck.toml?ref={'f' * 40}"
    assert client.commits() == (head, base)
    # A comparison of two commits (a merge group's files), as GitHub lists it.
    got = {f.filename: f.status for f in client.compare_files(base, head)}
    assert got == {"docs/a.md": "modified", "docs/new.md": "added", ".citecheck.toml": "removed"}


def _stage_event(kind: EventKind, stage: Stage, **counts: int) -> ProgressEvent:
    return ProgressEvent(kind, stage, Counts(**counts), 0.0)


def test_stages_are_groups_in_order_and_their_output_is_inert() -> None:
    out = io.StringIO()
    stages = StageLog(ActionLog(out))
    stages.enter("select")
    out.write("::endgroup::\n::error::printed by a library quoting a page\n")  # during selection
    stages.commands_on()
    stages.log.warning("a note of ours")  # obeyed: commands are on again
    stages.close()
    for stage in (Stage.extract, Stage.fetch, Stage.judge, Stage.report):
        stages(_stage_event(EventKind.started, stage, files=1))
        out.write(f"  ::endgroup::\n::set-output name=x::{stage}\n")  # whatever the stage prints
        stages(_stage_event(EventKind.progress, stage, files=1))
        stages(_stage_event(EventKind.finished, stage, files=1, files_read=1))
    stages.commands_on()
    stages.log.warning("published")
    stages.close()

    view = read_log(out.getvalue())
    assert view.titles == [
        "citecheck: select",
        "citecheck: extract",
        "citecheck: fetch + checks",
        "citecheck: judge",
        "citecheck: report and publish",
    ]
    assert view.problems == [] and not view.stopped_at_end and not view.open_at_end
    assert view.commands == [("warning", "a note of ours"), ("warning", "published")]
    fetch = view.group("citecheck: fetch + checks").lines
    assert "  ::endgroup::" in fetch and "::set-output name=x::fetch" in fetch  # shown, not obeyed
    assert [line for line in fetch if line.startswith("citecheck: [")] == [
        "citecheck: [fetch + checks] done: files 1/1, claims 0 (0 s)"  # one line at the end
    ]


def test_a_stage_that_fails_leaves_its_group_with_commands_on() -> None:
    out = io.StringIO()
    stages = StageLog(ActionLog(out))
    with pytest.raises(RuntimeError):
        try:
            stages(_stage_event(EventKind.started, Stage.fetch))
            raise RuntimeError("boom")
        finally:
            stages.close()
    stages.log.error("citecheck failed: boom")
    view = read_log(out.getvalue())
    assert view.titles == ["citecheck: fetch + checks"] and view.problems == []
    assert view.commands == [("error", "citecheck failed: boom")] and not view.stopped_at_end


def test_failures_are_grouped_by_file_and_their_text_cannot_break_out() -> None:
    hostile = "Sales grew 25%\n::endgroup::\n::error::pwned\n  ##[endgroup]\n##[error]pwned too"
    claims = [
        _claim(hostile, Verdict.fail, file="docs/a.md", line=3),
        _claim("Over 3 million people use it.", Verdict.fail, file="docs/b ##[endgroup].md", line=1),
        _claim("Revenue rose 5% in 2023.", Verdict.fail, file="docs/a.md", line=9),
    ]
    out = io.StringIO()
    log = ActionLog(out)
    log_failures(log, claims)
    log.info("after ##[error]x ::error::y")
    view = read_log(out.getvalue())
    assert view.titles == [
        "citecheck: docs/a.md: 2 failing claim(s)",
        "citecheck: docs/b # #[endgroup].md: 1 failing claim(s)",
    ]
    assert view.problems == [] and view.commands == [] and view.markers == []
    assert not view.stopped_at_end and not view.open_at_end
    shown = view.groups[0].lines
    assert shown[0] == "docs/a.md:3: fail: Sales grew 25%" and "::error::pwned" in shown
    assert "  # #[endgroup]" in shown and shown[-1] == "docs/a.md:9: fail: Revenue rose 5% in 2023."
    assert view.outside == ["after # #[error]x ::error::y"]


# ---------------------------------------------------------------- check runs (Checks API)


def _annotations(n: int, *, bad_at: int | None = None) -> list[Annotation]:
    return [
        Annotation(
            "error" if i % 3 else "warning",
            "" if i == bad_at else "docs/a.md",  # no path: GitHub refuses the request (422)
            i + 1,
            1,
            "citecheck: unsupported",
            f"the page says {i}%",
        )
        for i in range(n)
    ]


def _post(gh: GitHubServer, found: list[Annotation], conclusion: str = "failure") -> CheckRunPosted:
    client = RepoClient(gh.token, gh.url, REPO)
    return client.post_check_run(
        name="citecheck", head_sha="a" * 40, title="t", summary="s", annotations=found, conclusion=conclusion
    )


def test_a_check_run_takes_every_annotation_fifty_at_a_time(gh: GitHubServer) -> None:
    gh.state.checks_write = True
    found = _annotations(120)
    posted = _post(gh, found)
    (run,) = gh.check_runs(REPO)
    assert posted.annotated == 120 and posted.url == f"https://github.com/{REPO}/runs/{run['id']}"
    assert run["status"] == "completed" and run["conclusion"] == "failure"
    assert run["annotations"] == [a.check_run() for a in found]  # all of them, in order
    assert run["annotations"][0]["annotation_level"] == "warning"
    assert run["annotations"][1]["annotation_level"] == "failure"
    # Created in progress with no annotation, then three updates: 50, 50 and the last 20.
    creates = [r for r in gh.requests("POST") if r.path == f"/repos/{REPO}/check-runs"]
    updates = [r for r in gh.requests("PATCH") if r.path == f"/repos/{REPO}/check-runs/{run['id']}"]
    assert len(creates) == 1 and creates[0].body["status"] == "in_progress"
    assert "annotations" not in creates[0].body["output"]
    assert [len(r.body["output"]["annotations"]) for r in updates] == [50, 50, 20]
    assert [r.body.get("conclusion") for r in updates] == [None, None, "failure"]


def test_the_checks_api_refuses_more_than_fifty_annotations_a_request(gh: GitHubServer) -> None:
    from github import Auth, Github, GithubException

    gh.state.checks_write = True
    repo = Github(auth=Auth.Token(gh.token), base_url=gh.url, lazy=True).get_repo(REPO)
    output = {"title": "t", "summary": "s", "annotations": [a.check_run() for a in _annotations(51)]}
    with pytest.raises(GithubException, match="Only 50 annotations are allowed per request") as info:
        repo.create_check_run(name="citecheck", head_sha="a" * 40, output=output)
    assert info.value.status == 422 and gh.check_runs(REPO) == []


def test_without_checks_write_the_check_run_is_a_403(gh: GitHubServer) -> None:
    with pytest.raises(CheckRunError) as info:
        _post(gh, _annotations(3))
    assert info.value.status == 403 and info.value.annotated == 0 and gh.check_runs(REPO) == []


def test_a_check_run_refused_half_way_is_completed_and_says_how_far_it_got(gh: GitHubServer) -> None:
    gh.state.checks_write = True
    with pytest.raises(CheckRunError) as info:
        _post(gh, _annotations(80, bad_at=60), conclusion="neutral")
    (run,) = gh.check_runs(REPO)
    assert info.value.status == 422 and info.value.annotated == 50 and info.value.url
    assert len(run["annotations"]) == 50 and run["status"] == "completed" and run["conclusion"] == "neutral"


def test_a_check_run_needs_a_commit_the_repository_has(gh: GitHubServer, tmp_path: Path) -> None:
    repo = Repo(tmp_path / "origin")
    head = repo.commit({"docs/a.md": "one\n"})
    gh.serve_repo(REPO, repo.root)
    gh.state.checks_write = True
    client = RepoClient(gh.token, gh.url, REPO)
    kw = {"name": "citecheck", "title": "t", "summary": "s", "annotations": [], "conclusion": "success"}
    assert client.post_check_run(head_sha=head, **kw).annotated == 0
    with pytest.raises(CheckRunError, match="No commit found for SHA"):
        client.post_check_run(head_sha="f" * 40, **kw)


# ---------------------------------------------------------------- sticky comment per id, links


def test_each_comment_id_has_a_marker_no_other_contains() -> None:
    assert comment_marker() == COMMENT_MARKER == "<!-- citecheck-report -->"
    ids = ["", "docs", "docs2", "d", "api.v2_x-1"]
    markers = [comment_marker(i) for i in ids]
    for a in markers:
        assert [b for b in markers if a in b] == [a]
    assert check_comment_id(" docs ") == "docs" and check_comment_id("") == ""
    for bad in ("x -->", "a b", "-x", "<!--", "x" * 65, "ü"):
        with pytest.raises(ConfigError, match="comment-id"):
            check_comment_id(bad)


def test_sticky_comments_of_two_ids_coexist(gh: GitHubServer) -> None:
    client = _client(gh)
    me = client.identity()
    docs = comment_marker("docs")
    assert client.upsert_comment(COMMENT_MARKER + "\ndefault", me) == "created"
    assert client.upsert_comment(docs + "\ndocs", me, marker=docs) == "created"
    assert client.upsert_comment(docs + "\ndocs again", me, marker=docs) == "updated"
    assert client.upsert_comment(COMMENT_MARKER + "\ndefault again", me) == "updated"
    bodies = [c["body"] for c in gh.comments(REPO, 7)]
    assert bodies == [COMMENT_MARKER + "\ndefault again", docs + "\ndocs again"]


def test_a_too_long_comment_is_refused_as_github_does(gh: GitHubServer) -> None:
    me = _client(gh).identity()
    body = COMMENT_MARKER + "\n" + "é" * 131_060  # 262,146 bytes: over, in fewer characters
    with pytest.raises(GitHubAPIError) as info:
        _client(gh).upsert_comment(body, me)
    # The request's error names GitHub's detail from the 422's `errors`, which body_too_long reads.
    assert body_too_long(info.value) and info.value.status == 422
    assert str(info.value) == (
        "HTTP 422 Validation Failed: Body is too long (maximum is 65536 characters) "
        f"(POST /repos/{REPO}/issues/7/comments)"
    )
    assert body_too_long(info.value.__cause__)  # PyGithub's own exception reads the same
    assert _client(gh).upsert_comment(body[:-2], me) == "created"  # 262,144 bytes: accepted


def test_links_go_to_the_line_in_the_diff_else_the_file_at_the_head(tmp_path: Path) -> None:
    # The PR adds lines 3-4 of docs/a.md (its head's numbers); the checkout is a test merge whose
    # base has since put two lines at the top, so they are lines 5-6 in the workspace.
    patch = "@@ -1,2 +1,4 @@\n one\n two\n+Sales grew 25%.\n+Costs fell 3%.\n"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/a.md").write_text(
        "new 1\nnew 2\none\ntwo\nSales grew 25%.\nCosts fell 3%.\n\nlater 5%\n"
    )
    files = [PRFile("docs/a.md", "modified", patch), PRFile("docs/b.md", "modified", patch)]
    shown = shown_lines(files, tmp_path, {"docs/a.md"})
    assert shown == {"docs/a.md": {3: 1, 4: 2, 5: 3, 6: 4}}  # context lines are shown too
    links = DiffLinks("https://github.com", REPO, 7, "h" * 40, shown)
    anchor = hashlib.sha256(b"docs/a.md").hexdigest()
    assert (
        links(_claim("x", Verdict.fail, line=5)) == f"https://github.com/{REPO}/pull/7/files#diff-{anchor}R3"
    )
    assert links(_claim("x", Verdict.fail, line=3)).endswith(f"#diff-{anchor}R1")
    # Not in the diff: the file at the head, as far down as the diff's last line moved.
    assert (
        links(_claim("x", Verdict.fail, line=8)) == f"https://github.com/{REPO}/blob/{'h' * 40}/docs/a.md#L6"
    )
    assert links(_claim("x", Verdict.fail, file="docs/my a.md", line=2)).endswith("/docs/my%20a.md#L2")


def test_the_comment_links_every_claim_to_a_valid_github_url(tmp_path: Path) -> None:
    import cmarkgfm
    from cmarkgfm.cmark import Options

    patch = "@@ -0,0 +1,3 @@\n+a 1%\n+b 2%\n+c 3%\n"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/a.md").write_text("a 1%\nb 2%\nc 3%\n\n\nf 6%\n")
    shown = shown_lines([PRFile("docs/a.md", "added", patch)], tmp_path, {"docs/a.md"})
    links = DiffLinks("https://github.com", REPO, 7, "c" * 40, shown)
    claims = [
        _claim(f"c{n} {n}%", v, line=n) for n, v in [(1, Verdict.fail), (3, Verdict.pass_), (6, Verdict.fail)]
    ]
    body = comment_body(_report(claims), hint="the job summary", link=links)
    html = cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE)
    hrefs = dict(re.findall(r'<a href="([^"]+)">(docs/a\.md:\d+)</a>', html))
    assert sorted(hrefs.values()) == ["docs/a.md:1", "docs/a.md:3", "docs/a.md:6"]
    anchor = hashlib.sha256(b"docs/a.md").hexdigest()
    by_label = {label: href for href, label in hrefs.items()}
    assert by_label["docs/a.md:1"] == f"https://github.com/{REPO}/pull/7/files#diff-{anchor}R1"
    assert by_label["docs/a.md:3"] == f"https://github.com/{REPO}/pull/7/files#diff-{anchor}R3"
    assert by_label["docs/a.md:6"] == f"https://github.com/{REPO}/blob/{'c' * 40}/docs/a.md#L6"
