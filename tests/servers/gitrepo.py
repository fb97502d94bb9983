"""A real git repository in a temp folder, for the select and Action tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **_ENV},
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"git {args}: {proc.stderr}")
    return proc.stdout.strip()


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        git(root, "init", "-q")

    def write(self, files: dict[str, str | None]) -> None:
        for name, text in files.items():
            path = self.root / name
            if text is None:
                git(self.root, "rm", "-q", name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            git(self.root, "add", name)

    def commit(self, files: dict[str, str | None], message: str = "change") -> str:
        self.write(files)
        git(self.root, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.root, "rev-parse", "HEAD")

    def link(self, name: str, target: str | Path) -> None:
        """Stage a symbolic link `name` → `target`, as a PR can commit one (git keeps the target
        text, absolute or relative, and checks the link out as it was)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        os.symlink(target, path)
        git(self.root, "add", name)

    def mv(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        git(self.root, "mv", old, new)

    def shallow_clone(self, dest: Path, branch: str = "main") -> Path:
        """A depth-1 clone of `branch` through the file:// protocol, as actions/checkout makes."""
        git(dest.parent, "clone", "-q", "--depth=1", "--branch", branch, f"file://{self.root}", str(dest))
        return dest
