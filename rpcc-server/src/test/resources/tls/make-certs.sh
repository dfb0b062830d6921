#!/usr/bin/env bash
# Makes a CA and a certificate per rpcc node with openssl, the way docs/reference/security.md (Mutual TLS) says:
#   make-certs.sh DIR NODE...
# writes DIR/ca.crt, DIR/ca.key and, per node, DIR/NODE.crt and DIR/NODE.key (unencrypted PKCS#8),
# each node certificate carrying the node's name as URI:rpcc:NODE and DNS:NODE.
set -euo pipefail
dir=$1; shift
cd "$dir"
# 1. The CA: keep ca.key offline; every node gets ca.crt as its trusted certificate.
openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -noenc -keyout ca.key -out ca.crt \
  -days 3650 -subj "/CN=rpcc example CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
# 2. A certificate per node, signed by the CA.
for node in "$@"; do
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -noenc -keyout "$node.key" -out "$node.csr" \
    -subj "/CN=$node"
  printf 'subjectAltName=URI:rpcc:%s,DNS:%s\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n' \
    "$node" "$node" > "$node.ext"
  openssl x509 -req -in "$node.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$node.crt" -days 365 \
    -extfile "$node.ext"
  rm "$node.csr" "$node.ext"
done
