"""Build the Action's image with podman and run the Action inside it as a GitHub runner would.

Called by `.ci/container.sh` (as root, with podman, runc and debootstrap installed, in the
project's venv). Steps:

1. a Debian bookworm base made here with debootstrap (minbase + python3, python3-venv,
   python3-pip) from the mirror apt uses, imported into podman: no registry is reachable from
   CI, so the official python image cannot be pulled. The base's tarball is kept for a week
   under /var/cache/citecheck-ci (`CITECHECK_CONTAINER_FRESH=1` makes a new one);
2. `podman build --build-arg BASE=<that base>` of the Dockerfile main's action.yml builds
   (`runs.image: Dockerfile`, the development shape); the build's pip
   gets the machine's CA bundle and the host pip's index (this network reaches the package
   index through an intercepting proxy) through a read-only /root, leaving no trace in the image;
3. the image is inspected (`citecheck demo` runs, `python` is the venv's, no git, no
   installer or build mount is left);
4. the released shape of `action.yml`: `tools/release_action.py` (what the release workflow runs)
   rewrites its `runs.image` from `Dockerfile` to `docker://localhost/citecheck:ci@sha256:…`,
   the image built in step 2 by tag and digest as a release names its own, and the Action is run
   from that file as a runner runs a `docker://` action: no build, the image as named (the
   runner's pull is a check that the reference names an image in this run's storage: no
   registry is reachable from CI), its inputs and `runs.env` as that file declares them;
5. `podman run` with what a runner gives a Docker action: `--workdir /github/workspace` holding
   a depth-1 clone of the PR's test merge commit (actions/checkout's default, owned by the
   runner user, not root; the base branch moved on and changed the same file above the PR's
   lines), `/github/file_commands`, `/github/workflow/event.json`,
   `/github/home`, `INPUT_*` as the released action.yml passes them, and the loopback servers of
   `tests/servers/` on the host network: a source server, an OpenAI-protocol judge, the GitHub
   REST stand-in. Asserts the exit code, the outputs file, the report file, the job summary,
   the annotation (on the merged file's line), that the PR's files came from the PR files API
   and the config from the base through the contents API, that only changed lines were
   checked, the masking of the key, and the sticky comment; a second run must update the
   comment, not add one.

Podman's storage lives in a temporary folder removed at the end (`podman system reset`).
Prints the image size (per layer) and the time from `podman run` to the first output line.

    python .ci/container_check.py           # the whole check (what CI runs)
    python .ci/container_check.py --host    # the same scenario with entrypoint.py run directly
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.servers and citecheck from this checkout

from citecheck.github.publish import COMMENT_MARKER  # noqa: E402
from tests.servers.github_server import GitHubServer  # noqa: E402
from tests.servers.gitrepo import Repo, git  # noqa: E402
from tests.servers.llm_server import LLMServer  # noqa: E402
from tests.servers.source_server import SourceServer  # noqa: E402
from tools.release_action import DOCKER_SCHEME, Refused, released_action  # noqa: E402

STEP_TIMEOUT_S = 900.0  # debootstrap, build: minutes on a busy machine, never this
RUN_TIMEOUT_S = 300.0  # one Action run
BASE_TAG = "localhost/citecheck-base:bookworm"
IMAGE_TAG = "localhost/citecheck:ci"
REPO_NAME = "octo/docs"
PR_NUMBER = 7
RUNNER_UID = 1001  # the runner user owns the workspace on GitHub; the container runs as root
# What crun/systemd cgroups lack on this kind of machine (issue 6): runc, cgroupfs, no journald.
CONTAINERS_CONF = """\
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=16384:16384"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""
# The official slim images keep no docs, man pages or locales; the local base does the same
# so that the layers the Dockerfile adds weigh what they weigh there.
DPKG_SLIM = """\
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
"""
BASE_PACKAGES = "python3,python3-venv,python3-pip"
BASE_CACHE = Path(os.environ.get("CITECHECK_CONTAINER_CACHE", "/var/cache/citecheck-ci"))
BASE_MAX_AGE_S = 7 * 24 * 3600
# The build's pip gets the machine's CA bundle and index through a read-only /root (HOME) holding
# .config/pip/pip.conf: /root exists in every base, so no empty mount-point file is left in the
# image, as a bind mount onto a new path such as /etc/pip.conf would leave.
BUILD_HOME = "/root"
HOST_CA = f"{BUILD_HOME}/host-ca.crt"


class CheckFailed(Exception):
    """The image or the Action inside it misbehaved: CI must go red."""


class Unavailable(Exception):
    """The container tooling cannot run on this machine: CI says so and goes on."""


def say(message: str) -> None:
    print(f"[container] {message}", flush=True)


def run(
    cmd: Sequence[str], *, log: Path | None = None, timeout: float = STEP_TIMEOUT_S, **kw: object
) -> subprocess.CompletedProcess[str]:
    """Run a step; on failure show the end of its output and fail the check."""
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, check=False, timeout=timeout, **kw)  # type: ignore[call-overload]
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"{' '.join(cmd[:3])}… did not finish in {timeout:.0f} s") from None
    if log is not None:
        log.write_text(proc.stdout + proc.stderr, encoding="utf-8")
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-30:])
        raise CheckFailed(f"{' '.join(cmd[:3])}… exited {proc.returncode}:\n{tail}")
    return proc


# ------------------------------------------------------------------------- podman plumbing


@dataclass
class Podman:
    work: Path  # temporary folder: storage, config, base rootfs

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "CONTAINERS_CONF": str(self.work / "containers.conf")}

    def cmd(self, *args: str) -> list[str]:
        return ["podman", "--root", str(self.work / "root"), "--runroot", str(self.work / "runroot"), *args]

    def __call__(self, *args: str, log: Path | None = None) -> subprocess.CompletedProcess[str]:
        return run(self.cmd(*args), log=log, env=self.env)

    def preflight(self) -> None:
        (self.work / "containers.conf").write_text(CONTAINERS_CONF, encoding="utf-8")
        if shutil.which("podman") is None:
            raise Unavailable("podman is not installed")
        proc = subprocess.run(self.cmd("info"), capture_output=True, text=True, env=self.env, check=False)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            raise Unavailable(f"podman cannot start here: {last}")

    def reset(self) -> None:
        """Remove every container, image and mount of this run's private storage."""
        subprocess.run(self.cmd("system", "reset", "--force"), capture_output=True, env=self.env, check=False)
        # Overlay mounts left behind (a killed build) would make the folder unremovable.
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        points = [m.split()[1] for m in mounts if m.split()[1].startswith(str(self.work))]
        for point in sorted(points, key=len, reverse=True):
            subprocess.run(["umount", "-l", point], capture_output=True, check=False)


def apt_mirror(apt: Path = Path("/etc/apt")) -> str:
    """The Debian mirror apt is configured with (one-line or deb822 sources)."""
    files = [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*.list"))]
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines() if f.is_file() else []:
            words = re.sub(r"\[[^]]*\]", " ", line.split("#", 1)[0]).split()
            if len(words) >= 3 and words[0] == "deb" and words[2] == "bookworm":
                return words[1]
    for f in sorted((apt / "sources.list.d").glob("*.sources")):
        for block in f.read_text(encoding="utf-8").split("\n\n"):
            fields = dict(
                (k.strip().lower(), v.strip())
                for k, _, v in (ln.partition(":") for ln in block.splitlines() if not ln.startswith("#"))
            )
            if "bookworm" in fields.get("suites", "").split() and fields.get("enabled", "yes") != "no":
                return fields.get("uris", "").split()[0]
    raise CheckFailed(f"no Debian bookworm mirror found in {apt}/sources.list{{,.d}}")


def debootstrap(rootfs: Path, mirror: str, log: Path) -> None:
    (rootfs / "etc/dpkg/dpkg.cfg.d").mkdir(parents=True)
    (rootfs / "etc/dpkg/dpkg.cfg.d/slim").write_text(DPKG_SLIM, encoding="utf-8")
    run(
        ["debootstrap", "--variant=minbase", f"--include={BASE_PACKAGES}", "bookworm", str(rootfs), mirror],
        log=log,
    )
    for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
        for f in (rootfs / junk).glob("*"):
            if f.is_file():
                f.unlink()


def make_base(podman: Podman) -> dict[str, float]:
    """Import a debootstrapped bookworm base, reusing a tarball made by an earlier run for a week
    (debootstrap is most of this check's time; CITECHECK_CONTAINER_FRESH=1 makes a new one)."""
    mirror = apt_mirror()
    key = hashlib.sha256(f"{mirror}\n{BASE_PACKAGES}\n{DPKG_SLIM}".encode()).hexdigest()[:16]
    tarball = BASE_CACHE / f"bookworm-base-{key}.tar"
    figures = {"debootstrap_s": 0.0}
    fresh = os.environ.get("CITECHECK_CONTAINER_FRESH") == "1"
    if fresh or not tarball.is_file() or time.time() - tarball.stat().st_mtime > BASE_MAX_AGE_S:
        say(f"debootstrap bookworm (minbase + {BASE_PACKAGES}) from {mirror}")
        t0 = time.monotonic()
        rootfs = podman.work / "rootfs"
        debootstrap(rootfs, mirror, podman.work / "debootstrap.log")
        BASE_CACHE.mkdir(parents=True, exist_ok=True)
        partial = tarball.with_suffix(".partial")
        run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(partial), "."])
        partial.replace(tarball)
        shutil.rmtree(rootfs)
        figures["debootstrap_s"] = time.monotonic() - t0
    else:
        made = time.strftime("%Y-%m-%d %H:%M", time.gmtime(tarball.stat().st_mtime))
        say(f"reusing the bookworm base made by debootstrap at {made} UTC ({tarball})")
    t1 = time.monotonic()
    podman("import", str(tarball), BASE_TAG)
    figures["import_s"] = time.monotonic() - t1
    return figures


def pip_settings() -> tuple[str, list[str]]:
    """The host pip's CA bundle and index options usable inside the build (remote ones only)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    )
    conf: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition("=")
        conf[key.split(".", 1)[-1]] = value.strip().strip("'\"")
    ca = (
        os.environ.get("PIP_CERT")
        or conf.get("cert")
        or os.environ.get("SSL_CERT_FILE")
        or "/etc/ssl/certs/ca-certificates.crt"
    )
    lines = [f"cert = {HOST_CA}"]
    index = os.environ.get("PIP_INDEX_URL") or conf.get("index-url")
    if index:
        lines.append(f"index-url = {index}")
    extra = os.environ.get("PIP_EXTRA_INDEX_URL") or conf.get("extra-index-url") or ""
    remote = [u for u in extra.split() if u.startswith(("http://", "https://"))]
    if remote:
        lines.append(f"extra-index-url = {' '.join(remote)}")
    return ca, lines


def load_action(path: Path) -> dict[str, Any]:
    action = yaml.safe_load(path.read_text(encoding="utf-8"))
    expect(isinstance(action, dict) and isinstance(action.get("runs"), dict), f"{path} has no runs")
    return action


def dev_dockerfile(action: dict[str, Any]) -> Path:
    """The Dockerfile the development action.yml (main's) builds on every run."""
    runs = action["runs"]
    image = str(runs.get("image", ""))
    expect(runs.get("using") == "docker", f"action.yml runs.using is {runs.get('using')!r}, not docker")
    expect(
        not image.startswith(DOCKER_SCHEME) and (ROOT / image).is_file(),
        f"action.yml runs.image is {image!r}: on main it builds a Dockerfile of the repository",
    )
    return ROOT / image


def released_shape(work: Path, ref: str) -> dict[str, Any]:
    """action.yml as a release ships it, its image `ref` (the release script's own rewrite, so CI
    runs what a release tags)."""
    path = work / "action.yml"
    try:
        text = released_action((ROOT / "action.yml").read_text(encoding="utf-8"), ref)
    except Refused as exc:
        raise CheckFailed(f"tools/release_action.py refuses action.yml: {exc}") from None
    path.write_text(text, encoding="utf-8")
    say(f"released action.yml: runs.image {load_action(path)['runs']['image']} (tools/release_action.py)")
    return load_action(path)


def runner_image(action: dict[str, Any]) -> str:
    """The image a runner runs for this action.yml without building: `docker://REF` → REF.

    The runner would also pass `runs.entrypoint`/`runs.args`; this check runs the image's own
    ENTRYPOINT with no arguments, so an action.yml that sets them is refused, not half-emulated."""
    runs = action["runs"]
    image = str(runs.get("image", ""))
    expect(runs.get("using") == "docker", f"runs.using is {runs.get('using')!r}, not docker")
    expect(image.startswith(DOCKER_SCHEME), f"runs.image is {image!r}: a released action names docker://…")
    extra = sorted({"entrypoint", "args", "pre-entrypoint", "post-entrypoint"} & set(runs))
    expect(not extra, f"action.yml sets runs.{', runs.'.join(extra)}: the container check does not pass them")
    return image.removeprefix(DOCKER_SCHEME)


def build_image(podman: Podman, dockerfile: Path) -> dict[str, float]:
    ca, pip_lines = pip_settings()
    home = podman.work / "build-home"
    (home / ".config/pip").mkdir(parents=True)
    shutil.copyfile(ca, home / Path(HOST_CA).name)
    (home / ".config/pip/pip.conf").write_text("[global]\n" + "\n".join(pip_lines) + "\n", encoding="utf-8")
    say(f"podman build --build-arg BASE={BASE_TAG} (CA bundle {ca}; pip: {'; '.join(pip_lines)})")
    t0 = time.monotonic()
    podman(
        "build",
        "--network",
        "host",
        "--build-arg",
        f"BASE={BASE_TAG}",
        "--volume",
        f"{home}:{BUILD_HOME}:ro",
        "--tag",
        IMAGE_TAG,
        "--file",
        str(dockerfile),
        str(ROOT),
        log=podman.work / "build.log",
    )
    return {"build_s": time.monotonic() - t0}


def image_digest(podman: Podman) -> str:
    """The built image by tag and digest, the form a release's action.yml names its image in."""
    digest = podman("image", "inspect", "--format", "{{.Digest}}", IMAGE_TAG).stdout.strip()
    expect(re.fullmatch(r"sha256:[0-9a-f]{64}", digest) is not None, f"image digest {digest!r}")
    return f"{IMAGE_TAG}@{digest}"


def image_sizes(podman: Podman) -> dict[str, float]:
    def size(tag: str) -> float:
        return int(podman("image", "inspect", "--format", "{{.Size}}", tag).stdout.strip()) / 1e6

    total, base = size(IMAGE_TAG), size(BASE_TAG)
    layers = json.loads(podman("history", "--format", "json", IMAGE_TAG).stdout)
    # The layers the Dockerfile adds (the base's own is the imported `ADD file:`).
    for layer in layers:
        mb, what = int(layer.get("size", 0)) / 1e6, " ".join(str(layer.get("CreatedBy", "")).split())
        if mb >= 0.1 and "ADD file:" not in what:
            say(f"layer {mb:6.1f} MB  {what[:90]}")
    return {"image_mb": total, "base_mb": base, "added_mb": total - base}


def inspect_image(podman: Podman) -> None:
    """The image runs the CLI (its demo) and carries nothing of the build (installers, CI mounts)
    nor git (the Action reads the PR through the API)."""
    # The demo needs the console script and the bundled example (package data in the wheel).
    proc = podman("run", "--rm", "--network", "host", "--entrypoint", "citecheck", IMAGE_TAG, "demo")
    expect("## Verification Report" in proc.stdout, "`citecheck demo` in the image", proc.stdout[-2000:])
    script = (
        "command -v git || echo NO_GIT; command -v python;"
        " for f in " + HOST_CA + " /root/.config/pip /opt/venv/bin/pip /tmp/citecheck-build;"
        " do [ -e $f ] && echo LEFTOVER $f; done; ls -A /app"
    )
    out = podman("run", "--rm", "--entrypoint", "sh", IMAGE_TAG, "-c", script).stdout.split()
    expect("/opt/venv/bin/python" in out, "`python` in the image is not the venv's", " ".join(out))
    expect("LEFTOVER" not in out, "the image keeps build leftovers", " ".join(out))
    expect("NO_GIT" in out, "the image carries git", " ".join(out))
    expect(out[-1] == "entrypoint.py" and out.count("entrypoint.py") == 1, "/app holds more than the shim")
    say("image: citecheck demo ok, python = venv, no git, no installers or build mounts left")


# ------------------------------------------------------------------------- the scenario

SOURCES = {
    "/library.html": "<html><head><title>City library report 2023</title></head><body><main>"
    "<h1>Annual report</h1><p>In 2023 the city library lent 1.2 million books to its readers.</p>"
    "<p>Opening hours were extended on Sundays.</p></main></body></html>",
    "/museum.html": "<html><head><title>Museum figures</title></head><body><main>"
    "<h1>Visitors</h1><p>In 2023 the museum welcomed 25,000 visitors.</p></main></body></html>",
}
BASE_DOC = """\
# Guide

This guide describes the city's public services.

The zoo had 99 visitors in 2020 ([zoo figures]({src}/zoo.html)).
"""
HEAD_ADDED = """
The city library lent [1.2 million books in 2023]({src}/library.html).

The museum had [40,000 visitors in 2023]({src}/museum.html).

Over 60% of residents used a public service last year.
"""
BASE_MOVED_ON = "<!-- Reviewed by the docs team. -->\n\n"  # on main after the PR branched
CONFIG = 'ignore = ["docs/archive/**"]\n'  # read from the base through the contents API


@dataclass
class Scenario:
    """A PR on a real git repo, the servers it needs, and the runner's folders."""

    root: Path
    sources: SourceServer
    llm: LLMServer
    github: GitHubServer
    action: dict[str, Any]  # the action.yml the runner reads (inputs, runs.env, runs.image)
    base_sha: str = ""
    head_sha: str = ""
    merge_sha: str = ""
    runs: int = 0
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def origin(self) -> Path:
        return self.root / "origin"

    def prepare(self) -> None:
        src = self.sources.base_url
        for path, html in SOURCES.items():
            self.sources.add(path, html)
        # The PR lives in an "origin" repository that the GitHub stand-in answers for (PR files,
        # contents). The workspace is what actions/checkout makes by default: a depth-1 clone of
        # the PR's test merge commit, into a base branch that has since changed the same file.
        repo = Repo(self.origin)
        first = repo.commit(
            {"docs/guide.md": BASE_DOC.format(src=src), ".citecheck.toml": CONFIG}, "docs: guide"
        )
        git(self.origin, "checkout", "-q", "-b", "feature")
        self.head_sha = repo.commit(
            {"docs/guide.md": BASE_DOC.format(src=src) + HEAD_ADDED.format(src=src)}, "docs: figures"
        )
        git(self.origin, "checkout", "-q", "main")
        self.base_sha = repo.commit(
            {"docs/guide.md": BASE_MOVED_ON + BASE_DOC.format(src=src)}, "docs: intro"
        )
        assert first != self.base_sha
        self.github.serve_repo(REPO_NAME, self.origin)
        self.github.set_pull(REPO_NAME, PR_NUMBER, head_sha=self.head_sha, base_sha=self.base_sha)
        git(self.origin, "checkout", "-q", "-b", "pull-merge", self.base_sha)
        git(
            self.origin,
            "merge",
            "-q",
            "--no-ff",
            "-m",
            f"Merge {self.head_sha} into {self.base_sha}",
            "feature",
        )
        self.merge_sha = git(self.origin, "rev-parse", "HEAD")
        repo.shallow_clone(self.workspace, branch="pull-merge")
        for name in ("file_commands", "workflow", "home"):
            (self.root / name).mkdir()
        event = {
            "action": "synchronize",
            "number": PR_NUMBER,
            "pull_request": {
                "number": PR_NUMBER,
                "base": {"sha": self.base_sha, "ref": "main"},
                "head": {"sha": self.head_sha, "ref": "feature"},
            },
            "repository": {"full_name": REPO_NAME},
        }
        (self.root / "workflow/event.json").write_text(json.dumps(event), encoding="utf-8")
        # As on a runner: the runner user owns the checkout; the container's root does not.
        for dirpath, dirnames, filenames in os.walk(self.root):
            if Path(dirpath) == self.root:
                dirnames.remove("origin")  # it stands for github.com: not the runner's files
            for name in [*dirnames, *filenames]:
                os.lchown(os.path.join(dirpath, name), RUNNER_UID, RUNNER_UID)

    def inputs(self) -> dict[str, str]:
        """Each input as action.yml's `runs.env` passes it: the workflow's `with:` or the default."""
        given = {
            "allow-private-hosts": "127.0.0.1",
            "judge": "openai-compatible",
            "base-url": self.llm.base_url,
            "openai-api-key": "sk-container-secret-0123456789",
            "github-token": self.github.token,
        }
        values = {
            name: given.get(name, str(spec.get("default", "")))
            for name, spec in self.action["inputs"].items()
        }
        env: dict[str, str] = {}
        for var, template in self.action["runs"]["env"].items():
            m = re.fullmatch(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", str(template))
            if m is None:
                raise CheckFailed(f"action.yml runs.env {var}: {template!r} is not an input")
            env[var] = values[m.group(1)]
        # The runner also sets INPUT_<NAME> (hyphens kept) for every input.
        env.update({"INPUT_" + name.upper(): value for name, value in values.items()})
        return env

    def environment(self, workspace: str, file_commands: str, workflow: str, home: str) -> dict[str, str]:
        self.runs += 1
        out = f"{file_commands}/set_output_{self.runs}"
        summary = f"{file_commands}/step_summary_{self.runs}"
        self.files = {
            "output": self.root / f"file_commands/set_output_{self.runs}",
            "summary": self.root / f"file_commands/step_summary_{self.runs}",
        }
        for f in self.files.values():
            f.touch()
            os.chown(f, RUNNER_UID, RUNNER_UID)
        return {
            "HOME": home,
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": f"{workflow}/event.json",
            "GITHUB_WORKSPACE": workspace,
            "GITHUB_OUTPUT": out,
            "GITHUB_STEP_SUMMARY": summary,
            "GITHUB_REPOSITORY": REPO_NAME,
            "GITHUB_API_URL": self.github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_SHA": self.merge_sha,
            "GITHUB_REF": f"refs/pull/{PR_NUMBER}/merge",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_JOB": "citecheck",
            "RUNNER_OS": "Linux",
            **self.inputs(),
        }


@dataclass
class RunResult:
    code: int
    stdout: str
    first_line_s: float
    total_s: float


def timed(cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> RunResult:
    """Run `cmd`, timing its first stdout line and its end."""
    t0 = time.monotonic()
    proc = subprocess.Popen(
        list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd
    )
    assert proc.stdout is not None
    # A hung container must not hang CI: kill it after the limit (the read loop then ends).
    watchdog = threading.Timer(RUN_TIMEOUT_S, proc.kill)
    watchdog.start()
    lines: list[str] = []
    first = None
    try:
        for line in proc.stdout:
            if first is None:
                first = time.monotonic() - t0
            lines.append(line)
        code = proc.wait()
    finally:
        watchdog.cancel()
    if code < 0:
        raise CheckFailed(f"{cmd[0]} run killed after {RUN_TIMEOUT_S:.0f} s:\n" + "".join(lines)[-3000:])
    total = time.monotonic() - t0
    return RunResult(code, "".join(lines), first if first is not None else total, total)


def run_in_container(podman: Podman, sc: Scenario) -> RunResult:
    image = runner_image(sc.action)
    # Where the runner pulls the docker:// image: no registry here, so the reference must name
    # the image already in this run's storage (a typo in it would otherwise reach `podman run`).
    exists = subprocess.run(podman.cmd("image", "exists", image), env=podman.env, check=False)
    expect(exists.returncode == 0, f"runs.image docker://{image}: no such image to pull")
    env = sc.environment("/github/workspace", "/github/file_commands", "/github/workflow", "/github/home")
    # Host network: the test servers listen on 127.0.0.1. No proxy variables: the Action must
    # reach those servers directly, as it reaches the runner's network on GitHub.
    args = ["run", "--rm", "--network", "host", "--http-proxy=false", "--workdir", "/github/workspace"]
    for name, target in (
        ("workspace", "/github/workspace"),
        ("file_commands", "/github/file_commands"),
        ("workflow", "/github/workflow"),
        ("home", "/github/home"),
    ):
        args += ["--volume", f"{sc.root / name}:{target}"]
    args += ["--volume", f"{sc.origin}:{sc.origin}:ro"]  # the clone's `origin` URL (file://)
    for key in env:
        args += ["--env", key]  # the value comes from podman's environment, kept out of argv
    return timed(podman.cmd(*args, image), env={**podman.env, **env})


def run_on_host(sc: Scenario) -> RunResult:
    root = str(sc.root)
    env = sc.environment(f"{root}/workspace", f"{root}/file_commands", f"{root}/workflow", f"{root}/home")
    return timed([sys.executable, str(ROOT / "entrypoint.py")], env={**os.environ, **env}, cwd=sc.workspace)


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: `name=value` or `name<<DELIM` … `DELIM`."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif line:
            name, _, value = line.partition("=")
            out[name] = value
            i += 1
        else:
            i += 1
    return out


def expect(ok: bool, what: str, detail: str = "") -> None:
    if not ok:
        raise CheckFailed(f"{what}" + (f"\n{detail}" if detail else ""))


def assert_first_run(sc: Scenario, res: RunResult) -> None:
    log = res.stdout
    expect(res.code == 1, f"exit code {res.code}, expected 1 (a claim fails)", log[-3000:])
    leaked = [
        ln for ln in log.splitlines() if "sk-container-secret" in ln and not ln.startswith("::add-mask::")
    ]
    expect(not leaked, "the API key appears in the log outside ::add-mask::", "\n".join(leaked))
    expect(log.startswith("::add-mask::"), "secrets are not masked before the first output", log[:300])
    outputs = parse_outputs(sc.files["output"].read_text(encoding="utf-8"))
    want = {"passed": "false", "total-claims": "3", "verified": "1", "failed": "1", "unsourced": "1"}
    got = {k: outputs.get(k) for k in want}
    expect(got == want, f"outputs {got}, expected {want}", json.dumps(outputs, indent=1))
    report_path = sc.workspace / outputs.get("report-json", "-")
    expect(report_path.is_file(), f"report-json output {outputs.get('report-json')!r} is not a file")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    expect(
        report["total_claims"] == 3 and report["passed"] is False, "JSON report totals", str(report)[:2000]
    )
    summary = sc.files["summary"].read_text(encoding="utf-8")
    for needle in ("## Verification Report", "### Failed Claims", "40,000 visitors", "1.2 million books"):
        expect(needle in summary, f"job summary lacks {needle!r}", summary[:3000])
    merged = (sc.workspace / "docs/guide.md").read_text(encoding="utf-8").splitlines()
    museum_line = 1 + next(i for i, ln in enumerate(merged) if "40,000" in ln)
    expect(merged[0] == BASE_MOVED_ON.strip(), "the workspace is not the test merge of a moved-on base")
    expect(
        f"::error file=docs/guide.md,line={museum_line}" in log,
        f"no ::error annotation on docs/guide.md:{museum_line}",
        log[-3000:],
    )
    asked = [r.path for r in sc.github.requests("GET")]
    expect(
        f"/repos/{REPO_NAME}/pulls/{PR_NUMBER}/files" in asked, "the PR files API was not asked", str(asked)
    )
    expect(
        f"/repos/{REPO_NAME}/contents/.citecheck.toml" in asked,
        "the base's config was not read through the contents API",
        str(asked),
    )
    expect(sc.sources.hits("/zoo.html") == 0, "a claim on an unchanged line was fetched (filter-mode added)")
    expect(len(sc.llm.calls) >= 1, "the judge server got no call")
    comments = sc.github.comments(REPO_NAME, PR_NUMBER)
    expect(len(comments) == 1, f"{len(comments)} PR comments, expected 1")
    body = comments[0]["body"]
    expect(body.startswith(COMMENT_MARKER) and "### Failed Claims" in body, "PR comment body", body[:2000])


def assert_second_run(sc: Scenario, res: RunResult) -> None:
    expect(res.code == 1, f"second run: exit code {res.code}, expected 1", res.stdout[-3000:])
    comments = sc.github.comments(REPO_NAME, PR_NUMBER)
    expect(len(comments) == 1, f"second run: {len(comments)} PR comments, expected the one updated")
    expect(bool(sc.github.requests("PATCH")), "second run: the sticky comment was not updated (no PATCH)")


@contextlib.contextmanager
def scenario(root: Path, action: dict[str, Any]) -> Iterator[Scenario]:
    with SourceServer() as sources, LLMServer("openai") as llm, GitHubServer() as github:
        sc = Scenario(root, sources, llm, github, action)
        sc.prepare()
        yield sc


def check_action(root: Path, action: dict[str, Any], runner: str, podman: Podman | None) -> dict[str, float]:
    with scenario(root, action) as sc:

        def go() -> RunResult:
            return run_in_container(podman, sc) if podman else run_on_host(sc)

        first = go()
        assert_first_run(sc, first)
        second = go()
        assert_second_run(sc, second)
        say(f"{runner}: action e2e passed (exit code, outputs, summary, annotation, sticky comment)")
        return {"first_line_s": first.first_line_s, "run_s": first.total_s, "rerun_s": second.total_s}


def machine_load() -> str:
    # Timings here move with whatever else the machine runs: say how busy it was.
    return f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", action="store_true", help="run entrypoint.py directly, no container")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (debugging)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="citecheck-container-", dir="/var/tmp"))
    podman = None if args.host else Podman(work)
    t0 = time.monotonic()
    try:
        if podman is None:
            dev = load_action(ROOT / "action.yml")
            run_figures = check_action(work / "scenario", dev, "host", None)
            say(
                "figures: entrypoint.py → first output line {first_line_s:.2f} s, whole action run "
                "{run_s:.2f} s (re-run {rerun_s:.2f} s)".format(**run_figures)
                + machine_load()
            )
            return 0
        podman.preflight()
        figures = make_base(podman)
        figures |= build_image(podman, dev_dockerfile(load_action(ROOT / "action.yml")))
        figures |= image_sizes(podman)
        inspect_image(podman)
        released = released_shape(work, image_digest(podman))
        figures |= check_action(work / "scenario", released, "podman (released action.yml)", podman)
        base = "reused" if not figures["debootstrap_s"] else "debootstrap {debootstrap_s:.0f} s"
        say(
            (
                "figures: image {image_mb:.0f} MB = local bookworm base {base_mb:.0f} MB + Dockerfile layers "
                "{added_mb:.0f} MB; base " + base + ", import {import_s:.0f} s, build {build_s:.0f} s; "
                "podman run → first output line {first_line_s:.2f} s, whole action run {run_s:.2f} s "
                "(re-run {rerun_s:.2f} s)"
            ).format(**figures)
            + machine_load()
        )
        say(f"container check passed in {time.monotonic() - t0:.0f} s")
        return 0
    except Unavailable as exc:
        say(f"SKIPPED: {exc}")
        return 0
    except CheckFailed as exc:
        say(f"FAILED: {exc}")
        return 1
    finally:
        if podman is not None:
            podman.reset()
        if args.keep:
            say(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
