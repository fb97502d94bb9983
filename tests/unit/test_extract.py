"""Claim extraction: kinds, skip rules, citation forms, positions, ignore markers, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.extract.document import extract_file, extract_text, render_text
from citecheck.extract.kinds import detect_kinds
from citecheck.models import CitationKind, Claim, ClaimKind, ResolveStatus
from citecheck.sentences import split_sentences

K = ClaimKind


def claims(md: str) -> list[Claim]:
    return extract_text(md, "doc.md").claims


def one(md: str) -> Claim:
    found = claims(md)
    assert len(found) == 1, [c.text for c in found]
    return found[0]


def texts(md: str) -> list[str]:
    return [c.text for c in claims(md)]


def at(md: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of `needle` in `md`, for comparing with a claim's position."""
    idx = md.index(needle)
    line = md.count("\n", 0, idx) + 1
    col = idx - (md.rfind("\n", 0, idx) + 1) + 1
    return line, col


# --- sentences ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Dr. Smith left. He came back.", ["Dr. Smith left.", "He came back."]),
        ("The U.S. Census grew. Then it fell.", ["The U.S. Census grew.", "Then it fell."]),
        # an initialism that ends its sentence (PolicyEngine/policyengine-app state-tax-model-beta.md)
        (
            "It covers all 50 states and Washington D.C. This is a first.",
            ["It covers all 50 states and Washington D.C.", "This is a first."],
        ),
        ("The U.S. Army said so. Fine.", ["The U.S. Army said so.", "Fine."]),
        ("Smith et al. Showed this. Next one.", ["Smith et al. Showed this.", "Next one."]),
        ("Growth was 3.5% in 2023. Fine.", ["Growth was 3.5% in 2023.", "Fine."]),
        ("See https://example.com/a.b. Then go.", ["See https://example.com/a.b.", "Then go."]),
        ("Use e.g. Python. Or not!", ["Use e.g. Python.", "Or not!"]),
        ("Written by J. Smith. Done?", ["Written by J. Smith.", "Done?"]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("lower case. continues here", ["lower case. continues here"]),
        (
            'Say when (for example, "Expect a reply in 7 days. Then ping us.") to follow up. Next.',
            ['Say when (for example, "Expect a reply in 7 days. Then ping us.") to follow up.', "Next."],
        ),
        ("He left (for good. Really) today. Then.", ["He left (for good. Really) today.", "Then."]),
        # a note after a full stop ends with the sentence before it (sourcegraph/handbook
        # processes.md: "… renewal. [(Vitally master list)](…) An exec sponsor …")
        (
            "It begins 120 days before renewal. (Vitally master list) An exec sponsor is assigned.",
            ["It begins 120 days before renewal. (Vitally master list)", "An exec sponsor is assigned."],
        ),
        (
            "Revenue grew 40% in 2020. (source) The team doubled.",
            ["Revenue grew 40% in 2020. (source)", "The team doubled."],
        ),
        # … unless it is a sentence of its own
        ("It works. (See below.) Then it grew.", ["It works.", "(See below.)", "Then it grew."]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert [text[s:e] for s, e in split_sentences(text)] == expected


def test_inline_code_does_not_split_sentences() -> None:
    assert texts("The command `a. B` grew 50% last year. Next is 30% more.") == [
        "The command a. B grew 50% last year.",
        "Next is 30% more.",
    ]


# --- kinds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "The project has 14 million users.",
        "Adoption reached 35% of teams.",
        "The company raised $2.1bn from investors.",
        "The new parser is 3x as fast.",
        "About one in four maintainers report burnout.",
        "Nine out of 10 developers use Git.",
        "The workshop had 40 members of the community.",
        "Reviews within 48 hours matter.",
        "Two-thirds said yes.",
        "The project has three million users.",
        "It has a million users.",
        "The registry serves 1,200 packages a day.",
    ],
)
def test_statistic(sentence: str) -> None:
    assert K.statistic in one(sentence).kinds


@pytest.mark.parametrize(
    "sentence",
    [
        "The project moved to GitHub in 2023.",
        "Downloads have grown since March.",
        "The foundation was created last year.",
        "The tool shipped on 2024-03-01.",
        "It was released on March 5 to everyone.",
        "The API was deprecated two years ago.",
        "Most of the code was written in the 1990s.",
    ],
)
def test_temporal(sentence: str) -> None:
    assert K.temporal in one(sentence).kinds


def test_a_number_in_a_name_is_not_a_statistic() -> None:
    # ("this winter" is a date: the kind test's season words reach it since session 9)
    assert detect_kinds("Join 24 Pull Requests this winter") == [K.temporal]
    assert detect_kinds("Join 24 pull requests this winter") == [K.statistic, K.temporal]


def test_vague_amounts_are_not_statistics() -> None:
    assert texts("Thousands of hours go into it every week.") == []
    assert one("Projects with a README get twice as many contributors as others.").kinds == [K.comparative]
    assert one("Projects with a README get twice as many contributors.").kinds == [K.comparative]


@pytest.mark.parametrize(
    "sentence",
    [
        "The new engine is faster than the old one.",
        "Rust is the largest contributor community here.",
        "Usage more than doubled.",
        "Python is the most popular language for data work.",
        "Its user base grew by a lot.",
        "The second release had fewer open bugs than the first.",
    ],
)
def test_comparative(sentence: str) -> None:
    assert K.comparative in one(sentence).kinds


@pytest.mark.parametrize(
    "sentence",
    [
        'Linus Torvalds said "talk is cheap, show me the code" in a mail.',
        "As Ada Lovelace wrote, “the engine might compose elaborate music” one day.",
        'According to the maintainers, "every release is signed by two people".',
    ],
)
def test_quote(sentence: str) -> None:
    assert K.quote in one(sentence).kinds


def test_block_quote_with_attribution_line() -> None:
    md = "> Open source is a team sport played by many hands.\n>\n> — [Jane Doe](https://example.com/jane)\n"
    c = one(md)
    assert c.kinds == [K.quote, K.hyperlinked]
    assert c.text == "Open source is a team sport played by many hands."
    assert [x.url for x in c.citations] == ["https://example.com/jane"]


def test_block_quote_with_attribution_paragraph_after_it() -> None:
    md = "> Small projects need kind reviewers more than anything else.\n\n-- Sam Roe, 2019\n"
    c = one(md)
    assert K.quote in c.kinds and c.citations == []
    assert c.is_fact and not c.citations


def test_block_quote_introduced_by_a_linked_speaker() -> None:
    md = "[Homebrew](https://brew.sh/analytics) explains:\n\n> Analytics help us prioritise the work we do.\n"
    found = claims(md)
    quoted = [c for c in found if K.quote in c.kinds]
    assert [c.text for c in quoted] == ["Analytics help us prioritise the work we do."]
    assert quoted[0].citations[0].url == "https://brew.sh/analytics"


def test_block_quote_without_attribution_is_plain_text() -> None:
    assert texts('> 😇 _"X doesn\'t happen when I do Y"_\n>\n> Please be kind.\n') == []


def test_hyperlinked_only() -> None:
    # ("… is a code of conduct." would be a definition: no claim)
    c = one("The [Contributor Covenant](https://contributor-covenant.org/) was adopted by the Linux kernel.")
    assert c.kinds == [K.hyperlinked]
    assert c.text == "The Contributor Covenant was adopted by the Linux kernel."
    cit = c.citations[0]
    assert (cit.kind, cit.url, cit.raw) == (
        CitationKind.link,
        "https://contributor-covenant.org/",
        "[Contributor Covenant](https://contributor-covenant.org/)",
    )
    assert c.text[cit.start : cit.end] == "Contributor Covenant"


def test_unsourced_fact_is_a_claim() -> None:
    c = one("Over 40,000 projects use the covenant.")
    assert c.kinds == [K.statistic]
    assert c.citations == [] and c.is_fact


def test_claim_text_is_what_a_reader_sees() -> None:
    c = one("**Half** of _all_ [users](https://ex.com/u) ran `tool --fast` in ~~2022~~ 2023.")
    assert c.text == "Half of all users ran tool --fast in 2022 2023."


# --- skip rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "md",
    [
        "# Growth was 50% in 2023\n",
        "```\nGrowth was 50% in 2023.\n```\n",
        "    Growth was 50% in 2023.\n",
        "<!-- Growth was 50% in 2023. -->\n",
        "---\ntitle: Growth was 50% in 2023.\n---\n",
        "Did usage grow 50% in 2023?\n",
        "Did usage grow [50%](https://ex.com/) in 2023?\n",
        "Use a license that 90% of projects use.\n",
        "Don't ship more than 3 releases a week.\n",
        "You should respond within 48 hours.\n",
        "I think the project will double in size by 2030.\n",
        "It's a good idea to reply within 2 days.\n",
        "![Traffic in 2023 grew 50%](https://ex.com/graph.png)\n",
        "You should consider adding a license.\n",
        "This sentence has no checkable fact at all.\n",
        "<div>Growth was 50% in 2023.</div>\n",
        "Tip: Set expectations for 48 hours of silence.\n",
        "Copyright (c) 2013-2026, Kim Davies and contributors.\n",
        "By default, the key length must be at least 2048 bits.\n",
        "The address block is described in RFC 1918 for private networks.\n",
    ],
)
def test_skipped(md: str) -> None:
    assert texts(md) == []


def test_imperative_with_a_citation_is_kept() -> None:
    c = one("Keep pull requests small: reviewers find [more defects in small ones](https://example.org/s).")
    assert c.kinds == [K.hyperlinked]


def test_a_call_to_action_with_a_link_is_no_claim() -> None:
    # opensource.guide: a pointer to a tool is an invitation, not a fact about it (issue 15)
    assert (
        texts("Try using [Libraries.io](https://libraries.io/) to track usage across package managers.") == []
    )


def test_link_only_navigation_list_is_skipped() -> None:
    md = "- [Home](https://ex.com/)\n- [Docs](https://ex.com/docs)\n- [About us](https://ex.com/about) page\n"
    assert texts(md) == []


def test_link_only_paragraph_is_skipped() -> None:
    md = "[@a](https://github.com/a)\n[@b](https://github.com/b)\n[@c](https://github.com/c) + many others!\n"
    assert texts(md) == []


def test_relative_links_are_not_citations() -> None:
    assert texts("See [the guide](../guide.md) and [mail](mailto:a@b.c) for details on setup.") == []


def test_url_inside_code_is_never_a_citation() -> None:
    c = one("Growth was 20% after `curl https://ex.com/x` became the default.")
    assert c.citations == []
    assert texts("The endpoint `https://api.ex.com/v1` is documented.") == []


# --- citation forms ------------------------------------------------------------------------------------


def test_reference_style_link() -> None:
    md = 'Usage grew [a lot][stats] last year.\n\n[stats]: https://ex.com/stats "Stats"\n'
    cit = one(md).citations[0]
    assert (cit.kind, cit.identifier, cit.url, cit.raw) == (
        CitationKind.reference,
        "stats",
        "https://ex.com/stats",
        "[a lot][stats]",
    )


def test_shortcut_and_collapsed_reference_links() -> None:
    md = "The [survey] and [poll][] cover 5,000 people.\n\n[survey]: https://ex.com/s\n[poll]: https://ex.com/p\n"
    cits = one(md).citations
    assert [(c.kind, c.url) for c in cits] == [
        (CitationKind.reference, "https://ex.com/s"),
        (CitationKind.reference, "https://ex.com/p"),
    ]


def test_undefined_reference_link_is_an_error() -> None:
    cit = one("Usage grew [a lot][nope] last year.").citations[0]
    assert cit.resolve_status == ResolveStatus.error
    assert "[nope]" in (cit.resolve_error or "")


def test_autolink_and_bare_url() -> None:
    c = one("The survey <https://ex.com/a> and https://ex.com/b. found 30% agree.")
    assert [(x.kind, x.url) for x in c.citations] == [
        (CitationKind.link, "https://ex.com/a"),
        (CitationKind.bare_url, "https://ex.com/b"),
    ]


def test_bare_url_trailing_punctuation_and_parens() -> None:
    c = one("See https://en.wikipedia.org/wiki/Smoke_testing_(software), which says 40% of builds fail.")
    assert c.citations[0].url == "https://en.wikipedia.org/wiki/Smoke_testing_(software)"
    c = one("It has 12 maintainers (https://ex.com/team).")
    assert c.citations[0].url == "https://ex.com/team"


def test_html_anchor_is_a_link() -> None:
    c = one('We ran a workshop with the <a href="https://ex.com/mc">Maintainer Community</a> last year.')
    assert c.citations[0].url == "https://ex.com/mc"
    assert c.text == "We ran a workshop with the Maintainer Community last year."


def test_footnote_urls_come_from_the_body() -> None:
    md = (
        "Adoption doubled in 2021.[^src] Other text here.\n\n"
        "[^src]: The [report](https://ex.com/r) and https://ex.com/appendix.\n"
    )
    found = claims(md)
    assert [c.text for c in found] == ["Adoption doubled in 2021."]
    cits = found[0].citations
    assert [(c.kind, c.identifier, c.url, c.raw) for c in cits] == [
        (CitationKind.footnote, "src", "https://ex.com/r", "[^src]"),
        (CitationKind.footnote, "src", "https://ex.com/appendix", "[^src]"),
    ]


def test_footnote_without_url_is_an_error_and_its_body_is_prose() -> None:
    md = "Adoption doubled in 2021.[^1]\n\n[^1]: Measured over 300 projects by hand.\n"
    found = claims(md)
    assert found[0].citations[0].resolve_status == ResolveStatus.error
    assert "[^1]" in (found[0].citations[0].resolve_error or "")
    assert [c.text for c in found] == ["Adoption doubled in 2021.", "Measured over 300 projects by hand."]


def test_undefined_footnote_is_an_error() -> None:
    cit = one("Adoption doubled in 2021.[^9]").citations[0]
    assert cit.kind == CitationKind.footnote and cit.resolve_status == ResolveStatus.error
    assert cit.resolve_error == "footnote [^9] is not defined"


REFS = """\
Rust adoption grew 40% in 2022 [1]. Go was used by 2 million developers [2, 3].
Usage of Zig more than doubled (Kelley, 2021). Knuth (1974) found 3% of code matters.
An old claim had 9 sources [7].

## References

1. Rust Survey 2022. https://blog.rust-lang.org/2022/survey
2. [Go Survey](https://go.dev/blog/survey)
3. Go team. doi:10.1145/3442188.3445922.
4. Kelley, A. (2021). Zig notes. <https://ziglang.org/news>
5. Knuth, D. (1974). Structured programming with go to statements. https://doi.org/10.1145/356635.356640
"""


def test_numbered_and_author_year_references() -> None:
    doc = extract_text(REFS, "doc.md")
    by_text = {c.text: c for c in doc.claims}
    assert [r.label for r in doc.references] == ["1", "2", "3", "4", "5"]
    c1 = by_text["Rust adoption grew 40% in 2022 [1]."]
    assert [(c.kind, c.identifier, c.url) for c in c1.citations] == [
        (CitationKind.numbered, "1", "https://blog.rust-lang.org/2022/survey")
    ]
    c2 = by_text["Go was used by 2 million developers [2, 3]."]
    assert [c.url for c in c2.citations] == [
        "https://go.dev/blog/survey",
        "https://doi.org/10.1145/3442188.3445922",
    ]
    c3 = by_text["Usage of Zig more than doubled (Kelley, 2021)."]
    assert [(c.kind, c.url) for c in c3.citations] == [(CitationKind.author_year, "https://ziglang.org/news")]
    c4 = by_text["Knuth (1974) found 3% of code matters."]
    assert [(c.kind, c.url) for c in c4.citations] == [
        (CitationKind.author_year, "https://doi.org/10.1145/356635.356640")
    ]
    assert c3.text[c3.citations[0].start : c3.citations[0].end] == "(Kelley, 2021)"
    c5 = by_text["An old claim had 9 sources [7]."]
    assert c5.citations[0].resolve_status == ResolveStatus.error
    assert c5.citations[0].resolve_error == "reference [7] not found in the reference list"
    # the reference list itself is not a source of claims
    assert all(c.line < 5 for c in doc.claims)


def test_unresolved_author_year_is_kept_with_a_reason() -> None:
    md = "Usage rose 20% (Nobody, 2020).\n\n## Sources\n\n- Kelley (2021) https://ex.com/k\n"
    cit = one(md).citations[0]
    assert cit.kind == CitationKind.author_year and cit.resolve_status == ResolveStatus.error
    assert "(Nobody, 2020)" in (cit.resolve_error or "")


def test_numbered_without_reference_list() -> None:
    cit = one("It grew 20% [3].").citations[0]
    assert cit.resolve_status == ResolveStatus.error and "no reference list" in (cit.resolve_error or "")


def test_bracketed_reference_paragraph() -> None:
    md = "It grew 20% [2].\n\n## Bibliography\n\n[1] A. https://ex.com/a\n[2] B. https://ex.com/b\n"
    assert one(md).citations[0].url == "https://ex.com/b"


@pytest.mark.parametrize(
    "written",
    [
        "doi:10.1000/xyz123",
        "https://doi.org/10.1000/xyz123",
        "http://dx.doi.org/10.1000/xyz123",
        "10.1000/xyz123",
    ],
)
def test_doi_forms_normalized(written: str) -> None:
    cit = one(f"A study of 300 projects ({written}) found this.").citations[0]
    assert cit.kind == CitationKind.doi
    assert cit.url == "https://doi.org/10.1000/xyz123"


def test_text_fragment_kept() -> None:
    url = "https://ex.com/p#:~:text=personal%20ecology%3A%20maintaining%20balance"
    cit = one(f"It is [described]({url}) as balance.").citations[0]
    assert cit.url == url
    assert cit.text_fragment == "personal ecology: maintaining balance"


@pytest.mark.parametrize(
    "frag, expected",
    [
        ("text=an%20example-,the%20start,-and%20after", "the start"),
        ("text=first%20words,last%20words", "first words"),
        ("text=a%2Cb", "a,b"),
        ("foo=1&text=found%20it", "found it"),
    ],
)
def test_text_fragment_forms(frag: str, expected: str) -> None:
    cit = one(f"It was [described](https://ex.com/p#:~:{frag}) as balance.").citations[0]
    assert cit.text_fragment == expected


def test_citecheck_ignore_title() -> None:
    c = one('Usage grew 50% [here](https://ex.com/x "citecheck-ignore").')
    assert c.citations[0].resolve_status == ResolveStatus.skipped
    assert texts('See [our page](https://ex.com/x "citecheck-ignore") for the details of it.') == []


# --- positions --------------------------------------------------------------------------------------


def test_positions_in_paragraph_after_front_matter() -> None:
    md = "---\ntitle: T\n---\n\nIntro text here. It grew 50%\nin 2023. And then\n  it fell 20% again.\n"
    found = claims(md)
    assert [(c.line, c.column) for c in found] == [at(md, "It grew"), at(md, "And then")]


def test_positions_in_lists_and_nested_block_quotes() -> None:
    md = "- first item\n- Usage grew 50% in 2023.\n  Then 30% more.\n\n> > Quoted stat: 12% fell.\n"
    found = claims(md)
    assert [(c.line, c.column) for c in found] == [
        at(md, "Usage grew"),
        at(md, "Then 30%"),
        at(md, "Quoted stat"),
    ]


def test_positions_with_links_and_emphasis_at_sentence_start() -> None:
    md = "Intro. [Mozilla](https://m.org) found 48 hours matter. **Forty** percent of users agree."
    found = claims(md)
    assert [(c.line, c.column) for c in found] == [at(md, "[Mozilla]"), at(md, "**Forty**")]


def test_positions_in_tables() -> None:
    md = "| Language | Share |\n|---|---|\n| Python | 35% |\n|  Rust   | [12%](https://ex.com/r) |\n"
    found = claims(md)
    assert [c.text for c in found] == ["Python | 35%", "Rust | 12%"]
    assert [(c.line, c.column) for c in found] == [at(md, "Python |"), at(md, "Rust ")]
    assert found[1].citations[0].url == "https://ex.com/r"


def test_positions_in_footnote_bodies() -> None:
    md = "Text.[^a]\n\n[^a]: First note. It grew\n    30% in 2020.\n"
    c = one(md)
    assert c.text == "It grew 30% in 2020."
    assert (c.line, c.column) == at(md, "It grew")


def test_positions_after_escapes_and_entities() -> None:
    md = "A \\*star\\* &amp; more. It grew 50%."
    c = one(md)
    assert (c.line, c.column) == at(md, "It grew")


def test_positions_after_html_link_spanning_attributes() -> None:
    md = 'See <a href="https://ex.com/x">the page</a> now. It grew 50%.'
    assert (one(md).line, one(md).column) == at(md, "It grew")


def test_crlf_and_bom() -> None:
    md = "\ufeffIntro.\r\n\r\nIt grew 50% in 2023.\r\n"
    c = one(md)
    assert (c.line, c.column) == (3, 1)


# --- ignore markers ---------------------------------------------------------------------------------


def test_ignore_next_block() -> None:
    md = "<!-- citecheck-ignore -->\nIt grew 50% in 2023.\n\nIt fell 20% in 2024.\n"
    assert texts(md) == ["It fell 20% in 2024."]


def test_ignore_next_list() -> None:
    md = "<!-- citecheck-ignore -->\n- It grew 50%.\n- It fell 20%.\n\nIt rose 5%.\n"
    assert texts(md) == ["It rose 5%."]


def test_ignore_inline_in_paragraph() -> None:
    assert texts("It grew 50%. <!-- citecheck-ignore --> It fell.\n\nIt rose 5%.\n") == ["It rose 5%."]


def test_disable_enable() -> None:
    md = (
        "It grew 1%.\n\n<!-- citecheck-disable -->\n\nIt grew 2%.\n\n- It grew 3%.\n\n"
        "<!-- citecheck-enable -->\n\nIt grew 4%.\n"
    )
    assert texts(md) == ["It grew 1%.", "It grew 4%."]


# --- files and bad input -------------------------------------------------------------------------------


def test_extract_file_errors(tmp_path: Path) -> None:
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"It grew\x00 50%.")
    big = tmp_path / "big.md"
    big.write_text("It grew 50%.\n" * 100)
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"Intro.\n\nIt grew 50% in 2023 \xff\xfe here.\n")
    missing = tmp_path / "missing.md"

    doc = extract_file(binary)
    assert doc.claims == [] and "binary" in doc.errors[0].message and doc.errors[0].file == str(binary)
    doc = extract_file(big, display="docs/big.md", max_bytes=500)
    assert doc.claims == [] and doc.errors[0].file == "docs/big.md" and "limit" in doc.errors[0].message
    doc = extract_file(bad)
    assert [c.text for c in doc.claims] == ["It grew 50% in 2023 \ufffd\ufffd here."]
    assert doc.errors[0].fatal is False and doc.errors[0].line == 3 and "UTF-8" in doc.errors[0].message
    doc = extract_file(missing)
    assert doc.errors[0].fatal and "cannot read" in doc.errors[0].message
    doc = extract_file(tmp_path)
    assert doc.errors[0].fatal


def test_render_text_and_json_field_names() -> None:
    doc = extract_text(
        "Usage grew 50% [per the survey](https://ex.com/s).\n\nThe number of users fell [7].\n", "docs/a.md"
    )
    out = render_text([doc])
    lines = out.splitlines()
    assert (
        lines[0] == "docs/a.md:1  statistic,hyperlinked  Usage grew 50% per the survey.  → https://ex.com/s"
    )
    assert lines[1].startswith(
        "docs/a.md:3  hyperlinked  The number of users fell [7].  → [7] (error: reference [7] not found"
    )
    data = json.loads(doc.model_dump_json())
    claim = data["claims"][0]
    assert {"text", "kinds", "file", "line", "column", "citations"} <= claim.keys()
    assert {"raw", "kind", "url", "resolve_status", "resolve_error"} <= claim["citations"][0].keys()


def test_markup_does_not_hide_a_kind() -> None:
    # no digit, link or HTML: the kind must show through the emphasis markers
    assert one("The new engine is _faster_ than the **old** one.").kinds == [K.comparative]
    assert one("Usage *more than doubled* after the move.").kinds == [K.comparative]


def test_inline_footnote() -> None:
    c = one("Adoption doubled in 2021.^[See https://ex.com/inline for the data.]")
    assert [(x.kind, x.url) for x in c.citations] == [(CitationKind.footnote, "https://ex.com/inline")]


def test_footnote_defined_before_use_and_reused() -> None:
    md = "[^n]: https://ex.com/n\n\nUsage grew 10% in 2020.[^n]\n\nIt fell 5% in 2021.[^n]\n"
    found = claims(md)
    assert [c.citations[0].url for c in found] == ["https://ex.com/n", "https://ex.com/n"]


ASIDE = """\
Intro paragraph without facts.

<aside markdown="1" class="pquote">
  <img src="https://avatars.example/lord?s=180" class="pquote-avatar" alt="avatar">
  I fumbled it. Instead I should have said no.
  <p markdown="1" class="pquote-credit">
— @lord, ["Tips for new maintainers"](https://lord.io/blog/2014/oss-tips/)
  </p>
</aside>
"""


def test_kramdown_pull_quote_is_an_attributed_quote() -> None:
    found = claims(ASIDE)
    assert [c.text for c in found] == ["I fumbled it.", "Instead I should have said no."]
    assert all(c.kinds == [K.quote, K.hyperlinked] for c in found)
    assert found[0].citations[0].url == "https://lord.io/blog/2014/oss-tips/"
    assert [(c.line, c.column) for c in found] == [at(ASIDE, "I fumbled"), at(ASIDE, "Instead I")]


def test_ignore_marker_before_an_html_block() -> None:
    md = ASIDE.replace("<aside", "<!-- citecheck-ignore -->\n<aside", 1) + "\nIt grew 50% in 2023.\n"
    assert texts(md) == ["It grew 50% in 2023."]


def test_plain_html_block_is_skipped() -> None:
    assert texts('<div class="note">\nIt grew 50% in 2023 <a href="https://ex.com">here</a>.\n</div>\n') == []


def test_link_url_kept_as_written() -> None:
    c = one("Usage grew 50% per [the report](https://ex.com/résumé?q=a%20b#:~:text=grew%2050%25).")
    assert c.citations[0].url == "https://ex.com/résumé?q=a%20b#:~:text=grew%2050%25"
    assert c.citations[0].text_fragment == "grew 50%"


def test_position_after_a_code_span_over_two_lines() -> None:
    md = "The `npm\noutdated` command changed. It grew 50% in 2023.\n"
    c = one(md)
    assert (c.line, c.column) == at(md, "It grew")


def test_toml_front_matter_is_skipped() -> None:
    md = '+++\ntitle = "Growth"\ndate = 2023-01-01\n+++\n\nIt grew 50% in 2023.\n'
    c = one(md)
    assert (c.line, c.column) == (6, 1)


def test_mdx_imports_and_exports_are_skipped() -> None:
    md = (
        "import Chart from './chart'\nexport const meta = { date: '2023-01-01' }\n\n"
        "It grew 50% in 2023.\n\n```js\nimport x from 'y' // 2023\n```\n"
    )
    assert [c.text for c in extract_text(md, "docs/page.mdx").claims] == ["It grew 50% in 2023."]
    assert len(extract_text(md, "docs/page.md").claims) == 2  # plain Markdown keeps them as text


def test_footnote_body_citing_the_reference_list() -> None:
    md = (
        "Usage doubled in 2021.[^a]\n\n[^a]: As reported in [2].\n\n"
        "## References\n\n1. A https://ex.com/1\n2. B https://ex.com/2\n"
    )
    cits = one(md).citations
    assert [(c.kind, c.identifier, c.url, c.start) for c in cits] == [
        (CitationKind.footnote, "a", "https://ex.com/2", None)
    ]


def test_github_alert_label_is_not_claim_text() -> None:
    md = "> [!NOTE]\n> Usage grew 50% in 2023.\n"
    c = one(md)
    assert c.text == "Usage grew 50% in 2023."
    assert (c.line, c.column) == at(md, "Usage")


def test_utf16_file_with_bom(tmp_path: Path) -> None:
    f = tmp_path / "u16.md"
    f.write_bytes("Intro.\n\nIt grew 50% in 2023.\n".encode("utf-16"))
    doc = extract_file(f)
    assert doc.errors == [] and [(c.text, c.line) for c in doc.claims] == [("It grew 50% in 2023.", 3)]


def test_reference_list_forms() -> None:
    md = (
        "Usage grew 50% [1] and 20% [5].\n\n### Sources\n\n- [1] Survey https://ex.com/1\n\n"
        "#### Older\n\n5. Old report https://ex.com/5\n\n## Next section\n\nIt fell 10% [9].\n"
    )
    doc = extract_text(md, "doc.md")
    assert [(r.label, r.urls) for r in doc.references] == [
        ("1", ["https://ex.com/1"]),
        ("5", ["https://ex.com/5"]),
    ]
    first, last = doc.claims
    assert [c.url for c in first.citations] == ["https://ex.com/1", "https://ex.com/5"]
    assert last.citations[0].resolve_error == "reference [9] not found in the reference list"
