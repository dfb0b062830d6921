#!/usr/bin/env bash
# Makes the etcd binary available for rpcc-discovery's tests (they start a real etcd): `./rpcc test`
# runs this. If `etcd` is missing and we are root with apt-get: apt-get install -y etcd-server
# (Debian's etcd 3.4). Never fatal: without etcd the tests skip, or fail under CI=true.
set -uo pipefail
command -v etcd >/dev/null && exit 0
[ -x /usr/bin/etcd ] && exit 0
log="${RPCC_ETCD_APT_LOG:-/tmp/rpcc-etcd-apt.log}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "rpcc: installing etcd-server for the discovery tests (apt-get install -y etcd-server, log $log)" >&2
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q etcd-server >"$log" 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q etcd-server >>"$log" 2>&1 \
      || echo "rpcc: apt-get install etcd-server failed (see $log); the etcd tests will skip (or fail under CI=true)" >&2
  fi
else
  echo "rpcc: no etcd binary and cannot install it (not root or no apt-get); the etcd tests will skip (or fail under CI=true)" >&2
fi
exit 0
