#!/bin/sh
# Sets up (or upgrades) the schema of both databases, writes the server's configuration from the environment,
# creates the namespace once the frontend answers, and runs all four services in this one process.
set -eu
: "${POSTGRES_USER:?}" "${POSTGRES_PWD:?}"
db_host="${POSTGRES_SEEDS:-127.0.0.1}"
db_port="${DB_PORT:-5432}"
ip="${TEMPORAL_BIND_IP:-127.0.0.1}"
broadcast="${TEMPORAL_BROADCAST_ADDRESS:-127.0.0.1}"
frontend="${TEMPORAL_FRONTEND_PORT:-7233}"
namespace="${TEMPORAL_NAMESPACE:-default}"

export SQL_PLUGIN=postgres12 SQL_HOST="$db_host" SQL_PORT="$db_port" SQL_USER="$POSTGRES_USER" SQL_PASSWORD="$POSTGRES_PWD"
for db in temporal temporal_visibility; do
  # Creating a database that exists fails; whether it worked shows in the steps after it.
  temporal-sql-tool --db "$db" create-database >/dev/null 2>&1 || true
done
temporal-sql-tool --db temporal setup-schema -v 0.0
temporal-sql-tool --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
temporal-sql-tool --db temporal_visibility setup-schema -v 0.0
temporal-sql-tool --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned

datastore() { # name, database, connections
  cat <<YAML
    $1:
      sql:
        pluginName: postgres12
        databaseName: $2
        connectAddr: "$db_host:$db_port"
        connectProtocol: tcp
        user: "$POSTGRES_USER"
        password: "$POSTGRES_PWD"
        maxConns: $3
        maxIdleConns: $3
        maxConnLifetime: 1h
YAML
}
service() { # name, grpc port, membership port, extra line
  cat <<YAML
  $1:
    rpc:
      grpcPort: $2
      membershipPort: $3
      bindOnIP: "$ip"
$4
YAML
}
mkdir -p /etc/temporal/config
{
  cat <<YAML
log:
  stdout: true
  level: ${TEMPORAL_LOG_LEVEL:-warn}
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: ${TEMPORAL_HISTORY_SHARDS:-4}
  datastores:
YAML
  datastore default temporal 20
  datastore visibility temporal_visibility 10
  cat <<YAML
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "$broadcast"
services:
YAML
  service frontend "$frontend" "${TEMPORAL_FRONTEND_MEMBERSHIP_PORT:-6933}" "      httpPort: ${TEMPORAL_HTTP_PORT:-7243}"
  service history "${TEMPORAL_HISTORY_PORT:-7234}" "${TEMPORAL_HISTORY_MEMBERSHIP_PORT:-6934}" ""
  service matching "${TEMPORAL_MATCHING_PORT:-7235}" "${TEMPORAL_MATCHING_MEMBERSHIP_PORT:-6935}" ""
  service worker "${TEMPORAL_WORKER_PORT:-7239}" "${TEMPORAL_WORKER_MEMBERSHIP_PORT:-6939}" ""
  cat <<YAML
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "$broadcast:$frontend"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: /etc/temporal/dynamicconfig.yaml
  pollInterval: 10s
YAML
} > /etc/temporal/config/docker.yaml

(
  address="$broadcast:$frontend"
  until temporal operator cluster health --address "$address" >/dev/null 2>&1; do sleep 1; done
  temporal operator namespace describe --address "$address" --namespace "$namespace" >/dev/null 2>&1 ||
    temporal operator namespace create --address "$address" --namespace "$namespace" --retention "${TEMPORAL_RETENTION:-72h}"
) &
exec temporal-server --root /etc/temporal --config config --env docker start
