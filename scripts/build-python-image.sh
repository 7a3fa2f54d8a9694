#!/usr/bin/env bash
# Builds the import sandbox's Python image without any container registry: a minimal Debian
# bookworm root file system (debootstrap, from the Debian mirror apt already uses) with python3
# and python3-venv (pip comes from ensurepip inside each venv) and the CA bundle, imported with
# `docker import`. It stands in for python:3.12-slim on machines that cannot pull from Docker Hub:
# STUDIO_IMPORT_IMAGE=<this image>. Its Python is bookworm's 3.11, which the offline wheels suit.
# Usage: scripts/build-python-image.sh [IMAGE]   (default superstep-python:local)
# Skips the work when IMAGE exists already (REBUILD=1 forces it). Needs root, debootstrap, docker.
set -euo pipefail
. "$(dirname "$0")/debian-rootfs.sh"
IMAGE="${1:-superstep-python:local}"

if [ "${REBUILD:-0}" != 1 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "python image $IMAGE exists; skipping (REBUILD=1 rebuilds it)"
  exit 0
fi

mirror="$(debian_mirror)"

started=$(date +%s)
root="$(mktemp -d /tmp/superstep-python.XXXXXX)"
log="$(mktemp /tmp/superstep-python-debootstrap.XXXXXX.log)"
trap 'rm -rf "$root" "$log"' EXIT
echo "debootstrap bookworm with python3 from $mirror into $root"
# ca-certificates: pip and any HTTPS client in the sandbox need the CA bundle.
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bookworm "$root" "$mirror" >"$log" 2>&1 ||
  { tail -n 30 "$log"; exit 1; }

# Certificate authorities this host trusts beyond Debian's (a proxy in front of the package index,
# say) are trusted in the image too; pip reads the system bundle through REQUESTS_CA_BUNDLE.
extra_env=()
if host_cas_present; then
  copy_host_cas "$root"
  extra_env=(--change 'ENV REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt')
fi

trim_rootfs "$root"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' "${extra_env[@]}" \
  - "$IMAGE" >/dev/null
echo "python image $IMAGE built in $(($(date +%s) - started)) s ($(docker image inspect -f '{{.Size}}' "$IMAGE") bytes)"
