"""Evidence stage: passages of a source for a claim, and the deterministic checks."""

from __future__ import annotations

import re

_WS = re.compile(r"\s+")


def _fold(text: str) -> tuple[str, list[int]]:
    """Lower-case, whitespace-collapsed text plus a map from folded to original offsets."""
    out: list[str] = []
    index: list[int] = []
    prev_space = True
    for i, ch in enumerate(text):
        if ch.isspace():
            if not prev_space:
                out.append(" ")
                index.append(i)
            prev_space = True
            continue
        out.append(ch.lower())
        index.append(i)
        prev_space = False
    return "".join(out), index


def find_verbatim(quote: str, text: str) -> tuple[int, int] | None:
    """Span of `quote` in `text`, tolerant of case and whitespace only; None if absent."""
    q, _ = _fold(quote.strip())
    if not q:
        return None
    t, index = _fold(text)
    pos = t.find(q.strip())
    if pos < 0:
        return None
    end = pos + len(q.strip()) - 1
    return index[pos], index[end] + 1
