#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot $WORK/images/Image-$1 on the ETR path of the QEMU model
# (-M virt,coresight=etr: ETMs, a funnel, an ETR all CPUs share) with only
# the boot tests of tools/tests/etr-nmi: AUX pause and resume of an event
# on the ETR from cpu-clock and from cycles (NMI) samplers. Meant for the
# debug kernel, whose lockdep reports a lock taken in NMI; the console goes
# to $LOGS/boot-etr-nmi-$1.log. Fails like ci/boot.sh, on a splat or a
# hang; ci/ktap-results.py counts the results.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
bash "$CI_DIR/make-initramfs.sh" "$TOP/tools/tests/etr-nmi" initramfs-etr-nmi
KUNIT=${KUNIT:-0} CORESIGHT=etr INITRAMFS=initramfs-etr-nmi \
	bash "$CI_DIR/boot.sh" "$name" "etr-nmi-$name"
