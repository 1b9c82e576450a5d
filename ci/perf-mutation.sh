#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The host perf of the series with the mutation ci/negative/$1.patch (of
# tools/perf), built incrementally in a copy of the series' perf build,
# checks the perf.data files of the perf-sample boot again, as
# ci/perf-sample-test.sh does: $LOGS/perf-sample-$1.ktap, for
# ci/prove-tests-fail.sh. The tree is clean again afterwards.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:?usage: perf-mutation.sh NAME}
out=$WORK/perf-host-negative
boot_log=$LOGS/boot-perf-sample.log
[ -f "$boot_log" ] || die "no $boot_log: run ci/perf-sample-test.sh first"
[ -x "$WORK/perf-host/perf" ] || die "no $WORK/perf-host/perf: run ci/build-perf.sh host first"

[ -d "$out" ] || cp -a "$WORK/perf-host" "$out"
with_mutation "$name" bash "$CI_DIR/build-perf.sh" host "$KSRC" "$out" ||
	die "perf with $name.patch does not build, see $LOGS/build-perf-host-negative.log"

data=$WORK/perf-sample-$name-data
rm -rf "$data"
mkdir -p "$data"
rc=0
bounded 900 "check-perf-sample.py with the perf of $name" \
	python3 "$CI_DIR/check-perf-sample.py" "$out/perf" "$WORK/perf-sample" "$boot_log" \
	"$data" > "$LOGS/perf-sample-$name.ktap" || rc=$?
cat "$LOGS/perf-sample-$name.ktap"
exit $rc
