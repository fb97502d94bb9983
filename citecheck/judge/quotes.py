"""Finding the judge's evidence quote on the page (docs/ARCHITECTURE.md, the judge stage).

A "supported" verdict counts only when its quote is found verbatim in the source text;
the report then shows the page's own text of it, not the model's rendering.
"""

from __future__ import annotations

from citecheck.checks.passages import find_verbatim
from citecheck.judge.prompt import EXCERPT_GAP

# Typographic characters models often straighten when quoting; one character each way, so
# offsets found in the translated text are valid in the original.
_TYPOGRAPHY = str.maketrans({"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "–": "-", "—": "-"})


def locate_quote(quote: str, source_text: str, excerpt: str = "") -> str | None:
    """The page's own text of `quote` (case-, whitespace- and quote-mark-tolerant), or None.

    Looks in the excerpt the judge saw first (small), then in the whole source text.
    """
    if not quote.strip():
        return None
    q = quote.translate(_TYPOGRAPHY)
    for text in (excerpt, source_text):
        if not text:
            continue
        span = find_verbatim(q, text.translate(_TYPOGRAPHY))
        if span is not None:
            found = text[span[0] : span[1]]
            if EXCERPT_GAP.strip() not in found or text is source_text:
                return found
    return None
