#!/usr/bin/env bash
# NVIDIA's Switchyard routing proxy (PyPI nemo-switchyard, pinned; its wheel carries the native server
# switchyard_rust.server) in a venv under .gymflow/venvs, from PyPI only: the gateway's `switchyard` backend
# hosts it from that venv's python, and the Switchyard tests route runs through it. Safe to rerun; prints the venv.
#   bash scripts/setup-switchyard.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
requirements='nemo-switchyard==0.3.0'
venv="$root/.gymflow/venvs/switchyard-$(printf %s "$requirements" | sha256sum | cut -c1-12)"
python="${PYTHON:-python3}"

if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # shellcheck disable=SC2086 # the pins are separate words on purpose
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: $requirements
  echo "$requirements" > "$venv/.requirements"
fi
echo "$venv"
