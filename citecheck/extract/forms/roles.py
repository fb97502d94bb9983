"""Bibliography roles and cross-reference roles.

Bibliography roles: MyST's `` {cite}`key` ``, `` {cite:p}`a,b` ``, `` {cite:t}`key` ``,
`` {footcite}`key` `` (Jupyter Book, Sphinx with sphinxcontrib-bibtex) and the reStructuredText
form d2lbook and Sphinx-flavoured Markdown write, `` :cite:`a,b` ``, `` :citet:`key` ``,
`` :citep:`key` ``, and Jekyll-Scholar's Liquid tag, `{% cite key1 key2 %}`.

A role is a marker, not text: the parser's `cite_role` rule takes it out of the claim's text, and
each key resolves as a pandoc key does (`citecheck.extract.resolve.pandoc_citation`) through the
BibTeX files the project configures (`citecheck.extract.bibliography`: `bibtex_bibfiles` in a
Jupyter Book `_config.yml` or a Sphinx `conf.py`, `bibfile` in a d2lbook `config.ini`,
`bibliography` in a MyST `myst.yml`, Jekyll-Scholar's `scholar:` `source` and `bibliography` in a
Jekyll `_config.yml`). A key none of them resolves is kept as an error citation with the reason,
as an undefined `[N]` is. A Jekyll-Scholar tag's options (`--file other`, `-l 23`) are not keys;
a key it looks up in another file (`--file`) is looked up in the configured one.

Cross-reference roles (MyST, Sphinx): `` {doc}`physgrad` ``, `` {doc}`the guide <../guide>` ``,
`` {ref}`label` ``, `` {numref}`Figure %s <label>` ``, `` {eq}`label` `` and their
reStructuredText spellings (`` :doc:`x` ``, `` :ref:`x` ``), and LaTeX's, which pandoc and
Jupyter Book pass through in Markdown (`\\ref{fig:x}`, `\\eqref{eq:x}`, `\\cref{…}`). They are
links to the project's own pages written as roles: the parser's `xref_role` rule gives each the
link tokens of `[text](target)` (a `{doc}` role's target is a page, the others' an anchor,
`#label`), so every link rule downstream (an internal citation, the anchor's section, the
reference entry it names) reads them as it reads a link. Their text is the claim's words, as a
link's is: the explicit title, else a page's name; a label alone shows none (the rendered page
puts a number there).
"""

from __future__ import annotations

import re

from citecheck.extract.forms.base import CitationForm
from citecheck.models import CitationKind

MAX_KEYS = 50  # keys of one role (as a pandoc bracket's)
# The role's name, then its content in backticks: keys separated by commas (MyST also takes ";").
ROLE = re.compile(
    r"(?:\{(?:cite|footcite)(?::[a-z]{1,12})?\}|:(?:cite|citet|citep|citealp|citeauthor|citeyear):)"
    r"`([^`\n]{1,1000})`"
)
# Jekyll-Scholar's tag: keys separated by spaces, then its options ("--file other", "-l 23").
# `LIQUID_CITE_OPENING` is also how the markup blanking knows to leave the tag to the parser.
LIQUID_CITE_OPENING = r"\{%-?[ \t]*cite[ \t]"
LIQUID_CITE = re.compile(LIQUID_CITE_OPENING + r"[ \t]*([^%\n]{1,1000}?)[ \t]*-?%\}")
# What a role's name starts with: the parser tries the rule only where one of these stands.
STARTS = ("{cite", "{footcite", ":cite", "{%")
_KEY = re.compile(r"[^\s,;]{1,300}")


def role_keys(content: str) -> list[str]:
    """The keys of a role's content ("Ioffe.Szegedy.2015", "a, b; c")."""
    return _KEY.findall(content)[:MAX_KEYS]


def liquid_keys(content: str) -> list[str]:
    """The keys of a Jekyll-Scholar tag's content ("ratnasingham2007ji", "a b --file other")."""
    keys: list[str] = []
    for word in content.split():
        if word.startswith("-"):
            break  # the options start
        keys.append(word.strip("\"'"))  # a key may be quoted ({% cite "Riba2024" %})
    return keys[:MAX_KEYS]


def match(text: str, pos: int, end: int) -> tuple[int, str, list[str]] | None:
    """(end, as written, keys) of the role or Jekyll-Scholar tag at `pos`, or None."""
    if text.startswith("{%", pos):
        m = LIQUID_CITE.match(text, pos, end)
        return (m.end(), m.group(0), liquid_keys(m.group(1))) if m else None
    m = ROLE.match(text, pos, end)
    return (m.end(), m.group(0), role_keys(m.group(1))) if m else None


# A cross-reference role: its name, then "title <target>" or "target" in backticks.
XREF = re.compile(
    r"(?:\{(doc|ref|numref|eq)\}|:(doc|ref|numref|eq):)`([^`\n]{1,500})`"
    r"|\\(?:eq|auto|c|C)?ref\{([^{}\s]{1,200})\}"
)
XREF_STARTS = ("{doc}", "{ref}", "{numref}", "{eq}", ":doc:", ":ref:", ":numref:", ":eq:", "\\")
_TITLED = re.compile(r"(.*?)\s*<([^<>]+)>\s*")


def xref_match(text: str, pos: int, end: int) -> tuple[int, str, str, str] | None:
    """(end, as written, visible text, link target) of the cross-reference role at `pos`, or
    None. `{doc}` names a page ("physgrad", "../guide.md"), its text the title or the page's
    name; the others name a label, which a page declares (`(label)=`, an equation's or a
    figure's `:label:`): an anchor, "#label", its text the title alone."""
    m = XREF.match(text, pos, end)
    if m is None:
        return None
    if m.group(4) is not None:  # \ref{label}
        return m.end(), m.group(0), "", "#" + m.group(4)
    role, content = m.group(1) or m.group(2), m.group(3).strip()
    titled = _TITLED.fullmatch(content)
    title, target = (titled.group(1), titled.group(2).strip()) if titled else ("", content)
    if not target:
        return None
    # "Figure %s": the number Sphinx puts in; the words around it are the text
    title = " ".join(title.replace("%s", "").replace("{number}", "").split())
    if role == "doc":
        return m.end(), m.group(0), title or target, target
    # a label is no prose: the rendered page shows a number or a title in its place
    return m.end(), m.group(0), title, "#" + target.lstrip("#")


# Structural: the parser's `cite_role` rule finds them; a block holding one is parsed.
FORM = CitationForm(
    name="role", kind=CitationKind.role, gate=(r"\{(?:foot)?cite", r":cite", LIQUID_CITE_OPENING)
)

# Structural: the parser's `xref_role` rule makes link tokens of them (`xref_match`).
XREF_FORM = CitationForm(
    name="xref_role",
    kind=CitationKind.internal,
    gate=(r"\{(?:doc|ref|numref|eq)\}`", r":(?:doc|ref|numref|eq):`", r"\\(?:eq|auto|c|C)?ref\{"),
    content=True,
)
