"""Draw docs/pr-comment.svg: the sticky PR comment the Action posts, for the bundled demo.

The body is the real one (`citecheck.github.publish.comment_body` on the `citecheck demo` report);
this script only lays its Markdown out the way GitHub shows a comment, so the README's picture
stays true to the output. Run: `python docs/make_pr_comment_svg.py` (no key, no internet).
"""

from __future__ import annotations

import re
import textwrap
from html import escape
from pathlib import Path

from citecheck.demo import DEMO_HOST, run_demo
from citecheck.github.publish import COMMENT_MARKER, comment_body

WIDTH = 980
WRAP = 118  # characters of body text per line at 13px monospace-ish width
OUT = Path(__file__).with_name("pr-comment.svg")


def _plain(md: str) -> str:
    """Inline Markdown → the text a reader sees (escapes, autolinks, emphasis)."""
    text = re.sub(r"<(https?://[^>]+)>", r"\1", md)
    text = re.sub(r"\[([^\]]*)\]\(([^)]*)\)", r"\1", text)
    text = re.sub(r"\\(.)", r"\1", text)
    text = text.replace("\u200b", "")
    return re.sub(r"(?<!\w)[*_]([^*_]+)[*_](?!\w)", r"\1", text)


def render(body: str) -> str:
    rows: list[tuple[str, str]] = []  # (style, text)
    for line in body.splitlines():
        if not line.strip() or line.strip() == COMMENT_MARKER:
            continue
        if line.startswith("## "):
            rows.append(("h2", _plain(line[3:])))
        elif line.startswith("### "):
            rows.append(("h3", _plain(line[4:])))
        elif line.startswith("- "):
            wrapped = textwrap.wrap(_plain(line[2:]), WRAP) or [""]
            rows.append(("li", wrapped[0]))
            rows.extend(("cont", w) for w in wrapped[1:])
        else:
            rows.extend(("p", w) for w in textwrap.wrap(_plain(line), WRAP + 2))
    y = 70
    parts: list[str] = []
    for style, text in rows:
        t = escape(text)
        if style == "h2":
            y += 14
            parts.append(f'<text x="32" y="{y}" class="h2">{t}</text>')
            y += 10
            parts.append(f'<line x1="32" y1="{y}" x2="{WIDTH - 32}" y2="{y}" class="rule"/>')
            y += 24
        elif style == "h3":
            y += 12
            parts.append(f'<text x="32" y="{y}" class="h3">{t}</text>')
            y += 24
        elif style == "li":
            parts.append(f'<circle cx="44" cy="{y - 4}" r="2.5" class="dot"/>')
            parts.append(f'<text x="56" y="{y}" class="body">{t}</text>')
            y += 20
        elif style == "cont":
            parts.append(f'<text x="56" y="{y}" class="body">{t}</text>')
            y += 20
        else:
            parts.append(f'<text x="32" y="{y}" class="note">{t}</text>')
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
        ".h2{font-size:20px;font-weight:600}.h3{font-size:15px;font-weight:600}"
        ".body{fill:#1f2328}.note{fill:#59636e;font-style:italic}"
        ".dot{fill:#1f2328}"
        "</style>"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="citecheck PR comment">'
        f"{style}{header}{''.join(parts)}</svg>\n"
    )


def main() -> None:
    report = run_demo()
    body = comment_body(report, hint="the job summary")
    body = re.sub(r"http://127\.0\.0\.1:\d+/", DEMO_HOST, body)
    OUT.write_text(render(body), encoding="utf-8")
    print(f"wrote {OUT} ({len(body)} characters of comment)")


if __name__ == "__main__":
    main()
