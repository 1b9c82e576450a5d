#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sharing the one TMC-ETR of the QEMU model through the perf ABI: boots
# $WORK/images/Image-$1 (default: series) with -M virt,coresight=etr and
# the initramfs of tools/etr-share, then decodes on the host the AUX
# buffers it printed (ci/check-etr-share.py, etedec -f). The boot's KTAP is
# in $LOGS/boot-etr-share-$1.log, the decoding's in
# $LOGS/etr-share-check-$1.log; fails if a test of either fails.
# ALLOW_WARNING is passed on to ci/boot.sh (for a kernel without the fix).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:-series}
boot_log=$LOGS/boot-etr-share-$kernel.log
check_log=$LOGS/etr-share-check-$kernel.log

gcc -O2 -Wall -Wno-unused-function -o "$WORK/etedec" \
	"$TOP/tools/qemu/tests/etedec.c" -lopencsd_c_api -lopencsd ||
	die "cannot build the decoder"
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/etr-share" etr-share-initramfs
# The boot takes about 15 s: a hang need not wait for boot.sh's 600 s
KUNIT=${KUNIT:-0} CORESIGHT=etr INITRAMFS=etr-share-initramfs BOOT_TIMEOUT=${BOOT_TIMEOUT:-180} \
	bash "$CI_DIR/boot.sh" "$kernel" "etr-share-$kernel"
rc=0
bounded 900 "check-etr-share.py on $boot_log" \
	python3 "$CI_DIR/check-etr-share.py" "$WORK/etedec" "$boot_log" \
	"$WORK/etr-share-$kernel" "$WORK/etr-share-initramfs/tests/etr-share" \
	> "$check_log" || rc=$?
grep -E '^(not )?ok ' "$boot_log" "$check_log" | sed "s|^$LOGS/||"
bounded 300 "ktap-results.py on $boot_log" python3 "$CI_DIR/ktap-results.py" "$boot_log" "$check_log" ||
	die "etr-share on $kernel failed, see $boot_log and $check_log"
[ $rc -eq 0 ] || die "decoding the AUX buffers of $kernel failed, see $check_log"
log "$kernel: the ETR is shared as it must be"
