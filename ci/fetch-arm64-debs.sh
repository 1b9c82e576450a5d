#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The arm64 packages of the machine's Debian release that the guest's
# perf needs, unpacked into $WORK/arm64-root: busybox, the shell and tools
# of perf's shell tests (ci/perf-test.sh), coreutils' timeout and the C
# library it needs, for the kselftest runner, which kills a test with
# "timeout --foreground" that busybox lacks (ci/kselftest.sh), and the
# static libraries that
# ci/build-perf.sh links into the arm64 perf, for its CoreSight trace
# decoder (OpenCSD) and ELF symbols (libelf, which needs zlib and zstd).
# The .deb files are kept in $CACHE/arm64-debs; a new version in the
# archive is fetched next to them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PACKAGES=(busybox-static libopencsd-dev libelf-dev zlib1g-dev libzstd-dev coreutils libc6)
debs=$CACHE/arm64-debs
root=$WORK/arm64-root
mkdir -p "$debs"

arm64_apt
rm -rf "$root"
mkdir -p "$root"
for p in "${PACKAGES[@]}"; do
	version=$(apt-cache "${ARM64_APT[@]}" policy "$p:arm64" |
		  awk '/Candidate:/ {print $2}')
	[ -n "$version" ] && [ "$version" != "(none)" ] || die "no arm64 package $p"
	# The file name has the version with its epoch as %3a
	deb=$(ls "$debs/${p}_${version/:/%3a}_arm64.deb" 2>/dev/null || true)
	if [ -z "$deb" ]; then
		(cd "$debs" && apt-get "${ARM64_APT[@]}" -qq download "$p:arm64=$version") ||
			die "cannot download $p:arm64 $version"
		deb=$debs/${p}_${version/:/%3a}_arm64.deb
	fi
	[ -f "$deb" ] || die "no $deb after the download"
	dpkg -x "$deb" "$root"
	log "$p $version"
done
