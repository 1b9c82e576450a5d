#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The main job: apply the series to the pinned tree, build it, boot it in
# QEMU and run tools/demo/aux-sample-demo, which takes AUX samples with a
# cs_etm group leader through the perf ABI and prints what they hold.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

for step in install-deps fetch-base apply-series; do
	bash "$CI_DIR/$step.sh"
done
bash "$CI_DIR/build-qemu.sh" "$WORK/qemu"
bash "$CI_DIR/build-kernel.sh" series series
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/demo" demo
KUNIT=0 INITRAMFS=demo bash "$CI_DIR/boot.sh" series demo
echo "=== demo output"
grep -E '^(aux-sample-demo|sample):' "$LOGS/boot-demo.log"
