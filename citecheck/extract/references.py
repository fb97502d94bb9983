"""What the text's citations point to, read during the walk: the entries of a reference-list
section (`add_reference`), notes opened by a superscript number (`note_entries`), footnote
bodies (`Footnote`, `inline_footnotes`) and the works the document links by author and year
(`note_linked_works`)."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from markdown_it.token import Token

from citecheck.extract import resolve
from citecheck.extract.block import Block, apply_mask, block_urls, sup_numbers
from citecheck.extract.drafts import Draft
from citecheck.extract.inline import scan_inline
from citecheck.extract.parser import Clock
from citecheck.extract.phrases.grammar import is_fragment, reads_as_reference
from citecheck.models import CitationKind, Reference


def note_entries(block: Block, first_line: int) -> list[Reference]:
    """The notes a block defines: each line that opens with a superscript number ("<sup>1</sup>
    See Haustein and Larivière (2015) …", "<sup><a id="fn.1" href="#fnr.1">1</a></sup> For …"),
    up to the next such line; its sources are its links and the URLs its text names."""
    heads = [(off, inner) for off, inner, leading in block.sups if leading]
    out: list[Reference] = []
    for k, (s, inner) in enumerate(heads):
        e = heads[k + 1][0] if k + 1 < len(heads) else len(block.text)
        urls = [
            lk.citation.url
            for lk in block.links
            if s <= lk.start < e and lk.citation is not None and lk.citation.url
        ]
        line = block.position(s)[0] if block.seg_v else first_line
        numbers = sup_numbers(inner)
        label = numbers[0] if numbers else None
        out.append(resolve.make_reference(block.text[s:e].strip(), urls, line, label))
    return out


@dataclass
class Footnote:
    """A footnote's body: the sources it names, and the drafts of its sentences."""

    urls: list[str] = field(default_factory=list)
    mentions: list[resolve.Mention] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)

    seen: set[str] = field(default_factory=set)  # `urls` as a set: a body may name thousands

    def claims(self) -> list[Draft]:
        """The drafts of its body that are claims: all but a reference's for an explanatory note;
        for a note that cites, those that state a figure, a date, a quotation or a comparison ("The
        entire dataset has 100,000,000 rows in a single 14 GB Parquet file"), each with its own
        citations, and not a reference's title and date ("ACM SIGCOMM …, Volume 41 Issue 4 August
        2011")."""
        if not self.urls and not self.mentions:
            return [d for d in self.drafts if not reads_as_reference(d.claim.text)]
        return [
            d
            for d in self.drafts
            if d.fact_kinds and not is_fragment(d.claim.text) and not reads_as_reference(d.claim.text)
        ]

    def add_urls(self, urls: list[str]) -> None:
        """Add the URLs not there yet, in order."""
        for u in urls:
            if u not in self.seen:
                self.seen.add(u)
                self.urls.append(u)


def inline_footnotes(env: dict[str, Any], footnotes: dict[str, Footnote], clock: Clock) -> None:
    """Bodies of inline footnotes (`^[…]`), which live only in the parser's env."""
    listed = (env.get("footnotes") or {}).get("list") or {}
    for fid, note in listed.items():
        if "tokens" not in note:
            continue
        clock.check(None)
        tok = Token("inline", "", 0)
        tok.content = note.get("content", "")
        tok.children = note["tokens"]
        block = scan_inline(tok, [])
        footnotes[f"#{fid}"] = Footnote(
            urls=block_urls(block), mentions=resolve.find_mentions(apply_mask(block.text, block.masked))
        )


@dataclass
class OpenReference:
    """A reference-list entry being read (a list item of the reference section, over one or
    more blocks); its text is joined once the walk is done."""

    ref: Reference
    texts: list[str] = field(default_factory=list)
    urls: set[str] = field(default_factory=set)

    def close(self) -> None:
        self.ref.text = " ".join(self.texts)


def add_reference(block: Block, tok: Token, item: OpenReference | None, references: list[Reference]) -> None:
    urls = block_urls(block)
    if item is not None:
        if item.texts:
            item.texts.append(block.text)
        else:
            numbered = note_entries(block, item.ref.line)[:1]  # "* <sup>7</sup>[CDC …](…)"
            label = item.ref.label or (numbered[0].label if numbered and block.sups[0][0] == 0 else None)
            m = resolve.make_reference(block.text, [], item.ref.line, label)
            item.ref.label = m.label
            if m.text:
                item.texts.append(m.text)
        for u in urls:
            if u not in item.urls:
                item.urls.add(u)
                item.ref.urls.append(u)
        return
    first = (tok.map[0] + 1) if tok.map else 1
    if block.sups and block.sups[0][0] == 0 and block.sups[0][2]:
        # a paragraph of "<sup>1</sup> …" lines holds one entry per line
        references.extend(note_entries(block, first))
        return
    # A paragraph of "[1] …" lines holds one entry per line.
    pieces: list[tuple[int, int]] = []
    starts = [0, *block.breaks]
    if len(starts) > 1 and all(resolve.starts_with_label(block.text, s) for s in starts):
        pieces = [
            (s, starts[k + 1] if k + 1 < len(starts) else len(block.text)) for k, s in enumerate(starts)
        ]
    else:
        pieces = [(0, len(block.text))]
    piece_starts = [s for s, _ in pieces]
    piece_urls: list[list[str]] = [[] for _ in pieces]
    for lk in block.links:
        k = bisect_right(piece_starts, lk.start) - 1
        if k >= 0 and lk.start < pieces[k][1] and lk.citation and lk.citation.url:
            piece_urls[k].append(lk.citation.url)
    for (s, e), sub_urls in zip(pieces, piece_urls, strict=True):
        sub = block.text[s:e].strip()
        if not sub:
            continue
        line = block.position(s)[0] if block.seg_v else first
        references.append(resolve.make_reference(sub, sub_urls, line))


def work_key(identifier: str) -> str:
    return " ".join(identifier.casefold().split())


_A_DIGIT = re.compile(r"\d")


def note_linked_works(block: Block, linked: dict[str, str]) -> None:
    """The works a block's links name by author and year ("[Zarin et al. (2016)](https://doi.org/…)"),
    so that the same author-year citation elsewhere in the document cites that link."""
    for lk in block.links:
        if lk.citation is None or not lk.citation.url or lk.end <= lk.start:
            continue
        text = block.text[lk.start : lk.end]
        if _A_DIGIT.search(text) is None:
            continue
        for mn in resolve.find_mentions(text):
            if mn.kind == CitationKind.author_year:
                linked.setdefault(work_key(mn.identifier), lk.citation.url)
