"""A claim's fix, made once from the check that contradicted it: the page's own words in place
of the claim's, where the claim's words are written in the file (`Suggestion`).

Only a claim a deterministic check failed (`decided_by` number, date or quote, the result
`contradicted`) with the page's words in hand (`CheckResult.page_value`) gets one; a judge's
verdict never does (it has no exact text to offer). The check says which of the claim's words
are wrong (`claim_span` in the claim's text, as a reader sees it); the file says them with its
Markdown around them (`About **70%** of [contributors](…)`). The span is found in the file's
lines from the claim's line and column on, in its paragraph, by two readings that must agree:

- the span's own words, whole, counted among those a reader sees (not in a link's target or
  title, an HTML tag or comment): the claim's n-th occurrence of them is the paragraph's n-th;
- the claim's text around the span aligned with the paragraph's around that occurrence
  (difflib: the Markdown around the words is what does not match), which must put the span
  there. Both texts are windows of bounded size, so a long or repetitive paragraph costs no
  more than a short one.

When they disagree (the same words in an image's text before them, say), or either finds
nothing, or the words are not written as the claim reads them (`**70**%`), there is no
suggestion: a fix applied at the wrong place would be worse than none. The file's lines must
read as text (UTF-8, no control or bidi character), since a suggestion replaces them whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from pathlib import Path

from citecheck.models import (
    CheckOutcome,
    CheckResult,
    ClaimResult,
    DecidedBy,
    SelectedFile,
    Suggestion,
    Verdict,
)

FIXING_CHECKS = frozenset({DecidedBy.number, DecidedBy.date, DecidedBy.quote})
# How far past the claim's start its words may be written: its reader's text is shorter than
# its Markdown (link targets, emphasis), seldom by more than this.
RAW_SPAN_FACTOR = 4
RAW_SPAN_SLACK = 400
MAX_REPLACEMENT_CHARS = 200
MAX_SPAN_CHARS = 200
CONTEXT = 48  # characters of the claim's text either side of the span that are aligned
# What a reader does not see of a paragraph's Markdown: a link's target and title, an
# autolink's brackets and address, an HTML tag, a reference link's label (linear patterns).
_HIDDEN = re.compile(
    r"\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
    r"|<[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]*>|<[A-Za-z/!][^<>]*>|\]\[[^\[\]]*\]"
)
# Characters a suggestion may not carry: control characters (tab aside) and bidi controls,
# which would make a line read otherwise than it is, and line breaks.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def contradiction(claim: ClaimResult) -> CheckResult | None:
    """The check result a fix is made of: the contradiction that failed the claim, when a
    check (not the judge) decided it and gave the page's words (None otherwise)."""
    if claim.verdict != Verdict.fail or claim.decided_by not in FIXING_CHECKS:
        return None
    result = next((c for c in claim.checks if c.outcome == CheckOutcome.contradicted), None)
    if result is None or result.name != claim.decided_by:
        return None
    if not (result.page_value and result.claim_span and result.claim_value and result.evidence):
        return None
    return result


def _occurrences(words: str, text: str) -> list[re.Match[str]]:
    """`words` in `text` as whole words, any run of whitespace between them."""
    parts = [re.escape(w) for w in words.split()]
    if not parts:
        return []
    pattern = r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)"
    return list(re.finditer(pattern, text))


def _shown(raw: str, found: list[re.Match[str]]) -> list[re.Match[str]]:
    """The occurrences a reader sees: not in a link's target or title, an autolink's angle
    brackets or an HTML tag (`_HIDDEN`)."""
    hidden = [(m.start(), m.end()) for m in _HIDDEN.finditer(raw)]
    return [m for m in found if not any(a < m.end() and m.start() < b for a, b in hidden)]


def _aligned(
    claim_text: str, start: int, end: int, raw: str, near: tuple[int, int]
) -> tuple[int, int] | None:
    """Where the claim's characters `start`..`end` are in `raw`, by aligning the claim's text
    around them (`CONTEXT` characters either side) with the raw text around `near` (None: some
    of them match nothing there). Both windows are bounded: difflib's cost grows with the
    product of their lengths, and worse on repetitive text a PR may write."""
    c0, c1 = max(0, start - CONTEXT), min(len(claim_text), end + CONTEXT)
    r0, r1 = max(0, near[0] - RAW_SPAN_FACTOR * CONTEXT), min(len(raw), near[1] + RAW_SPAN_FACTOR * CONTEXT)
    blocks = SequenceMatcher(None, claim_text[c0:c1], raw[r0:r1], autojunk=False).get_matching_blocks()

    def at(i: int) -> int | None:
        return next((r0 + b + i - c0 - a for a, b, size in blocks if a <= i - c0 < a + size), None)

    first, last = at(start), at(end - 1)
    if first is None or last is None or last < first:
        return None
    return first, last + 1


def locate(claim: ClaimResult, span: tuple[int, int], lines: list[str]) -> tuple[int, int, int, int] | None:
    """Where the claim's characters `span` are written in the file's `lines` (1-based line and
    column of the first, and of the one past the last), read in the claim's paragraph from its
    line and column on; None when the two readings (see the module's docstring) disagree."""
    start, end = span
    words = claim.text[start:end]
    if not words.strip() or end - start > MAX_SPAN_CHARS or not 1 <= claim.line <= len(lines):
        return None
    mine = [m.start() for m in _occurrences(words, claim.text)]
    if start not in mine:
        return None
    nth = mine.index(start)
    # The paragraph from the claim's start: up to a blank line, and not much longer than the claim.
    limit = RAW_SPAN_FACTOR * len(claim.text) + RAW_SPAN_SLACK
    offset = claim.column - 1
    paragraph = [lines[claim.line - 1][offset:]]
    size = len(paragraph[0])
    for line in lines[claim.line :]:
        if not line.strip() or size > limit:
            break
        paragraph.append(line)
        size += len(line) + 1
    raw = "\n".join(paragraph)
    found = _shown(raw, _occurrences(words, raw))
    if nth >= len(found):
        return None
    candidate = found[nth].start(), found[nth].end()
    if _aligned(claim.text, start, end, raw, candidate) != candidate:
        return None
    return _position(candidate[0], paragraph, claim.line, offset) + _position(
        candidate[1], paragraph, claim.line, offset
    )


def _position(index: int, paragraph: list[str], first_line: int, offset: int) -> tuple[int, int]:
    """The 1-based line and column of `index` in the paragraph's text."""
    for n, text in enumerate(paragraph):
        if index <= len(text):
            return first_line + n, index + 1 + (offset if n == 0 else 0)
        index -= len(text) + 1
    raise ValueError("index past the paragraph")  # pragma: no cover - callers index inside it


def suggestion_for(claim: ClaimResult, lines: list[str]) -> Suggestion | None:
    """The claim's fix in the file of `lines` (its text split at `\\n`), or None (see the
    module's docstring for when)."""
    result = contradiction(claim)
    if result is None or result.claim_span is None or result.page_value is None:
        return None
    start, end = result.claim_span
    if claim.text[start:end] != result.claim_value:
        return None  # the check read another text than the claim's
    replacement = " ".join(result.page_value.split())
    if not replacement or len(replacement) > MAX_REPLACEMENT_CHARS or _UNSAFE.search(replacement):
        return None
    where = locate(claim, (start, end), lines)
    if where is None:
        return None
    line, column, end_line, end_column = where
    shown = lines[line - 1 : end_line]
    if any(_UNSAFE.search(text.removesuffix("\r")) for text in shown):
        return None
    joined = "\n".join(shown)
    original = joined[column - 1 : len(joined) - len(shown[-1]) + end_column - 1]
    if original.split() == replacement.split():
        return None
    return Suggestion(
        file=claim.file,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        original=original,
        replacement=replacement,
        lines=shown,
        evidence=result.evidence or "",
        check=result.name,
    )


def read_lines(path: Path, max_bytes: int) -> list[str] | None:
    """A file's lines as the extraction read them (UTF-8, split at `\\n`), or None when it
    does not read as UTF-8 text within `max_bytes`: a fix would not be written back as it is."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError:
        return None
    if len(data) > max_bytes or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None


def with_suggestions(
    results: Iterable[ClaimResult], files: Iterable[SelectedFile], max_bytes: int
) -> list[ClaimResult]:
    """The results, each a check contradicted with the page's words carrying its fix; each
    file with such a claim is read once, from where the run read it."""
    results = list(results)
    wanted = {c.file for c in results if contradiction(c) is not None}
    if not wanted:
        return results
    paths = {f.display: Path(f.path) for f in files if f.display in wanted}
    texts = {name: read_lines(path, max_bytes) for name, path in paths.items()}
    out: list[ClaimResult] = []
    for claim in results:
        lines = texts.get(claim.file) if claim.file in wanted else None
        fix = suggestion_for(claim, lines) if lines is not None else None
        out.append(claim.model_copy(update={"suggestion": fix}) if fix is not None else claim)
    return out
