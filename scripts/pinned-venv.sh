#!/usr/bin/env bash
# A venv under .gymflow/venvs/<name>-<hash of its pins> holding exactly those pins, from PyPI's wheels only: made
# once, and made again when the pins change or the venv no longer runs (one moved from another checkout keeps
# that checkout's paths in its scripts). Prints the venv. The setup-*.sh scripts of the Python servers use it.
#   bash scripts/pinned-venv.sh NAME 'REQUIREMENT [REQUIREMENT…]'
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bash scripts/pinned-venv.sh NAME 'REQUIREMENT [REQUIREMENT…]'" >&2; exit 2; }
name=$1
requirements=$2
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.gymflow/venvs/$name-$(printf %s "$requirements" | sha256sum | cut -c1-12)"
python="${PYTHON:-python3}"

if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ] || ! "$venv/bin/pip" --version >/dev/null 2>&1; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # shellcheck disable=SC2086 # the pins are separate words on purpose
  "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: $requirements
  echo "$requirements" > "$venv/.requirements"
fi
echo "$venv"
