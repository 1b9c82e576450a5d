#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build and install the series' kselftests (tools/testing/selftests/
# coresight) of the tree at git ref $1 (default: series) with the
# selftests build system, as a lab does, cross-compiled for arm64 and
# linked statically for the initramfs: $WORK/kselftest-$1 holds
# run_kselftest.sh, kselftest-list.txt and the tests. Also the bisect's
# build of a patch that changes them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ref=${1:-series}
dest=$WORK/kselftest-$ref
out=$WORK/kselftest-out

git -C "$KSRC" checkout -q "$ref"
[ -d "$KSRC/tools/testing/selftests/coresight" ] ||
	die "$ref has no tools/testing/selftests/coresight"
# The uapi headers of the tree, which the tests include (KHDR_INCLUDES),
# are kept between builds: make updates what a patch changed
rm -rf "$dest" "$out/kselftest"
mkdir -p "$out"
make -C "$KSRC" O="$out" -s headers
make -C "$KSRC/tools/testing/selftests" O="$out" TARGETS=coresight \
	LDFLAGS=-static INSTALL_PATH="$dest" install > "$LOGS/build-kselftest-$ref.log" 2>&1 ||
	{ cat "$LOGS/build-kselftest-$ref.log"; die "the kselftests of $ref do not build"; }
! grep -q "warning:" "$LOGS/build-kselftest-$ref.log" ||
	{ grep "warning:" "$LOGS/build-kselftest-$ref.log"; die "the kselftests of $ref build with warnings"; }
grep -q '^coresight:' "$dest/kselftest-list.txt" ||
	die "kselftest-list.txt of $ref lists no coresight test"
log "installed $(grep -c '^coresight:' "$dest/kselftest-list.txt") coresight test(s) in $dest"
