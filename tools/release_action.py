"""The release's side of the Action: the released `action.yml`, the version check and the notes.

On main, `action.yml` says `runs.image: Dockerfile`, so every run builds the image (what
development wants). A release pushes the image once to a registry and tags a commit whose
`action.yml` names it instead, by tag and digest (`docker://ghcr.io/<owner>/citecheck:vX.Y.Z@
sha256:…`: a pinned commit pins the image's bytes too), so users' runs pull it. The release
workflow (`.github/workflows/release.yml`) and the container check (`.ci/container_check.py`,
with the locally built image) both make that file with this script, so CI runs the Action from
the same rewrite a release ships.

    python tools/release_action.py image REF                 # action.yml in place; REF e.g.
                                                             # ghcr.io/octo/citecheck:v1.2.3@sha256:…
    python tools/release_action.py image REF --action A.yml --output B.yml
    python tools/release_action.py version v1.2.3 --existing "v1.2.2 v1"   # GITHUB_OUTPUT lines
    python tools/release_action.py notes v1.2.3              # the CHANGELOG entry, for the release

`image` changes the one `runs.image` line and nothing else (the parsed result is compared with
the original), and refuses an `action.yml` that does not build `Dockerfile` (already released,
or not a Docker action) and a reference without an explicit registry and a pinned tag or digest.
`version` fails unless the tag is `vX.Y.Z`, equals `citecheck.__version__` and has a
CHANGELOG.md entry; it says whether the moving major tag (`v1`) and "latest" go to this release
(not for a patch to an older line). Exit 1 with one line on stderr when something is refused.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEV_IMAGE = "Dockerfile"
DOCKER_SCHEME = "docker://"

# An image reference as the Docker CLI parses one (distribution's reference grammar), narrowed to
# what a release may name: an explicit registry host (never Docker Hub by default), lower-case
# path components, and a tag, a digest or both. Nothing here can carry YAML syntax or a space.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_HOST = rf"(?:localhost|{_LABEL}(?:\.{_LABEL})+)(?::[0-9]+)?"
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
IMAGE_REF = re.compile(
    rf"(?P<name>{_HOST}(?:/{_COMPONENT})+)"
    r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?"
)
VERSION_TAG = re.compile(r"v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
# The one line that names the image; the YAML check below makes sure it is `runs.image`.
_IMAGE_LINE = re.compile(r"^(?P<indent>[ ]+)image:[ ]*(?P<value>\S+)[ ]*(?P<comment>#.*)?$", re.M)


class Refused(Exception):
    """The input is not something a release may ship; the message says why."""


def image_reference(ref: str) -> str:
    """`ref` (with or without `docker://`) as `docker://REF`, or Refused."""
    bare = ref.removeprefix(DOCKER_SCHEME)
    m = IMAGE_REF.fullmatch(bare)
    if m is None:
        raise Refused(
            f"{ref!r} is not an image reference with a registry host, lower-case path and a tag or digest"
        )
    if m["tag"] is None and m["digest"] is None:
        raise Refused(f"{ref!r} names no tag or digest: a release pins its image")
    if m["tag"] == "latest" and m["digest"] is None:
        raise Refused(f"{ref!r}: `latest` moves; a release pins its image by version tag or digest")
    return DOCKER_SCHEME + bare


def released_action(text: str, ref: str) -> str:
    """`action.yml`'s text with `runs.image: Dockerfile` replaced by `docker://REF`; all else as is."""
    image = image_reference(ref)
    try:
        before = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise Refused(f"action.yml is not YAML: {exc}") from None
    runs = before.get("runs") if isinstance(before, dict) else None
    if not isinstance(runs, dict) or runs.get("using") != "docker":
        raise Refused("action.yml is not a Docker action (runs.using: docker)")
    if runs.get("image") != DEV_IMAGE:
        # Already released (docker://…) or some other build: rewriting it twice is a mistake.
        raise Refused(f"action.yml's runs.image is {runs.get('image')!r}, not {DEV_IMAGE!r}")
    lines = [m for m in _IMAGE_LINE.finditer(text) if m["value"].strip("'\"") == DEV_IMAGE]
    if len(lines) != 1:
        raise Refused(f"{len(lines)} `image: {DEV_IMAGE}` lines in action.yml, expected exactly one")
    m = lines[0]
    comment = f" {m['comment']}" if m["comment"] else ""
    after_text = f"{text[: m.start()]}{m['indent']}image: {image}{comment}{text[m.end() :]}"
    expected: dict[str, Any] = {**before, "runs": {**runs, "image": image}}
    if yaml.safe_load(after_text) != expected:
        raise Refused("the `image:` line rewritten is not runs.image alone")
    return after_text


def read_version(root: Path = ROOT) -> str:
    """`citecheck.__version__` as written in citecheck/__init__.py (read, not imported)."""
    tree = ast.parse((root / "citecheck/__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    raise Refused("citecheck/__init__.py assigns no __version__ string")


def parse_tag(tag: str) -> tuple[int, int, int]:
    m = VERSION_TAG.fullmatch(tag)
    if m is None:
        raise Refused(f"{tag!r} is not a release tag vX.Y.Z")
    return int(m[1]), int(m[2]), int(m[3])


def changelog_entry(changelog: str, version: str) -> str:
    """The body of `## [version] - YYYY-MM-DD` in a Keep a Changelog file, or Refused."""
    head = re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}[ \t]*$", changelog, re.M)
    if head is None:
        raise Refused(f"CHANGELOG.md has no `## [{version}] - YYYY-MM-DD` entry")
    rest = changelog[head.end() :]
    end = re.search(r"^## |^\[[^\]]+\]: ", rest, re.M)  # the next entry, or the link definitions
    body = rest[: end.start() if end else len(rest)].strip()
    if not body:
        raise Refused(f"CHANGELOG.md's entry for {version} is empty")
    return body + "\n"


@dataclass(frozen=True)
class Release:
    tag: str  # vX.Y.Z
    major: str  # vX, the moving tag
    move_major: bool  # this is the highest release of its major line
    latest: bool  # this is the highest release of all

    def outputs(self) -> str:
        """GITHUB_OUTPUT lines."""
        return (
            f"version={self.tag}\nmajor={self.major}\n"
            f"move-major={str(self.move_major).lower()}\nlatest={str(self.latest).lower()}\n"
        )


def check_release(tag: str, existing: Iterable[str], root: Path = ROOT) -> Release:
    """Whether `tag` may be released from the tree at `root`, given the tags already pushed."""
    ours = parse_tag(tag)
    version = read_version(root)
    if tag != f"v{version}":
        raise Refused(f"tag {tag} but citecheck.__version__ is {version!r}: bump it (and CHANGELOG.md) first")
    changelog_entry((root / "CHANGELOG.md").read_text(encoding="utf-8"), version)
    # Other tags (the major tags, anything not vX.Y.Z) say nothing about order.
    others = [parse_tag(t) for t in existing if VERSION_TAG.fullmatch(t) and t != tag]
    return Release(
        tag=tag,
        major=f"v{ours[0]}",
        move_major=all(o < ours for o in others if o[0] == ours[0]),
        latest=all(o < ours for o in others),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    img = sub.add_parser("image", help="point action.yml's runs.image at a prebuilt image")
    img.add_argument("ref", help="image reference, e.g. ghcr.io/octo/citecheck:v1.2.3 (docker:// optional)")
    img.add_argument("--action", type=Path, default=ROOT / "action.yml", help="action.yml to read")
    img.add_argument("--output", type=Path, help="file to write (default: --action, in place)")
    ver = sub.add_parser("version", help="check a release tag; print GITHUB_OUTPUT lines")
    ver.add_argument("tag")
    ver.add_argument("--existing", default="", help="tags already pushed, whitespace separated")
    notes = sub.add_parser("notes", help="print the CHANGELOG.md entry of a release tag")
    notes.add_argument("tag")
    args = parser.parse_args(argv)
    try:
        if args.command == "image":
            text = released_action(args.action.read_text(encoding="utf-8"), args.ref)
            (args.output or args.action).write_text(text, encoding="utf-8")
        elif args.command == "version":
            sys.stdout.write(check_release(args.tag, args.existing.split()).outputs())
        else:
            parse_tag(args.tag)
            changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
            sys.stdout.write(changelog_entry(changelog, args.tag.removeprefix("v")))
    except Refused as exc:
        print(f"release_action: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
