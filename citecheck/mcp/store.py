"""Where the MCP server keeps what it made: the evaluations, in SQLite, and the fetched sources and
verdicts (citecheck's DiskCache), under the user's cache folder (README, "For writers and agents").

The folder is `$CITECHECK_CACHE_HOME` when set (tests, or a team's shared location), else the
platform's cache folder by the XDG rule: `$XDG_CACHE_HOME/citecheck` (an absolute path only, as
the XDG spec says), else `~/Library/Caches/citecheck` on macOS, `%LOCALAPPDATA%\\citecheck\\Cache`
on Windows and `~/.cache/citecheck` elsewhere. It is created private to the user (0700): the
drafts' claims are in it.

The database is private too, whatever the folder: created 0600 (SQLite's own would be 0644,
and its journal takes the database's mode), and a store an older version made readable by
others is made private when a server starts over it, with a line on standard error.
Making it private rather than only warning: the file is the server's alone, and it may hold
what an older version stored unredacted. It holds only redacted text (`EvaluationStore`: the
server's redactor on everything saved, and on everything read back); the rows of a store
written before that are redacted once, then too (`STORE_VERSION`), with SQLite's
`secure_delete` on so the old text is overwritten in the file. A store shared by
several users is not supported: each user's server keeps its own.

One connection per operation: a call is a handful of rows, and SQLite serialises writers
across the server's concurrent calls (and across servers sharing the folder) by itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import sys
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citecheck.redact import Redactor

CACHE_HOME_ENV = "CITECHECK_CACHE_HOME"
DATABASE = "evaluations.sqlite3"
SOURCES = "cache"  # the DiskCache of fetched sources and judge verdicts, as --cache-dir
# `PRAGMA user_version` of a store whose every row is redacted; 0: written before (redacted once).
STORE_VERSION = 1

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
    """The evaluations of `verify_citations`, by id, redacted by the server's `redact` when
    saved and when read back."""

    def __init__(self, folder: Path, redact: Redactor) -> None:
        self.folder = folder
        self.path = folder / DATABASE
        self.redact = redact

    def prepare(self) -> None:
        """Create the folder and the database (both private) and the table, and bring an older
        store up to date (see the module's docstring); raises OSError / sqlite3.Error."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._private_file()
        with closing(self._connect()) as db, db:
            db.execute(_SCHEMA)
            if db.execute("PRAGMA user_version").fetchone()[0] < STORE_VERSION:
                self._redact_rows(db)
                db.execute(f"PRAGMA user_version = {STORE_VERSION}")

    def upgrade(self) -> None:
        """An existing store brought up to date (`prepare`) as a server starts over it; one that
        cannot be (read-only) is left as it is, for a save to report why."""
        if self.path.is_file():
            with contextlib.suppress(OSError, sqlite3.Error):
                self.prepare()

    def _private_file(self) -> None:
        try:
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return  # an empty file is an empty database to SQLite
        except FileExistsError:
            pass
        if os.name != "posix":  # the mode bits are POSIX's
            return
        st = os.lstat(self.path)
        # Only the server's own regular file: never through a link, nor another user's file.
        if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077 and st.st_uid == os.getuid():
            os.chmod(self.path, 0o600)
            sys.stderr.write(
                f"citecheck: {self.path} was readable by others (mode {stat.S_IMODE(st.st_mode):o}): "
                "made private (600)\n"
            )

    def _redact_rows(self, db: sqlite3.Connection) -> None:
        """Every row of a store written before its rows were redacted, redacted; the old text
        overwritten in the file (`secure_delete`)."""
        db.execute("PRAGMA secure_delete = ON")
        rows = db.execute("SELECT id, summary, result FROM evaluations").fetchall()
        for evaluation_id, summary, result in rows:
            try:
                clean = json.dumps(self.redact.data(json.loads(result)), ensure_ascii=False)
            except ValueError:  # not JSON: nothing can read it back, nothing is served from it
                clean = "null"
            clean_summary = self.redact(summary)
            if (clean_summary, clean) != (summary, result):
                db.execute(
                    "UPDATE evaluations SET summary = ?, result = ? WHERE id = ?",
                    (clean_summary, clean, evaluation_id),
                )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def save(
        self, evaluation_id: str, created_at: str, passed: bool | None, summary: str, result: Any
    ) -> None:
        self.prepare()
        stored = json.dumps(self.redact.data(result), ensure_ascii=False)
        with closing(self._connect()) as db, db:
            db.execute(
                "INSERT INTO evaluations (id, created_at, passed, summary, result) VALUES (?, ?, ?, ?, ?)",
                (evaluation_id, created_at, passed, self.redact(summary), stored),
            )

    def load(self, evaluation_id: str) -> dict[str, Any] | None:
        """The stored result, or None when there is none (or no store yet)."""
        if not self.path.is_file():
            return None
        with closing(self._connect()) as db:
            row = db.execute("SELECT result FROM evaluations WHERE id = ?", (evaluation_id,)).fetchone()
        return None if row is None else self.redact.data(json.loads(row[0]))

    def recent(self, limit: int) -> list[StoredEvaluation]:
        """The latest evaluations, newest first."""
        if not self.path.is_file():
            return []
        with closing(self._connect()) as db:
            rows = db.execute(
                "SELECT id, created_at, passed, summary FROM evaluations ORDER BY created_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [
            StoredEvaluation(r[0], r[1], None if r[2] is None else bool(r[2]), self.redact(r[3]))
            for r in rows
        ]
