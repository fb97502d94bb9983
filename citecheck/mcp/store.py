"""Where the MCP server keeps what it made: the evaluations, in SQLite, and the fetched sources and
verdicts (citecheck's DiskCache), under the user's cache folder (README, "For writers and agents").

The folder is `$CITECHECK_CACHE_HOME` when set (tests, or a team's shared location), else the
platform's cache folder by the XDG rule: `$XDG_CACHE_HOME/citecheck` (an absolute path only, as
the XDG spec says), else `~/Library/Caches/citecheck` on macOS, `%LOCALAPPDATA%\\citecheck\\Cache`
on Windows and `~/.cache/citecheck` elsewhere. It is created private to the user (0700): the
drafts' claims are in it.

One connection per operation: a call is a handful of rows, and SQLite serialises writers
across the server's concurrent calls (and across servers sharing the folder) by itself.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_HOME_ENV = "CITECHECK_CACHE_HOME"
DATABASE = "evaluations.sqlite3"
SOURCES = "cache"  # the DiskCache of fetched sources and judge verdicts, as --cache-dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS evaluations (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    passed INTEGER,
    summary TEXT NOT NULL,
    result TEXT NOT NULL
)
"""


def cache_home(environ: Mapping[str, str]) -> Path:
    """The server's folder (see the module's docstring); not created here."""
    explicit = environ.get(CACHE_HOME_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "citecheck"
    home = Path(environ.get("HOME") or Path.home())
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "citecheck"
    if sys.platform == "win32" and environ.get("LOCALAPPDATA"):
        return Path(environ["LOCALAPPDATA"]) / "citecheck" / "Cache"
    return home / ".cache" / "citecheck"


@dataclass(frozen=True)
class StoredEvaluation:
    id: str
    created_at: str
    passed: bool | None
    summary: str  # one line, for a resource list


class EvaluationStore:
    """The evaluations of `verify_citations`, by id."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / DATABASE

    def prepare(self) -> None:
        """Create the folder (private) and the table; raises OSError / sqlite3.Error."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with closing(self._connect()) as db, db:
            db.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def save(
        self, evaluation_id: str, created_at: str, passed: bool | None, summary: str, result: Any
    ) -> None:
        self.prepare()
        with closing(self._connect()) as db, db:
            db.execute(
                "INSERT INTO evaluations (id, created_at, passed, summary, result) VALUES (?, ?, ?, ?, ?)",
                (evaluation_id, created_at, passed, summary, json.dumps(result, ensure_ascii=False)),
            )

    def load(self, evaluation_id: str) -> dict[str, Any] | None:
        """The stored result, or None when there is none (or no store yet)."""
        if not self.path.is_file():
            return None
        with closing(self._connect()) as db:
            row = db.execute("SELECT result FROM evaluations WHERE id = ?", (evaluation_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def recent(self, limit: int) -> list[StoredEvaluation]:
        """The latest evaluations, newest first."""
        if not self.path.is_file():
            return []
        with closing(self._connect()) as db:
            rows = db.execute(
                "SELECT id, created_at, passed, summary FROM evaluations ORDER BY created_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [StoredEvaluation(r[0], r[1], None if r[2] is None else bool(r[2]), r[3]) for r in rows]
