# Shared by the registry-free image builds (build-base-image.sh, build-python-image.sh): where to
# get Debian from, the host's own certificate authorities, and what a running image does not need.
# Sourced, not run.

# The mirror apt uses here (deb822 "URIs:" or one-line "deb" entries); Debian's own otherwise.
debian_mirror() {
  local mirror="${DEBIAN_MIRROR:-}"
  if [ -z "$mirror" ]; then
    mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
      grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n 1 | tr -d ' ' || true)"
    mirror="${mirror:-http://deb.debian.org/debian}"
  fi
  echo "$mirror"
}

# Whether this host trusts certificate authorities beyond Debian's (a proxy in front of the package
# indexes, say).
host_cas_present() {
  compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null
}

# Those authorities, trusted in the root file system ROOT too.
copy_host_cas() {
  local root="$1"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1
}

# Nothing a running image needs: package lists, caches, docs.
trim_rootfs() {
  local root="$1"
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/tmp/*
}
