#!/usr/bin/env bash
# Makes the etcd binary available for rpcc-discovery's tests (they start a real etcd): `./rpcc test`
# runs this. If `etcd` is missing and we are root with apt-get: apt-get install -y etcd-server
# (Debian's etcd 3.4). Never fatal: without etcd the tests skip, or fail under CI=true.
exec "$(dirname "$0")/ensure-apt-binary.sh" etcd /usr/bin/etcd etcd-server "the etcd tests"
