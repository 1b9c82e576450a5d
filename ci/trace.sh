#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record CoreSight trace through perf on one trace path of the QEMU model
# and decode it. Boots the series with -M virt,coresight=$1 (on: ETE and
# TRBE per CPU; etr: a memory-mapped ETMv4 per CPU, a funnel and a
# TMC-ETR) and the initramfs of tools/trace, whose cs-trace-record checks
# the devices the upstream drivers probed and prints the AUX buffers it
# recorded; ci/check-trace.py then decodes each buffer with libopencsd
# (tools/qemu/tests/etedec.c) and checks packet errors, trace IDs and the
# context IDs (PIDs) in it, and the user space trace instruction by
# instruction against the program that ran.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

topology=${1:-}
case $topology in
on | etr) ;;
*) die "usage: $0 on|etr" ;;
esac
log=$LOGS/boot-trace-$topology.log

gcc -O2 -Wall -Wno-unused-function -o "$WORK/etedec" \
	"$TOP/tools/qemu/tests/etedec.c" -lopencsd_c_api -lopencsd ||
	die "cannot build the decoder"
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/trace" trace-initramfs
KUNIT=0 CORESIGHT=$topology INITRAMFS=trace-initramfs \
	bash "$CI_DIR/boot.sh" series "trace-$topology"
grep -E '^# coresight devices:' "$log" || true
bounded 300 "ktap-results.py on $log" python3 "$CI_DIR/ktap-results.py" "$log" ||
	die "cs-trace-record failed, see $log"
# KTAP of the decoding in $LOGS/trace-check-$topology.log
bounded 900 "check-trace.py on $log" \
	python3 "$CI_DIR/check-trace.py" "$WORK/etedec" "$log" "$LOGS/trace-$topology" \
	"$WORK/trace-initramfs/tests/cs-trace-record" | tee "$LOGS/trace-check-$topology.log"
