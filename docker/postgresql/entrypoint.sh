#!/bin/sh
# Makes the cluster on first start (its superuser POSTGRES_USER with POSTGRES_PASSWORD, password auth only),
# then runs the server as the postgres user on POSTGRES_LISTEN:POSTGRES_PORT.
set -eu
: "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD:?}"
port="${POSTGRES_PORT:-5432}"
bin=/usr/lib/postgresql/15/bin
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  runuser -u postgres -- "$bin/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth=scram-sha-256 -E UTF8 --no-locale
  rm -f "$pwfile"
fi
exec runuser -u postgres -- "$bin/postgres" -D "$PGDATA" -p "$port" \
  -c listen_addresses="${POSTGRES_LISTEN:-127.0.0.1}" -c unix_socket_directories=/run/postgresql -c max_connections=200
