#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot $WORK/images/Image-$1 with $WORK/$INITRAMFS.cpio.gz (default:
# initramfs, the boot tests) on QEMU virt and save the console to
# $LOGS/boot-$2.log (default: boot-$1.log). Fails on a hung boot (timeout),
# on a boot that does not reach the end of the boot tests, and on any
# oops, BUG, WARN, lockdep or other splat in the log. SMP sets the number
# of CPUs (default 4).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
image=$WORK/images/Image-$name
log_file=$LOGS/boot-${2:-$name}.log
# The QEMU of ci/build-qemu.sh, with the CoreSight model (ETE and TRBE)
QEMU=${QEMU:-$WORK/qemu/qemu-system-aarch64}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-600}
[ -f "$image" ] || die "no $image"
[ -x "$QEMU" ] || die "no $QEMU: run ci/build-qemu.sh \$WORK/qemu first"

log "booting $name with $QEMU (timeout ${BOOT_TIMEOUT}s)"
rc=0
timeout --foreground "$BOOT_TIMEOUT" "$QEMU" \
	-M virt,gic-version=3,coresight=on -cpu max -smp "${SMP:-4}" -m 1G \
	-nographic -nic none -no-reboot \
	-kernel "$image" -initrd "$WORK/${INITRAMFS:-initramfs}.cpio.gz" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 oops=panic softlockup_panic=1" \
	< /dev/null > "$log_file" 2>&1 || rc=$?
[ $rc -ne 124 ] || die "boot of $name hung: no power off after ${BOOT_TIMEOUT}s, see $log_file"
[ $rc -eq 0 ] || die "QEMU exited with $rc, see $log_file"

python3 "$CI_DIR/check-boot-log.py" "$log_file"
