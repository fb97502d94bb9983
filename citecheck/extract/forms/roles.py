"""Bibliography roles: MyST's `` {cite}`key` ``, `` {cite:p}`a,b` ``, `` {cite:t}`key` ``,
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


# Structural: the parser's `cite_role` rule finds them; a block holding one is parsed.
FORM = CitationForm(
    name="role", kind=CitationKind.role, gate=(r"\{(?:foot)?cite", r":cite", LIQUID_CITE_OPENING)
)
