"""Links that are not sources (citecheck.exclusions): the built-in rules, `exclude` patterns,
what happens to a claim that loses its links, and how the report counts them."""

from __future__ import annotations

import pytest

from citecheck.config import Settings
from citecheck.exclusions import (
    LOCALHOST,
    PATTERN,
    RESERVED_DOMAIN,
    Exclusions,
    builtin_reason,
    exclude_links,
)
from citecheck.models import Citation, CitationKind, Claim, ClaimKind, ResolveStatus
from citecheck.output.markdown import render_markdown
from citecheck.output.report import build_report, merge_reports


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("localhost", LOCALHOST),
        ("LOCALHOST.", LOCALHOST),
        ("app.localhost", LOCALHOST),
        ("127.0.0.1", LOCALHOST),
        ("127.8.9.10", LOCALHOST),
        ("::1", LOCALHOST),
        ("[::1]", LOCALHOST),
        ("0.0.0.0", LOCALHOST),
        ("::ffff:127.0.0.1", LOCALHOST),
        ("example.com", RESERVED_DOMAIN),
        ("api.example.com", RESERVED_DOMAIN),
        ("Example.ORG", RESERVED_DOMAIN),
        ("www.example.net", RESERVED_DOMAIN),
        ("demo.example", RESERVED_DOMAIN),
        ("service.test", RESERVED_DOMAIN),
        ("nothing.invalid", RESERVED_DOMAIN),
        # Sources, however much they look like the above.
        ("example.co", None),
        ("myexample.com", None),
        ("example.com.evil.org", None),
        ("localhost.company.com", None),
        ("test.com", None),
        ("contest", None),
        ("8.8.8.8", None),
        ("2606:4700::1111", None),
        ("who.int", None),
        # Private addresses are sources: the SSRF guard refuses them, so their claims fail loudly.
        ("10.0.0.7", None),
        ("172.16.4.2", None),
        ("192.168.1.1", None),
        ("169.254.169.254", None),
        ("100.64.0.1", None),  # shared (CGNAT)
        ("192.0.2.10", None),  # documentation
        ("fd00::1", None),
        ("fe80::1", None),
        ("::ffff:10.0.0.7", None),
        # The guard's business, not a link that is not a source: refused as an odd numeric form.
        ("2130706433", None),
        ("0x7f000001", None),
        ("", None),
    ],
)
def test_builtin_reasons(host: str, reason: str | None) -> None:
    assert builtin_reason(host) == reason


def test_a_host_admitted_past_the_guard_stays_a_source_but_a_pattern_still_excludes() -> None:
    rules = Exclusions.from_settings(
        Settings(allow_private_hosts=["127.0.0.1", "wiki.test"], exclude=["/private/"])
    )
    assert rules.reason("http://127.0.0.1:8080/page") is None
    assert rules.reason("https://wiki.test/a") is None
    assert rules.reason("http://127.0.0.2/page") == LOCALHOST  # admitted exactly as written
    assert rules.reason("http://127.0.0.1:8080/private/x") == PATTERN  # asked for on purpose


def test_patterns_are_searched_anywhere_in_the_url() -> None:
    rules = Exclusions.from_settings(Settings(exclude=["^https://intranet\\.", "[?&]draft=1"]))
    assert rules.reason("https://intranet.acme.org/page") == PATTERN
    assert rules.reason("https://docs.acme.org/a?draft=1") == PATTERN
    assert rules.reason("https://docs.acme.org/intranet.html") is None
    assert rules.reason("http://[::1") is None  # an invalid URL is the fetch stage's to report


def _citation(url: str | None, status: ResolveStatus = ResolveStatus.ok) -> Citation:
    return Citation(raw=url or "[1]", kind=CitationKind.link, url=url, resolve_status=status)


def _claim(text: str, kinds: list[ClaimKind], *urls: str | None, line: int = 1) -> Claim:
    return Claim(
        text=text, kinds=kinds, file="a.md", line=line, column=1, citations=[_citation(u) for u in urls]
    )


def test_a_claim_keeps_its_facts_and_loses_only_the_links_that_are_not_sources() -> None:
    facts = [ClaimKind.statistic, ClaimKind.hyperlinked]
    claims = [
        _claim("Open the dashboard.", [ClaimKind.hyperlinked], "http://localhost:3000", line=1),
        _claim("Uptime was 99.9%.", facts, "http://127.0.0.1:8080/uptime", line=2),
        _claim("Sales grew 25%.", facts, "https://example.com/a", "https://who.int/r", line=3),
        _claim("Sales grew 30%.", facts, "https://who.int/s", line=4),
        _claim("Uptime was 99.8%.", facts, "http://10.0.0.7/uptime", line=5),  # a source
    ]
    kept, dropped = exclude_links(claims, Exclusions())
    assert [c.line for c in kept] == [2, 3, 4, 5]  # line 1 was a claim only for its link
    assert kept[0].citations == [] and kept[0].kinds == [ClaimKind.statistic]  # now unsourced
    assert [c.url for c in kept[1].citations] == ["https://who.int/r"] and kept[1].kinds == facts
    assert kept[2] is claims[3] and kept[3] is claims[4]  # untouched
    assert dropped == {LOCALHOST: 2, RESERVED_DOMAIN: 1}
    assert [c.url for c in claims[2].citations] == [
        "https://example.com/a",
        "https://who.int/r",
    ]  # not mutated


def test_an_ignored_or_unresolved_citation_is_left_as_it_is() -> None:
    claim = _claim("Sales grew 25%.", [ClaimKind.statistic, ClaimKind.hyperlinked])
    claim.citations = [
        _citation("http://localhost/a", ResolveStatus.skipped),  # the author's citecheck-ignore
        _citation(None, ResolveStatus.error),
    ]
    kept, dropped = exclude_links([claim], Exclusions())
    assert kept == [claim] and not dropped


def test_the_report_counts_them_merges_them_and_the_details_say_so() -> None:
    shard = build_report([], settings=Settings(), links_excluded={LOCALHOST: 2, PATTERN: 1})
    assert shard.total_links_excluded == 3 and shard.links_excluded == {LOCALHOST: 2, PATTERN: 1}
    assert "- Links not treated as sources: 3 (localhost 2, exclude patterns 1)" in render_markdown(shard)
    other = build_report([], settings=Settings(), links_excluded={RESERVED_DOMAIN: 4})
    merged = merge_reports([shard, other], fail_on=Settings().fail_on)
    assert merged.total_links_excluded == 7
    assert merged.links_excluded == {LOCALHOST: 2, PATTERN: 1, RESERVED_DOMAIN: 4}
    line = "- Links not treated as sources: 7 (localhost 2, example/test domains 4, exclude patterns 1)"
    assert line in render_markdown(merged)
    # None left out: no line at all.
    assert "Links not treated" not in render_markdown(build_report([], settings=Settings()))
