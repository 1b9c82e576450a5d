#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Measure the flake rate of the boot stages: run each of them N times
# (default 30) on the kernels, QEMU and perf that ci/test.sh built, and
# print a table of failures per stage. Builds are not repeated. A failed
# run keeps its logs in $WORK/flakes/STAGE-RUN/ and its last lines are
# shown. STAGES picks stages (default: all below); FUZZ_SECONDS sets the
# fuzzing time of the debug boot (default 20).
#
#   bash ci/flake-runs.sh [N]
set -uo pipefail
. "$(dirname "$0")/lib.sh"

runs=${1:-30}
fuzz=${FUZZ_SECONDS:-20}
stages=${STAGES:-"boot-series trbe-fault aux-remap trbe-errata trace-trbe trace-etr etr-share perf-sample perf-test perf-test-etr kselftest kselftest-etr boot-debug etr-nmi-debug kselftest-debug"}

# $1: stage; runs it once as ci/test.sh does
run_stage() {
	case $1 in
	boot-series)
		bash "$CI_DIR/boot.sh" series &&
		bash "$CI_DIR/check-aux-samples.sh" series &&
		bash "$CI_DIR/results.sh" flake --require-kunit --allow-skip "no CPU hotplug" \
			"$LOGS/boot-series.log" "$LOGS/aux-samples-series.log" ;;
	trbe-fault)
		bash "$CI_DIR/boot-trbe-fault.sh" series &&
		bash "$CI_DIR/results.sh" flake "$LOGS/boot-trbe-fault-series.log" ;;
	aux-remap)
		bash "$CI_DIR/boot-aux-remap.sh" series &&
		bash "$CI_DIR/results.sh" flake "$LOGS/boot-aux-remap-series.log" ;;
	trbe-errata) bash "$CI_DIR/boot-trbe-errata.sh" series ;;
	trace-trbe) bash "$CI_DIR/trace.sh" on ;;
	trace-etr) bash "$CI_DIR/trace.sh" etr ;;
	etr-share) bash "$CI_DIR/etr-share.sh" series ;;
	perf-sample) bash "$CI_DIR/perf-sample-test.sh" ;;
	perf-test) bash "$CI_DIR/perf-test.sh" series on ;;
	perf-test-etr) bash "$CI_DIR/perf-test.sh" series etr ;;
	kselftest) bash "$CI_DIR/kselftest.sh" series on ;;
	kselftest-etr) bash "$CI_DIR/kselftest.sh" series etr ;;
	kselftest-debug) bash "$CI_DIR/kselftest.sh" series-debug on ;;
	boot-debug)
		KERNEL_ARGS="cs_etm_fuzz=$fuzz" bash "$CI_DIR/boot.sh" series-debug &&
		bash "$CI_DIR/results.sh" flake --require-kunit "$LOGS/boot-series-debug.log" ;;
	etr-nmi-debug)
		bash "$CI_DIR/boot-etr-nmi.sh" series-debug &&
		bash "$CI_DIR/results.sh" flake "$LOGS/boot-etr-nmi-series-debug.log" ;;
	*) die "unknown stage $1" ;;
	esac
}

# ci/prove-tests-fail.sh leaves the perf of the series to be built again
for target in host arm64; do
	[ -x "$WORK/perf-$target/perf" ] || bash "$CI_DIR/build-perf.sh" "$target" ||
		die "cannot build perf ($target)"
done

declare -A failed
for stage in $stages; do
	failed[$stage]=0
done
for i in $(seq "$runs"); do
	for stage in $stages; do
		start=$SECONDS
		if run_stage "$stage" > "$LOGS/flake-$stage.out" 2>&1; then
			log "run $i/$runs $stage: ok ($((SECONDS - start))s)"
			continue
		fi
		failed[$stage]=$((failed[$stage] + 1))
		keep=$WORK/flakes/$stage-$i
		mkdir -p "$keep"
		cp "$LOGS"/*.log "$LOGS/flake-$stage.out" "$keep/" 2>/dev/null
		log "run $i/$runs $stage: FAILED ($((SECONDS - start))s), logs in $keep:"
		tail -5 "$LOGS/flake-$stage.out" | sed 's/^/    /'
	done
done
echo "=== flake rate: failed runs of $runs per boot stage"
bad=0
for stage in $stages; do
	printf '  %-12s %d/%d\n' "$stage" "${failed[$stage]}" "$runs"
	[ "${failed[$stage]}" -eq 0 ] || bad=1
done
[ $bad -eq 0 ]
