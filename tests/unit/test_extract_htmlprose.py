"""Prose written as HTML blocks (citecheck.extract.htmlprose), each case from a real document: its
repository is named (the realdocs-dev ones are in ../shared/eval/realdocs-dev/corpus, the held-out
ones in tests/data/realdocs-heldout*)."""

from __future__ import annotations

from citecheck.extract.document import extract_text
from citecheck.extract.htmlprose import read_prose
from citecheck.models import Claim, ClaimKind

K = ClaimKind


def claims(md: str) -> list[Claim]:
    return extract_text(md, "post.md").claims


def urls(c: Claim) -> list[str | None]:
    return [cit.url for cit in c.citations]


# rbind/simplystats, content/post/2012-05-24-how-do-we-evaluate-statisticians-working-in-genomics.md
# (tests/data/realdocs-heldout17): a Tumblr post imported through WordPress, every paragraph a
# <p class="MsoNormal"> block.
SIMPLYSTATS = """---
title: How do we evaluate statisticians working in genomics?
---
<p class="MsoNormal">
  But we really should not be counting papers blindly. There are now a handful of us that are \
full professors and most of us are more than willing to help out with, for example, \
<a href="http://simplystatistics.tumblr.com/post/12181264937/advice-on-promotion-letters-bleg" \
target="_blank">promotion letters</a>.
</p>

<p class="MsoNormal">
  So why don&#8217;t we publish in statistical journals? The fear of getting scooped due to the \
<a href="http://simplystatistics.tumblr.com/post/17317636444/an-example" target="_blank">slow \
turnaround of stats journals</a> is only one reason.
  New technologies that quickly became widely used (microarrays in 2000 and nextgen sequencing \
today) created a need for data analysis methods among large groups of biologists.
</p>
"""


def test_html_paragraphs_are_prose_with_their_links_simplystats() -> None:
    found = claims(SIMPLYSTATS)
    by_text = {c.text: c for c in found}
    promotion = by_text[
        "There are now a handful of us that are full professors and most of us are more than willing"
        " to help out with, for example, promotion letters."
    ]
    assert urls(promotion) == [
        "http://simplystatistics.tumblr.com/post/12181264937/advice-on-promotion-letters-bleg"
    ]
    assert K.hyperlinked in promotion.kinds
    # the line the sentence's text is on, and its column there (the paragraph's text is indented)
    assert (promotion.line, promotion.column) == (5, 56)
    fear = by_text[
        "The fear of getting scooped due to the slow turnaround of stats journals is only one reason."
    ]
    assert urls(fear) == ["http://simplystatistics.tumblr.com/post/17317636444/an-example"]
    assert fear.line == 9
    dated = by_text[
        "New technologies that quickly became widely used (microarrays in 2000 and nextgen sequencing"
        " today) created a need for data analysis methods among large groups of biologists."
    ]
    assert K.temporal in dated.kinds and dated.citations == []
    assert (dated.line, dated.column) == (10, 3)
    # a question is no claim, in HTML as in Markdown; nothing of the markup leaks into a claim
    assert not any("?" in c.text or "<" in c.text or "&#" in c.text for c in found)


def test_entities_are_decoded_and_whitespace_collapsed() -> None:
    # rbind/simplystats (same post): &#8217; and &#8230; in running text; GSA/digitalgov.gov's
    # &amp; and &mdash;
    [block] = read_prose(
        "<p>\n  the paper&#8217;s main topic &amp; its   journal&#8230; it&#8217;s not east &mdash;"
        " 5&nbsp;papers</p>"
    )
    assert block.text == "the paper’s main topic & its journal… it’s not east — 5 papers"


# rbind/simplystats, content/post/2014-10-13-as-an-applied-statistician-i-find-the-frequentists-versus-
# bayesians-debate-completely-inconsequential.md (held-out 17): an embedded tweet with a blank line
# inside it, which ends CommonMark's HTML block before the attribution.
TWEET = (
    "Here is my tweet about it:\n\n"
    '<blockquote class="twitter-tweet" lang="en">\n'
    "  <p>\n"
    "    NYT wants to create a battle b/w Bayesians and Frequentists but it's all crap. Statisticians"
    ' develop techniques. <a href="http://t.co/736gbqZGuq">http://t.co/736gbqZGuq</a>\n'
    "  </p>\n"
    "  \n"  # a line of spaces: a blank line, which ends CommonMark's HTML block
    "  <p>\n"
    '    — Roger D. Peng (@rdpeng) <a href="https://twitter.com/rdpeng/status/516739602024267776">'
    "September 30, 2014</a>\n"
    "  </p>\n"
    "</blockquote>\n"
    '<script async src="//platform.twitter.com/widgets.js" charset="utf-8"></script>\n'
)


def test_a_tweet_is_an_attributed_quote_simplystats() -> None:
    found = claims(TWEET)
    first = found[0]
    assert first.text == "NYT wants to create a battle b/w Bayesians and Frequentists but it's all crap."
    assert K.quote in first.kinds
    assert urls(first) == ["https://twitter.com/rdpeng/status/516739602024267776"]
    assert first.line == 5
    # the attribution is no claim of its own, and its date states nothing
    assert not any("Roger D. Peng" in c.text for c in found)
    assert all(K.quote in c.kinds for c in found)


def test_a_one_line_tweet_is_an_attributed_quote_prometheus_blog() -> None:
    # prometheus/docs, blog/posts/2016-09-04-promcon-2016-its-a-wrap.md (held-out 4)
    md = (
        '<blockquote class="twitter-tweet" data-lang="en"><p lang="en" dir="ltr">Prometheus Design and'
        ' Philosophy - Why It Is the Way It Is by <a href="https://twitter.com/juliusvolz">@juliusvolz</a>'
        ' <a href="https://twitter.com/hashtag/promcon2016?src=hash">#promcon2016</a></p>&mdash;'
        ' PrometheusMonitoring (@PrometheusIO) <a href="https://twitter.com/PrometheusIO/status/'
        '768715959926489088">August 25, 2016</a></blockquote>\n'
        '<script async src="//platform.twitter.com/widgets.js" charset="utf-8"></script>\n'
    )
    [c] = claims(md)
    assert K.quote in c.kinds
    assert "https://twitter.com/PrometheusIO/status/768715959926489088" in urls(c)
    assert "PrometheusMonitoring" not in c.text


def test_a_testimonial_without_a_dash_credit_is_plain_prose_18f() -> None:
    # 18F/18f.gsa.gov, content/posts/2021-04-27-we_asked_our_coworkers_why_did_you_join_18f.md
    # (realdocs-dev): "- Name, role" is no attribution in Markdown either (it would be a list item)
    md = (
        '<blockquote class="testimonial-blockquote">\n'
        "I was a contracting officer for about 15 years before joining 18F. I was growing frustrated"
        " by the status quo.\n"
        "<span>- Erin Zimmer Strenio, Content Strategist </span>\n"
        "</blockquote>\n"
    )
    [c] = claims(md)
    assert c.text == "I was a contracting officer for about 15 years before joining 18F."
    assert K.quote not in c.kinds and K.statistic in c.kinds


def test_an_em_dash_credit_on_the_quotations_last_line_attributes_it() -> None:
    # 18F/18f.gsa.gov's testimonial layout with the credit written as a dash
    md = (
        "<blockquote>\n"
        "I spent two decades as an educator. The work of an educator is a service paid forward.\n"
        '<span>&mdash; <a href="https://example.gov/team/ann">Ann Lee</a>, Designer</span>\n'
        "</blockquote>\n"
    )
    found = claims(md)
    assert [c.text for c in found] == [
        "I spent two decades as an educator.",
        "The work of an educator is a service paid forward.",
    ]
    assert all(K.quote in c.kinds and urls(c) == ["https://example.gov/team/ann"] for c in found)


def test_code_scripts_comments_headings_and_images_give_nothing() -> None:
    md = (
        "<pre>curl https://example.com/install.sh  # installs 3 files in 2020</pre>\n\n"
        '<script>var stats = "<p>Sales grew 40% in 2020.</p>";</script>\n\n'
        "<!-- <p>In 2019 we served 12 million users.</p> -->\n\n"
        "<h2>Released in 2021 with 40% fewer bugs</h2>\n\n"
        '<p><img alt="Sales grew 40% in 2020" src="chart.png"></p>\n\n'
        "<details><summary>Changed in 2020: 40% faster</summary></details>\n\n"
        '<div align="center"><a href="https://example.com/"><img src="badge.svg"></a><br><hr></div>\n'
    )
    assert claims(md) == []


def test_inline_code_is_masked_in_html_prose() -> None:
    # a figure in code is no fact: the sentence states nothing checkable
    assert claims("<p>Set <code>retries = 40</code> in the configuration file.</p>\n") == []


def test_a_site_path_is_an_internal_citation_and_mailto_no_source() -> None:
    md = (
        '<p>The survey ran in 2015 (see <a href="/docs/survey/">our notes</a>, or write to'
        ' <a href="mailto:team@example.gov">the team</a>).</p>\n'
    )
    [c] = claims(md)
    assert [(x.kind, x.identifier, x.url) for x in c.citations] == [("internal", "/docs/survey/", None)]
    assert K.temporal in c.kinds


def test_html_list_items_are_prose_opensource_guide() -> None:
    # github/opensource.guide, _articles/finding-users.md (held-out 5) writes some lists as <ul>
    md = (
        "<ul>\n"
        '  <li>In 2016, <a href="https://octoverse.github.com/">GitHub reported</a> 5.8 million'
        " active users.</li>\n"
        "  <li>Tell people about it</li>\n"
        "</ul>\n"
    )
    [c] = claims(md)
    assert c.line == 2 and urls(c) == ["https://octoverse.github.com/"]
    assert c.text == "In 2016, GitHub reported 5.8 million active users."


def test_a_div_around_a_markdown_table_changes_nothing_deepseek() -> None:
    # deepseek-ai/DeepSeek-V3, README.md (realdocs-dev): a centred Markdown table
    table = (
        "| **Model** | **#Total Params** | **Context Length** |\n"
        "| :------------: | :------------: | :------------: |\n"
        "| DeepSeek-V3-Base | 671B | 128K |\n"
    )
    plain = [(c.text, c.line, c.kinds) for c in claims("\n\n" + table + "\n\n")]
    wrapped = [(c.text, c.line, c.kinds) for c in claims('<div align="center">\n\n' + table + "\n</div>\n")]
    assert plain == wrapped and plain


# GSA/digitalgov.gov, content/news/2016/08/2016-08-15-celebrating-the-18th-anniversary-of-section-508-
# rehabilitation-act.md (realdocs-dev): an HTML table with a <th> header row and <th> row headers.
SECTION_508 = """<table border="1" width="100%">
  <tr>
    <th style="text-align: center" scope="col">
      Agency<br /> Name
    </th>
    <th style="text-align: center" scope="col">
      Feb<br /> 2016
    </th>
  </tr>
  <tr>
    <th scope="row" align="left">
      ACF
    </th>
    <td style="background: #c4f8af;text-align: right">
      94.59%
    </td>
  </tr>
</table>
"""


def test_an_html_table_row_is_read_as_a_markdown_row_digitalgov() -> None:
    [c] = claims(SECTION_508)
    assert c.text == "ACF | 94.59%"
    assert (c.line, c.column) == (12, 7)
    assert K.statistic in c.kinds


def test_an_html_tables_first_row_is_its_header_digitalgov() -> None:
    # the same site's 2016-01-05-digging-into-the-data-of-our-customer-survey.md: no <th> at all
    md = (
        "<table>\n<tr><td>Score</td><td>2015 Ratings</td></tr>\n"
        "<tr><td>Very Good (85+)</td><td>38%</td></tr>\n</table>\n"
    )
    assert [c.text for c in claims(md)] == ["Very Good (85+) | 38%"]


def test_a_superscript_note_marker_leaves_the_text_awesome_falsehood() -> None:
    # kdeldycke/awesome-falsehood, readme.md (held-out 9): a quotation's note marker in HTML
    md = (
        '<p align="center">\n'
        "  <i>The logic of the world is prior to all truth and falsehood, wrote Wittgenstein in 1914."
        "</i><br>\n"
        '  — Ludwig Wittgenstein<sup id="intro-quote-ref"><a href="#intro-quote-def">[1]</a></sup>\n'
        "</p>\n\n"
        '1. <a name="intro-quote-def"></a>[Notebooks 1914-1916](https://openlibrary.org/isbn/0226904296)\n'
    )
    first = claims(md)[0]
    assert "[1]" not in first.text and first.text.endswith("Ludwig Wittgenstein")
    assert urls(first) == ["https://openlibrary.org/isbn/0226904296"]


def test_malformed_html_gives_sensible_text_opensciencemooc() -> None:
    # OpenScienceMOOC/Module-1-Open-Principles, content_development/MAIN.md (realdocs-dev): a tag
    # cut off by the block's end; and a "<" that opens no tag, an unclosed <p>, a stray end tag
    cut = read_prose(
        '<p align="center">Image license: CC0 1.0 Universal; Patrick Hochstenbach'
        ' <a href="https://twitter.com/x" target=""'
    )
    assert [b.text for b in cut] == ["Image license: CC0 1.0 Universal; Patrick Hochstenbach"]
    found = read_prose("<p>In 2020, a < b held for 3 <b>runs</span></div>\n<p>Next <a <a <a paragraph")
    assert [b.text for b in found] == ["In 2020, a < b held for 3 runs", "Next <a <a"]
    assert read_prose("<p>unclosed 'quote <a href=\"x>never ends") != []


def test_citecheck_markers_and_kramdown_blocks_keep_working() -> None:
    md = (
        "<!-- citecheck-disable -->\n\n"
        "<p>In 2019 we served 12 million users.</p>\n\n"
        "<!-- citecheck-enable -->\n\n"
        "<!-- citecheck-ignore -->\n"
        "<p>In 2018 we served 10 million users.</p>\n\n"
        "<p>In 2017 we served 8 million users.</p>\n"
    )
    assert [c.text for c in claims(md)] == ["In 2017 we served 8 million users."]
    # kramdown's markdown="1" pull quote (GitHub Pages) is read as before: its lines are Markdown
    kramdown = '<div markdown="1">\nSales grew **40%** in 2020.\n<br>\n— [Jo](https://e.com/jo)\n</div>\n'
    [c] = claims(kramdown)
    assert c.text == "Sales grew 40% in 2020." and urls(c) == ["https://e.com/jo"]


def test_positions_point_into_the_html() -> None:
    [block] = read_prose('<ul>\n  <li>one <a href="https://e.com/">two</a>\n  three</li>\n</ul>')
    assert block.text == "one two three"
    assert block.links[0].start == 4 and block.links[0].end == 7 and block.links[0].href == "https://e.com/"
    # (text offset, 0-based line, 0-based column) of each word
    assert list(zip(block.seg_v, block.seg_line, block.seg_col, strict=True)) == [
        (0, 1, 6),
        (4, 1, 35),
        (8, 2, 2),
    ]
    assert block.breaks == [8]
