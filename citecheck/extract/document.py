"""Extract stage: Markdown → verifiable claims with their citations, file, line and column.

`extract_text` (and `extract_file`, which reads the file) runs the stage, one module a step:
1. `markup`: template and MDX markup, TOML front matter and metadata blocks are blanked, every
   character kept in place, so positions stay exact;
2. `parser`: markdown-it-py (CommonMark, tables, strikethrough, HTML) with the front matter,
   footnote, container and admonition plugins and citecheck's own inline rules (pandoc citation
   brackets, bibliography roles, bare URLs kept as written); a block's inline parse waits until
   the walk asks for it, and only a block that may hold a claim gets one (the parse gate,
   derived from the citation-form registry `citations`);
3. `walk`: the block tokens in order, with the structure that decides what a paragraph is —
   reference-list sections and notes (`references`), footnote bodies, block quotes and their
   attribution (`quotes`), tables (`tables`), HTML blocks (`htmlblocks`, `htmlprose`), headings
   and admonition titles (no prose), the ignore markers;
4. `inline`: a block's visible text (link markup and emphasis markers removed, link text and
   inline code kept), each offset mapped back to its line and column, with its links and citation
   markers (a `block.Block`);
5. `drafts`: the block split into sentences (`citecheck.sentences`), what each one cites (links,
   running-text citation forms, footnotes, pandoc keys, numbered and author-year mentions, a lead
   link), its fact kinds (`kinds`), and the skip rules (`skip`);
6. here (`_finish`): each draft's citations resolved once the whole file is read (`resolve`,
   `bibliography`): reference-list entries, notes, footnotes, in-document anchors (their targets
   found as `anchors` finds them: headings' slugs, attribute lists, MyST labels, HTML ids),
   pandoc keys.
So `extract_text` is the extract and resolve stages together: every citation carries `url`,
`resolve_status` and `resolve_error`.

What a claim is
  A sentence is a claim when it carries a citation (kind `hyperlinked`) or a checkable fact
  (`statistic`, `quote`, `temporal`, `comparative`: `citecheck.extract.kinds`); the sentences of
  an attributed block quote or kramdown pull quote are quotations (`quote`). A sentence with a
  fact kind and no citation is still a claim: it is reported as unsourced. A table's body row is
  one candidate, its cells joined with " | ", at its first cell's position.

What is no claim
  A sentence that carries a citation is checked unless its *form* shows that it asserts nothing:
  a question, a title or a link-only line, a pointer or a call to action, a byline, a credit, a
  date stamp, a metadata line. Whether an assertion is a definition, an opinion or worth
  checking is its meaning, which the judge's model reads; a rule about meaning never sets aside
  a cited sentence, it only keeps an uncited one off the *Unsourced* list. The rules are one
  table, in `citecheck.extract.skip` (its docstring gives the principle; each rule its form and
  a real example), and every sentence a rule sets aside is kept in `ExtractedDocument.skipped`
  with the rule's name.
  What is not prose is never a candidate: headings, code blocks, front matter, MDX import/export
  lines, images, HTML comments and what HTML blocks hold other than prose elements; the
  reference list itself (it becomes `ExtractedDocument.references`); a footnote body that cites
  a source (it is the citation of the sentence that points at it; a footnote without one is
  prose); a quotation's credit line; a checklist's entries. A code span's text stays in its
  claim, but a URL or a number in code is never a citation or a fact. A link to the project's
  own pages (a relative link, a site path, an in-page anchor to anything but a reference entry)
  is a citation of kind `internal`, its target as written: the run follows it to a file of the
  checkout or to the site (`citecheck.fetch.site`). `mailto:`, an image or an archive, and an
  in-page link that only moves the reader ("back to top") cite nothing.

Ignore markers
  `<!-- citecheck-ignore -->` on its own line skips the next block (a paragraph, a whole list,
  a table); inside a paragraph it skips that paragraph. `<!-- citecheck-disable -->` …
  `<!-- citecheck-enable -->` skip everything between them. A link whose title contains
  `citecheck-ignore` gives a citation with `resolve_status=skipped`.

Hostile input is bounded
  Extraction is linear in the file: no pattern is tried from each of many starting points over
  a long stretch of text, and no item is compared with every other (bench/hostile.py times the
  inputs that were quadratic). One bracket, parenthesis, footnote or quotation attribution
  cites at most `resolve.MAX_REFERENCES_PER_BRACKET` sources, repeats once. A file has a time
  budget (`extract_text(budget_s=…)`, `Settings.extract_budget_s`), checked between blocks, and
  a block whose inline parse would cost more than `parser.MAX_BLOCK_COST` is not parsed: either
  way the file gives a `FileError` ("extraction stopped …") and no claims, and the run goes on.
See docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from citecheck.config import DEFAULT_EXTRACT_BUDGET_S
from citecheck.extract import anchors, bibliography, parser, resolve
from citecheck.extract.block import Anchor, PandocKeys
from citecheck.extract.drafts import Item
from citecheck.extract.forms import pandoc
from citecheck.extract.markup import blank_markup, blank_non_markdown
from citecheck.extract.parser import Clock, Stopped
from citecheck.extract.references import work_key
from citecheck.extract.walk import Walked, walk
from citecheck.models import (
    Citation,
    CitationKind,
    ClaimKind,
    ExtractedDocument,
    FileError,
    SkippedSentence,
)
from citecheck.models import ResolveStatus as RS

DEFAULT_MAX_BYTES = 5 * 1024 * 1024


# An attribute list naming an id, or a MyST label: `{#id}`, `{: #id}`, `(label)=`.
_DECLARES = re.compile(r"\{:?[ \t]*#[\w.:-]|\)=[ \t]*$", re.MULTILINE)

# An in-page link whose text is a number: "[(1)](#references)", "[[2]](#refs)".
_NUMBER_LINK = re.compile(r"\[[\s(\[_*]*(\d{1,3})[\s)\]_*]*\]")


def _aliases(env: dict[str, Any]) -> dict[str, str]:
    """The document's `[@key]: target` definitions (markdown-it reads them as link reference
    definitions; their labels are upper-cased, and keys are looked up case-insensitively)."""
    refs = env.get("references") or {}
    return {label[1:]: str(ref.get("href", "")) for label, ref in refs.items() if label.startswith("@")}


class _Keys:
    """Resolves a document's pandoc citation keys; its bibliography is read on first need."""

    def __init__(self, front: str, aliases: dict[str, str], source: Path | None) -> None:
        self.front, self.aliases, self.source = front, aliases, source
        self.bib: bibliography.Bibliography | None = None
        self.done: dict[tuple[str, str | None], Citation] = {}

    def citation(self, key: str, role: str | None = None) -> Citation:
        if (key, role) not in self.done:
            if self.bib is None and pandoc.identifier_url(key) is None:
                folder = self.source.parent if self.source is not None else None
                self.bib = bibliography.load(
                    folder, self.front, self.aliases, siblings=True, exclude=self.source
                )
            bib = self.bib or bibliography.Bibliography(aliases=self.aliases)
            self.done[key, role] = resolve.pandoc_citation(key, bib, role=role)
        return self.done[key, role]


def _finish(walked: Walked, doc: ExtractedDocument, clock: Clock, keys: _Keys) -> None:
    """Each draft's citations resolved against what the file holds: its claims and, apart, the
    sentences a skip rule set aside."""
    resolver = _Resolver(walked, keys)
    for d in walked.drafts:
        clock.check(d.claim.line)
        c = d.claim
        if d.skipped_by is not None:
            doc.skipped.append(
                SkippedSentence(
                    text=c.text,
                    file=c.file,
                    line=c.line,
                    column=c.column,
                    rule=d.skipped_by,
                    cited=bool(d.citations),
                )
            )
            continue
        cits = resolve.dedupe(
            [cit for _, item in sorted(d.citations, key=lambda x: x[0]) for cit in resolver.citations(item)]
        )
        kinds = list(d.fact_kinds)
        if cits:
            kinds.append(ClaimKind.hyperlinked)
        elif not kinds:
            continue  # its only "citation" was a weak author-year look-alike
        c.kinds = kinds
        c.citations = cits
        doc.claims.append(c)


class _Resolver:
    """What each item a draft cites resolves to, once the file is read: its reference-list
    entries, notes, footnotes, anchors, pandoc keys and the works it links."""

    def __init__(self, walked: Walked, keys: _Keys) -> None:
        self.walked, self.keys = walked, keys
        self.index = resolve.ReferenceIndex(walked.references)
        # a superscript marker's number names a note ("<sup>1</sup> See …") before a reference entry
        self.note_index = (
            resolve.ReferenceIndex(walked.notes + walked.references) if walked.notes else self.index
        )
        self.bodies: dict[str, list[Citation]] = {}  # a footnote's own references, resolved once

    def citations(self, item: Item) -> list[Citation]:
        if isinstance(item, Citation):
            return [item]
        if isinstance(item, resolve.Mention):
            return self.mention(item)
        if isinstance(item, PandocKeys):
            return [self.keys.citation(k, item.role) for k in item.keys]
        if isinstance(item, Anchor):
            return self.anchor(item)
        return self.footnote(item)

    def mention(self, item: resolve.Mention) -> list[Citation]:
        """A numbered or author-year reference in the text, or a superscript note marker."""
        linked = self.walked.linked
        work = linked.get(work_key(item.identifier)) if item.kind == CitationKind.author_year else None
        if work is not None and self.index.find(item) is None:
            # "… the original data from Zarin et al. (2016) …" after "[Zarin et al.
            # (2016)](https://doi.org/…)": the document links the work it names
            return [
                Citation(
                    raw=item.raw,
                    kind=item.kind,
                    identifier=item.identifier,
                    url=work,
                    start=item.start,
                    end=item.end,
                )
            ]
        if item.superscript:
            return [resolve.mention_citation(item, self.note_index)] if self.note_index.references else []
        if item.strong or self.walked.references:
            return [resolve.mention_citation(item, self.index)]
        return []

    def anchor(self, item: Anchor) -> list[Citation]:
        """An in-page link to a reference entry cites what the entry cites; for a number,
        "[(1)](#references)", that entry of the reference list; to a note or an entry without a
        URL, nothing (the note's own citation, if any, is the sentence's); to anything else (a
        heading, a section, an anchor of a page this file is part of) it cites that part of the
        project's own pages: an internal citation, resolved with the checkout
        (`citecheck.fetch.site`)."""
        anchors = self.walked.anchors
        cits = [
            Citation(raw=item.raw, kind=CitationKind.reference, identifier=f"#{item.id}", url=url)
            for url in anchors.get(item.id, ())[: resolve.MAX_REFERENCES_PER_BRACKET]
        ]
        if item.id in anchors:
            return cits or [
                Citation(
                    raw=item.raw,
                    kind=CitationKind.reference,
                    identifier=f"#{item.id}",
                    resolve_status=RS.error,
                    resolve_error=f"reference #{item.id} has no URL or DOI",
                )
            ]
        number = _NUMBER_LINK.match(item.raw)
        if number and self.index.references:
            mention = resolve.Mention(item.raw, CitationKind.numbered, number.group(1), 0, 0, True)
            cit = resolve.mention_citation(mention, self.index)
            return [cit.model_copy(update={"start": None, "end": None})]
        return [Citation(raw=item.raw, kind=CitationKind.internal, identifier=f"#{item.id}")]

    def footnote(self, label: str) -> list[Citation]:
        """A footnote reference (`[^label]`, or "#id" for an inline `^[…]`): its body's sources."""
        fn = self.walked.footnotes.get(label)
        if label not in self.bodies:
            self.bodies[label] = [resolve.mention_citation(m, self.index) for m in fn.mentions] if fn else []
        raw = "^[…]" if label.startswith("#") else f"[^{label}]"
        return resolve.footnote_citations(raw, label, fn.urls if fn else None, self.bodies[label])


# --- public entry points ----------------------------------------------------------------------------


def _walk(text: str, file: str, clock: Clock) -> tuple[list[Token], dict[str, Any], Walked]:
    """Steps 1 to 5 (see the module's docstring): the file's tokens, the parser's env, and what
    the walk found."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    mdx = file.lower().endswith(".mdx")
    # ids of attribute lists and MyST labels, read before blanking takes them (`anchors`)
    declared = anchors.declared_lines(text.split("\n")) if _DECLARES.search(text) else None
    text = blank_markup(blank_non_markdown(text, mdx=mdx), mdx=mdx)
    tokens, env = parser.parse(text)
    return tokens, env, walk(tokens, text.split("\n"), file, env, clock, declared)


def anchor_sources(
    text: str, file: str, *, budget_s: float | None = DEFAULT_EXTRACT_BUDGET_S
) -> dict[str, list[str]]:
    """The anchors of a Markdown text that an in-page link cites through: a reference-list
    entry's (its URLs; [] for one without) or a block's that names sources. A text whose
    extraction stops names none."""
    try:
        return _walk(text, file, Clock(budget_s))[2].anchors
    except Stopped:
        return {}


def extract_text(
    text: str, file: str, *, budget_s: float | None = None, source: Path | None = None
) -> ExtractedDocument:
    """Claims and resolved citations of one Markdown text; `file` names it in every claim.

    `budget_s`: the time the file may take (None: no limit). A file still being read when it
    runs out gives no claims, only a `FileError` saying where extraction stopped. `source`: the
    file on disk, whose folder holds the bibliography its pandoc citations name (None: no
    bibliography file is read; `citecheck.extract.bibliography`)."""
    clock = Clock(budget_s)
    doc = ExtractedDocument(file=file)
    try:
        tokens, env, walked = _walk(text, file, clock)
        doc.references = walked.references
        front = next((t.content for t in tokens[:1] if t.type == "front_matter"), "")
        _finish(walked, doc, clock, _Keys(front, _aliases(env), source))
    except Stopped as stop:
        where = "".join(
            [f" {stop.where}" if stop.where else "", f" at line {stop.line}" if stop.line is not None else ""]
        )
        message = f"extraction stopped{where}: {stop.reason}; none of the file's claims are checked"
        return ExtractedDocument(file=file, errors=[FileError(file=file, line=stop.line, message=message)])
    return doc


def extract_file(
    path: Path,
    *,
    display: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    budget_s: float | None = DEFAULT_EXTRACT_BUDGET_S,
) -> ExtractedDocument:
    """`extract_text` of a file; never raises for bad input: problems go to `doc.errors`."""
    name = display or str(path)
    doc = ExtractedDocument(file=name)
    try:
        size = os.stat(path).st_size
        if size > max_bytes:
            doc.errors.append(
                FileError(
                    file=name, message=f"file is {size:,} bytes, over the {max_bytes:,}-byte limit; skipped"
                )
            )
            return doc
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except IsADirectoryError:
        doc.errors.append(FileError(file=name, message="is a directory, not a Markdown file"))
        return doc
    except OSError as exc:
        doc.errors.append(FileError(file=name, message=f"cannot read file: {exc.strerror or exc}"))
        return doc
    if len(data) > max_bytes:
        doc.errors.append(FileError(file=name, message=f"file is over the {max_bytes:,}-byte limit; skipped"))
        return doc
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with a byte-order mark, as some editors save
        try:
            return _with_errors(
                extract_text(data.decode("utf-16"), name, budget_s=budget_s, source=path), doc.errors
            )
        except UnicodeDecodeError:
            pass
    if b"\x00" in data:
        doc.errors.append(
            FileError(file=name, message="binary file (contains NUL bytes), not Markdown; skipped")
        )
        return doc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        text = data.decode("utf-8", errors="replace")
        doc.errors.append(
            FileError(
                file=name,
                line=line,
                message=f"invalid UTF-8 at byte {exc.start}; decoded with replacement characters",
                fatal=False,
            )
        )
    return _with_errors(extract_text(text, name, budget_s=budget_s, source=path), doc.errors)


def _with_errors(doc: ExtractedDocument, errors: list[FileError]) -> ExtractedDocument:
    doc.errors = errors + doc.errors
    return doc


def render_text(docs: list[ExtractedDocument]) -> str:
    """One line a claim: `file:line  kinds  text  → urls` (unresolved citations say why)."""
    out: list[str] = []
    for doc in docs:
        for c in doc.claims:
            targets = []
            for cit in c.citations:
                if cit.resolve_status == RS.ok and cit.url:
                    targets.append(cit.url)
                elif cit.resolve_status == RS.skipped:
                    targets.append(f"{cit.raw} (skipped)")
                else:
                    targets.append(f"{cit.raw} (error: {cit.resolve_error})")
            arrow = "  → " + " ".join(targets) if targets else "  → (no citation)"
            out.append(f"{c.file}:{c.line}  {','.join(k.value for k in c.kinds)}  {c.text}{arrow}")
    return "\n".join(out) + ("\n" if out else "")
