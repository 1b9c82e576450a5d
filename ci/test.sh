#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The whole test pipeline, from a fresh machine: fetch the pinned tree,
# apply the series, check every patch and MAINTAINERS-snippet, make the
# mailing list mboxes (one per posting) and take them with b4 am, build
# the kernel after each patch, compare sparse/W=1 warnings against the
# base tree, check what the NMI paths of cs_etm call, boot the series in QEMU with KUnit and the boot tests (also
# in a PROVE_LOCKING, DEBUG_ATOMIC_SLEEP and KASAN build, with the fuzzer
# of tools/fuzz),
# decode the AUX samples of the boot, boot again with TRBE faults
# injected and again on TRBEs with errata, record and decode trace on
# both CoreSight paths of the model,
# test who may share the ETR of the model through perf (tools/etr-share),
# record AUX samples with the series' perf in QEMU and decode them on the
# host, run the series' perf test in QEMU with perf test and its kselftests
# with run_kselftest.sh, log the numbers of the AUX sample benchmark, and show that the
# tests fail where the series is not. The last line is "N passed,
# N failed" over the KUnit cases, boot tests, kselftests, sample
# decoding, trace checks and perf tests.
#
# BISECT=0 builds the whole series only, not each patch. The debug boot
# also runs the fuzzer for FUZZ_SECONDS (default 90), with FUZZ_SEED if
# set (the fuzzer prints the seed it used).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

total=$SECONDS
declare -a TIMES=()
# The stages of this run, for the counter: one "stage NAME" line each
STAGES=$(grep -c '^[[:space:]]*stage ' "${BASH_SOURCE[0]}")
STAGE=0

# Run stage $1, the command $2..., with its output also in
# $LOGS/stage-$1.out. On a failure, the last line names the stage and its
# log: the log that its last error (die's "ERROR: ... see FILE") points
# to, or its output if that error names none (an earlier error may be an
# expected one, of prove-tests-fail); without an error, the last log that
# its output points to, else its output.
stage() {
	local name=$1 start=$SECONDS out=$LOGS/stage-$1.out rc=0 see
	shift
	STAGE=$((STAGE + 1))
	echo "=== stage $STAGE/$STAGES $name (elapsed $((SECONDS - total))s)"
	# In this shell, not a pipeline's subshell: wait_for_qemu waits for a
	# child of it
	"$@" > >(tee "$out") 2>&1 || rc=$?
	wait $!
	if [ $rc -ne 0 ]; then
		echo "=== stage $name FAILED after $((SECONDS - start))s"
		printf '%s\n' "${TIMES[@]}"
		if grep -q 'ERROR: ' "$out"; then
			see=$(grep 'ERROR: ' "$out" | tail -n 1 | grep -o 'see /[^ ,]*' |
			      tail -n 1 | cut -c5-) || true
		else
			see=$(grep -o 'see /[^ ,]*' "$out" | tail -n 1 | cut -c5-) || true
		fi
		echo "first failed stage: $name, see ${see:-$out}"
		exit 1
	fi
	TIMES+=("$(printf '%-18s %5ds' "$name" $((SECONDS - start)))")
	echo "=== stage $name: $((SECONDS - start))s"
}

run() { bash "$CI_DIR/$1.sh" "${@:2}"; }

# The counts of the rows, ci/results.sh: none left from an earlier run
rm -rf "$LOGS/counts"
stage deps run install-deps
stage reader-tests run test-ktap-results
# QEMU builds in the background, at the lowest CPU and I/O priority,
# until the first boot needs it: it takes the CPU time that the stages
# up to there leave idle (git am, checkpatch, b4, sparse and the linking
# of each bisect build use one core). Its own log says how long it
# built. Job control puts it in a process group of its own, which the
# trap can end; not in a session of its own (setsid), whose scheduler
# autogroup would get an equal share of the CPU whatever its nice value.
set -m
nice -n 19 ionice -c 3 bash "$CI_DIR/build-qemu.sh" "$WORK/qemu" > "$LOGS/build-qemu.log" 2>&1 &
qemu_pid=$!
set +m
trap '[ -z "$qemu_pid" ] || kill -- -"$qemu_pid" 2>/dev/null || true' EXIT
wait_for_qemu() {
	local rc=0

	wait "$qemu_pid" || rc=$?
	qemu_pid=
	if [ $rc -ne 0 ]; then
		tail -20 "$LOGS/build-qemu.log"
		return 1
	fi
	grep -E '^build-qemu: (build took|done)' "$LOGS/build-qemu.log"
}
stage fetch-base run fetch-base
# Before the bisect, which builds the arm64 perf after each perf patch
stage fetch-arm64 run fetch-arm64-debs
stage apply-series run apply-series
stage checkpatch run check-patches
stage maintainers run check-maintainers
stage mbox run make-mbox
stage b4-am run check-mbox
stage build-base run build-kernel base base
stage warnings-base run check-warnings base
# One stage line either way, for the count of the stages
if [ "${BISECT:-1}" = 1 ]; then
	build_series=(bisect run bisect)
else
	build_series=(build-series run build-kernel series series)
fi
stage "${build_series[@]}"
stage warnings-series run check-warnings series
stage nmi-calls run check-nmi-calls series
stage initramfs run make-initramfs
# Before trbe-errata, which runs aux_sample_trbe on TRBEs with errata
stage build-kselftests run build-kselftests series
stage kmsg-splats run test-kmsg-splats
stage build-qemu wait_for_qemu
stage boot-series run boot series
stage aux-samples run check-aux-samples series
stage kunit-parse run kunit-parse series
stage trbe-fault run boot-trbe-fault series
stage aux-remap run boot-aux-remap series
stage trbe-errata run boot-trbe-errata series
stage trace-trbe run trace on
stage trace-etr run trace etr
stage etr-share run etr-share series
stage build-perf-host run build-perf host
stage build-perf-arm64 run build-perf arm64
stage perf-sample run perf-sample-test
stage perf-sample-base run perf-sample-test base-kernel
stage perf-test run perf-test series on
stage perf-test-etr run perf-test series etr
stage kselftest run kselftest series on
stage kselftest-etr run kselftest series etr
stage build-debug env KOUT="$WORK/kernel-debug" KCONFIG_EXTRA="$CI_DIR/debug.config" \
	bash "$CI_DIR/build-kernel.sh" series series-debug
# A copy of the debug tree, CoreSight as modules: modpost checks the exports
stage build-modules run build-modules
stage boot-debug env KERNEL_ARGS="cs_etm_fuzz=${FUZZ_SECONDS:-90}${FUZZ_SEED:+ cs_etm_fuzz_seed=$FUZZ_SEED}" \
	bash "$CI_DIR/boot.sh" series-debug
stage aux-samples-debug run check-aux-samples series-debug
stage trbe-fault-debug run boot-trbe-fault series-debug
stage aux-remap-debug run boot-aux-remap series-debug
stage etr-nmi-debug run boot-etr-nmi series-debug
stage kselftest-debug run kselftest series-debug on
# The debug boot's tests: row debug of ci/results.manifest
stage debug-results run results --row debug
stage prove-tests-fail run prove-tests-fail
# After prove-tests-fail, which builds Image-snapshot-restarts-path: the
# fixed cost of a snapshot with the sink restarted in place and, in the
# same run, with the whole path restarted (the design before v3)
stage bench run bench series snapshot-restarts-path

. "$WORK/base.env"
echo "=== summary"
[ "$BASE_USED_VERSION" = "$BASE_VERSION" ] ||
	echo "BASE DRIFT: pinned $BASE_VERSION unavailable, using $BASE_USED_VERSION ($BASE_USED_SHA256)"
echo "base: $BASE_PACKAGE $BASE_USED_VERSION sha256 $BASE_USED_SHA256 tree $(git -C "$KSRC" rev-parse base^{tree})"
echo "series: $(git -C "$KSRC" rev-list --count base..series) patches"
printf '%s\n' "${TIMES[@]}"
echo "total: $((SECONDS - total))s"

# The rows and what each counts are those of ci/results.manifest: each
# test once over the rows of the total; the debug kernel, the base kernel
# and the QEMU model have their own lines, not in the total.
echo "=== results (per stage; the last line adds up the series' tests)"
# A failure of a row of the total fails the run, and so does a reader
# that crashed or hung on any row (exit 2)
rows=$(run results --rows)
total_rows=" $(run results --rows total | tr '\n' ' ') "
crashed='' first_row=''
row() {
	local rc=0

	run results --row "$1" || rc=$?
	[ $rc -le 1 ] || crashed+=" $1"
	if [ -z "$first_row" ] && { [ $rc -gt 1 ] || { [ $rc -eq 1 ] && [[ $total_rows == *" $1 "* ]]; }; }; then
		first_row=$1
	fi
}
for name in $rows; do
	row "$name"
done
rc=0
run results --total || rc=1
[ -z "$crashed" ] || { echo "the result reader crashed or hung on:$crashed"; rc=1; }
if [ -n "$first_row" ]; then
	echo "first failed stage: results row $first_row, see $(run results --log "$first_row")"
elif [ $rc -ne 0 ]; then
	echo "first failed stage: results total, see the lines above (counts in $LOGS/counts)"
fi
[ $rc -eq 0 ]
