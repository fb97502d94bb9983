"""Table rows: each body row is one claim candidate, its cells joined with " | " (a bare figure
in a column that names no date masked, so it is never read as a year); a table whose rows define
fields (a data dictionary) and a row without a word give none."""

from __future__ import annotations

import re

from citecheck.extract.block import Block, Link
from citecheck.extract.drafts import Draft, block_drafts

# A table row none of whose cells holds a word ("~1KB * 10 = 10KB | ~1KB * 200 = 200KB", a query's
# output "2000 | 1000.0 | 0.1"): its meaning is in headers or rows elsewhere, it states nothing.
_CELL_WORD = re.compile(r"[^\W\d_]{3,}")
# A cell that is a bare number that could pass for a year ("1800", "2048") in a column whose
# header names no date: a specification, not a year.
_BARE_FIGURE = re.compile(r"\s*(?:1[6-9]|20)\d\d\s*")
_DATE_HEADER = re.compile(
    r"date|year|release|when|time|period|since|until|founded|launch|day|month", re.IGNORECASE
)


# A data dictionary or a parameter table: its first column names a field, another says what the
# field means ("Header | Definition" in fivethirtyeight/data's READMEs, "Name | Type | Description").
# Its rows define; "Title | Description" rows (a curated list's entries) state facts.
_FIELD_HEADER = re.compile(
    r"(?:header|column|field|variable|name|parameter|param|option|property|key|attribute|setting|flag|argument|"
    r"code|term|abbreviation|acronym)s?",
    re.IGNORECASE,
)
_MEANING_HEADER = re.compile(r"(?:definition|description|meaning|explanation)s?", re.IGNORECASE)
_HEADER_MARKUP = " *_`"


def row_drafts(cells: list[Block], headers: list[str], file: str, defines: bool) -> list[Draft]:
    """The claim of a table's body row, one unit with its cells joined: none in a table whose
    rows define fields, nor for a row without a word."""
    if defines or not any(_CELL_WORD.search(c.text) for c in cells):
        return []
    return block_drafts(_join(cells, headers), file, split=False)


def defines_fields(headers: list[str]) -> bool:
    cells = [h.strip(_HEADER_MARKUP) for h in headers]
    return (
        len(cells) >= 2
        and _FIELD_HEADER.fullmatch(cells[0]) is not None
        and any(_MEANING_HEADER.fullmatch(c) is not None for c in cells[1:])
    )


def _join(cells: list[Block], headers: list[str] | None = None) -> Block:
    """One block for a table row: the cells' text joined with " | " (a bare figure in a column
    that is not a date column masked, so it is never read as a year)."""
    out = Block()
    parts: list[str] = []
    off = 0
    for column, cell in enumerate(cells):
        if not cell.text:
            continue
        if parts:
            parts.append(" | ")
            off += 3
        parts.append(cell.text)
        out.seg_v.extend(v + off for v in cell.seg_v)
        out.seg_line.extend(cell.seg_line)
        out.seg_col.extend(cell.seg_col)
        out.seg_text_col.extend(cell.seg_text_col)
        out.links.extend(Link(lk.start + off, lk.end + off, lk.citation, lk.anchor) for lk in cell.links)
        out.masked.extend((s + off, e + off) for s, e in cell.masked)
        out.footnotes.extend((o + off, key) for o, key in cell.footnotes)
        out.pandoc.extend((o + off, keys) for o, keys in cell.pandoc)
        out.ignore = out.ignore or cell.ignore
        header = headers[column] if headers and column < len(headers) else ""
        if _BARE_FIGURE.fullmatch(cell.text) and not _DATE_HEADER.search(header):
            out.masked.append((off, off + len(cell.text)))
        off += len(cell.text)
    out.text = "".join(parts)
    return out
