#!/usr/bin/env bash
# The images of docker-compose.yml, built offline from this repository: nothing comes from Docker Hub.
#   bash scripts/setup-compose.sh                build the parts not cached yet (no Docker daemon needed)
#   bash scripts/setup-compose.sh binaries       only the Go-built part (the Temporal server and UI): no Debian package
#                                                needed; prints its folder
#   bash scripts/setup-compose.sh images         the same, then build the images into the Docker daemon at DOCKER_HOST
#                                                (or the default socket): then `docker-compose up -d`
#   bash scripts/setup-compose.sh cache-images   the same into the image cache the compose test uses: a private
#                                                dockerd on .gymflow/cache/compose/docker, started and stopped here
#                                                (CI runs this in its setup, so the test only starts the stack)
#
# What is cached, under .gymflow/cache/compose (each keyed by what it is made of, so a change builds anew):
#   base-<key>.tar   the root file system every image starts from: Debian bookworm (minbase) with Debian's
#                    PostgreSQL 15 and CA certificates, by mmdebstrap, plus this machine's Node binary (the
#                    project needs Node 20; Debian 12's is 18)
#   bin-<key>/       the real Temporal server, its SQL schema tool and the Temporal UI server, built from the
#                    Go module proxy at the versions the Temporal CLI embeds (see build_binaries), and the
#                    PostgreSQL schema files of that server
# The images: gymflow-compose-base:<key> imported from the tarball, then gymflow-postgresql, gymflow-temporal,
# gymflow-temporal-ui, gymflow-deps (node_modules) and gymflow (the worker, gateway and API: the project's files
# on gymflow-deps), each `:local`, built from the Dockerfiles in docker/ with the legacy builder (which never
# pulls a base it has). Each carries a label hashing what it was built from, and is built again only when that
# changes: a source edit rebuilds only the small gymflow image.
set -euo pipefail
cd "$(dirname "$0")/.."
export HOME="${HOME:-/root}"
export GOFLAGS="${GOFLAGS:-} -modcacherw"

# The Temporal server and UI server, at the versions the Temporal CLI (scripts/install-temporal-cli.sh) embeds
# and built with the CLI's own dependency versions, so the compose stack and the dev server run the same code.
TEMPORAL_CLI=v$(sed -n 's/^CLI_VERSION=//p' scripts/install-temporal-cli.sh)
[ "$TEMPORAL_CLI" != v ] || { echo "setup-compose: CLI_VERSION not found in scripts/install-temporal-cli.sh" >&2; exit 1; }
SUITE=bookworm
PACKAGES=(postgresql ca-certificates)

cache=.gymflow/cache/compose
mkdir -p "$cache"
go=$(command -v go || echo /usr/local/go/bin/go)
node=$(readlink -f "$(command -v node)")
start=$(date +%s)
clibin="${GYMFLOW_CACHE_DIR:-$PWD/.gymflow/bin}"

# An install of the Temporal CLI under way (CI starts one first) is waited for: its staging folder is named by its pid.
wait_for_cli_install() {
  local staging pid
  for staging in "$clibin"/.staging-*; do
    pid=${staging##*-}
    [ -d "$staging" ] && while kill -0 "$pid" 2>/dev/null; do sleep 1; done
  done
  return 0
}

moddir() { "$go" mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; }

build_binaries() {
  local key dir staging mod cli_dir server_version ui_version
  key=$(printf '%s\n' "cli@$TEMPORAL_CLI" "$("$go" env GOVERSION)" | sha256sum | cut -c1-12)
  dir="$cache/bin-$key"
  if [ ! -x "$dir/temporal-ui-server" ]; then
    staging="$dir.partial-$$"
    rm -rf "$staging" && mkdir -p "$staging/mod"
    cli_dir=$(moddir "github.com/temporalio/cli@$TEMPORAL_CLI")
    mod="$staging/mod"
    # A module of our own with the CLI's requirements (go.sum too), so the versions are the CLI's.
    sed '1s#.*#module gymflow.local/temporal-parts#' "$cli_dir/go.mod" > "$mod/go.mod"
    cp "$cli_dir/go.sum" "$mod/go.sum" && chmod u+w "$mod/go.sum"
    server_version=$(sed -n 's#^[[:space:]]*go.temporal.io/server \(v[^ ]*\).*#\1#p' "$mod/go.mod")
    ui_version=$(sed -n 's#^[[:space:]]*github.com/temporalio/ui-server/v2 \(v[^ ]*\).*#\1#p' "$mod/go.mod")
    # -mod=mod: the server's commands import two small CLI libraries the Temporal CLI does not, so their go.sum lines are added.
    # At a low priority: minutes of CPU that CI spends beside the test suite, which comes first.
    (
      cd "$mod"
      export CGO_ENABLED=0 GOFLAGS="$GOFLAGS -mod=mod"
      nice -n 10 "$go" build -ldflags '-s -w' -o ../temporal-server go.temporal.io/server/cmd/server
      nice -n 10 "$go" build -ldflags '-s -w' -o ../temporal-sql-tool go.temporal.io/server/cmd/tools/sql
      nice -n 10 "$go" build -ldflags '-s -w' -o ../temporal-ui-server github.com/temporalio/ui-server/v2/cmd/server
    )
    rm -rf "$mod"
    # The versioned PostgreSQL schema the SQL tool applies, from the server module just built.
    mkdir -p "$staging/schema"
    cp -r "$(moddir "go.temporal.io/server@$server_version")/schema/postgresql" "$staging/schema/"
    chmod -R u+w "$staging/schema"
    printf 'temporal server %s, ui-server %s (the Temporal CLI %s build)\n' "$server_version" "$ui_version" "$TEMPORAL_CLI" > "$staging/VERSIONS"
    rm -rf "$dir" && mv "$staging" "$dir"
  fi
  echo "$dir"
}

build_base() {
  local key tarball include
  key=$(printf '%s\n' "$SUITE" minbase "${PACKAGES[@]}" "$(sha256sum "$node" | cut -c1-64)" | sha256sum | cut -c1-12)
  tarball="$cache/base-$key.tar"
  if [ ! -s "$tarball" ]; then
    include=$(IFS=,; echo "${PACKAGES[*]}")
    # The cluster Debian's package creates at install is dropped: the postgresql image makes its own in a volume.
    mmdebstrap --quiet --format=tar --variant=minbase --include="$include" \
      --aptopt='Acquire::Retries "3"' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --customize-hook='rm -rf "$1"/var/lib/postgresql/15/main "$1"/etc/postgresql/15/main' \
      --customize-hook="copy-in $node /usr/local/bin" \
      "$SUITE" "$tarball.partial" >&2
    mv "$tarball.partial" "$tarball"
  fi
  echo "$tarball"
}

mode="${1:-}"
case "$mode" in '' | binaries | images | cache-images) ;; *) echo "usage: bash scripts/setup-compose.sh [binaries|images|cache-images]" >&2; exit 2 ;; esac
# One build of each part at a time: CI starts the binaries' first and this script again later, and the compose
# test runs it too; a second caller waits for the first's part, then finds it cached.
locked() {
  local name=$1
  shift
  (
    exec 9> "$cache/.lock-$name"
    flock 9
    "$@"
  )
}
if [ "$mode" = binaries ]; then
  # Only the Go part, which needs no Debian package: CI starts it first, beside its downloads. Its folder goes to
  # stdout, for the tests that run the server binary itself (tests/helpers/compose-binaries.ts).
  bin=$(locked binaries build_binaries)
  echo "setup-compose: binaries ready in $(( $(date +%s) - start )) s ($bin)" >&2
  echo "$bin"
  exit 0
fi
missing=()
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
if [ -n "$mode" ]; then
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-compose: ${missing[*]} missing; install them as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
fi

# The two builds are independent: the Go build is CPU, mmdebstrap mostly download and unpacking.
locked binaries build_binaries > "$cache/.bin-path-$$" & binaries=$!
tarball=$(locked base build_base)
wait "$binaries"
bin=$(cat "$cache/.bin-path-$$") && rm -f "$cache/.bin-path-$$"
echo "setup-compose: parts ready in $(( $(date +%s) - start )) s ($tarball, $bin)" >&2

[ -n "$mode" ] || exit 0

work=$(mktemp -d "${TMPDIR:-/tmp}/gf-compose-XXXXXX")
daemon=
cleanup() {
  if [ -n "$daemon" ]; then
    kill "$daemon" 2>/dev/null || true
    wait "$daemon" 2>/dev/null || true
    # dockerd leaves its network namespace bind-mounted under the exec root.
    { grep -o " $work/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" || true; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ "$mode" = cache-images ]; then
  # The data root persists; the socket and exec root are this run's (a Unix socket path has ~100 bytes).
  data="$PWD/$cache/docker"
  mkdir -p "$data"
  driver=overlay2
  for attempt in overlay2 vfs; do
    driver=$attempt
    dockerd --storage-driver "$driver" --data-root "$data" --exec-root "$work/exec" -H "unix://$work/docker.sock" \
      --pidfile "$work/dockerd.pid" --iptables=false --bridge=none > "$work/dockerd.log" 2>&1 &
    daemon=$!
    export DOCKER_HOST="unix://$work/docker.sock"
    for _ in $(seq 300); do
      kill -0 "$daemon" 2>/dev/null || break
      docker version >/dev/null 2>&1 && break 2
      sleep 0.2
    done
    kill "$daemon" 2>/dev/null || true
    wait "$daemon" 2>/dev/null || true
    daemon=
  done
  [ -n "$daemon" ] || { echo "setup-compose: dockerd did not start:" >&2; tail -5 "$work/dockerd.log" >&2; exit 1; }
fi

export DOCKER_BUILDKIT=0
base="gymflow-compose-base:$(basename "$tarball" .tar | sed 's/^base-//')"
docker image inspect "$base" >/dev/null 2>&1 || docker import "$tarball" "$base" >/dev/null
built=()
# build NAME INPUTS-HASH DOCKERFILE CONTEXT-DIR-OR-TAR [BUILD-ARG...]: skipped when NAME:local has that hash.
build() {
  local name=$1 inputs=$2 dockerfile=$3 context=$4
  shift 4
  if [ "$(docker image inspect -f '{{index .Config.Labels "gymflow.inputs"}}' "$name:local" 2>/dev/null)" = "$inputs" ]; then return; fi
  local args=(--quiet --label "gymflow.inputs=$inputs" -t "$name:local" -f "$dockerfile")
  for a in "$@"; do args+=(--build-arg "$a"); done
  if [ -d "$context" ]; then docker build "${args[@]}" "$context" >/dev/null 2>"$work/build.err"
  else docker build "${args[@]}" - < "$context" >/dev/null 2>"$work/build.err"; fi || { cat "$work/build.err" >&2; exit 1; }
  built+=("$name")
}
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

build gymflow-postgresql "$(hash_of docker/postgresql/* <(echo "$base"))" docker/postgresql/Dockerfile docker/postgresql "BASE=$base"

# The Temporal CLI (the one `gym setup` installs) creates the namespace and answers the health check.
cli="${TEMPORAL_CLI_PATH:-}"
[ -n "$cli" ] || cli=$(command -v temporal || true)
if [ -z "$cli" ]; then
  wait_for_cli_install
  bash scripts/install-temporal-cli.sh >&2
  cli="$clibin/temporal"
fi
mkdir -p "$work/temporal" "$work/ui"
cp -l "$bin/temporal-server" "$bin/temporal-sql-tool" "$work/temporal/" 2>/dev/null || cp "$bin/temporal-server" "$bin/temporal-sql-tool" "$work/temporal/"
cp -r "$bin/schema" docker/temporal/* "$work/temporal/"
cp "$cli" "$work/temporal/temporal"
build gymflow-temporal "$(hash_of docker/temporal/* <(echo "$base $bin") "$cli")" "$work/temporal/Dockerfile" "$work/temporal" "BASE=$base"
cp -l "$bin/temporal-ui-server" "$work/ui/" 2>/dev/null || cp "$bin/temporal-ui-server" "$work/ui/"
cp docker/temporal-ui/* "$work/ui/"
build gymflow-temporal-ui "$(hash_of docker/temporal-ui/* <(echo "$base $bin"))" "$work/ui/Dockerfile" "$work/ui" "BASE=$base"

# Gymflow in two images: its `npm ci` output (rebuilt when the lock file or the installed tree changes), then
# the project's files on it. Each context is one archive on stdin: node_modules may be a symlink in a worktree,
# and .dockerignore keeps it out of the Docker Hub Dockerfile's context.
modules=$(readlink -f node_modules)
tar -c docker/gymflow/deps.Dockerfile > "$work/deps.tar"
tar -r -f "$work/deps.tar" -C "$(dirname "$modules")" "$(basename "$modules")"
build gymflow-deps "$(hash_of package-lock.json "$modules/.package-lock.json" <(echo "$base") docker/gymflow/deps.Dockerfile)" \
  docker/gymflow/deps.Dockerfile "$work/deps.tar" "BASE=$base"
tar -c package.json package-lock.json tsconfig.json bin src workers workflows activities configs clients scripts docker/gymflow > "$work/app.tar"
deps_id=$(docker image inspect -f '{{.Id}}' gymflow-deps:local)
build gymflow "$(hash_of "$work/app.tar" <(echo "$deps_id"))" docker/gymflow/Dockerfile "$work/app.tar" "DEPS=gymflow-deps:local"
docker image prune -f >/dev/null
echo "setup-compose: images ready in $(( $(date +%s) - start )) s${built[*]:+ (built: ${built[*]})}: gymflow-postgresql, gymflow-temporal, gymflow-temporal-ui, gymflow (:local) on $base" >&2
