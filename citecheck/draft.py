"""Drafts that are not files yet (docs/ARCHITECTURE.md, the select stage): Markdown read from
standard input (`citecheck check -`) or handed to the MCP server's tools.

A draft is written to a private temporary file and selected like any file, so it goes through
the very same reading as a file on disk (size limit, encodings, binary detection) and the same
pipeline; only its name in the report (`name`) is chosen by the caller. A draft has no folder
of its own: its relative links are not sources, as in any file.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from citecheck.models import SelectedFile

STDIN = "-"  # the path that means standard input on the command line
DEFAULT_STDIN_NAME = "stdin.md"  # the name a draft from standard input has in the report


@contextmanager
def draft_file(data: bytes, name: str) -> Iterator[SelectedFile]:
    """`data` as a selected file named `name` in the report, for as long as the block runs
    (the temporary copy is removed after it)."""
    with tempfile.TemporaryDirectory(prefix="citecheck-draft-") as folder:
        path = Path(folder) / "draft"
        path.write_bytes(data)
        yield SelectedFile(path=str(path), display=name)
