"""Where an anchor is in a Markdown text (`citecheck.extract.anchors`), from real pages: the
ids generators give headings, the ids attribute lists and labels declare, and the part of the
page an anchor names."""

from __future__ import annotations

from citecheck.extract import anchors


def lines(text: str) -> list[str]:
    return text.split("\n")


def test_a_heading_answers_to_each_generators_slug() -> None:
    # open-feature/openfeature.dev blog/2024-05-02-react-sdk-release.md:
    # "[context provider](#context-provider)"
    assert "context-provider" in anchors.slugs("Context Provider")
    # usnistgov/800-63-3 (kramdown drops the leading number; GitHub keeps it)
    github, kramdown, toc = anchors.slugs("4 Federation Assurance Level (FAL)")
    assert (github, kramdown, toc) == (
        "4-federation-assurance-level-fal",
        "federation-assurance-level-fal",
        "4-federation-assurance-level-fal",
    )
    # Python-Markdown's toc (MkDocs) drops accents; GitHub keeps the letters
    assert anchors.slugs("Résumé `parse()` [links](https://x.org)") == (
        "résumé-parse-links",
        "rsum-parse-links",
        "resume-parse-links",
    )


def test_repeated_headings_are_numbered_and_code_comments_are_no_headings() -> None:
    # encode/httpx docs/advanced/transports.md: "### Example" under two sections, and "# …" comments
    # inside its Python fences
    text = (
        "---\ntitle: Transports\n---\n\n## WSGI Transport\n\n### Example\n\n```python\n"
        "# Instantiate a client that makes WSGI requests\n```\n\n## ASGI Transport\n\n### Example\n"
    )
    found = anchors.headings(lines(text))
    assert [sorted(h.ids)[0] for h in found] == ["wsgi-transport", "example", "asgi-transport", "example-1"]
    assert [h.line for h in found] == [4, 6, 12, 14]


def test_a_setext_heading_and_front_matter() -> None:
    text = "---\ntitle: x\n---\nOverview\n========\n\nText.\n\nDetails\n-------\n"
    assert [
        (h.line, h.level, "overview" in h.ids or "details" in h.ids) for h in anchors.headings(lines(text))
    ] == [
        (3, 1, True),
        (8, 2, True),
    ]


def test_attribute_lists_and_labels_declare_ids_for_the_block_they_name() -> None:
    text = lines(
        # gohugoio/hugoDocs content/en/configuration/markup.md
        "### Settings {#settings-asciidoc}\n\n"
        # v8/v8.dev src/features/bigint.md (markdown-it-attrs, kramdown's syntax)
        "## The status quo: `Number` {: #number }\n\n"
        # best-practice-and-impact/qa-of-code-guidance book/tools.md (Jupyter Book's MyST)
        "(CI-tools)=\n## Continuous integration\n\n"
        # kramdown's block attribute list after its paragraph; a pandoc div
        "Smith 2020. https://example.org/a\n{: #ref-a}\n\n::: {#refs}\nLee 2021.\n:::\n"
    )
    assert anchors.declared_lines(text) == {
        0: ["settings-asciidoc"],
        2: ["number"],
        5: ["CI-tools"],
        7: ["ref-a"],
        11: ["refs"],
    }


def test_an_anchor_names_its_heading_s_section() -> None:
    # usnistgov/800-63-3 sp800-63-3/sec5_DIRM.md: the anchor, a breaker div, then the heading
    text = lines(
        '<a name="sec5"></a>\n\n<div class="breaker"></div>\n\n## 5 Digital Identity Risk Management\n\n'
        "This section is normative.\n\n### 5.1 Overview\n\nText.\n\n"
        "## 6 Selecting Assurance Levels\n\nMore.\n"
    )
    assert anchors.section(text, "sec5") == (0, 12)
    assert anchors.section(text, "overview") == (8, 12)  # kramdown's slug of "5.1 Overview"
    assert anchors.section(text, "missing") is None


def test_an_anchor_inside_a_section_names_that_section() -> None:
    # usnistgov/800-63-3 sp800-63c/sec5_federation.md: a figure's anchor inside section 5.1
    text = lines(
        "## 5 Federation\n\nIntro.\n\n### 5.1 Federation Models\n\nText, see Figure 5-1.\n\n"
        '<a name="63cSec5-Figure1"></a>\n\n![fig](img.png)\n\n### 5.2 Privacy\n\nMore.\n'
    )
    assert anchors.section(text, "63cSec5-Figure1") == (4, 12)


def test_a_book_s_labels_equations_directives_and_d2l_roles() -> None:
    # tum-pbs/pbdl-book overview-optconv.md (an equation's label, a MyST label), a figure's
    # `:name:` option (MyST), d2l-ai/d2l-en's `:label:` role
    text = (
        "(optconv)=\n# Optimization\n\nNewton's step:\n\n$$\n\\Delta = -H^{-1} J\n$$ (opt-newton)\n\n"
        "```{figure} resources/x.jpg\n---\nname: not-an-option\n---\n```\n\n"
        "```{math}\n:label: eq-loss\nL = x^2\n```\n\n"
        "## Dropout\n:label:`sec_dropout`\n\nText $$ not a label.\n"
    )
    assert anchors.global_labels(text) == ["optconv", "opt-newton", "eq-loss", "sec_dropout"]
    found = lines(text)
    assert anchors.anchor_line(found, "opt-newton") == 7
    assert anchors.section(found, "sec_dropout") == (20, 25)  # the section it stands in
    # an attribute list's id is the page's own, no label of the book
    assert anchors.global_labels("## Timeout {#timeout}\n\n<a name='x'></a>\n") == []
