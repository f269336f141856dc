#!/usr/bin/env bash
# Builds the Temporal CLI into the project cache as `gym setup` does, without needing node_modules, so CI
# can start the build (minutes of CPU) while npm ci runs. The module is read from the one place it is pinned;
# the staging folder's name carries this pid, which tells a `gym setup` started meanwhile to wait for this build.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${GYMFLOW_CACHE_DIR:-$PWD/.gymflow/bin}"
target="$bin/temporal"
if [ -n "${TEMPORAL_CLI_PATH:-}" ] || [ -x "$target" ] || command -v temporal >/dev/null; then exit 0; fi
module=$(sed -n "s/^export const TEMPORAL_CLI_MODULE = '\(.*\)';$/\1/p" src/temporal/cli-binary.ts)
[ -n "$module" ] || { echo "build-temporal-cli: TEMPORAL_CLI_MODULE not found in src/temporal/cli-binary.ts" >&2; exit 1; }
go=$(command -v go || echo /usr/local/go/bin/go)
staging="$bin/.staging-$$"
mkdir -p "$staging"
trap 'rm -rf "$staging"' EXIT
start=$(date +%s)
GOBIN="$staging" CGO_ENABLED=0 "$go" install -ldflags '-s -w' "$module"
mv "$staging/temporal" "$target"
echo "Temporal CLI built in $(( $(date +%s) - start )) s: $target"
