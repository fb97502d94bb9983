"""What a citation form is: the entries of the registry in `citecheck.extract.citations`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from citecheck.models import CitationKind


@dataclass(frozen=True, slots=True)
class Hit:
    """One citation of a form found in running text."""

    start: int  # offsets in the text searched
    end: int
    raw: str  # as written, sentence punctuation trimmed
    url: str  # the web URL it names (a bare URL as written; identifiers already canonical)
    identifier: str | None = None


# A web URL → (identifier, canonical URL) when the URL is one of the form's (None: not one).
Canonicalizer = Callable[[str], tuple[str, str] | None]
Finder = Callable[[str], Iterator[Hit]]


@dataclass(frozen=True)
class CitationForm:
    """One way of citing a source. The extractor knows a form only through this entry.

    `gate` holds regex alternatives, one of which a block's raw Markdown matches whenever the form
    may be in it; the parse gate is the union of every form's gate, so a registered form is never skipped
    unparsed. `find` (running-text forms) finds the form in a block's visible text, after the
    cheap test `needles` (lower-case substrings, one of which the visible text must hold);
    structural forms (links, footnotes, `[N]`, author-year) have no `find`: the document walk
    and `citecheck.extract.resolve` find them. `canonical` recognises the form's web URLs
    (a link's target, a bare URL) and gives their canonical URL. `content`: the citation's text
    is what the claim says (a link's text) rather than a marker. `marker` matches the form's
    marker text wherever it stands, even as a link's text or when no citation was kept: it is
    never a year or a figure, so the checks blank it (`text_without_citations`), and for a
    running-text form kind detection does not read it either.
    """

    name: str
    kind: CitationKind
    gate: tuple[str, ...]
    content: bool = False
    find: Finder | None = None
    needles: tuple[str, ...] = ()
    canonical: Canonicalizer | None = None
    marker: re.Pattern[str] | None = None

    def hits(self, text: str) -> Iterator[Hit]:
        """Where the form stands in `text` (nothing for a structural form)."""
        return self.find(text) if self.find is not None else iter(())

    def may_occur(self, lower_text: str) -> bool:
        """The cheap test before `find`: False means `find` finds nothing in this text."""
        return any(n in lower_text for n in self.needles)
