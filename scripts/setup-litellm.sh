#!/usr/bin/env bash
# LiteLLM's proxy server (PyPI litellm[proxy], pinned) in a venv under .gymflow/venvs, from PyPI only: the
# gateway tests put a real LiteLLM proxy between the `openai` backend and an upstream. Safe to rerun; prints the venv.
#   bash scripts/setup-litellm.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
requirements='litellm[proxy]==1.108.7'
venv="$root/.gymflow/venvs/litellm-$(printf %s "$requirements" | sha256sum | cut -c1-12)"
python="${PYTHON:-python3}"

if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: "$requirements"
  echo "$requirements" > "$venv/.requirements"
fi
echo "$venv"
