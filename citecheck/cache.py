"""On-disk JSON cache shared by the fetch stage (sources) and the judge stage (verdicts).

One file per entry under `<cache-dir>/<namespace>/<sha256 of key>.json`, written atomically
(temp file + rename) so a crash mid-write never leaves a half entry. The folder is what
`actions/cache` persists (docs/ARCHITECTURE.md).

Nothing read back is trusted as it is. A cache a change under test could write would let it
decide its own verdicts, so the Action keeps the folder out of the checked-out tree
(`citecheck.github.action`); and every entry is validated on load: the envelope here (JSON,
the key it was stored under, a `stored_at` neither in the future nor older than the TTL),
the value by its reader (`reject` records why a reader refused one: a schema error, text that
does not match its hash, …). A refused entry is deleted, so it is neither used again nor saved
with the folder, and counted: `rejected_note()` says how many, and why, in the report.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

# Entries written by another runner whose clock runs a little ahead are not "in the future".
CLOCK_SKEW_S = 300.0


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def age_problem(stamp: object, ttl_s: float, now: float) -> str | None:
    """Why a timestamp (unix seconds) makes an entry unusable: missing, in the future, or
    older than `ttl_s`; None when it is fine."""
    if not isinstance(stamp, int | float) or isinstance(stamp, bool):
        return "no valid timestamp"
    if stamp > now + CLOCK_SKEW_S:
        return "dated in the future"
    if now - stamp > ttl_s:
        return "older than the TTL"
    return None


class DiskCache:
    """One run's view of a cache folder; counts what it refused (no global state)."""

    def __init__(self, root: Path, *, ttl_s: float = 7 * 24 * 3600) -> None:
        self.root = root
        self.ttl_s = ttl_s
        self.rejected: Counter[str] = Counter()  # why → how many entries

    def _path(self, namespace: str, key: str) -> Path:
        return self.root / namespace / f"{digest(key)}.json"

    def get(self, namespace: str, key: str) -> dict[str, Any] | None:
        """The value stored for `key`, or None: absent, or refused (and then counted)."""
        path = self._path(namespace, key)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError):
            self.reject(namespace, key, "unreadable")
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            self.reject(namespace, key, "not valid JSON")
            return None
        if not isinstance(data, dict) or not isinstance(data.get("value"), dict):
            self.reject(namespace, key, "not a cache entry")
            return None
        # The key is stored too: a file under another entry's name (copied, or a hash
        # collision) is not this entry.
        if data.get("key") != key:
            self.reject(namespace, key, "stored under another key")
            return None
        if why := age_problem(data.get("stored_at"), self.ttl_s, time.time()):
            self.reject(namespace, key, why)
            return None
        return data["value"]

    def put(self, namespace: str, key: str, value: dict[str, Any]) -> None:
        path = self._path(namespace, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": key, "stored_at": time.time(), "value": value}, fh, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def reject(self, namespace: str, key: str, why: str) -> None:
        """Count the entry for `key` as refused (`why`) and delete it."""
        self.rejected[why] += 1
        # A read-only cache folder: the entry is refused all the same.
        with contextlib.suppress(OSError):
            self._path(namespace, key).unlink(missing_ok=True)

    def rejected_note(self) -> str | None:
        """The report's note on refused entries, e.g. "2 cache entries rejected (1 dated in the
        future, 1 text does not match its hash)"; None when none was."""
        total = sum(self.rejected.values())
        if not total:
            return None
        reasons = ", ".join(
            f"{n} {why}" for why, n in sorted(self.rejected.items(), key=lambda x: (-x[1], x[0]))
        )
        noun = "entry" if total == 1 else "entries"
        return f"{total} cache {noun} rejected ({reasons}): not used, and deleted from the cache"
