#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the NMI paths of the cs_etm PMU (snapshot_aux, AUX pause and
# resume) call, from the built objects of drivers/hwtracing/coresight in
# $KOUT: no trace path or helper (CTI) code, no lock, sleep or allocation,
# and out of CoreSight only the calls ci/check-nmi-calls.py allows. $1
# names the kernel (series, or a mutation of ci/prove-tests-fail.sh);
# the KTAP goes to $LOGS/nmi-calls-$1.ktap, the failures to stderr.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:-series}
objs=("$KOUT"/drivers/hwtracing/coresight/*.o)
[ -f "${objs[0]}" ] || die "no objects in $KOUT/drivers/hwtracing/coresight: build the kernel first"

rc=0
bounded 900 "check-nmi-calls.py on $KOUT" \
	python3 "$CI_DIR/check-nmi-calls.py" --objdump "${CROSS_COMPILE}objdump" --nm "${CROSS_COMPILE}nm" \
	"${objs[@]}" > "$LOGS/nmi-calls-$name.ktap" || rc=$?
cat "$LOGS/nmi-calls-$name.ktap"
bounded 300 "ktap-results.py on $LOGS/nmi-calls-$name.ktap" \
	python3 "$CI_DIR/ktap-results.py" "$LOGS/nmi-calls-$name.ktap" || rc=1
[ $rc -eq 0 ] || die "the NMI paths of cs_etm call what they must not, see $LOGS/nmi-calls-$name.ktap"
log "the NMI paths of cs_etm call no path, helper, lock, sleep or allocation"
