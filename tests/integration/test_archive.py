"""Link rot (`archive: wayback`): the fetch stage asks the archive stand-in's availability API
about a source it could not fetch, and reads the snapshot from the source stand-in, through
the same guard, limits and cache as any page. A fault of the archive never changes the
source's outcome."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.cache import DiskCache, seal
from citecheck.config import Settings
from citecheck.fetch.archive import CACHE_NAMESPACE, NO_SNAPSHOT, archive_notes
from citecheck.models import FetchedSource, FetchOutcome
from tests.integration.fetching import fetch_sources
from tests.servers.archive_server import ArchiveServer, closed_port_url, snapshot_path
from tests.servers.source_server import SourceServer

TS = "20230501093000"
SNAPSHOT_PAGE = (
    "<html><head><title>Survey 2023</title></head><body><article><p>The 2023 survey collected "
    "14,000 responses from developers in 112 countries, the largest sample so far.</p>"
    "</article></body></html>"
)

SECRET = "test-secret"  # the cache signs its entries (citecheck.cache, "Origin")


def wayback(archive: ArchiveServer, **kw: object) -> Settings:
    options: dict[str, object] = {"allow_private_hosts": ["127.0.0.1"], **kw}
    return Settings(archive="wayback", archive_url=archive.api_url, **options)


def archived_at(
    sources: SourceServer, archive: ArchiveServer, dead: str, *, page: str = SNAPSHOT_PAGE
) -> str:
    """Give `dead` a snapshot: the archive's answer names it, the source stand-in serves it."""
    snapshot = sources.url(snapshot_path(TS, dead))
    sources.add(snapshot_path(TS, dead), "<html>the archive's banner</html>")
    sources.add(snapshot_path(TS, dead, raw=True), page)
    archive.snapshot(dead, snapshot, TS)
    return snapshot


def one(urls: list[str], settings: Settings, cache: DiskCache | None = None) -> list[FetchedSource]:
    got = fetch_sources(urls, settings, cache)
    return [got[u] for u in urls]


def test_a_dead_link_gets_its_snapshot_as_the_link_to_cite(
    source_server: SourceServer, archive_server: ArchiveServer
) -> None:
    dead = source_server.url("/gone.html")
    snapshot = archived_at(source_server, archive_server, dead)
    gone = source_server.add("/removed.html", "gone", status=410)
    archived_at(source_server, archive_server, gone)

    first, second = one([dead, gone], wayback(archive_server))

    # The verdict's facts are the link's: still unreachable, for the same reason.
    assert (first.outcome, first.error, first.info.status) == (
        FetchOutcome.unreachable,
        "HTTP 404 Not Found",
        404,
    )
    assert first.text == ""
    copy = first.info.archived
    assert copy is not None
    assert (copy.url, copy.timestamp, copy.date, copy.checked) == (snapshot, TS, "2023-05-01", False)
    assert copy.link_error == "HTTP 404 Not Found"
    assert first.info.archive_error is None
    assert second.outcome is FetchOutcome.unreachable and second.info.archived is not None
    assert second.info.archived.link_error == "HTTP 410 Gone"
    # Asked once per dead page, by its address; without archive-check the snapshot is not read.
    assert sorted(archive_server.looked_up) == sorted([dead, gone])
    assert source_server.hits(snapshot_path(TS, dead, raw=True)) == 0


def test_archive_check_reads_the_snapshot_as_captured(
    source_server: SourceServer, archive_server: ArchiveServer
) -> None:
    dead = source_server.url("/gone.html")
    snapshot = archived_at(source_server, archive_server, dead)

    (source,) = one([dead], wayback(archive_server, archive_check=True))

    assert source.outcome is FetchOutcome.ok
    assert "14,000 responses from developers in 112 countries" in source.text
    assert "banner" not in source.text  # the `id_` form: the page, not the archive's frame
    assert source.title == "Survey 2023"
    assert source.info.url == dead and source.info.status == 404  # the link itself stays dead
    assert source.info.archived is not None
    assert source.info.archived.checked and source.info.archived.url == snapshot
    assert source.info.archived.link_error == "HTTP 404 Not Found"
    assert source_server.hits(snapshot_path(TS, dead, raw=True)) == 1


def test_a_snapshot_that_cannot_be_read_leaves_the_source_unreachable(
    source_server: SourceServer, archive_server: ArchiveServer
) -> None:
    dead = source_server.url("/gone.html")
    snapshot = source_server.url(snapshot_path(TS, dead))  # the archive names it, nobody serves it
    archive_server.snapshot(dead, snapshot, TS)

    (source,) = one([dead], wayback(archive_server, archive_check=True))

    assert (source.outcome, source.error) == (FetchOutcome.unreachable, "HTTP 404 Not Found")
    assert source.info.archived is not None and not source.info.archived.checked
    assert source.info.archived.url == snapshot  # still the link to cite
    assert (
        source.info.archive_error == "the archived copy of 2023-05-01 could not be read: HTTP 404 Not Found"
    )


def test_no_snapshot_is_said_and_changes_nothing(
    source_server: SourceServer, archive_server: ArchiveServer
) -> None:
    dead = source_server.url("/gone.html")
    (source,) = one([dead], wayback(archive_server, archive_check=True))
    assert (source.outcome, source.error) == (FetchOutcome.unreachable, "HTTP 404 Not Found")
    assert source.info.archived is None
    assert source.info.archive_error == NO_SNAPSHOT
    assert archive_server.looked_up == [dead]


def test_a_capture_of_an_error_page_is_no_snapshot(
    source_server: SourceServer, archive_server: ArchiveServer
) -> None:
    dead = source_server.url("/gone.html")
    archive_server.snapshot(dead, source_server.url(snapshot_path(TS, dead)), TS, status="404")
    (source,) = one([dead], wayback(archive_server))
    assert source.info.archived is None and source.info.archive_error == NO_SNAPSHOT


def test_a_rate_limited_archive_is_asked_nothing_more(
    source_server: SourceServer, archive_server: ArchiveServer
) -> None:
    dead = [source_server.url(f"/gone-{i}.html") for i in range(3)]
    for url in dead:
        archived_at(source_server, archive_server, url)
    archive_server.answer_with(429)

    sources = one(dead, wayback(archive_server, archive_check=True, per_host_concurrency=1, concurrency=1))

    for source in sources:
        assert (source.outcome, source.error) == (FetchOutcome.unreachable, "HTTP 404 Not Found")
        assert source.info.archived is None
    errors = [s.info.archive_error for s in sources]
    assert errors[0] == "the archive answered HTTP 429 Too Many Requests"
    # One lookup, then none: a throttling archive is not hammered by every dead link of a run.
    assert len(archive_server.looked_up) == 1
    assert (
        errors[1:]
        == ["not looked up: the archive answered HTTP 429 Too Many Requests earlier in this run"] * 2
    )
    note = archive_notes(wayback(archive_server), sources)[-1]
    assert note.startswith(
        "archive: 3 unreachable source(s) looked up: 0 with a snapshot, 0 without, 3 not answered"
    )


def test_an_archive_that_is_down_changes_nothing(source_server: SourceServer) -> None:
    dead = source_server.url("/gone.html")
    settings = Settings(allow_private_hosts=["127.0.0.1"], archive="wayback", archive_url=closed_port_url())
    (source,) = one([dead], settings)
    assert (source.outcome, source.error) == (FetchOutcome.unreachable, "HTTP 404 Not Found")
    assert source.info.archived is None
    assert source.info.archive_error is not None
    assert source.info.archive_error.startswith("the archive could not be reached: connection failed")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"<html>Service unavailable</html>", "malformed answer from the archive (not JSON)"),
        (b'{"archived": []}', "malformed answer from the archive (no archived_snapshots)"),
        (
            json.dumps(
                {"archived_snapshots": {"closest": {"available": True, "url": "x", "timestamp": "2023"}}}
            ),
            "malformed answer from the archive (timestamp '2023')",
        ),
    ],
)
def test_a_malformed_answer_changes_nothing(
    source_server: SourceServer, archive_server: ArchiveServer, body: bytes | str, why: str
) -> None:
    dead = source_server.url("/gone.html")
    archive_server.answer_raw(body.encode() if isinstance(body, str) else body)
    (source,) = one([dead], wayback(archive_server, archive_check=True))
    assert (source.outcome, source.info.archived, source.info.archive_error) == (
        FetchOutcome.unreachable,
        None,
        why,
    )


def test_a_snapshot_outside_the_archive_is_never_followed(
    source_server: SourceServer, archive_server: ArchiveServer
) -> None:
    # An answer may not lead the fetcher past the allowlist to a host of its choosing.
    dead = source_server.url("/gone.html")
    with SourceServer(host="127.0.0.9") as elsewhere:
        target = elsewhere.add(snapshot_path(TS, dead, raw=True), SNAPSHOT_PAGE)
        archive_server.snapshot(dead, target.replace("id_/", "/"), TS)
        settings = wayback(archive_server, archive_check=True, allow_private_hosts=["127.0.0.1", "127.0.0.9"])
        (source,) = one([dead], settings)
        assert source.outcome is FetchOutcome.unreachable and source.info.archived is None
        assert source.info.archive_error is not None
        assert "points outside the archive" in source.info.archive_error
        assert elsewhere.hits() == 0


def test_the_archive_is_admitted_past_the_allowlist_for_its_own_requests_only(
    archive_server: ArchiveServer,
) -> None:
    # The cited pages are on 127.0.0.5, the only allowed domain; the archive and its snapshots
    # are on 127.0.0.1, which the option admits for the archive's requests.
    with SourceServer(host="127.0.0.5") as pages, SourceServer(host="127.0.0.1") as snapshots:
        dead = pages.url("/gone.html")
        archived_at(snapshots, archive_server, dead)
        cited_archive = snapshots.url(snapshot_path(TS, dead, raw=True))
        settings = Settings(
            allowed_domains=["127.0.0.5"],
            allow_private_hosts=["127.0.0.1", "127.0.0.5"],
            archive="wayback",
            archive_check=True,
            archive_url=archive_server.api_url,
        )
        rescued, cited = one([dead, cited_archive], settings)
        assert rescued.outcome is FetchOutcome.ok and rescued.info.archived is not None
        assert "14,000 responses" in rescued.text
        # A link that cites the archive's host itself still needs the allowlist.
        assert cited.outcome is FetchOutcome.disallowed
        assert cited.error == "domain 127.0.0.1 is not in allowed-domains"


def test_the_archive_goes_through_the_ssrf_guard(archive_server: ArchiveServer) -> None:
    # The option admits the archive past the allowlist, never past the guard: a loopback
    # archive not admitted as a private host is refused before a byte is sent.
    with SourceServer(host="127.0.0.5") as pages:
        dead = pages.url("/gone.html")
        settings = Settings(
            allow_private_hosts=["127.0.0.5"], archive="wayback", archive_url=archive_server.api_url
        )
        (source,) = one([dead], settings)
    assert source.outcome is FetchOutcome.unreachable and source.info.archived is None
    assert source.info.archive_error == (
        "the archive's address was refused: address 127.0.0.1 is loopback (blocked by the SSRF guard)"
    )
    assert archive_server.looked_up == []


def test_archive_off_asks_nothing(source_server: SourceServer, archive_server: ArchiveServer) -> None:
    dead = source_server.url("/gone.html")
    archived_at(source_server, archive_server, dead)
    (source,) = one([dead], Settings(allow_private_hosts=["127.0.0.1"], archive_url=archive_server.api_url))
    assert source.info.archived is None and source.info.archive_error is None
    assert archive_server.looked_up == []


def test_answers_are_cached_and_validated_on_load(
    source_server: SourceServer, archive_server: ArchiveServer, tmp_path: Path
) -> None:
    dead = source_server.url("/gone.html")
    snapshot = archived_at(source_server, archive_server, dead)
    settings = wayback(archive_server)

    one([dead], settings, DiskCache(tmp_path, SECRET))
    (again,) = one([dead], settings, DiskCache(tmp_path, SECRET))
    assert again.info.archived is not None and again.info.archived.url == snapshot
    assert archive_server.looked_up == [dead]  # the second run's answer came from the cache

    # An entry naming a snapshot outside this run's archive is refused, deleted and counted.
    entries = list((tmp_path / CACHE_NAMESPACE).glob("*.json"))
    assert len(entries) == 1
    stored = json.loads(entries[0].read_text())
    stored["value"]["snapshot"]["url"] = "http://127.0.0.9/web/20230501093000/x"
    # signed with the run's secret, as a run of an older archive setting would have stored it:
    # what the archive check refuses is the snapshot's host, not the signature
    stored["mac"] = seal(SECRET, CACHE_NAMESPACE, stored["key"], stored["stored_at"], stored["value"])
    entries[0].write_text(json.dumps(stored))
    cache = DiskCache(tmp_path, SECRET)
    (third,) = one([dead], settings, cache)
    assert cache.rejected == {"a snapshot outside this run's archive": 1}
    assert third.info.archived is not None and third.info.archived.url == snapshot
    assert archive_server.looked_up == [dead, dead]


def test_a_fault_is_not_cached(
    source_server: SourceServer, archive_server: ArchiveServer, tmp_path: Path
) -> None:
    dead = source_server.url("/gone.html")
    archived_at(source_server, archive_server, dead)
    archive_server.answer_with(503)
    (first,) = one([dead], wayback(archive_server), DiskCache(tmp_path, SECRET))
    assert first.info.archive_error == "the archive answered HTTP 503 Service Unavailable"
    archive_server.answer_with(None)
    (second,) = one([dead], wayback(archive_server), DiskCache(tmp_path, SECRET))
    assert second.info.archived is not None
