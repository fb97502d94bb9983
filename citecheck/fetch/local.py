"""A file of the checkout read as a source, like a page (`citecheck.fetch.site` found it).

Its key is its path from the checkout's root with the link's anchor, "docs/reference/config.md
#timeout"; the report names the source so. The file is read under the workspace rules
(`safe_paths.read_in_tree`: no path out of the checkout, nothing under `.git`, no symbolic link
out of the tree) and up to `max_source_bytes`, as a fetched page's body is (beyond, it is cut
and marked truncated); then its text is made where a page's is — in an extraction worker,
under the source's deadline, with the claims' checks (`content.run_read`):

- Markdown (`.md`, `.mdx`, `.markdown`): template and MDX markup blanked
  (`citecheck.extract.markup`), the part of the page the anchor names cut out
  (`citecheck.extract.anchors.section`; an anchor it does not declare leaves the whole page), a
  Jekyll page's `{% include_relative %}` parts put in place, then rendered (markdown-it) and
  read as a reader sees it (`content.visible_text`);
- a Jupyter notebook (`.ipynb`) as the Markdown of its Markdown cells (`site.notebook_markdown`);
- HTML and PDF as a fetched page of the kind; plain text as it is.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from citecheck.errors import UnsafePathError
from citecheck.extract import anchors
from citecheck.extract.markup import blank_markup, blank_non_markdown, drop_fill
from citecheck.fetch.content import ExtractedContent, Read, extract_html, pdf_content, visible_text
from citecheck.fetch.site import MARKDOWN_PAGES, NOTEBOOK, notebook_markdown
from citecheck.models import FetchedSource, FetchOutcome, SourceInfo
from citecheck.safe_paths import read_in_tree

_INCLUDE_LINE = re.compile(r"\{%-?\s*include_relative\s+([^\s%]{1,300})\s*-?%\}")
MAX_PARTS = 100  # parts one assembled page puts in place


@dataclass(frozen=True)
class LocalPages:
    """The checkout's pages a run reads, by key ("docs/x.md#timeout"), and where it is."""

    root: Path
    keys: frozenset[str]


def read_page(root: Path, key: str, max_bytes: int) -> FetchedSource | tuple[SourceInfo, Read, int]:
    """The page `key` names: what reads its text, its `SourceInfo` and its size; or, when it
    cannot be read, the source saying why."""
    rel, _, anchor = key.partition("#")
    info = SourceInfo(url=key)
    try:
        data = read_in_tree(root, rel, max_bytes)
    except FileNotFoundError:
        return FetchedSource(
            info=info, outcome=FetchOutcome.unreachable, error=f"no file {rel} in the checkout"
        )
    except UnsafePathError as exc:
        return FetchedSource(info=info, outcome=FetchOutcome.disallowed, error=exc.message)
    except OSError as exc:
        return FetchedSource(
            info=info, outcome=FetchOutcome.unreachable, error=f"cannot read {rel}: {exc.strerror or exc}"
        )
    truncated = len(data) > max_bytes
    data = data[:max_bytes]
    low = rel.lower()
    kinds = {".pdf": "application/pdf", ".html": "text/html", ".htm": "text/html"}
    kind = (
        "text/markdown"
        if low.endswith((*MARKDOWN_PAGES, NOTEBOOK))
        else kinds.get(posixpath.splitext(low)[1], "text/plain")
    )
    info = info.model_copy(update={"content_type": kind, "bytes_fetched": len(data), "truncated": truncated})
    text = data.decode("utf-8", "replace")
    if low.endswith(NOTEBOOK):
        text = notebook_markdown(text)
    read: Read
    if kind == "text/markdown":
        if "include_relative" in text and not anchor:
            text = _assembled(root, rel, text, max_bytes)
        read = functools.partial(markdown_content, text, anchor, low.endswith(".mdx"))
    elif kind == "text/html":
        read = functools.partial(extract_html, text, None)
    elif kind == "application/pdf":
        read = functools.partial(pdf_content, data)
    else:
        read = functools.partial(ExtractedContent, text, None, None, None, "text")
    return info, read, len(data)


def _assembled(root: Path, rel: str, text: str, max_bytes: int) -> str:
    """A Jekyll page with its `include_relative` parts put in place, up to `max_bytes` in all."""
    folder = posixpath.dirname(rel)
    budget = [max_bytes - len(text), MAX_PARTS]

    def part(m: re.Match[str]) -> str:
        name = posixpath.normpath(posixpath.join(folder or ".", m.group(1)))
        if budget[0] <= 0 or budget[1] <= 0 or name.startswith(".."):
            return ""
        budget[1] -= 1
        try:
            body = read_in_tree(root, name, budget[0])[: budget[0]].decode("utf-8", "replace")
        except (OSError, UnsafePathError):
            return ""
        budget[0] -= len(body)
        return "\n" + body + "\n"

    return _INCLUDE_LINE.sub(part, text)


def markdown_content(text: str, anchor: str, mdx: bool) -> ExtractedContent:
    """The text a reader sees of a Markdown page, or of the part `anchor` names (see the
    module's docstring); its title is the part's first heading."""
    lines = text.split("\n")
    span = anchors.section(lines, anchor) if anchor else None
    if span is not None:
        lines = lines[span[0] : span[1]]
    found = anchors.headings(lines)
    title = None
    if found:
        title = " ".join(re.sub(r"\{[^}]*\}|<[^>]*>|#+", " ", lines[found[0].line]).split()) or None
    source = blank_markup(blank_non_markdown("\n".join(lines), mdx=mdx), mdx=mdx)
    html = _renderer().render(source)
    return ExtractedContent(text=visible_text(drop_fill(html)), title=title, kind="text")


@functools.cache
def _renderer():  # type: ignore[no-untyped-def]
    """markdown-it as the extraction's parser reads a page (tables, footnotes, admonitions,
    containers, HTML), rendering HTML; built once a process."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.admon import admon_plugin
    from mdit_py_plugins.container import container_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin

    return (
        MarkdownIt("commonmark", {"html": True})
        .enable(["table", "strikethrough"])
        .use(front_matter_plugin)
        .use(footnote_plugin)
        .use(container_plugin, name="div", validate=lambda params, markup: True)
        .use(admon_plugin)
    )
