"""Paths in a tree that a pull request can write (docs/ARCHITECTURE.md, "Security").

A PR can commit a symbolic link anywhere in its tree, naming a file of the runner's
(`/proc/self/environ`, another step's output), the checkout's `.git/config`, or a folder
outside the tree. Every read and write of such a tree goes through here:

- a file is *read* as part of a tree only when it resolves inside it and outside its skipped
  folders (`link_escape`; a link within the tree is followed, as a reader of the tree expects);
- a file the Action itself reads from a folder a PR could write (`read_inside`) is opened
  through no symbolic link at all below that folder;
- a file is *written* below a folder (`write_inside`) through no symbolic link either: each
  folder on the way is opened without following one (`O_NOFOLLOW`) and held open, and the file
  is written under a temporary name in the folder so opened, then renamed over its name. A link
  found on the way is refused, or, where the caller asks, replaced (a link swapped in between
  the check and the rename is replaced too, never followed);
- `resolve_in` resolves a path as the system would and names the first symbolic link inside a
  tree it passes through, so a setting that names a folder (the Action's cache) cannot be led
  out of the tree, or back into it, by a link the PR commits.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from citecheck.errors import UnsafePathError

SKIP_DIRS = frozenset({".git", "node_modules"})
_MAX_LINKS = 40  # as the kernel's ELOOP: more links than this on one path is a loop
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC


def skipped_dir(name: str, parent: Path) -> bool:
    """A folder whose Markdown is not the tree's own: hidden ones (`.git`, `.venv`, caches),
    node_modules, Python virtual environments."""
    return name in SKIP_DIRS or name.startswith(".") or (parent / name / "pyvenv.cfg").exists()


def link_escape(path: Path, top: Path) -> str | None:
    """Why the file `path` under `top` may not be read as part of that tree, or None.

    Only a symbolic link (the file itself, or a folder on its way down from `top`) can take
    a path out of its tree: to a file outside `top`, or into a folder the walk skips, such
    as `.git` (whose `config` may hold a credential).
    """
    try:
        real_top = top.resolve()
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling link, or a loop
        return "a symbolic link to nothing"
    lexical, lexical_top = Path(os.path.abspath(path)), Path(os.path.abspath(top))
    if lexical.is_relative_to(lexical_top) and real == real_top / lexical.relative_to(lexical_top):
        return None  # no link on the way down from `top`
    try:
        rel = real.relative_to(real_top)
    except ValueError:
        return f"a symbolic link out of the tree (to {real})"
    folders = rel.parts[:-1]
    if any(skipped_dir(name, real_top.joinpath(*folders[:i])) for i, name in enumerate(folders)):
        return f"a symbolic link into a skipped folder (to {rel.as_posix()})"
    return None


def readable(path: Path, top: Path) -> bool:
    """`path` is a file that may be read as part of the tree `top` (`link_escape`)."""
    return path.is_file() and link_escape(path, top) is None


def resolve_in(path: Path, tree: Path) -> tuple[Path, str | None]:
    """`path` resolved as the system resolves it (a part that does not exist yet kept as
    written), and the first symbolic link inside `tree` it passes through, relative to the
    tree (None: none). A loop of links is an `UnsafePathError`."""
    real_tree = tree.resolve()
    # The parts as written: a `..` after a link goes up from the link's target, so it is not
    # for a lexical normalisation to drop.
    pending = list(reversed(_raw_parts(path)))
    current, first, hops = Path("/"), None, 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            current = current.parent
            continue
        candidate = current / part
        if not candidate.is_symlink():
            current = candidate
            continue
        hops += 1
        if hops > _MAX_LINKS:
            raise UnsafePathError(f"{path} is a loop of symbolic links", "name a real folder")
        if first is None and candidate.is_relative_to(real_tree):
            first = candidate.relative_to(real_tree).as_posix()
        target = os.readlink(candidate)
        pending.extend(reversed(_raw_parts(Path(target))))
        if os.path.isabs(target):
            current = Path("/")
    return current, first


def _raw_parts(path: Path) -> list[str]:
    """`path`'s parts as written (`..` kept), made absolute from the working folder."""
    text = str(path) if path.is_absolute() else os.path.join(os.getcwd(), str(path))
    return [p for p in text.split(os.sep) if p]


def _parts(rel: str | PurePosixPath) -> tuple[str, ...]:
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or any(p in (".", "..") for p in parts):
        raise UnsafePathError(f"{rel} is not a path down from its folder", "name a plain relative path")
    return parts


def _refusal(fd: int, name: str, where: str, verb: str, *, folder: bool) -> UnsafePathError:
    """Why `name` (in the folder `fd`) could not be opened as a folder (`folder`) or a file."""
    if _is_link(fd, name):
        return UnsafePathError(f"{where} is a symbolic link: not {verb} through it")
    return UnsafePathError(f"{where} is not a {'folder' if folder else 'regular file'}: not {verb}")


def read_inside(top: Path, rel: str | PurePosixPath) -> bytes:
    """The bytes of the regular file `top/rel`, opened through no symbolic link below `top`.
    A link on the way is an `UnsafePathError`; a missing file is `FileNotFoundError`."""
    parts = _parts(rel)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for i, name in enumerate(parts):
            where = "/".join(parts[: i + 1])
            last = i == len(parts) - 1
            # O_NONBLOCK: a FIFO in the tree must not stall the open.
            flags = (os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC) if last else _FOLDER
            try:
                opened = os.open(name, flags, dir_fd=fd)
            except FileNotFoundError:
                raise
            except OSError:
                raise _refusal(fd, name, where, "read", folder=not last) from None
            os.close(fd)
            fd = opened
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePathError(f"{'/'.join(parts)} is not a regular file: not read")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as fh:
            fd = -1
            return fh.read()
    finally:
        if fd >= 0:
            os.close(fd)


def read_in_tree(top: Path, rel: str | PurePosixPath, max_bytes: int) -> bytes:
    """At most `max_bytes` + 1 bytes of the regular file `top/rel`, read as a part of the tree
    (a page an internal link cites): `rel` is a plain path down from `top`, through no `.git` or
    `node_modules` folder, and a symbolic link on the way is followed only where it stays inside
    the tree and out of those folders (`link_escape`). Anything else is an `UnsafePathError`; a
    missing file is `FileNotFoundError`. The file opened is the one checked: its resolved path,
    opened without following a link."""
    parts = _parts(rel)
    if any(p in SKIP_DIRS for p in parts[:-1]) or parts[-1] in SKIP_DIRS:
        raise UnsafePathError(f"{'/'.join(parts)} is in a folder that is no part of the tree's pages")
    path = top.joinpath(*parts)
    if not path.is_symlink() and not path.exists():
        raise FileNotFoundError(str(rel))
    why = link_escape(path, top)
    if why is not None:
        raise UnsafePathError(f"{'/'.join(parts)} is {why}")
    real = path.resolve(strict=True)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC)
    except OSError as exc:
        raise UnsafePathError(f"{'/'.join(parts)} cannot be opened: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePathError(f"{'/'.join(parts)} is not a regular file: not read")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_inside(
    top: Path,
    rel: str | PurePosixPath,
    data: str | bytes | BinaryIO,
    *,
    replace_links: bool = False,
) -> list[str]:
    """Write `data` (text as UTF-8, bytes, or a binary stream) to `top/rel`, making its folders,
    through no symbolic link below `top` (`top` itself is taken as given). A link on the way is
    an `UnsafePathError`, or with `replace_links` removed and replaced by a folder or by the
    file: never followed. Something else in the way (a file where a folder should be, a folder
    where the file should be) is an `UnsafePathError`. Returns the links replaced, relative to
    `top`."""
    parts = _parts(rel)
    replaced: list[str] = []
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for i, name in enumerate(parts[:-1]):
            opened = _open_folder(fd, name, "/".join(parts[: i + 1]), replace_links, replaced)
            os.close(fd)
            fd = opened
        _replace_file(fd, parts[-1], "/".join(parts), data, replace_links, replaced)
    finally:
        os.close(fd)
    return replaced


def _open_folder(fd: int, name: str, where: str, replace_links: bool, replaced: list[str]) -> int:
    for _ in range(4):  # a link removed, the folder made, then opened: a fourth miss is a race
        try:
            return os.open(name, _FOLDER, dir_fd=fd)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=fd)
        except OSError:
            if not (replace_links and _is_link(fd, name)):
                raise _refusal(fd, name, where, "written", folder=True) from None
            os.unlink(name, dir_fd=fd)  # the link only: its target is left alone
            replaced.append(where)
    raise UnsafePathError(f"{where} kept changing while it was opened: not written")


def _replace_file(
    fd: int, name: str, where: str, data: str | bytes | BinaryIO, replace_links: bool, replaced: list[str]
) -> None:
    try:
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISLNK(mode):
        if not replace_links:
            raise UnsafePathError(f"{where} is a symbolic link: not written through it")
        replaced.append(where)
    elif mode is not None and not stat.S_ISREG(mode):
        raise UnsafePathError(f"{where} is not a regular file: not written")
    tmp = f".citecheck-{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
    out = os.open(tmp, flags, 0o666, dir_fd=fd)
    try:
        with os.fdopen(out, "wb") as fh:
            if isinstance(data, str):
                fh.write(data.encode("utf-8"))
            elif isinstance(data, bytes):
                fh.write(data)
            else:
                shutil.copyfileobj(data, fh)
        # rename(2) replaces whatever has the name now, a link included, and follows none.
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=fd)
        raise


def _is_link(fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
