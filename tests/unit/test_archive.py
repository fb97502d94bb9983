"""The archive's answers read as the availability API documents them, and held to the rules:
a snapshot on the archive's own hosts only, with a well-formed timestamp."""

from __future__ import annotations

import json

import pytest

from citecheck.config import Settings
from citecheck.fetch.archive import ArchiveFault, archive_domains, lookup_url, parse_answer, raw_copy_url
from citecheck.models import ArchivedCopy

IA = ("archive.org",)


def answer(closest: object) -> bytes:
    return json.dumps({"url": "example.com", "archived_snapshots": {"closest": closest}}).encode()


def test_the_documented_answer() -> None:
    # The example of https://archive.org/help/wayback_api.php
    body = answer(
        {
            "available": True,
            "url": "http://web.archive.org/web/20130919044612/http://example.com/",
            "timestamp": "20130919044612",
            "status": "200",
        }
    )
    found = parse_answer(body, IA)
    assert found is not None
    # The Internet Archive's own http links are given as https.
    assert found.url == "https://web.archive.org/web/20130919044612/http://example.com/"
    assert found.timestamp == "20130919044612"
    assert parse_answer(b'{"archived_snapshots":{}}', IA) is None


@pytest.mark.parametrize(
    ("closest", "result"),
    [
        (
            {
                "available": False,
                "url": "https://web.archive.org/web/20130919044612/x",
                "timestamp": "20130919044612",
            },
            None,
        ),
        (
            {
                "available": True,
                "url": "https://web.archive.org/web/20130919044612/x",
                "timestamp": "20130919044612",
                "status": "404",
            },
            None,
        ),
        (
            {
                "available": True,
                "url": "https://web.archive.org/web/20130919044612/x",
                "timestamp": "20130919044612",
                "status": "301",
            },
            "ok",
        ),
    ],
)
def test_only_a_capture_of_the_page_counts(closest: object, result: str | None) -> None:
    found = parse_answer(answer(closest), IA)
    assert (found is not None) == (result == "ok")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"", "not JSON"),
        (b"[]", "no archived_snapshots"),
        (answer("yes"), "closest is not an object"),
        (answer({"url": "https://web.archive.org/web/1/x", "timestamp": "1"}), "timestamp '1'"),
        (answer({"url": 7, "timestamp": "20130919044612"}), "no snapshot URL"),
        (answer({"url": "javascript:alert(1)", "timestamp": "20130919044612"}), "outside the archive"),
        (
            answer({"url": "https://evil.example/web/20130919044612/x", "timestamp": "20130919044612"}),
            "outside",
        ),
        (answer({"url": "https://archive.org.evil.example/x", "timestamp": "20130919044612"}), "outside"),
        (answer({"url": "http://0x7f000001/x", "timestamp": "20130919044612"}), "outside"),
    ],
)
def test_a_malformed_answer_is_a_fault(body: bytes, why: str) -> None:
    with pytest.raises(ArchiveFault, match=r"malformed|outside") as info:
        parse_answer(body, IA)
    assert why in info.value.reason
    assert not info.value.ends_lookups  # a bad answer is not a reason to stop asking


def test_the_archive_hosts_and_the_lookup() -> None:
    assert archive_domains(Settings()) == ("archive.org",)
    assert archive_domains(Settings(archive_url="https://web.archive.org/wayback/available")) == (
        "archive.org",
    )
    mirror = Settings(archive_url="http://127.0.0.1:8080/wayback/available")
    assert archive_domains(mirror) == ("127.0.0.1",)
    assert lookup_url(Settings(), "https://example.com/a?b=c&d=e#f") == (
        "https://archive.org/wayback/available?url=https%3A%2F%2Fexample.com%2Fa%3Fb%3Dc%26d%3De%23f"
    )
    assert lookup_url(Settings(archive_url="http://m.test/avail?key=1"), "http://x.org/").startswith(
        "http://m.test/avail?key=1&url="
    )


def test_the_copy_as_captured() -> None:
    snap = "https://web.archive.org/web/20230501093000/https://example.com/page?x=1"
    assert raw_copy_url(snap) == "https://web.archive.org/web/20230501093000id_/https://example.com/page?x=1"
    assert raw_copy_url("https://web.archive.org/web/20230501093000if_/https://x.org/") == (
        "https://web.archive.org/web/20230501093000if_/https://x.org/"
    )
    assert raw_copy_url("https://mirror.test/snap/1") == "https://mirror.test/snap/1"
    copy = ArchivedCopy(url=snap, timestamp="20230501093000", link_error="HTTP 404 Not Found")
    assert copy.date == "2023-05-01"
