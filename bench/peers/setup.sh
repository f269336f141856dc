#!/usr/bin/env bash
# Installs the peer frameworks the benchmarks compare against, each in its own venv under .gymflow/venvs
# (ignored by git), from PyPI only. Safe to rerun: an existing venv is kept.
#   bash bench/peers/setup.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venvs="$root/.gymflow/venvs"
wheels="$root/.gymflow/wheels"
python="${PYTHON:-python3}"
mkdir -p "$venvs" "$wheels"

if [ ! -x "$venvs/inspect/bin/inspect" ]; then
  "$python" -m venv "$venvs/inspect"
  "$venvs/inspect/bin/pip" install --quiet 'inspect-ai==0.3.285'
fi

if [ ! -x "$venvs/nemo-gym/bin/gym" ]; then
  # NeMo Gym 0.7.0 asks for Python >= 3.13.14 but runs on 3.11: fetch the wheel for 3.13 and install it without
  # its resolver, then its runtime dependencies by name.
  pip download --quiet --no-deps --python-version 3.13.14 --only-binary=:all: -d "$wheels" 'nemo-gym==0.7.0'
  "$python" -m venv "$venvs/nemo-gym"
  "$venvs/nemo-gym/bin/pip" install --quiet --ignore-requires-python --no-deps "$wheels"/nemo_gym-0.7.0-py3-none-any.whl
  "$venvs/nemo-gym/bin/pip" install --quiet 'openai==2.44.0' 'anthropic<=0.109.2' tqdm pydantic devtools packaging \
    fastapi itsdangerous uvicorn httptools uvloop hydra-core omegaconf rich aiohttp orjson psutil jinja2 PyJWT \
    python-multipart 'ray[default]' yappi 'mcp>=1.28.1,<2' pydot pandas scipy wandb
fi
echo "peer venvs ready in $venvs"
