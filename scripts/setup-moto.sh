#!/usr/bin/env bash
# moto's S3-compatible server (PyPI moto[server], pinned) in a venv under .gymflow/venvs (scripts/pinned-venv.sh), from PyPI only: the
# object store tests (tests/store/, tests/e2e/object-store) run the run store against a real S3 server. Safe to
# rerun; prints the venv (its server is "$venv/bin/moto_server").
#   bash scripts/setup-moto.sh
set -euo pipefail
exec bash "$(dirname "$0")/pinned-venv.sh" moto 'moto[server]==5.2.1'
