#!/usr/bin/env bash
# Builds the rpcc-node image from local files only (no registry): `./rpcc image` runs this after
# packaging rpcc-node. Usage: docker/build-image.sh <version> [dist dir] [jdk]
#   <version>   the project version: the image is tagged rpcc-node:<version> and rpcc-node:latest
#   [dist dir]  the node's distribution (default rpcc-node/target/dist: rpcc-node.jar + lib/)
#   [jdk]       the JDK whose jlink builds the runtime (default $JAVA_HOME)
# The build context is staged under target/docker-image/ (rootfs/ = the image's whole file system).
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:?usage: docker/build-image.sh <version> [dist dir] [jdk]}"
dist="${2:-rpcc-node/target/dist}"
jdk="${3:-${JAVA_HOME:?set JAVA_HOME to a JDK with jlink}}"
image="${RPCC_IMAGE_NAME:-rpcc-node}"

[ -f "$dist/rpcc-node.jar" ] || { echo "rpcc image: $dist/rpcc-node.jar is missing: build the node first (./rpcc mvn -pl rpcc-node -am package -DskipTests)" >&2; exit 1; }
[ -x "$jdk/bin/jlink" ] || { echo "rpcc image: no jlink in $jdk: JAVA_HOME must be a full JDK" >&2; exit 1; }
command -v docker >/dev/null || { echo "rpcc image: no docker command: install docker.io (apt-get install -y docker.io) and start dockerd" >&2; exit 1; }

# The modules the node needs: what `jdeps --print-module-deps` finds in the dist (java.base, java.compiler,
# java.naming, java.net.http (the OTLP trace exporter's HTTP client), java.sql, jdk.httpserver (/live, /ready,
# /metrics), java.xml (logback reads its configuration), jdk.jfr, jdk.management, jdk.unsupported), plus jdk.compiler and
# jdk.zipfs, which javac loads as services when a server compiles a Java chaining function, and
# jdk.charsets. Left out although jdeps lists them: java.desktop (only Kryo's BeanSerializer and ICU's
# AWT font shaping use it; 15 MB) and jdk.internal.vm.ci (Truffle's JIT, which a stock JDK does not run).
modules=java.base,java.compiler,jdk.compiler,jdk.zipfs,java.logging,java.management,jdk.management,java.naming,java.net.http,java.sql,java.xml,jdk.httpserver,jdk.unsupported,jdk.charsets,jdk.jfr
if "$jdk/bin/java" --list-modules | grep -q '^jdk.crypto.ec@'; then
  modules="$modules,jdk.crypto.ec"
fi

ctx=target/docker-image
rm -rf "$ctx"
mkdir -p "$ctx/rootfs/opt/rpcc/services" "$ctx/rootfs/etc" "$ctx/rootfs/tmp" "$ctx/data/repository"
chmod 1777 "$ctx/rootfs/tmp"

echo "rpcc image: jlink runtime ($modules)"
"$jdk/bin/jlink" --add-modules "$modules" --output "$ctx/rootfs/opt/java" \
  --strip-debug --no-man-pages --no-header-files --compress=zip-6

# glibc (and whatever else the runtime links against), found with ldd, at the paths the loader expects
libs=$(find "$ctx/rootfs/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec ldd {} \; 2>/dev/null \
  | grep -oE '(/[^ ]+\.so[^ ]*)' | sort -u)
copied=()
for lib in $libs; do
  case "$lib" in "$jdk"/*|*/opt/java/*) continue ;; esac   # the runtime's own libraries
  mkdir -p "$ctx/rootfs$(dirname "$lib")"
  cp -L "$lib" "$ctx/rootfs$lib"
  copied+=("$lib")
done
echo "rpcc image: glibc files: ${copied[*]}"

cat > "$ctx/rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
rpcc:x:10001:10001:rpcc node:/opt/rpcc/data:/sbin/nologin
PASSWD
cat > "$ctx/rootfs/etc/group" <<'GROUP'
root:x:0:
rpcc:x:10001:
GROUP
echo 'hosts: files dns' > "$ctx/rootfs/etc/nsswitch.conf"

cp "$dist/rpcc-node.jar" "$ctx/rootfs/opt/rpcc/"
mkdir -p "$ctx/rootfs/opt/rpcc/lib"
for jar in "$dist"/lib/*.jar; do
  case "$(basename "$jar")" in   # native code for other systems (netty-tcnative's osx, windows, aarch64 jars)
    *-osx-*|*-windows-*|*-linux-aarch_64*) continue ;;
  esac
  cp "$jar" "$ctx/rootfs/opt/rpcc/lib/"
done
cp docker/Dockerfile "$ctx/Dockerfile"

echo "rpcc image: docker build -t $image:$version -t $image:latest ($(du -sh "$ctx" | cut -f1) of files)"
docker build -t "$image:$version" -t "$image:latest" "$ctx" >"$ctx.log" 2>&1 \
  || { cat "$ctx.log" >&2; echo "rpcc image: docker build failed (log above, and in $ctx.log)" >&2; exit 1; }
docker image ls "$image:$version" --format 'rpcc image: built {{.Repository}}:{{.Tag}} and :latest ({{.Size}})'
