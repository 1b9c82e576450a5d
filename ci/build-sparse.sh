#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build sparse from Debian sid's source package: bookworm's 0.6.4 fails
# the kernel's checker-valid.sh (no __typeof_unqual__), and the kernel
# build then silently skips C=2. Prints the path of the sparse binary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$CACHE/sparse
bin=$dir/sparse-${SPARSE_VERSION/\~/-}/sparse
tarball=$dir/sparse_${SPARSE_VERSION}.orig.tar.gz
mkdir -p "$dir"

if [ ! -x "$bin" ]; then
	if [ ! -f "$tarball" ]; then
		sid_apt
		(cd "$dir" && apt-get "${SID_APT[@]}" -qq source --download-only \
			"sparse=$SPARSE_VERSION-2" >&2) || die "cannot fetch sparse $SPARSE_VERSION"
	fi
	echo "$SPARSE_SHA256  $tarball" | sha256sum -c --quiet >&2 ||
		die "$tarball does not match the pinned sha256"
	tar -xzf "$tarball" -C "$dir"
	make -s -C "$(dirname "$bin")" -j"$JOBS" HAVE_LLVM=no HAVE_GTK=no \
		HAVE_SQLITE=no sparse >&2
fi
[ "$("$KSRC/scripts/checker-valid.sh" "$bin" -m64)" = 1 ] ||
	die "$bin cannot check this kernel"
echo "$bin"
