"""Text extraction in the worker processes: same results as in a thread, pages checked once,
where they are extracted (the checks stage's preparers), with the results of this process; a
page past its time limit stopped with its worker, and a new process in its place."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import signal
from functools import partial
from pathlib import Path

import pytest

from citecheck.checks import CheckedPage, check_request, claim_results, prepare_page, preparers, run_checks
from citecheck.cli import main
from citecheck.config import Settings
from citecheck.extract.document import extract_text
from citecheck.fetch.content import ExtractedContent, extract_page, html_content
from citecheck.fetch.fetcher import fetch_all
from citecheck.fetch.workers import (
    EARLY_WORKER_BYTES,
    WORKER_MIN_URLS,
    WORKER_NICENESS,
    ExtractionWorker,
    WorkerLauncher,
    launch_workers_early,
    out_of_memory,
    read_pages,
    worker_processes,
)
from citecheck.models import Claim, DecidedBy, FetchOutcome, SelectedFile
from tests.integration.fetching import alive, children
from tests.servers import source_server as servers
from tests.servers.source_server import SourceServer, br_flood

source_server = servers.source_server  # the fixture, by its usual name


def page(i: int) -> str:
    return (
        f"<!doctype html><html><head><title>District {i}</title>"
        f'<meta property="article:published_time" content="2021-03-{1 + i % 28:02d}"></head>'
        f"<body><nav>Home | About</nav><article><h1>District {i}</h1>"
        f"<p>The 2020 census counted {10_000 + 37 * i:,} residents in district {i}, about 12% more "
        f"than in 2010, according to the statistics bureau.</p></article></body></html>"
    )


WALL = "<html><body><p>Please sign in to continue.</p></body></html>"
# What to prepare of a page: its `CheckedPage`, no claim to check on it.
INDEX = partial(prepare_page, ())


def extracted(body: bytes, content_type: str, url: str | None = None) -> ExtractedContent:
    """The page's content as this process extracts it (in a thread)."""
    content, prepared = asyncio.run(extract_page(body, content_type, url=url, prepare=INDEX))
    assert prepared is None  # prepared only where a worker extracts it
    return content


def test_many_urls_go_through_the_worker_with_the_thread_results(source_server: SourceServer) -> None:
    n = WORKER_MIN_URLS + 10
    urls = [source_server.add(f"/d{i}.html", page(i)) for i in range(n)]
    wall = source_server.add("/wall.html", WALL)
    image = source_server.add("/x.png", b"\x89PNG\r\n\x1a\n" + bytes(100), content_type="image/png")
    every = [*urls, wall, image]
    got = asyncio.run(
        fetch_all(every, Settings(allow_private_hosts=["127.0.0.1"]), prepare=dict.fromkeys(every, INDEX))
    )

    for i, url in enumerate(urls):
        src = got.sources[url]
        assert src.outcome is FetchOutcome.ok, src.error
        expected = extracted(page(i).encode(), "text/html; charset=utf-8", url=url)
        assert (src.text, src.title, src.date) == (expected.text, expected.title, expected.date)
        assert f"{10_000 + 37 * i:,} residents" in src.text
        assert got.prepared[url] == CheckedPage.of(src.text, src.date)  # made by the worker, same as here
    assert got.sources[wall].outcome is FetchOutcome.not_extractable
    assert "login" in (got.sources[wall].error or "")
    assert got.sources[image].outcome is FetchOutcome.not_extractable
    assert wall not in got.prepared and image not in got.prepared


def test_few_urls_are_read_by_a_worker_too(source_server: SourceServer) -> None:
    # Below WORKER_MIN_URLS the worker starts at the first page to read: a page is read (and
    # prepared) in a process, under its deadline, however few the run cites.
    url = source_server.add("/d1.html", page(1))
    got = asyncio.run(fetch_all([url], Settings(allow_private_hosts=["127.0.0.1"]), prepare={url: INDEX}))
    assert got.sources[url].outcome is FetchOutcome.ok
    assert "10,037 residents" in got.sources[url].text
    assert got.prepared == {url: CheckedPage.of(got.sources[url].text, got.sources[url].date)}


def test_the_workers_start_at_the_first_page() -> None:
    async def run() -> tuple[int, int, str]:
        worker = ExtractionWorker()
        before = worker.live  # a run whose pages all fail starts no process
        try:
            content, _ = await extract_page(page(1).encode(), "text/html", worker=worker)
            return before, worker.live, content.text
        finally:
            await worker.aclose()

    before, after, text = asyncio.run(run())
    assert (before, after) == (0, 1)
    assert "10,037 residents" in text


def in_worker(
    worker: ExtractionWorker, i: int, *, prepare: object = INDEX, limit_s: float | None = None
) -> asyncio.Future[tuple[ExtractedContent, CheckedPage | None]]:
    return asyncio.ensure_future(
        extract_page(
            page(i).encode(),
            "text/html",
            url=f"http://example.org/{i}",
            worker=worker,
            prepare=prepare,  # type: ignore[arg-type]
            limit_s=limit_s,
        )
    )


def extract_in_worker(n: int, *, processes: int = 1) -> list[tuple[ExtractedContent, CheckedPage | None]]:
    """Pages 0 … n-1 through `processes` workers, all handed over at once."""

    async def run() -> list[tuple[ExtractedContent, CheckedPage | None]]:
        worker = await ExtractionWorker.start(processes=processes)
        assert worker is not None
        try:
            return await asyncio.gather(*(in_worker(worker, i) for i in range(n)))
        finally:
            await worker.aclose()

    return asyncio.run(run())


def test_worker_batches_and_keeps_order() -> None:
    done = extract_in_worker(40)
    assert [(content.title, index is not None) for content, index in done] == [
        (f"District {i}", True) for i in range(40)
    ]


def test_a_dead_worker_is_replaced_by_a_new_process() -> None:
    async def run() -> tuple[str, str]:
        worker = await ExtractionWorker.start()
        assert worker is not None
        try:
            first, _ = await in_worker(worker, 1)
            dead = worker.pid
            os.kill(dead, signal.SIGKILL)  # the worker dies (OOM killer, a crash in lxml, …)
            second, prepared = await in_worker(worker, 2)
            assert (worker.live, worker.replaced) == (1, 1)  # a new process read (and prepared) it
            assert worker.pids() and dead not in worker.pids()
            assert prepared == CheckedPage.of(second.text, second.date)
        finally:
            await worker.aclose()
        return first.text, second.text

    first, second = asyncio.run(run())
    assert "10,037 residents" in first
    assert "10,074 residents" in second


def test_a_page_past_its_time_is_stopped_with_its_worker_and_the_rest_go_on() -> None:
    # 5 MB of `word<br>` (seconds to read and check) among ordinary pages, all handed over at
    # once: one batch, the slow page second.
    async def run() -> tuple[list[object], list[int], int, int]:
        worker = await ExtractionWorker.start()
        assert worker is not None
        try:
            request = ("The survey found that 42% of the 1,200 people asked agree.", (DecidedBy.number,))
            checks = partial(prepare_page, (request,))
            slow = asyncio.ensure_future(
                extract_page(br_flood(5 << 20), "text/html", worker=worker, prepare=checks, limit_s=0.5)
            )
            after = [in_worker(worker, i, limit_s=60) for i in (2, 3)]
            pages = [in_worker(worker, 1, limit_s=60), slow, *after]
            done = await asyncio.gather(*pages, return_exceptions=True)
            return done, worker.pids(), worker.pid, worker.replaced
        finally:
            await worker.aclose()

    done, pids, first, replaced = asyncio.run(run())
    assert isinstance(done[1], TimeoutError)
    titles = [c.title for c, _ in (done[0], *done[2:])]  # type: ignore[misc]
    assert titles == ["District 1", "District 2", "District 3"]
    assert not alive(first) and first not in pids  # the stopped worker is gone ...
    assert replaced == 1  # ... and a new process read the pages after the slow one


def test_a_page_needing_more_memory_than_a_worker_may_take_fails_alone() -> None:
    async def run() -> list[ExtractedContent]:
        # 5 MB of `word<br>` parsed takes ~200 MB: past a 64 MB limit.
        worker = await ExtractionWorker.start(memory_mb=64)
        assert worker is not None
        try:
            big = extract_page(br_flood(5 << 20), "text/html", worker=worker)
            done = await asyncio.gather(big, in_worker(worker, 1))
            return [content for content, _ in done]
        finally:
            await worker.aclose()

    big, small = asyncio.run(run())
    assert big.error == out_of_memory(64) == "not extractable: needs more than 64 MB of memory"
    assert "10,037 residents" in small.text


def test_two_workers_share_the_pages_and_results_stay_the_same() -> None:
    done = extract_in_worker(200, processes=2)
    alone = extract_in_worker(200)
    assert [(c.title, c.text, index) for c, index in done] == [(c.title, c.text, index) for c, index in alone]
    assert [c.title for c, _ in done] == [f"District {i}" for i in range(200)]


def test_a_run_starts_a_worker_per_cpu_or_per_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 4)  # the machine, not our code
    on = Settings()
    assert [worker_processes(on, n) for n in (1, 3, WORKER_MIN_URLS, 1000)] == [1, 3, 4, 4]
    assert worker_processes(Settings(fetch=False), 1000) == 0
    assert worker_processes(on, 0) == 0
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert worker_processes(on, 1000) == 1  # one CPU: still a process, which can be stopped


def test_the_pool_forks_its_workers_from_the_first() -> None:
    async def run() -> tuple[set[int], list[tuple[ExtractedContent, CheckedPage | None]]]:
        launcher = WorkerLauncher.spawn(3)
        assert launcher is not None
        worker = await launcher.start(2)
        try:
            done = await asyncio.gather(
                *(extract_page(page(i).encode(), "text/html", worker=worker) for i in range(20))
            )
            assert worker.live == 2
            forked = children(worker.pid)
            # Both run below this process's priority: the event loop's downloads come first.
            lower = min(19, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS)
            assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in {worker.pid, *forked}} == {lower}
            return forked, done
        finally:
            await worker.aclose()
            assert not alive(worker.pid)

    forked, done = asyncio.run(run())
    assert len(forked) == 1  # the second worker is a child of the first, not of this process
    assert not any(alive(pid) for pid in forked)  # and ended with the pool
    assert [c.title for c, _ in done] == [f"District {i}" for i in range(20)]


def test_a_launcher_not_needed_is_discarded(source_server: SourceServer) -> None:
    before = children(os.getpid())
    launcher = WorkerLauncher.spawn(2)
    assert launcher is not None
    assert children(os.getpid()) - before  # the first worker is running, importing
    url = source_server.add("/d1.html", page(1))
    # Nothing fetched, nothing to read: fetch_all discards the launcher.
    got = asyncio.run(
        fetch_all([url], Settings(fetch=False, allow_private_hosts=["127.0.0.1"]), launcher=launcher)
    )
    assert got.sources[url].outcome is FetchOutcome.skipped
    assert children(os.getpid()) == before
    launcher.discard()  # once more: nothing left to do


def test_a_launcher_serves_a_run_of_few_pages(source_server: SourceServer) -> None:
    launcher = WorkerLauncher.spawn(2)
    assert launcher is not None
    url = source_server.add("/d1.html", page(1))
    got = asyncio.run(
        fetch_all([url], Settings(allow_private_hosts=["127.0.0.1"]), launcher=launcher, prepare={url: INDEX})
    )
    assert "10,037 residents" in got.sources[url].text
    assert url in got.prepared  # read and prepared by the launcher's worker


def test_workers_start_early_only_for_enough_markdown(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # the machine, not our code
    small, large = tmp_path / "small.md", tmp_path / "large.md"
    small.write_bytes(b"x" * (EARLY_WORKER_BYTES - 1))
    large.write_bytes(b"x" * EARLY_WORKER_BYTES)
    whole = [SelectedFile(path=str(p), display=p.name) for p in (small, large)]
    assert launch_workers_early(Settings(), whole[:1]) is None
    assert launch_workers_early(Settings(fetch=False), whole) is None
    # In a pull request only the changed lines count: three of a large file are too few.
    three_lines = [SelectedFile(path=str(large), display="large.md", line_ranges=[(4, 6)])]
    assert launch_workers_early(Settings(), three_lines) is None
    launcher = launch_workers_early(Settings(), whole[1:])
    assert launcher is not None
    launcher.discard()


def test_a_run_stopped_before_the_fetch_stage_leaves_no_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CITECHECK_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    doc = tmp_path / "big.md"
    doc.write_text(
        "".join(
            f"District {i} had {10_000 + i:,} residents ([c](https://example.org/{i})).\n\n"
            for i in range(80)
        )
    )
    assert doc.stat().st_size >= EARLY_WORKER_BYTES  # large enough for the early start
    before = children(os.getpid())
    # No key for the judge: the run stops before any fetch, after the worker was started.
    assert main(["check", str(doc), "--judge", "anthropic"]) == 2
    assert "no-api-key" in capsys.readouterr().err
    assert children(os.getpid()) == before


def test_extraction_without_worker_prepares_nothing() -> None:
    content, prepared = asyncio.run(extract_page(page(3).encode(), "text/html", prepare=INDEX))
    assert prepared is None
    assert content.title == "District 3"


def test_check_with_many_links_uses_the_worker_and_reports_as_without(
    tmp_path: Path, source_server: SourceServer, capsys: pytest.CaptureFixture[str]
) -> None:
    n = WORKER_MIN_URLS + 5
    lines = []
    for i in range(n):
        url = source_server.add(f"/d{i}.html", page(i))
        # every third figure is wrong, by 500: the page's sentence on the district's residents
        # says 10,000 + 37 i, a contradiction (not district 0's "10,000": a round figure, it
        # may be 10,500 rounded)
        figure = 10_000 + 37 * i + (500 if i % 3 == 1 else 0)
        lines += [f"District {i} had {figure:,} residents in 2020 ([census]({url})).", ""]
    doc = tmp_path / "districts.md"
    doc.write_text("\n".join(lines), encoding="utf-8")
    args = ["check", str(doc), "--judge", "none", "--allow-private-host", "127.0.0.1", "--format", "json"]
    main([*args, "--max-claims", str(n)])
    report = json.loads(capsys.readouterr().out)
    verdicts = [c["verdict"] for c in report["claims"]]
    assert verdicts == ["fail" if i % 3 == 1 else "pass" for i in range(n)]
    assert all(c["decided_by"] == "number" for c in report["claims"])


def test_worker_without_preparer_only_extracts() -> None:
    async def run() -> tuple[str | None, object]:
        worker = await ExtractionWorker.start()
        assert worker is not None
        try:
            content, prepared = await extract_page(page(4).encode(), "text/html", worker=worker)
        finally:
            await worker.aclose()
        return content.title, prepared

    assert asyncio.run(run()) == ("District 4", None)


def claims_about(i: int, url: str) -> list[Claim]:
    """Claims citing page `i`: a right and a wrong figure, dates, a quote found and one not."""
    doc = extract_text(
        f"District {i} had {10_000 + 37 * i:,} residents in 2020 ([census]({url})).\n\n"
        f"District {i} had {20_000 + i:,} residents in March 2019 ([census]({url})).\n\n"
        f'The bureau said "the 2020 census counted {10_000 + 37 * i:,} residents" ([census]({url})).\n\n'
        f'The bureau said "every district lost people since the last census" ([census]({url})).\n',
        "d.md",
    )
    assert len(doc.claims) == 4
    return doc.claims


def test_the_worker_checks_the_claims_as_this_process_would(source_server: SourceServer) -> None:
    n = WORKER_MIN_URLS + 5
    urls = [source_server.add(f"/d{i}.html", page(i)) for i in range(n)]
    citing = {url: claims_about(i, url) for i, url in enumerate(urls)}
    got = asyncio.run(fetch_all(urls, Settings(allow_private_hosts=["127.0.0.1"]), prepare=preparers(citing)))
    for url in urls:
        src, prepared = got.sources[url], got.prepared[url]
        # Every claim was checked in the worker: its results came back with the page ...
        assert len(prepared.results) == 4
        for claim in citing[url]:
            here = run_checks(claim, CheckedPage.of(src.text, src.date))  # checked anew, here
            assert here  # each of these claims has something to check
            # ... are what this process finds, and are what the claim is given.
            assert prepared.results[check_request(claim)] == here  # type: ignore[index]
            assert claim_results(claim, claim.citations[0], prepared) == here
    verdicts = [[all(c.passed for c in r) for r in got.prepared[urls[0]].results.values()]]
    assert verdicts == [[True, False, True, False]]


def test_a_checked_page_travels_with_its_results_and_without_derived_data() -> None:
    text = extracted(page(5).encode(), "text/html").text
    checked = CheckedPage.of(text)
    claims = claims_about(5, "http://example.org/5")
    results = [run_checks(c, checked) for c in claims]
    assert checked.index.numbers and checked.index.dates  # computed by the checks
    back = pickle.loads(pickle.dumps(checked))
    assert set(vars(back.index)) == {"text", "date"}  # figures and dates are found again on demand
    assert back.index.numbers == checked.index.numbers and back.index.dates == checked.index.dates
    assert back.results == checked.results
    assert [run_checks(c, back) for c in claims] == results


def test_a_failing_page_in_a_batch_fails_alone_and_order_is_kept() -> None:
    """A page failing while it is read or prepared gives its exception in its own place, and
    the pages around it their own results."""

    def read(i: int) -> partial[ExtractedContent]:
        return partial(html_content, page(i).encode(), "text/html", f"http://example.org/{i}")

    good = [(read(i), INDEX) for i in range(3)]
    request = ("District 1 had 10,037 residents.", (DecidedBy.number,), ())
    checked = (read(1), partial(prepare_page, (request,)))
    bad_body = (partial(html_content, None, "text/html", None), INDEX)  # fails while extracting
    bad_check = (read(1), partial(prepare_page, (("text", None, ()),)))  # ... checking
    batch = [good[0], bad_body, checked, bad_check, good[2]]
    out = read_pages(batch)  # type: ignore[arg-type]
    assert [isinstance(o, Exception) for o in out] == [False, True, False, True, False]
    alone = [read_pages([job])[0] for job in (good[0], checked, good[2])]  # type: ignore[list-item]
    for got, want in zip([out[0], out[2], out[4]], alone, strict=True):
        assert not isinstance(got, Exception) and not isinstance(want, Exception)
        assert got[0] == want[0] and got[1] == want[1]
    results = out[2][1].results  # type: ignore[index,union-attr]
    assert [r.passed for found in results.values() for r in found] == [True]
