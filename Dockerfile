# citecheck GitHub Action image.
#
# BASE is a build argument so CI can build this same file on a locally made Debian bookworm
# base (see .ci/container.sh); the default is the official slim image GitHub pulls.
ARG BASE=python:3.11-slim-bookworm

# --- build stage: a venv with the dependencies and the package; pip and setuptools stay here.
FROM ${BASE} AS build

# A venv works on both bases: the official image's Python and Debian's own (whose system
# pip refuses to install outside a venv). No bytecode at install time: the warm-up below
# compiles just the modules a run imports (all of it would be 45 MB more).
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_NO_COMPILE=1 \
    PATH=/opt/venv/bin:$PATH

# Dependencies come from pyproject.toml alone, so this layer is rebuilt only when that file
# changes, not on every source edit. setuptools is the project's build backend, installed
# here so the source layer below builds without fetching it again.
COPY pyproject.toml /tmp/citecheck-build/pyproject.toml
RUN python3 -m venv /opt/venv \
    && python -c 'import sys, tomllib; print(*tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"], sep="\n")' \
        /tmp/citecheck-build/pyproject.toml > /tmp/citecheck-build/requirements.txt \
    && pip install -r /tmp/citecheck-build/requirements.txt "setuptools>=77" wheel

# The package itself, without dependencies (already above); then what a run never uses goes:
# - the installers (the action installs nothing at run time);
# - cryptography, which PyGithub's JWT library takes only for GitHub App keys (we
#   authenticate with a token; PyJWT imports it only if present) — 16 MB;
# - babel's locale data but English and root: babel comes with trafilatura (through courlan)
#   for a URL language filter we never ask for; a missing locale is UnknownLocaleError, which
#   courlan catches — 33 MB.
# Then the warm-up: the bundled demo (fetch, HTML extraction, checks, report) and the
# modules every Action run imports are run once, so their bytecode is in the image and a
# run starts fast. The LLM SDKs are compiled on first use in a run instead (about 2 s),
# which keeps 20 MB of bytecode for thousands of API type modules out of the image.
COPY pyproject.toml README.md /tmp/citecheck-build/
COPY citecheck /tmp/citecheck-build/citecheck
RUN pip install --no-deps --no-build-isolation /tmp/citecheck-build \
    && pip uninstall -y setuptools wheel pip cryptography \
    && find /opt/venv/lib/python3*/site-packages/babel/locale-data -type f \
        ! -name root.dat ! -name en.dat -delete \
    && find /opt/venv -name __pycache__ -prune -exec rm -rf {} + \
    && citecheck demo > /dev/null \
    && python -c 'import citecheck.github.action, citecheck.fetch.content, citecheck.judge.core, github, pypdf' \
    && rm -rf /tmp/citecheck-build

# --- run stage
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

# No git and no apt layer: the Action reads the PR's changed files and the base's config
# through the GitHub API, and TLS uses the CA bundle of the venv's certifi.
COPY --from=build /opt/venv /opt/venv
COPY entrypoint.py /app/entrypoint.py

# No WORKDIR/USER: GitHub runs the container as root with --workdir /github/workspace, and
# `python` is the venv's (first on PATH).
ENTRYPOINT ["python", "/app/entrypoint.py"]
