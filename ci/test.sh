#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The whole test pipeline, from a fresh machine: fetch the pinned tree,
# apply the series, check every patch, build the kernel after each patch,
# compare sparse/W=1 warnings against the base tree, boot the series in
# QEMU with KUnit and the boot tests (also in a PROVE_LOCKING and
# DEBUG_ATOMIC_SLEEP build), log the numbers of the AUX sample benchmark,
# and show that the tests fail where the series is not. The last line is
# "N passed, N failed" over the KUnit cases and boot tests of the series
# boot.
#
# BISECT=0 builds the whole series only, not each patch.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

declare -a TIMES=()

stage() {
	local name=$1 start=$SECONDS
	shift
	echo "=== stage $name"
	if ! "$@"; then
		echo "=== stage $name FAILED after $((SECONDS - start))s"
		printf '%s\n' "${TIMES[@]}"
		exit 1
	fi
	TIMES+=("$(printf '%-18s %5ds' "$name" $((SECONDS - start)))")
	echo "=== stage $name: $((SECONDS - start))s"
}

run() { bash "$CI_DIR/$1.sh" "${@:2}"; }

total=$SECONDS
stage deps run install-deps
stage build-qemu run build-qemu "$WORK/qemu"
stage fetch-base run fetch-base
stage apply-series run apply-series
stage checkpatch run check-patches
stage build-base run build-kernel base base
stage warnings-base run check-warnings base
if [ "${BISECT:-1}" = 1 ]; then
	stage bisect run bisect
else
	stage build-series run build-kernel series series
fi
stage warnings-series run check-warnings series
stage initramfs run make-initramfs
stage boot-series run boot series
stage bench run bench series
stage build-debug env KOUT="$WORK/kernel-debug" KCONFIG_EXTRA="$CI_DIR/debug.config" \
	bash "$CI_DIR/build-kernel.sh" series series-debug
stage boot-debug run boot series-debug
stage debug-results python3 "$CI_DIR/ktap-results.py" "$LOGS/boot-series-debug.log"
stage prove-tests-fail run prove-tests-fail

. "$WORK/base.env"
echo "=== summary"
[ "$BASE_USED_VERSION" = "$BASE_VERSION" ] ||
	echo "BASE DRIFT: pinned $BASE_VERSION unavailable, using $BASE_USED_VERSION ($BASE_USED_SHA256)"
echo "base: $BASE_PACKAGE $BASE_USED_VERSION sha256 $BASE_USED_SHA256 tree $(git -C "$KSRC" rev-parse base^{tree})"
echo "series: $(git -C "$KSRC" rev-list --count base..series) patches"
printf '%s\n' "${TIMES[@]}"
echo "total: $((SECONDS - total))s"
python3 "$CI_DIR/ktap-results.py" "$LOGS/boot-series.log"
