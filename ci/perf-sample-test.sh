#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf with AUX area samples from cs_etm, end to end. Boots the series
# with the static arm64 perf of ci/build-perf.sh in the initramfs, where
# tools/perf-aux-sample runs perf record --aux-sample on the TRBE of the
# QEMU model and writes the perf.data files to the console; then checks
# them with the host's perf and its CoreSight decoder
# (ci/check-perf-sample.py: perf evlist, perf report -D, perf script,
# perf report). The KTAP results go to $LOGS/perf-sample.ktap.
#
# Modes:
#   base-kernel           boot the base kernel, which cannot take AUX
#                         samples of cs_etm: perf record must say so
#                         ($LOGS/perf-sample-base.ktap)
#   without-perf-patches  use perf as it is before the first tools/perf
#                         patch of the series, built here, for
#                         ci/prove-tests-fail.sh: its tests must fail
#                         ($LOGS/perf-sample-noperf.ktap)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-}
perf_host=$WORK/perf-host
perf_arm64=$WORK/perf-arm64
kernel=series
name=perf-sample
check=()

if [ "$mode" = base-kernel ]; then
	kernel=base
	name=perf-sample-base
	check=(--refused)
elif [ "$mode" = without-perf-patches ]; then
	name=perf-sample-noperf
	first=$(git -C "$KSRC" rev-list base..series -- tools/perf | tail -n 1)
	[ -n "$first" ] || die "the series has no tools/perf patch"
	log "perf before $(git -C "$KSRC" log -1 --format='"%s"' "$first")"
	perf_host=$WORK/perf-host-noperf
	perf_arm64=$WORK/perf-arm64-noperf
	# Built in the tree and output directories of the series' perf, where
	# make and ccache reuse all that the perf patches do not change. The
	# series' perf is gone then: ci/build-perf.sh builds it again.
	restore() {
		git -C "$KSRC" checkout -q series
		rm -f "$WORK/perf-host/perf" "$WORK/perf-arm64/perf"
	}
	trap restore EXIT
	git -C "$KSRC" checkout -q "$first^"
	for target in host arm64; do
		bash "$CI_DIR/build-perf.sh" "$target"
		mkdir -p "$WORK/perf-$target-noperf"
		cp "$WORK/perf-$target/perf" "$WORK/perf-$target-noperf/perf"
	done
	restore
	trap - EXIT
elif [ -n "$mode" ]; then
	die "usage: perf-sample-test.sh [base-kernel|without-perf-patches]"
fi
for p in "$perf_host/perf" "$perf_arm64/perf"; do
	[ -x "$p" ] || die "no $p: run ci/build-perf.sh host and arm64 first"
done

# The boot test, with perf in a second cpio archive: the kernel unpacks
# each of the archives that make up the initramfs
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/perf-aux-sample" "$name"
bin=$WORK/$name-bin
rm -rf "$bin"
mkdir -p "$bin/usr/bin"
"${CROSS_COMPILE}strip" -o "$bin/usr/bin/perf" "$perf_arm64/perf"
initramfs_append "$name" "$bin"

KUNIT=0 INITRAMFS=$name bash "$CI_DIR/boot.sh" "$kernel" "$name"

# The workload's binary is in the initramfs tree, for the symbols
data=$WORK/$name-data
rm -rf "$data"
mkdir -p "$data"
rc=0
bounded 900 "check-perf-sample.py on $LOGS/boot-$name.log" \
	python3 "$CI_DIR/check-perf-sample.py" "${check[@]}" "$perf_host/perf" "$WORK/$name" \
	"$LOGS/boot-$name.log" "$data" > "$LOGS/$name.ktap" || rc=$?
cat "$LOGS/$name.ktap"
log "perf.data files and their perf script output in $data"

# Without the perf patches, ci/negative/perf-before-perf-patches.expect
# lists the tests that must fail
[ "$mode" != without-perf-patches ] || exit 0
bounded 300 "ktap-results.py on $LOGS/$name.ktap" python3 "$CI_DIR/ktap-results.py" "$LOGS/$name.ktap"
[ $rc -eq 0 ] || die "perf and AUX samples from cs_etm on the $kernel kernel: see $LOGS/$name.ktap"
