"""`citecheck check` end to end: real source server and judge servers on 127.0.0.1.

These exercise the verdict policy of `citecheck.pipeline` through the command line, the
way a user runs it; the JSON report is the observable result. Judge failures and the cost
cap through the CLI are in tests/test_judge_e2e.py (both protocols).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.cli import main
from tests.servers.llm_server import LLMServer, verdict, verdicts_reply
from tests.servers.source_server import SourceServer

SURVEY = """<!doctype html><html><head><title>Survey 2024</title></head><body><article>
<h1>The 2024 survey</h1>
<p>The 2024 survey collected 14,000 responses from developers in 112 countries.</p>
<p>Only 48% of contributors reported being paid for their open source work.</p>
<p>Documentation was the most common complaint among all respondents this year.</p>
</article></body></html>"""

QUOTE_PAGE = (
    "Interview with Dr. Ada Example.\n\n"
    "She said: documentation is the front door of a project. Then she left.\n"
)


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    code = main(["check", *args, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def openai_args(server: LLMServer) -> list[str]:
    return [
        "--judge",
        "openai",
        "--model",
        "gpt-4o-mini",
        "--base-url",
        server.base_url,
        "--allow-private-host",
        "127.0.0.1",
    ]


def by_text(report: dict, start: str) -> dict:
    matches = [c for c in report["claims"] if c["text"].startswith(start)]
    assert len(matches) == 1, [c["text"] for c in report["claims"]]
    return matches[0]


def test_judge_none_policy(tmp_path: Path, source_server: SourceServer, capsys, no_keys) -> None:
    survey = source_server.add("/survey.html", SURVEY)
    quote = source_server.add("/interview.txt", QUOTE_PAGE, "text/plain; charset=utf-8")
    missing = source_server.url("/gone.html")
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"# Title\n\n"
        f"The survey collected 14,000 responses [survey]({survey}).\n\n"
        f"Most contributors, 71%, are paid for their work [survey]({survey}).\n\n"
        f"She said “documentation is the front door of a project” ([interview]({quote})).\n\n"
        f"She also said “nobody reads the docs anyway” ([interview]({quote})).\n\n"
        f"Dr. Example said “documentation is the back door of a project” ([interview]({quote})).\n\n"
        f"The survey's results came out in 2019 [survey]({survey}).\n\n"
        f"Median response time fell by 40% in 2023 ([report]({missing})).\n\n"
        f"Uptime was 99.9% last year ([dashboard](http://10.0.0.7/uptime)).\n\n"
        f"Latency was 12 ms last year ([status](http://0x0a000007/status)).\n\n"
        f"Documentation was the most common complaint [survey]({survey}).\n\n"
        f"Projects with a README get twice as many contributors.\n\n"
        f'Adoption grew by 300% ([skip]({survey} "citecheck-ignore")).\n',
        encoding="utf-8",
    )
    code, report, _ = run([str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1"], capsys)

    assert code == 1
    assert report["passed"] is False
    found = by_text(report, "The survey collected 14,000")
    assert (found["verdict"], found["decided_by"]) == ("pass", "number")
    assert "14,000 responses" in found["evidence"]
    wrong = by_text(report, "Most contributors, 71%")
    assert (wrong["verdict"], wrong["decided_by"]) == ("fail", "number")
    assert (by_text(report, "She said")["verdict"], by_text(report, "She said")["decided_by"]) == (
        "pass",
        "quote",
    )
    # A quote the page does not have is not a failure: it is not verified without a judge...
    absent = by_text(report, "She also said")
    assert (absent["verdict"], absent["decided_by"]) == ("not_verified", "policy")
    assert absent["reason"].startswith("the quote 'nobody reads the docs anyway' does not occur on the page")
    assert [(c["name"], c["outcome"], c["passed"]) for c in absent["checks"]] == [("quote", "absent", False)]
    # ... but the page quoting the same person otherwise is a contradiction.
    misquote = by_text(report, "Dr. Example said")
    assert (misquote["verdict"], misquote["decided_by"]) == ("fail", "quote")
    assert misquote["checks"][0]["outcome"] == "contradicted"
    # A date the page does not have, for nothing it dates: not verified with the judge off,
    # never failed.
    dated = by_text(report, "The survey's results")
    assert dated["verdict"] == "not_verified"
    assert (
        dated["reason"]
        == "the date '2019' does not occur on the page; needs the LLM judge, which is off (judge: none)"
    )
    dead = by_text(report, "Median response time")
    assert (dead["verdict"], dead["decided_by"]) == ("unreachable", "fetch")
    assert dead["citations"][0]["source"]["status"] == 404
    # A private address is still a source (citecheck.exclusions leaves it): the SSRF guard
    # refuses it, written as an IP or in an odd numeric form, and the claim fails loudly.
    private = by_text(report, "Uptime was")
    assert private["verdict"] == "disallowed" and "address 10.0.0.7 is private" in private["reason"]
    assert report["links_excluded"] == {} and report["total_links_excluded"] == 0
    blocked = by_text(report, "Latency was")
    assert blocked["verdict"] == "disallowed" and "SSRF guard" in blocked["reason"]
    needs_judge = by_text(report, "Documentation was the most common")
    assert needs_judge["verdict"] == "not_verified"
    assert "judge" in needs_judge["reason"]
    assert by_text(report, "Projects with a README")["verdict"] == "unsourced"
    assert not [c for c in report["claims"] if c["text"].startswith("Adoption grew")]
    # One fetch per URL, however many claims cite it; the blocked address never saw a request.
    assert source_server.full_hits("/survey.html") == 1
    assert source_server.full_hits("/interview.txt") == 1
    assert report["total_unsourced"] == 1


def test_a_supporting_source_outweighs_a_dead_one(
    tmp_path: Path,
    source_server: SourceServer,
    capsys,
    no_keys,
) -> None:
    survey = source_server.add("/survey.html", SURVEY)
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"Only 48% of contributors are paid ([a]({source_server.url('/404')}), [b]({survey})).\n",
        encoding="utf-8",
    )
    code, report, _ = run([str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1"], capsys)
    assert code == 0
    assert report["passed"] is True
    assert report["claims"][0]["verdict"] == "pass"
    assert report["claims"][0]["source_url"] == survey


def test_text_fragment_missing_is_not_verified(
    tmp_path: Path, source_server: SourceServer, capsys, no_keys
) -> None:
    # A missing `#:~:text=` passage used to fail the claim. The page may have changed since the
    # link was written, or its extraction left that part out: absence, not contradiction. With
    # the judge off the claim is not verified, saying which passage is missing; its figure is
    # still checked (and found).
    survey = source_server.add("/survey.html", SURVEY)
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"The survey had 14,000 responses ([s]({survey}#:~:text=collected%2015%2C000%20responses)).\n\n"
        f"It reached 112 countries ([s]({survey}#:~:text=112%20countries)).\n",
        encoding="utf-8",
    )
    code, report, _ = run([str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1"], capsys)
    bad = by_text(report, "The survey had")
    assert bad["verdict"] == "not_verified"
    assert bad["reason"].startswith(
        "the text fragment 'collected 15,000 responses' in the link does not occur"
    )
    assert [(c["name"], c["outcome"]) for c in bad["checks"]] == [("quote", "absent"), ("number", "found")]
    assert by_text(report, "It reached")["verdict"] == "pass"
    assert code == 0  # not-verified is not in the default fail-on


def test_claim_limit_is_a_limit_failure(tmp_path: Path, source_server: SourceServer, capsys, no_keys) -> None:
    survey = source_server.add("/survey.html", SURVEY)
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"The survey had 14,000 responses [s]({survey}).\n\nIt reached 112 countries [s]({survey}).\n",
        encoding="utf-8",
    )
    args = [str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1", "--max-claims", "1"]
    code, report, _ = run(args, capsys)
    limited = by_text(report, "It reached")
    assert limited["verdict"] == "not_verified"
    assert "claim limit" in limited["reason"]
    assert code == 1  # `limit` is in the default fail-on
    code, report, _ = run([*args, "--fail-on", "unsupported"], capsys)
    assert code == 0


def test_no_key_stops_before_any_fetch(tmp_path: Path, source_server: SourceServer, capsys, no_keys) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(f"The survey had 14,000 responses [s]({source_server.add('/s', SURVEY)}).\n")
    code, report, err = run([str(doc), "--allow-private-host", "127.0.0.1"], capsys)
    assert code == 2
    assert list(report) == ["error"] and report["error"]["code"] == "no-api-key"  # no report: the error
    assert "ANTHROPIC_API_KEY" in err and "OPENAI_API_KEY" in err and "none" in err
    assert source_server.hits() == 0


def test_unreadable_inputs_exit_2(tmp_path: Path, capsys, no_keys) -> None:
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"\x00\x01\x02binary")
    code, _, err = run([str(binary), "--judge", "none"], capsys)
    assert code == 2
    assert "bin.md" in err


def test_judge_decides_and_cache_skips_the_second_run(
    tmp_path: Path,
    source_server: SourceServer,
    openai_server: LLMServer,
    capsys,
    monkeypatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    survey = source_server.add("/survey.html", SURVEY)
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"Documentation was the most common complaint [survey]({survey}).\n\n"
        f"Documentation was praised by every maintainer [survey]({survey}).\n",
        encoding="utf-8",
    )
    args = [str(doc), *openai_args(openai_server), "--cache-dir", str(tmp_path / "cache")]
    code, report, _ = run(args, capsys)
    supported = by_text(report, "Documentation was the most common")
    assert (supported["verdict"], supported["decided_by"]) == ("pass", "judge")
    assert supported["evidence"] and supported["evidence"].lower() in SURVEY.lower()
    assert by_text(report, "Documentation was praised")["verdict"] == "fail"
    assert report["total_cost_usd"] > 0
    assert code == 1
    assert len(openai_server.calls) == 1  # both claims of the one source in one batch

    code2, report2, _ = run(args, capsys)
    assert code2 == 1
    assert len(openai_server.calls) == 1  # verdicts from the cache
    assert source_server.full_hits("/survey.html") == 1  # source from the cache
    assert [c["verdict"] for c in report2["claims"]] == [c["verdict"] for c in report["claims"]]


def test_verdict_from_judge_with_verbatim_quote(
    tmp_path: Path,
    source_server: SourceServer,
    openai_server: LLMServer,
    capsys,
    monkeypatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    openai_server.queue(
        verdicts_reply("openai", [verdict(1, True, "a sentence that is not on the page at all", "made up")]),
        verdicts_reply("openai", [verdict(1, True, "a sentence that is not on the page at all", "made up")]),
    )
    doc = tmp_path / "doc.md"
    doc.write_text(f"Documentation was the most common complaint [s]({source_server.add('/s', SURVEY)}).\n")
    code, report, _ = run([str(doc), *openai_args(openai_server)], capsys)
    claim = report["claims"][0]
    assert (claim["verdict"], claim["cause"]) == ("not_verified", "unsure")
    assert claim["reason"] == "judge unsure: evidence quote not found in source"
    assert len(openai_server.calls) == 2  # retried once, then not accepted
    # The judge's doubt is its own fail-on category, in the default list: never green.
    assert (code, report["passed"], report["failing"]) == (1, False, ["unsure"])


def test_the_judge_is_told_what_the_checks_did_not_find(
    tmp_path: Path,
    source_server: SourceServer,
    openai_server: LLMServer,
    capsys,
    monkeypatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    survey = source_server.add("/survey.html", SURVEY)
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"The survey's results came out in 2019 [survey]({survey}).\n\n"
        f"Only 31% of contributors reported being paid for their open source work [survey]({survey}).\n",
        encoding="utf-8",
    )
    code, report, _ = run([str(doc), *openai_args(openai_server)], capsys)
    # The date the page lacks goes to the judge, with a note saying so ...
    (call,) = openai_server.calls
    assert "CHECK NOTES 1 BEGIN\n- the date '2019' does not occur on the page\n" in call.prompt
    dated = by_text(report, "The survey's results")
    assert dated["decided_by"] == "judge" and dated["checks"][0]["outcome"] == "absent"
    # ... while the figure the page contradicts is decided without it (one claim, one call).
    assert "31%" not in call.prompt and "CLAIM 2" not in call.prompt
    wrong = by_text(report, "Only 31% of contributors")
    assert (wrong["verdict"], wrong["decided_by"]) == ("fail", "number")
    assert wrong["reason"] == "the page gives '48%' where the claim says '31%'"
    assert code == 1


def test_blocked_is_its_own_category_and_accept_status_makes_it_live(
    tmp_path: Path, source_server: SourceServer, capsys, no_keys
) -> None:
    members = source_server.add("/members", "go away", "text/html", 403)
    gone = source_server.add("/gone", "nothing", "text/html", 404)
    doc = tmp_path / "a.md"
    doc.write_text(
        f"Only 48% of contributors are paid ([survey]({members})).\n\n"
        f"The survey had 14,000 responses ([old]({gone})).\n",
        encoding="utf-8",
    )
    base = [str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1"]
    code, report, _ = run(base, capsys)
    blocked, dead = by_text(report, "Only 48%"), by_text(report, "The survey")
    assert (blocked["verdict"], blocked["cause"]) == ("unreachable", "blocked")
    assert blocked["reason"] == "blocked by the site (HTTP 403)"
    assert (dead["verdict"], dead["cause"]) == ("unreachable", None)
    assert code == 1 and report["failing"] == ["unreachable", "blocked"]
    main(["check", *base, "--format", "markdown"])
    markdown = capsys.readouterr().out
    assert "| FAIL (URL not reachable): blocked by the site (HTTP 403) |" in markdown

    # A team that fails on dead links but not on sites refusing robots.
    keep = "unsupported,unreachable,not-extractable,disallowed,limit,judge-error,unsure"
    code, report, _ = run([*base, "--fail-on", keep.replace(",unreachable", "")], capsys)
    assert code == 0 and report["failing"] == []
    code, report, _ = run([*base, "--fail-on", keep], capsys)
    assert code == 1 and report["failing"] == ["unreachable"]

    # accept-status: the 403 is a live link whose content was not read.
    code, report, _ = run([*base, "--accept-status", "403"], capsys)
    accepted = by_text(report, "Only 48%")
    assert (accepted["verdict"], accepted["cause"]) == ("not_extractable", None)
    assert accepted["reason"].startswith("HTTP 403 Forbidden, accepted by accept-status")
    assert report["failing"] == ["unreachable", "not-extractable"]
    code, _, err = run([*base, "--accept-status", "forbidden"], capsys)
    assert code == 2 and "--accept-status" in err


def test_invalid_urls_fail_their_claims_and_the_report_is_complete(
    tmp_path: Path, source_server: SourceServer, capsys, no_keys
) -> None:
    """Issue 14: a port above 65535 crashed the whole run (OverflowError, exit 2, no report)."""
    good = source_server.add("/survey", SURVEY)
    bad = {
        "http://127.0.0.1:65536/x": "invalid URL (port 65536 is outside 1-65535)",
        "http://acme-research.org:99999/": "invalid URL (port 99999 is outside 1-65535)",
        "http://[::1/": "invalid URL (",
        "http://" + "ä" * 70 + ".com/": "invalid URL (Invalid IDNA hostname",
    }
    lines = [f"The survey had 14,000 responses ([s]({url}))." for url in bad]
    lines.append(f"The survey had 14,000 responses ([s]({good})).")
    doc = tmp_path / "a.md"
    doc.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    code, report, err = run([str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1"], capsys)
    assert code == 1, err  # claims failed; not an error
    assert report["total_claims"] == 5 and report["total_supported"] == 1
    reasons = {c["source_url"]: c["reason"] for c in report["claims"] if c["verdict"] == "unreachable"}
    assert set(reasons) == set(bad)
    for url, reason in bad.items():
        assert reasons[url].startswith(reason), (url, reasons[url])


def test_a_sentence_the_judge_finds_no_fact_in_is_reported_not_failed(
    tmp_path: Path,
    source_server: SourceServer,
    openai_server: LLMServer,
    capsys,
    monkeypatch,
) -> None:
    # rbind/simplystats's link roundups (held-out 16): "This story about Databall (via Rafa.) is
    # great". A strict judge fails such a sentence as unsupported; it states nothing to check.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    survey = source_server.add("/survey.html", SURVEY)
    no_fact = "an appraisal of the linked story, nothing a source could support"
    openai_server.queue(
        verdicts_reply(
            "openai",
            [
                verdict(1, False, rationale=no_fact, confidence=0.3, states_fact=False),
                # the same answer for a cited figure: judged on its support whatever the judge says
                verdict(2, False, rationale="The page says 48%.", states_fact=False),
            ],
        ),
    )
    doc = tmp_path / "doc.md"
    doc.write_text(
        f"This story about [the survey]({survey}) is great.\n\n"
        f"Only 48% of the contributors in the survey were paid, by most accounts [survey]({survey}).\n",
        encoding="utf-8",
    )
    code, report, _ = run([str(doc), *openai_args(openai_server)], capsys)
    opinion = by_text(report, "This story about")
    assert (opinion["verdict"], opinion["cause"], opinion["decided_by"]) == (
        "not_verified",
        "no-fact",
        "judge",
    )
    assert opinion["reason"] == f"states no fact to check: {no_fact}"
    figure = by_text(report, "Only 48% of the contributors")
    assert figure["verdict"] == "fail" and figure["cause"] is None
    assert (code, report["failing"]) == (1, ["unsupported"])

    # alone, the sentence with no fact does not fail the check, unless a team asks
    openai_server.queue(verdicts_reply("openai", [verdict(1, False, rationale=no_fact, states_fact=False)]))
    only = tmp_path / "only.md"
    only.write_text(f"This story about [the survey]({survey}) is great.\n", encoding="utf-8")
    code, report, _ = run([str(only), *openai_args(openai_server)], capsys)
    # (nothing verified, nothing failing: exit 0, "verified nothing" rather than a pass)
    assert (code, report["passed"], report["failing"]) == (0, None, [])
    openai_server.queue(verdicts_reply("openai", [verdict(1, False, rationale=no_fact, states_fact=False)]))
    code, report, _ = run(
        [str(only), *openai_args(openai_server), "--fail-on", "unsupported,no-fact"], capsys
    )
    assert (code, report["failing"]) == (1, ["no-fact"])
