#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot $WORK/images/Image-$1 with $WORK/$INITRAMFS.cpio.gz (default:
# initramfs, the boot tests) on QEMU virt and save the console to
# $LOGS/boot-$2.log (default: boot-$1.log). Fails on a hung boot (timeout),
# on a boot that does not reach the end of the boot tests, and on any
# oops, BUG, WARN, lockdep or other splat in the log. SMP sets the number
# of CPUs (default 4).
# CORESIGHT selects the trace path of the model (-M virt,coresight=):
# on (default: ETE and TRBE per CPU) or etr (ETMv4s, a funnel, a TMC-ETR).
# TRBE_FAULT_AT_DISABLE=N turns on the fault injection of the QEMU model:
# the TRBE of a CPU reports a fault at every Nth disable of its trace unit.
# CPU_PROPS adds properties to -cpu max, for example the MIDR, TRBE
# alignment and TRBE errata of ci/boot-trbe-errata.sh.
# Every CPU has a PSCI idle state (ci/add-idle-states.sh), so that CPU PM
# runs at each idle period as on real systems; IDLE_STATES=0 boots
# without them.
# The PMU's overflow interrupt is a pseudo-NMI (irqchip.gicv3_pseudo_nmi=1);
# PSEUDO_NMI=0 boots without, for the case of ci/prove-tests-fail.sh that
# shows tools/tests/pmu-nmi.c can fail.
# KERNEL_ARGS adds to the kernel command line, for example cs_etm_fuzz=90
# to run the fuzzer after the boot tests (see tools/initramfs/init.c).
# KUNIT=0 keeps the built-in KUnit suites from running (kunit.enable=0):
# they run in one boot of a kernel, so that each is counted once.
# ALLOW_WARNING, a regex, lets a WARN whose WARNING line matches it pass,
# for a kernel without a fix (see ci/check-boot-log.py).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
image=$WORK/images/Image-$name
log_file=$LOGS/boot-${2:-$name}.log
# The QEMU of ci/build-qemu.sh, with the CoreSight model
QEMU=${QEMU:-$WORK/qemu/qemu-system-aarch64}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-600}
CORESIGHT=${CORESIGHT:-on}
[ -f "$image" ] || die "no $image"
[ -x "$QEMU" ] || die "no $QEMU: run ci/build-qemu.sh \$WORK/qemu first"
cpu=max
args="console=ttyAMA0 rdinit=/init panic=-1 oops=panic softlockup_panic=1"
# Pseudo-NMIs, so that the PMU's overflow interrupt is an NMI
[ "${PSEUDO_NMI:-1}" = 0 ] || args+=" irqchip.gicv3_pseudo_nmi=1"
[ "${KUNIT:-1}" = 1 ] || args+=" kunit.enable=0"
[ -z "${TRBE_FAULT_AT_DISABLE:-}" ] || cpu+=",x-trbe-fault-at-disable=$TRBE_FAULT_AT_DISABLE"
[ -z "${CPU_PROPS:-}" ] || cpu+=",$CPU_PROPS"

# shellcheck disable=SC2054 # the commas are -M's, not the array's
machine=(-M virt,gic-version=3,coresight="$CORESIGHT" -cpu "$cpu" -smp "${SMP:-4}" -m 1G
	 -nographic -nic none -no-reboot)
dtb=()
if [ "${IDLE_STATES:-1}" = 1 ]; then
	dtb_file=$WORK/dtb/boot-${2:-$name}.dtb
	mkdir -p "$WORK/dtb"
	"$QEMU" "${machine[@]}" -machine dumpdtb="$dtb_file.virt" > /dev/null 2>&1 ||
		die "QEMU could not write its device tree to $dtb_file.virt"
	bash "$CI_DIR/add-idle-states.sh" "$dtb_file.virt" "$dtb_file" "${SMP:-4}"
	dtb=(-dtb "$dtb_file")
fi

log "booting $name with $QEMU -cpu $cpu, coresight=$CORESIGHT${dtb:+, idle states} (timeout ${BOOT_TIMEOUT}s)${KERNEL_ARGS:+, $KERNEL_ARGS}"
rc=0
timeout --foreground "$BOOT_TIMEOUT" "$QEMU" "${machine[@]}" "${dtb[@]}" \
	-kernel "$image" -initrd "$WORK/${INITRAMFS:-initramfs}.cpio.gz" \
	-append "$args ${KERNEL_ARGS:-}" \
	< /dev/null > "$log_file" 2>&1 || rc=$?
[ $rc -ne 124 ] || die "boot of $name hung: no power off after ${BOOT_TIMEOUT}s, see $log_file"
[ $rc -eq 0 ] || die "QEMU exited with $rc, see $log_file"

bounded 300 "check-boot-log.py on $log_file" \
	python3 "$CI_DIR/check-boot-log.py" ${ALLOW_WARNING:+--allow-warning "$ALLOW_WARNING"} "$log_file"
