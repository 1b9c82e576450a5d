#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the CI needs from the machine's own Debian archive.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# meson ... patch: QEMU's build (ci/build-qemu.sh), which runs in the
# background of other stages, so it must not need to install anything.
# g++-aarch64-linux-gnu: the static libstdc++ that the arm64 perf's
# CoreSight trace decoder (OpenCSD, in C++) links with
PACKAGES=(
	make gcc git perl python3 xz-utils cpio bc bison flex libssl-dev libelf-dev
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross ccache
	device-tree-compiler rsync
	b4 libopencsd-dev
	meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev pkg-config
	python3-venv patch
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	log "all ${#PACKAGES[@]} packages installed"
	exit 0
fi
log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -qq update
apt-get -qq install -y --no-install-recommends "${missing[@]}" >/dev/null
