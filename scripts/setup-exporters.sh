#!/usr/bin/env bash
# Installs the Python the exporters use, from PyPI, into venvs under .gymflow/venvs (ignored by git):
# `wandb` (the W&B exporter writes its run files with it) and an MLflow tracking server for the tests.
# Safe to rerun: a venv whose stamp matches its pinned requirements, and whose entry point is there, is kept.
#   bash scripts/setup-exporters.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venvs="$root/.gymflow/venvs"
python="${PYTHON:-python3}"
mkdir -p "$venvs"

# mlflow-skinny plus only what `mlflow server` imports (Flask app, SQL store, the FastAPI wrapper's
# numpy/pandas): the full `mlflow` wheel would add scikit-learn, scipy, matplotlib, pyarrow and docker.
MLFLOW_REQS=('mlflow-skinny==3.17.2' 'Flask<4' 'Flask-CORS<7' 'alembic<2' 'sqlalchemy<3' 'graphene<4' 'aiohttp<4' 'huey<4' 'numpy<3' 'pandas<4')
WANDB_REQS=('wandb==0.31.0')

# make_venv NAME ENTRY REQUIREMENTS...: ENTRY (under bin/) must exist for a stamped venv to be trusted, since a
# half-removed venv keeps its stamp.
make_venv() {
  local name="$1" entry="$2"; shift 2
  local dir="$venvs/$name" stamp="$*"
  if [ -f "$dir/.gymflow-stamp" ] && [ "$(cat "$dir/.gymflow-stamp")" = "$stamp" ] && [ -x "$dir/bin/$entry" ]; then return; fi
  rm -rf "$dir"
  "$python" -m venv "$dir"
  # Bytecode is compiled on first import instead: compiling every module at install time is most of the install.
  "$dir/bin/pip" install --quiet --disable-pip-version-check --no-compile "$@"
  echo "$stamp" > "$dir/.gymflow-stamp"
}

start=$SECONDS
# Both at once: the time goes into downloads, not CPU.
make_venv wandb wandb "${WANDB_REQS[@]}" & wandb_pid=$!
make_venv mlflow mlflow "${MLFLOW_REQS[@]}" & mlflow_pid=$!
wait "$wandb_pid"
wait "$mlflow_pid"
echo "exporter venvs ready in $venvs ($((SECONDS - start)) s)"
