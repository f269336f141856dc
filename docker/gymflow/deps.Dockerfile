# Gymflow's `npm ci` output on the compose base (scripts/setup-compose.sh): the layer docker/gymflow/Dockerfile
# puts the project's files on, built again only when the installed packages change.
ARG BASE
FROM ${BASE}
COPY node_modules /app/node_modules
