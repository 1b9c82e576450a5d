#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the C programs of directory $1 (default: tools/tests, the boot
# tests) as static aarch64 binaries and pack them, with the static init of
# tools/initramfs that runs them all, into $WORK/$2.cpio.gz (default:
# initramfs). The fuzzer of tools/fuzz goes to /fuzz: init runs it only
# when the kernel command line asks (cs_etm_fuzz=SECONDS).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src_dir=${1:-$TOP/tools/tests}
name=${2:-initramfs}
root=$WORK/$name
rm -rf "$root"
mkdir -p "$root"/{dev,proc,sys,tests,fuzz}

# The uapi headers of the kernel under test: the toolchain's are older
kmake -s headers
uapi=$KOUT/usr/include

# $1: source, $2: directory in the initramfs
build() {
	"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror -pthread \
		-isystem "$uapi" -I"$TOP/tools/tests" \
		-o "$root/$2/$(basename "$1" .c)" "$1" ||
		die "cannot build $1"
	log "built $(basename "$1")"
}

for src in "$src_dir"/*.c; do
	build "$src" tests
done
for src in "$TOP"/tools/fuzz/*.c; do
	build "$src" fuzz
done

# The console init writes to; the kernel opens it before running init
mknod -m 600 "$root/dev/console" c 5 1

"${CROSS_COMPILE}gcc" -static -O2 -Wall -Wextra -Werror -o "$root/init" \
	"$TOP/tools/initramfs/init.c" || die "cannot build init"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) > "$WORK/$name.cpio.gz"
log "$name: $(du -h "$WORK/$name.cpio.gz" | cut -f1)"
