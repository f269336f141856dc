#!/usr/bin/env bash
# The official Python openai, anthropic and temporalio clients (and jsonschema), pinned, in a venv under
# .gymflow/venvs (ignored by git, kept by CI's cache), from PyPI only: the gateway tests call the gateway
# with them, the API tests start a run from Python. Safe to rerun.
#   bash scripts/setup-python-clients.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
requirements='openai==3.57.0 anthropic==2.15.0 temporalio==1.35.0 jsonschema==4.26.0'
# Named by its pins, so checkouts that pin differently (branches sharing one .gymflow) never rebuild each other's.
venv="$root/.gymflow/venvs/clients-$(printf %s "$requirements" | sha256sum | cut -c1-12)"
python="${PYTHON:-python3}"

if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # shellcheck disable=SC2086 # the pins are separate words on purpose
  "$venv/bin/pip" install --quiet --disable-pip-version-check $requirements
  echo "$requirements" > "$venv/.requirements"
fi
echo "$venv"
