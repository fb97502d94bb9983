"""Bibliography roles: MyST's `` {cite}`key` ``, `` {cite:p}`a,b` ``, `` {cite:t}`key` ``,
`` {footcite}`key` `` (Jupyter Book, Sphinx with sphinxcontrib-bibtex) and the reStructuredText
form d2lbook and Sphinx-flavoured Markdown write, `` :cite:`a,b` ``, `` :citet:`key` ``,
`` :citep:`key` ``.

A role is a marker, not text: the parser's `cite_role` rule takes it out of the claim's text, and
each key resolves as a pandoc key does (`citecheck.extract.resolve.pandoc_citation`) through the
BibTeX files the project configures (`citecheck.extract.bibliography`: `bibtex_bibfiles` in a
Jupyter Book `_config.yml` or a Sphinx `conf.py`, `bibfile` in a d2lbook `config.ini`,
`bibliography` in a MyST `myst.yml`). A key none of them resolves is kept as an error citation
with the reason, as an undefined `[N]` is.
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
# What a role's name starts with: the parser tries the rule only where one of these stands.
STARTS = ("{cite", "{footcite", ":cite")
_KEY = re.compile(r"[^\s,;]{1,300}")


def role_keys(content: str) -> list[str]:
    """The keys of a role's content ("Ioffe.Szegedy.2015", "a, b; c")."""
    return _KEY.findall(content)[:MAX_KEYS]


# Structural: the parser's `cite_role` rule finds them; a block holding one is parsed.
FORM = CitationForm(name="role", kind=CitationKind.role, gate=(r"\{(?:foot)?cite", r":cite"))
