#!/usr/bin/env bash
# Makes the dnsmasq binary available for rpcc-discovery's DNS tests (they start a real dnsmasq):
# `./rpcc test` runs this. If `dnsmasq` is missing and we are root with apt-get: apt-get install -y
# dnsmasq-base (the binary alone, no system service). Never fatal: without dnsmasq the tests skip,
# or fail under CI=true.
set -uo pipefail
command -v dnsmasq >/dev/null && exit 0
[ -x /usr/sbin/dnsmasq ] && exit 0
log="${RPCC_DNSMASQ_APT_LOG:-/tmp/rpcc-dnsmasq-apt.log}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "rpcc: installing dnsmasq-base for the discovery tests (apt-get install -y dnsmasq-base, log $log)" >&2
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q dnsmasq-base >"$log" 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q dnsmasq-base >>"$log" 2>&1 \
      || echo "rpcc: apt-get install dnsmasq-base failed (see $log); the DNS tests will skip (or fail under CI=true)" >&2
  fi
else
  echo "rpcc: no dnsmasq binary and cannot install it (not root or no apt-get); the DNS tests will skip (or fail under CI=true)" >&2
fi
exit 0
