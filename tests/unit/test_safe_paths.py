"""`citecheck.safe_paths` on real files and links in a temporary tree, and the snapshot's
unpacking of a hostile tarball: what a PR can put in a tree is never followed out of it."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from citecheck.errors import UnsafePathError
from citecheck.github.snapshot import unpack
from citecheck.safe_paths import read_inside, resolve_in, write_inside


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "tree").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/secret").write_text("keep")
    return tmp_path / "tree"


def test_write_inside_makes_folders_and_replaces_a_file(tree: Path) -> None:
    assert write_inside(tree, "a/b/c.txt", "one") == []
    assert write_inside(tree, "a/b/c.txt", b"two") == []
    assert (tree / "a/b/c.txt").read_text() == "two"
    assert sorted(p.name for p in (tree / "a/b").iterdir()) == ["c.txt"]  # no temporary left


def test_write_inside_refuses_or_replaces_a_link_never_follows_it(tree: Path) -> None:
    secret = tree.parent / "outside/secret"
    (tree / "file").symlink_to(secret)
    (tree / "dir").symlink_to(tree.parent / "outside")
    for rel, where in (("file", "file"), ("dir/new", "dir"), ("dir/secret", "dir")):
        with pytest.raises(UnsafePathError, match=f"^{where} is a symbolic link: not written through it$"):
            write_inside(tree, rel, "x")
    assert secret.read_text() == "keep" and sorted(os.listdir(tree.parent / "outside")) == ["secret"]
    # Replaced: the link goes, its target stays as it was.
    assert write_inside(tree, "file", "mine", replace_links=True) == ["file"]
    assert write_inside(tree, "dir/new", "mine", replace_links=True) == ["dir"]
    assert not (tree / "file").is_symlink() and (tree / "file").read_text() == "mine"
    assert (tree / "dir").is_dir() and not (tree / "dir").is_symlink()
    assert secret.read_text() == "keep" and sorted(os.listdir(tree.parent / "outside")) == ["secret"]


def test_write_inside_refuses_what_is_not_a_folder_or_a_file(tree: Path) -> None:
    (tree / "plain").write_text("x")
    (tree / "folder").mkdir()
    with pytest.raises(UnsafePathError, match=r"^plain is not a folder: not written$"):
        write_inside(tree, "plain/x", "y", replace_links=True)
    with pytest.raises(UnsafePathError, match=r"^folder is not a regular file: not written$"):
        write_inside(tree, "folder", "y", replace_links=True)
    for rel in ("../escape", "/etc/x", "a/../../b", ""):
        with pytest.raises(UnsafePathError, match="is not a path down from its folder"):
            write_inside(tree, rel, "y")
    assert not (tree.parent / "escape").exists()


def test_read_inside_reads_a_plain_file_through_no_link(tree: Path) -> None:
    (tree / "a").mkdir()
    (tree / "a/f.json").write_text("{}")
    assert read_inside(tree, "a/f.json") == b"{}"
    (tree / "link.json").symlink_to(tree / "a/f.json")  # even a link inside the tree
    (tree / "via").symlink_to(tree / "a")
    for rel, where in (("link.json", "link.json"), ("via/f.json", "via")):
        with pytest.raises(UnsafePathError, match=f"^{where} is a symbolic link: not read through it$"):
            read_inside(tree, rel)
    with pytest.raises(FileNotFoundError):
        read_inside(tree, "a/missing.json")
    # A FIFO does not stall the read: it is no file.
    os.mkfifo(tree / "fifo")
    with pytest.raises(UnsafePathError, match=r"^fifo is not a regular file: not read$"):
        read_inside(tree, "fifo")


def test_resolve_in_names_the_first_link_in_the_tree_on_the_way(tree: Path) -> None:
    outside = tree.parent / "outside"
    (tree / "prlink").symlink_to(outside)
    (tree.parent / "hop").symlink_to(tree)  # a link outside the tree, into it
    assert resolve_in(tree / "prlink/c", tree) == (outside / "c", "prlink")
    assert resolve_in(tree / "prlink/../c", tree) == (tree.parent / "c", "prlink")  # `..` from the target
    assert resolve_in(tree.parent / "hop/prlink/c", tree) == (outside / "c", "prlink")
    assert resolve_in(tree.parent / "hop/plain/c", tree) == (tree / "plain/c", None)
    assert resolve_in(outside / "new/c", tree) == (outside / "new/c", None)
    (tree / "loop").symlink_to(tree / "loop")
    with pytest.raises(UnsafePathError, match="a loop of symbolic links"):
        resolve_in(tree / "loop/c", tree)


def _tarball(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> io.BytesIO:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    buf.seek(0)
    return buf


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


def test_unpack_keeps_regular_files_inside_and_nothing_else(tmp_path: Path) -> None:
    """A tarball as GitHub makes one (a top folder), with what a hostile one could hold."""
    dest = tmp_path / "tree"
    dest.mkdir()
    archive = _tarball(
        [
            (_member("o-r-abc1234/", tarfile.DIRTYPE), None),
            (_member("o-r-abc1234/docs/a.md"), b"# A\n"),
            (_member("o-r-abc1234/docs/leak.md", tarfile.SYMTYPE, "/proc/self/environ"), None),
            (_member("o-r-abc1234/docs/hard.md", tarfile.LNKTYPE, "o-r-abc1234/docs/a.md"), None),
            (_member("o-r-abc1234/../../escape.md"), b"x"),
            (_member("o-r-abc1234/dev", tarfile.CHRTYPE), None),
            (_member("o-r-abc1234/docs/leak.md/under"), b"x"),  # under the link left out
        ]
    )
    snapshot = unpack(archive, dest)
    assert snapshot.files == 2 and snapshot.links == {"docs/leak.md", "docs/hard.md"}
    found = sorted(str(p.relative_to(dest)) for p in dest.rglob("*"))
    assert found == ["docs", "docs/a.md", "docs/leak.md", "docs/leak.md/under"]
    assert not any(p.is_symlink() for p in dest.rglob("*"))
    assert not (tmp_path.parent / "escape.md").exists() and not (tmp_path / "escape.md").exists()
