"""Internal links (issue 34), from real snippets (repositories named): what extraction makes of
a link to the project's own pages, where `citecheck.fetch.site` follows it in a checkout, how
`citecheck.fetch.local` reads the page it leads to, and the settings that name the site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.config import Settings, narrowing
from citecheck.errors import ConfigError
from citecheck.extract.document import extract_text
from citecheck.extract.skip import CITED_RULES
from citecheck.fetch.local import markdown_content, read_page
from citecheck.fetch.site import NOT_RESOLVED, Checkout, Site, resolve_internal
from citecheck.models import Citation, CitationKind, Claim, FetchedSource, SelectedFile, Verdict
from citecheck.policy import triage

K = CitationKind


def cites(md: str, file: str = "docs/page.md") -> list[list[tuple[str, str | None, str | None]]]:
    """Each claim's citations as (kind, identifier, url)."""
    return [[(c.kind, c.identifier, c.url) for c in cl.citations] for cl in extract_text(md, file).claims]


# --- extraction: what is an internal citation ----------------------------------------------------


def test_relative_links_and_site_paths_are_internal_citations() -> None:
    # typescript-eslint's v8 announcement; pnpm's blog; usnistgov/800-63-3
    assert cites(
        "[`@typescript-eslint/no-empty-object-type`](/rules/no-empty-object-type) is the new rule for "
        "banning the built-in `{}` type in confusing locations.\n\n"
        "To refine this control, we introduced [`allowBuilds`](/settings#allowbuilds) in v10.26.\n\n"
        "This recommendation supersedes [SP 800-63A](sp800-63a.html) and [its guide](../a/b.md#x).\n"
    ) == [
        [(K.internal, "/rules/no-empty-object-type", None)],
        [(K.internal, "/settings#allowbuilds", None)],
        [(K.internal, "sp800-63a.html", None), (K.internal, "../a/b.md#x", None)],
    ]


def test_cross_reference_roles_are_internal_citations_whose_text_is_the_claim_s() -> None:
    # tum-pbs/pbdl-book (Jupyter Book): overview-optconv.md, probmodels-phys.md, physicalloss.md
    found = extract_text(
        "The chapter is highly recommend as a basis for the chapters of {doc}`physgrad`.\n\n"
        "The last line of equation {eq}`gauss-newton-approx` means we are basically approximating "
        "the Hessian with $J$ squared.\n\n"
        "The gradient backpropagation is stopped at the output of the simulator, as shown in "
        "{numref}`Figure %s <probphys-overview>`, which cuts memory by 40%.\n\n"
        "Overall, this variant has a lot in common with :doc:`training via differentiable physics "
        "<diffphys>` and works on 2 datasets.\n\n"
        "An evaluation of the reconstructions is given in figure \\ref{fig:stochastic_heat_eq_overview}, "
        "which shows that the ODE inference performs best.\n",
        "original/overview-optconv.md",
    ).claims
    assert [(c.text, [(x.kind, x.identifier) for x in c.citations]) for c in found] == [
        (
            "The chapter is highly recommend as a basis for the chapters of physgrad.",
            [(K.internal, "physgrad")],
        ),
        (
            "The last line of equation means we are basically approximating the Hessian with $J$ squared.",
            [(K.internal, "#gauss-newton-approx")],
        ),
        (
            "The gradient backpropagation is stopped at the output of the simulator, as shown in "
            "Figure, which cuts memory by 40%.",
            [(K.internal, "#probphys-overview")],
        ),
        (
            "Overall, this variant has a lot in common with training via differentiable physics and "
            "works on 2 datasets.",
            [(K.internal, "diffphys")],
        ),
        (
            "An evaluation of the reconstructions is given in figure, which shows that the ODE "
            "inference performs best.",
            [(K.internal, "#fig:stochastic_heat_eq_overview")],
        ),
    ]


def test_a_role_that_names_no_page_stays_as_it_was() -> None:
    # a label declaration, a term and a code role are no links (the markup blanking's, as before)
    assert cites("The loss is defined in :label:`eq_loss` and drops by 40% in {term}`epochs <Epoch>`.\n") == [
        []
    ]
    assert cites("The {py:func}`load` reader handles 2 GB files.\n") == [[]]


def test_mail_assets_templates_and_other_schemes_are_no_citations() -> None:
    # ScilifelabDataCentre/pathogens-portal writes an address without "mailto:"; reduxjs/redux's
    # LICENSE-logo.md a link inside a link's target
    for target in (
        "mailto:team@example.org",
        "tel:+100",
        "/assets/fig.png",
        "img/a.svg?raw=1",
        "{{ site.url }}",
        "recovac@gu.se",
        "<[CC0](https://creativecommons.org/publicdomain/zero/1.0/)>",
    ):
        assert cites(f"The team grew 40% in 2021 ([x]({target})).\n") == [[]], target


def test_an_in_page_link_to_a_heading_is_an_internal_citation() -> None:
    # open-feature/openfeature.dev blog/2024-05-02-react-sdk-release.md
    assert cites(
        "Both of these features can be disabled per-flag, or for the scope of the "
        "[context provider](#context-provider).\n"
    ) == [[(K.internal, "#context-provider", None)]]


@pytest.mark.parametrize(
    "entry",
    [
        '<a id="ref-a"></a>Smith, J. (2020). Flags. https://example.org/a',
        "Smith, J. (2020). Flags. https://example.org/a {#ref-a}",  # pandoc / MkDocs attr_list
        "Smith, J. (2020). Flags. https://example.org/a\n{: #ref-a}",  # kramdown's block IAL
        "(ref-a)=\nSmith, J. (2020). Flags. https://example.org/a",  # MyST's label
        "### Smith 2020 {#ref-a}\n\nSmith, J. (2020). Flags. https://example.org/a",  # a heading per entry
        "### ref-a\n\nSmith, J. (2020). Flags. https://example.org/a",  # its GitHub slug
    ],
)
def test_an_in_page_link_to_a_reference_entry_cites_the_entry_s_url(entry: str) -> None:
    # the labeller's gap (held-out 36-38): "[1](#ref-a)" followed `<a id="ref-a">` but not a pandoc
    # `{#ref-a}`; every common target now
    md = f"Feature flags cut release risk by 30% [1](#ref-a).\n\n## References\n\n{entry}\n"
    assert cites(md) == [[(K.reference, "#ref-a", "https://example.org/a")]]


def test_a_back_to_top_link_is_navigation_not_a_citation() -> None:
    # gohugoio/hugoDocs content/en/quick-reference/emojis.md: every row of its tables
    md = (
        "| | ico | shortcode | ico | shortcode | |\n| - | :-: | - | :-: | - | - |\n"
        "| [top](#smileys--emotion) | :grinning: | `:grinning:` | :smiley: | `:smiley:` | "
        "[top](#table-of-contents) |\n"
    )
    assert extract_text(md, "emojis.md").claims == []
    assert cites('Prices rose 4% in 2023 (<a href="#top">↑ back to top</a>).\n') == [[]]


def test_an_exclude_pattern_matches_an_internal_link_as_written() -> None:
    from citecheck.exclusions import Exclusions, exclude_links

    claim = extract_text("The blog grew 40% in 2024 ([post](/blog/2024-review)).\n", "x.md").claims[0]
    kept, dropped = exclude_links([claim], Exclusions.from_settings(Settings(exclude=["^/blog/"])))
    assert [c.citations for c in kept] == [[]] and dropped == {"pattern": 1}


def test_an_in_page_link_to_an_entry_without_a_url_is_listed_unresolved() -> None:
    # usnistgov/800-63-3 sp800-63b/sec10_usability.md cites ISO 9241-11, a paid standard
    md = (
        "ISO/IEC 9241-11 defines usability as the extent to which a product can be used "
        "[[ISO 9241-11]](#ISO9241-11).\n\n## References\n\n"
        '<a name="ISO9241-11"></a>[ISO 9241-11] ISO/IEC 9241-11:1998, Ergonomic requirements.\n'
    )
    [[c]] = [cl.citations for cl in extract_text(md, "x.md").claims]
    assert (c.kind, c.resolve_error) == (K.reference, "reference #ISO9241-11 has no URL or DOI")


def test_a_change_log_entry_naming_what_changed_by_an_internal_link_stays_a_change_reference() -> None:
    # eslint/eslint.org src/content/blog/2017-01-25-eslint-v3.14.1-released.md
    md = (
        "* [791f32b](https://github.com/eslint/eslint/commit/791f32b) Fix: "
        "[brace-style](/docs/rules/brace-style)"
        " false positive for keyword method names (fixes [#7974](https://github.com/eslint/eslint/issues/7974))"
        " ([#7980](https://github.com/eslint/eslint/issues/7980)) (Teddy Katz)\n"
    )
    doc = extract_text(md, "x.md")
    assert doc.claims == [] and [s.rule for s in doc.skipped] == ["change-reference"]
    assert "change-reference" in {r.name for r in CITED_RULES}


# --- following a link in a checkout --------------------------------------------------------------


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def follow(root: Path, href: str, place: str, *, roots: tuple[str, ...] = (), site: str | None = None) -> str:
    found = Site(Checkout(root, roots, site), 1_000_000).follow(href, place, 1)
    return found.path or found.url or f"error: {found.error}"


def test_a_book_s_label_leads_to_the_page_that_declares_it(tmp_path: Path) -> None:
    # tum-pbs/pbdl-book: probmodels-phys.md cites {eq}`gauss-newton-approx` of
    # overview-optconv.md and {ref}`probmodels-intro` (a MyST label); MyST labels are the book's
    root = tree(
        tmp_path,
        {
            "probmodels-phys.md": "# Physics\n\nx\n",
            "overview-optconv.md": "# Optimizers\n\n## Gauss-Newton\n\n$$\nH = J\n$$ (gauss-newton-approx)\n",
            "probmodels-intro.md": "(probmodels-intro)=\n# Introduction\n\nFlows.\n",
            "a.md": "(twice)=\n# A\n",
            "b.md": "(twice)=\n# B\n",
        },
    )
    place = "probmodels-phys.md"
    assert follow(root, "#gauss-newton-approx", place) == "overview-optconv.md#gauss-newton-approx"
    assert follow(root, "#probmodels-intro", place) == "probmodels-intro.md#probmodels-intro"
    # a label two pages declare names neither; an anchor no page declares stays unresolved
    assert follow(root, "#twice", place) == f"error: {NOT_RESOLVED} (no part of this page declares #twice)"
    assert (
        follow(root, "#nowhere", place) == f"error: {NOT_RESOLVED} (no part of this page declares #nowhere)"
    )


def test_redux_s_relative_links_name_files_with_their_sections(tmp_path: Path) -> None:
    # reduxjs/redux docs/faq/StoreSetup.md
    root = tree(
        tmp_path,
        {
            "docs/faq/StoreSetup.md": "x",
            "docs/tutorials/fundamentals/part-4-store.md": "# Store\n\n## Middleware\n\nIt wraps dispatch.\n",
            "docs/api/Store.md": "# Store\n",
        },
    )
    place = "docs/faq/StoreSetup.md"
    assert follow(root, "../tutorials/fundamentals/part-4-store.md#middleware", place) == (
        "docs/tutorials/fundamentals/part-4-store.md#middleware"
    )
    assert follow(root, "../api/Store", place) == "docs/api/Store.md"  # the extension left out
    assert follow(root, "../api/Missing.md", place) == (
        f"error: {NOT_RESOLVED} (no file of the checkout is ../api/Missing.md)"
    )


def test_docusaurus_routes_number_prefixes_ids_slugs_and_blog_dates(tmp_path: Path) -> None:
    # open-feature/openfeature.dev: docs/reference/concepts/04-hooks.mdx (`id: hooks`), its blog
    root = tree(
        tmp_path,
        {
            "docs/reference/concepts/04-hooks.mdx": "---\nsidebar_position: 4\nid: hooks\n---\n\n# Hooks\n",
            "blog/2024-02-28-reconciling-with-state.md": "# Reconciling\n",
            "blog/2024-08-21-dotnet-sdk-v2.md": "x",
            "docs/30-settings.md": "---\nslug: /settings\n---\n\n# Settings\n\n## allowBuilds\n\nText.\n",
        },
    )
    place = "blog/2024-08-21-dotnet-sdk-v2.md"
    assert follow(root, "/docs/reference/concepts/hooks", place) == "docs/reference/concepts/04-hooks.mdx"
    assert follow(root, "/blog/reconciling-with-state", place) == "blog/2024-02-28-reconciling-with-state.md"
    assert follow(root, "/blog/2024/02/28/reconciling-with-state", place) == (
        "blog/2024-02-28-reconciling-with-state.md"
    )
    assert follow(root, "/settings#allowbuilds", place) == "docs/30-settings.md#allowbuilds"


def test_hugo_and_mkdocs_sites_under_their_site_root(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            # gohugoio/hugoDocs: content/en is the site; a section's _index.md, a page's `url:`
            "content/en/functions/_index.md": "# Functions\n",
            "content/en/functions/strings/Trim.md": "---\ntitle: strings.Trim\n---\n\nIt returns a slice.\n",
            "content/en/about/features.md": "---\nurl: /features/\n---\n\n# Features\n",
            # encode/httpx: MkDocs with directory URLs ("/async/" → "../advanced/transports")
            "docs/async.md": "x",
            "docs/advanced/transports.md": "# Transports\n\n## ASGI Transport\n\nText.\n",
        },
    )
    roots = ("content/en", "docs")
    assert follow(root, "/functions/", "content/en/a.md", roots=roots) == "content/en/functions/_index.md"
    assert follow(root, "/functions/strings/trim", "content/en/a.md", roots=roots) == (
        "content/en/functions/strings/Trim.md"
    )
    assert follow(root, "/features/", "content/en/a.md", roots=roots) == "content/en/about/features.md"
    assert follow(root, "../advanced/transports#asgi-transport", "docs/async.md", roots=roots) == (
        "docs/advanced/transports.md#asgi-transport"
    )


def test_a_jekyll_page_s_parts_and_its_sibling_volume(tmp_path: Path) -> None:
    # usnistgov/800-63-3: sp800-63a.md assembles sp800-63a/*.md; sec10 of volume C links
    # "sp800-63a.html#sec9", which its page's URL resolves to the root
    root = tree(
        tmp_path,
        {
            "sp800-63a.md": "---\nlayout: page\n---\n{% include_relative sp800-63a/sec9_usability.md %}\n",
            "sp800-63a/sec9_usability.md": '<a name="sec9"></a>\n\n## 9 Usability Considerations\n\nText.\n',
            "sp800-63a/README.md": "# Volume A\n",
            "sp800-63c.md": "---\nlayout: page\n---\n{% include_relative sp800-63c/sec10_usability.md %}\n",
            "sp800-63c/sec10_usability.md": "x",
        },
    )
    place = "sp800-63c/sec10_usability.md"
    assert follow(root, "sp800-63a.html#sec9", place) == "sp800-63a/sec9_usability.md#sec9"
    assert follow(root, "sp800-63a.html", place) == "sp800-63a.md"  # the page, not the folder's README


def test_what_no_file_answers_goes_to_the_site_when_site_url_names_it(tmp_path: Path) -> None:
    root = tree(tmp_path, {"blog/react.md": "x"})
    site = "https://openfeature.dev"
    assert follow(root, "/specification/glossary#client", "blog/react.md", site=site) == (
        "https://openfeature.dev/specification/glossary#client"
    )
    assert follow(root, "other-post", "blog/react.md", site=site) == "https://openfeature.dev/blog/other-post"


def test_what_a_link_leads_to_that_is_no_page(tmp_path: Path) -> None:
    root = tree(
        tmp_path, {"docs/a.md": "## Here\n\nText.\n\n## There\n\nMore.\n", "setup.py": "x", "src/x.py": ""}
    )
    assert (
        follow(root, "../setup.py", "docs/a.md")
        == f"error: {NOT_RESOLVED} (setup.py is no page: only Markdown, notebooks, HTML, PDF, text are read)"
    )
    assert (
        follow(root, "../src", "docs/a.md")
        == f"error: {NOT_RESOLVED} (src/ is a folder without an index page)"
    )
    assert follow(root, "../../etc/passwd", "docs/a.md") == (
        f"error: {NOT_RESOLVED} (no file of the checkout is ../../etc/passwd)"
    )
    # an in-page link to the section the sentence stands in is no source of it (line 3: "Text.")
    found = Site(Checkout(root), 1_000_000).follow("#here", "docs/a.md", 3)
    assert found.error == f"{NOT_RESOLVED} (#here is the section the sentence stands in)"
    assert Site(Checkout(root), 1_000_000).follow("#there", "docs/a.md", 3).path == "docs/a.md#there"


def test_a_web_link_to_the_site_itself_is_checked_against_the_checkout(tmp_path: Path) -> None:
    # openfeature.dev's blog links its own glossary by its absolute URL
    root = tree(
        tmp_path, {"docs/glossary.md": "# Glossary\n\n## Domain\n\nA domain is …\n", "blog/a.md": "x"}
    )
    claim = Claim(
        text="Domains are a more powerful concept.",
        kinds=[],
        file="blog/a.md",
        line=1,
        column=1,
        citations=[Citation(raw="x", kind=K.link, url="https://openfeature.dev/docs/glossary/#domain")],
    )
    files = [SelectedFile(path=str(root / "blog/a.md"), display="blog/a.md")]
    resolve_internal([claim], files, Checkout(root, (), "https://openfeature.dev"), 1_000_000)
    [c] = claim.citations
    assert (c.kind, c.path, c.url) == (K.link, "docs/glossary.md#domain", None)


def test_without_a_checkout_the_claim_says_why_and_is_not_verified() -> None:
    claim = Claim(
        text="x",
        kinds=[],
        file="draft.md",
        line=1,
        column=1,
        citations=[Citation(raw="[r](../ref.md)", kind=K.internal, identifier="../ref.md")],
    )
    resolve_internal([claim], [SelectedFile(path="/tmp/draft", display="draft.md")], Checkout(None), 1_000)
    result = triage(claim, over_limit=False)
    assert result.verdict == Verdict.not_verified  # type: ignore[union-attr]
    assert result.reason == (  # type: ignore[union-attr]
        "internal link not resolved: set site-root or site-url (no checkout to read the link in: give the "
        "draft's root)"
    )


# --- reading a page of the checkout ---------------------------------------------------------------


def test_a_markdown_page_is_read_as_its_reader_sees_it_the_anchor_s_section_only() -> None:
    page = (
        "---\ntitle: Config\n---\n\nimport Tabs from '@theme/Tabs';\n\n# Configuration\n\n"
        "## Timeout {#timeout}\n\nThe default timeout is **30 seconds** ([why](https://example.org)).\n\n"
        "<Tabs><TabItem value='py'>Set `timeout=30`.</TabItem></Tabs>\n\n## Proxies\n\nUse a proxy.\n"
    )
    content = markdown_content(page, "timeout", True)
    assert content.text == "Timeout\nThe default timeout is 30 seconds (why).\nSet timeout=30."
    assert content.title == "Timeout"
    assert "Proxies" in markdown_content(page, "", True).text  # no anchor: the whole page


def test_a_notebook_is_a_page_its_markdown_cells_read_its_labels_known(tmp_path: Path) -> None:
    # tum-pbs/pbdl-book: diffphys-discuss.md cites {doc}`diffphys-code-sol`, a notebook
    notebook = {
        "cells": [
            {
                "cell_type": "markdown",
                "source": ["(sol-intro)=\n", "# Reducing errors\n", "\n", "It halves the error.\n"],
            },
            {"cell_type": "code", "source": ["print('a code cell is no prose')\n"], "outputs": []},
            {"cell_type": "markdown", "source": "## Training\n\nIt trains for 10 epochs."},
        ],
        "nbformat": 4,
    }
    root = tree(
        tmp_path,
        {
            "diffphys-discuss.md": "# Discussion\n",
            "diffphys-code-sol.ipynb": json.dumps(notebook),
            "broken.ipynb": "{",
        },
    )
    place = "diffphys-discuss.md"
    assert follow(root, "diffphys-code-sol", place) == "diffphys-code-sol.ipynb"
    assert follow(root, "#sol-intro", place) == "diffphys-code-sol.ipynb#sol-intro"  # the book's label
    found = read_page(root, "diffphys-code-sol.ipynb#training", 1_000_000)
    assert not isinstance(found, FetchedSource)
    info, read, _ = found
    assert info.content_type == "text/markdown"
    assert read().text == "Training\nIt trains for 10 epochs."
    whole = read_page(root, "diffphys-code-sol.ipynb", 1_000_000)
    assert not isinstance(whole, FetchedSource)
    assert "print" not in whole[1]().text and "It halves the error." in whole[1]().text
    # a notebook that is not JSON (or cut at the byte cap) reads as no text, never as its JSON
    broken = read_page(root, "broken.ipynb", 1_000_000)
    assert not isinstance(broken, FetchedSource)
    assert broken[1]().text == ""


# --- the settings ------------------------------------------------------------------------------


def test_site_settings_validate_and_a_config_file_may_name_them_where_the_workflow_does_not() -> None:
    assert Settings(site_root="docs, .").site_root == ["docs", "."]
    for bad in ("../elsewhere", "/etc"):
        with pytest.raises(ValueError, match="not a folder of the checkout"):
            Settings(site_root=bad)
    with pytest.raises(ValueError, match="not in allowed-domains"):
        Settings(site_url="https://docs.example.org", allowed_domains=["example.com"])
    ceiling = Settings(allowed_domains=["example.org"])
    narrowed = narrowing(
        ceiling, {"site-url": "https://docs.example.org", "site-root": "docs"}, ".citecheck.toml"
    )
    assert (narrowed.settings.site_url, narrowed.settings.site_root) == ("https://docs.example.org", ["docs"])
    # a site outside the workflow's allowlist cannot be named by the repository's file
    with pytest.raises(ConfigError, match="not in allowed-domains"):
        narrowing(ceiling, {"site-url": "https://evil.example.net"}, ".citecheck.toml")
    # the workflow's value stands, and the file's is noted
    workflow = Settings(site_url="https://docs.example.org", allowed_domains=["example.org"])
    kept = narrowing(workflow, {"site-url": "https://other.example.org"}, ".citecheck.toml")
    assert kept.settings.site_url == "https://docs.example.org"
    assert kept.notes == ["site_url in .citecheck.toml is ignored: the workflow's site-url applies"]
