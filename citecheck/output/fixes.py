"""The report's fixes (`ClaimResult.suggestion`) applied to a file's text, and the diff that shows
them: what `citecheck check --fix` shows, asks about and writes.

A fix is applied only where the file still reads as it did when the run made it: its lines
(`Suggestion.lines`) and its words (`original`) where the fix says. One that does not (the file
changed since, or the report's text was redacted: a secret in the line) is left out and named;
so is one that overlaps another in the same file (the first, in reading order, is kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import unified_diff

from citecheck.models import Report, Suggestion


@dataclass
class FileFix:
    """A file's text before and after its fixes."""

    file: str
    before: str
    after: str
    applied: list[Suggestion] = field(default_factory=list)
    # left out: the file no longer reads as the fix says, or a fix before it overlaps it
    skipped: list[Suggestion] = field(default_factory=list)

    def diff(self) -> str:
        """The change as a unified diff (`a/` and `b/` the file as the report names it)."""
        lines = unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=f"a/{self.file}",
            tofile=f"b/{self.file}",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
        )


def by_file(report: Report) -> dict[str, list[Suggestion]]:
    """The report's fixes, by file in report order."""
    out: dict[str, list[Suggestion]] = {}
    for claim in report.claims:
        if claim.suggestion is not None:
            out.setdefault(claim.suggestion.file, []).append(claim.suggestion)
    return out


def _offset(lines: Sequence[str], line: int, column: int) -> int:
    return sum(len(text) + 1 for text in lines[: line - 1]) + column - 1


def fix_text(file: str, text: str, suggestions: Iterable[Suggestion]) -> FileFix:
    """`text` (the file's, as UTF-8 text) with each fix that still applies (see the module's
    docstring) applied."""
    lines = text.split("\n")
    spans: list[tuple[int, int, Suggestion]] = []
    result = FileFix(file, text, text)
    for s in sorted(suggestions, key=lambda s: (s.line, s.column)):
        start, end = _offset(lines, s.line, s.column), _offset(lines, s.end_line, s.end_column)
        stale = lines[s.line - 1 : s.end_line] != s.lines or text[start:end] != s.original
        if stale or (spans and start < spans[-1][1]):
            result.skipped.append(s)
        else:
            spans.append((start, end, s))
    after = text
    for start, end, s in reversed(spans):
        after = after[:start] + s.replacement + after[end:]
    result.after = after
    result.applied = [s for _, _, s in spans]
    return result
