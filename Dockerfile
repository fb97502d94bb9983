# citecheck GitHub Action image.
#
# BASE is a build argument so CI can build this same file on a locally made Debian bookworm
# base (see .ci/container.sh); the default is the official slim image GitHub pulls.
ARG BASE=python:3.11-slim-bookworm

# --- build stage: a venv with the dependencies and the package; pip and setuptools stay here.
FROM ${BASE} AS build

# A venv works on both bases: the official image's Python and Debian's own (whose system
# pip refuses to install outside a venv).
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PATH=/opt/venv/bin:$PATH

# Dependencies come from pyproject.toml alone, so this layer is rebuilt only when that file
# changes, not on every source edit. setuptools is the project's build backend, installed
# here so the source layer below builds without fetching it again.
COPY pyproject.toml /tmp/citecheck-build/pyproject.toml
RUN python3 -m venv /opt/venv \
    && python -c 'import sys, tomllib; print(*tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"], sep="\n")' \
        /tmp/citecheck-build/pyproject.toml > /tmp/citecheck-build/requirements.txt \
    && pip install -r /tmp/citecheck-build/requirements.txt "setuptools>=77" wheel

# The package itself, without dependencies (already above); then the installers go, since
# the action never installs anything at run time.
COPY pyproject.toml README.md /tmp/citecheck-build/
COPY citecheck /tmp/citecheck-build/citecheck
RUN pip install --no-deps --no-build-isolation /tmp/citecheck-build \
    && pip uninstall -y setuptools wheel pip

# --- run stage
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

# git: the action diffs the PR's base and head commits in the workspace. The apt caches are
# removed in the same layer (a Debian base without the slim image's apt hooks keeps ~75 MB).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin

COPY --from=build /opt/venv /opt/venv
COPY entrypoint.py /app/entrypoint.py

# No WORKDIR/USER: GitHub runs the container as root with --workdir /github/workspace, and
# `python` is the venv's (first on PATH).
ENTRYPOINT ["python", "/app/entrypoint.py"]
