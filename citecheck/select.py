"""Select stage: which Markdown files, and which of their lines, a run checks (docs/ARCHITECTURE.md).

Three ways in:

- **PR mode** (`select_pr`): the changed files and line ranges from the PR files API (the
  `patch` of each file, as GitHub's "Files changed" tab shows it), moved onto the checked-out
  file by content, so a test-merge checkout whose base changed the same file still lines up.
  The Action's image carries no git: the API needs no history, whatever the checkout depth.
- **Audit mode** (`select_audit`): every file of the workspace matching `paths`.
- **Local mode** (`select_local`): paths from the command line; or the files that differ
  between `--diff REF` and the working tree; or, with `--changed BASE`, the files the branch
  changed since it left BASE (default its upstream): the same diff, taken from the merge base of
  BASE and HEAD — what a pull request of the branch would show, so commits BASE gained since do
  not count as changes of yours — plus the files git does not track yet (not ignored), which are
  new in whole.

`filter-mode` decides the line ranges: `added` keeps the added or changed lines, `diff_context`
widens them by three lines each side (and includes the lines around a removal), `file` checks
whole changed files, and `nofilter` checks every file matching `paths`, changed or not.
Renamed files are followed to their new name and keep their claims (with rename detection,
only the lines that changed count as added); deleted files are ignored.

A symbolic link is read only when it points inside the tree and outside its skipped folders:
a link to `.git/config` or `/etc/passwd` (which a PR can commit) is skipped with a warning
(a PR file: an error), never read as a document.

`paths` globs follow the GitHub Actions convention: `*` stays inside one folder, `**` crosses
folders (`**/` also matches no folder at all), `?` is one character, `[abc]` a class, and a
leading `!` excludes what an earlier pattern included.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath

from citecheck.config import FilterMode, Settings
from citecheck.models import FileError, SelectedFile
from citecheck.safe_paths import link_escape, skipped_dir

CONTEXT_LINES = 3  # the ±lines of `diff_context`
# git's empty tree: what `--changed` compares with on a branch without a commit yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown")

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
    new_side: list[tuple[int, str]] = field(default_factory=list)  # (line, text) shown: added, context
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
            diff.new_side.append((new_line, line[1:]))
            new_line += 1
        elif tag == " ":
            diff.new_side.append((new_line, line[1:]))
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
    """Runs git in one repository, for the CLI's `--diff REF` and tracked-file listing."""

    cwd: Path

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = ["git", "-c", "core.quotePath=false", *args]
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

    def untracked(self) -> list[FileDiff]:
        """The files of the whole repository git does not track and does not ignore, as diffs
        of new files (paths from its top level; no patch: every line is new)."""
        names = self.out("ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", ":/")
        return [FileDiff(path=n, status="added", has_patch=False) for n in names.split("\0") if n]

    def merge_base(self, base: str) -> str:
        """The commit the branch left `base` at (the merge base of `base` and HEAD), which
        `--changed` compares the working tree with; git's empty tree before the first commit.
        Raises `GitError` saying what to do when `base` is an upstream the branch lacks."""
        if not self.ok("rev-parse", "--verify", "--quiet", "HEAD"):
            return EMPTY_TREE
        if base.endswith(("@{upstream}", "@{u}", "@{push}")) and not self.ok(
            "rev-parse", "--verify", "--quiet", base
        ):
            branch = self.run("symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.strip()
            who = f"the branch {branch}" if branch else "HEAD (detached)"
            raise GitError(
                f"{who} has no upstream to compare with: name the base, e.g. --changed=origin/main "
                "(or set one: git branch --set-upstream-to=origin/main)"
            )
        return self.out("merge-base", base, "HEAD").strip()


# ---------------------------------------------------------------- building selections


def _lexical_rel(path: str, root: Path) -> str:
    """`path` relative to `root` as written, without following links (a link's own name)."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return PurePosixPath(Path(rel)).as_posix() if not rel.startswith("..") else path


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


def _link_warning(display: str, why: str) -> FileError:
    return FileError(file=display, message=f"{why}: not read", fatal=False)


def list_workspace(
    root: Path, settings: Settings, *, git: Git | None = None
) -> tuple[list[SelectedFile], list[FileError]]:
    """Every file under `root` matching `paths`: the tracked ones when `git` is given and
    `root` is a repository, else a walk that skips hidden folders, node_modules and
    virtualenvs (`walk_files`). A symbolic link out of the tree is a warning, not a file."""
    names: list[str] | None = None
    warnings: list[FileError] = []
    if git is not None:
        with contextlib.suppress(GitError):  # not a repository: walk it
            names = git.ls_files()
    if names is None:
        walked, warnings = walk_files(root)
        names = [_posix_rel(p, root) for p in walked]
        warnings = [w.model_copy(update={"file": _lexical_rel(w.file, root)}) for w in warnings]
    out: list[SelectedFile] = []
    for n in sorted(set(names)):
        if not (is_wanted(n, settings) and (root / n).is_file()):
            continue
        # git tracks a link as a file of its own and nothing beneath a linked folder, and the
        # walk has skipped its links already: only the file itself can be one here.
        why = link_escape(root / n, root) if (root / n).is_symlink() else None
        if why is None:
            out.append(SelectedFile(path=str(root / n), display=n))
        else:
            warnings.append(_link_warning(n, why))
    return out, [w for w in warnings if is_wanted(w.file, settings)]


def select_audit(root: Path, settings: Settings, *, git: Git | None = None) -> Selection:
    """Audit mode: every file matching `paths` (whole files), then this job's shard."""
    files, warnings = list_workspace(root, settings, git=git)
    return Selection(files=apply_shard(files, settings.shard_tuple), errors=warnings, source="workspace")


@dataclass
class PRFile:
    """One entry of the PR files API (`GET /repos/{o}/{r}/pulls/{n}/files`)."""

    filename: str
    status: str  # added | removed | modified | renamed | copied | changed | unchanged
    patch: str | None = None
    previous_filename: str | None = None


@dataclass
class PRFileList:
    """The PR files API's answer, and how many files GitHub says the PR changes: the API lists
    at most 3,000, so fewer listed than changed means some are missing."""

    files: list[PRFile]
    changed_files: int


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


def relocate(diff: FileDiff, lines: Sequence[str]) -> bool:
    """Move a patch's line numbers (the PR head's) onto the checked-out file's `lines`.

    actions/checkout's default for pull_request is a test merge of the PR into the base
    branch's tip; when the base changed the same file since the PR branched, everything below
    that change is shifted. Each line the patch shows (added or context) is looked up by its
    text, nearest to where the offset so far puts it; blank lines, which match anywhere, keep
    the offset. A changed line then moves by the offset of the last shown line at or before it.

    Returns whether every added line is in the file where it was moved to; False means the
    workspace holds another version of the file than the PR's head or test merge.
    """
    where: dict[str, list[int]] | None = None  # text → line numbers, built on the first miss
    offset = 0
    heads: list[int] = []
    offsets: list[int] = []
    for number, text in diff.new_side:
        key = text.rstrip()
        at = number + offset
        if key.strip() and not (0 < at <= len(lines) and lines[at - 1].rstrip() == key):
            if where is None:
                where = {}
                for n, line in enumerate(lines, 1):
                    where.setdefault(line.rstrip(), []).append(n)
            hits = where.get(key)
            if hits:
                offset = min(hits, key=lambda h: abs(h - at)) - number
        heads.append(number)
        offsets.append(offset)
    if not heads:
        return True

    def moved(n: int) -> int:
        return n + offsets[max(0, bisect_right(heads, n) - 1)]

    shown = dict(diff.new_side)
    before = diff.added
    diff.added = [moved(n) for n in before]
    diff.removed_at = [moved(n) for n in diff.removed_at]
    return all(
        not shown[n].strip() or (0 < m <= len(lines) and lines[m - 1].rstrip() == shown[n].rstrip())
        for n, m in zip(before, diff.added, strict=True)
    )


@dataclass
class Selection:
    files: list[SelectedFile]
    errors: list[FileError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = "api"  # api | workspace


def _read_lines(path: Path) -> list[str] | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def select_pr(root: Path, settings: Settings, listing: PRFileList) -> Selection:
    """PR mode: the changed files matching `paths` and their line ranges per `filter-mode`,
    from the PR files API's listing (`nofilter`: every file matching `paths`). A file changed
    in the PR but missing from the workspace, or there without the PR's changes, is an error,
    never a silent pass."""
    if settings.filter_mode == FilterMode.nofilter:
        return select_audit(root, settings)
    if len(listing.files) < listing.changed_files:
        audit = select_audit(root, settings)
        audit.notes.append(
            f"the PR changes {listing.changed_files} files but the PR files API lists only "
            f"{len(listing.files)}: every file matching `paths` was checked whole"
        )
        return audit
    notes: list[str] = []
    diffs = diffs_from_api(listing.files)
    other_version: set[str] = set()
    for d in diffs:
        # Only the files this run checks are read: a PR's other changes need no line numbers.
        wanted = d.added and is_wanted(d.path, settings) and link_escape(root / d.path, root) is None
        lines = _read_lines(root / d.path) if wanted else None
        if lines is not None and not relocate(d, lines):
            other_version.add(d.path)
    unknown = [d.path for d in diffs if not d.has_patch and is_wanted(d.path, settings)]
    if unknown:
        notes.append(f"no patch from the API for {', '.join(unknown)}: whole files checked")
    changed = files_from_diffs(diffs, root, settings)
    files: list[SelectedFile] = []
    errors: list[FileError] = []
    for f in changed:
        # Either way the PR's lines are not there to check: an error, never a silent pass.
        escape = link_escape(Path(f.path), root) if Path(f.path).exists() else None
        if escape is not None:
            why = f"{escape}: not read"
        elif not Path(f.path).is_file():
            why = "changed in the PR but not in the workspace (add actions/checkout before citecheck)"
        elif f.display in other_version:
            why = (
                "the checked-out file lacks the PR's changed lines: check out the PR's head or merge "
                "commit (with pull_request_target, actions/checkout "
                "`ref: ${{ github.event.pull_request.head.sha }}`)"
            )
        else:
            files.append(f)
            continue
        errors.append(FileError(file=f.display, message=why))
    return Selection(files=apply_shard(files, settings.shard_tuple), errors=errors, notes=notes)


def _under(display: str, prefixes: Sequence[str]) -> bool:
    return any(p in ("", ".") or display == p or display.startswith(p.rstrip("/") + "/") for p in prefixes)


def select_local(
    paths: Sequence[str],
    settings: Settings,
    *,
    diff_ref: str | None = None,
    changed: str | None = None,
    cwd: Path | None = None,
) -> tuple[list[SelectedFile], list[FileError]]:
    """Local mode for the CLI: `paths` (files, or folders searched for Markdown); or with
    `diff_ref` the files changed between that ref and the working tree; or with `changed`
    (a base: a branch, a commit, `@{upstream}`) the files changed since the merge base of that
    base and HEAD, untracked files included (see the module's docstring). Changed files are
    restricted to `paths` when given, and must match the `paths` globs; their line ranges
    follow `filter-mode`.

    A config file's narrowing (`ignore`, its `paths`) applies either way; `--shard` too.
    Problems (a missing path, not a git repository, an unknown ref, no upstream) come back as
    errors.
    """
    base = (cwd or Path.cwd()).resolve()
    errors: list[FileError] = []
    files: list[SelectedFile]
    if diff_ref is None and changed is None:
        found, errors = find_markdown_files([base / p for p in (paths or ["."])])
        errors = [e.model_copy(update={"file": _lexical_rel(e.file, base)}) for e in errors]
        files = []
        for p in found:
            display = _posix_rel(p, base)
            if is_wanted(display, settings, check_paths=False):
                files.append(SelectedFile(path=str(p), display=display))
    else:
        git = Git(base)
        try:
            root = git.toplevel()
            if changed is None:
                assert diff_ref is not None
                diffs = git.diff(diff_ref)
            else:
                diffs = git.diff(git.merge_base(changed)) + git.untracked()
        except GitError as exc:
            where = ", ".join(paths) or str(base)
            flag = f"--diff {diff_ref}" if changed is None else f"--changed {changed}"
            return [], [FileError(file=where, message=f"{flag}: {exc}")]
        for d in diffs:
            d.path = _posix_rel(root / d.path, base)  # report paths relative to where we run
        wanted = [_posix_rel(base / p, base) for p in paths]
        if settings.filter_mode == FilterMode.nofilter:
            tracked, warnings = list_workspace(base, settings, git=git)
            errors += [w for w in warnings if not paths or _under(w.file, wanted)]
            files = [f for f in tracked if not paths or _under(f.display, wanted)]
        else:
            if paths:
                diffs = [d for d in diffs if _under(d.path, wanted)]
            # A file named on the command line is taken whatever the `paths` globs say, as
            # without a git base (the pre-commit hook names `.markdown` files, say).
            named = {w for w in wanted if (base / w).is_file()}
            chosen = files_from_diffs(
                [d for d in diffs if d.path in named], base, settings, check_paths=False
            )
            chosen += files_from_diffs([d for d in diffs if d.path not in named], base, settings)
            files = sorted((f for f in chosen if Path(f.path).is_file()), key=lambda f: f.display)
    return apply_shard(files, settings.shard_tuple), errors


def checked_trees(paths: Sequence[str], *, diff: bool, cwd: Path | None = None) -> list[Path]:
    """The trees a local run reads Markdown from, which a change under test can write: the
    git working tree of each of `paths` (the nearest folder up from it with a `.git`), or a
    folder given outside any repository itself (a file outside one is no tree); with `diff`,
    the working tree of `cwd` too. The CLI keeps its cache out of them."""
    base = (cwd or Path.cwd()).resolve()
    repos: dict[Path, Path | None] = {}  # folder → its working tree, looked up once

    def repo_of(folder: Path) -> Path | None:
        if folder not in repos:
            repos[folder] = next((d for d in (folder, *folder.parents) if (d / ".git").exists()), None)
        return repos[folder]

    trees: dict[Path, None] = {}
    if diff and (top := repo_of(base)) is not None:
        trees[top] = None
    for p in paths:
        path = (base / p).resolve()
        is_dir = path.is_dir()
        top = repo_of(path if is_dir else path.parent)
        if top is not None or is_dir:
            trees[top or path] = None
    return list(trees)


def walk_files(top: Path) -> tuple[list[Path], list[FileError]]:
    """Every file under `top`, skipping hidden folders (`.git`, `.venv`, caches), node_modules
    and Python virtual environments, whose Markdown is someone else's; and a warning for each
    symbolic link that leads out of the tree or into such a folder (`link_escape`), which is
    skipped. Folder links are not followed (`os.walk`'s default)."""
    files: list[Path] = []
    warnings: list[FileError] = []
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not skipped_dir(d, Path(root)))
        for name in names:
            path = Path(root, name)
            why = link_escape(path, top) if path.is_symlink() else None
            if why is None:
                files.append(path)
            else:
                warnings.append(_link_warning(path.as_posix(), why))
    return files, warnings


def find_markdown_files(paths: Sequence[Path]) -> tuple[list[Path], list[FileError]]:
    """The Markdown files named by `paths`; a directory means every *.md / *.mdx / *.markdown
    under it (as `walk_files` finds them), sorted; a file named explicitly is always taken.
    A missing path is an error."""
    files: list[Path] = []
    errors: list[FileError] = []
    seen: set[Path] = set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            walked, warnings = walk_files(p)
            errors += [w for w in warnings if w.file.lower().endswith(MARKDOWN_SUFFIXES)]
            found = [f for f in walked if f.name.lower().endswith(MARKDOWN_SUFFIXES)]
            for f in sorted(found):
                if f not in seen:
                    seen.add(f)
                    files.append(f)
        elif p.exists():
            if p not in seen:
                seen.add(p)
                files.append(p)
        else:
            errors.append(FileError(file=str(p), message="no such file or directory"))
    return files, errors
