"""tools/release_action.py: the released action.yml (runs.image alone rewritten), the version
check against citecheck.__version__ and CHANGELOG.md, the moving major tag, and the repository's
own release metadata (its version has a changelog entry; its examples pin that major)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from citecheck import __version__
from tools.release_action import (
    Refused,
    changelog_entry,
    check_release,
    image_reference,
    main,
    read_version,
    released_action,
)

ROOT = Path(__file__).resolve().parents[2]
ACTION = (ROOT / "action.yml").read_text(encoding="utf-8")
GHCR = "ghcr.io/octo/citecheck:v1.2.3"
DIGEST = "sha256:" + "ab" * 32


def test_the_real_action_yml_changes_in_runs_image_alone() -> None:
    released = released_action(ACTION, GHCR)
    before, after = yaml.safe_load(ACTION), yaml.safe_load(released)
    assert after["runs"]["image"] == f"docker://{GHCR}"
    assert {**after, "runs": {**after["runs"], "image": "Dockerfile"}} == before
    # Text-wise one line differs: comments, order and quoting stay as the repository has them.
    changed = [(a, b) for a, b in zip(ACTION.splitlines(), released.splitlines(), strict=True) if a != b]
    assert changed == [("  image: Dockerfile", f"  image: docker://{GHCR}")]
    assert released.endswith("\n") == ACTION.endswith("\n")


def test_a_quoted_image_with_a_comment_keeps_the_comment() -> None:
    text = "name: x\nruns:\n  using: 'docker'\n  image: \"Dockerfile\"  # built on main\n  env: {}\n"
    out = released_action(text, f"docker://{GHCR}")  # the scheme may be given
    assert (
        out == f"name: x\nruns:\n  using: 'docker'\n  image: docker://{GHCR} # built on main\n  env: {{}}\n"
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (ACTION.replace("image: Dockerfile", f"image: docker://{GHCR}"), "not 'Dockerfile'"),
        (ACTION.replace("using: docker", "using: node20"), "not a Docker action"),
        ("runs: [docker]\n", "not a Docker action"),
        ("runs:\n  using: docker\n  image: Dockerfile\n  image: Dockerfile\n", "2 `image: Dockerfile` lines"),
        (  # the same line in a description too: which one is runs.image is not for a regex to guess
            "description: |\n  image: Dockerfile\nruns:\n  using: docker\n  image: Dockerfile\n",
            "2 `image: Dockerfile` lines",
        ),
        ("runs: {using: docker, image: Dockerfile}\n", "0 `image: Dockerfile` lines"),
        ("runs: [\n", "not YAML"),
    ],
)
def test_refuses_an_action_yml_a_release_cannot_come_from(text: str, why: str) -> None:
    with pytest.raises(Refused, match=re.escape(why)):
        released_action(text, GHCR)


@pytest.mark.parametrize(
    "ref",
    [
        GHCR,
        "localhost/citecheck:ci",
        "localhost:5000/citecheck:ci",
        f"ghcr.io/octo/citecheck@{DIGEST}",
        f"ghcr.io/octo/citecheck:v1.2.3@{DIGEST}",
        "registry.example.com:8443/team/sub/citecheck:1.2.3_build-4",
    ],
)
def test_image_references_a_release_may_name(ref: str) -> None:
    assert image_reference(ref) == f"docker://{ref}"


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("ghcr.io/octo/citecheck", "no tag or digest"),
        ("ghcr.io/octo/citecheck:latest", "`latest` moves"),
        ("citecheck:v1.2.3", "registry host"),  # Docker Hub by default: never implicitly
        ("octo/citecheck:v1.2.3", "registry host"),
        ("ghcr.io/Octo/citecheck:v1.2.3", "lower-case path"),  # ghcr refuses upper case
        ("ghcr.io/octo/citecheck:v1 # x", "registry host"),
        ("ghcr.io/octo/citecheck:v1\n  entrypoint: sh", "registry host"),
        ("ghcr.io/octo/citecheck:{v1}", "registry host"),
        ("ghcr.io/octo/citecheck@sha256:abc", "registry host"),
        ("docker://docker://ghcr.io/octo/citecheck:v1", "registry host"),
        ("", "registry host"),
    ],
)
def test_image_references_refused(ref: str, why: str) -> None:
    with pytest.raises(Refused, match=re.escape(why)):
        image_reference(ref)


def _tree(tmp_path: Path, version: str, changelog: str) -> Path:
    (tmp_path / "citecheck").mkdir(parents=True)
    (tmp_path / "citecheck/__init__.py").write_text(
        f'"""doc."""\n\nfrom typing import NoReturn\n\n__version__ = "{version}"\nUSER_AGENT = "x"\n'
    )
    (tmp_path / "CHANGELOG.md").write_text(changelog)
    return tmp_path


CHANGELOG = """# Changelog

## [Unreleased]

## [1.3.0] - 2027-02-01

### Added
- Something.

## [1.2.3] - 2027-01-01

### Fixed
- A bug.

[Unreleased]: https://example.com/compare/v1.3.0...HEAD
[1.3.0]: https://example.com/releases/tag/v1.3.0
"""


def test_version_must_equal_the_tag_and_have_a_changelog_entry(tmp_path: Path) -> None:
    root = _tree(tmp_path, "1.3.0", CHANGELOG)
    assert read_version(root) == "1.3.0"
    release = check_release("v1.3.0", ["v1", "v1.2.3", "v1.3.0"], root)
    assert (release.major, release.move_major, release.latest) == ("v1", True, True)
    assert release.outputs() == "version=v1.3.0\nmajor=v1\nmove-major=true\nlatest=true\n"
    with pytest.raises(Refused, match=r"__version__ is '1\.3\.0'"):
        check_release("v1.3.1", [], root)
    for bad in ("1.3.0", "v1.3", "v1.3.0-rc.1", "v01.3.0", "v1.3.0\n"):
        with pytest.raises(Refused, match="not a release tag"):
            check_release(bad, [], root)
    no_entry = _tree(tmp_path / "b", "1.4.0", CHANGELOG)
    with pytest.raises(Refused, match=re.escape("no `## [1.4.0] - YYYY-MM-DD` entry")):
        check_release("v1.4.0", [], no_entry)
    undated = _tree(tmp_path / "c", "1.3.0", CHANGELOG.replace("[1.3.0] - 2027-02-01", "[1.3.0]"))
    with pytest.raises(Refused, match=re.escape("no `## [1.3.0] - YYYY-MM-DD` entry")):
        check_release("v1.3.0", [], undated)


def test_the_major_tag_and_latest_move_only_forward(tmp_path: Path) -> None:
    root = _tree(tmp_path, "1.2.3", CHANGELOG)
    # A patch to the 1.2 line after 1.3.0 exists: v1 stays on 1.3.0.
    backport = check_release("v1.2.3", ["v1", "v1.3.0", "v1.2.2"], root)
    assert (backport.move_major, backport.latest) == (False, False)
    # A patch to the 1 line after 2.0.0: v1 moves, "latest" stays on 2.0.0.
    old_major = check_release("v1.2.3", ["v1", "v2", "v1.2.2", "v2.0.0", "v10.0.0-beta"], root)
    assert (old_major.move_major, old_major.latest) == (True, False)
    # Numbers compare as numbers, not text: 1.10.0 is above 1.9.0.
    root10 = _tree(tmp_path / "d", "1.10.0", CHANGELOG.replace("1.3.0", "1.10.0"))
    assert check_release("v1.10.0", ["v1.9.0", "v1.2.3"], root10).move_major


def test_changelog_entry_is_the_section_up_to_the_next_one_or_the_links() -> None:
    assert changelog_entry(CHANGELOG, "1.3.0") == "### Added\n- Something.\n"
    assert changelog_entry(CHANGELOG, "1.2.3") == "### Fixed\n- A bug.\n"
    with pytest.raises(Refused, match="empty"):
        changelog_entry("## [2.0.0] - 2027-03-01\n\n## [1.0.0] - 2027-01-01\n- x\n", "2.0.0")


def test_main_rewrites_a_copy_and_refuses_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = tmp_path / "action.yml", tmp_path / "released.yml"
    src.write_text(ACTION)
    assert main(["image", "localhost/citecheck:ci", "--action", str(src), "--output", str(out)]) == 0
    assert src.read_text() == ACTION
    assert yaml.safe_load(out.read_text())["runs"]["image"] == "docker://localhost/citecheck:ci"
    # Released once, never twice: the in-place rewrite of a released file is refused.
    assert main(["image", GHCR, "--action", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("release_action: ") and err.count("\n") == 1
    assert yaml.safe_load(out.read_text())["runs"]["image"] == "docker://localhost/citecheck:ci"


def test_the_repository_can_release_its_version() -> None:
    """citecheck.__version__ has its CHANGELOG entry, and every `uses:` of the Action in the docs
    and examples pins that major: a major bump without both fails here, before a release."""
    assert read_version() == __version__
    release = check_release(f"v{__version__}", [])
    assert release.major == f"v{__version__.split('.')[0]}"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(r"^## \[Unreleased\]$", changelog, re.M)
    files = [ROOT / "README.md", ROOT / "action.yml", *sorted((ROOT / "examples").rglob("*.yml"))]
    pins = {
        (f.name, m[1])
        for f in files
        for m in re.finditer(r"citecheck/citecheck@([\w.-]+)", f.read_text(encoding="utf-8"))
    }
    assert (("README.md", release.major)) in pins
    # The moving major, or one of its releases (the README's pinning table): never another major.
    wrong = {(name, pin) for name, pin in pins if re.fullmatch(rf"{release.major}(\.\d+\.\d+)?", pin) is None}
    assert not wrong, wrong
