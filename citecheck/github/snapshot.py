"""The PR's tree for the job that holds the secrets: the fork-safe pattern's part 2
(`workflow_run`) reads the PR's files from the tarball of the head commit `Run.verify_pr`
checked, downloaded through the API and unpacked into a private temporary folder, instead of
from a checkout. So its workflow checks nothing of the PR out: no PR file lies in the
workspace of a job with secrets, and no checkout credentials lie next to one.

Only regular files are unpacked, each through `safe_paths.write_inside`: a symbolic link the
PR commits (to `/proc/self/environ`, or to another file of the tree) is never made, and a
changed file that is one is an error for that file (`Snapshot.links`).
"""

from __future__ import annotations

import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import httpx

from citecheck.errors import UnsafePathError
from citecheck.safe_paths import write_inside

READ_TIMEOUT_S = 60.0  # between two reads of the download: a large tree takes long, never silently


class SnapshotError(Exception):
    """The tarball could not be downloaded or read (the message names why, never its URL,
    which carries a token)."""


@dataclass
class Snapshot:
    root: Path
    files: int = 0
    links: set[str] = field(default_factory=set)  # the commit's symbolic links, left out


def unpack(archive: BinaryIO, dest: Path) -> Snapshot:
    """GitHub's tarball of a commit (one top folder, then the tree) unpacked into `dest`: its
    regular files alone; folders are made for them."""
    snapshot = Snapshot(dest)
    with tarfile.open(fileobj=archive, mode="r|gz") as tar:
        for member in tar:
            rel = member.name.partition("/")[2].strip("/")
            if not rel:
                continue  # the top folder
            if member.issym() or member.islnk():
                snapshot.links.add(rel)
                continue
            content = tar.extractfile(member) if member.isfile() else None
            if content is None:
                continue  # a folder (made for its files), or a kind git never stores
            try:
                write_inside(dest, rel, content)
            except UnsafePathError:
                continue  # a name no git tree has (`..`, a file under a file): not unpacked
            snapshot.files += 1
    return snapshot


def download(url: str, dest: Path) -> Snapshot:
    """The tarball at `url` (`RepoClient.archive_url`), unpacked into `dest` (made)."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as spool:
        try:
            with httpx.stream(
                "GET", url, follow_redirects=True, timeout=httpx.Timeout(READ_TIMEOUT_S)
            ) as response:
                if response.status_code != 200:
                    raise SnapshotError(f"the download answered HTTP {response.status_code}")
                for chunk in response.iter_bytes():
                    spool.write(chunk)
        except httpx.HTTPError as exc:
            raise SnapshotError(f"the download failed ({type(exc).__name__})") from None
        spool.seek(0)
        try:
            return unpack(spool, dest)
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise SnapshotError(f"the tarball cannot be unpacked ({type(exc).__name__}: {exc})") from None
