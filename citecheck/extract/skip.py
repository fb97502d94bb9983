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

from citecheck.extract.kinds import (
    addresses_reader,
    boilerplate_form,
    has_verb,
    is_definition,
    is_full_sentence,
    is_imperative_or_opinion,
    is_lead_in,
    is_listing,
    is_question,
    is_sentiment,
    links_its_predicate,
    names_a_change,
    reads_as_statement,
    states_nothing_checkable,
    tells_a_personal_story,
    tells_of_an_event,
    tells_what_we_did,
)
from citecheck.extract.urls import is_change_path, is_change_reference
from citecheck.models import Citation, ClaimKind
from citecheck.models import ResolveStatus as RS


class LinkSpan(Protocol):
    """A link of the block's visible text (the walk's `_Link`)."""

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
    example: str  # a real one, with the repository it comes from
    cited: bool  # also sets aside a sentence that carries a citation
    matches: Callable[[Candidate], bool]


_WORD = re.compile(r"[A-Za-z]{2,}")


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
    return len(c.links) >= _LINK_LIST or not has_verb(c.sentence)


_LINK_LIST = 3  # links in a sentence with under three words of its own: a list of them
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
    cross-references: "Fix X ([#123](…))"."""
    return not c.kinds and all(
        isinstance(x, Citation) and is_change_reference(x.raw, x.url or "") for x in c.citations
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


# --------------------------------------------------------------------------- entries of lists

# After a linked name that opens a list item: a verb in the present tense ("[semantic-release](…)
# automates your releases", "[spotless](…) lets you run prettier from gradle"). "is", "has" and
# "was" open statements and definitions, which have rules of their own; a plural noun before an
# auxiliary is no verb ("[Vite's Open Collective](…) funds are managed by …").
_PRESENT_VERB = re.compile(
    r"\s+(?!(?:is|has|was|does|this|its|us|as|plus|versus|thus|less)\b)[a-z]{2,}s\b"
    r"(?!\s+(?:are|were|have|had|can|could|will|would|may|might|must|should|do|did)\b)"
)
# After the linked title that opens a reading list's entry: a dash or a colon, then what the page is
# about ("[Falsehoods about Art](…) - Common misconceptions about art.").
_TITLE_DASH = re.compile(r"\s*(?:[-–—]|:)\s+")


def _describes_link(c: Candidate) -> bool:
    """A tool or reading list's entry: a list item whose first sentence opens with a link on a
    name and says, in the present tense, what it does ("[mention-bot](…) mentions potential
    reviewers for pull requests") or, after a dash, what the page covers ("[Falsehoods about
    Art](…) - Common misconceptions about art."). A past tense or a figure keeps it."""
    if not (c.list_item and c.first and not c.kinds and c.links and c.links[0].start == c.start):
        return False
    head = c.links[0]
    if len(c.citations) == 1 and _PRESENT_VERB.match(c.text, head.end) is not None:
        return True
    dash = _TITLE_DASH.match(c.text, head.end, c.end)
    return dash is not None and not tells_of_an_event(c.text[dash.end() : c.end])


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
    return lambda c: boilerplate_form(c.sentence, figure=c.has(_FIGURE)) == name


# How far into a sentence that opens with a pointer verb its link may start and still be what
# the verb points at: "See [the docs](…)", "Check out the [release notes](…)", "Join us on
# [Slack](…)".
_POINTED_WORDS = 4


def _pointer(c: Candidate) -> bool:
    """A pointer or a call to action: "see …", "for more information, …", "X is available here";
    one that opens with its verb ("Follow [@x](…)", "Download [X](…)") only when the verb points
    at the link, not an instruction that ends with a pointer of its own ("Follow good security
    practices (see Section 7)."), which is cited advice."""
    form = boilerplate_form(c.sentence, figure=c.has(_FIGURE))
    if form != "pointer-verb":
        return form == "pointer"
    first = next((lk for lk in c.links if lk.end > lk.start), None)
    return first is None or len(_WORD.findall(c.text, c.start, first.start)) <= _POINTED_WORDS


# Checked in this order, which changes only the cost and which rule a skip is counted under:
# those that need no kinds first (`PRE_KINDS`), then the commonest.
PRE_KINDS: tuple[SkipRule, ...] = (
    SkipRule(
        "question",
        'ends with "?"',
        '"Want to help with the Python docs?" (python/cpython)',
        True,
        lambda c: is_question(c.sentence),
    ),
    SkipRule(
        "title",
        "a line that is a link, or links and no word outside them, with no verb",
        '"- [Deploying Rails on Kubernetes](…)" (upgundecha/howtheysre)',
        True,
        _title,
    ),
)
SKIP_RULES: tuple[SkipRule, ...] = (
    SkipRule(
        "pointer",
        'see / read / learn more / for more information / "X is available here" / a call to action',
        '"For more details, see the [release notes](…)." (helm/helm-www)',
        True,
        _pointer,
    ),
    SkipRule(
        "call-to-action",
        '"We encourage you to …", "We ask that you …", "Feel free to …", "Don\'t hesitate to …"',
        '"We encourage you to try out Hermes, and file issues on our [GitHub repository](…)." '
        "(facebook/react-native-website)",
        True,
        _boilerplate("call-to-action"),
    ),
    SkipRule(
        "describes-resource",
        'a page, talk or video as the subject of "explains / shows / covers …"; "Here\'s the …"',
        '"This SciPy\'19 talk explains how much difference that support has made." (scikit-learn/blog)',
        False,
        _boilerplate("describes-resource"),
    ),
    SkipRule(
        "thanks",
        "thanks and acknowledgements",
        '"Thanks to [@wagoodman](…) for the contribution." (Homebrew/brew.sh)',
        False,
        _boilerplate("thanks"),
    ),
    SkipRule(
        "note-label",
        '"Disclaimer: …", "Note: …", "Update: …", "P.S.: …"',
        '"Update: [fixed](…)."',
        False,
        _boilerplate("note-label"),
    ),
    *(
        SkipRule(name, form, example, True, _boilerplate(name))
        for name, form, example in (
            (
                "credit",
                'a credit line: "reviews by …", "image courtesy of …", "Source: …"',
                '"Photo by [Jane Doe](…) on Unsplash" (18F/18f.gsa.gov)',
            ),
            ("byline", 'a byline: "by Jane Doe", "Oct 16, 2025 by …"', '"By [Ada Lovelace](…)"'),
            ("date-stamp", '"Posted on …", "Last updated …", ten words at most', '"Updated on 2024-05-03"'),
            ("metadata", 'a label and a short value: "Date: …", "Level: …"', '"Estimated time: 60 minutes"'),
            (
                "meta-note",
                '"In this post, we look at …", "I will show how …"',
                '"We will explore X in [Module 3](…)."',
            ),
            ("copyright", "a copyright or licence line", '"Copyright (c) 2019 [Elan Shanker](…)"'),
            ("agenda", "an agenda's or a recording's time marks", '"25:27 How does SvelteKit fare …"'),
        )
    ),
    SkipRule(
        "addresses-reader",
        'an instruction, offer or invitation to the reader: "You can …", "If you …, …", "Use the …"',
        '"You can track the status under [this issue](…)." (facebook/react-native-website)',
        False,
        lambda c: not c.has(_FIGURE, ClaimKind.quote) and addresses_reader(c.sentence),
    ),
    SkipRule(
        "personal-story",
        'a first-person singular account with no fact kind: "I decided to use …"',
        '"I decided to use [ReadTheDocs](…) for the docs." (ropensci/roweb3)',
        False,
        lambda c: not c.kinds and tells_a_personal_story(c.sentence),
    ),
    SkipRule(
        "lead-in",
        "a line ending with a colon that introduces a quotation or list",
        '"In the words of [Section508.gov](…):" (18F/18f.gsa.gov)',
        True,
        lambda c: not c.kinds and is_lead_in(c.sentence),
    ),
    SkipRule(
        "sentiment",
        'a person\'s feelings: "I really enjoyed …", "I\'m proud of …"',
        '"I really enjoyed working with the EPA …" (18F/18f.gsa.gov)',
        False,
        lambda c: not c.has(_FIGURE) and is_sentiment(c.sentence),
    ),
    SkipRule(
        "definition",
        '"X is a Y …" and nothing more; an API\'s subjectless "Returns …"',
        '"[Docker](…) is a tool for packaging applications." (github/opensource.guide)',
        False,
        lambda c: (
            not (set(c.kinds) - {ClaimKind.quote})
            and is_definition(c.sentence, quoted=c.has(ClaimKind.quote))
        ),
    ),
    SkipRule(
        "api-entry",
        "code, then its type and a dash: an API reference's entry",
        '"`zoomOut` - Zoom out the focused page by 10%" (electron/electron)',
        False,
        _api_entry,
    ),
    SkipRule(
        "list-description",
        "a list item opening with a linked name that says what it does or what the page covers",
        '"[mention-bot](…) mentions potential reviewers for pull requests" (github/opensource.guide)',
        False,
        _describes_link,
    ),
    SkipRule(
        "reading-list-entry",
        "a linked title and its author-year reference",
        '"[Title](…) (Author, 2018)." (OpenScienceMOOC/Module-1-Open-Principles)',
        True,
        _reading_list_entry,
    ),
    SkipRule(
        "credited-title",
        "linked titles, then their author",
        '"[Lightning talk 10 tips in 5 mins!](…) by Jean Yves Couet" (tedhudek/attendee-notes)',
        True,
        _credited_title,
    ),
)
# Only a sentence that carries a citation reaches these.
CITED_RULES: tuple[SkipRule, ...] = (
    SkipRule(
        "link-only",
        "a phrase with no verb, or under three words outside its links: navigation, captions",
        '"[Docs](…) · [Blog](…) · [GitHub](…)"',
        True,
        _link_only,
    ),
    SkipRule(
        "event-listing",
        "a linked name with its date in a field of its own, no verb",
        '"- [NodeConf London](…) - May 11th, 2016" (nodejs/nodejs.org)',
        True,
        lambda c: c.kinds == [ClaimKind.temporal] and is_listing(c.sentence),
    ),
    SkipRule(
        "ignored",
        "no fact kind, and every citation marked citecheck-ignore",
        '"[Our sponsor](https://… "citecheck-ignore")"',
        True,
        _ignored,
    ),
    SkipRule(
        "change-reference",
        "no fact kind, and every citation a pull request, issue or commit: a change log's entry",
        '"Fix the crash on empty input ([#123](…/pull/123))" (prettier/prettier)',
        True,
        _change_reference,
    ),
    SkipRule(
        "change-title",
        "a change's title linked whole to its pull request",
        '"- [Improve how rustdoc warnings are displayed](…/pull/44350)" (rust-lang/this-week-in-rust)',
        True,
        _change_title,
    ),
)
# Only a sentence that cites nothing reaches these: it would be flagged unsourced.
UNCITED_RULES: tuple[SkipRule, ...] = (
    SkipRule(
        "advice-or-opinion",
        'an imperative, advice, a requirement, a plan or an opinion: "you should …", "I think …"',
        '"It\'s a good idea to write a CONTRIBUTING file." (github/opensource.guide)',
        False,
        lambda c: is_imperative_or_opinion(c.sentence),
    ),
    SkipRule(
        "nothing-checkable",
        "a hedge, a general comparison, a plan or procedure, a method note, a feeling",
        '"The Tokio team plans to release Tokio 1.0 by December 2020." (tokio-rs/website)',
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
