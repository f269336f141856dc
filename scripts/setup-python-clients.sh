#!/usr/bin/env bash
# The official Python openai and anthropic clients, pinned, in a venv under .gymflow/venvs (ignored by git,
# kept by CI's cache), from PyPI only: the gateway tests call the gateway with them. Safe to rerun.
#   bash scripts/setup-python-clients.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.gymflow/venvs/clients"
requirements='openai==3.57.0 anthropic==2.15.0'
python="${PYTHON:-python3}"

if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # shellcheck disable=SC2086 # the pins are separate words on purpose
  "$venv/bin/pip" install --quiet --disable-pip-version-check $requirements
  echo "$requirements" > "$venv/.requirements"
fi
echo "$venv"
