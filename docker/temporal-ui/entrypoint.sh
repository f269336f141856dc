#!/bin/sh
# The UI server's configuration from the environment, then the server.
set -eu
mkdir -p /etc/temporal-ui/config
cat > /etc/temporal-ui/config/docker.yaml <<YAML
temporalGrpcAddress: "${TEMPORAL_ADDRESS:-127.0.0.1:7233}"
host: "${TEMPORAL_UI_HOST:-127.0.0.1}"
port: ${TEMPORAL_UI_PORT:-8233}
enableUi: true
defaultNamespace: "${TEMPORAL_NAMESPACE:-default}"
notifyOnNewVersion: false
auth:
  enabled: false
YAML
exec temporal-ui-server --root /etc/temporal-ui --config config --env docker start
