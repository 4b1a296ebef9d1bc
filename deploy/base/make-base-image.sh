#!/bin/sh
# Makes the base images the Dockerfile and deploy/*/Containerfile build FROM, without any registry:
# a minimal Debian root made by debootstrap from Debian's own mirror, with Node.js from that
# release's packages, imported into podman as
#   localhost/debian-node:<suite>        nodejs and ca-certificates (runtime stages)
#   localhost/debian-node:<suite>-build  the same and npm (build stages)
# npm and its node-* packages are half the size of the image, and a running server needs none of it.
#
# Flora needs Node >= 20. Debian 12 (bookworm) ships nodejs 18, too old; Debian 13 (trixie) ships
# nodejs 20.19, hence the default suite. Run as root (debootstrap chroots):
#
#   deploy/base/make-base-image.sh [suite] [mirror]
#
# Needs debootstrap and podman (apt-get install -y debootstrap podman).
set -eu

SUITE=${1:-trixie}
MIRROR=${2:-http://deb.debian.org/debian}
TAG=localhost/debian-node:$SUITE
ROOTFS=$(mktemp -d /tmp/debian-node-rootfs.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT

in_root() { chroot "$ROOTFS" sh -c "$1"; }

# Imports the root as it stands, without apt lists or caches: a layer that needs a package runs
# apt-get update itself.
import_as() {
  in_root 'apt-get clean'
  rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/tmp/* "$ROOTFS"/root/.npm
  tar -C "$ROOTFS" --numeric-owner -c . | podman import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' - "$1"
}

install() {
  in_root "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $*"
}

# minbase: essential packages and apt only. Node comes from apt inside the new root rather than
# debootstrap's --include, whose resolver fails on npm's hundreds of node-* dependencies.
debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR"
install nodejs ca-certificates

major=$(in_root 'node -p "process.versions.node.split(\".\")[0]"')
if [ "$major" -lt 20 ]; then
  echo "make-base-image: $SUITE ships Node $(in_root 'node --version'); Flora needs 20 or later" >&2
  exit 1
fi
import_as "$TAG"

install npm
import_as "$TAG-build"
echo "make-base-image: $TAG and $TAG-build (node $(in_root 'node --version'), npm $(in_root 'npm --version'))"
