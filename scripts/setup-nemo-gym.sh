#!/usr/bin/env bash
# NeMo Gym 0.7.0 from PyPI in a venv under .gymflow/venvs (ignored by git, kept by CI's cache), for the interop
# tests and `gym env serve --nemo-gym`. Safe to rerun: a venv whose stamp matches, and whose entry point is there, is kept.
#   bash scripts/setup-nemo-gym.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.gymflow/venvs/nemo-gym"
python="${PYTHON:-python3}"

# NeMo Gym declares Python >= 3.13.14 but its code runs on 3.11, so it goes in with --ignore-requires-python and
# --no-deps: its full dependency list resolves scipy to a release that no longer builds on 3.11, and adds MLflow,
# datasets, pyarrow and ray[default]'s extras, which neither its resources servers nor its simple agent and rollout
# collection import. What they do import is pinned below (the versions NeMo Gym 0.7.0 was released against where
# it pins them; ray only because NeMo Gym reads its version at import).
NEMO_GYM='nemo-gym==0.7.0'
DEPS=('openai==2.44.0' 'anthropic==0.109.2' 'pydantic==2.14.4' 'fastapi==0.165.0' 'uvicorn==0.54.0' 'uvloop' 'httptools'
  'hydra-core==1.3.8' 'omegaconf==2.3.1' 'aiohttp==3.14.5' 'scipy==1.17.1' 'pandas==3.1.1' 'wandb==0.31.0' 'ray==2.60.0'
  'mcp<2' 'devtools' 'itsdangerous' 'rich' 'yappi' 'psutil' 'orjson' 'python-multipart' 'pydot' 'requests' 'pyyaml'
  'tqdm' 'jinja2' 'PyJWT' 'packaging')
stamp="$NEMO_GYM ${DEPS[*]}"
entry=ng_collect_rollouts

if [ -f "$venv/.gymflow-stamp" ] && [ "$(cat "$venv/.gymflow-stamp")" = "$stamp" ] && [ -x "$venv/bin/$entry" ]; then
  echo "$venv"
  exit 0
fi
start=$SECONDS
rm -rf "$venv"
"$python" -m venv "$venv"
# Bytecode is compiled on first import instead: compiling every module at install time is most of the install.
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check --no-compile)
"${pip[@]}" --ignore-requires-python --no-deps "$NEMO_GYM"
"${pip[@]}" "${DEPS[@]}"
[ -x "$venv/bin/$entry" ] || { echo "setup-nemo-gym: $venv/bin/$entry is missing after the install" >&2; exit 1; }
echo "$stamp" > "$venv/.gymflow-stamp"
echo "NeMo Gym venv ready in $venv ($((SECONDS - start)) s)" >&2
echo "$venv"
