#!/usr/bin/env bash
# The Slurm tests' setup: Debian's slurm-wlm (slurmctld, slurmd, sbatch… and munge), installed when
# missing. The tests start and stop their own daemons with a generated configuration; nothing runs here.
set -euo pipefail

missing=()
for bin in slurmctld slurmd sbatch munged; do
  command -v "$bin" >/dev/null || PATH="$PATH:/usr/sbin:/sbin" command -v "$bin" >/dev/null || missing+=("$bin")
done
command -v curl >/dev/null || missing+=(curl)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "setup-slurm: ${missing[*]} missing; install them as root: apt-get install -y slurm-wlm curl" >&2
  exit 1
fi
apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm curl >&2
