"""The per-source deadline over a page's text extraction and the claims' checks (issue 30,
point 5), against a real server on 127.0.0.1 serving hostile pages: 5 MB of `word<br>`, a
page of 100,000 links, a `text/plain` body that never ends (cut at the 5 MB byte cap).

Each of them takes seconds of CPU to extract or check (and once took a gigabyte). The deadline
covers that work as it covers the download: a page past it fails alone, as not extractable,
and the run goes on."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from citecheck.cache import DiskCache
from citecheck.checks import preparers
from citecheck.config import Settings
from citecheck.extract.document import extract_text
from citecheck.fetch.fetcher import fetch_all
from citecheck.models import FetchOutcome
from tests.servers import source_server as servers
from tests.servers.source_server import SourceServer

source_server = servers.source_server  # the fixture, by its usual name

DEADLINE_S = 1.0  # each hostile page takes seconds (bench/hostile_sources.py)
ARTICLE = (
    "<html><head><title>Census</title></head><body><article><p>The census counted 14 million "
    "residents in 2020, up from 12 million a decade before, the bureau said.</p></article></body></html>"
)


def hostile_pages(server: SourceServer) -> list[str]:
    return [
        server.add_br_flood("/br.html"),
        server.add_link_flood("/links.html"),
        server.add_endless("/endless.txt"),
    ]


def claim_citing(url: str) -> str:
    return f"The survey found that 42% of the 1,200 people asked agree ([survey]({url})).\n\n"


def test_extraction_and_checks_past_the_deadline_fail_the_page(source_server: SourceServer) -> None:
    urls = hostile_pages(source_server)
    fine = source_server.add("/census.html", ARTICLE)
    doc = extract_text("".join(claim_citing(u) for u in [*urls, fine]), "doc.md")
    citing = {c.citations[0].url: [c] for c in doc.claims}
    settings = Settings(allow_private_hosts=["127.0.0.1"], timeout_s=DEADLINE_S)
    got = asyncio.run(fetch_all([*urls, fine], settings, prepare=preparers(citing)))
    for url in urls:
        source = got.sources[url]
        assert (source.outcome, source.error) == (
            FetchOutcome.not_extractable,
            f"not extractable: took longer than {DEADLINE_S:g} s",
        ), url
        assert url not in got.prepared
    assert got.sources[fine].outcome is FetchOutcome.ok  # the page after them is read and checked
    assert "14 million residents" in got.sources[fine].text
    assert fine in got.prepared


def test_a_run_citing_hostile_pages_ends_and_names_them(tmp_path: Path, source_server: SourceServer) -> None:
    urls = hostile_pages(source_server)
    doc = tmp_path / "doc.md"
    doc.write_text("".join(claim_citing(u) for u in urls))
    command = [
        sys.executable, "-m", "citecheck", "check", str(doc), "--judge", "none", "--no-progress",
        "--allow-private-host", "127.0.0.1", "--timeout", f"{DEADLINE_S:g}", "--format", "json",
    ]  # fmt: skip
    # A safety net far above the deadline (before the fix: minutes and gigabytes), not a speed test.
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    report = json.loads(done.stdout)
    assert [(c["verdict"], c["reason"]) for c in report["claims"]] == [
        ("not_extractable", f"not extractable: took longer than {DEADLINE_S:g} s")
    ] * len(urls)


def test_a_page_from_the_cache_is_checked_within_the_deadline_too(
    tmp_path: Path, source_server: SourceServer
) -> None:
    # A first run with nothing to check on the page keeps its 5 MB of text in the cache; the
    # next run's checks of it (a claim with figures) are held to the deadline all the same.
    url = source_server.add_endless("/endless.txt")
    settings = Settings(allow_private_hosts=["127.0.0.1"], timeout_s=DEADLINE_S)
    first = asyncio.run(fetch_all([url], settings, DiskCache(tmp_path, "test-secret")))
    assert first.sources[url].outcome is FetchOutcome.ok
    doc = extract_text(claim_citing(url), "doc.md")
    again = asyncio.run(
        fetch_all([url], settings, DiskCache(tmp_path, "test-secret"), prepare=preparers({url: doc.claims}))
    )
    source = again.sources[url]
    assert source.info.from_cache
    assert (source.outcome, source.error) == (
        FetchOutcome.not_extractable,
        f"not extractable: took longer than {DEADLINE_S:g} s",
    )
    assert source_server.hits("/endless.txt") == 1  # read from the cache, not fetched again
    # The cache keeps the page: past the deadline is this run's claims' doing, not the source's.
    third = asyncio.run(fetch_all([url], settings, DiskCache(tmp_path, "test-secret"))).sources[url]
    assert (third.outcome, third.info.from_cache) == (FetchOutcome.ok, True)


def test_a_page_read_past_the_deadline_is_not_cached(tmp_path: Path, source_server: SourceServer) -> None:
    url = source_server.add_endless("/endless.txt")
    settings = Settings(allow_private_hosts=["127.0.0.1"], timeout_s=DEADLINE_S)
    doc = extract_text(claim_citing(url), "doc.md")
    first = asyncio.run(
        fetch_all([url], settings, DiskCache(tmp_path, "test-secret"), prepare=preparers({url: doc.claims}))
    )
    assert first.sources[url].outcome is FetchOutcome.not_extractable
    again = asyncio.run(fetch_all([url], settings, DiskCache(tmp_path, "test-secret"))).sources[url]
    assert (again.outcome, again.info.from_cache) == (FetchOutcome.ok, False)  # fetched anew, and read
    assert source_server.hits("/endless.txt") == 2
