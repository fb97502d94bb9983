"""The Action's security controls end to end (`entrypoint.py` as a subprocess against the
stand-in servers): secrets and secret-looking URL parts reach no output, the fork-safe
`workflow_run` job and `merge_group` runs read the config from the real base commit, and the
sticky comment is only ever the token's own."""

from __future__ import annotations

import json
import re
from pathlib import Path

from citecheck.github.publish import COMMENT_MARKER
from tests.e2e.test_action_e2e import (
    ATLAS_LINE,
    OPENAI_KEY,
    PR,
    REPO,
    UNSOURCED_LINE,
    Result,
    _page,
    annotations,
    judged_inputs,
    make_scenario,
    pr_payload,
    report_json,
    run_action,
)
from tests.leaks import leaks
from tests.servers.github_server import BOT, GitHubServer
from tests.servers.llm_server import (
    LLMServer,
    RecordedRequest,
    Reply,
    auto_judge,
    echo_credentials_error,
    echo_key_judge,
    request_key,
)
from tests.servers.source_server import SourceServer

MALLORY = {"login": "mallory", "id": 2, "type": "User"}
BASE_NARROWING = {".citecheck.toml": 'fail_on = ["unsourced"]\n'}


def _log(result: Result) -> str:
    """stdout and stderr without the `::add-mask::` lines, which must name the secrets."""
    lines = (result.stdout + result.stderr).splitlines()
    return "\n".join(line for line in lines if not line.startswith("::add-mask::"))


def _outputs(result: Result, gh: GitHubServer) -> dict[str, str]:
    """Every place the run wrote text to: reports, summary, PR comments, the log."""
    reports = result.workspace / "citecheck-report"
    texts = {p.name: p.read_text() for p in sorted(reports.iterdir())}
    texts["summary"] = result.summary
    texts["comments"] = "\n".join(c["body"] for c in gh.comments(REPO, PR))
    texts["log"] = _log(result)
    assert set(texts) >= {"report.json", "report.md", "report.sarif", "summary", "log"}
    return texts


def test_a_provider_error_echoing_the_key_reaches_no_output(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh)
    lake = sources.add("/lake", _page("The lake is cold all year, the survey says."))
    doc = (s.origin.root / "docs/guide.md").read_text()
    line = len(doc.splitlines()) + 2
    head = s.origin.commit(
        {"docs/guide.md": doc + f"\nThe lake is the deepest in the region, per [the survey]({lake}).\n"},
        "lake",
    )
    gh.set_pull(REPO, PR, head_sha=head, base_sha=s.base)
    payload = pr_payload(s)
    payload["pull_request"]["head"]["sha"] = head  # type: ignore[index]

    def echo_for_the_lake(request: RecordedRequest) -> Reply:
        return echo_credentials_error(request) if "lake" in request.user_text else auto_judge(request)

    judge.responder = echo_for_the_lake
    inputs = {**judged_inputs(sources, judge), "fail-on": "unsupported,not-verified"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload)
    assert r.code == 1, r.stdout + r.stderr
    assert any(call.headers.get("authorization") == f"Bearer {OPENAI_KEY}" for call in judge.calls)
    lake_claim = next(c for c in report_json(r)["claims"] if c["line"] == line)  # type: ignore[index]
    # The provider's echo is in the claim's reason, with the key taken out.
    assert lake_claim["verdict"] == "not_verified"
    assert "authorization: Bearer ***" in lake_claim["reason"], lake_claim["reason"]
    assert ("docs/guide.md", str(line), "citecheck: not-verified") in annotations(r.stdout)
    assert "Bearer ***" in r.stdout  # the annotation, and the log's list of failing claims
    for name, text in _outputs(r, gh).items():
        assert OPENAI_KEY not in text and OPENAI_KEY[:16] not in text, name
    assert "Bearer \\*\\*\\*" in gh.comments(REPO, PR)[0]["body"]  # escaped Markdown

    # The GitHub token: an API error that echoes the request's Authorization header.
    gh.state.forbid_writes = gh.state.echo_auth = True
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload)
    assert r.code == 1
    warning = next(x for x in r.stdout.splitlines() if "could not post the PR comment" in x)
    assert "403" in warning and "(Authorization: token ***)" in warning
    assert gh.token not in _log(r)


def test_every_judge_call_failing_is_exit_2_without_the_key(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh)
    judge.responder = echo_credentials_error
    r = run_action(tmp_path, s.origin.root, gh, inputs=judged_inputs(sources, judge), payload=pr_payload(s))
    assert r.code == 2, r.stdout + r.stderr
    error = next(
        x for x in r.stdout.splitlines() if x.startswith("::error::citecheck: every judge call failed")
    )
    assert "Bearer ***" in error
    assert OPENAI_KEY not in _log(r) and OPENAI_KEY[:16] not in _log(r)


def test_urls_with_credentials_are_masked_in_every_output(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh)
    doc = (s.origin.root / "docs/guide.md").read_text()
    added = (
        "\nUsage rose 40% in 2022 per [the report](https://u:p@acme-research.org/x?token=abc&page=2).\n"
        "\nUptake fell 12% in 2024 per https://acme-research.org/y?api_key=zzz&q=1 this year.\n"
    )
    head = s.origin.commit({"docs/guide.md": doc + added}, "links with credentials")
    gh.set_pull(REPO, PR, head_sha=head, base_sha=s.base)
    payload = pr_payload(s)
    payload["pull_request"]["head"]["sha"] = head  # type: ignore[index]
    # A comment by someone else that carries our marker is not ours to update.
    planted = gh.add_comment(REPO, PR, COMMENT_MARKER + "\nall claims verified", user=MALLORY)
    # The loopback source server is admitted past the guard (so its links stay sources), and
    # then refused by the allowlist like the rest.
    inputs = {"allowed-domains": "example.org", "allow-private-hosts": sources.host, "judge": "none"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload)
    assert r.code == 1, r.stdout + r.stderr
    claims = {c["line"]: c for c in report_json(r)["claims"]}  # type: ignore[index]
    assert len(claims) == 5 and all(c["verdict"] == "disallowed" for c in claims.values() if c["citations"])
    assert len(annotations(r.stdout)) == 4  # every cited claim: not allowed
    outputs = _outputs(r, gh)
    for name, text in outputs.items():
        for secret in ("u:p@", "token=abc", "api_key=zzz"):
            assert secret not in text, (name, secret)
    for name in ("report.json", "report.md", "report.sarif", "summary", "comments", "log"):
        assert "acme-research.org/x?token=***&page=2" in outputs[name], name
        assert "api_key=***" in outputs[name], name
    assert "https://***@acme-research.org/x" in outputs["report.json"]

    comments = gh.comments(REPO, PR)
    assert comments[0] == planted  # untouched
    assert len(comments) == 2 and comments[1]["user"] == BOT and "- Total claims: 5" in comments[1]["body"]


def _fork_safe_run(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer, event_base: str, **scenario: object
) -> tuple[Result, str]:
    """Part 2 of the fork-safe pattern, with an uploaded event file whose base is `event_base`
    (`None`: the real one)."""
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%", base_files=BASE_NARROWING)
    ws = s.origin.shallow_clone(tmp_path / "workspace")
    event = pr_payload(s)
    if event_base:
        event["pull_request"]["base"]["sha"] = event_base  # type: ignore[index]
    (ws / "citecheck-pr").mkdir()
    (ws / "citecheck-pr/event.json").write_text(json.dumps(event))
    run_payload = {"workflow_run": {"head_sha": s.head, "event": "pull_request", "pull_requests": []}}
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    r = run_action(
        tmp_path,
        ws,
        gh,
        inputs=inputs,
        payload=run_payload,
        event_name="workflow_run",
        extra_env={"CITECHECK_PR_EVENT": "citecheck-pr/event.json"},
    )
    return r, s.base


def test_fork_safe_part_2_takes_the_base_from_the_api_not_the_artifact(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    """A forged base SHA in the uploaded event file no longer drops the base's narrowing."""
    r, base = _fork_safe_run(tmp_path, sources, gh, event_base="f" * 40)
    # The base's config counts: its added fail-on (unsourced) fails the run.
    assert r.code == 1, r.stdout + r.stderr
    assert annotations(r.stdout) == [("docs/guide.md", str(UNSOURCED_LINE), "citecheck: unsourced")]
    refs = {q for req in gh.requests("GET") if "/contents/" in req.path for q in req.query.get("ref", [])}
    assert refs == {base}  # the API's base, never the artifact's
    assert r.outputs["total-claims"] == "3" and ATLAS_LINE in {c["line"] for c in report_json(r)["claims"]}  # type: ignore[index]


def test_a_base_config_that_cannot_be_read_is_an_error(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    gh.state.contents_status = 403  # say, a token without `contents: read`
    r, base = _fork_safe_run(tmp_path, sources, gh, event_base="")
    assert r.code == 2, r.stdout + r.stderr
    assert re.search(
        rf"^::error::citecheck: cannot read \.citecheck\.toml at base {base[:12]}: HTTP 403 .*contents: read",
        r.stdout,
        re.M,
    )
    assert sources.hits() == 0 and gh.requests("POST") == []


def test_merge_group_reads_the_config_from_the_queue_base(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%", base_files=BASE_NARROWING)
    # The queued PR's tree tries to switch its own check off.
    merged = s.origin.commit({".citecheck.toml": 'ignore = ["**/*.md"]\n'}, "merge queue commit")
    payload = {
        "action": "checks_requested",
        "merge_group": {
            "head_sha": merged,
            "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-" + s.base,
            "base_sha": s.base,
            "base_ref": "refs/heads/main",
        },
    }
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload, event_name="merge_group")
    assert r.code == 1, r.stdout + r.stderr  # the base's narrowing: unsourced fails
    assert ("docs/guide.md", str(UNSOURCED_LINE), "citecheck: unsourced") in annotations(r.stdout)
    refs = {q for req in gh.requests("GET") if "/contents/" in req.path for q in req.query.get("ref", [])}
    assert refs == {s.base}
    # Without a token the base cannot be read: an error, not the tree's own config.
    r = run_action(
        tmp_path,
        s.origin.root,
        gh,
        inputs={**inputs, "github-token": ""},
        payload=payload,
        event_name="merge_group",
    )
    assert r.code == 2 and "::error::citecheck: cannot read .citecheck.toml at base" in r.stdout


def test_a_judge_echoing_the_key_in_any_form_and_url_credentials_reach_no_output(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    """Issue 30: the judge echoes the key in its rationale and evidence (raw, encoded, cut
    short, base64 as in a Basic header, zero-width interleaved, fullwidth), and a claim cites a
    URL with userinfo, a token and the key as `q=`. Neither the report files, the summary, the
    comment nor the log holds any of it."""
    s = make_scenario(tmp_path, sources, gh)
    lake = sources.add("/lake", _page("The lake is cold all year, the survey says."))
    creds = lake.replace("http://", "http://reader:s3cret-pass@") + f"?token=tok-abc-123&q={OPENAI_KEY}"
    doc = (s.origin.root / "docs/guide.md").read_text()
    added = (
        f"\nThe lake is cold all year, per [the survey]({lake}).\n"
        f"\nThe lake is the deepest in the region, per [the atlas]({creds}).\n"
    )
    head = s.origin.commit({"docs/guide.md": doc + added}, "lake")
    gh.set_pull(REPO, PR, head_sha=head, base_sha=s.base)
    payload = pr_payload(s)
    payload["pull_request"]["head"]["sha"] = head  # type: ignore[index]
    judge.responder = echo_key_judge
    r = run_action(tmp_path, s.origin.root, gh, inputs=judged_inputs(sources, judge), payload=payload)
    assert r.code in (0, 1), r.stdout + r.stderr
    assert {request_key(call) for call in judge.calls} == {OPENAI_KEY}  # sent, and echoed back
    for name, text in _outputs(r, gh).items():
        assert leaks(text, OPENAI_KEY) == [], name
        for secret in ("s3cret-pass", "tok-abc-123"):
            assert secret not in text, (name, secret)
    rationales = [c["judge"]["rationale"] for c in report_json(r)["claims"] if c["judge"]]  # type: ignore[index]
    assert rationales and all("raw: ***" in x and "zero-width interleaved: ***" in x for x in rationales)
    assert "token=***&q=***" in _outputs(r, gh)["report.json"]
