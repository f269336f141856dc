#!/usr/bin/env bash
# LiteLLM's proxy server (PyPI litellm[proxy], pinned) in a venv under .gymflow/venvs (scripts/pinned-venv.sh), from PyPI only: the
# gateway tests put a real LiteLLM proxy between the `openai` backend and an upstream. Safe to rerun; prints the venv.
#   bash scripts/setup-litellm.sh
set -euo pipefail
exec bash "$(dirname "$0")/pinned-venv.sh" litellm 'litellm[proxy]==1.108.7'
