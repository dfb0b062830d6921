#!/usr/bin/env bash
# Makes a Docker daemon answer, if this machine allows it: `./rpcc test` and `./rpcc image` run this.
# 1. `docker info` works: done.
# 2. No dockerd and we are root with apt-get: apt-get install -y docker.io.
# 3. No daemon answers and we are root: start dockerd in the background (log: $RPCC_DOCKERD_LOG,
#    default /tmp/rpcc-dockerd.log) and wait up to 60 s for `docker info`.
# Exit 0 when Docker works; otherwise exit 1 after printing ONE line on stderr: why, and how to get it.
set -uo pipefail

log="${RPCC_DOCKERD_LOG:-/tmp/rpcc-dockerd.log}"
then_what="the container tests will be skipped"
[ "${CI:-}" = true ] && then_what="the container tests will fail (CI=true)"
fail() { echo "rpcc: Docker is not available ($1); $then_what. $2" >&2; exit 1; }

if command -v docker >/dev/null && docker info >/dev/null 2>&1; then exit 0; fi

root=false; [ "$(id -u)" = 0 ] && root=true
if ! command -v dockerd >/dev/null; then
  $root || fail "no dockerd and not root" "Install it: sudo apt-get install -y docker.io && sudo dockerd &"
  command -v apt-get >/dev/null || fail "no dockerd and no apt-get" "Install Docker Engine for this system and start dockerd."
  echo "rpcc: installing docker.io (apt-get install -y docker.io, log $log.apt)" >&2
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >"$log.apt" 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log.apt" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io >>"$log.apt" 2>&1 \
      || fail "apt-get install docker.io failed, see $log.apt" "Install docker.io by hand and start dockerd."
  fi
fi
command -v docker >/dev/null || fail "dockerd is installed but the docker command is not" "Install docker.io (or docker-ce-cli)."

if [ -S /var/run/docker.sock ] && ! $root && [ ! -w /var/run/docker.sock ]; then
  fail "no permission on /var/run/docker.sock" "Add yourself to the docker group (sudo usermod -aG docker \$USER) and log in again."
fi
if ! pgrep -x dockerd >/dev/null; then
  $root || fail "dockerd is not running and not root" "Start it: sudo dockerd & (or sudo systemctl start docker)."
  echo "rpcc: starting dockerd in the background (log $log)" >&2
  nohup dockerd >"$log" 2>&1 &
fi
for _ in $(seq 1 60); do
  docker info >/dev/null 2>&1 && exit 0
  sleep 1
done
fail "dockerd does not answer after 60 s, see $log" "Check the log; dockerd needs root, cgroups and iptables (or start it with --iptables=false)."
