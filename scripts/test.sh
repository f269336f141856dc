#!/usr/bin/env bash
# `npm test`: the type check, the linter and the format check run beside the test suite, not before it. Each is one core's work
# for a minute, and the suite leaves about a third of two cores idle while its tests wait on servers and kills.
# Fails when any of the four fails; each one's output stays whole (the checks' go to files, printed at the end).
set -u
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tsc --noEmit > "$out/tsc" 2>&1 & types=$!
eslint . > "$out/eslint" 2>&1 & lint=$!
prettier --check . > "$out/prettier" 2>&1 & format=$!
vitest run "$@"; tests=$?
wait "$types"; types=$?
wait "$lint"; lint=$?
wait "$format"; format=$?
status=0
if [ "$types" -ne 0 ]; then echo "tsc --noEmit failed:"; cat "$out/tsc"; status=1; fi
if [ "$lint" -ne 0 ]; then echo "eslint failed:"; cat "$out/eslint"; status=1; fi
if [ "$format" -ne 0 ]; then echo "prettier --check failed (npm run format fixes it):"; cat "$out/prettier"; status=1; fi
if [ "$tests" -ne 0 ]; then status=1; fi
[ "$status" -eq 0 ] && echo "tsc --noEmit, eslint and prettier --check: clean"
exit "$status"
