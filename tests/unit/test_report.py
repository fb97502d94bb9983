"""The report stage: totals and verdict policy, Markdown (escaping, cutting), JSON, SARIF, merge."""

from __future__ import annotations

import html as htmllib
import json
import random
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from citecheck.config import Settings
from citecheck.errors import ConfigError
from citecheck.models import (
    CheckResult,
    Citation,
    CitationKind,
    ClaimKind,
    ClaimResult,
    DecidedBy,
    FileError,
    JudgeResult,
    Report,
    ResolveStatus,
    SourceInfo,
    Verdict,
)
from citecheck.output.report import (
    GITHUB_COMMENT_LIMIT,
    build_report,
    claim_line,
    escape_markdown,
    markdown_url,
    merge_reports,
    read_report,
    render_json,
    render_markdown,
    render_sarif,
    shorten,
    summary_counts,
    with_errors,
)
from citecheck.policy import DEFAULT_FAIL_ON, claim_categories, exit_code

# GitHub's user/team mention and issue-reference patterns (as its html-pipeline filters use).
MENTION = re.compile(r"(?:^|\W)@[a-z0-9][a-z0-9-]*", re.IGNORECASE)
ISSUE_REF = re.compile(r"(?:^|\W)(?:#|GH-)\d+", re.IGNORECASE)


def cite(url: str | None, *, raw: str | None = None, status: ResolveStatus = ResolveStatus.ok) -> Citation:
    return Citation(
        raw=raw or url or "[?]",
        kind=CitationKind.link if url else CitationKind.numbered,
        url=url,
        resolve_status=status,
        resolve_error=None if status == ResolveStatus.ok else "reference not in the list",
        source=SourceInfo(url=url, final_url=url, status=200, content_type="text/html") if url else None,
    )


def claim(
    verdict: Verdict,
    text: str = "The library handles 14 million requests a day.",
    *,
    file: str = "docs/guide.md",
    line: int = 12,
    url: str | None = "https://example.com/stats",
    reason: str | None = None,
    evidence: str | None = None,
    judge: JudgeResult | None = None,
    limit: bool = False,
    citations: list[Citation] | None = None,
) -> ClaimResult:
    if citations is None:
        citations = [] if verdict == Verdict.unsourced else [cite(url)]
    return ClaimResult(
        text=text,
        kinds=[ClaimKind.statistic, ClaimKind.hyperlinked],
        file=file,
        line=line,
        column=3,
        citations=citations,
        verdict=verdict,
        reason=reason,
        decided_by=DecidedBy.judge if judge else DecidedBy.number,
        source_url=url if verdict != Verdict.unsourced else None,
        evidence=evidence,
        judge=judge,
        limit=limit,
    )


def judged(cost: float, *, cached: bool = False, supported: bool = True) -> JudgeResult:
    return JudgeResult(
        model="claude-haiku-4-5",
        supported=supported,
        confidence=0.9,
        rationale="The page gives the figure.",
        evidence="14 million requests per day",
        input_tokens=1200,
        output_tokens=80,
        cost_usd=cost,
        latency_ms=900,
        cached=cached,
    )


def mixed_claims() -> list[ClaimResult]:
    return [
        claim(Verdict.pass_, evidence="handles 14 million requests each day", line=3),
        claim(Verdict.pass_, judge=judged(0.002), line=5, file="docs/b.md"),
        claim(Verdict.pass_, judge=judged(0.003, cached=True), line=9, file="docs/b.md"),
        claim(Verdict.fail, reason="the page says 12 million, not 14 million", judge=judged(0.001), line=20),
        claim(Verdict.unreachable, reason="HTTP 404", url="https://example.com/gone", line=30),
        claim(Verdict.not_extractable, reason="image/png", url="https://example.com/chart.png", line=31),
        claim(
            Verdict.disallowed,
            reason="evil.example is outside the allowlist",
            url="https://evil.example/",
            line=32,
        ),
        claim(Verdict.not_verified, reason="cost cap reached", limit=True, line=33),
        claim(Verdict.not_verified, reason="judge disabled (--judge none)", line=34),
        claim(Verdict.unsourced, "Most teams ship twice as fast with it.", line=40, url=None),
        claim(
            Verdict.not_verified,
            reason="reference [7] not found",
            url=None,
            citations=[cite(None, raw="[7]", status=ResolveStatus.error)],
            line=41,
        ),
    ]


def report_of(claims: list[ClaimResult], fail_on: list[str] | None = None, **kw) -> Report:
    settings = Settings(fail_on=fail_on if fail_on is not None else list(DEFAULT_FAIL_ON))
    return build_report(claims, settings=settings, **kw)


# --------------------------------------------------------------------------- totals and policy


def test_totals_follow_the_verdicts() -> None:
    r = report_of(mixed_claims(), judge_model="claude-haiku-4-5")
    assert r.total_claims == 11
    assert r.total_supported == 3
    assert r.total_unsupported == 1
    assert r.total_judged == 4
    assert r.total_unsourced == 1
    assert r.total_not_verified == 6  # unreachable, not extractable, disallowed, 3 not verified
    assert (
        r.total_claims == r.total_supported + r.total_unsupported + r.total_unsourced + r.total_not_verified
    )
    assert r.overall_score == 0.75
    assert r.total_citations_found == 10  # one per sourced claim
    assert r.total_resolved == 9  # "[7]" did not resolve
    assert r.total_cost_usd == pytest.approx(0.003)  # the cached verdict cost nothing this run
    assert r.failing == ["unsupported", "unreachable", "not-extractable", "disallowed", "limit"]
    assert r.passed is False
    assert exit_code(r) == 1
    assert r.judge_model == "claude-haiku-4-5"
    assert r.version


def test_citations_found_can_be_given_by_the_pipeline() -> None:
    r = report_of(mixed_claims(), total_citations_found=25)
    assert r.total_citations_found == 25
    assert r.total_resolved == 9


@pytest.mark.parametrize(
    ("c", "expected"),
    [
        (claim(Verdict.pass_), []),
        (claim(Verdict.fail), ["unsupported"]),
        (claim(Verdict.unreachable), ["unreachable", "not-verified"]),
        (claim(Verdict.not_extractable), ["not-extractable", "not-verified"]),
        (claim(Verdict.disallowed), ["disallowed", "not-verified"]),
        (claim(Verdict.not_verified, limit=True), ["limit", "not-verified"]),
        (claim(Verdict.not_verified, judge=JudgeResult(model="m", limit=True)), ["limit", "not-verified"]),
        (claim(Verdict.not_verified), ["not-verified"]),
        (claim(Verdict.unsourced, url=None), ["unsourced"]),
    ],
)
def test_claim_categories(c: ClaimResult, expected: list[str]) -> None:
    assert claim_categories(c) == expected


def test_nothing_verified_is_never_a_pass() -> None:
    r = report_of([claim(Verdict.not_verified, reason="judge disabled"), claim(Verdict.unsourced, url=None)])
    assert r.passed is None
    assert r.failing == []
    assert r.overall_score is None
    assert exit_code(r) == 0


def test_empty_report_is_not_a_pass() -> None:
    r = report_of([])
    assert r.passed is None
    assert r.overall_score is None
    assert r.total_claims == 0
    assert exit_code(r) == 0


def test_all_supported_passes() -> None:
    r = report_of([claim(Verdict.pass_), claim(Verdict.pass_, line=20)])
    assert r.passed is True
    assert r.overall_score == 1.0
    assert exit_code(r) == 0


def test_unsourced_fails_only_when_named() -> None:
    claims = [claim(Verdict.pass_), claim(Verdict.unsourced, url=None, line=20)]
    assert report_of(claims).passed is True
    strict = report_of(claims, fail_on=[*DEFAULT_FAIL_ON, "unsourced"])
    assert strict.passed is False
    assert strict.failing == ["unsourced"]
    assert exit_code(strict) == 1


def test_not_verified_fails_only_when_named() -> None:
    claims = [claim(Verdict.pass_), claim(Verdict.not_verified, reason="judge disabled", line=20)]
    assert report_of(claims).passed is True
    strict = report_of(claims, fail_on=["not-verified"])
    assert (strict.passed, strict.failing) == (False, ["not-verified"])


def test_unsupported_outside_fail_on_does_not_fail() -> None:
    r = report_of([claim(Verdict.fail, reason="no")], fail_on=["unreachable"])
    assert r.passed is True  # something was judged, and nothing named in fail-on was hit
    assert exit_code(r) == 0


def test_cost_cap_fails_by_default() -> None:
    r = report_of([claim(Verdict.pass_), claim(Verdict.not_verified, reason="cost cap reached", limit=True)])
    assert r.failing == ["limit"]
    assert exit_code(r) == 1


def test_fatal_file_error_blocks_a_pass() -> None:
    claims = [claim(Verdict.pass_)]
    bad = FileError(file="docs/huge.md", message="file is larger than 5 MB")
    warning = FileError(file="docs/latin1.md", message="invalid UTF-8, decoded with replacement", fatal=False)
    assert report_of(claims, errors=[warning]).passed is True
    r = report_of(claims, errors=[bad])
    assert r.passed is None
    assert exit_code(r) == 0
    assert report_of(claims, errors=[bad], fail_on=["not-verified"]).failing == ["not-verified"]


# --------------------------------------------------------------------------- Markdown


MANDATED_HEADINGS = [
    "## Verification Report",
    "### Verified Claims",
    "### Failed Claims",
    "### Unsourced Claims",
    "### Summary",
]


def headings(md: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith("#")]


def test_markdown_structure_is_the_contract() -> None:
    r = report_of(mixed_claims())
    md = render_markdown(r)
    assert headings(md)[:5] == MANDATED_HEADINGS
    lines = md.splitlines()
    s = lines.index("### Summary")
    assert lines[s + 1 : s + 5] == ["- Total claims: 11", "- Verified: 3", "- Failed: 7", "- Unsourced: 1"]
    counts = summary_counts(r)
    assert counts.verified + counts.failed + counts.unsourced == counts.total
    # Anything extra comes after the Summary.
    assert all(h.startswith("###") for h in headings(md)[5:])

    def section(name: str) -> list[str]:
        start = lines.index(name) + 1
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("#"))
        return lines[start:end]

    verified, failed, unsourced = (section(h) for h in headings(md)[1:4])
    assert len(verified) == 3 and len(failed) == 7 and len(unsourced) == 1
    assert verified[0].endswith("| docs/b.md:5")  # ordered by file, then line
    assert verified[2] == (
        "- The library handles 14 million requests a day. | Source: <https://example.com/stats> | "
        "PASS: “handles 14 million requests each day” | docs/guide.md:3"
    )
    assert unsourced == ["- Most teams ship twice as fast with it. | No citation provided | docs/guide.md:40"]
    tags = [line.split(" | ")[2].split(":")[0] for line in failed]
    assert sorted(set(tags)) == sorted(
        {
            "FAIL",
            "FAIL (URL not reachable)",
            "FAIL (content not extractable)",
            "FAIL (source not allowed)",
            "FAIL (not verified)",
        }
    )
    assert "- The library handles 14 million requests a day. | Source: <https://example.com/stats> | " in md
    assert "FAIL: the page says 12 million, not 14 million | docs/guide.md:20" in md
    assert "FAIL (URL not reachable): HTTP 404 | docs/guide.md:30" in md
    assert "Source: \\[7\\] (unresolved) | FAIL (not verified): reference \\[7\\] not found" in md
    assert all(re.search(r" \| docs/\w+\.md:\d+$", line) for line in verified + failed + unsourced)


def test_pass_evidence_falls_back_to_the_judge_quote() -> None:
    md = render_markdown(report_of([claim(Verdict.pass_, judge=judged(0.001))]))
    assert "PASS: “14 million requests per day”" in md


def test_fail_without_reason_says_what_the_page_says() -> None:
    line = claim_line(claim(Verdict.fail, evidence="The service handles 12 million requests."))
    assert "FAIL: the page says: “The service handles 12 million requests.”" in line


def test_no_claims_says_so() -> None:
    md = render_markdown(report_of([]))
    assert "No verifiable claims found" in md
    assert headings(md)[:5] == MANDATED_HEADINGS
    assert "- Total claims: 0" in md


def test_extra_sections_hold_notes_errors_and_cost() -> None:
    r = report_of(
        mixed_claims(),
        notes=["allowlist empty: any public host was fetched"],
        errors=[FileError(file="docs/broken.md", line=7, message="unreadable <binary> file")],
        judge_model="claude-haiku-4-5",
    )
    md = render_markdown(r)
    after = md.split("### Summary", 1)[1]
    assert "### Notes\n- allowlist empty: any public host was fetched" in after
    assert "- docs/broken.md:7: error: unreadable &lt;binary&gt; file" in after
    assert "claude-haiku-4-5, cost: $0.0030" in after
    assert "- Result: failed (fail-on: unsupported, unreachable, not-extractable, disallowed, limit)" in after


TRICKY = (
    "# Heading? <script>alert('x')</script> @octocat and @github/security-team said "
    "`rm -rf` | not | a table [click](https://evil.example) ![img](https://evil.example/x.png) "
    "**bold** _it_ ~~gone~~ $x^2$ see #123 and GH-7 & &amp;\n\n- new item\n> quote"
)


def render_html(md: str) -> str:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)


def test_escape_markdown_makes_tricky_text_inert() -> None:
    escaped = escape_markdown(TRICKY)
    assert "\n" not in escaped
    html = render_html(f"- {escaped} | Source: <https://example.com/a> | PASS: ok | docs/a.md:1\n")
    assert html.count("<li>") == 1
    for tag in ("<script", "<h1", "<code", "<strong", "<em", "<img", "<blockquote", "<del", "<table"):
        assert tag not in html, tag
    # The only link is our own source URL.
    assert re.findall(r'<a href="([^"]+)"', html) == ["https://example.com/a"]
    text = re.sub(r"<[^>]+>", "", html)
    assert not MENTION.search(text)
    assert not ISSUE_REF.search(text)
    # The reader still sees the words.
    for word in ("Heading?", "alert(", "octocat", "rm -rf", "click", "bold", "123"):
        assert word in text, word


TOKENS = [
    "#", "##", ">", "-", "+", "*", "_", "`", "```", "~~", "|", "[", "]", "(", ")", "![", "](", "<", ">",
    "</", "<script>", "<img src=x>", "&", "&amp;", "&#64;", "\\", "$", "@", "@octocat", "#12", "GH-3",
    "1.", "2)", "\n", "\n\n", "  ", "\t", "word", "x", "http://e.x/", "[^1]", ":smile:", "---", "===",
    "{", "}",
]  # fmt: skip


def test_escaped_text_renders_as_exactly_itself() -> None:
    """Property over random mixes of Markdown/HTML syntax: one list item, no markup, same words."""
    rng = random.Random(20261130)
    for _ in range(400):
        raw = "".join(rng.choice(TOKENS) + rng.choice(["", " "]) for _ in range(rng.randint(1, 14)))
        html = render_html(f"- {escape_markdown(raw)} | docs/a.md:1\n")
        tags = set(re.findall(r"</?([a-z0-9]+)", html))
        assert tags <= {"ul", "li"}, (raw, html)
        text = htmllib.unescape(re.sub(r"<[^>]+>", "", html))
        assert not MENTION.search(text) and not ISSUE_REF.search(text), raw
        shown = text.replace("\u200b", "").strip()
        expected = " ".join(raw.split())
        assert shown == f"{expected} | docs/a.md:1".strip(), raw


@pytest.mark.parametrize(
    "lead", ["# title", "## sub", "- item", "+ item", "* item", "1. first", "2) two", "> q"]
)
def test_leading_markers_do_not_make_structure(lead: str) -> None:
    html = render_html(f"- {escape_markdown(lead + ' rest')}\n")
    assert html.count("<li>") == 1
    assert "<ol" not in html and "<h" not in html and "<blockquote" not in html
    assert "rest" in html


def test_control_and_bidi_characters_are_dropped() -> None:
    assert escape_markdown("safe\u202etxt.exe\x00 ok\x1b[31m") == "safetxt.exe ok\\[31m"


def test_claim_line_escapes_claim_evidence_and_location() -> None:
    c = claim(
        Verdict.pass_,
        text="Use <b>x</b> | y\nnext line @octocat",
        evidence="a `b` | [c](d) @hubot",
        file="docs/odd|name.md",
    )
    line = claim_line(c)
    assert "\n" not in line
    assert line.count(" | ") == 3  # our separators only; the text's pipes are escaped
    assert "<b>" not in line and "&lt;b&gt;" in line
    html = render_html(line + "\n")
    assert html.count("<li>") == 1 and "<code" not in html


def test_urls_become_safe_autolinks() -> None:
    assert markdown_url("https://example.com/a_(b)?q=1#x") == "<https://example.com/a_(b)?q=1#x>"
    odd = markdown_url('https://example.com/a b>c|d`e`"f')
    assert odd == "<https://example.com/a%20b%3Ec%7Cd%60e%60%22f>"
    html = render_html(f"- x | Source: {odd} | y\n")
    assert html.count("<a href") == 1
    # A non-web URL is not made a link.
    assert "<a " not in render_html(markdown_url("javascript:alert(1)") + "\n")


def test_long_evidence_is_shortened() -> None:
    long = "word " * 500
    line = claim_line(claim(Verdict.pass_, evidence=long))
    evidence = line.split(" | ")[2]
    assert evidence.endswith("…”")
    assert len(evidence) < 230
    assert shorten("short text", 200) == "short text"
    assert len(shorten("x" * 1000, 200)) == 200


# --------------------------------------------------------------------------- cutting to a limit


def many_claims(n: int) -> list[ClaimResult]:
    out = []
    for i in range(n):
        verdict = [Verdict.pass_, Verdict.fail, Verdict.unsourced, Verdict.unreachable][i % 4]
        out.append(
            claim(
                verdict,
                text=f"Claim number {i} says that the service handled {i} million requests " + "x" * 150,
                file=f"docs/f{i % 7}.md",
                line=i + 1,
                url=None if verdict == Verdict.unsourced else f"https://example.com/p/{i}",
                reason="the page gives another figure " + "y" * 100,
                evidence="evidence " + "z" * 150,
            )
        )
    return out


def test_markdown_is_cut_to_the_comment_limit_by_whole_lines() -> None:
    r = report_of(many_claims(1200))
    full = render_markdown(r)
    assert len(full) > GITHUB_COMMENT_LIMIT
    cut = render_markdown(r, max_chars=GITHUB_COMMENT_LIMIT, full_report_hint="the job summary")
    assert len(cut) <= GITHUB_COMMENT_LIMIT
    assert len(cut) > GITHUB_COMMENT_LIMIT - 1000  # the space is used, not wasted
    full_lines = set(full.splitlines())
    claim_lines = [line for line in cut.splitlines() if " | docs/" in line]
    assert claim_lines and all(line in full_lines for line in claim_lines)  # never cut mid-line
    assert headings(cut)[:5] == headings(full)[:5]
    assert "- Total claims: 1200" in cut and "- Failed: 600" in cut  # the summary counts everything
    assert "the full report is in the job summary" in cut
    assert "more not shown" in cut
    # Failed claims come first: every failed claim line that fits is kept before verified ones.
    failed_shown = sum(1 for line in claim_lines if "FAIL" in line)
    verified_shown = sum(1 for line in claim_lines if "PASS:" in line)
    assert failed_shown > verified_shown


@pytest.mark.parametrize("limit", [2_000, 5_000, 20_000])
def test_small_limits_still_fit(limit: int) -> None:
    r = report_of(many_claims(200), notes=["note " * 30] * 5)
    cut = render_markdown(r, max_chars=limit, full_report_hint="the job summary")
    assert len(cut) <= limit
    assert "### Summary" in cut and "- Total claims: 200" in cut


def test_byte_limit_for_the_job_summary() -> None:
    claims = [claim(Verdict.fail, text="東京の人口は1400万人です。" * 10, line=i + 1) for i in range(300)]
    r = report_of(claims)
    cut = render_markdown(r, max_bytes=20_000, full_report_hint="the JSON artifact")
    assert len(cut.encode("utf-8")) <= 20_000
    assert len(cut) < 15_000  # the characters are multi-byte: a char limit alone would not do
    assert "- Total claims: 300" in cut and "the JSON artifact" in cut
    both = render_markdown(r, max_bytes=50_000, max_chars=5_000)
    assert len(both) <= 5_000 and len(both.encode("utf-8")) <= 50_000


def test_locations_can_link_to_the_lines() -> None:
    c = claim(Verdict.fail, file="docs/my guide(1).md", line=12, reason="no")
    md = render_markdown(report_of([c]), link_base="https://github.com/o/r/blob/abc123/")
    html = render_html(md)
    assert '<a href="https://github.com/o/r/blob/abc123/docs/my%20guide%281%29.md#L12">' in html
    assert "docs/my guide(1).md:12</a>" in html


def test_no_cut_when_it_fits() -> None:
    r = report_of(mixed_claims())
    assert render_markdown(r, max_chars=GITHUB_COMMENT_LIMIT) == render_markdown(r)
    assert "shortened" not in render_markdown(r, max_chars=GITHUB_COMMENT_LIMIT)


# --------------------------------------------------------------------------- JSON


def test_json_has_the_contract_fields_and_round_trips(tmp_path: Path) -> None:
    r = report_of(mixed_claims(), judge_model="claude-haiku-4-5")
    data = json.loads(render_json(r))
    for key in (
        "passed",
        "overall_score",
        "total_claims",
        "total_citations_found",
        "total_resolved",
        "total_judged",
        "total_supported",
        "total_unsupported",
        "total_unsourced",
        "total_not_verified",
        "total_cost_usd",
        "claims",
    ):
        assert key in data, key
    first = data["claims"][0]
    for key in ("text", "kinds", "file", "line", "column", "citations", "verdict", "reason", "decided_by"):
        assert key in first, key
    assert first["verdict"] == "pass"
    assert first["citations"][0]["source"]["url"] == "https://example.com/stats"
    path = tmp_path / "r.json"
    path.write_text(render_json(r), encoding="utf-8")
    assert read_report(path) == r


def test_read_report_names_the_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "shard-2.json"
    bad.write_text('{"claims": "nope"}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"shard-2\.json"):
        read_report(bad)
    with pytest.raises(ConfigError, match=r"missing\.json"):
        read_report(tmp_path / "missing.json")


# --------------------------------------------------------------------------- SARIF


def test_sarif_shape() -> None:
    r = report_of(mixed_claims())
    sarif = json.loads(render_sarif(r))
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "citecheck"
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert rule_ids == [
        "unsupported",
        "unreachable",
        "not-extractable",
        "disallowed",
        "not-verified",
        "unsourced",
    ]
    assert all(rule["help"]["text"] and rule["shortDescription"]["text"] for rule in driver["rules"])
    results = run["results"]
    assert len(results) == 8  # every claim but the three passes
    for res in results:
        assert res["ruleId"] in rule_ids
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "docs/guide.md"
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] == 3
        assert res["message"]["text"]
    by_line = {res["locations"][0]["physicalLocation"]["region"]["startLine"]: res for res in results}
    assert by_line[20]["ruleId"] == "unsupported" and by_line[20]["level"] == "error"
    assert by_line[33]["level"] == "error"  # cost cap: `limit` is in the default fail-on
    assert by_line[34]["level"] == "warning"  # judge disabled: not-verified is not in fail-on
    assert by_line[40]["ruleId"] == "unsourced" and by_line[40]["level"] == "warning"
    fingerprints = [res["partialFingerprints"]["citecheckClaim/v1"] for res in results]
    assert len(set(fingerprints)) == len(fingerprints)


def test_sarif_fingerprint_survives_a_moved_line() -> None:
    a = json.loads(render_sarif(report_of([claim(Verdict.fail, line=10)])))
    b = json.loads(render_sarif(report_of([claim(Verdict.fail, line=50)])))
    fa = a["runs"][0]["results"][0]["partialFingerprints"]
    fb = b["runs"][0]["results"][0]["partialFingerprints"]
    assert fa == fb


def test_sarif_of_a_clean_run_has_no_results() -> None:
    sarif = json.loads(render_sarif(report_of([claim(Verdict.pass_)])))
    assert sarif["runs"][0]["results"] == []


# --------------------------------------------------------------------------- merge


def test_merge_of_shards_equals_the_unsharded_report(tmp_path: Path) -> None:
    claims = many_claims(40) + mixed_claims()
    errors = [FileError(file="docs/x.md", message="unreadable", fatal=False)]
    note = "allowlist empty: any public host"
    whole = report_of(claims, errors=errors, notes=[note], judge_model="claude-haiku-4-5")
    shards = []
    for i in range(3):
        part = claims[i::3]
        shard = report_of(part, errors=errors, notes=[note], judge_model="claude-haiku-4-5")
        path = tmp_path / f"shard-{i}.json"
        path.write_text(render_json(shard), encoding="utf-8")
        shards.append(read_report(path))
    merged = merge_reports(shards, fail_on=list(DEFAULT_FAIL_ON))
    assert merged == whole
    assert merged.notes == [note] and len(merged.errors) == 1
    assert render_markdown(merged) == render_markdown(whole)


def test_merging_a_report_twice_counts_it_once() -> None:
    r = report_of(mixed_claims(), total_citations_found=12)
    assert merge_reports([r, r], fail_on=r.fail_on) == merge_reports([r], fail_on=r.fail_on)
    assert merge_reports([r, r], fail_on=r.fail_on).total_citations_found == 12
    # Overlapping shards: the shared claim counts once, and so do its citations.
    a = report_of(mixed_claims()[:6])
    b = report_of(mixed_claims()[5:])
    merged = merge_reports([a, b], fail_on=a.fail_on)
    assert merged == report_of(mixed_claims())


def test_merge_recomputes_passed_under_new_fail_on() -> None:
    a = report_of([claim(Verdict.pass_)])
    b = report_of([claim(Verdict.unsourced, url=None, line=40)])
    assert merge_reports([a, b], fail_on=list(DEFAULT_FAIL_ON)).passed is True
    strict = merge_reports([a, b], fail_on=["unsourced"])
    assert (strict.passed, strict.failing) == (False, ["unsourced"])


def test_merge_rejects_unknown_fail_on() -> None:
    with pytest.raises(ConfigError, match="typo"):
        merge_reports([report_of([])], fail_on=["typo"])


def test_added_file_errors_recompute_the_verdict() -> None:
    r = report_of([claim(Verdict.pass_)], fail_on=["unsupported", "not-verified"])
    assert r.passed is True
    bad = FileError(file="docs/gone.md", message="file not found")
    r2 = with_errors(r, [bad])
    assert r2.errors == [bad]
    assert (r2.passed, r2.failing) == (False, ["not-verified"])
    assert r2.claims == r.claims


def test_merge_of_nothing_is_empty() -> None:
    m = merge_reports([], fail_on=list(DEFAULT_FAIL_ON))
    assert (m.total_claims, m.passed) == (0, None)


def test_check_results_appear_in_json() -> None:
    c = claim(Verdict.pass_)
    c.checks.append(
        CheckResult(name=DecidedBy.number, passed=True, detail="14,000,000 found", evidence="14 million")
    )
    data = json.loads(render_json(report_of([c])))
    assert data["claims"][0]["checks"][0]["name"] == "number"
    assert "PASS: “14 million”" in claim_line(c)  # no evidence on the claim: the check's page text
