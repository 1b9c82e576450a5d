#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The AUX sample benchmark, not a test: boot a kernel in QEMU on one CPU
# and run tools/bench/aux-sample-bench, which times AUX samples against
# memcpy()/memset() and the workload slowdown of sampling. Prints the raw
# numbers, then the table and the summary line. Fails if the benchmark
# does not finish, checks no sample, or a sample is malformed or larger
# than asked, never on a time.
#
# Without an argument, applies and builds the series first, as ci/demo.sh
# does. With arguments, boots each $WORK/images/Image-$1 as it is, one
# after the other in the same run, for example the series and
# Image-snapshot-restarts-path (ci/negative/snapshot-restarts-path.patch,
# built by ci/prove-tests-fail.sh), to compare the fixed cost of a
# snapshot before and after the in-place restart.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

images=("$@")
if [ ${#images[@]} -eq 0 ]; then
	for step in install-deps fetch-base apply-series; do
		bash "$CI_DIR/$step.sh"
	done
	bash "$CI_DIR/build-kernel.sh" series series
	images=(series)
fi
bash "$CI_DIR/build-qemu.sh" "$WORK/qemu"
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/bench" bench

declare -a summaries=()
for image in "${images[@]}"; do
	start=$SECONDS
	# One vCPU: one TCG thread, nothing else of the guest runs beside it
	KUNIT=0 SMP=1 INITRAMFS=bench bash "$CI_DIR/boot.sh" "$image" "bench-$image"
	log "boot and benchmark of $image took $((SECONDS - start))s"
	out=$LOGS/boot-bench-$image.log
	summary=$(grep '^aux-sample-bench: summary:' "$out") ||
		die "the benchmark did not finish, see $out"
	echo "=== benchmark raw numbers ($image)"
	grep -E '^raw:' "$out"
	echo "=== benchmark ($image)"
	grep -E '^aux-sample-bench:' "$out"
	# No timing is checked, only what the samples hold: every sample read
	# must be well formed and no larger than its aux_sample_size, and there
	# must be samples to check
	checked=$(sed -n 's/.* \([0-9][0-9]*\) samples checked:.*/\1/p' <<< "$summary")
	[ "${checked:-0}" -gt 0 ] || die "the benchmark checked no sample, see $out"
	case "$summary" in
	*" 0 larger than asked "*" 0 malformed,"*) ;;
	*) die "a sample was larger than asked or malformed, see $out" ;;
	esac
	summaries+=("$image: ${summary#aux-sample-bench: summary: }")
done
echo "=== benchmark summaries, in the same run"
printf '%s\n' "${summaries[@]}"
