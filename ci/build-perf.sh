#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build perf, for perf record --aux-sample in the QEMU boot and for
# perf script/report on the host (ci/perf-sample-test.sh):
#   host   x86_64 perf with the CoreSight trace decoder (libopencsd)
#   arm64  static aarch64 perf with the CoreSight trace decoder and ELF
#          symbols, linked with the arm64 libraries that
#          ci/fetch-arm64-debs.sh unpacks into $WORK/arm64-root, for
#          perf's own test in the boot (ci/perf-test.sh)
# from the kernel tree as it is checked out in $KSRC, or from the perf
# sources in $2, into $WORK/perf-TARGET, or $3.
#
# Both leave out every feature that needs a library the CI does not
# install. The compilers go through ccache, and the output directory
# stays: a rebuild after a change to tools/perf is incremental. The
# archives are made with gcc-ar: plain ar loads every plugin in
# /usr/lib/bfd-plugins, and LLVM 14's (llvm-14-linker-tools, on some
# machines) aborts on perf's objects with "LLVM ERROR: Invalid encoding".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

target=${1:?usage: build-perf.sh host|arm64 [SRCDIR OUTDIR]}
src=${2:-$KSRC}
out=${3:-$WORK/perf-$target}
build_log=$LOGS/build-$(basename "$out").log

# What perf would otherwise detect and link where the library is there
NO_FEATURES=(
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBTRACEEVENT=1 NO_JEVENTS=1
	NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_LIBDW=1 NO_LIBUNWIND=1 NO_SLANG=1
	NO_LIBNUMA=1 NO_BABELTRACE2=1 NO_CAPSTONE=1 NO_LIBPFM4=1
	NO_LIBDEBUGINFOD=1 NO_JVMTI=1 NO_LZMA=1
	NO_LIBLLVM=1 NO_SDT=1 NO_AIO=1 NO_LIBCAP=1 NO_DEMANGLE=1
	NO_SHELLCHECK=1 NO_RUST=1
)
ccache=
command -v ccache >/dev/null && ccache="ccache "

case $target in
host)
	# lib.sh exports the kernel's cross settings: not for this build
	vars=(-u ARCH -u CROSS_COMPILE)
	args=(CORESIGHT=1 NO_ZLIB=1 NO_LIBZSTD=1
	      CC="${ccache}gcc" HOSTCC="${ccache}gcc" AR=gcc-ar)
	;;
arm64)
	root=$WORK/arm64-root
	[ -f "$root/usr/lib/aarch64-linux-gnu/libopencsd.a" ] ||
		die "no arm64 libraries in $root: run ci/fetch-arm64-debs.sh first"
	vars=()
	# OpenCSD is C++: perf adds -lstdc++ to a static link
	args=(ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" CORESIGHT=1
	      CSINCLUDES="$root/usr/include" CSLIBS="$root/usr/lib/aarch64-linux-gnu"
	      EXTRA_CFLAGS="-I$root/usr/include"
	      LDFLAGS="-static -L$root/usr/lib/aarch64-linux-gnu"
	      CC="${ccache}${CROSS_COMPILE}gcc" HOSTCC="${ccache}gcc"
	      AR="${CROSS_COMPILE}gcc-ar")
	;;
*)
	die "unknown target $target: host or arm64"
	;;
esac

mkdir -p "$out"
log "building $target perf from $src into $out"
start=$SECONDS
# Only the perf binary: "all" also links shared objects, which -static cannot
if ! env "${vars[@]}" make -C "$src/tools/perf" O="$out" -j"$JOBS" \
		"${NO_FEATURES[@]}" "${args[@]}" WERROR=1 perf > "$build_log" 2>&1; then
	tail -40 "$build_log" >&2
	die "perf ($target) build failed, see $build_log"
fi
log "$target perf built in $((SECONDS - start))s: $out/perf"
if [ "$target" = host ]; then
	"$out/perf" version --build-options | grep -q 'libopencsd: \[ on' ||
		die "host perf was built without libopencsd"
else
	# It does not run here: its symbols say what it was built with
	syms=$("${CROSS_COMPILE}nm" "$out/perf")
	grep -q ' cs_etm_decoder__new$' <<< "$syms" || die "arm64 perf was built without libopencsd"
	grep -q ' elf_begin$' <<< "$syms" || die "arm64 perf was built without libelf"
fi
