#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot $WORK/images/Image-$1 with only the boot test of
# tools/tests/aux-remap: an AUX area of a TRBE event mapped again, which
# 7.2.13 overruns (patches 4 and 7 of the series). It has a boot of its
# own because it oopses a kernel without those patches, which would end
# every test after it. The console goes to $LOGS/boot-aux-remap-$1.log.
# Fails like ci/boot.sh, on a splat or a hang; ci/ktap-results.py counts
# the results.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/tests/aux-remap" initramfs-aux-remap
KUNIT=0 INITRAMFS=initramfs-aux-remap bash "$CI_DIR/boot.sh" "$name" "aux-remap-$name"
