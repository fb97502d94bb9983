"""Sentences → claim candidates → drafts: a block's visible text is split into sentences
(`citecheck.sentences`), each gathers what it cites (its links, running-text citations found by
the registered forms, footnote and pandoc markers, numbered and author-year mentions, a lead
link's or the sentence before's citations) and its fact kinds (`citecheck.extract.kinds`), and
the skip rules (`citecheck.extract.skip`) set aside the candidates whose form shows they assert
nothing. What is left is a `Draft`, a claim whose citations resolve once the file is read
(`citecheck.extract.document`)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from operator import attrgetter, itemgetter
from pathlib import PurePosixPath
from typing import TypeAlias, TypeVar

from citecheck.extract import citations, resolve
from citecheck.extract.block import Anchor, Block, Link, PandocKeys, apply_mask, sup_numbers
from citecheck.extract.kinds import detect_kinds
from citecheck.extract.markup import blank_spans
from citecheck.extract.phrases.boilerplate import is_question, points_to_source, reports_cited_finding
from citecheck.extract.phrases.grammar import reports_a_change
from citecheck.extract.skip import QUESTION, TITLE, Candidate, SkipRule, skip_rule, words_outside
from citecheck.models import Citation, CitationKind, Claim, ClaimKind
from citecheck.sentences import split_sentences


def _own_anchor(anchor: str, file: str) -> str | None:
    """The id an in-page link points to: "#id", or "page.md#id" when the page is this file."""
    page, sep, frag = anchor.partition("#")
    if not sep:
        return anchor
    return frag if frag and PurePosixPath(page).name == PurePosixPath(file).name else None


# A callout's label: GitHub's alerts ("[!NOTE]" alone on its line) and the Obsidian-style callouts
# other sites render ("[!info] 🚀 Try it now", "[!tip]- Folded"), whose first line is the title.
_ALERT = re.compile(r"\[![A-Za-z][\w-]{0,30}\][+-]?")
_LABEL_STOP = re.compile(r"[\]\s]")


def _undefined_footnotes(text: str) -> Iterator[tuple[int, int, str]]:
    r"""(start, end, label) of each `[^label]` left in visible text (a footnote markdown-it did
    not resolve): the matches of `\[\^([^\]\s]+)\]` in linear time. That pattern tried every
    "[^" to the end of the label it starts, so a run of "[^[^[^…" was quadratic; here a "[^"
    that fails is skipped with every "[^" inside its label (they end where it ends, and fail too)."""
    pos = 0
    n = len(text)
    while (p := text.find("[^", pos)) >= 0:
        stop = _LABEL_STOP.search(text, p + 2)
        q = stop.start() if stop else n
        if q < n and text[q] == "]" and q > p + 2:
            yield p, q + 1, text[p + 2 : q]
            pos = q + 1
        else:
            pos = max(q, p + 1)


def _undefined_references(text: str) -> Iterator[tuple[int, int, str, str]]:
    r"""(start, end, text, label) of each `[text][label]` left in visible text (a reference
    link whose definition is missing): the matches of `\[([^\]]+)\]\[([^\]]*)\]` in linear time
    (the pattern was quadratic on a run of "[", as `_undefined_footnotes` explains)."""
    pos = 0
    n = len(text)
    while (p := text.find("[", pos)) >= 0:
        q = text.find("]", p + 1)
        if q < 0:
            return
        if q > p + 1 and q + 1 < n and text[q + 1] == "[":
            r = text.find("]", q + 2)
            if r < 0:
                return
            yield p, r + 1, text[p + 1 : q], text[q + 2 : r]
            pos = r + 1
        else:
            pos = q + 1


# What a sentence cites, before the file is read: a citation; a numbered or author-year mention;
# a footnote's label (str); a pandoc bracket's keys; a link to an in-document anchor.
Item: TypeAlias = Citation | resolve.Mention | str | PandocKeys | Anchor


@dataclass
class Draft:
    """A claim whose reference-list and footnote citations resolve once the file is read."""

    claim: Claim
    # (offset, item); str: a footnote; PandocKeys: a pandoc bracket; Anchor: an in-document link
    citations: list[tuple[int, Item]]
    fact_kinds: list[ClaimKind]
    skipped_by: str | None = None  # the skip rule that set the sentence aside (`extract.skip`)


def _skipped(block: Block, file: str, cand: Candidate, rule: SkipRule) -> Draft:
    """A sentence a skip rule set aside, kept to say so (`ExtractedDocument.skipped`)."""
    line, col = block.position(cand.start)
    claim = Claim(text=cand.sentence, kinds=[], file=file, line=line, column=col)
    return Draft(claim, [(0, c) for c in cand.citations], list(cand.kinds), rule.name)  # type: ignore[misc]


# A link whose text is a citation's number ("[4]: https://…" shown as "4"), right after a stop.
_MARKER_TEXT = re.compile(r"\[?\d{1,3}\]?")


def _marker_gaps(mask: str, links: list[Link]) -> str:
    """`mask` with the text of each numbered link right after a sentence's stop blanked, so the
    sentence ends there: "… in 2018.4 It reached …" reads "… in 2018.  It reached …" (the link
    stays the sentence's citation)."""
    gaps = [
        (lk.start, lk.end)
        for lk in links
        if 0 < lk.start < lk.end <= len(mask)
        and mask[lk.start - 1] in '.!?…"”’)'
        and _MARKER_TEXT.fullmatch(mask, lk.start, lk.end)
    ]
    return blank_spans(mask, gaps) if gaps else mask


class _Spans:
    """A set of [start, end) spans asked whether they cover a position, in log time (a block
    may hold thousands of links and running-text citations)."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []  # disjoint, merged, sorted
        for s, e in sorted(spans):
            self.add(s, e)

    def add(self, start: int, end: int) -> None:
        if end <= start:
            return
        i = bisect_right(self._ends, start - 1)  # first span ending at or after start
        j = bisect_right(self._starts, end)  # spans from i to j touch [start, end)
        if i < j:
            start = min(start, self._starts[i])
            end = max(end, self._ends[j - 1])
        self._starts[i:j] = [start]
        self._ends[i:j] = [end]

    def covers(self, pos: int) -> bool:
        i = bisect_right(self._starts, pos) - 1
        return i >= 0 and pos < self._ends[i]


_T = TypeVar("_T")


def _by_sentence(
    starts: list[int], n_text: int, items: list[_T], offset: Callable[[_T], int], *, markers: bool = False
) -> dict[int, list[_T]]:
    """The items by the index of the sentence each belongs to (the span from a sentence's start
    to the next one's; -1 before the first sentence or past the text), in their order.
    `markers`: the items are note markers, which follow what they mark, so one at a sentence's
    very start ("… approaches.[^13] [^14] The service …") or past the text's end ("… reports.
    [^11]", the block's trailing space stripped) marks the sentence before it."""
    out: dict[int, list[_T]] = {}
    for item in items:
        off = offset(item)
        k = bisect_right(starts, off) - 1
        if markers and k >= 1 and off == starts[k]:
            k -= 1
        if off > n_text and not markers:
            k = -1
        out.setdefault(k, []).append(item)
    return out


def _sup_mentions(block: Block) -> list[resolve.Mention]:
    """The note markers of a block's text ("indicators<sup>1</sup>"), as numbered mentions
    where they stood; a superscript that opens a line is a note's own number, no mention."""
    out: list[resolve.Mention] = []
    for off, inner, leading in block.sups:
        if leading:
            continue
        raw = f"<sup>{inner}</sup>"
        out.extend(
            resolve.Mention(raw, CitationKind.numbered, n, off, off, strong=False, superscript=True)
            for n in sup_numbers(inner)
            if n.isdigit()
        )
    return out


def block_drafts(
    block: Block,
    file: str,
    *,
    split: bool = True,
    quote: bool = False,
    extra: list[Citation] | None = None,
    list_item: bool = False,
) -> list[Draft]:
    """The drafts of a block's sentences, and the sentences a skip rule set aside. `split`
    False: the block is one unit (a table row); `quote`: its sentences are an attributed
    quotation's, and `extra` the citations the attribution carries; `list_item`: the block opens
    a list item."""
    if not block.text.strip():
        return []
    return _Sentences(block, file, split, quote, extra, list_item).drafts()


class _Sentences:
    """A block split into sentences, with what each one holds (a sentence runs to the next
    one's start), gathered in one pass over each kind of item rather than one pass per
    sentence, in the order the items come."""

    def __init__(
        self, block: Block, file: str, split: bool, quote: bool, extra: list[Citation] | None, list_item: bool
    ) -> None:
        self.block, self.file, self.split, self.quote, self.extra = block, file, split, quote, extra
        self.list_item = list_item
        self.text = text = block.text
        masked = list(block.masked)
        found = _running_citations(block, masked)
        mask = _without_callout_label(apply_mask(text, masked), block.breaks)
        self.spans = spans = (
            split_sentences(_marker_gaps(mask, block.links))
            if split
            else [(len(text) - len(text.lstrip()), len(text.rstrip()))]
        )
        mentions = resolve.find_mentions(mask) if "[" in mask or "(" in mask else []
        if block.sups:
            mentions = sorted([*mentions, *_sup_mentions(block)], key=attrgetter("start"))
        undefined = _undefined_citations(mask)
        n = len(text)
        starts = [s for s, _ in spans]
        self.link_items = _links_by_sentence(block.links, spans, starts, n)
        self.point_items = _by_sentence(starts, n, found + undefined, itemgetter(0))
        mentions, self.mask = _without_linked_works(mentions, mask, text, block.links)
        self.kind_mask = _kind_mask(self.mask, mentions, block.links, text)
        self.mention_items = _by_sentence(starts, n, mentions, attrgetter("start"))
        self.footnote_items = _by_sentence(starts, n, block.footnotes, itemgetter(0), markers=True)
        self.pandoc_items = _by_sentence(starts, n, block.pandoc, itemgetter(0), markers=True)
        self.lead = _lead_citation(block, spans, self.mask, self.link_items) if split else None

    def drafts(self) -> list[Draft]:
        drafts: list[Draft] = []
        prev_items: list[tuple[int, Item]] = []
        for k, (s, e) in enumerate(self.spans):
            if is_question(self.text[s:e]):  # a question: it cites nothing for the next one either
                prev_items = []
                if self.link_items.get(k):  # said only of a question that links something
                    drafts.append(_skipped(self.block, self.file, self.candidate(k, s, e), QUESTION))
                continue
            items = self.items(k, s, e)
            if not items and prev_items and reports_cited_finding(self.text[s:e]):
                # "… Koutsoukas et al. benchmarked … [@doi:…]. The researchers found that …": the
                # finding is the cited study's, so it cites what the sentence before it cites
                items = [
                    (s, _inherited(item)) for _, item in prev_items if not isinstance(item, resolve.Mention)
                ]
            prev_items = items  # (the attribution's citations, added to it next, are in it too)
            draft = self.draft(k, s, e, items)
            if draft is not None:
                drafts.append(draft)
        return drafts

    def candidate(self, k: int, s: int, e: int) -> Candidate:
        return Candidate(
            text=self.text,
            start=s,
            end=e,
            mask=self.mask,
            kind_mask=self.kind_mask,
            masked=self.block.masked,
            links=self.link_items.get(k, []),
            citations=[],
            mentions=len(self.mention_items.get(k, ())),
            kinds=[],
            first=k == 0,
            list_item=self.list_item,
            split=self.split,
            quote=self.quote,
        )

    def items(self, k: int, s: int, e: int) -> list[tuple[int, Item]]:
        """What sentence `k`, `text[s:e]`, cites, by offset: its links (or the in-document
        anchors they point to), running-text citations, mentions, footnote and pandoc markers,
        and the block's lead link."""
        items: list[tuple[int, Item]] = []
        for lk in self.link_items.get(k, []):
            if lk.anchor is not None and (anchor := _own_anchor(lk.anchor, self.file)):
                items.append((lk.start, Anchor(anchor, f"[{self.text[lk.start : lk.end]}](#{anchor})")))
            elif lk.citation is not None:
                # one copy with its offsets set (setting them on a copy costs twice as much)
                c = lk.citation.model_copy(update={"start": max(lk.start, s) - s, "end": min(lk.end, e) - s})
                items.append((lk.start, c))
        for fs, fe, c in self.point_items.get(k, ()):
            items.append((fs, c.model_copy(update={"start": fs - s, "end": min(fe, e) - s})))
        seen: set[tuple[str, str, str]] = set()
        for mn in self.mention_items.get(k, ()):
            key = (mn.kind, mn.raw, mn.identifier)
            if key in seen:
                continue  # the same reference again in this sentence: it cites the same source
            seen.add(key)
            # offsets inside the claim text, as for the other visible citations
            items.append((mn.start, replace(mn, start=mn.start - s, end=min(mn.end, e) - s)))
        items.extend(self.footnote_items.get(k, ()))
        items.extend(self.pandoc_items.get(k, ()))
        if self.lead is not None and k > 0:
            items.append((s, self.lead.model_copy(update={"start": None, "end": None})))
        return items

    def draft(self, k: int, s: int, e: int, items: list[tuple[int, Item]]) -> Draft | None:
        """Sentence `k`'s draft, `text[s:e]`: a skipped draft if a skip rule sets it aside, or
        None when it states no fact and cites nothing (most sentences, which need no
        `Candidate` made for them)."""
        if self.extra:
            # a quotation's attribution and lead-in cite every sentence of it
            items.extend((s, c) for c in self.extra)
        cand: Candidate | None = None
        if self.link_items.get(k):  # titles first: the commonest skip on link-heavy pages
            cand = self.candidate(k, s, e)
            cand.citations = [item for _, item in items]
            if TITLE.matches(cand):
                return _skipped(self.block, self.file, cand, TITLE)
        kinds = detect_kinds(self.kind_mask[s:e])
        if self.quote and ClaimKind.quote not in kinds:
            kinds.append(ClaimKind.quote)
        if not items and k + 1 in self.link_items:
            pointed = self.pointed_source(k, kinds)
            if pointed:
                items = [(s, _inherited(c)) for c in pointed]
        if not items and not kinds:
            return None
        if cand is None:
            cand = self.candidate(k, s, e)
        cand.citations = [item for _, item in items]
        cand.kinds = kinds
        rule = skip_rule(cand)
        if rule is not None:
            return _skipped(self.block, self.file, cand, rule)
        line, col = self.block.position(s)
        claim = Claim(text=cand.sentence, kinds=[], file=self.file, line=line, column=col)
        return Draft(claim, items, kinds)

    def pointed_source(self, k: int, kinds: list[ClaimKind]) -> list[Citation]:
        """What the sentence after sentence `k` links when it only points at the source of
        `k`'s fact or change: "The cache cut build times by 40%. See the [benchmark](…) for
        details.", "Version 0.4.2 has been released. See the [release notes](…)"."""
        nxt = [lk.citation for lk in self.link_items[k + 1] if lk.citation is not None]
        s, e = self.spans[k + 1]
        if (
            nxt
            and points_to_source(self.text[s:e])
            and (kinds or reports_a_change(self.text[self.spans[k][0] : self.spans[k][1]]))
        ):
            return nxt
        return []


def _running_citations(block: Block, masked: list[tuple[int, int]]) -> list[tuple[int, int, Citation]]:
    """Citations in running text (bare URLs, DOIs, arXiv ids, PMIDs; not in link text or code),
    each with its span, which joins `masked`."""
    text = block.text
    found: list[tuple[int, int, Citation]] = []
    forms = citations.running_forms(text)
    if forms:
        pre_mask = apply_mask(text, masked)
        links = _Spans((lk.start, lk.end) for lk in block.links)
        taken = _Spans()
        for form in forms:
            for hit in form.hits(pre_mask):
                if links.covers(hit.start):
                    if form.marker is not None:
                        masked.append((hit.start, hit.end))  # an arXiv id as a link's text states no fact
                    continue
                if taken.covers(hit.start):
                    continue  # a DOI inside a URL belongs to the URL
                found.append((hit.start, hit.end, citations.citation(form, hit)))
                masked.append((hit.start, hit.end))
                taken.add(hit.start, hit.end)
    return found


def _without_callout_label(mask: str, breaks: list[int]) -> str:
    """A callout's label and title (the rest of its line) are not part of any sentence."""
    alert = _ALERT.match(mask)
    if alert:
        end = next((b for b in breaks if b >= alert.end()), alert.end())
        mask = " " * end + mask[end:]
    return mask


def _undefined_citations(mask: str) -> list[tuple[int, int, Citation]]:
    """The `[^label]` footnotes and `[text][label]` reference links left in the visible text,
    whose definitions are missing: each an error citation, with its span."""
    undefined: list[tuple[int, int, Citation]] = []
    if "[" in mask:
        for fs, fe, label in _undefined_footnotes(mask):
            undefined.append((fs, fe, resolve.footnote_citations(mask[fs:fe], label, None)[0]))
        for fs, fe, ref_text, ref_label in _undefined_references(mask):
            undefined.append((fs, fe, resolve.undefined_reference(mask[fs:fe], ref_label or ref_text)))
    return undefined


def _links_by_sentence(
    links: list[Link], spans: list[tuple[int, int]], starts: list[int], n: int
) -> dict[int, list[Link]]:
    """The links of each sentence, by its index: a link belongs to every sentence it overlaps."""
    link_items: dict[int, list[Link]] = {}
    for lk in links:
        if lk.end <= lk.start:  # a marker dropped from the text: it cites the sentence it follows
            link_items.setdefault(max(bisect_right(starts, lk.start) - 1, 0), []).append(lk)
            continue
        # the sentences it overlaps: from the one holding its start to the one holding its end
        first = max(bisect_right(starts, lk.start) - 1, 0)
        last = bisect_right(starts, lk.end - 1) - 1
        for k in range(first, last + 1):
            nxt = spans[k + 1][0] if k + 1 < len(spans) else n + 1
            if lk.start < nxt and lk.end > spans[k][0]:
                link_items.setdefault(k, []).append(lk)
    return link_items


def _without_linked_works(
    mentions: list[resolve.Mention], mask: str, text: str, links: list[Link]
) -> tuple[list[resolve.Mention], str]:
    """The mentions that are no link's own text, and `mask` with the others blanked:
    "[Shallue et al. 2018](https://…)": the link is the citation; its text names it, and its
    year is no date the sentence states; so is "([Ince et al., 2012](…))", a parenthesis around
    such a link."""
    if mentions and links:
        in_links = _Spans((lk.start, lk.end) for lk in links)
        covered = [mn for mn in mentions if in_links.covers(mn.start) or _names_a_link(mn, text, links)]
        if covered:
            mentions = [mn for mn in mentions if mn not in covered]
            mask = apply_mask(mask, [(mn.start, mn.end) for mn in covered])
    return mentions, mask


def _kind_mask(mask: str, mentions: list[resolve.Mention], links: list[Link], text: str) -> str:
    """`mask` with what states no fact blanked too, for the kinds: an author-year citation's
    year is where the claim comes from, not a date it states; so is a link's whose text is one
    ("[Shallue et al. 2018](…)", "[Alston and Rick, 2021](…)"); and the numbers of TeX math
    ("the path from node $0$ to node $14$") are no figures or years."""
    not_facts = [(mn.start, mn.end) for mn in mentions if mn.kind == CitationKind.author_year]
    not_facts += [
        (lk.start, lk.end)
        for lk in links
        if lk.end - lk.start < 80 and _AUTHOR_YEAR_LINK.fullmatch(text, lk.start, lk.end)
    ]
    if "$" in mask:
        not_facts += [m.span() for m in _TEX_MATH.finditer(mask)]
    return apply_mask(mask, not_facts)


def _lead_citation(
    block: Block, spans: list[tuple[int, int]], mask: str, link_items: dict[int, list[Link]]
) -> Citation | None:
    """ "[Knight Capital](…). A combination of … caused a $460M loss.": a block that opens with a
    link standing alone as its first sentence is about the linked page; its sentences cite it."""
    if len(spans) > 1 and block.links and block.links[0].start <= spans[0][0]:
        first = block.links[0]
        if (
            first.citation is not None
            and words_outside(mask[spans[0][0] : spans[0][1]], link_items.get(0, []), *spans[0]) == 0
        ):
            return first.citation
    return None


def _inherited(item: Item) -> Item:
    """A citation carried over to the next sentence: it has no place in that sentence's text."""
    return item.model_copy(update={"start": None, "end": None}) if isinstance(item, Citation) else item


def _names_a_link(mention: resolve.Mention, text: str, links: list[Link]) -> bool:
    """Whether an author-year mention is a link's own text in parentheses: "([Ince et al.,
    2012](…))" names the work the link cites; or a numbered one a link's number in brackets:
    "[[1](https://…)]" is that link, no reference to look up."""
    if mention.kind != CitationKind.author_year:
        return mention.kind == CitationKind.numbered and any(
            lk.start == mention.start + 1 and lk.end == mention.end - 1 for lk in links
        )
    surname = mention.identifier.split()[0]
    return any(
        mention.start <= lk.start and lk.end <= mention.end and surname in text[lk.start : lk.end]
        for lk in links
    )


# A link's text that names a work by author and year: "Shallue et al. 2018", "Alston and Rick,
# 2021", "Lee & Ng 2019", "Smith, 2020" (one surname needs the comma: "Rust 2018" is a name,
# and a month is no author).
_AUTHOR_YEAR_LINK = re.compile(
    r"(?!(?:January|February|March|April|May|June|July|August|September|October|November|December)\b)"
    r"[A-Z][\w'’-]+(?:\s+et\s+al\.?,?|\s+(?:and|&)\s+[A-Z][\w'’-]+,?|,)\s+(?:1[5-9]|20)\d\d[a-z]?"
)
# Inline TeX math by pandoc's rule: "$" then a non-space, a non-space then "$" not followed by a
# digit, so "$5 and $10" is money, not math.
_TEX_MATH = re.compile(r"\$\$[^$]{1,500}?\$\$|\$(?=[^\s$])(?:[^$\n\\]|\\.){1,200}?(?<=\S)\$(?!\d)")
