"""The citation-form registry (citecheck.extract.citations) and the arXiv and PubMed forms.

Real snippets are named by their repository; the realdocs-dev ones are copied from
../shared/eval/realdocs-dev/corpus.
"""

from __future__ import annotations

import pytest

from citecheck.extract.citations import FORMS, parse_gate, text_without_citations, urls_in, web_url
from citecheck.extract.document import extract_text
from citecheck.extract.forms import arxiv, pubmed
from citecheck.extract.kinds import detect_kinds
from citecheck.models import Citation, CitationKind, Claim, ClaimKind

K = ClaimKind


def claims(md: str) -> list[Claim]:
    return extract_text(md, "doc.md").claims


def one(md: str) -> Claim:
    found = claims(md)
    assert len(found) == 1, [c.text for c in found]
    return found[0]


# --- the registry -----------------------------------------------------------------------------

# One written sample per registered form, with no other citation form, fact or markup in it:
# a new form must add its sample here, and the parse gate must let it through.
SAMPLES = {
    "link": "Read about <a href='https://example.com/x'>it</a>",
    "reference": "The reference [guide] explains it",
    "internal": "The [reference](../reference/config.md#timeout) explains it",
    "footnote": "Inline^[a note] explains it",
    "numbered": "As shown earlier [3] it works",
    "superscript": "As shown earlier<sup>3</sup> it works",
    "author_year": "As shown (Smith, 2020a) it works",
    "bare_url": "As shown at https://example.com/x it works",
    "doi": "As shown by doi:10.1000/xyz123 it works",
    "arxiv": "As shown by arXiv:2301.01234 it works",
    "pubmed": "As shown by PMID: 12345678 it works",
    "pandoc": "As shown [@smith2020] it works",
    "role": "As shown {cite:p}`smith2020` it works",
    "xref_role": "As shown in {doc}`physgrad` it works",
    "isbn": "As shown in ISBN 978-0-13-468599-1 it works",
}


def test_every_form_has_a_sample() -> None:
    assert set(SAMPLES) == {f.name for f in FORMS}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_parse_gate_admits_every_registered_form(name: str) -> None:
    assert parse_gate().search(SAMPLES[name]) is not None


def test_parse_gate_skips_prose_without_a_form() -> None:
    assert parse_gate().search("The team met and talked about the plan for the release") is None


def test_gate_derived_form_is_never_dropped() -> None:
    # Nothing else in this paragraph passes the parse gate (no link, URL, DOI, bracket or fact
    # kind): before the gate was derived from the registry, a new form here was silently lost.
    cit = one("Class imbalance limits these metrics (PMID: 25738806).").citations[0]
    assert cit.kind == CitationKind.pmid
    assert cit.url == "https://pubmed.ncbi.nlm.nih.gov/25738806/"


def test_running_text_forms_are_found_in_registry_order() -> None:
    # A DOI inside a URL belongs to the URL (bare_url is registered before doi).
    c = one("It fell 20% (https://example.com/10.1000/x).")
    assert [cit.kind for cit in c.citations] == [CitationKind.bare_url]


# --- arXiv ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written, identifier",
    [
        ("arXiv:2301.01234", "2301.01234"),
        ("arXiv:2301.01234v2", "2301.01234v2"),
        ("arXiv:hep-th/9901001", "hep-th/9901001"),
        ("arXiv:math.GT/0309136", "math.GT/0309136"),
        ("arXiv:0704.0001", "0704.0001"),
        ("arxiv:1811.12808", "1811.12808"),  # manubot/pandoc keys are lower case
        ("arXiv: 1709.06560", "1709.06560"),
        ("arxiv.org/abs/2207.07048", "2207.07048"),
        ("https://arxiv.org/abs/2301.01234v2", "2301.01234v2"),
        ("http://arxiv.org/abs/hep-th/9602043", "hep-th/9602043"),
        ("https://export.arxiv.org/abs/1706.03762", "1706.03762"),
    ],
)
def test_arxiv_forms_normalised(written: str, identifier: str) -> None:
    cit = one(f"A study of 300 projects ({written}) found this.").citations[0]
    assert cit.kind == CitationKind.arxiv
    assert cit.identifier == identifier
    assert cit.url == f"https://arxiv.org/abs/{identifier}"
    assert cit.raw == written


@pytest.mark.parametrize(
    "text",
    [
        "See arXiv:2301.012345 for the next id scheme",  # six digits: not an arXiv id
        "The https://arxiv.org/list/cs.LG/recent page lists new papers",  # not a paper
        "Data are on osf.io/preprints/socarxiv/d9bme now",  # SocArXiv, another server
        "The DOI 10.48550/arXiv.2301.01234 names the same paper",  # a DOI, not an arXiv form
    ],
)
def test_not_arxiv(text: str) -> None:
    assert [h.raw for h in arxiv.find(text)] == []


def test_arxiv_pandoc_keys_deep_rules() -> None:
    # Benjamin-Lee/deep-rules, content/03.when-to-use-dl.md (manubot keys, one of them with a
    # version and one spelled "arXiv"): each key becomes a citation of the abstract page.
    md = (
        "Still, it has been found that, under certain circumstances, deep learning can be considered "
        "for datasets with only one hundred samples per class [@arxiv:1511.06348].\n\n"
        "One other area of machine learning that has been revolutionized by deep learning is "
        "reinforcement learning, which is concerned with training agents to interact with an "
        "environment [@arXiv:1709.06560].\n"
    )
    first, second = claims(md)
    assert first.kinds == [K.statistic, K.hyperlinked]
    assert [(c.kind, c.url) for c in first.citations] == [
        (CitationKind.arxiv, "https://arxiv.org/abs/1511.06348")
    ]
    # A sentence with no fact kind is a claim because it cites the paper.
    assert second.kinds == [K.hyperlinked]
    cit = second.citations[0]
    assert (cit.raw, cit.url) == ("@arXiv:1709.06560", "https://arxiv.org/abs/1709.06560")
    # The bracket is a marker: it leaves the claim's text, as a footnote mark does.
    assert second.text.endswith("interact with an environment.")
    assert "[@" not in first.text and cit.start is None


def test_arxiv_pdf_link_failed_ml() -> None:
    # kennethleungty/Failed-ML, README.md: a table row whose link is an arXiv PDF. The link stays a
    # link (its text is what the row says) to the PDF as written: the full text is the source.
    md = (
        "| Title | Description |\n| --- | --- |\n"
        "| [Leakage and the Reproducibility Crisis in ML-based Science]"
        "(https://arxiv.org/pdf/2207.07048.pdf) | A team at Princeton University found 20 reviews "
        "across 17 scientific fields that discovered significant errors (e.g., data leakage, no "
        "train-test split) in 329 papers that use ML-based science |\n"
    )
    cit = one(md).citations[0]
    assert cit.kind == CitationKind.link
    assert cit.url == "https://arxiv.org/pdf/2207.07048.pdf"


def test_arxiv_html_link_deepseek() -> None:
    # deepseek-ai/DeepSeek-V3, README.md: the paper link is an HTML anchor to the PDF (kept as written).
    md = (
        'The model is described in the <a href="https://arxiv.org/pdf/2412.19437"><b>Paper Link</b></a> '
        "published in 2024.\n"
    )
    assert one(md).citations[0].url == "https://arxiv.org/pdf/2412.19437"


def test_arxiv_old_style_link_in_reference_list_nlab() -> None:
    # ncatlab/nlab-content, pages/6681.md: a reference entry whose link text is the old-style id
    # and whose URL is http://arxiv.org/abs/…; the author-year citation resolves to the abstract.
    md = (
        "The correspondence was first proposed in late 1997 (Maldacena, 1998).\n\n"
        "## References\n\n"
        "* [[Juan Maldacena]], _The Large N limit of superconformal field theories and supergravity_, "
        "Adv. Theor. Math. Phys. 2:231, 1998 ([hep-th/9711200](http://arxiv.org/abs/hep-th/9711200))\n"
    )
    doc = extract_text(md, "doc.md")
    assert doc.references[0].urls == ["https://arxiv.org/abs/hep-th/9711200"]
    cit = doc.claims[0].citations[0]
    assert cit.kind == CitationKind.author_year
    assert cit.url == "https://arxiv.org/abs/hep-th/9711200"


def test_arxiv_id_in_text_is_not_a_figure() -> None:
    sentence = "arXiv:2301.01234 shows that larger models memorise more."
    # the digits alone would read as a count
    assert K.statistic in detect_kinds(sentence.removeprefix("arXiv:"))
    assert one(sentence).kinds == [K.hyperlinked]


def test_arxiv_id_as_link_text_is_not_a_figure() -> None:
    md = "[arXiv:2301.01234](https://arxiv.org/abs/2301.01234) shows that larger models memorise more."
    c = one(md)
    assert c.kinds == [K.hyperlinked]
    assert [(cit.kind, cit.url) for cit in c.citations] == [
        (CitationKind.link, "https://arxiv.org/abs/2301.01234")
    ]


def test_arxiv_in_code_is_not_a_citation() -> None:
    assert claims("Run `fetch arXiv:2301.01234` to get it.") == []


def test_arxiv_text_fragment_kept() -> None:
    url = "https://arxiv.org/abs/1706.03762#:~:text=attention%20mechanisms"
    cit = one(f"The paper [says so]({url}) in 2017.").citations[0]
    assert cit.url == url
    assert cit.text_fragment == "attention mechanisms"


# --- PubMed --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written, pmid",
    [
        ("PMID: 12345678", "12345678"),
        ("PMID 12345678", "12345678"),
        ("PMID:25738806", "25738806"),
        ("pmid:25738806", "25738806"),  # manubot/pandoc key
        ("pubmed.ncbi.nlm.nih.gov/12345678", "12345678"),
        ("pubmed.ncbi.nlm.nih.gov/12345678/", "12345678"),
        ("https://pubmed.ncbi.nlm.nih.gov/36599349/", "36599349"),
        ("https://www.ncbi.nlm.nih.gov/pubmed/25637115", "25637115"),
        ("http://www.ncbi.nlm.nih.gov/pubmed/21088025/", "21088025"),
    ],
)
def test_pubmed_forms_normalised(written: str, pmid: str) -> None:
    cit = one(f"A study of 300 patients ({written}) found this.").citations[0]
    assert cit.kind == CitationKind.pmid
    assert cit.identifier == pmid
    assert cit.url == f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"


@pytest.mark.parametrize(
    "text",
    [
        "PMIDs 12345678 and more are listed",  # a plural label: no id follows
        "PMID: 123456789 is too long for a PubMed id",
        "See https://www.ncbi.nlm.nih.gov/pubmed/?term=tn-seq for the search",  # a search, not a record
        "The HPMID 1234 field",
    ],
)
def test_not_pubmed(text: str) -> None:
    assert [h.raw for h in pubmed.find(text)] == []
    assert all(cit.kind != CitationKind.pmid for c in claims(text + " in 2020.") for cit in c.citations)


def test_pubmed_pandoc_key_deep_rules() -> None:
    # Benjamin-Lee/deep-rules, content/09.overfitting.md: before the PubMed form this sentence was
    # not a claim at all (no fact kind, and the key was not a citation).
    md = (
        "Additionally, many conventional metrics for classification (for example, area under the "
        "receiver operating characteristic curve) have limited utility in cases of extreme class "
        "imbalance [@pmid:25738806].\n"
    )
    c = one(md)
    assert c.kinds == [K.hyperlinked]
    assert [(cit.kind, cit.identifier, cit.url) for cit in c.citations] == [
        (CitationKind.pmid, "25738806", "https://pubmed.ncbi.nlm.nih.gov/25738806/")
    ]


def test_pubmed_legacy_link_bssw() -> None:
    # betterscientificsoftware/bssw.io, Articles/Blog/Covid19WorkstationCleanliness.md: the reference
    # entry links the older www.ncbi.nlm.nih.gov/pubmed/ URL (the list's <sup> markup simplified to
    # a numbered list); the numbered citation resolves to the canonical record page.
    md = (
        "On average, people touch their face 23 times each hour [20].\n\n"
        "## References\n\n"
        "20. [Face touching study](https://www.ncbi.nlm.nih.gov/pubmed/25637115)\n"
    )
    cit = one(md).citations[0]
    assert cit.kind == CitationKind.numbered
    assert cit.url == "https://pubmed.ncbi.nlm.nih.gov/25637115/"


def test_pmid_is_not_a_year() -> None:
    sentence = "The first report, PMID: 1990, described the syndrome."
    assert K.temporal in detect_kinds(sentence)  # the id alone would read as a year
    c = one(sentence)
    assert c.kinds == [K.hyperlinked]
    blanked = text_without_citations(c.text, c.citations)
    assert blanked == "The first report,           , described the syndrome."


def test_pubmed_in_footnote_body() -> None:
    md = (
        "Face touching is frequent.[^1] It happened 23 times an hour.\n\n[^1]: Kwok et al., PMID: 25637115.\n"
    )
    cits = [cit for c in claims(md) for cit in c.citations]
    assert {(cit.kind, cit.url) for cit in cits} == {
        (CitationKind.footnote, "https://pubmed.ncbi.nlm.nih.gov/25637115/")
    }


# --- URLs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "href, url",
    [
        ("https://arxiv.org/pdf/2207.07048.pdf", "https://arxiv.org/pdf/2207.07048.pdf"),
        ("https://arxiv.org/abs/2207.07048v1", "https://arxiv.org/abs/2207.07048v1"),
        ("www.ncbi.nlm.nih.gov/pubmed/25637115", "https://pubmed.ncbi.nlm.nih.gov/25637115/"),
        ("http://dx.doi.org/10.1000/xyz123", "https://doi.org/10.1000/xyz123"),
        ("https://example.com/a", "https://example.com/a"),
        ("mailto:a@example.com", None),
        ("../relative.md", None),
    ],
)
def test_web_url_canonical(href: str, url: str | None) -> None:
    assert web_url(href) == url


def test_urls_in_reference_text() -> None:
    # Registry order: URLs, then DOIs, then arXiv ids, then PMIDs; each once.
    text = (
        "Vaswani et al. Attention is all you need. arXiv:1706.03762; "
        "https://arxiv.org/abs/1706.03762 doi:10.5555/3295222 PMID: 12345678"
    )
    assert urls_in(text) == [
        "https://arxiv.org/abs/1706.03762",
        "https://doi.org/10.5555/3295222",
        "https://pubmed.ncbi.nlm.nih.gov/12345678/",
    ]


# --- text_without_citations ----------------------------------------------------------------------


def _cit(kind: CitationKind, raw: str, start: int | None = None, end: int | None = None) -> Citation:
    return Citation(raw=raw, kind=kind, start=start, end=end, url="https://example.com/")


def test_text_without_citations_blanks_markers_and_keeps_link_text() -> None:
    text = "[93% of respondents] said so in 2020 [3] (Smith, 2020), see https://ex.com/2019 now."
    cits = [
        _cit(CitationKind.link, "[93% of respondents](https://ex.com/s)", 0, 19),
        _cit(CitationKind.numbered, "[3]", 37, 40),
        _cit(CitationKind.bare_url, "https://ex.com/2019"),  # no offsets: found by its raw text
    ]
    out = text_without_citations(text, cits)
    assert len(out) == len(text)
    assert out == "[93% of respondents] said so in 2020                  , see                     now."


def test_text_without_citations_author_year_without_citation() -> None:
    # "(Smith, 2020)" is where a claim comes from even when no citation was kept for it.
    assert text_without_citations("It rose 5% (Smith, 2020).", []) == "It rose 5%              ."


def test_text_without_citations_arxiv_link_text() -> None:
    text = "arXiv:1911.01234 found 12 errors."
    cits = [_cit(CitationKind.link, "[arXiv:1911.01234](https://arxiv.org/abs/1911.01234)", 0, 16)]
    assert text_without_citations(text, cits) == "                 found 12 errors."


def test_text_without_citations_ignores_bad_offsets() -> None:
    text = "It grew 20% [3]."
    out = text_without_citations(text, [_cit(CitationKind.numbered, "[3]", 40, 50)])
    assert out == "It grew 20%    ."
