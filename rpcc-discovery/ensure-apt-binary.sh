#!/usr/bin/env bash
# ensure-apt-binary.sh BINARY PATH PACKAGE WHAT: makes BINARY (on the PATH, or at PATH) available
# for the tests that start it: if it is missing and we are root with apt-get, apt-get install -y
# PACKAGE (Debian's). Never fatal: without it WHAT skip, or fail under CI=true.
# ensure-etcd.sh and ensure-dnsmasq.sh call it; `./rpcc test` runs those.
set -uo pipefail
binary="$1" path="$2" package="$3" what="$4"
command -v "$binary" >/dev/null && exit 0
[ -x "$path" ] && exit 0
log_var="RPCC_${binary^^}_APT_LOG" # RPCC_ETCD_APT_LOG, RPCC_DNSMASQ_APT_LOG
log="${!log_var:-/tmp/rpcc-$binary-apt.log}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "rpcc: installing $package for $what (apt-get install -y $package, log $log)" >&2
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >"$log" 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package" >>"$log" 2>&1 \
      || echo "rpcc: apt-get install $package failed (see $log); $what will skip (or fail under CI=true)" >&2
  fi
else
  echo "rpcc: no $binary binary and cannot install it (not root or no apt-get); $what will skip (or fail under CI=true)" >&2
fi
exit 0
