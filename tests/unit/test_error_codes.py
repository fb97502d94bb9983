"""The error codes are a documented contract: the README's tables list exactly the codes the
CLI's JSON errors and the MCP tools can answer with."""

from __future__ import annotations

import re
from pathlib import Path

from citecheck import cli
from citecheck.mcp.errors import CODES

ROOT = Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^\| `([A-Za-z_-]+)` \|", re.M)


def _table_codes(start: str, end: str) -> set[str]:
    readme = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    section = readme.split(start, 1)[1].split(end, 1)[0]
    return set(_ROW.findall(section))


def _raised_codes() -> set[str]:
    """Every `code=` of a CitecheckError raised in citecheck, and the classes' defaults."""
    codes: set[str] = set()
    for path in ROOT.joinpath("citecheck").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'\bcode="([a-z-]+)"', text))
        codes |= set(re.findall(r'\bdefault_code = "([a-z-]+)"', text))
    return codes | {cli.USAGE_ERROR, cli.INTERNAL_ERROR, cli.INTERRUPTED}


def test_the_readme_lists_every_cli_error_code() -> None:
    assert _table_codes("### Errors as JSON", "### The MCP server") == _raised_codes()


def test_the_readme_lists_every_mcp_error_code() -> None:
    assert _table_codes("#### Error codes of the tools", "\n## ") == set(CODES)
