#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot $WORK/images/Image-$1 with the TRBE fault injection of the QEMU
# model on (every 4th disable of a CPU's trace unit makes its TRBE report
# a stage 1 fault) and only the boot tests of tools/tests/trbe-fault, which
# need it; the console goes to $LOGS/boot-trbe-fault-$1.log. Fails like
# ci/boot.sh, on a splat or a hang; ci/ktap-results.py counts the results.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/tests/trbe-fault" initramfs-trbe-fault
KUNIT=${KUNIT:-0} TRBE_FAULT_AT_DISABLE=4 INITRAMFS=initramfs-trbe-fault \
	bash "$CI_DIR/boot.sh" "$name" "trbe-fault-$name"
