"""What is no claim, by its form: the skip rules, in one table (`SKIP_RULES`).

A sentence the walk found is a claim candidate when it carries a citation or a fact kind
(`citecheck.extract.kinds.detect_kinds`). A skip rule sets it aside when its *form* shows that
it asserts nothing: a question, a title or a link-only line, a pointer or a call to action, a
byline, a credit, a date stamp, a metadata line. Whether an assertion is a definition, a
description, an opinion or "not worth checking" is *meaning*: the model that already reads the
sentence decides it (the judge's `states_fact` → `no-fact`, never failing; or the opt-in
screen). So a rule whose `cited` is False never sets aside a sentence that carries a citation:
it only keeps an uncited sentence off the *Unsourced* list, where a miss loses a warning, not a
check.

Each rule names the form it matches and a real example; `bench/skiprules.py` counts, on every
labelled set, the real claims and the non-claims each one removes, cited and uncited apart
(docs/benchmarks.md has the table). A rule that removes a cited real claim on a labelled set is
no form rule: it goes. The walk records every sentence a rule set aside
(`ExtractedDocument.skipped`), so `citecheck extract --skipped` shows what was left out and why.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from citecheck.extract.phrases.boilerplate import (
    boilerplate_form,
    is_lead_in,
    is_listing,
    is_question,
    is_sentiment,
)
from citecheck.extract.phrases.grammar import (
    has_verb,
    is_full_sentence,
    links_its_predicate,
    names_a_change,
    reads_as_statement,
    tells_what_we_did,
)
from citecheck.extract.phrases.reader import addresses_reader, is_imperative_or_opinion
from citecheck.extract.phrases.unchecked import states_nothing_checkable
from citecheck.extract.urls import is_change_path, is_change_reference
from citecheck.extract.words import REPORTING
from citecheck.models import Citation, CitationKind, ClaimKind
from citecheck.models import ResolveStatus as RS


class LinkSpan(Protocol):
    """A link of the block's visible text (`citecheck.extract.block.Link`)."""

    start: int
    end: int
    citation: Citation | None


@dataclass
class Candidate:
    """A sentence as the skip rules read it: `text[start:end]` of its block."""

    text: str  # the block's visible text
    start: int
    end: int
    mask: str  # `text` with code spans and running-text citations blanked
    kind_mask: str  # `mask` with what is no fact blanked too (an author-year's year, TeX math)
    masked: Sequence[tuple[int, int]]  # the block's code and URL spans
    links: Sequence[LinkSpan]  # the links the sentence overlaps
    citations: Sequence[object]  # what it cites (Citation, a mention, a footnote label, …)
    mentions: int  # how many references it names ("(Author, 2018)", "[3]")
    kinds: list[ClaimKind]  # its fact kinds (empty before they are detected)
    first: bool  # the block's first sentence
    list_item: bool
    split: bool  # the block was split into sentences (a table row is one unit)
    quote: bool  # part of an attributed quotation

    @cached_property
    def sentence(self) -> str:
        return self.text[self.start : self.end]

    @cached_property
    def smask(self) -> str:
        return self.mask[self.start : self.end]

    @cached_property
    def form(self) -> str | None:
        """What `boilerplate_form` reads it as, once for every rule that asks (its kinds are
        known by then)."""
        return boilerplate_form(self.form_text, figure=self.has(ClaimKind.statistic))

    @cached_property
    def form_text(self) -> str:
        """The sentence as its form is read: without the attribution that holds its citation
        ("According to [Gartner](…), …", "[The WHO reports](…) that …") nor a citation in
        parentheses at its end ("… ([IEA](…))."). How a writer cites changes nothing of what the
        sentence is (issue 32: however the writer cites)."""
        return self.text[attribution_end(self) : citation_start(self)]

    @cached_property
    def outside(self) -> int:
        """Words outside its links."""
        return words_outside(self.smask, self.links, self.start, self.end)

    @property
    def cited(self) -> bool:
        return bool(self.citations)

    def has(self, *kinds: ClaimKind) -> bool:
        return any(k in self.kinds for k in kinds)


@dataclass(frozen=True)
class SkipRule:
    name: str
    form: str  # the form it matches, as the table in docs/benchmarks.md gives it
    example: str  # a real one: the Markdown as its repository has it
    source: str  # that repository
    cited: bool  # also sets aside a sentence that carries a citation
    matches: Callable[[Candidate], bool]


_WORD = re.compile(r"[A-Za-z]{2,}")
# What opens an attribution before its linked source, and what a linked source says before "that".
_ACCORDING = re.compile(r"\W*(?:according\s+to|per|as\s+reported\s+by)\s+(?:the\s+)?", re.IGNORECASE)
_AFTER_SOURCE = re.compile(r"\s*,\s*")
_SAYS = re.compile(rf"\b{REPORTING}$", re.IGNORECASE)
_THAT = re.compile(r"\s+that\s+", re.IGNORECASE)
_CLOSES = re.compile(r"\)\s*[.!?]?\s*$")


def _spoken(c: Candidate) -> list[LinkSpan]:
    return [lk for lk in c.links if lk.end > lk.start and c.start <= lk.start < c.end]


def attribution_end(c: Candidate) -> int:
    """Where the sentence starts after an attribution holding its first link ("According to
    [X](…), ", "[X reports](…) that "), or its start."""
    links = _spoken(c)
    if not links:
        return c.start
    first = links[0]
    opened = _ACCORDING.fullmatch(c.text, c.start, first.start)
    if opened is not None and (after := _AFTER_SOURCE.match(c.text, first.end, c.end)) is not None:
        return after.end()
    if (
        first.start == c.start
        and _SAYS.search(c.text, first.start, first.end)
        and (that := _THAT.match(c.text, first.end, c.end)) is not None
    ):
        return that.end()
    return c.start


def citation_start(c: Candidate) -> int:
    """Where the citation that ends the sentence starts: in parentheses ("… ([IEA](…)).") or an
    attribution ("…, [GitHub says](…)."); or its end."""
    links = _spoken(c)
    if links:
        last = links[-1]
        comma = _COMMA_BEFORE.search(c.text, c.start, last.start)
        if (
            comma is not None
            and _SAYS.search(c.text, last.start, last.end)
            and _ENDS.match(c.text, last.end, c.end)
        ):
            return comma.start()
    return _parenthesised_citation(c)


_COMMA_BEFORE = re.compile(r",\s*$")
_ENDS = re.compile(r"\s*[.!?]?\s*$")


def _parenthesised_citation(c: Candidate) -> int:
    """Where a citation in parentheses that ends the sentence starts ("… ([IEA](…)).": a link
    naming its source, not "([Originally posted on … 2020-07-27](…))"), or its end."""
    links = _spoken(c)
    if links:
        last = links[-1]
        before = c.text.rfind("(", c.start, last.start)
        if (
            before >= 0
            and not c.text[before + 1 : last.start].strip()
            and _CLOSES.match(c.text, last.end, c.end)
            and len(c.text[last.start : last.end].split()) <= _NAME_WORDS  # a name, not a note
        ):
            return before
    return c.end


def words_outside(smask: str, links: Sequence[LinkSpan], s: int, e: int) -> int:
    """How many words of a sentence stand outside its links (a masked code span or citation
    counts as one)."""
    count = 0
    prev = 0
    for lk in links:
        if lk.start < e and lk.end > s:
            count += len(_WORD.findall(smask, prev, max(lk.start - s, prev)))
            prev = max(prev, min(lk.end, e) - s)
    count += len(_WORD.findall(smask, prev))
    return count


# --------------------------------------------------------------------------- link-shaped forms


def _title(c: Candidate) -> bool:
    """A link-only list item or line that states nothing (no verb, Title Case, a how/why title)."""
    return (
        c.split
        and not c.quote
        and bool(c.links)
        and c.outside == 0
        and not reads_as_statement(c.sentence)
        and not tells_what_we_did(c.sentence)
        and not is_full_sentence(c.sentence)
    )


def _link_only(c: Candidate) -> bool:
    """Under three words of its own outside its links, and no verb among them or in its links,
    or a run of links: a navigation entry, a caption, a list of names ("[Docs](…) · [Blog](…)",
    "[@antfu](…) [@danielroe](…) … + many others!"). A phrase with words of its own is no
    navigation: a headline or a description ("Trials of oxford coronavirus vaccine begin in
    kenya.", "[Falsehoods about Time](…) - Seminal article on dates and time.") says something
    the model reads, and so does a short statement ("[Tilda Swinton](…) is a vegan."). A table
    row is a record when a cell holds words of its own ("Fields | class A | [7.0.0](…)"); a row
    of links is navigation."""
    if c.kinds or c.outside >= 3 or _links_its_predicate(c):
        return False
    if not c.split and _cells_with_words(c) >= 1:
        return False
    first = next((lk for lk in c.links if lk.end > lk.start), None)
    if first is not None and c.mask[c.start : first.start].rstrip().endswith(":"):
        return True  # a label and its link: "RFC PR: [rust-lang/rfcs#234](…)", "Website: [x](…)"
    return _names_in_a_row(c) or not has_verb(c.sentence)


_LINK_LIST = 3  # links in a sentence with under three words of its own: a list of them
_NAME_WORDS = 3  # a link's text of this many words or fewer names something


def _names_in_a_row(c: Candidate) -> bool:
    """Three links or more that name things ("[@antfu](…) [@danielroe](…) … + many others!"), not
    clauses linked one by one ("Homebrew [enforces initial tap trust …](…), [trusts …](…), …")."""
    texts = [c.text[lk.start : lk.end] for lk in c.links if lk.end > lk.start]
    short = sum(len(t.split()) <= _NAME_WORDS for t in texts)
    return len(texts) >= _LINK_LIST and short * 2 > len(texts)


_CELL = " | "  # how the walk joins a table row's cells


def _cells_with_words(c: Candidate) -> int:
    """How many cells of a table row hold a word outside its links."""
    count, pos = 0, c.start
    while pos <= c.end:
        stop = c.text.find(_CELL, pos, c.end)
        stop = c.end if stop < 0 else stop
        count += words_outside(c.mask[pos:stop], c.links, pos, stop) > 0
        pos = stop + len(_CELL)
    return count


def _links_its_predicate(c: Candidate) -> bool:
    """ "DataFusion [uses Bloom filters when available](…)": a statement whose verb is linked. Not
    a change log's "Homebrew [adds ask dependency plans](…/pull/22275)": a change's title."""
    first = next((lk for lk in c.links if lk.end > lk.start and lk.start >= c.start), None)
    return (
        first is not None
        and (first.citation is None or not is_change_path(first.citation.url or ""))
        and not c.text[first.end : c.end].rstrip().endswith(":")  # a lead-in: its link goes to what follows
        and links_its_predicate(c.text[c.start : first.start], c.text[first.start : first.end])
    )


def _reading_list_entry(c: Candidate) -> bool:
    """A linked title and its author-year reference, nothing else: "[Title](…) (Author, 2018)."."""
    return (
        c.split
        and not c.quote
        and bool(c.links)
        and c.mentions > 0
        and words_outside(c.kind_mask[c.start : c.end], c.links, c.start, c.end) <= c.mentions
    )


# What follows a linked title in a talk or reading list: its author ("by Jeremy Zaborowski").
_BY_AUTHOR = re.compile(r"\s*by\s+[A-Z@][\w.'’@-]*(?:\s+[A-Z][\w.'’-]*){0,4}\s*[.!]?\s*")


def _credited_title(c: Candidate) -> bool:
    """Linked titles and then their author, and nothing else: "[Lightning talk 10 tips in 5
    mins!](…) by Jean Yves Couet"."""
    if not c.split or c.quote:
        return False
    inside = [lk for lk in c.links if lk.start < c.end and lk.end > c.start]
    if not inside:
        return False
    tail = c.smask[min(inside[-1].end, c.end) - c.start :]
    return _BY_AUTHOR.fullmatch(tail) is not None and c.outside == len(_WORD.findall(tail))


def _ignored(c: Candidate) -> bool:
    """States no fact, and its author marked each of its citations `citecheck-ignore`."""
    return not c.kinds and all(
        isinstance(x, Citation) and x.resolve_status == RS.skipped for x in c.citations
    )


def _change_reference(c: Candidate) -> bool:
    """A change log's entry whose only citations are pull-request, issue or commit
    cross-references: "Fix X ([#123](…))"; its links to the project's own pages name what changed
    ("Fix: [brace-style](/docs/rules/brace-style) false positive …"), they are no other source."""
    refs = [x for x in c.citations if not (isinstance(x, Citation) and x.kind == CitationKind.internal)]
    return (
        not c.kinds
        and bool(refs)
        and all(isinstance(x, Citation) and is_change_reference(x.raw, x.url or "") for x in refs)
    )


def _change_title(c: Candidate) -> bool:
    """A change's title linked whole to its pull request: "- [Improve how rustdoc warnings are
    displayed](…/pull/44350)"."""
    return (
        not c.kinds
        and c.outside == 0
        and all(isinstance(x, Citation) and is_change_path(x.url or "") for x in c.citations)
        and names_a_change(c.sentence)
    )


# --------------------------------------------------------------------------- API references

# After a code span that opens a sentence: its type, "(optional)", platforms, then a dash or a
# colon ("`brew info` output is clearer: …" is a statement: "output" is no type).
_TYPE_WORD = (
    r"(?:string|number|boolean|bool|int|integer|float|double|object|array|function|any|null|undefined|list|"
    r"dict|str|bytes|buffer|void|\((?:optional|required|deprecated|experimental)\)|"
    r"(?i:macos|mas|windows|linux|ios|android)|"  # the platforms an entry is for
    r"[A-Z][\w.]*(?:<[^<>]{0,40}>)?(?:\[\])?|\w+\[\]|\|)"
)
_ENTRY_TAIL = re.compile(rf"\s*(?:{_TYPE_WORD}\s*){{0,5}}(?:[-–—]|:)\s")


def _api_entry(c: Candidate) -> bool:
    """An API reference's entry that names code and then describes it ("`securityScopedBookmarks`
    boolean (optional) macOS - Create …", "`zoomOut` - Zoom out the focused page by 10%")."""
    if not c.masked or c.has(ClaimKind.quote, ClaimKind.temporal, ClaimKind.comparative):
        return False
    for ms, me in c.masked:
        if ms == c.start:
            return _ENTRY_TAIL.match(c.text, me, c.end) is not None
    return False


# --------------------------------------------------------------------------- the table

_FIGURE = ClaimKind.statistic


def _boilerplate(name: str) -> Callable[[Candidate], bool]:
    return lambda c: c.form == name


# How far into a sentence that opens with a pointer verb its link may start and still be what
# the verb points at: "See [the docs](…)", "Check out the [release notes](…)", "Join us on
# [Slack](…)".
_POINTED_WORDS = 4


def _pointer(c: Candidate) -> bool:
    """A pointer or a call to action: "see …", "for more information, …", "X is available here";
    one that opens with its verb ("Follow [@x](…)", "Download [X](…)") only when the verb points
    at the link, not an instruction that ends with a pointer of its own ("Follow good security
    practices (see Section 7)."), which is cited advice."""
    form = c.form
    if form != "pointer-verb":
        return form == "pointer"
    if not _spoken(c):
        return True  # no link at all: "See the docs." cites nothing the verb could point at
    start, end = attribution_end(c), citation_start(c)
    pointed = next((lk for lk in _spoken(c) if start <= lk.start < end), None)
    if pointed is None:
        return False  # its links only say where it comes from: an instruction that cites
    return len(_WORD.findall(c.text, start, pointed.start)) <= _POINTED_WORDS


def _rule(
    name: str, form: str, source: str, example: str, cited: bool, matches: Callable[[Candidate], bool]
) -> SkipRule:
    return SkipRule(name, form, example, source, cited, matches)


# Checked in this order, which changes only the cost and which rule a skip is counted under:
# those that need no kinds first (`PRE_KINDS`), then the commonest. Each example is the real
# Markdown it was taken from (`tests/unit/test_skip_rules.py` runs it through the rule).
PRE_KINDS: tuple[SkipRule, ...] = (
    _rule(
        "question",
        'ends with "?"',
        "bitcoinops/bitcoinops.github.io",
        "[Does 0 OP_CSV force the spending transaction to signal BIP125 replaceability?]"
        "(https://bitcoin.stackexchange.com/q/119000)",
        True,
        lambda c: is_question(c.sentence),
    ),
    _rule(
        "title",
        "a line that is a link, or links and no word outside them, with no verb of a statement",
        "upgundecha/howtheysre",
        "* [Tracing SRE’s journey in Zalando - Part "
        "II](https://engineering.zalando.com/posts/2021/09/sre-journey-part2.html)",
        True,
        _title,
    ),
)
QUESTION, TITLE = PRE_KINDS
SKIP_RULES: tuple[SkipRule, ...] = (
    _rule(
        "pointer",
        'see / read / learn more / for more information / "X is available here" / join, follow, track us',
        "falcosecurity/falco-website",
        "Join the #falco channel on the [Kubernetes Slack](https://slack.k8s.io)",
        True,
        _pointer,
    ),
    _rule(
        "call-to-action",
        '"We encourage you to …", "We ask that you …", "Feel free to …", "Don\'t hesitate to …"',
        "microsoft/DeepSpeed",
        "We encourage you to report issues, contribute PRs, and join discussions on the "
        "[DeepSpeed GitHub](https://github.com/deepspeedai/DeepSpeed/) page.",
        True,
        _boilerplate("call-to-action"),
    ),
    _rule(
        "describes-resource",
        'a page, talk or folder as the subject of "explains / shows / contains …"',
        "the-pudding/data",
        "This folder contains all of the data used in The Pudding essay Laughing OnLine published in "
        "October 2019.",
        False,
        _boilerplate("describes-resource"),
    ),
    _rule(
        "thanks",
        "thanks and acknowledgements",
        "facebook/react-native-website",
        "We want to say thank you again to Callstack for hosting us in 2022.",
        False,
        _boilerplate("thanks"),
    ),
    _rule(
        "note-label",
        '"Disclaimer: …", "Note: …", "Updated …: …", "P.S.: …"',
        "golang/website",
        "Updated 2024-05-03: We unfortunately need to delay the release of this dataset.",
        False,
        _boilerplate("note-label"),
    ),
    _rule(
        "credit",
        'a credit line: "reviews by …", "photo by …", "image courtesy of …", "Source: …"',
        "RSE-Sheffield/RSE-Sheffield.github.io",
        "Photo by [Neil Shephard](https://github.com/ns-rse).",
        True,
        _boilerplate("credit"),
    ),
    _rule(
        "byline",
        'a byline: "By Jane Doe", "Oct 16, 2025 by …"',
        "carpentries/carpentries.org",
        "By [Chris Erdmann](https://twitter.com/libcce)",
        True,
        _boilerplate("byline"),
    ),
    _rule(
        "date-stamp",
        '"Posted on …", "Published in …", "Updated 2024-05-03", ten words at most',
        "the-pudding/data",
        "Published in April 2022.",
        True,
        _boilerplate("date-stamp"),
    ),
    _rule(
        "metadata",
        'a label and a short value: "Date: …", "Authors: …", "Status: …"',
        "swiftlang/swift-evolution",
        "* Authors: [Robert Widmann](https://github.com/codafi)",
        True,
        _boilerplate("metadata"),
    ),
    _rule(
        "meta-note",
        '"In this post, we look at …", "We will explore … more in Module 3", "Let\'s explore whether …"',
        "OpenScienceMOOC/Module-1-Open-Principles",
        "We will explore the links between Open Science and "
        "[reproducible research](https://doi.org/10.1038/533452a) more in Module 3.",
        True,
        _boilerplate("meta-note"),
    ),
    _rule(
        "copyright",
        "a copyright or licence line",
        "nunjucks (the form of a licence header)",
        "Copyright (c) 2012-2015, [James Long](https://jlongster.com)",
        True,
        _boilerplate("copyright"),
    ),
    _rule(
        "agenda",
        "an agenda's or a recording's time marks",
        "scikit-learn/blog",
        "- [00:00:00](https://www.youtube.com/watch?v=dyxS9KKCNzA&t=0s) Reshama introduces Data Umbrella",
        True,
        _boilerplate("agenda"),
    ),
    _rule(
        "addresses-reader",
        'an offer or invitation to the reader: "Welcome to …", "You can …", "If you …, …"',
        "publiccodenet/blog",
        "Welcome to our autumn newsletter, covering September - November 2020.",
        False,
        lambda c: not c.has(_FIGURE, ClaimKind.quote) and addresses_reader(c.sentence),
    ),
    _rule(
        "lead-in",
        "a line ending with a colon that introduces a quotation or a list",
        "simonw/til",
        "[Skypack](https://www.skypack.dev/) works the same way:",
        True,
        lambda c: not c.kinds and is_lead_in(c.sentence),
    ),
    _rule(
        "sentiment",
        'a person\'s feelings: "I really enjoyed …", "I love …"',
        "18F/18f.gsa.gov",
        "“I really enjoyed working on SBIR-EZ because it opened my eyes to a fascinating program for "
        "supporting small businesses.” - David Best",
        False,
        lambda c: not c.has(_FIGURE) and is_sentiment(c.sentence),
    ),
    _rule(
        "api-entry",
        "code, then its type and a dash or a colon: an API reference's or a coverage report's entry",
        "kubernetes/enhancements",
        "- `k8s.io/kubernetes/pkg/controller/resourceclaim`: 74.6%",
        False,
        _api_entry,
    ),
    _rule(
        "reading-list-entry",
        "a linked title and its author-year reference",
        "OpenScienceMOOC/Module-1-Open-Principles",
        "* [Open science is a research accelerator](https://www.nature.com/articles/nchem.1149) (Woelfle "
        "et al., 2011).",
        True,
        _reading_list_entry,
    ),
    _rule(
        "credited-title",
        "linked titles, then their author",
        "sveltejs/svelte.dev",
        "- [Svelte at Geizhals](https://www.youtube.com/watch?v=aJVdfPk9WmI) by Martin Grubinger",
        True,
        _credited_title,
    ),
)
# Only a sentence that carries a citation reaches these.
CITED_RULES: tuple[SkipRule, ...] = (
    _rule(
        "link-only",
        "under three words of its own and no verb, a run of links, or a label and its link: navigation",
        "coderefinery/coderefinery.org",
        "* CodeRefinery manuals: <https://coderefinery.github.io/manuals/>",
        True,
        _link_only,
    ),
    _rule(
        "event-listing",
        "a linked name with its date in a field of its own, no verb",
        "nodejs/nodejs.org",
        "- [Node.js Live (Beijing)](http://live.nodejs.org/events/beijing.html) - May, 21st - 22nd, 2016",
        True,
        lambda c: c.kinds == [ClaimKind.temporal] and is_listing(c.form_text),
    ),
    _rule(
        "ignored",
        "no fact kind, and every citation marked citecheck-ignore",
        "the README's ignore marker",
        '[Our sponsor](https://sponsor.example.net "citecheck-ignore") makes this possible.',
        True,
        _ignored,
    ),
    _rule(
        "change-reference",
        "no fact kind, and every citation a pull request, issue or commit: a change log's entry",
        "nim-lang/website",
        '- Fixed "VM error when passing object field ref to proc" ([#25210](https://github.com/nim-lang/Nim/pull/25210))',
        True,
        _change_reference,
    ),
    _rule(
        "change-title",
        "a change's title linked whole to its pull request",
        "rust-lang/this-week-in-rust",
        "* [delete line if suggestion would replace it with an empty "
        "line](https://github.com/rust-lang/rust/pull/120305)",
        True,
        _change_title,
    ),
)
# Only a sentence that cites nothing reaches these: it would be flagged unsourced.
UNCITED_RULES: tuple[SkipRule, ...] = (
    _rule(
        "advice-or-opinion",
        'an imperative, advice, a requirement, a plan or an opinion: "must", "you should …", "I think …"',
        "git-lfs/git-lfs",
        "* Pointer files must be less than 1024 bytes in size, including any pointer extension lines.",
        False,
        lambda c: is_imperative_or_opinion(c.sentence),
    ),
    _rule(
        "nothing-checkable",
        "a hedge, a general comparison, a plan, a deadline, a roster entry, a method note, a feeling",
        "ossf/tac",
        " - Request submission deadline: Friday, February 13, 2026",
        False,
        lambda c: states_nothing_checkable(c.sentence, c.kinds),
    ),
)
ALL_RULES: tuple[SkipRule, ...] = (*PRE_KINDS, *SKIP_RULES, *CITED_RULES, *UNCITED_RULES)


def first_match(rules: Sequence[SkipRule], c: Candidate) -> SkipRule | None:
    """The first rule of `rules` that sets `c` aside (a rule whose `cited` is False passes over a
    cited sentence)."""
    cited = c.cited
    return next((r for r in rules if (r.cited or not cited) and r.matches(c)), None)


def skip_rule(c: Candidate) -> SkipRule | None:
    """The rule that sets aside a candidate whose kinds are known, or None: it is a claim."""
    found = first_match(SKIP_RULES, c)
    if found is not None:
        return found
    return first_match(CITED_RULES if c.cited else UNCITED_RULES, c)
