#!/usr/bin/env bash
# NVIDIA's Switchyard routing proxy (PyPI nemo-switchyard, pinned; its wheel carries the native server
# switchyard_rust.server) in a venv under .gymflow/venvs (scripts/pinned-venv.sh), from PyPI only: the gateway's `switchyard` backend
# hosts it from that venv's python, and the Switchyard tests route runs through it. Safe to rerun; prints the venv.
#   bash scripts/setup-switchyard.sh
set -euo pipefail
exec bash "$(dirname "$0")/pinned-venv.sh" switchyard 'nemo-switchyard==0.3.0'
