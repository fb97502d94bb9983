"""Select stage: which Markdown files, and which of their lines, a run checks (DESIGN §1).

Three ways in:

- **PR mode** (`select_pr`): the changed files and changed line ranges between the PR's base
  and the checked-out commit, from `git diff --unified=0` (fetching the commits a shallow
  clone lacks), else from the PR files API's `patch` field.
- **Audit mode** (`select_audit`): every file of the workspace matching `paths`.
- **Local mode** (`select_local`): paths from the command line, or the files changed since
  `--diff REF`.

`filter-mode` decides the line ranges: `added` keeps the added or changed lines, `diff_context`
widens them by three lines each side (and includes the lines around a removal), `file` checks
whole changed files, and `nofilter` checks every file matching `paths`, changed or not.
Renamed files are followed to their new name and keep their claims (with rename detection,
only the lines that changed count as added); deleted files are ignored.

`paths` globs follow the GitHub Actions convention: `*` stays inside one folder, `**` crosses
folders (`**/` also matches no folder at all), `?` is one character, `[abc]` a class, and a
leading `!` excludes what an earlier pattern included.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath

from citecheck.config import FilterMode, Settings
from citecheck.models import FileError, SelectedFile

CONTEXT_LINES = 3  # the ±lines of `diff_context`

LineRanges = list[tuple[int, int]]


class GitError(Exception):
    """A git command failed; the message carries git's own stderr."""


# ---------------------------------------------------------------- globs


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    pat = pattern.strip().removeprefix("./").lstrip("/")
    out: list[str] = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and "]" in pat[i + 2 :]:
            end = pat.index("]", i + 2)
            body = pat[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    """Whether the repository-relative POSIX `path` matches one glob `pattern`."""
    return _glob_regex(pattern).match(path.removeprefix("./")) is not None


def matches_patterns(path: str, patterns: Sequence[str]) -> bool:
    """Last matching pattern wins; `!pattern` excludes. No pattern matches nothing."""
    selected = False
    for pattern in patterns:
        if pattern.startswith("!"):
            if selected and glob_match(path, pattern[1:]):
                selected = False
        elif not selected and glob_match(path, pattern):
            selected = True
    return selected


def is_wanted(display: str, settings: Settings, *, check_paths: bool = True) -> bool:
    """Whether a file passes `paths`, a config file's narrowing `paths`, and `ignore`."""
    if check_paths and not matches_patterns(display, settings.paths):
        return False
    if settings.also_paths and not matches_patterns(display, settings.also_paths):
        return False
    return not any(glob_match(display, g) for g in settings.ignore)


# ---------------------------------------------------------------- sharding


def shard_of(display: str, total: int) -> int:
    """The 1-based shard a file belongs to: a hash of its path, so independent of the others."""
    h = int.from_bytes(hashlib.sha256(display.encode("utf-8")).digest()[:8], "big")
    return h % total + 1


def apply_shard(files: list[SelectedFile], shard: tuple[int, int] | None) -> list[SelectedFile]:
    """Keep the stable slice `I/N` of `files` (idempotent; order kept).

    A file's shard depends only on its path, so adding a file to the repository never moves
    the others between the jobs of a matrix, and the N slices are disjoint and complete.
    """
    if shard is None:
        return list(files)
    index, total = shard
    return [f for f in files if shard_of(f.display, total) == index]


# ---------------------------------------------------------------- diffs

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_git_path(raw: str) -> str:
    """Undo git's C-style quoting of unusual path names (`"d\\303\\251j\\303\\240.md"`)."""
    if not (len(raw) >= 2 and raw.startswith('"') and raw.endswith('"')):
        return raw
    body = raw[1:-1]
    buf = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 4 <= len(body):
                buf.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            buf.append(_ESCAPES.get(nxt, ord(nxt)))
            i += 2
            continue
        buf.extend(c.encode("utf-8"))
        i += 1
    return buf.decode("utf-8", "replace")


@dataclass
class FileDiff:
    """One changed file: new-side line numbers that were added, and where lines were removed."""

    path: str
    old_path: str | None = None
    status: str = "modified"  # added | modified | renamed | deleted
    added: list[int] = field(default_factory=list)
    removed_at: list[int] = field(default_factory=list)  # new-side line just after a removal
    has_patch: bool = True  # False: the API gave no patch (too large), lines unknown


def parse_hunks(patch: str, diff: FileDiff) -> None:
    """Walk unified-diff hunks (any context size) recording added lines and removal points."""
    new_line: int | None = None
    for line in patch.splitlines():
        m = _HUNK.match(line)
        if m:
            new_line = int(m.group(1))
            # `+c,0`: nothing on the new side; the removal sits after line c.
            if re.match(r"^@@ -\d+(?:,\d+)? \+\d+,0 @@", line):
                new_line += 1
            continue
        if new_line is None or not line:
            continue
        tag = line[0]
        if tag == "+":
            diff.added.append(new_line)
            new_line += 1
        elif tag == " ":
            new_line += 1
        elif tag == "-":
            diff.removed_at.append(new_line)


def _strip_prefix(name: str, prefix: str) -> str:
    name = unquote_git_path(name)
    return name[len(prefix) :] if name.startswith(prefix) else name


def parse_git_diff(text: str) -> list[FileDiff]:
    """Parse `git diff --unified=N -M --src-prefix=a/ --dst-prefix=b/` output."""
    diffs: list[FileDiff] = []
    current: FileDiff | None = None
    body: list[str] = []

    def flush() -> None:
        if current is not None and current.path:
            parse_hunks("\n".join(body), current)
            diffs.append(current)

    in_header = False
    for line in text.splitlines():
        if line.startswith("diff --git "):
            flush()
            current, body, in_header = FileDiff(path=""), [], True
            continue
        if current is None:
            continue
        if in_header:
            if line.startswith("rename from "):
                current.old_path = unquote_git_path(line[len("rename from ") :])
                current.status = "renamed"
            elif line.startswith("rename to "):
                current.path = unquote_git_path(line[len("rename to ") :])
            elif line.startswith("new file mode"):
                current.status = "added"
            elif line.startswith("deleted file mode"):
                current.status = "deleted"
            elif line.startswith("--- "):
                if current.old_path is None and line[4:] != "/dev/null":
                    current.old_path = _strip_prefix(line[4:], "a/")
            elif line.startswith("+++ "):
                target = line[4:]
                if target == "/dev/null":
                    current.status = "deleted"
                else:
                    current.path = _strip_prefix(target, "b/")
                in_header = False
            continue
        body.append(line)
    flush()
    return [d for d in diffs if d.status != "deleted"]


def _merge(ranges: Iterable[tuple[int, int]]) -> LineRanges:
    merged: LineRanges = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def line_ranges(diff: FileDiff, mode: FilterMode) -> LineRanges | None:
    """The 1-based inclusive ranges whose claims count under `mode` (None: whole file)."""
    if mode in (FilterMode.file, FilterMode.nofilter) or not diff.has_patch:
        return None
    if mode == FilterMode.added:
        return _merge((n, n) for n in diff.added)
    spans = [(max(1, n - CONTEXT_LINES), n + CONTEXT_LINES) for n in diff.added]
    spans += [(max(1, n - CONTEXT_LINES), n + CONTEXT_LINES - 1) for n in diff.removed_at]
    return _merge(spans)


# ---------------------------------------------------------------- git


@dataclass(frozen=True)
class Git:
    """Runs git in one repository; `safe.directory` passed on each call so a workspace owned by
    another user (the Action's container runs as root) is still readable."""

    cwd: Path
    safe_directory: str | None = None

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = ["git"]
        if self.safe_directory:
            cmd += ["-c", f"safe.directory={self.safe_directory}"]
        cmd += ["-c", "core.quotePath=false", *args]
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
        try:
            proc = subprocess.run(
                cmd, cwd=self.cwd, capture_output=True, text=True, encoding="utf-8", errors="replace", env=env
            )
        except OSError as exc:
            raise GitError(f"cannot run git: {exc}") from None
        if check and proc.returncode != 0:
            raise GitError(f"git {' '.join(args)}: {proc.stderr.strip() or f'exit {proc.returncode}'}")
        return proc

    def out(self, *args: str) -> str:
        return self.run(*args).stdout

    def ok(self, *args: str) -> bool:
        return self.run(*args, check=False).returncode == 0

    def toplevel(self) -> Path:
        return Path(self.out("rev-parse", "--show-toplevel").strip())

    def has_commit(self, sha: str) -> bool:
        return self.ok("cat-file", "-e", f"{sha}^{{commit}}")

    def ensure_commit(self, sha: str) -> None:
        """Fetch one commit a shallow clone lacks (credentials come from the checkout)."""
        if not self.has_commit(sha):
            self.out("fetch", "--no-tags", "--no-recurse-submodules", "--depth=1", "origin", sha)

    def raw_parents(self, rev: str) -> list[str]:
        # Read from the commit object itself: a shallow clone hides parents from rev-parse.
        header = self.out("cat-file", "commit", rev).split("\n\n", 1)[0]
        return [ln.split()[1] for ln in header.splitlines() if ln.startswith("parent ")]

    def diff(self, *revs: str, paths: Sequence[str] = ()) -> list[FileDiff]:
        text = self.out(
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--unified=0",
            "-M",
            "--diff-filter=d",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            *revs,
            "--",
            *paths,
        )
        return parse_git_diff(text)

    def ls_files(self) -> list[str]:
        return [p for p in self.out("ls-files", "-z").split("\0") if p]


# ---------------------------------------------------------------- building selections


def _posix_rel(path: Path, root: Path) -> str:
    try:
        return PurePosixPath(path.resolve().relative_to(root.resolve())).as_posix()
    except ValueError:
        return path.as_posix()


def files_from_diffs(
    diffs: Iterable[FileDiff], root: Path, settings: Settings, *, check_paths: bool = True
) -> list[SelectedFile]:
    """SelectedFiles for changed files wanted by `settings`, with ranges per `filter-mode`."""
    out: list[SelectedFile] = []
    for d in diffs:
        if not is_wanted(d.path, settings, check_paths=check_paths):
            continue
        ranges = line_ranges(d, settings.filter_mode)
        if ranges == []:
            continue  # only removals or a pure rename: no line of it counts under this mode
        out.append(SelectedFile(path=str(root / d.path), display=d.path, line_ranges=ranges))
    return sorted(out, key=lambda f: f.display)


def list_workspace(root: Path, settings: Settings, *, git: Git | None = None) -> list[SelectedFile]:
    """Every file under `root` matching `paths` (tracked files when `root` is a git repo)."""
    names: list[str]
    try:
        names = (git or Git(root)).ls_files()
    except GitError:
        names = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for name in filenames:
                names.append(_posix_rel(Path(dirpath) / name, root))
    out = [
        SelectedFile(path=str(root / n), display=n)
        for n in sorted(set(names))
        if is_wanted(n, settings) and (root / n).is_file()
    ]
    return out


def select_audit(root: Path, settings: Settings, *, git: Git | None = None) -> list[SelectedFile]:
    """Audit mode: every file matching `paths` (whole files), then this job's shard."""
    return apply_shard(list_workspace(root, settings, git=git), settings.shard_tuple)


@dataclass
class PRFile:
    """One entry of the PR files API (`GET /repos/{o}/{r}/pulls/{n}/files`)."""

    filename: str
    status: str  # added | removed | modified | renamed | copied | changed | unchanged
    patch: str | None = None
    previous_filename: str | None = None


def diffs_from_api(files: Iterable[PRFile]) -> list[FileDiff]:
    diffs: list[FileDiff] = []
    for f in files:
        if f.status == "removed":
            continue
        d = FileDiff(
            path=f.filename,
            old_path=f.previous_filename,
            status="renamed" if f.status == "renamed" else f.status,
            has_patch=f.patch is not None or f.status == "renamed",
        )
        if f.patch:
            parse_hunks(f.patch, d)
        diffs.append(d)
    return diffs


@dataclass
class Selection:
    files: list[SelectedFile]
    errors: list[FileError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = "git"  # git | api | workspace


def _git_pr_diffs(git: Git, base_sha: str, head_sha: str | None, notes: list[str]) -> list[FileDiff]:
    """Changed files between the PR base and the checked-out commit, line numbers of the latter."""
    current = git.out("rev-parse", "HEAD").strip()
    parents = git.raw_parents("HEAD")
    if head_sha and current != head_sha and head_sha in parents and len(parents) == 2:
        # actions/checkout's default for pull_request: the test merge commit. Its other parent
        # is the base tip it was merged into, so this diff is exactly what the PR adds.
        base = next(p for p in parents if p != head_sha)
        git.ensure_commit(base)
        return git.diff(base, "HEAD")
    if head_sha and current != head_sha:
        notes.append(
            f"the workspace is at {current[:12]}, not the PR head {head_sha[:12]}; "
            "check out the head (actions/checkout `ref: ${{ github.event.pull_request.head.sha }}`)"
        )
    git.ensure_commit(base_sha)
    if git.ok("merge-base", base_sha, "HEAD"):
        return git.diff(f"{base_sha}...HEAD")
    # A shallow clone has no common ancestor; the two trees still give the PR's lines.
    return git.diff(base_sha, "HEAD")


def select_pr(
    root: Path,
    settings: Settings,
    *,
    base_sha: str,
    head_sha: str | None,
    api_files: Callable[[], list[PRFile]] | None = None,
    safe_directory: str | None = None,
) -> Selection:
    """PR mode: changed files matching `paths` and their line ranges per `filter-mode`.

    Git first (the history the checkout has, fetching what a shallow clone lacks); if git
    cannot tell (no repository, fetch refused), the PR files API through `api_files`.
    """
    if settings.filter_mode == FilterMode.nofilter:
        files = select_audit(root, settings, git=Git(root, safe_directory))
        return Selection(files=files, source="workspace")
    notes: list[str] = []
    git = Git(root, safe_directory)
    try:
        diffs = _git_pr_diffs(git, base_sha, head_sha, notes)
        source = "git"
    except GitError as exc:
        if api_files is None:
            raise
        notes.append(f"git could not give the PR diff ({exc}); used the PR files API")
        diffs = diffs_from_api(api_files())
        source = "api"
        unknown = [d.path for d in diffs if not d.has_patch and is_wanted(d.path, settings)]
        if unknown:
            notes.append(f"no patch from the API for {', '.join(unknown)}: whole files checked")
    changed = files_from_diffs(diffs, root, settings)
    files = [f for f in changed if Path(f.path).is_file()]
    # A changed file missing from the workspace would otherwise pass unchecked.
    errors = [
        FileError(
            file=f.display,
            message="changed in the PR but not in the workspace (add actions/checkout before citecheck)",
        )
        for f in changed
        if not Path(f.path).is_file()
    ]
    return Selection(
        files=apply_shard(files, settings.shard_tuple), errors=errors, notes=notes, source=source
    )


def _under(display: str, prefixes: Sequence[str]) -> bool:
    return any(p in ("", ".") or display == p or display.startswith(p.rstrip("/") + "/") for p in prefixes)


def select_local(
    paths: Sequence[str],
    settings: Settings,
    *,
    diff_ref: str | None = None,
    cwd: Path | None = None,
) -> tuple[list[SelectedFile], list[FileError]]:
    """Local mode for the CLI: `paths` (files, or folders searched for Markdown), or with
    `diff_ref` the files changed between that ref and the working tree (restricted to
    `paths` when given, matching the `paths` globs), with line ranges per `filter-mode`.

    A config file's narrowing (`ignore`, its `paths`) applies either way; `--shard` too.
    Problems (a missing path, not a git repository, an unknown ref) come back as errors.
    """
    base = (cwd or Path.cwd()).resolve()
    errors: list[FileError] = []
    files: list[SelectedFile]
    if diff_ref is None:
        from citecheck.extract import find_markdown_files  # the extract stage owns folder walking

        found, errors = find_markdown_files([base / p for p in (paths or ["."])])
        files = []
        for p in found:
            display = _posix_rel(p, base)
            if is_wanted(display, settings, check_paths=False):
                files.append(SelectedFile(path=str(p), display=display))
    else:
        git = Git(base)
        try:
            root = git.toplevel()
            diffs = git.diff(diff_ref)
        except GitError as exc:
            where = ", ".join(paths) or str(base)
            return [], [FileError(file=where, message=f"--diff {diff_ref}: {exc}")]
        for d in diffs:
            d.path = _posix_rel(root / d.path, base)  # report paths relative to where we run
        wanted = [_posix_rel(base / p, base) for p in paths]
        if settings.filter_mode == FilterMode.nofilter:
            files = [f for f in list_workspace(base, settings) if not paths or _under(f.display, wanted)]
        else:
            if paths:
                diffs = [d for d in diffs if _under(d.path, wanted)]
            files = [f for f in files_from_diffs(diffs, base, settings) if Path(f.path).is_file()]
    return apply_shard(files, settings.shard_tuple), errors
