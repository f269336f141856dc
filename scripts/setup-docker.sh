#!/usr/bin/env bash
# The docker provider's test setup: Debian's Docker Engine, mmdebstrap and docker-compose (installed when missing), and the
# task image's root file system built offline from Debian's packages, cached by its package list.
#   bash scripts/setup-docker.sh          install what is missing, build the image tarball if not cached
#   bash scripts/setup-docker.sh image    the same, then print the tarball's path and the image name
set -euo pipefail
cd "$(dirname "$0")/.."

# What the coding tasks run: their tests (python3), the repository they repair (git) and patch, SWE-bench's last
# way of applying a model's diff (swebench's grading). Changing this list changes the cache key, so the next run
# builds a new tarball.
SUITE=bookworm
PACKAGES=(python3 git patch)

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
# Debian's docker-compose (1.29, Python) for docker-compose.yml's test (scripts/setup-compose.sh builds its images).
command -v docker-compose >/dev/null || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-docker: ${missing[*]} missing; install them as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
fi

key=$(printf '%s\n' "$SUITE" minbase "${PACKAGES[@]}" | sha256sum | cut -c1-12)
dir=.gymflow/cache/images
tarball="$dir/task-$key.tar"
if [ ! -s "$tarball" ]; then
  mkdir -p "$dir"
  # mmdebstrap needs root (or user namespaces) to set file owners; build into a temporary name so an
  # interrupted build never looks cached.
  include=$(IFS=,; echo "${PACKAGES[*]}")
  mmdebstrap --quiet --format=tar --variant=minbase --include="$include" \
    --aptopt='Acquire::Retries "3"' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    "$SUITE" "$tarball.partial" >&2
  mv "$tarball.partial" "$tarball"
fi

if [ "${1:-}" = image ]; then
  echo "$(pwd)/$tarball"
  echo "gymflow-task:$key"
fi
