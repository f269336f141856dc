#!/usr/bin/env bash
# moto's S3-compatible server (PyPI moto[server], pinned) in a venv under .gymflow/venvs, from PyPI only: the
# object store tests (tests/store/, tests/e2e/object-store) run the run store against a real S3 server. Safe to
# rerun; prints the venv (its server is "$venv/bin/moto_server").
#   bash scripts/setup-moto.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
requirements='moto[server]==5.2.1'
venv="$root/.gymflow/venvs/moto-$(printf %s "$requirements" | sha256sum | cut -c1-12)"
python="${PYTHON:-python3}"

if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: "$requirements"
  echo "$requirements" > "$venv/.requirements"
fi
echo "$venv"
