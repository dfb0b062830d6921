#!/usr/bin/env bash
# Makes the dnsmasq binary available for rpcc-discovery's DNS tests (they start a real dnsmasq):
# `./rpcc test` runs this. If `dnsmasq` is missing and we are root with apt-get: apt-get install -y
# dnsmasq-base (the binary alone, no system service). Never fatal: without dnsmasq the tests skip,
# or fail under CI=true.
exec "$(dirname "$0")/ensure-apt-binary.sh" dnsmasq /usr/sbin/dnsmasq dnsmasq-base "the DNS tests"
