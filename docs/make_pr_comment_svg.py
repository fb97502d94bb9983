"""Draw docs/pr-comment.svg: the sticky PR comment the Action posts, from a real `citecheck demo` run,
and docs/pr-suggestion.svg: one comment of the review of suggested changes it posts beside it.

The body is the real one: `citecheck.github.publish.comment_body` on the report `citecheck demo`
makes (the bundled document against its bundled sources, judge off), as the Action posts it on a
PR that adds that document, so every `file:line` links into the PR's diff. This script only lays
its Markdown out the way GitHub shows a comment — the outcome line first, Verified Claims folded
in a closed `<details>`, links in blue — so the README's picture is the output, not a drawing of
it. The review comment is the real one too (`citecheck.github.review.comment_text` on the demo's
wrong figure and its fix), laid out as GitHub shows a suggestion: the line as it is, in red, the
line as the suggestion makes it, in green. `tests/e2e/test_pr_comment_svg.py` fails when a
committed image is not what this script makes now. Run: `python docs/make_pr_comment_svg.py` (no
key, no internet).
"""

from __future__ import annotations

import re
import sys
from html import escape, unescape
from pathlib import Path

from citecheck.demo import DEMO_HOST, run_demo
from citecheck.github.publish import DiffLinks, comment_body
from citecheck.github.review import ReviewOutcome, comment_text, suggestion_key, suggestions_note
from citecheck.models import ClaimResult, Report
from citecheck.redact import Redactor

WIDTH = 980
WRAP = 118  # characters of body text per line at 13px
OUT = Path(__file__).with_name("pr-comment.svg")
OUT_REVIEW = Path(__file__).with_name("pr-suggestion.svg")
CODE_WRAP = 120  # characters of a suggestion's code per line at 12px monospace
DEMO_FILE = "examples/demo.md"
# The PR the picture shows: it adds the demo document, so the diff shows every line of it.
SERVER, REPOSITORY, NUMBER, HEAD_SHA = "https://github.com", "octo-org/docs", 42, "0" * 40

# Inline Markdown of a report line: an autolink, a link, an escaped character, or plain text.
_INLINE = re.compile(r"<(https?://[^>]+)>|\[((?:\\.|[^\]\\])*)\]\([^)]*\)|\\(.)|([^<\[\\]+|.)")

Run = tuple[str, str]  # (text, style): style "" or "link"


def _runs(markdown: str) -> list[Run]:
    """What a reader sees of one line of inline Markdown, with the links marked."""
    runs: list[Run] = []
    for auto, label, escaped, text in _INLINE.findall(markdown.replace("\u200b", "")):
        if auto:
            runs.append((auto, "link"))
        elif label:
            runs.append((re.sub(r"\\(.)", r"\1", label), "link"))
        else:
            runs.append((escaped or unescape(text), ""))
    return runs


def _wrap(runs: list[Run], width: int) -> list[list[Run]]:
    """Word-wrap styled text to `width` characters a row."""
    words: list[Run] = []
    for text, style in runs:
        for i, part in enumerate(re.split(r"(?<= )", text)):
            if not part:
                continue
            if i == 0 and words and not words[-1][0].endswith(" ") and words[-1][1] == style:
                words[-1] = (words[-1][0] + part, style)
            else:
                words.append((part, style))
    rows: list[list[Run]] = [[]]
    used = 0
    for word, style in words:
        if used and used + len(word.rstrip()) > width:
            rows.append([])
            used = 0
        rows[-1].append((word, style))
        used += len(word)
    return rows


def layout(body: str) -> list[tuple[str, list[Run]]]:
    """The comment's rows as GitHub shows them (folded <details> show their summary only)."""
    rows: list[tuple[str, list[Run]]] = []
    lines = body.splitlines()
    i = 0
    first_paragraph = True
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("<!--"):
            continue
        folded = re.fullmatch(r"<details><summary>(.*)</summary>", line)
        if folded:
            rows.append(("summary", [(f"▸ {folded[1]}", "")]))
            while i < len(lines) and lines[i].strip() != "</details>":
                i += 1
            i += 1
        elif line.startswith("## "):
            rows.append(("h2", _runs(line[3:])))
        elif line.startswith("### "):
            rows.append(("h3", _runs(line[4:])))
        elif line.startswith("- "):
            wrapped = _wrap(_runs(line[2:]), WRAP)
            rows.append(("li", wrapped[0]))
            rows.extend(("cont", w) for w in wrapped[1:])
        elif first_paragraph:
            rows.append(("headline", _runs(line)))
        elif line.startswith("*") and line.endswith("*"):
            rows.extend(("note", w) for w in _wrap(_runs(line[1:-1]), WRAP + 2))
        else:
            rows.extend(("p", w) for w in _wrap(_runs(line), WRAP + 2))
        first_paragraph = False
    return rows


def _text(x: int, y: int, cls: str, runs: list[Run]) -> str:
    spans = "".join(
        f'<tspan class="link">{escape(t, quote=False)}</tspan>' if s else escape(t, quote=False)
        for t, s in runs
    )
    return f'<text x="{x}" y="{y}" class="{cls}" xml:space="preserve">{spans}</text>'


def render(body: str) -> str:
    y = 70
    parts: list[str] = []
    for style, runs in layout(body):
        if style == "headline":
            y += 4
            parts.append(_text(32, y, "headline", runs))
            y += 20
        elif style == "h2":
            y += 14
            parts.append(_text(32, y, "h2", runs))
            y += 10
            parts.append(f'<line x1="32" y1="{y}" x2="{WIDTH - 32}" y2="{y}" class="rule"/>')
            y += 24
        elif style == "h3":
            y += 12
            parts.append(_text(32, y, "h3", runs))
            y += 24
        elif style == "summary":
            parts.append(_text(32, y, "summary", runs))
            y += 24
        elif style == "li":
            parts.append(f'<circle cx="44" cy="{y - 4}" r="2.5" class="dot"/>')
            parts.append(_text(56, y, "body", runs))
            y += 20
        elif style == "cont":
            parts.append(_text(56, y, "body", runs))
            y += 20
        else:
            parts.append(_text(32, y, "note" if style == "note" else "body", runs))
            y += 20
    height = y + 20
    header = (
        f'<rect x="0.5" y="0.5" width="{WIDTH - 1}" height="{height - 1}" rx="6" class="frame"/>'
        f'<path d="M0.5 6.5a6 6 0 0 1 6-6h{WIDTH - 13}a6 6 0 0 1 6 6v33h-{WIDTH - 1}z" class="head"/>'
        '<text x="16" y="26" class="who">github-actions <tspan class="bot">bot</tspan>'
        ' <tspan class="muted">commented · edited</tspan></text>'
    )
    style = (
        "<style>"
        "text{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:13px;fill:#1f2328}"
        ".frame{fill:#fff;stroke:#d0d7de}.head{fill:#f6f8fa;stroke:#d0d7de}.rule{stroke:#d8dee4}"
        ".who{font-weight:600}.bot{font-weight:400;font-size:11px;fill:#59636e}.muted{font-weight:400;fill:#59636e}"
        ".headline{fill:#1f2328}"  # a plain paragraph, as GitHub shows the first line
        ".h2{font-size:20px;font-weight:600}.h3{font-size:15px;font-weight:600}"
        ".summary{fill:#1f2328;cursor:pointer}.link{fill:#0969da}"
        ".body{fill:#1f2328}.note{fill:#59636e;font-style:italic}"
        ".dot{fill:#1f2328}"
        "</style>"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="citecheck PR comment">'
        f"{style}{header}{''.join(parts)}</svg>\n"
    )


def _demo() -> Report:
    return run_demo(Redactor())  # the demo has no secret


def _local(text: str) -> str:
    return re.sub(r"http://127\.0\.0\.1:\d+/", DEMO_HOST, text)  # the demo's own server, a new port each run


def comment(report: Report | None = None) -> str:
    """The comment the Action would post for the demo run, on a PR adding the demo document,
    with the review of its suggested changes posted."""
    report = report or _demo()
    lines = {c.line for c in report.claims}
    shown = {DEMO_FILE: {n: n for n in range(1, max(lines, default=0) + 1)}}  # an added file: all shown
    links = DiffLinks(SERVER, REPOSITORY, NUMBER, HEAD_SHA, shown)
    hint = f"the [job summary]({SERVER}/{REPOSITORY}/actions/runs/1)"
    posted = ReviewOutcome(posted=sum(1 for c in report.claims if c.suggestion is not None))
    body = comment_body(report, hint=hint, link=links, notes=[suggestions_note(posted)])
    return _local(body)


def suggested(report: Report | None = None) -> tuple[ClaimResult, str]:
    """The demo's first claim with a suggested change, and its review comment as posted."""
    report = report or _demo()
    claim = next(c for c in report.claims if c.suggestion is not None)
    assert claim.suggestion is not None
    return claim, _local(comment_text(claim, claim.suggestion, suggestion_key(claim, claim.suggestion)))


def _code(x: int, y: int, cls: str, sign: str, text: str) -> tuple[list[str], int]:
    """A diff line of a suggestion, wrapped, on its coloured band; returns its parts and the next y."""
    rows = [text[i : i + CODE_WRAP] for i in range(0, max(len(text), 1), CODE_WRAP)]
    parts = [
        f'<rect x="{x}" y="{y - 15}" width="{WIDTH - 2 * x}" height="{20 * len(rows)}" class="{cls}bg"/>'
    ]
    for n, row in enumerate(rows):
        mark = sign if n == 0 else " "
        parts.append(
            f'<text x="{x + 8}" y="{y}" class="code" xml:space="preserve">'
            f"{escape(mark + ' ' + row, quote=False)}</text>"
        )
        y += 20
    return parts, y


def render_review(claim: ClaimResult, body: str) -> str:
    """The review comment as GitHub shows a suggestion: the file and line, who commented, the
    text, the suggested change (the line as it is and as it would be), the evidence."""
    assert claim.suggestion is not None
    lines = body.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("`") == "suggestion") + 1
    end = next(i for i in range(start, len(lines)) if set(lines[i]) == {"`"})
    before, after = [_local(line) for line in claim.suggestion.lines], lines[start:end]
    prose = [line for line in lines if line and not line.startswith("<!--")]
    y = 84
    bold, _, rest = prose[0].removeprefix("**").partition("**")
    parts = [
        f'<text x="32" y="{y}" class="body" xml:space="preserve"><tspan class="bold">{escape(bold)}</tspan>'
        f"{''.join(escape(t, quote=False) for t, _ in _runs(rest))}</text>"
    ]
    y += 30
    box = y - 20
    parts.append(_text(40, y, "muted", [("Suggested change", "")]))
    y += 26
    for text in before:
        more, y = _code(32, y, "del", "-", text)
        parts += more
    for text in after:
        more, y = _code(32, y, "add", "+", text)
        parts += more
    parts.insert(
        0, f'<rect x="24.5" y="{box}.5" width="{WIDTH - 49}" height="{y - box - 6}" rx="6" class="box"/>'
    )
    y += 14
    for row in _wrap(_runs(lines[end + 2]), WRAP + 2):
        parts.append(_text(32, y, "body", row))
        y += 20
    y += 6
    parts.append(f'<rect x="{WIDTH - 196}.5" y="{y - 16}.5" width="164" height="28" rx="6" class="button"/>')
    parts.append(_text(WIDTH - 182, y + 3, "buttontext", [("Commit suggestion", "")]))
    height = y + 34
    where = f"{claim.suggestion.file} · line {claim.suggestion.line}"
    header = (
        f'<rect x="0.5" y="0.5" width="{WIDTH - 1}" height="{height - 1}" rx="6" class="frame"/>'
        f'<path d="M0.5 6.5a6 6 0 0 1 6-6h{WIDTH - 13}a6 6 0 0 1 6 6v33h-{WIDTH - 1}z" class="head"/>'
        f'<text x="16" y="26" class="who">{escape(where, quote=False)}</text>'
        '<text x="16" y="60" class="who">github-actions <tspan class="bot">bot</tspan>'
        ' <tspan class="muted">reviewed · suggested change</tspan></text>'
    )
    style = (
        "<style>"
        "text{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:13px;fill:#1f2328}"
        ".frame{fill:#fff;stroke:#d0d7de}.head{fill:#f6f8fa;stroke:#d0d7de}.box{fill:#fff;stroke:#d0d7de}"
        ".who{font-weight:600}.bot{font-weight:400;font-size:11px;fill:#59636e}.muted{font-weight:400;fill:#59636e}"
        ".bold{font-weight:600}.body{fill:#1f2328}.link{fill:#0969da}"
        ".code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}"
        ".delbg{fill:#ffebe9}.addbg{fill:#dafbe1}"
        ".button{fill:#f6f8fa;stroke:#d0d7de}.buttontext{font-weight:600}"
        "</style>"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="citecheck suggested change">'
        f"{style}{header}{''.join(parts)}</svg>\n"
    )


def build_both() -> tuple[str, str]:
    """Both pictures, from one demo run."""
    report = _demo()
    return render(comment(report)), render_review(*suggested(report))


def build() -> str:
    return build_both()[0]


def main() -> None:
    for out, svg in zip((OUT, OUT_REVIEW), build_both(), strict=True):
        out.write_text(svg, encoding="utf-8")
        print(f"wrote {out} ({len(svg)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
