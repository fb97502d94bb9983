"""The document walk: markdown-it's block tokens in order, with the structure that decides what
a paragraph is — reference-list sections and their entries, footnote bodies, block quotes and
their attribution, tables, HTML blocks, admonition titles and headings (skipped), and the
citecheck ignore markers — each block that may hold a claim scanned (`citecheck.extract.inline`)
and turned into drafts (`citecheck.extract.drafts`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from citecheck.extract import resolve
from citecheck.extract.block import Block, apply_mask, block_urls
from citecheck.extract.drafts import Draft, block_drafts
from citecheck.extract.htmlblocks import KRAMDOWN, html_markdown, html_prose
from citecheck.extract.inline import MARKER, scan_inline, target_titles
from citecheck.extract.parser import Clock, children, may_hold_claim
from citecheck.extract.phrases.grammar import is_fragment, reads_as_reference
from citecheck.extract.quotes import SPEAKER, WHOLE_QUOTE, QuoteContext, blockquote_context, find_close
from citecheck.extract.references import (
    Footnote,
    OpenReference,
    add_reference,
    inline_footnotes,
    note_entries,
    note_linked_works,
)
from citecheck.extract.tables import defines_fields, row_drafts
from citecheck.models import Reference

# The token types the walk acts on; any other token matters only to a pending citecheck-ignore
# marker (and the open block quotes are popped at the next of these, which reads the same).
_WALKED = frozenset(
    [
        "html_block",
        "admonition_title_open",
        "heading_open",
        "blockquote_open",
        "footnote_reference_open",
        "footnote_reference_close",
        "list_item_open",
        "list_item_close",
        "thead_open",
        "thead_close",
        "tr_close",
        "inline",
    ]
)
# GitHub's task-list box: "- [ ] Docs updated", "- [x] (R) Enhancement issue in release milestone".
_TASK_BOX = re.compile(r"\[[ xX]\]\s")


@dataclass
class Walked:
    """What the walk found: the drafts, and what their citations resolve against."""

    drafts: list[Draft]
    references: list[Reference]
    notes: list[Reference]  # lines opening with a superscript number, outside a reference list
    footnotes: dict[str, Footnote]
    anchors: dict[str, list[str]]  # id → the URLs of the entry that declares it
    linked: dict[str, str]  # "zarin et al. 2016" → the URL of a link with that text


def walk(tokens: list[Token], lines: list[str], file: str, env: dict[str, Any], clock: Clock) -> Walked:
    drafts: list[Draft] = []
    references: list[Reference] = []
    notes: list[Reference] = []  # lines opening with a superscript number, outside a reference list
    open_references: list[OpenReference] = []
    footnotes: dict[str, Footnote] = {}
    disabled = False
    ignore_level: int | None = None  # a citecheck-ignore marker waits for the next block here
    skip_close_level: int | None = None  # skipping an ignored block until its close
    ref_section: int | None = None  # heading level of the current reference-list section
    notes_section = False  # that section is headed "Notes": its paragraphs of prose are prose
    ref_item: OpenReference | None = None
    ref_item_level = -1
    quotes: list[QuoteContext] = []
    skip_inline: set[int] = set()
    footnote_key: str | None = None
    prev_inline: Token | None = None
    row: list[Block] = []
    in_thead = False
    headers: list[str] = []  # the current table's header cells
    definitions = False  # the current table is a data dictionary (`defines_fields`)
    anchors: dict[str, list[str]] = {}  # id → the URLs of the entry that declares it
    titles = target_titles(tokens) if any("](#" in ln for ln in lines) else {}
    linked: dict[str, str] = {}  # "zarin et al. 2016" → the URL of a link with that text
    spoken_until = -1  # the close of a list that a line naming its speaker introduces

    for i, tok in enumerate(tokens):
        ttype = tok.type
        if skip_close_level is not None:
            if tok.nesting == -1 and tok.level == skip_close_level:
                skip_close_level = None
            continue
        if ttype not in _WALKED and ignore_level is None:
            continue  # most tokens (paragraph and list opens and closes, cells): nothing to do
        if ttype == "html_block":
            if i in skip_inline:
                continue  # read with the HTML block before it
            clock.check(tok.map[0] + 1 if tok.map else None)
            markers = list(MARKER.finditer(tok.content))
            for m in markers:
                kind = m.group(1)
                if kind == "disable":
                    disabled = True
                elif kind == "enable":
                    disabled = False
                elif "<!--" in tok.content:
                    ignore_level = tok.level
            if markers:
                continue
            if ignore_level is not None and tok.level == ignore_level:
                ignore_level = None  # the ignored block is this HTML block
                continue
            if not disabled and ref_section is None and footnote_key is None:
                if KRAMDOWN.search(tok.content):
                    drafts.extend(html_markdown(tok, lines, file, env, clock))
                else:
                    new, merged = html_prose(tokens, i, lines, file, env, clock, prev_inline, anchors)
                    drafts.extend(new)
                    skip_inline.update(range(i + 1, i + 1 + merged))
            continue
        if ignore_level is not None:
            if tok.level < ignore_level:
                ignore_level = None
            elif tok.level == ignore_level and tok.nesting >= 0:
                ignore_level = None
                if tok.nesting == 1:
                    skip_close_level = tok.level
                continue
        while quotes and i > quotes[-1].close:
            quotes.pop()
        if ttype == "admonition_title_open":
            skip_inline.add(i + 1)  # an admonition's title, like a heading
            continue
        if ttype == "heading_open" and quotes:
            continue  # a heading inside a block quote is quoted text ("> ### “…” - Name"), not structure
        if ttype == "heading_open":
            level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
            if ref_section is not None and level <= ref_section:
                ref_section = None
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            if inline is not None and inline.type == "inline":
                skip_inline.add(i + 1)
                if resolve.is_reference_heading(inline.content):
                    ref_section = level
                    notes_section = resolve.is_notes_heading(inline.content)
            continue
        if ttype == "blockquote_open":
            ctx, attribution = blockquote_context(tokens, i, prev_inline, env, clock)
            quotes.append(ctx)
            if attribution is not None:
                skip_inline.add(attribution)
            continue
        if ttype == "footnote_reference_open":
            footnote_key = str((tok.meta or {}).get("label", ""))
            footnotes[footnote_key] = Footnote()
            continue
        if ttype == "footnote_reference_close":
            fn = footnotes.get(footnote_key or "")
            if fn is not None and not fn.urls and not fn.mentions:
                # an explanatory note: its own sentences are claims, but for a reference it gives
                drafts.extend(d for d in fn.drafts if not reads_as_reference(d.claim.text))
            elif fn is not None:
                # a note that cites: its sentences that state a figure, a date, a quotation or a
                # comparison are claims too ("The entire dataset has 100,000,000 rows in a single
                # 14 GB Parquet file"), each with its own citations; a reference's title and date
                # ("ACM SIGCOMM …, Volume 41 Issue 4 August 2011") is none
                drafts.extend(
                    d
                    for d in fn.drafts
                    if d.fact_kinds and not is_fragment(d.claim.text) and not reads_as_reference(d.claim.text)
                )
            footnote_key = None
            continue
        if (
            ttype == "list_item_open"
            and ref_section is not None
            and (ref_item is None or tok.level <= ref_item_level)
        ):
            line = (tok.map[0] + 1) if tok.map else 1
            ref_item = OpenReference(Reference(label=tok.info or None, text="", urls=[], line=line))
            ref_item_level = tok.level
            references.append(ref_item.ref)
            open_references.append(ref_item)
            continue
        if ttype == "list_item_close" and ref_item is not None and tok.level == ref_item_level:
            ref_item = None
            continue
        if ttype == "thead_open":
            in_thead = True
            headers = []
            continue
        if ttype == "thead_close":
            in_thead = False
            definitions = defines_fields(headers)
            continue
        if ttype == "tr_close" and row:
            if not disabled and ref_section is None:
                drafts.extend(row_drafts(row, headers, file, definitions))
            row = []
            continue
        if ttype != "inline" or i in skip_inline:
            continue
        clock.check(tok.map[0] + 1 if tok.map else None)
        in_cell = i > 0 and tokens[i - 1].type in ("th_open", "td_open")
        if in_cell and in_thead:
            headers.append(tok.content)
            continue
        attributed = bool(quotes) and quotes[-1].attributed
        if (
            i > spoken_until
            and i + 2 < len(tokens)
            and tokens[i + 2].type == "bullet_list_open"
            and SPEAKER.fullmatch(tok.content) is not None
        ):
            spoken_until = find_close(tokens, i + 2)
        spoken = i < spoken_until and WHOLE_QUOTE.fullmatch(tok.content) is not None
        if not (in_cell or attributed or spoken or ref_section is not None or may_hold_claim(tok.content)):
            prev_inline = tok
            continue
        children(tok, env, clock)
        block = scan_inline(tok, lines, titles)
        for anchor in block.anchors:
            # the entry an in-document link points to: this reference-list item, or this block
            anchors.setdefault(anchor, ref_item.ref.urls if ref_item is not None else block_urls(block))
        note_linked_works(block, linked)
        prev_inline = tok
        was_disabled = disabled
        for t in block.toggles:
            disabled = not t
        if was_disabled or block.ignore:
            continue
        if ref_section is not None and footnote_key is None:
            add_reference(block, tok, ref_item, references)
            if not (
                notes_section
                and ref_item is None
                and not block.sups
                and not resolve.opens_with_label(block.text)
            ):
                continue
        if block.sups:
            notes.extend(note_entries(block, (tok.map[0] + 1) if tok.map else 1))
        if in_cell:
            row.append(block)
            continue
        extra = quotes[-1].citations if attributed else None
        # the first paragraph of a list item (markdown-it keeps a tight list's paragraphs, hidden)
        list_item = i >= 2 and tokens[i - 2].type == "list_item_open"
        if list_item and _TASK_BOX.match(block.text):
            continue  # a checklist's entry, ticked or not: a to-do or a sign-off, not a claim
        if spoken and list_item:
            attributed = True  # "**Ivica Bogosavljevic:**" then "- *"Memory bottlenecks are …"*"
        new = block_drafts(block, file, quote=attributed, extra=extra, list_item=list_item)
        if footnote_key is not None:
            fn = footnotes[footnote_key]
            fn.add_urls(block_urls(block))
            fn.mentions.extend(resolve.find_mentions(apply_mask(block.text, block.masked)))
            fn.drafts.extend(new)
        else:
            drafts.extend(new)

    inline_footnotes(env, footnotes, clock)
    for item in open_references:
        item.close()
    return Walked(drafts, references, notes, footnotes, anchors, linked)
