"""On-disk JSON cache shared by the fetch stage (sources) and the judge stage (verdicts).

One file per entry under `<cache-dir>/<namespace>/<sha256 of key>.json`, written atomically
(temp file + rename) so a crash mid-write never leaves a half entry. The folder is what
`actions/cache` persists (docs/ARCHITECTURE.md).

Nothing read back is trusted as it is. A cache a change under test could write would let it
decide its own verdicts, so the Action keeps the folder out of the checked-out tree
(`citecheck.github.action`) and the CLI keeps it out of the trees it checks (`inside`); and
every entry is validated on load: its origin first, then the envelope here (JSON, the key it
was stored under, a `stored_at` neither in the future nor older than the TTL), then the value
by its reader (`reject` records why a reader refused one: a schema error, text that does not
match its hash, …). A refused entry is deleted, so it is neither used again nor saved with the
folder, and counted: `rejected_note()` says how many, and why, in the report.

**Origin.** Consistency is not origin: whoever can write the folder can write an entry whose
forged text matches its own hash. So each entry carries an HMAC-SHA256 (`seal`) over its
namespace, key, `stored_at` and value, under a secret that never lives in the cache folder;
an entry without a valid one ("not signed with this cache's secret") is refused like any other
invalid entry. The secret (`CACHE_SECRET_ENV` in the run's environment, `cache_secret`):

- **CITECHECK_CACHE_SECRET**, when set: any string (a repository secret in CI).
- **The Action** (`github/action.py`), without it: derived from the judge's API key
  (`derived_secret`). That is what makes the cache both useful and safe under actions/cache:
  the key is a repository secret, so it is the same in every run (entries saved by one run are
  read by the next), and GitHub gives none to a run of a fork's pull request — the run a fork
  controls (its own workflow file included) and whose cache, saved under its PR's scope,
  its later runs restore. Such a run cannot sign entries, so entries it forged are refused by
  every run that has the secret; without a secret a run keeps no cache at all (a note says so)
  instead of trusting one. A same-repository PR can read secrets by changing its workflow:
  its author is someone who can already change the workflow (SECURITY.md, out of scope).
  Rotating the judge's key invalidates the cache once (its entries are counted as refused).
- **The CLI**, without it: a random secret in a file of the user's own, created 0600 in a
  0700 folder the first time (`user_secret_file`: `$XDG_STATE_HOME/citecheck/cache-secret`,
  else `~/.local/state/…`, `~/Library/Application Support/…` on macOS, `%LOCALAPPDATA%\\…`
  on Windows); the MCP server keeps its own beside its cache (`<cache home>/cache-secret`).
  A cache folder someone else can write (shared, synced, restored from elsewhere) then holds
  nothing they can make this user's runs use. On a CI runner, whose home folder does not
  outlive the job, set CITECHECK_CACHE_SECRET for the cache to carry over.

What a MAC cannot stop: anyone who can write the folder can delete entries (the run fetches
and judges again) or put back an older entry it once held, signed, within the TTL (a page as
it was up to `cache_ttl_s` ago, or a verdict on that page's text).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Entries written by another runner whose clock runs a little ahead are not "in the future".
CLOCK_SKEW_S = 300.0
CACHE_SECRET_ENV = "CITECHECK_CACHE_SECRET"
SECRET_FILE = "cache-secret"
NOT_SIGNED = "not signed with this cache's secret"


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


def seal(secret: str, namespace: str, key: str, stored_at: object, value: object) -> str:
    """The MAC of an entry: HMAC-SHA256 under `secret` of its canonical JSON."""
    message = json.dumps([namespace, key, stored_at, value], sort_keys=True, separators=(",", ":"))
    mac = hmac.new(secret.encode("utf-8", "surrogatepass"), message.encode("ascii"), hashlib.sha256)
    return mac.hexdigest()


def derived_secret(api_key: str) -> str:
    """The cache secret the Action derives from the judge's API key (module docstring): not
    the key itself, so no entry, file or MAC carries it."""
    return hmac.new(api_key.encode("utf-8"), b"citecheck cache secret v1", hashlib.sha256).hexdigest()


def user_secret_file(environ: Mapping[str, str]) -> Path | None:
    """Where the CLI keeps its cache secret (module docstring); None when `environ` names no
    home folder."""
    xdg = environ.get("XDG_STATE_HOME", "").strip()
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "citecheck" / SECRET_FILE
    if sys.platform == "win32" and environ.get("LOCALAPPDATA"):
        return Path(environ["LOCALAPPDATA"]) / "citecheck" / SECRET_FILE
    home = environ.get("HOME", "").strip()
    if not home:
        return None
    if sys.platform == "darwin":
        return Path(home) / "Library" / "Application Support" / "citecheck" / SECRET_FILE
    return Path(home) / ".local" / "state" / "citecheck" / SECRET_FILE


def file_secret(path: Path) -> str:
    """The secret kept in `path`, made (random, 0600, in a 0700 folder) the first time.
    Raises OSError when it can be neither read nor made."""
    try:
        secret = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        secret = ""
    if secret:
        return secret
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    made = secrets.token_hex(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another run made it first: use theirs
        return path.read_text(encoding="ascii").strip()
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(made + "\n")
    return made


def cache_secret(environ: Mapping[str, str], secret_file: Path | None) -> str | None:
    """The run's cache secret: CITECHECK_CACHE_SECRET, else the one kept in `secret_file`
    (made the first time), else None. Raises OSError when the file can be neither read nor
    made."""
    given = environ.get(CACHE_SECRET_ENV, "").strip()
    if given:
        return given
    return file_secret(secret_file) if secret_file is not None else None


def inside(path: Path, tree: Path) -> bool:
    """Whether `path` is `tree` or lies under it, symbolic links followed."""
    resolved, top = path.resolve(), tree.resolve()
    return resolved == top or top in resolved.parents


class DiskCache:
    """One run's view of a cache folder; counts what it refused (no global state).

    `secret` signs what is put and checks what is read (module docstring, "Origin")."""

    def __init__(self, root: Path, secret: str, *, ttl_s: float = 7 * 24 * 3600) -> None:
        self.root = root
        self.ttl_s = ttl_s
        self.rejected: Counter[str] = Counter()  # why → how many entries
        self._secret = secret

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
        mac = data.get("mac")
        expected = seal(self._secret, namespace, str(data.get("key")), data.get("stored_at"), data["value"])
        if not isinstance(mac, str) or not hmac.compare_digest(mac, expected):
            self.reject(namespace, key, NOT_SIGNED)
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
            stored_at = time.time()
            entry = {"key": key, "stored_at": stored_at, "value": value}
            entry["mac"] = seal(self._secret, namespace, key, stored_at, value)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh, ensure_ascii=False)
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
