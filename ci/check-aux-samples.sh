#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Decode, with OpenCSD, every AUX sample that tools/tests/aux-sample-dump
# printed in the boot log $LOGS/boot-$1.log (see ci/check-aux-samples.py),
# and, with --latest, those that tools/tests/aux-sample-latest took at
# known page faults: each must end with the trace of its fault.
# The KTAP results go to $LOGS/aux-samples-$1.log and
# $LOGS/aux-latest-$1.log, for ci/ktap-results.py; fails if a sample size
# fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
boot_log=$LOGS/boot-$name.log
[ -f "$boot_log" ] || die "no $boot_log"

# The decoder of the QEMU model's tests, with its AUX sample mode
etedec=$WORK/etedec
gcc -O2 -Wall -Wno-unused-function -o "$etedec" "$TOP/tools/qemu/tests/etedec.c" \
	-lopencsd_c_api -lopencsd || die "cannot build etedec (libopencsd-dev)"

# $1: name of the log and work directory; $2...: options of
# check-aux-samples.py
decode() {
	local out=$1 rc=0

	shift
	bounded 900 "check-aux-samples.py${*:+ $*} on $boot_log" \
		python3 "$CI_DIR/check-aux-samples.py" "$@" "$boot_log" "$etedec" "$WORK/$out-$name" \
		> "$LOGS/$out-$name.log" || rc=$?
	grep -E '^(ok|not ok|# [0-9]+ byte samples:)' "$LOGS/$out-$name.log" | sed 's/^/  /'
	return $rc
}

rc=0
decode aux-samples || rc=$?
latest_rc=0
decode aux-latest --latest || latest_rc=$?
[ $rc -eq 0 ] || die "AUX samples of boot $name do not decode as they must, see $LOGS/aux-samples-$name.log"
[ $latest_rc -eq 0 ] ||
	die "AUX samples of boot $name do not end with the latest trace, see $LOGS/aux-latest-$name.log"
log "$name: every AUX sample decodes, and ends with the latest trace"
