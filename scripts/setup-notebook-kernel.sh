#!/usr/bin/env bash
# The Jupyter kernel of the notebook environments (aviary_bixbench, aviary_bixbench_hypothesis): ipykernel,
# jupyter-client, nbformat, nbclient and the data-analysis stack, pinned in src/environments/notebook/requirements.txt,
# in a venv under .gymflow/venvs (scripts/pinned-venv.sh), from PyPI only. Made with the distribution's python3
# where there is one, so the kernel's bubblewrap jail needs only /usr and the venv. Safe to rerun; prints the venv.
#   bash scripts/setup-notebook-kernel.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pins="$(grep -v '^\s*$' "$root/src/environments/notebook/requirements.txt" | tr '\n' ' ' | sed 's/ *$//')"
if [ -z "${PYTHON:-}" ] && [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null; then export PYTHON=/usr/bin/python3; fi
exec bash "$root/scripts/pinned-venv.sh" notebook-kernel "$pins"
