"""The Action as a required status check, end to end (`entrypoint.py` as a subprocess with the
stand-ins of test_action_e2e.py: a real git repository, the GitHub REST API, the source site
and the OpenAI-protocol judge, all on 127.0.0.1).

- A PR or merge group that changes no Markdown passes at once and says so in one line; no
  comment is created on a PR that never had one.
- A merge group checks what it adds to its base branch (the compare API).
- No silent green: a run that needs a judge and has no key is an error naming the secret,
  except on a fork PR (no secrets), whose comment, summary and outputs say first that the
  claims were not judged; a key the provider rejects is an error.
- Links that are not sources (localhost, example/test domains, `exclude`, `.citecheckignore`)
  never fail the check and are counted.
- A config value the workflow overrides is a warning and a note; a GitHub API error names the
  request and, only when it is a permission problem, the permission.
"""

from __future__ import annotations

import re
from pathlib import Path

from citecheck.github.publish import COMMENT_MARKER, comment_marker
from tests.e2e.test_action_e2e import (  # the runner's harness
    ATLAS_LINE,
    ATLAS_WITHOUT_FIGURE,
    PR,
    REPO,
    SALES_LINE,
    UNSOURCED_LINE,
    Result,
    Scenario,
    judged_inputs,
    make_scenario,
    pr_payload,
    report_json,
    run_action,
)
from tests.servers.github_server import BOT, GitHubServer
from tests.servers.llm_server import LLMServer, RecordedRequest, Reply, openai_error
from tests.servers.source_server import SourceServer

NOTHING_IN_PR = f"No Markdown file matching `paths` changed in PR #{PR}: nothing to check."
NOTHING_IN_GROUP = "No Markdown file matching `paths` changed in this merge group: nothing to check."
NOT_JUDGED_FORK = "Claims were not judged: this pull request comes from a fork"


def errors(r: Result) -> list[str]:
    return [x for x in r.stdout.splitlines() if x.startswith("::error::")]


def no_markdown_pr(s: Scenario) -> Scenario:
    """A PR on top of `s.head` that changes code only."""
    head = s.origin.commit({"src/app.py": "print('hello')\n", "docs/diagram.svg": "<svg/>\n"}, "code only")
    return Scenario(s.origin, s.head, head, s.urls)


def merge_group_payload(base: str, head: str) -> dict[str, object]:
    """A `merge_group` event as GitHub sends it (`checks_requested`)."""
    return {
        "action": "checks_requested",
        "merge_group": {
            "head_sha": head,
            "head_ref": f"refs/heads/gh-readonly-queue/main/pr-{PR}-{base}",
            "base_sha": base,
            "base_ref": "refs/heads/main",
            "head_commit": {"id": head, "message": "Merge pull request #7"},
        },
    }


def comment_posts(gh: GitHubServer) -> list[object]:
    return [r for r in gh.requests("POST") if r.path != "/graphql"] + gh.requests("PATCH")


# ------------------------------------------------------------------ nothing to check


def test_a_pr_that_changes_no_markdown_passes_at_once_and_says_so(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = no_markdown_pr(make_scenario(tmp_path, sources, gh))
    gh.set_pull(REPO, PR, head_sha=s.head, base_sha=s.base)
    # No key and `judge: auto` on a same-repository PR: nothing needs the judge, so no error.
    r = run_action(tmp_path, s.origin.root, gh, inputs={}, payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    assert r.summary == f"**citecheck:** {NOTHING_IN_PR}\n"  # one line
    assert f"citecheck: {NOTHING_IN_PR}" in r.stdout.splitlines()
    o = r.outputs
    assert (o["note"], o["judged"], o["passed"], o["total-claims"]) == (NOTHING_IN_PR, "false", "null", "0")
    assert report_json(r)["notes"] == [NOTHING_IN_PR] and report_json(r)["total_claims"] == 0
    assert list(o)[:2] == ["note", "judged"]  # the note comes first
    # No comment on a PR that never had one, nothing fetched, no judge.
    assert gh.comments(REPO, PR) == [] and comment_posts(gh) == []
    assert sources.hits() == 0 and judge.requests == []

    # A PR whose earlier push changed Markdown has our comment: it is brought up to date, not
    # left showing a report of lines the PR no longer changes.
    ours = gh.add_comment(REPO, PR, COMMENT_MARKER + "\n## Verification Report\n- Failed: 1\n", user=BOT)
    r = run_action(tmp_path, s.origin.root, gh, inputs={}, payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    comments = gh.comments(REPO, PR)
    assert [c["id"] for c in comments] == [ours["id"]]
    assert comments[0]["body"] == f"{COMMENT_MARKER}\n**citecheck:** {NOTHING_IN_PR}\n"
    assert "citecheck: PR comment updated" in r.stdout

    # A job with its own `comment-id` brings its own comment up to date, and only that one.
    docs = gh.add_comment(REPO, PR, comment_marker("docs") + "\n## Verification Report\n", user=BOT)
    r = run_action(tmp_path, s.origin.root, gh, inputs={"comment-id": "docs"}, payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    assert r.summary == f"**citecheck (docs):** {NOTHING_IN_PR}\n"
    bodies = {c["id"]: c["body"] for c in gh.comments(REPO, PR)}
    assert bodies == {
        ours["id"]: f"{COMMENT_MARKER}\n**citecheck:** {NOTHING_IN_PR}\n",
        docs["id"]: f"{comment_marker('docs')}\n**citecheck (docs):** {NOTHING_IN_PR}\n",
    }


# ------------------------------------------------------------------ merge queue


def test_a_merge_group_checks_what_it_adds_to_its_base(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    payload = merge_group_payload(s.base, s.head)
    # The queue's checkout: its head commit, one commit deep.
    ws = s.origin.shallow_clone(tmp_path / "workspace")
    r = run_action(
        tmp_path, ws, gh, inputs=judged_inputs(sources, judge), payload=payload, event_name="merge_group"
    )
    assert r.code == 0, r.stdout + r.stderr
    assert "citecheck: merge group," in r.stdout
    # Only the lines the group adds: the survey claim of the base was neither checked nor fetched.
    report = report_json(r)
    assert sorted(c["line"] for c in report["claims"]) == [ATLAS_LINE, SALES_LINE, UNSOURCED_LINE]  # type: ignore[index]
    assert sources.hits("/survey") == 0 and judge.calls
    compared = [q.path for q in gh.requests("GET") if "/compare/" in q.path]
    assert compared == [f"/repos/{REPO}/compare/{s.base}...{s.head}"]
    assert not [q for q in gh.requests() if "/pulls/" in q.path]  # no PR to list, none to comment on
    assert comment_posts(gh) == []
    assert (r.outputs["note"], r.outputs["judged"], r.outputs["passed"]) == ("", "true", "true")
    assert f"blob/{s.head}/docs/guide.md#L{SALES_LINE}" in r.summary  # links to the queue's commit

    # A merge group that changes no Markdown: passed at once, and said so.
    code_only = no_markdown_pr(s)
    payload = merge_group_payload(code_only.base, code_only.head)
    r = run_action(tmp_path, s.origin.root, gh, inputs={}, payload=payload, event_name="merge_group")
    assert r.code == 0, r.stdout + r.stderr
    assert r.summary == f"**citecheck:** {NOTHING_IN_GROUP}\n" and r.outputs["note"] == NOTHING_IN_GROUP


def test_a_merge_group_with_a_failing_claim_fails_and_a_bad_compare_is_an_error(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh)  # the report says 10%, the doc 25%
    payload = merge_group_payload(s.base, s.head)
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload, event_name="merge_group")
    assert r.code == 1, r.stdout + r.stderr
    assert r.outputs["passed"] == "false" and r.outputs["judged"] == "false"
    assert f"::error file=docs/guide.md,line={SALES_LINE}," in r.stdout

    # A token that may not read the repository: the request, GitHub's answer and the permission.
    gh.fail("GET", r"/compare/", 403)
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload, event_name="merge_group")
    assert r.code == 2
    assert errors(r) == [
        f"::error::citecheck: cannot list the files changed from {s.base[:12]} to {s.head[:12]}: HTTP 403 "
        f"Resource not accessible by integration (GET /repos/{REPO}/compare/{s.base}...{s.head}) — the "
        "token is not allowed this: give the job `permissions:` `contents: read`"
    ]


# ------------------------------------------------------------------ no silent green


def test_no_key_outside_a_fork_pr_is_an_error_naming_the_secret(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    inputs = {"allow-private-hosts": sources.host}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 2, r.stdout + r.stderr
    [error] = errors(r)
    assert "judge: auto needs an API key, and `anthropic-api-key` and `openai-api-key` are empty" in error
    assert "set the repository secret ANTHROPIC_API_KEY and pass it as `anthropic-api-key`" in error
    assert "or the repository secret OPENAI_API_KEY and pass it as `openai-api-key`" in error
    assert "`anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}`" in error
    assert "set `judge: none` there" in error
    # Before any work: nothing fetched, no comment, no outputs, no summary — never green.
    assert sources.hits() == 0 and judge.requests == [] and comment_posts(gh) == []
    assert r.outputs == {} and r.summary == ""

    # A named judge: its own secret.
    r = run_action(tmp_path, s.origin.root, gh, inputs={**inputs, "judge": "openai"}, payload=pr_payload(s))
    assert r.code == 2
    [error] = errors(r)
    assert "judge: openai needs an API key, and `openai-api-key` is empty" in error
    assert "the repository secret OPENAI_API_KEY and pass it as `openai-api-key`" in error
    assert "ANTHROPIC" not in error

    # pull_request_target from a fork runs with the base repository's secrets: no excuse either.
    r = run_action(
        tmp_path,
        s.origin.root,
        gh,
        inputs=inputs,
        payload=pr_payload(s, fork=True),
        event_name="pull_request_target",
    )
    assert r.code == 2 and "needs an API key" in errors(r)[0]

    # `judge: none` in the workflow is the way to opt out.
    r = run_action(tmp_path, s.origin.root, gh, inputs={**inputs, "judge": "none"}, payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    assert r.outputs["judged"] == "false" and r.outputs["note"] == ""


def test_a_fork_pr_says_first_that_claims_were_not_judged(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%", atlas_says=ATLAS_WITHOUT_FIGURE)
    # A private repository may send write tokens to fork PRs: then the comment is posted too.
    for judge_input in ("auto", "openai"):  # a named judge degrades the same way
        inputs = {"allow-private-hosts": sources.host, "judge": judge_input}
        r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s, fork=True))
        assert r.code == 0, r.stdout + r.stderr  # the atlas claim needs the judge: not a failure here
        assert judge.requests == []
        note = r.outputs["note"]
        assert note.startswith(NOT_JUDGED_FORK) and "GitHub gives such a run no secrets" in note
        assert r.outputs["judged"] == "false" and next(iter(r.outputs)) == "note"
        first_lines = {
            "summary": r.summary.splitlines()[0],
            "comment": gh.comments(REPO, PR)[0]["body"].splitlines()[1],  # after the hidden marker
        }
        for where, line in first_lines.items():
            assert line.startswith("> **Claims were not judged:** this pull request comes from a fork"), where
        # The comment's outcome line comes right after that note, in a paragraph of its own.
        body = gh.comments(REPO, PR)[0]["body"].splitlines()
        assert body[2] == "" and body[3].startswith("✅ citecheck passed: 1 of 3 claims verified"), body[:4]
        assert report_json(r)["notes"][0] == note  # type: ignore[index]
        claims = {c["line"]: c for c in report_json(r)["claims"]}  # type: ignore[index]
        assert claims[ATLAS_LINE]["verdict"] == "not_verified"
        assert claims[SALES_LINE]["verdict"] == "pass"
    assert len(gh.comments(REPO, PR)) == 1  # the second run updated the first run's comment


def test_a_dependabot_pr_gets_no_secrets_and_degrades_too(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    r = run_action(
        tmp_path,
        s.origin.root,
        gh,
        inputs={"allow-private-hosts": sources.host},
        payload=pr_payload(s),
        extra_env={"GITHUB_ACTOR": "dependabot[bot]"},
    )
    assert r.code == 0, r.stdout + r.stderr
    assert r.outputs["note"].startswith("Claims were not judged: this pull request is Dependabot's")


def test_a_key_the_provider_rejects_is_an_error_never_green(
    tmp_path: Path, sources: SourceServer, judge: LLMServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")

    def reject(request: RecordedRequest) -> Reply:
        return openai_error(401, "Incorrect API key provided", code="invalid_api_key")

    judge.responder = reject
    r = run_action(tmp_path, s.origin.root, gh, inputs=judged_inputs(sources, judge), payload=pr_payload(s))
    assert r.code == 2, r.stdout + r.stderr
    assert judge.calls  # the key was tried ...
    [error] = errors(r)
    assert "every judge call failed" in error and "the judge API rejected the key (HTTP 401)" in error
    assert (
        "the provider rejected the key passed as `openai-api-key` (the repository secret OPENAI_API_KEY)"
        in error
    )
    assert r.outputs == {} and r.summary == "" and comment_posts(gh) == []  # ... and nothing reads as a pass


# ------------------------------------------------------------------ links that are not sources

NOT_SOURCES = """
The dashboard runs at http://localhost:3000 during development.

The service answers 250 requests a second on [the demo box](http://[::1]:8080/stats).

The staging API returned 42 errors in 2024 per [its status page](https://status.example.com/api).

Our wiki says uptime was 99.9% in 2024 ([wiki](https://wiki.corp.acme/uptime)).

Latency fell 30% in 2024 ([status](https://status.acme-internal.net/q3)).

Sales grew 25% in 2023 ([report]({report})).
"""


def test_links_that_are_not_sources_never_fail_the_check(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = make_scenario(
        tmp_path,
        sources,
        gh,
        sales_in_source="25%",
        # The repository's own list, at the base: one pattern a line, `#` comments.
        base_files={".citecheckignore": "# our wiki is not public\n\n^https://wiki\\.corp\\.acme/\n"},
    )
    doc = (s.origin.root / "docs/guide.md").read_text() + NOT_SOURCES.format(report=s.urls["report"])
    # The PR also tries to exclude every link through its own .citecheckignore: read from the
    # base commit, like the config file, it does not count.
    head = s.origin.commit({"docs/guide.md": doc, ".citecheckignore": ".*\n"}, "tech docs")
    gh.set_pull(REPO, PR, head_sha=head, base_sha=s.base)
    payload = pr_payload(Scenario(s.origin, s.base, head, s.urls))
    inputs = {"allow-private-hosts": sources.host, "judge": "none", "exclude": "acme-internal\\.net/"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=payload)
    assert r.code == 0, r.stdout + r.stderr
    report = report_json(r)
    assert report["links_excluded"] == {"localhost": 2, "pattern": 2, "reserved-domain": 1}  # type: ignore[index]
    assert report["total_links_excluded"] == 5
    line = "- Links not treated as sources: 5 (localhost 2, example/test domains 1, exclude patterns 2)"
    assert line in r.summary and line in gh.comments(REPO, PR)[0]["body"]
    claims = report["claims"]  # type: ignore[index]
    cited = {cit["url"] for c in claims for cit in c["citations"]}  # type: ignore[index]
    assert cited == {s.urls["atlas"], s.urls["report"]}  # nothing else is a citation
    assert not [c for c in claims if c["verdict"] in ("disallowed", "unreachable")]  # type: ignore[index]
    # A sentence that states a figure is still a claim: unsourced now, which fails only when asked.
    unsourced = {c["text"] for c in claims if c["verdict"] == "unsourced"}  # type: ignore[index]
    assert "Our wiki says uptime was 99.9% in 2024 (wiki)." in unsourced
    assert "The dashboard runs at http://localhost:3000 during development." not in {
        c["text"] for c in claims
    }  # type: ignore[index]
    assert sources.hits() == sources.hits("/atlas") + sources.hits("/report")  # only real sources
    assert r.outputs["passed"] != "false"

    # A pattern that is not a regular expression is an error naming it: in the input ...
    r = run_action(
        tmp_path, s.origin.root, gh, inputs={**inputs, "exclude": "ok\\.example\n(unclosed"}, payload=payload
    )
    assert r.code == 2
    assert errors(r)[0].startswith(
        "::error::citecheck: input exclude: '(unclosed' is not a valid regular expression"
    )
    # ... and in the repository's .citecheckignore, with its line.
    base = s.origin.commit({".citecheckignore": "# fine\n[a-\n"}, "a broken pattern")
    gh.set_pull(REPO, PR, head_sha=head, base_sha=base)
    broken = pr_payload(Scenario(s.origin, base, head, s.urls))
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=broken)
    assert r.code == 2
    assert errors(r)[0].startswith(
        f"::error::citecheck: .citecheckignore at base {base[:12]}:2: '[a-' is not a valid regular expression"
    )


# ------------------------------------------------------------------ notes and error messages


def test_config_values_above_the_workflows_are_a_warning_and_a_note(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    config = 'max_claims = 1000\nmax_cost_usd = 5.0\nfail_on = ["unsupported"]\n'
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%", base_files={".citecheck.toml": config})
    inputs = {"allow-private-hosts": sources.host, "judge": "none", "max-cost-usd": "0.50"}
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    where = f".citecheck.toml at base {s.base[:12]}"
    notes = [
        f"max_claims = 1000 in {where} is above the workflow's 200; 200 applies",
        f"max_cost_usd = 5 in {where} is above the workflow's 0.5; 0.5 applies",
        f"fail_on in {where} leaves out unreadable, unreachable, blocked, not-extractable, disallowed, "
        "limit, judge-error, unsure, which the workflow's fail-on keeps: "
        "a config file can only add categories",
    ]
    for note in notes:
        assert f"::warning::{note}" in r.stdout.splitlines(), note
        assert f"- {note}" in r.summary.replace("\\_", "_"), note
        assert note in report_json(r)["notes"]  # type: ignore[operator]


def test_github_api_errors_name_the_request_and_only_a_permission_problem_names_a_permission(
    tmp_path: Path, sources: SourceServer, gh: GitHubServer
) -> None:
    s = make_scenario(tmp_path, sources, gh, sales_in_source="25%")
    inputs = {"allow-private-hosts": sources.host, "judge": "none"}
    files = f"GET /repos/{REPO}/pulls/{PR}/files"

    def error_for(status: int) -> str:
        gh.state.failures.clear()
        gh.fail("GET", rf"/pulls/{PR}/files$", status)
        r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s))
        assert r.code == 2, r.stdout + r.stderr
        [error] = errors(r)
        assert error.startswith(
            f"::error::citecheck: cannot list the changed files of PR #{PR}: HTTP {status}"
        )
        assert f"({files})" in error
        return error

    assert error_for(403).endswith(
        "— the token is not allowed this: give the job `permissions:` `pull-requests: read`"
    )
    assert "GitHub answers 404 for what a token may not see" in error_for(404)
    assert "pull-requests: read" in error_for(404)
    # Not a permission problem: no permission named.
    refused = error_for(401)
    assert "GitHub refused the token" in refused and "permissions" not in refused
    invalid = error_for(422)
    assert "permissions" not in invalid and not re.search(r"— \S", invalid)  # no made-up hint

    # The config file at the base: a 403 names `contents: read`.
    gh.state.failures.clear()
    gh.fail("GET", r"/contents/\.citecheck\.toml$", 403)
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 2
    [error] = errors(r)
    assert f"(GET /repos/{REPO}/contents/.citecheck.toml?ref={s.base})" in error
    assert error.endswith("`permissions:` `contents: read`")

    # Commenting: a 404 (an issue the token may not see) names `pull-requests: write`, a warning only.
    gh.state.failures.clear()
    gh.fail("POST", rf"/issues/{PR}/comments$", 404)
    r = run_action(tmp_path, s.origin.root, gh, inputs=inputs, payload=pr_payload(s))
    assert r.code == 0, r.stdout + r.stderr
    warning = next(x for x in r.stdout.splitlines() if "could not post the PR comment" in x)
    assert f"HTTP 404 Not Found (POST /repos/{REPO}/issues/{PR}/comments)" in warning
    assert "`pull-requests: write`" in warning
