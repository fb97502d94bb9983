"""Cache entries are validated when read: a forged, unsigned, tampered, future-dated, expired or
foreign entry is never used; it is rejected, deleted and counted. Sources through the fetch
stage against a real server, verdicts through the judge against the OpenAI-protocol stand-in."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from citecheck.cache import NOT_SIGNED, DiskCache, digest, seal
from citecheck.config import Settings
from citecheck.fetch.fetcher import CACHE_NAMESPACE
from citecheck.judge.core import VERDICT_NAMESPACE, Judge
from citecheck.judge.resolve import resolve_judge
from citecheck.models import Claim, ClaimKind, FetchedSource, FetchOutcome, SourceInfo
from tests.integration.fetching import fetch_sources
from tests.servers import source_server as servers
from tests.servers.llm_server import LLMServer
from tests.servers.source_server import SourceServer

source_server = servers.source_server  # the fixture, by its usual name

REAL = (
    "<html><head><title>Report</title></head><body><article><p>Sales grew 10% in 2023, the annual "
    "report says, after two flat years in which the company restructured.</p></article></body></html>"
)
FORGED_TEXT = "Sales grew 25% in 2023, the annual report says."
# The run's cache secret; an attacker who can write the folder does not have it.
SECRET = "the-runs-cache-secret"


def settings(**kw: object) -> Settings:
    return Settings(allow_private_hosts=["127.0.0.1"], **kw)


def entry_path(root: Path, namespace: str, key: str) -> Path:
    return root / namespace / f"{digest(key)}.json"


def sign(envelope: dict[str, Any], namespace: str, secret: str = SECRET) -> None:
    envelope["mac"] = seal(secret, namespace, envelope["key"], envelope["stored_at"], envelope["value"])


def forge_source(root: Path, url: str, *, secret: str | None = SECRET, **changes: Any) -> Path:
    """Write a source entry claiming the page says 25%: well-formed, consistent with its hash,
    signed with `secret` after `changes` (None: not signed, as an attacker without it writes
    it). A signed one stands for an entry of an older citecheck or a corrupted one: the
    checks after the signature's must catch what it changes."""
    source = FetchedSource(
        info=SourceInfo(url=url, final_url=url, status=200, content_type="text/html"),
        outcome=FetchOutcome.ok,
        text=FORGED_TEXT,
        text_hash=digest(FORGED_TEXT),
        fetched_at=time.time(),
    ).model_dump(mode="json", exclude={"info": {"from_cache"}})
    envelope = {"key": url, "stored_at": time.time(), "value": source}
    for dotted, value in changes.items():
        *path, last = dotted.split(".")
        target = envelope
        for part in path:
            target = target[part]
        target[last] = value
    if secret is not None:
        sign(envelope, CACHE_NAMESPACE, secret)
    path = entry_path(root, CACHE_NAMESPACE, url)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(envelope), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"value.fetched_at": time.time() + 10 * 365 * 86400}, "fetched_at dated in the future"),
        ({"value.fetched_at": time.time() - 30 * 86400}, "fetched_at older than the TTL"),
        ({"value.fetched_at": None}, "fetched_at no valid timestamp"),
        ({"value.text_hash": digest("something else")}, "text does not match its hash"),
        ({"value.text_hash": None}, "text does not match its hash"),
        ({"value.info.url": "https://elsewhere.example/"}, "for another URL"),
        ({"value.outcome": "maybe"}, "not a valid source entry"),
        ({"stored_at": time.time() + 86400}, "dated in the future"),
        ({"stored_at": None}, "no valid timestamp"),
        ({"key": "https://elsewhere.example/"}, "stored under another key"),
    ],
)
def test_a_tampered_source_entry_is_rejected_deleted_and_counted(
    source_server: SourceServer, tmp_path: Path, changes: dict[str, Any], why: str
) -> None:
    url = source_server.add("/report", REAL)
    path = forge_source(tmp_path, url, **changes)
    cache = DiskCache(tmp_path, SECRET)
    src = fetch_sources([url], settings(), cache)[url]
    assert src.outcome is FetchOutcome.ok and not src.from_cache
    assert "10%" in src.text and "25%" not in src.text  # the real page, downloaded
    assert source_server.hits("/report") == 1
    assert dict(cache.rejected) == {why: 1}
    assert cache.rejected_note() == f"1 cache entry rejected (1 {why}): not used, and deleted from the cache"
    # The forged entry is gone; the real page took its place.
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["value"]["text"] == src.text


@pytest.mark.parametrize("secret", [None, "another-secret"], ids=["unsigned", "signed-elsewhere"])
def test_a_forged_entry_consistent_with_its_hash_is_rejected(
    source_server: SourceServer, tmp_path: Path, secret: str | None
) -> None:
    """Issue 30, point 9: an entry whose forged text matches its own hash passed every check
    of consistency, and was used. Its origin is what gives it away: it is not signed with the
    run's secret."""
    url = source_server.add("/report", REAL)
    path = forge_source(tmp_path, url, secret=secret)
    cache = DiskCache(tmp_path, SECRET)
    src = fetch_sources([url], settings(), cache)[url]
    assert not src.from_cache and "10%" in src.text and "25%" not in src.text
    assert source_server.hits("/report") == 1
    assert dict(cache.rejected) == {NOT_SIGNED: 1}
    assert cache.rejected_note() == (
        "1 cache entry rejected (1 not signed with this cache's secret): not used, and deleted from the cache"
    )
    assert json.loads(path.read_text(encoding="utf-8"))["value"]["text"] == src.text


def test_a_signed_entry_is_used_and_says_so(source_server: SourceServer, tmp_path: Path) -> None:
    url = source_server.add("/report", REAL)
    first = fetch_sources([url], settings(), DiskCache(tmp_path, SECRET))[url]
    cache = DiskCache(tmp_path, SECRET)
    again = fetch_sources([url], settings(), cache)[url]
    assert again.from_cache and again.info.from_cache and again.text == first.text
    assert source_server.hits() == 1 and not cache.rejected


def test_a_stale_entry_is_revalidated_not_rejected(source_server: SourceServer, tmp_path: Path) -> None:
    url = source_server.add("/report", REAL, headers={"ETag": '"v1"'})
    cache = DiskCache(tmp_path, SECRET)
    fetch_sources([url], settings(), cache)
    again = fetch_sources([url], settings(cache_max_age_s=0), cache)[url]
    assert again.from_cache and source_server.full_hits() == 1  # the second request was a 304
    assert not cache.rejected


def test_unreadable_entries_are_counted_too(source_server: SourceServer, tmp_path: Path) -> None:
    urls = [source_server.add(f"/p{i}", REAL) for i in range(3)]
    for url, junk in zip(urls, ['{"key": "trunc', "[1, 2]", '{"key": 1, "value": 2}'], strict=True):
        path = entry_path(tmp_path, CACHE_NAMESPACE, url)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(junk, encoding="utf-8")
    cache = DiskCache(tmp_path, SECRET)
    got = fetch_sources(urls, settings(), cache)
    assert all(s.outcome is FetchOutcome.ok and not s.from_cache for s in got.values())
    assert dict(cache.rejected) == {"not valid JSON": 1, "not a cache entry": 2}
    assert cache.rejected_note() == (
        "3 cache entries rejected (2 not a cache entry, 1 not valid JSON): "
        "not used, and deleted from the cache"
    )


# verdicts -------------------------------------------------------------------------------------

PAGE_TEXT = "The river is 120 km long, the atlas of the region says. It floods every spring."
CLAIM = Claim(text="The river is 120 km long.", kinds=[ClaimKind.statistic], file="a.md", line=1, column=1)


@pytest.fixture
def llm() -> Iterator[LLMServer]:
    with LLMServer("openai") as server:
        yield server


def make_judge(llm: LLMServer, cache: DiskCache) -> Judge:
    s = Settings(judge="openai", base_url=llm.base_url)
    config = resolve_judge(s, {"OPENAI_API_KEY": "sk-test"})
    return Judge(config, s, cache)


def judge_once(judge: Judge) -> Any:
    source = FetchedSource(
        info=SourceInfo(url="https://atlas.example/river"),
        outcome=FetchOutcome.ok,
        text=PAGE_TEXT,
        text_hash=digest(PAGE_TEXT),
    )

    async def go() -> Any:
        try:
            return (await judge.judge_source(source, [(CLAIM, [])]))[0]
        finally:
            await judge.aclose()

    return asyncio.run(go())


def only_entry(root: Path, namespace: str) -> Path:
    (path,) = (root / namespace).glob("*.json")
    return path


@pytest.mark.parametrize(
    "tamper",
    [
        lambda v: v.update(evidence="The river is 900 km long."),  # not on the page
        lambda v: v.update(evidence="the"),  # on the page, but carries no weight
        lambda v: v.update(supported=None),
        lambda v: v.update(confidence="high"),
    ],
)
def test_a_tampered_verdict_is_rejected_and_judged_again(
    llm: LLMServer, tmp_path: Path, tamper: Callable[[dict[str, Any]], None]
) -> None:
    first = judge_once(make_judge(llm, DiskCache(tmp_path, SECRET)))
    assert first.supported is True and len(llm.calls) == 1
    path = only_entry(tmp_path, VERDICT_NAMESPACE)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    tamper(envelope["value"])
    sign(envelope, VERDICT_NAMESPACE)  # not the signature's to catch: the verdict's checks'
    path.write_text(json.dumps(envelope), encoding="utf-8")

    cache = DiskCache(tmp_path, SECRET)
    again = judge_once(make_judge(llm, cache))
    assert not again.cached and len(llm.calls) == 2  # judged again, not taken from the entry
    assert dict(cache.rejected) == {"a verdict that does not hold up on the page": 1}


def test_an_intact_verdict_is_reused_and_an_old_one_is_not(llm: LLMServer, tmp_path: Path) -> None:
    judge_once(make_judge(llm, DiskCache(tmp_path, SECRET)))
    reused = judge_once(make_judge(llm, DiskCache(tmp_path, SECRET)))
    assert reused.cached and len(llm.calls) == 1
    path = only_entry(tmp_path, VERDICT_NAMESPACE)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    envelope["stored_at"] = time.time() - 8 * 86400  # past the default TTL of 7 days
    sign(envelope, VERDICT_NAMESPACE)
    path.write_text(json.dumps(envelope), encoding="utf-8")
    cache = DiskCache(tmp_path, SECRET)
    assert not judge_once(make_judge(llm, cache)).cached and len(llm.calls) == 2
    assert dict(cache.rejected) == {"older than the TTL": 1}


def test_a_verdict_changed_without_the_secret_is_rejected(llm: LLMServer, tmp_path: Path) -> None:
    judge_once(make_judge(llm, DiskCache(tmp_path, SECRET)))
    path = only_entry(tmp_path, VERDICT_NAMESPACE)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    envelope["value"]["rationale"] = "Checked twice."
    path.write_text(json.dumps(envelope), encoding="utf-8")
    cache = DiskCache(tmp_path, SECRET)
    assert not judge_once(make_judge(llm, cache)).cached and len(llm.calls) == 2
    assert dict(cache.rejected) == {NOT_SIGNED: 1}
