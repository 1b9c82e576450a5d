#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build qemu-system-aarch64 7.2 with the CoreSight model patches.
#
# usage: bash ci/build-qemu.sh OUTDIR
#
# Fetches Debian bookworm's qemu 7.2+dfsg source (cached in
# ${CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/coresight-ci}/qemu), applies the patches
# listed in tools/qemu/series, builds it (with ccache when available) and
# copies the binary to OUTDIR/qemu-system-aarch64.  The patched tree and the
# build directory are kept in the cache: unchanged files keep their mtime,
# so a rerun only rebuilds what the patches changed.

set -euo pipefail

QEMU_VER=7.2+dfsg
QEMU_DEB_VER=1:7.2+dfsg-7+deb12u18
QEMU_SHA256=91aca71520040edc40b8d437aa3004dae614f58e286cf653ee8996c07af2962f
ORIG=qemu_${QEMU_VER}.orig.tar.xz

die() { echo "build-qemu: error: $*" >&2; exit 1; }
say() { echo "build-qemu: $*"; }

[ $# -eq 1 ] || die "usage: $0 OUTDIR"
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
PATCHDIR=$TOP/tools/qemu
# The cache directory of ci/lib.sh
CI_CACHE=${CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/coresight-ci}
CACHE=$CI_CACHE/qemu
export CCACHE_DIR=${CCACHE_DIR:-$CI_CACHE/ccache}
mkdir -p "$CACHE" "$CCACHE_DIR"

deps="meson ninja-build gcc libglib2.0-dev libpixman-1-dev libfdt-dev
      pkg-config python3-venv xz-utils rsync patch ccache"
missing=
for p in $deps; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q ' installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing build dependencies: $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y $missing || { apt-get update && apt-get install -y $missing; } ||
		die "cannot install $missing"
fi

sha_ok() { echo "$QEMU_SHA256  $CACHE/$ORIG" | sha256sum -c --status; }

if [ -f "$CACHE/$ORIG" ] && sha_ok; then
	say "using cached $CACHE/$ORIG"
else
	say "fetching qemu=$QEMU_DEB_VER source from the Debian archive"
	A=$CACHE/apt
	mkdir -p "$A/lists/partial"
	URI=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$URI" ] || URI=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list)
	[ -n "$URI" ] || die "no Debian archive URI in the apt sources"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $URI bookworm main" \
		> "$A/sources.list"
	opts=(-o Dir::Etc::sourcelist="$A/sources.list"
	      -o Dir::Etc::sourceparts=/dev/null
	      -o Dir::State::Lists="$A/lists")
	apt-get "${opts[@]}" update
	(cd "$CACHE" && apt-get "${opts[@]}" source --download-only "qemu=$QEMU_DEB_VER")
	sha_ok || die "sha256 mismatch for $ORIG"
fi

# Patched tree: rebuilt in a scratch dir, then synced by content into the
# cached tree so that unchanged files keep their timestamps.
[ -f "$PATCHDIR/series" ] || die "missing $PATCHDIR/series"
patches() { sed -e 's/#.*//' -e '/^\s*$/d' "$PATCHDIR/series"; }
for p in $(patches); do
	[ -f "$PATCHDIR/$p" ] || die "$p is listed in series but missing"
done
# The devices to build (configs/devices/aarch64-softmmu/coresight-ci.mak)
DEVICES=coresight-ci.mak
stamp=$( (echo "$QEMU_SHA256"; cd "$PATCHDIR" && sha256sum "$DEVICES" &&
	  patches | while read -r p; do sha256sum "$p"; done) |
	 sha256sum | cut -d' ' -f1)
SRC=$CACHE/src
if [ "$(cat "$CACHE/src.stamp" 2>/dev/null)" != "$stamp" ]; then
	say "preparing patched tree in $SRC"
	rm -rf "$CACHE/src.new"
	mkdir -p "$CACHE/src.new"
	tar -C "$CACHE/src.new" --strip-components=1 -xJf "$CACHE/$ORIG"
	# The dfsg tarball carries no firmware blobs.
	sed -i 's/^\( *unpack_edk2_blobs =\).*/\1 false/' \
		"$CACHE/src.new/meson.build"
	patches | while read -r p; do
		say "applying $p"
		patch -d "$CACHE/src.new" -p1 -s -N < "$PATCHDIR/$p" ||
			die "$p does not apply"
	done
	cp "$PATCHDIR/$DEVICES" "$CACHE/src.new/configs/devices/aarch64-softmmu/"
	mkdir -p "$SRC"
	rsync -rlc --delete --exclude=/build "$CACHE/src.new/" "$SRC/"
	rm -rf "$CACHE/src.new"
	echo "$stamp" > "$CACHE/src.stamp"
else
	say "patched tree $SRC is up to date"
fi

# ccache's masquerade directory makes configure's "cc" go through ccache.
if [ -d /usr/lib/ccache ]; then
	export PATH=/usr/lib/ccache:$PATH
	say "using ccache, CCACHE_DIR=$CCACHE_DIR"
fi

BUILD=$SRC/build
config=(--target-list=aarch64-softmmu --without-default-features
	--enable-fdt=system --disable-docs --disable-install-blobs
	--with-devices-aarch64="${DEVICES%.mak}")
# A build directory configured with other options starts again
if [ "$(cat "$BUILD/configure.args" 2>/dev/null)" != "${config[*]}" ]; then
	rm -rf "$BUILD"
fi
if [ ! -f "$BUILD/build.ninja" ]; then
	say "configuring in $BUILD"
	mkdir -p "$BUILD"
	(cd "$BUILD" && ../configure "${config[@]}") ||
		{ rm -f "$BUILD/build.ninja"; die "configure failed"; }
	echo "${config[*]}" > "$BUILD/configure.args"
fi

say "building qemu-system-aarch64"
start=$(date +%s)
ninja -C "$BUILD" -j"$(nproc)" qemu-system-aarch64
say "build took $(( $(date +%s) - start )) s"

install -m 755 "$BUILD/qemu-system-aarch64" "$OUT/qemu-system-aarch64"
"$OUT/qemu-system-aarch64" --version | head -1
say "done: $OUT/qemu-system-aarch64"
