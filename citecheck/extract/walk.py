"""The document walk: markdown-it's block tokens in order, with the structure that decides what
a paragraph is — reference-list sections and their entries, footnote bodies, block quotes and
their attribution, tables, HTML blocks, admonition titles and headings (skipped), and the
citecheck ignore markers — each block that may hold a claim scanned (`citecheck.extract.inline`)
and turned into drafts (`citecheck.extract.drafts`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from citecheck.extract import anchors, resolve
from citecheck.extract.block import Block, apply_mask, block_urls
from citecheck.extract.drafts import Draft, block_drafts
from citecheck.extract.htmlblocks import KRAMDOWN, html_markdown, html_prose
from citecheck.extract.inline import MARKER, scan_inline, target_titles
from citecheck.extract.parser import Clock, children, may_hold_claim
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

# GitHub's task-list box: "- [ ] Docs updated", "- [x] (R) Enhancement issue in release milestone".
_TASK_BOX = re.compile(r"\[[ xX]\]\s")


@dataclass
class Walked:
    """What the walk found: the drafts, and what their citations resolve against."""

    drafts: list[Draft]
    references: list[Reference]
    notes: list[Reference]  # lines opening with a superscript number, outside a reference list
    footnotes: dict[str, Footnote]
    # id → the URLs of the reference entry, or of the block naming sources, that declares it
    anchors: dict[str, list[str]]
    linked: dict[str, str]  # "zarin et al. 2016" → the URL of a link with that text


def walk(
    tokens: list[Token],
    lines: list[str],
    file: str,
    env: dict[str, Any],
    clock: Clock,
    declared: dict[int, list[str]] | None = None,
) -> Walked:
    """The drafts of a parsed file, and what their citations resolve against. `declared`: the
    ids attribute lists and MyST labels declare, by line (`anchors.declared_lines`, read before
    they were blanked)."""
    return _Walk(tokens, lines, file, env, clock, declared or {}).run()


class _Walk:
    """The walk's state: where it stands in the document's structure, and what it found."""

    def __init__(
        self,
        tokens: list[Token],
        lines: list[str],
        file: str,
        env: dict[str, Any],
        clock: Clock,
        declared: dict[int, list[str]],
    ) -> None:
        self.tokens, self.lines, self.file, self.env, self.clock = tokens, lines, file, env, clock
        self.declared = declared
        self.heading_ids: list[str] = []  # a reference list's heading's ids, for the entry under it
        self.titles = target_titles(tokens) if any("](#" in ln for ln in lines) else {}
        self.found = Walked(drafts=[], references=[], notes=[], footnotes={}, anchors={}, linked={})
        self.drafts = self.found.drafts
        # the citecheck markers
        self.disabled = False
        self.ignore_level: int | None = None  # a citecheck-ignore marker waits for the next block here
        self.skip_close_level: int | None = None  # skipping an ignored block until its close
        # a reference-list section
        self.ref_section: int | None = None  # heading level of the current reference-list section
        self.notes_section = False  # that section is headed "Notes": its paragraphs of prose are prose
        self.ref_item: OpenReference | None = None
        self.ref_item_level = -1
        self.open_references: list[OpenReference] = []
        # block quotes, footnotes, tables
        self.quotes: list[QuoteContext] = []
        self.spoken_until = -1  # the close of a list that a line naming its speaker introduces
        self.footnote_key: str | None = None
        self.row: list[Block] = []
        self.in_thead = False
        self.headers: list[str] = []  # the current table's header cells
        self.definitions = False  # the current table is a data dictionary (`defines_fields`)
        self.skip_inline: set[int] = set()  # inline tokens read already, or not prose (titles)
        self.prev_inline: Token | None = None

    def run(self) -> Walked:
        handlers = _HANDLERS
        for i, tok in enumerate(self.tokens):
            if self.skip_close_level is not None:
                if tok.nesting == -1 and tok.level == self.skip_close_level:
                    self.skip_close_level = None
                continue
            ttype = tok.type
            if ttype not in _WALKED and self.ignore_level is None:
                continue  # most tokens (paragraph and list opens and closes, cells): nothing to do
            if ttype == "html_block":
                self.html_block(i, tok)
                continue
            if self.ignore_level is not None and self.ignored(tok, self.ignore_level):
                continue
            quotes = self.quotes
            while quotes and i > quotes[-1].close:
                quotes.pop()
            handler = handlers.get(ttype)
            if handler is not None:
                handler(self, i, tok)
        inline_footnotes(self.env, self.found.footnotes, self.clock)
        for item in self.open_references:
            item.close()
        return self.found

    def ignored(self, tok: Token, level: int) -> bool:
        """Whether `tok` is the block a citecheck-ignore marker at `level` waits for (then skipped
        up to its close); a token above that level ends the wait."""
        if tok.level < level:
            self.ignore_level = None
        elif tok.level == level and tok.nesting >= 0:
            self.ignore_level = None
            if tok.nesting == 1:
                self.skip_close_level = tok.level
            return True
        return False

    # --- one handler a token type (`_HANDLERS`), the HTML block's apart

    def html_block(self, i: int, tok: Token) -> None:
        if i in self.skip_inline:
            return  # read with the HTML block before it
        self.clock.check(tok.map[0] + 1 if tok.map else None)
        markers = list(MARKER.finditer(tok.content))
        for m in markers:
            kind = m.group(1)
            if kind == "disable":
                self.disabled = True
            elif kind == "enable":
                self.disabled = False
            elif "<!--" in tok.content:
                self.ignore_level = tok.level
        if markers:
            return
        if self.ignore_level is not None and tok.level == self.ignore_level:
            self.ignore_level = None  # the ignored block is this HTML block
            return
        if not self.disabled and self.ref_section is None and self.footnote_key is None:
            if KRAMDOWN.search(tok.content):
                self.drafts.extend(html_markdown(tok, self.lines, self.file, self.env, self.clock))
            else:
                new, merged = html_prose(
                    self.tokens,
                    i,
                    self.lines,
                    self.file,
                    self.env,
                    self.clock,
                    self.prev_inline,
                    self.found.anchors,
                )
                self.drafts.extend(new)
                self.skip_inline.update(range(i + 1, i + 1 + merged))

    def admonition_title_open(self, i: int, tok: Token) -> None:
        self.skip_inline.add(i + 1)  # an admonition's title, like a heading

    def heading_open(self, i: int, tok: Token) -> None:
        if self.quotes:
            return  # a heading inside a block quote is quoted text ("> ### “…” - Name"), not structure
        level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
        if self.ref_section is not None and level <= self.ref_section:
            self.ref_section = None
        inline = self.tokens[i + 1] if i + 1 < len(self.tokens) else None
        if inline is not None and inline.type == "inline":
            self.skip_inline.add(i + 1)
            if resolve.is_reference_heading(inline.content):
                self.ref_section = level
                self.notes_section = resolve.is_notes_heading(inline.content)
            elif self.ref_section is not None:
                # "### Smith 2020 {#ref-a}" over its entry: an in-page link to it cites the entry
                self.heading_ids = [*anchors.slugs(inline.content), *self.declared_in(tok)]

    def blockquote_open(self, i: int, tok: Token) -> None:
        ctx, attribution = blockquote_context(self.tokens, i, self.prev_inline, self.env, self.clock)
        self.quotes.append(ctx)
        if attribution is not None:
            self.skip_inline.add(attribution)

    def footnote_reference_open(self, i: int, tok: Token) -> None:
        self.footnote_key = str((tok.meta or {}).get("label", ""))
        self.found.footnotes[self.footnote_key] = Footnote()

    def footnote_reference_close(self, i: int, tok: Token) -> None:
        fn = self.found.footnotes.get(self.footnote_key or "")
        if fn is not None:
            self.drafts.extend(fn.claims())
        self.footnote_key = None

    def list_item_open(self, i: int, tok: Token) -> None:
        if self.ref_section is not None and (self.ref_item is None or tok.level <= self.ref_item_level):
            line = (tok.map[0] + 1) if tok.map else 1
            self.ref_item = OpenReference(Reference(label=tok.info or None, text="", urls=[], line=line))
            self.ref_item_level = tok.level
            self.found.references.append(self.ref_item.ref)
            self.open_references.append(self.ref_item)

    def list_item_close(self, i: int, tok: Token) -> None:
        if self.ref_item is not None and tok.level == self.ref_item_level:
            self.ref_item = None

    def thead_open(self, i: int, tok: Token) -> None:
        self.in_thead = True
        self.headers = []

    def thead_close(self, i: int, tok: Token) -> None:
        self.in_thead = False
        self.definitions = defines_fields(self.headers)

    def tr_close(self, i: int, tok: Token) -> None:
        if self.row:
            if not self.disabled and self.ref_section is None:
                self.drafts.extend(row_drafts(self.row, self.headers, self.file, self.definitions))
            self.row = []

    def inline(self, i: int, tok: Token) -> None:
        """A paragraph, list item, cell or heading's text: a block of prose, if it may hold a claim."""
        if i in self.skip_inline:
            return
        self.clock.check(tok.map[0] + 1 if tok.map else None)
        in_cell = i > 0 and self.tokens[i - 1].type in ("th_open", "td_open")
        if in_cell and self.in_thead:
            self.headers.append(tok.content)
            return
        attributed = bool(self.quotes) and self.quotes[-1].attributed
        spoken = self.spoken(i, tok)
        if not (
            in_cell or attributed or spoken or self.ref_section is not None or may_hold_claim(tok.content)
        ):
            self.prev_inline = tok
            return
        block = self.scan(tok)
        was_disabled = self.disabled
        for t in block.toggles:
            self.disabled = not t
        if was_disabled or block.ignore:
            return
        if self.ref_section is not None and self.footnote_key is None:
            add_reference(block, tok, self.ref_item, self.found.references)
            if not (
                self.notes_section
                and self.ref_item is None
                and not block.sups
                and not resolve.opens_with_label(block.text)
            ):
                return
        if block.sups:
            self.found.notes.extend(note_entries(block, (tok.map[0] + 1) if tok.map else 1))
        if in_cell:
            self.row.append(block)
            return
        self.paragraph(i, block, attributed, spoken)

    # --- the inline token's steps

    def spoken(self, i: int, tok: Token) -> bool:
        """Whether `tok` is a quotation in a list that a line naming its speaker introduces
        ("**Daniel Lemire:**" then "- "…""), which is attributed."""
        tokens = self.tokens
        if (
            i > self.spoken_until
            and i + 2 < len(tokens)
            and tokens[i + 2].type == "bullet_list_open"
            and SPEAKER.fullmatch(tok.content) is not None
        ):
            self.spoken_until = find_close(tokens, i + 2)
        return i < self.spoken_until and WHOLE_QUOTE.fullmatch(tok.content) is not None

    def scan(self, tok: Token) -> Block:
        """The block's visible text, and the anchors it declares and the works it links noted."""
        children(tok, self.env, self.clock)
        block = scan_inline(tok, self.lines, self.titles)
        ids = block.anchors
        if self.declared:
            ids = [*ids, *self.declared_in(tok)]
        if self.heading_ids and self.ref_section is not None:
            ids, self.heading_ids = [*ids, *self.heading_ids], []
        if ids:
            # the entry an in-document link points to: this reference-list item, or this block
            # when it names sources; one without, outside a reference list, is a section
            urls = self.ref_item.ref.urls if self.ref_item is not None else block_urls(block)
            if urls or self.ref_section is not None:
                for anchor in ids:
                    if anchor:
                        self.found.anchors.setdefault(anchor, urls)
        note_linked_works(block, self.found.linked)
        self.prev_inline = tok
        return block

    def declared_in(self, tok: Token) -> list[str]:
        """The ids attribute lists and labels declare for the block of `tok`'s lines."""
        if not self.declared or not tok.map:
            return []
        return [ident for line in range(tok.map[0], tok.map[1]) for ident in self.declared.get(line, ())]

    def paragraph(self, i: int, block: Block, attributed: bool, spoken: bool) -> None:
        """A block of prose: its drafts, or a footnote body's."""
        extra = self.quotes[-1].citations if attributed else None
        # the first paragraph of a list item (markdown-it keeps a tight list's paragraphs, hidden)
        list_item = i >= 2 and self.tokens[i - 2].type == "list_item_open"
        if list_item and _TASK_BOX.match(block.text):
            return  # a checklist's entry, ticked or not: a to-do or a sign-off, not a claim
        if spoken and list_item:
            attributed = True  # "**Ivica Bogosavljevic:**" then "- *"Memory bottlenecks are …"*"
        new = block_drafts(block, self.file, quote=attributed, extra=extra, list_item=list_item)
        if self.footnote_key is not None:
            fn = self.found.footnotes[self.footnote_key]
            fn.add_urls(block_urls(block))
            fn.mentions.extend(resolve.find_mentions(apply_mask(block.text, block.masked)))
            fn.drafts.extend(new)
        else:
            self.drafts.extend(new)


_HANDLERS: dict[str, Callable[[_Walk, int, Token], None]] = {
    "admonition_title_open": _Walk.admonition_title_open,
    "heading_open": _Walk.heading_open,
    "blockquote_open": _Walk.blockquote_open,
    "footnote_reference_open": _Walk.footnote_reference_open,
    "footnote_reference_close": _Walk.footnote_reference_close,
    "list_item_open": _Walk.list_item_open,
    "list_item_close": _Walk.list_item_close,
    "thead_open": _Walk.thead_open,
    "thead_close": _Walk.thead_close,
    "tr_close": _Walk.tr_close,
    "inline": _Walk.inline,
}
# The token types the walk acts on; any other token matters only to a pending citecheck-ignore
# marker (and the open block quotes are popped at the next of these, which reads the same).
_WALKED = frozenset([*_HANDLERS, "html_block"])
