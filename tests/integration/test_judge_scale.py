"""The judge at audit scale, end to end (`citecheck check`) against the stand-ins, both protocols:
pipelined with the fetch, paced to the account's rate-limit headers, 429s and overloads waited
out with no claim lost, the judge deadline, batch mode (same verdicts, batch price, the cost
cap, the deadline), prompt caching priced in the cap, and the warm-cache re-run.

Order is asserted through events the servers record (what had happened when a page was
served, which request arrived after which answer), never through durations.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from citecheck.cli import main
from citecheck.judge.pricing import PRICES, cost_usd
from tests.servers.llm_server import Account, LLMServer, Reply, error_reply, verdict, verdicts_reply
from tests.servers.source_server import SourceServer, respond

MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-4o-mini"}
KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
WORDS = [
    "amber", "basalt", "cedar", "delta", "ember", "fjord", "glacier", "harbor", "island", "juniper",
    "kelp", "lagoon", "meadow", "nectar", "orchard", "prairie", "quarry", "reef", "savanna", "tundra",
]  # fmt: skip


def sentence(page: int, k: int) -> str:
    w = [WORDS[(page * 7 + k * 3 + j) % len(WORDS)] for j in range(5)]
    return (
        f"The {w[0]} survey of site P{page}Q{k} found that the {w[1]} {w[2]} near the {w[3]} "
        f"shelters a colony of {w[4]} herons."
    )


def page_html(page: int, sentences: int) -> str:
    paras = "".join(f"<p>{sentence(page, k)} The P{page}Q{k} team recorded it.</p>" for k in range(sentences))
    return f"<html><head><title>Notes {page}</title></head><body><article>{paras}</article></body></html>"


def claim_line(page: int, k: int, url: str) -> str:
    text = sentence(page, k)
    if k % 4 == 3:  # the page does not say this: the stand-in's judge finds it unsupported
        text = text.replace("herons", "otters")
    return f"{text} [notes {page}]({url})\n\n"


def audit(
    tmp_path: Path, server: SourceServer, claims_per_page: list[int], *, sentences: int = 12
) -> tuple[Path, list[str]]:
    """A Markdown file whose page i is cited by claims_per_page[i] claims; the pages' paths."""
    lines, paths = ["# Audit\n\n"], []
    for page, n in enumerate(claims_per_page):
        path = f"/notes/{page}.html"
        url = server.add(path, page_html(page, max(sentences, n)))
        paths.append(path)
        lines += [claim_line(page, k, url) for k in range(n)]
    doc = tmp_path / "audit.md"
    doc.write_text("".join(lines), encoding="utf-8")
    return doc, paths


@pytest.fixture(params=["anthropic", "openai"])
def protocol(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name, var in KEYS.items():
        monkeypatch.setenv(var, f"sk-{name}-test-not-a-key")
    yield request.param


def check(
    doc: Path, llm: LLMServer, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict, str]:
    code = main(
        [
            "check",
            str(doc),
            "--judge",
            llm.protocol,
            "--model",
            MODELS[llm.protocol],
            "--base-url",
            llm.base_url,
            "--allow-private-host",
            "127.0.0.1",
            "--max-cost-usd",
            "50",
            "--format",
            "json",
            *extra,
        ]
    )
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def lost(report: dict) -> list[dict]:
    """Claims the judge left unjudged (an error or a limit)."""
    return [c for c in report["claims"] if c["verdict"] == "not_verified"]


def outcomes(report: dict) -> list[tuple[str, str, str | None, str | None]]:
    return [(c["text"], c["verdict"], c["evidence"], c["reason"]) for c in report["claims"]]


# -- pipelined ----------------------------------------------------------------------------------


def test_the_judge_starts_on_a_page_while_other_pages_still_download(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with LLMServer(protocol) as llm:
        doc, _ = audit(tmp_path, source_server, [2, 2, 2])
        seen: dict[str, bool] = {}
        html = page_html(9, 12).encode()

        def last_page(h: BaseHTTPRequestHandler) -> None:
            # Held until the judge has answered a call about another page (or 20 s): a judge
            # that waits for every download first never gets there in time.
            seen["verdict before this download"] = llm.answered.wait(timeout=20)
            respond(h, html, "text/html; charset=utf-8")

        slow = source_server.add_handler("/notes/slow.html", last_page)
        with doc.open("a", encoding="utf-8") as f:
            f.write(claim_line(9, 0, slow) + claim_line(9, 3, slow))
        code, report, _ = check(doc, llm, capsys, "--timeout", "30")
    assert seen == {"verdict before this download": True}
    assert lost(report) == [] and report["total_judged"] == 8
    assert code == 1  # the claims the pages contradict fail


# -- pacing and back-off ------------------------------------------------------------------------


def test_the_judge_paces_itself_to_the_rate_limit_headers(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A burst of 4 requests, then 4 a second. Before the first answer the judge sends its
    # opening 4; after it, its mirror of the account's bucket holds back every call the
    # account would refuse, although 32 may be in flight.
    account = Account(requests_limit=4, window_s=1)
    doc, _ = audit(tmp_path, source_server, [1] * 12)
    with LLMServer(protocol, account=account) as llm:
        _, report, _ = check(doc, llm, capsys)
    assert lost(report) == [] and report["total_judged"] == 12
    accepted = [r for r in llm.calls if r.status == 200]
    assert len(accepted) == 12
    # At most one 429: the account's reading is taken when a call arrives, a moment after the
    # judge let it go, and the refill of that moment may be counted once too often.
    assert llm.throttled <= 1


def test_429s_and_overloads_are_waited_out_and_no_claim_is_lost(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    overloaded = 529 if protocol == "anthropic" else 503
    doc, _ = audit(tmp_path, source_server, [1] * 6)
    with LLMServer(protocol) as llm:
        # Six throttles in a row: more than the 3 tries a transient failure gets.
        llm.queue(
            *[error_reply(protocol, 429, "rate limited", headers={"retry-after-ms": "30"}) for _ in range(3)],
            *[
                error_reply(protocol, overloaded, "Overloaded", headers={"retry-after-ms": "30"})
                for _ in range(3)
            ],
        )
        _, report, _ = check(doc, llm, capsys)
    assert lost(report) == [] and report["total_judged"] == 6
    assert len(llm.calls) == 6 + 6
    assert {r.status for r in llm.calls} == {200, 429, overloaded}


def test_an_account_without_headers_is_waited_out_as_its_429s_ask(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two requests a second and no rate-limit headers: the judge's opening calls meet 429s
    # with `retry-after: 1`, it waits and slows down, and every claim is judged.
    doc, _ = audit(tmp_path, source_server, [1] * 6)
    with LLMServer(protocol, account=Account(requests_limit=2, window_s=1, headers=False)) as llm:
        _, report, _ = check(doc, llm, capsys)
        throttled = llm.throttled
    assert throttled >= 1
    assert lost(report) == [] and report["total_judged"] == 6


def test_a_wait_past_the_judge_deadline_is_a_limit_that_says_so(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = audit(tmp_path, source_server, [1, 1])
    with LLMServer(protocol) as llm:
        llm.responder = lambda req: error_reply(
            protocol, 429, "rate limited", headers={"retry-after": "3600"}
        )
        code, report, _ = check(doc, llm, capsys, "--judge-deadline-minutes", "5")
    assert len(llm.calls) == 2  # one try each: the hour asked for ends after the deadline
    for claim in report["claims"]:
        assert (claim["verdict"], claim["cause"]) == ("not_verified", None)
        assert claim["limit"] is True and claim["reason"].startswith("judge deadline reached (5 min")
        assert "3600 s" in claim["reason"]
    assert any("judge deadline reached: 2 claim(s)" in note for note in report["notes"])
    assert (code, report["failing"]) == (1, ["limit"])


def test_an_exhausted_openai_quota_is_not_waited_for(
    tmp_path: Path,
    source_server: SourceServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-not-a-key")
    doc, _ = audit(tmp_path, source_server, [1])
    with LLMServer("openai") as llm:
        llm.responder = lambda req: error_reply(
            "openai", 429, "You exceeded your current quota", code="insufficient_quota"
        )
        code, report, _ = check(doc, llm, capsys)
    assert len(llm.calls) == 1 and code == 2 and report["error"]["code"] == "judge-failed"
    assert "judge-quota" in report["error"]["message"]


# -- batch mode ---------------------------------------------------------------------------------


def test_batch_mode_gives_the_same_verdicts_at_the_batch_price(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = audit(tmp_path, source_server, [2, 3, 10, 1])  # the third page's claims take 2 calls
    with LLMServer(protocol) as llm:
        code, interactive, _ = check(doc, llm, capsys)
        calls = len(llm.calls)
    with LLMServer(protocol) as llm:
        code_b, batch, err = check(doc, llm, capsys, "--judge-mode", "batch")
        assert llm.calls == [] and len(llm.batch_requests) == calls  # one request per call, in a batch
    assert outcomes(batch) == outcomes(interactive) and code_b == code == 1
    assert "judge batch" in err and "submitted" in err and "done" in err  # progress lines
    tokens_in = sum(c["judge"]["input_tokens"] for c in batch["claims"])
    tokens_out = sum(c["judge"]["output_tokens"] for c in batch["claims"])
    price = PRICES[MODELS[protocol]]
    assert batch["total_cost_usd"] == pytest.approx(
        cost_usd(price.for_batch(), tokens_in, tokens_out), abs=1e-6
    )
    assert batch["total_cost_usd"] == pytest.approx(cost_usd(price, tokens_in, tokens_out) / 2, abs=1e-6)


def test_batch_mode_asks_again_in_a_second_batch(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = audit(tmp_path, source_server, [1, 1])
    with LLMServer(protocol) as llm:
        # The first request of the first batch quotes something the page does not say.
        llm.queue(verdicts_reply(protocol, [verdict(1, True, "a sentence that is not on the page")]))
        _, report, err = check(doc, llm, capsys, "--judge-mode", "batch")
        assert len(llm._batches) == 2 and len(llm.batch_requests) == 3
    assert lost(report) == [] and report["total_judged"] == 2
    assert err.count("submitted") == 2


def test_batch_mode_reserves_every_request_before_submitting_and_keeps_the_cap(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = audit(tmp_path, source_server, [1] * 8)
    # About 3.5 requests' worst case (~4,500 input tokens and 550 output tokens each) at the batch price.
    cap = 0.04 if protocol == "anthropic" else 0.0018
    with LLMServer(protocol) as llm:
        code, report, _ = check(doc, llm, capsys, "--judge-mode", "batch", "--max-cost-usd", str(cap))
        submitted = len(llm.batch_requests)
    limited = [c for c in report["claims"] if c["limit"]]
    assert 0 < submitted < 8 and len(limited) == 8 - submitted  # what did not fit was not submitted
    assert all(c["reason"] == "cost cap reached" for c in limited)
    assert 0 < report["total_cost_usd"] <= cap and code == 1


def test_batch_mode_cancels_at_the_deadline(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = audit(tmp_path, source_server, [1, 1])
    with LLMServer(protocol, account=Account(batch_polls=10_000)) as llm:  # a batch that never ends
        code, report, err = check(
            doc, llm, capsys, "--judge-mode", "batch", "--judge-deadline-minutes", "0.02"
        )
    assert "cancelling" in err
    for claim in report["claims"]:
        assert claim["limit"] and claim["reason"].startswith("judge deadline reached (0.02 min")
        assert "cancelled" in claim["reason"]
    assert report["total_cost_usd"] == 0 and code == 1


def test_openai_compatible_has_no_batch_mode(
    tmp_path: Path, source_server: SourceServer, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, paths = audit(tmp_path, source_server, [1])
    with LLMServer("openai") as llm:
        code = main(
            [
                "check", str(doc), "--judge", "openai-compatible", "--base-url", llm.base_url,
                "--model", "gpt-4o-mini", "--judge-mode", "batch", "--format", "json",
            ]
        )  # fmt: skip
        out, _ = capsys.readouterr()
    assert code == 2 and json.loads(out)["error"]["code"] == "no-batch-api"
    assert source_server.hits(paths[0]) == 0  # stopped before anything was fetched


# -- prompt caching -----------------------------------------------------------------------------


def test_a_source_whose_claims_take_several_calls_shares_one_cached_excerpt(
    tmp_path: Path, source_server: SourceServer, protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, _ = audit(tmp_path, source_server, [20], sentences=60)  # 3 calls of up to 8 claims
    with LLMServer(protocol) as llm:
        _, report, _ = check(doc, llm, capsys)
        calls = llm.calls
        reads, writes = llm.cache_read_tokens, llm.cache_write_tokens
    assert len(calls) == 3 and lost(report) == []
    first, *others = sorted(calls, key=lambda r: r.received_at)
    # The first call goes alone: the cache it writes can be read only once it is answered.
    assert all(r.received_at >= first.answered_at for r in others)  # type: ignore[operator]
    user = [r.body["messages"][-1]["content"] for r in calls]
    if protocol == "anthropic":
        assert all(isinstance(u, list) and u[0]["cache_control"] == {"type": "ephemeral"} for u in user)
        assert len({u[0]["text"] for u in user}) == 1 and len({r.body["system"] for r in calls}) == 1
        assert writes > 0 and reads == 2 * writes  # written once, read by the two others
    else:
        assert reads > 0 and writes == 0  # OpenAI caches the shared prefix by itself
    tokens_in = sum(c["judge"]["input_tokens"] for c in report["claims"])
    tokens_out = sum(c["judge"]["output_tokens"] for c in report["claims"])
    price = PRICES[MODELS[protocol]]
    expected = cost_usd(price, tokens_in, tokens_out, cache_read_tokens=reads, cache_write_tokens=writes)
    assert report["total_cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert report["total_cost_usd"] < cost_usd(price, tokens_in, tokens_out)


# -- the warm cache -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["interactive", "batch"])
def test_a_second_run_on_a_warm_cache_makes_no_call_and_no_download(
    tmp_path: Path, source_server: SourceServer, protocol: str, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc, paths = audit(tmp_path, source_server, [2, 9, 1])
    args = ("--cache-dir", str(tmp_path / "cache"), "--judge-mode", mode)
    with LLMServer(protocol) as llm:
        code, first, _ = check(doc, llm, capsys, *args)
        made = len(llm.calls) + len(llm.batch_requests)
        downloads = sum(source_server.hits(p) for p in paths)
        code2, second, _ = check(doc, llm, capsys, *args)
        assert len(llm.calls) + len(llm.batch_requests) == made and len(llm._batches) <= 2
    assert sum(source_server.hits(p) for p in paths) == downloads == 3
    assert outcomes(second) == outcomes(first) and code2 == code
    assert second["total_cost_usd"] == 0 and all(c["judge"]["cached"] for c in second["claims"])


def test_reply_headers_state_the_account_on_every_answer(protocol: str) -> None:
    # The stand-in itself: what the judge reads (tests/servers/llm_server.py).
    with LLMServer(protocol, account=Account(requests_limit=10)) as llm:
        reply, _ = llm._next_reply(_request(llm))
    names = (
        ["anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"]
        if protocol == "anthropic"
        else ["x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"]
    )
    assert all(name in reply.headers for name in names)
    assert isinstance(reply, Reply) and reply.headers[names[0]] == "9"


def _request(llm: LLMServer):  # type: ignore[no-untyped-def]
    from tests.servers.llm_server import RecordedRequest

    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hello"}]}
    return RecordedRequest(llm.protocol, "POST", llm.endpoint, {}, body)
