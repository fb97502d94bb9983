"""Select stage on real git repositories: PR files as the API lists them, filter modes, renames,
test-merge checkouts, audits, local diffs, shards."""

from __future__ import annotations

from pathlib import Path

import pytest

from citecheck.config import Settings
from citecheck.models import SelectedFile
from citecheck.select import (
    Git,
    PRFile,
    PRFileList,
    apply_shard,
    find_markdown_files,
    glob_match,
    matches_patterns,
    parse_git_diff,
    select_audit,
    select_local,
    select_pr,
    unquote_git_path,
)
from tests.servers.github_server import pr_files_from_git
from tests.servers.gitrepo import Repo, git

BASE_DOC = "".join(f"Line {i}.\n" for i in range(1, 21))


def _changed(doc: str, line_no: int, text: str) -> str:
    lines = doc.splitlines(keepends=True)
    lines[line_no - 1] = text + "\n"
    return "".join(lines)


@pytest.fixture
def pr_repo(tmp_path: Path) -> tuple[Repo, str, str]:
    repo = Repo(tmp_path / "repo")
    base = repo.commit(
        {
            "docs/a.md": BASE_DOC,
            "docs/old.md": BASE_DOC,
            "docs/gone.md": BASE_DOC,
            "src/code.py": "x = 1\n",
            "untouched.md": BASE_DOC,
        },
        "base",
    )
    repo.mv("docs/old.md", "guide/new.md")
    repo.write({"guide/new.md": _changed(BASE_DOC, 5, "Renamed and edited line five.")})
    head = repo.commit(
        {
            "docs/a.md": _changed(_changed(BASE_DOC, 3, "Changed three."), 10, "Changed ten."),
            "docs/gone.md": None,
            "docs/b.mdx": "New file.\nSecond line.\n",
            "src/code.py": "x = 2\n",
            "notes.txt": "not markdown\n",
        },
        "head",
    )
    return repo, base, head


def _by_display(files: list[SelectedFile]) -> dict[str, list[tuple[int, int]] | None]:
    return {f.display: f.line_ranges for f in files}


def _listing(root: Path, base: str, head: str) -> PRFileList:
    """What the PR files API answers for base...head of the real repository at `root`."""
    files = [PRFile(**entry) for entry in pr_files_from_git(root, base, head)]
    return PRFileList(files=files, changed_files=len(files))


def test_glob_semantics() -> None:
    assert glob_match("README.md", "**/*.md")
    assert glob_match("a/b/c.md", "**/*.md")
    assert not glob_match("a/b.md", "*.md")
    assert glob_match("docs/x/y.md", "docs/**")
    assert not glob_match("docs.md", "docs/**")
    assert glob_match("a1.md", "a?.md") and glob_match("ab.md", "a[a-c].md")
    assert matches_patterns("docs/a.md", ["**/*.md", "!docs/**"]) is False
    assert matches_patterns("guide/a.md", ["**/*.md", "!docs/**"]) is True
    assert matches_patterns("x.md", []) is False


def test_pr_added_lines_renames_and_deletes(pr_repo: tuple[Repo, str, str]) -> None:
    repo, base, head = pr_repo
    sel = select_pr(repo.root, Settings(), _listing(repo.root, base, head))
    got = _by_display(sel.files)
    # Only Markdown matching `paths`; the deleted file and the untouched file are not there.
    assert got == {"docs/a.md": [(3, 3), (10, 10)], "docs/b.mdx": [(1, 2)], "guide/new.md": [(5, 5)]}
    assert sel.source == "api" and sel.notes == []
    assert all(Path(f.path).is_file() for f in sel.files)


def test_pr_filter_modes(pr_repo: tuple[Repo, str, str]) -> None:
    repo, base, head = pr_repo
    ctx = _by_display(
        select_pr(repo.root, Settings(filter_mode="diff_context"), _listing(repo.root, base, head)).files
    )
    assert ctx["docs/a.md"] == [(1, 6), (7, 13)] or ctx["docs/a.md"] == [(1, 13)]
    whole = _by_display(
        select_pr(repo.root, Settings(filter_mode="file"), _listing(repo.root, base, head)).files
    )
    assert whole == {"docs/a.md": None, "docs/b.mdx": None, "guide/new.md": None}
    everything = _by_display(
        select_pr(repo.root, Settings(filter_mode="nofilter"), _listing(repo.root, base, head)).files
    )
    assert everything == {"docs/a.md": None, "docs/b.mdx": None, "guide/new.md": None, "untouched.md": None}


def test_pr_removal_only_counts_under_diff_context(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    base = repo.commit({"a.md": BASE_DOC})
    lines = BASE_DOC.splitlines(keepends=True)
    head = repo.commit({"a.md": "".join(lines[:9] + lines[11:])})  # drop lines 10-11
    assert select_pr(repo.root, Settings(), _listing(repo.root, base, head)).files == []
    ctx = select_pr(repo.root, Settings(filter_mode="diff_context"), _listing(repo.root, base, head)).files
    assert ctx[0].line_ranges == [(7, 12)]


def test_pr_needs_no_history(pr_repo: tuple[Repo, str, str], tmp_path: Path) -> None:
    """A depth-1 clone, as actions/checkout makes by default: the API listing needs no base."""
    repo, base, head = pr_repo
    clone = repo.shallow_clone(tmp_path / "clone")
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    with pytest.raises(AssertionError):
        git(clone, "cat-file", "-t", base)
    sel = select_pr(clone, Settings(), _listing(repo.root, base, head))
    assert _by_display(sel.files) == {
        "docs/a.md": [(3, 3), (10, 10)],
        "docs/b.mdx": [(1, 2)],
        "guide/new.md": [(5, 5)],
    }


def test_pr_merge_commit_checkout_moves_lines_by_content(tmp_path: Path) -> None:
    """actions/checkout's default for pull_request: a merge of head into a newer base tip. When
    the base added lines above the PR's change in the same file, the API's head line numbers
    are moved onto the checked-out file."""
    repo = Repo(tmp_path / "r")
    first = repo.commit({"a.md": BASE_DOC, "b.md": BASE_DOC})
    git(repo.root, "checkout", "-q", "-b", "feature")
    lines = BASE_DOC.splitlines(keepends=True)
    pr_doc = "".join([*lines[:3], "PR line.\n", *lines[3:11], *lines[13:]])  # add after 3, drop 12-13
    head = repo.commit({"a.md": pr_doc})
    git(repo.root, "checkout", "-q", "main")
    repo.commit({"a.md": "# Title\n\nIntro added on main.\n\n" + BASE_DOC})
    git(repo.root, "merge", "-q", "--no-ff", "-m", "merge", "feature")
    merged = (repo.root / "a.md").read_text().splitlines()
    assert merged[7] == "PR line."  # line 8 of the checkout; line 4 of the PR head
    listing = _listing(repo.root, first, head)
    assert _by_display(select_pr(repo.root, Settings(), listing).files) == {"a.md": [(8, 8)]}
    ctx = select_pr(repo.root, Settings(filter_mode="diff_context"), listing).files
    # ±3 around the added line 8, and the lines around the removal (after line 16, "Line 11.").
    assert merged[15] == "Line 11." and ctx[0].line_ranges == [(5, 11), (14, 19)]
    # Without a merge (the head checked out), the numbers stay as the API gives them.
    git(repo.root, "checkout", "-q", head)
    assert _by_display(select_pr(repo.root, Settings(), listing).files) == {"a.md": [(4, 4)]}
    ctx = select_pr(repo.root, Settings(filter_mode="diff_context"), listing).files
    assert ctx[0].line_ranges == [(1, 7), (10, 15)]


def test_pr_api_patch_missing_and_checkout_missing(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "docs").mkdir(parents=True)
    head_doc = _changed(BASE_DOC, 3, "Changed three.").replace("Line 4.", "Inserted.\nLine 4.")
    (root / "docs/a.md").write_text(head_doc)
    (root / "docs/big.md").write_text(BASE_DOC)
    patch = "@@ -1,5 +1,6 @@\n Line 1.\n Line 2.\n-Line 3.\n+Changed three.\n+Inserted.\n Line 4.\n Line 5.\n"
    api = [
        PRFile("docs/a.md", "modified", patch),
        PRFile("docs/big.md", "modified", None),
        PRFile("docs/old.md", "removed", "@@ -1 +0,0 @@\n-x\n"),
    ]
    sel = select_pr(root, Settings(), PRFileList(api, 3))
    assert sel.source == "api" and sel.errors == []
    assert _by_display(sel.files) == {"docs/a.md": [(3, 4)], "docs/big.md": None}
    assert sel.notes == ["no patch from the API for docs/big.md: whole files checked"]
    # Without the checkout, the changed files are errors, never a silent pass.
    missing = select_pr(tmp_path / "empty", Settings(), PRFileList(api, 3))
    assert missing.files == [] and [e.file for e in missing.errors] == ["docs/a.md", "docs/big.md"]
    assert all(e.fatal and "actions/checkout" in e.message for e in missing.errors)


def test_pr_checkout_of_another_version_is_an_error(pr_repo: tuple[Repo, str, str]) -> None:
    """pull_request_target checks out the base by default: the PR's lines are not there, and
    checking whatever sits at those line numbers would pass claims nobody added."""
    repo, base, head = pr_repo
    listing = _listing(repo.root, base, head)
    git(repo.root, "checkout", "-q", base)
    sel = select_pr(repo.root, Settings(), listing)
    assert sel.files == []
    assert {e.file: e.fatal for e in sel.errors} == {
        "docs/a.md": True,
        "docs/b.mdx": True,
        "guide/new.md": True,
    }
    by_file = {e.file: e.message for e in sel.errors}
    assert "not in the workspace" in by_file["docs/b.mdx"]  # added by the PR, absent at base
    assert by_file["docs/a.md"].startswith("the checked-out file lacks the PR's changed lines")
    assert "github.event.pull_request.head.sha" in by_file["docs/a.md"]


def test_pr_listing_cut_short_checks_every_matching_file(pr_repo: tuple[Repo, str, str]) -> None:
    """The API lists at most 3,000 files: with fewer listed than changed, nothing is left out."""
    repo, base, head = pr_repo
    listing = _listing(repo.root, base, head)
    short = PRFileList(files=listing.files[:1], changed_files=len(listing.files))
    sel = select_pr(repo.root, Settings(), short)
    assert _by_display(sel.files) == {
        "docs/a.md": None,
        "docs/b.mdx": None,
        "guide/new.md": None,
        "untouched.md": None,
    }
    assert sel.source == "workspace" and "lists only 1" in sel.notes[0]


def test_paths_ignore_and_config_narrowing(pr_repo: tuple[Repo, str, str]) -> None:
    repo, base, head = pr_repo
    s = Settings(paths="docs/**/*.md", ignore=["docs/b*"])
    assert _by_display(select_pr(repo.root, s, _listing(repo.root, base, head)).files) == {
        "docs/a.md": [(3, 3), (10, 10)]
    }
    s = Settings(also_paths=["guide/**"])
    assert list(_by_display(select_pr(repo.root, s, _listing(repo.root, base, head)).files)) == [
        "guide/new.md"
    ]


def test_audit_lists_tracked_or_walked_matching_files(pr_repo: tuple[Repo, str, str]) -> None:
    repo, _, _ = pr_repo
    (repo.root / "untracked.md").write_text("x\n")
    for skipped in ("node_modules/pkg", ".cache", "venv"):
        (repo.root / skipped).mkdir(parents=True)
        (repo.root / skipped / "README.md").write_text("x\n")
    (repo.root / "venv/pyvenv.cfg").write_text("home = /usr\n")
    files = select_audit(repo.root, Settings(), git=Git(repo.root)).files
    assert [f.display for f in files] == ["docs/a.md", "docs/b.mdx", "guide/new.md", "untouched.md"]
    assert all(f.line_ranges is None for f in files)
    # The Action's image has no git: the walk skips hidden folders, node_modules and venvs.
    walked = [f.display for f in select_audit(repo.root, Settings()).files]
    assert walked == ["docs/a.md", "docs/b.mdx", "guide/new.md", "untouched.md", "untracked.md"]


def test_shards_are_stable_disjoint_and_complete() -> None:
    files = [SelectedFile(path=f"d/{i}.md", display=f"d/{i}.md") for i in range(200)]
    slices = [apply_shard(files, (i, 4)) for i in range(1, 5)]
    names = [f.display for s in slices for f in s]
    assert sorted(names) == sorted(f.display for f in files) and len(names) == len(set(names))
    assert all(len(s) > 20 for s in slices)  # a hash spreads them, no shard is empty
    # Adding files never moves an existing file to another shard.
    more = [*files, *(SelectedFile(path=f"e/{i}.md", display=f"e/{i}.md") for i in range(50))]
    again = {f.display for f in apply_shard(more, (2, 4))}
    assert {f.display for f in slices[1]} <= again
    assert apply_shard(slices[1], (2, 4)) == slices[1]
    assert apply_shard(files, None) == files


def test_select_local_diff_ref_and_paths(pr_repo: tuple[Repo, str, str]) -> None:
    repo, base, _ = pr_repo
    # Work in progress on top of head: an uncommitted edit counts too.
    (repo.root / "untouched.md").write_text(_changed(BASE_DOC, 7, "Edited, not committed."))
    files, errors = select_local([], Settings(), diff_ref=base, cwd=repo.root)
    assert errors == []
    assert _by_display(files) == {
        "docs/a.md": [(3, 3), (10, 10)],
        "docs/b.mdx": [(1, 2)],
        "guide/new.md": [(5, 5)],
        "untouched.md": [(7, 7)],
    }
    files, _ = select_local(["docs"], Settings(), diff_ref=base, cwd=repo.root)
    assert sorted(_by_display(files)) == ["docs/a.md", "docs/b.mdx"]
    # From a subfolder, names are relative to where citecheck runs.
    files, _ = select_local([], Settings(), diff_ref=base, cwd=repo.root / "docs")
    assert _by_display(files)["a.md"] == [(3, 3), (10, 10)]
    files, errors = select_local([], Settings(), diff_ref="no-such-ref", cwd=repo.root)
    assert files == [] and "no-such-ref" in errors[0].message


def test_select_local_not_a_repo(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x\n")
    files, errors = select_local([], Settings(), diff_ref="HEAD", cwd=tmp_path)
    assert files == [] and errors and errors[0].fatal


def test_select_local_paths(tmp_path: Path) -> None:
    pytest.importorskip("citecheck.extract.document")  # folder walking is the extract stage's
    (tmp_path / "docs/sub").mkdir(parents=True)
    (tmp_path / "docs/a.md").write_text("x\n")
    (tmp_path / "docs/sub/b.md").write_text("x\n")
    (tmp_path / "docs/sub/skip.md").write_text("x\n")
    files, errors = select_local(["docs"], Settings(ignore=["**/skip.md"]), cwd=tmp_path)
    assert errors == []
    assert [(f.display, f.line_ranges) for f in files] == [("docs/a.md", None), ("docs/sub/b.md", None)]
    files, errors = select_local(["missing.md"], Settings(), cwd=tmp_path)
    assert files == [] and errors and "missing.md" in errors[0].file


def test_parse_quoted_and_renamed_paths() -> None:
    assert unquote_git_path('"d\\303\\251j\\303\\240 \\"q\\".md"') == 'déjà "q".md'
    text = (
        "diff --git a/x.md b/y.md\nsimilarity index 100%\nrename from x.md\nrename to y.md\n"
        'diff --git "a/t\\tb.md" "b/t\\tb.md"\n--- "a/t\\tb.md"\n+++ "b/t\\tb.md"\n@@ -2,0 +3,2 @@\n+a\n+b\n'
        "diff --git a/z.md b/z.md\ndeleted file mode 100644\n--- a/z.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )
    diffs = parse_git_diff(text)
    assert [(d.path, d.status, d.added) for d in diffs] == [
        ("y.md", "renamed", []),
        ("t\tb.md", "modified", [3, 4]),
    ]


def test_find_markdown_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "node_modules").mkdir()
    for name in ["b/z.md", "a.mdx", "c.markdown", "d.txt", "node_modules/x.md", "b/A.MD"]:
        (tmp_path / name).write_text("x")
    files, errors = find_markdown_files([tmp_path, tmp_path / "d.txt", tmp_path / "nope.md"])
    assert [f.relative_to(tmp_path).as_posix() for f in files] == [
        "a.mdx",
        "b/A.MD",
        "b/z.md",
        "c.markdown",
        "d.txt",
    ]
    assert len(errors) == 1 and errors[0].file.endswith("nope.md")


def test_find_markdown_files_skips_hidden_folders_and_virtualenvs(tmp_path: Path) -> None:
    for name in ["docs/a.md", ".cache/b.md", "env/lib/site-packages/pkg/README.md", "env/pyvenv.cfg"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    files, _ = find_markdown_files([tmp_path])
    assert [f.relative_to(tmp_path).as_posix() for f in files] == ["docs/a.md"]
    # Named explicitly, a file in such a folder is still taken.
    files, _ = find_markdown_files([tmp_path / ".cache" / "b.md"])
    assert len(files) == 1


def _links(root: Path, outside: Path) -> None:
    """A tree whose Markdown-named links lead out of it, into `.git`, inside it, and nowhere."""
    (root / ".git").mkdir(parents=True)
    (root / ".git/config").write_text("[remote]\n\turl = https://x:ghp_credential@github.com/o/r\n")
    (root / "docs").mkdir()
    (root / "docs/real.md").write_text("# Real\n\nSales grew 25% in 2023.\n")
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "docs/passwd.md").symlink_to(outside)
    (root / "docs/config.md").symlink_to("../.git/config")
    (root / "docs/alias.md").symlink_to("real.md")  # inside the tree: kept
    (root / "docs/dangling.md").symlink_to("nowhere.md")


def test_the_walk_does_not_follow_a_link_out_of_the_tree(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    _links(root, tmp_path / "passwd")
    files, errors = find_markdown_files([root])
    assert [f.relative_to(root).as_posix() for f in files] == ["docs/alias.md", "docs/real.md"]
    warned = {Path(e.file).name: e for e in errors}
    assert set(warned) == {"passwd.md", "config.md", "dangling.md"}
    assert all(not e.fatal and e.message.endswith(": not read") for e in errors)
    assert "out of the tree" in warned["passwd.md"].message
    assert "into a skipped folder (to .git/config)" in warned["config.md"].message
    # The CLI's local mode reports them relative to where it runs, by the link's own name.
    files_local, errors_local = select_local(["docs"], Settings(), cwd=root)
    assert {f.display for f in files_local} == {"docs/real.md"}  # the alias shows as the file it is
    assert sorted(e.file for e in errors_local) == ["docs/config.md", "docs/dangling.md", "docs/passwd.md"]
    # The Action's audit walks the workspace the same way.
    audit = select_audit(root, Settings())
    assert [f.display for f in audit.files] == ["docs/real.md"]  # the alias is the same file
    assert sorted(e.file for e in audit.errors) == ["docs/config.md", "docs/dangling.md", "docs/passwd.md"]


def test_a_committed_link_out_of_the_tree_is_not_read(tmp_path: Path) -> None:
    """git tracks a link as a file: a PR can commit one to `/etc/passwd` or `.git/config`."""
    outside = tmp_path / "secret.txt"
    outside.write_text("API_KEY=sk-live-should-never-be-read 42% of it\n")
    repo = Repo(tmp_path / "repo")
    base = repo.commit({"docs/a.md": BASE_DOC}, "base")
    (repo.root / "docs/leak.md").symlink_to(outside)
    (repo.root / "docs/conf.md").symlink_to("../.git/config")
    git(repo.root, "add", "docs/leak.md", "docs/conf.md")
    head = repo.commit({"docs/b.md": "New.\n"}, "links")
    audit = select_audit(repo.root, Settings(), git=Git(repo.root))
    assert [f.display for f in audit.files] == ["docs/a.md", "docs/b.md"]
    assert sorted(e.file for e in audit.errors) == ["docs/conf.md", "docs/leak.md"]
    # In PR mode, a changed file that is such a link is an error, never read.
    selection = select_pr(repo.root, Settings(), _listing(repo.root, base, head))
    assert [f.display for f in selection.files] == ["docs/b.md"]
    errors = {e.file: e.message for e in selection.errors}
    assert set(errors) == {"docs/leak.md", "docs/conf.md"} and all(e.fatal for e in selection.errors)
    assert "out of the tree" in errors["docs/leak.md"] and "skipped folder" in errors["docs/conf.md"]


@pytest.fixture
def branch(tmp_path: Path) -> tuple[Repo, Path]:
    """An upstream repository and a clone working on a branch `feature` that tracks its main:
    the branch changed docs/a.md line 3 (committed) and line 10 (not committed) and made
    docs/new.md (not yet added); main has since changed docs/b.md, and the clone has fetched it."""
    origin = Repo(tmp_path / "origin")
    origin.commit({"docs/a.md": BASE_DOC, "docs/b.md": BASE_DOC, ".gitignore": "docs/ignored.md\n"}, "base")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", f"file://{origin.root}", str(work))
    git(work, "checkout", "-q", "-b", "feature", "--track", "origin/main")
    (work / "docs/a.md").write_text(_changed(BASE_DOC, 3, "Changed three."))
    git(work, "commit", "-q", "-am", "feature")
    (work / "docs/a.md").write_text(_changed(_changed(BASE_DOC, 3, "Changed three."), 10, "Changed ten."))
    (work / "docs/new.md").write_text("A new page.\nIts second line.\n")
    (work / "docs/ignored.md").write_text("Ignored.\n")
    origin.commit({"docs/b.md": _changed(BASE_DOC, 5, "Upstream changed five.")}, "upstream")
    git(work, "fetch", "-q")
    return origin, work


def test_changed_is_what_the_branch_changed_since_it_left_its_upstream(branch: tuple[Repo, Path]) -> None:
    _, work = branch
    expected = {"docs/a.md": [(3, 3), (10, 10)], "docs/new.md": None}
    files, errors = select_local([], Settings(), changed="@{upstream}", cwd=work)
    assert errors == []
    assert _by_display(files) == expected
    files, _ = select_local([], Settings(), changed="origin/main", cwd=work)
    assert _by_display(files) == expected
    # `--diff origin/main` compares with main's tip: main's own change to b.md shows up as one of
    # the branch's (its lines reverted); `--changed` compares with where the branch left main.
    files, _ = select_local([], Settings(), diff_ref="origin/main", cwd=work)
    assert _by_display(files) == {"docs/a.md": [(3, 3), (10, 10)], "docs/b.md": [(5, 5)]}
    # Restricted to paths, relative to where it runs, and whole files with filter-mode file.
    files, _ = select_local(["docs/new.md"], Settings(), changed="@{upstream}", cwd=work)
    assert _by_display(files) == {"docs/new.md": None}
    # A file named explicitly is taken whatever the `paths` globs say; a folder's files are not.
    (work / "docs/notes.markdown").write_text("Notes.\n")
    files, _ = select_local(["docs/notes.markdown"], Settings(), changed="@{upstream}", cwd=work)
    assert _by_display(files) == {"docs/notes.markdown": None}
    files, _ = select_local(["docs"], Settings(), changed="@{upstream}", cwd=work)
    assert sorted(_by_display(files)) == ["docs/a.md", "docs/new.md"]
    (work / "docs/notes.markdown").unlink()
    files, _ = select_local([], Settings(filter_mode="file"), changed="@{upstream}", cwd=work / "docs")
    assert _by_display(files) == {"a.md": None, "new.md": None}


def test_changed_without_an_upstream_says_what_to_do(branch: tuple[Repo, Path]) -> None:
    _, work = branch
    git(work, "checkout", "-q", "-b", "lonely")
    files, errors = select_local([], Settings(), changed="@{upstream}", cwd=work)
    assert files == []
    assert [e.message for e in errors] == [
        "--changed @{upstream}: the branch lonely has no upstream to compare with: name the base, e.g. "
        "--changed=origin/main (or set one: git branch --set-upstream-to=origin/main)"
    ]
    git(work, "checkout", "-q", "--detach")
    _, errors = select_local([], Settings(), changed="@{upstream}", cwd=work)
    assert errors[0].message.startswith("--changed @{upstream}: HEAD (detached) has no upstream")
    _, errors = select_local([], Settings(), changed="no-such-branch", cwd=work)
    assert errors[0].message.startswith("--changed no-such-branch: git merge-base no-such-branch HEAD:")


def test_changed_before_the_first_commit_is_every_file(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "new")
    repo.write({"README.md": "One.\nTwo.\n"})
    (repo.root / "draft.md").write_text("Not added yet.\n")
    files, errors = select_local([], Settings(), changed="HEAD", cwd=repo.root)
    assert errors == []
    assert _by_display(files) == {"README.md": [(1, 2)], "draft.md": None}
